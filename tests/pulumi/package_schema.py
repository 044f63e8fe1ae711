"""Checks a Pulumi package schema against the rules of Pulumi's published metaschema
(pulumi/pulumi pkg/codegen/schema/pulumi.json), written down here as facts: the top-level
properties it allows, the patterns of names, versions and tokens, the four shapes of a type
reference, and that every `$ref` and every required property resolves. Returns the problems.
"""

import re

TOP_LEVEL = {
    "name", "displayName", "version", "description", "keywords", "homepage", "license",
    "attribution", "repository", "logoUrl", "pluginDownloadURL", "configurationDocsUrl",
    "validateCredentialsOnNew", "publisher", "namespace", "meta", "config", "types",
    "dependencies", "provider", "resources", "functions", "language", "parameterization",
    "allowedPackageNames",
}
NAME = re.compile(r"^[a-zA-Z][-a-zA-Z0-9_]*$")
VERSION = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
TOKEN = re.compile(r"^[a-zA-Z][-a-zA-Z0-9_]*:([^0-9][a-zA-Z0-9._/-]*)?:[^0-9][a-zA-Z0-9._/-]*$")
PRIMITIVES = {"boolean", "integer", "number", "string"}
BUILTIN_REFS = {"pulumi.json#/Any", "pulumi.json#/Archive", "pulumi.json#/Asset", "pulumi.json#/Json"}


def problems(schema):
    found = []
    types = schema.get("types", {})

    def type_spec(spec, where):
        if not isinstance(spec, dict):
            found.append(f"{where}: a type reference must be an object")
            return
        if "$ref" in spec:
            ref = spec["$ref"]
            if ref.startswith("#/types/"):
                if ref[len("#/types/"):] not in types:
                    found.append(f"{where}: $ref {ref} names no type of the package")
            elif ref not in BUILTIN_REFS and not ref.startswith("/"):
                found.append(f"{where}: $ref {ref} is not a reference Pulumi knows")
            return
        kind = spec.get("type")
        if kind in PRIMITIVES:
            extra = {"items", "additionalProperties", "oneOf"} & set(spec)
            if extra:
                found.append(f"{where}: a primitive type may not have {sorted(extra)}")
        elif kind == "array":
            if "items" not in spec:
                found.append(f"{where}: an array type needs items")
            else:
                type_spec(spec["items"], f"{where}.items")
        elif kind == "object":
            if "additionalProperties" in spec:
                type_spec(spec["additionalProperties"], f"{where}.additionalProperties")
        else:
            found.append(f"{where}: type {kind!r} is none of boolean, integer, number, string, array, object")

    def properties(props, required, where):
        if not isinstance(props, dict):
            found.append(f"{where}: properties must be an object")
            return
        for name, spec in props.items():
            type_spec(spec, f"{where}.{name}")
            if "secret" in spec and not isinstance(spec["secret"], bool):
                found.append(f"{where}.{name}: secret must be a boolean")
        for name in required or []:
            if name not in props:
                found.append(f"{where}: required {name!r} is not one of its properties")

    extra = set(schema) - TOP_LEVEL
    if extra:
        found.append(f"top level: properties the metaschema does not allow: {sorted(extra)}")
    if not NAME.match(schema.get("name", "")):
        found.append(f"name {schema.get('name')!r} does not match {NAME.pattern}")
    if "version" in schema and not VERSION.match(schema["version"]):
        found.append(f"version {schema['version']!r} is not semver")
    config = schema.get("config", {})
    if set(config) - {"variables", "defaults"}:
        found.append("config: only variables and defaults are allowed")
    properties(config.get("variables", {}), config.get("defaults"), "config.variables")
    for section in ("types", "resources", "functions"):
        for token in schema.get(section, {}):
            if not TOKEN.match(token):
                found.append(f"{section}: token {token!r} does not match {TOKEN.pattern}")
    for token, t in types.items():
        if t.get("type") != "object" and "enum" not in t:
            found.append(f"types.{token}: a complex type is an object or an enum")
        properties(t.get("properties", {}), t.get("required"), f"types.{token}")
    for token, r in list(schema.get("resources", {}).items()) + [("provider", schema.get("provider", {}))]:
        properties(r.get("properties", {}), r.get("required"), f"{token}.properties")
        properties(r.get("inputProperties", {}), r.get("requiredInputs"), f"{token}.inputProperties")
        for reserved in ("id", "urn"):
            if reserved in r.get("properties", {}):
                found.append(f"{token}: {reserved!r} is Pulumi's own resource property")
    for token, f in schema.get("functions", {}).items():
        for side in ("inputs", "outputs"):
            o = f.get(side)
            if o is not None:
                properties(o.get("properties", {}), o.get("required"), f"{token}.{side}")
    return found

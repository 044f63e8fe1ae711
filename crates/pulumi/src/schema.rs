//! The Pulumi package schema (the JSON `GetSchema` returns and `terrarium inspect --pulumi`
//! prints), generated from the provider's Terraform schema.
//!
//! * The provider configuration becomes `config.variables` and the provider resource's inputs.
//! * A managed resource type becomes a resource: its configurable attributes (required or
//!   optional) are `inputProperties`, every attribute but `id` (Pulumi's own resource ID, always
//!   present) is in `properties`; write-only attributes are inputs only.
//! * A data source becomes the function `getName` (inputs: its configurable attributes;
//!   outputs: all of them), a provider function a function whose outputs are `{ result }`.
//! * Nested blocks and object attributes become object types named after their place
//!   (`random:index/ChoiceOption:ChoiceOption`); `dynamic` is `pulumi.json#/Any`.
//! * Sensitive attributes are `secret`, deprecated ones carry `deprecationMessage`.
//!
//! Terraform schemas declare no default values (defaults are the provider's plan), so the
//! schema has none; Pulumi programs see them in the outputs after a preview.

use serde_json::{Map, Value as Json, json};
use terrarium_model::Type;
use terrarium_model::schema::{
    Attribute, AttributeType, Block, BlockNesting, ObjectNesting, ProviderSchema,
};

use super::names::{PropertyNames, Tokens, pascal_case};

/// The package schema of `schema`, served as package `tokens.package()` at `version`.
pub fn package_schema(schema: &ProviderSchema, tokens: &Tokens, version: &str) -> Json {
    let package = tokens.package();
    let mut types = Map::new();
    let mut resources = Map::new();
    let mut functions = Map::new();

    let mut gen_ = Generator { package, types: &mut types };
    let provider = gen_.object(&schema.provider.block, "Provider", Side::Input);

    for (name, s) in &schema.resources {
        let Some(token) = tokens.resource(name) else { continue };
        let base = token.rsplit(':').next().unwrap_or(name);
        let inputs = gen_.object(&s.block, base, Side::Input);
        let outputs = gen_.object(&s.block, base, Side::Output);
        let mut r = Map::new();
        describe(&mut r, &s.block.description.text);
        r.insert("inputProperties".into(), inputs.properties);
        r.insert("requiredInputs".into(), inputs.required);
        r.insert("properties".into(), outputs.properties);
        r.insert("required".into(), outputs.required);
        if s.block.deprecated || !s.block.deprecation_message.is_empty() {
            r.insert("deprecationMessage".into(), deprecation(&s.block.deprecation_message));
        }
        resources.insert(token.to_string(), Json::Object(r));
    }

    for (name, s) in &schema.data_sources {
        let Some(token) = tokens.data_source(name) else { continue };
        let base = pascal_case(token.rsplit(':').next().unwrap_or(name));
        let inputs = gen_.object(&s.block, &format!("{base}Args"), Side::Input);
        let outputs = gen_.object(&s.block, &format!("{base}Result"), Side::Output);
        let mut f = Map::new();
        describe(&mut f, &s.block.description.text);
        f.insert(
            "inputs".into(),
            json!({ "properties": inputs.properties, "required": inputs.required }),
        );
        f.insert(
            "outputs".into(),
            json!({ "properties": outputs.properties, "required": outputs.required }),
        );
        functions.insert(token.to_string(), Json::Object(f));
    }

    for (name, function) in &schema.functions {
        let Some(token) = tokens.function(name) else { continue };
        let base = pascal_case(token.rsplit(':').next().unwrap_or(name));
        let mut properties = Map::new();
        let mut required = Vec::new();
        let params = function.parameters.iter().chain(function.variadic.iter());
        let names = PropertyNames::new(params.clone().map(|p| p.name.as_str()));
        for (i, p) in params.enumerate() {
            let pulumi = names.pulumi(&p.name);
            let ty = if function.variadic.as_ref() == Some(p) && i >= function.parameters.len() {
                Type::list(p.ty.clone())
            } else {
                p.ty.clone()
            };
            let mut spec = gen_.type_spec(&ty, &format!("{base}{}", pascal_case(&p.name)));
            describe(&mut spec, &p.description.text);
            if i < function.parameters.len() && !p.allow_null {
                required.push(Json::String(pulumi.clone()));
            }
            properties.insert(pulumi, Json::Object(spec));
        }
        let result = gen_.type_spec(&function.return_type, &format!("{base}Result"));
        let mut f = Map::new();
        let text = if function.description.is_empty() {
            function.summary.clone()
        } else {
            function.description.text.clone()
        };
        describe(&mut f, &text);
        f.insert("inputs".into(), json!({ "properties": properties, "required": required }));
        f.insert(
            "outputs".into(),
            json!({ "properties": { "result": result }, "required": ["result"] }),
        );
        if !function.deprecation_message.is_empty() {
            f.insert("deprecationMessage".into(), deprecation(&function.deprecation_message));
        }
        functions.insert(token.to_string(), Json::Object(f));
    }

    let mut provider_spec = Map::new();
    describe(&mut provider_spec, &schema.provider.block.description.text);
    provider_spec.insert("inputProperties".into(), provider.properties.clone());
    provider_spec.insert("requiredInputs".into(), provider.required.clone());

    json!({
        "name": package,
        "displayName": package,
        "version": version,
        "description": format!("The {package} provider: a Terraform provider component served by Terrarium."),
        // Tokens are `PACKAGE:index/member:Name`: the module is what comes before the last
        // `/` (`index`), as the bridge writes it; Pulumi refuses `(.*)` ("nested modules under
        // index are not allowed").
        "meta": { "moduleFormat": "(.*)(?:/[^/]*)" },
        "config": { "variables": provider.properties, "defaults": provider.required },
        "provider": provider_spec,
        "resources": resources,
        "functions": functions,
        "types": types,
        "language": {},
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

struct ObjectSpec {
    properties: Json,
    required: Json,
}

struct Generator<'a> {
    package: &'a str,
    types: &'a mut Map<String, Json>,
}

impl Generator<'_> {
    /// The properties of a block (a resource, data source, configuration or nested block);
    /// `base` names the object types of what is nested inside.
    fn object(&mut self, block: &Block, base: &str, side: Side) -> ObjectSpec {
        let names = PropertyNames::new(
            block
                .attributes
                .iter()
                .map(|a| a.name.as_str())
                .chain(block.block_types.iter().map(|b| b.type_name.as_str())),
        );
        let mut properties = Map::new();
        let mut required = Vec::new();
        for a in &block.attributes {
            let configurable = a.required || a.optional;
            let skip = match side {
                Side::Input => !configurable,
                // Pulumi's resource ID is its own output; write-only values are never stored.
                Side::Output => a.write_only || (a.name == "id" && base != "Provider"),
            };
            if skip {
                continue;
            }
            let pulumi = names.pulumi(&a.name);
            let spec = self.attribute(a, &format!("{base}{}", pascal_case(&a.name)));
            if a.required {
                required.push(Json::String(pulumi.clone()));
            }
            properties.insert(pulumi, Json::Object(spec));
        }
        for b in &block.block_types {
            if b.computed && side == Side::Input {
                // The provider's to set (a computed block): an output only, as a computed-only
                // attribute is.
                continue;
            }
            let type_base = format!("{base}{}", pascal_case(&b.type_name));
            let token = self.block_type(&b.block, &type_base, side);
            let reference = json!({ "$ref": format!("#/types/{token}") });
            let spec = match b.nesting {
                BlockNesting::Single | BlockNesting::Group => reference,
                BlockNesting::List | BlockNesting::Set => {
                    json!({ "type": "array", "items": reference })
                }
                BlockNesting::Map => json!({ "type": "object", "additionalProperties": reference }),
            };
            let mut spec = spec.as_object().cloned().unwrap_or_default();
            describe(&mut spec, &b.block.description.text);
            let pulumi = names.pulumi(&b.type_name);
            if b.min_items > 0 {
                required.push(Json::String(pulumi.clone()));
            }
            properties.insert(pulumi, Json::Object(spec));
        }
        ObjectSpec { properties: Json::Object(properties), required: Json::Array(required) }
    }

    /// An object type for a nested block. Inputs and outputs of one block share the type
    /// when they have the same properties; otherwise the output type gets an `Output` suffix.
    fn block_type(&mut self, block: &Block, base: &str, side: Side) -> String {
        let spec = self.object(block, base, side);
        let mut object = Map::new();
        object.insert("type".into(), Json::String("object".into()));
        describe(&mut object, &block.description.text);
        object.insert("properties".into(), spec.properties);
        object.insert("required".into(), spec.required);
        self.register(base, side, Json::Object(object))
    }

    /// The token of `object`, registered as `base` unless a different type has that name:
    /// then `{base}Output` for an output type, then the first of `{base}2`, `{base}3`, ...
    /// (`{base}Output2`, ...) that is free or the same type. Two places whose names meet
    /// (`foo_bar` in `Thing`, `bar` in `ThingFoo`, or colliding property names) so never share
    /// a type that is not theirs.
    fn register(&mut self, base: &str, side: Side, object: Json) -> String {
        let first = base.to_string();
        let named = match side {
            Side::Input => first.clone(),
            Side::Output => format!("{base}Output"),
        };
        let numbered = (2u32..).map(|n| format!("{named}{n}"));
        for candidate in
            std::iter::once(first).chain(std::iter::once(named.clone())).chain(numbered)
        {
            let token = format!("{}:index/{candidate}:{candidate}", self.package);
            match self.types.get(&token) {
                Some(existing) if *existing != object => continue,
                Some(_) => return token,
                None => {
                    self.types.insert(token.clone(), object);
                    return token;
                }
            }
        }
        unreachable!("the numbered names never run out")
    }

    fn attribute(&mut self, a: &Attribute, base: &str) -> Map<String, Json> {
        let mut spec = match &a.ty {
            AttributeType::Type(ty) => self.type_spec(ty, base),
            AttributeType::Nested { nesting, attributes } => {
                let block = Block { attributes: attributes.clone(), ..Block::default() };
                let token = self.block_type(&block, base, Side::Input);
                let reference = json!({ "$ref": format!("#/types/{token}") });
                let spec = match nesting {
                    ObjectNesting::Single => reference,
                    ObjectNesting::List | ObjectNesting::Set => {
                        json!({ "type": "array", "items": reference })
                    }
                    ObjectNesting::Map => {
                        json!({ "type": "object", "additionalProperties": reference })
                    }
                };
                spec.as_object().cloned().unwrap_or_default()
            }
        };
        describe(&mut spec, &a.description.text);
        if a.sensitive {
            spec.insert("secret".into(), Json::Bool(true));
        }
        if a.deprecated {
            spec.insert("deprecationMessage".into(), deprecation(&a.deprecation_message));
        }
        spec
    }

    /// The type spec of a plain Terraform type; object types are registered under `base`.
    fn type_spec(&mut self, ty: &Type, base: &str) -> Map<String, Json> {
        let spec = match ty {
            Type::String => json!({ "type": "string" }),
            Type::Number => json!({ "type": "number" }),
            Type::Bool => json!({ "type": "boolean" }),
            Type::Dynamic | Type::Tuple(_) => json!({ "$ref": "pulumi.json#/Any" }),
            Type::List(e) | Type::Set(e) => {
                json!({ "type": "array", "items": self.type_spec(e, base) })
            }
            Type::Map(e) => {
                json!({ "type": "object", "additionalProperties": self.type_spec(e, base) })
            }
            Type::Object(o) => {
                let names = PropertyNames::new(o.attributes.keys().map(String::as_str));
                let mut properties = Map::new();
                let mut required = Vec::new();
                for (name, t) in &o.attributes {
                    let pulumi = names.pulumi(name);
                    let spec = self.type_spec(t, &format!("{base}{}", pascal_case(name)));
                    if !o.optional.contains(name) {
                        required.push(Json::String(pulumi.clone()));
                    }
                    properties.insert(pulumi, Json::Object(spec));
                }
                let object =
                    json!({ "type": "object", "properties": properties, "required": required });
                let token = self.register(base, Side::Input, object);
                json!({ "$ref": format!("#/types/{token}") })
            }
        };
        spec.as_object().cloned().unwrap_or_default()
    }
}

fn describe(spec: &mut Map<String, Json>, text: &str) {
    if !text.is_empty() {
        spec.insert("description".into(), Json::String(text.to_string()));
    }
}

fn deprecation(message: &str) -> Json {
    Json::String(if message.is_empty() { "Deprecated.".to_string() } else { message.to_string() })
}

#[cfg(test)]
mod tests {
    use terrarium_model::schema::{NestedBlock, Schema};

    use super::*;

    fn attribute(name: &str, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            ty: AttributeType::Type(ty),
            optional: true,
            ..Attribute::default()
        }
    }

    fn nested(name: &str, inner: Attribute) -> NestedBlock {
        NestedBlock {
            type_name: name.into(),
            nesting: BlockNesting::Single,
            block: Block { attributes: vec![inner], ..Block::default() },
            min_items: 0,
            max_items: 0,
            computed: false,
        }
    }

    #[test]
    fn colliding_names_keep_their_own_properties_and_types() {
        // `foo_bar` and `fooBar` would both be `fooBar`, and their types both `ThingFooBar`.
        let block = Block {
            attributes: vec![
                attribute("min_length", Type::Number),
                attribute("minLength", Type::String),
            ],
            block_types: vec![
                nested("foo_bar", attribute("a", Type::String)),
                nested("fooBar", attribute("b", Type::Bool)),
            ],
            ..Block::default()
        };
        let mut schema = ProviderSchema::default();
        schema.resources.insert("p_thing".into(), Schema { block, version: 0 });
        let none: Vec<String> = Vec::new();
        let tokens = Tokens::new("p", schema.resources.keys(), &none, &none).unwrap();
        let json = package_schema(&schema, &tokens, "1.0.0");
        let thing = &json["resources"]["p:index/thing:Thing"]["inputProperties"];
        assert_eq!(thing["min_length"]["type"], "number");
        assert_eq!(thing["minLength"]["type"], "string");
        let type_of = |property: &str| {
            let reference = thing[property]["$ref"].as_str().unwrap_or_default();
            json["types"][reference.trim_start_matches("#/types/")]["properties"].clone()
        };
        assert_eq!(type_of("foo_bar")["a"]["type"], "string", "{json:#}");
        assert_eq!(type_of("fooBar")["b"]["type"], "boolean", "{json:#}");
    }

    #[test]
    fn a_computed_block_is_an_output_only() {
        let mut address = nested("address", attribute("ip", Type::String));
        address.computed = true;
        let block = Block {
            attributes: vec![attribute("name", Type::String)],
            block_types: vec![address],
            ..Block::default()
        };
        let mut schema = ProviderSchema::default();
        schema.resources.insert("p_net".into(), Schema { block, version: 0 });
        let none: Vec<String> = Vec::new();
        let tokens = Tokens::new("p", schema.resources.keys(), &none, &none).unwrap();
        let json = package_schema(&schema, &tokens, "1.0.0");
        let net = &json["resources"]["p:index/net:Net"];
        assert!(net["inputProperties"]["address"].is_null(), "{json:#}");
        assert!(net["inputProperties"]["name"].is_object(), "{json:#}");
        assert!(net["properties"]["address"].is_object(), "{json:#}");
    }
}

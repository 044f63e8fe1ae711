//! `terrarium inspect`: a component's schema, in the JSON shape `terraform providers schema
//! -json` uses for one provider (the object under `provider_schemas["<source>"]`).

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value as Json, json};
use terrarium_model::schema::{
    Attribute, AttributeType, Block, BlockNesting, Description, Function, ObjectNesting, Parameter,
    ProviderSchema, Schema, TextKind,
};

use terrarium_core::Dispatcher;
use terrarium_core::types::IdentitySchema;
use terrarium_runtime::{Runtime, RuntimeSettings};

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The provider component (.wasm) to inspect.
    pub component: PathBuf,
    /// Print the whole `terraform providers schema -json` document, with the provider under
    /// this source address (for example registry.terraform.io/hashicorp/null).
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<String>,
    /// Compile the component instead of using the compiled-component cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Print what the component imports (everything it could ask the host for, and whether
    /// that needs a grant) instead of its schema.
    #[arg(long)]
    pub imports: bool,
    /// Print the Pulumi package schema the component is served with as the Pulumi package
    /// NAME (what `GetSchema` answers; see docs/pulumi.md).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["source", "imports"])]
    pub pulumi: Option<String>,
    /// The package version the Pulumi schema states, with --pulumi [default: 0.0.0-dev].
    #[arg(long = "plugin-version", value_name = "X.Y.Z", requires = "pulumi")]
    pub plugin_version: Option<String>,
}

/// What the sandbox does with an import, for `inspect --imports`.
pub fn import_policy(name: &str) -> &'static str {
    let interface = name.split('@').next().unwrap_or(name);
    match interface {
        i if i.starts_with("wasi:http/") => {
            "outbound HTTP: only to origins granted with allow_http (--allow-http)"
        }
        i if i.starts_with("wasi:filesystem/") => {
            "files: only directories granted with allow_dir (--allow-dir)"
        }
        "wasi:cli/environment" => {
            "environment: only variables granted with allow_env (--allow-env); no arguments"
        }
        i if i.starts_with("wasi:sockets/") => "raw sockets and name lookups: always denied",
        i if i.starts_with("wasi:clocks/") || i.starts_with("wasi:random/") => "always available",
        "wasi:cli/stdout" | "wasi:cli/stderr" => {
            "always available: output goes to the provider's log"
        }
        "wasi:cli/stdin" => "always available: empty",
        i if i.starts_with("wasi:cli/") || i.starts_with("wasi:io/") => "always available",
        "terrarium:provider/streams" => {
            "always available: where list results and action progress go"
        }
        "terrarium:provider/lifecycle" => {
            "always available: whether Terraform asked the provider to stop (Ctrl-C)"
        }
        i if i.starts_with("terrarium:provider/") => {
            "Terrarium's provider interface (logging, types)"
        }
        _ => "provided by the host",
    }
}

/// The `inspect --imports` listing: one import per line with what the sandbox allows.
pub fn imports_listing(imports: &[String]) -> String {
    let width = imports.iter().map(String::len).max().unwrap_or(0);
    imports.iter().map(|i| format!("{i:width$}  {}\n", import_policy(i))).collect()
}

pub fn run(args: &InspectArgs) -> anyhow::Result<()> {
    let mut settings = RuntimeSettings::default();
    if args.no_cache {
        settings.cache_dir = None;
    }
    let runtime = Runtime::load(&args.component, settings)?;
    if args.imports {
        print!("{}", imports_listing(&runtime.imports()));
        return Ok(());
    }
    let provider = crate::tokio_runtime()?.block_on(Dispatcher::start(Arc::new(runtime)))?;
    for d in provider.schema_diagnostics() {
        eprintln!("{d}");
    }
    if let Some(package) = &args.pulumi {
        terrarium_install::pulumi::check_package_name(package)?;
        let version = args.plugin_version.as_deref().unwrap_or(super::pulumi::UNVERSIONED);
        let tokens = terrarium_pulumi::tokens_of(&provider, package)?;
        let schema = terrarium_pulumi::schema::package_schema(provider.schema(), &tokens, version);
        println!("{}", serde_json::to_string_pretty(&schema)?);
        return Ok(());
    }
    let body = provider_json(provider.schema(), provider.identity_schemas());
    let out = match &args.source {
        Some(source) => {
            json!({ "format_version": "1.0", "provider_schemas": { source.clone(): body } })
        }
        None => body,
    };
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// The provider object of `terraform providers schema -json` (Terraform's `jsonprovider`
/// format: empty collections and false flags are omitted, `description_kind` always shown).
pub fn provider_json(
    s: &ProviderSchema,
    identities: &std::collections::BTreeMap<String, IdentitySchema>,
) -> Json {
    let mut o = Map::new();
    o.insert("provider".into(), schema_json(&s.provider));
    let schemas = |m: &std::collections::BTreeMap<String, Schema>| -> Json {
        Json::Object(m.iter().map(|(k, v)| (k.clone(), schema_json(v))).collect())
    };
    if !s.resources.is_empty() {
        o.insert("resource_schemas".into(), schemas(&s.resources));
    }
    if !s.data_sources.is_empty() {
        o.insert("data_source_schemas".into(), schemas(&s.data_sources));
    }
    if !s.ephemeral_resources.is_empty() {
        o.insert("ephemeral_resource_schemas".into(), schemas(&s.ephemeral_resources));
    }
    if !s.list_resources.is_empty() {
        o.insert("list_resource_schemas".into(), schemas(&s.list_resources));
    }
    if !s.functions.is_empty() {
        o.insert(
            "functions".into(),
            Json::Object(s.functions.iter().map(|(k, f)| (k.clone(), function_json(f))).collect()),
        );
    }
    if !identities.is_empty() {
        o.insert(
            "resource_identity_schemas".into(),
            Json::Object(identities.iter().map(|(k, i)| (k.clone(), identity_json(i))).collect()),
        );
    }
    if !s.actions.is_empty() {
        // An action schema has no version of its own: only the block.
        o.insert(
            "action_schemas".into(),
            Json::Object(
                s.actions
                    .iter()
                    .map(|(k, a)| (k.clone(), json!({ "block": block_json(&a.block) })))
                    .collect(),
            ),
        );
    }
    Json::Object(o)
}

fn identity_json(i: &IdentitySchema) -> Json {
    let attributes = i.attributes.iter().map(|a| {
        let mut o = Map::new();
        o.insert("type".into(), a.ty.to_json_value());
        if !a.description.is_empty() {
            o.insert("description".into(), a.description.clone().into());
        }
        flag(&mut o, "required_for_import", a.required_for_import);
        flag(&mut o, "optional_for_import", a.optional_for_import);
        (a.name.clone(), Json::Object(o))
    });
    let mut o = Map::new();
    o.insert("version".into(), i.version.into());
    if !i.attributes.is_empty() {
        o.insert("attributes".into(), Json::Object(attributes.collect()));
    }
    Json::Object(o)
}

fn schema_json(s: &Schema) -> Json {
    json!({ "version": s.version, "block": block_json(&s.block) })
}

fn kind(d: &Description) -> &'static str {
    match d.kind {
        TextKind::Plain => "plain",
        TextKind::Markdown => "markdown",
    }
}

fn describe(o: &mut Map<String, Json>, d: &Description) {
    if !d.text.is_empty() {
        o.insert("description".into(), d.text.clone().into());
    }
    o.insert("description_kind".into(), kind(d).into());
}

fn flag(o: &mut Map<String, Json>, name: &str, on: bool) {
    if on {
        o.insert(name.into(), true.into());
    }
}

fn block_json(b: &Block) -> Json {
    let mut o = Map::new();
    if !b.attributes.is_empty() {
        o.insert("attributes".into(), attributes_json(&b.attributes));
    }
    if !b.block_types.is_empty() {
        let types = b.block_types.iter().map(|nb| {
            let mut t = Map::new();
            let mode = match nb.nesting {
                BlockNesting::Single => "single",
                BlockNesting::List => "list",
                BlockNesting::Set => "set",
                BlockNesting::Map => "map",
                BlockNesting::Group => "group",
            };
            t.insert("nesting_mode".into(), mode.into());
            t.insert("block".into(), block_json(&nb.block));
            if nb.min_items > 0 {
                t.insert("min_items".into(), nb.min_items.into());
            }
            if nb.max_items > 0 {
                t.insert("max_items".into(), nb.max_items.into());
            }
            (nb.type_name.clone(), Json::Object(t))
        });
        o.insert("block_types".into(), Json::Object(types.collect()));
    }
    describe(&mut o, &b.description);
    flag(&mut o, "deprecated", b.deprecated);
    Json::Object(o)
}

fn attributes_json(attrs: &[Attribute]) -> Json {
    Json::Object(attrs.iter().map(|a| (a.name.clone(), attribute_json(a))).collect())
}

fn attribute_json(a: &Attribute) -> Json {
    let mut o = Map::new();
    match &a.ty {
        AttributeType::Type(t) => {
            o.insert("type".into(), t.to_json_value());
        }
        AttributeType::Nested { nesting, attributes } => {
            let mode = match nesting {
                ObjectNesting::Single => "single",
                ObjectNesting::List => "list",
                ObjectNesting::Set => "set",
                ObjectNesting::Map => "map",
            };
            o.insert(
                "nested_type".into(),
                json!({ "attributes": attributes_json(attributes), "nesting_mode": mode }),
            );
        }
    }
    describe(&mut o, &a.description);
    flag(&mut o, "deprecated", a.deprecated);
    flag(&mut o, "required", a.required);
    flag(&mut o, "optional", a.optional);
    flag(&mut o, "computed", a.computed);
    flag(&mut o, "sensitive", a.sensitive);
    flag(&mut o, "write_only", a.write_only);
    Json::Object(o)
}

fn parameter_json(p: &Parameter) -> Json {
    let mut o = Map::new();
    o.insert("name".into(), p.name.clone().into());
    if !p.description.text.is_empty() {
        o.insert("description".into(), p.description.text.clone().into());
    }
    flag(&mut o, "is_nullable", p.allow_null);
    o.insert("type".into(), p.ty.to_json_value());
    Json::Object(o)
}

fn function_json(f: &Function) -> Json {
    let mut o = Map::new();
    if !f.description.text.is_empty() {
        o.insert("description".into(), f.description.text.clone().into());
    }
    if !f.summary.is_empty() {
        o.insert("summary".into(), f.summary.clone().into());
    }
    if !f.deprecation_message.is_empty() {
        o.insert("deprecation_message".into(), f.deprecation_message.clone().into());
    }
    o.insert("return_type".into(), f.return_type.to_json_value());
    if !f.parameters.is_empty() {
        o.insert(
            "parameters".into(),
            Json::Array(f.parameters.iter().map(parameter_json).collect()),
        );
    }
    if let Some(v) = &f.variadic {
        o.insert("variadic_parameter".into(), parameter_json(v));
    }
    Json::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrarium_model::Type;

    #[test]
    fn matches_terraforms_shape_for_a_small_provider() {
        let mut s = ProviderSchema::default();
        s.resources.insert(
            "null_resource".into(),
            Schema {
                version: 0,
                block: Block {
                    attributes: vec![Attribute {
                        name: "id".into(),
                        ty: AttributeType::Type(Type::String),
                        computed: true,
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            },
        );
        let expected = json!({
            "provider": {"version": 0, "block": {"description_kind": "plain"}},
            "resource_schemas": {"null_resource": {"version": 0, "block": {
                "attributes": {"id": {"type": "string", "description_kind": "plain", "computed": true}},
                "description_kind": "plain"
            }}}
        });
        assert_eq!(provider_json(&s, &Default::default()), expected);
    }

    #[test]
    fn identities_lists_and_actions_take_terraforms_shape() {
        use terrarium_core::types::IdentityAttribute;
        let mut s = ProviderSchema::default();
        let config = Schema {
            version: 0,
            block: Block {
                attributes: vec![Attribute {
                    name: "count".into(),
                    ty: AttributeType::Type(Type::Number),
                    required: true,
                    ..Default::default()
                }],
                ..Default::default()
            },
        };
        s.list_resources.insert("x_thing".into(), config.clone());
        s.actions.insert("x_poke".into(), config);
        let identities = std::collections::BTreeMap::from([(
            "x_thing".to_string(),
            IdentitySchema {
                version: 1,
                attributes: vec![IdentityAttribute {
                    name: "n".into(),
                    ty: Type::Number,
                    required_for_import: true,
                    optional_for_import: false,
                    description: String::new(),
                }],
            },
        )]);
        // As `terraform providers schema -json` (1.15) printed it for the hostile test guest.
        let count = json!({"attributes": {"count": {"type": "number", "description_kind": "plain", "required": true}},
                           "description_kind": "plain"});
        let expected = json!({
            "provider": {"version": 0, "block": {"description_kind": "plain"}},
            "list_resource_schemas": {"x_thing": {"version": 0, "block": count}},
            "resource_identity_schemas": {"x_thing": {"version": 1, "attributes": {"n": {"type": "number", "required_for_import": true}}}},
            "action_schemas": {"x_poke": {"block": count}},
        });
        assert_eq!(provider_json(&s, &identities), expected);
    }

    #[test]
    fn imports_are_listed_with_what_the_sandbox_allows() {
        let listing = imports_listing(&[
            "wasi:http/outgoing-handler@0.2.6".to_string(),
            "wasi:sockets/tcp@0.2.6".to_string(),
            "wasi:clocks/monotonic-clock@0.2.6".to_string(),
            "wasi:filesystem/preopens@0.2.6".to_string(),
        ]);
        let lines: Vec<&str> = listing.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(
            lines[0].starts_with("wasi:http/outgoing-handler@0.2.6")
                && lines[0].contains("--allow-http")
        );
        assert!(lines[1].contains("always denied"));
        assert!(lines[2].contains("always available"));
        assert!(lines[3].contains("--allow-dir"));
    }
}

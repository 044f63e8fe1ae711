//! Host bindings for the WIT world, and conversions between them and the neutral model.
//!
//! The generated records are the protocol-neutral shape of every guest call; dispatch builds
//! them with the helpers here, so neither side needs a second set of request structs.

use terrarium_model::flat::{
    self, FlatAttribute, FlatBlock, FlatError, FlatNestedBlock, FlatNode, FlatSchemaError,
};
use terrarium_model::schema::{
    self as ms, AttributeType, BlockNesting, Description, Function, ObjectNesting, Parameter,
    ProviderSchema, ServerCapabilities, TextKind,
};
use terrarium_model::{
    AttributePath, Diagnostic, Number, NumberBound, PathStep, Refinements, Severity, Type,
    TypeError, Value,
};

// The world with the `behaviour` export: its bindings serve components with and without it
// (the host looks each exported interface up on its own, see `runtime::link`).
wasmtime::component::bindgen!({
    world: "terrarium-provider-with-behaviour",
    path: "../../wit",
    exports: { default: async },
    // `push` and `report` wait for room in a bounded channel (backpressure from Terraform),
    // so they are async on the host; `trappable` lets a stale handle trap instead of panic.
    imports: { "terrarium:provider/streams": async | trappable },
    with: {
        "terrarium:provider/streams.list-results": super::streams::ListSink,
        "terrarium:provider/streams.action-progress": super::streams::ProgressSink,
    },
});

pub use self::exports::terrarium::provider::behaviour as wit_behaviour;
pub use self::exports::terrarium::provider::computed_blocks as wit_computed_blocks;
pub use self::exports::terrarium::provider::provider as guest;
pub use self::exports::terrarium::provider::replacement as wit_replacement;
pub use self::terrarium::provider::lifecycle as wit_lifecycle;
pub use self::terrarium::provider::log as wit_log;
pub use self::terrarium::provider::streams as wit_streams;
pub use self::terrarium::provider::types as wit;

/// The WIT package and version this host speaks. It serves components of every version of
/// the same minor line (0.2.x): a patch only adds what a component of an earlier patch can do
/// without (0.2.1 added `behaviour`, 0.2.2 `replacement`, 0.2.3 `computed-blocks`), and
/// wasmtime matches `provider@0.2.0` to this host's `provider@0.2.3` by semver.
pub const WORLD_PACKAGE: &str = "terrarium:provider";
pub const WORLD_VERSION: &str = "0.2.3";
/// The versions of [`WORLD_PACKAGE`] this host serves: this prefix and any patch.
pub const WORLD_LINE: &str = "0.2.";
/// The name under which a component exports the provider interface.
pub const PROVIDER_EXPORT: &str = "terrarium:provider/provider@0.2.3";
/// The name under which a component that lets the host plan exports its behaviour.
pub const BEHAVIOUR_EXPORT: &str = "terrarium:provider/behaviour@0.2.3";
/// The name under which a component (0.2.2 and later) says how its types are replaced.
pub const REPLACEMENT_EXPORT: &str = "terrarium:provider/replacement@0.2.3";
/// The name under which a component (0.2.3 and later) names its computed nested blocks.
pub const COMPUTED_BLOCKS_EXPORT: &str = "terrarium:provider/computed-blocks@0.2.3";

/// A function of the provider interface whose signature differs from the one this host was
/// built for: its name and wasmtime's reason.
#[derive(Debug)]
pub struct SignatureMismatch {
    pub function: &'static str,
    pub reason: String,
}

/// Checks the component's provider interface, function by function, against the signatures
/// of the WIT this host was built with. A component that claims the same WIT version but was
/// built from a changed WIT would otherwise fail at instantiation with an error that names no
/// function (and looks like a crash).
///
/// This mirrors the `provider` interface of `wit/provider.wit`: a signature changed there must
/// be changed here (no component loads until it is), and a new function belongs here too.
pub fn check_provider_signatures<T>(
    pre: &wasmtime::component::InstancePre<T>,
) -> Result<(), SignatureMismatch> {
    use wasmtime::component::Resource;
    let component = pre.component();
    let Some((_, interface)) = component.get_export(None, PROVIDER_EXPORT) else {
        // check_world_version reports a missing interface.
        return Ok(());
    };
    // `instance_type` and `typecheck` are what wasmtime's generated bindings use (hidden from
    // its docs); wasmtime is pinned, so they cannot move under us.
    let cx = pre.instance_type();
    macro_rules! signatures {
        ($($name:literal: ($($p:ty),*) -> $r:ty;)*) => {
            $(check_signature(component, &interface, $name, |f| {
                f.typecheck::<($($p,)*), ($r,)>(&cx)
            })?;)*
        };
    }
    signatures! {
        "get-schema": () -> wit::ProviderSchema;
        "validate-provider-config": (wit::Value) -> Vec<wit::Diagnostic>;
        "validate-resource-config": (String, wit::Value, wit::ClientCapabilities) -> Vec<wit::Diagnostic>;
        "validate-data-source-config": (String, wit::Value) -> Vec<wit::Diagnostic>;
        "configure": (guest::ConfigureRequest) -> Vec<wit::Diagnostic>;
        "read-resource": (guest::ReadResourceRequest) -> guest::ReadResourceResponse;
        "plan-resource-change": (guest::PlanResourceChangeRequest) -> guest::PlanResourceChangeResponse;
        "apply-resource-change": (guest::ApplyResourceChangeRequest) -> guest::ApplyResourceChangeResponse;
        "import-resource-state": (guest::ImportResourceStateRequest) -> guest::ImportResourceStateResponse;
        "upgrade-resource-state": (guest::UpgradeResourceStateRequest) -> guest::UpgradeResourceStateResponse;
        "upgrade-resource-identity": (guest::UpgradeResourceIdentityRequest) -> guest::UpgradeResourceIdentityResponse;
        "move-resource-state": (guest::MoveResourceStateRequest) -> guest::MoveResourceStateResponse;
        "generate-resource-config": (String, wit::Value) -> guest::GenerateResourceConfigResponse;
        "read-data-source": (guest::ReadDataSourceRequest) -> guest::ReadDataSourceResponse;
        "validate-ephemeral-resource-config": (String, wit::Value) -> Vec<wit::Diagnostic>;
        "open-ephemeral-resource": (guest::OpenEphemeralResourceRequest) -> guest::OpenEphemeralResourceResponse;
        "renew-ephemeral-resource": (String, Option<Vec<u8>>) -> guest::RenewEphemeralResourceResponse;
        "close-ephemeral-resource": (String, Option<Vec<u8>>) -> Vec<wit::Diagnostic>;
        "validate-list-resource-config": (String, wit::Value) -> Vec<wit::Diagnostic>;
        "list-resource": (guest::ListResourceRequest, Resource<super::streams::ListSink>) -> Vec<wit::Diagnostic>;
        "validate-action-config": (String, wit::Value) -> Vec<wit::Diagnostic>;
        "plan-action": (guest::ActionRequest) -> guest::PlanActionResponse;
        "invoke-action": (guest::ActionRequest, Resource<super::streams::ProgressSink>) -> Vec<wit::Diagnostic>;
        "call-function": (String, Vec<wit::Value>) -> Result<wit::Value, guest::FunctionError>;
        "stop": () -> Option<String>;
    }
    Ok(())
}

/// Checks one function of the provider interface with `typecheck`.
fn check_signature(
    component: &wasmtime::component::Component,
    interface: &wasmtime::component::ComponentExportIndex,
    function: &'static str,
    typecheck: impl FnOnce(&wasmtime::component::types::ComponentFunc) -> wasmtime::Result<()>,
) -> Result<(), SignatureMismatch> {
    use wasmtime::component::types::ComponentItem;
    let reason = match component.get_export(Some(interface), function) {
        Some((ComponentItem::ComponentFunc(f), _)) => match typecheck(&f) {
            Ok(()) => return Ok(()),
            Err(e) => format!("{e:#}"),
        },
        Some(_) => "it is not a function".to_string(),
        None => "it is missing".to_string(),
    };
    Err(SignatureMismatch { function, reason })
}

/// A value, schema or diagnostic from the guest that cannot be understood.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("malformed value: {0}")]
    Value(#[from] FlatError),
    #[error("malformed schema: {0}")]
    Schema(#[from] FlatSchemaError),
    #[error("{0}")]
    Type(#[from] TypeError),
    #[error("{0}")]
    Other(String),
}

// ---- values ----

pub fn value_to_wit(value: &Value) -> wit::Value {
    let nodes = flat::flatten(value).into_iter().map(node_to_wit).collect();
    wit::Value { nodes }
}

pub fn value_from_wit(value: wit::Value) -> Result<Value, ConvertError> {
    let nodes = value.nodes.into_iter().map(node_from_wit).collect();
    Ok(flat::unflatten(nodes)?)
}

fn node_to_wit(node: FlatNode) -> wit::Node {
    match node {
        FlatNode::Null => wit::Node::Null,
        FlatNode::Unknown(r) => wit::Node::Unknown(refinements_to_wit(r)),
        FlatNode::Bool(b) => wit::Node::Bool(b),
        FlatNode::Number(n) => wit::Node::Number(number_to_wit(n)),
        FlatNode::String(s) => wit::Node::String(s),
        FlatNode::List(c) => wit::Node::List(c),
        FlatNode::Set(c) => wit::Node::Set(c),
        FlatNode::Tuple(c) => wit::Node::Tuple(c),
        FlatNode::Map(e) => wit::Node::Map(entries_to_wit(e)),
        FlatNode::Object(e) => wit::Node::Object(entries_to_wit(e)),
        FlatNode::Dynamic(ty, value) => wit::Node::Dynamic(wit::Typed { type_: ty, value }),
    }
}

fn node_from_wit(node: wit::Node) -> FlatNode {
    match node {
        wit::Node::Null => FlatNode::Null,
        wit::Node::Unknown(r) => FlatNode::Unknown(refinements_from_wit(r)),
        wit::Node::Bool(b) => FlatNode::Bool(b),
        wit::Node::Number(n) => FlatNode::Number(number_from_wit(n)),
        wit::Node::String(s) => FlatNode::String(s),
        wit::Node::List(c) => FlatNode::List(c),
        wit::Node::Set(c) => FlatNode::Set(c),
        wit::Node::Tuple(c) => FlatNode::Tuple(c),
        wit::Node::Map(e) => FlatNode::Map(e.into_iter().map(|e| (e.key, e.value)).collect()),
        wit::Node::Object(e) => FlatNode::Object(e.into_iter().map(|e| (e.key, e.value)).collect()),
        wit::Node::Dynamic(t) => FlatNode::Dynamic(t.type_, t.value),
    }
}

fn entries_to_wit(entries: Vec<(String, u32)>) -> Vec<wit::Entry> {
    entries.into_iter().map(|(key, value)| wit::Entry { key, value }).collect()
}

fn number_to_wit(n: Number) -> wit::Number {
    match n {
        Number::Int(i) => wit::Number::Int(i),
        Number::Float(f) => wit::Number::Float(f),
        Number::Decimal(d) => wit::Number::Decimal(d),
    }
}

pub(crate) fn number_from_wit(n: wit::Number) -> Number {
    match n {
        wit::Number::Int(i) => Number::Int(i),
        wit::Number::Float(f) => Number::Float(f),
        // An invalid decimal stays as text; the schema check reports it with its path.
        wit::Number::Decimal(d) => Number::parse(&d).unwrap_or(Number::Decimal(d)),
    }
}

fn refinements_to_wit(r: Refinements) -> wit::Refinements {
    let bound =
        |b: NumberBound| wit::NumberBound { value: number_to_wit(b.value), inclusive: b.inclusive };
    wit::Refinements {
        nullable: r.nullable,
        string_prefix: r.string_prefix,
        number_lower: r.number_lower.map(bound),
        number_upper: r.number_upper.map(bound),
        length_lower: r.length_lower,
        length_upper: r.length_upper,
    }
}

fn refinements_from_wit(r: wit::Refinements) -> Refinements {
    let bound = |b: wit::NumberBound| NumberBound {
        value: number_from_wit(b.value),
        inclusive: b.inclusive,
    };
    Refinements {
        nullable: r.nullable,
        string_prefix: r.string_prefix,
        number_lower: r.number_lower.map(bound),
        number_upper: r.number_upper.map(bound),
        length_lower: r.length_lower,
        length_upper: r.length_upper,
    }
}

// ---- paths and diagnostics ----

pub fn path_from_wit(path: Vec<wit::PathStep>) -> AttributePath {
    AttributePath(
        path.into_iter()
            .map(|s| match s {
                wit::PathStep::Attribute(a) => PathStep::Attribute(a),
                wit::PathStep::Key(k) => PathStep::Key(k),
                wit::PathStep::Index(i) => PathStep::Index(i),
            })
            .collect(),
    )
}

pub fn path_to_wit(path: &AttributePath) -> Vec<wit::PathStep> {
    path.0
        .iter()
        .map(|s| match s {
            PathStep::Attribute(a) => wit::PathStep::Attribute(a.clone()),
            PathStep::Key(k) => wit::PathStep::Key(k.clone()),
            PathStep::Index(i) => wit::PathStep::Index(*i),
        })
        .collect()
}

/// A guest's diagnostics, made safe to show and capped ([`crate::guest_text::diagnostics`]):
/// every guest diagnostic enters the host here.
pub fn diagnostics_from_wit(diags: Vec<wit::Diagnostic>) -> Vec<Diagnostic> {
    let diags = diags
        .into_iter()
        .map(|d| Diagnostic {
            severity: match d.severity {
                wit::Severity::Error => Severity::Error,
                wit::Severity::Warning => Severity::Warning,
            },
            summary: d.summary,
            detail: d.detail,
            attribute: path_from_wit(d.attribute),
        })
        .collect();
    crate::guest_text::diagnostics(diags)
}

pub fn client_capabilities(
    deferral_allowed: bool,
    write_only_attributes_allowed: bool,
) -> wit::ClientCapabilities {
    wit::ClientCapabilities { deferral_allowed, write_only_attributes_allowed }
}

// ---- schemas ----

/// Descriptions and deprecation messages reach people (Terraform prints deprecations as
/// warnings, documentation tools print descriptions).
fn schema_text(text: &str) -> String {
    use crate::guest_text::{Lines, MAX_DETAIL_BYTES, for_people};
    for_people(text, Lines::Multi, MAX_DETAIL_BYTES)
}

fn description_from_wit(d: wit::Description) -> Description {
    Description {
        text: schema_text(&d.text),
        kind: match d.kind {
            wit::TextKind::Plain => TextKind::Plain,
            wit::TextKind::Markdown => TextKind::Markdown,
        },
    }
}

fn attribute_from_wit(block: usize, a: wit::Attribute) -> Result<FlatAttribute, ConvertError> {
    let kind_error = || FlatSchemaError::AttributeKind { block, name: a.name.clone() };
    let (ty, nested) = match (&a.type_, a.nested) {
        (Some(t), None) => (AttributeType::Type(Type::from_json(t)?), None),
        (None, Some(n)) => {
            let nesting = match n.nesting {
                wit::ObjectNesting::Single => ObjectNesting::Single,
                wit::ObjectNesting::List => ObjectNesting::List,
                wit::ObjectNesting::Set => ObjectNesting::Set,
                wit::ObjectNesting::Map => ObjectNesting::Map,
            };
            (AttributeType::default(), Some((nesting, n.block)))
        }
        _ => return Err(kind_error().into()),
    };
    Ok(FlatAttribute {
        attribute: ms::Attribute {
            name: a.name,
            ty,
            description: description_from_wit(a.description),
            required: a.required,
            optional: a.optional,
            computed: a.computed,
            sensitive: a.sensitive,
            write_only: a.write_only,
            deprecated: a.deprecated,
            deprecation_message: schema_text(&a.deprecation_message),
        },
        nested,
    })
}

fn block_from_wit(index: usize, b: wit::Block) -> Result<FlatBlock, ConvertError> {
    Ok(FlatBlock {
        attributes: b
            .attributes
            .into_iter()
            .map(|a| attribute_from_wit(index, a))
            .collect::<Result<_, _>>()?,
        block_types: b
            .block_types
            .into_iter()
            .map(|nb| FlatNestedBlock {
                type_name: nb.type_name,
                block: nb.block,
                nesting: match nb.nesting {
                    wit::BlockNesting::Single => BlockNesting::Single,
                    wit::BlockNesting::List => BlockNesting::List,
                    wit::BlockNesting::Set => BlockNesting::Set,
                    wit::BlockNesting::Map => BlockNesting::Map,
                    wit::BlockNesting::Group => BlockNesting::Group,
                },
                min_items: nb.min_items,
                max_items: nb.max_items,
            })
            .collect(),
        description: description_from_wit(b.description),
        deprecated: b.deprecated,
        deprecation_message: schema_text(&b.deprecation_message),
    })
}

pub fn schema_from_wit(s: wit::Schema) -> Result<ms::Schema, ConvertError> {
    let blocks = s
        .blocks
        .into_iter()
        .enumerate()
        .map(|(i, b)| block_from_wit(i, b))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ms::Schema { version: s.version, block: flat::unflatten_block(blocks)? })
}

fn named_schemas(
    kind: &str,
    list: Vec<wit::NamedSchema>,
) -> Result<std::collections::BTreeMap<String, ms::Schema>, ConvertError> {
    let mut out = std::collections::BTreeMap::new();
    for n in list {
        let schema = schema_from_wit(n.schema)
            .map_err(|e| ConvertError::Other(format!("{kind} {:?}: {e}", n.name)))?;
        if out.insert(n.name.clone(), schema).is_some() {
            return Err(ConvertError::Other(format!("{kind} {:?} is declared twice", n.name)));
        }
    }
    Ok(out)
}

fn parameter_from_wit(p: wit::Parameter) -> Result<Parameter, ConvertError> {
    Ok(Parameter {
        name: p.name,
        ty: Type::from_json(&p.type_)?,
        description: description_from_wit(p.description),
        allow_null: p.allow_null,
        allow_unknown: p.allow_unknown,
    })
}

fn function_from_wit(f: wit::Function) -> Result<(String, Function), ConvertError> {
    let name = f.name.clone();
    let convert = || -> Result<Function, ConvertError> {
        Ok(Function {
            parameters: f
                .parameters
                .into_iter()
                .map(parameter_from_wit)
                .collect::<Result<_, _>>()?,
            variadic: f.variadic.map(parameter_from_wit).transpose()?,
            return_type: Type::from_json(&f.return_)?,
            summary: f.summary,
            description: description_from_wit(f.description),
            deprecation_message: schema_text(&f.deprecation_message),
        })
    };
    let function = convert().map_err(|e| ConvertError::Other(format!("function {name:?}: {e}")))?;
    Ok((name, function))
}

/// The guest's schema in neutral form, with the diagnostics it reported alongside.
pub fn provider_schema_from_wit(
    s: wit::ProviderSchema,
) -> Result<(ProviderSchema, Vec<Diagnostic>), ConvertError> {
    let schema = ProviderSchema {
        provider: schema_from_wit(s.provider)
            .map_err(|e| ConvertError::Other(format!("provider schema: {e}")))?,
        provider_meta: s.provider_meta.map(schema_from_wit).transpose()?,
        resources: named_schemas("resource", s.resources)?,
        data_sources: named_schemas("data source", s.data_sources)?,
        functions: s.functions.into_iter().map(function_from_wit).collect::<Result<_, _>>()?,
        ephemeral_resources: named_schemas("ephemeral resource", s.ephemeral_resources)?,
        list_resources: named_schemas("list resource", s.list_resources)?,
        actions: named_schemas("action", s.actions)?,
        capabilities: ServerCapabilities {
            plan_destroy: s.capabilities.plan_destroy,
            get_provider_schema_optional: s.capabilities.get_provider_schema_optional,
            move_resource_state: s.capabilities.move_resource_state,
            generate_resource_config: s.capabilities.generate_resource_config,
        },
    };
    Ok((schema, diagnostics_from_wit(s.diagnostics)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn values_round_trip_through_wit() {
        let v = Value::Object(BTreeMap::from([
            (
                "n".to_string(),
                Value::Number(Number::Decimal("123456789012345678901234567890".into())),
            ),
            (
                "u".to_string(),
                Value::Unknown(Refinements {
                    nullable: Some(false),
                    string_prefix: Some("ab".into()),
                    ..Default::default()
                }),
            ),
            ("s".to_string(), Value::Set(vec![Value::string("x")])),
        ]));
        assert_eq!(value_from_wit(value_to_wit(&v)).unwrap(), v);
    }

    #[test]
    fn attribute_with_both_type_and_nested_is_refused() {
        let a = wit::Attribute {
            name: "a".into(),
            type_: Some("\"string\"".into()),
            nested: Some(wit::NestedAttributes { nesting: wit::ObjectNesting::Single, block: 1 }),
            description: wit::Description { text: String::new(), kind: wit::TextKind::Plain },
            required: false,
            optional: true,
            computed: false,
            sensitive: false,
            write_only: false,
            deprecated: false,
            deprecation_message: String::new(),
        };
        assert!(attribute_from_wit(0, a).is_err());
    }
}

//! The conversions between the model's types and the WIT types of the component's
//! interface: values (as flat node lists, see [`terrarium_model::flat`]), diagnostics,
//! schemas and the small records around them. A plain `match` maps each generated type to
//! the model's and back; the model crate rebuilds value trees, refusing anything that is
//! not one.

use terrarium_model::flat::{self, FlatBlock, FlatNode};
use terrarium_model::schema::{self as model, BlockNesting, Description, ObjectNesting, TextKind};
use terrarium_model::{
    AttributePath, Diagnostic, Number, NumberBound, PathStep, Refinements, Severity, Value,
};

use crate::__private::bindings::terrarium::provider::types as wit;
use crate::identity::IdentitySchema;
use crate::rpc::{ClientCapabilities, DeferredReason};

// ---- requests and answers ----

/// A value the host sent that is not a tree: a host bug, reported rather than trusted.
pub(super) fn decode(value: wit::Value, what: &str) -> Result<Value, Diagnostic> {
    let nodes = value.nodes.into_iter().map(node_from_wit).collect();
    flat::unflatten(nodes).map_err(|e| {
        Diagnostic::error(
            "Malformed value from the host",
            format!("The {what} could not be read: {e}. This is a bug in Terrarium."),
        )
    })
}

pub(super) fn decode_opt(
    value: wit::Value,
    what: &str,
    diagnostics: &mut Vec<wit::Diagnostic>,
) -> Option<Value> {
    match decode(value, what) {
        Ok(v) => Some(v),
        Err(d) => {
            diagnostics.push(diagnostic_to_wit(d));
            None
        }
    }
}

pub(super) fn null() -> wit::Value {
    wit::Value { nodes: vec![wit::Node::Null] }
}

pub(super) fn diagnostics_to_wit(diagnostics: Vec<Diagnostic>) -> Vec<wit::Diagnostic> {
    diagnostics.into_iter().map(diagnostic_to_wit).collect()
}

/// An optional value from the host (an identity), decoded; `None` when it was malformed
/// (and a diagnostic says so).
pub(super) fn decode_identity(
    value: Option<wit::Value>,
    what: &str,
    diagnostics: &mut Vec<wit::Diagnostic>,
) -> Option<Option<Value>> {
    match value {
        None => Some(None),
        Some(v) => decode_opt(v, what, diagnostics).map(Some),
    }
}

pub(super) fn deferred_to_wit(reason: DeferredReason) -> wit::DeferredReason {
    match reason {
        DeferredReason::Unknown => wit::DeferredReason::Unknown,
        DeferredReason::ResourceConfigUnknown => wit::DeferredReason::ResourceConfigUnknown,
        DeferredReason::ProviderConfigUnknown => wit::DeferredReason::ProviderConfigUnknown,
        DeferredReason::AbsentPrerequisite => wit::DeferredReason::AbsentPrerequisite,
    }
}

pub(super) fn client_from_wit(c: &wit::ClientCapabilities) -> ClientCapabilities {
    ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
    }
}

/// Unix time as WIT has it; a time before 1970 (which no renewal asks for) is 1970.
pub(super) fn timestamp_to_wit(time: std::time::SystemTime) -> wit::Timestamp {
    let since_epoch = time.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    wit::Timestamp {
        seconds: i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
        nanoseconds: since_epoch.subsec_nanos(),
    }
}

// ---- values ----

pub(super) fn value_to_wit(value: &Value) -> wit::Value {
    wit::Value { nodes: flat::flatten(value).into_iter().map(node_to_wit).collect() }
}

pub(super) fn node_from_wit(node: wit::Node) -> FlatNode {
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

fn node_to_wit(node: FlatNode) -> wit::Node {
    let entries = |e: Vec<(String, u32)>| {
        e.into_iter().map(|(key, value)| wit::Entry { key, value }).collect()
    };
    match node {
        FlatNode::Null => wit::Node::Null,
        FlatNode::Unknown(r) => wit::Node::Unknown(refinements_to_wit(r)),
        FlatNode::Bool(b) => wit::Node::Bool(b),
        FlatNode::Number(n) => wit::Node::Number(number_to_wit(n)),
        FlatNode::String(s) => wit::Node::String(s),
        FlatNode::List(c) => wit::Node::List(c),
        FlatNode::Set(c) => wit::Node::Set(c),
        FlatNode::Tuple(c) => wit::Node::Tuple(c),
        FlatNode::Map(e) => wit::Node::Map(entries(e)),
        FlatNode::Object(e) => wit::Node::Object(entries(e)),
        FlatNode::Dynamic(type_, value) => wit::Node::Dynamic(wit::Typed { type_, value }),
    }
}

fn number_from_wit(n: wit::Number) -> Number {
    match n {
        wit::Number::Int(i) => Number::Int(i),
        wit::Number::Float(f) => Number::Float(f),
        wit::Number::Decimal(d) => Number::Decimal(d),
    }
}

fn number_to_wit(n: Number) -> wit::Number {
    match n {
        Number::Int(i) => wit::Number::Int(i),
        Number::Float(f) => wit::Number::Float(f),
        Number::Decimal(d) => wit::Number::Decimal(d),
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

// ---- diagnostics ----

pub(super) fn path_to_wit(path: &AttributePath) -> wit::AttributePath {
    path.0
        .iter()
        .map(|step| match step {
            PathStep::Attribute(a) => wit::PathStep::Attribute(a.clone()),
            PathStep::Key(k) => wit::PathStep::Key(k.clone()),
            PathStep::Index(i) => wit::PathStep::Index(*i),
        })
        .collect()
}

pub(super) fn diagnostic_to_wit(d: Diagnostic) -> wit::Diagnostic {
    wit::Diagnostic {
        severity: match d.severity {
            Severity::Error => wit::Severity::Error,
            Severity::Warning => wit::Severity::Warning,
        },
        attribute: path_to_wit(&d.attribute),
        summary: d.summary,
        detail: d.detail,
    }
}

// ---- schemas ----

fn description_to_wit(d: Description) -> wit::Description {
    wit::Description {
        text: d.text,
        kind: match d.kind {
            TextKind::Plain => wit::TextKind::Plain,
            TextKind::Markdown => wit::TextKind::Markdown,
        },
    }
}

fn schema_to_wit(schema: &model::Schema) -> wit::Schema {
    let blocks = flat::flatten_block(&schema.block).into_iter().map(block_to_wit).collect();
    wit::Schema { version: schema.version, blocks }
}

fn block_to_wit(b: FlatBlock) -> wit::Block {
    wit::Block {
        attributes: b
            .attributes
            .into_iter()
            .map(|fa| {
                let a = fa.attribute;
                let (type_, nested) = match fa.nested {
                    Some((nesting, block)) => (
                        None,
                        Some(wit::NestedAttributes {
                            nesting: object_nesting_to_wit(nesting),
                            block,
                        }),
                    ),
                    None => match &a.ty {
                        model::AttributeType::Type(t) => (Some(t.to_json()), None),
                        // flatten_block always pairs nested attributes with `nested`.
                        model::AttributeType::Nested { .. } => (None, None),
                    },
                };
                wit::Attribute {
                    name: a.name,
                    type_,
                    nested,
                    description: description_to_wit(a.description),
                    required: a.required,
                    optional: a.optional,
                    computed: a.computed,
                    sensitive: a.sensitive,
                    write_only: a.write_only,
                    deprecated: a.deprecated,
                    deprecation_message: a.deprecation_message,
                }
            })
            .collect(),
        block_types: b
            .block_types
            .into_iter()
            .map(|nb| wit::NestedBlock {
                type_name: nb.type_name,
                block: nb.block,
                nesting: block_nesting_to_wit(nb.nesting),
                min_items: nb.min_items,
                max_items: nb.max_items,
            })
            .collect(),
        description: description_to_wit(b.description),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message,
    }
}

fn object_nesting_to_wit(n: ObjectNesting) -> wit::ObjectNesting {
    match n {
        ObjectNesting::Single => wit::ObjectNesting::Single,
        ObjectNesting::List => wit::ObjectNesting::List,
        ObjectNesting::Set => wit::ObjectNesting::Set,
        ObjectNesting::Map => wit::ObjectNesting::Map,
    }
}

fn block_nesting_to_wit(n: BlockNesting) -> wit::BlockNesting {
    match n {
        BlockNesting::Single => wit::BlockNesting::Single,
        BlockNesting::List => wit::BlockNesting::List,
        BlockNesting::Set => wit::BlockNesting::Set,
        BlockNesting::Map => wit::BlockNesting::Map,
        BlockNesting::Group => wit::BlockNesting::Group,
    }
}

fn named_schemas(
    schemas: std::collections::BTreeMap<String, model::Schema>,
) -> Vec<wit::NamedSchema> {
    schemas
        .into_iter()
        .map(|(name, s)| wit::NamedSchema { schema: schema_to_wit(&s), name })
        .collect()
}

fn parameter_to_wit(p: model::Parameter) -> wit::Parameter {
    wit::Parameter {
        name: p.name,
        type_: p.ty.to_json(),
        description: description_to_wit(p.description),
        allow_null: p.allow_null,
        allow_unknown: p.allow_unknown,
    }
}

pub(super) fn provider_schema_to_wit(
    schema: model::ProviderSchema,
    identities: std::collections::BTreeMap<String, IdentitySchema>,
    diagnostics: Vec<Diagnostic>,
) -> wit::ProviderSchema {
    wit::ProviderSchema {
        provider: schema_to_wit(&schema.provider),
        provider_meta: schema.provider_meta.as_ref().map(schema_to_wit),
        resources: named_schemas(schema.resources),
        data_sources: named_schemas(schema.data_sources),
        functions: schema
            .functions
            .into_iter()
            .map(|(name, f)| wit::Function {
                name,
                parameters: f.parameters.into_iter().map(parameter_to_wit).collect(),
                variadic: f.variadic.map(parameter_to_wit),
                return_: f.return_type.to_json(),
                summary: f.summary,
                description: description_to_wit(f.description),
                deprecation_message: f.deprecation_message,
            })
            .collect(),
        resource_identities: identities
            .into_iter()
            .map(|(name, s)| wit::NamedIdentitySchema {
                name,
                schema: wit::IdentitySchema {
                    version: s.version,
                    attributes: s
                        .attributes
                        .into_iter()
                        .map(|a| wit::IdentityAttribute {
                            name: a.name,
                            type_: a.ty.to_json(),
                            required_for_import: a.required_for_import,
                            optional_for_import: a.optional_for_import,
                            description: a.description,
                        })
                        .collect(),
                },
            })
            .collect(),
        ephemeral_resources: named_schemas(schema.ephemeral_resources),
        list_resources: named_schemas(schema.list_resources),
        actions: named_schemas(schema.actions),
        capabilities: wit::ServerCapabilities {
            plan_destroy: schema.capabilities.plan_destroy,
            get_provider_schema_optional: schema.capabilities.get_provider_schema_optional,
            move_resource_state: schema.capabilities.move_resource_state,
            generate_resource_config: schema.capabilities.generate_resource_config,
        },
        diagnostics: diagnostics_to_wit(diagnostics),
    }
}

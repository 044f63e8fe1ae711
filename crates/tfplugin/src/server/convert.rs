//! tfplugin6 protobuf <-> neutral types. Mechanical by design: no decisions live here.

use terrarium_model::schema::{
    Attribute, AttributeType, Block, BlockNesting, Description, Function, NestedBlock,
    ObjectNesting, Parameter, Schema, ServerCapabilities, TextKind,
};
use terrarium_model::{AttributePath, Diagnostic, PathStep, Severity};

use terrarium_core::types::{self as dt};
use terrarium_proto::tfplugin6 as pb;

pub fn timestamp_to_pb(t: dt::Timestamp) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.seconds,
        nanos: i32::try_from(t.nanos).unwrap_or(999_999_999),
    }
}

pub fn identity_schema_to_pb(s: &dt::IdentitySchema) -> pb::ResourceIdentitySchema {
    pb::ResourceIdentitySchema {
        version: s.version,
        identity_attributes: s
            .attributes
            .iter()
            .map(|a| pb::resource_identity_schema::IdentityAttribute {
                name: a.name.clone(),
                r#type: a.ty.to_json().into_bytes(),
                required_for_import: a.required_for_import,
                optional_for_import: a.optional_for_import,
                description: a.description.clone(),
            })
            .collect(),
    }
}

pub fn client_capabilities(c: Option<pb::ClientCapabilities>) -> dt::ClientCapabilities {
    c.map(|c| dt::ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
    })
    .unwrap_or_default()
}

pub fn deferred(d: Option<dt::DeferredReason>) -> Option<pb::Deferred> {
    use pb::deferred::Reason;
    d.map(|r| pb::Deferred {
        reason: match r {
            dt::DeferredReason::Unknown => Reason::Unknown,
            dt::DeferredReason::ResourceConfigUnknown => Reason::ResourceConfigUnknown,
            dt::DeferredReason::ProviderConfigUnknown => Reason::ProviderConfigUnknown,
            dt::DeferredReason::AbsentPrerequisite => Reason::AbsentPrereq,
        } as i32,
    })
}

pub fn path_to_pb(path: &AttributePath) -> pb::AttributePath {
    use pb::attribute_path::step::Selector;
    pb::AttributePath {
        steps: path
            .0
            .iter()
            .map(|s| pb::attribute_path::Step {
                selector: Some(match s {
                    PathStep::Attribute(a) => Selector::AttributeName(a.clone()),
                    PathStep::Key(k) => Selector::ElementKeyString(k.clone()),
                    PathStep::Index(i) => Selector::ElementKeyInt(*i),
                }),
            })
            .collect(),
    }
}

pub fn diagnostics_to_pb(diags: Vec<Diagnostic>) -> Vec<pb::Diagnostic> {
    diags
        .into_iter()
        .map(|d| pb::Diagnostic {
            severity: match d.severity {
                Severity::Error => pb::diagnostic::Severity::Error,
                Severity::Warning => pb::diagnostic::Severity::Warning,
            } as i32,
            attribute: (!d.attribute.is_root()).then(|| path_to_pb(&d.attribute)),
            summary: d.summary,
            detail: d.detail,
        })
        .collect()
}

fn text_kind(d: &Description) -> i32 {
    match d.kind {
        TextKind::Plain => pb::StringKind::Plain as i32,
        TextKind::Markdown => pb::StringKind::Markdown as i32,
    }
}

fn attribute_to_pb(a: &Attribute) -> pb::schema::Attribute {
    let (ty, nested_type) = match &a.ty {
        AttributeType::Type(t) => (t.to_json().into_bytes(), None),
        AttributeType::Nested { nesting, attributes } => (
            Vec::new(),
            Some(pb::schema::Object {
                attributes: attributes.iter().map(attribute_to_pb).collect(),
                nesting: match nesting {
                    ObjectNesting::Single => pb::schema::object::NestingMode::Single,
                    ObjectNesting::List => pb::schema::object::NestingMode::List,
                    ObjectNesting::Set => pb::schema::object::NestingMode::Set,
                    ObjectNesting::Map => pb::schema::object::NestingMode::Map,
                } as i32,
                ..Default::default()
            }),
        ),
    };
    pb::schema::Attribute {
        name: a.name.clone(),
        r#type: ty,
        nested_type,
        description: a.description.text.clone(),
        description_kind: text_kind(&a.description),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        deprecated: a.deprecated,
        write_only: a.write_only,
        deprecation_message: a.deprecation_message.clone(),
    }
}

fn nested_block_to_pb(b: &NestedBlock, computed_blocks: bool) -> pb::schema::NestedBlock {
    use pb::schema::nested_block::NestingMode;
    let mut block = block_to_pb(&b.block, 0, computed_blocks);
    block.computed = b.computed;
    pb::schema::NestedBlock {
        type_name: b.type_name.clone(),
        block: Some(block),
        nesting: match b.nesting {
            BlockNesting::Single => NestingMode::Single,
            BlockNesting::List => NestingMode::List,
            BlockNesting::Set => NestingMode::Set,
            BlockNesting::Map => NestingMode::Map,
            BlockNesting::Group => NestingMode::Group,
        } as i32,
        min_items: b.min_items.try_into().unwrap_or(i64::MAX),
        max_items: b.max_items.try_into().unwrap_or(i64::MAX),
    }
}

/// A computed nested block as a client that does not take computed blocks sees it: a
/// computed attribute of the block's type. Its values are the same (a list of blocks is a
/// list of objects), the configuration may not set it, and every Terraform lets a provider
/// plan it unknown and set it at apply, which a plain block would not allow.
fn computed_block_as_attribute(b: &NestedBlock) -> pb::schema::Attribute {
    pb::schema::Attribute {
        name: b.type_name.clone(),
        r#type: b.implied_type().to_json().into_bytes(),
        nested_type: None,
        description: b.block.description.text.clone(),
        description_kind: text_kind(&b.block.description),
        required: false,
        optional: false,
        computed: true,
        sensitive: false,
        deprecated: b.block.deprecated,
        write_only: false,
        deprecation_message: b.block.deprecation_message.clone(),
    }
}

fn block_to_pb(b: &Block, version: i64, computed_blocks: bool) -> pb::schema::Block {
    let mut attributes: Vec<_> = b.attributes.iter().map(attribute_to_pb).collect();
    let mut block_types = Vec::new();
    for nested in &b.block_types {
        if nested.computed && !computed_blocks {
            attributes.push(computed_block_as_attribute(nested));
        } else {
            block_types.push(nested_block_to_pb(nested, computed_blocks));
        }
    }
    pb::schema::Block {
        version,
        attributes,
        block_types,
        description: b.description.text.clone(),
        description_kind: text_kind(&b.description),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message.clone(),
        computed: false,
    }
}

/// A schema for Terraform. With `computed_blocks` (the client said
/// `computed_blocks_allowed`), a computed nested block is a block marked computed; without,
/// a computed attribute of the block's type (`computed_block_as_attribute`).
pub fn schema_to_pb(s: &Schema, computed_blocks: bool) -> pb::Schema {
    pb::Schema {
        version: s.version,
        block: Some(block_to_pb(&s.block, s.version, computed_blocks)),
    }
}

fn parameter_to_pb(p: &Parameter) -> pb::function::Parameter {
    pb::function::Parameter {
        name: p.name.clone(),
        r#type: p.ty.to_json().into_bytes(),
        allow_null_value: p.allow_null,
        allow_unknown_values: p.allow_unknown,
        description: p.description.text.clone(),
        description_kind: text_kind(&p.description),
    }
}

pub fn function_to_pb(f: &Function) -> pb::Function {
    pb::Function {
        parameters: f.parameters.iter().map(parameter_to_pb).collect(),
        variadic_parameter: f.variadic.as_ref().map(parameter_to_pb),
        r#return: Some(pb::function::Return { r#type: f.return_type.to_json().into_bytes() }),
        summary: f.summary.clone(),
        description: f.description.text.clone(),
        description_kind: text_kind(&f.description),
        deprecation_message: f.deprecation_message.clone(),
    }
}

pub fn capabilities_to_pb(c: &ServerCapabilities) -> pb::ServerCapabilities {
    pb::ServerCapabilities {
        plan_destroy: c.plan_destroy,
        get_provider_schema_optional: c.get_provider_schema_optional,
        move_resource_state: c.move_resource_state,
        generate_resource_config: c.generate_resource_config,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrarium_model::Type;

    #[test]
    fn diagnostics_carry_paths_and_severity() {
        let d =
            Diagnostic::error("bad", "worse").at(AttributePath::attribute("a").index(2).key("k"));
        let pb = diagnostics_to_pb(vec![d, Diagnostic::warning("w", "")]);
        assert_eq!(pb[0].severity, pb::diagnostic::Severity::Error as i32);
        assert_eq!(pb[0].attribute.as_ref().map(|a| a.steps.len()), Some(3));
        assert_eq!(pb[1].severity, pb::diagnostic::Severity::Warning as i32);
        assert!(pb[1].attribute.is_none());
    }

    #[test]
    fn timestamps_convert() {
        let t = timestamp_to_pb(dt::Timestamp { seconds: 1_700_000_000, nanos: 5 });
        assert_eq!((t.seconds, t.nanos), (1_700_000_000, 5));
    }

    #[test]
    fn attributes_set_either_type_or_nested_type() {
        let plain = Attribute {
            name: "a".into(),
            ty: AttributeType::Type(Type::map(Type::String)),
            ..Default::default()
        };
        let p = attribute_to_pb(&plain);
        assert_eq!(p.r#type, br#"["map","string"]"#);
        assert!(p.nested_type.is_none());
        let nested = Attribute {
            name: "n".into(),
            ty: AttributeType::Nested { nesting: ObjectNesting::List, attributes: vec![plain] },
            ..Default::default()
        };
        let p = attribute_to_pb(&nested);
        assert!(p.r#type.is_empty());
        assert_eq!(p.nested_type.map(|o| o.attributes.len()), Some(1));
    }

    /// A computed block is a block marked computed for a client that takes them, and a
    /// computed attribute of the block's type for any other; a plain block stays a block.
    #[test]
    fn a_computed_block_is_an_attribute_unless_the_client_takes_computed_blocks() {
        let ip = Attribute {
            name: "ip".into(),
            ty: AttributeType::Type(Type::String),
            computed: true,
            ..Default::default()
        };
        let nested = |name: &str, computed| NestedBlock {
            type_name: name.into(),
            block: Block { attributes: vec![ip.clone()], ..Default::default() },
            nesting: BlockNesting::List,
            min_items: 0,
            max_items: 0,
            computed,
        };
        let schema = Schema {
            version: 0,
            block: Block {
                block_types: vec![nested("address", true), nested("rule", false)],
                ..Default::default()
            },
        };

        let block = schema_to_pb(&schema, true).block.unwrap();
        let names: Vec<_> = block.block_types.iter().map(|b| b.type_name.as_str()).collect();
        assert_eq!(names, ["address", "rule"]);
        let computed: Vec<_> =
            block.block_types.iter().map(|b| b.block.as_ref().unwrap().computed).collect();
        assert_eq!(computed, [true, false]);
        assert!(block.attributes.is_empty());

        let block = schema_to_pb(&schema, false).block.unwrap();
        let names: Vec<_> = block.block_types.iter().map(|b| b.type_name.as_str()).collect();
        assert_eq!(names, ["rule"]);
        assert_eq!(block.attributes.len(), 1);
        let a = &block.attributes[0];
        assert_eq!(a.name, "address");
        assert!(a.computed && !a.optional && !a.required);
        assert_eq!(a.r#type, br#"["list",["object",{"ip":"string"}]]"#);
    }
}

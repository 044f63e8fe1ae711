use terrarium_model::schema::ObjectNesting;
use terrarium_model::{AttributePath, Value};

use super::*;
use crate::check::hook_validations;
use crate::plan::{Hooks, Shape, default_plan, default_plan_with};

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn s(text: &str) -> Value {
    Value::string(text)
}

/// The plan edge cases: a set of nested objects with computed attributes, a list of
/// blocks whose elements have a default, an attribute that replaces on a nested path.
fn built() -> Schema {
    Schema::new()
        .attribute(Attribute::string("id").computed().use_state_for_unknown())
        .attribute(Attribute::nested(
            "rules",
            ObjectNesting::Set,
            vec![Attribute::string("port").required(), Attribute::string("rid").computed()],
        ))
        .attribute(Attribute::nested(
            "endpoint",
            ObjectNesting::Single,
            vec![Attribute::string("host").required().requires_replace()],
        ))
        .block(NestedBlock::list(
            "disk",
            Block::new()
                .attribute(Attribute::string("name").required().validate(validate::length(1, 8)))
                .attribute(Attribute::string("kind").optional().computed().default(s("ssd"))),
        ))
}

fn declared() -> Schema {
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let behaviour = SchemaBehaviour {
        attributes: vec![
            AttributeBehaviour {
                path: path(&["id"]),
                use_state_for_unknown: true,
                ..Default::default()
            },
            AttributeBehaviour {
                path: path(&["endpoint", "host"]),
                requires_replace: DeclaredReplace::Always,
                ..Default::default()
            },
            AttributeBehaviour {
                path: path(&["disk", "name"]),
                validators: vec![DeclaredValidator::Length(1, 8)],
                ..Default::default()
            },
            AttributeBehaviour {
                path: path(&["disk", "kind"]),
                default: Some(DeclaredDefault::Value(s("ssd"))),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    // What a guest in another language sends: the model schema plus the behaviour.
    schema_with_behaviour(&built().to_model(), &behaviour).unwrap()
}

fn config(host: &str, ports: &[&str], disks: &[(&str, Value)]) -> Value {
    obj([
        ("id", Value::Null),
        (
            "rules",
            Value::Set(ports.iter().map(|p| obj([("port", s(p)), ("rid", Value::Null)])).collect()),
        ),
        ("endpoint", obj([("host", s(host))])),
        (
            "disk",
            Value::List(
                disks.iter().map(|(n, k)| obj([("name", s(n)), ("kind", k.clone())])).collect(),
            ),
        ),
    ])
}

#[test]
fn a_declared_schema_plans_as_the_built_one() {
    let prior = obj([
        ("id", s("x")),
        ("rules", Value::Set(vec![obj([("port", s("80")), ("rid", s("r80"))])])),
        ("endpoint", obj([("host", s("a"))])),
        ("disk", Value::List(vec![obj([("name", s("root")), ("kind", s("hdd"))])])),
    ]);
    let cases = [
        // Create: defaults inside list elements, unknowns in the nested set.
        (Value::Null, config("a", &["80", "443"], &[("root", Value::Null)])),
        // An unknown set element from the configuration.
        (prior.clone(), {
            let mut c = config("a", &["80"], &[("root", s("hdd"))]);
            if let Value::Object(m) = &mut c {
                m.insert(
                    "rules".into(),
                    Value::Set(vec![obj([("port", Value::unknown()), ("rid", Value::Null)])]),
                );
            }
            c
        }),
        // Replacement on a nested path.
        (prior.clone(), config("b", &["80"], &[("root", s("hdd"))])),
        // An update that keeps the id.
        (prior.clone(), config("a", &["80", "8080"], &[("root", Value::Null)])),
    ];
    let (built, declared) = (built(), declared());
    for (prior, config) in cases {
        let expected = default_plan(&built, &prior, &config, &config);
        assert_eq!(default_plan(&declared, &prior, &config, &config), expected, "{config:?}");
    }
    let (_, replace) =
        default_plan(&declared, &prior, &config("b", &["80"], &[]), &config("b", &["80"], &[]));
    assert_eq!(replace, vec![AttributePath::attribute("endpoint").attr("host")]);
}

#[test]
fn declared_validators_run_at_depth() {
    let config = config("a", &[], &[("much-too-long", Value::Null)]);
    let mut problems = Vec::new();
    crate::check::run_validators(
        Shape::of(&declared()),
        &config,
        &AttributePath::root(),
        &mut problems,
    );
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].attribute, AttributePath::attribute("disk").index(0).attr("name"));
}

struct Answers;

impl Hooks for Answers {
    fn default(&self, id: u32, parent: &Value) -> Option<Value> {
        (id == 7).then(|| parent.attr("name").cloned().unwrap_or(Value::Null))
    }

    fn replace(&self, id: u32, _: &Value, planned: &Value) -> Option<bool> {
        (id == 9).then(|| planned == &s("shrink"))
    }
}

#[test]
fn hooks_answer_for_code_the_schema_names() {
    let schema = Schema::new()
        .attribute(Attribute::string("name").required())
        .attribute(Attribute::string("label").optional().computed().default_hook(7))
        .attribute(Attribute::string("size").required().requires_replace_hook(9))
        .attribute(Attribute::string("even").optional().validate(validate::hook(3, "even")));
    let config = |size: &str| {
        obj([("name", s("n")), ("label", Value::Null), ("size", s(size)), ("even", s("2"))])
    };
    let (planned, _) =
        default_plan_with(&schema, &Value::Null, &config("a"), &config("a"), &Answers);
    assert_eq!(planned.attr("label"), Some(&s("n")));
    let prior = obj([("name", s("n")), ("label", s("n")), ("size", s("a")), ("even", s("2"))]);
    let (_, replace) =
        default_plan_with(&schema, &prior, &config("shrink"), &config("shrink"), &Answers);
    assert_eq!(replace, vec![AttributePath::attribute("size")]);
    let (_, replace) =
        default_plan_with(&schema, &prior, &config("grow"), &config("grow"), &Answers);
    assert!(replace.is_empty());
    let asked = hook_validations(Shape::of(&schema), &config("a"));
    assert_eq!(asked.len(), 1);
    assert_eq!((asked[0].id, &asked[0].value), (3, &s("2")));
}

#[test]
fn a_declaration_for_no_attribute_is_refused() {
    let behaviour = SchemaBehaviour {
        attributes: vec![AttributeBehaviour {
            path: vec!["endpoint".into(), "nope".into()],
            ..Default::default()
        }],
        ..Default::default()
    };
    let err = schema_with_behaviour(&built().to_model(), &behaviour).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the behaviour names \"endpoint.nope\", which is no attribute of the schema"
    );
}

/// What Terraform proposes, from the schema Terraform sees (a component that plans by
/// itself): computed values carried over, also into the set elements matched by their
/// configured attributes.
#[test]
fn a_schema_without_behaviour_proposes_computed_values_into_matched_set_elements() {
    let optional = |name: &str, computed: bool| model::Attribute {
        name: name.into(),
        ty: AttributeType::Type(terrarium_model::Type::String),
        optional: true,
        computed,
        ..Default::default()
    };
    let toy = model::Block {
        attributes: vec![optional("kind", false), optional("serial", true)],
        ..Default::default()
    };
    let schema = model::Schema {
        version: 0,
        block: model::Block {
            attributes: vec![optional("id", true), optional("name", false)],
            block_types: vec![model::NestedBlock {
                type_name: "toy".into(),
                block: toy,
                nesting: terrarium_model::schema::BlockNesting::Set,
                min_items: 0,
                max_items: 0,
                computed: false,
            }],
            ..Default::default()
        },
    };
    let toy = |kind: &str, serial: Value| obj([("kind", s(kind)), ("serial", serial)]);
    let prior = obj([
        ("id", s("p-1")),
        ("name", s("rex")),
        ("toy", Value::Set(vec![toy("ball", s("t-1")), toy("rope", s("t-2"))])),
    ]);
    let config = obj([
        ("id", Value::Null),
        ("name", s("max")),
        ("toy", Value::Set(vec![toy("rope", Value::Null), toy("bone", Value::Null)])),
    ]);
    let proposed =
        crate::plan::proposed_new_state(&schema_without_behaviour(&schema), &prior, &config);
    let expected = obj([
        ("id", s("p-1")),
        ("name", s("max")),
        ("toy", Value::Set(vec![toy("rope", s("t-2")), toy("bone", Value::Null)])),
    ]);
    assert_eq!(proposed, expected);
}

/// A list of blocks holding a `dynamic` attribute is typed `dynamic` (Terraform sends it as a
/// tuple with its type): its elements are planned and checked like a list's.
#[test]
fn a_list_of_blocks_holding_a_dynamic_value_is_planned_and_checked_by_element() {
    use terrarium_model::{DynamicValue, Type};
    let schema = Schema::new().block(NestedBlock::list(
        "nic",
        Block::new()
            .attribute(Attribute::string("network").required())
            .attribute(Attribute::string("mac").computed())
            .attribute(Attribute::new("meta", Type::Dynamic).optional()),
    ));
    let meta = Value::Dynamic(Box::new(DynamicValue {
        ty: Type::object([("tags", Type::list(Type::String))]),
        value: obj([("tags", Value::List(vec![s("a")]))]),
    }));
    let element_type = Type::object([
        ("network", Type::String),
        ("mac", Type::String),
        ("meta", Type::object([("tags", Type::list(Type::String))])),
    ]);
    let nic = |mac: Value| {
        Value::Dynamic(Box::new(DynamicValue {
            ty: Type::Tuple(vec![element_type.clone()]),
            value: Value::Tuple(vec![obj([
                ("network", s("blue")),
                ("mac", mac),
                ("meta", meta.clone()),
            ])]),
        }))
    };
    let config = obj([("nic", nic(Value::Null))]);
    let (planned, replace) = default_plan(&schema, &Value::Null, &config, &config);
    assert_eq!(planned, obj([("nic", nic(Value::unknown()))]));
    assert!(replace.is_empty());
    let check = |planned: &Value| {
        let mut problems = Vec::new();
        crate::check::check_plan(
            Shape::of(&schema),
            &config,
            planned,
            &AttributePath::root(),
            &mut problems,
        );
        problems
    };
    assert_eq!(check(&planned), vec![]);
    // The same blocks as a list (as the provider's code writes them) pair up by position.
    let Value::Dynamic(d) = nic(Value::unknown()) else { unreachable!() };
    let Value::Tuple(items) = d.value else { unreachable!() };
    assert_eq!(check(&obj([("nic", Value::List(items.clone()))])), vec![]);
    // A configured value the plan changed is found inside the tuple.
    let mut changed = items;
    if let Value::Object(m) = &mut changed[0] {
        m.insert("network".into(), s("red"));
    }
    let problems = check(&obj([("nic", Value::List(changed))]));
    assert_eq!(
        problems.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>(),
        vec![AttributePath::attribute("nic").index(0).attr("network").to_string()]
    );
}

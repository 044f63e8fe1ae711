use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use terrarium_model::{AttributePath, DynamicValue, Number, Type, Value};

use super::*;
use crate::Attr;

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn n(i: i64) -> Value {
    Value::Number(Number::Int(i))
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Server {
    id: Attr<String>,
    name: String,
    port: Option<u16>,
    tags: Option<BTreeMap<String, String>>,
}

#[test]
fn reads_a_struct_with_null_unknown_and_known_attributes() {
    let value = obj([
        ("id", Value::unknown()),
        ("name", s("web")),
        ("port", Value::Null),
        ("tags", Value::Map(BTreeMap::from([("env".to_string(), s("prod"))]))),
        // Attributes the struct does not name are ignored, even unknown ones.
        ("extra", Value::unknown()),
    ]);
    let server: Server = from_value(&value).unwrap();
    assert_eq!(
        server,
        Server {
            id: Attr::Unknown,
            name: "web".into(),
            port: None,
            tags: Some(BTreeMap::from([("env".into(), "prod".into())])),
        }
    );
}

#[test]
fn plain_fields_refuse_null_and_unknown_with_the_attribute_path() {
    let null_name = obj([
        ("id", Value::Null),
        ("name", Value::Null),
        ("port", Value::Null),
        ("tags", Value::Null),
    ]);
    let err = from_value::<Server>(&null_name).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("name"));
    assert!(err.message().contains("null"), "{err}");

    let unknown_port = obj([
        ("id", Value::Null),
        ("name", s("x")),
        ("port", Value::unknown()),
        ("tags", Value::Null),
    ]);
    let err = from_value::<Server>(&unknown_port).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("port"));
    assert!(err.message().contains("not known until apply"), "{err}");

    // Deep inside a map.
    let unknown_tag = obj([
        ("id", Value::Null),
        ("name", s("x")),
        ("port", Value::Null),
        ("tags", Value::Map(BTreeMap::from([("env".to_string(), Value::unknown())]))),
    ]);
    let err = from_value::<Server>(&unknown_tag).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("tags").key("env"));
    let diagnostic = err.to_diagnostic();
    assert_eq!(diagnostic.attribute, AttributePath::attribute("tags").key("env"));
    assert!(diagnostic.is_error());
}

#[test]
fn type_mismatches_and_missing_fields_name_the_attribute() {
    let wrong =
        obj([("id", Value::Null), ("name", n(3)), ("port", Value::Null), ("tags", Value::Null)]);
    // A number reads as a string (exactly), so this is fine...
    assert_eq!(from_value::<Server>(&wrong).unwrap().name, "3");
    // ...but a bool is not.
    let wrong = obj([
        ("id", Value::Null),
        ("name", Value::Bool(true)),
        ("port", Value::Null),
        ("tags", Value::Null),
    ]);
    let err = from_value::<Server>(&wrong).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("name"));

    let too_big =
        obj([("id", Value::Null), ("name", s("x")), ("port", n(70000)), ("tags", Value::Null)]);
    let err = from_value::<Server>(&too_big).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("port"));

    let missing = obj([("id", Value::Null), ("port", Value::Null), ("tags", Value::Null)]);
    let err = from_value::<Server>(&missing).unwrap_err();
    assert!(err.message().contains("missing field `name`"), "{err}");
}

#[test]
fn writes_a_struct_as_an_object() {
    let server =
        Server { id: Attr::Known("i-1".into()), name: "web".into(), port: Some(80), tags: None };
    assert_eq!(
        to_value(&server).unwrap(),
        obj([("id", s("i-1")), ("name", s("web")), ("port", n(80)), ("tags", Value::Null)])
    );
    let planned = Server { id: Attr::Unknown, ..server };
    assert!(to_value(&planned).unwrap().attr("id").unwrap().is_unknown());
}

#[test]
fn numbers_keep_their_value() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Numbers {
        small: i8,
        big: u64,
        float: f64,
        exact: String,
    }
    let value = obj([
        ("small", n(-5)),
        ("big", Value::Number(Number::Decimal("18446744073709551615".into()))),
        ("float", Value::Number(Number::Float(2.5))),
        ("exact", Value::Number(Number::Decimal("123456789012345678901234567890".into()))),
    ]);
    let numbers: Numbers = from_value(&value).unwrap();
    assert_eq!(numbers.small, -5);
    assert_eq!(numbers.big, u64::MAX);
    assert_eq!(numbers.float, 2.5);
    assert_eq!(numbers.exact, "123456789012345678901234567890");

    let back = to_value(&numbers).unwrap();
    assert_eq!(
        back.attr("big"),
        Some(&Value::Number(Number::Decimal("18446744073709551615".into())))
    );
    assert_eq!(back.attr("float"), Some(&Value::Number(Number::Float(2.5))));

    // A fraction does not read as an integer.
    let err = from_value::<i64>(&Value::Number(Number::Float(1.5))).unwrap_err();
    assert!(err.message().contains("whole number"), "{err}");
    assert!(to_value(&f64::NAN).is_err());
}

#[test]
fn unit_enums_are_strings() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Tier {
        Free,
        Paid,
    }
    assert_eq!(from_value::<Tier>(&s("paid")).unwrap(), Tier::Paid);
    assert_eq!(to_value(&Tier::Free).unwrap(), s("free"));
    assert!(from_value::<Tier>(&s("gold")).is_err());
}

#[test]
fn attr_round_trips_through_values() {
    for value in [Value::Null, Value::unknown(), s("x")] {
        let attr: Attr<String> = from_value(&value).unwrap();
        let back = to_value(&attr).unwrap();
        assert_eq!(back.is_null(), value.is_null());
        assert_eq!(back.is_unknown(), value.is_unknown());
        if let Attr::Known(text) = attr {
            assert_eq!(back, s(&text));
        }
    }
    // Option refuses unknown: an unknown is not "absent".
    assert!(from_value::<Option<String>>(&Value::unknown()).is_err());
    assert_eq!(from_value::<Option<String>>(&Value::Null).unwrap(), None);
}

#[test]
fn dynamic_values_read_as_their_content() {
    let value = Value::Dynamic(Box::new(DynamicValue {
        ty: Type::list(Type::Number),
        value: Value::List(vec![n(1), n(2)]),
    }));
    assert_eq!(from_value::<Vec<i32>>(&value).unwrap(), vec![1, 2]);
    // serde_json::Value is a handy way to read a dynamic attribute of any shape.
    let json: serde_json::Value = from_value(&value).unwrap();
    assert_eq!(json, serde_json::json!([1, 2]));
}

#[test]
fn conform_fits_serde_shapes_to_the_schema_type() {
    #[derive(Serialize)]
    struct Rule {
        ports: Vec<i64>,
        labels: HashMap<String, String>,
    }
    let ty = Type::object([
        ("ports", Type::set(Type::Number)),
        ("labels", Type::map(Type::String)),
        ("pair", Type::Tuple(vec![Type::String, Type::Number])),
        ("note", Type::String),
    ]);
    let raw = to_value(&Rule {
        ports: vec![80, 443, 80],
        labels: HashMap::from([("a".into(), "b".into())]),
    })
    .unwrap();
    let mut with_pair = match raw {
        Value::Object(m) => m,
        other => panic!("expected an object, got {other:?}"),
    };
    with_pair.insert("pair".into(), Value::List(vec![s("x"), n(1)]));
    let fitted = conform(Value::Object(with_pair), &ty).unwrap();
    assert_eq!(
        fitted,
        obj([
            ("labels", Value::Map(BTreeMap::from([("a".to_string(), s("b"))]))),
            ("note", Value::Null),
            ("pair", Value::Tuple(vec![s("x"), n(1)])),
            // A set has no duplicates.
            ("ports", Value::Set(vec![n(80), n(443)])),
        ])
    );
}

#[test]
fn conform_refuses_what_does_not_fit() {
    let ty = Type::object([("size", Type::Number)]);
    let err = conform(obj([("size", s("big"))]), &ty).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("size"));

    let err = conform(obj([("size", n(1)), ("colour", s("red"))]), &ty).unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("colour"));

    let err = conform(Value::List(vec![n(1)]), &Type::Tuple(vec![Type::Number, Type::Number]))
        .unwrap_err();
    assert!(err.message().contains("2 elements"), "{err}");
}

#[test]
fn conform_gives_dynamic_values_their_type() {
    let ty = Type::object([("anything", Type::Dynamic)]);
    let fitted = conform(obj([("anything", Value::List(vec![s("a"), n(1)]))]), &ty).unwrap();
    let Some(Value::Dynamic(d)) = fitted.attr("anything") else {
        panic!("expected a dynamic value, got {fitted:?}");
    };
    assert_eq!(d.ty, Type::Tuple(vec![Type::String, Type::Number]));
    assert_eq!(d.value, Value::Tuple(vec![s("a"), n(1)]));
    // Null stays an untyped null.
    assert_eq!(
        conform(obj([("anything", Value::Null)]), &ty).unwrap(),
        obj([("anything", Value::Null)])
    );
}

#[test]
fn upgrade_raw_is_lenient_like_terraforms_json_decoding() {
    let ty = Type::object([("count", Type::Number), ("name", Type::String), ("on", Type::Bool)]);
    let raw = obj([("count", s("3")), ("name", n(7)), ("on", s("true")), ("removed", s("old"))]);
    assert_eq!(
        upgrade_raw(raw, &ty).unwrap(),
        obj([("count", n(3)), ("name", s("7")), ("on", Value::Bool(true))])
    );
    assert!(upgrade_raw(obj([("count", s("many"))]), &ty).is_err());
}

#[test]
fn same_value_ignores_representation_and_set_order() {
    assert!(same_value(&Value::Number(Number::Int(1)), &Value::Number(Number::Float(1.0))));
    assert!(same_value(&Value::Set(vec![n(1), n(2)]), &Value::Set(vec![n(2), n(1)])));
    assert!(!same_value(&Value::Set(vec![n(1), n(1)]), &Value::Set(vec![n(1), n(2)])));
    assert!(!same_value(&Value::List(vec![n(1), n(2)]), &Value::List(vec![n(2), n(1)])));
    assert!(!same_value(&Value::unknown(), &Value::unknown()));
    assert!(!same_value(&Value::Null, &Value::Map(BTreeMap::new())));
}

#[test]
fn serializer_errors_name_the_nested_attribute() {
    #[derive(Serialize)]
    struct Outer {
        inner: Vec<Inner>,
    }
    #[derive(Serialize)]
    struct Inner {
        ratio: f64,
    }
    let err =
        to_value(&Outer { inner: vec![Inner { ratio: 1.0 }, Inner { ratio: f64::INFINITY }] })
            .unwrap_err();
    assert_eq!(err.path(), &AttributePath::attribute("inner").index(1).attr("ratio"));
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Measures {
    ratio: Option<f32>,
    size: Option<f64>,
    count: Option<u128>,
}

fn measures(ratio: Value, size: Value, count: Value) -> Value {
    obj([("ratio", ratio), ("size", size), ("count", count)])
}

fn decimal(text: &str) -> Value {
    Value::Number(Number::parse(text).unwrap())
}

#[test]
fn numbers_read_into_floats_and_back_are_the_same_numbers() {
    let value = measures(decimal("0.1"), decimal("0.1"), decimal("123456789012345678901234567890"));
    let read: Measures = from_value(&value).unwrap();
    assert_eq!(read.count, Some(123_456_789_012_345_678_901_234_567_890));
    let written = to_value(&read).unwrap();
    // 0.1f32 is 0.1, not the 0.10000000149011612 its bits are as an f64.
    let text = |name| match written.attr(name) {
        Some(Value::Number(n)) => n.to_string(),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(text("ratio"), "0.1");
    assert_eq!(text("size"), "0.1");
    assert_eq!(written.attr("count"), value.attr("count"));
    // Whole numbers an f64 holds exactly read fine, in either float.
    let whole: Measures = from_value(&measures(n(3), n(1 << 53), Value::Null)).unwrap();
    assert_eq!((whole.ratio, whole.size), (Some(3.0), Some(9_007_199_254_740_992.0)));
}

#[test]
fn a_number_a_float_cannot_hold_exactly_is_an_error_naming_the_attribute() {
    for (value, at, says) in [
        // 20 digits: an f64 keeps about 16.
        (measures(Value::Null, decimal("12345678901234567890.5"), Value::Null), "size", "f64"),
        (measures(Value::Null, n((1 << 53) + 1), Value::Null), "size", "f64"),
        (measures(decimal("0.123456789"), Value::Null, Value::Null), "ratio", "f32"),
    ] {
        let e = from_value::<Measures>(&value).unwrap_err();
        assert_eq!(e.path().to_string(), at, "{e}");
        assert!(e.message().contains(&format!("does not fit an {says} exactly")), "{e}");
        assert!(e.message().contains("String"), "says what to use instead: {e}");
    }
}

#[test]
fn a_map_of_blocks_with_a_dynamic_attribute_is_an_object_of_their_own_types_and_back() {
    use terrarium_model::schema::{Attribute, AttributeType, Block, BlockNesting, NestedBlock};
    let v = Attribute {
        name: "v".into(),
        ty: AttributeType::Type(Type::Dynamic),
        optional: true,
        ..Default::default()
    };
    let block = Block {
        block_types: vec![NestedBlock {
            type_name: "m".into(),
            block: Block { attributes: vec![v], ..Default::default() },
            nesting: BlockNesting::Map,
            min_items: 0,
            max_items: 0,
            computed: false,
        }],
        ..Default::default()
    };
    // As the provider's code writes it: a map of block objects.
    let written = obj([(
        "m",
        Value::Map(BTreeMap::from([
            ("a".to_string(), obj([("v", n(1))])),
            ("b".to_string(), obj([("v", s("x"))])),
        ])),
    )]);
    let typed = conform_block(written, &block).unwrap();
    let Some(Value::Dynamic(m)) = typed.attr("m") else { panic!("{typed:?}") };
    assert_eq!(
        m.ty.to_json(),
        r#"["object",{"a":["object",{"v":"number"}],"b":["object",{"v":"string"}]}]"#
    );
    // And back, each dynamic value with its type.
    let read = dynamic_blocks_as_collections(typed.clone(), &block);
    let Some(Value::Map(entries)) = read.attr("m") else { panic!("{read:?}") };
    assert_eq!(
        entries["b"].attr("v"),
        Some(&Value::Dynamic(Box::new(DynamicValue { ty: Type::String, value: s("x") })))
    );
    assert_eq!(conform_block(read, &block).unwrap(), typed);
}

/// Stored state as UpgradeResourceState gets it from the host (JSON without a schema:
/// objects, tuples, strings, numbers, bools, nulls).
fn raw_state(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Array(items) => Value::Tuple(items.iter().map(raw_state).collect()),
        serde_json::Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), raw_state(v))).collect())
        }
        serde_json::Value::String(text) => s(text),
        serde_json::Value::Number(x) => {
            Number::parse(&x.to_string()).map_or(Value::Null, Value::Number)
        }
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Null => Value::Null,
    }
}

#[test]
fn stored_state_of_a_list_of_blocks_holding_a_dynamic_value_is_read_back() {
    use terrarium_model::schema::{Attribute, AttributeType, Block, BlockNesting, NestedBlock};
    let attribute = |name: &str, ty: Type| Attribute {
        name: name.into(),
        ty: AttributeType::Type(ty),
        optional: true,
        ..Default::default()
    };
    let block = Block {
        attributes: vec![attribute("id", Type::String)],
        block_types: vec![NestedBlock {
            type_name: "nic".into(),
            block: Block {
                attributes: vec![
                    attribute("network", Type::String),
                    attribute("meta", Type::Dynamic),
                ],
                ..Default::default()
            },
            nesting: BlockNesting::List,
            min_items: 0,
            max_items: 0,
            computed: false,
        }],
        ..Default::default()
    };
    // Terraform stores the list of blocks, typed `dynamic`, with its type.
    let stored = raw_state(&serde_json::json!({
        "id": "vm-1",
        "nic": {
            "type": ["tuple", [["object", {
                "network": "string",
                "meta": ["object", {"tags": ["list", "string"], "vlan": "number"}],
            }]]],
            "value": [{"network": "blue", "meta": {"tags": ["a", "b"], "vlan": 7}}],
        },
    }));
    let meta_type = Type::object([("tags", Type::list(Type::String)), ("vlan", Type::Number)]);
    let meta = Value::Dynamic(Box::new(DynamicValue {
        ty: meta_type,
        value: obj([("tags", Value::List(vec![s("a"), s("b")])), ("vlan", n(7))]),
    }));
    assert_eq!(
        upgrade_raw_block(stored, &block).unwrap(),
        obj([
            ("id", s("vm-1")),
            ("nic", Value::List(vec![obj([("network", s("blue")), ("meta", meta)])])),
        ])
    );
}

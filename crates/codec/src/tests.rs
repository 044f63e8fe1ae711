//! Codec tests: round trips over arbitrary types and values, cty's exact bytes, hostile input.

use std::collections::BTreeMap;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use terrarium_model::{DynamicValue, Number, NumberBound, ObjectType, Refinements, Type, Value};

use super::number::{number_from_f64, number_from_text};
use super::*;

// ---------------------------------------------------------------------------------------------
// Strategies

fn arb_type() -> BoxedStrategy<Type> {
    let leaf =
        prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool), Just(Type::Dynamic)];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            vec(inner.clone(), 0..4).prop_map(Type::Tuple),
            btree_map("[a-z_]{1,5}|(?s).{0,3}", inner, 0..4).prop_map(|attributes| Type::Object(
                ObjectType { attributes, optional: Default::default() }
            )),
        ]
    })
    .boxed()
}

/// A type for the inside of a dynamic wrapper: anything but `dynamic` itself, which the
/// decoders flatten away.
fn arb_concrete_type() -> BoxedStrategy<Type> {
    arb_type().prop_map(|t| if t == Type::Dynamic { Type::String } else { t }).boxed()
}

/// Numbers as the decoders produce them (normalised), including big and fractional ones.
fn arb_number(allow_infinity: bool) -> BoxedStrategy<Number> {
    let finite = prop_oneof![
        any::<i64>().prop_map(Number::Int),
        any::<f64>()
            .prop_filter_map("finite", number_from_f64)
            .prop_filter("finite", |n| { !matches!(n, Number::Float(f) if f.is_infinite()) }),
        // Decimal literals: short fractions (0.1 is a Float), huge integers, long fractions,
        // exponents beyond the plain-text range.
        "-?[0-9]{1,30}(\\.[0-9]{1,30})?(e-?[0-9]{1,4})?"
            .prop_filter_map("number", |t| number_from_text(&t)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_filter_map("shortest text", |f| number_from_text(&format!("{f}"))),
    ];
    if allow_infinity {
        prop_oneof![9 => finite, 1 => prop_oneof![Just(Number::Float(f64::INFINITY)), Just(Number::Float(f64::NEG_INFINITY))]]
            .boxed()
    } else {
        finite.boxed()
    }
}

/// Refinements cty accepts for `ty` (consistent ones only).
fn arb_refinements(ty: &Type) -> BoxedStrategy<Refinements> {
    let nullable = prop::option::of(Just(false));
    match ty {
        Type::Dynamic => Just(Refinements::default()).boxed(),
        Type::String => (nullable, prop::option::of("(?s).{0,20}"))
            .prop_map(|(nullable, string_prefix)| Refinements {
                nullable,
                string_prefix,
                ..Default::default()
            })
            .boxed(),
        Type::Number => (nullable, any::<i32>(), 0..1000i64, any::<bool>(), any::<bool>(), 0..4u8)
            .prop_map(|(nullable, low, width, low_inc, high_inc, which)| {
                let low_inc = low_inc || width == 0;
                let high_inc = high_inc || width == 0;
                let lower = NumberBound { value: Number::Int(i64::from(low)), inclusive: low_inc };
                let upper =
                    NumberBound { value: Number::Int(i64::from(low) + width), inclusive: high_inc };
                Refinements {
                    nullable,
                    number_lower: (which & 1 != 0).then_some(lower),
                    number_upper: (which & 2 != 0).then_some(upper),
                    ..Default::default()
                }
            })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => (nullable, 0..100u64, 0..100u64, 0..4u8)
            .prop_map(|(nullable, low, width, which)| Refinements {
                nullable,
                length_lower: (which & 1 != 0).then_some(low),
                length_upper: (which & 2 != 0).then_some(low + width),
                ..Default::default()
            })
            .boxed(),
        _ => nullable.prop_map(|nullable| Refinements { nullable, ..Default::default() }).boxed(),
    }
}

#[derive(Clone, Copy)]
struct Gen {
    /// Unknown values (msgpack only) and infinities (msgpack only) allowed.
    msgpack_only: bool,
    /// How many more dynamic wrappers may nest.
    dynamic_budget: u32,
}

fn arb_value(ty: &Type, g: Gen) -> BoxedStrategy<Value> {
    let known: BoxedStrategy<Value> = match ty {
        Type::String => "(?s).{0,12}".prop_map(Value::String).boxed(),
        Type::Number => arb_number(g.msgpack_only).prop_map(Value::Number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::List(et) => vec(arb_value(et, g), 0..4).prop_map(Value::List).boxed(),
        Type::Set(et) => vec(arb_value(et, g), 0..4).prop_map(|v| Value::Set(distinct(v))).boxed(),
        Type::Map(et) => {
            btree_map("(?s).{0,4}", arb_value(et, g), 0..4).prop_map(Value::Map).boxed()
        }
        Type::Tuple(types) => {
            types.iter().map(|t| arb_value(t, g)).collect::<Vec<_>>().prop_map(Value::Tuple).boxed()
        }
        Type::Object(object) => object
            .attributes
            .iter()
            .map(|(name, t)| (Just(name.clone()), arb_value(t, g)))
            .collect::<Vec<_>>()
            .prop_map(|attrs| Value::Object(attrs.into_iter().collect()))
            .boxed(),
        Type::Dynamic => {
            let inner_types = if g.dynamic_budget == 0 {
                prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)].boxed()
            } else {
                arb_concrete_type()
            };
            let inner = Gen { dynamic_budget: g.dynamic_budget.saturating_sub(1), ..g };
            inner_types
                .prop_flat_map(move |t| {
                    arb_value(&t, inner).prop_map(move |value| {
                        Value::Dynamic(Box::new(DynamicValue { ty: t.clone(), value }))
                    })
                })
                .boxed()
        }
    };
    if g.msgpack_only {
        prop_oneof![1 => Just(Value::Null), 1 => arb_refinements(ty).prop_map(Value::Unknown), 5 => known].boxed()
    } else {
        prop_oneof![1 => Just(Value::Null), 5 => known].boxed()
    }
}

/// The elements of `items` without those equal to an earlier one: a set's elements.
fn distinct(items: Vec<Value>) -> Vec<Value> {
    let mut kept = Vec::new();
    for item in items {
        kept.push(item);
        if check::equal_set_elements(&kept).is_some() {
            kept.pop();
        }
    }
    kept
}

fn arb_typed_value(msgpack_only: bool) -> impl Strategy<Value = (Type, Value)> {
    arb_type().prop_flat_map(move |ty| {
        let value = arb_value(&ty, Gen { msgpack_only, dynamic_budget: 2 });
        (Just(ty), value)
    })
}

// ---------------------------------------------------------------------------------------------
// Round trips

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn msgpack_round_trips_every_value((ty, value) in arb_typed_value(true)) {
        // msgpack carries infinities, which a provider may not return (Terraform's JSON
        // state cannot hold them): the check reports those and nothing else.
        let found = check(&value, &ty);
        prop_assert!(found.iter().all(|m| m.message.contains("Terraform can store")), "{:?}", found);
        let bytes = encode_msgpack(&value, &ty).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back = decode_msgpack(&bytes, &ty).map_err(|e| TestCaseError::fail(format!("{e} in {bytes:02x?}")))?;
        prop_assert_eq!(back, value);
    }

    #[test]
    fn json_round_trips_known_values((ty, value) in arb_typed_value(false)) {
        let bytes = encode_json(&value, &ty).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // What we write is JSON.
        prop_assert!(serde_json::from_slice::<serde_json::Value>(&bytes).is_ok());
        let back = decode_json(&bytes, &ty).map_err(|e| TestCaseError::fail(format!("{e} in {}", String::from_utf8_lossy(&bytes))))?;
        prop_assert_eq!(back, value);
    }

    #[test]
    fn every_strict_prefix_of_an_encoding_is_an_error((ty, value) in arb_typed_value(true), cut in any::<prop::sample::Index>()) {
        let bytes = encode_msgpack(&value, &ty).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let cut = cut.index(bytes.len());
        prop_assert!(decode_msgpack(&bytes[..cut], &ty).is_err());
    }

    #[test]
    fn random_bytes_never_panic(ty in arb_type(), bytes in vec(any::<u8>(), 0..200)) {
        let _ = decode_msgpack(&bytes, &ty);
        let _ = decode_json(&bytes, &ty);
        let _ = decode_json_untyped(&bytes);
    }

    #[test]
    fn corrupted_encodings_never_panic((ty, value) in arb_typed_value(true), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = encode_msgpack(&value, &ty).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if !bytes.is_empty() {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        // Whatever decodes and passes the check must survive another round trip.
        if let Ok(decoded) = decode_msgpack(&bytes, &ty)
            && check(&decoded, &ty).is_empty()
        {
            let again = encode_msgpack(&decoded, &ty).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(decode_msgpack(&again, &ty).ok(), Some(decoded));
        }
    }

    #[test]
    fn untyped_json_keeps_numbers_exact(digits in "[1-9][0-9]{0,40}", frac in "[0-9]{0,40}") {
        let text = if frac.is_empty() { digits.clone() } else { format!("{digits}.{frac}") };
        let value = decode_json_untyped(format!(r#"{{"n":[{text}]}}"#).as_bytes())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let Value::Object(attrs) = value else { return Err(TestCaseError::fail("not an object")) };
        let Some(Value::Tuple(items)) = attrs.get("n") else { return Err(TestCaseError::fail("no tuple")) };
        let Value::Number(n) = &items[0] else { return Err(TestCaseError::fail("not a number")) };
        let expected = Number::Decimal(text.clone());
        prop_assert!(n.same_value(&expected), "{} vs {}", n, text);
    }
}

// ---------------------------------------------------------------------------------------------
// cty's bytes, both directions

fn golden(value: Value, ty: &Type, bytes: &[u8]) {
    assert_eq!(encode_msgpack(&value, ty).unwrap(), bytes, "encoding {value:?}");
    assert_eq!(decode_msgpack(bytes, ty).unwrap(), value, "decoding {bytes:02x?}");
}

fn num(n: Number) -> Value {
    Value::Number(n)
}

#[test]
fn golden_wholly_unknown_is_fixext1_zero() {
    golden(Value::unknown(), &Type::String, &[0xd4, 0x00, 0x00]);
    golden(Value::unknown(), &Type::list(Type::Number), &[0xd4, 0x00, 0x00]);
    // Under dynamic: a bare ext 0, not wrapped.
    golden(Value::unknown(), &Type::Dynamic, &[0xd4, 0x00, 0x00]);
}

#[test]
fn golden_refined_unknowns() {
    // Not null, prefix "ab": ext8 length 7 type 12, payload {1: false, 2: "ab"}.
    let refined = Refinements {
        nullable: Some(false),
        string_prefix: Some("ab".into()),
        ..Default::default()
    };
    golden(
        Value::Unknown(refined),
        &Type::String,
        &[0xc7, 0x07, 0x0c, 0x82, 0x01, 0xc2, 0x02, 0xa2, b'a', b'b'],
    );
    // A number at least 0: {3: [0, true]}.
    let at_least_zero = Refinements {
        number_lower: Some(NumberBound { value: Number::Int(0), inclusive: true }),
        ..Default::default()
    };
    golden(
        Value::Unknown(at_least_zero),
        &Type::Number,
        &[0xc7, 0x05, 0x0c, 0x81, 0x03, 0x92, 0x00, 0xc3],
    );
    // A list of 1 to 3 elements: {5: 1, 6: 3}.
    let lengths =
        Refinements { length_lower: Some(1), length_upper: Some(3), ..Default::default() };
    golden(
        Value::Unknown(lengths),
        &Type::list(Type::String),
        &[0xc7, 0x05, 0x0c, 0x82, 0x05, 0x01, 0x06, 0x03],
    );
}

#[test]
fn refined_unknowns_from_terraform_decode() {
    // What cty writes for a not-null number with unconstrained bounds written out as ±Inf.
    let mut bytes = vec![0xc7, 0x00, 0x0c, 0x83, 0x01, 0xc2, 0x03, 0x92, 0xcb];
    bytes.extend_from_slice(&f64::NEG_INFINITY.to_be_bytes());
    bytes.extend_from_slice(&[0xc2, 0x04, 0x92, 0xcb]);
    bytes.extend_from_slice(&f64::INFINITY.to_be_bytes());
    bytes.push(0xc2);
    bytes[1] = (bytes.len() - 3) as u8;
    let expected = Refinements {
        nullable: Some(false),
        number_lower: Some(NumberBound {
            value: Number::Float(f64::NEG_INFINITY),
            inclusive: false,
        }),
        number_upper: Some(NumberBound { value: Number::Float(f64::INFINITY), inclusive: false }),
        ..Default::default()
    };
    golden(Value::Unknown(expected), &Type::Number, &bytes);
    // Keys from a future cty are skipped, whatever their value; trailing payload bytes ignored.
    let future = [0xc7, 0x0a, 0x0c, 0x82, 0x07, 0x92, 0x91, 0x01, 0xa1, b'x', 0x01, 0xc2, 0xff];
    assert_eq!(
        decode_msgpack(&future, &Type::Bool).unwrap(),
        Value::Unknown(Refinements { nullable: Some(false), ..Default::default() })
    );
    // Refinements on a dynamic unknown are ignored.
    assert_eq!(
        decode_msgpack(&[0xd6, 0x0c, 0x81, 0x01, 0xc2, 0x00], &Type::Dynamic).unwrap(),
        Value::unknown()
    );
    // Any extension type with at most one payload byte is a plain unknown.
    assert_eq!(decode_msgpack(&[0xd4, 0x05, 0x07], &Type::Bool).unwrap(), Value::unknown());
    assert_eq!(decode_msgpack(&[0xc7, 0x00, 0x03], &Type::Bool).unwrap(), Value::unknown());
}

#[test]
fn golden_dynamic_values() {
    // ["string" as bin, "hi"]
    let mut typed = vec![0x92, 0xc4, 0x08];
    typed.extend_from_slice(br#""string""#);
    typed.extend_from_slice(&[0xa2, b'h', b'i']);
    golden(
        Value::Dynamic(Box::new(DynamicValue { ty: Type::String, value: Value::string("hi") })),
        &Type::Dynamic,
        &typed,
    );
    // A typed null: [type, nil]. An untyped null: bare nil.
    let mut typed_null = typed[..11].to_vec();
    typed_null.push(0xc0);
    golden(
        Value::Dynamic(Box::new(DynamicValue { ty: Type::String, value: Value::Null })),
        &Type::Dynamic,
        &typed_null,
    );
    golden(Value::Null, &Type::Dynamic, &[0xc0]);
    // A type given as str rather than bin is accepted too.
    let mut as_str = typed.clone();
    as_str[1] = 0xa8;
    as_str.remove(2);
    assert_eq!(
        decode_msgpack(&as_str, &Type::Dynamic).unwrap(),
        decode_msgpack(&typed, &Type::Dynamic).unwrap()
    );
    // A wrapper that says "dynamic" is transparent.
    let mut wrapped = vec![0x92, 0xc4, 0x09];
    wrapped.extend_from_slice(br#""dynamic""#);
    wrapped.extend_from_slice(&typed);
    assert_eq!(
        decode_msgpack(&wrapped, &Type::Dynamic).unwrap(),
        decode_msgpack(&typed, &Type::Dynamic).unwrap()
    );
}

#[test]
fn bare_values_under_dynamic_get_their_inferred_type() {
    let value = Value::List(vec![Value::Bool(true)]);
    let bytes = encode_msgpack(&value, &Type::Dynamic).unwrap();
    let type_json = br#"["list","bool"]"#;
    let mut expected = vec![0x92, 0xc4, type_json.len() as u8];
    expected.extend_from_slice(type_json);
    expected.extend_from_slice(&[0x91, 0xc3]);
    assert_eq!(bytes, expected);
    assert_eq!(
        decode_msgpack(&bytes, &Type::Dynamic).unwrap(),
        Value::Dynamic(Box::new(DynamicValue { ty: Type::list(Type::Bool), value }))
    );
    let err = encode_msgpack(&Value::Map(BTreeMap::new()), &Type::Dynamic).unwrap_err();
    assert!(matches!(err, CodecError::UntypedDynamic { .. }), "{err}");
    assert!(err.to_string().contains("a value of dynamic type must say its type"), "{err}");
    // Refinements on an unknown of dynamic type are dropped: cty cannot carry them.
    let refined = Value::Unknown(Refinements { nullable: Some(false), ..Default::default() });
    assert_eq!(encode_msgpack(&refined, &Type::Dynamic).unwrap(), [0xd4, 0x00, 0x00]);
}

#[test]
fn golden_numbers() {
    golden(num(Number::Int(42)), &Type::Number, &[0x2a]);
    golden(num(Number::Int(-1)), &Type::Number, &[0xff]);
    golden(num(Number::Int(300)), &Type::Number, &[0xcd, 0x01, 0x2c]);
    golden(num(Number::Int(i64::MIN)), &Type::Number, &[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    golden(num(Number::Float(0.5)), &Type::Number, &[0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0]);
    golden(num(Number::Float(f64::INFINITY)), &Type::Number, &[0xcb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0]);
    let big = "123456789012345678901234567890";
    let mut text = vec![0xa0 | big.len() as u8];
    text.extend_from_slice(big.as_bytes());
    golden(num(Number::Decimal(big.into())), &Type::Number, &text);
    // 0.1 means the decimal 0.1, which float64 cannot hold exactly: it travels as text.
    golden(num(Number::Float(0.1)), &Type::Number, &[0xa3, b'0', b'.', b'1']);
    // Integral floats that fit are ints, as cty writes them.
    assert_eq!(encode_msgpack(&num(Number::Float(7.0)), &Type::Number).unwrap(), [0x07]);

    // Decoders accept every integer width, uint64 beyond i64, float32 and strings.
    let decode = |bytes: &[u8]| decode_msgpack(bytes, &Type::Number).unwrap();
    assert_eq!(decode(&[0xcc, 0xff]), num(Number::Int(255)));
    assert_eq!(decode(&[0xd0, 0x80]), num(Number::Int(-128)));
    assert_eq!(
        decode(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        num(Number::Decimal("18446744073709551615".into()))
    );
    assert_eq!(decode(&[0xca, 0x3f, 0xc0, 0x00, 0x00]), num(Number::Float(1.5)));
    assert_eq!(decode(&[0xa4, b'1', b'e', b'+', b'3']), num(Number::Int(1000)));
    assert_eq!(decode(&[0xa4, b'-', b'I', b'n', b'f']), num(Number::Float(f64::NEG_INFINITY)));
    // A float64 that is not a short decimal keeps its exact binary value.
    let mut tenth = vec![0xcb];
    tenth.extend_from_slice(&0.1f64.to_be_bytes());
    assert_eq!(
        decode(&tenth),
        num(Number::Decimal("0.1000000000000000055511151231257827021181583404541015625".into()))
    );
}

#[test]
fn golden_collections_and_objects() {
    let ty = Type::object([("b", Type::Number), ("a", Type::String)]);
    let value = Value::Object(BTreeMap::from([
        ("b".into(), num(Number::Int(1))),
        ("a".into(), Value::string("x")),
    ]));
    // Attributes in sorted name order.
    golden(value, &ty, &[0x82, 0xa1, b'a', 0xa1, b'x', 0xa1, b'b', 0x01]);
    golden(
        Value::Set(vec![Value::Bool(true), Value::Bool(false)]),
        &Type::set(Type::Bool),
        &[0x92, 0xc3, 0xc2],
    );
    golden(
        Value::Tuple(vec![Value::string("a"), num(Number::Int(2))]),
        &Type::Tuple(vec![Type::String, Type::Number]),
        &[0x92, 0xa1, b'a', 0x02],
    );
    golden(Value::Null, &Type::list(Type::String), &[0xc0]);
    // Map keys in any order on input; sorted on output.
    let map = decode_msgpack(&[0x82, 0xa1, b'z', 0x01, 0xa1, b'a', 0x02], &Type::map(Type::Number))
        .unwrap();
    assert_eq!(
        encode_msgpack(&map, &Type::map(Type::Number)).unwrap(),
        [0x82, 0xa1, b'a', 0x02, 0xa1, b'z', 0x01]
    );
}

#[test]
fn golden_json() {
    let ty =
        Type::object([("d", Type::Dynamic), ("n", Type::Number), ("s", Type::set(Type::String))]);
    let value = Value::Object(BTreeMap::from([
        (
            "d".into(),
            Value::Dynamic(Box::new(DynamicValue { ty: Type::String, value: Value::string("hi") })),
        ),
        ("n".into(), num(Number::Decimal("123456789012345678901234567890.5".into()))),
        ("s".into(), Value::Set(vec![Value::string("a\"\n\u{1}")])),
    ]));
    let text = r#"{"d":{"value":"hi","type":"string"},"n":123456789012345678901234567890.5,"s":["a\"\n\u0001"]}"#;
    assert_eq!(String::from_utf8(encode_json(&value, &ty).unwrap()).unwrap(), text);
    assert_eq!(decode_json(text.as_bytes(), &ty).unwrap(), value);
    // The type may come first, and cty's leniencies apply: absent attributes are null,
    // strings accept numbers and bools, numbers accept numeric strings.
    let lenient = r#"{"d":{"type":"bool","value":true},"s":[1.50,true],"n":"7"}"#;
    let expected = Value::Object(BTreeMap::from([
        (
            "d".into(),
            Value::Dynamic(Box::new(DynamicValue { ty: Type::Bool, value: Value::Bool(true) })),
        ),
        ("n".into(), num(Number::Int(7))),
        ("s".into(), Value::Set(vec![Value::string("1.50"), Value::string("true")])),
    ]));
    assert_eq!(decode_json(lenient.as_bytes(), &ty).unwrap(), expected);
    let sparse = decode_json(br#"{"n":1}"#, &ty).unwrap();
    assert_eq!(sparse.attr("d"), Some(&Value::Null));
    assert_eq!(sparse.attr("s"), Some(&Value::Null));
}

#[test]
fn json_refuses_what_it_cannot_carry() {
    let err =
        encode_json(&Value::List(vec![Value::unknown()]), &Type::list(Type::String)).unwrap_err();
    assert_eq!(err.to_string(), "at [0]: JSON cannot represent an unknown value");
    assert!(encode_json(&num(Number::Float(f64::INFINITY)), &Type::Number).is_err());
    let err = decode_json(br#"{"x":1}"#, &Type::object([("a", Type::Number)])).unwrap_err();
    assert!(
        matches!(err, CodecError::UnsupportedAttribute { ref name, .. } if name == "x"),
        "{err}"
    );
    assert!(decode_json(br#"{"value":1}"#, &Type::Dynamic).is_err());
    assert!(decode_json(br#"{"value":1,"type":"number","extra":0}"#, &Type::Dynamic).is_err());
    assert!(matches!(
        decode_json(b"[1] x", &Type::list(Type::Number)),
        Err(CodecError::InvalidJson { .. })
    ));
}

#[test]
fn untyped_json_state_decodes_without_a_schema() {
    let state = br#"{"id":"abc","n":12345678901234567890123,"f":0.5,"tags":{"k":"v"},"list":[1,"x",null,true]}"#;
    let value = decode_json_untyped(state).unwrap();
    let expected = Value::Object(BTreeMap::from([
        ("id".into(), Value::string("abc")),
        ("n".into(), num(Number::Decimal("12345678901234567890123".into()))),
        ("f".into(), num(Number::Float(0.5))),
        ("tags".into(), Value::Object(BTreeMap::from([("k".into(), Value::string("v"))]))),
        (
            "list".into(),
            Value::Tuple(vec![
                num(Number::Int(1)),
                Value::string("x"),
                Value::Null,
                Value::Bool(true),
            ]),
        ),
    ]));
    assert_eq!(value, expected);
}

#[test]
fn dynamic_value_picks_its_encoding() {
    let ty = Type::list(Type::Number);
    let msgpack = encode_msgpack(&Value::List(vec![num(Number::Int(1))]), &ty).unwrap();
    assert_eq!(
        decode_dynamic_value(&msgpack, b"[2]", &ty).unwrap(),
        Value::List(vec![num(Number::Int(1))])
    );
    assert_eq!(
        decode_dynamic_value(&[], b"[2]", &ty).unwrap(),
        Value::List(vec![num(Number::Int(2))])
    );
    assert_eq!(decode_dynamic_value(&[], &[], &ty).unwrap(), Value::Null);
}

// ---------------------------------------------------------------------------------------------
// Errors and hostile input

#[test]
fn equal_set_elements_are_refused_by_value() {
    let strings = Type::set(Type::String);
    let dup = Value::Set(vec![Value::string("a"), Value::string("b"), Value::string("a")]);
    let found = check(&dup, &strings);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("set elements 0 and 2 are equal"), "{}", found[0]);
    // Numbers compare by value, nested sets regardless of order.
    let numbers = Value::Set(vec![num(Number::Int(1)), num(Number::Decimal("1.0".into()))]);
    assert_eq!(check(&numbers, &Type::set(Type::Number)).len(), 1);
    let nested = Type::set(Type::set(Type::String));
    let ab = Value::Set(vec![Value::string("a"), Value::string("b")]);
    let ba = Value::Set(vec![Value::string("b"), Value::string("a")]);
    assert_eq!(check(&Value::Set(vec![ab.clone(), ba]), &nested).len(), 1);
    // Unknowns are never equal to anything; distinct values are fine.
    let unknowns = Value::Set(vec![Value::unknown(), Value::unknown()]);
    assert!(check(&unknowns, &strings).is_empty());
    assert!(check(&Value::Set(vec![ab, Value::Set(vec![])]), &nested).is_empty());
}

#[test]
fn errors_name_the_path() {
    let ty = Type::object([("tags", Type::map(Type::String))]);
    // {"tags": {"k": true}}
    let bytes = [0x81, 0xa4, b't', b'a', b'g', b's', 0x81, 0xa1, b'k', 0xc3];
    let err = decode_msgpack(&bytes, &ty).unwrap_err();
    assert_eq!(err.to_string(), r#"at tags["k"]: expected string, found bool"#);
    assert_eq!(err.path().to_string(), r#"tags["k"]"#);

    let value = Value::Object(BTreeMap::from([(
        "tags".into(),
        Value::Map(BTreeMap::from([("k".into(), Value::Bool(true))])),
    )]));
    assert_eq!(
        encode_msgpack(&value, &ty).unwrap_err().to_string(),
        r#"at tags["k"]: expected string, found bool"#
    );

    let two = Type::object([("a", Type::String), ("b", Type::String)]);
    let missing = decode_msgpack(&[0x81, 0xa1, b'a', 0xc0], &two).unwrap_err();
    assert_eq!(missing.to_string(), r#"at (root): missing attribute "b""#);
    let unsupported = decode_msgpack(&[0x81, 0xa1, b'c', 0xc0], &two).unwrap_err();
    assert_eq!(unsupported.to_string(), r#"at (root): unsupported attribute "c""#);
    let duplicate = decode_msgpack(&[0x82, 0xa1, b'a', 0xc0, 0xa1, b'a', 0xc0], &two).unwrap_err();
    assert!(matches!(duplicate, CodecError::DuplicateKey { .. }), "{duplicate}");
    let tuple =
        decode_msgpack(&[0x91, 0xc0], &Type::Tuple(vec![Type::String, Type::String])).unwrap_err();
    assert_eq!(tuple.to_string(), "at (root): a tuple of 2 elements is required, found 1");
    let extra = Value::Object(BTreeMap::from([("z".into(), Value::Null)]));
    assert!(matches!(
        encode_msgpack(&extra, &Type::object([] as [(&str, Type); 0])),
        Err(CodecError::UnsupportedAttribute { .. })
    ));
}

#[test]
fn malformed_input_is_an_error() {
    let s = Type::String;
    let cases: &[(&[u8], &Type)] = &[
        (&[], &s),                                                        // nothing at all
        (&[0xa3, b'a', b'b'], &s),                                        // truncated string
        (&[0xa2, 0xff, 0xfe], &s),                                        // invalid UTF-8
        (&[0xa1, b'a', 0x00], &s),                                        // trailing bytes
        (&[0xc1], &s),                                                    // reserved marker
        (&[0x01], &s),                                                    // wrong kind
        (&[0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1], &Type::Number),           // NaN
        (&[0xa3, b'1', b'.', b'x'], &Type::Number),                       // not a number
        (&[0xd5, 0x01, 0x00, 0x00], &s), // 2-byte extension that is not type 12
        (&[0xd6, 0x0c, 0x81, 0x02, 0xa0, 0x00], &Type::Number), // string prefix on a number
        (&[0xd6, 0x0c, 0x81, 0x05, 0xff, 0x00], &Type::list(Type::Bool)), // negative length bound
        (&[0xd6, 0x0c, 0x91, 0x01, 0xc2, 0x00], &s), // refinements not a map
        (&[0x93, 0xc4, 0x01, b'x', 0xc0, 0xc0], &Type::Dynamic), // dynamic array of 3
        (&[0x92, 0xc4, 0x01, b'x', 0xc0], &Type::Dynamic), // invalid type JSON
        (&[0x92, 0xc4, 0x02, 0xff, 0xfe, 0xc0], &Type::Dynamic), // type not UTF-8
        (&[0x81, 0x01, 0xc0], &Type::map(Type::String)), // non-string key
    ];
    for (bytes, ty) in cases {
        assert!(decode_msgpack(bytes, ty).is_err(), "{bytes:02x?} as {ty} should be an error");
    }
    // cty's 1 KiB refinement limit.
    let mut oversize = vec![0xc8, 0x04, 0x01, 0x0c, 0x81, 0x02, 0xda, 0x03, 0xfc];
    oversize.extend(std::iter::repeat_n(b'a', 0x3fc));
    let err = decode_msgpack(&oversize, &Type::String).unwrap_err();
    assert!(err.to_string().contains("longer than 1024 bytes"), "{err}");
}

#[test]
fn huge_length_claims_fail_fast_without_allocating() {
    let claims: &[(&[u8], Type)] = &[
        (&[0xdd, 0xff, 0xff, 0xff, 0xff], Type::list(Type::String)),
        (&[0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0], Type::map(Type::String)),
        (&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a'], Type::String),
        (&[0x92, 0xc6, 0xff, 0xff, 0xff, 0xff], Type::Dynamic),
        (&[0xc9, 0xff, 0xff, 0xff, 0xff, 0x0c], Type::Number),
    ];
    let started = std::time::Instant::now();
    for (bytes, ty) in claims {
        let err = decode_msgpack(bytes, ty).unwrap_err();
        assert!(
            matches!(err, CodecError::LengthBeyondInput { .. } | CodecError::Truncated { .. }),
            "{bytes:02x?}: {err}"
        );
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    let err =
        decode_msgpack(&[0xdd, 0xff, 0xff, 0xff, 0xff], &Type::list(Type::String)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "at (root): an array claims 4294967295 but only 0 bytes of input remain"
    );
}

/// Runs `body` on a thread with a 1 MiB stack (half a tokio worker's): deep input must be
/// refused long before the codec's recursion could exhaust it, even unoptimised. A stack
/// overflow aborts the whole test run.
fn on_small_stack(body: impl FnOnce() + Send + 'static) {
    let thread =
        std::thread::Builder::new().stack_size(1 << 20).spawn(body).expect("spawn test thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

fn nested_lists(levels: usize) -> (Type, Value, Vec<u8>) {
    let (mut ty, mut value, mut bytes) = (Type::Bool, Value::Bool(true), vec![0xc3]);
    for _ in 0..levels {
        ty = Type::list(ty);
        value = Value::List(vec![value]);
        bytes.insert(0, 0x91);
    }
    (ty, value, bytes)
}

#[test]
fn nesting_is_allowed_up_to_the_limit_and_refused_beyond() {
    on_small_stack(|| {
        let (ty, value, bytes) = nested_lists(MAX_DEPTH);
        assert_eq!(decode_msgpack(&bytes, &ty).unwrap(), value);
        assert_eq!(encode_msgpack(&value, &ty).unwrap(), bytes);
        assert!(check(&value, &ty).is_empty());
        // JSON input is bounded by serde_json's own limit, 127 nested arrays.
        let (ty_json, value_json, _) = nested_lists(MAX_DEPTH - 1);
        assert_eq!(
            decode_json(&encode_json(&value_json, &ty_json).unwrap(), &ty_json).unwrap(),
            value_json
        );
        assert!(encode_json(&value, &ty).is_ok());

        let (ty, value, bytes) = nested_lists(MAX_DEPTH + 1);
        assert!(matches!(decode_msgpack(&bytes, &ty), Err(CodecError::TooDeep { .. })));
        assert!(matches!(encode_msgpack(&value, &ty), Err(CodecError::TooDeep { .. })));
        assert!(matches!(encode_json(&value, &ty), Err(CodecError::TooDeep { .. })));
        assert!(check(&value, &ty).iter().any(|m| m.message.contains("nest deeper")));
    });
}

#[test]
fn deep_nesting_under_dynamic_is_refused() {
    on_small_stack(|| {
        // 10,000 wrappers that each say "dynamic".
        let mut bytes = Vec::new();
        for _ in 0..10_000 {
            bytes.extend_from_slice(&[0x92, 0xc4, 0x09]);
            bytes.extend_from_slice(br#""dynamic""#);
        }
        bytes.push(0xc0);
        assert!(matches!(decode_msgpack(&bytes, &Type::Dynamic), Err(CodecError::TooDeep { .. })));

        // 10,000 lists of dynamic, each element a new [type, [..]] wrapper.
        let mut bytes = Vec::new();
        let list_of_dynamic = br#"["list","dynamic"]"#;
        for _ in 0..10_000 {
            bytes.extend_from_slice(&[0x92, 0xc4, list_of_dynamic.len() as u8]);
            bytes.extend_from_slice(list_of_dynamic);
            bytes.push(0x91);
        }
        bytes.push(0xc0);
        assert!(matches!(decode_msgpack(&bytes, &Type::Dynamic), Err(CodecError::TooDeep { .. })));

        // A type too deep for the type parser.
        let deep_type = format!("{}\"string\"{}", "[\"list\",".repeat(10_000), "]".repeat(10_000));
        let mut bytes = vec![0x92, 0xc6];
        bytes.extend_from_slice(&(deep_type.len() as u32).to_be_bytes());
        bytes.extend_from_slice(deep_type.as_bytes());
        bytes.push(0xc0);
        assert!(matches!(
            decode_msgpack(&bytes, &Type::Dynamic),
            Err(CodecError::InvalidDynamic { .. })
        ));

        // JSON: 10,000 nested arrays.
        let deep_json = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(decode_json(deep_json.as_bytes(), &Type::Dynamic).is_err());
        assert!(decode_json_untyped(deep_json.as_bytes()).is_err());
        let (ty, _, _) = nested_lists(MAX_DEPTH + 10);
        assert!(decode_json(deep_json.as_bytes(), &ty).is_err());
    });
}

#[test]
fn deep_values_from_guests_are_refused_when_encoding() {
    on_small_stack(|| {
        let wrap = |levels: usize| {
            let mut value =
                Value::Dynamic(Box::new(DynamicValue { ty: Type::Bool, value: Value::Bool(true) }));
            for _ in 1..levels {
                value = Value::Dynamic(Box::new(DynamicValue { ty: Type::Dynamic, value }));
            }
            value
        };
        let at_limit = wrap(MAX_DEPTH);
        let bytes = encode_msgpack(&at_limit, &Type::Dynamic).unwrap();
        assert_eq!(decode_msgpack(&bytes, &Type::Dynamic).unwrap(), wrap(1));
        assert!(encode_json(&at_limit, &Type::Dynamic).is_ok());
        assert!(check(&at_limit, &Type::Dynamic).is_empty());

        let too_deep = wrap(1_000);
        assert!(matches!(
            encode_msgpack(&too_deep, &Type::Dynamic),
            Err(CodecError::TooDeep { .. })
        ));
        assert!(matches!(encode_json(&too_deep, &Type::Dynamic), Err(CodecError::TooDeep { .. })));
        assert!(!check(&too_deep, &Type::Dynamic).is_empty());

        let mut deep_type = Type::Bool;
        for _ in 0..1_000 {
            deep_type = Type::list(deep_type);
        }
        let typed =
            Value::Dynamic(Box::new(DynamicValue { ty: deep_type.clone(), value: Value::Null }));
        assert!(matches!(encode_msgpack(&typed, &Type::Dynamic), Err(CodecError::TooDeep { .. })));
        assert!(!check(&typed, &Type::Dynamic).is_empty());
    });
}

#[test]
fn encoding_refuses_refinements_terraform_would_reject() {
    let bad = Value::Unknown(Refinements { length_lower: Some(2), ..Default::default() });
    let err = encode_msgpack(&bad, &Type::String).unwrap_err();
    assert!(matches!(err, CodecError::InvalidUnknown { .. }), "{err}");
    // A long prefix is cut the way cty cuts it, and the payload stays within 1 KiB.
    let long =
        Value::Unknown(Refinements { string_prefix: Some("é".repeat(400)), ..Default::default() });
    let bytes = encode_msgpack(&long, &Type::String).unwrap();
    let Value::Unknown(r) = decode_msgpack(&bytes, &Type::String).unwrap() else {
        panic!("not unknown")
    };
    let prefix = r.string_prefix.unwrap();
    assert!(prefix.len() < 256 && "é".repeat(400).starts_with(&prefix) && !prefix.is_empty());
    // Huge decimal bounds are dropped rather than exceeding the limit.
    let huge = Number::Decimal(format!("1{}.5", "0".repeat(2000)));
    let wide = Value::Unknown(Refinements {
        nullable: Some(false),
        number_lower: Some(NumberBound { value: huge, inclusive: true }),
        ..Default::default()
    });
    let bytes = encode_msgpack(&wide, &Type::Number).unwrap();
    assert!(bytes.len() < MAX_REFINEMENT_BYTES);
    assert_eq!(
        decode_msgpack(&bytes, &Type::Number).unwrap(),
        Value::Unknown(Refinements { nullable: Some(false), ..Default::default() })
    );
}

// ---------------------------------------------------------------------------------------------
// canonical: the wire's value without the wire

/// `value` as a front end may build it: integral numbers as floats or decimal text, dynamic
/// values bare (their type left to inference).
fn denormalised(value: &Value) -> Value {
    match value {
        Value::Number(Number::Int(i)) if i.unsigned_abs() < (1 << 53) && i % 2 == 0 => {
            Value::Number(Number::Float(*i as f64))
        }
        Value::Number(Number::Int(i)) => Value::Number(Number::Decimal(i.to_string())),
        Value::List(items) => Value::List(items.iter().map(denormalised).collect()),
        Value::Set(items) => Value::Set(items.iter().map(denormalised).collect()),
        Value::Tuple(items) => Value::Tuple(items.iter().map(denormalised).collect()),
        Value::Map(m) => Value::Map(m.iter().map(|(k, v)| (k.clone(), denormalised(v))).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), denormalised(v))).collect())
        }
        Value::Dynamic(d) if check::infer_type(&d.value).as_ref() == Some(&d.ty) => {
            denormalised(&d.value)
        }
        Value::Dynamic(d) => Value::Dynamic(Box::new(DynamicValue {
            ty: d.ty.clone(),
            value: denormalised(&d.value),
        })),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn canonical_is_what_the_wire_gives_back((ty, value) in arb_typed_value(true)) {
        for value in [value.clone(), denormalised(&value)] {
            let wire = encode_msgpack(&value, &ty).and_then(|bytes| decode_msgpack(&bytes, &ty));
            prop_assert_eq!(canonical(&value, &ty), wire);
        }
    }
}

#[test]
fn canonical_refuses_what_encoding_refuses() {
    let ty = Type::object([("a", Type::String)]);
    for value in [
        Value::Object(BTreeMap::new()),
        Value::Object([("b".to_string(), Value::Null)].into_iter().collect()),
        Value::Object([("a".to_string(), Value::Bool(true))].into_iter().collect()),
        Value::String("s".into()),
    ] {
        let encoded = encode_msgpack(&value, &ty).unwrap_err();
        assert_eq!(canonical(&value, &ty).unwrap_err(), encoded);
    }
    let bare_map = Value::Map(BTreeMap::new());
    assert_eq!(
        canonical(&bare_map, &Type::Dynamic).unwrap_err(),
        encode_msgpack(&bare_map, &Type::Dynamic).unwrap_err()
    );
    let nan = Value::Number(Number::Float(f64::NAN));
    assert_eq!(
        canonical(&nan, &Type::Number).unwrap_err(),
        encode_msgpack(&nan, &Type::Number).unwrap_err()
    );
}

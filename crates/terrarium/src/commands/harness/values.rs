//! Values as the harness protocol writes them: plain JSON, and beside it a mask of where a
//! value is unknown (the shape of `after_unknown` in `terraform show -json`), because JSON
//! has no unknowns.
//!
//! A mask is `true` where the value is unknown, `false` (or absent) where it is wholly
//! known, an object naming the attributes or keys that hold unknowns, and an array with one
//! entry per element of a list, set or tuple. Values of type `dynamic` are written as their
//! plain JSON (Terraform's state JSON does the same); reading them back infers their type.

use serde_json::{Map, Value as Json};
use terrarium_model::conform::conform;
use terrarium_model::schema::{Block, BlockNesting};
use terrarium_model::{Number, Type, Value};

/// Why a value from the test could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{what} does not fit the schema {0}", what = .1)]
pub struct ValueError(terrarium_model::conform::ConformError, &'static str);

/// `value` as JSON (unknowns written as null) and its unknown mask.
pub fn to_json(value: &Value) -> (Json, Json) {
    match value {
        Value::Null => (Json::Null, Json::Bool(false)),
        Value::Unknown(_) => (Json::Null, Json::Bool(true)),
        Value::Bool(b) => (Json::Bool(*b), Json::Bool(false)),
        Value::Number(n) => (number_json(n), Json::Bool(false)),
        Value::String(s) => (Json::String(s.clone()), Json::Bool(false)),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            let (values, masks): (Vec<Json>, Vec<Json>) = items.iter().map(to_json).unzip();
            let mask = if masks.iter().all(|m| m == &Json::Bool(false)) {
                Json::Bool(false)
            } else {
                Json::Array(masks)
            };
            (Json::Array(values), mask)
        }
        Value::Map(m) | Value::Object(m) => {
            let mut values = Map::new();
            let mut masks = Map::new();
            for (k, v) in m {
                let (value, mask) = to_json(v);
                values.insert(k.clone(), value);
                if mask != Json::Bool(false) {
                    masks.insert(k.clone(), mask);
                }
            }
            let mask = if masks.is_empty() { Json::Bool(false) } else { Json::Object(masks) };
            (Json::Object(values), mask)
        }
        Value::Dynamic(d) => to_json(&d.value),
    }
}

fn number_json(n: &Number) -> Json {
    match n {
        Number::Int(i) => Json::from(*i),
        Number::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        // Exact: serde_json keeps the digits (arbitrary_precision), and so does Python's json.
        Number::Decimal(text) => text
            .parse::<serde_json::Number>()
            .map_or_else(|_| Json::String(text.clone()), Json::Number),
    }
}

/// A value of type `ty` from its JSON and unknown mask (`Json::Null` for none): attributes
/// left out are null, and primitives convert as Terraform converts them.
pub fn from_json(
    json: &Json,
    unknown: &Json,
    ty: &Type,
    what: &'static str,
) -> Result<Value, ValueError> {
    conform(untyped(json, unknown), ty).map_err(|e| ValueError(e, what))
}

/// A configuration of `block` from its JSON, as Terraform decodes one: attributes left out
/// are null and blocks left out are empty (a list, set or map of blocks) or absent (a single
/// block; a group block is an object of nulls).
pub fn config_from_json(
    json: &Json,
    unknown: &Json,
    block: &Block,
    what: &'static str,
) -> Result<Value, ValueError> {
    if json.is_null() {
        return Ok(Value::Null);
    }
    Ok(absent_blocks(block, from_json(json, unknown, &block.implied_type(), what)?))
}

fn untyped(json: &Json, unknown: &Json) -> Value {
    if unknown == &Json::Bool(true) {
        return Value::unknown();
    }
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Number::parse(&n.to_string()).map_or(Value::Null, Value::Number),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Tuple(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| untyped(v, unknown.get(i).unwrap_or(&Json::Null)))
                .collect(),
        ),
        Json::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), untyped(v, unknown.get(k).unwrap_or(&Json::Null))))
                .collect(),
        ),
    }
}

fn absent_blocks(block: &Block, value: Value) -> Value {
    let Value::Object(mut object) = value else {
        return value;
    };
    for b in &block.block_types {
        let Some(v) = object.get_mut(&b.type_name) else { continue };
        let taken = std::mem::replace(v, Value::Null);
        let inner = |v: Value| absent_blocks(&b.block, v);
        *v = match (b.nesting, taken) {
            (BlockNesting::List, Value::Null) => Value::List(Vec::new()),
            (BlockNesting::Set, Value::Null) => Value::Set(Vec::new()),
            (BlockNesting::Map, Value::Null) => Value::Map(Default::default()),
            (BlockNesting::Group, Value::Null) => inner(Value::Object(
                b.block
                    .attributes
                    .iter()
                    .map(|a| &a.name)
                    .chain(b.block.block_types.iter().map(|b| &b.type_name))
                    .map(|n| (n.clone(), Value::Null))
                    .collect(),
            )),
            (_, Value::List(items)) => Value::List(items.into_iter().map(inner).collect()),
            (_, Value::Set(items)) => Value::Set(items.into_iter().map(inner).collect()),
            (_, Value::Map(m)) => Value::Map(m.into_iter().map(|(k, i)| (k, inner(i))).collect()),
            (_, other) => inner(other),
        };
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use terrarium_model::schema::{Attribute, AttributeType, NestedBlock};

    use super::*;

    fn block() -> Block {
        let attr = |name: &str, ty: Type, computed: bool| Attribute {
            name: name.into(),
            ty: AttributeType::Type(ty),
            optional: !computed,
            computed,
            ..Default::default()
        };
        Block {
            attributes: vec![
                attr("id", Type::String, true),
                attr("tags", Type::set(Type::String), false),
            ],
            block_types: vec![NestedBlock {
                type_name: "toy".into(),
                block: Block {
                    attributes: vec![attr("kind", Type::String, false)],
                    ..Default::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
                computed: false,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn unknowns_round_trip_through_the_mask() {
        let b = block();
        let planned = json!({"id": null, "tags": ["a"], "toy": [{"kind": "ball"}]});
        let value = from_json(&planned, &json!({"id": true}), &b.implied_type(), "test").unwrap();
        assert!(value.attr("id").unwrap().is_unknown());
        assert_eq!(to_json(&value), (planned, json!({"id": true})));
    }

    #[test]
    fn a_configuration_has_null_attributes_and_empty_blocks_where_left_out() {
        let config = config_from_json(&json!({"tags": ["a"]}), &Json::Null, &block(), "test");
        let (json, mask) = to_json(&config.unwrap());
        assert_eq!(json, json!({"id": null, "tags": ["a"], "toy": []}));
        assert_eq!(mask, json!(false));
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_path() {
        let e = config_from_json(&json!({"tags": {"a": 1}}), &Json::Null, &block(), "config");
        let message = e.unwrap_err().to_string();
        assert!(message.contains("tags"), "{message}");
    }
}

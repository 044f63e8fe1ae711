//! Semantic equality: values that differ in form but mean the same. Attach one with
//! [`Attribute::semantic_equality`](crate::schema::Attribute::semantic_equality) or
//! `#[tf(semantic_equality = terrarium_sdk::semantic::json)]`.

use terrarium_model::Value;

use crate::plan::{Shape, counterparts, elements, elements_mut};

/// Two strings holding the same JSON document (whitespace, key order and number spelling
/// aside). Anything else compares as [`crate::same_value`] does.
pub fn json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            match (
                serde_json::from_str::<serde_json::Value>(x),
                serde_json::from_str::<serde_json::Value>(y),
            ) {
                (Ok(x), Ok(y)) => same_json(&x, &y),
                _ => x == y,
            }
        }
        _ => crate::same_value(a, b),
    }
}

fn same_json(x: &serde_json::Value, y: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (x, y) {
        (J::Number(a), J::Number(b)) => {
            match (
                terrarium_model::Number::parse(&a.to_string()),
                terrarium_model::Number::parse(&b.to_string()),
            ) {
                (Some(a), Some(b)) => a.same_value(&b),
                _ => a == b,
            }
        }
        (J::Array(a), J::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_json(a, b))
        }
        (J::Object(a), J::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => x == y,
    }
}

/// Puts `before`'s value back wherever `after` holds a semantically equal one, at every
/// depth (objects, lists by position, maps by key; set elements are matched as the plan
/// matches them).
pub fn keep_equal(shape: Shape<'_>, before: &Value, after: &mut Value) {
    let Value::Object(object) = after else { return };
    for a in shape.attributes {
        let (Some(equal), Some(old), Some(new)) =
            (a.semantic_equality_fn(), before.attr(a.name()), object.get_mut(a.name()))
        else {
            continue;
        };
        if !old.contains_unknown() && !crate::same_value(old, new) && equal(old, new) {
            *new = old.clone();
        }
    }
    for (name, _, inner) in shape.children() {
        let (Some(old), Some(new)) = (before.attr(name), object.get_mut(name)) else { continue };
        let pairs = counterparts(inner, new, old);
        let olds = elements(old);
        // A list or map of blocks holding a `dynamic` value is itself `dynamic`: a tuple or
        // an object with its type, read by position or by key like a list or map.
        for (n, pair) in elements_mut(new).into_iter().zip(pairs) {
            if let Some(o) = pair.and_then(|j| olds.get(j).copied()) {
                keep_equal(inner, o, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use terrarium_model::schema::BlockNesting;
    use terrarium_model::{DynamicValue, Type};

    use super::*;
    use crate::schema::{Attribute, Block, NestedBlock, Schema};

    fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
        Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// A list or map of blocks holding a `dynamic` attribute is a tuple or an object with its
    /// type (as Terraform sends it): the semantically equal value inside each block is kept
    /// as planned, paired by position or by key.
    #[test]
    fn equal_values_are_kept_inside_blocks_typed_dynamic() {
        let block = || {
            Block::new()
                .attribute(Attribute::string("doc").optional().semantic_equality(json))
                .attribute(Attribute::new("meta", Type::Dynamic).optional())
        };
        let element_type = Type::object([("doc", Type::String), ("meta", Type::Number)]);
        let nic = |doc: &str, meta: i64| {
            obj([("doc", Value::string(doc)), ("meta", Value::Number(meta.into()))])
        };
        let (planned_doc, applied_doc) = (r#"{"a": 1}"#, r#"{"a":1.0}"#);
        for nesting in [BlockNesting::List, BlockNesting::Map] {
            let schema = Schema::new().block(match nesting {
                BlockNesting::List => NestedBlock::list("nic", block()),
                _ => NestedBlock::map("nic", block()),
            });
            let typed = |doc: &str| {
                let (ty, value) = match nesting {
                    BlockNesting::List => (
                        Type::Tuple(vec![element_type.clone(), element_type.clone()]),
                        Value::Tuple(vec![nic(doc, 1), nic(doc, 2)]),
                    ),
                    _ => (
                        Type::object([("a", element_type.clone()), ("b", element_type.clone())]),
                        obj([("a", nic(doc, 1)), ("b", nic(doc, 2))]),
                    ),
                };
                obj([("nic", Value::Dynamic(Box::new(DynamicValue { ty, value })))])
            };
            let mut applied = typed(applied_doc);
            keep_equal(Shape::of(&schema), &typed(planned_doc), &mut applied);
            assert_eq!(applied, typed(planned_doc), "{nesting:?}");
        }
    }

    #[test]
    fn json_documents_compare_by_meaning() {
        let s = |t: &str| Value::string(t);
        assert!(json(&s(r#"{"a": 1, "b": [1.0, 2]}"#), &s(r#"{"b":[1,2],"a":1}"#)));
        assert!(!json(&s(r#"{"a": 1}"#), &s(r#"{"a": 2}"#)));
        assert!(!json(&s(r#"[1, 2]"#), &s(r#"[2, 1]"#)));
        assert!(json(&s("not json"), &s("not json")));
        assert!(!json(&s("not json"), &s("not  json")));
    }
}

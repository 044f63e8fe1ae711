//! Semantic equality: values that differ in form but mean the same. Attach one with
//! [`Attribute::semantic_equality`](crate::schema::Attribute::semantic_equality) or
//! `#[tf(semantic_equality = terrarium_sdk::semantic::json)]`.

use terrarium_model::Value;

use crate::plan::{Shape, counterparts, elements};

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
        let news: Vec<&mut Value> = match new {
            Value::Object(_) => vec![new],
            Value::List(items) | Value::Set(items) => items.iter_mut().collect(),
            Value::Map(m) => m.values_mut().collect(),
            _ => Vec::new(),
        };
        for (n, pair) in news.into_iter().zip(pairs) {
            if let Some(o) = pair.and_then(|j| olds.get(j).copied()) {
                keep_equal(inner, o, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

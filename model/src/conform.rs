//! Converting a value to a type, the way Terraform converts stored state and configuration.
//!
//! Stored state reaches UpgradeResourceState as JSON decoded without a schema: objects,
//! tuples, strings, numbers, bools and nulls. [`conform`] turns such a tree into a value of
//! the provider's current schema type: tuples become lists or sets, objects become maps where
//! the type says map, attributes the type no longer has are dropped, attributes it gained are
//! null, and primitives convert as Terraform converts them (`"1"` to a number, `true` to
//! `"true"`).

use std::collections::BTreeMap;

use crate::{AttributePath, DynamicValue, Number, Type, Value};

/// A value that cannot be converted to the wanted type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {path}: {message}")]
pub struct ConformError {
    pub path: AttributePath,
    pub message: String,
}

/// Converts `value` to `ty`; see the module documentation.
pub fn conform(value: Value, ty: &Type) -> Result<Value, ConformError> {
    conform_at(value, ty, &AttributePath::root())
}

fn fail<T>(path: &AttributePath, message: String) -> Result<T, ConformError> {
    Err(ConformError { path: path.clone(), message })
}

fn conform_at(value: Value, ty: &Type, path: &AttributePath) -> Result<Value, ConformError> {
    // A value that already says its type (dynamic) is judged by its content.
    let value = match value {
        Value::Dynamic(d) if !matches!(ty, Type::Dynamic) => d.value,
        v => v,
    };
    match (value, ty) {
        (v @ (Value::Null | Value::Unknown(_)), _) => Ok(v),
        (v, Type::Dynamic) => conform_dynamic(v, path),
        (Value::String(s), Type::String) => Ok(Value::String(s)),
        (Value::Number(n), Type::String) => Ok(Value::String(n.to_string())),
        (Value::Bool(b), Type::String) => Ok(Value::String(b.to_string())),
        (Value::Number(n), Type::Number) => Ok(Value::Number(n)),
        (Value::String(s), Type::Number) => match Number::parse(&s) {
            Some(n) => Ok(Value::Number(n)),
            None => fail(path, format!("a number is required, and {s:?} is not one")),
        },
        (Value::Bool(b), Type::Bool) => Ok(Value::Bool(b)),
        (Value::String(s), Type::Bool) => match s.as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => fail(path, format!("a bool is required, and {s:?} is not one")),
        },
        (Value::List(items) | Value::Tuple(items) | Value::Set(items), Type::List(elem)) => {
            Ok(Value::List(elements(items, elem, path)?))
        }
        (Value::List(items) | Value::Tuple(items) | Value::Set(items), Type::Set(elem)) => {
            Ok(Value::Set(elements(items, elem, path)?))
        }
        (Value::List(items) | Value::Tuple(items), Type::Tuple(types)) => {
            if items.len() != types.len() {
                return fail(
                    path,
                    format!(
                        "a tuple of {} elements is required, found {}",
                        types.len(),
                        items.len()
                    ),
                );
            }
            let out = items
                .into_iter()
                .zip(types)
                .enumerate()
                .map(|(i, (v, t))| conform_at(v, t, &path.index(i as i64)))
                .collect::<Result<_, _>>()?;
            Ok(Value::Tuple(out))
        }
        (Value::Map(m) | Value::Object(m), Type::Map(elem)) => {
            let out = m
                .into_iter()
                .map(|(k, v)| {
                    let p = path.key(k.clone());
                    Ok((k, conform_at(v, elem, &p)?))
                })
                .collect::<Result<_, ConformError>>()?;
            Ok(Value::Map(out))
        }
        (Value::Map(mut m) | Value::Object(mut m), Type::Object(obj)) => {
            let mut out = BTreeMap::new();
            for (name, t) in &obj.attributes {
                let v = m.remove(name).unwrap_or(Value::Null);
                out.insert(name.clone(), conform_at(v, t, &path.attr(name.clone()))?);
            }
            Ok(Value::Object(out))
        }
        (v, t) => fail(path, format!("a {} is required, found a {}", t.friendly_name(), v.kind())),
    }
}

fn elements(
    items: Vec<Value>,
    elem: &Type,
    path: &AttributePath,
) -> Result<Vec<Value>, ConformError> {
    items.into_iter().enumerate().map(|(i, v)| conform_at(v, elem, &path.index(i as i64))).collect()
}

/// Stored dynamic values are `{"type": <type JSON>, "value": <value>}`; anything else keeps
/// the shape it has.
fn conform_dynamic(value: Value, path: &AttributePath) -> Result<Value, ConformError> {
    if let Value::Object(m) = &value
        && m.len() == 2
        && let (Some(t), Some(_)) = (m.get("type"), m.get("value"))
        && let Some(ty) = type_from_value(t)
    {
        let mut m = m.clone();
        let inner = m.remove("value").unwrap_or(Value::Null);
        let inner = conform_at(inner, &ty, path)?;
        return Ok(Value::Dynamic(Box::new(DynamicValue { ty, value: inner })));
    }
    Ok(value)
}

/// A type written as JSON, after it was decoded into a value tree.
fn type_from_value(v: &Value) -> Option<Type> {
    Type::from_json_value(&to_json(v)?).ok()
}

fn to_json(v: &Value) -> Option<serde_json::Value> {
    Some(match v {
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::List(items) | Value::Tuple(items) => {
            serde_json::Value::Array(items.iter().map(to_json).collect::<Option<_>>()?)
        }
        Value::Object(m) | Value::Map(m) => serde_json::Value::Object(
            m.iter().map(|(k, v)| Some((k.clone(), to_json(v)?))).collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
        Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    #[test]
    fn stored_json_becomes_the_schema_type() {
        let ty = Type::from_json(
            r#"["object",{"id":"string","count":"number","tags":["map","string"],"ports":["set","number"],"new":"bool"}]"#,
        )
        .unwrap();
        let stored = obj([
            ("id", Value::string("abc")),
            ("count", Value::string("3")),
            ("tags", obj([("a", Value::string("b"))])),
            ("ports", Value::Tuple(vec![Value::Number(Number::Int(80))])),
            ("removed", Value::Bool(true)),
        ]);
        let want = obj([
            ("id", Value::string("abc")),
            ("count", Value::Number(Number::Int(3))),
            ("tags", Value::Map(BTreeMap::from([("a".to_string(), Value::string("b"))]))),
            ("ports", Value::Set(vec![Value::Number(Number::Int(80))])),
            ("new", Value::Null),
        ]);
        assert_eq!(conform(stored, &ty).unwrap(), want);
    }

    #[test]
    fn dynamic_values_recover_their_type() {
        let stored =
            obj([("type", Value::string("number")), ("value", Value::Number(Number::Int(5)))]);
        let got = conform(stored, &Type::Dynamic).unwrap();
        assert_eq!(
            got,
            Value::Dynamic(Box::new(DynamicValue {
                ty: Type::Number,
                value: Value::Number(Number::Int(5))
            }))
        );
    }

    #[test]
    fn mismatches_name_the_path() {
        let ty = Type::object([("n", Type::list(Type::Number))]);
        let err = conform(obj([("n", Value::Tuple(vec![Value::string("x")]))]), &ty).unwrap_err();
        assert_eq!(err.path.to_string(), "n[0]");
        assert!(err.message.contains("\"x\""));
    }
}

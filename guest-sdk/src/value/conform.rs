//! Reconciles a value with the schema type it belongs to.
//!
//! Serde knows nothing of Terraform types: a `Vec` serializes as a list even where the schema
//! says set, a struct that skips a field leaves the attribute out, and a value for a
//! `dynamic` attribute needs its concrete type attached. [`conform`] fixes all of that (and
//! nothing more: a string where the schema says number is an error naming the attribute).

use std::collections::BTreeMap;

use terrarium_model::{AttributePath, DynamicValue, Type, Value};

use super::Error;

/// Makes `value` a value of type `ty`: lists become sets or tuples where the type says so,
/// maps and objects swap where needed, missing object attributes become null, duplicate set
/// elements are dropped, and values of `dynamic` attributes get their type (inferred with
/// [`infer_type`] unless already given). Anything else that does not fit is an error naming
/// the attribute path.
pub fn conform(value: Value, ty: &Type) -> Result<Value, Error> {
    walk(value, ty, &AttributePath::root())
}

/// Like [`conform`], for stored state read without a schema (the raw JSON state Terraform
/// hands to an upgrade): strings that hold numbers or bools become numbers or bools, numbers
/// and bools become strings where the type says string, stored dynamic values
/// (`{"type": ..., "value": ...}`) get their type back, and attributes the type does not
/// have are dropped (as Terraform's own SDKs do). See [`terrarium_model::conform`].
pub fn upgrade_raw(value: Value, ty: &Type) -> Result<Value, Error> {
    terrarium_model::conform::conform(value, ty).map_err(|e| Error::at(&e.path, e.message))
}

fn walk(value: Value, ty: &Type, path: &AttributePath) -> Result<Value, Error> {
    let mismatch = |value: &Value| {
        Error::at(path, format!("expected {}, found {}", ty.friendly_name(), value.kind()))
    };
    let value = match value {
        // Null and unknown fit every type.
        Value::Null | Value::Unknown(_) => return Ok(value),
        // A dynamic wrapper where the schema has a concrete type: the schema wins.
        Value::Dynamic(d) if *ty != Type::Dynamic => d.value,
        other => other,
    };
    Ok(match ty {
        Type::String => match value {
            Value::String(_) => value,
            other => return Err(mismatch(&other)),
        },
        Type::Number => match value {
            Value::Number(_) => value,
            other => return Err(mismatch(&other)),
        },
        Type::Bool => match value {
            Value::Bool(_) => value,
            other => return Err(mismatch(&other)),
        },
        Type::List(element) | Type::Set(element) => {
            let items = match value {
                Value::List(items) | Value::Set(items) | Value::Tuple(items) => items,
                other => return Err(mismatch(&other)),
            };
            let items = elements(items, element, path)?;
            if matches!(ty, Type::List(_)) { Value::List(items) } else { Value::Set(dedup(items)) }
        }
        Type::Tuple(types) => {
            let items = match value {
                Value::List(items) | Value::Tuple(items) => items,
                other => return Err(mismatch(&other)),
            };
            if items.len() != types.len() {
                return Err(Error::at(
                    path,
                    format!("expected a tuple of {} elements, found {}", types.len(), items.len()),
                ));
            }
            let items = items
                .into_iter()
                .zip(types)
                .enumerate()
                .map(|(i, (v, t))| walk(v, t, &path.index(i as i64)))
                .collect::<Result<_, _>>()?;
            Value::Tuple(items)
        }
        Type::Map(element) => {
            let entries = match value {
                Value::Map(m) | Value::Object(m) => m,
                other => return Err(mismatch(&other)),
            };
            let entries = entries
                .into_iter()
                .map(|(k, v)| {
                    let v = walk(v, element, &path.key(k.clone()))?;
                    Ok((k, v))
                })
                .collect::<Result<_, Error>>()?;
            Value::Map(entries)
        }
        Type::Object(object) => {
            let mut entries = match value {
                Value::Object(m) | Value::Map(m) => m,
                other => return Err(mismatch(&other)),
            };
            let mut out = BTreeMap::new();
            for (name, attribute_type) in &object.attributes {
                let v = entries.remove(name).unwrap_or(Value::Null);
                out.insert(name.clone(), walk(v, attribute_type, &path.attr(name.clone()))?);
            }
            if let Some(extra) = entries.keys().next() {
                return Err(Error::at(
                    &path.attr(extra.clone()),
                    "the schema has no such attribute; rename or remove the field",
                ));
            }
            Value::Object(out)
        }
        Type::Dynamic => match value {
            Value::Dynamic(d) => {
                let DynamicValue { ty, value } = *d;
                let value = walk(value, &ty, path)?;
                Value::Dynamic(Box::new(DynamicValue { ty, value }))
            }
            other => {
                let (ty, value) = infer_type(other);
                Value::Dynamic(Box::new(DynamicValue { ty, value }))
            }
        },
    })
}

fn elements(items: Vec<Value>, element: &Type, path: &AttributePath) -> Result<Vec<Value>, Error> {
    items.into_iter().enumerate().map(|(i, v)| walk(v, element, &path.index(i as i64))).collect()
}

fn dedup(items: Vec<Value>) -> Vec<Value> {
    // Canonical keys make this O(n log n); elements holding unknowns are never the same as
    // anything, so they are all kept.
    let mut seen = std::collections::BTreeSet::new();
    items
        .into_iter()
        .filter(|item| item.contains_unknown() || seen.insert(crate::value::canonical_key(item)))
        .collect()
}

/// The type Terraform would infer for a value written without one (as `jsondecode` does):
/// sequences become tuples and maps become objects, so elements may differ in type. Returns
/// the type and the value reshaped to match it; a null or unknown element has type
/// `dynamic`.
pub fn infer_type(value: Value) -> (Type, Value) {
    match value {
        Value::Null => (Type::Dynamic, Value::Null),
        Value::Unknown(r) => (Type::Dynamic, Value::Unknown(r)),
        Value::Bool(_) => (Type::Bool, value),
        Value::Number(_) => (Type::Number, value),
        Value::String(_) => (Type::String, value),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            let (types, values): (Vec<Type>, Vec<Value>) =
                items.into_iter().map(infer_type).unzip();
            (Type::Tuple(types), Value::Tuple(values))
        }
        Value::Map(entries) | Value::Object(entries) => {
            let mut types = BTreeMap::new();
            let mut values = BTreeMap::new();
            for (k, v) in entries {
                let (t, v) = infer_type(v);
                types.insert(k.clone(), t);
                values.insert(k, v);
            }
            (Type::object(types), Value::Object(values))
        }
        Value::Dynamic(d) => (d.ty, d.value),
    }
}

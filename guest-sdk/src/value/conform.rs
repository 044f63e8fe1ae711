//! Reconciles a value with the schema type it belongs to.
//!
//! Serde knows nothing of Terraform types: a `Vec` serializes as a list even where the schema
//! says set, a struct that skips a field leaves the attribute out, and a value for a
//! `dynamic` attribute needs its concrete type attached. [`conform`] fixes all of that (and
//! nothing more: a string where the schema says number is an error naming the attribute).

use std::collections::BTreeMap;

pub use terrarium_framework::dynamic::infer_type;
use terrarium_model::schema::Block;
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

/// [`conform`] for a value of a schema block (a state, a configuration). Terraform types a
/// list or map of nested blocks with a `dynamic` attribute inside as `dynamic` itself: a
/// tuple or an object whose elements may differ in type. Such a value, written as a list or
/// map (a `Vec` or `BTreeMap` of structs), gets the concrete type Terraform gives it: each
/// block's object type from the schema, with each `dynamic` attribute's type taken from its
/// value.
pub fn conform_block(value: Value, block: &Block) -> Result<Value, Error> {
    conform(terrarium_framework::dynamic::typed_blocks(value, block), &block.implied_type())
}

/// The inverse of [`conform_block`] for a value Terraform sent: each list or map of blocks
/// typed `dynamic` (a tuple or an object with its type) becomes a plain list or map of
/// block objects, each `dynamic` attribute inside wrapped with its concrete type. That is
/// the form the SDK's plan reads, and what `Vec` and `BTreeMap` fields of structs read.
pub fn dynamic_blocks_as_collections(value: Value, block: &Block) -> Value {
    terrarium_framework::dynamic::blocks_as_collections(value, block)
}

/// Like [`conform`], for stored state read without a schema (the raw JSON state Terraform
/// hands to an upgrade): strings that hold numbers or bools become numbers or bools, numbers
/// and bools become strings where the type says string, stored dynamic values
/// (`{"type": ..., "value": ...}`) get their type back, and attributes the type does not
/// have are dropped (as Terraform's own SDKs do). See [`terrarium_model::conform`].
pub fn upgrade_raw(value: Value, ty: &Type) -> Result<Value, Error> {
    terrarium_model::conform::conform(value, ty).map_err(|e| Error::at(&e.path, e.message))
}

/// [`upgrade_raw`] for the stored state of a schema block, in the form the provider's code
/// reads (see [`Block::collections_type`]). Terraform stores a list or map of blocks holding a
/// `dynamic` value as a dynamic value (`{"type": ..., "value": ...}`): it is read with that
/// type, then made a list or map of blocks again.
pub fn upgrade_raw_block(value: Value, block: &Block) -> Result<Value, Error> {
    let typed = upgrade_raw(value, &block.implied_type())?;
    Ok(dynamic_blocks_as_collections(typed, block))
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

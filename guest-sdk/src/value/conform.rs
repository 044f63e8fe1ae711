//! Reconciles a value with the schema type it belongs to.
//!
//! Serde knows nothing of Terraform types: a `Vec` serializes as a list even where the schema
//! says set, a struct that skips a field leaves the attribute out, and a value for a
//! `dynamic` attribute needs its concrete type attached. [`conform`] fixes all of that (and
//! nothing more: a string where the schema says number is an error naming the attribute).

use std::collections::BTreeMap;

use terrarium_model::schema::{Block, BlockNesting, NestedBlock};
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
    conform(type_dynamic_blocks(value, block), &block.implied_type())
}

/// Wraps the value of every list or map of blocks typed `dynamic` in `block` with its
/// concrete tuple or object type.
fn type_dynamic_blocks(value: Value, block: &Block) -> Value {
    let Value::Object(mut attributes) = value else { return value };
    for nested in &block.block_types {
        let Some(v) = attributes.remove(&nested.type_name) else { continue };
        let v = match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => type_dynamic_blocks(v, &nested.block),
            BlockNesting::List | BlockNesting::Map if nested.implied_type() == Type::Dynamic => {
                dynamic_blocks(v, nested)
            }
            // No dynamic value inside: nothing deeper is typed dynamic either.
            _ => v,
        };
        attributes.insert(nested.type_name.clone(), v);
    }
    Value::Object(attributes)
}

/// A list of blocks as a tuple, a map of blocks as an object, each block with its own type.
fn dynamic_blocks(value: Value, nested: &NestedBlock) -> Value {
    let value = match value {
        Value::Dynamic(d) => d.value,
        other => other,
    };
    let element = |v: Value| {
        let v = type_dynamic_blocks(v, &nested.block);
        (concrete_object_type(&v, &nested.block), v)
    };
    let (ty, value) = match value {
        Value::List(items) | Value::Tuple(items) | Value::Set(items) => {
            let (types, values) = items.into_iter().map(element).unzip();
            (Type::Tuple(types), Value::Tuple(values))
        }
        Value::Map(entries) | Value::Object(entries) => {
            let mut types = BTreeMap::new();
            let mut values = BTreeMap::new();
            for (k, v) in entries {
                let (t, v) = element(v);
                types.insert(k.clone(), t);
                values.insert(k, v);
            }
            (Type::object(types), Value::Object(values))
        }
        // Null, unknown, or not a collection (reported by `conform` as it is).
        other => return other,
    };
    Value::Dynamic(Box::new(DynamicValue { ty, value }))
}

/// The object type of one block value: the schema's, with the concrete type of each
/// `dynamic` attribute's value and of each list or map of blocks typed `dynamic`.
fn concrete_object_type(value: &Value, block: &Block) -> Type {
    let of = |name: &str| value.attr(name).unwrap_or(&Value::Null);
    let mut types = BTreeMap::new();
    for a in &block.attributes {
        let declared = a.ty.implied_type();
        let ty = match of(&a.name) {
            _ if declared != Type::Dynamic => declared,
            Value::Dynamic(d) => d.ty.clone(),
            other => infer_type(other.clone()).0,
        };
        types.insert(a.name.clone(), ty);
    }
    for nested in &block.block_types {
        let ty = match (nested.nesting, of(&nested.type_name)) {
            (BlockNesting::Single | BlockNesting::Group, v) => {
                concrete_object_type(v, &nested.block)
            }
            // Typed by `dynamic_blocks` already.
            (_, Value::Dynamic(d)) => d.ty.clone(),
            _ => nested.implied_type(),
        };
        types.insert(nested.type_name.clone(), ty);
    }
    Type::object(types)
}

/// The inverse of [`conform_block`] for a value Terraform sent: each list or map of blocks
/// typed `dynamic` (a tuple or an object with its type) becomes a plain list or map of
/// block objects, each `dynamic` attribute inside wrapped with its concrete type. That is
/// the form the SDK's plan reads, and what `Vec` and `BTreeMap` fields of structs read.
pub fn dynamic_blocks_as_collections(value: Value, block: &Block) -> Value {
    let Value::Object(mut attributes) = value else { return value };
    for nested in &block.block_types {
        let Some(v) = attributes.remove(&nested.type_name) else { continue };
        let v = match (nested.nesting, v) {
            (BlockNesting::Single | BlockNesting::Group, v) => {
                dynamic_blocks_as_collections(v, &nested.block)
            }
            (BlockNesting::List | BlockNesting::Map, Value::Dynamic(d)) => {
                let DynamicValue { ty, value } = *d;
                match (ty, value) {
                    (Type::Tuple(types), Value::Tuple(items)) => Value::List(
                        items
                            .into_iter()
                            .zip(types)
                            .map(|(v, t)| typed_block(v, &t, &nested.block))
                            .collect(),
                    ),
                    (Type::Object(types), Value::Object(entries)) => Value::Map(
                        entries
                            .into_iter()
                            .map(|(k, v)| {
                                let t = types.attributes.get(&k).cloned().unwrap_or(Type::Dynamic);
                                let v = typed_block(v, &t, &nested.block);
                                (k, v)
                            })
                            .collect(),
                    ),
                    (ty, value) => Value::Dynamic(Box::new(DynamicValue { ty, value })),
                }
            }
            (_, v) => v,
        };
        attributes.insert(nested.type_name.clone(), v);
    }
    Value::Object(attributes)
}

/// One block of a tuple or object typed `dynamic`, of concrete object type `ty`: the values
/// inside that are typed `dynamic` in the schema get their concrete type back as a wrapper.
fn typed_block(value: Value, ty: &Type, block: &Block) -> Value {
    let (mut attributes, types) = match (value, ty) {
        (Value::Object(attributes), Type::Object(types)) => (attributes, types),
        (other, _) => return other,
    };
    let dynamic = block
        .attributes
        .iter()
        .filter(|a| a.ty.implied_type() == Type::Dynamic)
        .map(|a| &a.name)
        .chain(
            block
                .block_types
                .iter()
                .filter(|b| b.implied_type() == Type::Dynamic)
                .map(|b| &b.type_name),
        );
    for name in dynamic {
        if let (Some(v), Some(t)) = (attributes.remove(name), types.attributes.get(name)) {
            let v = match v {
                Value::Null | Value::Unknown(_) | Value::Dynamic(_) => v,
                v => Value::Dynamic(Box::new(DynamicValue { ty: t.clone(), value: v })),
            };
            attributes.insert(name.clone(), v);
        }
    }
    dynamic_blocks_as_collections(Value::Object(attributes), block)
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

//! Lists and maps of blocks that hold a `dynamic` value, between the form Terraform gives
//! them and the form a provider's code writes.
//!
//! Terraform types a list or map of nested blocks with a `dynamic` attribute inside as
//! `dynamic` itself: a tuple or an object (with its type) whose elements may differ in type.
//! A provider's code reads and writes such blocks as a plain list or map of block objects.
//! [`blocks_as_collections`] turns Terraform's form into the code's, [`typed_blocks`] the
//! code's into Terraform's. Both the Rust SDK (inside a component) and the host (for the
//! components that declare their behaviour) use them.
//!
//! SDKs that read a `dynamic` value as plain data (Python, TypeScript, Go) write it back with
//! a type inferred from the data: a tuple where Terraform had a list, an object where it had
//! a map. [`keep_dynamic_types`] puts back the type Terraform gave a value that came back
//! unchanged.

use std::collections::BTreeMap;

use terrarium_model::schema::{Block, BlockNesting, NestedBlock};
use terrarium_model::{DynamicValue, Type, Value};

/// Wraps the value of every list or map of blocks typed `dynamic` in `block` (written as a
/// list or map of block objects) with its concrete tuple or object type: each block's object
/// type from the schema, with each `dynamic` attribute's type taken from its value (its
/// wrapper's, else [`infer_type`]'s). Inside the tuple or object the values are bare, as
/// Terraform sends them: the type says what they are.
pub fn typed_blocks(value: Value, block: &Block) -> Value {
    let Value::Object(mut attributes) = value else { return value };
    for nested in &block.block_types {
        let Some(v) = attributes.remove(&nested.type_name) else { continue };
        let v = match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => typed_blocks(v, &nested.block),
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
        let v = typed_blocks(v, &nested.block);
        (concrete_object_type(&v, &nested.block), bare(v))
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
        // Null, unknown, or not a collection (the type check reports it as it is).
        other => return other,
    };
    Value::Dynamic(Box::new(DynamicValue { ty, value }))
}

/// The value with every `dynamic` wrapper inside that says a concrete type taken off: inside
/// a value of concrete type, Terraform's values carry no wrappers (the type says it all).
fn bare(value: Value) -> Value {
    match value {
        Value::Dynamic(d) if d.ty != Type::Dynamic => bare(d.value),
        Value::List(items) => Value::List(items.into_iter().map(bare).collect()),
        Value::Set(items) => Value::Set(items.into_iter().map(bare).collect()),
        Value::Tuple(items) => Value::Tuple(items.into_iter().map(bare).collect()),
        Value::Map(m) => Value::Map(m.into_iter().map(|(k, v)| (k, bare(v))).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, bare(v))).collect()),
        other => other,
    }
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

/// The inverse of [`typed_blocks`] for a value Terraform sent: each list or map of blocks
/// typed `dynamic` (a tuple or an object with its type) becomes a plain list or map of
/// block objects, each `dynamic` attribute inside wrapped with its concrete type. That is
/// the form the framework's plan reads, and the form a provider's code writes.
pub fn blocks_as_collections(value: Value, block: &Block) -> Value {
    let Value::Object(mut attributes) = value else { return value };
    for nested in &block.block_types {
        let Some(v) = attributes.remove(&nested.type_name) else { continue };
        let v = match (nested.nesting, v) {
            (BlockNesting::Single | BlockNesting::Group, v) => {
                blocks_as_collections(v, &nested.block)
            }
            (BlockNesting::List | BlockNesting::Map, Value::Dynamic(d)) => collection(*d, nested),
            (_, v) => v,
        };
        attributes.insert(nested.type_name.clone(), v);
    }
    Value::Object(attributes)
}

/// A tuple of blocks as a list, an object of blocks as a map.
fn collection(d: DynamicValue, nested: &NestedBlock) -> Value {
    let DynamicValue { ty, value } = d;
    match (ty, value) {
        (Type::Tuple(types), Value::Tuple(items)) => Value::List(
            items.into_iter().zip(types).map(|(v, t)| typed_block(v, &t, &nested.block)).collect(),
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

/// [`blocks_as_collections`] for stored state as Terraform hands it to an upgrade (JSON
/// decoded without a schema): a list or map of blocks typed `dynamic` in `block` is stored as
/// `{"type": ..., "value": ...}`; it becomes the list or map of block objects the code reads.
/// Everything else, and a stored value of another shape (an older schema's), is left as it
/// is for the provider's upgrade to read.
pub fn raw_blocks_as_collections(raw: Value, block: &Block) -> Value {
    let Value::Object(mut attributes) = raw else { return raw };
    for nested in &block.block_types {
        let Some(v) = attributes.remove(&nested.type_name) else { continue };
        let v = match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => {
                raw_blocks_as_collections(v, &nested.block)
            }
            BlockNesting::List | BlockNesting::Map
                if nested.implied_type() == Type::Dynamic && is_stored_dynamic(&v) =>
            {
                match terrarium_model::conform::conform(v.clone(), &Type::Dynamic) {
                    Ok(Value::Dynamic(d)) => collection(*d, nested),
                    _ => v,
                }
            }
            _ => v,
        };
        attributes.insert(nested.type_name.clone(), v);
    }
    Value::Object(attributes)
}

/// Whether a value of stored state is a dynamic value as Terraform stores one: an object of
/// exactly `type` (a type in JSON: a string or an array) and `value`.
fn is_stored_dynamic(value: &Value) -> bool {
    match value {
        Value::Object(m) | Value::Map(m) => {
            m.len() == 2
                && m.contains_key("value")
                && matches!(
                    m.get("type"),
                    Some(Value::String(_) | Value::Tuple(_) | Value::List(_))
                )
        }
        _ => false,
    }
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
    blocks_as_collections(Value::Object(attributes), block)
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

/// `value` with each `dynamic` value that `reference` holds at the same place, with the
/// same content (types aside), put back as `reference` has it: its concrete type kept. Both
/// are in the same form (both as Terraform gives them, or both as the code writes them); lists,
/// sets and tuples are followed by position, maps and objects by key. A value whose content
/// changed keeps the type it came with.
pub fn keep_dynamic_types(reference: &Value, value: Value) -> Value {
    match (reference, value) {
        (Value::Dynamic(r), value) => {
            if same_content(&r.value, &value) {
                return reference.clone();
            }
            match value {
                Value::Dynamic(_) => value,
                other => keep_dynamic_types(&r.value, other),
            }
        }
        (Value::List(r) | Value::Set(r) | Value::Tuple(r), value) => match value {
            Value::List(items) => Value::List(keep_by_position(r, items)),
            Value::Set(items) => Value::Set(keep_by_position(r, items)),
            Value::Tuple(items) => Value::Tuple(keep_by_position(r, items)),
            other => other,
        },
        (Value::Map(r) | Value::Object(r), value) => match value {
            Value::Map(entries) => Value::Map(keep_by_key(r, entries)),
            Value::Object(entries) => Value::Object(keep_by_key(r, entries)),
            other => other,
        },
        (_, value) => value,
    }
}

fn keep_by_position(reference: &[Value], items: Vec<Value>) -> Vec<Value> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| match reference.get(i) {
            Some(r) => keep_dynamic_types(r, v),
            None => v,
        })
        .collect()
}

fn keep_by_key(
    reference: &BTreeMap<String, Value>,
    entries: BTreeMap<String, Value>,
) -> BTreeMap<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| {
            let v = match reference.get(&k) {
                Some(r) => keep_dynamic_types(r, v),
                None => v,
            };
            (k, v)
        })
        .collect()
}

/// Whether two values hold the same data, whatever their types: lists, sets and tuples
/// compare by position, maps and objects by key, numbers by value, `dynamic` wrappers are
/// looked through. Nothing unknown is the same as anything.
fn same_content(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Dynamic(d), other) | (other, Value::Dynamic(d)) => same_content(&d.value, other),
        (
            Value::List(x) | Value::Set(x) | Value::Tuple(x),
            Value::List(y) | Value::Set(y) | Value::Tuple(y),
        ) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_content(x, y)),
        (Value::Map(x) | Value::Object(x), Value::Map(y) | Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_content(v, w)))
        }
        (Value::Unknown(_), _) | (_, Value::Unknown(_)) => false,
        _ => crate::same_value(a, b),
    }
}

#[cfg(test)]
mod tests;

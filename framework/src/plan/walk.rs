//! Walking a schema and its values together: the [`Shape`] of an object type, the elements
//! of nested values, and how the elements of two values pair up. The planner, the
//! consistency checks and semantic equality all walk this way.

use std::collections::BTreeMap;

use terrarium_model::schema::{BlockNesting, ObjectNesting};
use terrarium_model::{AttributePath, Value};

use crate::canonical_key;
use crate::schema::{Attribute, AttributeKind, NestedBlock, Schema};

/// The attributes and blocks of one object type: the resource's, or a nested object's.
#[derive(Clone, Copy)]
pub struct Shape<'a> {
    /// The attributes, nested ones included.
    pub attributes: &'a [Attribute],
    /// The nested blocks (none inside a nested attribute's objects).
    pub blocks: &'a [NestedBlock],
}

impl<'a> Shape<'a> {
    /// The shape of a schema's top-level block.
    pub fn of(schema: &'a Schema) -> Self {
        Shape { attributes: schema.root().attributes(), blocks: schema.root().blocks() }
    }

    /// Every nested attribute and block: name, nesting and the shape of its objects.
    pub fn children(&self) -> impl Iterator<Item = (&'a str, BlockNesting, Shape<'a>)> + 'a {
        let attributes = self.attributes.iter().filter_map(|a| match a.kind() {
            AttributeKind::Nested(n, inner) => Some((
                a.name(),
                object_nesting(*n),
                Shape { attributes: inner.as_slice(), blocks: &[] },
            )),
            AttributeKind::Type(_) => None,
        });
        let blocks = self.blocks.iter().map(|b| {
            (
                b.name(),
                b.nesting(),
                Shape { attributes: b.block().attributes(), blocks: b.block().blocks() },
            )
        });
        attributes.chain(blocks)
    }

    /// The nesting and object shape of a nested attribute; `None` for a typed one.
    pub fn nested_attribute(&self, a: &'a Attribute) -> Option<(BlockNesting, Shape<'a>)> {
        match a.kind() {
            AttributeKind::Nested(n, inner) => {
                Some((object_nesting(*n), Shape { attributes: inner.as_slice(), blocks: &[] }))
            }
            AttributeKind::Type(_) => None,
        }
    }
}

/// The elements of a nested value, in a fixed order: the object itself (single, group), the
/// items (list, set) or the values by key (map). Null and unknown have none.
///
/// A list or map of blocks that holds a `dynamic` value is typed `dynamic` (as in Terraform):
/// a tuple or an object with its concrete type, whose elements are its items or its values.
pub fn elements(value: &Value) -> Vec<&Value> {
    match value {
        Value::Object(_) => vec![value],
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => items.iter().collect(),
        Value::Map(m) => m.values().collect(),
        Value::Dynamic(d) => match &d.value {
            Value::Object(m) => m.values().collect(),
            other => elements(other),
        },
        _ => Vec::new(),
    }
}

pub(crate) fn elements_mut(value: &mut Value) -> Vec<&mut Value> {
    match value {
        Value::Object(_) => vec![value],
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => items.iter_mut().collect(),
        Value::Map(m) => m.values_mut().collect(),
        Value::Dynamic(d) => match &mut d.value {
            Value::Object(m) => m.values_mut().collect(),
            other => elements_mut(other),
        },
        _ => Vec::new(),
    }
}

/// A nested value as [`counterparts`] pairs it: a list or map of blocks typed `dynamic` as
/// its tuple's items (a list) or its object's values by key (a map).
enum Collection<'a> {
    Single,
    Items(usize),
    Keyed(&'a BTreeMap<String, Value>),
    Set(&'a [Value]),
    None,
}

fn collection(value: &Value) -> Collection<'_> {
    match value {
        Value::Object(_) => Collection::Single,
        Value::List(items) | Value::Tuple(items) => Collection::Items(items.len()),
        Value::Map(m) => Collection::Keyed(m),
        Value::Set(items) => Collection::Set(items),
        Value::Dynamic(d) => match &d.value {
            Value::Object(m) => Collection::Keyed(m),
            Value::List(items) | Value::Tuple(items) => Collection::Items(items.len()),
            _ => Collection::None,
        },
        _ => Collection::None,
    }
}

/// For each element of `left` (in [`elements`] order), the position of its counterpart
/// among the elements of `right`: same position in lists, same key in maps, the object
/// itself for single nesting, and for sets the element with the same configured attributes
/// (computed ones left out), each used once. O(n log n).
pub fn counterparts(shape: Shape<'_>, left: &Value, right: &Value) -> Vec<Option<usize>> {
    match (collection(left), collection(right)) {
        (Collection::Single, Collection::Single) => vec![Some(0)],
        (Collection::Items(l), Collection::Items(r)) => {
            (0..l).map(|i| (i < r).then_some(i)).collect()
        }
        (Collection::Keyed(l), Collection::Keyed(r)) => {
            let positions: BTreeMap<&String, usize> =
                r.keys().enumerate().map(|(i, k)| (k, i)).collect();
            l.keys().map(|k| positions.get(k).copied()).collect()
        }
        (Collection::Set(l), Collection::Set(r)) => {
            let mut by_identity: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (i, v) in r.iter().enumerate().rev() {
                by_identity.entry(identity_key(shape, v)).or_default().push(i);
            }
            l.iter()
                .map(|v| by_identity.get_mut(&identity_key(shape, v)).and_then(Vec::pop))
                .collect()
        }
        _ => elements(left).iter().map(|_| None).collect(),
    }
}

/// What identifies a set element: its value with every computed attribute left out.
pub(crate) fn identity_key(shape: Shape<'_>, value: &Value) -> String {
    canonical_key(&strip_computed(shape, value, false))
}

/// The value with computed attributes nulled, at every depth: all of them, or (with
/// `keep_optional`) only those the configuration cannot set.
pub(crate) fn strip_computed(shape: Shape<'_>, value: &Value, keep_optional: bool) -> Value {
    let Value::Object(object) = value else {
        return value.clone();
    };
    let mut out = object.clone();
    for a in shape.attributes {
        if a.is_computed() && !(keep_optional && a.is_optional()) {
            out.insert(a.name().to_string(), Value::Null);
        }
    }
    for b in shape.blocks.iter().filter(|b| b.is_computed()) {
        out.insert(b.name().to_string(), Value::Null);
    }
    for (name, nesting, inner) in shape.children() {
        if let Some(v) = out.get_mut(name) {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(nesting, taken, &|o| strip_computed(inner, &o, keep_optional));
        }
    }
    Value::Object(out)
}

/// Nested attributes nest like blocks, without `group`.
pub(crate) fn object_nesting(nesting: ObjectNesting) -> BlockNesting {
    match nesting {
        ObjectNesting::Single => BlockNesting::Single,
        ObjectNesting::List => BlockNesting::List,
        ObjectNesting::Set => BlockNesting::Set,
        ObjectNesting::Map => BlockNesting::Map,
    }
}

/// Applies `f` to each object of a nested value; null and unknown collections stay as they
/// are.
pub(crate) fn map_objects(
    nesting: BlockNesting,
    value: Value,
    f: &dyn Fn(Value) -> Value,
) -> Value {
    match (nesting, value) {
        (BlockNesting::Single | BlockNesting::Group, v @ Value::Object(_)) => f(v),
        (BlockNesting::List, Value::List(items)) => Value::List(items.into_iter().map(f).collect()),
        (BlockNesting::Set, Value::Set(items)) => Value::Set(items.into_iter().map(f).collect()),
        (BlockNesting::Map, Value::Map(m)) => {
            Value::Map(m.into_iter().map(|(k, v)| (k, f(v))).collect())
        }
        // A list or map of blocks typed `dynamic`: a tuple or an object with its type.
        (BlockNesting::List | BlockNesting::Map, Value::Dynamic(mut d)) => {
            d.value = match std::mem::take(&mut d.value) {
                Value::Tuple(items) => Value::Tuple(items.into_iter().map(f).collect()),
                Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, f(v))).collect()),
                other => other,
            };
            Value::Dynamic(d)
        }
        (_, other) => other,
    }
}

/// The path of the first unknown value inside `value`, if any: a state returned by apply or
/// read must be wholly known.
pub fn first_unknown(value: &Value, path: &AttributePath) -> Option<AttributePath> {
    match value {
        Value::Unknown(_) => Some(path.clone()),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            items.iter().enumerate().find_map(|(i, v)| first_unknown(v, &path.index(i as i64)))
        }
        Value::Map(m) => m.iter().find_map(|(k, v)| first_unknown(v, &path.key(k.clone()))),
        Value::Object(m) => m.iter().find_map(|(k, v)| first_unknown(v, &path.attr(k.clone()))),
        Value::Dynamic(d) => first_unknown(&d.value, path),
        _ => None,
    }
}

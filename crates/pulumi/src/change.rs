//! What Terraform's core computes around a provider's plan, done here for Pulumi's engine:
//! the attribute-level comparison of a prior state with a planned one that becomes Pulumi's
//! `detailedDiff` (the proposed new state is the dispatcher's, as for `terrarium harness`).

use std::collections::BTreeSet;

use terrarium_framework::same_value;
use terrarium_model::schema::{AttributeType, Block};
use terrarium_model::{AttributePath, PathStep, Value};

/// How one attribute changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Add,
    Delete,
    Update,
}

/// The paths at which `planned` differs from `prior`, as deep as both have the same shape
/// (lists of equal length, maps and objects key by key; a set as a whole, equal when it has
/// the same elements in any order).
pub fn changes(prior: &Value, planned: &Value) -> Vec<(AttributePath, Change)> {
    let mut out = Vec::new();
    compare(prior, planned, &AttributePath::root(), &mut out);
    out
}

fn compare(
    prior: &Value,
    planned: &Value,
    path: &AttributePath,
    out: &mut Vec<(AttributePath, Change)>,
) {
    // Terraform's equality: numbers by value, sets without regard to order (a provider may
    // return a set's elements in any order: Python's `set` returns them in hash order).
    if same_value(prior, planned) {
        return;
    }
    match (prior, planned) {
        (Value::Dynamic(a), b) => compare(&a.value, b, path, out),
        (a, Value::Dynamic(b)) => compare(a, &b.value, path, out),
        (Value::Object(a), Value::Object(b)) | (Value::Map(a), Value::Map(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            let object = matches!(prior, Value::Object(_));
            for k in keys {
                let step = if object { path.attr(k.clone()) } else { path.key(k.clone()) };
                let (x, y) = (a.get(k).unwrap_or(&Value::Null), b.get(k).unwrap_or(&Value::Null));
                compare(x, y, &step, out);
            }
        }
        (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b))
            if a.len() == b.len() =>
        {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &path.index(i as i64), out);
            }
        }
        (Value::Null, _) => out.push((path.clone(), Change::Add)),
        (_, Value::Null) => out.push((path.clone(), Change::Delete)),
        _ => out.push((path.clone(), Change::Update)),
    }
}

/// Whether a change at `path` is one of the `replace` paths or inside or around one.
pub fn replaces(path: &AttributePath, replace: &[AttributePath]) -> bool {
    replace.iter().any(|r| starts_with(path, r) || starts_with(r, path))
}

fn starts_with(path: &AttributePath, prefix: &AttributePath) -> bool {
    path.0.len() >= prefix.0.len() && path.0[..prefix.0.len()] == prefix.0[..]
}

/// The top-level attribute a path starts at.
pub fn top_level(path: &AttributePath) -> Option<&str> {
    match path.0.first() {
        Some(PathStep::Attribute(name)) => Some(name),
        _ => None,
    }
}

/// Whether a change at `path` stays out of Pulumi's `diffs` and `detailedDiff`: a change of
/// the `id` attribute (Pulumi's resource ID, never a property), and on a replacement
/// (`replacing`) a change of a computed-only top-level attribute (every output of a new object
/// is new).
pub fn not_a_diff(block: &Block, path: &AttributePath, replacing: bool) -> bool {
    let Some(name) = top_level(path) else { return false };
    if name == "id" {
        return true;
    }
    replacing
        && block
            .attributes
            .iter()
            .any(|a| a.name == name && a.computed && !a.required && !a.optional)
}

/// The Terraform names of what one can set in the object at `path` of `block`'s values: its
/// required and optional attributes and its nested blocks; None where the schema has no
/// object there.
pub fn configurable_at(block: &Block, path: &AttributePath) -> Option<BTreeSet<String>> {
    let mut attributes = &block.attributes;
    let mut blocks = &block.block_types;
    for step in &path.0 {
        let PathStep::Attribute(name) = step else { continue };
        if let Some(a) = attributes.iter().find(|a| &a.name == name) {
            let AttributeType::Nested { attributes: inner, .. } = &a.ty else { return None };
            attributes = inner;
            blocks = &EMPTY_BLOCKS;
        } else if let Some(b) = blocks.iter().find(|b| &b.type_name == name) {
            attributes = &b.block.attributes;
            blocks = &b.block.block_types;
        } else {
            return None;
        }
    }
    let settable = attributes.iter().filter(|a| a.required || a.optional).map(|a| a.name.clone());
    Some(settable.chain(blocks.iter().map(|b| b.type_name.clone())).collect())
}

/// Whether the schema marks the attribute at `path` (or one around it) sensitive.
pub fn is_sensitive(block: &Block, path: &AttributePath) -> bool {
    let mut attributes = &block.attributes;
    let mut blocks = &block.block_types;
    for step in &path.0 {
        let PathStep::Attribute(name) = step else { continue };
        if let Some(a) = attributes.iter().find(|a| &a.name == name) {
            if a.sensitive {
                return true;
            }
            match &a.ty {
                AttributeType::Nested { attributes: inner, .. } => {
                    attributes = inner;
                    blocks = &EMPTY_BLOCKS;
                }
                AttributeType::Type(_) => return false,
            }
        } else if let Some(b) = blocks.iter().find(|b| &b.type_name == name) {
            attributes = &b.block.attributes;
            blocks = &b.block.block_types;
        } else {
            return false;
        }
    }
    false
}

/// The required attributes `config` leaves null, and nested blocks with fewer than their
/// minimum items: what Terraform's core refuses before a provider sees the configuration.
pub fn missing_required(
    block: &Block,
    config: &Value,
    path: &AttributePath,
    out: &mut Vec<AttributePath>,
) {
    let Value::Object(c) = config else { return };
    for a in &block.attributes {
        if a.required && c.get(&a.name).is_none_or(Value::is_null) {
            out.push(path.attr(a.name.clone()));
        }
    }
    for b in &block.block_types {
        let here = path.attr(b.type_name.clone());
        match c.get(&b.type_name) {
            Some(Value::List(items) | Value::Set(items)) => {
                if (items.len() as u64) < b.min_items {
                    out.push(here.clone());
                }
                for (i, item) in items.iter().enumerate() {
                    missing_required(&b.block, item, &here.index(i as i64), out);
                }
            }
            Some(v @ Value::Object(_)) => missing_required(&b.block, v, &here, out),
            None | Some(Value::Null) if b.min_items > 0 => out.push(here),
            _ => {}
        }
    }
}

static EMPTY_BLOCKS: Vec<terrarium_model::schema::NestedBlock> = Vec::new();

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use terrarium_model::Number;
    use terrarium_model::schema::Attribute;

    use super::*;

    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::Object(
            pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
        )
    }

    fn block() -> Block {
        Block {
            attributes: vec![
                Attribute { name: "length".into(), required: true, ..Attribute::default() },
                Attribute {
                    name: "upper".into(),
                    optional: true,
                    computed: true,
                    ..Attribute::default()
                },
                Attribute {
                    name: "result".into(),
                    computed: true,
                    sensitive: true,
                    ..Attribute::default()
                },
            ],
            ..Block::default()
        }
    }

    #[test]
    fn changes_are_found_attribute_by_attribute() {
        let prior = obj(&[
            ("length", Value::Number(Number::Int(3))),
            ("result", Value::string("abc")),
            ("upper", Value::Null),
        ]);
        let planned = obj(&[
            ("length", Value::Number(Number::Int(4))),
            ("result", Value::unknown()),
            ("upper", Value::Bool(true)),
        ]);
        let found = changes(&prior, &planned);
        let root = AttributePath::root();
        assert_eq!(
            found,
            vec![
                (root.attr("length"), Change::Update),
                (root.attr("result"), Change::Update),
                (root.attr("upper"), Change::Add)
            ]
        );
        assert!(changes(&prior, &prior).is_empty());
        let tags = |t: &[&str]| {
            obj(&[("tags", Value::Set(t.iter().map(|&s| Value::string(s)).collect()))])
        };
        assert!(changes(&tags(&["good", "loud"]), &tags(&["loud", "good"])).is_empty());
        assert_eq!(
            changes(&tags(&["good"]), &tags(&["loud"])),
            vec![(root.attr("tags"), Change::Update)]
        );
        assert!(replaces(&root.attr("length"), &[root.attr("length")]));
        assert!(!replaces(&root.attr("upper"), &[root.attr("length")]));
        assert!(not_a_diff(&block(), &root.attr("id"), false));
        assert!(not_a_diff(&block(), &root.attr("result"), true));
        assert!(!not_a_diff(&block(), &root.attr("result"), false));
        assert!(!not_a_diff(&block(), &root.attr("upper"), true));
        let settable = configurable_at(&block(), &root).unwrap_or_default();
        assert_eq!(settable.into_iter().collect::<Vec<_>>(), ["length", "upper"]);
        assert!(is_sensitive(&block(), &root.attr("result")));
        assert!(!is_sensitive(&block(), &root.attr("length")));
    }
}

//! Value helpers shared by the raw-bindings guest fixtures (included with `#[path]`; each
//! fixture generates its own bindings, under the same module paths).

use std::collections::BTreeMap;

use crate::terrarium::provider::types::{Entry, Node, Number, Refinements, Value};

/// The root object's attributes, by name (the fixtures' values are flat).
pub fn attributes(value: &Value) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    if let Some(Node::Object(entries)) = value.nodes.first() {
        for e in entries {
            if let Some(n) = value.nodes.get(e.value as usize) {
                out.insert(e.key.clone(), n.clone());
            }
        }
    }
    out
}

pub fn string_attr(value: &Value, name: &str) -> Option<String> {
    match attributes(value).remove(name) {
        Some(Node::String(s)) => Some(s),
        _ => None,
    }
}

/// A whole-number attribute of the root object (numbers that are not whole are `None`).
#[allow(dead_code, reason = "not every fixture reads numbers")]
pub fn int_attr(value: &Value, name: &str) -> Option<i64> {
    match attributes(value).remove(name) {
        Some(Node::Number(Number::Int(i))) => Some(i),
        Some(Node::Number(Number::Float(f))) if f.fract() == 0.0 => Some(f as i64),
        Some(Node::Number(Number::Decimal(d))) => d.parse().ok(),
        _ => None,
    }
}

/// An object value from (name, node) pairs whose nodes are leaves.
pub fn object(attrs: Vec<(&str, Node)>) -> Value {
    let mut nodes = vec![Node::Null];
    let mut entries = Vec::new();
    for (key, node) in attrs {
        entries.push(Entry { key: key.to_string(), value: nodes.len() as u32 });
        nodes.push(node);
    }
    nodes[0] = Node::Object(entries);
    Value { nodes }
}

pub fn null_value() -> Value {
    Value { nodes: vec![Node::Null] }
}

#[allow(dead_code, reason = "not every fixture plans unknowns")]
pub fn unknown() -> Node {
    Node::Unknown(Refinements {
        nullable: None,
        string_prefix: None,
        number_lower: None,
        number_upper: None,
        length_lower: None,
        length_upper: None,
    })
}

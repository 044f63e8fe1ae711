//! The flat node form a value takes when it crosses the WIT boundary.
//!
//! WIT has no recursive types, so a value travels as a list of nodes, root first, children
//! referred to by index. [`FlatNode`] mirrors the WIT `node` variant one to one; the host and
//! the guest SDK each map it to their generated bindings with a plain `match`, and share the
//! tree walking (and its checks against hostile input) here.

use std::collections::BTreeMap;

use crate::schema::{
    Attribute, AttributeType, Block, BlockNesting, Description, NestedBlock, ObjectNesting,
};
use crate::{DynamicValue, Number, Refinements, Type, Value};

/// Mirror of the WIT `node` variant.
#[derive(Clone, Debug, PartialEq)]
pub enum FlatNode {
    Null,
    Unknown(Refinements),
    Bool(bool),
    Number(Number),
    String(String),
    List(Vec<u32>),
    Set(Vec<u32>),
    Tuple(Vec<u32>),
    Map(Vec<(String, u32)>),
    Object(Vec<(String, u32)>),
    /// Concrete type (JSON syntax) and the value.
    Dynamic(String, u32),
}

/// A node list that does not describe a tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlatError {
    #[error("the value has no nodes; a value needs at least its root node")]
    Empty,
    #[error("node {parent} refers to node {child}, which does not exist (there are {len} nodes)")]
    OutOfRange { parent: usize, child: u32, len: usize },
    #[error("node {parent} refers to node {child}; children must come after their parent")]
    NotForward { parent: usize, child: u32 },
    #[error("node {child} is used more than once; every node has exactly one parent")]
    Shared { child: u32 },
    #[error("node {index} is not reachable from the root")]
    Unreachable { index: usize },
    #[error("node {index} has duplicate key {key:?}")]
    DuplicateKey { index: usize, key: String },
    #[error("node {index} has an invalid type: {reason}")]
    BadType { index: usize, reason: String },
    #[error("the value nests deeper than {limit} levels")]
    TooDeep { limit: usize },
}

/// Values nest no deeper than this; deeper input is refused rather than risking the stack.
pub const MAX_DEPTH: usize = 256;

/// Flattens a value tree, root first (pre-order).
pub fn flatten(value: &Value) -> Vec<FlatNode> {
    let mut nodes = Vec::new();
    push(value, &mut nodes);
    nodes
}

fn push(value: &Value, nodes: &mut Vec<FlatNode>) -> u32 {
    let index = nodes.len();
    nodes.push(FlatNode::Null);
    let node = match value {
        Value::Null => FlatNode::Null,
        Value::Unknown(r) => FlatNode::Unknown(r.clone()),
        Value::Bool(b) => FlatNode::Bool(*b),
        Value::Number(n) => FlatNode::Number(n.clone()),
        Value::String(s) => FlatNode::String(s.clone()),
        Value::List(items) => FlatNode::List(items.iter().map(|v| push(v, nodes)).collect()),
        Value::Set(items) => FlatNode::Set(items.iter().map(|v| push(v, nodes)).collect()),
        Value::Tuple(items) => FlatNode::Tuple(items.iter().map(|v| push(v, nodes)).collect()),
        Value::Map(m) => {
            FlatNode::Map(m.iter().map(|(k, v)| (k.clone(), push(v, nodes))).collect())
        }
        Value::Object(m) => {
            FlatNode::Object(m.iter().map(|(k, v)| (k.clone(), push(v, nodes))).collect())
        }
        Value::Dynamic(d) => {
            let ty = d.ty.to_json();
            FlatNode::Dynamic(ty, push(&d.value, nodes))
        }
    };
    nodes[index] = node;
    index as u32
}

/// Rebuilds a tree from nodes, refusing anything that is not exactly one tree: indices out
/// of range, backward references (which is what makes cycles impossible), shared children
/// (which could blow up exponentially), unreachable nodes, duplicate keys and excessive depth.
pub fn unflatten(nodes: Vec<FlatNode>) -> Result<Value, FlatError> {
    if nodes.is_empty() {
        return Err(FlatError::Empty);
    }
    let len = nodes.len();
    let mut used = vec![false; len];
    used[0] = true;
    // Check the structure first, so the build below can trust it.
    for (parent, node) in nodes.iter().enumerate() {
        let mut check = |child: u32| -> Result<(), FlatError> {
            let c = child as usize;
            if c >= len {
                return Err(FlatError::OutOfRange { parent, child, len });
            }
            if c <= parent {
                return Err(FlatError::NotForward { parent, child });
            }
            if std::mem::replace(&mut used[c], true) {
                return Err(FlatError::Shared { child });
            }
            Ok(())
        };
        match node {
            FlatNode::List(c) | FlatNode::Set(c) | FlatNode::Tuple(c) => {
                c.iter().try_for_each(|&i| check(i))?
            }
            FlatNode::Map(e) | FlatNode::Object(e) => e.iter().try_for_each(|(_, i)| check(*i))?,
            FlatNode::Dynamic(_, i) => check(*i)?,
            _ => {}
        }
    }
    if let Some(index) = used.iter().position(|u| !u) {
        return Err(FlatError::Unreachable { index });
    }
    let mut slots: Vec<Option<FlatNode>> = nodes.into_iter().map(Some).collect();
    build(0, &mut slots, 0)
}

fn build(index: usize, slots: &mut [Option<FlatNode>], depth: usize) -> Result<Value, FlatError> {
    if depth > MAX_DEPTH {
        return Err(FlatError::TooDeep { limit: MAX_DEPTH });
    }
    // Each slot is taken exactly once: the checks above guarantee a tree.
    let node = slots[index].take().ok_or(FlatError::Shared { child: index as u32 })?;
    let children =
        |ids: Vec<u32>, slots: &mut [Option<FlatNode>]| -> Result<Vec<Value>, FlatError> {
            ids.into_iter().map(|i| build(i as usize, slots, depth + 1)).collect()
        };
    Ok(match node {
        FlatNode::Null => Value::Null,
        FlatNode::Unknown(r) => Value::Unknown(r),
        FlatNode::Bool(b) => Value::Bool(b),
        FlatNode::Number(n) => Value::Number(n),
        FlatNode::String(s) => Value::String(s),
        FlatNode::List(c) => Value::List(children(c, slots)?),
        FlatNode::Set(c) => Value::Set(children(c, slots)?),
        FlatNode::Tuple(c) => Value::Tuple(children(c, slots)?),
        FlatNode::Map(e) => Value::Map(entries(index, e, slots, depth)?),
        FlatNode::Object(e) => Value::Object(entries(index, e, slots, depth)?),
        FlatNode::Dynamic(ty, i) => {
            let ty =
                Type::from_json(&ty).map_err(|e| FlatError::BadType { index, reason: e.reason })?;
            let value = build(i as usize, slots, depth + 1)?;
            Value::Dynamic(Box::new(DynamicValue { ty, value }))
        }
    })
}

fn entries(
    index: usize,
    entries: Vec<(String, u32)>,
    slots: &mut [Option<FlatNode>],
    depth: usize,
) -> Result<BTreeMap<String, Value>, FlatError> {
    let mut map = BTreeMap::new();
    for (key, child) in entries {
        let value = build(child as usize, slots, depth + 1)?;
        if map.contains_key(&key) {
            return Err(FlatError::DuplicateKey { index, key });
        }
        map.insert(key, value);
    }
    Ok(map)
}

/// Mirror of the WIT `attribute` record: `nested` names a block (by index) whose
/// attributes form the nested object.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatAttribute {
    pub attribute: Attribute,
    pub nested: Option<(ObjectNesting, u32)>,
}

/// Mirror of the WIT `nested-block` record.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatNestedBlock {
    pub type_name: String,
    pub block: u32,
    pub nesting: BlockNesting,
    pub min_items: u64,
    pub max_items: u64,
}

/// Mirror of the WIT `block` record. `attributes[i].attribute.ty` is ignored when
/// `nested` is set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatBlock {
    pub attributes: Vec<FlatAttribute>,
    pub block_types: Vec<FlatNestedBlock>,
    pub description: Description,
    pub deprecated: bool,
    pub deprecation_message: String,
}

/// A block list that does not describe a schema tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlatSchemaError {
    #[error("the schema has no blocks; it needs at least its root block")]
    Empty,
    #[error("block {parent} refers to block {child}, which is out of range or not after it")]
    BadReference { parent: usize, child: u32 },
    #[error("block {child} is used more than once")]
    Shared { child: u32 },
    #[error("block {block}: attribute {name:?} needs exactly one of a type and nested attributes")]
    AttributeKind { block: usize, name: String },
    #[error(
        "block {block} is nested {depth} levels deep, deeper than the limit of {limit} levels of \
         nested blocks and nested attributes; flatten the schema"
    )]
    TooDeep { block: u32, depth: usize, limit: usize },
}

/// Blocks and nested attribute objects nest no deeper than this below the root block.
///
/// Each level adds at most two levels to the values of the schema (a collection and the object
/// inside it), so a maximal schema uses 64 levels of its values: half of the 128 levels the
/// host's codec decodes (and a quarter of this module's [`MAX_DEPTH`]), leaving the rest to
/// attribute types. Terraform's own providers nest a handful of levels; a
/// deeper schema is refused when it is loaded, before anything walks it.
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// Flattens a block tree, root first.
pub fn flatten_block(block: &Block) -> Vec<FlatBlock> {
    let mut out = Vec::new();
    push_block(block, &mut out);
    out
}

fn push_block(block: &Block, out: &mut Vec<FlatBlock>) -> u32 {
    let index = out.len();
    out.push(FlatBlock::default());
    let attributes = block.attributes.iter().map(|a| push_attribute(a, out)).collect();
    let block_types = block
        .block_types
        .iter()
        .map(|nb| FlatNestedBlock {
            type_name: nb.type_name.clone(),
            block: push_block(&nb.block, out),
            nesting: nb.nesting,
            min_items: nb.min_items,
            max_items: nb.max_items,
        })
        .collect();
    out[index] = FlatBlock {
        attributes,
        block_types,
        description: block.description.clone(),
        deprecated: block.deprecated,
        deprecation_message: block.deprecation_message.clone(),
    };
    index as u32
}

fn push_attribute(a: &Attribute, out: &mut Vec<FlatBlock>) -> FlatAttribute {
    match &a.ty {
        AttributeType::Type(_) => FlatAttribute { attribute: a.clone(), nested: None },
        AttributeType::Nested { nesting, attributes } => {
            let holder = Block { attributes: attributes.clone(), ..Default::default() };
            let index = push_block(&holder, out);
            let mut attribute = a.clone();
            attribute.ty = AttributeType::default();
            FlatAttribute { attribute, nested: Some((*nesting, index)) }
        }
    }
}

/// Rebuilds a block tree; refuses references that are out of range, backward or shared, and
/// nesting deeper than [`MAX_SCHEMA_DEPTH`] (checked in one pass before the tree is built, so
/// the recursive build and every later walk of the schema stay within that many levels).
pub fn unflatten_block(blocks: Vec<FlatBlock>) -> Result<Block, FlatSchemaError> {
    if blocks.is_empty() {
        return Err(FlatSchemaError::Empty);
    }
    let mut used = vec![false; blocks.len()];
    used[0] = true;
    // Children come after their parent, so one forward pass knows every parent's depth.
    let mut depth = vec![0usize; blocks.len()];
    for (parent, b) in blocks.iter().enumerate() {
        let children = b
            .attributes
            .iter()
            .filter_map(|a| a.nested.map(|(_, i)| i))
            .chain(b.block_types.iter().map(|nb| nb.block));
        for child in children {
            let c = child as usize;
            if c >= blocks.len() || c <= parent {
                return Err(FlatSchemaError::BadReference { parent, child });
            }
            if std::mem::replace(&mut used[c], true) {
                return Err(FlatSchemaError::Shared { child });
            }
            depth[c] = depth[parent] + 1;
            if depth[c] > MAX_SCHEMA_DEPTH {
                return Err(FlatSchemaError::TooDeep {
                    block: child,
                    depth: depth[c],
                    limit: MAX_SCHEMA_DEPTH,
                });
            }
        }
    }
    let mut slots: Vec<Option<FlatBlock>> = blocks.into_iter().map(Some).collect();
    take_block(0, &mut slots)
}

fn take_block(index: usize, slots: &mut [Option<FlatBlock>]) -> Result<Block, FlatSchemaError> {
    let flat = slots[index].take().ok_or(FlatSchemaError::Shared { child: index as u32 })?;
    let mut attributes = Vec::with_capacity(flat.attributes.len());
    for fa in flat.attributes {
        let mut a = fa.attribute;
        if let Some((nesting, child)) = fa.nested {
            let inner = take_block(child as usize, slots)?;
            a.ty = AttributeType::Nested { nesting, attributes: inner.attributes };
        }
        attributes.push(a);
    }
    let mut block_types = Vec::with_capacity(flat.block_types.len());
    for nb in flat.block_types {
        block_types.push(NestedBlock {
            type_name: nb.type_name,
            block: take_block(nb.block as usize, slots)?,
            nesting: nb.nesting,
            min_items: nb.min_items,
            max_items: nb.max_items,
            computed: false,
        });
    }
    Ok(Block {
        attributes,
        block_types,
        description: flat.description,
        deprecated: flat.deprecated,
        deprecation_message: flat.deprecation_message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        Value::Object(BTreeMap::from([
            ("a".to_string(), Value::List(vec![Value::Bool(true), Value::Null])),
            ("b".to_string(), Value::Map(BTreeMap::from([("k".to_string(), Value::string("v"))]))),
            (
                "d".to_string(),
                Value::Dynamic(Box::new(DynamicValue {
                    ty: Type::Number,
                    value: Value::Number(Number::Int(3)),
                })),
            ),
            ("u".to_string(), Value::unknown()),
        ]))
    }

    #[test]
    fn round_trips() {
        let v = sample();
        assert_eq!(unflatten(flatten(&v)).unwrap(), v);
    }

    #[test]
    fn refuses_what_is_not_a_tree() {
        use FlatNode as N;
        let cases = vec![
            (vec![], FlatError::Empty),
            (vec![N::List(vec![5])], FlatError::OutOfRange { parent: 0, child: 5, len: 1 }),
            (vec![N::List(vec![0])], FlatError::NotForward { parent: 0, child: 0 }),
            (vec![N::List(vec![1, 1]), N::Null], FlatError::Shared { child: 1 }),
            (vec![N::Null, N::Null], FlatError::Unreachable { index: 1 }),
            (
                vec![N::Object(vec![("a".into(), 1), ("a".into(), 2)]), N::Null, N::Null],
                FlatError::DuplicateKey { index: 0, key: "a".into() },
            ),
        ];
        for (nodes, err) in cases {
            assert_eq!(unflatten(nodes).unwrap_err(), err);
        }
    }

    #[test]
    fn schema_round_trips() {
        let block = Block {
            attributes: vec![Attribute {
                name: "rules".into(),
                ty: AttributeType::Nested {
                    nesting: ObjectNesting::List,
                    attributes: vec![Attribute {
                        name: "port".into(),
                        ty: AttributeType::Type(Type::Number),
                        ..Default::default()
                    }],
                },
                optional: true,
                ..Default::default()
            }],
            block_types: vec![NestedBlock {
                type_name: "tag".into(),
                block: Block {
                    attributes: vec![Attribute { name: "k".into(), ..Default::default() }],
                    ..Default::default()
                },
                nesting: BlockNesting::Set,
                min_items: 1,
                max_items: 3,
                computed: false,
            }],
            ..Default::default()
        };
        let flat = flatten_block(&block);
        assert_eq!(flat.len(), 3);
        assert_eq!(unflatten_block(flat).unwrap(), block);
    }

    /// A chain of `n` blocks, each the only nested block of the one before.
    fn chain(n: u32) -> Vec<FlatBlock> {
        (0..n)
            .map(|i| FlatBlock {
                block_types: if i + 1 < n {
                    vec![FlatNestedBlock {
                        type_name: "inner".into(),
                        block: i + 1,
                        nesting: BlockNesting::List,
                        min_items: 0,
                        max_items: 0,
                    }]
                } else {
                    vec![]
                },
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn schemas_nest_up_to_the_limit_and_no_deeper() {
        let limit = MAX_SCHEMA_DEPTH as u32;
        assert!(unflatten_block(chain(limit + 1)).is_ok());
        assert_eq!(
            unflatten_block(chain(limit + 2)).unwrap_err(),
            FlatSchemaError::TooDeep {
                block: limit + 1,
                depth: MAX_SCHEMA_DEPTH + 1,
                limit: MAX_SCHEMA_DEPTH
            }
        );
        // Deep enough to overflow any stack if it were walked recursively.
        assert!(matches!(unflatten_block(chain(1_000_000)), Err(FlatSchemaError::TooDeep { .. })));
        // A maximal schema's values still fit the value depth limit.
        let block = unflatten_block(chain(limit + 1)).unwrap();
        let mut depth = 0;
        let mut ty = block.implied_type();
        while let crate::Type::Object(o) = ty {
            let Some(inner) = o.attributes.into_values().next() else { break };
            let crate::Type::List(element) = inner else { break };
            ty = *element;
            depth += 2;
        }
        assert!(depth <= MAX_DEPTH / 2, "{depth}");
    }

    #[test]
    fn refuses_excessive_depth_without_overflowing() {
        let n = 100_000u32;
        let mut nodes: Vec<FlatNode> = (1..n).map(|i| FlatNode::List(vec![i])).collect();
        nodes.push(FlatNode::Null);
        assert_eq!(unflatten(nodes).unwrap_err(), FlatError::TooDeep { limit: MAX_DEPTH });
    }
}

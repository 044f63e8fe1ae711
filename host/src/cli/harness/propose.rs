//! Terraform's part of a plan, which the harness plays since no terraform runs: the proposed
//! new state (`objchange.ProposedNew`) that PlanResourceChange receives. It is the
//! configuration with the prior value of every computed attribute the configuration leaves
//! null, nested objects matched to their prior selves: lists by position, maps by key, the
//! single object to itself, and sets by their non-computed attributes.
//!
//! This is not the provider's plan (defaults, unknowns, replacements): that stays with the
//! provider and the host's planner, which the harness calls as terraform would.

use terrarium_model::Value;
use terrarium_model::schema::{Attribute, AttributeType, Block, ObjectNesting};

/// The attributes and nested blocks of one object type.
#[derive(Clone, Copy)]
struct Shape<'a> {
    attributes: &'a [Attribute],
    blocks: &'a [terrarium_model::schema::NestedBlock],
}

impl<'a> Shape<'a> {
    fn of(block: &'a Block) -> Self {
        Shape { attributes: &block.attributes, blocks: &block.block_types }
    }

    /// Every nested attribute and block: its name, whether it is a set, and its objects' shape.
    fn children(self) -> impl Iterator<Item = (&'a str, bool, Shape<'a>)> {
        let nested = self.attributes.iter().filter_map(|a| match &a.ty {
            AttributeType::Nested { nesting, attributes } => Some((
                a.name.as_str(),
                *nesting == ObjectNesting::Set,
                Shape { attributes, blocks: &[] },
            )),
            AttributeType::Type(_) => None,
        });
        let blocks = self.blocks.iter().map(|b| {
            let set = b.nesting == terrarium_model::schema::BlockNesting::Set;
            (b.type_name.as_str(), set, Shape::of(&b.block))
        });
        nested.chain(blocks)
    }
}

/// What Terraform proposes for a resource of `block` with `prior` state and `config`.
pub fn proposed_new_state(block: &Block, prior: &Value, config: &Value) -> Value {
    propose(Shape::of(block), prior, config)
}

fn propose(shape: Shape<'_>, prior: &Value, config: &Value) -> Value {
    let (Value::Object(c), Value::Object(_)) = (config, prior) else {
        return config.clone();
    };
    let mut out = c.clone();
    for a in shape.attributes.iter().filter(|a| a.computed) {
        if c.get(&a.name).is_none_or(Value::is_null)
            && let Some(p) = prior.attr(&a.name)
        {
            out.insert(a.name.clone(), p.clone());
        }
    }
    for (name, is_set, inner) in shape.children() {
        let (Some(v), Some(p)) = (out.get_mut(name), prior.attr(name)) else { continue };
        let taken = std::mem::replace(v, Value::Null);
        *v = match (taken, p) {
            (o @ Value::Object(_), p) => propose(inner, p, &o),
            (Value::List(items), Value::List(before)) => Value::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| propose(inner, before.get(i).unwrap_or(&Value::Null), item))
                    .collect(),
            ),
            (Value::Map(items), Value::Map(before)) => Value::Map(
                items
                    .iter()
                    .map(|(k, item)| {
                        (k.clone(), propose(inner, before.get(k).unwrap_or(&Value::Null), item))
                    })
                    .collect(),
            ),
            (Value::Set(items), Value::Set(before)) if is_set => {
                let mut unused: Vec<&Value> = before.iter().collect();
                Value::Set(
                    items
                        .iter()
                        .map(|item| {
                            let key = configured(inner, item);
                            match unused.iter().position(|b| configured(inner, b) == key) {
                                Some(i) => propose(inner, unused.remove(i), item),
                                None => item.clone(),
                            }
                        })
                        .collect(),
                )
            }
            (other, _) => other,
        };
    }
    Value::Object(out)
}

/// What identifies a set element: its value with every computed attribute left out, at
/// every depth.
fn configured(shape: Shape<'_>, value: &Value) -> Value {
    let Value::Object(object) = value else {
        return value.clone();
    };
    let mut out = object.clone();
    for a in shape.attributes.iter().filter(|a| a.computed) {
        out.insert(a.name.clone(), Value::Null);
    }
    for (name, _, inner) in shape.children() {
        if let Some(v) = out.get_mut(name) {
            *v = match std::mem::replace(v, Value::Null) {
                o @ Value::Object(_) => configured(inner, &o),
                Value::List(items) => {
                    Value::List(items.iter().map(|i| configured(inner, i)).collect())
                }
                Value::Set(items) => {
                    Value::Set(items.iter().map(|i| configured(inner, i)).collect())
                }
                Value::Map(m) => {
                    Value::Map(m.iter().map(|(k, i)| (k.clone(), configured(inner, i))).collect())
                }
                other => other,
            };
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use terrarium_model::Type;
    use terrarium_model::schema::{BlockNesting, NestedBlock};

    use super::*;

    fn attr(name: &str, computed: bool) -> Attribute {
        Attribute {
            name: name.into(),
            ty: AttributeType::Type(Type::String),
            optional: true,
            computed,
            ..Default::default()
        }
    }

    fn object(pairs: &[(&str, Value)]) -> Value {
        Value::Object(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    #[test]
    fn computed_values_are_carried_over_also_into_matched_set_elements() {
        let toy = Block {
            attributes: vec![attr("kind", false), attr("serial", true)],
            ..Default::default()
        };
        let block = Block {
            attributes: vec![attr("id", true), attr("name", false)],
            block_types: vec![NestedBlock {
                type_name: "toy".into(),
                block: toy,
                nesting: BlockNesting::Set,
                min_items: 0,
                max_items: 0,
            }],
            ..Default::default()
        };
        let s = |text: &str| Value::string(text);
        let toy = |kind: &str, serial: Value| object(&[("kind", s(kind)), ("serial", serial)]);
        let prior = object(&[
            ("id", s("p-1")),
            ("name", s("rex")),
            ("toy", Value::Set(vec![toy("ball", s("t-1")), toy("rope", s("t-2"))])),
        ]);
        let config = object(&[
            ("id", Value::Null),
            ("name", s("max")),
            ("toy", Value::Set(vec![toy("rope", Value::Null), toy("bone", Value::Null)])),
        ]);
        let proposed = proposed_new_state(&block, &prior, &config);
        let expected = object(&[
            ("id", s("p-1")),
            ("name", s("max")),
            ("toy", Value::Set(vec![toy("rope", s("t-2")), toy("bone", Value::Null)])),
        ]);
        assert_eq!(proposed, expected);
    }
}

//! The defaults `Check` gives back to the engine: the inputs as given, with what the provider's
//! plan for a new object filled in where the inputs leave it null.
//!
//! Pulumi records the checked inputs, so a default that is not filled in here shows as a
//! difference between inputs and outputs on every later `Diff`.

use terrarium_model::Value;
use terrarium_model::schema::{AttributeType, Block, BlockNesting, ObjectNesting};

/// `config` (an object of `block`) with the planned defaults filled in: every optional attribute
/// the inputs leave null that `planned` holds wholly known and not null, at every depth: inside
/// a nested block or nested attribute object the inputs give, element by element in lists of
/// the same length, in maps key by key, and in sets element by element where a given element
/// can be matched to its planned one ([`fill_set`]).
pub(crate) fn fill(config: &Value, planned: &Value, block: &Block) -> Value {
    let Value::Object(given) = config else { return config.clone() };
    let mut out = given.clone();
    for a in &block.attributes {
        let (c, p) = (config.attr(&a.name), planned.attr(&a.name));
        let c_null = c.is_none_or(Value::is_null);
        if c_null {
            if a.optional
                && !a.write_only
                && let Some(p) = p.filter(|p| !p.is_null() && !p.contains_unknown())
            {
                out.insert(a.name.clone(), p.clone());
            }
            continue;
        }
        if let (Some(c), Some(p), AttributeType::Nested { nesting, attributes }) = (c, p, &a.ty) {
            let inner = Block { attributes: attributes.clone(), ..Block::default() };
            let single = *nesting == ObjectNesting::Single;
            out.insert(a.name.clone(), fill_nested(c, p, &inner, single));
        }
    }
    for b in &block.block_types {
        if let (Some(c), Some(p)) = (config.attr(&b.type_name), planned.attr(&b.type_name))
            && !c.is_null()
        {
            let single = matches!(b.nesting, BlockNesting::Single | BlockNesting::Group);
            out.insert(b.type_name.clone(), fill_nested(c, p, &b.block, single));
        }
    }
    Value::Object(out)
}

/// A nested value (one object when `single`, else a list, set or map of them) with the planned
/// defaults filled in where its elements can be matched.
fn fill_nested(config: &Value, planned: &Value, block: &Block, single: bool) -> Value {
    match (config, planned) {
        (Value::Object(_), _) if single => fill(config, planned, block),
        (Value::Map(c), Value::Map(p)) => Value::Map(
            c.iter()
                .map(|(k, v)| {
                    (k.clone(), p.get(k).map_or_else(|| v.clone(), |p| fill(v, p, block)))
                })
                .collect(),
        ),
        (Value::List(c), Value::List(p)) if c.len() == p.len() => {
            Value::List(c.iter().zip(p).map(|(c, p)| fill(c, p, block)).collect())
        }
        (Value::Set(c), Value::Set(p)) => Value::Set(fill_set(c, p, block)),
        _ => config.clone(),
    }
}

/// A set's elements have no index or key: a given element is matched to the one planned element
/// that [`agrees`] with everything it gives. When none or several do, or another given element
/// agrees with the same one (the plan made them one element), the element stays as given.
fn fill_set(given: &[Value], planned: &[Value], block: &Block) -> Vec<Value> {
    let agreeing: Vec<Vec<usize>> = given
        .iter()
        .map(|g| (0..planned.len()).filter(|&i| agrees(g, &planned[i])).collect())
        .collect();
    let claims = |i: usize| agreeing.iter().filter(|found| found.contains(&i)).count();
    given
        .iter()
        .zip(&agreeing)
        .map(|(g, found)| match found.as_slice() {
            [i] if claims(*i) == 1 => fill(g, &planned[*i], block),
            _ => g.clone(),
        })
        .collect()
}

/// Whether `planned` can be `given` with defaults filled in: equal wherever `given` says
/// something (a known value that is not null).
fn agrees(given: &Value, planned: &Value) -> bool {
    let all_agree =
        |g: &[Value], p: &[Value]| g.len() == p.len() && g.iter().zip(p).all(|(g, p)| agrees(g, p));
    match (given, planned) {
        (Value::Null | Value::Unknown(_), _) => true,
        (Value::Object(g), Value::Object(p)) => {
            g.iter().all(|(k, g)| p.get(k).is_some_and(|p| agrees(g, p)))
        }
        (Value::Map(g), Value::Map(p)) => {
            g.len() == p.len() && g.iter().all(|(k, g)| p.get(k).is_some_and(|p| agrees(g, p)))
        }
        (Value::List(g), Value::List(p)) | (Value::Tuple(g), Value::Tuple(p)) => all_agree(g, p),
        (Value::Set(g), Value::Set(p)) => {
            g.len() == p.len() && g.iter().all(|g| p.iter().any(|p| agrees(g, p)))
        }
        _ => given == planned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrarium_model::schema::{Attribute, NestedBlock};

    fn text(s: &str) -> Value {
        Value::String(s.into())
    }

    fn object(fields: &[(&str, Value)]) -> Value {
        Value::Object(fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    /// A resource with a set of `rule` blocks, each with a required `port` and an optional
    /// `protocol` the provider defaults to "tcp".
    fn rules_block() -> Block {
        let string = AttributeType::default;
        let rule = Block {
            attributes: vec![
                Attribute {
                    name: "port".into(),
                    ty: string(),
                    required: true,
                    ..Attribute::default()
                },
                Attribute {
                    name: "protocol".into(),
                    ty: string(),
                    optional: true,
                    computed: true,
                    ..Attribute::default()
                },
            ],
            ..Block::default()
        };
        Block {
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                nesting: BlockNesting::Set,
                block: rule,
                min_items: 0,
                max_items: 0,
                computed: false,
            }],
            ..Block::default()
        }
    }

    #[test]
    fn defaults_are_filled_inside_the_elements_of_a_set() {
        let given = object(&[(
            "rule",
            Value::Set(vec![
                object(&[("port", text("80")), ("protocol", Value::Null)]),
                object(&[("port", text("53")), ("protocol", text("udp"))]),
            ]),
        )]);
        // The plan's set comes back in its own order.
        let planned = object(&[(
            "rule",
            Value::Set(vec![
                object(&[("port", text("53")), ("protocol", text("udp"))]),
                object(&[("port", text("80")), ("protocol", text("tcp"))]),
            ]),
        )]);
        let filled = fill(&given, &planned, &rules_block());
        let expected = object(&[(
            "rule",
            Value::Set(vec![
                object(&[("port", text("80")), ("protocol", text("tcp"))]),
                object(&[("port", text("53")), ("protocol", text("udp"))]),
            ]),
        )]);
        assert_eq!(filled, expected);
    }

    #[test]
    fn a_set_element_that_cannot_be_told_apart_stays_as_given() {
        // Both given elements agree with the one planned element (the plan made them one):
        // neither can be said to have the default.
        let given = object(&[(
            "rule",
            Value::Set(vec![
                object(&[("port", text("80")), ("protocol", Value::Null)]),
                object(&[("port", text("80")), ("protocol", text("tcp"))]),
            ]),
        )]);
        let planned = object(&[(
            "rule",
            Value::Set(vec![object(&[("port", text("80")), ("protocol", text("tcp"))])]),
        )]);
        assert_eq!(fill(&given, &planned, &rules_block()), given);
        // An element no planned element agrees with stays as given too.
        let other = object(&[(
            "rule",
            Value::Set(vec![object(&[("port", text("22")), ("protocol", Value::Null)])]),
        )]);
        assert_eq!(fill(&other, &planned, &rules_block()), other);
    }
}

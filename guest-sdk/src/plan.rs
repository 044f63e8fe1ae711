//! The default plan: what a resource's planned state is before its own
//! [`Resource::plan`](crate::Resource::plan) hook sees it.
//!
//! Terraform proposes a new state (the configuration, with prior values carried over for
//! computed attributes the configuration leaves unset) and asks the provider to plan. The
//! default plan is:
//!
//! - **destroy** (no proposed state): nothing to plan;
//! - **create**: the proposal, with every computed attribute that the configuration leaves
//!   null marked unknown ("known after apply");
//! - **replace** (an attribute marked [`requires_replace`](crate::schema::Attribute::requires_replace)
//!   changed): planned like a create, so computed attributes become unknown again;
//! - **update**: the proposal (prior values kept for unset computed attributes), with
//!   attributes marked [`unknown_on_update`](crate::schema::Attribute::unknown_on_update)
//!   unknown and computed attributes that have no value yet (say, in a newly added nested
//!   block) unknown;
//! - **no change**: the prior state exactly.
//!
//! Before any of that, attributes the configuration leaves unset get their
//! [default](crate::schema::Attribute::default), if they have one, as if it were configured.

use terrarium_model::schema::{BlockNesting, ObjectNesting};
use terrarium_model::{AttributePath, Value};

use crate::schema::{Attribute, AttributeKind, NestedBlock, ReplaceRule, Schema};
use crate::value::same_value;

/// The planned state and the attributes that force replacement.
pub(crate) fn default_plan(
    schema: &Schema,
    prior: &Value,
    proposed: &Value,
    config: &Value,
) -> (Value, Vec<AttributePath>) {
    let root = schema.root();
    if proposed.is_null() {
        return (Value::Null, Vec::new());
    }
    let (config, proposed) = &with_defaults(root.attributes(), config.clone(), proposed.clone());
    if prior.is_null() {
        let planned = mark_unknown(root.attributes(), root.blocks(), proposed.clone());
        return (clear_write_only(root.attributes(), root.blocks(), planned), Vec::new());
    }
    let mut replace = Vec::new();
    replace_paths(root.attributes(), root.blocks(), prior, proposed, &AttributePath::root(), &mut replace);
    if !replace.is_empty() {
        // The replacement is a new object: plan it from the configuration alone, as a
        // create would be, rather than from a proposal that carries the old object's values.
        let planned = mark_unknown(root.attributes(), root.blocks(), config.clone());
        return (clear_write_only(root.attributes(), root.blocks(), planned), replace);
    }
    if same_value(prior, proposed) {
        return (prior.clone(), Vec::new());
    }
    let mut planned = mark_unknown(root.attributes(), root.blocks(), proposed.clone());
    if let Value::Object(attrs) = &mut planned {
        for a in root.attributes().iter().filter(|a| a.is_unknown_on_update()) {
            let set_in_config = config.attr(a.name()).is_some_and(|v| !v.is_null());
            if !set_in_config && let Some(v) = attrs.get_mut(a.name()) {
                *v = Value::unknown();
            }
        }
    }
    (clear_write_only(root.attributes(), root.blocks(), planned), Vec::new())
}

/// Fills in the [defaults](crate::schema::Attribute::default) of the top-level attributes the
/// configuration leaves null, in the configuration and the proposal alike (where Terraform
/// proposed the prior value), so that the rest of the plan sees them as configured.
fn with_defaults(attributes: &[Attribute], mut config: Value, mut proposed: Value) -> (Value, Value) {
    if let (Value::Object(config_attrs), Value::Object(proposed_attrs)) = (&mut config, &mut proposed) {
        for a in attributes {
            let Some(default) = a.default_value() else { continue };
            if config_attrs.get(a.name()).is_some_and(Value::is_null) {
                config_attrs.insert(a.name().to_string(), default.clone());
                proposed_attrs.insert(a.name().to_string(), default.clone());
            }
        }
    }
    (config, proposed)
}

/// Marks computed attributes that are null unknown, at every depth. In a proposal a
/// computed attribute is null only when neither the configuration nor the prior state has
/// a value for it.
fn mark_unknown(attributes: &[Attribute], blocks: &[NestedBlock], value: Value) -> Value {
    let Value::Object(mut object) = value else {
        return value;
    };
    for a in attributes {
        let Some(v) = object.get_mut(a.name()) else { continue };
        if v.is_null() && a.is_computed() {
            *v = Value::unknown();
        } else if let AttributeKind::Nested(nesting, inner) = a.kind() {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(object_nesting(*nesting), taken, &|o| mark_unknown(inner, &[], o));
        }
    }
    for b in blocks {
        let Some(v) = object.get_mut(b.name()) else { continue };
        let taken = std::mem::replace(v, Value::Null);
        *v = map_objects(b.nesting(), taken, &|o| mark_unknown(b.block().attributes(), b.block().blocks(), o));
    }
    Value::Object(object)
}

/// Write-only attributes are never planned or stored: Terraform requires them null.
fn clear_write_only(attributes: &[Attribute], blocks: &[NestedBlock], value: Value) -> Value {
    let Value::Object(mut object) = value else {
        return value;
    };
    for a in attributes {
        let Some(v) = object.get_mut(a.name()) else { continue };
        if a.is_write_only() {
            *v = Value::Null;
        } else if let AttributeKind::Nested(nesting, inner) = a.kind() {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(object_nesting(*nesting), taken, &|o| clear_write_only(inner, &[], o));
        }
    }
    for b in blocks {
        let Some(v) = object.get_mut(b.name()) else { continue };
        let taken = std::mem::replace(v, Value::Null);
        *v = map_objects(b.nesting(), taken, &|o| clear_write_only(b.block().attributes(), b.block().blocks(), o));
    }
    Value::Object(object)
}

/// Nested attributes nest like blocks, without `group`.
fn object_nesting(nesting: ObjectNesting) -> BlockNesting {
    match nesting {
        ObjectNesting::Single => BlockNesting::Single,
        ObjectNesting::List => BlockNesting::List,
        ObjectNesting::Set => BlockNesting::Set,
        ObjectNesting::Map => BlockNesting::Map,
    }
}

/// Applies `f` to each object of a nested value; null and unknown collections stay as they
/// are.
fn map_objects(nesting: BlockNesting, value: Value, f: &dyn Fn(Value) -> Value) -> Value {
    match (nesting, value) {
        (BlockNesting::Single | BlockNesting::Group, v) => f(v),
        (BlockNesting::List, Value::List(items)) => Value::List(items.into_iter().map(f).collect()),
        (BlockNesting::Set, Value::Set(items)) => Value::Set(items.into_iter().map(f).collect()),
        (BlockNesting::Map, Value::Map(m)) => Value::Map(m.into_iter().map(|(k, v)| (k, f(v))).collect()),
        (_, other) => other,
    }
}

const NULL: Value = Value::Null;

/// Collects the paths of replace-forcing attributes whose value changed.
fn replace_paths(
    attributes: &[Attribute],
    blocks: &[NestedBlock],
    prior: &Value,
    planned: &Value,
    path: &AttributePath,
    out: &mut Vec<AttributePath>,
) {
    for a in attributes {
        let here = path.attr(a.name());
        let before = prior.attr(a.name()).unwrap_or(&NULL);
        let after = planned.attr(a.name()).unwrap_or(&NULL);
        if forces_replacement(a.replace_rule(), before, after) {
            out.push(here);
        } else if let AttributeKind::Nested(nesting, inner) = a.kind()
            && has_replace_rules(inner, &[])
        {
            descend(object_nesting(*nesting), before, after, &here, out, &|p, n, path, out| {
                replace_paths(inner, &[], p, n, path, out)
            });
        }
    }
    for b in blocks {
        let here = path.attr(b.name());
        let before = prior.attr(b.name()).unwrap_or(&NULL);
        let after = planned.attr(b.name()).unwrap_or(&NULL);
        let rule = if b.is_requires_replace() { ReplaceRule::Always } else { ReplaceRule::Never };
        if forces_replacement(&rule, before, after) {
            out.push(here);
        } else if has_replace_rules(b.block().attributes(), b.block().blocks()) {
            descend(b.nesting(), before, after, &here, out, &|p, n, path, out| {
                replace_paths(b.block().attributes(), b.block().blocks(), p, n, path, out)
            });
        }
    }
}

fn forces_replacement(rule: &ReplaceRule, before: &Value, after: &Value) -> bool {
    match rule {
        ReplaceRule::Never => false,
        ReplaceRule::Always => !same_value(before, after),
        ReplaceRule::If(decide) => !same_value(before, after) && decide(before, after),
    }
}

type Visit<'a> = dyn Fn(&Value, &Value, &AttributePath, &mut Vec<AttributePath>) + 'a;

/// Compares nested objects pairwise where they line up (list by index, map by key, single
/// directly). Where they cannot be lined up (sets, or elements added or removed) any
/// difference counts as a change of the whole collection.
fn descend(
    nesting: BlockNesting,
    prior: &Value,
    planned: &Value,
    path: &AttributePath,
    out: &mut Vec<AttributePath>,
    visit: &Visit<'_>,
) {
    match (nesting, prior, planned) {
        (BlockNesting::Single | BlockNesting::Group, Value::Object(_), Value::Object(_)) => {
            visit(prior, planned, path, out)
        }
        (BlockNesting::List, Value::List(p), Value::List(n)) if p.len() == n.len() => {
            for (i, (p, n)) in p.iter().zip(n).enumerate() {
                visit(p, n, &path.index(i as i64), out);
            }
        }
        (BlockNesting::Map, Value::Map(p), Value::Map(n)) if p.keys().eq(n.keys()) => {
            for ((k, p), n) in p.iter().zip(n.values()) {
                visit(p, n, &path.key(k.clone()), out);
            }
        }
        _ if !same_value(prior, planned) => out.push(path.clone()),
        _ => {}
    }
}

fn has_replace_rules(attributes: &[Attribute], blocks: &[NestedBlock]) -> bool {
    attributes.iter().any(|a| {
        !matches!(a.replace_rule(), ReplaceRule::Never)
            || matches!(a.kind(), AttributeKind::Nested(_, inner) if has_replace_rules(inner, &[]))
    }) || blocks
        .iter()
        .any(|b| b.is_requires_replace() || has_replace_rules(b.block().attributes(), b.block().blocks()))
}

/// The path of the first unknown value inside `value`, if any: a state returned by apply or
/// read must be wholly known.
pub(crate) fn first_unknown(value: &Value, path: &AttributePath) -> Option<AttributePath> {
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::schema::Attribute;

    fn object(entries: &[(&str, Value)]) -> Value {
        Value::Object(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>())
    }

    #[test]
    fn defaults_are_planned_as_if_configured() {
        let schema = Schema::new()
            .attribute(Attribute::string("id").computed())
            .attribute(Attribute::bool("upper").optional().computed().requires_replace().default(Value::Bool(true)));
        let unset = object(&[("id", Value::Null), ("upper", Value::Null)]);

        // Create: the default, not "known after apply".
        let (planned, replace) = default_plan(&schema, &Value::Null, &unset, &unset);
        assert_eq!(planned, object(&[("id", Value::unknown()), ("upper", Value::Bool(true))]));
        assert!(replace.is_empty());

        // Unset after being `false`: Terraform proposes the prior `false`, the default wins
        // and, as the attribute requires replacement, the resource is replaced.
        let prior = object(&[("id", Value::string("x")), ("upper", Value::Bool(false))]);
        let proposed = object(&[("id", Value::string("x")), ("upper", Value::Bool(false))]);
        let (planned, replace) = default_plan(&schema, &prior, &proposed, &unset);
        assert_eq!(replace, vec![AttributePath::attribute("upper")]);
        assert_eq!(planned, object(&[("id", Value::unknown()), ("upper", Value::Bool(true))]));

        // Unset and already the default: no change.
        let prior = object(&[("id", Value::string("x")), ("upper", Value::Bool(true))]);
        let (planned, replace) = default_plan(&schema, &prior, &prior.clone(), &unset);
        assert_eq!((planned, replace), (prior, Vec::new()));
    }

    #[test]
    fn a_default_needs_an_optional_computed_top_level_attribute() {
        let schema = Schema::new().attribute(Attribute::bool("a").optional().default(Value::Bool(true)));
        assert_eq!(schema.check().len(), 1);
    }
}

#[cfg(test)]
mod replace_tests {
    use std::collections::BTreeMap;

    use terrarium_model::{Number, Type};

    use super::*;
    use crate::schema::{Block, NestedBlock};

    fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
        Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn s(text: &str) -> Value {
        Value::string(text)
    }

    fn n(i: i64) -> Value {
        Value::Number(Number::Int(i))
    }

    /// Grows in place, shrinks by replacement.
    fn shrinks(prior: &Value, planned: &Value) -> bool {
        match (prior, planned) {
            (Value::Number(a), Value::Number(b)) => b.as_f64() < a.as_f64(),
            _ => true,
        }
    }

    fn schema() -> Schema {
        Schema::new()
            .attribute(Attribute::string("id").computed())
            .attribute(Attribute::number("size").required().requires_replace_if(shrinks))
            .attribute(Attribute::string("password").optional().write_only())
            .attribute(Attribute::nested(
                "endpoint",
                ObjectNesting::Single,
                vec![Attribute::string("host").required().requires_replace(), Attribute::string("ip").computed()],
            ))
            .block(NestedBlock::set(
                "rule",
                Block::new().attribute(Attribute::number("port").required().requires_replace()),
            ))
            .block(NestedBlock::map(
                "disk",
                Block::new().attribute(Attribute::string("kind").optional().requires_replace()),
            ))
    }

    fn state(size: i64, host: &str, rules: Vec<i64>, disks: &[(&str, &str)]) -> Value {
        obj([
            ("id", s("x")),
            ("size", n(size)),
            ("password", Value::Null),
            ("endpoint", obj([("host", s(host)), ("ip", s("10.0.0.1"))])),
            ("rule", Value::Set(rules.into_iter().map(|p| obj([("port", n(p))])).collect())),
            ("disk", Value::Map(disks.iter().map(|(k, v)| (k.to_string(), obj([("kind", s(v))]))).collect())),
        ])
    }

    #[test]
    fn a_custom_rule_decides_which_changes_replace() {
        let prior = state(10, "a", vec![80], &[]);
        let (_, replace) = default_plan(&schema(), &prior, &state(20, "a", vec![80], &[]), &Value::Null);
        assert!(replace.is_empty(), "growing is in place: {replace:?}");
        let (_, replace) = default_plan(&schema(), &prior, &state(5, "a", vec![80], &[]), &Value::Null);
        assert_eq!(replace, vec![AttributePath::attribute("size")]);
    }

    #[test]
    fn replace_paths_reach_into_nested_values() {
        let prior = state(10, "a", vec![80, 443], &[("root", "ssd")]);

        let (_, replace) =
            default_plan(&schema(), &prior, &state(10, "b", vec![80, 443], &[("root", "ssd")]), &Value::Null);
        assert_eq!(replace, vec![AttributePath::attribute("endpoint").attr("host")]);

        // Set elements cannot be lined up: the set as a whole changed. Order alone is no change.
        let (_, replace) =
            default_plan(&schema(), &prior, &state(10, "a", vec![443, 80], &[("root", "ssd")]), &Value::Null);
        assert!(replace.is_empty(), "{replace:?}");
        let (_, replace) =
            default_plan(&schema(), &prior, &state(10, "a", vec![80, 8080], &[("root", "ssd")]), &Value::Null);
        assert_eq!(replace, vec![AttributePath::attribute("rule")]);

        // Map elements line up by key.
        let (_, replace) =
            default_plan(&schema(), &prior, &state(10, "a", vec![80, 443], &[("root", "hdd")]), &Value::Null);
        assert_eq!(replace, vec![AttributePath::attribute("disk").key("root").attr("kind")]);
        let (_, replace) = default_plan(
            &schema(),
            &prior,
            &state(10, "a", vec![80, 443], &[("root", "ssd"), ("data", "ssd")]),
            &Value::Null,
        );
        assert_eq!(replace, vec![AttributePath::attribute("disk")]);
    }

    #[test]
    fn create_marks_nested_computed_attributes_and_clears_write_only_ones() {
        let config = obj([
            ("id", Value::Null),
            ("size", n(1)),
            ("password", s("secret")),
            ("endpoint", obj([("host", s("a")), ("ip", Value::Null)])),
            ("rule", Value::Set(vec![])),
            ("disk", Value::Map(BTreeMap::new())),
        ]);
        let (planned, replace) = default_plan(&schema(), &Value::Null, &config, &config);
        assert!(replace.is_empty());
        assert!(planned.attr("id").unwrap().is_unknown());
        assert!(planned.attr("endpoint").unwrap().attr("ip").unwrap().is_unknown());
        assert_eq!(planned.attr("password"), Some(&Value::Null), "write-only values are never planned");
    }

    #[test]
    fn a_replacement_is_planned_from_the_configuration() {
        let prior = state(10, "a", vec![], &[]);
        let config = obj([
            ("id", Value::Null),
            ("size", n(10)),
            ("password", Value::Null),
            ("endpoint", obj([("host", s("b")), ("ip", Value::Null)])),
            ("rule", Value::Set(vec![])),
            ("disk", Value::Map(BTreeMap::new())),
        ]);
        let mut proposed = config.clone();
        if let Value::Object(m) = &mut proposed {
            m.insert("id".into(), s("x"));
            m.insert("endpoint".into(), obj([("host", s("b")), ("ip", s("10.0.0.1"))]));
        }
        let (planned, replace) = default_plan(&schema(), &prior, &proposed, &config);
        assert_eq!(replace, vec![AttributePath::attribute("endpoint").attr("host")]);
        assert!(planned.attr("id").unwrap().is_unknown());
        assert!(planned.attr("endpoint").unwrap().attr("ip").unwrap().is_unknown());
    }

    #[test]
    fn unknown_collections_and_types_pass_through() {
        let schema = Schema::new()
            .attribute(Attribute::new("tags", Type::map(Type::String)).optional().computed())
            .block(NestedBlock::list("item", Block::new().attribute(Attribute::string("v").computed())));
        let proposed = obj([("tags", Value::unknown()), ("item", Value::unknown())]);
        let (planned, _) = default_plan(&schema, &Value::Null, &proposed, &proposed);
        assert_eq!(planned, proposed);
    }

    #[test]
    fn first_unknown_finds_the_path() {
        let value = obj([("a", Value::List(vec![n(1), obj([("b", Value::unknown())])]))]);
        assert_eq!(
            first_unknown(&value, &AttributePath::root()),
            Some(AttributePath::attribute("a").index(1).attr("b"))
        );
        assert_eq!(first_unknown(&n(1), &AttributePath::root()), None);
    }
}

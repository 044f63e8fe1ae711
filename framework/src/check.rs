//! What the SDK checks before a result leaves the guest: validators on configurations, and
//! the consistency rules Terraform enforces on plans and applies.
//!
//! Terraform refuses a plan that changes a configured value and an apply result that does
//! not keep a known planned value, with "Provider produced inconsistent final plan" or
//! "... inconsistent result after apply" and nothing about which code was at fault. The SDK
//! checks the same rules first and answers with a diagnostic at the attribute, naming the
//! resource method and the two values.

use std::fmt::Write as _;

use terrarium_model::{AttributePath, Diagnostic, Value};

use crate::plan::{Shape, counterparts, elements};
use crate::same_value;
use crate::validate::Context;

const NULL: Value = Value::Null;

/// Runs every attribute's validators over a configuration, at every depth.
pub fn run_validators(
    shape: Shape<'_>,
    config: &Value,
    path: &AttributePath,
    problems: &mut Vec<Diagnostic>,
) {
    walk_validators(shape, config, path, &mut |v, value, cx| v.validate(value, cx, problems));
}

/// A value a hook validator ([`crate::validate::hook`]) must check: the guest's hook `id`
/// gets the value, the object holding it and its path.
#[derive(Clone, Debug, PartialEq)]
pub struct HookValidation {
    /// The hook.
    pub id: u32,
    /// Known and not null.
    pub value: Value,
    /// The object holding the attribute.
    pub parent: Value,
    /// Where the value is.
    pub path: AttributePath,
}

/// What the hook validators of a configuration must check, at every depth, in the order
/// [`run_validators`] runs validators.
pub fn hook_validations(shape: Shape<'_>, config: &Value) -> Vec<HookValidation> {
    let mut out = Vec::new();
    walk_validators(shape, config, &AttributePath::root(), &mut |v, value, cx| {
        if let Some(id) = v.hook()
            && !value.is_null()
            && !value.contains_unknown()
        {
            out.push(HookValidation {
                id,
                value: value.clone(),
                parent: cx.parent.clone(),
                path: cx.path.clone(),
            });
        }
    });
    out
}

/// Calls `visit` with every attribute's validators and the value they check, at every depth.
fn walk_validators(
    shape: Shape<'_>,
    config: &Value,
    path: &AttributePath,
    visit: &mut dyn FnMut(&dyn crate::validate::Validator, &Value, &Context<'_>),
) {
    if !matches!(config, Value::Object(_)) {
        return;
    }
    for a in shape.attributes {
        let value = config.attr(a.name()).unwrap_or(&NULL);
        let here = path.attr(a.name());
        let cx = Context { path: &here, parent: config, name: a.name() };
        for v in a.validators() {
            visit(v.0.as_ref(), value, &cx);
        }
    }
    for (name, _, inner) in shape.children() {
        let value = config.attr(name).unwrap_or(&NULL);
        let here = path.attr(name);
        match value {
            Value::Object(_) => walk_validators(inner, value, &here, visit),
            Value::List(items) | Value::Set(items) => {
                // A set element has no path of its own: report at the set's path.
                let indexed = matches!(value, Value::List(_));
                for (i, item) in items.iter().enumerate() {
                    let at = if indexed { here.index(i as i64) } else { here.clone() };
                    walk_validators(inner, item, &at, visit);
                }
            }
            Value::Map(m) => {
                for (k, item) in m {
                    walk_validators(inner, item, &here.key(k.clone()), visit);
                }
            }
            _ => {}
        }
    }
}

/// A short rendering of a value for messages (long values are cut).
pub fn show(value: &Value) -> String {
    let mut out = String::new();
    render(value, &mut out);
    if out.chars().count() > 120 {
        let cut: String = out.chars().take(117).collect();
        return format!("{cut}...");
    }
    out
}

fn render(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Unknown(_) => out.push_str("(known after apply)"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => {
            let _ = write!(out, "{s:?}");
        }
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render(item, out);
            }
            out.push(']');
        }
        Value::Map(m) | Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{k} = ");
                render(v, out);
            }
            out.push('}');
        }
        Value::Dynamic(d) => render(&d.value, out),
    }
}

/// Whether a planned value keeps a configured one: equal where the configuration is known,
/// unknown where it is unknown.
fn keeps(config: &Value, planned: &Value) -> bool {
    match (config, planned) {
        (Value::Unknown(_), Value::Unknown(_)) => true,
        (Value::Unknown(_), _) | (_, Value::Unknown(_)) => false,
        (Value::List(c), Value::List(p)) | (Value::Tuple(c), Value::Tuple(p)) => {
            c.len() == p.len() && c.iter().zip(p).all(|(c, p)| keeps(c, p))
        }
        (Value::Set(c), Value::Set(p))
            if config.contains_unknown() || planned.contains_unknown() =>
        {
            // Unknown elements may turn out equal to others: only the count can be checked.
            c.len() == p.len() || config.contains_unknown()
        }
        (Value::Map(c), Value::Map(p)) | (Value::Object(c), Value::Object(p)) => {
            c.len() == p.len() && c.iter().zip(p).all(|((kc, c), (kp, p))| kc == kp && keeps(c, p))
        }
        (Value::Dynamic(c), Value::Dynamic(p)) => c.ty == p.ty && keeps(&c.value, &p.value),
        _ => same_value(config, planned),
    }
}

/// Checks a plan against the configuration: every value the configuration sets is planned
/// as configured, write-only attributes are planned null.
pub fn check_plan(
    shape: Shape<'_>,
    config: &Value,
    planned: &Value,
    path: &AttributePath,
    problems: &mut Vec<(AttributePath, String)>,
) {
    if !matches!(config, Value::Object(_)) || !matches!(planned, Value::Object(_)) {
        if config.is_null() != planned.is_null() && !config.is_unknown() {
            problems.push((
                path.clone(),
                format!(
                    "the configuration has {} but the plan has {}",
                    show(config),
                    show(planned)
                ),
            ));
        }
        return;
    }
    for a in shape.attributes {
        let here = path.attr(a.name());
        let c = config.attr(a.name()).unwrap_or(&NULL);
        let p = planned.attr(a.name()).unwrap_or(&NULL);
        if a.is_write_only() {
            if !p.is_null() {
                problems.push((
                    here,
                    "it is write-only, so its planned value must be null".to_string(),
                ));
            }
            continue;
        }
        if a.is_computed() && c.is_null() {
            // The provider's to choose.
            continue;
        }
        match a.kind() {
            crate::schema::AttributeKind::Nested(..) if !c.is_unknown() && !p.is_unknown() => {
                let inner = Shape {
                    attributes: match a.kind() {
                        crate::schema::AttributeKind::Nested(_, inner) => inner.as_slice(),
                        crate::schema::AttributeKind::Type(_) => &[],
                    },
                    blocks: &[],
                };
                check_elements(inner, c, p, &here, problems);
            }
            _ => {
                if !keeps(c, p) {
                    problems.push((
                        here,
                        format!(
                            "the configuration sets it to {} but the plan has {}",
                            show(c),
                            show(p)
                        ),
                    ));
                }
            }
        }
    }
    for b in shape.blocks {
        let here = path.attr(b.name());
        let c = config.attr(b.name()).unwrap_or(&NULL);
        let p = planned.attr(b.name()).unwrap_or(&NULL);
        if b.is_computed() && crate::plan::absent(c) {
            // A computed block the configuration leaves out: the provider's to choose.
            continue;
        }
        if c.is_unknown() || p.is_unknown() {
            if c.is_unknown() != p.is_unknown() {
                problems.push((
                    here,
                    format!("the configuration has {} but the plan has {}", show(c), show(p)),
                ));
            }
            continue;
        }
        let inner = Shape { attributes: b.block().attributes(), blocks: b.block().blocks() };
        check_elements(inner, c, p, &here, problems);
    }
}

/// Checks the elements of a configured nested value against the planned ones.
fn check_elements(
    inner: Shape<'_>,
    config: &Value,
    planned: &Value,
    path: &AttributePath,
    problems: &mut Vec<(AttributePath, String)>,
) {
    let (ce, pe) = (elements(config), elements(planned));
    if ce.len() != pe.len() || config.is_null() != planned.is_null() {
        problems.push((
            path.clone(),
            format!("the configuration has {} elements but the plan has {}", ce.len(), pe.len()),
        ));
        return;
    }
    let pairs = counterparts(inner, config, planned);
    let map_keys: Vec<&String> = match config {
        Value::Map(m) => m.keys().collect(),
        _ => Vec::new(),
    };
    for (i, (c, pair)) in ce.iter().zip(pairs).enumerate() {
        let at = match config {
            Value::List(_) | Value::Tuple(_) => path.index(i as i64),
            Value::Dynamic(d) if matches!(d.value, Value::Tuple(_)) => path.index(i as i64),
            Value::Map(_) => {
                map_keys.get(i).map_or_else(|| path.clone(), |k| path.key((*k).clone()))
            }
            _ => path.clone(),
        };
        match pair.and_then(|j| pe.get(j)) {
            Some(p) => check_plan(inner, c, p, &at, problems),
            None => problems
                .push((at, format!("the configured element {} is missing from the plan", show(c)))),
        }
    }
}

/// Checks an apply result against the plan: every value the plan knew is kept.
pub fn check_apply(
    planned: &Value,
    new: &Value,
    path: &AttributePath,
    problems: &mut Vec<(AttributePath, String)>,
) {
    let differ = |problems: &mut Vec<(AttributePath, String)>| {
        problems.push((
            path.clone(),
            format!("the plan promised {} but the result has {}", show(planned), show(new)),
        ))
    };
    match (planned, new) {
        (Value::Unknown(_), _) => {}
        (Value::List(p), Value::List(n)) | (Value::Tuple(p), Value::Tuple(n)) => {
            if p.len() != n.len() {
                return differ(problems);
            }
            for (i, (p, n)) in p.iter().zip(n).enumerate() {
                check_apply(p, n, &path.index(i as i64), problems);
            }
        }
        (Value::Map(p), Value::Map(n)) => {
            if !p.keys().eq(n.keys()) {
                return differ(problems);
            }
            for ((k, p), n) in p.iter().zip(n.values()) {
                check_apply(p, n, &path.key(k.clone()), problems);
            }
        }
        (Value::Object(p), Value::Object(n)) => {
            for (k, p) in p {
                check_apply(p, n.get(k).unwrap_or(&NULL), &path.attr(k.clone()), problems);
            }
        }
        (Value::Set(_), Value::Set(_)) if planned.contains_unknown() => {}
        (Value::Dynamic(p), Value::Dynamic(n)) if p.ty == n.ty => {
            check_apply(&p.value, &n.value, path, problems)
        }
        _ if same_value(planned, new) => {}
        _ => differ(problems),
    }
}

/// Turns problems into one error diagnostic each.
pub fn inconsistent(
    problems: Vec<(AttributePath, String)>,
    summary: &str,
    culprit: &str,
    advice: &str,
) -> Vec<Diagnostic> {
    problems
        .into_iter()
        .map(|(path, problem)| {
            Diagnostic::error(
                summary,
                format!("{culprit} produced an inconsistent value for {path}: {problem}. {advice} This is a bug in the provider."),
            )
            .at(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::plan::{default_plan, proposed_new_state};
    use crate::schema::{Attribute, Block, NestedBlock, Schema};

    /// A computed block the configuration leaves out (an empty list from a client that shows
    /// it as a block, null from one that shows it as an attribute) is the provider's to
    /// choose: the plan check accepts the unknown the planner puts there.
    #[test]
    fn the_plan_check_lets_the_provider_choose_a_computed_block() {
        let schema = Schema::new().attribute(Attribute::string("name").required()).block(
            NestedBlock::list(
                "address",
                Block::new().attribute(Attribute::string("ip").computed()),
            )
            .computed(),
        );
        for absent in [Value::List(Vec::new()), Value::Null] {
            let config = Value::Object(BTreeMap::from([
                ("name".to_string(), Value::string("a")),
                ("address".to_string(), absent),
            ]));
            let proposed = proposed_new_state(&schema, &Value::Null, &config);
            let (planned, _) = default_plan(&schema, &Value::Null, &proposed, &config);
            assert!(planned.attr("address").is_some_and(Value::is_unknown), "{planned:?}");
            let mut problems = Vec::new();
            check_plan(
                Shape::of(&schema),
                &config,
                &planned,
                &AttributePath::root(),
                &mut problems,
            );
            assert!(problems.is_empty(), "{problems:?}");
        }
    }
}

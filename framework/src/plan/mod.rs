//! The default plan: what a resource's planned state is before the provider's own plan
//! hook (the Rust SDK's `Resource::plan`) sees it.
//!
//! Terraform proposes a new state (the configuration, with prior values carried over for
//! computed attributes the configuration leaves unset) and asks the provider to plan. The
//! default plan is, at every depth (the resource, each nested object and block):
//!
//! - **defaults** first: optional and computed attributes the configuration leaves unset
//!   get their [default](crate::schema::Attribute::default), as if configured, inside
//!   nested attributes and blocks too (every element of a list, set or map);
//! - **destroy** (no proposed state): nothing to plan;
//! - **create**: the proposal, with every computed attribute that the configuration leaves
//!   null marked unknown ("known after apply");
//! - **replace** (an attribute marked [`requires_replace`](crate::schema::Attribute::requires_replace)
//!   changed, at any depth): planned like a create, from the configuration;
//! - **update**: an object whose configuration changed gets its computed attributes (those
//!   the configuration leaves unset) unknown, except those marked
//!   [`use_state_for_unknown`](crate::schema::Attribute::use_state_for_unknown), which keep
//!   their prior value; objects whose configuration did not change keep every value.
//!   Attributes marked [`unknown_on_update`](crate::schema::Attribute::unknown_on_update)
//!   are unknown on every update;
//! - **no change**: the prior state exactly.
//!
//! A [computed](crate::schema::NestedBlock::computed) nested block the configuration leaves
//! out is planned as a computed attribute is: wholly unknown on create (and replace), kept
//! from the state on an update that leaves its object's configuration unchanged, unknown on
//! one that changes it.
//!
//! Nested objects are matched with their prior selves by position (lists), key (maps) or,
//! in sets, by their configured attributes (every computed attribute left out), the way
//! Terraform correlates set elements. Set matching sorts canonical keys, so it costs
//! O(n log n) for n elements. Write-only attributes are never planned.

mod walk;

use terrarium_model::schema::BlockNesting;
use terrarium_model::{AttributePath, Value};

use crate::same_value;
use crate::schema::{DefaultValue, NestedBlock, ReplaceRule, Schema};
pub(crate) use walk::elements_mut;
pub use walk::{Shape, counterparts, elements, first_unknown};
use walk::{identity_key, map_objects, strip_computed};

/// The code a schema names by number rather than holds ([`DefaultValue::Hook`],
/// [`ReplaceRule::Hook`]): a guest that declares its behaviour as data answers for it. The
/// host asks the guest what the planner asked here, then plans again with the answers.
pub trait Hooks {
    /// The computed default `id` for an object whose configuration (static defaults filled
    /// in) is `parent`; `None` when not known yet, which plans the attribute as unset.
    fn default(&self, id: u32, parent: &Value) -> Option<Value>;

    /// Whether the change from `prior` to `planned` (which differ) of an attribute with the
    /// replacement rule `id` replaces the resource; `None` when not known yet, which plans
    /// no replacement.
    fn replace(&self, id: u32, prior: &Value, planned: &Value) -> Option<bool>;
}

/// Answers no hook: for schemas whose code is all Rust functions.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn default(&self, _: u32, _: &Value) -> Option<Value> {
        None
    }

    fn replace(&self, _: u32, _: &Value, _: &Value) -> Option<bool> {
        None
    }
}

/// The planned state and the attributes that force replacement.
pub fn default_plan(
    schema: &Schema,
    prior: &Value,
    proposed: &Value,
    config: &Value,
) -> (Value, Vec<AttributePath>) {
    default_plan_with(schema, prior, proposed, config, &NoHooks)
}

/// [`default_plan`] for a schema whose code is (partly) hooks, answered by `hooks`.
pub fn default_plan_with(
    schema: &Schema,
    prior: &Value,
    proposed: &Value,
    config: &Value,
    hooks: &dyn Hooks,
) -> (Value, Vec<AttributePath>) {
    let shape = Shape::of(schema);
    if proposed.is_null() {
        return (Value::Null, Vec::new());
    }
    let config_d = fill_defaults_with(shape, config.clone(), hooks);
    let proposed = overlay_defaults(shape, proposed.clone(), config, &config_d);
    // Write-only values are never planned, so they never make a difference either.
    let proposed = clear_write_only(shape, proposed);
    if prior.is_null() {
        return (mark_unknown(shape, proposed), Vec::new());
    }
    let mut replace = Vec::new();
    replace_paths(shape, prior, &proposed, &AttributePath::root(), hooks, &mut replace);
    if !replace.is_empty() {
        // The replacement is a new object: plan it from the configuration alone, as a
        // create would be, rather than from a proposal that carries the old object's values.
        let planned = mark_unknown(shape, clear_write_only(shape, config_d));
        return (planned, replace);
    }
    if same_value(prior, &proposed) {
        return (prior.clone(), Vec::new());
    }
    let mut planned = plan_update(shape, proposed, prior, &config_d);
    if let Value::Object(attrs) = &mut planned {
        for a in shape.attributes.iter().filter(|a| a.is_unknown_on_update()) {
            let set_in_config = config_d.attr(a.name()).is_some_and(|v| !v.is_null());
            if !set_in_config && let Some(v) = attrs.get_mut(a.name()) {
                *v = Value::unknown();
            }
        }
    }
    (planned, Vec::new())
}

const NULL: Value = Value::Null;

/// Fills in defaults where the configuration leaves attributes null, at every depth.
pub fn fill_defaults(shape: Shape<'_>, value: Value) -> Value {
    fill_defaults_with(shape, value, &NoHooks)
}

/// [`fill_defaults`] with computed defaults that are hooks answered by `hooks`.
pub fn fill_defaults_with(shape: Shape<'_>, value: Value, hooks: &dyn Hooks) -> Value {
    let Value::Object(mut object) = value else {
        return value;
    };
    for a in shape.attributes {
        if let Some(DefaultValue::Static(d)) = a.default_value()
            && object.get(a.name()).is_some_and(Value::is_null)
        {
            object.insert(a.name().to_string(), d.clone());
        }
    }
    if shape.attributes.iter().any(|a| {
        matches!(a.default_value(), Some(DefaultValue::Computed(_) | DefaultValue::Hook(_)))
    }) {
        let parent = Value::Object(object.clone());
        for a in shape.attributes {
            if !object.get(a.name()).is_some_and(Value::is_null) {
                continue;
            }
            let computed = match a.default_value() {
                Some(DefaultValue::Computed(compute)) => Some(compute(&parent)),
                Some(DefaultValue::Hook(id)) => hooks.default(*id, &parent),
                _ => None,
            };
            if let Some(v) = computed {
                object.insert(a.name().to_string(), v);
            }
        }
    }
    for (name, nesting, inner) in shape.children() {
        if let Some(v) = object.get_mut(name) {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(nesting, taken, &|o| fill_defaults_with(inner, o, hooks));
        }
    }
    Value::Object(object)
}

/// Puts the defaults filled into the configuration (`config_d`, from `raw_config`) into the
/// proposal, where Terraform proposed the prior value (or null) for an unset attribute.
fn overlay_defaults(
    shape: Shape<'_>,
    proposed: Value,
    raw_config: &Value,
    config_d: &Value,
) -> Value {
    let Value::Object(mut object) = proposed else {
        return proposed;
    };
    for a in shape.attributes.iter().filter(|a| a.default_value().is_some()) {
        if raw_config.attr(a.name()).is_some_and(Value::is_null)
            && let Some(d) = config_d.attr(a.name())
        {
            object.insert(a.name().to_string(), d.clone());
        }
    }
    for (name, _, inner) in shape.children() {
        let (Some(v), Some(raw), Some(filled)) =
            (object.get_mut(name), raw_config.attr(name), config_d.attr(name))
        else {
            continue;
        };
        // Filling defaults keeps every element where it was, so the raw configuration's
        // positions are the filled one's too.
        let pairs = counterparts(inner, v, raw);
        let filled = elements(filled);
        for (element, pair) in elements_mut(v).into_iter().zip(pairs) {
            if let Some(j) = pair
                && let Some(raw_element) = elements(raw).get(j).copied()
                && let Some(filled_element) = filled.get(j).copied()
            {
                let taken = std::mem::replace(element, Value::Null);
                *element = overlay_defaults(inner, taken, raw_element, filled_element);
            }
        }
    }
    Value::Object(object)
}

/// Marks computed attributes that are null unknown, at every depth. In a proposal a
/// computed attribute is null only when neither the configuration nor the prior state has
/// a value for it.
pub fn mark_unknown(shape: Shape<'_>, value: Value) -> Value {
    let Value::Object(mut object) = value else {
        return value;
    };
    for a in shape.attributes {
        if let Some(v) = object.get_mut(a.name())
            && v.is_null()
            && a.is_computed()
        {
            *v = Value::unknown();
        }
    }
    for b in shape.blocks.iter().filter(|b| b.is_computed()) {
        if let Some(v) = object.get_mut(b.name())
            && absent(v)
        {
            *v = Value::unknown();
        }
    }
    for (name, nesting, inner) in shape.children() {
        if let Some(v) = object.get_mut(name) {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(nesting, taken, &|o| mark_unknown(inner, o));
        }
    }
    Value::Object(object)
}

/// Whether a nested block's value has no block in it: null, or an empty list, set or map
/// (how a configuration that leaves a block out reads, and how a computed block that the
/// protocol shows as an attribute reads when unset).
pub fn absent(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => items.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Dynamic(d) => absent(&d.value),
        _ => false,
    }
}

/// Plans an update of one object against its prior self (see the module documentation).
fn plan_update(shape: Shape<'_>, proposed: Value, prior: &Value, config: &Value) -> Value {
    let Value::Object(_) = prior else {
        // A new nested object: nothing to keep.
        return mark_unknown(shape, proposed);
    };
    let Value::Object(mut object) = proposed else {
        return proposed;
    };
    let changed = {
        let now = strip_computed(shape, &Value::Object(object.clone()), true);
        !same_value(&now, &strip_computed(shape, prior, true))
    };
    for a in shape.attributes {
        let Some(v) = object.get_mut(a.name()) else { continue };
        let configured = config.attr(a.name()).unwrap_or(&NULL);
        let before = prior.attr(a.name()).unwrap_or(&NULL);
        if a.is_computed() && configured.is_null() {
            if v.is_null() || changed {
                *v = Value::unknown();
            }
            if v.is_unknown()
                && a.is_use_state_for_unknown()
                && !before.is_null()
                && !before.contains_unknown()
            {
                *v = before.clone();
            }
        } else if let Some((_, inner)) = shape.nested_attribute(a) {
            update_elements(inner, v, before, configured);
        }
    }
    for b in shape.blocks {
        let Some(v) = object.get_mut(b.name()) else { continue };
        if b.is_computed() && absent(config.attr(b.name()).unwrap_or(&NULL)) {
            // The provider's, as a computed attribute is: kept from the state while the
            // object's configuration is unchanged, unknown when it changed or the state has
            // none yet.
            let before = prior.attr(b.name()).unwrap_or(&NULL);
            *v = if before.is_null() || changed { Value::unknown() } else { before.clone() };
            continue;
        }
        let inner = Shape { attributes: b.block().attributes(), blocks: b.block().blocks() };
        update_elements(
            inner,
            v,
            prior.attr(b.name()).unwrap_or(&NULL),
            config.attr(b.name()).unwrap_or(&NULL),
        );
    }
    Value::Object(object)
}

/// Plans each element of a nested value against its prior counterpart.
fn update_elements(inner: Shape<'_>, value: &mut Value, prior: &Value, config: &Value) {
    let prior_pairs = counterparts(inner, value, prior);
    let config_pairs = counterparts(inner, value, config);
    let prior_elements = elements(prior);
    let config_elements = elements(config);
    for ((element, p), c) in elements_mut(value).into_iter().zip(prior_pairs).zip(config_pairs) {
        let before = p.and_then(|i| prior_elements.get(i).copied()).unwrap_or(&NULL);
        let configured = c.and_then(|i| config_elements.get(i).copied()).unwrap_or(&NULL);
        let taken = std::mem::replace(element, Value::Null);
        *element = plan_update(inner, taken, before, configured);
    }
}

/// Write-only attributes are never planned or stored: Terraform requires them null.
pub fn clear_write_only(shape: Shape<'_>, value: Value) -> Value {
    let Value::Object(mut object) = value else {
        return value;
    };
    for a in shape.attributes.iter().filter(|a| a.is_write_only()) {
        if let Some(v) = object.get_mut(a.name()) {
            *v = Value::Null;
        }
    }
    for (name, nesting, inner) in shape.children() {
        if let Some(v) = object.get_mut(name) {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(nesting, taken, &|o| clear_write_only(inner, o));
        }
    }
    Value::Object(object)
}

/// The planned state with the configuration's write-only values put back, for the
/// resource's create and update to see: Terraform plans them null, but sends them in the
/// configuration. Objects are paired by position (lists) and key (maps, objects); set
/// elements cannot be paired and keep null.
pub fn fill_write_only(shape: Shape<'_>, planned: Value, config: &Value) -> Value {
    let Value::Object(mut object) = planned else {
        return planned;
    };
    for a in shape.attributes.iter().filter(|a| a.is_write_only()) {
        if let (Some(v), Some(c)) = (object.get_mut(a.name()), config.attr(a.name())) {
            *v = c.clone();
        }
    }
    for (name, _, inner) in shape.children() {
        let (Some(v), Some(c)) = (object.get_mut(name), config.attr(name)) else { continue };
        let taken = std::mem::replace(v, Value::Null);
        *v = match (taken, c) {
            (o @ Value::Object(_), c) => fill_write_only(inner, o, c),
            (Value::List(items), Value::List(configured)) => Value::List(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| match configured.get(i) {
                        Some(c) => fill_write_only(inner, item, c),
                        None => item,
                    })
                    .collect(),
            ),
            (Value::Map(m), Value::Map(configured)) => Value::Map(
                m.into_iter()
                    .map(|(k, item)| {
                        let item = match configured.get(&k) {
                            Some(c) => fill_write_only(inner, item, c),
                            None => item,
                        };
                        (k, item)
                    })
                    .collect(),
            ),
            (other, _) => other,
        };
    }
    Value::Object(object)
}

/// The configuration that would produce `state`: the state with computed-only attributes
/// (computed and not optional) null at every depth, and write-only ones null too. The
/// default of the Rust SDK's `Resource::generate_config`, for
/// `terraform plan -generate-config-out`.
///
/// ```
/// use terrarium_framework::schema::{Attribute, Schema};
/// use terrarium_framework::plan::generated_config;
/// use terrarium_model::Value;
/// let schema = Schema::new()
///     .attribute(Attribute::string("id").computed())
///     .attribute(Attribute::string("name").required());
/// let object = |id: Value| Value::Object([("id".into(), id), ("name".into(), Value::string("web"))].into());
/// let config = generated_config(&schema, object(Value::string("x1")));
/// assert_eq!(config, object(Value::Null));
/// ```
pub fn generated_config(schema: &Schema, state: Value) -> Value {
    config_of(Shape::of(schema), state)
}

fn config_of(shape: Shape<'_>, state: Value) -> Value {
    let Value::Object(mut object) = state else {
        return state;
    };
    for a in shape
        .attributes
        .iter()
        .filter(|a| (a.is_computed() && !a.is_optional()) || a.is_write_only())
    {
        if let Some(v) = object.get_mut(a.name()) {
            *v = Value::Null;
        }
    }
    for b in shape.blocks.iter().filter(|b| b.is_computed()) {
        if let Some(v) = object.get_mut(b.name()) {
            *v = empty_blocks(b.nesting());
        }
    }
    for (name, nesting, inner) in shape.children() {
        if let Some(v) = object.get_mut(name) {
            let taken = std::mem::replace(v, Value::Null);
            *v = map_objects(nesting, taken, &|o| config_of(inner, o));
        }
    }
    Value::Object(object)
}

/// How a configuration without a block of this nesting reads.
fn empty_blocks(nesting: BlockNesting) -> Value {
    match nesting {
        BlockNesting::List => Value::List(Vec::new()),
        BlockNesting::Set => Value::Set(Vec::new()),
        BlockNesting::Map => Value::Map(std::collections::BTreeMap::new()),
        BlockNesting::Single | BlockNesting::Group => Value::Null,
    }
}

/// Collects the paths of replace-forcing attributes whose value changed.
fn replace_paths(
    shape: Shape<'_>,
    prior: &Value,
    planned: &Value,
    path: &AttributePath,
    hooks: &dyn Hooks,
    out: &mut Vec<AttributePath>,
) {
    for a in shape.attributes {
        let here = path.attr(a.name());
        let before = prior.attr(a.name()).unwrap_or(&NULL);
        let after = planned.attr(a.name()).unwrap_or(&NULL);
        if forces_replacement(a.replace_rule(), before, after, hooks) {
            out.push(here);
        } else if let Some((nesting, inner)) = shape.nested_attribute(a)
            && has_replace_rules(inner)
        {
            descend(nesting, inner, before, after, &here, hooks, out);
        }
    }
    for b in shape.blocks {
        let here = path.attr(b.name());
        let before = prior.attr(b.name()).unwrap_or(&NULL);
        let after = planned.attr(b.name()).unwrap_or(&NULL);
        let rule = if b.is_requires_replace() { ReplaceRule::Always } else { ReplaceRule::Never };
        let inner = Shape { attributes: b.block().attributes(), blocks: b.block().blocks() };
        if forces_replacement(&rule, before, after, hooks) {
            out.push(here);
        } else if has_replace_rules(inner) {
            descend(b.nesting(), inner, before, after, &here, hooks, out);
        }
    }
}

fn forces_replacement(
    rule: &ReplaceRule,
    before: &Value,
    after: &Value,
    hooks: &dyn Hooks,
) -> bool {
    match rule {
        ReplaceRule::Never => false,
        ReplaceRule::Always => !same_value(before, after),
        ReplaceRule::If(decide) => !same_value(before, after) && decide(before, after),
        ReplaceRule::Hook(id) => {
            !same_value(before, after) && hooks.replace(*id, before, after).unwrap_or(false)
        }
    }
}

/// Compares nested objects pairwise where they line up (list by index, map by key, single
/// directly). Set elements are matched by their configured attributes: an element added or
/// removed (any configured change makes one) changes the set as a whole, and a set element
/// has no path of its own, so the set's path is reported. Computed values alone are no
/// change. Lists or maps whose elements do not line up changed as a whole.
fn descend(
    nesting: BlockNesting,
    inner: Shape<'_>,
    prior: &Value,
    planned: &Value,
    path: &AttributePath,
    hooks: &dyn Hooks,
    out: &mut Vec<AttributePath>,
) {
    // A list or map of blocks holding a `dynamic` value is a tuple or an object with its
    // type: its blocks line up as a list's or a map's do.
    let (prior, planned) = (within(nesting, prior), within(nesting, planned));
    match (nesting, prior, planned) {
        (BlockNesting::Single | BlockNesting::Group, Value::Object(_), Value::Object(_)) => {
            replace_paths(inner, prior, planned, path, hooks, out)
        }
        (
            BlockNesting::List,
            Value::List(p) | Value::Tuple(p),
            Value::List(n) | Value::Tuple(n),
        ) if p.len() == n.len() => {
            for (i, (p, n)) in p.iter().zip(n).enumerate() {
                replace_paths(inner, p, n, &path.index(i as i64), hooks, out);
            }
        }
        (BlockNesting::Map, Value::Map(p) | Value::Object(p), Value::Map(n) | Value::Object(n))
            if p.keys().eq(n.keys()) =>
        {
            for ((k, p), n) in p.iter().zip(n.values()) {
                replace_paths(inner, p, n, &path.key(k.clone()), hooks, out);
            }
        }
        (BlockNesting::Set, Value::Set(p), Value::Set(n)) => {
            let keys = |items: &[Value]| {
                let mut keys: Vec<String> = items.iter().map(|v| identity_key(inner, v)).collect();
                keys.sort_unstable();
                keys
            };
            if p.len() != n.len() || keys(p) != keys(n) {
                out.push(path.clone());
            }
        }
        _ if !same_value(prior, planned) => out.push(path.clone()),
        _ => {}
    }
}

/// A list's or map's blocks as [`descend`] lines them up: the tuple or object inside a
/// list or map of blocks typed `dynamic`.
fn within(nesting: BlockNesting, value: &Value) -> &Value {
    match (nesting, value) {
        (BlockNesting::List | BlockNesting::Map, Value::Dynamic(d)) => &d.value,
        _ => value,
    }
}

fn has_replace_rules(shape: Shape<'_>) -> bool {
    shape.attributes.iter().any(|a| !matches!(a.replace_rule(), ReplaceRule::Never))
        || shape.blocks.iter().any(NestedBlock::is_requires_replace)
        || shape.children().any(|(_, _, inner)| has_replace_rules(inner))
}

/// What Terraform proposes: the configuration, with the prior value of every computed
/// attribute the configuration leaves null, nested objects matched to their prior selves
/// (lists by position, maps by key, sets by their non-computed attributes).
///
/// This is Terraform's part of a plan (`objchange.ProposedNew`), not the provider's: test
/// harnesses and the Pulumi front end, which play Terraform, compute it here.
pub fn proposed_new_state(schema: &Schema, prior: &Value, config: &Value) -> Value {
    propose(Shape::of(schema), prior, config)
}

fn propose(shape: Shape<'_>, prior: &Value, config: &Value) -> Value {
    let (Value::Object(c), Value::Object(_)) = (config, prior) else {
        return config.clone();
    };
    let mut out = c.clone();
    for a in shape.attributes {
        if a.is_computed()
            && c.get(a.name()).is_some_and(Value::is_null)
            && let Some(p) = prior.attr(a.name())
        {
            out.insert(a.name().to_string(), p.clone());
        }
    }
    for b in shape.blocks.iter().filter(|b| b.is_computed()) {
        if c.get(b.name()).is_none_or(absent)
            && let Some(p) = prior.attr(b.name())
        {
            out.insert(b.name().to_string(), p.clone());
        }
    }
    for (name, _, inner) in shape.children() {
        let (Some(v), Some(p)) = (out.get_mut(name), prior.attr(name)) else { continue };
        if v.is_null() {
            continue;
        }
        let pairs = counterparts(inner, v, p);
        let prior_elements = elements(p);
        for (item, pair) in elements_mut(v).into_iter().zip(pairs) {
            if let Some(before) = pair.and_then(|j| prior_elements.get(j).copied()) {
                *item = propose(inner, before, item);
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::schema::Attribute;

    fn object(entries: &[(&str, Value)]) -> Value {
        Value::Object(
            entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
        )
    }

    #[test]
    fn defaults_are_planned_as_if_configured() {
        let schema = Schema::new().attribute(Attribute::string("id").computed()).attribute(
            Attribute::bool("upper")
                .optional()
                .computed()
                .requires_replace()
                .default(Value::Bool(true)),
        );
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
        let schema =
            Schema::new().attribute(Attribute::bool("a").optional().default(Value::Bool(true)));
        assert_eq!(schema.check().len(), 1);
    }
}

#[cfg(test)]
mod replace_tests {
    use std::collections::BTreeMap;

    use terrarium_model::schema::ObjectNesting;
    use terrarium_model::{Number, Type};

    use super::*;
    use crate::schema::{Attribute, Block, NestedBlock};

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
                vec![
                    Attribute::string("host").required().requires_replace(),
                    Attribute::string("ip").computed(),
                ],
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
            (
                "disk",
                Value::Map(
                    disks.iter().map(|(k, v)| (k.to_string(), obj([("kind", s(v))]))).collect(),
                ),
            ),
        ])
    }

    #[test]
    fn a_custom_rule_decides_which_changes_replace() {
        let prior = state(10, "a", vec![80], &[]);
        let (_, replace) =
            default_plan(&schema(), &prior, &state(20, "a", vec![80], &[]), &Value::Null);
        assert!(replace.is_empty(), "growing is in place: {replace:?}");
        let (_, replace) =
            default_plan(&schema(), &prior, &state(5, "a", vec![80], &[]), &Value::Null);
        assert_eq!(replace, vec![AttributePath::attribute("size")]);
    }

    /// A list of blocks holding a `dynamic` value is a tuple with its type: the attribute
    /// that changed inside a block is the path, as in a list.
    #[test]
    fn replace_paths_reach_into_blocks_typed_dynamic() {
        use terrarium_model::DynamicValue;
        let schema = Schema::new().block(NestedBlock::list(
            "nic",
            Block::new()
                .attribute(Attribute::string("network").required().requires_replace())
                .attribute(Attribute::new("meta", Type::Dynamic).optional()),
        ));
        let element = Type::object([("network", Type::String), ("meta", Type::Number)]);
        let nic = |network: &str| {
            obj([(
                "nic",
                Value::Dynamic(Box::new(DynamicValue {
                    ty: Type::Tuple(vec![element.clone()]),
                    value: Value::Tuple(vec![obj([
                        ("network", s(network)),
                        ("meta", Value::Number(Number::Int(1))),
                    ])]),
                })),
            )])
        };
        let (_, replace) = default_plan(&schema, &nic("blue"), &nic("green"), &nic("green"));
        assert_eq!(replace, vec![AttributePath::attribute("nic").index(0).attr("network")]);
        let (_, replace) = default_plan(&schema, &nic("blue"), &nic("blue"), &nic("blue"));
        assert!(replace.is_empty(), "{replace:?}");
    }

    #[test]
    fn replace_paths_reach_into_nested_values() {
        let prior = state(10, "a", vec![80, 443], &[("root", "ssd")]);

        let (_, replace) = default_plan(
            &schema(),
            &prior,
            &state(10, "b", vec![80, 443], &[("root", "ssd")]),
            &Value::Null,
        );
        assert_eq!(replace, vec![AttributePath::attribute("endpoint").attr("host")]);

        // Set elements cannot be lined up: the set as a whole changed. Order alone is no change.
        let (_, replace) = default_plan(
            &schema(),
            &prior,
            &state(10, "a", vec![443, 80], &[("root", "ssd")]),
            &Value::Null,
        );
        assert!(replace.is_empty(), "{replace:?}");
        let (_, replace) = default_plan(
            &schema(),
            &prior,
            &state(10, "a", vec![80, 8080], &[("root", "ssd")]),
            &Value::Null,
        );
        assert_eq!(replace, vec![AttributePath::attribute("rule")]);

        // Map elements line up by key.
        let (_, replace) = default_plan(
            &schema(),
            &prior,
            &state(10, "a", vec![80, 443], &[("root", "hdd")]),
            &Value::Null,
        );
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
        assert_eq!(
            planned.attr("password"),
            Some(&Value::Null),
            "write-only values are never planned"
        );
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
            .block(NestedBlock::list(
                "item",
                Block::new().attribute(Attribute::string("v").computed()),
            ));
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

    /// A computed block is planned as a computed attribute is (protocol 6.11): unknown on
    /// create whether the client shows it as a block (an empty list in the configuration) or
    /// as an attribute (null), kept from the state while the configuration is unchanged,
    /// unknown when it changed; Terraform's proposal carries the prior blocks; generated
    /// configuration leaves it out. (check.rs tests that the plan check lets the provider
    /// choose it.)
    #[test]
    fn a_computed_block_is_planned_like_a_computed_attribute() {
        let schema = Schema::new()
            .attribute(Attribute::string("name").required())
            .attribute(Attribute::string("note").optional())
            .block(
                NestedBlock::list(
                    "address",
                    Block::new()
                        .attribute(Attribute::string("ip").computed())
                        .attribute(Attribute::number("port").computed()),
                )
                .computed(),
            );
        for absent in [Value::List(Vec::new()), Value::Null] {
            let config = obj([("name", s("a")), ("note", Value::Null), ("address", absent)]);
            let proposed = proposed_new_state(&schema, &Value::Null, &config);
            let (planned, replace) = default_plan(&schema, &Value::Null, &proposed, &config);
            assert!(replace.is_empty());
            assert!(planned.attr("address").unwrap().is_unknown(), "{planned:?}");
        }

        let addresses = Value::List(vec![obj([("ip", s("10.0.0.1")), ("port", n(443))])]);
        let prior = obj([("name", s("a")), ("note", Value::Null), ("address", addresses.clone())]);
        for absent in [Value::List(Vec::new()), Value::Null] {
            // Unchanged: Terraform proposes the prior blocks, and the plan is the state.
            let config =
                obj([("name", s("a")), ("note", Value::Null), ("address", absent.clone())]);
            let proposed = proposed_new_state(&schema, &prior, &config);
            assert_eq!(proposed.attr("address"), Some(&addresses));
            let (planned, _) = default_plan(&schema, &prior, &proposed, &config);
            assert_eq!(planned, prior);

            // Changed: the provider decides the blocks again at apply.
            let config = obj([("name", s("a")), ("note", s("new")), ("address", absent)]);
            let proposed = proposed_new_state(&schema, &prior, &config);
            let (planned, _) = default_plan(&schema, &prior, &proposed, &config);
            assert!(planned.attr("address").unwrap().is_unknown(), "{planned:?}");
            assert_eq!(planned.attr("note"), Some(&s("new")));
        }

        let config = generated_config(&schema, prior.clone());
        assert_eq!(config.attr("address"), Some(&Value::List(Vec::new())));
        assert_eq!(config.attr("name"), Some(&s("a")));
    }
}

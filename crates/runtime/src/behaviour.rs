//! The behaviour a component declares (WIT `behaviour`), in the framework's neutral form,
//! within the bounds of what the host does for a component at every start.
//!
//! Declared behaviour runs on the host, outside the guest's memory and time limits: a
//! component could otherwise declare patterns whose automata take gigabytes, or lists of
//! allowed values that do. So the declaration is counted before it is converted, its
//! patterns are compiled (and measured) against a budget, and the whole load has the
//! component's time limit. A component over a bound does not start; the error names the
//! bound and its limit (docs/security.md, "Host-side work is bounded").

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use terrarium_framework::declared::{
    AttributeBehaviour, DeclaredDefault, DeclaredReplace, DeclaredValidator, SchemaBehaviour,
};
use terrarium_framework::validate::{PatternError, pattern_memory};

use super::bindings::{ConvertError, value_from_wit, wit, wit_behaviour as wb};
use crate::bindings::number_from_wit;

/// The most attributes and nested blocks one component may declare behaviour for, in all
/// its schemas together.
pub const MAX_DECLARED_PATHS: usize = 100_000;
/// The most validators one component may declare, in all its schemas together.
pub const MAX_DECLARED_VALIDATORS: usize = 100_000;
/// The most regular-expression patterns one component may declare.
pub const MAX_DECLARED_PATTERNS: usize = 2_000;
/// The most bytes of pattern text one component may declare.
pub const MAX_PATTERN_BYTES: usize = 256 << 10;
/// The most memory one component's patterns may take compiled, together (less when the
/// component's memory limit is less). One pattern may take at most
/// [`terrarium_framework::validate::PATTERN_SIZE_LIMIT`].
pub const MAX_PATTERN_MEMORY: usize = 32 << 20;
/// The most values the `one-of` validators of one component may list, together.
pub const MAX_ONE_OF_VALUES: usize = 100_000;
/// The most bytes the `one-of` validators of one component may list, together.
pub const MAX_ONE_OF_BYTES: usize = 1 << 20;
/// The most nodes the default values of one component may have, together.
pub const MAX_DEFAULT_NODES: usize = 100_000;
/// The most bytes of text (names, paths, patterns, allowed values, descriptions, strings in
/// defaults) one component's declared behaviour may hold.
pub const MAX_BEHAVIOUR_BYTES: usize = 8 << 20;

/// What loading a component's behaviour may use: the component's own limits.
#[derive(Clone, Copy, Debug)]
pub struct BehaviourLimits {
    /// The component's memory limit for one instance; the patterns' compiled size counts
    /// against it (and against [`MAX_PATTERN_MEMORY`]).
    pub memory: usize,
    /// The component's time limit for one call, which the host's work of loading the
    /// behaviour has as well.
    pub time: Duration,
}

/// A declaration over one of the bounds above, or a load over the time limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoundError {
    #[error(
        "the declared behaviour has {found} {what}, over this host's limit of {limit}; \
         declare less (a custom validator hook checks what a declaration cannot)"
    )]
    Count { what: &'static str, found: usize, limit: usize },
    #[error(
        "the declared pattern {pattern:?} (of {path:?}) {problem}; the limit for one pattern is \
         {limit} bytes compiled: simplify it, or check the value in a custom validator hook"
    )]
    Pattern { pattern: String, path: String, problem: String, limit: usize },
    #[error(
        "the declared patterns compile to more than {limit} bytes together (the limit for one \
         component: {max} bytes, or its memory limit if less); declare fewer or simpler \
         patterns, or check values in a custom validator hook",
        max = MAX_PATTERN_MEMORY
    )]
    PatternMemory { limit: usize },
    #[error(
        "loading the declared behaviour took longer than the provider's time limit of {limit:?}; \
         declare less, or grant a longer timeout"
    )]
    Time { limit: Duration },
}

impl From<BoundError> for ConvertError {
    fn from(e: BoundError) -> Self {
        ConvertError::Other(e.to_string())
    }
}

/// Every schema's declared behaviour, by kind and name as in `get-schema`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderBehaviour {
    pub provider: SchemaBehaviour,
    pub resources: BTreeMap<String, SchemaBehaviour>,
    pub data_sources: BTreeMap<String, SchemaBehaviour>,
    pub ephemeral_resources: BTreeMap<String, SchemaBehaviour>,
    pub list_resources: BTreeMap<String, SchemaBehaviour>,
    pub actions: BTreeMap<String, SchemaBehaviour>,
}

/// The behaviour `b` declares, once it is within the bounds: counted first, then
/// converted, then its patterns compiled against the budget `limits` leave, all before
/// `limits.time` has passed since `started`.
pub fn provider_behaviour_from_wit(
    b: wb::ProviderBehaviour,
    limits: BehaviourLimits,
    started: Instant,
) -> Result<ProviderBehaviour, ConvertError> {
    count(&b)?;
    let behaviour = ProviderBehaviour {
        provider: schema_behaviour(b.provider)
            .map_err(|e| ConvertError::Other(format!("behaviour of the provider: {e}")))?,
        resources: named("resource", b.resources)?,
        data_sources: named("data source", b.data_sources)?,
        ephemeral_resources: named("ephemeral resource", b.ephemeral_resources)?,
        list_resources: named("list resource", b.list_resources)?,
        actions: named("action", b.actions)?,
    };
    check_patterns(&behaviour, limits, started)?;
    Ok(behaviour)
}

/// Counts what `b` declares against the fixed bounds, before any of it is converted.
fn count(b: &wb::ProviderBehaviour) -> Result<(), BoundError> {
    #[derive(Default)]
    struct Tally {
        paths: usize,
        validators: usize,
        patterns: usize,
        pattern_bytes: usize,
        one_of_values: usize,
        one_of_bytes: usize,
        default_nodes: usize,
        bytes: usize,
    }
    fn strings(list: &[String]) -> usize {
        list.iter().map(String::len).sum()
    }
    fn value(t: &mut Tally, v: &wit::Value) {
        t.default_nodes += v.nodes.len();
        for node in &v.nodes {
            t.bytes += match node {
                wit::Node::String(s) => s.len(),
                wit::Node::Map(entries) | wit::Node::Object(entries) => {
                    entries.iter().map(|e| e.key.len()).sum()
                }
                _ => 0,
            };
        }
    }
    fn schema(t: &mut Tally, s: &wb::SchemaBehaviour) {
        t.paths += s.attributes.len() + s.replace_blocks.len();
        t.bytes += s.replace_blocks.iter().map(|p| strings(p)).sum::<usize>();
        for a in &s.attributes {
            t.bytes += strings(&a.path);
            if let Some(wb::DefaultValue::Value(v)) = &a.default {
                value(t, v);
            }
            t.validators += a.validators.len();
            for v in &a.validators {
                t.bytes += match v {
                    wb::Validator::Pattern(re) => {
                        t.patterns += 1;
                        t.pattern_bytes += re.len();
                        re.len()
                    }
                    wb::Validator::OneOf(allowed) => {
                        t.one_of_values += allowed.len();
                        t.one_of_bytes += strings(allowed);
                        strings(allowed)
                    }
                    wb::Validator::ConflictsWith(n)
                    | wb::Validator::AlsoRequires(n)
                    | wb::Validator::ExactlyOneOf(n)
                    | wb::Validator::AtLeastOneOf(n) => strings(n),
                    wb::Validator::Custom(c) => c.description.len(),
                    _ => 0,
                };
            }
        }
    }
    let mut t = Tally::default();
    schema(&mut t, &b.provider);
    for list in
        [&b.resources, &b.data_sources, &b.ephemeral_resources, &b.list_resources, &b.actions]
    {
        for n in list {
            t.bytes += n.name.len();
            schema(&mut t, &n.behaviour);
        }
    }
    for (what, found, limit) in [
        ("attribute and block declarations", t.paths, MAX_DECLARED_PATHS),
        ("validators", t.validators, MAX_DECLARED_VALIDATORS),
        ("patterns", t.patterns, MAX_DECLARED_PATTERNS),
        ("bytes of pattern text", t.pattern_bytes, MAX_PATTERN_BYTES),
        ("one-of values", t.one_of_values, MAX_ONE_OF_VALUES),
        ("bytes of one-of values", t.one_of_bytes, MAX_ONE_OF_BYTES),
        ("nodes of default values", t.default_nodes, MAX_DEFAULT_NODES),
        ("bytes of text", t.bytes, MAX_BEHAVIOUR_BYTES),
    ] {
        if found > limit {
            return Err(BoundError::Count { what, found, limit });
        }
    }
    Ok(())
}

/// Compiles every declared pattern as the validators will, each within the framework's
/// limit for one pattern and all together within the component's budget, and within the
/// time limit.
fn check_patterns(
    behaviour: &ProviderBehaviour,
    limits: BehaviourLimits,
    started: Instant,
) -> Result<(), BoundError> {
    let budget = MAX_PATTERN_MEMORY.min(limits.memory);
    let mut used = 0usize;
    let mut seen = std::collections::HashSet::new();
    let schemas = std::iter::once(&behaviour.provider).chain(
        [
            &behaviour.resources,
            &behaviour.data_sources,
            &behaviour.ephemeral_resources,
            &behaviour.list_resources,
            &behaviour.actions,
        ]
        .into_iter()
        .flat_map(BTreeMap::values),
    );
    for schema in schemas {
        for a in &schema.attributes {
            for v in &a.validators {
                let DeclaredValidator::Pattern(re) = v else { continue };
                // The same text compiles to the same automaton: measure it once.
                if !seen.insert(re.as_str()) {
                    continue;
                }
                if started.elapsed() > limits.time {
                    return Err(BoundError::Time { limit: limits.time });
                }
                match pattern_memory(re) {
                    Ok(bytes) => used = used.saturating_add(bytes),
                    Err(PatternError::TooBig { limit }) => {
                        return Err(BoundError::Pattern {
                            pattern: re.chars().take(80).collect(),
                            path: a.path.join("."),
                            problem: "compiles to more than the limit".into(),
                            limit,
                        });
                    }
                    // The validator reports an invalid pattern as a provider bug when it runs.
                    Err(PatternError::Invalid(_)) => {}
                }
                if used > budget {
                    return Err(BoundError::PatternMemory { limit: budget });
                }
            }
        }
    }
    Ok(())
}

fn named(
    kind: &str,
    list: Vec<wb::NamedBehaviour>,
) -> Result<BTreeMap<String, SchemaBehaviour>, ConvertError> {
    let mut out = BTreeMap::new();
    for n in list {
        let behaviour = schema_behaviour(n.behaviour)
            .map_err(|e| ConvertError::Other(format!("behaviour of {kind} {:?}: {e}", n.name)))?;
        if out.insert(n.name.clone(), behaviour).is_some() {
            return Err(ConvertError::Other(format!(
                "the behaviour of {kind} {:?} is declared twice",
                n.name
            )));
        }
    }
    Ok(out)
}

fn schema_behaviour(b: wb::SchemaBehaviour) -> Result<SchemaBehaviour, ConvertError> {
    Ok(SchemaBehaviour {
        attributes: b.attributes.into_iter().map(attribute).collect::<Result<_, _>>()?,
        replace_blocks: b.replace_blocks,
        plan_hook: b.plan_hook,
    })
}

fn attribute(a: wb::AttributeBehaviour) -> Result<AttributeBehaviour, ConvertError> {
    let path = a.path.join(".");
    let default = match a.default {
        None => None,
        Some(wb::DefaultValue::Value(v)) => Some(DeclaredDefault::Value(
            value_from_wit(v)
                .map_err(|e| ConvertError::Other(format!("the default of {path:?}: {e}")))?,
        )),
        Some(wb::DefaultValue::Computed(id)) => Some(DeclaredDefault::Hook(id)),
    };
    Ok(AttributeBehaviour {
        path: a.path,
        default,
        use_state_for_unknown: a.use_state_for_unknown,
        unknown_on_update: a.unknown_on_update,
        requires_replace: match a.requires_replace {
            wb::ReplaceRule::Never => DeclaredReplace::Never,
            wb::ReplaceRule::Always => DeclaredReplace::Always,
            wb::ReplaceRule::WhenGuestSays(id) => DeclaredReplace::Hook(id),
        },
        validators: a.validators.into_iter().map(validator).collect(),
    })
}

fn validator(v: wb::Validator) -> DeclaredValidator {
    match v {
        wb::Validator::Length(r) => DeclaredValidator::Length(r.min, r.max),
        wb::Validator::Pattern(re) => DeclaredValidator::Pattern(re),
        wb::Validator::OneOf(allowed) => DeclaredValidator::OneOf(allowed),
        wb::Validator::Range(r) => {
            DeclaredValidator::Range(r.min.map(number_from_wit), r.max.map(number_from_wit))
        }
        wb::Validator::Size(r) => DeclaredValidator::Size(r.min, r.max),
        wb::Validator::ConflictsWith(n) => DeclaredValidator::ConflictsWith(n),
        wb::Validator::AlsoRequires(n) => DeclaredValidator::AlsoRequires(n),
        wb::Validator::ExactlyOneOf(n) => DeclaredValidator::ExactlyOneOf(n),
        wb::Validator::AtLeastOneOf(n) => DeclaredValidator::AtLeastOneOf(n),
        wb::Validator::Custom(c) => DeclaredValidator::Hook(c.id, c.description),
    }
}

#[cfg(test)]
mod tests {
    use terrarium_model::{Number, Value};

    use super::*;
    use crate::bindings::{value_to_wit, wit};

    const LIMITS: BehaviourLimits =
        BehaviourLimits { memory: 512 << 20, time: Duration::from_secs(300) };

    fn attribute_named(path: &[&str]) -> wb::AttributeBehaviour {
        wb::AttributeBehaviour {
            path: path.iter().map(|s| s.to_string()).collect(),
            default: None,
            use_state_for_unknown: false,
            unknown_on_update: false,
            requires_replace: wb::ReplaceRule::Never,
            validators: Vec::new(),
        }
    }

    fn schema(attributes: Vec<wb::AttributeBehaviour>) -> wb::SchemaBehaviour {
        wb::SchemaBehaviour { attributes, replace_blocks: Vec::new(), plan_hook: false }
    }

    fn provider(resources: Vec<wb::NamedBehaviour>) -> wb::ProviderBehaviour {
        wb::ProviderBehaviour {
            provider: schema(Vec::new()),
            resources,
            data_sources: Vec::new(),
            ephemeral_resources: Vec::new(),
            list_resources: Vec::new(),
            actions: Vec::new(),
        }
    }

    #[test]
    fn declared_behaviour_arrives_in_neutral_form() {
        let mut port = attribute_named(&["rule", "port"]);
        port.default = Some(wb::DefaultValue::Value(value_to_wit(&Value::Number(80.into()))));
        port.requires_replace = wb::ReplaceRule::WhenGuestSays(4);
        port.validators = vec![
            wb::Validator::Range(wb::NumberRange {
                min: Some(wit::Number::Decimal("0.5".into())),
                max: None,
            }),
            wb::Validator::Custom(wb::CustomValidator { id: 2, description: "even".into() }),
        ];
        let converted = provider_behaviour_from_wit(
            provider(vec![wb::NamedBehaviour {
                name: "x_thing".into(),
                behaviour: schema(vec![port]),
            }]),
            LIMITS,
            Instant::now(),
        )
        .unwrap();
        let port = &converted.resources["x_thing"].attributes[0];
        assert_eq!(port.default, Some(DeclaredDefault::Value(Value::Number(80.into()))));
        assert_eq!(port.requires_replace, DeclaredReplace::Hook(4));
        assert_eq!(
            port.validators,
            vec![
                DeclaredValidator::Range(Number::parse("0.5"), None),
                DeclaredValidator::Hook(2, "even".into())
            ]
        );
    }

    fn with_validators(validators: Vec<wb::Validator>) -> wb::ProviderBehaviour {
        let label = wb::AttributeBehaviour { validators, ..attribute_named(&["label"]) };
        provider(vec![wb::NamedBehaviour {
            name: "x_thing".into(),
            behaviour: schema(vec![label]),
        }])
    }

    #[test]
    fn a_declaration_over_a_count_bound_is_refused_naming_the_bound() {
        let paths = (0..=MAX_DECLARED_PATHS).map(|_| attribute_named(&["a"])).collect();
        let many =
            provider(vec![wb::NamedBehaviour { name: "x_thing".into(), behaviour: schema(paths) }]);
        let err = provider_behaviour_from_wit(many, LIMITS, Instant::now()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "the declared behaviour has {} attribute and block declarations, over this host's \
                 limit of {MAX_DECLARED_PATHS}; declare less (a custom validator hook checks what a \
                 declaration cannot)",
                MAX_DECLARED_PATHS + 1
            )
        );
        let long = "x".repeat(MAX_PATTERN_BYTES / 2 + 1);
        let patterns = with_validators(vec![wb::Validator::Pattern(long); 2]);
        let err = provider_behaviour_from_wit(patterns, LIMITS, Instant::now()).unwrap_err();
        assert!(
            err.to_string().contains("bytes of pattern text, over this host's limit of 262144")
        );
    }

    #[test]
    fn patterns_count_against_the_memory_limit_and_the_time_limit() {
        let patterns = || with_validators(vec![wb::Validator::Pattern("^[a-z]+$".into())]);
        let small = BehaviourLimits { memory: 16, ..LIMITS };
        let err = provider_behaviour_from_wit(patterns(), small, Instant::now()).unwrap_err();
        assert!(err.to_string().contains("compile to more than 16 bytes together"), "{err}");
        let no_time = BehaviourLimits { time: Duration::ZERO, ..LIMITS };
        let started = Instant::now() - Duration::from_millis(10);
        let err = provider_behaviour_from_wit(patterns(), no_time, started).unwrap_err();
        assert!(err.to_string().contains("longer than the provider's time limit"), "{err}");
        // The same pattern many times is measured once, and an invalid one is left to the
        // validator, which reports it when it runs.
        let same = with_validators(vec![wb::Validator::Pattern("^[a-z]+$".into()); 1000]);
        assert!(provider_behaviour_from_wit(same, LIMITS, Instant::now()).is_ok());
        let invalid = with_validators(vec![wb::Validator::Pattern("(".into())]);
        assert!(provider_behaviour_from_wit(invalid, LIMITS, Instant::now()).is_ok());
    }

    #[test]
    fn a_type_declared_twice_is_refused() {
        let twice = || wb::NamedBehaviour { name: "x_thing".into(), behaviour: schema(Vec::new()) };
        let err =
            provider_behaviour_from_wit(provider(vec![twice(), twice()]), LIMITS, Instant::now())
                .unwrap_err();
        assert_eq!(err.to_string(), "the behaviour of resource \"x_thing\" is declared twice");
    }
}

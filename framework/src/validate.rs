//! Validators: checks on configured values, attached to attributes with
//! [`Attribute::validate`](crate::schema::Attribute::validate) or `#[tf(validate = ...)]`.
//!
//! The SDK runs them on `ValidateResourceConfig`, `ValidateDataResourceConfig` and
//! `ValidateProviderConfig`, at every depth (inside nested attributes and blocks, for every
//! element). Value validators skip null and unknown values: Terraform validates
//! configurations before everything in them is known, and checks nothing until it is.
//!
//! ```
//! use terrarium_framework::schema::Attribute;
//! use terrarium_framework::validate::{length, one_of, pattern, conflicts_with};
//!
//! let name = Attribute::string("name")
//!     .required()
//!     .validate(length(1, 63))
//!     .validate(pattern("^[a-z][a-z0-9-]*$"));
//! let tier = Attribute::string("tier").optional().validate(one_of(["free", "pro"])).validate(conflicts_with(["plan"]));
//! ```
//!
//! | Validator                      | Checks                                                        |
//! |--------------------------------|---------------------------------------------------------------|
//! | [`length`]                     | string length in characters                                   |
//! | [`pattern`]                    | string matches a regular expression                           |
//! | [`one_of`]                     | string is one of the given values                             |
//! | [`range`], [`at_least`], [`at_most`] | number bounds (inclusive)                               |
//! | [`size`]                       | element count of a list, set or map                           |
//! | [`conflicts_with`]             | no sibling attribute named is set as well                     |
//! | [`also_requires`]              | every sibling named is set as well                            |
//! | [`exactly_one_of`]             | exactly one of this attribute and the siblings named is set   |
//! | [`at_least_one_of`]            | at least one of them is set                                   |
//! | [`custom`]                     | anything: a function of the value                             |

use std::cmp::Ordering::{Greater, Less};
use std::fmt;
use std::sync::Arc;

use terrarium_model::{AttributePath, Diagnostic, Number, Value};

/// Where a validator is looking: the value's path, and the object holding it (whose other
/// attributes cross-attribute validators read).
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The path of the value being checked.
    pub path: &'a AttributePath,
    /// The object the attribute belongs to (null at the top level of an empty config).
    pub parent: &'a Value,
    /// The attribute's name in `parent`.
    pub name: &'a str,
}

/// A check on a configured value.
pub trait Validator: Send + Sync {
    /// What the validator requires, in words ("length from 1 to 63"); documentation and
    /// error messages use it.
    fn description(&self) -> String;

    /// Checks `value`, pushing an error diagnostic (at `cx.path`) for each problem.
    fn validate(&self, value: &Value, cx: &Context<'_>, problems: &mut Vec<Diagnostic>);

    /// The hook that checks instead, for a validator whose code a guest declaring its
    /// behaviour as data holds (see [`hook`]); `None` for validators that check here.
    fn hook(&self) -> Option<u32> {
        None
    }
}

/// A shared, cloneable validator, as schemas hold them.
#[derive(Clone)]
pub struct BoxedValidator(pub Arc<dyn Validator>);

impl fmt::Debug for BoxedValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.description())
    }
}

fn invalid(cx: &Context<'_>, detail: String) -> Diagnostic {
    Diagnostic::error("Invalid attribute value", format!("Attribute {}: {detail}.", cx.path))
        .at(cx.path.clone())
}

/// A value validator from a description and a function of known, non-null values.
struct Simple<F> {
    description: String,
    check: F,
}

impl<F: Fn(&Value) -> Result<(), String> + Send + Sync> Validator for Simple<F> {
    fn description(&self) -> String {
        self.description.clone()
    }

    fn validate(&self, value: &Value, cx: &Context<'_>, problems: &mut Vec<Diagnostic>) {
        if value.is_null() || value.contains_unknown() {
            return;
        }
        if let Err(problem) = (self.check)(value) {
            problems.push(invalid(cx, problem));
        }
    }
}

fn simple(
    description: String,
    check: impl Fn(&Value) -> Result<(), String> + Send + Sync + 'static,
) -> BoxedValidator {
    BoxedValidator(Arc::new(Simple { description, check }))
}

/// A string of `min` to `max` characters (Unicode scalar values), inclusive.
pub fn length(min: usize, max: usize) -> BoxedValidator {
    simple(format!("length from {min} to {max}"), move |v| match v {
        Value::String(s) => {
            let n = s.chars().count();
            if (min..=max).contains(&n) {
                Ok(())
            } else {
                Err(format!("must be from {min} to {max} characters long, not {n}"))
            }
        }
        _ => Ok(()),
    })
}

/// The most memory one pattern may take compiled (its automaton), in bytes. A pattern that
/// needs more is invalid: a short expression can ask for a huge automaton (`\w{500}`), and
/// compiling it takes time in proportion.
pub const PATTERN_SIZE_LIMIT: usize = 4 << 20;
/// The most memory one pattern's lazy matching cache may grow to, in bytes.
pub const PATTERN_CACHE_LIMIT: usize = 256 << 10;

fn compile_pattern(re: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(re)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_CACHE_LIMIT)
        .build()
}

/// Why a pattern does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Its automaton would take more than [`PATTERN_SIZE_LIMIT`] bytes.
    #[error("it compiles to more than {limit} bytes, the limit for one pattern")]
    TooBig {
        /// [`PATTERN_SIZE_LIMIT`].
        limit: usize,
    },
    /// It is no regular expression.
    #[error("{0}")]
    Invalid(String),
}

/// The memory `re` takes compiled as [`pattern`] compiles it, in bytes; for a host that
/// bounds what the patterns a component declares may take together.
pub fn pattern_memory(re: &str) -> Result<usize, PatternError> {
    use regex_automata::meta;
    let config = meta::Config::new()
        .nfa_size_limit(Some(PATTERN_SIZE_LIMIT))
        .hybrid_cache_capacity(PATTERN_CACHE_LIMIT);
    match meta::Regex::builder().configure(config).build(re) {
        Ok(compiled) => Ok(compiled.memory_usage()),
        Err(e) if e.size_limit().is_some() => {
            Err(PatternError::TooBig { limit: PATTERN_SIZE_LIMIT })
        }
        Err(e) => Err(PatternError::Invalid(e.to_string())),
    }
}

/// A string matching the regular expression `re` (Rust `regex` syntax; anchor it with `^`
/// and `$` to match the whole string). An invalid expression, or one whose automaton would
/// take more than [`PATTERN_SIZE_LIMIT`] bytes, is reported when the validator runs, as a
/// provider bug.
pub fn pattern(re: &str) -> BoxedValidator {
    let compiled = compile_pattern(re).map_err(|e| e.to_string());
    let re = re.to_string();
    simple(format!("matches {re}"), move |v| match (v, &compiled) {
        (Value::String(s), Ok(compiled)) if compiled.is_match(s) => Ok(()),
        (Value::String(s), Ok(_)) => Err(format!("{s:?} does not match the pattern {re}")),
        (_, Err(e)) => Err(format!(
            "the provider's pattern {re} is invalid ({e}); this is a bug in the provider"
        )),
        _ => Ok(()),
    })
}

/// A string that is one of `allowed`.
pub fn one_of<S: Into<String>>(allowed: impl IntoIterator<Item = S>) -> BoxedValidator {
    let allowed: Vec<String> = allowed.into_iter().map(Into::into).collect();
    let list = allowed.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ");
    simple(format!("one of {list}"), move |v| match v {
        Value::String(s) if !allowed.contains(s) => Err(format!("{s:?} is not one of {list}")),
        _ => Ok(()),
    })
}

/// Compares exactly, by decimal value: integers above 2^53 and long decimals are never
/// rounded through `f64` first.
fn number_check(description: String, min: Option<Number>, max: Option<Number>) -> BoxedValidator {
    simple(description.clone(), move |v| match v {
        Value::Number(n) => {
            // NaN compares with nothing: it is out of every range.
            let below = min.as_ref().is_some_and(|m| matches!(n.compare(m), Some(Less) | None));
            let above = max.as_ref().is_some_and(|m| matches!(n.compare(m), Some(Greater) | None));
            if below || above { Err(format!("must be {description}, not {n}")) } else { Ok(()) }
        }
        _ => Ok(()),
    })
}

/// A number from `min` to `max`, inclusive. Bounds are any integer or float type (an
/// `f32` or `f64` stands for its shortest decimal text: `0.1` is 0.1), or a
/// [`Number`] for bounds no Rust number holds.
pub fn range(min: impl Into<Number>, max: impl Into<Number>) -> BoxedValidator {
    let (min, max) = (min.into(), max.into());
    number_check(format!("from {min} to {max}"), Some(min), Some(max))
}

/// A number no smaller than `min` (see [`range`] for the bound).
pub fn at_least(min: impl Into<Number>) -> BoxedValidator {
    let min = min.into();
    number_check(format!("at least {min}"), Some(min), None)
}

/// A number no greater than `max` (see [`range`] for the bound).
pub fn at_most(max: impl Into<Number>) -> BoxedValidator {
    let max = max.into();
    number_check(format!("at most {max}"), None, Some(max))
}

/// A list, set or map of `min` to `max` elements, inclusive.
pub fn size(min: usize, max: usize) -> BoxedValidator {
    simple(format!("from {min} to {max} elements"), move |v| {
        let n = match v {
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => items.len(),
            Value::Map(m) => m.len(),
            _ => return Ok(()),
        };
        if (min..=max).contains(&n) {
            Ok(())
        } else {
            Err(format!("must have from {min} to {max} elements, not {n}"))
        }
    })
}

/// Any check: `check` gets known, non-null values and returns what is wrong with them.
///
/// ```
/// use terrarium_framework::validate::custom;
/// use terrarium_model::Value;
/// let even = custom("an even number", |v| match v {
///     Value::Number(n) if n.as_i64().is_some_and(|i| i % 2 != 0) => Err(format!("{n} is odd")),
///     _ => Ok(()),
/// });
/// ```
pub fn custom(
    description: impl Into<String>,
    check: impl Fn(&Value) -> Result<(), String> + Send + Sync + 'static,
) -> BoxedValidator {
    simple(description.into(), check)
}

/// A validator whose code is the hook `id` of a guest that declares its behaviour as data:
/// it checks nothing here; [`crate::check::hook_validations`] lists what to ask the guest.
pub fn hook(id: u32, description: impl Into<String>) -> BoxedValidator {
    BoxedValidator(Arc::new(Hook { id, description: description.into() }))
}

struct Hook {
    id: u32,
    description: String,
}

impl Validator for Hook {
    fn description(&self) -> String {
        self.description.clone()
    }

    fn validate(&self, _: &Value, _: &Context<'_>, _: &mut Vec<Diagnostic>) {}

    fn hook(&self) -> Option<u32> {
        Some(self.id)
    }
}

/// Whether a sibling is set: `Some(true)` set, `Some(false)` null, `None` not known yet.
fn is_set(value: &Value) -> Option<bool> {
    match value {
        Value::Null => Some(false),
        Value::Unknown(r) if r.nullable == Some(false) => Some(true),
        Value::Unknown(_) => None,
        _ => Some(true),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Relation {
    ConflictsWith,
    AlsoRequires,
    ExactlyOneOf,
    AtLeastOneOf,
}

struct Siblings {
    relation: Relation,
    names: Vec<String>,
}

impl Validator for Siblings {
    fn description(&self) -> String {
        let names = self.names.join(", ");
        match self.relation {
            Relation::ConflictsWith => format!("conflicts with {names}"),
            Relation::AlsoRequires => format!("also requires {names}"),
            Relation::ExactlyOneOf => format!("exactly one of this and {names}"),
            Relation::AtLeastOneOf => format!("at least one of this and {names}"),
        }
    }

    fn validate(&self, value: &Value, cx: &Context<'_>, problems: &mut Vec<Diagnostic>) {
        let sibling = |name: &str| is_set(cx.parent.attr(name).unwrap_or(&Value::Null));
        let this = is_set(value);
        let quoted = |names: &[&String]| {
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        };
        let error = |summary: &str, detail: String| {
            Diagnostic::error(summary, format!("{detail}.")).at(cx.path.clone())
        };
        match self.relation {
            Relation::ConflictsWith => {
                if this != Some(true) {
                    return;
                }
                let set: Vec<&String> =
                    self.names.iter().filter(|n| sibling(n) == Some(true)).collect();
                if !set.is_empty() {
                    problems.push(error(
                        "Conflicting attributes",
                        format!("{:?} cannot be set together with {}", cx.name, quoted(&set)),
                    ));
                }
            }
            Relation::AlsoRequires => {
                if this != Some(true) {
                    return;
                }
                let missing: Vec<&String> =
                    self.names.iter().filter(|n| sibling(n) == Some(false)).collect();
                if !missing.is_empty() {
                    problems.push(error(
                        "Missing required attribute",
                        format!("{:?} is set, so {} must be set too", cx.name, quoted(&missing)),
                    ));
                }
            }
            Relation::ExactlyOneOf | Relation::AtLeastOneOf => {
                let states: Vec<Option<bool>> =
                    std::iter::once(this).chain(self.names.iter().map(|n| sibling(n))).collect();
                // Decide only once every one of them is known.
                if states.contains(&None) {
                    return;
                }
                let count = states.iter().filter(|s| **s == Some(true)).count();
                let all: Vec<&String> = self.names.iter().collect();
                let names = format!("{:?}, {}", cx.name, quoted(&all));
                if count == 0 {
                    problems
                        .push(error("Missing attribute", format!("One of {names} must be set")));
                } else if count > 1 && self.relation == Relation::ExactlyOneOf {
                    problems.push(error(
                        "Conflicting attributes",
                        format!("Only one of {names} may be set"),
                    ));
                }
            }
        }
    }
}

fn siblings<S: Into<String>>(
    relation: Relation,
    names: impl IntoIterator<Item = S>,
) -> BoxedValidator {
    BoxedValidator(Arc::new(Siblings {
        relation,
        names: names.into_iter().map(Into::into).collect(),
    }))
}

/// When this attribute is set, none of the sibling attributes `names` may be.
pub fn conflicts_with<S: Into<String>>(names: impl IntoIterator<Item = S>) -> BoxedValidator {
    siblings(Relation::ConflictsWith, names)
}

/// When this attribute is set, every sibling attribute in `names` must be too.
pub fn also_requires<S: Into<String>>(names: impl IntoIterator<Item = S>) -> BoxedValidator {
    siblings(Relation::AlsoRequires, names)
}

/// Exactly one of this attribute and the siblings `names` is set. Put it on one of them.
pub fn exactly_one_of<S: Into<String>>(names: impl IntoIterator<Item = S>) -> BoxedValidator {
    siblings(Relation::ExactlyOneOf, names)
}

/// At least one of this attribute and the siblings `names` is set. Put it on one of them.
pub fn at_least_one_of<S: Into<String>>(names: impl IntoIterator<Item = S>) -> BoxedValidator {
    siblings(Relation::AtLeastOneOf, names)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use terrarium_model::{Number, Refinements};

    use super::*;

    fn run(v: &BoxedValidator, value: Value, parent: &Value) -> Vec<String> {
        let path = AttributePath::attribute("a");
        let mut problems = Vec::new();
        v.0.validate(&value, &Context { path: &path, parent, name: "a" }, &mut problems);
        problems.into_iter().map(|d| format!("{} @ {}", d.detail, d.attribute)).collect()
    }

    fn n(i: i64) -> Value {
        Value::Number(Number::Int(i))
    }

    fn obj(entries: &[(&str, Value)]) -> Value {
        Value::Object(
            entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
        )
    }

    #[test]
    fn a_pattern_is_bounded_in_compiled_size() {
        let small = pattern_memory("^[a-z][a-z0-9-]{0,62}$").unwrap();
        assert!(small < 64 << 10, "{small} bytes");
        // A few bytes of expression that ask for an automaton past the limit.
        let huge = r"^\w{2000}$";
        assert_eq!(pattern_memory(huge), Err(PatternError::TooBig { limit: PATTERN_SIZE_LIMIT }));
        let problems = run(&pattern(huge), Value::string("x"), &Value::Null);
        assert!(problems[0].contains("is invalid"), "{problems:?}");
        assert!(matches!(pattern_memory("("), Err(PatternError::Invalid(_))));
    }

    #[test]
    fn string_validators() {
        let none = Value::Null;
        assert!(run(&length(2, 3), Value::string("ab"), &none).is_empty());
        assert_eq!(
            run(&length(2, 3), Value::string("abcd"), &none),
            ["Attribute a: must be from 2 to 3 characters long, not 4. @ a"]
        );
        assert_eq!(run(&length(2, 3), Value::string("é"), &none).len(), 1, "characters, not bytes");
        assert!(run(&pattern("^[a-z]+$"), Value::string("abc"), &none).is_empty());
        assert_eq!(run(&pattern("^[a-z]+$"), Value::string("aBc"), &none).len(), 1);
        assert_eq!(
            run(&pattern("("), Value::string("x"), &none).len(),
            1,
            "a broken pattern is reported"
        );
        assert!(run(&one_of(["x", "y"]), Value::string("y"), &none).is_empty());
        assert_eq!(run(&one_of(["x", "y"]), Value::string("z"), &none).len(), 1);
        // Null and unknown are not checked.
        assert!(run(&length(2, 3), Value::Null, &none).is_empty());
        assert!(run(&one_of(["x"]), Value::unknown(), &none).is_empty());
    }

    #[test]
    fn number_and_size_validators() {
        let none = Value::Null;
        assert!(run(&range(1.0, 5.0), n(5), &none).is_empty());
        assert_eq!(run(&range(1.0, 5.0), n(6), &none).len(), 1);
        assert_eq!(run(&at_least(0.0), n(-1), &none).len(), 1);
        assert_eq!(run(&at_most(0.0), n(1), &none).len(), 1);
        assert!(run(&at_most(0.0), n(0), &none).is_empty());
        // Exact: 2^53 + 1 rounds to 2^53 as an f64, and is still above it.
        let big = Value::Number(Number::Int(9_007_199_254_740_993));
        assert_eq!(run(&at_most(9_007_199_254_740_992i64), big.clone(), &none).len(), 1);
        assert!(run(&at_least(9_007_199_254_740_993i64), big, &none).is_empty());
        let decimal = |d: &str| Value::Number(Number::parse(d).unwrap());
        assert_eq!(run(&at_most(0.1), decimal("0.10000000000000000001"), &none).len(), 1);
        assert!(run(&range(0.1, 0.2), decimal("0.1"), &none).is_empty());
        assert!(run(&range(0, 1), decimal("0.99999999999999999999"), &none).is_empty());
        let beyond = Number::parse("123456789012345678901234567890").unwrap();
        assert_eq!(run(&at_most(u64::MAX), Value::Number(beyond.clone()), &none).len(), 1);
        assert!(run(&at_most(beyond.clone()), Value::Number(beyond), &none).is_empty());
        assert!(run(&size(1, 2), Value::List(vec![n(1), n(2)]), &none).is_empty());
        assert_eq!(run(&size(1, 2), Value::Set(vec![]), &none).len(), 1);
        assert_eq!(
            run(&size(0, 0), Value::Map(BTreeMap::from([("k".into(), n(1))])), &none).len(),
            1
        );
        let odd = custom("even", |v| match v {
            Value::Number(x) if x.as_i64().is_some_and(|i| i % 2 != 0) => Err("odd".into()),
            _ => Ok(()),
        });
        assert_eq!(run(&odd, n(3), &none), ["Attribute a: odd. @ a"]);
        assert!(run(&odd, n(4), &none).is_empty());
    }

    #[test]
    fn cross_attribute_validators() {
        let parent = obj(&[("a", n(1)), ("b", n(2)), ("c", Value::Null), ("u", Value::unknown())]);
        assert_eq!(run(&conflicts_with(["b"]), n(1), &parent).len(), 1);
        assert!(
            run(&conflicts_with(["c", "u"]), n(1), &parent).is_empty(),
            "null and unknown do not conflict"
        );
        assert!(run(&conflicts_with(["b"]), Value::Null, &parent).is_empty());
        assert_eq!(run(&also_requires(["c"]), n(1), &parent).len(), 1);
        assert!(run(&also_requires(["b", "u"]), n(1), &parent).is_empty());
        assert_eq!(run(&exactly_one_of(["b"]), n(1), &parent).len(), 1, "two are set");
        assert!(run(&exactly_one_of(["c"]), n(1), &parent).is_empty());
        assert_eq!(run(&exactly_one_of(["c"]), Value::Null, &parent).len(), 1, "none is set");
        assert!(run(&exactly_one_of(["u"]), n(1), &parent).is_empty(), "undecided until known");
        assert_eq!(run(&at_least_one_of(["c"]), Value::Null, &parent).len(), 1);
        assert!(run(&at_least_one_of(["b"]), n(1), &parent).is_empty());
        // An unknown refined as not null counts as set.
        let not_null =
            Value::Unknown(Refinements { nullable: Some(false), ..Refinements::default() });
        assert_eq!(run(&conflicts_with(["b"]), not_null, &parent).len(), 1);
    }
}

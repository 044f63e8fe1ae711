//! `random_string` and `random_password`: random strings from character classes.
//!
//! The two are the same resource with one difference that matters: a password's `result`
//! (and so anything built from it) is **sensitive**, which Terraform hides in plans, applies
//! and outputs. A string's `result` is also its `id`; a password's id is `"none"`, so the
//! password never shows up as an id either.
//!
//! Every attribute requires replacement: there is no way to change a random string "in
//! place" other than drawing a new one.
//!
//! A `random_string` that should have been a password can become one without drawing again:
//!
//! ```hcl
//! moved {
//!   from = random_string.db
//!   to   = random_password.db
//! }
//! ```
//!
//! Terraform then asks `random_password` to take over the string's stored state
//! (`MoveResourceState`, see [`RandomPassword::move_state`](Resource::move_state)).

use serde::{Deserialize, Serialize};
use terrarium_sdk::rpc::MoveRequest;
use terrarium_sdk::schema::{Attribute, Schema};
use terrarium_sdk::{Attr, Diagnostic, Diagnostics, Model, Resource, Result, Value};

use crate::rng::Rng;
use crate::{Keepers, read_partial};

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const NUMERIC: &str = "0123456789";
/// hashicorp/random's default special characters.
const SPECIAL: &str = "!@#$%&*()-_=+[]{}<>:?";

/// Long enough for any secret; short enough that a typo cannot exhaust the component's
/// memory.
const MAX_LENGTH: i64 = 1 << 16;

/// `random_string`: `result` is shown in plans and is the resource's `id`.
pub struct RandomString;

/// `random_password`: like `random_string`, with a sensitive `result`.
pub struct RandomPassword;

/// The state of both resource types, and their schema; only the sensitivity of `result`
/// differs (see [`RandomPassword`]).
///
/// Every attribute requires replacement. The classes and minimums have defaults: when the
/// configuration leaves one out, the plan shows the default (`upper = true`) rather than
/// "(known after apply)", so they are plain types here; computed ones are [`Attr`] because
/// a plan holds them unknown.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct StringState {
    #[tf(computed)]
    pub id: Attr<String>,
    /// Arbitrary values that, when changed, replace the resource and so draw a new value.
    #[tf(requires_replace)]
    pub keepers: Keepers,
    /// The length of the result, from 1 to 65536 characters.
    #[tf(requires_replace)]
    pub length: i64,
    /// Whether to use upper-case letters. Default true.
    #[tf(default = true, requires_replace)]
    pub upper: bool,
    /// Whether to use lower-case letters. Default true.
    #[tf(default = true, requires_replace)]
    pub lower: bool,
    /// Whether to use digits. Default true.
    #[tf(default = true, requires_replace)]
    pub numeric: bool,
    /// Whether to use special characters. Default true.
    #[tf(default = true, requires_replace)]
    pub special: bool,
    /// The least number of upper-case letters in the result. Default 0.
    #[tf(default = 0, requires_replace)]
    pub min_upper: i64,
    /// The least number of lower-case letters in the result. Default 0.
    #[tf(default = 0, requires_replace)]
    pub min_lower: i64,
    /// The least number of digits in the result. Default 0.
    #[tf(default = 0, requires_replace)]
    pub min_numeric: i64,
    /// The least number of special characters in the result. Default 0.
    #[tf(default = 0, requires_replace)]
    pub min_special: i64,
    /// The special characters to use instead of !@#$%&*()-_=+[]{}<>:?
    #[tf(requires_replace)]
    pub override_special: Option<String>,
    /// The generated string.
    #[tf(computed)]
    pub result: Attr<String>,
}

impl Resource for RandomString {
    const TYPE_NAME: &'static str = "random_string";
    type State = StringState;

    fn schema(&self) -> Schema {
        StringState::schema()
            .description("A random string of characters from the classes it enables.")
    }

    fn validate(&self, config: &Value) -> Result<()> {
        read_partial::<Rules>(config)?.check().map(|_| ())
    }

    fn create(&self, planned: StringState) -> Result<StringState> {
        let result = generate(&planned)?;
        Ok(StringState { id: result.clone().into(), result: result.into(), ..planned })
    }

    fn read(&self, current: StringState) -> Result<Option<StringState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: StringState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

impl Resource for RandomPassword {
    const TYPE_NAME: &'static str = "random_password";
    type State = StringState;

    fn schema(&self) -> Schema {
        // All it takes: Terraform hides the value wherever it appears.
        StringState::schema()
            .description("A random password: a random_string whose result is sensitive.")
            .update_attribute("result", Attribute::sensitive)
    }

    fn validate(&self, config: &Value) -> Result<()> {
        read_partial::<Rules>(config)?.check().map(|_| ())
    }

    fn create(&self, planned: StringState) -> Result<StringState> {
        let result = generate(&planned)?;
        Ok(StringState { id: "none".to_string().into(), result: result.into(), ..planned })
    }

    /// `moved { from = random_string.x  to = random_password.x }` is allowed...
    const MOVES_FROM: &'static [&'static str] = &["random_string"];

    /// ...and keeps everything, `result` above all: the same string, now sensitive. Only the
    /// id changes, to the password's `"none"`, so the secret is not shown as an id. The
    /// source may be this provider's `random_string` or hashicorp/random's, which stores the
    /// same attributes (the SDK drops any this schema lacks).
    fn move_state(&self, source: MoveRequest) -> Result<Value> {
        if !source.source_provider_address.ends_with("/random") {
            return Err(Diagnostics::error(
                "Cannot move resource state",
                format!(
                    "random_password takes over the state of a random_string of a random provider, not of {}.",
                    source.source_provider_address
                ),
            ));
        }
        let mut state = source.source_state;
        if let Value::Object(attributes) = &mut state {
            attributes.insert("id".to_string(), Value::string("none"));
        }
        Ok(state)
    }

    fn read(&self, current: StringState) -> Result<Option<StringState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: StringState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// The attributes that decide what can be generated, as a configuration may hold them:
/// each may still be unknown when validation runs, or null (then its default applies). An
/// attribute the configuration lacks (the ephemeral `random_password` has no minimums) is
/// null.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Rules {
    length: Attr<i64>,
    upper: Attr<bool>,
    lower: Attr<bool>,
    numeric: Attr<bool>,
    special: Attr<bool>,
    min_upper: Attr<i64>,
    min_lower: Attr<i64>,
    min_numeric: Attr<i64>,
    min_special: Attr<i64>,
    override_special: Attr<String>,
}

/// What to draw: each enabled class with its minimum count, and the total length.
pub(crate) struct Charset {
    length: usize,
    classes: Vec<(Vec<char>, usize)>,
}

impl Rules {
    /// Checks what is known so far, each problem pointing at its attribute. Once everything
    /// is known and valid, returns what to draw.
    pub(crate) fn check(&self) -> Result<Option<Charset>> {
        let mut problems = Diagnostics::new();
        let length = self.length.known().copied();
        if let Some(length) = length
            && !(1..=MAX_LENGTH).contains(&length)
        {
            problems.push_attribute_error(
                "length",
                "Invalid length",
                format!("The length must be from 1 to {MAX_LENGTH}, not {length}."),
            );
        }
        let special = match &self.override_special {
            Attr::Unknown => None,
            other => Some(other.known().map_or(SPECIAL, String::as_str).to_string()),
        };
        let classes = [
            ("upper", &self.upper, "min_upper", &self.min_upper, Some(UPPER.to_string())),
            ("lower", &self.lower, "min_lower", &self.min_lower, Some(LOWER.to_string())),
            ("numeric", &self.numeric, "min_numeric", &self.min_numeric, Some(NUMERIC.to_string())),
            ("special", &self.special, "min_special", &self.min_special, special),
        ];

        // `None` as soon as anything is unknown.
        let mut charset =
            length.map(|length| Charset { length: length.max(0) as usize, classes: Vec::new() });
        let mut wanted: i64 = 0;
        for (class, enabled, min_name, min, chars) in classes {
            // Null means the default; unknown means not known yet (`None`).
            let enabled = enabled.as_ref().known_or(&true).ok().copied();
            let min = min.as_ref().known_or(&0).ok().copied();
            match (enabled, min) {
                (_, Some(min)) if min < 0 => problems.push_attribute_error(
                    min_name,
                    "Invalid minimum",
                    format!("{min_name} cannot be negative."),
                ),
                (Some(false), Some(min)) if min > 0 => problems.push_attribute_error(
                    min_name,
                    "Minimum of a disabled class",
                    format!(
                        "{min_name} = {min} asks for characters that {class} = false rules out."
                    ),
                ),
                (Some(true), Some(min)) if min > 0 && chars.as_deref() == Some("") => problems
                    .push_attribute_error(
                        "override_special",
                        "No special characters",
                        format!("override_special is empty, so min_special = {min} cannot be met."),
                    ),
                _ => {}
            }
            wanted = wanted.saturating_add(min.unwrap_or(0).max(0));
            match (&mut charset, enabled, min, chars) {
                (Some(charset), Some(true), Some(min), Some(chars)) => {
                    charset.classes.push((chars.chars().collect(), min.max(0) as usize))
                }
                (Some(_), Some(false), Some(_), _) => {}
                _ => charset = None,
            }
        }
        if let Some(length) = length
            && wanted > length
        {
            problems.push_attribute_error(
                "length",
                "Length too short",
                format!(
                    "The minimums ask for {wanted} characters, more than the length, {length}."
                ),
            );
        }
        if let Some(charset) = &charset
            && charset.classes.iter().all(|(chars, _)| chars.is_empty())
        {
            problems.push(Diagnostic::error(
                "No characters to choose from",
                "upper, lower, numeric and special are all false (or override_special is empty). Enable at least one.",
            ));
        }
        problems.into_result()?;
        Ok(charset)
    }
}

impl From<&StringState> for Rules {
    fn from(state: &StringState) -> Rules {
        Rules {
            length: state.length.into(),
            upper: state.upper.into(),
            lower: state.lower.into(),
            numeric: state.numeric.into(),
            special: state.special.into(),
            min_upper: state.min_upper.into(),
            min_lower: state.min_lower.into(),
            min_numeric: state.min_numeric.into(),
            min_special: state.min_special.into(),
            override_special: state.override_special.clone().into(),
        }
    }
}

/// Draws a string: first each class's minimum, then the rest from every enabled class, then
/// a shuffle so that the minimums are not always at the front.
pub(crate) fn generate(planned: &StringState) -> Result<String> {
    // Validation may have seen unknowns; everything is known now, so check it all again.
    let Some(charset) = Rules::from(planned).check()? else {
        return Err(Diagnostics::error(
            "Invalid configuration",
            "Some of the configuration is still unknown.",
        ));
    };
    let mut rng = Rng::Os;
    let mut drawn = Vec::with_capacity(charset.length);
    for (chars, min) in &charset.classes {
        for _ in 0..*min {
            drawn.push(chars[rng.index(chars.len())?]);
        }
    }
    let pool: Vec<char> =
        charset.classes.iter().flat_map(|(chars, _)| chars.iter().copied()).collect();
    while drawn.len() < charset.length {
        drawn.push(pool[rng.index(pool.len())?]);
    }
    rng.shuffle(&mut drawn)?;
    Ok(drawn.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(length: i64) -> StringState {
        StringState {
            id: Attr::Unknown,
            keepers: None,
            length,
            upper: true,
            lower: true,
            numeric: true,
            special: true,
            min_upper: 0,
            min_lower: 0,
            min_numeric: 0,
            min_special: 0,
            override_special: None,
            result: Attr::Unknown,
        }
    }

    fn rules(length: i64) -> Rules {
        Rules::from(&state(length))
    }

    fn error_paths(rules: &Rules) -> Vec<String> {
        match rules.check() {
            Ok(_) => Vec::new(),
            Err(d) => d.iter().map(|d| d.attribute.to_string()).collect(),
        }
    }

    #[test]
    fn problems_point_at_their_attribute() {
        assert_eq!(error_paths(&rules(0)), ["length"]);
        let mut r = rules(4);
        r.min_upper = Attr::Known(3);
        r.min_numeric = Attr::Known(3);
        assert_eq!(error_paths(&r), ["length"]);
        let mut r = rules(8);
        r.upper = Attr::Known(false);
        r.min_upper = Attr::Known(1);
        assert_eq!(error_paths(&r), ["min_upper"]);
        let mut r = rules(8);
        r.min_special = Attr::Known(-1);
        assert_eq!(error_paths(&r), ["min_special"]);
        let mut r = rules(8);
        r.upper = Attr::Known(false);
        r.lower = Attr::Known(false);
        r.numeric = Attr::Known(false);
        r.override_special = Attr::Known(String::new());
        assert_eq!(error_paths(&r), ["(root)"]);
    }

    #[test]
    fn unknowns_skip_the_checks_that_need_them() {
        let mut r = rules(8);
        r.length = Attr::Unknown;
        r.min_upper = Attr::Known(100);
        assert!(matches!(r.check(), Ok(None)));
        let mut r = rules(0);
        r.upper = Attr::Unknown;
        assert_eq!(error_paths(&r), ["length"]);
    }

    #[test]
    fn generated_strings_honour_classes_and_minimums() {
        let digits = StringState {
            upper: false,
            special: false,
            min_numeric: 5,
            min_lower: 1,
            override_special: Some("ß".into()),
            ..state(6)
        };
        for _ in 0..20 {
            let s = generate(&digits).unwrap();
            assert_eq!(s.chars().count(), 6);
            assert_eq!(s.chars().filter(char::is_ascii_digit).count(), 5, "{s}");
            assert!(s.chars().any(|c| c.is_ascii_lowercase()), "{s}");
        }
        let only_special = StringState {
            upper: false,
            lower: false,
            numeric: false,
            override_special: Some("ß€".into()),
            ..state(10)
        };
        assert!(generate(&only_special).unwrap().chars().all(|c| c == 'ß' || c == '€'));
    }
}

//! Timeouts a resource lets users configure, the way Terraform providers conventionally do:
//! a `timeouts` block with Go-style durations.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use std::time::Duration;
//! use terrarium_sdk::{Attr, Model, Timeouts};
//!
//! #[derive(Serialize, Deserialize, Model)]
//! struct Database {
//!     name: String,
//!     /// How long operations may take.
//!     #[tf(block)]
//!     timeouts: Option<Timeouts>,
//! }
//!
//! let db = Database { name: "x".into(), timeouts: Some(Timeouts { create: Some("1h30m".into()), ..Timeouts::default() }) };
//! let create = Timeouts::create_of(&db.timeouts, Duration::from_secs(600)).unwrap();
//! assert_eq!(create, Duration::from_secs(5400));
//! ```
//!
//! ```hcl
//! resource "demo_database" "main" {
//!   name = "main"
//!   timeouts {
//!     create = "1h30m"
//!   }
//! }
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::Model;
use crate::diag::{Diagnostics, Result};

/// The `timeouts` block: one optional duration per operation, such as `"30s"`, `"5m"`,
/// `"1h30m"` (Go's `time.ParseDuration` syntax, without signs). Each is checked when the
/// configuration is validated.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Model)]
pub struct Timeouts {
    /// How long creating may take, e.g. "30m".
    #[tf(validate = crate::validate::custom("a duration such as \"30s\" or \"1h30m\"", check))]
    pub create: Option<String>,
    /// How long reading may take, e.g. "5m".
    #[tf(validate = crate::validate::custom("a duration such as \"30s\" or \"1h30m\"", check))]
    pub read: Option<String>,
    /// How long updating may take, e.g. "30m".
    #[tf(validate = crate::validate::custom("a duration such as \"30s\" or \"1h30m\"", check))]
    pub update: Option<String>,
    /// How long deleting may take, e.g. "30m".
    #[tf(validate = crate::validate::custom("a duration such as \"30s\" or \"1h30m\"", check))]
    pub delete: Option<String>,
}

fn check(value: &terrarium_model::Value) -> std::result::Result<(), String> {
    match value {
        terrarium_model::Value::String(s) => parse_duration(s).map(|_| ()),
        _ => Ok(()),
    }
}

impl Timeouts {
    fn pick(
        timeouts: &Option<Timeouts>,
        field: fn(&Timeouts) -> &Option<String>,
        default: Duration,
    ) -> Result<Duration> {
        match timeouts.as_ref().and_then(|t| field(t).as_deref()) {
            None => Ok(default),
            Some(text) => {
                parse_duration(text).map_err(|e| Diagnostics::error("Invalid timeout", e))
            }
        }
    }

    /// The create timeout, or `default` when not configured.
    pub fn create_of(timeouts: &Option<Timeouts>, default: Duration) -> Result<Duration> {
        Timeouts::pick(timeouts, |t| &t.create, default)
    }

    /// The read timeout, or `default` when not configured.
    pub fn read_of(timeouts: &Option<Timeouts>, default: Duration) -> Result<Duration> {
        Timeouts::pick(timeouts, |t| &t.read, default)
    }

    /// The update timeout, or `default` when not configured.
    pub fn update_of(timeouts: &Option<Timeouts>, default: Duration) -> Result<Duration> {
        Timeouts::pick(timeouts, |t| &t.update, default)
    }

    /// The delete timeout, or `default` when not configured.
    pub fn delete_of(timeouts: &Option<Timeouts>, default: Duration) -> Result<Duration> {
        Timeouts::pick(timeouts, |t| &t.delete, default)
    }
}

/// Parses a Go-style duration: one or more numbers with units `ns`, `us` (or `µs`), `ms`,
/// `s`, `m`, `h` (`"1h30m"`, `"2.5s"`).
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let invalid = || format!("{text:?} is not a duration such as \"30s\", \"5m\" or \"1h30m\"");
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(invalid());
    }
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let number_len =
            rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..number_len].parse().map_err(|_| invalid())?;
        rest = &rest[number_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(invalid()),
        };
        rest = &rest[unit_len..];
        total += number * seconds;
    }
    Duration::try_from_secs_f64(total).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2.5s"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        for bad in ["", "5", "5x", "h", "-1s", "1.2.3s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unset_timeouts_take_the_default() {
        let ten = Duration::from_secs(10);
        assert_eq!(Timeouts::delete_of(&None, ten).unwrap(), ten);
        let t = Some(Timeouts { delete: Some("1m".into()), ..Timeouts::default() });
        assert_eq!(Timeouts::delete_of(&t, ten).unwrap(), Duration::from_secs(60));
        assert_eq!(Timeouts::create_of(&t, ten).unwrap(), ten);
        let bad = Some(Timeouts { read: Some("soon".into()), ..Timeouts::default() });
        assert!(Timeouts::read_of(&bad, ten).is_err());
    }
}

//! Terraform's data model as Terrarium's host and guest SDK both see it: types, values,
//! attribute paths, schemas and diagnostics.
//!
//! This crate is protocol-neutral: no msgpack, no JSON wire formats, no WIT bindings. The
//! host's codec turns wire bytes into these values; the runtime and the SDK move them across
//! the WIT boundary with [`flat`].

#![forbid(unsafe_code)]

pub mod conform;
mod diagnostic;
pub mod flat;
mod path;
mod rpc;
pub mod schema;
mod types;
mod value;

pub use diagnostic::{Diagnostic, Severity, has_errors};
pub use path::{AttributePath, PathStep};
pub use rpc::{ClientCapabilities, DeferredReason};
pub use types::{ObjectType, Type, TypeError};
pub use value::{DynamicValue, Number, NumberBound, Refinements, Value};
#[cfg(test)]
mod number_tests {
    use super::Number;

    #[test]
    fn parses_to_the_narrowest_exact_form() {
        assert_eq!(Number::parse("42"), Some(Number::Int(42)));
        assert_eq!(Number::parse("-2.5"), Some(Number::Float(-2.5)));
        assert_eq!(Number::parse("1e3"), Some(Number::Float(1000.0)));
        assert_eq!(
            Number::parse("123456789012345678901234567890"),
            Some(Number::Decimal("123456789012345678901234567890".into()))
        );
        assert_eq!(Number::parse("0.1"), Some(Number::Float(0.1)));
        assert_eq!(
            Number::parse("0.10000000000000000000001"),
            Some(Number::Decimal("0.10000000000000000000001".into()))
        );
        assert_eq!(Number::parse("abc"), None);
        assert_eq!(Number::parse("1.2.3"), None);
        assert_eq!(Number::parse(""), None);
    }

    #[test]
    fn huge_exponents_keep_their_value() {
        let n = Number::parse("1.5e5000").unwrap();
        assert_eq!(n.to_string(), "15e4999");
        assert!(n.same_value(&Number::parse("15e4999").unwrap()));
        assert_eq!(Number::parse("-0.0015e-5000").unwrap().to_string(), "-15e-5004");
        assert_eq!(Number::parse("1e9223372036854775807"), None);
        assert_eq!(Number::parse("1e99999999999999999999"), None);
    }

    #[test]
    fn displays_canonically() {
        assert_eq!(Number::Float(2.5).to_string(), "2.5");
        assert_eq!(Number::Float(1e21).to_string(), "1000000000000000000000");
        assert_eq!(Number::Decimal("+001.500".into()).to_string(), "1.5");
        assert!(Number::Int(1000).same_value(&Number::Float(1000.0)));
    }

    #[test]
    fn compares_exactly_by_decimal_value() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let n = |t: &str| Number::parse(t).unwrap();
        // Equal as f64, different as numbers.
        assert_eq!(
            Number::Int(9_007_199_254_740_993).compare(&Number::Float(9.007_199_254_740_992e15)),
            Some(Greater)
        );
        assert_eq!(n("0.10000000000000000001").compare(&Number::Float(0.1)), Some(Greater));
        assert_eq!(n("-0.10000000000000000001").compare(&Number::Float(-0.1)), Some(Less));
        assert_eq!(n("1.5e5000").compare(&n("123456789012345678901234567890")), Some(Greater));
        assert_eq!(n("-1e-5000").compare(&n("0")), Some(Less));
        assert_eq!(n("0").compare(&n("-0")), Some(Equal));
        assert_eq!(Number::Int(1000).compare(&Number::Float(1000.0)), Some(Equal));
        assert_eq!(Number::Float(f64::INFINITY).compare(&n("1e5000")), Some(Greater));
        assert_eq!(Number::Float(f64::NAN).compare(&n("1")), None);
        // An f32 stands for its shortest decimal text.
        assert_eq!(Number::from_f32(0.1).to_string(), "0.1");
    }
}

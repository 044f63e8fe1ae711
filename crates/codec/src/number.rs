//! Exact decimal handling for Terraform numbers.
//!
//! cty numbers are arbitrary-precision, so the codec never rounds: it decides between the
//! msgpack int / float64 / decimal-string forms by comparing exact decimal expansions, and it
//! orders refinement bounds exactly. The model's [`Number`] convention is kept: `Float(f)`
//! denotes the decimal its shortest round-trip text spells (`Float(0.1)` is 0.1, as
//! `Number::parse("0.1")` gives), `Decimal` anything else.

use std::cmp::Ordering;

use terrarium_model::Number;

/// Exponents beyond this are refused: Go's `big.Float` cannot hold them either, and keeping
/// them small keeps every exponent computation far from `i64` overflow.
const MAX_DECIMAL_EXPONENT: i64 = 1_000_000_000;

/// Decimal texts whose point sits further out than this are written in exponent form rather
/// than padded with zeros (the same cut-off the model's canonical form uses).
const PLAIN_FORM_LIMIT: i64 = 4096;

/// `i64` bounds as `f64`: 2^63 is exactly representable, so `-2^63 <= f < 2^63` is an exact
/// test for "fits in `i64`".
const I64_MIN_F: f64 = -9_223_372_036_854_775_808.0;
const I64_END_F: f64 = 9_223_372_036_854_775_808.0;

/// A finite decimal, normalised so equal values have equal representations:
/// value = ±`digits` × 10^`exp`, `digits` without leading or trailing zeros, zero is
/// `digits == ""` and never negative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    negative: bool,
    digits: String,
    exp: i64,
}

impl Decimal {
    /// Parses decimal syntax: optional sign, digits with an optional point (at least one
    /// digit), optional exponent. No whitespace, no hex, no `Inf`.
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        let bytes = text.as_bytes();
        let mut i = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                i = 1;
                true
            }
            Some(b'+') => {
                i = 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let int_digits = &text[int_start..i];
        let mut frac_digits = "";
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            let frac_start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            frac_digits = &text[frac_start..i];
        }
        if int_digits.is_empty() && frac_digits.is_empty() {
            return None;
        }
        let mut exponent: i64 = 0;
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            i += 1;
            let exp_negative = match bytes.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let exp_start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let exp_text = text[exp_start..i].trim_start_matches('0');
            if i == exp_start {
                return None;
            }
            // Ten digits already exceed the limit; refuse before parsing can overflow.
            if exp_text.len() > 10 {
                return None;
            }
            let magnitude: i64 = if exp_text.is_empty() { 0 } else { exp_text.parse().ok()? };
            if magnitude > MAX_DECIMAL_EXPONENT {
                return None;
            }
            exponent = if exp_negative { -magnitude } else { magnitude };
        }
        if i != bytes.len() {
            return None;
        }
        let frac_len = i64::try_from(frac_digits.len()).ok()?;
        let mut digits = String::with_capacity(int_digits.len() + frac_digits.len());
        digits.push_str(int_digits);
        digits.push_str(frac_digits);
        Some(Decimal::normalised(negative, digits, exponent - frac_len))
    }

    fn normalised(negative: bool, digits: String, exp: i64) -> Decimal {
        let significant = digits.trim_start_matches('0');
        let trimmed = significant.trim_end_matches('0');
        if trimmed.is_empty() {
            return Decimal { negative: false, digits: String::new(), exp: 0 };
        }
        let trailing = (significant.len() - trimmed.len()) as i64;
        Decimal { negative, digits: trimmed.to_string(), exp: exp + trailing }
    }

    fn from_i64(i: i64) -> Decimal {
        Decimal::normalised(i < 0, i.unsigned_abs().to_string(), 0)
    }

    /// The exact value of a finite float.
    fn from_f64_exact(f: f64) -> Decimal {
        // Every finite f64 has at most 1074 fractional decimal digits, and fixed-precision
        // formatting is exact, so this is the float's exact expansion.
        let text = format!("{f:.1074}");
        Decimal::parse(&text).unwrap_or_else(Decimal::zero)
    }

    /// The shortest decimal that rounds to `f` (what `Number::Float(f)` denotes).
    fn from_f64_shortest(f: f64) -> Decimal {
        let text = format!("{f:e}");
        Decimal::parse(&text).unwrap_or_else(Decimal::zero)
    }

    fn zero() -> Decimal {
        Decimal { negative: false, digits: String::new(), exp: 0 }
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Position of the decimal point relative to the first significant digit:
    /// value = 0.DIGITS × 10^point.
    fn point(&self) -> i64 {
        self.digits.len() as i64 + self.exp
    }

    /// The power of ten of the leading digit (`1234` is 3, `0.05` is -2); 0 for zero.
    fn magnitude(&self) -> i64 {
        if self.digits.is_empty() { 0 } else { self.exp + self.digits.len() as i64 - 1 }
    }

    fn to_i64(&self) -> Option<i64> {
        if self.is_zero() {
            return Some(0);
        }
        // No trailing zeros in `digits`, so a negative exponent means a fraction.
        if self.exp < 0 || self.point() > 19 {
            return None;
        }
        let mut text = String::with_capacity(21);
        if self.negative {
            text.push('-');
        }
        text.push_str(&self.digits);
        text.extend(std::iter::repeat_n('0', self.exp as usize));
        text.parse().ok()
    }

    /// The float this decimal is exactly equal to, if any.
    fn to_exact_f64(&self) -> Option<f64> {
        let f: f64 = self.scientific().parse().ok()?;
        (f.is_finite() && Decimal::from_f64_exact(f) == *self).then_some(f)
    }

    /// The float whose shortest text is this decimal, if any (the model's `Float` test).
    fn to_shortest_f64(&self) -> Option<f64> {
        let f: f64 = self.scientific().parse().ok()?;
        (f.is_finite() && Decimal::from_f64_shortest(f) == *self).then_some(f)
    }

    fn scientific(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        format!("{}{}e{}", if self.negative { "-" } else { "" }, self.digits, self.exp)
    }

    /// Canonical text: plain decimal notation, or `DIGITSeEXP` when the point is very far out.
    pub(crate) fn to_text(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let sign = if self.negative { "-" } else { "" };
        let point = self.point();
        if self.exp >= 0 && point <= PLAIN_FORM_LIMIT {
            format!("{sign}{}{}", self.digits, "0".repeat(self.exp as usize))
        } else if self.exp < 0 && point > 0 {
            let (int, frac) = self.digits.split_at(point as usize);
            format!("{sign}{int}.{frac}")
        } else if self.exp < 0 && point >= -PLAIN_FORM_LIMIT {
            format!("{sign}0.{}{}", "0".repeat((-point) as usize), self.digits)
        } else {
            self.scientific()
        }
    }

    fn cmp_value(&self, other: &Decimal) -> Ordering {
        let sign = |d: &Decimal| match (d.is_zero(), d.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        let (a, b) = (sign(self), sign(other));
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        // Same sign, both non-zero: compare magnitudes, then flip for negatives.
        let magnitude =
            self.point().cmp(&other.point()).then_with(|| self.digits.cmp(&other.digits));
        if a < 0 { magnitude.reverse() } else { magnitude }
    }
}

/// How a number is written to msgpack (cty's rule: int if exact, else float64 if exact,
/// else the decimal text).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum WireNumber {
    Int(i64),
    Float(f64),
    Text(String),
}

/// Why a number cannot be written.
pub(crate) fn invalid_number_reason(n: &Number) -> Option<String> {
    match n {
        Number::Int(_) => None,
        Number::Float(f) if f.is_nan() => Some("NaN is not a Terraform number".into()),
        Number::Float(_) => None,
        Number::Decimal(t) => Decimal::parse(t).is_none().then(|| format!("{t:?} is not a number")),
    }
}

/// Why a valid number cannot be a known value in state or a result: Terraform's JSON state has
/// no infinities, and its `big.Float` turns far too large or small decimals into one (or 0).
/// (Refinement bounds may be infinite; they never reach the state.)
pub(crate) fn unstorable_number_reason(n: &Number) -> Option<String> {
    match n {
        Number::Float(f) if f.is_infinite() => Some(format!(
            "{} is not a number Terraform can store (its state is JSON, which has no infinity)",
            if *f > 0.0 { "+Inf" } else { "-Inf" }
        )),
        Number::Int(_) | Number::Float(_) => None,
        Number::Decimal(t) => match Decimal::parse(t) {
            Some(d) if d.magnitude().abs() > MAX_STORED_MAGNITUDE => Some(format!(
                "{} is too large or too small for Terraform, which turns it into an infinity or zero; \
                 numbers must lie within 1e-{MAX_STORED_MAGNITUDE} to 1e{MAX_STORED_MAGNITUDE}",
                short(t)
            )),
            _ => None,
        },
    }
}

/// The decimal magnitudes a returned number may have. Terraform parses numbers into Go's
/// `big.Float`, whose binary exponent is an `int32`: beyond about 10^646456992 a number becomes
/// an infinity (and Terraform then fails writing its state), below the reciprocal it becomes 0.
/// This bound is far inside both and far beyond any real quantity.
const MAX_STORED_MAGNITUDE: i64 = 100_000_000;

/// The start of a long number's text, for messages.
fn short(text: &str) -> String {
    if text.len() <= 40 {
        return text.to_string();
    }
    let end = (0..=40).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    format!("{}…", &text[..end])
}

pub(crate) fn wire_form(n: &Number) -> Result<WireNumber, String> {
    match n {
        Number::Int(i) => Ok(WireNumber::Int(*i)),
        Number::Float(f) => float_wire_form(*f),
        Number::Decimal(text) => {
            let d = Decimal::parse(text).ok_or_else(|| format!("{text:?} is not a number"))?;
            if let Some(i) = d.to_i64() {
                Ok(WireNumber::Int(i))
            } else if let Some(f) = d.to_exact_f64() {
                Ok(WireNumber::Float(f))
            } else {
                Ok(WireNumber::Text(d.to_text()))
            }
        }
    }
}

fn float_wire_form(f: f64) -> Result<WireNumber, String> {
    if f.is_nan() {
        return Err("NaN is not a Terraform number".into());
    }
    if f.is_infinite() {
        return Ok(WireNumber::Float(f));
    }
    if f.fract() == 0.0 && (I64_MIN_F..I64_END_F).contains(&f) {
        return Ok(WireNumber::Int(f as i64));
    }
    // `Float(f)` means its shortest text; only when that text is exactly the binary value
    // may it travel as float64, otherwise Terraform would see a slightly different number.
    let shortest = Decimal::from_f64_shortest(f);
    if shortest == Decimal::from_f64_exact(f) {
        Ok(WireNumber::Float(f))
    } else {
        Ok(WireNumber::Text(shortest.to_text()))
    }
}

/// The exact text of a finite number (JSON's form). Infinities and NaN have none.
pub(crate) fn exact_text(n: &Number) -> Result<String, String> {
    match n {
        Number::Int(i) => Ok(i.to_string()),
        Number::Float(f) if f.is_nan() => Err("NaN is not a Terraform number".into()),
        Number::Float(f) if f.is_infinite() => {
            Err("JSON cannot represent an infinite number".into())
        }
        Number::Float(f) => Ok(Decimal::from_f64_shortest(*f).to_text()),
        Number::Decimal(t) => {
            Decimal::parse(t).map(|d| d.to_text()).ok_or_else(|| format!("{t:?} is not a number"))
        }
    }
}

/// A number read as a float64 from the wire, normalised. `None` for NaN.
pub(crate) fn number_from_f64(f: f64) -> Option<Number> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(Number::Float(f));
    }
    if f.fract() == 0.0 && (I64_MIN_F..I64_END_F).contains(&f) {
        return Some(Number::Int(f as i64));
    }
    let exact = Decimal::from_f64_exact(f);
    if exact == Decimal::from_f64_shortest(f) {
        Some(Number::Float(f))
    } else {
        // The binary value has more digits than its shortest text: keep them all.
        Some(Number::Decimal(exact.to_text()))
    }
}

/// A number written as text (msgpack string form, JSON literal), normalised to the narrowest
/// exact form. Accepts Go's infinity spellings. `None` if the text is not a number.
pub(crate) fn number_from_text(text: &str) -> Option<Number> {
    if let Some(f) = parse_infinity(text) {
        return Some(Number::Float(f));
    }
    let d = Decimal::parse(text)?;
    if let Some(i) = d.to_i64() {
        return Some(Number::Int(i));
    }
    if let Some(f) = d.to_shortest_f64() {
        return Some(Number::Float(f));
    }
    Some(Number::Decimal(d.to_text()))
}

fn parse_infinity(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let is_inf = rest.eq_ignore_ascii_case("inf") || rest.eq_ignore_ascii_case("infinity");
    is_inf.then_some(if negative { f64::NEG_INFINITY } else { f64::INFINITY })
}

/// Exact ordering of two numbers; `None` if either is NaN or not a number.
pub(crate) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    enum Extended {
        NegInf,
        Finite(Decimal),
        PosInf,
    }
    fn extend(n: &Number) -> Option<Extended> {
        Some(match n {
            Number::Int(i) => Extended::Finite(Decimal::from_i64(*i)),
            Number::Float(f) if f.is_nan() => return None,
            Number::Float(f) if *f == f64::INFINITY => Extended::PosInf,
            Number::Float(f) if *f == f64::NEG_INFINITY => Extended::NegInf,
            Number::Float(f) => Extended::Finite(Decimal::from_f64_shortest(*f)),
            Number::Decimal(t) => Extended::Finite(Decimal::parse(t)?),
        })
    }
    Some(match (extend(a)?, extend(b)?) {
        (Extended::Finite(x), Extended::Finite(y)) => x.cmp_value(&y),
        (Extended::NegInf, Extended::NegInf) | (Extended::PosInf, Extended::PosInf) => {
            Ordering::Equal
        }
        (Extended::NegInf, _) | (_, Extended::PosInf) => Ordering::Less,
        (Extended::PosInf, _) | (_, Extended::NegInf) => Ordering::Greater,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_terraform_cannot_store_are_invalid() {
        for n in [
            Number::Float(f64::INFINITY),
            Number::Float(f64::NEG_INFINITY),
            Number::Decimal("1e999999999".into()),
            Number::Decimal("-1e-999999999".into()),
        ] {
            assert_eq!(invalid_number_reason(&n), None, "{n:?}");
            assert!(unstorable_number_reason(&n).is_some(), "{n:?}");
        }
        for n in [
            Number::Float(1.5),
            Number::Decimal("1e400".into()),
            Number::Decimal("-3e-9000".into()),
        ] {
            assert_eq!(unstorable_number_reason(&n), None, "{n:?}");
        }
    }

    #[test]
    fn parses_and_normalises_decimal_text() {
        let d = Decimal::parse("+001.500e2").unwrap();
        assert_eq!(d.to_text(), "150");
        assert_eq!(Decimal::parse("-0.000").unwrap().to_text(), "0");
        assert_eq!(Decimal::parse(".5").unwrap().to_text(), "0.5");
        assert_eq!(Decimal::parse("5.").unwrap().to_text(), "5");
        assert_eq!(Decimal::parse("1.5e5000").unwrap().to_text(), "15e4999");
        assert_eq!(Decimal::parse("15e4999").unwrap(), Decimal::parse("1.5e5000").unwrap());
        for bad in
            ["", "-", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "0x10", "1e99999999999", "Inf"]
        {
            assert!(Decimal::parse(bad).is_none(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn wire_form_follows_cty() {
        assert_eq!(wire_form(&Number::Int(-3)), Ok(WireNumber::Int(-3)));
        assert_eq!(wire_form(&Number::Float(2.0)), Ok(WireNumber::Int(2)));
        assert_eq!(wire_form(&Number::Float(0.5)), Ok(WireNumber::Float(0.5)));
        assert_eq!(
            wire_form(&Number::Float(1e300)),
            Ok(WireNumber::Text(format!("1{}", "0".repeat(300))))
        );
        // 0.1 is not a binary fraction: as float64 Terraform would see 0.1000000000000000055...
        assert_eq!(wire_form(&Number::Float(0.1)), Ok(WireNumber::Text("0.1".into())));
        assert_eq!(wire_form(&Number::Decimal("0.25".into())), Ok(WireNumber::Float(0.25)));
        assert_eq!(wire_form(&Number::Decimal("1e3".into())), Ok(WireNumber::Int(1000)));
        assert_eq!(
            wire_form(&Number::Decimal("9223372036854775808".into())),
            Ok(WireNumber::Float(9_223_372_036_854_775_808.0))
        );
        assert_eq!(
            wire_form(&Number::Decimal("123456789012345678901234567890".into())),
            Ok(WireNumber::Text("123456789012345678901234567890".into()))
        );
        assert_eq!(
            wire_form(&Number::Float(f64::NEG_INFINITY)),
            Ok(WireNumber::Float(f64::NEG_INFINITY))
        );
        assert!(wire_form(&Number::Float(f64::NAN)).is_err());
        assert!(wire_form(&Number::Decimal("twelve".into())).is_err());
    }

    #[test]
    fn floats_from_the_wire_keep_their_exact_value() {
        assert_eq!(number_from_f64(3.0), Some(Number::Int(3)));
        assert_eq!(number_from_f64(0.5), Some(Number::Float(0.5)));
        assert_eq!(
            number_from_f64(0.1),
            Some(Number::Decimal(
                "0.1000000000000000055511151231257827021181583404541015625".into()
            ))
        );
        assert_eq!(number_from_f64(1e23), Some(Number::Decimal("99999999999999991611392".into())));
        assert_eq!(number_from_f64(f64::NAN), None);
        assert_eq!(number_from_f64(-0.0), Some(Number::Int(0)));
    }

    #[test]
    fn text_numbers_take_the_narrowest_exact_form() {
        assert_eq!(number_from_text("42"), Some(Number::Int(42)));
        assert_eq!(number_from_text("0.1"), Some(Number::Float(0.1)));
        assert_eq!(number_from_text("-Inf"), Some(Number::Float(f64::NEG_INFINITY)));
        assert_eq!(
            number_from_text("18446744073709551615"),
            Some(Number::Decimal("18446744073709551615".into()))
        );
        assert_eq!(
            number_from_text("0.10000000000000000000001"),
            Some(Number::Decimal("0.10000000000000000000001".into()))
        );
        assert_eq!(
            number_from_text("1e-400"),
            Some(Number::Decimal(format!("0.{}1", "0".repeat(399))))
        );
        assert_eq!(number_from_text("nope"), None);
    }

    #[test]
    fn compares_exactly_across_representations() {
        let d = |t: &str| Number::Decimal(t.into());
        assert_eq!(compare(&Number::Int(1), &Number::Float(1.0)), Some(Ordering::Equal));
        assert_eq!(
            compare(&d("0.1000000000000000000001"), &Number::Float(0.1)),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&d("-5"), &d("-4.9")), Some(Ordering::Less));
        assert_eq!(compare(&d("1e400"), &Number::Float(f64::INFINITY)), Some(Ordering::Less));
        assert_eq!(compare(&Number::Int(0), &d("-0.0")), Some(Ordering::Equal));
        assert_eq!(compare(&Number::Float(f64::NAN), &Number::Int(0)), None);
    }
}

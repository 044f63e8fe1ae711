//! Values: what Terraform's cty values look like once decoded.

use std::collections::BTreeMap;
use std::fmt;

use crate::Type;

/// An exact Terraform number.
///
/// Terraform numbers are arbitrary-precision. Integers that fit in `i64` are `Int`, values
/// that are exactly an `f64` are `Float`, and anything else is kept as its decimal text.
#[derive(Clone, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
    Decimal(String),
}

impl Number {
    /// Parses decimal text the way Terraform writes it (`"1"`, `"-2.5"`, `"1e400"`),
    /// choosing the narrowest exact representation. Returns `None` for text that is not a
    /// number.
    pub fn parse(text: &str) -> Option<Number> {
        let t = text.trim();
        if t.is_empty() || !is_decimal_syntax(t) {
            return None;
        }
        if let Ok(i) = t.parse::<i64>() {
            return Some(Number::Int(i));
        }
        if let Ok(f) = t.parse::<f64>()
            && f.is_finite()
            && format_float(f) == canonical_decimal(t)
        {
            return Some(Number::Float(f));
        }
        Some(Number::Decimal(canonical_decimal(t)))
    }

    /// A float, normalised: an integral float that fits `i64` becomes `Int`.
    pub fn from_f64(f: f64) -> Number {
        if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
            Number::Int(f as i64)
        } else {
            Number::Float(f)
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Int(i) => Some(*i),
            Number::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
            Number::Float(_) => None,
            Number::Decimal(d) => d.parse().ok(),
        }
    }

    pub fn as_f64(&self) -> f64 {
        match self {
            Number::Int(i) => *i as f64,
            Number::Float(f) => *f,
            Number::Decimal(d) => d.parse().unwrap_or(f64::NAN),
        }
    }

    /// Whether two numbers denote the same value, whatever their representation.
    pub fn same_value(&self, other: &Number) -> bool {
        self.to_string() == other.to_string()
    }

    /// The number an `f32` stands for: its shortest decimal text (as Rust prints it), so
    /// `0.1f32` is 0.1, not the 0.100000001490116... its bits are as an `f64`.
    pub fn from_f32(f: f32) -> Number {
        if !f.is_finite() {
            return Number::Float(f.into());
        }
        Number::parse(&f.to_string()).unwrap_or(Number::Float(f.into()))
    }

    /// Compares two numbers exactly, by their decimal values (no rounding through `f64`, so
    /// integers above 2^53 and long decimals compare right). `None` when either is NaN.
    pub fn compare(&self, other: &Number) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering;
        let (a, b) = (DecimalParts::of(self)?, DecimalParts::of(other)?);
        let magnitude = |x: &DecimalParts, y: &DecimalParts| match (x.infinite, y.infinite) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ if x.digits.is_empty() || y.digits.is_empty() => {
                x.digits.is_empty().cmp(&y.digits.is_empty()).reverse()
            }
            _ => x.point.cmp(&y.point).then_with(|| x.digits.cmp(&y.digits)),
        };
        let zero = |x: &DecimalParts| x.digits.is_empty() && !x.infinite;
        Some(match (a.negative && !zero(&a), b.negative && !zero(&b)) {
            (false, false) => magnitude(&a, &b),
            (true, true) => magnitude(&b, &a),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
        })
    }
}

/// A number as sign, significant digits and decimal point: 0.DIGITS x 10^point.
struct DecimalParts {
    negative: bool,
    infinite: bool,
    /// Without leading or trailing zeros; empty for zero.
    digits: String,
    point: i64,
}

impl DecimalParts {
    fn of(n: &Number) -> Option<DecimalParts> {
        let text = n.to_string();
        let (negative, t) = match text.strip_prefix('-') {
            Some(rest) => (true, rest.to_string()),
            None => (false, text),
        };
        if t == "Infinity" {
            return Some(DecimalParts {
                negative,
                infinite: true,
                digits: String::new(),
                point: 0,
            });
        }
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
            None => (t.as_str(), 0),
        };
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if !int_part.bytes().chain(frac_part.bytes()).all(|b| b.is_ascii_digit()) {
            return None; // NaN
        }
        let all = format!("{int_part}{frac_part}");
        let significant = all.trim_start_matches('0');
        let point = int_part.len() as i64 + exp - (all.len() - significant.len()) as i64;
        let digits = significant.trim_end_matches('0').to_string();
        Some(DecimalParts { negative, infinite: false, digits, point })
    }
}

impl From<f64> for Number {
    fn from(f: f64) -> Self {
        Number::from_f64(f)
    }
}

impl From<f32> for Number {
    fn from(f: f32) -> Self {
        Number::from_f32(f)
    }
}

impl From<i32> for Number {
    fn from(i: i32) -> Self {
        Number::Int(i.into())
    }
}

impl From<u32> for Number {
    fn from(i: u32) -> Self {
        Number::Int(i.into())
    }
}

impl From<u64> for Number {
    fn from(u: u64) -> Self {
        i64::try_from(u).map(Number::Int).unwrap_or_else(|_| Number::Decimal(u.to_string()))
    }
}

impl From<i128> for Number {
    fn from(i: i128) -> Self {
        i64::try_from(i).map(Number::Int).unwrap_or_else(|_| Number::Decimal(i.to_string()))
    }
}

fn is_decimal_syntax(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') || b.first() == Some(&b'+') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - s;
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // Exponents beyond nine digits are refused: they could overflow the arithmetic below.
        if i == s || b[s..i].iter().skip_while(|d| **d == b'0').count() > 9 {
            return false;
        }
    }
    i == b.len()
}

/// Plain decimal text without exponent, leading `+`, trailing fractional zeros or a
/// trailing dot; used to compare texts by value.
fn canonical_decimal(t: &str) -> String {
    let t = t.strip_prefix('+').unwrap_or(t);
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (t, 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    let digits: String = format!("{int_part}{frac_part}");
    // Position of the decimal point within `digits`.
    let point = int_part.len() as i64 + exp;
    // Huge exponents would make gigantic strings; keep them in exponent form.
    if !(-4096..=4096).contains(&point) {
        // value = 0.DIGITS x 10^point = D x 10^(point - leading zeros - len(D)), D being the
        // digits without leading and trailing zeros.
        let significant = digits.trim_start_matches('0');
        let d = significant.trim_end_matches('0');
        if d.is_empty() {
            return "0".into();
        }
        let exp = point - (digits.len() - significant.len()) as i64 - d.len() as i64;
        return format!("{}{d}e{exp}", if neg { "-" } else { "" });
    }
    let mut s = String::new();
    if point <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-point) as usize));
        s.push_str(&digits);
    } else if point as usize >= digits.len() {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    let mut s = s.trim_start_matches('0').to_string();
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '0');
    }
    if neg && s != "0" {
        s.insert(0, '-');
    }
    s
}

fn format_float(f: f64) -> String {
    canonical_decimal(&format!("{f:?}"))
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) if x.is_infinite() => {
                f.write_str(if *x > 0.0 { "Infinity" } else { "-Infinity" })
            }
            Number::Float(x) => f.write_str(&format_float(*x)),
            Number::Decimal(d) => f.write_str(&canonical_decimal(d)),
        }
    }
}

impl From<i64> for Number {
    fn from(i: i64) -> Self {
        Number::Int(i)
    }
}

/// One end of a number range refinement.
#[derive(Clone, Debug, PartialEq)]
pub struct NumberBound {
    pub value: Number,
    pub inclusive: bool,
}

/// What is known about an unknown value. `Refinements::default()` means nothing is known.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refinements {
    /// `Some(false)`: definitely not null once known.
    pub nullable: Option<bool>,
    pub string_prefix: Option<String>,
    pub number_lower: Option<NumberBound>,
    pub number_upper: Option<NumberBound>,
    pub length_lower: Option<u64>,
    pub length_upper: Option<u64>,
}

impl Refinements {
    pub fn is_empty(&self) -> bool {
        *self == Refinements::default()
    }
}

/// A decoded Terraform value.
///
/// The tree does not carry its type; the schema type it belongs to does. The exception is
/// `Dynamic`, used where the schema type is `dynamic`, which carries its concrete type.
/// The default is null, what Terraform sends for an absent value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Unknown(Refinements),
    Bool(bool),
    Number(Number),
    String(String),
    List(Vec<Value>),
    Set(Vec<Value>),
    Tuple(Vec<Value>),
    Map(BTreeMap<String, Value>),
    Object(BTreeMap<String, Value>),
    Dynamic(Box<DynamicValue>),
}

/// A value together with its concrete type, for attributes of type `dynamic`.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicValue {
    pub ty: Type,
    pub value: Value,
}

impl Value {
    pub fn unknown() -> Value {
        Value::Unknown(Refinements::default())
    }

    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    /// Whether the value or anything inside it is unknown.
    pub fn contains_unknown(&self) -> bool {
        match self {
            Value::Unknown(_) => true,
            Value::List(v) | Value::Set(v) | Value::Tuple(v) => {
                v.iter().any(Value::contains_unknown)
            }
            Value::Map(m) | Value::Object(m) => m.values().any(Value::contains_unknown),
            Value::Dynamic(d) => d.value.contains_unknown(),
            _ => false,
        }
    }

    /// The value with every unknown inside it made null, as Terraform records the state a
    /// failed apply left behind.
    pub fn unknowns_as_null(self) -> Value {
        let all = |items: Vec<Value>| items.into_iter().map(Value::unknowns_as_null).collect();
        let each = |m: BTreeMap<String, Value>| {
            m.into_iter().map(|(k, v)| (k, v.unknowns_as_null())).collect()
        };
        match self {
            Value::Unknown(_) => Value::Null,
            Value::List(v) => Value::List(all(v)),
            Value::Set(v) => Value::Set(all(v)),
            Value::Tuple(v) => Value::Tuple(all(v)),
            Value::Map(m) => Value::Map(each(m)),
            Value::Object(m) => Value::Object(each(m)),
            Value::Dynamic(d) => {
                let DynamicValue { ty, value } = *d;
                Value::Dynamic(Box::new(DynamicValue { ty, value: value.unknowns_as_null() }))
            }
            known => known,
        }
    }

    /// Looks up an object attribute.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.get(name),
            Value::Dynamic(d) => d.value.attr(name),
            _ => None,
        }
    }

    /// A short name of the value's shape, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Unknown(_) => "unknown",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::Tuple(_) => "tuple",
            Value::Map(_) => "map",
            Value::Object(_) => "object",
            Value::Dynamic(_) => "dynamic",
        }
    }
}

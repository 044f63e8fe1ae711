//! Conformance of a value to a type, and the rules the encoders share with it: which
//! refinements Terraform accepts, and how a bare value under `dynamic` gets its type.

use std::cmp::Ordering;
use std::fmt;

use terrarium_model::{AttributePath, PathStep, Refinements, Type, Value};

use super::number;
use super::{MAX_DEPTH, MAX_STRING_BYTES, Walk, index_step, type_fits_depth};

/// One way a value fails to conform to its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub path: AttributePath,
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.message)
    }
}

/// Does `value` conform to `ty`? Returns every mismatch with its path (empty = conforms).
///
/// Strict: kinds must match exactly (no conversions), objects must have exactly their type's
/// attributes, set elements, map values and tuple elements are all checked. Nulls and
/// unknowns are accepted anywhere, but an unknown's refinements must be ones Terraform can
/// take for that type (cty panics on inconsistent ones). Under `dynamic`, a bare value is
/// accepted when its type can be inferred unambiguously (as the encoders do).
pub fn check(value: &Value, ty: &Type) -> Vec<Mismatch> {
    let mut checker = Checker { walk: Walk::default(), found: Vec::new() };
    checker.value(value, ty);
    checker.found
}

struct Checker {
    walk: Walk,
    found: Vec<Mismatch>,
}

impl Checker {
    fn report(&mut self, message: impl Into<String>) {
        self.found.push(Mismatch { path: self.walk.path(), message: message.into() });
    }

    fn value(&mut self, value: &Value, ty: &Type) {
        if *ty == Type::Dynamic {
            return self.dynamic(value);
        }
        match value {
            Value::Null => {}
            Value::Unknown(r) => {
                if let Err(reason) = validate_refinements(r, ty) {
                    self.report(reason);
                }
            }
            _ => self.known(value, ty),
        }
    }

    fn dynamic(&mut self, value: &Value) {
        let (ty, inner) = match value {
            Value::Null | Value::Unknown(_) => return,
            Value::Dynamic(d) => (d.ty.clone(), &d.value),
            bare => match infer_type(bare) {
                Some(ty) => (ty, bare),
                None => {
                    return self.report(format!(
                        "a value of dynamic type must say its type (found a bare {})",
                        bare.kind()
                    ));
                }
            },
        };
        if self.walk.enter().is_err() {
            return self.report(format!("values nest deeper than {MAX_DEPTH} levels"));
        }
        if !type_fits_depth(&ty, MAX_DEPTH - self.walk.depth()) {
            self.report(format!("the dynamic value's type nests deeper than {MAX_DEPTH} levels"));
        } else {
            self.value(inner, &ty);
        }
        self.walk.leave();
    }

    fn known(&mut self, value: &Value, ty: &Type) {
        match (ty, value) {
            (Type::String, Value::String(s)) => {
                if s.len() > MAX_STRING_BYTES {
                    self.report(format!(
                        "the string is {} bytes long, more than Terrarium's limit of {} for one string \
                         (Terraform keeps every string of its state in memory several times over)",
                        s.len(),
                        format_args!("{}MiB", MAX_STRING_BYTES >> 20)
                    ));
                }
            }
            (Type::Bool, Value::Bool(_)) => {}
            (Type::Number, Value::Number(n)) => {
                if let Some(reason) =
                    number::invalid_number_reason(n).or_else(|| number::unstorable_number_reason(n))
                {
                    self.report(reason);
                }
            }
            (Type::List(et), Value::List(items)) | (Type::Set(et), Value::Set(items)) => {
                self.nested(|c| {
                    for (i, item) in items.iter().enumerate() {
                        c.at(index_step(i), |c| c.value(item, et));
                    }
                });
                if matches!(value, Value::Set(_))
                    && let Some((first, second)) = equal_set_elements(items)
                {
                    self.report(format!(
                        "set elements {first} and {second} are equal; a set holds each value once, \
                         and Terraform would merge them without a word"
                    ));
                }
            }
            (Type::Tuple(types), Value::Tuple(items)) => {
                if types.len() != items.len() {
                    self.report(format!(
                        "a tuple of {} elements is required, found {}",
                        types.len(),
                        items.len()
                    ));
                }
                self.nested(|c| {
                    for (i, (item, et)) in items.iter().zip(types).enumerate() {
                        c.at(index_step(i), |c| c.value(item, et));
                    }
                });
            }
            (Type::Map(et), Value::Map(entries)) => {
                self.nested(|c| {
                    for (key, item) in entries {
                        c.at(PathStep::Key(key.clone()), |c| c.value(item, et));
                    }
                });
            }
            (Type::Object(object), Value::Object(attrs)) => {
                for name in object.attributes.keys().filter(|n| !attrs.contains_key(*n)) {
                    self.report(format!("missing attribute {name:?}"));
                }
                for name in attrs.keys().filter(|n| !object.attributes.contains_key(*n)) {
                    self.report(format!("unsupported attribute {name:?}"));
                }
                self.nested(|c| {
                    for (name, attr_ty) in &object.attributes {
                        if let Some(item) = attrs.get(name) {
                            c.at(PathStep::Attribute(name.clone()), |c| c.value(item, attr_ty));
                        }
                    }
                });
            }
            _ => {
                self.report(format!("expected {}, found {}", ty.friendly_name(), found_name(value)))
            }
        }
    }

    fn nested(&mut self, body: impl FnOnce(&mut Checker)) {
        if self.walk.enter().is_err() {
            return self.report(format!("values nest deeper than {MAX_DEPTH} levels"));
        }
        body(self);
        self.walk.leave();
    }

    fn at(&mut self, step: PathStep, body: impl FnOnce(&mut Checker)) {
        self.walk.push(step);
        body(self);
        self.walk.pop();
    }
}

/// The positions of two equal wholly-known elements of a set, if it has any. Elements are
/// compared by value (`1` equals `1.0`; sets inside compare regardless of order); elements
/// with unknowns are never equal to anything, as in cty. O(n log n).
pub(crate) fn equal_set_elements(items: &[Value]) -> Option<(usize, usize)> {
    let mut keys: Vec<(SetKey<'_>, usize)> =
        items.iter().enumerate().filter_map(|(i, v)| Some((SetKey::of(v)?, i))).collect();
    keys.sort();
    keys.windows(2).find(|w| w[0].0 == w[1].0).map(|w| (w[0].1.min(w[1].1), w[0].1.max(w[1].1)))
}

/// A wholly-known value in a form whose equality is value equality and whose order is total.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum SetKey<'a> {
    Null,
    Bool(bool),
    /// Canonical decimal text: equal numbers have equal text whatever their representation.
    Number(String),
    String(&'a str),
    Sequence(Vec<SetKey<'a>>),
    /// Sorted, so that order does not matter.
    Set(Vec<SetKey<'a>>),
    Entries(Vec<(&'a str, SetKey<'a>)>),
    Typed(String, Box<SetKey<'a>>),
}

impl<'a> SetKey<'a> {
    /// `None` when the value contains an unknown.
    fn of(value: &'a Value) -> Option<SetKey<'a>> {
        Some(match value {
            Value::Null => SetKey::Null,
            Value::Unknown(_) => return None,
            Value::Bool(b) => SetKey::Bool(*b),
            Value::Number(n) => SetKey::Number(n.to_string()),
            Value::String(s) => SetKey::String(s),
            Value::List(items) | Value::Tuple(items) => {
                SetKey::Sequence(items.iter().map(SetKey::of).collect::<Option<_>>()?)
            }
            Value::Set(items) => {
                let mut keys: Vec<SetKey<'a>> =
                    items.iter().map(SetKey::of).collect::<Option<_>>()?;
                keys.sort();
                SetKey::Set(keys)
            }
            Value::Map(entries) | Value::Object(entries) => SetKey::Entries(
                entries
                    .iter()
                    .map(|(k, v)| Some((k.as_str(), SetKey::of(v)?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Dynamic(d) => SetKey::Typed(d.ty.to_json(), Box::new(SetKey::of(&d.value)?)),
        })
    }
}

/// How a value's kind is named in messages ("found bool").
pub(crate) fn found_name(value: &Value) -> &'static str {
    match value {
        Value::Dynamic(_) => "dynamic value (a value carrying its own type)",
        other => other.kind(),
    }
}

/// Checks an unknown's refinements against what cty accepts for `ty`: cty rejects
/// refinements that cannot apply to the type, and panics on contradictory ones, so neither
/// may reach Terraform. Refinements on a `dynamic` unknown are dropped, never an error.
pub(crate) fn validate_refinements(r: &Refinements, ty: &Type) -> Result<(), String> {
    if *ty == Type::Dynamic || r.is_empty() {
        return Ok(());
    }
    if r.nullable == Some(true) {
        return Err("an unknown value refined as definitely null should be a null".into());
    }
    let is_collection = matches!(ty, Type::List(_) | Type::Set(_) | Type::Map(_));
    let name = ty.friendly_name();
    if r.string_prefix.is_some() && *ty != Type::String {
        return Err(format!("a string prefix refinement does not apply to {name}"));
    }
    if (r.number_lower.is_some() || r.number_upper.is_some()) && *ty != Type::Number {
        return Err(format!("a number range refinement does not apply to {name}"));
    }
    if (r.length_lower.is_some() || r.length_upper.is_some()) && !is_collection {
        return Err(format!("a length refinement does not apply to {name}"));
    }
    // Go reads the bounds into an `int`.
    for bound in [r.length_lower, r.length_upper].into_iter().flatten() {
        if i64::try_from(bound).is_err() {
            return Err(format!("length bound {bound} is too large"));
        }
    }
    if let (Some(lower), Some(upper)) = (r.length_lower, r.length_upper)
        && lower > upper
    {
        return Err(format!("length lower bound {lower} exceeds upper bound {upper}"));
    }
    for bound in [&r.number_lower, &r.number_upper].into_iter().flatten() {
        if let Some(reason) = number::invalid_number_reason(&bound.value) {
            return Err(format!("number bound: {reason}"));
        }
    }
    if let (Some(lower), Some(upper)) = (&r.number_lower, &r.number_upper) {
        let empty = match number::compare(&lower.value, &upper.value) {
            Some(Ordering::Greater) => true,
            Some(Ordering::Equal) => !(lower.inclusive && upper.inclusive),
            Some(Ordering::Less) => false,
            None => true,
        };
        if empty {
            return Err(format!(
                "number range {}{}, {}{} is empty",
                if lower.inclusive { "[" } else { "(" },
                lower.value,
                upper.value,
                if upper.inclusive { "]" } else { ")" },
            ));
        }
    }
    Ok(())
}

/// The type of a bare value given where the schema says `dynamic`, when it is unambiguous:
/// primitives; lists, sets and maps whose elements are non-empty and all infer to the same
/// type; tuples and objects whose elements all infer. Nulls, unknowns and values that
/// already carry a type give `None`.
pub(crate) fn infer_type(value: &Value) -> Option<Type> {
    infer_within(value, MAX_DEPTH)
}

fn infer_within(value: &Value, budget: usize) -> Option<Type> {
    let budget = budget.checked_sub(1)?;
    let same_element_type = |items: &mut dyn Iterator<Item = &Value>| -> Option<Type> {
        let first = infer_within(items.next()?, budget)?;
        for item in items {
            if infer_within(item, budget)? != first {
                return None;
            }
        }
        Some(first)
    };
    match value {
        Value::String(_) => Some(Type::String),
        Value::Number(_) => Some(Type::Number),
        Value::Bool(_) => Some(Type::Bool),
        Value::List(items) => same_element_type(&mut items.iter()).map(Type::list),
        Value::Set(items) => same_element_type(&mut items.iter()).map(Type::set),
        Value::Map(entries) => same_element_type(&mut entries.values()).map(Type::map),
        Value::Tuple(items) => {
            Some(Type::Tuple(items.iter().map(|v| infer_within(v, budget)).collect::<Option<_>>()?))
        }
        Value::Object(attrs) => {
            let typed: Option<Vec<(String, Type)>> =
                attrs.iter().map(|(k, v)| Some((k.clone(), infer_within(v, budget)?))).collect();
            Some(Type::object(typed?))
        }
        Value::Null | Value::Unknown(_) | Value::Dynamic(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use terrarium_model::{DynamicValue, Number, NumberBound};

    use super::*;

    fn obj(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
        Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn only(found: Vec<Mismatch>) -> (String, String) {
        assert_eq!(found.len(), 1, "expected exactly one mismatch, got {found:?}");
        (found[0].path.to_string(), found[0].message.clone())
    }

    #[test]
    fn primitive_mismatch_names_the_map_key() {
        let ty = Type::object([("tags", Type::map(Type::String))]);
        let value = obj([("tags", Value::Map(BTreeMap::from([("k".into(), Value::Bool(true))])))]);
        let found = check(&value, &ty);
        assert_eq!(found[0].to_string(), r#"at tags["k"]: expected string, found bool"#);
        assert_eq!(only(found), (r#"tags["k"]"#.into(), "expected string, found bool".into()));
    }

    #[test]
    fn number_where_string_expected_is_a_mismatch() {
        let ty = Type::list(Type::String);
        let value = Value::List(vec![Value::string("a"), Value::Number(Number::Int(1))]);
        assert_eq!(
            only(check(&value, &ty)),
            ("[1]".into(), "expected string, found number".into())
        );
    }

    #[test]
    fn object_attributes_must_be_exact() {
        let ty = Type::object([("a", Type::String), ("b", Type::Number)]);
        let value = obj([("a", Value::string("x")), ("c", Value::Null)]);
        let found = check(&value, &ty);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|m| m.path.is_root()));
        assert!(found.iter().any(|m| m.message == r#"missing attribute "b""#));
        assert!(found.iter().any(|m| m.message == r#"unsupported attribute "c""#));
    }

    #[test]
    fn nested_block_paths_and_set_elements() {
        let ty = Type::object([("rule", Type::set(Type::object([("port", Type::Number)])))]);
        let value = obj([(
            "rule",
            Value::Set(vec![
                obj([("port", Value::Number(Number::Int(80)))]),
                obj([("port", Value::string("443"))]),
            ]),
        )]);
        assert_eq!(
            only(check(&value, &ty)),
            ("rule[1].port".into(), "expected number, found string".into())
        );
    }

    #[test]
    fn tuple_length_and_elements() {
        let ty = Type::Tuple(vec![Type::String, Type::Bool]);
        let short = Value::Tuple(vec![Value::string("a")]);
        assert_eq!(
            only(check(&short, &ty)),
            ("(root)".into(), "a tuple of 2 elements is required, found 1".into())
        );
        let wrong = Value::Tuple(vec![Value::string("a"), Value::string("b")]);
        assert_eq!(only(check(&wrong, &ty)), ("[1]".into(), "expected bool, found string".into()));
    }

    #[test]
    fn nulls_and_unknowns_are_allowed_anywhere() {
        let ty = Type::object([
            ("a", Type::list(Type::Number)),
            ("b", Type::String),
            ("c", Type::Dynamic),
        ]);
        let value = obj([
            ("a", Value::List(vec![Value::Null, Value::unknown()])),
            ("b", Value::unknown()),
            ("c", Value::Null),
        ]);
        assert!(check(&value, &ty).is_empty());
        assert!(check(&Value::Null, &ty).is_empty());
        assert!(check(&Value::unknown(), &ty).is_empty());
    }

    #[test]
    fn dynamic_values_are_checked_against_their_own_type() {
        let ty = Type::object([("d", Type::Dynamic)]);
        let good = obj([(
            "d",
            Value::Dynamic(Box::new(DynamicValue {
                ty: Type::list(Type::Bool),
                value: Value::List(vec![Value::Bool(true)]),
            })),
        )]);
        assert!(check(&good, &ty).is_empty());
        let bad = obj([(
            "d",
            Value::Dynamic(Box::new(DynamicValue {
                ty: Type::list(Type::Bool),
                value: Value::List(vec![Value::string("x")]),
            })),
        )]);
        assert_eq!(only(check(&bad, &ty)), ("d[0]".into(), "expected bool, found string".into()));
        // A bare value whose type is evident is fine; one whose type is not is reported.
        assert!(check(&obj([("d", Value::List(vec![Value::string("x")]))]), &ty).is_empty());
        let (path, message) = only(check(&obj([("d", Value::List(vec![]))]), &ty));
        assert_eq!(path, "d");
        assert!(message.starts_with("a value of dynamic type must say its type"), "{message}");
        // A typed value where the schema has a concrete type is a mismatch.
        let typed =
            Value::Dynamic(Box::new(DynamicValue { ty: Type::String, value: Value::string("x") }));
        assert_eq!(
            only(check(&typed, &Type::String)).1,
            "expected string, found dynamic value (a value carrying its own type)"
        );
    }

    #[test]
    fn refinements_must_suit_the_type_and_be_consistent() {
        let prefix =
            Value::Unknown(Refinements { string_prefix: Some("ab".into()), ..Default::default() });
        assert!(check(&prefix, &Type::String).is_empty());
        assert_eq!(
            only(check(&prefix, &Type::Number)).1,
            "a string prefix refinement does not apply to number"
        );
        let lengths = Value::Unknown(Refinements {
            length_lower: Some(3),
            length_upper: Some(2),
            ..Default::default()
        });
        assert_eq!(
            only(check(&lengths, &Type::list(Type::String))).1,
            "length lower bound 3 exceeds upper bound 2"
        );
        let tuple_len = Value::Unknown(Refinements { length_lower: Some(1), ..Default::default() });
        assert_eq!(
            only(check(&tuple_len, &Type::Tuple(vec![]))).1,
            "a length refinement does not apply to tuple"
        );
        let bound = |n: i64, inclusive| Some(NumberBound { value: Number::Int(n), inclusive });
        let empty = Value::Unknown(Refinements {
            number_lower: bound(5, true),
            number_upper: bound(5, false),
            ..Default::default()
        });
        assert_eq!(only(check(&empty, &Type::Number)).1, "number range [5, 5) is empty");
        let point = Value::Unknown(Refinements {
            number_lower: bound(5, true),
            number_upper: bound(5, true),
            ..Default::default()
        });
        assert!(check(&point, &Type::Number).is_empty());
        let null = Value::Unknown(Refinements { nullable: Some(true), ..Default::default() });
        assert_eq!(
            only(check(&null, &Type::Bool)).1,
            "an unknown value refined as definitely null should be a null"
        );
        // Under dynamic, refinements are dropped on encoding, so they are not an error.
        assert!(check(&prefix, &Type::Dynamic).is_empty());
    }

    #[test]
    fn invalid_numbers_are_reported() {
        let value = Value::List(vec![
            Value::Number(Number::Float(f64::NAN)),
            Value::Number(Number::Decimal("1x".into())),
        ]);
        let found = check(&value, &Type::list(Type::Number));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].path.to_string(), "[0]");
        assert_eq!(found[1].path.to_string(), "[1]");
    }

    #[test]
    fn absurdly_deep_values_are_reported_not_overflowed() {
        let mut value = Value::string("leaf");
        let mut ty = Type::String;
        for _ in 0..(MAX_DEPTH + 10) {
            value = Value::List(vec![value]);
            ty = Type::list(ty);
        }
        let found = check(&value, &ty);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("nest deeper"), "{}", found[0].message);
    }

    #[test]
    fn inference_is_unambiguous_only() {
        assert_eq!(
            infer_type(&Value::List(vec![Value::string("a")])),
            Some(Type::list(Type::String))
        );
        assert_eq!(infer_type(&Value::List(vec![Value::string("a"), Value::Bool(true)])), None);
        assert_eq!(infer_type(&Value::Set(vec![])), None);
        assert_eq!(infer_type(&Value::Tuple(vec![])), Some(Type::Tuple(vec![])));
        assert_eq!(
            infer_type(&obj([("n", Value::Number(Number::Int(1)))])),
            Some(Type::object([("n", Type::Number)]))
        );
        assert_eq!(infer_type(&Value::List(vec![Value::Null])), None);
    }
}

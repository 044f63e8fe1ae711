//! Value equality as Terraform means it, and the canonical keys that make set comparison
//! O(n log n).

use std::fmt::Write as _;

use terrarium_model::Value;

/// Whether two values are the same Terraform value: numbers compare by value whatever their
/// representation, sets compare without regard to order, dynamic values compare their types
/// too. An unknown is never the same as anything, not even another unknown: nobody can tell
/// yet.
///
/// Sets are compared by sorting canonical keys of their elements, so comparing two sets of
/// n elements costs O(n log n), not the O(n²) of pairwise matching.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Unknown(_), _) | (_, Value::Unknown(_)) => false,
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x.same_value(y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Set(x), Value::Set(y)) => same_elements(x, y),
        (Value::Map(x), Value::Map(y)) | (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && same_value(vx, vy))
        }
        (Value::Dynamic(x), Value::Dynamic(y)) => x.ty == y.ty && same_value(&x.value, &y.value),
        _ => false,
    }
}

/// Multiset comparison by sorted canonical keys.
fn same_elements(x: &[Value], y: &[Value]) -> bool {
    if x.len() != y.len() || x.iter().chain(y).any(Value::contains_unknown) {
        return false;
    }
    let mut kx: Vec<String> = x.iter().map(canonical_key).collect();
    let mut ky: Vec<String> = y.iter().map(canonical_key).collect();
    kx.sort_unstable();
    ky.sort_unstable();
    kx == ky
}

/// A text that two values share exactly when [`same_value`] holds for them (values without
/// unknowns; an unknown is written `?`). Set elements are sorted by their keys, numbers are
/// written in their canonical decimal form, and every string is length-prefixed so that no
/// two different values can collide.
///
/// Keys order and index set elements: matching the elements of two sets through a sorted
/// list or a map of keys is what keeps set planning O(n log n).
pub fn canonical_key(value: &Value) -> String {
    let mut out = String::new();
    write_key(value, &mut out);
    out
}

fn write_key(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push('_'),
        Value::Unknown(_) => out.push('?'),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Number(n) => {
            let text = n.to_string();
            let _ = write!(out, "n{}:{text}", text.len());
        }
        Value::String(s) => {
            let _ = write!(out, "s{}:{s}", s.len());
        }
        Value::List(items) | Value::Tuple(items) => {
            out.push('[');
            for item in items {
                write_key(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Set(items) => {
            let mut keys: Vec<String> = items.iter().map(canonical_key).collect();
            keys.sort_unstable();
            out.push('{');
            for key in keys {
                out.push_str(&key);
                out.push(',');
            }
            out.push('}');
        }
        Value::Map(entries) | Value::Object(entries) => {
            out.push('(');
            for (k, v) in entries {
                let _ = write!(out, "{}:{k}=", k.len());
                write_key(v, out);
                out.push(',');
            }
            out.push(')');
        }
        Value::Dynamic(d) => {
            let ty = d.ty.to_json();
            let _ = write!(out, "d{}:{ty}", ty.len());
            write_key(&d.value, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use terrarium_model::Number;

    use super::*;

    #[test]
    fn keys_agree_with_same_value() {
        let a = Value::Set(vec![Value::Number(Number::Int(1)), Value::Number(Number::Float(2.5))]);
        let b = Value::Set(vec![
            Value::Number(Number::Decimal("2.5".into())),
            Value::Number(Number::Int(1)),
        ]);
        assert!(same_value(&a, &b));
        assert_eq!(canonical_key(&a), canonical_key(&b));
        let c = Value::Set(vec![Value::string("1"), Value::Number(Number::Int(1))]);
        let d = Value::Set(vec![Value::Number(Number::Int(1)), Value::Number(Number::Int(1))]);
        assert!(!same_value(&c, &d));
        assert_ne!(canonical_key(&c), canonical_key(&d));
        // Length prefixes: "a,b" as one string is not two strings.
        assert_ne!(
            canonical_key(&Value::List(vec![Value::string("a,s1:b")])),
            canonical_key(&Value::List(vec![Value::string("a"), Value::string("b")]))
        );
        // Duplicates count (multisets, as sets decoded from the wire may be).
        let e = Value::Set(vec![Value::string("x"), Value::string("x"), Value::string("y")]);
        let f = Value::Set(vec![Value::string("x"), Value::string("y"), Value::string("y")]);
        assert!(!same_value(&e, &f));
        assert!(!same_value(
            &Value::Set(vec![Value::unknown()]),
            &Value::Set(vec![Value::unknown()])
        ));
    }
}

//! Value equality as Terraform means it.

use terrarium_model::Value;

/// Whether two values are the same Terraform value: numbers compare by value whatever their
/// representation, sets compare without regard to order, dynamic values compare their types
/// too. An unknown is never the same as anything, not even another unknown: nobody can tell
/// yet.
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
            x.len() == y.len() && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && same_value(vx, vy))
        }
        (Value::Dynamic(x), Value::Dynamic(y)) => x.ty == y.ty && same_value(&x.value, &y.value),
        _ => false,
    }
}

/// Multiset comparison; sets are small enough in practice that quadratic is fine, and set
/// elements have no order or hash to lean on.
fn same_elements(x: &[Value], y: &[Value]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let mut matched = vec![false; y.len()];
    x.iter().all(|a| {
        let found = y.iter().enumerate().find(|(i, b)| !matched[*i] && same_value(a, b));
        match found {
            Some((i, _)) => {
                matched[i] = true;
                true
            }
            None => false,
        }
    })
}

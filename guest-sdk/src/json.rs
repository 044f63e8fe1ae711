//! Models as plain JSON, and back: for a provider that keeps state in files or sends it to
//! an API as it is.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::{Attr, Model, Set, json};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize, Model)]
//! struct Pet {
//!     #[tf(computed)]
//!     id: Attr<String>,
//!     name: String,
//!     tags: Option<Set<String>>,
//! }
//!
//! let rex = Pet { id: Attr::Known("pet-1".into()), name: "rex".into(), tags: None };
//! let stored = json::to_json(&rex).unwrap();
//! assert_eq!(stored, serde_json::json!({"id": "pet-1", "name": "rex", "tags": null}));
//! assert_eq!(json::from_json::<Pet>(&stored).unwrap(), rex);
//! ```
//!
//! `#[derive(Serialize)]` alone does not give this JSON: [`Attr`](crate::Attr) is an enum,
//! written by serde_json as `{"Known": ...}`. These functions go through Terraform values,
//! so null is `null`, a set is an array, and a number keeps every digit.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::{AttributePath, Value};

use crate::typed::TfType;
use crate::value::{Error, conform, from_value, to_value};

/// `model` as plain JSON: objects, arrays (lists, sets and tuples), strings, exact numbers,
/// booleans and `null`. An unknown value is an error naming its attribute: only what is
/// known can be stored.
pub fn to_json<T: Serialize + ?Sized>(model: &T) -> Result<Json, Error> {
    value_to_json(&to_value(model)?)
}

/// A `T` from the JSON [`to_json`] writes, or any JSON of that shape (attributes left out
/// are null). A value of the wrong type is an error naming its attribute.
pub fn from_json<T: DeserializeOwned + TfType>(json: &Json) -> Result<T, Error> {
    let value = conform(value_from_json(json), &T::tf_type())?;
    from_value(&value)
}

/// JSON as a value with no type yet: arrays become lists and objects maps, which
/// [`conform`] reshapes into the sets, tuples and objects a type asks for.
pub fn value_from_json(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => {
            terrarium_model::Number::parse(&n.to_string()).map_or(Value::Null, Value::Number)
        }
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(value_from_json).collect()),
        Json::Object(m) => {
            Value::Map(m.iter().map(|(k, v)| (k.clone(), value_from_json(v))).collect())
        }
    }
}

/// A value as plain JSON, as [`to_json`] writes a model.
pub fn value_to_json(value: &Value) -> Result<Json, Error> {
    json_at(value, &AttributePath::root())
}

fn json_at(value: &Value, path: &AttributePath) -> Result<Json, Error> {
    Ok(match value {
        Value::Null => Json::Null,
        Value::Unknown(_) => {
            return Err(Error::at(path, "the value is not known yet, so it has no JSON"));
        }
        Value::Bool(b) => Json::Bool(*b),
        // Exact: serde_json keeps the digits (arbitrary_precision), so 0.1 stays 0.1.
        Value::Number(n) => n
            .to_string()
            .parse::<serde_json::Number>()
            .map(Json::Number)
            .map_err(|e| Error::at(path, format!("the number {n} has no JSON form: {e}")))?,
        Value::String(s) => Json::String(s.clone()),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| json_at(item, &path.index(i as i64)))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) | Value::Object(m) => Json::Object(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), json_at(v, &path.attr(k))?)))
                .collect::<Result<_, Error>>()?,
        ),
        Value::Dynamic(d) => json_at(&d.value, path)?,
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::{Attr, Model, Set};

    #[derive(Debug, PartialEq, Serialize, Deserialize, Model)]
    struct Toy {
        kind: String,
        #[tf(computed)]
        serial: Attr<String>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize, Model)]
    struct Pet {
        name: String,
        legs: Attr<i64>,
        weight: Option<f64>,
        #[tf(nested)]
        toys: Option<Set<Toy>>,
    }

    #[test]
    fn a_model_goes_to_json_and_back_with_nulls_sets_and_exact_numbers() {
        let pet = Pet {
            name: "rex".into(),
            legs: Attr::Null,
            weight: Some(0.1),
            toys: Some(Set(vec![Toy { kind: "ball".into(), serial: Attr::Known("s-1".into()) }])),
        };
        let stored = to_json(&pet).unwrap();
        assert_eq!(
            stored,
            json!({"name": "rex", "legs": null, "weight": 0.1, "toys": [{"kind": "ball", "serial": "s-1"}]})
        );
        assert_eq!(from_json::<Pet>(&stored).unwrap(), pet);
        // Left out is null.
        let sparse: Pet = from_json(&json!({"name": "tom", "legs": 3})).unwrap();
        assert_eq!((sparse.legs, sparse.weight, sparse.toys), (Attr::Known(3), None, None));
    }

    #[test]
    fn an_unknown_value_has_no_json_and_the_error_names_it() {
        let pet = Pet {
            name: "rex".into(),
            legs: Attr::Known(4),
            weight: None,
            toys: Some(Set(vec![Toy { kind: "ball".into(), serial: Attr::Unknown }])),
        };
        let error = to_json(&pet).unwrap_err();
        assert_eq!(error.path().to_string(), "toys[0].serial", "{error}");
        let missing = from_json::<Pet>(&json!({"legs": 4})).unwrap_err();
        assert_eq!(missing.path().to_string(), "name", "{missing}");
        let wrong = from_json::<Pet>(&json!({"name": "rex", "legs": "four"})).unwrap_err();
        assert_eq!(wrong.path().to_string(), "legs", "{wrong}");
    }
}

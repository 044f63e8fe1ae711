//! Helpers for [`Resource::import`](crate::Resource::import): states from import IDs.

use serde::de::DeserializeOwned;
use terrarium_model::{Type, Value};

use crate::diag::{Diagnostics, Result};
use crate::schema::Schema;
use crate::value::from_value;

/// A state holding only an ID: the usual import, for resources whose ID is all
/// [`Resource::read`](crate::Resource::read) needs. Every other attribute is null until read
/// fills it in, so the state type must accept nulls there (`Option` or `Attr` fields).
///
/// ```
/// # use terrarium_sdk::{schema::{Attribute, Schema}, Attr, import_passthrough};
/// #[derive(serde::Deserialize)]
/// struct State { id: Attr<String>, name: Option<String> }
/// let schema = Schema::new()
///     .attribute(Attribute::string("id").computed())
///     .attribute(Attribute::string("name").optional());
/// let state: State = import_passthrough(&schema, "abc").unwrap();
/// assert_eq!(state.id, Attr::Known("abc".to_string()));
/// ```
pub fn import_passthrough<S: DeserializeOwned>(schema: &Schema, id: &str) -> Result<S> {
    if schema.root().attribute_named("id").is_none() {
        return Err(Diagnostics::error(
            "Import not supported",
            "The resource has no \"id\" attribute to import into. This is a bug in the provider.",
        ));
    }
    let object = null_object(schema);
    let Value::Object(mut attrs) = object else {
        return Err(Diagnostics::error("Import failed", "The resource schema is not an object."));
    };
    attrs.insert("id".to_string(), Value::string(id));
    Ok(from_value(&Value::Object(attrs))?)
}

/// An object of the schema's type with every attribute null.
fn null_object(schema: &Schema) -> Value {
    match schema.implied_type() {
        Type::Object(o) => {
            Value::Object(o.attributes.into_keys().map(|k| (k, Value::Null)).collect())
        }
        _ => Value::Null,
    }
}

/// Builds a state from an import ID made of `parts.len()` parts separated by `separator`
/// (`"region/name"`), for resources whose state needs more than an ID. The parts are
/// returned in order; an ID of another shape is an error that tells the user the expected
/// form.
///
/// ```
/// use terrarium_sdk::import_composite;
/// let [region, name] = import_composite("eu/web", '/', ["REGION", "NAME"]).unwrap();
/// assert_eq!((region, name), ("eu", "web"));
/// assert!(import_composite("eu", '/', ["REGION", "NAME"]).is_err());
/// ```
pub fn import_composite<'a, const N: usize>(
    id: &'a str,
    separator: char,
    parts: [&str; N],
) -> Result<[&'a str; N]> {
    let found: Vec<&str> = id.split(separator).collect();
    let expected = parts.join(&separator.to_string());
    if found.len() != N || found.iter().any(|p| p.is_empty()) {
        return Err(Diagnostics::error(
            "Invalid import ID",
            format!("Expected an import ID of the form {expected}, got {id:?}."),
        ));
    }
    let mut out = [""; N];
    out.copy_from_slice(&found);
    Ok(out)
}

//! Terraform types and their JSON syntax (`"string"`, `["list","number"]`, ...).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value as Json;

/// A Terraform (cty) type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    String,
    Number,
    Bool,
    /// `dynamic`: the concrete type travels with the value.
    Dynamic,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Tuple(Vec<Type>),
    Object(ObjectType),
}

/// An object type: attribute types by name, and which of them are optional
/// (only meaningful in function parameter and variable types).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectType {
    pub attributes: BTreeMap<String, Type>,
    pub optional: BTreeSet<String>,
}

/// A type string that is not valid Terraform type JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid type {json}: {reason}")]
pub struct TypeError {
    pub json: String,
    pub reason: String,
}

impl Type {
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }
    pub fn set(element: Type) -> Type {
        Type::Set(Box::new(element))
    }
    pub fn map(element: Type) -> Type {
        Type::Map(Box::new(element))
    }
    pub fn object<K: Into<String>>(attributes: impl IntoIterator<Item = (K, Type)>) -> Type {
        Type::Object(ObjectType {
            attributes: attributes.into_iter().map(|(k, t)| (k.into(), t)).collect(),
            optional: BTreeSet::new(),
        })
    }

    /// Parses Terraform's JSON type syntax.
    pub fn from_json(text: &str) -> Result<Type, TypeError> {
        let json: Json = serde_json::from_str(text)
            .map_err(|e| TypeError { json: text.to_string(), reason: e.to_string() })?;
        Type::from_json_value(&json).map_err(|reason| TypeError { json: text.to_string(), reason })
    }

    /// Parses an already-parsed JSON type value.
    pub fn from_json_value(json: &Json) -> Result<Type, String> {
        match json {
            Json::String(s) => match s.as_str() {
                "string" => Ok(Type::String),
                "number" => Ok(Type::Number),
                "bool" => Ok(Type::Bool),
                "dynamic" => Ok(Type::Dynamic),
                other => Err(format!("unknown primitive type {other:?}")),
            },
            Json::Array(items) => {
                let kind = items
                    .first()
                    .and_then(Json::as_str)
                    .ok_or("a compound type must start with its kind as a string")?;
                let arg = items.get(1).ok_or_else(|| format!("{kind} type needs an argument"))?;
                match (kind, items.len()) {
                    ("list", 2) => Ok(Type::list(Type::from_json_value(arg)?)),
                    ("set", 2) => Ok(Type::set(Type::from_json_value(arg)?)),
                    ("map", 2) => Ok(Type::map(Type::from_json_value(arg)?)),
                    ("tuple", 2) => {
                        let elems = arg.as_array().ok_or("tuple types take an array of types")?;
                        Ok(Type::Tuple(
                            elems.iter().map(Type::from_json_value).collect::<Result<_, _>>()?,
                        ))
                    }
                    ("object", 2 | 3) => {
                        let attrs = arg.as_object().ok_or("object types take a map of types")?;
                        let attributes = attrs
                            .iter()
                            .map(|(k, v)| Ok((k.clone(), Type::from_json_value(v)?)))
                            .collect::<Result<BTreeMap<_, _>, String>>()?;
                        let mut optional = BTreeSet::new();
                        if let Some(opt) = items.get(2) {
                            for name in
                                opt.as_array().ok_or("optional attributes must be an array")?
                            {
                                let name = name
                                    .as_str()
                                    .ok_or("optional attribute names must be strings")?;
                                if !attributes.contains_key(name) {
                                    return Err(format!(
                                        "optional attribute {name:?} is not an attribute"
                                    ));
                                }
                                optional.insert(name.to_string());
                            }
                        }
                        Ok(Type::Object(ObjectType { attributes, optional }))
                    }
                    (k, n) => Err(format!("unknown compound type {k:?} with {n} elements")),
                }
            }
            other => Err(format!("a type is a string or an array, not {other}")),
        }
    }

    /// Terraform's compact JSON type syntax.
    pub fn to_json_value(&self) -> Json {
        match self {
            Type::String => Json::from("string"),
            Type::Number => Json::from("number"),
            Type::Bool => Json::from("bool"),
            Type::Dynamic => Json::from("dynamic"),
            Type::List(t) => Json::Array(vec!["list".into(), t.to_json_value()]),
            Type::Set(t) => Json::Array(vec!["set".into(), t.to_json_value()]),
            Type::Map(t) => Json::Array(vec!["map".into(), t.to_json_value()]),
            Type::Tuple(ts) => Json::Array(vec![
                "tuple".into(),
                Json::Array(ts.iter().map(Type::to_json_value).collect()),
            ]),
            Type::Object(o) => {
                let attrs: serde_json::Map<String, Json> =
                    o.attributes.iter().map(|(k, t)| (k.clone(), t.to_json_value())).collect();
                let mut v = vec!["object".into(), Json::Object(attrs)];
                if !o.optional.is_empty() {
                    v.push(Json::Array(
                        o.optional.iter().map(|s| Json::from(s.as_str())).collect(),
                    ));
                }
                Json::Array(v)
            }
        }
    }

    pub fn to_json(&self) -> String {
        self.to_json_value().to_string()
    }

    /// Whether the type is `dynamic` or has `dynamic` somewhere inside (cty's
    /// `HasDynamicTypes`).
    pub fn has_dynamic_types(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::List(t) | Type::Set(t) | Type::Map(t) => t.has_dynamic_types(),
            Type::Tuple(items) => items.iter().any(Type::has_dynamic_types),
            Type::Object(o) => o.attributes.values().any(Type::has_dynamic_types),
            Type::String | Type::Number | Type::Bool => false,
        }
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::String | Type::Number | Type::Bool)
    }

    /// How deep the type nests; bounds recursion over values of this type.
    pub fn depth(&self) -> usize {
        match self {
            Type::String | Type::Number | Type::Bool | Type::Dynamic => 1,
            Type::List(t) | Type::Set(t) | Type::Map(t) => 1 + t.depth(),
            Type::Tuple(ts) => 1 + ts.iter().map(Type::depth).max().unwrap_or(0),
            Type::Object(o) => 1 + o.attributes.values().map(Type::depth).max().unwrap_or(0),
        }
    }

    /// Terraform's friendly name for error messages ("list of string").
    pub fn friendly_name(&self) -> String {
        match self {
            Type::String => "string".into(),
            Type::Number => "number".into(),
            Type::Bool => "bool".into(),
            Type::Dynamic => "dynamic".into(),
            Type::List(t) => format!("list of {}", t.friendly_name()),
            Type::Set(t) => format!("set of {}", t.friendly_name()),
            Type::Map(t) => format!("map of {}", t.friendly_name()),
            Type::Tuple(_) => "tuple".into(),
            Type::Object(_) => "object".into(),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_kind() {
        for text in [
            r#""string""#,
            r#""dynamic""#,
            r#"["list","number"]"#,
            r#"["set",["map","bool"]]"#,
            r#"["tuple",["string","number"]]"#,
            r#"["object",{"a":"string","b":["list","number"]}]"#,
            r#"["object",{"a":"string","b":"number"},["b"]]"#,
        ] {
            let t = Type::from_json(text).unwrap();
            assert_eq!(t.to_json(), text);
        }
    }

    #[test]
    fn rejects_malformed_types() {
        for text in [
            "",
            "1",
            r#""str""#,
            r#"["list"]"#,
            r#"["list","x"]"#,
            r#"["tuple","string"]"#,
            r#"["object",{"a":"string"},["b"]]"#,
            r#"["frob","string"]"#,
            "[]",
        ] {
            assert!(Type::from_json(text).is_err(), "{text} should be rejected");
        }
    }
}

//! Typed access to values: serde between Terraform [`Value`]s and the author's structs, and
//! reconciling a serialized value with the schema type it belongs to.
//!
//! Mapping (both directions):
//!
//! | Terraform value           | Rust                                                       |
//! |---------------------------|------------------------------------------------------------|
//! | object (a block)          | struct with one field per attribute (extra attributes are ignored when reading) |
//! | map                       | `BTreeMap<String, T>` / `HashMap<String, T>`                |
//! | list, set                 | `Vec<T>` (and other sequences)                              |
//! | tuple                     | Rust tuple                                                  |
//! | string                    | `String`, `&str`, or a unit-only enum (variant name)        |
//! | number                    | an integer or float type that holds it exactly; `String` for any number |
//! | bool                      | `bool`                                                      |
//! | null                      | `Option<T>` (`None`) or [`Attr<T>`](crate::Attr) (`Null`)  |
//! | unknown                   | [`Attr<T>`](crate::Attr) (`Unknown`) only                  |
//!
//! A null read into a plain `T`, or an unknown read into anything but `Attr<T>`, is an
//! error naming the attribute path. So is a number the Rust type cannot hold exactly: a
//! 20-digit number read into an `f64`, 0.123456789 into an `f32`, 300 into a `u8`; numbers
//! are never rounded on the way in, and an `f32` is written back as the number it stands for
//! (0.1, not 0.10000000149011612). Reading a value of a `dynamic` attribute reads the value
//! inside it.

mod conform;
mod de;
mod ser;

use std::fmt;

use terrarium_model::{AttributePath, Diagnostic, PathStep, Value};

pub use conform::{
    conform, conform_block, dynamic_blocks_as_collections, infer_type, upgrade_raw,
    upgrade_raw_block,
};
pub use terrarium_framework::{canonical_key, same_value};

/// The newtype name Terrarium's serializer recognises as [`BigNumber`](crate::BigNumber).
pub(crate) const BIG_NUMBER: &str = "$terrarium::BigNumber";

/// The newtype name Terrarium's serializer and deserializer recognise as
/// [`Dynamic`](crate::Dynamic).
pub(crate) const DYNAMIC: &str = "$terrarium::Dynamic";

thread_local! {
    /// Hands a [`Dynamic`](crate::Dynamic)'s value past serde's data model between its impls
    /// and Terrarium's (de)serializer, which take it at once: nothing else runs in between.
    pub(crate) static DYNAMIC_SLOT: std::cell::RefCell<Option<Value>> = const { std::cell::RefCell::new(None) };
}

/// Reads a value into `T`.
///
/// ```
/// use std::collections::BTreeMap;
/// use terrarium_sdk::{Attr, Value, from_value};
///
/// #[derive(serde::Deserialize)]
/// struct Thing { id: Attr<String>, size: i64 }
///
/// let value = Value::Object(BTreeMap::from([
///     ("id".to_string(), Value::unknown()),
///     ("size".to_string(), Value::Number(3.into())),
/// ]));
/// let thing: Thing = from_value(&value).unwrap();
/// assert!(thing.id.is_unknown());
/// assert_eq!(thing.size, 3);
/// ```
pub fn from_value<'de, T: serde::Deserialize<'de>>(value: &'de Value) -> Result<T, Error> {
    T::deserialize(de::ValueDeserializer::new(value, AttributePath::root()))
}

/// Writes `T` as a value. Structs become objects, maps become maps, sequences become lists
/// (use [`conform`] to turn them into the sets, tuples or objects a schema asks for).
pub fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(ser::ValueSerializer)
}

/// A value that does not fit the Rust type (or schema type) it was read into or written as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    path: AttributePath,
    message: String,
    /// Whether `path` has been set; errors from serde's derived code start without one and
    /// get the path of the value being decoded when they pass through it.
    located: bool,
    /// Whether the value at `path` was null or unknown where the Rust type needs a value.
    absent: bool,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error {
            path: AttributePath::root(),
            message: message.into(),
            located: false,
            absent: false,
        }
    }

    pub(crate) fn at(path: &AttributePath, message: impl Into<String>) -> Self {
        Error { path: path.clone(), message: message.into(), located: true, absent: false }
    }

    /// A null or unknown value read into a type that needs a value.
    pub(crate) fn absent_at(path: &AttributePath, message: impl Into<String>) -> Self {
        Error { absent: true, ..Error::at(path, message) }
    }

    /// Whether the value was null or unknown where the Rust type needs one: the value is
    /// not there yet, rather than of the wrong shape.
    pub fn is_absent(&self) -> bool {
        self.absent
    }

    /// Gives the error a path unless it already has a more precise one.
    pub(crate) fn locate(mut self, path: &AttributePath) -> Self {
        if !self.located {
            self.path = path.clone();
            self.located = true;
        }
        self
    }

    /// Puts the error one step deeper: the caller is the parent of the value at fault.
    pub(crate) fn within(mut self, step: PathStep) -> Self {
        self.path.0.insert(0, step);
        self.located = true;
        self
    }

    /// Where in the value the problem is.
    pub fn path(&self) -> &AttributePath {
        &self.path
    }

    /// What is wrong, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// An error diagnostic about the attribute at fault.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let summary = if self.path.is_root() { "Invalid value" } else { "Invalid attribute value" };
        Diagnostic::error(summary, self.to_string()).at(self.path.clone())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Error {}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(msg.to_string())
    }
}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(msg.to_string())
    }
}

impl From<Error> for Diagnostic {
    fn from(e: Error) -> Self {
        e.to_diagnostic()
    }
}

#[cfg(test)]
mod tests;

//! [`Attr<T>`]: an attribute that may be null or not yet known.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, EnumAccess, VariantAccess, Visitor};
use serde::ser::{Serialize, Serializer};

/// The enum name that Terrarium's serializer and deserializer recognise as [`Attr`]. Other
/// serde formats see an ordinary externally tagged enum.
pub(crate) const ATTR_ENUM: &str = "$terrarium::Attr";
pub(crate) const NULL: &str = "Null";
pub(crate) const UNKNOWN: &str = "Unknown";
pub(crate) const KNOWN: &str = "Known";
const VARIANTS: &[&str] = &[NULL, UNKNOWN, KNOWN];

/// A Terraform attribute value that may be null or unknown: use it for every field that
/// is optional, computed, or may refer to something not known until apply.
///
/// Terraform values have two states that Rust types do not: *null* (not set) and
/// *unknown* (set, but only known after apply). A plain `T` field refuses both with a clear
/// error, and `Option<T>` accepts null but refuses unknown, so an unknown can never be read
/// as a zero value by accident. `Attr<T>` makes all three states explicit:
///
/// ```
/// use terrarium_sdk::Attr;
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Server {
///     /// Computed: unknown in the plan of a new server, known once it exists.
///     id: Attr<String>,
///     /// Required: always known when the provider creates or updates it.
///     name: String,
///     /// Optional: null when the configuration does not set it.
///     port: Option<i64>,
/// }
///
/// let id: Attr<String> = Attr::Unknown;
/// assert_eq!(id.known(), None);
/// assert!(id.is_unknown());
/// ```
///
/// Written back (serialized) into a state, `Attr::Unknown` becomes an unknown value: a
/// provider may do that in a plan, never in the state it returns from create or update.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Attr<T> {
    /// Not set.
    #[default]
    Null,
    /// Set, but not known until apply.
    Unknown,
    /// Set and known.
    Known(T),
}

impl<T> Attr<T> {
    /// The value, if it is known.
    pub fn known(&self) -> Option<&T> {
        match self {
            Attr::Known(v) => Some(v),
            _ => None,
        }
    }

    /// The value, if it is known, by value.
    pub fn into_known(self) -> Option<T> {
        match self {
            Attr::Known(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the value is null (not set).
    pub fn is_null(&self) -> bool {
        matches!(self, Attr::Null)
    }

    /// Whether the value is not known until apply.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Attr::Unknown)
    }

    /// Whether the value is set and known.
    pub fn is_known(&self) -> bool {
        matches!(self, Attr::Known(_))
    }

    /// Borrows the value.
    pub fn as_ref(&self) -> Attr<&T> {
        match self {
            Attr::Null => Attr::Null,
            Attr::Unknown => Attr::Unknown,
            Attr::Known(v) => Attr::Known(v),
        }
    }

    /// Transforms a known value; null and unknown stay as they are.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Attr<U> {
        match self {
            Attr::Null => Attr::Null,
            Attr::Unknown => Attr::Unknown,
            Attr::Known(v) => Attr::Known(f(v)),
        }
    }

    /// The known value, or `default` when null. Unknown is an error: it means the caller
    /// asked for a value before Terraform could provide it.
    pub fn known_or(self, default: T) -> Result<T, NotKnown> {
        match self {
            Attr::Null => Ok(default),
            Attr::Unknown => Err(NotKnown),
            Attr::Known(v) => Ok(v),
        }
    }
}

impl<T> From<T> for Attr<T> {
    fn from(value: T) -> Self {
        Attr::Known(value)
    }
}

impl<T> From<Option<T>> for Attr<T> {
    /// `None` is null.
    fn from(value: Option<T>) -> Self {
        value.map_or(Attr::Null, Attr::Known)
    }
}

/// An [`Attr`] was unknown where a known value was needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the value is not known yet (it will be known after apply)")]
pub struct NotKnown;

impl<T: Serialize> Serialize for Attr<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Attr::Null => serializer.serialize_unit_variant(ATTR_ENUM, 0, NULL),
            Attr::Unknown => serializer.serialize_unit_variant(ATTR_ENUM, 1, UNKNOWN),
            Attr::Known(v) => serializer.serialize_newtype_variant(ATTR_ENUM, 2, KNOWN, v),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Attr<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum(ATTR_ENUM, VARIANTS, AttrVisitor(PhantomData))
    }
}

struct AttrVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for AttrVisitor<T> {
    type Value = Attr<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Terraform attribute value (null, unknown or known)")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let (variant, access): (String, _) = data.variant()?;
        match variant.as_str() {
            NULL => access.unit_variant().map(|()| Attr::Null),
            UNKNOWN => access.unit_variant().map(|()| Attr::Unknown),
            KNOWN => access.newtype_variant().map(Attr::Known),
            other => Err(de::Error::unknown_variant(other, VARIANTS)),
        }
    }
}

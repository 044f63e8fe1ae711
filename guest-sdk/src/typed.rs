//! The traits behind `#[derive(Model)]`: how Rust types map to Terraform types and schemas.
//!
//! | Rust field type                                   | Terraform type            |
//! |---------------------------------------------------|---------------------------|
//! | `String`                                          | `string`                  |
//! | `bool`                                            | `bool`                    |
//! | `i8`..`i64`, `u8`..`u64`, `isize`, `usize`, `f32`, `f64` | `number`           |
//! | [`BigNumber`] (exact decimal text)                | `number`                  |
//! | `Vec<T>`                                          | `list(T)`                 |
//! | [`Set<T>`], `BTreeSet<T>`, `HashSet<T>`           | `set(T)`                  |
//! | `BTreeMap<String, T>`, `HashMap<String, T>`       | `map(T)`                  |
//! | `(A, B)`, `(A, B, C)`, ...                        | `tuple([A, B, ...])`      |
//! | a struct deriving [`Model`](macro@crate::Model)   | `object({...})`           |
//! | [`Dynamic`] (a [`Value`] with its type)           | `dynamic`                 |
//! | `Option<T>`, [`Attr<T>`](crate::Attr), `Box<T>`   | the type of `T`           |
//!
//! Any other type can implement [`TfType`] itself, or a field can name its type with
//! `#[tf(type = ...)]`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use terrarium_model::schema::BlockNesting;
use terrarium_model::{Number, Type, Value};

use crate::attr::Attr;
use crate::schema::{Attribute, NestedBlock, Schema};
use crate::value::{BIG_NUMBER, DYNAMIC, DYNAMIC_SLOT};

/// A Rust type with a Terraform type.
pub trait TfType {
    /// Whether the Rust type can hold null (`Option`, [`Attr`]): `#[derive(Model)]` makes
    /// such fields optional, and others required, unless told otherwise.
    const NULLABLE: bool = false;

    /// The Terraform type values of this Rust type have.
    fn tf_type() -> Type;
}

/// A struct that is a Terraform object with a schema: a resource's state, a nested block, or
/// the objects of a nested attribute. Implemented by `#[derive(Model)]`.
///
/// A hand-written `impl Model for MyState {}` gives an empty schema, for resources that
/// write their [`Schema`] with the builder instead.
pub trait Model {
    /// The attributes, in declaration order.
    fn attributes() -> Vec<Attribute> {
        Vec::new()
    }

    /// The nested blocks, in declaration order.
    fn blocks() -> Vec<NestedBlock> {
        Vec::new()
    }

    /// The whole schema: attributes, blocks, description and version.
    fn schema() -> Schema {
        Self::attributes().into_iter().fold(Schema::new(), Schema::attribute).blocks(Self::blocks())
    }
}

impl Model for () {}
impl Model for Value {}

/// How a field holding [`Model`] objects nests them: one (`T`, `Option<T>`), a list
/// (`Vec<T>`), a set ([`Set<T>`]) or a map (`BTreeMap<String, T>`). Used for
/// `#[tf(nested)]` attributes and `#[tf(block)]` blocks.
pub trait Nest {
    /// The object type.
    type Object: Model;
    /// The nesting mode.
    const NESTING: BlockNesting;
}

impl<T: Nest> Nest for Option<T> {
    type Object = T::Object;
    const NESTING: BlockNesting = T::NESTING;
}
impl<T: Nest> Nest for Attr<T> {
    type Object = T::Object;
    const NESTING: BlockNesting = T::NESTING;
}
impl<T: Nest> Nest for Box<T> {
    type Object = T::Object;
    const NESTING: BlockNesting = T::NESTING;
}
impl<T: Model> Nest for Vec<T> {
    type Object = T;
    const NESTING: BlockNesting = BlockNesting::List;
}
impl<T: Model> Nest for Set<T> {
    type Object = T;
    const NESTING: BlockNesting = BlockNesting::Set;
}
impl<T: Model> Nest for BTreeSet<T> {
    type Object = T;
    const NESTING: BlockNesting = BlockNesting::Set;
}
impl<T: Model, S> Nest for HashSet<T, S> {
    type Object = T;
    const NESTING: BlockNesting = BlockNesting::Set;
}
impl<T: Model> Nest for BTreeMap<String, T> {
    type Object = T;
    const NESTING: BlockNesting = BlockNesting::Map;
}
impl<T: Model, S> Nest for HashMap<String, T, S> {
    type Object = T;
    const NESTING: BlockNesting = BlockNesting::Map;
}

macro_rules! number_types {
    ($($t:ty),*) => {$(
        impl TfType for $t {
            fn tf_type() -> Type {
                Type::Number
            }
        }
    )*};
}
number_types!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, Number);

impl TfType for String {
    fn tf_type() -> Type {
        Type::String
    }
}
impl TfType for bool {
    fn tf_type() -> Type {
        Type::Bool
    }
}
impl<T: TfType> TfType for Option<T> {
    const NULLABLE: bool = true;
    fn tf_type() -> Type {
        T::tf_type()
    }
}
impl<T: TfType> TfType for Attr<T> {
    const NULLABLE: bool = true;
    fn tf_type() -> Type {
        T::tf_type()
    }
}
impl<T: TfType> TfType for Box<T> {
    fn tf_type() -> Type {
        T::tf_type()
    }
}
impl<T: TfType> TfType for Vec<T> {
    fn tf_type() -> Type {
        Type::list(T::tf_type())
    }
}
impl<T: TfType> TfType for Set<T> {
    fn tf_type() -> Type {
        Type::set(T::tf_type())
    }
}
impl<T: TfType> TfType for BTreeSet<T> {
    fn tf_type() -> Type {
        Type::set(T::tf_type())
    }
}
impl<T: TfType, S> TfType for HashSet<T, S> {
    fn tf_type() -> Type {
        Type::set(T::tf_type())
    }
}
impl<T: TfType> TfType for BTreeMap<String, T> {
    fn tf_type() -> Type {
        Type::map(T::tf_type())
    }
}
impl<T: TfType, S> TfType for HashMap<String, T, S> {
    fn tf_type() -> Type {
        Type::map(T::tf_type())
    }
}

macro_rules! tuple_types {
    ($(($($t:ident),+)),*) => {$(
        impl<$($t: TfType),+> TfType for ($($t,)+) {
            fn tf_type() -> Type {
                Type::Tuple(vec![$($t::tf_type()),+])
            }
        }
    )*};
}
tuple_types!((A), (A, B), (A, B, C), (A, B, C, D), (A, B, C, D, E), (A, B, C, D, E, F));

/// A Terraform set: unordered, without duplicates. Unlike `BTreeSet` or `HashSet` it asks
/// nothing of its elements (no `Ord`, no `Hash`), so it can hold structs with
/// [`Attr`] fields; the SDK compares sets by canonical keys, in O(n log n).
/// Reads and writes as a sequence; the order of its elements means nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Set<T>(pub Vec<T>);

impl<T> Default for Set<T> {
    fn default() -> Self {
        Set(Vec::new())
    }
}

impl<T> Set<T> {
    /// The elements, in no particular order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// How many elements there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> FromIterator<T> for Set<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Set(iter.into_iter().collect())
    }
}

impl<T> IntoIterator for Set<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<T: Serialize> Serialize for Set<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Set<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::deserialize(deserializer).map(Set)
    }
}

/// A Terraform number of any size or precision, as its exact decimal text (`"1e400"`,
/// `"0.1"`). Terraform numbers are arbitrary-precision; use this where `i64` or `f64` would
/// lose something.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BigNumber(pub String);

impl TfType for BigNumber {
    fn tf_type() -> Type {
        Type::Number
    }
}

impl Serialize for BigNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Terrarium's serializer turns the text into an exact number; other formats see text.
        serializer.serialize_newtype_struct(BIG_NUMBER, &self.0)
    }
}

impl<'de> Deserialize<'de> for BigNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The value deserializer hands numbers to a `String` as their exact decimal text.
        String::deserialize(deserializer).map(BigNumber)
    }
}

#[doc(hidden)]
pub use terrarium_model::schema::BlockNesting as __BlockNesting;

/// The nested-attribute nesting of a block nesting (`group` has none: it reads as single).
#[doc(hidden)]
pub const fn __object_nesting(nesting: BlockNesting) -> terrarium_model::schema::ObjectNesting {
    use terrarium_model::schema::ObjectNesting;
    match nesting {
        BlockNesting::Single | BlockNesting::Group => ObjectNesting::Single,
        BlockNesting::List => ObjectNesting::List,
        BlockNesting::Set => ObjectNesting::Set,
        BlockNesting::Map => ObjectNesting::Map,
    }
}

/// The Terraform type of a nested block or nested attribute field: its objects' type, in
/// the collection its nesting says.
#[doc(hidden)]
pub trait __BlockType {
    fn block_type(nesting: BlockNesting) -> Type;
}

impl<T: Nest> __BlockType for T {
    fn block_type(nesting: BlockNesting) -> Type {
        let block = <T::Object as Model>::attributes()
            .into_iter()
            .fold(crate::schema::Block::new(), crate::schema::Block::attribute);
        let block =
            <T::Object as Model>::blocks().into_iter().fold(block, crate::schema::Block::block);
        let object = block.to_model().collections_type();
        match nesting {
            BlockNesting::Single | BlockNesting::Group => object,
            BlockNesting::List => Type::list(object),
            BlockNesting::Set => Type::set(object),
            BlockNesting::Map => Type::map(object),
        }
    }
}

/// A value of a `dynamic` attribute, exactly as Terraform has it (with its type): for
/// attributes whose type the configuration decides. Read and written through Terrarium's
/// values losslessly; other serde formats see its plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Dynamic(pub Value);

impl TfType for Dynamic {
    fn tf_type() -> Type {
        Type::Dynamic
    }
}

impl Serialize for Dynamic {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        DYNAMIC_SLOT.with(|slot| *slot.borrow_mut() = Some(self.0.clone()));
        let result = serializer.serialize_newtype_struct(DYNAMIC, &Plain(&self.0));
        // Another serializer did not take it.
        DYNAMIC_SLOT.with(|slot| slot.borrow_mut().take());
        result
    }
}

impl<'de> Deserialize<'de> for Dynamic {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Dynamic;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a Terraform value")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Dynamic, E> {
                Ok(Dynamic(
                    DYNAMIC_SLOT.with(|slot| slot.borrow_mut().take()).unwrap_or(Value::Null),
                ))
            }
        }
        deserializer.deserialize_newtype_struct(DYNAMIC, V)
    }
}

/// A value's plain serde data: what other formats see of a [`Dynamic`].
struct Plain<'a>(&'a Value);

impl Serialize for Plain<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Null | Value::Unknown(_) => serializer.serialize_none(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(Number::Int(i)) => serializer.serialize_i64(*i),
            Value::Number(Number::Float(f)) => serializer.serialize_f64(*f),
            Value::Number(n @ Number::Decimal(_)) => serializer.serialize_str(&n.to_string()),
            Value::String(s) => serializer.serialize_str(s),
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Plain(item))?;
                }
                seq.end()
            }
            Value::Map(m) | Value::Object(m) => {
                let mut map = serializer.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Plain(v))?;
                }
                map.end()
            }
            Value::Dynamic(d) => Plain(&d.value).serialize(serializer),
        }
    }
}

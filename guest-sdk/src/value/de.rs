//! A serde `Deserializer` over a borrowed [`Value`], tracking the attribute path so every
//! error names the attribute at fault.

use std::collections::btree_map;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use terrarium_model::{AttributePath, Number, Value};

use super::Error;
use crate::attr::{ATTR_ENUM, KNOWN, NULL, UNKNOWN};

const NULL_HINT: &str =
    "the value is null; use Option<T> or terrarium_sdk::Attr<T> for attributes that may be unset";
const UNKNOWN_HINT: &str = "the value is not known until apply; use terrarium_sdk::Attr<T> for attributes that may be unknown";

pub(crate) struct ValueDeserializer<'de> {
    value: &'de Value,
    /// The value as given, with its dynamic type if it has one: what a `Dynamic` field keeps.
    given: &'de Value,
    path: AttributePath,
}

impl<'de> ValueDeserializer<'de> {
    pub(crate) fn new(given: &'de Value, path: AttributePath) -> Self {
        // A dynamic value reads as the value inside it: its type is the schema's business.
        let mut value = given;
        while let Value::Dynamic(d) = value {
            value = &d.value;
        }
        ValueDeserializer { value, given, path }
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::at(&self.path, message)
    }

    /// Refuses null and unknown, which only `Option` and `Attr` may read.
    fn check_present(&self) -> Result<(), Error> {
        match self.value {
            Value::Null => Err(Error::absent_at(&self.path, NULL_HINT)),
            Value::Unknown(_) => Err(Error::absent_at(&self.path, UNKNOWN_HINT)),
            _ => Ok(()),
        }
    }

    fn unexpected(&self, expected: &str) -> Error {
        self.error(format!("expected {expected}, found {}", describe(self.value)))
    }

    fn integer<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.check_present()?;
        let path = self.path.clone();
        let result = match self.value {
            Value::Number(Number::Int(i)) => visitor.visit_i64(*i),
            Value::Number(n @ Number::Float(f)) => match n.as_i64() {
                Some(i) if Number::Int(i).same_value(n) => visitor.visit_i64(i),
                _ if f.fract() == 0.0 => whole_decimal(&n.to_string(), visitor, &path),
                _ => Err(Error::at(&path, format!("expected a whole number, found {n}"))),
            },
            Value::Number(Number::Decimal(d)) => whole_decimal(d, visitor, &path),
            _ => Err(self.unexpected("a number")),
        };
        result.map_err(|e| e.locate(&path))
    }

    /// Reads a number into an `f64`, or an `f32` when `single`, only if that float holds it
    /// exactly (writing it back gives the same number): a number with more digits than the
    /// float keeps is an error, never silently rounded.
    fn float<V: Visitor<'de>>(self, visitor: V, single: bool) -> Result<V::Value, Error> {
        self.check_present()?;
        let Value::Number(n) = self.value else { return Err(self.unexpected("a number")) };
        let wide = n.as_f64();
        let narrow = wide as f32;
        let (ty, read_back) = if single {
            ("f32", Number::from_f32(narrow))
        } else {
            ("f64", Number::from_f64(wide))
        };
        if !read_back.same_value(n) {
            return Err(self.error(format!(
                "{n} does not fit an {ty} exactly (it would become {read_back}); read it into a String (exact decimal text), a wider float, or an integer type that holds it"
            )));
        }
        let result = if single { visitor.visit_f32(narrow) } else { visitor.visit_f64(wide) };
        result.map_err(|e: Error| e.locate(&self.path))
    }
}

/// Reads a whole number written as decimal text into the narrowest visitor call that takes
/// it exactly.
fn whole_decimal<'de, V: Visitor<'de>>(
    d: &str,
    visitor: V,
    path: &AttributePath,
) -> Result<V::Value, Error> {
    // Narrowest first: serde's visitors for u64 and smaller do not take 128 bits.
    if let Ok(u) = d.parse::<u64>() {
        visitor.visit_u64(u)
    } else if let Ok(i) = d.parse::<i128>() {
        visitor.visit_i128(i)
    } else if let Ok(u) = d.parse::<u128>() {
        visitor.visit_u128(u)
    } else {
        Err(Error::at(path, format!("expected a whole number that fits the field, found {d}")))
    }
}

/// A short description of a value for error messages; never prints secrets.
fn describe(value: &Value) -> String {
    match value {
        Value::Number(n) => format!("number {n}"),
        Value::Bool(b) => format!("bool {b}"),
        other => other.kind().to_string(),
    }
}

impl<'de> Deserializer<'de> for ValueDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let path = self.path.clone();
        let result = match self.value {
            Value::Null => visitor.visit_none(),
            Value::Unknown(_) => Err(Error::absent_at(&self.path, UNKNOWN_HINT)),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(Number::Int(i)) => visitor.visit_i64(*i),
            Value::Number(Number::Float(f)) => visitor.visit_f64(*f),
            // Exact text is all there is for a number that fits neither i64 nor f64.
            Value::Number(Number::Decimal(d)) => visitor.visit_str(d),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
                visitor.visit_seq(Seq { items: items.iter().enumerate(), path: &path })
            }
            Value::Map(m) => visitor.visit_map(Map {
                entries: m.iter(),
                path: &path,
                object: false,
                current: None,
            }),
            Value::Object(m) => visitor.visit_map(Map {
                entries: m.iter(),
                path: &path,
                object: true,
                current: None,
            }),
            // Unwrapped in `new`.
            Value::Dynamic(d) => {
                ValueDeserializer::new(&d.value, path.clone()).deserialize_any(visitor)
            }
        };
        result.map_err(|e| e.locate(&path))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.check_present()?;
        match self.value {
            Value::Bool(b) => visitor.visit_bool(*b).map_err(|e: Error| e.locate(&self.path)),
            _ => Err(self.unexpected("a bool")),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.float(visitor, true)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.float(visitor, false)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.check_present()?;
        let result = match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            // Reading a number as text keeps it exact, whatever its size.
            Value::Number(n) => visitor.visit_string(n.to_string()),
            _ => return Err(self.unexpected("a string")),
        };
        result.map_err(|e: Error| e.locate(&self.path))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(self.error("Terraform values have no byte strings; read a string instead"))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            Value::Unknown(_) => Err(Error::absent_at(&self.path, UNKNOWN_HINT)),
            _ => {
                let path = self.path.clone();
                visitor.visit_some(self).map_err(|e| e.locate(&path))
            }
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(self.unexpected("null")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let path = self.path.clone();
        if name == super::DYNAMIC {
            // With its type: a list(string) must not come back as the tuple it looks like.
            super::DYNAMIC_SLOT.with(|slot| *slot.borrow_mut() = Some(self.given.clone()));
            return visitor.visit_unit().map_err(|e: Error| e.locate(&path));
        }
        visitor.visit_newtype_struct(self).map_err(|e| e.locate(&path))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.check_present()?;
        match self.value {
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => visitor
                .visit_seq(Seq { items: items.iter().enumerate(), path: &self.path })
                .map_err(|e: Error| e.locate(&self.path)),
            _ => Err(self.unexpected("a list, set or tuple")),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.check_present()?;
        let object = match self.value {
            Value::Map(_) => false,
            Value::Object(_) => true,
            _ => return Err(self.unexpected("a map or object")),
        };
        let (Value::Map(m) | Value::Object(m)) = self.value else {
            return Err(self.unexpected("a map or object"));
        };
        visitor
            .visit_map(Map { entries: m.iter(), path: &self.path, object, current: None })
            .map_err(|e: Error| e.locate(&self.path))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let path = self.path.clone();
        if name == ATTR_ENUM {
            return visitor.visit_enum(AttrAccess(self)).map_err(|e| e.locate(&path));
        }
        self.check_present()?;
        let result = match self.value {
            // A unit variant is written as its name: the natural form of an enum-like string.
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Value::Map(m) | Value::Object(m) if m.len() == 1 => {
                let Some((variant, value)) = m.iter().next() else {
                    return Err(self.unexpected("an object with exactly one attribute"));
                };
                let inner = ValueDeserializer::new(value, path.attr(variant.clone()));
                visitor.visit_enum(TaggedAccess { variant, inner })
            }
            _ => return Err(self.unexpected("a string or an object with exactly one attribute")),
        };
        result.map_err(|e| e.locate(&path))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Attributes the author's struct does not name may be anything, unknown included.
        visitor.visit_unit()
    }
}

struct Seq<'a, I> {
    items: I,
    path: &'a AttributePath,
}

impl<'de, I: Iterator<Item = (usize, &'de Value)>> SeqAccess<'de> for Seq<'_, I> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some((i, value)) => {
                let path = self.path.index(i as i64);
                seed.deserialize(ValueDeserializer::new(value, path.clone()))
                    .map(Some)
                    .map_err(|e| e.locate(&path))
            }
            None => Ok(None),
        }
    }
}

struct Map<'a, 'de> {
    entries: btree_map::Iter<'de, String, Value>,
    path: &'a AttributePath,
    /// Object attributes and map elements have different path steps.
    object: bool,
    current: Option<(&'de String, &'de Value)>,
}

impl<'de> MapAccess<'de> for Map<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.entries.next() {
            Some(entry) => {
                self.current = Some(entry);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(entry.0)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.current.take() else {
            return Err(Error::at(self.path, "a map value was requested before its key"));
        };
        let path =
            if self.object { self.path.attr(key.clone()) } else { self.path.key(key.clone()) };
        seed.deserialize(ValueDeserializer::new(value, path.clone())).map_err(|e| e.locate(&path))
    }
}

/// Presents a value to [`crate::Attr`]'s visitor as one of its three variants.
struct AttrAccess<'de>(ValueDeserializer<'de>);

impl<'de> EnumAccess<'de> for AttrAccess<'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let name = match self.0.value {
            Value::Null => NULL,
            Value::Unknown(_) => UNKNOWN,
            _ => KNOWN,
        };
        let variant = seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(name))?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for AttrAccess<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let path = self.0.path.clone();
        seed.deserialize(self.0).map_err(|e| e.locate(&path))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        Err(self.0.error("Attr has no tuple variant"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        Err(self.0.error("Attr has no struct variant"))
    }
}

/// An enum written as an object with one attribute: `{ variant = value }`.
struct TaggedAccess<'de> {
    variant: &'de str,
    inner: ValueDeserializer<'de>,
}

impl<'de> EnumAccess<'de> for TaggedAccess<'de> {
    type Error = Error;
    type Variant = ValueDeserializer<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), Error> {
        let variant =
            seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((variant, self.inner))
    }
}

impl<'de> VariantAccess<'de> for ValueDeserializer<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Value::Null => Ok(()),
            _ => Err(self.unexpected("null")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }
}

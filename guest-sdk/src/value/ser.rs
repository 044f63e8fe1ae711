//! A serde `Serializer` producing a [`Value`].

use std::collections::BTreeMap;

use serde::ser::{self, Serialize};
use terrarium_model::{Number, PathStep, Value};

use super::Error;
use crate::attr::{ATTR_ENUM, KNOWN, NULL, UNKNOWN};

pub(crate) struct ValueSerializer;

fn number_from_u128(u: u128) -> Value {
    match i64::try_from(u) {
        Ok(i) => Value::Number(Number::Int(i)),
        Err(_) => Value::Number(Number::Decimal(u.to_string())),
    }
}

fn number_from_i128(i: i128) -> Value {
    match i64::try_from(i) {
        Ok(i) => Value::Number(Number::Int(i)),
        Err(_) => Value::Number(Number::Decimal(i.to_string())),
    }
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = Tagged<SeqBuilder>;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = Tagged<MapBuilder>;

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v.into())))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v.into())))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v.into())))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v)))
    }
    fn serialize_i128(self, v: i128) -> Result<Value, Error> {
        Ok(number_from_i128(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v.into())))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v.into())))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        Ok(Value::Number(Number::Int(v.into())))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        Ok(number_from_u128(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<Value, Error> {
        Ok(number_from_u128(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        if !v.is_finite() {
            return Err(Error::new(format!("{v} is not a Terraform number")));
        }
        // The number the f32 stands for (0.1), not its bits widened (0.10000000149011612).
        Ok(Value::Number(Number::from_f32(v)))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        if !v.is_finite() {
            return Err(Error::new(format!("{v} is not a Terraform number")));
        }
        Ok(Value::Number(Number::from_f64(v)))
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<Value, Error> {
        Err(Error::new(
            "Terraform values have no byte strings; encode the bytes as a string (base64, hex)",
        ))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, Error> {
        Ok(Value::Null)
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        if name == ATTR_ENUM {
            return match variant {
                NULL => Ok(Value::Null),
                UNKNOWN => Ok(Value::unknown()),
                other => Err(Error::new(format!("Attr has no unit variant {other}"))),
            };
        }
        // A unit variant is written as its name: the natural form of an enum-like string.
        Ok(Value::String(variant.to_string()))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        if name == super::DYNAMIC
            && let Some(value) = super::DYNAMIC_SLOT.with(|slot| slot.borrow_mut().take())
        {
            return Ok(value);
        }
        if name == super::BIG_NUMBER {
            return match value.serialize(self)? {
                Value::String(text) => terrarium_model::Number::parse(&text)
                    .map(Value::Number)
                    .ok_or_else(|| Error::new(format!("{text:?} is not a number"))),
                other => Ok(other),
            };
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        let inner = value.serialize(ValueSerializer)?;
        if name == ATTR_ENUM && variant == KNOWN {
            return Ok(inner);
        }
        Ok(Value::Object(BTreeMap::from([(variant.to_string(), inner)])))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, Error> {
        Ok(SeqBuilder { items: Vec::with_capacity(len.unwrap_or(0)), tuple: false })
    }

    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, Error> {
        Ok(SeqBuilder { items: Vec::with_capacity(len), tuple: true })
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqBuilder, Error> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Tagged<SeqBuilder>, Error> {
        Ok(Tagged { variant, inner: SeqBuilder { items: Vec::with_capacity(len), tuple: true } })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<MapBuilder, Error> {
        Ok(MapBuilder { entries: BTreeMap::new(), next_key: None, object: false })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<MapBuilder, Error> {
        Ok(MapBuilder { entries: BTreeMap::new(), next_key: None, object: true })
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Tagged<MapBuilder>, Error> {
        Ok(Tagged {
            variant,
            inner: MapBuilder { entries: BTreeMap::new(), next_key: None, object: true },
        })
    }
}

pub(crate) struct SeqBuilder {
    items: Vec<Value>,
    tuple: bool,
}

impl SeqBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let index = self.items.len() as i64;
        self.items
            .push(value.serialize(ValueSerializer).map_err(|e| e.within(PathStep::Index(index)))?);
        Ok(())
    }

    fn finish(self) -> Value {
        if self.tuple { Value::Tuple(self.items) } else { Value::List(self.items) }
    }
}

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTuple for SeqBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

pub(crate) struct MapBuilder {
    entries: BTreeMap<String, Value>,
    next_key: Option<String>,
    /// A struct (an object) rather than a map.
    object: bool,
}

impl MapBuilder {
    fn insert<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Error> {
        let step =
            if self.object { PathStep::Attribute(key.clone()) } else { PathStep::Key(key.clone()) };
        let value = value.serialize(ValueSerializer).map_err(|e| e.within(step.clone()))?;
        if self.entries.insert(key.clone(), value).is_some() {
            return Err(Error::new(format!("key {key:?} is written twice")).within(step));
        }
        Ok(())
    }

    fn finish(self) -> Value {
        if self.object { Value::Object(self.entries) } else { Value::Map(self.entries) }
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Value;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let key = match key.serialize(ValueSerializer)? {
            Value::String(s) => s,
            // Integer keys are common in Rust maps; Terraform map keys are strings.
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                return Err(Error::new(format!("map keys must be strings, not {}", other.kind())));
            }
        };
        self.next_key = Some(key);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .next_key
            .take()
            .ok_or_else(|| Error::new("a map value was written before its key"))?;
        self.insert(key, value)
    }

    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Value;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.insert(key.to_string(), value)
    }

    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

/// A tuple or struct enum variant, written as `{ variant = ... }`.
pub(crate) struct Tagged<B> {
    variant: &'static str,
    inner: B,
}

impl ser::SerializeTupleVariant for Tagged<SeqBuilder> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.inner.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Object(BTreeMap::from([(self.variant.to_string(), self.inner.finish())])))
    }
}

impl ser::SerializeStructVariant for Tagged<MapBuilder> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.inner.insert(key.to_string(), value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Object(BTreeMap::from([(self.variant.to_string(), self.inner.finish())])))
    }
}

//! cty's JSON encoding (`go-cty/cty/json`), both directions, and schema-less decoding of
//! stored state.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use terrarium_model::{DynamicValue, Number, PathStep, Refinements, Type, Value};

use super::encode::{Emitter, encode};
use super::number;
use super::{CodecError, Walk, index_step};

/// Decodes cty JSON `bytes` as a value of type `ty`.
///
/// Mirrors cty's JSON decoder, which is more lenient than its msgpack one: an object may
/// leave attributes out (they decode as null), a string attribute accepts a JSON number or
/// bool (kept as its text), a number accepts a numeric string, and a bool accepts "true" or
/// "false". Duplicate object keys keep the last value, as Go's decoder does.
pub fn decode_json(bytes: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let json = parse(bytes)?;
    JsonDecoder { walk: Walk::default() }.value(&json, ty)
}

/// Encodes `value` as cty JSON for type `ty`. Unknown values are an error: JSON has no way
/// to carry them. Infinite numbers are an error too (cty would write invalid JSON).
pub fn encode_json(value: &Value, ty: &Type) -> Result<Vec<u8>, CodecError> {
    let mut out = JsonOut { buf: Vec::new() };
    encode(&mut out, value, ty)?;
    Ok(out.buf)
}

/// Stored JSON state (RawState.json) decoded WITHOUT a schema, for UpgradeResourceState:
/// JSON objects become `Value::Object`, arrays `Value::Tuple`, numbers are kept exact.
pub fn decode_json_untyped(bytes: &[u8]) -> Result<Value, CodecError> {
    let json = parse(bytes)?;
    untyped(&json, &mut Walk::default())
}

/// Parses JSON text. serde_json refuses nesting deeper than 128 levels, which bounds every
/// recursion over the result, and rejects invalid UTF-8 and trailing characters.
fn parse(bytes: &[u8]) -> Result<Json, CodecError> {
    serde_json::from_slice(bytes)
        .map_err(|e| CodecError::InvalidJson { path: Default::default(), reason: e.to_string() })
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

fn parse_number(text: &str, walk: &Walk) -> Result<Number, CodecError> {
    number::number_from_text(text).ok_or_else(|| CodecError::InvalidNumber {
        path: walk.path(),
        reason: format!("{text:?} is not a number"),
    })
}

fn untyped(json: &Json, walk: &mut Walk) -> Result<Value, CodecError> {
    Ok(match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Value::Number(parse_number(n.as_str(), walk)?),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => {
            walk.enter()?;
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                walk.push(index_step(i));
                values.push(untyped(item, walk)?);
                walk.pop();
            }
            walk.leave();
            Value::Tuple(values)
        }
        Json::Object(entries) => {
            walk.enter()?;
            let mut attrs = BTreeMap::new();
            for (name, item) in entries {
                walk.push(PathStep::Attribute(name.clone()));
                attrs.insert(name.clone(), untyped(item, walk)?);
                walk.pop();
            }
            walk.leave();
            Value::Object(attrs)
        }
    })
}

struct JsonDecoder {
    walk: Walk,
}

impl JsonDecoder {
    fn value(&mut self, json: &Json, ty: &Type) -> Result<Value, CodecError> {
        if json.is_null() {
            return Ok(Value::Null);
        }
        let mismatch = |walk: &Walk| walk.mismatch(ty, json_kind(json));
        Ok(match ty {
            Type::Dynamic => self.dynamic(json)?,
            Type::String => Value::String(match json {
                Json::String(s) => s.clone(),
                Json::Number(n) => n.as_str().to_string(),
                Json::Bool(b) => b.to_string(),
                _ => return Err(mismatch(&self.walk)),
            }),
            Type::Number => Value::Number(match json {
                Json::Number(n) => parse_number(n.as_str(), &self.walk)?,
                Json::String(s) => parse_number(s, &self.walk)?,
                _ => return Err(mismatch(&self.walk)),
            }),
            Type::Bool => Value::Bool(match json {
                Json::Bool(b) => *b,
                Json::String(s) if s == "true" => true,
                Json::String(s) if s == "false" => false,
                _ => return Err(mismatch(&self.walk)),
            }),
            Type::List(et) | Type::Set(et) => {
                let Json::Array(items) = json else {
                    return Err(mismatch(&self.walk));
                };
                let values = self.elements(items, |_| et)?;
                if matches!(ty, Type::List(_)) { Value::List(values) } else { Value::Set(values) }
            }
            Type::Tuple(types) => {
                let Json::Array(items) = json else {
                    return Err(mismatch(&self.walk));
                };
                if items.len() != types.len() {
                    return Err(CodecError::TupleLength {
                        path: self.walk.path(),
                        expected: types.len(),
                        found: items.len(),
                    });
                }
                Value::Tuple(self.elements(items, |i| &types[i])?)
            }
            Type::Map(et) => {
                let Json::Object(entries) = json else {
                    return Err(mismatch(&self.walk));
                };
                self.walk.enter()?;
                let mut values = BTreeMap::new();
                for (key, item) in entries {
                    self.walk.push(PathStep::Key(key.clone()));
                    values.insert(key.clone(), self.value(item, et)?);
                    self.walk.pop();
                }
                self.walk.leave();
                Value::Map(values)
            }
            Type::Object(object) => {
                let Json::Object(entries) = json else {
                    return Err(mismatch(&self.walk));
                };
                if let Some(extra) = entries.keys().find(|k| !object.attributes.contains_key(*k)) {
                    return Err(CodecError::UnsupportedAttribute {
                        path: self.walk.path(),
                        name: extra.clone(),
                    });
                }
                self.walk.enter()?;
                let mut attrs = BTreeMap::new();
                for (name, attr_ty) in &object.attributes {
                    let item = match entries.get(name) {
                        Some(item) => {
                            self.walk.push(PathStep::Attribute(name.clone()));
                            let item = self.value(item, attr_ty)?;
                            self.walk.pop();
                            item
                        }
                        // cty's JSON decoder fills absent attributes with null.
                        None => Value::Null,
                    };
                    attrs.insert(name.clone(), item);
                }
                self.walk.leave();
                Value::Object(attrs)
            }
        })
    }

    fn elements<'t>(
        &mut self,
        items: &[Json],
        element_type: impl Fn(usize) -> &'t Type,
    ) -> Result<Vec<Value>, CodecError> {
        self.walk.enter()?;
        let mut values = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            self.walk.push(index_step(i));
            values.push(self.value(item, element_type(i))?);
            self.walk.pop();
        }
        self.walk.leave();
        Ok(values)
    }

    /// `{"value": ..., "type": ...}` (keys in any order, nothing else).
    fn dynamic(&mut self, json: &Json) -> Result<Value, CodecError> {
        let invalid =
            |walk: &Walk, reason: String| CodecError::InvalidDynamic { path: walk.path(), reason };
        let Json::Object(entries) = json else {
            return Err(CodecError::Mismatch {
                path: self.walk.path(),
                expected: r#"a dynamic value ({"value": ..., "type": ...})"#.into(),
                found: json_kind(json).into(),
            });
        };
        if let Some(extra) = entries.keys().find(|k| *k != "type" && *k != "value") {
            return Err(invalid(&self.walk, format!("unexpected key {extra:?}")));
        }
        let type_json =
            entries.get("type").ok_or_else(|| invalid(&self.walk, "missing \"type\"".into()))?;
        let value_json =
            entries.get("value").ok_or_else(|| invalid(&self.walk, "missing \"value\"".into()))?;
        let ty = Type::from_json_value(type_json)
            .map_err(|reason| invalid(&self.walk, format!("invalid type: {reason}")))?;
        self.walk.enter()?;
        let value = if ty == Type::Dynamic {
            // A wrapper that only says "dynamic": the inner value brings its own type.
            self.value(value_json, &Type::Dynamic)?
        } else {
            let inner = self.value(value_json, &ty)?;
            Value::Dynamic(Box::new(DynamicValue { ty, value: inner }))
        };
        self.walk.leave();
        Ok(value)
    }
}

struct JsonOut {
    buf: Vec<u8>,
}

impl JsonOut {
    fn write_string(&mut self, s: &str) {
        self.buf.push(b'"');
        for c in s.chars() {
            match c {
                '"' => self.buf.extend_from_slice(b"\\\""),
                '\\' => self.buf.extend_from_slice(b"\\\\"),
                '\n' => self.buf.extend_from_slice(b"\\n"),
                '\r' => self.buf.extend_from_slice(b"\\r"),
                '\t' => self.buf.extend_from_slice(b"\\t"),
                c if u32::from(c) < 0x20 => {
                    self.buf.extend_from_slice(format!("\\u{:04x}", u32::from(c)).as_bytes())
                }
                c => {
                    let mut utf8 = [0u8; 4];
                    self.buf.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
            }
        }
        self.buf.push(b'"');
    }
}

impl Emitter for JsonOut {
    fn null(&mut self) {
        self.buf.extend_from_slice(b"null");
    }

    fn bool(&mut self, b: bool) {
        self.buf.extend_from_slice(if b { b"true" } else { b"false" });
    }

    fn number(&mut self, n: &Number, walk: &Walk) -> Result<(), CodecError> {
        let text =
            number::exact_text(n).map_err(|reason| match number::invalid_number_reason(n) {
                Some(_) => CodecError::InvalidNumber { path: walk.path(), reason },
                None => CodecError::Unencodable { path: walk.path(), reason },
            })?;
        self.buf.extend_from_slice(text.as_bytes());
        Ok(())
    }

    fn string(&mut self, s: &str, _walk: &Walk) -> Result<(), CodecError> {
        self.write_string(s);
        Ok(())
    }

    fn begin_array(&mut self, _len: usize, _walk: &Walk) -> Result<(), CodecError> {
        self.buf.push(b'[');
        Ok(())
    }

    fn array_element(&mut self, index: usize) {
        if index > 0 {
            self.buf.push(b',');
        }
    }

    fn end_array(&mut self) {
        self.buf.push(b']');
    }

    fn begin_map(&mut self, _len: usize, _walk: &Walk) -> Result<(), CodecError> {
        self.buf.push(b'{');
        Ok(())
    }

    fn map_key(&mut self, index: usize, key: &str, _walk: &Walk) -> Result<(), CodecError> {
        if index > 0 {
            self.buf.push(b',');
        }
        self.write_string(key);
        self.buf.push(b':');
        Ok(())
    }

    fn end_map(&mut self) {
        self.buf.push(b'}');
    }

    fn unknown(&mut self, _r: &Refinements, _ty: &Type, walk: &Walk) -> Result<(), CodecError> {
        Err(CodecError::UnknownInJson { path: walk.path() })
    }

    fn begin_dynamic(&mut self, _ty: &Type, _walk: &Walk) -> Result<(), CodecError> {
        // cty writes the value first, then its type.
        self.buf.extend_from_slice(br#"{"value":"#);
        Ok(())
    }

    fn end_dynamic(&mut self, ty: &Type) {
        self.buf.extend_from_slice(br#","type":"#);
        self.buf.extend_from_slice(ty.to_json().as_bytes());
        self.buf.push(b'}');
    }
}

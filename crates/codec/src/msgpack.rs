//! cty's msgpack encoding (`go-cty/cty/msgpack`), both directions.

use std::collections::BTreeMap;
use std::convert::Infallible;

use rmp::Marker;
use rmp::decode::bytes::BytesReadError;
use rmp::decode::{Bytes, ValueReadError};
use rmp::encode::{ByteBuf, ValueWriteError};
use terrarium_model::{
    DynamicValue, Number, NumberBound, ObjectType, PathStep, Refinements, Type, Value,
};

use super::encode::{Emitter, encode};
use super::number::{self, WireNumber};
use super::{CodecError, MAX_REFINEMENT_BYTES, Walk, index_step};

/// Extension type of an unknown value carrying refinements (cty's `unknownWithRefinementsExt`).
const REFINED_UNKNOWN_EXT: i8 = 12;
/// What cty writes for a wholly unknown value: fixext1, type 0, one zero byte.
const WHOLLY_UNKNOWN: [u8; 3] = [0xd4, 0x00, 0x00];

/// Refinement map keys.
const KEY_NULLNESS: i128 = 1;
const KEY_STRING_PREFIX: i128 = 2;
const KEY_NUMBER_LOWER: i128 = 3;
const KEY_NUMBER_UPPER: i128 = 4;
const KEY_LENGTH_LOWER: i128 = 5;
const KEY_LENGTH_UPPER: i128 = 6;

/// cty truncates string-prefix refinements to keep payloads under the size limit.
const MAX_PREFIX_BYTES: usize = 256;

/// Elements reserved up front at most; beyond that vectors grow as real elements arrive, so
/// a claimed length never drives an allocation.
const PREALLOCATE_LIMIT: usize = 64;

/// Decodes cty msgpack `bytes` as a value of type `ty`. The whole input must be one value.
pub fn decode_msgpack(bytes: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let mut decoder = Decoder { input: Input::new(bytes), walk: Walk::default() };
    let value = decoder.value(ty)?;
    match decoder.input.remaining() {
        0 => Ok(value),
        count => Err(CodecError::TrailingBytes { path: decoder.walk.path(), count }),
    }
}

/// Encodes `value` as cty msgpack for type `ty`, checking that it conforms on the way.
pub fn encode_msgpack(value: &Value, ty: &Type) -> Result<Vec<u8>, CodecError> {
    let mut out = MsgpackOut { buf: ByteBuf::new() };
    encode(&mut out, value, ty)?;
    Ok(out.buf.into_vec())
}

// ---------------------------------------------------------------------------------------------
// Reading

/// A failure of the low-level reader, given a path by the decoder.
enum ReadFail {
    Truncated,
    /// The next item is not what the caller asked for (the marker is left unconsumed).
    Unexpected(Marker),
}

impl From<ValueReadError<BytesReadError>> for ReadFail {
    fn from(e: ValueReadError<BytesReadError>) -> Self {
        match e {
            ValueReadError::InvalidMarkerRead(_) | ValueReadError::InvalidDataRead(_) => {
                ReadFail::Truncated
            }
            ValueReadError::TypeMismatch(m) => ReadFail::Unexpected(m),
        }
    }
}

/// The input bytes and a read position, with rmp doing the marker-level parsing.
struct Input<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Input { bytes, pos: 0 }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn peek(&self) -> Result<Marker, ReadFail> {
        self.bytes.get(self.pos).map(|b| Marker::from_u8(*b)).ok_or(ReadFail::Truncated)
    }

    /// Runs an rmp read function on the rest of the input and advances past what it consumed.
    fn rmp<T>(
        &mut self,
        read: impl FnOnce(&mut Bytes<'a>) -> Result<T, ValueReadError<BytesReadError>>,
    ) -> Result<T, ReadFail> {
        let mut rest = Bytes::new(&self.bytes[self.pos..]);
        let result = read(&mut rest);
        self.pos = self.bytes.len() - rest.remaining_slice().len();
        Ok(result?)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ReadFail> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(ReadFail::Truncated)?;
        let taken = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(taken)
    }

    fn skip_marker(&mut self) {
        self.pos = (self.pos + 1).min(self.bytes.len());
    }

    /// Reads any msgpack integer. `Unexpected` if the next item is not one.
    fn integer(&mut self) -> Result<i128, ReadFail> {
        use rmp::decode as d;
        Ok(match self.peek()? {
            Marker::FixPos(n) => {
                self.skip_marker();
                i128::from(n)
            }
            Marker::FixNeg(n) => {
                self.skip_marker();
                i128::from(n)
            }
            Marker::U8 => i128::from(self.rmp(d::read_u8)?),
            Marker::U16 => i128::from(self.rmp(d::read_u16)?),
            Marker::U32 => i128::from(self.rmp(d::read_u32)?),
            Marker::U64 => i128::from(self.rmp(d::read_u64)?),
            Marker::I8 => i128::from(self.rmp(d::read_i8)?),
            Marker::I16 => i128::from(self.rmp(d::read_i16)?),
            Marker::I32 => i128::from(self.rmp(d::read_i32)?),
            Marker::I64 => i128::from(self.rmp(d::read_i64)?),
            other => return Err(ReadFail::Unexpected(other)),
        })
    }

    /// Reads a str or bin item's bytes (cty's decoder accepts either where it wants text).
    fn text_bytes(&mut self) -> Result<&'a [u8], ReadFail> {
        let len = match self.peek()? {
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                self.rmp(rmp::decode::read_str_len)?
            }
            Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => self.rmp(rmp::decode::read_bin_len)?,
            other => return Err(ReadFail::Unexpected(other)),
        };
        self.take(len as usize)
    }

    /// Skips one complete item of any kind without recursion: `pending` counts the items
    /// still to skip, and every step consumes at least one byte, so this ends with the input.
    fn skip_item(&mut self) -> Result<(), ReadFail> {
        let mut pending: u64 = 1;
        while pending > 0 {
            pending -= 1;
            let marker = self.peek()?;
            self.skip_marker();
            let data_len: usize = match marker {
                Marker::FixPos(_)
                | Marker::FixNeg(_)
                | Marker::Null
                | Marker::True
                | Marker::False => 0,
                Marker::Reserved => return Err(ReadFail::Unexpected(marker)),
                Marker::U8 | Marker::I8 => 1,
                Marker::U16 | Marker::I16 => 2,
                Marker::U32 | Marker::I32 | Marker::F32 => 4,
                Marker::U64 | Marker::I64 | Marker::F64 => 8,
                Marker::FixStr(n) => usize::from(n),
                Marker::Str8 | Marker::Bin8 => usize::from(self.take(1)?[0]),
                Marker::Str16 | Marker::Bin16 => self.be_len(2)?,
                Marker::Str32 | Marker::Bin32 => self.be_len(4)?,
                Marker::FixArray(n) => {
                    pending += u64::from(n);
                    0
                }
                Marker::Array16 => {
                    pending += self.be_len(2)? as u64;
                    0
                }
                Marker::Array32 => {
                    pending += self.be_len(4)? as u64;
                    0
                }
                Marker::FixMap(n) => {
                    pending += 2 * u64::from(n);
                    0
                }
                Marker::Map16 => {
                    pending += 2 * self.be_len(2)? as u64;
                    0
                }
                Marker::Map32 => {
                    pending += 2 * self.be_len(4)? as u64;
                    0
                }
                // Extension data: one type byte plus the payload.
                Marker::FixExt1 => 2,
                Marker::FixExt2 => 3,
                Marker::FixExt4 => 5,
                Marker::FixExt8 => 9,
                Marker::FixExt16 => 17,
                Marker::Ext8 => 1 + usize::from(self.take(1)?[0]),
                Marker::Ext16 => 1 + self.be_len(2)?,
                Marker::Ext32 => 1 + self.be_len(4)?,
            };
            self.take(data_len)?;
        }
        Ok(())
    }

    fn be_len(&mut self, width: usize) -> Result<usize, ReadFail> {
        Ok(self.take(width)?.iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b)))
    }
}

fn is_ext(marker: Marker) -> bool {
    matches!(
        marker,
        Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32
    )
}

/// How an encoded item is named in messages ("found bool").
fn marker_name(marker: Marker) -> String {
    match marker {
        Marker::Null => "null".into(),
        Marker::True | Marker::False => "bool".into(),
        Marker::FixPos(_)
        | Marker::FixNeg(_)
        | Marker::U8
        | Marker::U16
        | Marker::U32
        | Marker::U64
        | Marker::I8
        | Marker::I16
        | Marker::I32
        | Marker::I64
        | Marker::F32
        | Marker::F64 => "number".into(),
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => "string".into(),
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => "binary data".into(),
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => "array".into(),
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => "map".into(),
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => "unknown value".into(),
        Marker::Reserved => "the reserved byte 0xc1".into(),
    }
}

struct Decoder<'a> {
    input: Input<'a>,
    walk: Walk,
}

impl Decoder<'_> {
    /// Turns a reader failure into an error at the current path; `expected` names what the
    /// caller wanted, for unexpected items.
    fn fail(&self, fail: ReadFail, expected: &str) -> CodecError {
        match fail {
            ReadFail::Truncated => CodecError::Truncated { path: self.walk.path() },
            ReadFail::Unexpected(m) => CodecError::Mismatch {
                path: self.walk.path(),
                expected: expected.into(),
                found: marker_name(m),
            },
        }
    }

    fn peek(&self) -> Result<Marker, CodecError> {
        self.input.peek().map_err(|f| self.fail(f, "a value"))
    }

    /// Decodes one value of type `ty`. Kept to a thin dispatch: it is on every level of the
    /// recursion, and in unoptimised builds each arm's temporaries would otherwise all share
    /// (and bloat) this one frame.
    fn value(&mut self, ty: &Type) -> Result<Value, CodecError> {
        let marker = self.peek()?;
        // As in cty: any extension is an unknown, whatever the type, dynamic included.
        if is_ext(marker) {
            return self.unknown(ty);
        }
        if *ty == Type::Dynamic {
            return self.dynamic();
        }
        if marker == Marker::Null {
            self.input.skip_marker();
            return Ok(Value::Null);
        }
        match ty {
            Type::String => self.string(ty).map(Value::String),
            Type::Number => self.number().map(Value::Number),
            Type::Bool => self.boolean(marker, ty),
            Type::List(et) => self.elements(ty, None, et).map(Value::List),
            Type::Set(et) => self.elements(ty, None, et).map(Value::Set),
            Type::Tuple(types) => self.elements(ty, Some(types), &Type::Dynamic).map(Value::Tuple),
            Type::Map(et) => self.map(ty, et),
            Type::Object(object) => self.object(ty, object),
            Type::Dynamic => self.dynamic(),
        }
    }

    fn boolean(&mut self, marker: Marker, ty: &Type) -> Result<Value, CodecError> {
        match marker {
            Marker::True | Marker::False => {
                self.input.skip_marker();
                Ok(Value::Bool(marker == Marker::True))
            }
            other => Err(self.walk.mismatch(ty, marker_name(other))),
        }
    }

    /// A list or set (every element of type `element`), or a tuple (element `i` of type
    /// `tuple[i]`).
    fn elements(
        &mut self,
        ty: &Type,
        tuple: Option<&[Type]>,
        element: &Type,
    ) -> Result<Vec<Value>, CodecError> {
        let len = self.array_len(ty)?;
        if let Some(types) = tuple
            && types.len() != len
        {
            return Err(CodecError::TupleLength {
                path: self.walk.path(),
                expected: types.len(),
                found: len,
            });
        }
        self.walk.enter()?;
        let mut items = Vec::with_capacity(len.min(PREALLOCATE_LIMIT));
        for i in 0..len {
            let element_ty = match tuple {
                Some(types) => &types[i],
                None => element,
            };
            self.walk.push(index_step(i));
            items.push(self.value(element_ty)?);
            self.walk.pop();
        }
        self.walk.leave();
        Ok(items)
    }

    fn map(&mut self, ty: &Type, element: &Type) -> Result<Value, CodecError> {
        let len = self.map_len(ty)?;
        self.walk.enter()?;
        let mut entries = BTreeMap::new();
        for _ in 0..len {
            let key = self.key()?;
            if entries.contains_key(&key) {
                return Err(CodecError::DuplicateKey { path: self.walk.path(), key });
            }
            self.walk.push(PathStep::Key(key.clone()));
            let item = self.value(element)?;
            self.walk.pop();
            entries.insert(key, item);
        }
        self.walk.leave();
        Ok(Value::Map(entries))
    }

    fn object(&mut self, ty: &Type, object: &ObjectType) -> Result<Value, CodecError> {
        let len = self.map_len(ty)?;
        self.walk.enter()?;
        let mut attrs = BTreeMap::new();
        for _ in 0..len {
            let name = self.key()?;
            let Some(attr_ty) = object.attributes.get(&name) else {
                return Err(CodecError::UnsupportedAttribute { path: self.walk.path(), name });
            };
            if attrs.contains_key(&name) {
                return Err(CodecError::DuplicateKey { path: self.walk.path(), key: name });
            }
            self.walk.push(PathStep::Attribute(name.clone()));
            let item = self.value(attr_ty)?;
            self.walk.pop();
            attrs.insert(name, item);
        }
        self.walk.leave();
        if let Some(missing) = object.attributes.keys().find(|k| !attrs.contains_key(*k)) {
            return Err(CodecError::MissingAttribute {
                path: self.walk.path(),
                name: missing.clone(),
            });
        }
        Ok(Value::Object(attrs))
    }

    fn string(&mut self, ty: &Type) -> Result<String, CodecError> {
        let bytes = match self.input.text_bytes() {
            Ok(bytes) => bytes,
            Err(f) => return Err(self.fail(f, &ty.friendly_name())),
        };
        String::from_utf8(bytes.to_vec())
            .map_err(|_| CodecError::InvalidUtf8 { path: self.walk.path() })
    }

    fn key(&mut self) -> Result<String, CodecError> {
        self.string(&Type::String).map_err(|e| match e {
            CodecError::Mismatch { path, found, .. } => {
                CodecError::Mismatch { path, expected: "a string key".into(), found }
            }
            other => other,
        })
    }

    fn number(&mut self) -> Result<Number, CodecError> {
        let marker = self.peek()?;
        let invalid =
            |walk: &Walk, reason: String| CodecError::InvalidNumber { path: walk.path(), reason };
        match marker {
            Marker::F32 | Marker::F64 => {
                let read = if marker == Marker::F32 {
                    self.input.rmp(rmp::decode::read_f32).map(f64::from)
                } else {
                    self.input.rmp(rmp::decode::read_f64)
                };
                let f = read.map_err(|f| self.fail(f, "number"))?;
                number::number_from_f64(f)
                    .ok_or_else(|| invalid(&self.walk, "NaN is not a Terraform number".into()))
            }
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                let text = self.string(&Type::Number)?;
                number::number_from_text(&text)
                    .ok_or_else(|| invalid(&self.walk, format!("{text:?} is not a number")))
            }
            _ => match self.input.integer() {
                Ok(i) => Ok(match i64::try_from(i) {
                    Ok(small) => Number::Int(small),
                    // Only uint64 values beyond i64 get here; they are exact as decimal text.
                    Err(_) => Number::Decimal(i.to_string()),
                }),
                Err(f) => Err(self.fail(f, "number")),
            },
        }
    }

    fn array_len(&mut self, ty: &Type) -> Result<usize, CodecError> {
        let len = match self.input.peek() {
            Ok(Marker::FixArray(_) | Marker::Array16 | Marker::Array32) => {
                self.input.rmp(rmp::decode::read_array_len)
            }
            Ok(other) => Err(ReadFail::Unexpected(other)),
            Err(f) => Err(f),
        }
        .map_err(|f| self.fail(f, &ty.friendly_name()))?;
        // Every element takes at least one byte.
        self.claim(len, 1, "an array")
    }

    fn map_len(&mut self, ty: &Type) -> Result<usize, CodecError> {
        let len = match self.input.peek() {
            Ok(Marker::FixMap(_) | Marker::Map16 | Marker::Map32) => {
                self.input.rmp(rmp::decode::read_map_len)
            }
            Ok(other) => Err(ReadFail::Unexpected(other)),
            Err(f) => Err(f),
        }
        .map_err(|f| self.fail(f, &ty.friendly_name()))?;
        // Every entry takes at least two bytes (key and value).
        self.claim(len, 2, "a map")
    }

    /// Refuses a container length the rest of the input cannot possibly hold.
    fn claim(
        &self,
        len: u32,
        min_item_bytes: u64,
        what: &'static str,
    ) -> Result<usize, CodecError> {
        let remaining = self.input.remaining();
        if u64::from(len) * min_item_bytes > remaining as u64 {
            return Err(CodecError::LengthBeyondInput {
                path: self.walk.path(),
                what,
                claimed: u64::from(len),
                remaining,
            });
        }
        Ok(len as usize)
    }

    /// `[bin(type JSON), value]`, or a bare nil for an untyped null. (A bare extension, the
    /// wholly unknown dynamic value, is handled by [`Decoder::value`].)
    fn dynamic(&mut self) -> Result<Value, CodecError> {
        let Some(ty) = self.dynamic_header()? else {
            return Ok(Value::Null);
        };
        self.walk.enter()?;
        let value = if ty == Type::Dynamic {
            // A wrapper that only says "dynamic": the inner value brings its own type.
            self.value(&Type::Dynamic)?
        } else {
            let inner = self.value(&ty)?;
            Value::Dynamic(Box::new(DynamicValue { ty, value: inner }))
        };
        self.walk.leave();
        Ok(value)
    }

    /// Reads the start of a dynamic value: `None` for an untyped null, else the type from
    /// `[type, ...`. Separate from [`Decoder::dynamic`] to keep the recursive frame small.
    fn dynamic_header(&mut self) -> Result<Option<Type>, CodecError> {
        let expected = "a dynamic value ([type, value] array)";
        let len = match self.input.peek() {
            Ok(Marker::Null) => {
                self.input.skip_marker();
                return Ok(None);
            }
            Ok(Marker::FixArray(_) | Marker::Array16 | Marker::Array32) => {
                self.input.rmp(rmp::decode::read_array_len).map_err(|f| self.fail(f, expected))?
            }
            Ok(other) => return Err(self.fail(ReadFail::Unexpected(other), expected)),
            Err(f) => return Err(self.fail(f, expected)),
        };
        let invalid =
            |walk: &Walk, reason: String| CodecError::InvalidDynamic { path: walk.path(), reason };
        if len != 2 {
            return Err(invalid(
                &self.walk,
                format!("a [type, value] array has 2 elements, not {len}"),
            ));
        }
        let type_bytes =
            self.input.text_bytes().map_err(|f| self.fail(f, "a type (JSON bytes)"))?;
        let type_text = std::str::from_utf8(type_bytes)
            .map_err(|_| invalid(&self.walk, "type is not UTF-8".into()))?;
        // serde_json's recursion limit bounds how deep this type can be.
        Type::from_json(type_text).map(Some).map_err(|e| invalid(&self.walk, e.to_string()))
    }

    fn unknown(&mut self, ty: &Type) -> Result<Value, CodecError> {
        let meta = self
            .input
            .rmp(rmp::decode::read_ext_meta)
            .map_err(|f| self.fail(f, "an unknown value"))?;
        let size = meta.size as usize;
        if size > self.input.remaining() {
            return Err(CodecError::LengthBeyondInput {
                path: self.walk.path(),
                what: "an extension",
                claimed: u64::from(meta.size),
                remaining: self.input.remaining(),
            });
        }
        let payload = self.input.take(size).map_err(|f| self.fail(f, "an unknown value"))?;
        let invalid =
            |walk: &Walk, reason: String| CodecError::InvalidUnknown { path: walk.path(), reason };
        // cty: a payload of at most one byte is a wholly unknown value, whatever the type code.
        if size <= 1 {
            return Ok(Value::unknown());
        }
        if meta.typeid != REFINED_UNKNOWN_EXT {
            return Err(invalid(
                &self.walk,
                format!(
                    "extension type {} with a {size}-byte payload is not an unknown value",
                    meta.typeid
                ),
            ));
        }
        if size > MAX_REFINEMENT_BYTES {
            return Err(invalid(
                &self.walk,
                format!("refinements longer than {MAX_REFINEMENT_BYTES} bytes"),
            ));
        }
        read_refinements(payload, ty)
            .map(Value::Unknown)
            .map_err(|reason| invalid(&self.walk, reason))
    }
}

/// Reads a refinement map (cty's `unmarshalUnknownValue`): keys that cannot apply to `ty` are
/// errors, keys cty does not define are skipped, bytes after the map are ignored.
fn read_refinements(payload: &[u8], ty: &Type) -> Result<Refinements, String> {
    let mut input = Input::new(payload);
    let truncated = || "refinements end early".to_string();
    let entries = match input.peek() {
        Ok(Marker::FixMap(_) | Marker::Map16 | Marker::Map32) => {
            input.rmp(rmp::decode::read_map_len).map_err(|_| truncated())?
        }
        _ => return Err("refinements are not a map".into()),
    };
    // As in cty, refinements of a dynamic unknown are ignored (it cannot be refined).
    if *ty == Type::Dynamic {
        return Ok(Refinements::default());
    }
    let is_collection = matches!(ty, Type::List(_) | Type::Set(_) | Type::Map(_));
    let mut r = Refinements::default();
    for _ in 0..entries {
        let key = input.integer().map_err(|f| match f {
            ReadFail::Truncated => truncated(),
            ReadFail::Unexpected(_) => "a refinement key is not an integer".to_string(),
        })?;
        match key {
            KEY_NULLNESS => {
                r.nullable = Some(match input.peek() {
                    Ok(Marker::True) => true,
                    Ok(Marker::False) => false,
                    _ => return Err("the nullness refinement is not a bool".into()),
                });
                input.skip_marker();
            }
            KEY_STRING_PREFIX => {
                if *ty != Type::String {
                    return Err(format!(
                        "a string prefix refinement does not apply to {}",
                        ty.friendly_name()
                    ));
                }
                let bytes = match input.peek() {
                    Ok(Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32) => {
                        input.text_bytes().map_err(|_| truncated())?
                    }
                    _ => return Err("the string prefix refinement is not a string".into()),
                };
                let prefix = std::str::from_utf8(bytes)
                    .map_err(|_| "the string prefix is not valid UTF-8".to_string())?;
                r.string_prefix = Some(prefix.to_string());
            }
            KEY_NUMBER_LOWER | KEY_NUMBER_UPPER => {
                if *ty != Type::Number {
                    return Err(format!(
                        "a number range refinement does not apply to {}",
                        ty.friendly_name()
                    ));
                }
                let bound = read_number_bound(&mut input)?;
                if key == KEY_NUMBER_LOWER {
                    r.number_lower = Some(bound);
                } else {
                    r.number_upper = Some(bound);
                }
            }
            KEY_LENGTH_LOWER | KEY_LENGTH_UPPER => {
                if !is_collection {
                    return Err(format!(
                        "a length refinement does not apply to {}",
                        ty.friendly_name()
                    ));
                }
                let bound = input.integer().ok().and_then(|i| u64::try_from(i).ok());
                let bound = bound
                    .ok_or_else(|| "a length bound is not a non-negative integer".to_string())?;
                if key == KEY_LENGTH_LOWER {
                    r.length_lower = Some(bound);
                } else {
                    r.length_upper = Some(bound);
                }
            }
            // Refinements from a future cty: skip their values.
            _ => input.skip_item().map_err(|_| truncated())?,
        }
    }
    Ok(r)
}

/// A number range bound: `[number, inclusive bool]`.
fn read_number_bound(input: &mut Input<'_>) -> Result<NumberBound, String> {
    let shape = || "a number bound is not a [number, bool] array".to_string();
    let len = match input.peek() {
        Ok(Marker::FixArray(_) | Marker::Array16 | Marker::Array32) => {
            input.rmp(rmp::decode::read_array_len).map_err(|_| shape())?
        }
        _ => return Err(shape()),
    };
    if len != 2 {
        return Err(shape());
    }
    // Reuse the value decoder for all of cty's number encodings; it must be a known number.
    let mut decoder =
        Decoder { input: Input { bytes: input.bytes, pos: input.pos }, walk: Walk::default() };
    let value = match decoder.peek() {
        Ok(m) if !is_ext(m) && m != Marker::Null => {
            decoder.number().map_err(|e| format!("number bound: {e}"))?
        }
        _ => return Err(shape()),
    };
    input.pos = decoder.input.pos;
    let inclusive = match input.peek() {
        Ok(Marker::True) => true,
        Ok(Marker::False) => false,
        _ => return Err(shape()),
    };
    input.skip_marker();
    Ok(NumberBound { value, inclusive })
}

// ---------------------------------------------------------------------------------------------
// Writing

struct MsgpackOut {
    buf: ByteBuf,
}

/// Writing to a `ByteBuf` cannot fail (its error type is `Infallible`).
fn written<T>(result: Result<T, ValueWriteError<Infallible>>) -> T {
    match result {
        Ok(t) => t,
        Err(
            ValueWriteError::InvalidMarkerWrite(never) | ValueWriteError::InvalidDataWrite(never),
        ) => match never {},
    }
}

fn written_marker(result: Result<(), Infallible>) {
    match result {
        Ok(()) => {}
        Err(never) => match never {},
    }
}

/// msgpack lengths are 32-bit.
fn wire_len(len: usize, walk: &Walk, what: &str) -> Result<u32, CodecError> {
    u32::try_from(len).map_err(|_| CodecError::Unencodable {
        path: walk.path(),
        reason: format!("{what} of {len} is too long for msgpack"),
    })
}

fn write_number(buf: &mut ByteBuf, n: &Number, walk: &Walk) -> Result<(), CodecError> {
    match number::wire_form(n)
        .map_err(|reason| CodecError::InvalidNumber { path: walk.path(), reason })?
    {
        WireNumber::Int(i) => {
            written(rmp::encode::write_sint(buf, i));
        }
        WireNumber::Float(f) => written(rmp::encode::write_f64(buf, f)),
        WireNumber::Text(text) => write_str(buf, &text, walk)?,
    }
    Ok(())
}

fn write_str(buf: &mut ByteBuf, s: &str, walk: &Walk) -> Result<(), CodecError> {
    written(rmp::encode::write_str_len(buf, wire_len(s.len(), walk, "a string")?));
    buf.as_mut_vec().extend_from_slice(s.as_bytes());
    Ok(())
}

/// cty's refinement payload: a map of the refinements present, keys in ascending order.
/// Number bounds are left out when `with_bounds` is false.
fn refinement_payload(
    r: &Refinements,
    with_bounds: bool,
    walk: &Walk,
) -> Result<Vec<u8>, CodecError> {
    let mut body = ByteBuf::new();
    let mut entries = 0u32;
    if let Some(nullable) = r.nullable {
        entries += 1;
        written(rmp::encode::write_sint(&mut body, KEY_NULLNESS as i64));
        written_marker(rmp::encode::write_bool(&mut body, nullable));
    }
    if let Some(prefix) = &r.string_prefix {
        entries += 1;
        written(rmp::encode::write_sint(&mut body, KEY_STRING_PREFIX as i64));
        write_str(&mut body, truncate_prefix(prefix), walk)?;
    }
    let bounds = [(KEY_NUMBER_LOWER, &r.number_lower), (KEY_NUMBER_UPPER, &r.number_upper)];
    for (key, bound) in bounds.into_iter().filter(|_| with_bounds) {
        if let Some(bound) = bound {
            entries += 1;
            written(rmp::encode::write_sint(&mut body, key as i64));
            written(rmp::encode::write_array_len(&mut body, 2));
            write_number(&mut body, &bound.value, walk)?;
            written_marker(rmp::encode::write_bool(&mut body, bound.inclusive));
        }
    }
    for (key, length) in [(KEY_LENGTH_LOWER, r.length_lower), (KEY_LENGTH_UPPER, r.length_upper)] {
        if let Some(length) = length {
            entries += 1;
            written(rmp::encode::write_sint(&mut body, key as i64));
            written(rmp::encode::write_uint(&mut body, length));
        }
    }
    if entries == 0 {
        return Ok(Vec::new());
    }
    let mut payload = ByteBuf::new();
    written(rmp::encode::write_map_len(&mut payload, entries));
    payload.as_mut_vec().extend_from_slice(body.as_slice());
    Ok(payload.into_vec())
}

/// Shortens a prefix the way cty does before writing it: at most 255 bytes, cut on a
/// character boundary, then one more character dropped because the character after the cut
/// could have combined with it (a shorter prefix is always still true).
fn truncate_prefix(prefix: &str) -> &str {
    if prefix.len() <= MAX_PREFIX_BYTES {
        return prefix;
    }
    let mut end = MAX_PREFIX_BYTES - 1;
    while !prefix.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &prefix[..end];
    match cut.char_indices().next_back() {
        Some((last, _)) => &cut[..last],
        None => cut,
    }
}

impl Emitter for MsgpackOut {
    fn null(&mut self) {
        written_marker(rmp::encode::write_nil(&mut self.buf));
    }

    fn bool(&mut self, b: bool) {
        written_marker(rmp::encode::write_bool(&mut self.buf, b));
    }

    fn number(&mut self, n: &Number, walk: &Walk) -> Result<(), CodecError> {
        write_number(&mut self.buf, n, walk)
    }

    fn string(&mut self, s: &str, walk: &Walk) -> Result<(), CodecError> {
        write_str(&mut self.buf, s, walk)
    }

    fn begin_array(&mut self, len: usize, walk: &Walk) -> Result<(), CodecError> {
        written(rmp::encode::write_array_len(&mut self.buf, wire_len(len, walk, "an array")?));
        Ok(())
    }

    fn array_element(&mut self, _index: usize) {}

    fn end_array(&mut self) {}

    fn begin_map(&mut self, len: usize, walk: &Walk) -> Result<(), CodecError> {
        written(rmp::encode::write_map_len(&mut self.buf, wire_len(len, walk, "a map")?));
        Ok(())
    }

    fn map_key(&mut self, _index: usize, key: &str, walk: &Walk) -> Result<(), CodecError> {
        write_str(&mut self.buf, key, walk)
    }

    fn end_map(&mut self) {}

    fn unknown(&mut self, r: &Refinements, ty: &Type, walk: &Walk) -> Result<(), CodecError> {
        let mut payload =
            if *ty == Type::Dynamic { Vec::new() } else { refinement_payload(r, true, walk)? };
        if payload.len() > MAX_REFINEMENT_BYTES {
            // Only huge decimal bounds can get here; dropping them loosens the refinement,
            // which is always still true.
            payload = refinement_payload(r, false, walk)?;
        }
        if payload.is_empty() || payload.len() > MAX_REFINEMENT_BYTES {
            self.buf.as_mut_vec().extend_from_slice(&WHOLLY_UNKNOWN);
            return Ok(());
        }
        let len = wire_len(payload.len(), walk, "a refinement payload")?;
        written(rmp::encode::write_ext_meta(&mut self.buf, len, REFINED_UNKNOWN_EXT));
        self.buf.as_mut_vec().extend_from_slice(&payload);
        Ok(())
    }

    fn begin_dynamic(&mut self, ty: &Type, walk: &Walk) -> Result<(), CodecError> {
        let json = ty.to_json();
        let len = wire_len(json.len(), walk, "a type")?;
        written(rmp::encode::write_array_len(&mut self.buf, 2));
        written(rmp::encode::write_bin_len(&mut self.buf, len));
        self.buf.as_mut_vec().extend_from_slice(json.as_bytes());
        Ok(())
    }

    fn end_dynamic(&mut self, _ty: &Type) {}
}

// ---------------------------------------------------------------------------------------------
// The wire's value without the wire

/// The value `decode_msgpack(&encode_msgpack(value, ty)?, ty)` gives, computed without the
/// bytes, and failing exactly when encoding fails (with the same error): numbers in the form
/// the wire gives them back (`Float(2.0)` is `Int(2)`), bare values under `dynamic` wrapped
/// with their inferred type, refinements as cty keeps them.
///
/// A front end that builds values itself (Pulumi, `terrarium harness`) hands the core what
/// Terraform would have sent; the core answers every front end with such values.
pub fn canonical(value: &Value, ty: &Type) -> Result<Value, CodecError> {
    encode(&mut Validate, value, ty)?;
    canonical_valid(value, ty)
}

/// [`canonical`] of a value that encodes: it mirrors the encoder's walk and the decoder's
/// reading of what the encoder writes.
fn canonical_valid(value: &Value, ty: &Type) -> Result<Value, CodecError> {
    if *ty == Type::Dynamic {
        return match value {
            Value::Null => Ok(Value::Null),
            Value::Unknown(_) => Ok(Value::unknown()),
            Value::Dynamic(d) if d.ty == Type::Dynamic => canonical_valid(&d.value, ty),
            Value::Dynamic(d) => Ok(Value::Dynamic(Box::new(DynamicValue {
                ty: d.ty.clone(),
                value: canonical_valid(&d.value, &d.ty)?,
            }))),
            bare => {
                let inferred = super::check::infer_type(bare).ok_or_else(|| {
                    CodecError::UntypedDynamic { path: Default::default(), found: bare.kind() }
                })?;
                if inferred == Type::Dynamic {
                    return canonical_valid(bare, &inferred);
                }
                Ok(Value::Dynamic(Box::new(DynamicValue {
                    value: canonical_valid(bare, &inferred)?,
                    ty: inferred,
                })))
            }
        };
    }
    Ok(match (value, ty) {
        (Value::Null, _) => Value::Null,
        (Value::Unknown(r), _) if r.is_empty() => Value::unknown(),
        // Refinements go through cty's payload rules (prefixes cut, huge bounds dropped):
        // a few bytes, only for refined unknowns.
        (Value::Unknown(_), _) => decode_msgpack(&encode_msgpack(value, ty)?, ty)?,
        (Value::Number(n), _) => Value::Number(
            match number::wire_form(n)
                .map_err(|reason| CodecError::InvalidNumber { path: Default::default(), reason })?
            {
                WireNumber::Int(i) => Number::Int(i),
                WireNumber::Float(f) => {
                    number::number_from_f64(f).ok_or_else(|| CodecError::InvalidNumber {
                        path: Default::default(),
                        reason: "NaN is not a Terraform number".into(),
                    })?
                }
                WireNumber::Text(text) => {
                    number::number_from_text(&text).ok_or_else(|| CodecError::InvalidNumber {
                        path: Default::default(),
                        reason: format!("{text:?} is not a number"),
                    })?
                }
            },
        ),
        (Value::List(items), Type::List(et)) => Value::List(canonical_items(items, |_| et)?),
        (Value::Set(items), Type::Set(et)) => Value::Set(canonical_items(items, |_| et)?),
        (Value::Tuple(items), Type::Tuple(types)) => {
            Value::Tuple(canonical_items(items, |i| &types[i])?)
        }
        (Value::Map(entries), Type::Map(et)) => Value::Map(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), canonical_valid(v, et)?)))
                .collect::<Result<_, CodecError>>()?,
        ),
        (Value::Object(attrs), Type::Object(object)) => Value::Object(
            object
                .attributes
                .iter()
                .map(|(name, t)| {
                    let v = attrs.get(name).unwrap_or(&Value::Null);
                    Ok((name.clone(), canonical_valid(v, t)?))
                })
                .collect::<Result<_, CodecError>>()?,
        ),
        (other, _) => other.clone(),
    })
}

fn canonical_items<'t>(
    items: &[Value],
    element_type: impl Fn(usize) -> &'t Type,
) -> Result<Vec<Value>, CodecError> {
    items.iter().enumerate().map(|(i, v)| canonical_valid(v, element_type(i))).collect()
}

/// An [`Emitter`] that writes nothing and refuses what [`MsgpackOut`] refuses.
struct Validate;

impl Emitter for Validate {
    fn null(&mut self) {}

    fn bool(&mut self, _: bool) {}

    fn number(&mut self, n: &Number, walk: &Walk) -> Result<(), CodecError> {
        match number::wire_form(n)
            .map_err(|reason| CodecError::InvalidNumber { path: walk.path(), reason })?
        {
            WireNumber::Text(text) => wire_len(text.len(), walk, "a string").map(|_| ()),
            _ => Ok(()),
        }
    }

    fn string(&mut self, s: &str, walk: &Walk) -> Result<(), CodecError> {
        wire_len(s.len(), walk, "a string").map(|_| ())
    }

    fn begin_array(&mut self, len: usize, walk: &Walk) -> Result<(), CodecError> {
        wire_len(len, walk, "an array").map(|_| ())
    }

    fn array_element(&mut self, _index: usize) {}

    fn end_array(&mut self) {}

    fn begin_map(&mut self, len: usize, walk: &Walk) -> Result<(), CodecError> {
        wire_len(len, walk, "a map").map(|_| ())
    }

    fn map_key(&mut self, _index: usize, key: &str, walk: &Walk) -> Result<(), CodecError> {
        wire_len(key.len(), walk, "a string").map(|_| ())
    }

    fn end_map(&mut self) {}

    fn unknown(&mut self, r: &Refinements, ty: &Type, walk: &Walk) -> Result<(), CodecError> {
        if r.is_empty() {
            return Ok(());
        }
        MsgpackOut { buf: ByteBuf::new() }.unknown(r, ty, walk)
    }

    fn begin_dynamic(&mut self, ty: &Type, walk: &Walk) -> Result<(), CodecError> {
        wire_len(ty.to_json().len(), walk, "a type").map(|_| ())
    }

    fn end_dynamic(&mut self, _ty: &Type) {}
}

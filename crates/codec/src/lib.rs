//! The value codec: tfplugin6 `DynamicValue` bytes (msgpack or JSON) and stored JSON state
//! <-> typed [`Value`] trees, driven by the schema [`Type`], in cty's wire format exactly.
//!
//! * msgpack: null is nil; numbers are int, float64 or decimal text (whichever is exact);
//!   lists/sets/tuples are arrays; maps/objects are maps with attributes in sorted order;
//!   unknowns are extension values (ext 0, or ext 12 carrying refinements); `dynamic` values
//!   are `[bin(type JSON), value]`.
//! * JSON: the same shapes; `dynamic` values are `{"value": ..., "type": ...}`; no unknowns.
//!
//! Decoding is total: malformed or hostile bytes give a [`CodecError`] naming the attribute
//! path, never a panic, and nothing is allocated from a length the input merely claims.
//! [`check`] validates the trees guests return before they are encoded.

mod check;
mod encode;
mod json;
mod msgpack;
mod number;
#[cfg(test)]
mod tests;

use terrarium_model::{AttributePath, PathStep, Type, Value};

pub use check::{Mismatch, check};
pub use json::{decode_json, decode_json_untyped, encode_json};
pub use msgpack::{canonical, decode_msgpack, encode_msgpack};

/// How deeply containers and `dynamic` wrappers may nest in one value. Far beyond any real
/// schema (and equal to serde_json's own limit, which already bounds JSON input and every
/// type's JSON); it bounds the codec's recursion, and so its stack use, whatever the input
/// says. Unoptimised builds use a few KiB of stack per level.
pub const MAX_DEPTH: usize = 128;

/// The longest string a provider may return in a value (state, plans, results), in bytes.
/// Terraform holds each string of its state several times over while it plans (a 120 MiB
/// string took it to 4.6 GiB), so a value with a longer one is refused, naming the attribute.
pub const MAX_STRING_BYTES: usize = 16 << 20;

/// cty refuses refinement payloads longer than this (an abuse guard); so do we, and we never
/// write longer ones.
pub const MAX_REFINEMENT_BYTES: usize = 1024;

/// Why bytes could not be decoded into, or a value could not be encoded as, a given type.
/// Every variant says where ([`CodecError::path`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CodecError {
    #[error("at {path}: expected {expected}, found {found}")]
    Mismatch { path: AttributePath, expected: String, found: String },
    #[error("at {path}: missing attribute {name:?}")]
    MissingAttribute { path: AttributePath, name: String },
    #[error("at {path}: unsupported attribute {name:?}")]
    UnsupportedAttribute { path: AttributePath, name: String },
    #[error("at {path}: duplicate key {key:?}")]
    DuplicateKey { path: AttributePath, key: String },
    #[error("at {path}: a tuple of {expected} elements is required, found {found}")]
    TupleLength { path: AttributePath, expected: usize, found: usize },
    #[error("at {path}: the input ends in the middle of a value")]
    Truncated { path: AttributePath },
    #[error("at {path}: {what} claims {claimed} but only {remaining} bytes of input remain")]
    LengthBeyondInput { path: AttributePath, what: &'static str, claimed: u64, remaining: usize },
    #[error("at {path}: string is not valid UTF-8")]
    InvalidUtf8 { path: AttributePath },
    #[error("at {path}: invalid number: {reason}")]
    InvalidNumber { path: AttributePath, reason: String },
    #[error("at {path}: invalid unknown value: {reason}")]
    InvalidUnknown { path: AttributePath, reason: String },
    #[error("at {path}: invalid dynamic value: {reason}")]
    InvalidDynamic { path: AttributePath, reason: String },
    #[error("at {path}: a value of dynamic type must say its type (found a bare {found})")]
    UntypedDynamic { path: AttributePath, found: &'static str },
    #[error("at {path}: JSON cannot represent an unknown value")]
    UnknownInJson { path: AttributePath },
    #[error("at {path}: cannot be encoded: {reason}")]
    Unencodable { path: AttributePath, reason: String },
    #[error("at {path}: values nest deeper than {limit} levels")]
    TooDeep { path: AttributePath, limit: usize },
    #[error("at {path}: {count} unexpected bytes after the value")]
    TrailingBytes { path: AttributePath, count: usize },
    #[error("at {path}: invalid JSON: {reason}")]
    InvalidJson { path: AttributePath, reason: String },
}

impl CodecError {
    /// The attribute path the error is about (the root for whole-input problems).
    pub fn path(&self) -> &AttributePath {
        match self {
            CodecError::Mismatch { path, .. }
            | CodecError::MissingAttribute { path, .. }
            | CodecError::UnsupportedAttribute { path, .. }
            | CodecError::DuplicateKey { path, .. }
            | CodecError::TupleLength { path, .. }
            | CodecError::Truncated { path }
            | CodecError::LengthBeyondInput { path, .. }
            | CodecError::InvalidUtf8 { path }
            | CodecError::InvalidNumber { path, .. }
            | CodecError::InvalidUnknown { path, .. }
            | CodecError::InvalidDynamic { path, .. }
            | CodecError::UntypedDynamic { path, .. }
            | CodecError::UnknownInJson { path }
            | CodecError::Unencodable { path, .. }
            | CodecError::TooDeep { path, .. }
            | CodecError::TrailingBytes { path, .. }
            | CodecError::InvalidJson { path, .. } => path,
        }
    }
}

/// A tfplugin6 DynamicValue as it arrives: msgpack if non-empty, else json if non-empty,
/// else null (Terraform's own rule).
pub fn decode_dynamic_value(msgpack: &[u8], json: &[u8], ty: &Type) -> Result<Value, CodecError> {
    if !msgpack.is_empty() {
        decode_msgpack(msgpack, ty)
    } else if !json.is_empty() {
        decode_json(json, ty)
    } else {
        Ok(Value::Null)
    }
}

/// Where a walk over a value is: the path so far (pushed and popped, cloned only for errors)
/// and the nesting depth, which is bounded by [`MAX_DEPTH`].
#[derive(Default)]
pub(crate) struct Walk {
    steps: Vec<PathStep>,
    depth: usize,
}

impl Walk {
    pub(crate) fn path(&self) -> AttributePath {
        AttributePath(self.steps.clone())
    }

    pub(crate) fn push(&mut self, step: PathStep) {
        self.steps.push(step);
    }

    pub(crate) fn pop(&mut self) {
        self.steps.pop();
    }

    /// Enters one more level of nesting, failing past [`MAX_DEPTH`].
    pub(crate) fn enter(&mut self) -> Result<(), CodecError> {
        if self.depth >= MAX_DEPTH {
            return Err(CodecError::TooDeep { path: self.path(), limit: MAX_DEPTH });
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    pub(crate) fn mismatch(&self, ty: &Type, found: impl Into<String>) -> CodecError {
        CodecError::Mismatch {
            path: self.path(),
            expected: ty.friendly_name(),
            found: found.into(),
        }
    }
}

/// A path step for element `i` of a list, set or tuple.
pub(crate) fn index_step(i: usize) -> PathStep {
    PathStep::Index(i64::try_from(i).unwrap_or(i64::MAX))
}

/// Whether `ty` nests no deeper than `budget` levels. Types inside `Value::Dynamic` come from
/// guests and may be arbitrarily deep; this bounds the recursion before anything else walks
/// them (the model's own type functions recurse without a limit).
/// Like [`Walk`], only containers count as a level.
pub(crate) fn type_fits_depth(ty: &Type, budget: usize) -> bool {
    let Some(inner) = budget.checked_sub(1) else {
        return ty.is_primitive() || *ty == Type::Dynamic;
    };
    match ty {
        Type::String | Type::Number | Type::Bool | Type::Dynamic => true,
        Type::List(t) | Type::Set(t) | Type::Map(t) => type_fits_depth(t, inner),
        Type::Tuple(ts) => ts.iter().all(|t| type_fits_depth(t, inner)),
        Type::Object(o) => o.attributes.values().all(|t| type_fits_depth(t, inner)),
    }
}

//! The encoding walk shared by the msgpack and JSON encoders: it checks the value against
//! the type (first problem wins), tracks the path and depth, resolves `dynamic`, and tells
//! an [`Emitter`] what to write.

use terrarium_model::{Number, PathStep, Refinements, Type, Value};

use super::check::{found_name, infer_type, validate_refinements};
use super::{CodecError, MAX_DEPTH, Walk, index_step, type_fits_depth};

/// A wire format's writer. Containers are announced with their length first (msgpack needs
/// it), and each element or entry is announced before it is written (JSON needs commas).
pub(crate) trait Emitter {
    fn null(&mut self);
    fn bool(&mut self, b: bool);
    fn number(&mut self, n: &Number, walk: &Walk) -> Result<(), CodecError>;
    fn string(&mut self, s: &str, walk: &Walk) -> Result<(), CodecError>;
    fn begin_array(&mut self, len: usize, walk: &Walk) -> Result<(), CodecError>;
    fn array_element(&mut self, index: usize);
    fn end_array(&mut self);
    fn begin_map(&mut self, len: usize, walk: &Walk) -> Result<(), CodecError>;
    fn map_key(&mut self, index: usize, key: &str, walk: &Walk) -> Result<(), CodecError>;
    fn end_map(&mut self);
    /// An unknown value of type `ty` (refinements already validated for it).
    fn unknown(
        &mut self,
        refinements: &Refinements,
        ty: &Type,
        walk: &Walk,
    ) -> Result<(), CodecError>;
    /// Opens a typed wrapper around a value of a `dynamic` attribute.
    fn begin_dynamic(&mut self, ty: &Type, walk: &Walk) -> Result<(), CodecError>;
    fn end_dynamic(&mut self, ty: &Type);
}

/// Encodes `value` as type `ty`.
pub(crate) fn encode<E: Emitter>(out: &mut E, value: &Value, ty: &Type) -> Result<(), CodecError> {
    Encoder { out, walk: Walk::default() }.value(value, ty)
}

struct Encoder<'e, E> {
    out: &'e mut E,
    walk: Walk,
}

impl<E: Emitter> Encoder<'_, E> {
    fn value(&mut self, value: &Value, ty: &Type) -> Result<(), CodecError> {
        if *ty == Type::Dynamic {
            return self.dynamic(value);
        }
        match value {
            Value::Null => {
                self.out.null();
                Ok(())
            }
            Value::Unknown(r) => {
                validate_refinements(r, ty).map_err(|reason| CodecError::InvalidUnknown {
                    path: self.walk.path(),
                    reason,
                })?;
                self.out.unknown(r, ty, &self.walk)
            }
            known => self.known(known, ty),
        }
    }

    fn dynamic(&mut self, value: &Value) -> Result<(), CodecError> {
        let inferred;
        let (ty, inner) = match value {
            Value::Null => {
                self.out.null();
                return Ok(());
            }
            // cty cannot refine an unknown of unknown type: wholly unknown, refinements dropped.
            Value::Unknown(_) => {
                return self.out.unknown(&Refinements::default(), &Type::Dynamic, &self.walk);
            }
            Value::Dynamic(d) => (&d.ty, &d.value),
            bare => {
                inferred = infer_type(bare).ok_or_else(|| CodecError::UntypedDynamic {
                    path: self.walk.path(),
                    found: bare.kind(),
                })?;
                (&inferred, bare)
            }
        };
        self.walk.enter()?;
        if !type_fits_depth(ty, MAX_DEPTH - self.walk.depth()) {
            return Err(CodecError::TooDeep { path: self.walk.path(), limit: MAX_DEPTH });
        }
        if *ty == Type::Dynamic {
            // A wrapper saying "dynamic" says nothing: the inner value brings its own type.
            self.dynamic(inner)?;
        } else {
            self.out.begin_dynamic(ty, &self.walk)?;
            self.value(inner, ty)?;
            self.out.end_dynamic(ty);
        }
        self.walk.leave();
        Ok(())
    }

    fn known(&mut self, value: &Value, ty: &Type) -> Result<(), CodecError> {
        match (ty, value) {
            (Type::String, Value::String(s)) => self.out.string(s, &self.walk),
            (Type::Number, Value::Number(n)) => self.out.number(n, &self.walk),
            (Type::Bool, Value::Bool(b)) => {
                self.out.bool(*b);
                Ok(())
            }
            (Type::List(et), Value::List(items)) | (Type::Set(et), Value::Set(items)) => {
                self.array(items, |_| et)
            }
            (Type::Tuple(types), Value::Tuple(items)) => {
                if types.len() != items.len() {
                    return Err(CodecError::TupleLength {
                        path: self.walk.path(),
                        expected: types.len(),
                        found: items.len(),
                    });
                }
                self.array(items, |i| &types[i])
            }
            (Type::Map(et), Value::Map(entries)) => {
                self.walk.enter()?;
                self.out.begin_map(entries.len(), &self.walk)?;
                for (i, (key, item)) in entries.iter().enumerate() {
                    self.out.map_key(i, key, &self.walk)?;
                    self.walk.push(PathStep::Key(key.clone()));
                    self.value(item, et)?;
                    self.walk.pop();
                }
                self.out.end_map();
                self.walk.leave();
                Ok(())
            }
            (Type::Object(object), Value::Object(attrs)) => {
                if let Some(extra) = attrs.keys().find(|k| !object.attributes.contains_key(*k)) {
                    return Err(CodecError::UnsupportedAttribute {
                        path: self.walk.path(),
                        name: extra.clone(),
                    });
                }
                self.walk.enter()?;
                self.out.begin_map(object.attributes.len(), &self.walk)?;
                // BTreeMap order is byte order, the same as Go's sort.Strings: cty's order.
                for (i, (name, attr_ty)) in object.attributes.iter().enumerate() {
                    let Some(item) = attrs.get(name) else {
                        return Err(CodecError::MissingAttribute {
                            path: self.walk.path(),
                            name: name.clone(),
                        });
                    };
                    self.out.map_key(i, name, &self.walk)?;
                    self.walk.push(PathStep::Attribute(name.clone()));
                    self.value(item, attr_ty)?;
                    self.walk.pop();
                }
                self.out.end_map();
                self.walk.leave();
                Ok(())
            }
            _ => Err(self.walk.mismatch(ty, found_name(value))),
        }
    }

    fn array<'t>(
        &mut self,
        items: &[Value],
        element_type: impl Fn(usize) -> &'t Type,
    ) -> Result<(), CodecError> {
        self.walk.enter()?;
        self.out.begin_array(items.len(), &self.walk)?;
        for (i, item) in items.iter().enumerate() {
            self.out.array_element(i);
            self.walk.push(index_step(i));
            self.value(item, element_type(i))?;
            self.walk.pop();
        }
        self.out.end_array();
        self.walk.leave();
        Ok(())
    }
}

//! Pulumi property values (`google.protobuf.Struct`) to and from the host's values.
//!
//! Pulumi marks special values with an object holding the signature key
//! [`SIG_KEY`]: secrets, assets, archives, resource references and output values; an
//! unknown (computed) value is the string [`UNKNOWN`]. The conversion is driven by the schema
//! type, so objects get their attributes' camelCase names ([`super::names`]) and primitives
//! convert as Terraform converts them (`"3"` to a number where the schema says number).
//!
//! Secrets do not exist in the host's values: a secret input is unwrapped and its path
//! remembered ([`Decoded::secrets`]), and outputs are wrapped again where an input was secret
//! or the schema marks the attribute sensitive.

use std::collections::{BTreeMap, BTreeSet};

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value as Pb};
use terrarium_model::conform::conform;
use terrarium_model::{AttributePath, DynamicValue, Number, PathStep, Type, Value};

use terrarium_model::schema::{AttributeType, Block, BlockNesting};

use super::change::configurable_at;
use super::names::{PropertyNames, snake_case};

/// The key whose value says what a special object is.
pub const SIG_KEY: &str = "4dabf18193072939515e22adb298388d";
pub const SECRET_SIG: &str = "1b47061264138c4ac30d75fd1eb44270";
pub const ASSET_SIG: &str = "c44067f5952c0a294b673a41bacd8c17";
pub const ARCHIVE_SIG: &str = "0def7320c3a5731c473e5ecbe6d01bc7";
pub const RESOURCE_REF_SIG: &str = "5cf8f73096256a8f31e491e813e4eb8e";
pub const OUTPUT_SIG: &str = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
/// An unknown (computed) value.
pub const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/// A property the conversion refused, with its Pulumi property path (`keepers.a`,
/// `option[0].weight`) and why: what Check reports as a `CheckFailure`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub property: String,
    pub reason: String,
}

/// A value converted from Pulumi properties, with the paths that were secret.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub value: Value,
    pub secrets: BTreeSet<AttributePath>,
}

/// The properties of an object of type `ty` (a resource's, a data source's or the provider's).
/// Properties the type does not have are refused, except Pulumi's own (`__` prefix), which are
/// left out.
pub fn from_struct(properties: Option<&Struct>, ty: &Type) -> Result<Decoded, Vec<Failure>> {
    read_struct(properties, ty, None)
}

/// [`from_struct`] for a resource's inputs (`block` is its schema): a property the type does
/// not have is refused with the names of the properties one can set there, never the
/// computed-only ones (`id`, a result).
pub fn from_inputs(
    properties: Option<&Struct>,
    ty: &Type,
    block: &Block,
) -> Result<Decoded, Vec<Failure>> {
    read_struct(properties, ty, Some(block))
}

fn read_struct(
    properties: Option<&Struct>,
    ty: &Type,
    inputs: Option<&Block>,
) -> Result<Decoded, Vec<Failure>> {
    let empty = Struct::default();
    let properties = properties.unwrap_or(&empty);
    let mut decoded = Decoded { value: Value::Null, secrets: BTreeSet::new() };
    let mut failures = Vec::new();
    let fields: BTreeMap<String, Pb> = properties
        .fields
        .iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let value = Pb { kind: Some(Kind::StructValue(Struct { fields })) };
    let mut reader =
        Reader { root: ty, inputs, secrets: &mut decoded.secrets, failures: &mut failures };
    decoded.value = reader.read(&value, ty, &AttributePath::root());
    if failures.is_empty() { Ok(decoded) } else { Err(failures) }
}

struct Reader<'a> {
    /// The type of the whole value, which names the properties of failures.
    root: &'a Type,
    /// The resource's schema when the value is its inputs: unknown properties are answered
    /// with the configurable ones.
    inputs: Option<&'a Block>,
    secrets: &'a mut BTreeSet<AttributePath>,
    failures: &'a mut Vec<Failure>,
}

impl Reader<'_> {
    fn fail(&mut self, path: &AttributePath, reason: String) -> Value {
        self.failures.push(Failure { property: property_path(path, self.root), reason });
        Value::Null
    }

    fn read(&mut self, value: &Pb, ty: &Type, path: &AttributePath) -> Value {
        let Some(kind) = &value.kind else { return Value::Null };
        match kind {
            Kind::NullValue(_) => Value::Null,
            Kind::StringValue(s) if s == UNKNOWN => Value::unknown(),
            Kind::StructValue(s) if s.fields.contains_key(SIG_KEY) => self.special(s, ty, path),
            _ => match ty {
                Type::Object(o) => {
                    let Kind::StructValue(s) = kind else {
                        return self
                            .fail(path, format!("expected an object, got {}", kind_name(kind)));
                    };
                    let names = PropertyNames::new(o.attributes.keys().map(String::as_str));
                    let mut out: BTreeMap<String, Value> =
                        o.attributes.keys().map(|k| (k.clone(), Value::Null)).collect();
                    for (key, v) in &s.fields {
                        let Some((name, attr_ty)) =
                            names.terraform(key).and_then(|n| o.attributes.get_key_value(n))
                        else {
                            let offered = self.inputs.and_then(|b| configurable_at(b, path));
                            let known: Vec<String> = o
                                .attributes
                                .keys()
                                .filter(|k| offered.as_ref().is_none_or(|set| set.contains(*k)))
                                .map(|k| names.pulumi(k))
                                .collect();
                            let at = path.attr(key.clone());
                            let reason = format!(
                                "unknown property {key:?}; the properties are: {}",
                                known.join(", ")
                            );
                            let property = property_path_named(&at, key, self.root);
                            self.failures.push(Failure { property, reason });
                            continue;
                        };
                        let at = path.attr(name.clone());
                        let read = self.read(v, attr_ty, &at);
                        out.insert(name.clone(), read);
                    }
                    Value::Object(out)
                }
                Type::Map(element) => {
                    let Kind::StructValue(s) = kind else {
                        return self.fail(path, format!("expected a map, got {}", kind_name(kind)));
                    };
                    Value::Map(
                        s.fields
                            .iter()
                            .map(|(k, v)| (k.clone(), self.read(v, element, &path.key(k.clone()))))
                            .collect(),
                    )
                }
                Type::List(element) | Type::Set(element) => {
                    let Kind::ListValue(l) = kind else {
                        return self
                            .fail(path, format!("expected a list, got {}", kind_name(kind)));
                    };
                    let items = l
                        .values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| self.read(v, element, &path.index(i as i64)))
                        .collect();
                    if matches!(ty, Type::Set(_)) { Value::Set(items) } else { Value::List(items) }
                }
                Type::Tuple(elements) => {
                    let Kind::ListValue(l) = kind else {
                        return self
                            .fail(path, format!("expected a list, got {}", kind_name(kind)));
                    };
                    if l.values.len() != elements.len() {
                        return self.fail(
                            path,
                            format!("expected {} elements, got {}", elements.len(), l.values.len()),
                        );
                    }
                    Value::Tuple(
                        l.values
                            .iter()
                            .zip(elements)
                            .enumerate()
                            .map(|(i, (v, t))| self.read(v, t, &path.index(i as i64)))
                            .collect(),
                    )
                }
                Type::Dynamic => {
                    let untyped = self.read_untyped(value, path);
                    self.conformed(untyped, ty, path)
                }
                Type::String | Type::Number | Type::Bool => {
                    let primitive = match kind {
                        Kind::BoolValue(b) => Value::Bool(*b),
                        Kind::NumberValue(n) if n.is_finite() => {
                            Value::Number(Number::from_f64(*n))
                        }
                        Kind::NumberValue(n) => {
                            return self
                                .fail(path, format!("{n} is not a number Terraform can hold"));
                        }
                        Kind::StringValue(s) => Value::String(s.clone()),
                        other => {
                            return self.fail(
                                path,
                                format!(
                                    "expected a {}, got {}",
                                    ty.friendly_name(),
                                    kind_name(other)
                                ),
                            );
                        }
                    };
                    self.conformed(primitive, ty, path)
                }
            },
        }
    }

    fn conformed(&mut self, value: Value, ty: &Type, path: &AttributePath) -> Value {
        match conform(value, ty) {
            Ok(v) => v,
            Err(e) => self.fail(path, e.message),
        }
    }

    /// A value of a `dynamic` attribute: objects become maps and arrays lists, which
    /// `conform` then types.
    fn read_untyped(&mut self, value: &Pb, path: &AttributePath) -> Value {
        match &value.kind {
            None | Some(Kind::NullValue(_)) => Value::Null,
            Some(Kind::BoolValue(b)) => Value::Bool(*b),
            Some(Kind::NumberValue(n)) => Value::Number(Number::from_f64(*n)),
            Some(Kind::StringValue(s)) if s == UNKNOWN => Value::unknown(),
            Some(Kind::StringValue(s)) => Value::String(s.clone()),
            Some(Kind::StructValue(s)) if s.fields.contains_key(SIG_KEY) => {
                self.special(s, &Type::Dynamic, path)
            }
            Some(Kind::StructValue(s)) => Value::Map(
                s.fields
                    .iter()
                    .map(|(k, v)| (k.clone(), self.read_untyped(v, &path.key(k.clone()))))
                    .collect(),
            ),
            Some(Kind::ListValue(l)) => Value::List(
                l.values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.read_untyped(v, &path.index(i as i64)))
                    .collect(),
            ),
        }
    }

    /// An object with the signature key.
    fn special(&mut self, s: &Struct, ty: &Type, path: &AttributePath) -> Value {
        let sig = match s.fields.get(SIG_KEY).and_then(|v| v.kind.as_ref()) {
            Some(Kind::StringValue(sig)) => sig.as_str(),
            _ => return self.fail(path, "a special value whose signature is not a string".into()),
        };
        match sig {
            SECRET_SIG => {
                self.secrets.insert(path.clone());
                match s.fields.get("value") {
                    Some(v) => self.read(v, ty, path),
                    None => Value::Null,
                }
            }
            OUTPUT_SIG => {
                if matches!(s.fields.get("secret").and_then(|v| v.kind.as_ref()), Some(Kind::BoolValue(true))) {
                    self.secrets.insert(path.clone());
                }
                match s.fields.get("value") {
                    Some(v) => self.read(v, ty, path),
                    None => Value::unknown(),
                }
            }
            RESOURCE_REF_SIG => {
                // A reference to another resource stands for its ID (its URN when it has none),
                // as the bridge reads it.
                let text = |k: &str| match s.fields.get(k).and_then(|v| v.kind.as_ref()) {
                    Some(Kind::StringValue(t)) if !t.is_empty() => Some(t.clone()),
                    _ => None,
                };
                match text("id").or_else(|| text("urn")) {
                    Some(t) if t == UNKNOWN => Value::unknown(),
                    Some(t) => self.conformed(Value::String(t), ty, path),
                    None => Value::unknown(),
                }
            }
            ASSET_SIG | ARCHIVE_SIG => self.fail(path, "assets and archives are not supported: Terraform schemas have no such type; pass the path or the text as a string".into(),
            ),
            other => self.fail(path, format!("unknown special value signature {other:?}")),
        }
    }
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::NullValue(_) => "null",
        Kind::NumberValue(_) => "a number",
        Kind::StringValue(_) => "a string",
        Kind::BoolValue(_) => "a bool",
        Kind::StructValue(_) => "an object",
        Kind::ListValue(_) => "a list",
    }
}

/// How outputs are written.
pub struct Writer<'a> {
    /// Whether the value at a path (Terraform names) must be a secret.
    pub secret: &'a dyn Fn(&AttributePath) -> bool,
    /// Whether unknowns may appear (a preview); otherwise an unknown is written as null.
    pub unknowns: bool,
}

/// The properties of an object value of type `ty`.
pub fn to_struct(value: &Value, ty: &Type, writer: &Writer<'_>) -> Struct {
    match writer.write(value, ty, &AttributePath::root()).kind {
        Some(Kind::StructValue(s)) => s,
        _ => Struct::default(),
    }
}

impl Writer<'_> {
    fn write(&self, value: &Value, ty: &Type, path: &AttributePath) -> Pb {
        let plain = self.write_plain(value, ty, path);
        if !path.is_root() && (self.secret)(path) && !value.is_null() {
            secret(plain)
        } else {
            plain
        }
    }

    fn write_plain(&self, value: &Value, ty: &Type, path: &AttributePath) -> Pb {
        let kind = match (value, ty) {
            (Value::Null, _) => Kind::NullValue(0),
            (Value::Unknown(_), _) if self.unknowns => Kind::StringValue(UNKNOWN.into()),
            (Value::Unknown(_), _) => Kind::NullValue(0),
            (Value::Bool(b), _) => Kind::BoolValue(*b),
            // A number a Pulumi number (f64) cannot hold exactly travels as its decimal
            // text, which reads back exactly where the schema says number.
            (Value::Number(n), _) => match exact_f64(n) {
                Some(f) => Kind::NumberValue(f),
                None => Kind::StringValue(n.to_string()),
            },
            (Value::String(s), _) => Kind::StringValue(s.clone()),
            (Value::Dynamic(d), _) => return self.write(&d.value, &d.ty, path),
            (Value::Object(m), Type::Object(o)) => {
                let names = PropertyNames::new(o.attributes.keys().map(String::as_str));
                Kind::StructValue(Struct {
                    fields: m
                        .iter()
                        .filter_map(|(k, v)| {
                            let t = o.attributes.get(k)?;
                            Some((names.pulumi(k), self.write(v, t, &path.attr(k.clone()))))
                        })
                        .collect(),
                })
            }
            (Value::Map(m), _) => {
                let element = match ty {
                    Type::Map(e) => e.as_ref().clone(),
                    _ => Type::Dynamic,
                };
                Kind::StructValue(Struct {
                    fields: m
                        .iter()
                        .map(|(k, v)| (k.clone(), self.write(v, &element, &path.key(k.clone()))))
                        .collect(),
                })
            }
            (Value::Object(m), _) => Kind::StructValue(Struct {
                fields: m
                    .iter()
                    .map(|(k, v)| (k.clone(), self.write(v, &Type::Dynamic, &path.attr(k.clone()))))
                    .collect(),
            }),
            (Value::List(items) | Value::Set(items) | Value::Tuple(items), _) => {
                Kind::ListValue(ListValue {
                    values: items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let t = match ty {
                                Type::List(e) | Type::Set(e) => e.as_ref(),
                                Type::Tuple(ts) => ts.get(i).unwrap_or(&Type::Dynamic),
                                _ => &Type::Dynamic,
                            };
                            self.write(v, t, &path.index(i as i64))
                        })
                        .collect(),
                })
            }
        };
        Pb { kind: Some(kind) }
    }
}

/// Outputs written by an older schema version of the provider, as the raw JSON state
/// Terraform would have kept, for the provider's state upgrade: property names back to
/// attribute names (through `ty` where the attribute still exists, else by [`snake_case`]),
/// secrets unwrapped, the front end's own `__` properties left out. Also the attributes whose
/// values were secret, to keep them secret after the upgrade.
pub fn to_raw_state(properties: &Struct, ty: &Type) -> (serde_json::Value, BTreeSet<String>) {
    let mut secrets = BTreeSet::new();
    let names = match ty {
        Type::Object(o) => PropertyNames::new(o.attributes.keys().map(String::as_str)),
        _ => PropertyNames::default(),
    };
    let mut object = serde_json::Map::new();
    for (key, value) in properties.fields.iter().filter(|(k, _)| !k.starts_with("__")) {
        let name = names.terraform(key).map_or_else(|| snake_case(key), str::to_string);
        let attribute = match ty {
            Type::Object(o) => o.attributes.get(&name),
            _ => None,
        };
        let mut secret = false;
        object.insert(name.clone(), raw_json(value, attribute, &mut secret));
        if secret {
            secrets.insert(name);
        }
    }
    (serde_json::Value::Object(object), secrets)
}

/// One property value as JSON; `ty` is its type when the current schema still knows it.
fn raw_json(value: &Pb, ty: Option<&Type>, secret: &mut bool) -> serde_json::Value {
    use serde_json::Value as Json;
    let Some(kind) = &value.kind else { return Json::Null };
    match kind {
        Kind::NullValue(_) => Json::Null,
        Kind::BoolValue(b) => Json::Bool(*b),
        Kind::StringValue(s) => Json::String(s.clone()),
        Kind::NumberValue(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => {
            // A whole number stays one: `2`, not `2.0`, as Terraform writes it.
            Json::from(*n as i64)
        }
        Kind::NumberValue(n) => serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number),
        Kind::ListValue(list) => {
            let element = match ty {
                Some(Type::List(e) | Type::Set(e)) => Some(e.as_ref()),
                _ => None,
            };
            Json::Array(list.values.iter().map(|v| raw_json(v, element, secret)).collect())
        }
        Kind::StructValue(s) if s.fields.contains_key(SIG_KEY) => {
            let sig = s.fields.get(SIG_KEY).and_then(|v| v.kind.as_ref());
            if matches!(sig, Some(Kind::StringValue(sig)) if sig == SECRET_SIG) {
                *secret = true;
            }
            s.fields.get("value").map_or(Json::Null, |v| raw_json(v, ty, secret))
        }
        Kind::StructValue(s) => match ty {
            // Map keys and dynamic values are data, not property names.
            Some(Type::Map(element)) => Json::Object(
                s.fields
                    .iter()
                    .map(|(k, v)| (k.clone(), raw_json(v, Some(element), secret)))
                    .collect(),
            ),
            Some(Type::Dynamic) => Json::Object(
                s.fields
                    .iter()
                    .map(|(k, v)| (k.clone(), raw_json(v, Some(&Type::Dynamic), secret)))
                    .collect(),
            ),
            Some(object @ Type::Object(_)) => {
                let (json, inner) = to_raw_state(s, object);
                *secret |= !inner.is_empty();
                json
            }
            _ => {
                let unknown = Type::Object(Default::default());
                let (json, inner) = to_raw_state(s, &unknown);
                *secret |= !inner.is_empty();
                json
            }
        },
    }
}

/// `value` wrapped as a Pulumi secret.
pub fn secret(value: Pb) -> Pb {
    let fields = BTreeMap::from([
        (SIG_KEY.to_string(), Pb { kind: Some(Kind::StringValue(SECRET_SIG.into())) }),
        ("value".to_string(), value),
    ]);
    Pb { kind: Some(Kind::StructValue(Struct { fields })) }
}

/// `n` as an `f64` when that is exactly `n` (every integer up to 2^53, every float); `None`
/// for what it would round (a larger integer, a decimal with more digits, an infinity).
pub fn exact_f64(n: &Number) -> Option<f64> {
    match n {
        Number::Int(i) => {
            let f = *i as f64;
            (f as i128 == i128::from(*i)).then_some(f)
        }
        Number::Float(f) if f.is_finite() => Some(*f),
        Number::Float(_) | Number::Decimal(_) => None,
    }
}

/// The paths (Terraform names) of the numbers in `value` that [`exact_f64`] cannot hold,
/// with the numbers: what outputs carry as text.
pub fn inexact_numbers(value: &Value) -> Vec<(AttributePath, Number)> {
    fn walk(value: &Value, path: &AttributePath, out: &mut Vec<(AttributePath, Number)>) {
        match value {
            Value::Number(n) if exact_f64(n).is_none() => out.push((path.clone(), n.clone())),
            Value::Dynamic(d) => walk(&d.value, path, out),
            Value::Object(m) => m.iter().for_each(|(k, v)| walk(v, &path.attr(k.clone()), out)),
            Value::Map(m) => m.iter().for_each(|(k, v)| walk(v, &path.key(k.clone()), out)),
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &path.index(i as i64), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &AttributePath::root(), &mut out);
    out
}

/// A path as Pulumi writes property paths: `keepers.a`, `option[0].weight`, `tags["a.b"]`.
/// Attribute names are given in Terraform's names of the objects of `ty` and shown as those
/// objects' property names ([`PropertyNames`], the collision rule included), as values and
/// the schema name them; inside a `dynamic` value names stay as they are.
pub fn property_path(path: &AttributePath, ty: &Type) -> String {
    let mut out = String::new();
    let mut ty = Some(ty);
    for step in &path.0 {
        match step {
            PathStep::Attribute(name) => {
                let (shown, inner) = match ty {
                    Some(Type::Object(o)) => {
                        let names = PropertyNames::new(o.attributes.keys().map(String::as_str));
                        (names.pulumi(name), o.attributes.get(name))
                    }
                    Some(Type::Dynamic) => (name.clone(), Some(&Type::Dynamic)),
                    // A path the type does not have (a provider's mistake): camelCase at best.
                    _ => (super::names::camel_case(name), None),
                };
                push_name(&mut out, &shown);
                ty = inner;
            }
            PathStep::Key(key) => {
                push_name(&mut out, key);
                ty = match ty {
                    Some(Type::Map(element)) => Some(element),
                    Some(Type::Dynamic) => Some(&Type::Dynamic),
                    _ => None,
                };
            }
            PathStep::Index(i) => {
                out.push_str(&format!("[{i}]"));
                ty = match ty {
                    Some(Type::List(element) | Type::Set(element)) => Some(element),
                    Some(Type::Tuple(elements)) => {
                        usize::try_from(*i).ok().and_then(|i| elements.get(i))
                    }
                    Some(Type::Dynamic) => Some(&Type::Dynamic),
                    _ => None,
                };
            }
        }
    }
    out
}

/// A path whose last step is already a Pulumi name (an unknown property).
fn property_path_named(path: &AttributePath, last: &str, ty: &Type) -> String {
    let parent = AttributePath(path.0[..path.0.len().saturating_sub(1)].to_vec());
    let mut out = property_path(&parent, ty);
    push_name(&mut out, last);
    out
}

fn push_name(out: &mut String, name: &str) {
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(name);
    } else {
        out.push_str(&format!("[{}]", serde_json::Value::String(name.to_string())));
    }
}

/// A resource's inputs with every nested block of list, set or map nesting they leave out given
/// as an empty collection, at any depth, as Terraform's core hands configuration to a provider:
/// an absent `nic { ... }` block is no `nic`, never a null. A list or map of blocks that holds
/// a `dynamic` value is typed `dynamic` as a whole, so Pulumi's properties give it as plain
/// data (a list of maps); it is read with the block's schema and given in Terraform's form, a
/// tuple or object with its type (`framework::dynamic::typed_blocks`), as Terraform sends it.
pub fn with_empty_blocks(inputs: Value, block: &Block) -> Value {
    terrarium_framework::dynamic::typed_blocks(filled_blocks(inputs, block), block)
}

/// [`with_empty_blocks`] before the typing: absent blocks empty, and each block a block object.
fn filled_blocks(inputs: Value, block: &Block) -> Value {
    let Value::Object(mut fields) = inputs else { return inputs };
    for nested in &block.block_types {
        let inner = |v: Value| filled_blocks(block_object(v, &nested.block), &nested.block);
        let value = fields.remove(&nested.type_name).unwrap_or(Value::Null);
        let value = match (nested.nesting, value) {
            (BlockNesting::List, Value::Null) => Value::List(Vec::new()),
            (BlockNesting::Set, Value::Null) => Value::Set(Vec::new()),
            (BlockNesting::Map, Value::Null) => Value::Map(BTreeMap::new()),
            (_, Value::Dynamic(d)) if nested.nesting != BlockNesting::Single => {
                match (nested.nesting, d.value) {
                    (BlockNesting::Map, Value::Map(items) | Value::Object(items)) => {
                        Value::Map(items.into_iter().map(|(k, v)| (k, inner(v))).collect())
                    }
                    (_, Value::List(items) | Value::Tuple(items) | Value::Set(items)) => {
                        Value::List(items.into_iter().map(inner).collect())
                    }
                    (_, other) => other,
                }
            }
            (BlockNesting::Map, Value::Map(items) | Value::Object(items)) => {
                Value::Map(items.into_iter().map(|(k, v)| (k, inner(v))).collect())
            }
            (_, Value::List(items) | Value::Tuple(items)) => {
                Value::List(items.into_iter().map(inner).collect())
            }
            (_, Value::Set(items)) => Value::Set(items.into_iter().map(inner).collect()),
            (_, object @ (Value::Object(_) | Value::Map(_))) => inner(object),
            (_, other) => other,
        };
        fields.insert(nested.type_name.clone(), value);
    }
    Value::Object(fields)
}

/// One block's value as an object with each of the block's attributes and block types (a
/// block given as plain data is a map, leaves out what is null, and gives a `dynamic`
/// attribute's value without its type, which is inferred from the data).
fn block_object(value: Value, block: &Block) -> Value {
    let mut fields = match value {
        Value::Object(fields) | Value::Map(fields) => fields,
        other => return other,
    };
    for a in &block.attributes {
        if a.ty != AttributeType::Type(Type::Dynamic) {
            continue;
        }
        if let Some(v) = fields.remove(&a.name) {
            let v = match v {
                v @ (Value::Dynamic(_) | Value::Null | Value::Unknown(_)) => v,
                plain => {
                    let (ty, value) = terrarium_framework::dynamic::infer_type(plain);
                    Value::Dynamic(Box::new(DynamicValue { ty, value }))
                }
            };
            fields.insert(a.name.clone(), v);
        }
    }
    for name in block
        .attributes
        .iter()
        .map(|a| &a.name)
        .chain(block.block_types.iter().map(|b| &b.type_name))
    {
        fields.entry(name.clone()).or_insert(Value::Null);
    }
    Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Pb {
        Pb { kind: Some(Kind::StringValue(v.into())) }
    }
    fn n(v: f64) -> Pb {
        Pb { kind: Some(Kind::NumberValue(v)) }
    }
    fn obj(fields: &[(&str, Pb)]) -> Struct {
        Struct { fields: fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect() }
    }

    fn ty() -> Type {
        Type::object([
            ("min_length", Type::Number),
            ("keepers", Type::map(Type::String)),
            ("result", Type::String),
        ])
    }

    #[test]
    fn absent_blocks_are_empty_at_any_depth() {
        use terrarium_model::schema::NestedBlock;
        let nested = |name: &str, nesting, block| NestedBlock {
            type_name: name.into(),
            block,
            nesting,
            min_items: 0,
            max_items: 0,
            computed: false,
        };
        let disk = Block {
            block_types: vec![nested("tag", BlockNesting::Set, Block::default())],
            ..Block::default()
        };
        let block = Block {
            block_types: vec![
                nested("nic", BlockNesting::List, Block::default()),
                nested("disk", BlockNesting::List, disk),
                nested("labels", BlockNesting::Map, Block::default()),
                nested("boot", BlockNesting::Single, Block::default()),
            ],
            ..Block::default()
        };
        let inputs = Value::Object(BTreeMap::from([
            ("nic".to_owned(), Value::Null),
            ("disk".to_owned(), Value::List(vec![Value::Object(BTreeMap::new())])),
            ("boot".to_owned(), Value::Null),
        ]));
        let empty_disk = Value::Object(BTreeMap::from([("tag".to_owned(), Value::Set(vec![]))]));
        assert_eq!(
            with_empty_blocks(inputs, &block),
            Value::Object(BTreeMap::from([
                ("nic".to_owned(), Value::List(vec![])),
                ("disk".to_owned(), Value::List(vec![empty_disk])),
                ("labels".to_owned(), Value::Map(BTreeMap::new())),
                ("boot".to_owned(), Value::Null),
            ]))
        );
    }

    #[test]
    fn properties_are_read_in_camel_case_with_secrets_and_unknowns() {
        let props = obj(&[
            ("minLength", secret(s("3"))),
            ("keepers", Pb { kind: Some(Kind::StructValue(obj(&[("some_key", s(UNKNOWN))]))) }),
        ]);
        let d = from_struct(Some(&props), &ty()).unwrap();
        assert_eq!(d.value.attr("min_length"), Some(&Value::Number(Number::Int(3))));
        assert_eq!(d.value.attr("result"), Some(&Value::Null));
        let Some(Value::Map(keepers)) = d.value.attr("keepers") else { panic!("{:?}", d.value) };
        assert!(keepers["some_key"].is_unknown());
        assert_eq!(d.secrets, BTreeSet::from([AttributePath::root().attr("min_length")]));
    }

    #[test]
    fn a_wrong_property_is_a_failure_with_its_path() {
        let props = obj(&[("minLength", s("three")), ("bogus", n(1.0))]);
        let failures = from_struct(Some(&props), &ty()).unwrap_err();
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert_eq!(failures[0].property, "bogus");
        assert!(failures[0].reason.contains("minLength"), "{failures:?}");
        assert_eq!(failures[1].property, "minLength");
    }

    #[test]
    fn an_unknown_input_is_answered_with_the_properties_one_can_set() {
        use terrarium_model::schema::{Attribute, AttributeType};
        let attribute = |name: &str, ty: Type, optional: bool| Attribute {
            name: name.into(),
            ty: AttributeType::Type(ty),
            optional,
            computed: !optional,
            ..Attribute::default()
        };
        let block = Block {
            attributes: vec![
                attribute("id", Type::String, false),
                attribute("min_length", Type::Number, true),
                attribute("keepers", Type::map(Type::String), true),
                attribute("result", Type::String, false),
            ],
            ..Block::default()
        };
        let ty = Type::object([
            ("id", Type::String),
            ("min_length", Type::Number),
            ("keepers", Type::map(Type::String)),
            ("result", Type::String),
        ]);
        let props = obj(&[("bogus", n(1.0))]);
        let failures = from_inputs(Some(&props), &ty, &block).unwrap_err();
        assert_eq!(
            failures[0].reason,
            "unknown property \"bogus\"; the properties are: keepers, minLength"
        );
    }

    #[test]
    fn outputs_are_written_in_camel_case_and_secret_where_asked() {
        let value = Value::Object(BTreeMap::from([
            ("min_length".to_string(), Value::Number(Number::Int(3))),
            ("keepers".to_string(), Value::Null),
            ("result".to_string(), Value::unknown()),
        ]));
        let is_secret = |p: &AttributePath| *p == AttributePath::root().attr("result");
        let preview = to_struct(&value, &ty(), &Writer { secret: &is_secret, unknowns: true });
        assert_eq!(preview.fields["minLength"], n(3.0));
        assert_eq!(preview.fields["result"], secret(s(UNKNOWN)));
        let applied = to_struct(&value, &ty(), &Writer { secret: &|_| false, unknowns: false });
        assert_eq!(applied.fields["result"], Pb { kind: Some(Kind::NullValue(0)) });
    }

    #[test]
    fn property_paths_read_as_pulumi_writes_them() {
        let ty = Type::object([
            ("option_list", Type::list(Type::object([("min_weight", Type::Number)]))),
            ("tags", Type::map(Type::String)),
            ("extra", Type::Dynamic),
        ]);
        let p = AttributePath::root().attr("option_list").index(0).attr("min_weight");
        assert_eq!(property_path(&p, &ty), "optionList[0].minWeight");
        let tags = AttributePath::root().attr("tags").key("a.b");
        assert_eq!(property_path(&tags, &ty), "tags[\"a.b\"]");
        // Inside a dynamic value names are the value's own, as it is written.
        let dynamic = AttributePath::root().attr("extra").attr("some_key");
        assert_eq!(property_path(&dynamic, &ty), "extra.some_key");
    }

    #[test]
    fn colliding_names_are_the_same_in_values_and_paths() {
        // `min_length` and `minLength` would both be `minLength`: both keep their names, in
        // what is read, what is written and the paths of failures and diffs alike.
        let ty = Type::object([
            ("min_length", Type::Number),
            ("minLength", Type::String),
            ("max_length", Type::Number),
        ]);
        let props = obj(&[("min_length", n(1.0)), ("minLength", s("x")), ("maxLength", s("two"))]);
        let failures = from_struct(Some(&props), &ty).unwrap_err();
        assert_eq!(failures.iter().map(|f| f.property.as_str()).collect::<Vec<_>>(), ["maxLength"]);
        let ok = obj(&[("min_length", n(1.0)), ("minLength", s("x"))]);
        let read = from_struct(Some(&ok), &ty).unwrap().value;
        assert_eq!(read.attr("min_length"), Some(&Value::Number(Number::Int(1))));
        assert_eq!(read.attr("minLength"), Some(&Value::string("x")));
        let written = to_struct(&read, &ty, &Writer { secret: &|_| false, unknowns: false });
        assert_eq!(written.fields["min_length"], n(1.0));
        assert_eq!(written.fields["minLength"], s("x"));
        let root = AttributePath::root();
        assert_eq!(property_path(&root.attr("min_length"), &ty), "min_length");
        assert_eq!(property_path(&root.attr("minLength"), &ty), "minLength");
        assert_eq!(property_path(&root.attr("max_length"), &ty), "maxLength");
    }

    #[test]
    fn numbers_an_f64_cannot_hold_travel_as_text_and_read_back_exactly() {
        let ty = Type::object([("big", Type::Number), ("small", Type::Number)]);
        let value = Value::Object(BTreeMap::from([
            ("big".to_string(), Value::Number(Number::Int(9_007_199_254_740_993))),
            ("small".to_string(), Value::Number(Number::Int(4_503_599_627_370_496))),
        ]));
        let written = to_struct(&value, &ty, &Writer { secret: &|_| false, unknowns: false });
        assert_eq!(written.fields["big"], s("9007199254740993"));
        assert_eq!(written.fields["small"], n(4_503_599_627_370_496.0));
        assert_eq!(from_struct(Some(&written), &ty).unwrap().value, value);
        let inexact = inexact_numbers(&value);
        assert_eq!(inexact.len(), 1);
        assert_eq!(property_path(&inexact[0].0, &ty), "big");
        assert_eq!(exact_f64(&Number::Int(i64::MAX)), None);
        assert_eq!(exact_f64(&Number::Int(1 << 60)), Some((1u64 << 60) as f64));
    }
}

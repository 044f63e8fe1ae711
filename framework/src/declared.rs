//! Behaviour declared as data (the WIT `behaviour` interface, in neutral form), joined with
//! the schema Terraform sees into the [`Schema`] the planner, validators and checks run on.
//!
//! A guest in any language declares per attribute what the Rust SDK's builder methods say
//! ([`Attribute::default`], [`Attribute::requires_replace`], ...); code it cannot declare is
//! named by a hook number ([`DefaultValue::Hook`](crate::schema::DefaultValue::Hook), [`ReplaceRule::Hook`](crate::schema::ReplaceRule::Hook),
//! [`crate::validate::hook`]) and answered by the guest.

use std::collections::{HashMap, HashSet};

use terrarium_model::schema::{self as model, AttributeType, TextKind};
use terrarium_model::{Number, Value};

use crate::schema::{Attribute, Block, NestedBlock, Schema};
use crate::validate::{self, BoxedValidator};

/// The default of an optional and computed attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclaredDefault {
    /// Always this value.
    Value(Value),
    /// Computed by the guest's hook.
    Hook(u32),
}

/// When a change of the attribute replaces the resource.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum DeclaredReplace {
    /// Never.
    #[default]
    Never,
    /// On any change.
    Always,
    /// When the guest's hook says so.
    Hook(u32),
}

/// A declared validator (see [`crate::validate`] for what each checks).
#[derive(Clone, Debug, PartialEq)]
pub enum DeclaredValidator {
    /// String length in characters, inclusive.
    Length(u64, u64),
    /// String matches the regular expression.
    Pattern(String),
    /// String is one of these.
    OneOf(Vec<String>),
    /// Number within the bounds, inclusive; `None` is open.
    Range(Option<Number>, Option<Number>),
    /// Element count, inclusive.
    Size(u64, u64),
    /// No sibling named is set as well.
    ConflictsWith(Vec<String>),
    /// Every sibling named is set as well.
    AlsoRequires(Vec<String>),
    /// Exactly one of this and the siblings named is set.
    ExactlyOneOf(Vec<String>),
    /// At least one of this and the siblings named is set.
    AtLeastOneOf(Vec<String>),
    /// The guest's hook checks; the text says what it requires.
    Hook(u32, String),
}

/// The behaviour of one attribute, by its path of names from the root block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributeBehaviour {
    /// Names from the root block through nested blocks and nested attributes.
    pub path: Vec<String>,
    /// The default, if any.
    pub default: Option<DeclaredDefault>,
    /// Keep the prior value instead of an unknown.
    pub use_state_for_unknown: bool,
    /// Unknown on every update.
    pub unknown_on_update: bool,
    /// When a change replaces the resource.
    pub requires_replace: DeclaredReplace,
    /// Run in this order.
    pub validators: Vec<DeclaredValidator>,
}

/// The behaviour declared for one schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaBehaviour {
    /// Per attribute; attributes without behaviour need no entry.
    pub attributes: Vec<AttributeBehaviour>,
    /// Nested blocks any change inside which replaces the resource, by path.
    pub replace_blocks: Vec<Vec<String>>,
    /// Whether the guest adjusts the default plan (managed resources).
    pub plan_hook: bool,
}

/// A declaration that names no attribute or block of the schema.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the behaviour names {path:?}, which is no {what} of the schema")]
pub struct DeclaredError {
    /// The path as declared, joined with dots.
    pub path: String,
    /// "attribute" or "nested block".
    pub what: &'static str,
}

/// The schema Terraform sees, with the declared behaviour attached. Takes time linear in
/// the sizes of the schema and the behaviour: both are indexed by path first, so a schema
/// of tens of thousands of attributes joins as fast as it converts.
pub fn schema_with_behaviour(
    schema: &model::Schema,
    behaviour: &SchemaBehaviour,
) -> Result<Schema, DeclaredError> {
    let mut attributes = HashSet::new();
    let mut blocks = HashSet::new();
    schema_paths(&schema.block, &mut Vec::new(), &mut attributes, &mut blocks);
    for a in &behaviour.attributes {
        if !attributes.contains(a.path.as_slice()) {
            return Err(DeclaredError { path: a.path.join("."), what: "attribute" });
        }
    }
    for b in &behaviour.replace_blocks {
        if !blocks.contains(b.as_slice()) {
            return Err(DeclaredError { path: b.join("."), what: "nested block" });
        }
    }
    Ok(join(schema, behaviour))
}

/// The schema Terraform sees, with no behaviour beyond what it says itself (what the host
/// knows of a component that plans by itself).
pub fn schema_without_behaviour(schema: &model::Schema) -> Schema {
    join(schema, &SchemaBehaviour::default())
}

/// A schema's behaviour by path. Where two entries name one attribute, the first counts.
struct ByPath<'a> {
    attributes: HashMap<&'a [String], &'a AttributeBehaviour>,
    replace_blocks: HashSet<&'a [String]>,
}

impl<'a> ByPath<'a> {
    fn new(behaviour: &'a SchemaBehaviour) -> Self {
        let mut attributes = HashMap::with_capacity(behaviour.attributes.len());
        for a in &behaviour.attributes {
            attributes.entry(a.path.as_slice()).or_insert(a);
        }
        let replace_blocks = behaviour.replace_blocks.iter().map(Vec::as_slice).collect();
        ByPath { attributes, replace_blocks }
    }
}

fn join(schema: &model::Schema, behaviour: &SchemaBehaviour) -> Schema {
    let root = block(&schema.block, &[], &ByPath::new(behaviour));
    let mut out = Schema::new().version(schema.version);
    for a in root.attributes() {
        out = out.attribute(a.clone());
    }
    for b in root.blocks() {
        out = out.block(b.clone());
    }
    out = match schema.block.description.kind {
        TextKind::Plain => out.description(schema.block.description.text.clone()),
        TextKind::Markdown => out.markdown_description(schema.block.description.text.clone()),
    };
    if schema.block.deprecated {
        out = out.deprecated(schema.block.deprecation_message.clone());
    }
    out
}

/// Every path of an attribute (through nested blocks and nested attributes) and of a
/// nested block in `block`.
fn schema_paths(
    block: &model::Block,
    prefix: &mut Vec<String>,
    attributes: &mut HashSet<Vec<String>>,
    blocks: &mut HashSet<Vec<String>>,
) {
    fn nested_attributes(
        list: &[model::Attribute],
        prefix: &mut Vec<String>,
        attributes: &mut HashSet<Vec<String>>,
    ) {
        for a in list {
            prefix.push(a.name.clone());
            attributes.insert(prefix.clone());
            if let AttributeType::Nested { attributes: inner, .. } = &a.ty {
                nested_attributes(inner, prefix, attributes);
            }
            prefix.pop();
        }
    }
    nested_attributes(&block.attributes, prefix, attributes);
    for b in &block.block_types {
        prefix.push(b.type_name.clone());
        blocks.insert(prefix.clone());
        schema_paths(&b.block, prefix, attributes, blocks);
        prefix.pop();
    }
}

fn child_path(prefix: &[String], name: &str) -> Vec<String> {
    let mut path = prefix.to_vec();
    path.push(name.to_string());
    path
}

fn block(b: &model::Block, prefix: &[String], behaviour: &ByPath<'_>) -> Block {
    let mut out = Block::new();
    out = match b.description.kind {
        TextKind::Plain => out.description(b.description.text.clone()),
        TextKind::Markdown => out.markdown_description(b.description.text.clone()),
    };
    if b.deprecated {
        out = out.deprecated(b.deprecation_message.clone());
    }
    for a in &b.attributes {
        out = out.attribute(attribute(a, prefix, behaviour));
    }
    for nb in &b.block_types {
        let path = child_path(prefix, &nb.type_name);
        let mut nested =
            NestedBlock::new(nb.type_name.clone(), nb.nesting, block(&nb.block, &path, behaviour))
                .min_items(nb.min_items)
                .max_items(nb.max_items);
        if behaviour.replace_blocks.contains(path.as_slice()) {
            nested = nested.requires_replace();
        }
        if nb.computed {
            nested = nested.computed();
        }
        out = out.block(nested);
    }
    out
}

fn attribute(a: &model::Attribute, prefix: &[String], behaviour: &ByPath<'_>) -> Attribute {
    let path = child_path(prefix, &a.name);
    let mut out = match &a.ty {
        AttributeType::Type(ty) => Attribute::new(a.name.clone(), ty.clone()),
        AttributeType::Nested { nesting, attributes } => Attribute::nested(
            a.name.clone(),
            *nesting,
            attributes.iter().map(|inner| attribute(inner, &path, behaviour)).collect(),
        ),
    };
    out = match a.description.kind {
        TextKind::Plain => out.description(a.description.text.clone()),
        TextKind::Markdown => out.markdown_description(a.description.text.clone()),
    };
    for (on, set) in [
        (a.required, Attribute::required as fn(Attribute) -> Attribute),
        (a.optional, Attribute::optional),
        (a.computed, Attribute::computed),
        (a.sensitive, Attribute::sensitive),
        (a.write_only, Attribute::write_only),
    ] {
        if on {
            out = set(out);
        }
    }
    if a.deprecated {
        out = out.deprecated(a.deprecation_message.clone());
    }
    let Some(declared) = behaviour.attributes.get(path.as_slice()) else {
        return out;
    };
    out = match &declared.default {
        Some(DeclaredDefault::Value(v)) => out.default(v.clone()),
        Some(DeclaredDefault::Hook(id)) => out.default_hook(*id),
        None => out,
    };
    if declared.use_state_for_unknown {
        out = out.use_state_for_unknown();
    }
    if declared.unknown_on_update {
        out = out.unknown_on_update();
    }
    out = match declared.requires_replace {
        DeclaredReplace::Never => out,
        DeclaredReplace::Always => out.requires_replace(),
        DeclaredReplace::Hook(id) => out.requires_replace_hook(id),
    };
    for v in &declared.validators {
        out = out.validate(validator(v));
    }
    out
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn validator(v: &DeclaredValidator) -> BoxedValidator {
    match v {
        DeclaredValidator::Length(min, max) => validate::length(count(*min), count(*max)),
        DeclaredValidator::Pattern(re) => validate::pattern(re),
        DeclaredValidator::OneOf(allowed) => validate::one_of(allowed.iter().cloned()),
        DeclaredValidator::Range(Some(min), Some(max)) => validate::range(min.clone(), max.clone()),
        DeclaredValidator::Range(Some(min), None) => validate::at_least(min.clone()),
        DeclaredValidator::Range(None, Some(max)) => validate::at_most(max.clone()),
        // No bound at all: every number is in range.
        DeclaredValidator::Range(None, None) => {
            validate::custom("any number", |_| Ok::<(), String>(()))
        }
        DeclaredValidator::Size(min, max) => validate::size(count(*min), count(*max)),
        DeclaredValidator::ConflictsWith(n) => validate::conflicts_with(n.iter().cloned()),
        DeclaredValidator::AlsoRequires(n) => validate::also_requires(n.iter().cloned()),
        DeclaredValidator::ExactlyOneOf(n) => validate::exactly_one_of(n.iter().cloned()),
        DeclaredValidator::AtLeastOneOf(n) => validate::at_least_one_of(n.iter().cloned()),
        DeclaredValidator::Hook(id, description) => validate::hook(*id, description.clone()),
    }
}

#[cfg(test)]
mod tests;

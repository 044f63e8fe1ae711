//! A fluent schema builder.
//!
//! ```
//! use terrarium_framework::schema::{Attribute, Block, NestedBlock, Schema};
//! use terrarium_model::Type;
//!
//! let schema = Schema::new()
//!     .description("A server.")
//!     .attribute(Attribute::string("id").computed().description("The server's ID."))
//!     .attribute(Attribute::string("name").required().requires_replace())
//!     .attribute(Attribute::new("tags", Type::map(Type::String)).optional())
//!     .block(NestedBlock::list("disk", Block::new().attribute(Attribute::number("size").required())).max_items(4));
//! assert_eq!(schema.to_model().block.attributes.len(), 3);
//! ```
//!
//! Besides what Terraform sees, attributes carry plan behaviour the SDK applies by default
//! ([`Attribute::requires_replace`], [`Attribute::unknown_on_update`]); see
//! [`crate::plan`].

use terrarium_model::schema::{self as model, BlockNesting, Description, ObjectNesting};
use terrarium_model::{AttributePath, Diagnostic, Type, Value};

use crate::validate::BoxedValidator;

/// The schema of a provider's configuration, a resource type or a data source.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    version: i64,
    block: Block,
}

impl Schema {
    /// An empty schema, version 0.
    pub fn new() -> Self {
        Schema::default()
    }

    /// The schema version. Bump it when stored state must be upgraded (see
    /// the Rust SDK's `Resource::upgrade`); starts at 0.
    pub fn version(mut self, version: i64) -> Self {
        self.version = version;
        self
    }

    /// What the resource type, data source or provider is, in plain text.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.block = self.block.description(text);
        self
    }

    /// What the resource type, data source or provider is, in Markdown.
    pub fn markdown_description(mut self, text: impl Into<String>) -> Self {
        self.block = self.block.markdown_description(text);
        self
    }

    /// Marks the whole resource type or data source as deprecated, with the message
    /// Terraform shows.
    pub fn deprecated(mut self, message: impl Into<String>) -> Self {
        self.block = self.block.deprecated(message);
        self
    }

    /// Adds an attribute.
    pub fn attribute(mut self, attribute: Attribute) -> Self {
        self.block = self.block.attribute(attribute);
        self
    }

    /// Adds a nested block.
    pub fn block(mut self, block: NestedBlock) -> Self {
        self.block = self.block.block(block);
        self
    }

    /// Changes the top-level attribute `name` with `change` (no-op if there is none): for
    /// two resource types that share a state struct but differ in a detail.
    ///
    /// ```
    /// use terrarium_framework::schema::{Attribute, Schema};
    /// let schema = Schema::new().attribute(Attribute::string("result").computed());
    /// let secret = schema.update_attribute("result", Attribute::sensitive);
    /// assert!(secret.root().attribute_named("result").unwrap().is_sensitive());
    /// ```
    pub fn update_attribute(
        mut self,
        name: &str,
        change: impl FnOnce(Attribute) -> Attribute,
    ) -> Self {
        if let Some(i) = self.block.attributes.iter().position(|a| a.name == name) {
            let a = self.block.attributes.remove(i);
            self.block.attributes.insert(i, change(a));
        }
        self
    }

    /// Adds nested blocks.
    pub fn blocks(self, blocks: impl IntoIterator<Item = NestedBlock>) -> Self {
        blocks.into_iter().fold(self, Schema::block)
    }

    /// The schema version.
    pub fn schema_version(&self) -> i64 {
        self.version
    }

    /// The top-level block.
    pub fn root(&self) -> &Block {
        &self.block
    }

    /// The type of the objects this schema describes, as the provider's code reads and
    /// writes them. A list or map of nested blocks with a `dynamic` attribute inside is a
    /// list or map here; Terraform types it `dynamic` (a tuple or object of blocks that may
    /// differ in type), and the SDK converts between the two at the protocol's edge.
    pub fn implied_type(&self) -> Type {
        self.block.to_model().collections_type()
    }

    /// What Terraform sees.
    pub fn to_model(&self) -> model::Schema {
        model::Schema { version: self.version, block: self.block.to_model() }
    }

    /// Mistakes Terraform would reject or that make no sense, one error diagnostic each.
    pub fn check(&self) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        self.block.check(&AttributePath::root(), &mut problems);
        // What Terraform refuses about types (sets holding dynamic values).
        problems.extend(self.block.to_model().problems());
        problems
            .into_iter()
            .map(|(path, problem)| Diagnostic::error("Invalid provider schema", problem).at(path))
            .collect()
    }
}

/// A block: attributes and nested blocks. The top level of every [`Schema`] is one.
#[derive(Clone, Debug, Default)]
pub struct Block {
    attributes: Vec<Attribute>,
    blocks: Vec<NestedBlock>,
    description: Description,
    deprecated: bool,
    deprecation_message: String,
}

impl Block {
    /// An empty block.
    pub fn new() -> Self {
        Block::default()
    }

    /// What the block is, in plain text.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::plain(text);
        self
    }

    /// What the block is, in Markdown.
    pub fn markdown_description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::markdown(text);
        self
    }

    /// Terraform warns when a configuration uses the block, showing `message`.
    pub fn deprecated(mut self, message: impl Into<String>) -> Self {
        self.deprecated = true;
        self.deprecation_message = message.into();
        self
    }

    /// Adds an attribute.
    pub fn attribute(mut self, attribute: Attribute) -> Self {
        self.attributes.push(attribute);
        self
    }

    /// Adds a nested block.
    pub fn block(mut self, block: NestedBlock) -> Self {
        self.blocks.push(block);
        self
    }

    /// The attributes, in the order they were added.
    pub fn attributes(&self) -> &[Attribute] {
        &self.attributes
    }

    /// The nested blocks, in the order they were added.
    pub fn blocks(&self) -> &[NestedBlock] {
        &self.blocks
    }

    /// The attribute with this name, if any.
    pub fn attribute_named(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// What Terraform sees.
    pub fn to_model(&self) -> model::Block {
        model::Block {
            attributes: self.attributes.iter().map(Attribute::to_model).collect(),
            block_types: self.blocks.iter().map(NestedBlock::to_model).collect(),
            description: self.description.clone(),
            deprecated: self.deprecated,
            deprecation_message: self.deprecation_message.clone(),
        }
    }

    fn check(&self, path: &AttributePath, problems: &mut Vec<(AttributePath, String)>) {
        let mut seen = std::collections::BTreeSet::new();
        let names =
            self.attributes.iter().map(|a| &a.name).chain(self.blocks.iter().map(|b| &b.name));
        for name in names {
            if !is_identifier(name) {
                problems.push((
                    path.attr(name.clone()),
                    format!("{name:?} is not a valid name: use lower-case letters, digits and underscores"),
                ));
            }
            if !seen.insert(name) {
                problems.push((
                    path.attr(name.clone()),
                    format!("{name:?} is declared more than once"),
                ));
            }
        }
        for a in &self.attributes {
            a.check(&path.attr(a.name.clone()), problems);
        }
        for b in &self.blocks {
            let here = path.attr(b.name.clone());
            if b.max_items != 0 && b.min_items > b.max_items {
                problems.push((
                    here.clone(),
                    format!("min_items {} exceeds max_items {}", b.min_items, b.max_items),
                ));
            }
            if matches!(b.nesting, BlockNesting::Single | BlockNesting::Group) && b.max_items > 1 {
                problems
                    .push((here.clone(), "a single nested block has at most one item".to_string()));
            }
            b.block.check(&here, problems);
        }
    }
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        && !name.as_bytes()[0].is_ascii_digit()
}

/// What an attribute holds: a value of a type, or (protocol 6) nested attributes.
#[derive(Clone, Debug)]
pub enum AttributeKind {
    /// A value of a Terraform type.
    Type(Type),
    /// An object, or a list, set or map of objects, with these attributes.
    Nested(ObjectNesting, Vec<Attribute>),
}

/// One attribute. Exactly one of [`required`](Self::required), [`optional`](Self::optional),
/// [`computed`](Self::computed), or optional and computed together.
#[derive(Clone, Debug)]
pub struct Attribute {
    name: String,
    kind: AttributeKind,
    description: Description,
    required: bool,
    optional: bool,
    computed: bool,
    sensitive: bool,
    write_only: bool,
    deprecated: bool,
    deprecation_message: String,
    replace: ReplaceRule,
    unknown_on_update: bool,
    use_state_for_unknown: bool,
    default: Option<DefaultValue>,
    validators: Vec<BoxedValidator>,
    semantic_equality: Option<fn(&Value, &Value) -> bool>,
    /// Identity attributes only (the Rust SDK's `identity`).
    required_for_import: bool,
    optional_for_import: bool,
    /// A mistake made while building the attribute (a default that cannot be serialized),
    /// reported by [`Schema::check`].
    problem: Option<String>,
}

/// The value planned for an optional and computed attribute the configuration leaves
/// unset.
#[derive(Clone, Debug)]
pub enum DefaultValue {
    /// Always this value.
    Static(Value),
    /// Computed from the configuration of the object holding the attribute (the resource,
    /// or one nested object or block), with the static defaults of its siblings filled in.
    Computed(fn(parent_config: &Value) -> Value),
    /// Computed as [`Computed`](Self::Computed) is, by code the schema names by number: a
    /// guest that declares its behaviour as data answers (see [`crate::plan::Hooks`]).
    Hook(u32),
}

/// When a change of an attribute's value replaces the resource.
#[derive(Clone, Copy, Debug, Default)]
pub enum ReplaceRule {
    /// Changes are updated in place.
    #[default]
    Never,
    /// Any change replaces the resource.
    Always,
    /// A change replaces the resource when the function, given the prior and planned
    /// values (which differ), says so.
    If(fn(prior: &Value, planned: &Value) -> bool),
    /// As [`If`](Self::If), decided by code the schema names by number (see
    /// [`crate::plan::Hooks`]).
    Hook(u32),
}

impl Attribute {
    /// An attribute of any Terraform type, e.g. `Type::map(Type::String)`.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Attribute::with_kind(name.into(), AttributeKind::Type(ty))
    }

    /// A string attribute.
    pub fn string(name: impl Into<String>) -> Self {
        Attribute::new(name, Type::String)
    }

    /// A number attribute.
    pub fn number(name: impl Into<String>) -> Self {
        Attribute::new(name, Type::Number)
    }

    /// A bool attribute.
    pub fn bool(name: impl Into<String>) -> Self {
        Attribute::new(name, Type::Bool)
    }

    /// An attribute whose value is an object (or a list, set or map of objects) with
    /// attributes of its own (protocol 6 "nested attributes").
    pub fn nested(
        name: impl Into<String>,
        nesting: ObjectNesting,
        attributes: Vec<Attribute>,
    ) -> Self {
        Attribute::with_kind(name.into(), AttributeKind::Nested(nesting, attributes))
    }

    fn with_kind(name: String, kind: AttributeKind) -> Self {
        Attribute {
            name,
            kind,
            description: Description::default(),
            required: false,
            optional: false,
            computed: false,
            sensitive: false,
            write_only: false,
            deprecated: false,
            deprecation_message: String::new(),
            replace: ReplaceRule::Never,
            unknown_on_update: false,
            use_state_for_unknown: false,
            default: None,
            validators: Vec::new(),
            semantic_equality: None,
            required_for_import: false,
            optional_for_import: false,
            problem: None,
        }
    }

    /// The configuration must set it.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Optional when `nullable`, else required: what `#[derive(Model)]` uses for fields
    /// without `required`, `optional` or `computed`.
    pub fn presence(self, nullable: bool) -> Self {
        if nullable { self.optional() } else { self.required() }
    }

    /// The configuration may set it.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// The provider sets it. With [`optional`](Self::optional): the provider sets it when the
    /// configuration does not.
    pub fn computed(mut self) -> Self {
        self.computed = true;
        self
    }

    /// Terraform hides the value in its output.
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    /// Never stored in state or plan (Terraform 1.11+); the provider sees it only in config.
    pub fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }

    /// An identity attribute an `import { identity = {...} }` block must give (see
    /// the Rust SDK's `identity`); meaningless elsewhere.
    pub fn required_for_import(mut self) -> Self {
        self.required_for_import = true;
        self
    }

    /// An identity attribute an `import { identity = {...} }` block may give.
    pub fn optional_for_import(mut self) -> Self {
        self.optional_for_import = true;
        self
    }

    /// Whether an identity import must give it.
    pub fn is_required_for_import(&self) -> bool {
        self.required_for_import
    }

    /// Whether an identity import may give it.
    pub fn is_optional_for_import(&self) -> bool {
        self.optional_for_import
    }

    /// The description Terraform shows.
    pub fn description_text(&self) -> &str {
        &self.description.text
    }

    /// What the attribute is, in plain text.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::plain(text);
        self
    }

    /// What the attribute is, in Markdown.
    pub fn markdown_description(mut self, text: impl Into<String>) -> Self {
        self.description = Description::markdown(text);
        self
    }

    /// Terraform warns when a configuration sets it, showing `message`.
    pub fn deprecated(mut self, message: impl Into<String>) -> Self {
        self.deprecated = true;
        self.deprecation_message = message.into();
        self
    }

    /// Changing the value replaces the resource instead of updating it in place. The SDK's
    /// default plan reports it to Terraform (resources only).
    pub fn requires_replace(mut self) -> Self {
        self.replace = ReplaceRule::Always;
        self
    }

    /// Like [`requires_replace`](Self::requires_replace), but only for the changes `decide`
    /// accepts: it gets the prior and the planned value, which are known to differ.
    /// Changes it refuses are updated in place.
    ///
    /// ```
    /// use terrarium_framework::schema::Attribute;
    /// use terrarium_model::Value;
    /// // Growing a disk is done in place; shrinking it needs a new one.
    /// fn shrinks(prior: &Value, planned: &Value) -> bool {
    ///     match (prior, planned) {
    ///         (Value::Number(a), Value::Number(b)) => b.as_f64() < a.as_f64(),
    ///         _ => true,
    ///     }
    /// }
    /// let size = Attribute::number("size").required().requires_replace_if(shrinks);
    /// ```
    pub fn requires_replace_if(
        mut self,
        decide: fn(prior: &Value, planned: &Value) -> bool,
    ) -> Self {
        self.replace = ReplaceRule::If(decide);
        self
    }

    /// A computed attribute whose value may change whenever the resource is updated (say, a
    /// `last_modified` time): the default plan marks it unknown on every update instead of
    /// keeping the prior value (resources only).
    pub fn unknown_on_update(mut self) -> Self {
        self.unknown_on_update = true;
        self
    }

    /// The value planned when the configuration leaves the attribute unset, so that the plan
    /// shows it rather than "(known after apply)". The attribute must be optional and
    /// computed (the provider sets it when the configuration does not); it may be at any
    /// depth: inside nested attributes and blocks, defaults apply to every object of a
    /// list, set or map. The default plan treats it as if it were written in the
    /// configuration: changing it replaces the resource if the attribute
    /// [`requires_replace`](Self::requires_replace).
    ///
    /// ```
    /// use terrarium_framework::schema::Attribute;
    /// use terrarium_model::Value;
    /// let upper = Attribute::bool("upper").optional().computed().default(Value::Bool(true));
    /// ```
    pub fn default(mut self, value: Value) -> Self {
        self.default = Some(DefaultValue::Static(value));
        self
    }

    /// Like [`default`](Self::default), for a default converted from another form (the Rust
    /// SDK's `default_of` takes any serializable value): the converted value, or what went
    /// wrong converting it, which [`Schema::check`] reports.
    pub fn default_converted(mut self, value: Result<Value, String>) -> Self {
        match value {
            Ok(v) => self.default = Some(DefaultValue::Static(v)),
            Err(e) => self.problem = Some(format!("the default does not fit the attribute: {e}")),
        }
        self
    }

    /// A default computed by the hook `id` (see [`crate::plan::Hooks`]): for schemas a guest
    /// declares as data.
    pub fn default_hook(mut self, id: u32) -> Self {
        self.default = Some(DefaultValue::Hook(id));
        self
    }

    /// Replacement decided by the hook `id` (see [`crate::plan::Hooks`]).
    pub fn requires_replace_hook(mut self, id: u32) -> Self {
        self.replace = ReplaceRule::Hook(id);
        self
    }

    /// A default computed from the configuration of the object holding the attribute (say,
    /// a `display_name` that defaults to the configured `name`).
    ///
    /// ```
    /// use terrarium_framework::schema::Attribute;
    /// use terrarium_model::Value;
    /// fn same_as_name(parent: &Value) -> Value {
    ///     parent.attr("name").cloned().unwrap_or(Value::Null)
    /// }
    /// let display = Attribute::string("display_name").optional().computed().default_with(same_as_name);
    /// ```
    pub fn default_with(mut self, compute: fn(parent_config: &Value) -> Value) -> Self {
        self.default = Some(DefaultValue::Computed(compute));
        self
    }

    /// A computed attribute that keeps its prior value when the plan would otherwise make
    /// it unknown ("known after apply"): for values that never change once set, such as an
    /// ID. Works at any depth: elements of nested lists and maps are matched to their prior
    /// elements by position and key, elements of nested sets by their configured
    /// attributes. Not applied on create or replace, where there is no prior value to keep.
    pub fn use_state_for_unknown(mut self) -> Self {
        self.use_state_for_unknown = true;
        self
    }

    /// Values that differ in form but mean the same (JSON with other whitespace, say; see
    /// [`crate::semantic`]): when apply or read returns a value `equal` to the planned or
    /// prior one, the SDK keeps the planned or prior one, so a provider that normalises
    /// never shows drift or breaks the plan's promise.
    pub fn semantic_equality(mut self, equal: fn(&Value, &Value) -> bool) -> Self {
        self.semantic_equality = Some(equal);
        self
    }

    /// The semantic equality, if any.
    pub fn semantic_equality_fn(&self) -> Option<fn(&Value, &Value) -> bool> {
        self.semantic_equality
    }

    /// Adds a validator (see [`crate::validate`]); the SDK runs it on every configuration.
    pub fn validate(mut self, validator: BoxedValidator) -> Self {
        self.validators.push(validator);
        self
    }

    /// The attribute's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value planned when the configuration leaves the attribute unset.
    pub fn default_value(&self) -> Option<&DefaultValue> {
        self.default.as_ref()
    }

    /// Whether the plan keeps the prior value instead of an unknown.
    pub fn is_use_state_for_unknown(&self) -> bool {
        self.use_state_for_unknown
    }

    /// The validators, in the order they were added.
    pub fn validators(&self) -> &[BoxedValidator] {
        &self.validators
    }

    /// The attribute's Terraform type (for nested attributes, the type of the objects'
    /// collection).
    pub fn ty(&self) -> Type {
        match &self.kind {
            AttributeKind::Type(t) => t.clone(),
            AttributeKind::Nested(nesting, attributes) => nested_type(*nesting, attributes),
        }
    }

    /// What the attribute holds.
    pub fn kind(&self) -> &AttributeKind {
        &self.kind
    }

    /// Whether configurations must set it.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// Whether configurations may set it.
    pub fn is_optional(&self) -> bool {
        self.optional
    }

    /// Whether the provider sets it.
    pub fn is_computed(&self) -> bool {
        self.computed
    }

    /// Whether Terraform hides its value.
    pub fn is_sensitive(&self) -> bool {
        self.sensitive
    }

    /// Whether it is write-only.
    pub fn is_write_only(&self) -> bool {
        self.write_only
    }

    /// When a change replaces the resource.
    pub fn replace_rule(&self) -> &ReplaceRule {
        &self.replace
    }

    /// Whether the default plan marks it unknown on every update.
    pub fn is_unknown_on_update(&self) -> bool {
        self.unknown_on_update
    }

    /// What Terraform sees.
    pub fn to_model(&self) -> model::Attribute {
        let ty = match &self.kind {
            AttributeKind::Type(t) => model::AttributeType::Type(t.clone()),
            AttributeKind::Nested(nesting, attributes) => model::AttributeType::Nested {
                nesting: *nesting,
                attributes: attributes.iter().map(Attribute::to_model).collect(),
            },
        };
        model::Attribute {
            name: self.name.clone(),
            ty,
            description: self.description.clone(),
            required: self.required,
            optional: self.optional,
            computed: self.computed,
            sensitive: self.sensitive,
            write_only: self.write_only,
            deprecated: self.deprecated,
            deprecation_message: self.deprecation_message.clone(),
        }
    }

    fn check(&self, path: &AttributePath, problems: &mut Vec<(AttributePath, String)>) {
        let mut problem = |text: &str| problems.push((path.clone(), text.to_string()));
        if self.required && (self.optional || self.computed) {
            problem("a required attribute cannot also be optional or computed");
        }
        if !self.required && !self.optional && !self.computed {
            problem("an attribute must be required, optional or computed");
        }
        if self.unknown_on_update && !self.computed {
            problem("unknown_on_update applies to computed attributes only");
        }
        if self.write_only && self.computed {
            problem("a write-only attribute cannot be computed");
        }
        if self.default.is_some() && !(self.optional && self.computed) {
            problem("an attribute with a default must be optional and computed");
        }
        if self.use_state_for_unknown && !self.computed {
            problem("use_state_for_unknown applies to computed attributes only");
        }
        if let Some(p) = &self.problem {
            problem(p);
        }
        if let AttributeKind::Nested(_, attributes) = &self.kind {
            let block = Block { attributes: attributes.clone(), ..Block::default() };
            block.check(path, problems);
        }
    }
}

/// The type of a nested attribute's value.
fn nested_type(nesting: ObjectNesting, attributes: &[Attribute]) -> Type {
    let object = Type::object(attributes.iter().map(|a| (a.name.clone(), a.ty())));
    match nesting {
        ObjectNesting::Single => object,
        ObjectNesting::List => Type::list(object),
        ObjectNesting::Set => Type::set(object),
        ObjectNesting::Map => Type::map(object),
    }
}

/// A nested block: `disk { ... }` inside a resource, as many times as its nesting allows.
#[derive(Clone, Debug)]
pub struct NestedBlock {
    name: String,
    block: Block,
    nesting: BlockNesting,
    min_items: u64,
    max_items: u64,
    requires_replace: bool,
    computed: bool,
}

impl NestedBlock {
    /// A nested block with any nesting mode.
    pub fn new(name: impl Into<String>, nesting: BlockNesting, block: Block) -> Self {
        NestedBlock {
            name: name.into(),
            block,
            nesting,
            min_items: 0,
            max_items: 0,
            requires_replace: false,
            computed: false,
        }
    }

    /// At most one, written as an object (null when absent).
    pub fn single(name: impl Into<String>, block: Block) -> Self {
        NestedBlock::new(name, BlockNesting::Single, block)
    }

    /// Any number, in order.
    pub fn list(name: impl Into<String>, block: Block) -> Self {
        NestedBlock::new(name, BlockNesting::List, block)
    }

    /// Any number, unordered and without duplicates.
    pub fn set(name: impl Into<String>, block: Block) -> Self {
        NestedBlock::new(name, BlockNesting::Set, block)
    }

    /// Labelled: `disk "root" { ... }`.
    pub fn map(name: impl Into<String>, block: Block) -> Self {
        NestedBlock::new(name, BlockNesting::Map, block)
    }

    /// Exactly one, never null: its attributes are null when the block is absent.
    pub fn group(name: impl Into<String>, block: Block) -> Self {
        NestedBlock::new(name, BlockNesting::Group, block)
    }

    /// The block must appear at least `n` times.
    pub fn min_items(mut self, n: u64) -> Self {
        self.min_items = n;
        self
    }

    /// The block may appear at most `n` times (0: no limit).
    pub fn max_items(mut self, n: u64) -> Self {
        self.max_items = n;
        self
    }

    /// Any change inside the block replaces the resource.
    pub fn requires_replace(mut self) -> Self {
        self.requires_replace = true;
        self
    }

    /// The provider sets the block's contents, as it sets a computed attribute: the
    /// configuration may not write it; the plan has it unknown on create and keeps it from the
    /// state on update (protocol 6.11 computed blocks; docs/planning.md).
    pub fn computed(mut self) -> Self {
        self.computed = true;
        self
    }

    /// Whether the provider sets the block's contents ([`computed`](Self::computed)).
    pub fn is_computed(&self) -> bool {
        self.computed
    }

    /// The block's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The block's content.
    pub fn block(&self) -> &Block {
        &self.block
    }

    /// How the block nests.
    pub fn nesting(&self) -> BlockNesting {
        self.nesting
    }

    /// Whether any change inside it replaces the resource.
    pub fn is_requires_replace(&self) -> bool {
        self.requires_replace
    }

    /// What Terraform sees.
    pub fn to_model(&self) -> model::NestedBlock {
        model::NestedBlock {
            type_name: self.name.clone(),
            block: self.block.to_model(),
            nesting: self.nesting,
            min_items: self.min_items,
            max_items: self.max_items,
            computed: self.computed,
        }
    }
}

//! Schemas: what a provider declares about its configuration, resources, data sources and
//! functions. Protocol-neutral; the host maps it to tfplugin6 and to `terraform providers
//! schema -json`, the SDK builds it, and [`crate::flat`] moves it across WIT.

use std::collections::BTreeMap;

use crate::{AttributePath, Type, Value};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextKind {
    #[default]
    Plain,
    Markdown,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Description {
    pub text: String,
    pub kind: TextKind,
}

impl Description {
    pub fn plain(text: impl Into<String>) -> Self {
        Description { text: text.into(), kind: TextKind::Plain }
    }
    pub fn markdown(text: impl Into<String>) -> Self {
        Description { text: text.into(), kind: TextKind::Markdown }
    }
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// A versioned schema for one provider, resource type or data source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    pub version: i64,
    pub block: Block,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub attributes: Vec<Attribute>,
    pub block_types: Vec<NestedBlock>,
    pub description: Description,
    pub deprecated: bool,
    pub deprecation_message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AttributeType {
    /// A plain attribute of this type.
    Type(Type),
    /// A nested attribute object (protocol 6 only).
    Nested { nesting: ObjectNesting, attributes: Vec<Attribute> },
}

impl Default for AttributeType {
    fn default() -> Self {
        AttributeType::Type(Type::String)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectNesting {
    Single,
    List,
    Set,
    Map,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub ty: AttributeType,
    pub description: Description,
    pub required: bool,
    pub optional: bool,
    pub computed: bool,
    pub sensitive: bool,
    pub write_only: bool,
    pub deprecated: bool,
    pub deprecation_message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockNesting {
    Single,
    List,
    Set,
    Map,
    Group,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NestedBlock {
    pub type_name: String,
    pub block: Block,
    pub nesting: BlockNesting,
    pub min_items: u64,
    pub max_items: u64,
    /// The provider sets the block's contents, as it sets a computed attribute; a
    /// configuration may not write it (protocol 6.11's `Schema.Block.computed`, declared
    /// through the WIT `computed-blocks` export).
    pub computed: bool,
}

impl Block {
    /// The object type of values that conform to this block (cty's "implied type").
    ///
    /// As in Terraform, a list or map of nested blocks that holds a `dynamic` value anywhere
    /// is itself `dynamic`: its blocks may differ in type, so it travels as a tuple (list) or
    /// an object (map) with its concrete type. (A set of such blocks is refused:
    /// [`Block::problems`].)
    pub fn implied_type(&self) -> Type {
        self.object_type(NestedBlock::implied_type)
    }

    /// The object type of the block, each nested block typed by `nested`.
    fn object_type(&self, nested: fn(&NestedBlock) -> Type) -> Type {
        let mut attrs: BTreeMap<String, Type> = BTreeMap::new();
        for a in &self.attributes {
            attrs.insert(a.name.clone(), a.ty.implied_type());
        }
        for b in &self.block_types {
            attrs.insert(b.type_name.clone(), nested(b));
        }
        Type::object(attrs)
    }

    /// [`implied_type`](Self::implied_type), except that lists and maps of nested blocks stay
    /// lists and maps of objects even with a `dynamic` attribute inside: the form in which a
    /// guest SDK's code reads and writes them (a `Vec` or map of structs).
    pub fn collections_type(&self) -> Type {
        self.object_type(|b| {
            let inner = b.block.collections_type();
            match b.nesting {
                BlockNesting::Single | BlockNesting::Group => inner,
                BlockNesting::List => Type::list(inner),
                BlockNesting::Set => Type::set(inner),
                BlockNesting::Map => Type::map(inner),
            }
        })
    }

    /// What Terraform refuses in a schema, as (path, problem): sets of nested blocks or
    /// nested attributes that hold a `dynamic` value (a set needs its element type to
    /// compare elements).
    pub fn problems(&self) -> Vec<(AttributePath, String)> {
        let mut out = Vec::new();
        self.collect_problems(&AttributePath::root(), &mut out);
        out
    }

    fn collect_problems(&self, path: &AttributePath, out: &mut Vec<(AttributePath, String)>) {
        for a in &self.attributes {
            if let AttributeType::Nested { nesting, attributes } = &a.ty {
                let here = path.attr(a.name.clone());
                if *nesting == ObjectNesting::Set && a.ty.implied_type().has_dynamic_types() {
                    out.push((
                        here.clone(),
                        "a set of nested attributes may not contain a dynamic attribute; use a list or a map"
                            .to_string(),
                    ));
                }
                Block { attributes: attributes.clone(), ..Block::default() }
                    .collect_problems(&here, out);
            }
        }
        for b in &self.block_types {
            let here = path.attr(b.type_name.clone());
            if b.nesting == BlockNesting::Set && b.block.implied_type().has_dynamic_types() {
                out.push((
                    here.clone(),
                    "a set of nested blocks may not contain a dynamic attribute; use a list or a map"
                        .to_string(),
                ));
            }
            b.block.collect_problems(&here, out);
        }
    }

    /// The paths at which `config` (a value of this block) sets an attribute that only the
    /// provider may set (computed, neither required nor optional). An unknown value counts:
    /// the configuration sets it, to something not known yet.
    /// A computed nested block counts too, when the configuration writes one or more blocks
    /// of it.
    pub fn configured_computed_only(&self, config: &Value) -> Vec<AttributePath> {
        let mut out = self.configured(config, &|a| a.computed && !a.optional && !a.required);
        self.collect_configured_computed_blocks(config, &AttributePath::root(), &mut out);
        out
    }

    fn collect_configured_computed_blocks(
        &self,
        config: &Value,
        path: &AttributePath,
        out: &mut Vec<AttributePath>,
    ) {
        for b in &self.block_types {
            let Some(value) = config.attr(&b.type_name) else { continue };
            let here = path.attr(b.type_name.clone());
            let written = match value {
                Value::Null => false,
                Value::List(items) | Value::Set(items) | Value::Tuple(items) => !items.is_empty(),
                Value::Map(m) => !m.is_empty(),
                _ => true,
            };
            if b.computed {
                if written {
                    out.push(here);
                }
                continue;
            }
            for (p, element) in nested_elements(b.nesting, value, &here) {
                b.block.collect_configured_computed_blocks(element, &p, out);
            }
        }
    }

    /// The paths (block type names from this block down) of every computed nested block, at
    /// any depth.
    pub fn computed_block_paths(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for b in &self.block_types {
            if b.computed {
                out.push(vec![b.type_name.clone()]);
            }
            for mut inner in b.block.computed_block_paths() {
                inner.insert(0, b.type_name.clone());
                out.push(inner);
            }
        }
        out
    }

    /// The nested block at `path` (block type names from this block down), to change it.
    pub fn nested_block_mut(&mut self, path: &[String]) -> Option<&mut NestedBlock> {
        let (first, rest) = path.split_first()?;
        let nested = self.block_types.iter_mut().find(|b| &b.type_name == first)?;
        if rest.is_empty() { Some(nested) } else { nested.block.nested_block_mut(rest) }
    }

    /// The paths at which `config` (a value of this block) sets a write-only attribute; an
    /// unknown value counts, as for [`Block::configured_computed_only`].
    pub fn configured_write_only(&self, config: &Value) -> Vec<AttributePath> {
        self.configured(config, &|a| a.write_only)
    }

    /// The paths, at any depth, at which `config` sets an attribute that `matches`.
    fn configured(
        &self,
        config: &Value,
        matches: &dyn Fn(&Attribute) -> bool,
    ) -> Vec<AttributePath> {
        let mut out = Vec::new();
        self.collect_configured(config, &AttributePath::root(), matches, &mut out);
        out
    }

    fn collect_configured(
        &self,
        config: &Value,
        path: &AttributePath,
        matches: &dyn Fn(&Attribute) -> bool,
        out: &mut Vec<AttributePath>,
    ) {
        for a in &self.attributes {
            let Some(value) = config.attr(&a.name).filter(|v| !v.is_null()) else { continue };
            let here = path.attr(a.name.clone());
            if matches(a) {
                out.push(here);
            } else if let AttributeType::Nested { nesting, attributes } = &a.ty {
                let inner = Block { attributes: attributes.clone(), ..Block::default() };
                let nesting = match nesting {
                    ObjectNesting::Single => BlockNesting::Single,
                    ObjectNesting::List => BlockNesting::List,
                    ObjectNesting::Set => BlockNesting::Set,
                    ObjectNesting::Map => BlockNesting::Map,
                };
                for (p, element) in nested_elements(nesting, value, &here) {
                    inner.collect_configured(element, &p, matches, out);
                }
            }
        }
        for b in &self.block_types {
            let Some(value) = config.attr(&b.type_name) else { continue };
            let here = path.attr(b.type_name.clone());
            for (p, element) in nested_elements(b.nesting, value, &here) {
                b.block.collect_configured(element, &p, matches, out);
            }
        }
    }

    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    pub fn block_type(&self, name: &str) -> Option<&NestedBlock> {
        self.block_types.iter().find(|b| b.type_name == name)
    }
}

impl NestedBlock {
    /// The type of the block's value in its parent object: see [`Block::implied_type`].
    pub fn implied_type(&self) -> Type {
        let inner = self.block.implied_type();
        match self.nesting {
            BlockNesting::Single | BlockNesting::Group => inner,
            BlockNesting::List | BlockNesting::Map if inner.has_dynamic_types() => Type::Dynamic,
            BlockNesting::List => Type::list(inner),
            BlockNesting::Set => Type::set(inner),
            BlockNesting::Map => Type::map(inner),
        }
    }
}

/// The objects of a nested value with their paths: the object itself (single, group), the
/// items (list, or a tuple for a list of blocks typed `dynamic`), the values by key (map, or
/// an object for a map of blocks typed `dynamic`). Set elements have no path of their own:
/// they get the set's. Null and unknown have none.
fn nested_elements<'a>(
    nesting: BlockNesting,
    value: &'a Value,
    path: &AttributePath,
) -> Vec<(AttributePath, &'a Value)> {
    let value = match value {
        Value::Dynamic(d) => &d.value,
        other => other,
    };
    match (nesting, value) {
        (BlockNesting::Single | BlockNesting::Group, Value::Object(_)) => {
            vec![(path.clone(), value)]
        }
        (_, Value::List(items) | Value::Tuple(items)) => {
            items.iter().enumerate().map(|(i, v)| (path.index(i as i64), v)).collect()
        }
        (_, Value::Set(items)) => items.iter().map(|v| (path.clone(), v)).collect(),
        (BlockNesting::Map, Value::Map(m) | Value::Object(m)) => {
            m.iter().map(|(k, v)| (path.key(k.clone()), v)).collect()
        }
        _ => Vec::new(),
    }
}

impl AttributeType {
    pub fn implied_type(&self) -> Type {
        match self {
            AttributeType::Type(t) => t.clone(),
            AttributeType::Nested { nesting, attributes } => {
                let obj =
                    Type::object(attributes.iter().map(|a| (a.name.clone(), a.ty.implied_type())));
                match nesting {
                    ObjectNesting::Single => obj,
                    ObjectNesting::List => Type::list(obj),
                    ObjectNesting::Set => Type::set(obj),
                    ObjectNesting::Map => Type::map(obj),
                }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub ty: Type,
    pub description: Description,
    pub allow_null: bool,
    pub allow_unknown: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub parameters: Vec<Parameter>,
    pub variadic: Option<Parameter>,
    pub return_type: Type,
    pub summary: String,
    pub description: Description,
    pub deprecation_message: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerCapabilities {
    pub plan_destroy: bool,
    pub get_provider_schema_optional: bool,
    pub move_resource_state: bool,
    pub generate_resource_config: bool,
}

/// Everything a provider declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSchema {
    pub provider: Schema,
    pub provider_meta: Option<Schema>,
    pub resources: BTreeMap<String, Schema>,
    pub data_sources: BTreeMap<String, Schema>,
    pub functions: BTreeMap<String, Function>,
    pub ephemeral_resources: BTreeMap<String, Schema>,
    pub list_resources: BTreeMap<String, Schema>,
    pub actions: BTreeMap<String, Schema>,
    pub capabilities: ServerCapabilities,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implied_type_covers_blocks_and_nested_attributes() {
        let block = Block {
            attributes: vec![
                Attribute {
                    name: "id".into(),
                    ty: AttributeType::Type(Type::String),
                    computed: true,
                    ..Default::default()
                },
                Attribute {
                    name: "rules".into(),
                    ty: AttributeType::Nested {
                        nesting: ObjectNesting::Set,
                        attributes: vec![Attribute {
                            name: "port".into(),
                            ty: AttributeType::Type(Type::Number),
                            ..Default::default()
                        }],
                    },
                    optional: true,
                    ..Default::default()
                },
            ],
            block_types: vec![nested_block("tag", BlockNesting::List, Block::default())],
            ..Default::default()
        };
        assert_eq!(
            block.implied_type().to_json(),
            r#"["object",{"id":"string","rules":["set",["object",{"port":"number"}]],"tag":["list",["object",{}]]}]"#
        );
    }

    fn attribute(name: &str, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            ty: AttributeType::Type(ty),
            optional: true,
            ..Default::default()
        }
    }

    fn nested_block(name: &str, nesting: BlockNesting, block: Block) -> NestedBlock {
        NestedBlock {
            type_name: name.into(),
            block,
            nesting,
            min_items: 0,
            max_items: 0,
            computed: false,
        }
    }

    fn nested(name: &str, nesting: BlockNesting, attributes: Vec<Attribute>) -> NestedBlock {
        nested_block(name, nesting, Block { attributes, ..Default::default() })
    }

    #[test]
    fn lists_and_maps_of_blocks_with_a_dynamic_attribute_are_dynamic_as_in_terraform() {
        let with_dynamic = || vec![attribute("name", Type::String), attribute("v", Type::Dynamic)];
        let block = Block {
            block_types: vec![
                nested("l", BlockNesting::List, with_dynamic()),
                nested("m", BlockNesting::Map, with_dynamic()),
                nested("s", BlockNesting::Single, with_dynamic()),
                nested("plain", BlockNesting::List, vec![attribute("name", Type::String)]),
                // Deeper: a list of blocks whose own list of blocks holds the dynamic value.
                nested_block(
                    "outer",
                    BlockNesting::List,
                    Block {
                        block_types: vec![nested("inner", BlockNesting::List, with_dynamic())],
                        ..Default::default()
                    },
                ),
            ],
            ..Default::default()
        };
        assert_eq!(
            block.implied_type().to_json(),
            r#"["object",{"l":"dynamic","m":"dynamic","outer":"dynamic","plain":["list",["object",{"name":"string"}]],"s":["object",{"name":"string","v":"dynamic"}]}]"#
        );
        assert!(block.problems().is_empty());
    }

    #[test]
    fn sets_with_a_dynamic_attribute_are_refused() {
        let block = Block {
            attributes: vec![Attribute {
                name: "n".into(),
                ty: AttributeType::Nested {
                    nesting: ObjectNesting::Set,
                    attributes: vec![attribute("v", Type::list(Type::Dynamic))],
                },
                optional: true,
                ..Default::default()
            }],
            block_types: vec![nested("s", BlockNesting::Set, vec![attribute("v", Type::Dynamic)])],
            ..Default::default()
        };
        let problems: Vec<String> =
            block.problems().into_iter().map(|(p, m)| format!("{p}: {m}")).collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("n: a set of nested attributes"), "{problems:?}");
        assert!(problems[1].starts_with("s: a set of nested blocks"), "{problems:?}");
    }

    #[test]
    fn configured_computed_only_attributes_are_found_at_any_depth() {
        let id = Attribute {
            name: "id".into(),
            ty: AttributeType::Type(Type::String),
            computed: true,
            ..Default::default()
        };
        let optional_computed = Attribute { optional: true, ..attribute("size", Type::Number) };
        let block = Block {
            attributes: vec![id.clone(), Attribute { computed: true, ..optional_computed }],
            block_types: vec![nested(
                "disk",
                BlockNesting::List,
                vec![id, attribute("name", Type::String)],
            )],
            ..Default::default()
        };
        let object = |entries: Vec<(&str, Value)>| {
            Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        };
        let config = object(vec![
            ("id", Value::unknown()),
            ("size", Value::string("1")),
            (
                "disk",
                Value::List(vec![
                    object(vec![("id", Value::Null), ("name", Value::string("a"))]),
                    object(vec![("id", Value::string("mine")), ("name", Value::string("b"))]),
                ]),
            ),
        ]);
        let found: Vec<String> =
            block.configured_computed_only(&config).iter().map(ToString::to_string).collect();
        assert_eq!(found, ["id", "disk[1].id"]);
    }

    #[test]
    fn configured_write_only_attributes_are_found_at_any_depth() {
        let secret =
            Attribute { optional: true, write_only: true, ..attribute("secret", Type::String) };
        let block = Block {
            attributes: vec![
                secret.clone(),
                Attribute { optional: true, ..attribute("name", Type::String) },
            ],
            block_types: vec![nested("user", BlockNesting::List, vec![secret])],
            ..Default::default()
        };
        let object = |entries: Vec<(&str, Value)>| {
            Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        };
        let config = object(vec![
            ("secret", Value::unknown()),
            ("name", Value::string("a")),
            (
                "user",
                Value::List(vec![
                    object(vec![("secret", Value::Null)]),
                    object(vec![("secret", Value::string("s"))]),
                ]),
            ),
        ]);
        let found: Vec<String> =
            block.configured_write_only(&config).iter().map(ToString::to_string).collect();
        assert_eq!(found, ["secret", "user[1].secret"]);
    }
}

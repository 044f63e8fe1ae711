//! Schemas: what a provider declares about its configuration, resources, data sources and
//! functions. Protocol-neutral; the host maps it to tfplugin6 and to `terraform providers
//! schema -json`, the SDK builds it, and [`crate::flat`] moves it across WIT.

use std::collections::BTreeMap;

use crate::Type;

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
}

impl Block {
    /// The object type of values that conform to this block (cty's "implied type").
    pub fn implied_type(&self) -> Type {
        let mut attrs: BTreeMap<String, Type> = BTreeMap::new();
        for a in &self.attributes {
            attrs.insert(a.name.clone(), a.ty.implied_type());
        }
        for b in &self.block_types {
            let inner = b.block.implied_type();
            let t = match b.nesting {
                BlockNesting::Single | BlockNesting::Group => inner,
                BlockNesting::List => Type::list(inner),
                BlockNesting::Set => Type::set(inner),
                BlockNesting::Map => Type::map(inner),
            };
            attrs.insert(b.type_name.clone(), t);
        }
        Type::object(attrs)
    }

    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    pub fn block_type(&self, name: &str) -> Option<&NestedBlock> {
        self.block_types.iter().find(|b| b.type_name == name)
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
            block_types: vec![NestedBlock {
                type_name: "tag".into(),
                block: Block::default(),
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Default::default()
        };
        assert_eq!(
            block.implied_type().to_json(),
            r#"["object",{"id":"string","rules":["set",["object",{"port":"number"}]],"tag":["list",["object",{}]]}]"#
        );
    }
}

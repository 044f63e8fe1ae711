//! The schema registry: the provider's schema and the value type of everything in it,
//! computed once when the component is loaded.

use std::collections::BTreeMap;

use terrarium_model::Type;
use terrarium_model::schema::{Block, Function, ProviderSchema};

use super::types::{IdentityAttribute, IdentitySchema};
use terrarium_runtime::{ConvertError, wit};

pub struct Schemas {
    schema: ProviderSchema,
    identities: BTreeMap<String, IdentitySchema>,
    provider: Type,
    provider_meta: Option<Type>,
    resources: BTreeMap<String, Type>,
    data_sources: BTreeMap<String, Type>,
    identity_types: BTreeMap<String, Type>,
    ephemeral_resources: BTreeMap<String, Type>,
    list_resources: BTreeMap<String, Type>,
    actions: BTreeMap<String, Type>,
}

/// The guest's identity schemas in neutral form.
pub fn identity_schemas_from_wit(
    list: Vec<wit::NamedIdentitySchema>,
) -> Result<BTreeMap<String, IdentitySchema>, ConvertError> {
    let mut out = BTreeMap::new();
    for n in list {
        let attributes = n
            .schema
            .attributes
            .into_iter()
            .map(|a| {
                let ty = Type::from_json(&a.type_).map_err(|e| {
                    ConvertError::Other(format!(
                        "identity of resource {:?}, attribute {:?}: {e}",
                        n.name, a.name
                    ))
                })?;
                Ok(IdentityAttribute {
                    name: a.name,
                    ty,
                    required_for_import: a.required_for_import,
                    optional_for_import: a.optional_for_import,
                    description: a.description,
                })
            })
            .collect::<Result<Vec<_>, ConvertError>>()?;
        let schema = IdentitySchema { version: n.schema.version, attributes };
        if out.insert(n.name.clone(), schema).is_some() {
            return Err(ConvertError::Other(format!(
                "the identity of resource {:?} is declared twice",
                n.name
            )));
        }
    }
    Ok(out)
}

/// Terraform refuses identity attributes of these types (`loadschemas/plugins.go`).
fn identity_type_allowed(ty: &Type) -> bool {
    match ty {
        Type::Map(_) | Type::Set(_) | Type::Object(_) => false,
        Type::List(element) => identity_type_allowed(element),
        Type::Tuple(elements) => elements.iter().all(identity_type_allowed),
        _ => true,
    }
}

fn check_identities(
    schema: &ProviderSchema,
    identities: &BTreeMap<String, IdentitySchema>,
) -> Result<(), String> {
    for (name, identity) in identities {
        if !schema.resources.contains_key(name) {
            return Err(format!(
                "an identity schema is declared for {name:?}, which is not a resource type of this provider"
            ));
        }
        if identity.version < 0 {
            return Err(format!(
                "the identity schema of {name:?} has a negative version {}",
                identity.version
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for a in &identity.attributes {
            if !is_identifier(&a.name) {
                return Err(format!(
                    "identity attribute name {:?} of {name:?} is not a valid identifier",
                    a.name
                ));
            }
            if !seen.insert(a.name.as_str()) {
                return Err(format!(
                    "identity attribute {:?} of {name:?} is declared twice",
                    a.name
                ));
            }
            if !identity_type_allowed(&a.ty) {
                return Err(format!(
                    "identity attribute {:?} of {name:?} has type {}, but identity attributes may not be maps, \
                     sets or objects",
                    a.name,
                    a.ty.friendly_name()
                ));
            }
        }
    }
    for name in schema.list_resources.keys() {
        if !identities.contains_key(name) {
            return Err(format!(
                "list resource {name:?} must have the name of a resource type with an identity schema, and \
                 there is none for {name:?}"
            ));
        }
    }
    Ok(())
}

/// Refuses a schema block Terraform would refuse (see [`Block::problems`]).
fn refuse_problems(what: &str, block: &Block) -> Result<(), String> {
    match block.problems().into_iter().next() {
        Some((path, problem)) => {
            Err(format!("the schema of {what} is invalid at {path}: {problem}"))
        }
        None => Ok(()),
    }
}

impl Schemas {
    /// Indexes a schema, refusing what Terraform would refuse (so the error names the
    /// provider rather than surfacing as a Terraform panic or a vague schema error).
    pub fn new(
        schema: ProviderSchema,
        identities: BTreeMap<String, IdentitySchema>,
    ) -> Result<Schemas, String> {
        for (kind, map) in [
            ("resource", &schema.resources),
            ("data source", &schema.data_sources),
            ("ephemeral resource", &schema.ephemeral_resources),
            ("list resource", &schema.list_resources),
            ("action", &schema.actions),
        ] {
            for (name, s) in map {
                if !is_identifier(name) {
                    return Err(format!("{kind} type name {name:?} is not a valid identifier"));
                }
                if s.version < 0 {
                    return Err(format!(
                        "{kind} {name:?} has a negative schema version {}",
                        s.version
                    ));
                }
                refuse_problems(&format!("{kind} {name:?}"), &s.block)?;
            }
        }
        refuse_problems("the provider configuration", &schema.provider.block)?;
        if let Some(meta) = &schema.provider_meta {
            refuse_problems("the provider_meta", &meta.block)?;
        }
        for name in schema.functions.keys() {
            if !is_identifier(name) {
                return Err(format!("function name {name:?} is not a valid identifier"));
            }
        }
        let types = |m: &BTreeMap<String, terrarium_model::schema::Schema>| {
            m.iter().map(|(k, s)| (k.clone(), s.block.implied_type())).collect()
        };
        check_identities(&schema, &identities)?;
        Ok(Schemas {
            provider: schema.provider.block.implied_type(),
            provider_meta: schema.provider_meta.as_ref().map(|s| s.block.implied_type()),
            resources: types(&schema.resources),
            data_sources: types(&schema.data_sources),
            identity_types: identities.iter().map(|(k, i)| (k.clone(), i.implied_type())).collect(),
            ephemeral_resources: types(&schema.ephemeral_resources),
            list_resources: types(&schema.list_resources),
            actions: types(&schema.actions),
            identities,
            schema,
        })
    }

    pub fn identity_schemas(&self) -> &BTreeMap<String, IdentitySchema> {
        &self.identities
    }

    /// The type of identities of the resource type `name`, if it has an identity schema.
    pub fn identity(&self, name: &str) -> Option<&Type> {
        self.identity_types.get(name)
    }

    pub fn ephemeral_resource(&self, name: &str) -> Option<&Type> {
        self.ephemeral_resources.get(name)
    }

    pub fn ephemeral_resource_names(&self) -> impl Iterator<Item = String> + '_ {
        self.ephemeral_resources.keys().cloned()
    }

    pub fn list_resource(&self, name: &str) -> Option<&Type> {
        self.list_resources.get(name)
    }

    pub fn list_resource_names(&self) -> impl Iterator<Item = String> + '_ {
        self.list_resources.keys().cloned()
    }

    pub fn action(&self, name: &str) -> Option<&Type> {
        self.actions.get(name)
    }

    pub fn action_names(&self) -> impl Iterator<Item = String> + '_ {
        self.actions.keys().cloned()
    }

    pub fn provider_schema(&self) -> &ProviderSchema {
        &self.schema
    }

    pub fn provider(&self) -> &Type {
        &self.provider
    }

    pub fn provider_meta(&self) -> Option<&Type> {
        self.provider_meta.as_ref()
    }

    pub fn resource(&self, name: &str) -> Option<&Type> {
        self.resources.get(name)
    }

    pub fn resource_names(&self) -> impl Iterator<Item = String> + '_ {
        self.resources.keys().cloned()
    }

    pub fn data_source(&self, name: &str) -> Option<&Type> {
        self.data_sources.get(name)
    }

    pub fn data_source_names(&self) -> impl Iterator<Item = String> + '_ {
        self.data_sources.keys().cloned()
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.schema.functions.get(name)
    }
}

/// Terraform's identifier rule: a letter or underscore, then letters, digits, `_` or `-`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrarium_model::schema::Schema;

    #[test]
    fn refuses_invalid_names_and_versions() {
        let mut s = ProviderSchema::default();
        s.resources.insert("1bad".into(), Schema::default());
        assert!(Schemas::new(s, BTreeMap::new()).is_err());
        let mut s = ProviderSchema::default();
        s.data_sources.insert("ok_name".into(), Schema { version: -1, ..Default::default() });
        assert!(Schemas::new(s, BTreeMap::new()).is_err());
        let mut s = ProviderSchema::default();
        s.resources.insert("null_resource".into(), Schema::default());
        assert!(Schemas::new(s, BTreeMap::new()).is_ok());
    }

    #[test]
    fn refuses_a_set_of_blocks_with_a_dynamic_attribute_as_terraform_does() {
        use terrarium_model::schema::{Attribute, AttributeType, BlockNesting, NestedBlock};
        let with_nesting = |nesting| {
            let rule = Block {
                attributes: vec![Attribute {
                    name: "v".into(),
                    ty: AttributeType::Type(Type::Dynamic),
                    optional: true,
                    ..Default::default()
                }],
                ..Default::default()
            };
            let block = Block {
                block_types: vec![NestedBlock {
                    type_name: "rule".into(),
                    block: rule,
                    nesting,
                    min_items: 0,
                    max_items: 0,
                    computed: false,
                }],
                ..Default::default()
            };
            let mut s = ProviderSchema::default();
            s.resources.insert("x_thing".into(), Schema { version: 0, block });
            Schemas::new(s, BTreeMap::new())
        };
        let refused = with_nesting(BlockNesting::Set).err().unwrap_or_default();
        assert!(
            refused.contains("resource \"x_thing\"")
                && refused.contains("rule: a set of nested blocks"),
            "{refused}"
        );
        let list = with_nesting(BlockNesting::List).expect("a list is fine");
        assert_eq!(
            list.resource("x_thing").map(|t| t.to_json()),
            Some(r#"["object",{"rule":"dynamic"}]"#.to_string())
        );
    }

    fn identity(ty: Type) -> IdentitySchema {
        IdentitySchema {
            version: 0,
            attributes: vec![IdentityAttribute {
                name: "id".into(),
                ty,
                required_for_import: true,
                optional_for_import: false,
                description: String::new(),
            }],
        }
    }

    #[test]
    fn refuses_identities_terraform_refuses() {
        let with = |name: &str, ty: Type| {
            let mut s = ProviderSchema::default();
            s.resources.insert("x_thing".into(), Schema::default());
            s.list_resources.insert("x_thing".into(), Schema::default());
            Schemas::new(s, BTreeMap::from([(name.to_string(), identity(ty))]))
        };
        assert!(with("x_thing", Type::String).is_ok());
        assert!(with("x_thing", Type::list(Type::Number)).is_ok());
        let map = with("x_thing", Type::map(Type::String)).err().unwrap();
        assert!(map.contains("may not be maps, sets or objects"), "{map}");
        assert!(with("x_thing", Type::list(Type::object([("a", Type::String)]))).is_err());
        assert!(with("x_other", Type::String).err().unwrap().contains("not a resource type"));
        // A list resource needs the identity of the resource type it is named after.
        let mut s = ProviderSchema::default();
        s.resources.insert("x_thing".into(), Schema::default());
        s.list_resources.insert("x_thing".into(), Schema::default());
        assert!(Schemas::new(s, BTreeMap::new()).err().unwrap().contains("identity schema"));
    }
}

//! The schema registry: the provider's schema and the value type of everything in it,
//! computed once when the component is loaded.

use std::collections::BTreeMap;

use terrarium_model::Type;
use terrarium_model::schema::{Function, ProviderSchema};

pub struct Schemas {
    schema: ProviderSchema,
    provider: Type,
    provider_meta: Option<Type>,
    resources: BTreeMap<String, Type>,
    data_sources: BTreeMap<String, Type>,
}

impl Schemas {
    /// Indexes a schema, refusing what Terraform would refuse (so the error names the
    /// provider rather than surfacing as a Terraform panic or a vague schema error).
    pub fn new(schema: ProviderSchema) -> Result<Schemas, String> {
        for (kind, map) in [("resource", &schema.resources), ("data source", &schema.data_sources)] {
            for (name, s) in map {
                if !is_identifier(name) {
                    return Err(format!("{kind} type name {name:?} is not a valid identifier"));
                }
                if s.version < 0 {
                    return Err(format!("{kind} {name:?} has a negative schema version {}", s.version));
                }
            }
        }
        for name in schema.functions.keys() {
            if !is_identifier(name) {
                return Err(format!("function name {name:?} is not a valid identifier"));
            }
        }
        let types = |m: &BTreeMap<String, terrarium_model::schema::Schema>| {
            m.iter().map(|(k, s)| (k.clone(), s.block.implied_type())).collect()
        };
        Ok(Schemas {
            provider: schema.provider.block.implied_type(),
            provider_meta: schema.provider_meta.as_ref().map(|s| s.block.implied_type()),
            resources: types(&schema.resources),
            data_sources: types(&schema.data_sources),
            schema,
        })
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
        assert!(Schemas::new(s).is_err());
        let mut s = ProviderSchema::default();
        s.data_sources.insert("ok_name".into(), Schema { version: -1, ..Default::default() });
        assert!(Schemas::new(s).is_err());
        let mut s = ProviderSchema::default();
        s.resources.insert("null_resource".into(), Schema::default());
        assert!(Schemas::new(s).is_ok());
    }
}

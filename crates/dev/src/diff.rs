//! What changed between two provider schemas, in words for the reload log.

use std::collections::BTreeMap;

use terrarium_model::schema::{Block, ProviderSchema, Schema};

use terrarium_core::types::IdentitySchema;

/// One line per resource identity schema added, removed or changed.
pub fn describe_identities(
    old: &BTreeMap<String, IdentitySchema>,
    new: &BTreeMap<String, IdentitySchema>,
) -> Vec<String> {
    let mut changes = Vec::new();
    for name in old.keys().filter(|n| !new.contains_key(*n)) {
        changes.push(format!("identity of resource {name} removed"));
    }
    for (name, identity) in new {
        match old.get(name) {
            None => changes.push(format!("identity of resource {name} added")),
            Some(before) if before.version != identity.version => changes.push(format!(
                "identity of resource {name}: version {} -> {}",
                before.version, identity.version
            )),
            Some(before) if before != identity => {
                changes.push(format!("identity of resource {name} changed its attributes"))
            }
            Some(_) => {}
        }
    }
    changes
}

/// One line per change: kinds added or removed, and per kind the attributes and nested blocks
/// added, removed or changed (type, required/optional/computed, sensitivity...) and version
/// bumps. Empty when the schemas are equal.
pub fn describe(old: &ProviderSchema, new: &ProviderSchema) -> Vec<String> {
    let mut changes = Vec::new();
    schema_changes("provider configuration", &old.provider, &new.provider, &mut changes);
    match (&old.provider_meta, &new.provider_meta) {
        (None, Some(_)) => changes.push("provider_meta schema added".into()),
        (Some(_), None) => changes.push("provider_meta schema removed".into()),
        (Some(a), Some(b)) => schema_changes("provider_meta", a, b, &mut changes),
        (None, None) => {}
    }
    kinds("resource", &old.resources, &new.resources, &mut changes);
    kinds("data source", &old.data_sources, &new.data_sources, &mut changes);
    kinds("ephemeral resource", &old.ephemeral_resources, &new.ephemeral_resources, &mut changes);
    kinds("list resource", &old.list_resources, &new.list_resources, &mut changes);
    kinds("action", &old.actions, &new.actions, &mut changes);
    for name in old.functions.keys().filter(|n| !new.functions.contains_key(*n)) {
        changes.push(format!("function {name} removed"));
    }
    for (name, function) in &new.functions {
        match old.functions.get(name) {
            None => changes.push(format!("function {name} added")),
            Some(before) if before != function => {
                changes.push(format!("function {name} changed its signature or docs"))
            }
            Some(_) => {}
        }
    }
    if old.capabilities != new.capabilities {
        changes
            .push(format!("server capabilities {:?} -> {:?}", old.capabilities, new.capabilities));
    }
    changes
}

fn kinds(
    kind: &str,
    old: &BTreeMap<String, Schema>,
    new: &BTreeMap<String, Schema>,
    changes: &mut Vec<String>,
) {
    for name in old.keys().filter(|n| !new.contains_key(*n)) {
        changes.push(format!("{kind} {name} removed"));
    }
    for (name, schema) in new {
        match old.get(name) {
            None => changes.push(format!("{kind} {name} added")),
            Some(before) => schema_changes(&format!("{kind} {name}"), before, schema, changes),
        }
    }
}

fn schema_changes(what: &str, old: &Schema, new: &Schema, changes: &mut Vec<String>) {
    if old.version != new.version {
        changes.push(format!("{what}: schema version {} -> {}", old.version, new.version));
    }
    block_changes(what, "", &old.block, &new.block, changes);
}

fn block_changes(what: &str, prefix: &str, old: &Block, new: &Block, changes: &mut Vec<String>) {
    for a in old.attributes.iter().filter(|a| !new.attributes.iter().any(|b| b.name == a.name)) {
        changes.push(format!("{what}: attribute {prefix}{} removed", a.name));
    }
    for a in &new.attributes {
        match old.attributes.iter().find(|b| b.name == a.name) {
            None => changes.push(format!("{what}: attribute {prefix}{} added", a.name)),
            Some(b) if b.ty != a.ty => {
                changes.push(format!("{what}: attribute {prefix}{} changed type", a.name))
            }
            Some(b)
                if (b.required, b.optional, b.computed) != (a.required, a.optional, a.computed) =>
            {
                changes.push(format!(
                    "{what}: attribute {prefix}{} is now {}",
                    a.name,
                    mode(a.required, a.optional, a.computed)
                ))
            }
            Some(b) if b != a => {
                changes.push(format!("{what}: attribute {prefix}{} changed", a.name))
            }
            Some(_) => {}
        }
    }
    for n in old
        .block_types
        .iter()
        .filter(|n| !new.block_types.iter().any(|b| b.type_name == n.type_name))
    {
        changes.push(format!("{what}: block {prefix}{} removed", n.type_name));
    }
    for n in &new.block_types {
        match old.block_types.iter().find(|b| b.type_name == n.type_name) {
            None => changes.push(format!("{what}: block {prefix}{} added", n.type_name)),
            Some(b) => {
                if (b.nesting, b.min_items, b.max_items) != (n.nesting, n.min_items, n.max_items) {
                    changes.push(format!(
                        "{what}: block {prefix}{} changed its nesting or item limits",
                        n.type_name
                    ));
                }
                block_changes(
                    what,
                    &format!("{prefix}{}.", n.type_name),
                    &b.block,
                    &n.block,
                    changes,
                );
            }
        }
    }
}

fn mode(required: bool, optional: bool, computed: bool) -> &'static str {
    match (required, optional, computed) {
        (true, _, _) => "required",
        (false, true, true) => "optional and computed",
        (false, true, false) => "optional",
        (false, false, true) => "computed",
        (false, false, false) => "neither required, optional nor computed",
    }
}

#[cfg(test)]
mod tests {
    use terrarium_model::Type;
    use terrarium_model::schema::{Attribute, AttributeType};

    use super::*;

    #[test]
    fn identity_changes_are_described() {
        use terrarium_core::types::IdentityAttribute;
        let identity = |version: i64, ty: Type| IdentitySchema {
            version,
            attributes: vec![IdentityAttribute {
                name: "path".into(),
                ty,
                required_for_import: true,
                optional_for_import: false,
                description: String::new(),
            }],
        };
        let old = BTreeMap::from([("files_file".to_string(), identity(0, Type::String))]);
        assert!(describe_identities(&old, &old).is_empty());
        let bumped = BTreeMap::from([("files_file".to_string(), identity(1, Type::String))]);
        assert_eq!(
            describe_identities(&old, &bumped),
            ["identity of resource files_file: version 0 -> 1"]
        );
        let retyped = BTreeMap::from([("files_file".to_string(), identity(0, Type::Number))]);
        assert_eq!(
            describe_identities(&old, &retyped),
            ["identity of resource files_file changed its attributes"]
        );
        assert_eq!(
            describe_identities(&old, &BTreeMap::new()),
            ["identity of resource files_file removed"]
        );
    }

    fn attr(name: &str, ty: Type, required: bool) -> Attribute {
        Attribute {
            name: name.into(),
            ty: AttributeType::Type(ty),
            required,
            optional: !required,
            ..Attribute::default()
        }
    }

    fn schema(attributes: Vec<Attribute>) -> Schema {
        Schema { version: 0, block: Block { attributes, ..Block::default() } }
    }

    #[test]
    fn equal_schemas_have_no_changes() {
        let mut s = ProviderSchema::default();
        s.resources.insert("x_thing".into(), schema(vec![attr("id", Type::String, false)]));
        assert!(describe(&s, &s.clone()).is_empty());
    }

    #[test]
    fn names_added_removed_and_changed_kinds_and_attributes() {
        let mut old = ProviderSchema::default();
        old.resources.insert("x_gone".into(), schema(vec![]));
        old.resources.insert(
            "x_thing".into(),
            schema(vec![
                attr("id", Type::String, false),
                attr("size", Type::Number, false),
                attr("old", Type::Bool, false),
            ]),
        );
        let mut new = ProviderSchema::default();
        new.resources.insert("x_new".into(), schema(vec![]));
        let mut thing = schema(vec![
            attr("id", Type::String, false),
            attr("size", Type::String, false),
            attr("name", Type::String, true),
        ]);
        thing.version = 2;
        new.resources.insert("x_thing".into(), thing);
        new.data_sources.insert("x_lookup".into(), schema(vec![]));

        let changes = describe(&old, &new);
        assert_eq!(
            changes,
            vec![
                "resource x_gone removed",
                "resource x_new added",
                "resource x_thing: schema version 0 -> 2",
                "resource x_thing: attribute old removed",
                "resource x_thing: attribute size changed type",
                "resource x_thing: attribute name added",
                "data source x_lookup added",
            ]
        );
    }

    #[test]
    fn names_mode_changes() {
        let mut old = ProviderSchema::default();
        old.resources.insert("x".into(), schema(vec![attr("a", Type::String, false)]));
        let mut new = ProviderSchema::default();
        new.resources.insert("x".into(), schema(vec![attr("a", Type::String, true)]));
        assert_eq!(describe(&old, &new), vec!["resource x: attribute a is now required"]);
    }
}

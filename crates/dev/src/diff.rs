//! What changed between two provider schemas, in words for the reload log.

use std::collections::BTreeMap;

use terrarium_model::schema::{Block, ProviderSchema, Schema};

use terrarium_core::types::IdentitySchema;
use terrarium_runtime::{ProviderBehaviour, SchemaBehaviour};

/// One line per attribute whose declared behaviour changed (its default, its validators, its
/// plan modifiers), and per type whose replacing blocks or plan hook changed. Types added or
/// removed are left to [`describe`]; so is a component that starts or stops declaring.
pub fn describe_behaviour(
    old: Option<&ProviderBehaviour>,
    new: Option<&ProviderBehaviour>,
) -> Vec<String> {
    let (Some(old), Some(new)) = (old, new) else { return Vec::new() };
    let mut changes = Vec::new();
    behaviour_changes("provider configuration", &old.provider, &new.provider, &mut changes);
    for (kind, old, new) in [
        ("resource", &old.resources, &new.resources),
        ("data source", &old.data_sources, &new.data_sources),
        ("ephemeral resource", &old.ephemeral_resources, &new.ephemeral_resources),
        ("list resource", &old.list_resources, &new.list_resources),
        ("action", &old.actions, &new.actions),
    ] {
        let none = SchemaBehaviour::default();
        let names: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for name in names {
            let (before, after) = (old.get(name).unwrap_or(&none), new.get(name).unwrap_or(&none));
            behaviour_changes(&format!("{kind} {name}"), before, after, &mut changes);
        }
    }
    changes
}

fn behaviour_changes(
    what: &str,
    old: &SchemaBehaviour,
    new: &SchemaBehaviour,
    changes: &mut Vec<String>,
) {
    let paths: std::collections::BTreeSet<&Vec<String>> =
        old.attributes.iter().chain(&new.attributes).map(|a| &a.path).collect();
    for path in paths {
        let of = |b: &SchemaBehaviour| {
            b.attributes.iter().find(|a| &a.path == path).cloned().unwrap_or_default()
        };
        let (before, after) = (of(old), of(new));
        let mut changed = Vec::new();
        if before.default != after.default {
            changed.push("default");
        }
        if before.validators != after.validators {
            changed.push("validators");
        }
        if before.use_state_for_unknown != after.use_state_for_unknown
            || before.unknown_on_update != after.unknown_on_update
            || before.requires_replace != after.requires_replace
        {
            changed.push("plan modifiers");
        }
        if !changed.is_empty() {
            changes.push(format!(
                "{what}: attribute {}: {} changed",
                path.join("."),
                changed.join(", ")
            ));
        }
    }
    if old.replace_blocks != new.replace_blocks {
        changes.push(format!("{what}: the blocks whose changes replace it changed"));
    }
    if old.plan_hook != new.plan_hook {
        let now = if new.plan_hook { "now adjusts" } else { "no longer adjusts" };
        changes.push(format!("{what}: the provider {now} its plans"));
    }
}

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

    /// A reload that changes only a default or a validator used to say "schema unchanged"
    /// (issue 28 item 6): the line names the attribute and what changed.
    #[test]
    fn changed_defaults_validators_and_plan_modifiers_are_described() {
        use terrarium_model::Value;
        use terrarium_runtime::{AttributeBehaviour, DeclaredDefault, DeclaredValidator};
        let note = |default: &str, max: u64, replace: bool| SchemaBehaviour {
            attributes: vec![
                AttributeBehaviour {
                    path: vec!["mode".into()],
                    default: Some(DeclaredDefault::Value(Value::String(default.into()))),
                    ..AttributeBehaviour::default()
                },
                AttributeBehaviour {
                    path: vec!["text".into()],
                    validators: vec![DeclaredValidator::Length(1, max)],
                    requires_replace: if replace {
                        terrarium_runtime::DeclaredReplace::Always
                    } else {
                        terrarium_runtime::DeclaredReplace::Never
                    },
                    ..AttributeBehaviour::default()
                },
            ],
            ..SchemaBehaviour::default()
        };
        let with = |note: SchemaBehaviour| ProviderBehaviour {
            resources: [("notes_note".to_string(), note)].into(),
            ..ProviderBehaviour::default()
        };
        let old = with(note("plain", 1000, false));
        assert_eq!(describe_behaviour(Some(&old), Some(&old.clone())), Vec::<String>::new());
        let new = with(note("markdown", 10, true));
        assert_eq!(
            describe_behaviour(Some(&old), Some(&new)),
            [
                "resource notes_note: attribute mode: default changed",
                "resource notes_note: attribute text: validators, plan modifiers changed",
            ]
        );
    }

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

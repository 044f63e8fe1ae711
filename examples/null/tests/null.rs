//! examples/null against what hashicorp/null 2.1.2 does, natively through the SDK's
//! [`Server`] (the end-to-end tests in tests/ drive it through Terraform).

// Test code: a failed unwrap is a failed test with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use null_provider::NullProvider;
use serde_json::Value as Json;
use terrarium_sdk::model::schema::{AttributeType, Block};
use terrarium_sdk::rpc::{
    ApplyRequest, ImportRequest, PlanRequest, ReadDataSourceRequest, ReadRequest, UpgradeRequest,
};
use terrarium_sdk::{AttributePath, Server, Value};

fn server() -> Server<NullProvider> {
    Server::new(NullProvider)
}

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn map<const N: usize>(entries: [(&str, &str); N]) -> Value {
    Value::Map(entries.into_iter().map(|(k, v)| (k.to_string(), s(v))).collect())
}

/// The Go binary's `terraform providers schema -json`, for this provider.
fn go_schema() -> Json {
    let text = include_str!("../testdata/go-schema.json");
    let json: Json = serde_json::from_str(text).expect("testdata/go-schema.json is JSON");
    json["provider_schemas"]["registry.terraform.io/hashicorp/null"].clone()
}

/// A block in the shape `terraform providers schema -json` prints (flat attributes only:
/// all this provider has).
fn block_json(block: &Block) -> Json {
    let mut out = serde_json::Map::new();
    let mut attributes = serde_json::Map::new();
    for a in &block.attributes {
        let AttributeType::Type(ty) = &a.ty else { panic!("{} is a nested attribute", a.name) };
        let mut attr = serde_json::Map::new();
        attr.insert("type".into(), ty.to_json_value());
        attr.insert("description_kind".into(), "plain".into());
        for (flag, set) in [
            ("required", a.required),
            ("optional", a.optional),
            ("computed", a.computed),
            ("sensitive", a.sensitive),
            ("deprecated", a.deprecated),
        ] {
            if set {
                attr.insert(flag.into(), true.into());
            }
        }
        if !a.description.text.is_empty() {
            attr.insert("description".into(), a.description.text.clone().into());
        }
        attributes.insert(a.name.clone(), attr.into());
    }
    assert!(block.block_types.is_empty());
    if !attributes.is_empty() {
        out.insert("attributes".into(), attributes.into());
    }
    if !block.description.text.is_empty() {
        out.insert("description".into(), block.description.text.clone().into());
    }
    if block.deprecated {
        out.insert("deprecated".into(), true.into());
    }
    out.insert("description_kind".into(), "plain".into());
    out.into()
}

#[test]
fn schema_is_the_go_providers() {
    let (schema, diagnostics) = server().get_schema();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let go = go_schema();
    assert_eq!(go["provider"]["version"], schema.provider.version);
    assert_eq!(go["provider"]["block"], block_json(&schema.provider.block));
    for (kind, ours) in
        [("resource_schemas", &schema.resources), ("data_source_schemas", &schema.data_sources)]
    {
        let theirs = go[kind].as_object().expect("an object of schemas");
        assert_eq!(theirs.keys().collect::<Vec<_>>(), ours.keys().collect::<Vec<_>>(), "{kind}");
        for (name, s) in ours {
            assert_eq!(theirs[name]["version"], s.version, "{name}");
            assert_eq!(theirs[name]["block"], block_json(&s.block), "{name}");
        }
    }
    assert!(schema.functions.is_empty());
}

fn resource_config(triggers: Value) -> Value {
    obj([("id", Value::Null), ("triggers", triggers)])
}

fn plan(prior: &Value, config: &Value) -> terrarium_sdk::rpc::PlanResponse {
    // Terraform's proposal: the configuration, with the prior id where it sets none.
    let proposed = match (prior, config) {
        (Value::Object(p), Value::Object(c)) => {
            let mut m = c.clone();
            m.insert("id".into(), p["id"].clone());
            Value::Object(m)
        }
        _ => config.clone(),
    };
    server().plan_resource_change(PlanRequest {
        type_name: "null_resource".into(),
        prior_state: prior.clone(),
        proposed_new_state: proposed,
        config: config.clone(),
        prior_private: Vec::new(),
        client: Default::default(),
        prior_identity: None,
    })
}

fn apply(prior: &Value, planned: &Value) -> terrarium_sdk::rpc::ApplyResponse {
    server().apply_resource_change(ApplyRequest {
        type_name: "null_resource".into(),
        prior_state: prior.clone(),
        planned_state: planned.clone(),
        config: Value::Null,
        planned_private: Vec::new(),
        planned_identity: None,
    })
}

fn id_of(state: &Value) -> String {
    match state.attr("id") {
        Some(Value::String(id)) => id.clone(),
        other => panic!("no id in {other:?}"),
    }
}

#[test]
fn null_resource_gets_a_random_decimal_id() {
    let config = resource_config(map([("a", "1")]));
    let planned = plan(&Value::Null, &config);
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    assert_eq!(
        planned.planned_state,
        obj([("id", Value::unknown()), ("triggers", map([("a", "1")]))])
    );

    let first = apply(&Value::Null, &planned.planned_state);
    let second = apply(&Value::Null, &planned.planned_state);
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    let (a, b) = (id_of(&first.new_state), id_of(&second.new_state));
    for id in [&a, &b] {
        assert!(
            id.parse::<i64>().is_ok_and(|n| n >= 0),
            "{id} is not a non-negative 63-bit integer"
        );
    }
    assert_ne!(a, b, "two resources drew the same id");
    assert_eq!(first.new_state.attr("triggers"), Some(&map([("a", "1")])));
}

#[test]
fn changing_triggers_replaces_and_nothing_else_changes() {
    let prior = obj([("id", s("42")), ("triggers", map([("a", "1")]))]);

    let same = plan(&prior, &resource_config(map([("a", "1")])));
    assert_eq!(same.planned_state, prior);
    assert!(same.requires_replace.is_empty());

    let changed = plan(&prior, &resource_config(map([("a", "2")])));
    assert_eq!(changed.requires_replace, vec![AttributePath::attribute("triggers")]);
    assert!(changed.planned_state.attr("id").unwrap().is_unknown());

    let removed = plan(&prior, &resource_config(Value::Null));
    assert_eq!(removed.requires_replace, vec![AttributePath::attribute("triggers")]);

    let unknown = plan(&prior, &resource_config(Value::unknown()));
    assert_eq!(unknown.requires_replace, vec![AttributePath::attribute("triggers")]);
}

#[test]
fn unset_and_empty_triggers_are_the_same_to_the_id() {
    // Go SDKv1 saw no difference; the id survives (here as an update in place).
    let prior = obj([("id", s("42")), ("triggers", Value::Null)]);
    let planned = plan(&prior, &resource_config(Value::Map(BTreeMap::new())));
    assert!(planned.requires_replace.is_empty());
    assert_eq!(
        planned.planned_state,
        obj([("id", s("42")), ("triggers", Value::Map(BTreeMap::new()))])
    );
    let applied = apply(&prior, &planned.planned_state);
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    assert_eq!(applied.new_state, planned.planned_state);
}

#[test]
fn read_and_destroy_keep_to_themselves() {
    let state = obj([("id", s("42")), ("triggers", map([("a", "")]))]);
    let read = server().read_resource(ReadRequest {
        type_name: "null_resource".into(),
        current_state: state.clone(),
        private: Vec::new(),
        client: Default::default(),
        current_identity: None,
    });
    assert!(read.diagnostics.is_empty());
    assert_eq!(read.new_state, state);

    let destroy = plan(&state, &Value::Null);
    assert_eq!(destroy.planned_state, Value::Null);
    let applied = apply(&state, &Value::Null);
    assert!(applied.diagnostics.is_empty());
    assert_eq!(applied.new_state, Value::Null);
}

#[test]
fn import_and_a_configured_id_are_refused_in_go_sdkv1_words() {
    let import = server().import_resource_state(ImportRequest {
        type_name: "null_resource".into(),
        id: "1".into(),
        client: Default::default(),
        identity: None,
    });
    assert!(import.imported.is_empty());
    assert_eq!(import.diagnostics.len(), 1);
    assert_eq!(import.diagnostics[0].summary, "resource null_resource doesn't support import");

    let config = obj([("id", s("mine")), ("triggers", Value::Null)]);
    for diagnostics in [
        server().validate_resource_config("null_resource", &config),
        server().validate_data_source_config(
            "null_data_source",
            &obj([
                ("id", Value::unknown()),
                ("inputs", Value::Null),
                ("outputs", Value::Null),
                ("random", Value::Null),
                ("has_computed_default", Value::Null),
            ]),
        ),
    ] {
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].summary, ": invalid or unknown key: id");
    }
    assert!(
        server()
            .validate_resource_config("null_resource", &resource_config(Value::unknown()))
            .is_empty()
    );
}

#[test]
fn state_written_by_the_go_provider_loads() {
    // As stored by hashicorp/null 2.1.2 (schema version 0).
    let raw = obj([("id", s("5577006791947779410")), ("triggers", obj([("a", s("1"))]))]);
    let upgraded = server().upgrade_resource_state(UpgradeRequest {
        type_name: "null_resource".into(),
        version: 0,
        raw_state: raw,
    });
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    assert_eq!(
        upgraded.upgraded_state,
        obj([("id", s("5577006791947779410")), ("triggers", map([("a", "1")]))])
    );
}

fn read_data(inputs: Value, has_computed_default: Value) -> Value {
    let response = server().read_data_source(ReadDataSourceRequest {
        type_name: "null_data_source".into(),
        config: obj([
            ("id", Value::Null),
            ("inputs", inputs),
            ("outputs", Value::Null),
            ("random", Value::Null),
            ("has_computed_default", has_computed_default),
        ]),
        client: Default::default(),
    });
    assert!(response.diagnostics.is_empty(), "{:?}", response.diagnostics);
    response.state
}

#[test]
fn null_data_source_echoes_inputs_like_go_sdkv1() {
    let state = read_data(map([("a", "1"), ("b", "")]), s("set"));
    assert_eq!(state.attr("id"), Some(&s("static")));
    assert_eq!(state.attr("inputs"), Some(&map([("a", "1"), ("b", "")])));
    assert_eq!(state.attr("outputs"), Some(&map([("a", "1"), ("b", "")])));
    assert_eq!(state.attr("has_computed_default"), Some(&s("set")));
    let Some(Value::String(random)) = state.attr("random") else {
        panic!("no random in {state:?}")
    };
    assert!(random.parse::<i64>().is_ok_and(|n| n >= 0), "{random}");

    // Nothing configured: no inputs, empty outputs, the default.
    let state = read_data(Value::Null, Value::Null);
    assert_eq!(state.attr("inputs"), Some(&Value::Null));
    assert_eq!(state.attr("outputs"), Some(&Value::Map(BTreeMap::new())));
    assert_eq!(state.attr("has_computed_default"), Some(&s("default")));

    // Go SDKv1: an empty map reads back as null, null elements vanish, "" is unset.
    let state = read_data(Value::Map(BTreeMap::new()), s(""));
    assert_eq!(state.attr("inputs"), Some(&Value::Null));
    assert_eq!(state.attr("has_computed_default"), Some(&s("default")));
    let with_null =
        Value::Map(BTreeMap::from([("a".to_string(), Value::Null), ("b".to_string(), s("x"))]));
    let state = read_data(with_null, Value::Null);
    assert_eq!(state.attr("inputs"), Some(&map([("b", "x")])));
    assert_eq!(state.attr("outputs"), Some(&map([("b", "x")])));

    // Every read draws a new random.
    assert_ne!(
        read_data(Value::Null, Value::Null).attr("random"),
        read_data(Value::Null, Value::Null).attr("random")
    );
}

//! Protocol 6.9/6.10 features below Terraform, over real gRPC with mTLS against a `terrarium
//! serve` process: resource identity (schemas, round trips, a guest's wrong identity refused),
//! deferral passing through (release builds of Terraform refuse `-allow-deferral`, so this is
//! the only place it can be proven), and the `get_provider_schema_optional` declaration.

use std::collections::BTreeMap;

use terrarium_codec as codec;
use terrarium_model::{Type, Value};
use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, faulty};

fn thing_type() -> Type {
    Type::object([("mode", Type::String), ("id", Type::String), ("value", Type::String)])
}

fn identity_type() -> Type {
    Type::object([("id", Type::String)])
}

fn thing(mode: &str, id: Value, value: Value) -> pb::DynamicValue {
    let v = Value::Object(BTreeMap::from([
        ("mode".to_string(), Value::string(mode)),
        ("id".to_string(), id),
        ("value".to_string(), value),
    ]));
    pb::DynamicValue {
        msgpack: codec::encode_msgpack(&v, &thing_type()).expect("encodable"),
        json: vec![],
    }
}

fn identity(id: &str) -> pb::ResourceIdentityData {
    let v = Value::Object(BTreeMap::from([("id".to_string(), Value::string(id))]));
    let msgpack = codec::encode_msgpack(&v, &identity_type()).expect("encodable");
    pb::ResourceIdentityData { identity_data: Some(pb::DynamicValue { msgpack, json: vec![] }) }
}

fn identity_id(data: Option<&pb::ResourceIdentityData>) -> String {
    let data = data.and_then(|d| d.identity_data.as_ref()).expect("an identity");
    match codec::decode_msgpack(&data.msgpack, &identity_type()).expect("the host encoded it") {
        Value::Object(o) => match o.get("id") {
            Some(Value::String(s)) => s.clone(),
            other => panic!("identity id: {other:?}"),
        },
        other => panic!("identity: {other:?}"),
    }
}

async fn apply(p: &mut ServedProvider, mode: &str) -> pb::apply_resource_change::Response {
    let request = pb::apply_resource_change::Request {
        type_name: "faulty_thing".into(),
        prior_state: None,
        planned_state: Some(thing(mode, Value::unknown(), Value::unknown())),
        config: Some(thing(mode, Value::Null, Value::Null)),
        ..Default::default()
    };
    p.client.apply_resource_change(request).await.expect("ApplyResourceChange").into_inner()
}

/// Stored JSON, as Terraform sends a raw state or identity.
fn raw_json(json: &[u8]) -> pb::RawState {
    pb::RawState { json: json.to_vec(), flatmap: Default::default() }
}

async fn upgrade_identity(
    p: &mut ServedProvider,
    type_name: &str,
    raw_identity: &[u8],
) -> pb::upgrade_resource_identity::Response {
    let request = pb::upgrade_resource_identity::Request {
        type_name: type_name.into(),
        version: 0,
        raw_identity: Some(raw_json(raw_identity)),
    };
    p.client.upgrade_resource_identity(request).await.expect("UpgradeResourceIdentity").into_inner()
}

/// The one diagnostic of a response; the test fails if there are none or more.
fn single(diagnostics: &[pb::Diagnostic]) -> &pb::Diagnostic {
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    &diagnostics[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identities_round_trip_through_apply_read_and_import() {
    let mut p = ServedProvider::start(&faulty(), &[]).await;

    let schemas = p
        .client
        .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
        .await
        .expect("GetResourceIdentitySchemas")
        .into_inner();
    assert!(schemas.diagnostics.is_empty(), "{:?}", schemas.diagnostics);
    let schema = &schemas.identity_schemas["faulty_thing"];
    assert_eq!(schema.version, 0);
    assert_eq!(schema.identity_attributes.len(), 1);
    let id = &schema.identity_attributes[0];
    assert_eq!(
        (id.name.as_str(), id.r#type.as_slice(), id.required_for_import),
        ("id", &b"\"string\""[..], true)
    );

    let applied = apply(&mut p, "ok").await;
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    assert_eq!(identity_id(applied.new_identity.as_ref()), "thing-ok");

    // The guest hands back the identity it was given: what the host decoded from Terraform's
    // bytes and encoded again is the same identity.
    let read = p
        .client
        .read_resource(pb::read_resource::Request {
            type_name: "faulty_thing".into(),
            current_state: applied.new_state.clone(),
            current_identity: Some(identity("some-other-id")),
            ..Default::default()
        })
        .await
        .expect("ReadResource")
        .into_inner();
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(identity_id(read.new_identity.as_ref()), "some-other-id");

    let imported = p
        .client
        .import_resource_state(pb::import_resource_state::Request {
            type_name: "faulty_thing".into(),
            id: String::new(),
            identity: Some(identity("imported-by-identity")),
            ..Default::default()
        })
        .await
        .expect("ImportResourceState")
        .into_inner();
    assert!(imported.diagnostics.is_empty(), "{:?}", imported.diagnostics);
    assert_eq!(imported.imported_resources.len(), 1);
    let resource = &imported.imported_resources[0];
    assert_eq!(identity_id(resource.identity.as_ref()), "imported-by-identity");
    let state =
        codec::decode_msgpack(&resource.state.as_ref().expect("a state").msgpack, &thing_type())
            .expect("state");
    let Value::Object(state) = state else { panic!("state: {state:?}") };
    assert_eq!(state.get("id"), Some(&Value::string("imported-by-identity")));

    // UpgradeResourceIdentity decodes the stored JSON without a schema and checks the result.
    let upgraded = upgrade_identity(&mut p, "faulty_thing", br#"{"id":"stored"}"#).await;
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    assert_eq!(identity_id(upgraded.upgraded_identity.as_ref()), "stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_identity_of_the_wrong_type_is_refused_with_an_error_diagnostic() {
    let mut p = ServedProvider::start(&faulty(), &[]).await;
    let applied = apply(&mut p, "identity-wrong-type").await;
    assert!(applied.new_identity.is_none(), "the wrong identity must not reach Terraform");
    let d = single(&applied.diagnostics);
    assert_eq!(d.severity, pb::diagnostic::Severity::Error as i32);
    assert_eq!(d.summary, "Provider returned an invalid value");
    assert!(d.detail.contains("new identity"), "{}", d.detail);
    assert!(d.detail.contains("ApplyResourceChange for resource \"faulty_thing\""), "{}", d.detail);
    assert!(d.detail.contains(".id") || d.detail.contains("id"), "{}", d.detail);

    // An identity upgrade that does not fit the identity schema is refused the same way.
    let upgraded = upgrade_identity(&mut p, "faulty_thing", br#"{"id":7}"#).await;
    assert!(upgraded.upgraded_identity.is_none());
    let d = single(&upgraded.diagnostics);
    assert!(d.detail.contains("upgraded identity"), "{}", d.detail);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_plan_passes_through_to_terraform() {
    let mut p = ServedProvider::start(&faulty(), &[]).await;
    let planned = p
        .client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "faulty_thing".into(),
            prior_state: None,
            proposed_new_state: Some(thing("defer", Value::unknown(), Value::unknown())),
            config: Some(thing("defer", Value::Null, Value::Null)),
            client_capabilities: Some(pb::ClientCapabilities {
                deferral_allowed: true,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("PlanResourceChange")
        .into_inner();
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    let deferred = planned.deferred.expect("the plan is deferred");
    assert_eq!(deferred.reason, pb::deferred::Reason::ResourceConfigUnknown as i32);
}

async fn schema_optional(p: &mut ServedProvider) -> (bool, bool) {
    let schema = p
        .client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("schema")
        .into_inner();
    let metadata =
        p.client.get_metadata(pb::get_metadata::Request {}).await.expect("metadata").into_inner();
    let flag = |c: Option<pb::ServerCapabilities>| {
        c.expect("server capabilities").get_provider_schema_optional
    };
    (flag(schema.server_capabilities), flag(metadata.server_capabilities))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_schema_is_declared_optional_unless_turned_off() {
    // The faulty guest itself declares get-provider-schema-optional = false; the host knows
    // better, because an installed component's schema cannot change within a run.
    let mut p = ServedProvider::start(&faulty(), &[]).await;
    assert_eq!(schema_optional(&mut p).await, (true, true));
    drop(p);
    let mut p = ServedProvider::start(&faulty(), &[("TERRARIUM_SCHEMA_OPTIONAL", "0")]).await;
    assert_eq!(schema_optional(&mut p).await, (false, false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpcs_for_undeclared_types_name_the_type() {
    let mut p = ServedProvider::start(&faulty(), &[]).await;
    let opened = p
        .client
        .open_ephemeral_resource(pb::open_ephemeral_resource::Request {
            type_name: "faulty_secret".into(),
            ..Default::default()
        })
        .await
        .expect("OpenEphemeralResource")
        .into_inner();
    let d = single(&opened.diagnostics);
    assert_eq!(d.summary, "Unknown ephemeral resource type");
    assert!(d.detail.contains("\"faulty_secret\""), "{}", d.detail);

    let planned = p
        .client
        .plan_action(pb::plan_action::Request {
            action_type: "faulty_poke".into(),
            ..Default::default()
        })
        .await
        .expect("PlanAction")
        .into_inner();
    let d = single(&planned.diagnostics);
    assert_eq!(d.summary, "Unknown action type");
    assert!(d.detail.contains("\"faulty_poke\""), "{}", d.detail);

    // An identity upgrade for a type without an identity schema.
    let upgraded = upgrade_identity(&mut p, "faulty_other", b"{}").await;
    assert_eq!(single(&upgraded.diagnostics).summary, "Unknown resource type");

    // MoveResourceState when the provider does not declare the capability.
    let moved = p
        .client
        .move_resource_state(pb::move_resource_state::Request {
            target_type_name: "faulty_thing".into(),
            source_state: Some(raw_json(b"{}")),
            ..Default::default()
        })
        .await
        .expect("MoveResourceState")
        .into_inner();
    let d = single(&moved.diagnostics);
    assert!(d.detail.contains("move_resource_state"), "{}", d.detail);
}

//! The RPCs Terraform 1.15 never sends but the protocol has, over real gRPC with mTLS against a
//! `terrarium serve` process: GetFunctions and GetMetadata agree with GetProviderSchema, and
//! every state-store RPC answers a "not supported by this provider" error diagnostic (Terraform
//! 1.15 has no state stores outside alpha builds) instead of failing the call.

use std::collections::BTreeSet;

use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, guest};

fn random() -> std::path::PathBuf {
    guest("random_provider.wasm", "random-provider")
}

fn files() -> std::path::PathBuf {
    guest("files_provider.wasm", "files-provider")
}

fn keys<V>(map: &std::collections::HashMap<String, V>) -> BTreeSet<String> {
    map.keys().cloned().collect()
}

async fn schema(p: &mut ServedProvider) -> pb::get_provider_schema::Response {
    let schema = p.client.get_provider_schema(pb::get_provider_schema::Request {}).await;
    schema.expect("GetProviderSchema").into_inner()
}

/// The answer a state-store RPC must give: exactly one error saying it is not supported.
#[track_caller]
fn assert_not_supported(rpc: &str, diagnostics: &[pb::Diagnostic]) {
    assert_eq!(diagnostics.len(), 1, "{rpc}: {diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d.severity, pb::diagnostic::Severity::Error as i32, "{rpc}: {d:?}");
    assert_eq!(d.summary, "Not supported by this provider", "{rpc}: {d:?}");
    assert!(d.detail.contains("state stores"), "{rpc}: {d:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_functions_answers_the_functions_of_the_schema() {
    let mut p = ServedProvider::start(&random(), &[]).await;
    let schema = schema(&mut p).await;
    let functions = p
        .client
        .get_functions(pb::get_functions::Request {})
        .await
        .expect("functions")
        .into_inner();
    assert!(functions.diagnostics.is_empty(), "{:?}", functions.diagnostics);
    assert!(functions.functions.contains_key("uuid_v5"), "{:?}", functions.functions.keys());
    assert_eq!(functions.functions, schema.functions);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_metadata_names_every_type_of_the_schema() {
    let mut p = ServedProvider::start(&files(), &[]).await;
    let schema = schema(&mut p).await;
    let metadata =
        p.client.get_metadata(pb::get_metadata::Request {}).await.expect("metadata").into_inner();
    assert!(metadata.diagnostics.is_empty(), "{:?}", metadata.diagnostics);
    let names = |it: Vec<String>| it.into_iter().collect::<BTreeSet<_>>();
    assert_eq!(
        names(metadata.resources.into_iter().map(|r| r.type_name).collect()),
        keys(&schema.resource_schemas)
    );
    assert_eq!(
        names(metadata.data_sources.into_iter().map(|r| r.type_name).collect()),
        keys(&schema.data_source_schemas)
    );
    assert_eq!(
        names(metadata.list_resources.into_iter().map(|r| r.type_name).collect()),
        keys(&schema.list_resource_schemas)
    );
    assert_eq!(
        names(metadata.actions.into_iter().map(|r| r.type_name).collect()),
        keys(&schema.action_schemas)
    );
    // The files example has one of each, so the comparisons above are not between empty sets.
    assert!(schema.list_resource_schemas.contains_key("files_file"));
    assert!(schema.action_schemas.contains_key("files_touch"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_store_rpc_answers_not_supported() {
    let mut p = ServedProvider::start(&files(), &[]).await;
    let c = &mut p.client;
    let name = || "files_store".to_string();
    let r = c
        .validate_state_store_config(pb::validate_state_store::Request {
            type_name: name(),
            config: None,
        })
        .await
        .expect("ValidateStateStoreConfig");
    assert_not_supported("ValidateStateStoreConfig", &r.into_inner().diagnostics);
    let r = c
        .configure_state_store(pb::configure_state_store::Request {
            type_name: name(),
            ..Default::default()
        })
        .await
        .expect("ConfigureStateStore");
    assert_not_supported("ConfigureStateStore", &r.into_inner().diagnostics);
    let mut stream = c
        .read_state_bytes(pb::read_state_bytes::Request {
            type_name: name(),
            state_id: "default".into(),
        })
        .await
        .expect("ReadStateBytes")
        .into_inner();
    let first = stream.message().await.expect("ReadStateBytes event").expect("one event");
    assert_not_supported("ReadStateBytes", &first.diagnostics);
    assert!(
        stream.message().await.expect("end of stream").is_none(),
        "ReadStateBytes sends one event"
    );
    let chunk = pb::write_state_bytes::RequestChunk {
        meta: Some(pb::RequestChunkMeta { type_name: name(), state_id: "default".into() }),
        bytes: b"{}".to_vec(),
        total_length: 2,
        range: Some(pb::StateRange { start: 0, end: 2 }),
    };
    let r = c.write_state_bytes(futures::stream::iter([chunk])).await.expect("WriteStateBytes");
    assert_not_supported("WriteStateBytes", &r.into_inner().diagnostics);
    let r = c
        .lock_state(pb::lock_state::Request {
            type_name: name(),
            state_id: "default".into(),
            operation: "plan".into(),
        })
        .await
        .expect("LockState");
    assert_not_supported("LockState", &r.into_inner().diagnostics);
    let r = c
        .unlock_state(pb::unlock_state::Request {
            type_name: name(),
            state_id: "default".into(),
            lock_id: "1".into(),
        })
        .await
        .expect("UnlockState");
    assert_not_supported("UnlockState", &r.into_inner().diagnostics);
    let r = c.get_states(pb::get_states::Request { type_name: name() }).await.expect("GetStates");
    assert_not_supported("GetStates", &r.into_inner().diagnostics);
    let r = c
        .delete_state(pb::delete_state::Request { type_name: name(), state_id: "default".into() })
        .await
        .expect("DeleteState");
    assert_not_supported("DeleteState", &r.into_inner().diagnostics);
    // The provider still serves after all of them.
    let schema = c
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("schema")
        .into_inner();
    assert!(schema.resource_schemas.contains_key("files_file"));
}

/// An ephemeral resource's whole life over gRPC: open (with a config in JSON, as the protocol
/// allows), renew and close with the private data open returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ephemeral_password_opens_renews_and_closes() {
    let mut p = ServedProvider::start(&random(), &[]).await;
    let c = &mut p.client;
    let config =
        pb::DynamicValue { msgpack: vec![], json: br#"{"length": 24, "special": false}"#.to_vec() };
    let validated = c
        .validate_ephemeral_resource_config(pb::validate_ephemeral_resource_config::Request {
            type_name: "random_password".into(),
            config: Some(config.clone()),
        })
        .await
        .expect("ValidateEphemeralResourceConfig")
        .into_inner();
    assert!(validated.diagnostics.is_empty(), "{:?}", validated.diagnostics);
    let opened = c
        .open_ephemeral_resource(pb::open_ephemeral_resource::Request {
            type_name: "random_password".into(),
            config: Some(config),
            client_capabilities: None,
        })
        .await
        .expect("OpenEphemeralResource")
        .into_inner();
    assert!(opened.diagnostics.is_empty(), "{:?}", opened.diagnostics);
    let result = opened.result.expect("a result");
    let schema = c
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("schema")
        .into_inner();
    let block =
        schema.ephemeral_resource_schemas["random_password"].block.clone().expect("a block");
    assert!(block.block_types.is_empty(), "the test decodes attributes only");
    let ty = terrarium_model::Type::object(block.attributes.iter().map(|a| {
        let ty =
            terrarium_model::Type::from_json(&String::from_utf8_lossy(&a.r#type)).expect("a type");
        (a.name.clone(), ty)
    }));
    let value =
        terrarium_codec::decode_msgpack(&result.msgpack, &ty).expect("the host encoded the result");
    match value.attr("result") {
        Some(terrarium_model::Value::String(s)) => {
            assert_eq!(s.chars().count(), 24, "{s:?}");
            assert!(s.chars().all(|ch| ch.is_ascii_alphanumeric()), "special = false: {s:?}");
        }
        other => panic!("result: {other:?}"),
    }
    let renewed = c
        .renew_ephemeral_resource(pb::renew_ephemeral_resource::Request {
            type_name: "random_password".into(),
            private: opened.private.clone(),
        })
        .await
        .expect("RenewEphemeralResource")
        .into_inner();
    assert!(renewed.diagnostics.is_empty(), "{:?}", renewed.diagnostics);
    let closed = c
        .close_ephemeral_resource(pb::close_ephemeral_resource::Request {
            type_name: "random_password".into(),
            private: renewed.private.or(opened.private),
        })
        .await
        .expect("CloseEphemeralResource")
        .into_inner();
    assert!(closed.diagnostics.is_empty(), "{:?}", closed.diagnostics);
    // A type the provider does not have is named in the error.
    let unknown = c
        .close_ephemeral_resource(pb::close_ephemeral_resource::Request {
            type_name: "random_nope".into(),
            private: None,
        })
        .await
        .expect("CloseEphemeralResource")
        .into_inner();
    let names_it =
        |d: &pb::Diagnostic| d.detail.contains("random_nope") || d.summary.contains("random_nope");
    assert!(unknown.diagnostics.iter().any(names_it), "{:?}", unknown.diagnostics);
}

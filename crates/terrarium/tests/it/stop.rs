//! StopProvider over gRPC with TLS, against a real `terrarium serve` process: Terraform's
//! first Ctrl-C. A running call learns of the stop (`lifecycle.stopping`) and returns the
//! state it reached; one that ignores it is interrupted after the grace period; a guest whose
//! `stop` export never returns does not hold StopProvider up.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use terrarium_codec as codec;
use terrarium_model::{Type, Value};
use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, hostile};

/// A liveness bound: a StopProvider or a call that takes this long is hung, not slow.
const HANG: Duration = Duration::from_secs(60);

fn probe_type() -> Type {
    Type::object([
        ("attack", Type::String),
        ("target", Type::String),
        ("id", Type::String),
        ("result", Type::String),
    ])
}

fn probe(attack: &str, computed: Value) -> pb::DynamicValue {
    let value = Value::Object(BTreeMap::from([
        ("attack".to_string(), Value::string(attack)),
        ("target".to_string(), Value::Null),
        ("id".to_string(), computed.clone()),
        ("result".to_string(), computed),
    ]));
    pb::DynamicValue {
        msgpack: codec::encode_msgpack(&value, &probe_type()).expect("encodable"),
        json: vec![],
    }
}

fn apply_request(attack: &str) -> pb::apply_resource_change::Request {
    pb::apply_resource_change::Request {
        type_name: "hostile_probe".into(),
        prior_state: Some(pb::DynamicValue { msgpack: vec![0xc0], json: vec![] }),
        planned_state: Some(probe(attack, Value::unknown())),
        config: Some(probe(attack, Value::Null)),
        ..Default::default()
    }
}

async fn configure(p: &mut ServedProvider, hang_in: Option<&str>) {
    let ty = Type::object([("panic_in", Type::String), ("hang_in", Type::String)]);
    let value = Value::Object(BTreeMap::from([
        ("panic_in".to_string(), Value::Null),
        ("hang_in".to_string(), hang_in.map_or(Value::Null, Value::string)),
    ]));
    let config = pb::DynamicValue {
        msgpack: codec::encode_msgpack(&value, &ty).expect("encodable"),
        json: vec![],
    };
    let response = p
        .client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.15.0".into(),
            config: Some(config),
            client_capabilities: None,
        })
        .await
        .expect("ConfigureProvider answers")
        .into_inner();
    assert!(response.diagnostics.is_empty(), "{:?}", response.diagnostics);
}

/// Sends StopProvider; returns its error text and how long it took.
async fn stop(p: &mut ServedProvider) -> (String, Duration) {
    let started = Instant::now();
    let response =
        tokio::time::timeout(HANG, p.client.stop_provider(pb::stop_provider::Request {}))
            .await
            .expect("StopProvider answers instead of hanging")
            .expect("StopProvider is not a gRPC error")
            .into_inner();
    (response.error, started.elapsed())
}

fn result_of(response: &pb::apply_resource_change::Response) -> String {
    let state = response.new_state.as_ref().expect("a new state");
    match codec::decode_msgpack(&state.msgpack, &probe_type()).expect("the host encoded it") {
        Value::Object(mut o) => match o.remove("result") {
            Some(Value::String(s)) => s,
            other => panic!("result: {other:?}"),
        },
        other => panic!("state: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_running_at_stop_provider_returns_the_state_it_reached() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    configure(&mut p, None).await;
    let mut client = p.client.clone();
    let running = tokio::spawn(async move {
        tokio::time::timeout(HANG, client.apply_resource_change(apply_request("wait-for-stop")))
            .await
    });
    // A stop reaches only calls already running, and nothing says when the guest has begun:
    // stop until the call has come back.
    let mut stops = 0;
    while !running.is_finished() {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (error, _) = stop(&mut p).await;
        assert_eq!(error, "", "an idle instance's stop succeeds");
        stops += 1;
    }
    let response = running
        .await
        .expect("joined")
        .expect("the call returns after the stop")
        .expect("not a gRPC error")
        .into_inner();
    assert!(response.diagnostics.is_empty(), "{:?}", response.diagnostics);
    let result = result_of(&response);
    assert!(result.starts_with("stopped after "), "{result}");
    println!("the running call saw the stop and returned {result:?} ({stops} StopProvider sent)");

    // Calls after the stop run normally (they do not see it).
    let after =
        p.client.apply_resource_change(apply_request("env")).await.expect("answers").into_inner();
    assert_eq!(after.diagnostics.len(), 1, "{:?}", after.diagnostics);
    assert!(after.diagnostics[0].summary.starts_with("refused:"), "{:?}", after.diagnostics);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_provider_answers_within_seconds_when_the_guests_stop_never_returns() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    // Every instance's `stop` loops forever from here on (the configuration is replayed into
    // each new instance); the configured instance waits in the pool.
    configure(&mut p, Some("StopProvider")).await;
    let (error, latency) = stop(&mut p).await;
    println!("StopProvider with a `stop` that never returns answered in {latency:?}: {error}");
    assert!(
        error.contains("did not return within"),
        "the error says the guest's stop did not return: {error}"
    );

    // A call that ignores the stop (it computes without end) does not hold StopProvider up
    // either: it is interrupted after the grace period.
    let mut client = p.client.clone();
    let running = tokio::spawn(async move {
        tokio::time::timeout(HANG, client.apply_resource_change(apply_request("loop"))).await
    });
    // A stop reaches only calls already running: stop until this one has come back.
    while !running.is_finished() {
        tokio::time::sleep(Duration::from_millis(300)).await;
        stop(&mut p).await;
    }
    let response = running
        .await
        .expect("joined")
        .expect("the ignoring call is interrupted instead of hanging")
        .expect("not a gRPC error")
        .into_inner();
    assert_eq!(response.diagnostics.len(), 1, "{:?}", response.diagnostics);
    let d = &response.diagnostics[0];
    assert_eq!(d.summary, "Provider stopped", "{d:?}");
    assert!(d.detail.contains("grace period"), "{}", d.detail);

    // The host keeps serving.
    let after =
        p.client.apply_resource_change(apply_request("env")).await.expect("answers").into_inner();
    assert!(after.diagnostics[0].summary.starts_with("refused:"), "{:?}", after.diagnostics);
}

//! What the host does with a buggy guest: every fault becomes an error diagnostic that names
//! the RPC and the resource type, and the next call is served by a fresh instance.
//!
//! The guest is `tests/guests/faulty`, built to wasm32-wasip2 by `make build` (`make test`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_core::types::{ApplyResourceChangeRequest, PlanResourceChangeRequest};
use terrarium_model::{Diagnostic, Type, Value};
use terrarium_runtime::{Runtime, RuntimeSettings};

use crate::served::faulty;

async fn start(call_timeout: Duration) -> Dispatcher {
    let settings = RuntimeSettings { call_timeout, cache_dir: None, ..RuntimeSettings::default() };
    let runtime = Runtime::load(&faulty(), settings).expect("fixture loads");
    Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts")
}

fn thing_type(p: &Dispatcher) -> Type {
    p.schema().resources["faulty_thing"].block.implied_type()
}

fn thing(mode: &str, id: Value, value: Value) -> Value {
    Value::Object(BTreeMap::from([
        ("id".to_string(), id),
        ("mode".to_string(), Value::string(mode)),
        ("value".to_string(), value),
    ]))
}

/// `v` as the core takes it (as Terraform's wire format carries it).
fn encode(p: &Dispatcher, v: &Value) -> Value {
    codec::canonical(v, &thing_type(p)).expect("encodable")
}

/// Applies a `faulty_thing` in `mode`: the new state (decoded) and the diagnostics.
pub(crate) async fn apply(p: &Dispatcher, mode: &str) -> (Option<Value>, Vec<Diagnostic>) {
    let planned = thing(mode, Value::unknown(), Value::unknown());
    let config = thing(mode, Value::Null, Value::Null);
    let out = p
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: "faulty_thing".into(),
            prior_state: Value::Null,
            planned_state: encode(p, &planned),
            config: encode(p, &config),
            ..Default::default()
        })
        .await;
    (out.new_state, out.diagnostics)
}

fn single_error(diags: &[Diagnostic]) -> &Diagnostic {
    assert_eq!(diags.len(), 1, "expected one diagnostic, got {diags:#?}");
    assert!(diags[0].is_error(), "{:?}", diags[0]);
    &diags[0]
}

#[tokio::test]
async fn a_trap_names_the_rpc_and_resource_type_and_the_next_call_works() {
    let p = start(Duration::from_secs(60)).await;
    let (state, diags) = apply(&p, "panic").await;
    assert!(state.is_none());
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider crashed");
    assert!(d.detail.contains("ApplyResourceChange for resource \"faulty_thing\""), "{}", d.detail);
    // The guest's panic message reaches the user.
    assert!(d.detail.contains("deliberate panic in apply"), "{}", d.detail);

    let (state, diags) = apply(&p, "ok").await;
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(state, Some(thing("ok", Value::string("thing-ok"), Value::string("fine"))));
}

/// Issue 24: a guest that calls the host from its `cabi_realloc` (Go's garbage collector did,
/// after a few hundred calls) traps in wasmtime with "cannot leave component instance" at the
/// very end of a long backtrace; the diagnostic leads with the trap and what it means.
#[tokio::test]
async fn a_call_to_the_host_from_cabi_realloc_is_named_and_explained() {
    let p = start(Duration::from_secs(60)).await;
    // Arms the fixture: the next allocation the host asks of it calls the host.
    let (_, diags) = apply(&p, "realloc-calls-host").await;
    assert!(diags.is_empty(), "{diags:#?}");
    let (state, diags) = apply(&p, "ok").await;
    assert!(state.is_none());
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider crashed");
    let cause = "The provider crashed while serving ApplyResourceChange for resource \"faulty_thing\": \
                 wasm trap: cannot leave component instance. The provider called the host while \
                 the host was passing it a value (from its allocator `cabi_realloc`";
    assert!(d.detail.starts_with(cause), "{}", d.detail);
    assert!(
        d.detail.contains("rebuild the provider with the current guest-sdk/go"),
        "{}",
        d.detail
    );
    // The backtrace follows, innermost call first: the fixture's allocator.
    let backtrace = d.detail.find("WebAssembly backtrace, innermost call first:");
    let realloc = d.detail.find("cabi_realloc\n");
    assert!(backtrace.is_some() && realloc > backtrace, "{}", d.detail);

    let (state, diags) = apply(&p, "ok").await;
    assert!(diags.is_empty(), "{diags:#?}");
    assert!(state.is_some());
}

#[tokio::test]
async fn a_panic_while_planning_names_plan_resource_change() {
    let p = start(Duration::from_secs(60)).await;
    let proposed = thing("plan-panic", Value::Null, Value::Null);
    let out = p
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: "faulty_thing".into(),
            proposed_new_state: encode(&p, &proposed),
            config: encode(&p, &proposed),
            ..Default::default()
        })
        .await;
    let d = single_error(&out.diagnostics);
    assert!(d.detail.contains("PlanResourceChange for resource \"faulty_thing\""), "{}", d.detail);
    assert!(out.planned_state.is_none());
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_refused_with_its_path() {
    let p = start(Duration::from_secs(60)).await;
    let (state, diags) = apply(&p, "wrong-type").await;
    assert!(state.is_none(), "a malformed value must never reach Terraform");
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider returned an invalid value");
    assert_eq!(d.attribute.to_string(), "value");
    assert!(d.detail.contains("ApplyResourceChange"), "{}", d.detail);
}

#[tokio::test]
async fn an_unknown_value_after_apply_is_refused_with_its_path() {
    let p = start(Duration::from_secs(60)).await;
    let (state, diags) = apply(&p, "unknown-after-apply").await;
    assert!(state.is_none());
    let d = single_error(&diags);
    assert_eq!(d.attribute.to_string(), "value");
    assert!(d.detail.contains("unknown"), "{}", d.detail);
}

#[tokio::test]
async fn a_malformed_node_tree_is_refused() {
    let p = start(Duration::from_secs(60)).await;
    let (state, diags) = apply(&p, "bad-tree").await;
    assert!(state.is_none());
    let d = single_error(&diags);
    assert!(d.detail.contains("malformed"), "{}", d.detail);
    // The instance is still usable: a malformed result is not a trap.
    let (_, diags) = apply(&p, "ok").await;
    assert!(diags.is_empty(), "{diags:#?}");
}

#[tokio::test]
async fn an_endless_loop_is_interrupted_at_the_call_timeout() {
    let p = start(Duration::from_millis(500)).await;
    let started = std::time::Instant::now();
    let (state, diags) = apply(&p, "loop").await;
    // Generous bound: this checks that the call ends at all, not how fast.
    assert!(started.elapsed() < Duration::from_secs(30), "the loop was not interrupted");
    assert!(state.is_none());
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider timed out");
    assert!(d.detail.contains("ApplyResourceChange for resource \"faulty_thing\""), "{}", d.detail);

    let (_, diags) = apply(&p, "ok").await;
    assert!(diags.is_empty(), "a fresh instance serves the next call: {diags:#?}");
}

#[tokio::test]
async fn an_unknown_resource_type_is_a_diagnostic_listing_the_known_ones() {
    let p = start(Duration::from_secs(60)).await;
    let out = p
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: "faulty_nothing".into(),
            ..Default::default()
        })
        .await;
    let d = single_error(&out.diagnostics);
    assert!(
        d.detail.contains("faulty_nothing") && d.detail.contains("faulty_thing"),
        "{}",
        d.detail
    );
}

/// Plans a new `faulty_thing` in `mode`: the response's planned identity and diagnostics.
async fn plan_identity(p: &Dispatcher, mode: &str) -> (Option<Value>, Vec<Diagnostic>) {
    let proposed = thing(mode, Value::Null, Value::Null);
    let out = p
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: "faulty_thing".into(),
            prior_state: Value::Null,
            proposed_new_state: encode(p, &proposed),
            config: encode(p, &proposed),
            ..Default::default()
        })
        .await;
    (out.planned_identity, out.diagnostics)
}

#[tokio::test]
async fn an_unknown_planned_identity_is_refused_with_what_the_guest_did_wrong() {
    let p = start(Duration::from_secs(60)).await;
    for (mode, path) in [("plan-unknown-identity", "(root)"), ("plan-unknown-identity-id", "id")] {
        let (identity, diags) = plan_identity(&p, mode).await;
        assert!(identity.is_none(), "{mode}: an unknown identity must never reach Terraform");
        let d = single_error(&diags);
        assert_eq!(d.summary, "Provider returned an invalid value", "{mode}");
        assert_eq!(d.attribute.to_string(), path, "{mode}");
        for part in ["planned identity", "PlanResourceChange", "wholly known or null"] {
            assert!(d.detail.contains(part), "{mode}: {part:?} missing from {}", d.detail);
        }
    }
    // A guest that plans no identity (null while it cannot tell) is fine.
    let (_, diags) = plan_identity(&p, "ok").await;
    assert!(diags.is_empty(), "{diags:#?}");
}

//! The instance pool: concurrent calls are served by as many instances, up to the pool's
//! bound; every instance is configured (by replaying ConfigureProvider) before a call that
//! needs it; a trap discards only the instance that trapped.
//!
//! The guest is `tests/guests/faulty`; its `slow` mode sleeps 200 ms on the host clock and
//! returns a state naming the instance that served it and whether that instance was
//! configured. Nothing here measures time: overlap is forced by starting every call before
//! any can finish, and observed through the instance names.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_core::types::ConfigureRequest;
use terrarium_model::{Diagnostic, Value};
use terrarium_runtime::{Runtime, RuntimeSettings};

use crate::guest_faults;
use crate::served::faulty;

async fn start(pool_size: usize) -> Dispatcher {
    let settings = RuntimeSettings {
        call_timeout: Duration::from_secs(60),
        cache_dir: None,
        instance_pool_size: pool_size,
        ..RuntimeSettings::default()
    };
    let runtime = Runtime::load(&faulty(), settings).expect("fixture loads");
    Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts")
}

async fn configure(p: &Dispatcher) {
    let ty = p.schema().provider.block.implied_type();
    let config = codec::canonical(&Value::Object(BTreeMap::new()), &ty)
        .expect("empty provider config encodes");
    let diags = p
        .configure(&ConfigureRequest {
            terraform_version: "1.15.5".into(),
            config,
            ..Default::default()
        })
        .await;
    assert!(diags.is_empty(), "{diags:#?}");
}

/// Applies a `faulty_thing` in `mode`; returns (id, value) of the new state, or the diagnostics.
async fn apply(p: &Dispatcher, mode: &str) -> Result<(String, String), Vec<Diagnostic>> {
    let (state, diagnostics) = guest_faults::apply(p, mode).await;
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let state = state.expect("a state without diagnostics");
    let Value::Object(attrs) = state else { panic!("state is not an object: {state:?}") };
    let text = |name: &str| match &attrs[name] {
        Value::String(s) => s.clone(),
        other => panic!("{name} is not a string: {other:?}"),
    };
    Ok((text("id"), text("value")))
}

async fn slow_calls(p: &Dispatcher, n: usize) -> Vec<(String, String)> {
    join_all((0..n).map(|_| apply(p, "slow")))
        .await
        .into_iter()
        .map(|r| r.expect("slow call succeeds"))
        .collect()
}

fn instances(results: &[(String, String)]) -> BTreeSet<&str> {
    results.iter().map(|(id, _)| id.as_str()).collect()
}

#[tokio::test]
async fn concurrent_calls_are_served_by_as_many_instances() {
    let p = start(8).await;
    let results = slow_calls(&p, 4).await;
    assert_eq!(instances(&results).len(), 4, "{results:?}");
    // Without a ConfigureProvider nothing is replayed (this is what makes the next test able to fail).
    assert!(results.iter().all(|(_, v)| v == "unconfigured"), "{results:?}");

    // Idle instances are reused, not recreated.
    let again = slow_calls(&p, 4).await;
    assert_eq!(instances(&again), instances(&results));
}

#[tokio::test]
async fn the_pool_bound_limits_the_instances_alive() {
    let p = start(2).await;
    let results = slow_calls(&p, 5).await;
    assert_eq!(instances(&results).len(), 2, "{results:?}");
}

#[tokio::test]
async fn every_instance_is_configured_before_a_call_that_needs_it() {
    let p = start(8).await;
    configure(&p).await;
    let results = slow_calls(&p, 3).await;
    assert_eq!(instances(&results).len(), 3, "{results:?}");
    assert!(results.iter().all(|(_, v)| v == "configured"), "replay missing: {results:?}");
}

#[tokio::test]
async fn a_trap_affects_only_its_own_call_and_its_instance_is_replaced() {
    let p = start(8).await;
    configure(&p).await;
    let first = slow_calls(&p, 3).await;

    let (slow, crashed) =
        tokio::join!(join_all((0..3).map(|_| apply(&p, "slow"))), apply(&p, "panic"));
    for r in &slow {
        let (_, value) = r.as_ref().expect("concurrent calls are unaffected by the trap");
        assert_eq!(value, "configured");
    }
    let diags = crashed.expect_err("the panic is reported");
    assert_eq!(diags[0].summary, "Provider crashed", "{diags:#?}");

    // Four calls at once: the three surviving instances plus a fresh, configured one.
    let after = slow_calls(&p, 4).await;
    assert!(after.iter().all(|(_, v)| v == "configured"), "{after:?}");
    let known = instances(&first);
    let fresh: Vec<&str> = instances(&after).into_iter().filter(|id| !known.contains(id)).collect();
    assert!(!fresh.is_empty(), "a fresh instance took the crashed one's place: {after:?}");
}

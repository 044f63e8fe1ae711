//! The host plans for a component that declares its behaviour (WIT `behaviour`), and a guest
//! whose hooks answer wrongly gets a diagnostic that says so, never a crash or a plan
//! Terraform would refuse; the next call is served as usual.
//!
//! The guest is `tests/guests/declaring`, built to wasm32-wasip2 by `make build`; its
//! `mode` attribute chooses the fault.

use std::collections::BTreeMap;
use std::sync::Arc;

use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_core::types::{
    ApplyResourceChangeRequest, ClientCapabilities, PlanResourceChangeRequest,
};
use terrarium_model::{AttributePath, Diagnostic, Number, Type, Value};
use terrarium_runtime::{Runtime, RuntimeSettings};

use crate::served::declaring;

const THING: &str = "declaring_thing";

async fn start() -> Dispatcher {
    let settings = RuntimeSettings { cache_dir: None, ..RuntimeSettings::default() };
    let runtime = Runtime::load(&declaring(), settings).expect("fixture loads");
    Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts")
}

fn thing_type(p: &Dispatcher) -> Type {
    p.schema().resources[THING].block.implied_type()
}

/// A configuration: `name`, `mode`, `label`; `size` and `id` left to the provider.
fn config(mode: &str, label: Option<&str>) -> Value {
    Value::Object(BTreeMap::from([
        ("name".to_string(), Value::string("one")),
        ("mode".to_string(), Value::string(mode)),
        ("size".to_string(), Value::Null),
        ("label".to_string(), label.map(Value::string).unwrap_or(Value::Null)),
        ("id".to_string(), Value::Null),
    ]))
}

/// `v` as the core takes it (as Terraform's wire format carries it).
fn encode(p: &Dispatcher, v: &Value) -> Value {
    codec::canonical(v, &thing_type(p)).expect("encodable")
}

/// Plans creating a thing in `mode`: the planned state (decoded) and the diagnostics.
async fn plan(p: &Dispatcher, mode: &str) -> (Option<Value>, Vec<Diagnostic>) {
    let config = config(mode, None);
    let out = p
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: THING.into(),
            prior_state: Value::Null,
            proposed_new_state: encode(p, &config),
            config: encode(p, &config),
            ..Default::default()
        })
        .await;
    (out.planned_state, out.diagnostics)
}

fn single_error(diags: &[Diagnostic]) -> &Diagnostic {
    assert_eq!(diags.len(), 1, "expected one diagnostic, got {diags:#?}");
    assert!(diags[0].is_error(), "{:?}", diags[0]);
    &diags[0]
}

fn attr<'a>(v: &'a Value, name: &str) -> &'a Value {
    v.attr(name).unwrap_or_else(|| panic!("no {name} in {v:?}"))
}

#[tokio::test]
async fn the_host_plans_with_computed_defaults_and_the_plan_hook_then_checks_the_apply() {
    let p = start().await;
    let (planned, diags) = plan(&p, "ok").await;
    assert!(diags.is_empty(), "{diags:#?}");
    let planned = planned.expect("a plan");
    // The computed default came from the guest's hook; the computed id is unknown.
    assert_eq!(attr(&planned, "size"), &Value::Number(Number::from(3)));
    assert!(attr(&planned, "id").is_unknown(), "{planned:?}");

    let out = p
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: THING.into(),
            prior_state: Value::Null,
            planned_state: encode(&p, &planned),
            config: encode(&p, &config("ok", None)),
            ..Default::default()
        })
        .await;
    assert!(out.diagnostics.is_empty(), "{:#?}", out.diagnostics);
    let state = out.new_state.expect("a state");
    assert_eq!(attr(&state, "id"), &Value::string("thing-1"));
}

#[tokio::test]
async fn a_custom_validator_hook_reports_at_its_attribute() {
    let p = start().await;
    let bad = config("ok", Some("bad"));
    let diags =
        p.validate_resource_config(THING, &encode(&p, &bad), ClientCapabilities::default()).await;
    let d = single_error(&diags);
    assert_eq!(d.summary, "Invalid label");
    assert_eq!(d.attribute, AttributePath::root().attr("label"));

    let good = config("ok", Some("fine"));
    let diags =
        p.validate_resource_config(THING, &encode(&p, &good), ClientCapabilities::default()).await;
    assert!(diags.is_empty(), "{diags:#?}");
}

#[tokio::test]
async fn a_defaults_hook_that_answers_too_few_values_is_named_and_the_next_plan_works() {
    let p = start().await;
    let (planned, diags) = plan(&p, "short-defaults").await;
    assert!(planned.is_none());
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider returned an invalid value");
    assert!(d.detail.contains("compute-defaults"), "{}", d.detail);
    assert!(d.detail.contains("0 values for 1 requests"), "{}", d.detail);
    assert!(
        d.detail.contains("PlanResourceChange for resource \"declaring_thing\""),
        "{}",
        d.detail
    );

    let (planned, diags) = plan(&p, "ok").await;
    assert!(diags.is_empty() && planned.is_some(), "{diags:#?}");
}

#[tokio::test]
async fn a_defaults_hook_that_traps_is_a_crash_diagnostic_and_the_next_plan_works() {
    let p = start().await;
    let (planned, diags) = plan(&p, "default-panic").await;
    assert!(planned.is_none());
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider crashed");
    assert!(d.detail.contains("deliberate panic in compute-defaults"), "{}", d.detail);

    let (planned, diags) = plan(&p, "ok").await;
    assert!(diags.is_empty() && planned.is_some(), "{diags:#?}");
}

#[tokio::test]
async fn a_default_of_the_wrong_type_never_reaches_terraform() {
    let p = start().await;
    let (planned, diags) = plan(&p, "default-wrong-type").await;
    assert!(planned.is_none(), "{planned:?}");
    assert!(
        diags.iter().any(|d| d.is_error() && d.attribute == AttributePath::root().attr("size")),
        "{diags:#?}"
    );
}

#[tokio::test]
async fn a_plan_hook_that_changes_a_configured_value_is_refused_at_the_attribute() {
    let p = start().await;
    let (planned, diags) = plan(&p, "plan-renames").await;
    assert!(planned.is_none(), "{planned:?}");
    let d = single_error(&diags);
    assert_eq!(d.summary, "Provider produced an inconsistent plan");
    assert_eq!(d.attribute, AttributePath::root().attr("name"));
    assert!(d.detail.contains("plan-resource hook"), "{}", d.detail);
}

#[tokio::test]
async fn an_apply_that_breaks_the_plan_is_refused_at_the_attribute() {
    let p = start().await;
    let (planned, diags) = plan(&p, "apply-resizes").await;
    assert!(diags.is_empty(), "{diags:#?}");
    let out = p
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: THING.into(),
            prior_state: Value::Null,
            planned_state: encode(&p, &planned.expect("a plan")),
            config: encode(&p, &config("apply-resizes", None)),
            ..Default::default()
        })
        .await;
    let d = single_error(&out.diagnostics);
    assert_eq!(d.summary, "Provider produced an inconsistent result after apply");
    assert_eq!(d.attribute, AttributePath::root().attr("size"));
    assert!(d.detail.contains("The create of declaring_thing"), "{}", d.detail);
}

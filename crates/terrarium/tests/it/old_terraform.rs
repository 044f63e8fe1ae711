//! What the host does for a Terraform older than a feature, whatever the guest does: a
//! write-only attribute set in the configuration of a Terraform that does not support them
//! (before 1.11, whose client capabilities say so) is refused by the host at validation, because
//! that Terraform would store the value in its state. `tests/guests/faulty`'s `faulty_secret`
//! never refuses it itself (an SDK would), so the refusal seen here is the host's.

use std::collections::BTreeMap;
use std::sync::Arc;

use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_core::types::ClientCapabilities;
use terrarium_model::{AttributePath, Value};
use terrarium_runtime::{Runtime, RuntimeSettings};

use crate::served::faulty;

async fn start() -> Dispatcher {
    let settings = RuntimeSettings { cache_dir: None, ..RuntimeSettings::default() };
    let runtime = Runtime::load(&faulty(), settings).expect("fixture loads");
    Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts")
}

fn secret_config(p: &Dispatcher, secret: Value) -> Value {
    let config =
        Value::Object(BTreeMap::from([("id".into(), Value::Null), ("secret_wo".into(), secret)]));
    let ty = p.schema().resources["faulty_secret"].block.implied_type();
    codec::canonical(&config, &ty).expect("encodable")
}

const OLD_TERRAFORM: ClientCapabilities =
    ClientCapabilities { deferral_allowed: false, write_only_attributes_allowed: false };
const NEW_TERRAFORM: ClientCapabilities =
    ClientCapabilities { deferral_allowed: true, write_only_attributes_allowed: true };

#[tokio::test]
async fn a_write_only_value_is_refused_for_a_terraform_without_write_only_attributes() {
    let p = start().await;
    let set = secret_config(&p, Value::string("s3cret"));
    let diags = p.validate_resource_config("faulty_secret", &set, OLD_TERRAFORM).await;
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    assert!(d.is_error(), "{d:?}");
    assert_eq!(d.summary, "Write-only attribute not supported");
    assert!(
        d.detail.contains("secret_wo") && d.detail.contains("Terraform 1.11 or newer"),
        "{}",
        d.detail
    );
    assert_eq!(d.attribute, AttributePath::root().attr("secret_wo"));

    // An unknown value is refused too: it becomes a value in the state once known.
    let unknown = secret_config(&p, Value::unknown());
    let diags = p.validate_resource_config("faulty_secret", &unknown, OLD_TERRAFORM).await;
    assert_eq!(diags.len(), 1, "{diags:#?}");

    // Unset, or with a Terraform that supports them, nothing is refused.
    let unset = secret_config(&p, Value::Null);
    let diags = p.validate_resource_config("faulty_secret", &unset, OLD_TERRAFORM).await;
    assert!(diags.is_empty(), "{diags:#?}");
    let diags = p.validate_resource_config("faulty_secret", &set, NEW_TERRAFORM).await;
    assert!(diags.is_empty(), "{diags:#?}");
}

//! `hashicorp/null` 2.1.2, rebuilt on the Terrarium SDK: a drop-in replacement for the Go
//! provider, and the smallest complete example of a provider.
//!
//! - `null_resource` does nothing. Its `id` is a random number, drawn when it is created;
//!   changing any of its `triggers` replaces it (and so draws a new id), which is what
//!   configurations use it for.
//! - `null_data_source` returns its `inputs` as `outputs`, a fresh `random` number on every
//!   read, and `has_computed_default`: the configured value, else `"default"`.
//!
//! Everything Terraform can see (schemas, plans, states, error messages) matches the Go
//! original; `testdata/go-schema.json` is the Go binary's `terraform providers schema -json`.
//! The few places where the Go provider's SDK (v1) had its own ideas are kept and marked
//! "Go SDKv1" below.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use terrarium_sdk::{
    AnyDataSource, AnyResource, Attr, DataSource, Diagnostics, Model, Provider, Resource, Result,
    ResultExt, Value, log,
};

/// The provider. It has no configuration, so there is nothing to keep in it.
#[derive(Default)]
pub struct NullProvider;

impl Provider for NullProvider {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(NullResource)]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(NullDataSource)]
    }
}

// Makes `NullProvider` the component's implementation of the Terrarium world.
terrarium_sdk::export!(NullProvider);

/// `null_resource`.
pub struct NullResource;

// The state of a `null_resource`, and so its schema. Plain `//` comments here: doc
// comments would become descriptions, and the Go provider has none.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct NullResourceState {
    // Go SDKv1 declares `id` on every resource, optional and computed; configurations may
    // not set it all the same (see `validate`). Drawn once, kept through updates.
    #[tf(optional, computed, use_state_for_unknown)]
    pub id: Attr<String>,
    // A map element may itself be null (`triggers = { a = null }`).
    #[tf(requires_replace_if = not_both_empty)]
    pub triggers: Option<BTreeMap<String, Option<String>>>,
}

impl Resource for NullResource {
    const TYPE_NAME: &'static str = "null_resource";
    type State = NullResourceState;

    fn validate(&self, config: &Value) -> Result<()> {
        refuse_configured_id(config)
    }

    fn create(&self, planned: NullResourceState) -> Result<NullResourceState> {
        let id = random_decimal()?;
        log::debug!("created null_resource", id = id);
        Ok(NullResourceState { id: Attr::Known(id), ..planned })
    }

    /// Only reached when `triggers` goes from unset to `{}` or back (every other change
    /// replaces the resource): there is nothing to do but keep the id.
    fn update(
        &self,
        _prior: NullResourceState,
        planned: NullResourceState,
    ) -> Result<NullResourceState> {
        Ok(planned)
    }

    fn import(&self, _id: &str) -> Result<NullResourceState> {
        // Go SDKv1's words, exactly: hashicorp/null 2.1.2 cannot import.
        Err(Diagnostics::error("resource null_resource doesn't support import", ""))
    }

    fn read(&self, current: NullResourceState) -> Result<Option<NullResourceState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: NullResourceState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// Go SDKv1 saw no difference between an unset map and an empty one, so going from one to
/// the other did not replace the resource. Any other change of `triggers` does.
fn not_both_empty(prior: &Value, planned: &Value) -> bool {
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::Map(m) => m.is_empty(),
        _ => false,
    };
    !(empty(prior) && empty(planned))
}

/// `null_data_source`.
pub struct NullDataSource;

// The state of a `null_data_source`. Terraform reads data sources only once their
// configuration is known, so `Option` (null or not) is enough here: nothing is unknown.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct NullDataSourceState {
    #[tf(optional, computed)]
    pub id: Option<String>,
    pub inputs: Option<BTreeMap<String, Option<String>>>,
    #[tf(computed)]
    pub outputs: Option<BTreeMap<String, String>>,
    #[tf(computed)]
    pub random: Option<String>,
    #[tf(optional, computed)]
    pub has_computed_default: Option<String>,
}

impl DataSource for NullDataSource {
    const TYPE_NAME: &'static str = "null_data_source";
    type State = NullDataSourceState;

    fn validate(&self, config: &Value) -> Result<()> {
        refuse_configured_id(config)
    }

    fn read(&self, config: NullDataSourceState) -> Result<NullDataSourceState> {
        // Go SDKv1 dropped null map elements, and stored an empty map as null.
        let inputs: BTreeMap<String, String> = config
            .inputs
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| Some((k, v?)))
            .collect();
        // Go SDKv1 read an empty string as unset.
        let has_computed_default = match config.has_computed_default {
            Some(text) if !text.is_empty() => text,
            _ => "default".to_string(),
        };
        Ok(NullDataSourceState {
            id: Some("static".to_string()),
            outputs: Some(inputs.clone()),
            inputs: (!inputs.is_empty())
                .then(|| inputs.into_iter().map(|(k, v)| (k, Some(v))).collect()),
            random: Some(random_decimal()?),
            has_computed_default: Some(has_computed_default),
        })
    }
}

/// Go SDKv1 refused a configured `id` with this odd message (an empty key name, then the
/// text), on the whole block rather than the attribute. Kept word for word.
fn refuse_configured_id(config: &Value) -> Result<()> {
    match config.attr("id") {
        Some(id) if !id.is_null() => Err(Diagnostics::error(": invalid or unknown key: id", "")),
        _ => Ok(()),
    }
}

/// A random non-negative 63-bit integer in decimal, like Go's `rand.Int()`.
fn random_decimal() -> Result<String> {
    let n = getrandom::u64().context("No randomness available")?;
    Ok((n >> 1).to_string())
}

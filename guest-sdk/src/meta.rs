//! `provider_meta`: a block a module writes in its `terraform` block for one provider, which
//! Terraform hands to that provider with every resource and data source call made for the
//! module (typically the module's name and version, for the provider's user agent).
//!
//! A provider declares the block's schema with
//! [`Provider::meta_schema`](crate::Provider::meta_schema); the code serving a resource
//! (plan, apply, read) or a data source (read) reads the value with [`provider_meta`]:
//!
//! ```
//! use serde::Deserialize;
//! use terrarium_sdk::schema::{Attribute, Schema};
//! use terrarium_sdk::{Provider, provider_meta};
//!
//! # #[derive(Default)] struct Demo;
//! impl Provider for Demo {
//!     fn meta_schema(&self) -> Option<Schema> {
//!         Some(Schema::new().attribute(Attribute::string("module_name").optional()))
//!     }
//! }
//!
//! #[derive(Deserialize)]
//! struct Meta {
//!     module_name: Option<String>,
//! }
//!
//! // In a resource method: who is calling?
//! fn user_agent() -> terrarium_sdk::Result<String> {
//!     let module = provider_meta::<Meta>()?.and_then(|m| m.module_name);
//!     Ok(format!("demo-provider ({})", module.as_deref().unwrap_or("no module")))
//! }
//! # assert_eq!(user_agent().unwrap(), "demo-provider (no module)");
//! ```
//!
//! In `terraform { provider_meta "demo" { module_name = "web" } }`, that reads `Some("web")`.

use std::cell::RefCell;

use serde::de::DeserializeOwned;
use terrarium_model::Value;

use crate::diag::Result;
use crate::value::from_value;

thread_local! {
    static CURRENT: RefCell<Option<Value>> = const { RefCell::new(None) };
}

/// The `provider_meta` block of the module whose resource or data source is being served,
/// read into `M`. `None` when the module wrote none, when the provider declares no
/// [`meta_schema`](crate::Provider::meta_schema), and outside plan, apply and read calls.
pub fn provider_meta<M: DeserializeOwned>() -> Result<Option<M>> {
    CURRENT.with(|current| match &*current.borrow() {
        Some(value) if !value.is_null() => Ok(Some(from_value(value)?)),
        _ => Ok(None),
    })
}

/// Runs `f` with `meta` as the `provider_meta` of the call it serves.
pub(crate) fn with_meta<T>(meta: Option<Value>, f: impl FnOnce() -> T) -> T {
    let previous = CURRENT.with(|current| current.replace(meta));
    let out = f();
    CURRENT.with(|current| *current.borrow_mut() = previous);
    out
}

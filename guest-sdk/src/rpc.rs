//! The requests and responses of the provider protocol, in the neutral model's terms.
//!
//! They mirror the WIT records one to one (minus fields this SDK does not use yet), so a
//! provider can be driven natively, in unit tests, exactly as the host drives the component:
//! see [`crate::Server`]. Fields are those of the WIT records (documented in
//! `wit/provider.wit`); only the less obvious ones are described here.
#![allow(missing_docs)]

use terrarium_model::{AttributePath, Diagnostic, Value};

/// What Terraform says it can handle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// Terraform accepts a deferred response (the provider cannot act yet).
    pub deferral_allowed: bool,
    /// Terraform supports write-only attributes.
    pub write_only_attributes_allowed: bool,
}

/// `ConfigureProvider`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigureRequest {
    pub terraform_version: String,
    /// The provider block, an object of the provider schema's type.
    pub config: Value,
    pub client: ClientCapabilities,
}

/// `ReadResource`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadRequest {
    pub type_name: String,
    pub current_state: Value,
    pub private: Vec<u8>,
}

/// Reply to [`ReadRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReadResponse {
    /// Null when the resource no longer exists.
    pub new_state: Value,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `PlanResourceChange`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRequest {
    pub type_name: String,
    /// Null on create.
    pub prior_state: Value,
    /// Null on destroy.
    pub proposed_new_state: Value,
    pub config: Value,
    pub prior_private: Vec<u8>,
}

/// Reply to [`PlanRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlanResponse {
    pub planned_state: Value,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `ApplyResourceChange`.
#[derive(Clone, Debug, PartialEq)]
pub struct ApplyRequest {
    pub type_name: String,
    /// Null on create.
    pub prior_state: Value,
    /// Null on destroy.
    pub planned_state: Value,
    pub config: Value,
    pub planned_private: Vec<u8>,
}

/// Reply to [`ApplyRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ApplyResponse {
    pub new_state: Value,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `ImportResourceState`.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportRequest {
    pub type_name: String,
    pub id: String,
}

/// One resource an import produced.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: Value,
    pub private: Vec<u8>,
}

/// Reply to [`ImportRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ImportResponse {
    pub imported: Vec<ImportedResource>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `UpgradeResourceState`.
#[derive(Clone, Debug, PartialEq)]
pub struct UpgradeRequest {
    pub type_name: String,
    /// The schema version the state was written with.
    pub version: i64,
    /// The stored JSON state, decoded without a schema (objects, tuples, strings, numbers,
    /// bools, nulls).
    pub raw_state: Value,
}

/// Reply to [`UpgradeRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct UpgradeResponse {
    pub upgraded_state: Value,
    pub diagnostics: Vec<Diagnostic>,
}

/// `ReadDataSource`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadDataSourceRequest {
    pub type_name: String,
    pub config: Value,
}

/// Reply to [`ReadDataSourceRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReadDataSourceResponse {
    pub state: Value,
    pub diagnostics: Vec<Diagnostic>,
}

//! The requests and responses of the provider protocol, in the neutral model's terms.
//!
//! They mirror the WIT records one to one (minus fields this SDK does not use yet), so a
//! provider can be driven natively, in unit tests, exactly as the host drives the component:
//! see [`crate::Server`]. Fields are those of the WIT records (documented in
//! `wit/provider.wit`); only the less obvious ones are described here.
#![allow(missing_docs)]

use terrarium_model::{AttributePath, Diagnostic, Value};
pub use terrarium_model::{ClientCapabilities, DeferredReason};

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
    pub client: ClientCapabilities,
    /// The identity stored with the state (types with an identity only).
    pub current_identity: Option<Value>,
}

/// Reply to [`ReadRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReadResponse {
    /// Null when the resource no longer exists.
    pub new_state: Value,
    pub private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<Value>,
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
    pub client: ClientCapabilities,
    pub prior_identity: Option<Value>,
}

/// Reply to [`PlanRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlanResponse {
    pub planned_state: Value,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    /// Unknown attributes where the identity is only known after apply (a create).
    pub planned_identity: Option<Value>,
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
    pub planned_identity: Option<Value>,
}

/// Reply to [`ApplyRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ApplyResponse {
    pub new_state: Value,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<Value>,
}

/// `ImportResourceState`.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportRequest {
    pub type_name: String,
    /// The import ID; empty when importing by identity.
    pub id: String,
    pub client: ClientCapabilities,
    /// Set when importing by identity (`import { identity = {...} }`).
    pub identity: Option<Value>,
}

/// One resource an import produced.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: Value,
    pub private: Vec<u8>,
    pub identity: Option<Value>,
}

/// Reply to [`ImportRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ImportResponse {
    pub imported: Vec<ImportedResource>,
    pub deferred: Option<DeferredReason>,
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

/// `UpgradeResourceIdentity`.
#[derive(Clone, Debug, PartialEq)]
pub struct UpgradeIdentityRequest {
    pub type_name: String,
    /// The identity schema version the stored identity was written with.
    pub version: i64,
    /// The stored identity JSON, decoded without a schema.
    pub raw_identity: Value,
}

/// Reply to [`UpgradeIdentityRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct UpgradeIdentityResponse {
    pub upgraded_identity: Value,
    pub diagnostics: Vec<Diagnostic>,
}

/// `MoveResourceState`: a `moved` block whose source is another resource type.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRequest {
    /// Full provider address of the source, e.g. `registry.terraform.io/hashicorp/random`.
    pub source_provider_address: String,
    pub source_type_name: String,
    pub source_schema_version: i64,
    /// The source's stored JSON state, decoded without a schema.
    pub source_state: Value,
    pub target_type_name: String,
    pub source_private: Vec<u8>,
    /// The source's stored identity JSON, decoded without a schema, if it had one.
    pub source_identity: Option<Value>,
    pub source_identity_schema_version: i64,
}

/// Reply to [`MoveRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct MoveResponse {
    pub target_state: Value,
    pub target_private: Vec<u8>,
    pub target_identity: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reply to `GenerateResourceConfig`.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerateConfigResponse {
    /// A configuration that would produce the state (computed-only attributes null).
    pub config: Value,
    pub diagnostics: Vec<Diagnostic>,
}

/// `ReadDataSource`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadDataSourceRequest {
    pub type_name: String,
    pub config: Value,
    pub client: ClientCapabilities,
}

/// Reply to [`ReadDataSourceRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReadDataSourceResponse {
    pub state: Value,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

//! Protocol-neutral requests and responses: what the front ends (tfplugin6/5, Pulumi,
//! `terrarium harness`) hand to the core and get back. Values are typed trees
//! ([`Value`]), never wire bytes: a front end decodes what it receives with the schema type
//! the value belongs to (the core's `*_type` lookups say which), and encodes what it sends.
//!
//! A value handed to the core is of its schema type, as decoding makes it (a front end that
//! builds values itself passes them through `terrarium_codec::canonical`). A value the core
//! returns has been checked against its schema type and is in that same form, so encoding
//! it cannot fail.
//!
//! Stored states (`raw_state`, `source_state`, ...) reach the core as untyped trees: decoded
//! from JSON without a schema, as Terraform keeps them.

use terrarium_model::{AttributePath, Diagnostic, Type, Value};
pub use terrarium_model::{ClientCapabilities, DeferredReason};

#[derive(Clone, Debug, Default)]
pub struct ConfigureRequest {
    pub terraform_version: String,
    pub config: Value,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ReadResourceRequest {
    pub type_name: String,
    pub current_state: Value,
    pub private: Vec<u8>,
    pub provider_meta: Option<Value>,
    pub client: ClientCapabilities,
    /// The identity stored with the state (`ResourceIdentityData.identity_data`), if any.
    pub current_identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct ReadResourceResponse {
    pub new_state: Option<Value>,
    pub private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct PlanResourceChangeRequest {
    pub type_name: String,
    pub prior_state: Value,
    pub proposed_new_state: Value,
    pub config: Value,
    pub prior_private: Vec<u8>,
    pub provider_meta: Option<Value>,
    pub client: ClientCapabilities,
    pub prior_identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct PlanResourceChangeResponse {
    pub planned_state: Option<Value>,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub planned_identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyResourceChangeRequest {
    pub type_name: String,
    pub prior_state: Value,
    pub planned_state: Value,
    pub config: Value,
    pub planned_private: Vec<u8>,
    pub provider_meta: Option<Value>,
    pub planned_identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyResourceChangeResponse {
    pub new_state: Option<Value>,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportResourceStateRequest {
    pub type_name: String,
    /// Empty when importing by identity.
    pub id: String,
    pub client: ClientCapabilities,
    /// Set when importing by identity (`import { identity = {...} }`).
    pub identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: Value,
    pub private: Vec<u8>,
    pub identity: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportResourceStateResponse {
    pub imported: Vec<ImportedResource>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct UpgradeResourceStateRequest {
    pub type_name: String,
    pub version: i64,
    /// The stored state, decoded without a schema (null when there is none).
    pub raw_state: Value,
}

#[derive(Clone, Debug, Default)]
pub struct UpgradeResourceStateResponse {
    pub upgraded_state: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ReadDataSourceRequest {
    pub type_name: String,
    pub config: Value,
    pub provider_meta: Option<Value>,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ReadDataSourceResponse {
    pub state: Option<Value>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionError {
    pub text: String,
    /// Which argument was at fault, counting from 0.
    pub argument: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct CallFunctionResponse {
    pub result: Option<Value>,
    pub error: Option<FunctionError>,
}

/// One attribute of a resource identity schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentityAttribute {
    pub name: String,
    pub ty: Type,
    pub required_for_import: bool,
    pub optional_for_import: bool,
    pub description: String,
}

/// The identity schema of one managed resource type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdentitySchema {
    pub version: i64,
    pub attributes: Vec<IdentityAttribute>,
}

impl IdentitySchema {
    /// The object type identity values have.
    pub fn implied_type(&self) -> Type {
        Type::object(self.attributes.iter().map(|a| (a.name.clone(), a.ty.clone())))
    }
}

#[derive(Clone, Debug, Default)]
pub struct UpgradeResourceIdentityRequest {
    pub type_name: String,
    pub version: i64,
    /// The stored identity, decoded without a schema.
    pub raw_identity: Value,
}

#[derive(Clone, Debug, Default)]
pub struct UpgradeResourceIdentityResponse {
    pub upgraded_identity: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct MoveResourceStateRequest {
    pub source_provider_address: String,
    pub source_type_name: String,
    pub source_schema_version: i64,
    /// Decoded without a schema.
    pub source_state: Value,
    pub target_type_name: String,
    pub source_private: Vec<u8>,
    /// Decoded without a schema; `None` when the source had no identity.
    pub source_identity: Option<Value>,
    pub source_identity_schema_version: i64,
}

#[derive(Clone, Debug, Default)]
pub struct MoveResourceStateResponse {
    pub target_state: Option<Value>,
    pub target_private: Vec<u8>,
    pub target_identity: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct GenerateResourceConfigResponse {
    pub config: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A point in time as Unix time (protobuf's `google.protobuf.Timestamp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamp {
    pub seconds: i64,
    pub nanos: u32,
}

#[derive(Clone, Debug, Default)]
pub struct OpenEphemeralResourceRequest {
    pub type_name: String,
    pub config: Value,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct OpenEphemeralResourceResponse {
    pub result: Option<Value>,
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<Timestamp>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct RenewEphemeralResourceResponse {
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<Timestamp>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ListResourceRequest {
    pub type_name: String,
    pub config: Value,
    pub include_resource_object: bool,
    /// Terraform reads at most this many items.
    pub limit: i64,
}

/// One event of a ListResource stream: an item, or (with only diagnostics) a problem with
/// the listing as a whole.
#[derive(Clone, Debug, Default)]
pub struct ListEvent {
    pub identity: Option<Value>,
    pub display_name: String,
    pub resource_object: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ActionRequest {
    pub type_name: String,
    pub config: Value,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct PlanActionResponse {
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One event of an InvokeAction stream: progress while it runs, then exactly one `Completed`.
#[derive(Clone, Debug)]
pub enum ActionEvent {
    Progress(String),
    Completed(Vec<Diagnostic>),
}

/// A response that can carry nothing but diagnostics: what an RPC answers when a step fails
/// before the guest produced anything (see `dispatch::answer`).
pub trait Failed: Default {
    fn failed(diagnostics: Vec<Diagnostic>) -> Self;
    /// The response's diagnostics, to add what the host saw during the call.
    fn diagnostics_mut(&mut self) -> &mut Vec<Diagnostic>;
}

macro_rules! failed_with_diagnostics {
    ($($response:ty),* $(,)?) => {$(
        impl Failed for $response {
            fn failed(diagnostics: Vec<Diagnostic>) -> Self {
                Self { diagnostics, ..Default::default() }
            }
            fn diagnostics_mut(&mut self) -> &mut Vec<Diagnostic> {
                &mut self.diagnostics
            }
        }
    )*};
}

failed_with_diagnostics!(
    ReadResourceResponse,
    PlanResourceChangeResponse,
    ApplyResourceChangeResponse,
    ImportResourceStateResponse,
    UpgradeResourceStateResponse,
    ReadDataSourceResponse,
    UpgradeResourceIdentityResponse,
    MoveResourceStateResponse,
    GenerateResourceConfigResponse,
    OpenEphemeralResourceResponse,
    RenewEphemeralResourceResponse,
    PlanActionResponse,
);

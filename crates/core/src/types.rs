//! Protocol-neutral requests and responses: what the tfplugin6 (and later tfplugin5) server
//! hands to dispatch and gets back. Values are still wire-encoded here; dispatch decodes them
//! with the schema they belong to.

use terrarium_model::{AttributePath, Diagnostic, Type};
pub use terrarium_model::{ClientCapabilities, DeferredReason};

/// A value as Terraform sends it: msgpack, or JSON, or neither (null).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DynamicValue {
    pub msgpack: Vec<u8>,
    pub json: Vec<u8>,
}

impl DynamicValue {
    pub fn msgpack(bytes: Vec<u8>) -> Self {
        DynamicValue { msgpack: bytes, json: Vec::new() }
    }
}

/// Stored state as Terraform hands it to UpgradeResourceState.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawState {
    pub json: Vec<u8>,
    /// The legacy SDK's flat map format; only very old states have it.
    pub flatmap: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default)]
pub struct ConfigureRequest {
    pub terraform_version: String,
    pub config: DynamicValue,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ReadResourceRequest {
    pub type_name: String,
    pub current_state: DynamicValue,
    pub private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
    pub client: ClientCapabilities,
    /// The identity stored with the state (`ResourceIdentityData.identity_data`), if any.
    pub current_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct ReadResourceResponse {
    pub new_state: Option<DynamicValue>,
    pub private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct PlanResourceChangeRequest {
    pub type_name: String,
    pub prior_state: DynamicValue,
    pub proposed_new_state: DynamicValue,
    pub config: DynamicValue,
    pub prior_private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
    pub client: ClientCapabilities,
    pub prior_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct PlanResourceChangeResponse {
    pub planned_state: Option<DynamicValue>,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub planned_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyResourceChangeRequest {
    pub type_name: String,
    pub prior_state: DynamicValue,
    pub planned_state: DynamicValue,
    pub config: DynamicValue,
    pub planned_private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
    pub planned_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyResourceChangeResponse {
    pub new_state: Option<DynamicValue>,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportResourceStateRequest {
    pub type_name: String,
    /// Empty when importing by identity.
    pub id: String,
    pub client: ClientCapabilities,
    /// Set when importing by identity (`import { identity = {...} }`).
    pub identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: DynamicValue,
    pub private: Vec<u8>,
    pub identity: Option<DynamicValue>,
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
    pub raw_state: RawState,
}

#[derive(Clone, Debug, Default)]
pub struct UpgradeResourceStateResponse {
    pub upgraded_state: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ReadDataSourceRequest {
    pub type_name: String,
    pub config: DynamicValue,
    pub provider_meta: Option<DynamicValue>,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ReadDataSourceResponse {
    pub state: Option<DynamicValue>,
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
    pub result: Option<DynamicValue>,
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
    /// The stored identity; only its JSON form is used.
    pub raw_identity: RawState,
}

#[derive(Clone, Debug, Default)]
pub struct UpgradeResourceIdentityResponse {
    pub upgraded_identity: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct MoveResourceStateRequest {
    pub source_provider_address: String,
    pub source_type_name: String,
    pub source_schema_version: i64,
    /// Only its JSON form is used.
    pub source_state: RawState,
    pub target_type_name: String,
    pub source_private: Vec<u8>,
    /// Only its JSON form is used; `None` when the source had no identity.
    pub source_identity: Option<RawState>,
    pub source_identity_schema_version: i64,
}

#[derive(Clone, Debug, Default)]
pub struct MoveResourceStateResponse {
    pub target_state: Option<DynamicValue>,
    pub target_private: Vec<u8>,
    pub target_identity: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct GenerateResourceConfigResponse {
    pub config: Option<DynamicValue>,
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
    pub config: DynamicValue,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct OpenEphemeralResourceResponse {
    pub result: Option<DynamicValue>,
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
    pub config: DynamicValue,
    pub include_resource_object: bool,
    /// Terraform reads at most this many items.
    pub limit: i64,
}

/// One event of a ListResource stream: an item, or (with only diagnostics) a problem with
/// the listing as a whole.
#[derive(Clone, Debug, Default)]
pub struct ListEvent {
    pub identity: Option<DynamicValue>,
    pub display_name: String,
    pub resource_object: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ActionRequest {
    pub type_name: String,
    pub config: DynamicValue,
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

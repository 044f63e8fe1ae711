//! Protocol-neutral requests and responses: what the tfplugin6 (and later tfplugin5) server
//! hands to dispatch and gets back. Values are still wire-encoded here; dispatch decodes them
//! with the schema they belong to.

use terrarium_model::{AttributePath, Diagnostic};

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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    pub deferral_allowed: bool,
    pub write_only_attributes_allowed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredReason {
    Unknown,
    ResourceConfigUnknown,
    ProviderConfigUnknown,
    AbsentPrerequisite,
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
}

#[derive(Clone, Debug, Default)]
pub struct ReadResourceResponse {
    pub new_state: Option<DynamicValue>,
    pub private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
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
}

#[derive(Clone, Debug, Default)]
pub struct PlanResourceChangeResponse {
    pub planned_state: Option<DynamicValue>,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyResourceChangeRequest {
    pub type_name: String,
    pub prior_state: DynamicValue,
    pub planned_state: DynamicValue,
    pub config: DynamicValue,
    pub planned_private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyResourceChangeResponse {
    pub new_state: Option<DynamicValue>,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportResourceStateRequest {
    pub type_name: String,
    pub id: String,
    pub client: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: DynamicValue,
    pub private: Vec<u8>,
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

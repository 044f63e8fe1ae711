//! What the provider protocol's requests and responses share between host and guests: the
//! client's capabilities and the reasons for a deferral. The requests and responses themselves
//! differ on each side (the host's carry wire bytes, the SDK's carry values), so they are not
//! here.

/// What Terraform says it can handle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// Terraform accepts a deferred response (the provider cannot act yet).
    pub deferral_allowed: bool,
    /// Terraform supports write-only attributes.
    pub write_only_attributes_allowed: bool,
}

/// Why a call's answer is deferred: Terraform leaves the resource (or data source) for a
/// later round (`Deferred.Reason`). Only honoured when the client said deferrals are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredReason {
    Unknown,
    /// The configuration has unknown values the provider needs.
    ResourceConfigUnknown,
    /// The provider configuration has unknown values the provider needs.
    ProviderConfigUnknown,
    /// Something the resource needs does not exist yet.
    AbsentPrerequisite,
}

impl DeferredReason {
    /// In words, for diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            DeferredReason::Unknown => "reason not given",
            DeferredReason::ResourceConfigUnknown => {
                "the resource configuration has unknown values"
            }
            DeferredReason::ProviderConfigUnknown => {
                "the provider configuration has unknown values"
            }
            DeferredReason::AbsentPrerequisite => "something it needs does not exist yet",
        }
    }
}

//! gRPC services Terraform talks to. Thin adapters: protobuf in, neutral types to
//! [`crate::dispatch`], protobuf out. Nothing here decides anything about values.

mod convert;
mod provider6;

use std::sync::Arc;

use terrarium_model::Diagnostic;

use crate::dispatch::Provider;
use crate::plugin::MAX_MESSAGE_SIZE;
use crate::proto::tfplugin6::provider_server::ProviderServer;

/// The tfplugin6 service for one provider component, or for a component that failed to
/// load: then every RPC answers with the load error, so Terraform shows it as a diagnostic
/// instead of a bare "plugin exited" message.
#[derive(Clone)]
pub struct ProviderService {
    provider: Result<Arc<Provider>, Arc<str>>,
}

impl ProviderService {
    pub fn new(provider: Arc<Provider>) -> Self {
        ProviderService { provider: Ok(provider) }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        ProviderService { provider: Err(Arc::from(message.into())) }
    }

    fn provider(&self) -> Result<&Provider, Vec<Diagnostic>> {
        match &self.provider {
            Ok(p) => Ok(p),
            Err(message) => Err(provider6::load_failure(message)),
        }
    }

    /// The tonic service with protocol 6 message limits.
    pub fn into_server(self) -> ProviderServer<ProviderService> {
        ProviderServer::new(self).max_decoding_message_size(MAX_MESSAGE_SIZE).max_encoding_message_size(MAX_MESSAGE_SIZE)
    }
}

/// The diagnostic for an RPC this provider (or Terrarium, for now) does not implement.
fn not_supported(what: &str) -> Vec<crate::proto::tfplugin6::Diagnostic> {
    convert::diagnostics_to_pb(vec![Diagnostic::error(
        "Not supported by this provider",
        format!("This provider, served by Terrarium, does not support {what}."),
    )])
}

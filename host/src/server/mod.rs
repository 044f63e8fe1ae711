//! gRPC services Terraform talks to. Thin adapters: protobuf in, neutral types to
//! [`crate::dispatch`], protobuf out. Nothing here decides anything about values.
//!
//! [`ProviderService`] speaks tfplugin6; [`Protocol5`] puts any tfplugin6 service behind
//! tfplugin5, for a Terraform that offers only protocol 5.

mod convert;
mod provider5;
mod provider6;

pub use provider5::Protocol5;

use std::sync::Arc;

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use terrarium_model::Diagnostic;

use crate::dispatch::Dispatcher;
use crate::plugin::MAX_MESSAGE_SIZE;
use crate::proto::tfplugin6::provider_server::ProviderServer;

/// The tfplugin6 service for one provider component, or for a component that failed to
/// load: then every RPC answers with the load error, so Terraform shows it as a diagnostic
/// instead of a bare "plugin exited" message.
///
/// The provider may still be loading when the service starts (see [`ProviderService::loading`]):
/// every RPC then waits for it.
#[derive(Clone)]
pub struct ProviderService {
    provider: Shared<BoxFuture<'static, Result<Arc<Dispatcher>, Arc<str>>>>,
}

impl ProviderService {
    pub fn new(provider: Arc<Dispatcher>) -> Self {
        Self::loading(async move { Ok(provider) })
    }

    pub fn failed(message: impl Into<String>) -> Self {
        let message: Arc<str> = Arc::from(message.into());
        Self::loading(async move { Err(message) })
    }

    /// A service whose provider is still being loaded by `provider` (an error is the message
    /// every RPC answers with). The future should already be running, e.g. a spawned task.
    pub fn loading(
        provider: impl Future<Output = Result<Arc<Dispatcher>, Arc<str>>> + Send + 'static,
    ) -> Self {
        ProviderService { provider: provider.boxed().shared() }
    }

    async fn provider(&self) -> Result<Arc<Dispatcher>, Vec<Diagnostic>> {
        match self.provider.clone().await {
            Ok(p) => Ok(p),
            Err(message) => Err(provider6::load_failure(&message)),
        }
    }

    /// The tonic service with protocol 6 message limits.
    pub fn into_server(self) -> ProviderServer<ProviderService> {
        ProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }
}

/// The diagnostic for an RPC this provider (or Terrarium, for now) does not implement.
fn not_supported(what: &str) -> Vec<crate::proto::tfplugin6::Diagnostic> {
    convert::diagnostics_to_pb(vec![Diagnostic::error(
        "Not supported by this provider",
        format!("This provider, served by Terrarium, does not support {what}."),
    )])
}

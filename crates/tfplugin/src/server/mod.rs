//! gRPC services Terraform talks to. Thin adapters: protobuf in, neutral types to
//! [`terrarium_core`], protobuf out. Nothing here decides anything about values.
//!
//! [`ProviderService`] speaks tfplugin6; [`Protocol5`] puts any tfplugin6 service behind
//! tfplugin5, for a Terraform that offers only protocol 5. (Pulumi's `pulumirpc.ResourceProvider`
//! is the `terrarium-pulumi` crate's.)

mod convert;
mod edge;
mod provider5;
mod provider6;

pub use provider5::Protocol5;

use std::sync::Arc;

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use terrarium_model::Diagnostic;

use crate::plugin::MAX_MESSAGE_SIZE;
use terrarium_core::Dispatcher;
use terrarium_proto::tfplugin6::provider_server::ProviderServer;

/// The tfplugin6 service for one provider component, or for a component that failed to
/// load: then every RPC answers with the load error, so Terraform shows it as a diagnostic
/// instead of a bare "plugin exited" message.
///
/// The provider may still be loading when the service starts (see [`ProviderService::loading`]):
/// every RPC then waits for it.
#[derive(Clone)]
pub struct ProviderService {
    provider: Shared<BoxFuture<'static, Result<Arc<Dispatcher>, LoadFailure>>>,
}

/// Why a provider cannot serve.
#[derive(Clone)]
pub struct LoadFailure {
    /// What went wrong and what to do, answered to every RPC.
    pub message: Arc<str>,
    /// The component loaded without any grant, when only what surrounds it failed (its
    /// grants file): it answers the schema RPCs, so that Terraform reports `message` as an
    /// ordinary diagnostic on the provider instead of folding it into its own
    /// schema-loading error. It never serves anything else.
    pub schema_only: Option<Arc<Dispatcher>>,
}

impl LoadFailure {
    pub fn new(message: impl Into<String>) -> Self {
        LoadFailure { message: Arc::from(message.into()), schema_only: None }
    }
}

impl ProviderService {
    pub fn new(provider: Arc<Dispatcher>) -> Self {
        Self::loading(async move { Ok(provider) })
    }

    pub fn failed(message: impl Into<String>) -> Self {
        let failure = LoadFailure::new(message);
        Self::loading(async move { Err(failure) })
    }

    /// A service whose provider is still being loaded by `provider`. The future should
    /// already be running, e.g. a spawned task.
    pub fn loading(
        provider: impl Future<Output = Result<Arc<Dispatcher>, LoadFailure>> + Send + 'static,
    ) -> Self {
        ProviderService { provider: provider.boxed().shared() }
    }

    async fn provider(&self) -> Result<Arc<Dispatcher>, Vec<Diagnostic>> {
        match self.provider.clone().await {
            Ok(p) => Ok(p),
            Err(failure) => Err(provider6::load_failure(&failure.message)),
        }
    }

    /// The provider for the schema RPCs (GetMetadata, GetProviderSchema,
    /// GetResourceIdentitySchemas): also a [`LoadFailure::schema_only`] one.
    async fn schema_provider(&self) -> Result<Arc<Dispatcher>, Vec<Diagnostic>> {
        match self.provider.clone().await {
            Ok(p) => Ok(p),
            Err(LoadFailure { schema_only: Some(p), .. }) => Ok(p),
            Err(failure) => Err(provider6::load_failure(&failure.message)),
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
fn not_supported(what: &str) -> Vec<terrarium_proto::tfplugin6::Diagnostic> {
    convert::diagnostics_to_pb(vec![Diagnostic::error(
        "Not supported by this provider",
        format!("This provider, served by Terrarium, does not support {what}."),
    )])
}

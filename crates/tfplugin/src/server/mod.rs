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
use std::sync::atomic::{AtomicBool, Ordering};

use terrarium_model::Diagnostic;

use crate::plugin::MAX_MESSAGE_SIZE;
pub use terrarium_core::LoadFailure;
use terrarium_core::{Dispatcher, Generation, Serving};
use terrarium_proto::tfplugin6::provider_server::ProviderServer;

/// The tfplugin6 service for the component a [`Serving`] serves. Each call asks it which
/// generation serves when the call starts and keeps that one to its end; while the component
/// loads, calls wait for it; when it failed to load, every call answers with the load error, so
/// Terraform shows it as a diagnostic instead of a bare "plugin exited" message.
#[derive(Clone)]
pub struct ProviderService {
    serving: Arc<Serving>,
    /// Set once a request of this provider process said the client takes computed nested
    /// blocks (`ClientCapabilities.computed_blocks_allowed`, protocol 6.11). Until then
    /// GetProviderSchema shows each computed block as a computed attribute of the block's
    /// type, which every Terraform understands (docs/planning.md, "Computed blocks").
    computed_blocks_allowed: Arc<AtomicBool>,
}

impl ProviderService {
    /// Serves whatever `serving` serves, including the builds `terrarium dev` swaps in.
    pub fn serving(serving: Arc<Serving>) -> Self {
        ProviderService { serving, computed_blocks_allowed: Arc::new(AtomicBool::new(false)) }
    }

    /// The client capabilities of a request, remembering whether the client takes computed
    /// blocks.
    fn client(
        &self,
        c: Option<terrarium_proto::tfplugin6::ClientCapabilities>,
    ) -> terrarium_core::types::ClientCapabilities {
        if c.as_ref().is_some_and(|c| c.computed_blocks_allowed) {
            self.computed_blocks_allowed.store(true, Ordering::Relaxed);
        }
        convert::client_capabilities(c)
    }

    /// Whether a request of this process said the client takes computed blocks.
    fn computed_blocks_allowed(&self) -> bool {
        self.computed_blocks_allowed.load(Ordering::Relaxed)
    }

    pub fn new(provider: Arc<Dispatcher>) -> Self {
        Self::serving(Arc::new(Serving::ready(provider)))
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Self::serving(Arc::new(Serving::failed(LoadFailure::new(message))))
    }

    /// A service whose provider is still being loaded by `provider`. The future should
    /// already be running, e.g. a spawned task.
    pub fn loading(
        provider: impl Future<Output = Result<Arc<Dispatcher>, LoadFailure>> + Send + 'static,
    ) -> Self {
        Self::serving(Arc::new(Serving::loading(provider)))
    }

    async fn provider(&self) -> Result<Arc<Generation>, Vec<Diagnostic>> {
        self.serving.now().await.map_err(|failure| provider6::load_failure(&failure.message))
    }

    /// The provider for the schema RPCs (GetMetadata, GetProviderSchema,
    /// GetResourceIdentitySchemas): also a [`LoadFailure::schema_only`] one.
    async fn schema_provider(&self) -> Result<Arc<Generation>, Vec<Diagnostic>> {
        self.serving.for_schema().await.map_err(|failure| provider6::load_failure(&failure.message))
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

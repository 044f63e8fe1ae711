//! Data source RPCs: validate and read.

use terrarium_model::{Diagnostic, Type, Value};
use wasmtime::Store;

use super::types::*;
use super::{
    Dispatcher, Knownness, Subject, answer, client_capabilities, deferred_from_wit, known_type,
};
use terrarium_runtime::{self as runtime, HostState, guest};

const KIND: &str = "data source";

impl Dispatcher {
    /// The value type of data source type `name`, or the diagnostic that lists the provider's
    /// types.
    pub fn data_source_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        known_type(KIND, name, self.schemas.data_source(name), self.schemas.data_source_names())
    }

    pub async fn validate_data_source_config(
        &self,
        type_name: &str,
        config: &Value,
    ) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateDataResourceConfig", kind: KIND, name: type_name };
        self.validate_config(
            subject,
            self.data_source_type(type_name),
            self.schema().data_sources.get(type_name).map(|s| &s.block),
            config,
            async |g, s, config| g.call_validate_data_source_config(s, type_name, config).await,
        )
        .await
    }

    pub async fn read_data_source(
        &self,
        request: &ReadDataSourceRequest,
    ) -> ReadDataSourceResponse {
        let subject = Subject { rpc: "ReadDataSource", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ReadDataSourceResponse, Vec<Diagnostic>> {
            let ty = self.data_source_type(&request.type_name)?;
            let wit_request = guest::ReadDataSourceRequest {
                type_name: request.type_name.clone(),
                config: runtime::value_to_wit(&request.config),
                provider_meta: self.provider_meta(request.provider_meta.as_ref()),
                client: client_capabilities(request.client),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_read_data_source(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let state = self.checked_state(
                subject,
                "state",
                r.state,
                &request.config,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(ReadDataSourceResponse {
                state,
                deferred: deferred_from_wit(r.deferred),
                diagnostics,
            })
        };
        answer(run()).await
    }
}

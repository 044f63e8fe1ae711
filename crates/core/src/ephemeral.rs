//! Ephemeral resource RPCs (protocol 6.7): validate, open, renew, close. Their values are
//! never stored by Terraform; `private` and `renew_at` only travel between these calls.

use terrarium_model::{Diagnostic, Type, Value};
use wasmtime::Store;

use super::types::*;
use super::{
    Dispatcher, Knownness, Subject, answer, client_capabilities, deferred_from_wit, known_type,
};
use terrarium_runtime::{self as runtime, HostState, guest, wit};

const KIND: &str = "ephemeral resource";

fn timestamp_from_wit(t: wit::Timestamp) -> Timestamp {
    Timestamp { seconds: t.seconds, nanos: t.nanoseconds }
}

impl Dispatcher {
    /// The value type of ephemeral resource type `name`, or the diagnostic that lists the
    /// provider's types.
    pub fn ephemeral_resource_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        known_type(
            KIND,
            name,
            self.schemas.ephemeral_resource(name),
            self.schemas.ephemeral_resource_names(),
        )
    }

    pub async fn validate_ephemeral_resource_config(
        &self,
        type_name: &str,
        config: &Value,
    ) -> Vec<Diagnostic> {
        let subject =
            Subject { rpc: "ValidateEphemeralResourceConfig", kind: KIND, name: type_name };
        self.validate_config(
            subject,
            self.ephemeral_resource_type(type_name),
            self.schema().ephemeral_resources.get(type_name).map(|s| &s.block),
            config,
            async |g, s, config| {
                g.call_validate_ephemeral_resource_config(s, type_name, config).await
            },
        )
        .await
    }

    pub async fn open_ephemeral_resource(
        &self,
        request: &OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let subject =
            Subject { rpc: "OpenEphemeralResource", kind: KIND, name: &request.type_name };
        let run = async || -> Result<OpenEphemeralResourceResponse, Vec<Diagnostic>> {
            let ty = self.ephemeral_resource_type(&request.type_name)?;
            let wit_request = guest::OpenEphemeralResourceRequest {
                type_name: request.type_name.clone(),
                config: self.configuration_with_defaults(subject, &request.config).await?,
                client: client_capabilities(request.client),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_open_ephemeral_resource(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            // A deferred open may leave parts of the result unknown; otherwise it is wholly known.
            let known =
                if r.deferred.is_some() { Knownness::MayBeUnknown } else { Knownness::WhollyKnown };
            let result =
                self.checked_result(subject, "result", r.result, ty, known, &mut diagnostics);
            Ok(OpenEphemeralResourceResponse {
                result,
                private: r.private,
                renew_at: r.renew_at.map(timestamp_from_wit),
                deferred: deferred_from_wit(r.deferred),
                diagnostics,
            })
        };
        answer(run()).await
    }

    pub async fn renew_ephemeral_resource(
        &self,
        type_name: &str,
        private: Option<Vec<u8>>,
    ) -> RenewEphemeralResourceResponse {
        let subject = Subject { rpc: "RenewEphemeralResource", kind: KIND, name: type_name };
        let run = async || -> Result<RenewEphemeralResourceResponse, Vec<Diagnostic>> {
            self.ephemeral_resource_type(type_name)?;
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_renew_ephemeral_resource(s, type_name, private.as_deref()).await
                })
                .await?;
            Ok(RenewEphemeralResourceResponse {
                private: r.private,
                renew_at: r.renew_at.map(timestamp_from_wit),
                diagnostics: runtime::diagnostics_from_wit(r.diagnostics),
            })
        };
        answer(run()).await
    }

    pub async fn close_ephemeral_resource(
        &self,
        type_name: &str,
        private: Option<Vec<u8>>,
    ) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "CloseEphemeralResource", kind: KIND, name: type_name };
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            self.ephemeral_resource_type(type_name)?;
            let diags = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_close_ephemeral_resource(s, type_name, private.as_deref()).await
                })
                .await?;
            Ok(runtime::diagnostics_from_wit(diags))
        };
        run().await.unwrap_or_else(|d| d)
    }
}

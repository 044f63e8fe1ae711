//! Provider-level RPCs: provider config validation, configuration, functions, stop.

use std::sync::Arc;

use terrarium_model::{Diagnostic, Type};
use wasmtime::Store;

use super::types::{CallFunctionResponse, ConfigureRequest, DynamicValue, FunctionError};
use super::{Dispatcher, Knownness, Subject, client_capabilities, encode_checked};
use terrarium_runtime::guest_text::{self, Lines};
use terrarium_runtime::{self as runtime, HostState, guest};

impl Dispatcher {
    pub async fn validate_provider_config(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateProviderConfig", kind: "provider", name: "" };
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            let config = self.decode(subject, "configuration", config, self.schemas.provider())?;
            let mut diagnostics = match self.declared(subject) {
                Some(schema) => self.run_declared_validators(subject, schema, &config).await?,
                None => Vec::new(),
            };
            let config = runtime::value_to_wit(&config);
            let diags = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_validate_provider_config(s, &config).await
                })
                .await?;
            diagnostics.extend(runtime::diagnostics_from_wit(diags));
            Ok(diagnostics)
        };
        run().await.unwrap_or_else(|d| d)
    }

    /// Configures the provider and records the request, so that every instance created later
    /// is configured the same way before it serves a call.
    pub async fn configure(&self, request: &ConfigureRequest) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ConfigureProvider", kind: "provider", name: "" };
        self.configure_as(subject, request).await
    }

    /// The last ConfigureProvider request this provider accepted, as Terraform sent it, and
    /// its generation (which grows with every accepted request; 0 while there is none).
    pub fn recorded_configuration(&self) -> (Option<Arc<ConfigureRequest>>, u64) {
        let c = self.pool.configuration.lock().unwrap_or_else(|p| p.into_inner());
        (c.sent.clone(), c.generation)
    }

    /// Takes over a configuration recorded by another provider (the component this one
    /// replaces on a hot reload), as if Terraform had sent it to this one: decoded with this
    /// provider's schema, configured into one instance now (so the first call after a reload
    /// does not pay for it), and recorded for replay into every other instance. Returns the
    /// guest's diagnostics; with errors among them nothing is recorded.
    pub async fn adopt_configuration(&self, request: &ConfigureRequest) -> Vec<Diagnostic> {
        let subject = Subject {
            rpc: "ConfigureProvider (carried over on reload)",
            kind: "provider",
            name: "",
        };
        self.configure_as(subject, request).await
    }

    /// Decodes `request`'s configuration, configures one instance with it and records it for
    /// replay; `subject` names the call in diagnostics.
    async fn configure_as(
        &self,
        subject: Subject<'_>,
        request: &ConfigureRequest,
    ) -> Vec<Diagnostic> {
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            let config =
                self.decode(subject, "configuration", &request.config, self.schemas.provider())?;
            self.configure_instance(
                subject,
                wit_configure(request, &config),
                Arc::new(request.clone()),
            )
            .await
        };
        run().await.unwrap_or_else(|d| d)
    }

    pub async fn call_function(
        &self,
        name: &str,
        arguments: &[DynamicValue],
    ) -> CallFunctionResponse {
        let subject = Subject { rpc: "CallFunction", kind: "function", name };
        let fail = |text: String, argument: Option<i64>| CallFunctionResponse {
            result: None,
            error: Some(FunctionError { text, argument }),
        };
        let Some(function) = self.schemas.function(name) else {
            let known: Vec<&str> = self.schema().functions.keys().map(String::as_str).collect();
            return fail(
                format!(
                    "This provider has no function {name:?}. Its functions are: {}.",
                    known.join(", ")
                ),
                None,
            );
        };
        let fixed = function.parameters.len();
        if arguments.len() < fixed || (function.variadic.is_none() && arguments.len() > fixed) {
            return fail(
                format!("{name} takes {fixed} arguments, but {} were given", arguments.len()),
                None,
            );
        }
        let mut args = Vec::with_capacity(arguments.len());
        for (i, arg) in arguments.iter().enumerate() {
            let param = function.parameters.get(i).or(function.variadic.as_ref());
            let ty = param.map(|p| p.ty.clone()).unwrap_or(Type::Dynamic);
            match terrarium_codec::decode_dynamic_value(&arg.msgpack, &arg.json, &ty) {
                Ok(v) => args.push(runtime::value_to_wit(&v)),
                Err(e) => {
                    return fail(
                        format!("argument {} could not be decoded: {e}", i + 1),
                        Some(i as i64),
                    );
                }
            }
        }
        let result = self
            .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                g.call_call_function(s, name, &args).await
            })
            .await;
        match result {
            Ok(Ok(value)) => match encode_checked(
                subject,
                "result",
                value,
                &function.return_type,
                Knownness::MayBeUnknown,
            ) {
                Ok(dv) => CallFunctionResponse { result: Some(dv), error: None },
                Err(diags) => fail(
                    diags.iter().map(|d| d.detail.clone()).collect::<Vec<_>>().join("\n"),
                    None,
                ),
            },
            Ok(Err(e)) => fail(
                guest_text::for_people(&e.text, Lines::Multi, guest_text::MAX_FUNCTION_ERROR_BYTES),
                e.argument.map(i64::from),
            ),
            Err(diags) => fail(
                diags
                    .iter()
                    .map(|d| format!("{}: {}", d.summary, d.detail))
                    .collect::<Vec<_>>()
                    .join("\n"),
                None,
            ),
        }
    }

    /// StopProvider: calls in progress are told (`lifecycle.stopping`) and get the grace
    /// period to return the state they reached before they are interrupted; idle instances'
    /// `stop` runs with a short deadline. Returns an error text if the guest could not stop.
    ///
    /// Running calls are not waited for (Terraform's StopProvider must not block): it sends
    /// no new work after it and waits for the answers of the calls it made.
    pub async fn stop(&self) -> Option<String> {
        self.runtime.stop_running_calls();
        self.stop_idle().await
    }
}

fn wit_configure(
    request: &ConfigureRequest,
    config: &terrarium_model::Value,
) -> guest::ConfigureRequest {
    guest::ConfigureRequest {
        terraform_version: request.terraform_version.clone(),
        config: runtime::value_to_wit(config),
        client: client_capabilities(request.client),
    }
}

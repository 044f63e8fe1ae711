//! Provider-level RPCs: provider config validation, configuration, functions, stop.

use std::sync::Arc;

use terrarium_model::Diagnostic;
use wasmtime::Store;

use super::types::{CallFunctionResponse, ConfigureRequest, FunctionError};
use super::{Dispatcher, Knownness, Subject, checked_from_guest, client_capabilities};
use terrarium_model::Value;
use terrarium_model::schema::Function;
use terrarium_runtime::guest_text::{self, Lines};
use terrarium_runtime::{self as runtime, HostState, guest};

impl Dispatcher {
    pub async fn validate_provider_config(&self, config: &Value) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateProviderConfig", kind: "provider", name: "" };
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            let mut diagnostics = match self.behaviour_schema(subject) {
                Some(schema) => self.run_behaviour_validators(subject, schema, config).await?,
                None => Vec::new(),
            };
            let config = runtime::value_to_wit(config);
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

    /// The last ConfigureProvider request this provider accepted, and
    /// its generation (which grows with every accepted request; 0 while there is none).
    pub fn recorded_configuration(&self) -> (Option<Arc<ConfigureRequest>>, u64) {
        let c = self.pool.configuration.lock().unwrap_or_else(|p| p.into_inner());
        (c.sent.clone(), c.generation)
    }

    /// Takes over a configuration recorded by another provider (the component this one
    /// replaces on a hot reload), as if Terraform had sent it to this one: converted to this
    /// provider's schema (as decoding its encoding would), configured into one instance now (so the first call after a reload
    /// does not pay for it), and recorded for replay into every other instance. Returns the
    /// guest's diagnostics; with errors among them nothing is recorded.
    pub async fn adopt_configuration(&self, request: &ConfigureRequest) -> Vec<Diagnostic> {
        let subject = Subject {
            rpc: "ConfigureProvider (carried over on reload)",
            kind: "provider",
            name: "",
        };
        // The other build's schema may differ from this one's.
        let config = match terrarium_codec::canonical(&request.config, self.schemas.provider()) {
            Ok(config) => config,
            Err(e) => {
                return vec![Diagnostic::error(
                    "Invalid value from Terraform",
                    format!("Terrarium could not decode the configuration of {subject}: {e}"),
                )];
            }
        };
        let request = ConfigureRequest { config, ..request.clone() };
        self.configure_as(subject, &request).await
    }

    /// Configures one instance with `request` and records it for replay; `subject` names the
    /// call in diagnostics.
    async fn configure_as(
        &self,
        subject: Subject<'_>,
        request: &ConfigureRequest,
    ) -> Vec<Diagnostic> {
        self.configure_instance(subject, wit_configure(request), Arc::new(request.clone()))
            .await
            .unwrap_or_else(|d| d)
    }

    /// The function `name`, when it takes `arguments` arguments; otherwise the error a call
    /// of it answers (which a front end can give before decoding the arguments).
    pub fn function_for_call(
        &self,
        name: &str,
        arguments: usize,
    ) -> Result<&Function, FunctionError> {
        let fail = |text: String| FunctionError { text, argument: None };
        let Some(function) = self.schemas.function(name) else {
            let known: Vec<&str> = self.schema().functions.keys().map(String::as_str).collect();
            return Err(fail(format!(
                "This provider has no function {name:?}. Its functions are: {}.",
                known.join(", ")
            )));
        };
        let fixed = function.parameters.len();
        if arguments < fixed || (function.variadic.is_none() && arguments > fixed) {
            return Err(fail(format!(
                "{name} takes {fixed} arguments, but {arguments} were given"
            )));
        }
        Ok(function)
    }

    /// Calls function `name` with `arguments`, each of its parameter's type.
    pub async fn call_function(&self, name: &str, arguments: &[Value]) -> CallFunctionResponse {
        let subject = Subject { rpc: "CallFunction", kind: "function", name };
        let fail = |text: String, argument: Option<i64>| CallFunctionResponse {
            result: None,
            error: Some(FunctionError { text, argument }),
        };
        let function = match self.function_for_call(name, arguments.len()) {
            Ok(function) => function,
            Err(error) => return CallFunctionResponse { result: None, error: Some(error) },
        };
        let args: Vec<_> = arguments.iter().map(runtime::value_to_wit).collect();
        let result = self
            .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                g.call_call_function(s, name, &args).await
            })
            .await;
        match result {
            Ok(Ok(value)) => match checked_from_guest(
                subject,
                "result",
                value,
                &function.return_type,
                Knownness::MayBeUnknown,
            ) {
                Ok(value) => CallFunctionResponse { result: Some(value), error: None },
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

fn wit_configure(request: &ConfigureRequest) -> guest::ConfigureRequest {
    guest::ConfigureRequest {
        terraform_version: request.terraform_version.clone(),
        config: runtime::value_to_wit(&request.config),
        client: client_capabilities(request.client),
    }
}

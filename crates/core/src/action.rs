//! Action RPCs (protocol 6.10): validate, plan, invoke. InvokeAction streams the guest's
//! progress reports as they come, then one `Completed` with its diagnostics.

use futures::FutureExt;
use terrarium_model::{Diagnostic, Type, Value};
use tokio::sync::mpsc;
use wasmtime::Store;

use super::types::*;
use super::{Dispatcher, Subject, answer, client_capabilities, deferred_from_wit, known_type};
use terrarium_runtime::guest_text::{self, Lines};
use terrarium_runtime::{self as runtime, HostState, ProgressSink, guest};

const KIND: &str = "action";

impl Dispatcher {
    /// The configuration type of action type `name`, or the diagnostic that lists the
    /// provider's types.
    pub fn action_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        known_type(KIND, name, self.schemas.action(name), self.schemas.action_names())
    }

    pub async fn validate_action_config(&self, type_name: &str, config: &Value) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateActionConfig", kind: KIND, name: type_name };
        let block = self.schema().actions.get(type_name).map(|s| &s.block);
        self.validate_config(
            subject,
            self.action_type(type_name),
            block,
            config,
            async |g, s, config| g.call_validate_action_config(s, type_name, config).await,
        )
        .await
    }

    async fn action_request(
        &self,
        subject: Subject<'_>,
        request: &ActionRequest,
    ) -> Result<guest::ActionRequest, Vec<Diagnostic>> {
        self.action_type(&request.type_name)?;
        Ok(guest::ActionRequest {
            type_name: request.type_name.clone(),
            config: self.configuration_with_defaults(subject, &request.config).await?,
            client: client_capabilities(request.client),
        })
    }

    pub async fn plan_action(&self, request: &ActionRequest) -> PlanActionResponse {
        let subject = Subject { rpc: "PlanAction", kind: KIND, name: &request.type_name };
        let run = async || -> Result<PlanActionResponse, Vec<Diagnostic>> {
            let wit_request = self.action_request(subject, request).await?;
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_plan_action(s, &wit_request).await
                })
                .await?;
            Ok(PlanActionResponse {
                deferred: deferred_from_wit(r.deferred),
                diagnostics: runtime::diagnostics_from_wit(r.diagnostics),
            })
        };
        answer(run()).await
    }

    /// Runs the action, sending each progress report to `events` as the guest makes it (the
    /// guest waits while `events` is full), then exactly one [`ActionEvent::Completed`].
    pub async fn invoke_action(&self, request: &ActionRequest, events: mpsc::Sender<ActionEvent>) {
        let subject = Subject { rpc: "InvokeAction", kind: KIND, name: &request.type_name };
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            let wit_request = self.action_request(subject, request).await?;
            let progress = events.clone();
            let report = Box::new(move |message: String| {
                let progress = progress.clone();
                let message =
                    guest_text::for_people(&message, Lines::Single, guest_text::MAX_PROGRESS_BYTES);
                // A consumer that has gone away misses nothing it could still show.
                async move {
                    let _ = progress.send(ActionEvent::Progress(message)).await;
                }
                .boxed()
            });
            let diags = self
                .call_streaming(
                    subject,
                    events.closed(),
                    async |g: &guest::Guest, s: &mut Store<HostState>| {
                        let sink = s.data_mut().lend_progress_sink(ProgressSink::new(report))?;
                        let rep = sink.rep();
                        let diags = g.call_invoke_action(&mut *s, &wit_request, sink).await?;
                        s.data_mut()
                            .take_progress_sink(wasmtime::component::Resource::new_own(rep))?;
                        Ok(diags)
                    },
                )
                .await?;
            Ok(runtime::diagnostics_from_wit(diags))
        };
        let diagnostics = run().await.unwrap_or_else(|d| d);
        let _ = events.send(ActionEvent::Completed(diagnostics)).await;
    }
}

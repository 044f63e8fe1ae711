//! [`Server`]'s routing of the action calls, by type name.

use terrarium_model::{Diagnostic, Value};

use super::Server;
use crate::action::{ActionRequest, AnyAction, Progress};
use crate::provider::Provider;
use crate::rpc::DeferredReason;

/// The action calls of the protocol, routed by type name.
impl<P: Provider> Server<P> {
    /// `ValidateActionConfig`.
    pub fn validate_action_config(&self, type_name: &str, config: &Value) -> Vec<Diagnostic> {
        with_action(self.provider(), type_name, |a| a.validate_config(config))
            .unwrap_or_else(|d| vec![d])
    }

    /// `PlanAction`: a deferral (when Terraform allows it) and the diagnostics.
    pub fn plan_action(&self, request: ActionRequest) -> (Option<DeferredReason>, Vec<Diagnostic>) {
        let type_name = request.type_name.clone();
        with_action(self.provider(), &type_name, |a| a.plan_action(request))
            .unwrap_or_else(|d| (None, vec![d]))
    }

    /// `InvokeAction`: progress goes to `progress` as it is reported; the result is the
    /// final diagnostics.
    pub fn invoke_action(
        &self,
        request: ActionRequest,
        progress: &dyn Fn(&str),
    ) -> Vec<Diagnostic> {
        let type_name = request.type_name.clone();
        let progress = Progress::new(progress);
        with_action(self.provider(), &type_name, |a| a.invoke_action(request, &progress))
            .unwrap_or_else(|d| vec![d])
    }
}

pub(crate) fn with_action<P: Provider, T>(
    provider: &P,
    type_name: &str,
    f: impl FnOnce(&dyn AnyAction) -> T,
) -> std::result::Result<T, Diagnostic> {
    let all = provider.actions();
    crate::kind::find_type("action", &all, type_name, |a| a.type_name()).map(f)
}

//! Actions: operations a configuration invokes (`action` blocks), outside the resource
//! lifecycle: `terraform apply -invoke=action.<type>.<name>`, or an `action_trigger` in a
//! resource's `lifecycle`. An action has a configuration and no state; while it runs it
//! reports progress, which Terraform shows as it arrives.
//!
//! ```
//! use serde::Deserialize;
//! use terrarium_sdk::action::{Action, Progress};
//! use terrarium_sdk::{Model, Result};
//!
//! /// Greets everyone on the list.
//! #[derive(Deserialize, Model)]
//! struct GreetConfig {
//!     /// Who to greet.
//!     names: Vec<String>,
//! }
//!
//! struct Greet;
//!
//! impl Action for Greet {
//!     const TYPE_NAME: &'static str = "demo_greet";
//!     type Config = GreetConfig;
//!
//!     fn invoke(&self, config: GreetConfig, progress: &Progress) -> Result<()> {
//!         for name in &config.names {
//!             progress.report(format!("Hello, {name}!"));
//!         }
//!         Ok(())
//!     }
//! }
//! ```

use std::cell::RefCell;

use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::{Diagnostic, Value};

use crate::diag::{Diagnostics, Result};
use crate::provider::Provider;
use crate::rpc::{ClientCapabilities, DeferredReason};
use crate::schema::Schema;
use crate::server::Server;
use crate::testing::{Failure, Harness, fit, split};
use crate::typed::Model;
use crate::value::from_value;

/// An action type.
pub trait Action {
    /// The action type name as written in configurations (`action "<provider>_<name>" "x" {}`).
    const TYPE_NAME: &'static str;

    /// The Rust form of the action's configuration; with `#[derive(Model)]` it is the schema
    /// too.
    type Config: DeserializeOwned + Model;

    /// The schema of the configuration; by default the one derived from
    /// [`Config`](Self::Config).
    fn schema(&self) -> Schema {
        <Self::Config as Model>::schema()
    }

    /// Checks a configuration beyond what the schema says; attributes may be unknown here.
    fn validate(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Checks, when Terraform plans the invocation, that the action can run: anything found
    /// wrong now fails the plan instead of the apply. Attributes may be unknown here (they
    /// may depend on resources the same apply creates). [`Diagnostics::deferred`] defers
    /// the invocation (when Terraform allows). By default nothing is checked.
    fn plan(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Runs the action with its configuration (wholly known, defaults filled in), telling
    /// Terraform how it goes through `progress`. An error fails the apply.
    fn invoke(&self, config: Self::Config, progress: &Progress) -> Result<()>;
}

/// Where a running action reports progress. Terraform shows each message as it arrives.
pub struct Progress<'a> {
    sink: &'a dyn Fn(&str),
}

impl<'a> Progress<'a> {
    /// Progress that goes to `sink`: the host in a component, a list in tests.
    pub fn new(sink: &'a dyn Fn(&str)) -> Self {
        Progress { sink }
    }

    /// Sends a progress message. When Terraform reads slowly this waits, so a chatty action
    /// runs in bounded memory.
    pub fn report(&self, message: impl AsRef<str>) {
        (self.sink)(message.as_ref());
    }
}

/// `PlanAction` and `InvokeAction`.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionRequest {
    /// Which action type.
    pub type_name: String,
    /// The configuration; may hold unknowns when planning, never when invoking.
    pub config: Value,
    /// What Terraform can handle.
    pub client: ClientCapabilities,
}

/// An action type as the provider lists it: every [`Action`] is one, so
/// `Box::new(MyAction)` is all a provider writes.
pub trait AnyAction {
    /// The action type name as written in configurations: `"<provider>_<name>"`.
    fn type_name(&self) -> &str;
    /// The schema of its configuration.
    fn action_schema(&self) -> Schema;
    /// `ValidateActionConfig`: each attribute's validators, then the action's own checks.
    fn validate_config(&self, config: &Value) -> Vec<Diagnostic>;
    /// `PlanAction`: a deferral (when Terraform allows it) and the diagnostics.
    fn plan_action(&self, request: ActionRequest) -> (Option<DeferredReason>, Vec<Diagnostic>);
    /// `InvokeAction`: fills in defaults, runs, and returns the final diagnostics.
    fn invoke_action(&self, request: ActionRequest, progress: &Progress) -> Vec<Diagnostic>;
}

impl<A: Action> AnyAction for A {
    fn type_name(&self) -> &str {
        A::TYPE_NAME
    }

    fn action_schema(&self) -> Schema {
        Action::schema(self)
    }

    fn validate_config(&self, config: &Value) -> Vec<Diagnostic> {
        crate::kind::validate_config(&Action::schema(self), config, || {
            Action::validate(self, config)
        })
    }

    fn plan_action(&self, request: ActionRequest) -> (Option<DeferredReason>, Vec<Diagnostic>) {
        match Action::plan(self, &request.config) {
            Ok(()) => (None, Vec::new()),
            Err(d) => {
                d.into_deferral(&request.client, &format!("Action::plan of {}", A::TYPE_NAME))
            }
        }
    }

    fn invoke_action(&self, request: ActionRequest, progress: &Progress) -> Vec<Diagnostic> {
        let schema = Action::schema(self);
        let config = crate::plan::fill_defaults(crate::plan::Shape::of(&schema), request.config);
        from_value(&config)
            .map_err(Diagnostics::from)
            .and_then(|config| Action::invoke(self, config, progress))
            .err()
            .map(Diagnostics::into_vec)
            .unwrap_or_default()
    }
}

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

fn with_action<P: Provider, T>(
    provider: &P,
    type_name: &str,
    f: impl FnOnce(&dyn AnyAction) -> T,
) -> std::result::Result<T, Diagnostic> {
    let all = provider.actions();
    crate::kind::find_type("action", &all, type_name, |a| a.type_name()).map(f)
}

/// What [`Harness::invoke`] produced.
#[derive(Clone, Debug, Default)]
pub struct Invoked {
    /// The progress messages, in the order the action reported them.
    pub progress: Vec<String>,
    /// Warnings (errors make the step fail).
    pub warnings: Vec<Diagnostic>,
}

/// Actions in unit tests.
impl<P: Provider> Harness<P> {
    /// Validates, plans and invokes an action with a JSON configuration, as
    /// `terraform apply -invoke=action.<type>.<name>` does, collecting its progress.
    pub fn invoke(&self, type_name: &str, config: Json) -> std::result::Result<Invoked, Failure> {
        let server = self.server();
        let schema = with_action(server.provider(), type_name, |a| a.action_schema())
            .map_err(|d| Failure { step: "config", diagnostics: vec![d] })?;
        let config = fit(&schema, &config)?;
        let mut warnings = split("validate", server.validate_action_config(type_name, &config))?;
        let request = ActionRequest {
            type_name: type_name.to_string(),
            config,
            client: ClientCapabilities {
                deferral_allowed: false,
                write_only_attributes_allowed: true,
            },
        };
        let (deferred, diagnostics) = server.plan_action(request.clone());
        warnings.extend(split("plan", diagnostics)?);
        if let Some(reason) = deferred {
            let detail = format!("The plan was deferred: {}.", reason.describe());
            return Err(Failure {
                step: "plan",
                diagnostics: vec![Diagnostic::error("Deferred", detail)],
            });
        }
        let progress = RefCell::new(Vec::new());
        let diagnostics = server
            .invoke_action(request, &|message| progress.borrow_mut().push(message.to_string()));
        warnings.extend(split("invoke", diagnostics)?);
        Ok(Invoked { progress: progress.into_inner(), warnings })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Model;

    #[derive(Default)]
    struct Counter;

    impl Provider for Counter {
        fn actions(&self) -> Vec<Box<dyn AnyAction + '_>> {
            vec![Box::new(Count)]
        }
    }

    struct Count;

    #[derive(serde::Deserialize, Model)]
    struct CountConfig {
        #[tf(validate = range(0.0, 100.0))]
        to: i64,
        /// Fails after reporting this many steps.
        fail_after: Option<i64>,
        #[tf(default = "step")]
        word: String,
    }

    impl Action for Count {
        const TYPE_NAME: &'static str = "t_count";
        type Config = CountConfig;

        fn plan(&self, config: &Value) -> Result<()> {
            if config.attr("to").is_some_and(Value::is_unknown) {
                return Err(Diagnostics::deferred(DeferredReason::ResourceConfigUnknown));
            }
            match config.attr("fail_after") {
                Some(Value::Number(n)) if n.to_string() == "0" => {
                    Err(Diagnostics::attribute_error(
                        "fail_after",
                        "Fails at once",
                        "Nothing would run.",
                    ))
                }
                _ => Ok(()),
            }
        }

        fn invoke(&self, config: CountConfig, progress: &Progress) -> Result<()> {
            for i in 1..=config.to {
                if config.fail_after == Some(i - 1) {
                    return Err(Diagnostics::error("Counting failed", format!("at {i}")));
                }
                progress.report(format!("{} {i}/{}", config.word, config.to));
            }
            Ok(())
        }
    }

    #[test]
    fn progress_arrives_in_order_with_defaults_filled() {
        let h = Harness::new(Counter);
        let invoked = h.invoke("t_count", json!({"to": 3})).unwrap();
        assert_eq!(invoked.progress, ["step 1/3", "step 2/3", "step 3/3"]);
        assert!(h.server().get_schema().0.actions.contains_key("t_count"));
    }

    #[test]
    fn validate_plan_and_invoke_errors_fail_their_step() {
        let h = Harness::new(Counter);
        assert_eq!(h.invoke("t_count", json!({"to": 101})).unwrap_err().step, "validate");
        assert_eq!(
            h.invoke("t_count", json!({"to": 3, "fail_after": 0})).unwrap_err().step,
            "plan"
        );
        let failed = h.invoke("t_count", json!({"to": 3, "fail_after": 2})).unwrap_err();
        assert_eq!(failed.step, "invoke");
        assert!(failed.mentions("at 3"), "{failed}");

        // What was reported before the error still reached Terraform.
        let reported = RefCell::new(Vec::new());
        let config = crate::testing::from_json(&json!({"to": 3, "fail_after": 1, "word": "n"}));
        let config = conform_to(&Count.schema(), config);
        let request = ActionRequest {
            type_name: "t_count".into(),
            config,
            client: ClientCapabilities::default(),
        };
        let diagnostics =
            h.server().invoke_action(request, &|m| reported.borrow_mut().push(m.to_string()));
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(*reported.borrow(), ["n 1/3"]);
    }

    fn conform_to(schema: &Schema, value: Value) -> Value {
        crate::value::conform(value, &schema.implied_type()).unwrap()
    }

    #[test]
    fn plan_defers_only_when_terraform_allows() {
        let server = Server::new(Counter);
        let plan = |deferral_allowed| {
            let config = crate::value::conform(
                Value::Object([("to".to_string(), Value::unknown())].into_iter().collect()),
                &Count.schema().implied_type(),
            )
            .unwrap();
            let client =
                ClientCapabilities { deferral_allowed, write_only_attributes_allowed: true };
            server.plan_action(ActionRequest { type_name: "t_count".into(), config, client })
        };
        assert_eq!(plan(true), (Some(DeferredReason::ResourceConfigUnknown), Vec::new()));
        let (deferred, diagnostics) = plan(false);
        assert_eq!(deferred, None);
        assert!(diagnostics[0].detail.contains("Action::plan of t_count"), "{diagnostics:?}");
    }
}

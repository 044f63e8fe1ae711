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

use serde::de::DeserializeOwned;
use terrarium_model::{Diagnostic, Value};

use crate::diag::{Diagnostics, Result};
use crate::rpc::{ClientCapabilities, DeferredReason};
use crate::schema::Schema;
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
        let config = terrarium_framework::plan::fill_defaults(
            terrarium_framework::plan::Shape::of(&schema),
            request.config,
        );
        from_value(&config)
            .map_err(Diagnostics::from)
            .and_then(|config| Action::invoke(self, config, progress))
            .err()
            .map(Diagnostics::into_vec)
            .unwrap_or_default()
    }
}

/// What [`Harness::invoke`](crate::testing::Harness::invoke) produced.
#[derive(Clone, Debug, Default)]
pub struct Invoked {
    /// The progress messages, in the order the action reported them.
    pub progress: Vec<String>,
    /// Warnings (errors make the step fail).
    pub warnings: Vec<Diagnostic>,
}

//! Actions in unit tests: [`Harness::invoke`].

use std::cell::RefCell;

use serde_json::Value as Json;
use terrarium_model::Diagnostic;

use super::{Failure, Harness, fit, split};
use crate::action::{ActionRequest, Invoked};
use crate::provider::Provider;
use crate::rpc::ClientCapabilities;
use crate::server::with_action;

/// Actions in unit tests.
impl<P: Provider> Harness<P> {
    /// Validates, plans and invokes an action with a JSON configuration, as
    /// `terraform apply -invoke=action.<type>.<name>` does, collecting its progress.
    pub fn invoke(&self, type_name: &str, config: Json) -> std::result::Result<Invoked, Failure> {
        let server = self.server();
        let schema = with_action(server.provider(), type_name, |a| a.action_schema())
            .map_err(|d| Failure { step: "config", diagnostics: vec![d], state: None })?;
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
                state: None,
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
    use crate::Value;
    use crate::action::{Action, AnyAction, Progress};
    use crate::diag::{Diagnostics, Result};
    use crate::rpc::DeferredReason;
    use crate::schema::Schema;
    use crate::server::Server;

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

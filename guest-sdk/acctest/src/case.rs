//! Acceptance tests in the style of terraform-plugin-testing: a [`TestCase`] of [`Step`]s,
//! each a configuration that a real terraform applies against the built component (installed
//! the way users install it), then [`Check`]s on the state, then the check
//! terraform-plugin-testing always makes: a second plan is empty. A step may instead expect an
//! error, or import. After the last step everything is destroyed and the state must be empty.
//! Every plan and apply is also checked the way a person sees it (see [`crate::shown`]).
//!
//! ```no_run
//! use serde_json::json;
//! use terrarium_acctest::{Check, Provider, Step, TestCase};
//!
//! # fn main() -> anyhow::Result<()> {
//! TestCase::new(Provider::built("random_provider", "terrarium/random")?)
//!     .step(Step::config(r#"resource "random_integer" "n" { min = 1  max = 9 }"#)
//!         .check(Check::attr("random_integer.n", "min", json!(1)))
//!         .check(Check::attr_set("random_integer.n", "result")))
//!     .step(Step::config(r#"resource "random_integer" "n" { min = 9  max = 1 }"#)
//!         .expect_error("must not be less than"))
//!     .run()
//! # }
//! ```

use anyhow::{Context as _, bail, ensure};
use serde_json::Value;

use crate::json::{plan_actions, pretty, state_values};
use crate::provider::{Provider, Tools};
use crate::workspace::Workspace;

/// A check of a resource's values, as `Check::Custom` holds it.
pub type ValuesCheck = Box<dyn Fn(&Value) -> anyhow::Result<()>>;

/// A check on the state after a step.
pub enum Check {
    /// The attribute (a JSON pointer-like path: `"keepers/a"`, `"option/0/value"`) has
    /// exactly this value.
    Attr(String, String, Value),
    /// The attribute is set (neither missing nor null).
    AttrSet(String, String),
    /// Any check on the resource's values.
    Custom(String, ValuesCheck),
}

impl Check {
    pub fn attr(address: &str, path: &str, expected: Value) -> Check {
        Check::Attr(address.into(), path.into(), expected)
    }

    pub fn attr_set(address: &str, path: &str) -> Check {
        Check::AttrSet(address.into(), path.into())
    }

    pub fn custom(address: &str, check: impl Fn(&Value) -> anyhow::Result<()> + 'static) -> Check {
        Check::Custom(address.into(), Box::new(check))
    }

    fn run(&self, state: &Value) -> anyhow::Result<()> {
        let at = |values: &Value, path: &str| {
            values.pointer(&format!("/{path}")).cloned().unwrap_or(Value::Null)
        };
        match self {
            Check::Attr(address, path, expected) => {
                let actual = at(state_values(state, address)?, path);
                ensure!(&actual == expected, "{address}.{path}: expected {expected}, got {actual}");
            }
            Check::AttrSet(address, path) => {
                let actual = at(state_values(state, address)?, path);
                ensure!(!actual.is_null(), "{address}.{path} is not set");
            }
            Check::Custom(address, check) => {
                check(state_values(state, address)?).with_context(|| address.clone())?
            }
        }
        Ok(())
    }
}

/// One step: a configuration to apply, or an import.
pub struct Step {
    config: String,
    checks: Vec<Check>,
    expect_error: Option<String>,
    import: Option<(String, String)>,
}

impl Step {
    /// Applies `config` (the `required_providers` block is added).
    pub fn config(config: &str) -> Step {
        Step { config: config.into(), checks: Vec::new(), expect_error: None, import: None }
    }

    /// Imports `id` into `address` (declared in `config`), then plans: the plan must be empty,
    /// so the imported state matches the configuration.
    pub fn import(config: &str, address: &str, id: &str) -> Step {
        Step { import: Some((address.into(), id.into())), ..Step::config(config) }
    }

    pub fn check(mut self, check: Check) -> Step {
        self.checks.push(check);
        self
    }

    /// The step must fail, with `text` in terraform's error output.
    pub fn expect_error(mut self, text: &str) -> Step {
        self.expect_error = Some(text.into());
        self
    }
}

/// Steps run in order in one working directory against one provider.
pub struct TestCase {
    provider: Provider,
    tools: Option<Tools>,
    steps: Vec<Step>,
}

impl TestCase {
    pub fn new(provider: Provider) -> TestCase {
        TestCase { provider, tools: None, steps: Vec::new() }
    }

    /// Runs this terraform and terrarium instead of the ones [`Tools::from_env`] finds.
    pub fn tools(mut self, tools: Tools) -> TestCase {
        self.tools = Some(tools);
        self
    }

    pub fn step(mut self, step: Step) -> TestCase {
        self.steps.push(step);
        self
    }

    /// Runs every step, then destroys; the first failure stops the case with the step's
    /// number and terraform's output.
    pub fn run(self) -> anyhow::Result<()> {
        let tools = match self.tools {
            Some(tools) => tools,
            None => Tools::from_env()?,
        };
        let workspace = Workspace::with_providers(&tools, std::slice::from_ref(&self.provider))?;
        let header = self.provider.required_providers();
        let mut initialised = false;
        // What destroy runs with: the last configuration that applied (a step that expected
        // an error leaves an invalid one behind).
        let mut last_applied = header.clone();
        for (i, step) in self.steps.iter().enumerate() {
            let n = i + 1;
            let config = format!("{header}\n{}", step.config);
            workspace.write("main.tf", &config)?;
            if !initialised {
                workspace.init().with_context(|| format!("step {n}: init"))?;
                initialised = true;
            }
            if let Some((address, id)) = &step.import {
                let run = workspace.run(&["import", "-input=false", "-no-color", address, id])?;
                if let Some(text) = &step.expect_error {
                    ensure!(
                        run.code != Some(0) && run.stderr.contains(text),
                        "step {n}: expected an error with {text:?}\n{run}"
                    );
                    continue;
                }
                ensure!(run.code == Some(0), "step {n}: import failed\n{run}");
            } else {
                let run =
                    workspace.run(&["apply", "-input=false", "-no-color", "-auto-approve"])?;
                if let Some(text) = &step.expect_error {
                    ensure!(
                        run.code != Some(0),
                        "step {n}: expected an error, the apply succeeded\n{run}"
                    );
                    ensure!(
                        run.stderr.contains(text),
                        "step {n}: expected {text:?} in the errors\n{run}"
                    );
                    continue;
                }
                ensure!(run.code == Some(0), "step {n}: apply failed\n{run}");
            }
            last_applied = config;
            let state = workspace.state_json().with_context(|| format!("step {n}: state"))?;
            for check in &step.checks {
                check.run(&state).with_context(|| {
                    format!("step {n}: check failed; state:\n{}", pretty(&state))
                })?;
            }
            // As terraform-plugin-testing does: after apply nothing is left to do; after an
            // import, nothing is left to do for the imported resource (resources of earlier
            // steps that the import's configuration leaves out are destroyed at the end).
            let (run, plan) =
                workspace.plan_json(&[]).with_context(|| format!("step {n}: plan after apply"))?;
            let pending: Vec<(String, Vec<String>)> = plan_actions(&plan)
                .into_iter()
                .filter(|(address, actions)| {
                    actions.as_slice() != ["no-op"]
                        && step.import.as_ref().is_none_or(|(imported, _)| imported == address)
                })
                .collect();
            if !pending.is_empty() {
                bail!("step {n}: the plan after apply is not empty: {pending:?}\n{run}");
            }
        }
        workspace.write("main.tf", &last_applied)?;
        let destroy = workspace.run(&["destroy", "-input=false", "-no-color", "-auto-approve"])?;
        ensure!(destroy.code == Some(0), "destroy failed\n{destroy}");
        let state = workspace.state_json()?;
        ensure!(
            state["values"].is_null() || state["values"]["root_module"]["resources"].is_null(),
            "state left after destroy:\n{}",
            pretty(&state)
        );
        Ok(())
    }
}

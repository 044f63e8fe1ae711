//! examples/null served over plugin protocol 5 (tfplugin5), forced with `TERRARIUM_PROTOCOL=5`
//! in the environment Terraform passes on to the provider: a whole lifecycle, with Terraform's
//! own log proving which protocol it negotiated. A schema protocol 5 cannot express (a nested
//! attribute: tests/guests/faulty's `faulty_nested`) is refused at GetSchema, and Terraform
//! shows the reason and the way out; the same configuration plans and applies over protocol 6.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, ensure};
use serde_json::json;
use terrarium_tests::json::{plan_actions, state_values};
use terrarium_tests::{Provider, Run, Workspace};

const MAIN_TF: &str = r#"
terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "2.1.2"
    }
  }
}

resource "null_resource" "triggered" {
  triggers = {
    t = "one"
  }
}

data "null_data_source" "values" {
  inputs = {
    id = null_resource.triggered.id
  }
}

output "id" {
  value = data.null_data_source.values.outputs["id"]
}
"#;

/// A workspace for examples/null whose terraform runs log at TRACE to `log`.
struct LoggedWorkspace {
    workspace: Workspace,
    log: PathBuf,
}

impl LoggedWorkspace {
    fn new() -> anyhow::Result<LoggedWorkspace> {
        LoggedWorkspace::with(Provider::Null, MAIN_TF)
    }

    /// A workspace for `provider` whose configuration is `main_tf`.
    fn with(provider: Provider, main_tf: &str) -> anyhow::Result<LoggedWorkspace> {
        let workspace = Workspace::new(&[provider])?;
        workspace.write("main.tf", main_tf)?;
        let log = workspace.root().join("terraform.log");
        Ok(LoggedWorkspace { workspace, log })
    }

    /// Runs terraform with `protocol` as TERRARIUM_PROTOCOL (unset for None), requiring exit
    /// code `code`. The log is appended to.
    fn run(&self, protocol: Option<&str>, args: &[&str], code: i32) -> anyhow::Result<Run> {
        let run = self.workspace.run_prepared(args, |command| {
            command.env("TF_LOG", "TRACE").env("TF_LOG_PATH", &self.log);
            match protocol {
                Some(protocol) => command.env("TERRARIUM_PROTOCOL", protocol),
                // An outer TERRARIUM_PROTOCOL must not decide the control case.
                None => command.env_remove("TERRARIUM_PROTOCOL"),
            };
        })?;
        ensure!(run.code == Some(code), "expected exit code {code}, got {:?}\n{run}", run.code);
        Ok(run)
    }

    fn log_text(&self) -> anyhow::Result<String> {
        fs::read_to_string(&self.log).with_context(|| format!("reading {}", self.log.display()))
    }

    /// Starts the log afresh, so that what it says is about the runs after this.
    fn clear_log(&self) -> anyhow::Result<()> {
        fs::remove_file(&self.log).with_context(|| format!("removing {}", self.log.display()))
    }
}

/// The plugin protocol versions go-plugin reports negotiating ("using plugin: version=N"), once
/// per provider process started, in `log`.
fn negotiated_versions(log: &str) -> Vec<String> {
    log.lines()
        .filter(|line| line.contains("using plugin"))
        .filter_map(|line| line.split("version=").nth(1))
        .map(|rest| rest.split_whitespace().next().unwrap_or_default().to_owned())
        .collect()
}

fn require_only(log_file: &Path, log: &str, version: &str) -> anyhow::Result<()> {
    let versions = negotiated_versions(log);
    ensure!(
        !versions.is_empty() && versions.iter().all(|v| v == version),
        "expected every provider process to use protocol {version}, terraform's log ({}) says {versions:?}",
        log_file.display()
    );
    Ok(())
}

#[test]
fn null_lifecycle_over_protocol_5() -> anyhow::Result<()> {
    let w = LoggedWorkspace::new()?;
    let five = Some("5");
    w.run(five, &["init", "-input=false", "-no-color"], 0).context("init")?;

    let (plan_args, plan_file) =
        (["plan", "-input=false", "-no-color", "-detailed-exitcode", "-out", "tfplan"], "tfplan");
    let plan = w.run(five, &plan_args, 2).context("first plan")?;
    ensure!(plan.stdout.contains("Plan: 1 to add, 0 to change, 0 to destroy."), "{plan}");
    let shown = w.workspace.json(&["show", "-json", plan_file])?;
    let actions = plan_actions(&shown);
    ensure!(
        actions.contains(&("null_resource.triggered".to_owned(), vec!["create".to_owned()])),
        "{actions:?}"
    );

    let apply =
        w.run(five, &["apply", "-input=false", "-no-color", plan_file], 0).context("apply")?;
    ensure!(apply.stdout.contains("Resources: 1 added, 0 changed, 0 destroyed."), "{apply}");
    let state = w.workspace.state_json()?;
    let id = state_values(&state, "null_resource.triggered")?["id"].clone();
    ensure!(
        id.as_str().is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())),
        "id {id}"
    );
    ensure!(state_values(&state, "null_resource.triggered")?["triggers"] == json!({"t": "one"}));
    ensure!(state_values(&state, "data.null_data_source.values")?["outputs"] == json!({"id": id}));

    // Nothing to do after apply: read, plan and data source agree with what apply stored.
    w.run(five, &["plan", "-input=false", "-no-color", "-detailed-exitcode"], 0)
        .context("plan after apply")?;

    let destroy = w
        .run(five, &["destroy", "-auto-approve", "-input=false", "-no-color"], 0)
        .context("destroy")?;
    ensure!(destroy.stdout.contains("Resources: 1 destroyed."), "{destroy}");
    ensure!(w.workspace.state_json()?.get("values").is_none(), "state not empty after destroy");

    let log = w.log_text()?;
    require_only(&w.log, &log, "5")?;
    // Terraform's protocol 5 client made the calls (it logs "GRPCProvider: <call>", its
    // protocol 6 client "GRPCProvider.v6: <call>"), and none went through the protocol 6 one.
    for call in [
        "ConfigureProvider",
        "PlanResourceChange",
        "ApplyResourceChange",
        "ReadResource",
        "ReadDataSource",
    ] {
        ensure!(
            log.contains(&format!("GRPCProvider: {call}")),
            "no protocol 5 {call} in {}",
            w.log.display()
        );
    }
    ensure!(
        !log.contains("GRPCProvider.v6"),
        "terraform used its protocol 6 client ({})",
        w.log.display()
    );
    Ok(())
}

/// Without TERRARIUM_PROTOCOL, Terraform (which offers 5 and 6) gets protocol 6: the log check
/// above can tell the two apart.
#[test]
fn protocol_6_is_chosen_when_not_forced() -> anyhow::Result<()> {
    let w = LoggedWorkspace::new()?;
    w.run(None, &["init", "-input=false", "-no-color"], 0)?;
    w.run(None, &["plan", "-input=false", "-no-color", "-detailed-exitcode"], 2)?;
    let log = w.log_text()?;
    require_only(&w.log, &log, "6")?;
    ensure!(
        log.contains("GRPCProvider.v6: PlanResourceChange"),
        "no protocol 6 call in {}",
        w.log.display()
    );
    Ok(())
}

/// A protocol version the provider does not speak stops it before the handshake, and the reason
/// reaches Terraform's log.
#[test]
fn an_unknown_forced_protocol_fails_with_the_reason_in_the_log() -> anyhow::Result<()> {
    let w = LoggedWorkspace::new()?;
    w.run(None, &["init", "-input=false", "-no-color"], 0)?;
    w.run(Some("7"), &["plan", "-input=false", "-no-color"], 1)?;
    let log = w.log_text()?;
    ensure!(
        log.contains("TERRARIUM_PROTOCOL=\\\"7\\\" is not a plugin protocol version")
            || log.contains("TERRARIUM_PROTOCOL=\"7\" is not a plugin protocol version"),
        "the reason is not in terraform's log ({})",
        w.log.display()
    );
    Ok(())
}

/// tests/guests/faulty's `faulty_nested`, whose `rule` is a nested attribute (object, nesting
/// single), which protocol 5 cannot express.
fn nested_attribute_config() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    {}
  }}
}}

resource "faulty_nested" "n" {{
  rule = {{
    pattern = "*.txt"
  }}
}}
"#,
        Provider::Faulty.required_providers_entry()
    )
}

/// Terraform's human-readable output with its line wrapping undone.
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Forced to protocol 5, a provider with a nested attribute fails at the first command that
/// loads schemas (validate, plan) with an error naming the attribute, its resource type and
/// how to get protocol 6. Without the variable, the same workspace plans, applies, reads back
/// and destroys it over protocol 6.
#[test]
fn a_nested_attribute_is_refused_over_protocol_5_and_served_over_protocol_6() -> anyhow::Result<()>
{
    let w = LoggedWorkspace::with(Provider::Faulty, &nested_attribute_config())?;
    let five = Some("5");
    // Init installs the provider without asking it for its schema.
    w.run(five, &["init", "-input=false", "-no-color"], 0).context("init")?;

    for args in [&["validate", "-no-color"][..], &["plan", "-input=false", "-no-color"]] {
        let run = w
            .run(five, args, 1)
            .with_context(|| format!("terraform {} over protocol 5", args[0]))?;
        let errors = run.error_summaries();
        ensure!(errors == ["Failed to load plugin schemas"], "{errors:?}\n{run}");
        let stderr = unwrapped(&run.stderr);
        for needle in [
            "Nested attributes need plugin protocol 6",
            "The attribute \"rule\" of resource type \"faulty_nested\" is a nested attribute, which Terraform's \
             plugin protocol 5 cannot express, but this provider is being served over protocol 5.",
            "Use protocol 6, which Terraform 1.0 and later offer: remove TERRARIUM_PROTOCOL=5 from Terraform's \
             environment",
        ] {
            ensure!(
                stderr.contains(needle),
                "terraform {} output lacks {needle:?}\n{run}",
                args[0]
            );
        }
    }
    let log = w.log_text()?;
    require_only(&w.log, &log, "5")?;
    ensure!(w.workspace.state_json()?.get("values").is_none(), "something was stored");

    // The same configuration, not forced: protocol 6 serves it.
    w.clear_log()?;
    let plan = w.run(
        None,
        &["plan", "-input=false", "-no-color", "-detailed-exitcode", "-out", "tfplan"],
        2,
    )?;
    ensure!(plan.stdout.contains("Plan: 1 to add, 0 to change, 0 to destroy."), "{plan}");
    let apply = w.run(None, &["apply", "-input=false", "-no-color", "tfplan"], 0)?;
    ensure!(apply.stdout.contains("Resources: 1 added, 0 changed, 0 destroyed."), "{apply}");
    let state = w.workspace.state_json()?;
    let values = state_values(&state, "faulty_nested.n")?;
    ensure!(values == &json!({"rule": {"pattern": "*.txt"}}), "state holds {values}");
    // Read and plan agree with what apply stored.
    w.run(None, &["plan", "-input=false", "-no-color", "-detailed-exitcode"], 0)
        .context("plan after apply")?;
    let destroy = w.run(None, &["destroy", "-auto-approve", "-input=false", "-no-color"], 0)?;
    ensure!(destroy.stdout.contains("Resources: 1 destroyed."), "{destroy}");
    let log = w.log_text()?;
    require_only(&w.log, &log, "6")?;
    Ok(())
}

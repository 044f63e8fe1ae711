//! examples/null, a drop-in for hashicorp/null 2.1.2, through a whole Terraform lifecycle; and
//! the same lifecycle against the Go original with the same results.
//!
//! One scenario runs against either provider. Its assertions are absolute facts about
//! hashicorp/null 2.1.2 (the Go baseline passes them, which keeps them honest), and it records
//! what terraform showed at every step, with random ids masked, so the two runs can be compared.
//! Each scenario runs once per test process and is shared by the tests below.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context as _, bail, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::{
    assert_same, first_difference, mask_strings, plan_actions, pretty, provider_schema,
    remove_keys, state_resources, state_values,
};
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

variable "trigger" {
  type    = string
  default = "one"
}

resource "null_resource" "plain" {}

resource "null_resource" "triggered" {
  triggers = {
    t     = var.trigger
    fixed = "x"
  }
}

resource "null_resource" "counted" {
  count = 2
  triggers = {
    index = count.index
  }
}

data "null_data_source" "values" {
  inputs = {
    a       = "1"
    trigger = null_resource.triggered.id
  }
  has_computed_default = "set"
}

data "null_data_source" "defaults" {}

# Edge cases where the Go provider's SDK has its own ideas (an empty inputs map reads back
# as null); a drop-in must agree.
resource "null_resource" "empty_triggers" {
  triggers = {}
}

data "null_data_source" "empty_inputs" {
  inputs = {}
}

output "values" {
  value = data.null_data_source.values.outputs
}

output "default" {
  value = data.null_data_source.defaults.has_computed_default
}
"#;

const IMPORT_TF: &str = "resource \"null_resource\" \"imported\" {}\n";
const IMPORT_ERROR: &str = "resource null_resource doesn't support import";

/// What terraform showed at each step, normalised so that two providers can be compared.
type Record = Vec<(String, Value)>;

fn record(provider: Provider) -> anyhow::Result<&'static Record> {
    static GO: OnceLock<Result<Record, String>> = OnceLock::new();
    static OURS: OnceLock<Result<Record, String>> = OnceLock::new();
    let cell = match provider {
        Provider::GoNull => &GO,
        Provider::Null => &OURS,
        _ => bail!("the null scenario needs a null provider"),
    };
    cell.get_or_init(|| scenario(provider).map_err(|e| format!("{provider:?}: {e:#}")))
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e}"))
}

#[test]
fn null_lifecycle_with_terrarium() -> anyhow::Result<()> {
    record(Provider::Null).map(|_| ())
}

/// The scenario's assertions hold for the original; if this fails, the test is wrong.
#[test]
fn null_lifecycle_with_go_original() -> anyhow::Result<()> {
    record(Provider::GoNull).map(|_| ())
}

#[test]
fn null_behaves_like_the_go_original() -> anyhow::Result<()> {
    let go = record(Provider::GoNull)?;
    let ours = record(Provider::Null)?;
    let steps = |r: &Record| r.iter().map(|(step, _)| step.clone()).collect::<Vec<_>>();
    assert_eq!(steps(go), steps(ours));
    let mut differences = Vec::new();
    for ((step, expected), (_, actual)) in go.iter().zip(ours) {
        if let Some(difference) = first_difference(expected, actual) {
            differences.push(format!(
                "step {step}: {difference}\n--- Go ---\n{}\n--- terrarium ---\n{}",
                pretty(expected),
                pretty(actual)
            ));
        }
    }
    ensure!(differences.is_empty(), "{}", differences.join("\n\n"));
    Ok(())
}

#[test]
fn null_schema_is_the_go_originals() -> anyhow::Result<()> {
    let schema = |provider: Provider| -> anyhow::Result<Value> {
        let from_terraform = crate::inspect::terraform_schema(provider)?;
        Ok(provider_schema(&from_terraform, provider.source())?.clone())
    };
    assert_same(
        "null provider schemas (Go, terrarium)",
        &schema(Provider::GoNull)?,
        &schema(Provider::Null)?,
    )
}

/// Import inside a configuration (an `import` block), not just the command: same refusal.
#[test]
fn null_import_block_is_refused_like_the_go_original() -> anyhow::Result<()> {
    let mut errors = BTreeMap::new();
    for provider in [Provider::GoNull, Provider::Null] {
        let workspace = Workspace::new(&[provider])?;
        workspace.write(
            "main.tf",
            &format!(
                "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\n\
                 import {{\n  to = null_resource.imported\n  id = \"12345\"\n}}\n\n{IMPORT_TF}",
                provider.required_providers_entry()
            ),
        )?;
        workspace.init()?;
        let plan = workspace.run_expect(&["plan", "-input=false", "-no-color"], 1)?;
        errors.insert(format!("{provider:?}"), plan.error_summaries());
    }
    assert_eq!(errors["GoNull"], [IMPORT_ERROR], "the Go original changed?");
    assert_eq!(errors["Null"], errors["GoNull"]);
    Ok(())
}

/// Runs the lifecycle against `provider`, asserting what hashicorp/null 2.1.2 does at each step.
fn scenario(provider: Provider) -> anyhow::Result<Record> {
    let workspace = Workspace::new(&[provider])?;
    workspace.write("main.tf", MAIN_TF)?;
    let package_dir = provider.mirror()?.package_dir(provider);
    let package_before = snapshot(&package_dir)?;
    let mut record = Record::new();

    // init: installs from the mirror and writes the lock file.
    let init = workspace.init().context("init")?;
    ensure!(
        init.stdout.contains("Installed hashicorp/null v2.1.2"),
        "init did not install from the mirror\n{init}"
    );
    let lock = workspace.read(".terraform.lock.hcl").context("init wrote no lock file")?;
    ensure!(
        lock.contains(r#"provider "registry.terraform.io/hashicorp/null""#),
        "lock file:\n{lock}"
    );
    ensure!(
        lock.contains(r#"version     = "2.1.2""#) && lock.contains("\"h1:"),
        "lock file:\n{lock}"
    );

    // validate
    let validate = workspace.json(&["validate", "-json"]).context("validate")?;
    ensure!(
        validate["valid"] == true && validate["error_count"] == 0,
        "validate: {}",
        pretty(&validate)
    );
    ensure!(validate["warning_count"] == 0, "validate warned: {}", pretty(&validate));
    record.push(("validate".into(), validate));

    // plan: everything is created; the data source that reads an unknown id waits for apply.
    let (run, plan) = workspace.plan_json(&[]).context("first plan")?;
    ensure!(run.code == Some(2), "first plan should propose changes\n{run}");
    run.shows(&[
        "# null_resource.plain will be created",
        "# null_resource.counted[1] will be created",
        "# data.null_data_source.values will be read during apply",
    ])?;
    let actions = plan_actions(&plan);
    for address in [
        "null_resource.plain",
        "null_resource.triggered",
        "null_resource.counted[0]",
        "null_resource.counted[1]",
        "null_resource.empty_triggers",
    ] {
        ensure!(
            actions.contains(&(address.to_owned(), vec!["create".to_owned()])),
            "{address} is not created: {actions:?}"
        );
    }
    ensure!(
        actions.contains(&("data.null_data_source.values".to_owned(), vec!["read".to_owned()])),
        "the dependent data source is not deferred to apply: {actions:?}"
    );
    record.push(("plan create".into(), observe_plan(&run, &plan)));

    // apply the saved plan
    let apply = workspace.ok(&["apply", "-input=false", "-no-color", "tfplan"]).context("apply")?;
    ensure!(apply.stdout.contains("Resources: 5 added, 0 changed, 0 destroyed."), "{apply}");
    let state = workspace.state_json()?;
    let triggered_id = decimal_id(&state, "null_resource.triggered")?;
    let plain_id = decimal_id(&state, "null_resource.plain")?;
    decimal_id(&state, "null_resource.counted[1]")?;
    ensure!(
        state_values(&state, "null_resource.triggered")?["triggers"]
            == json!({"t": "one", "fixed": "x"})
    );
    ensure!(state_values(&state, "null_resource.counted[1]")?["triggers"] == json!({"index": "1"}));
    ensure!(state_values(&state, "null_resource.plain")?["triggers"].is_null());
    let values = state_values(&state, "data.null_data_source.values")?;
    ensure!(
        values["outputs"] == json!({"a": "1", "trigger": triggered_id}),
        "outputs: {}",
        pretty(values)
    );
    ensure!(
        values["id"] == "static" && values["has_computed_default"] == "set",
        "{}",
        pretty(values)
    );
    let defaults = state_values(&state, "data.null_data_source.defaults")?;
    ensure!(defaults["has_computed_default"] == "default", "{}", pretty(defaults));
    // Go's SDKv1 quirk, which a drop-in keeps: no inputs still gives an empty outputs map.
    ensure!(
        defaults["inputs"].is_null() && defaults["outputs"] == json!({}),
        "null_data_source without inputs: {}",
        pretty(defaults)
    );
    record.push(("apply".into(), observe_apply(&apply, &state)));

    // A second plan shows no changes.
    let replan = workspace.run(&["plan", "-input=false", "-no-color", "-detailed-exitcode"])?;
    ensure!(replan.code == Some(0), "second plan is not empty\n{replan}");
    ensure!(replan.stdout.contains("No changes."), "{replan}");
    record.push(("plan no changes".into(), observe_text(&replan)));

    // Changing a trigger forces replacement (null_resource has nothing to update in place).
    workspace.write("terraform.tfvars", "trigger = \"two\"\n")?;
    let (run, plan) = workspace.plan_json(&[]).context("replacement plan")?;
    ensure!(run.code == Some(2), "{run}");
    let change = plan["resource_changes"]
        .as_array()
        .and_then(|changes| changes.iter().find(|c| c["address"] == "null_resource.triggered"))
        .context("no change for null_resource.triggered")?;
    ensure!(change["change"]["actions"] == json!(["delete", "create"]), "{}", pretty(change));
    run.shows(&["# null_resource.triggered must be replaced"])?;
    ensure!(change["action_reason"] == "replace_because_cannot_update", "{}", pretty(change));
    ensure!(change["change"]["replace_paths"] == json!([["triggers"]]), "{}", pretty(change));
    for (address, actions) in plan_actions(&plan) {
        if address.starts_with("null_resource.") && address != "null_resource.triggered" {
            ensure!(actions == ["no-op"], "{address} should not change: {actions:?}");
        }
    }
    record.push(("plan replace".into(), observe_plan(&run, &plan)));

    let apply = workspace
        .ok(&["apply", "-input=false", "-no-color", "tfplan"])
        .context("replacing apply")?;
    ensure!(apply.stdout.contains("Resources: 1 added, 0 changed, 1 destroyed."), "{apply}");
    let state = workspace.state_json()?;
    let new_triggered_id = decimal_id(&state, "null_resource.triggered")?;
    ensure!(new_triggered_id != triggered_id, "replacement kept the id {triggered_id}");
    ensure!(
        decimal_id(&state, "null_resource.plain")? == plain_id,
        "an unrelated resource changed"
    );
    ensure!(state_values(&state, "null_resource.triggered")?["triggers"]["t"] == "two");
    record.push(("apply replace".into(), observe_apply(&apply, &state)));

    // refresh, both spellings: nothing changes.
    let refresh = workspace.ok(&["refresh", "-input=false", "-no-color"]).context("refresh")?;
    assert_unchanged("state after refresh", &state, &workspace.state_json()?)?;
    record.push(("refresh".into(), observe_text(&refresh)));
    let refresh_only = workspace
        .ok(&["apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"])
        .context("apply -refresh-only")?;
    ensure!(refresh_only.stdout.contains("No changes."), "{refresh_only}");
    assert_unchanged("state after apply -refresh-only", &state, &workspace.state_json()?)?;
    record.push(("apply -refresh-only".into(), observe_text(&refresh_only)));

    // Outputs, as scripts read them.
    let outputs = workspace.json(&["output", "-json"]).context("output -json")?;
    ensure!(outputs["default"]["value"] == "default", "{}", pretty(&outputs));
    ensure!(
        outputs["values"]["value"] == json!({"a": "1", "trigger": new_triggered_id}),
        "{}",
        pretty(&outputs)
    );
    record.push(("output".into(), normalise(outputs)));

    // Replacement on request (`-replace`), the other way to force one.
    let replace = workspace
        .ok(&[
            "apply",
            "-replace=null_resource.plain",
            "-auto-approve",
            "-input=false",
            "-no-color",
        ])
        .context("apply -replace")?;
    ensure!(replace.stdout.contains("Resources: 1 added, 0 changed, 1 destroyed."), "{replace}");
    replace.shows(&["# null_resource.plain will be replaced, as requested"])?;
    let state = workspace.state_json()?;
    ensure!(decimal_id(&state, "null_resource.plain")? != plain_id, "-replace kept the id");
    ensure!(decimal_id(&state, "null_resource.triggered")? == new_triggered_id);
    record.push(("apply -replace".into(), observe_apply(&replace, &state)));

    // import: hashicorp/null 2.1.2 does not support it, and says so.
    workspace.write("imported.tf", IMPORT_TF)?;
    let import = workspace
        .run_expect(&["import", "-input=false", "-no-color", "null_resource.imported", "12345"], 1)
        .context("import")?;
    ensure!(import.error_summaries() == [IMPORT_ERROR], "{import}");
    record
        .push(("import".into(), json!({"exit": import.code, "errors": import.error_summaries()})));
    workspace.remove("imported.tf")?;
    assert_unchanged("state after a failed import", &state, &workspace.state_json()?)?;

    // destroy
    let destroy = workspace
        .ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])
        .context("destroy")?;
    ensure!(destroy.stdout.contains("Destroy complete! Resources: 5 destroyed."), "{destroy}");
    destroy.shows(&["# null_resource.triggered will be destroyed"])?;
    let list = workspace.ok(&["state", "list"])?;
    ensure!(list.stdout.trim().is_empty(), "resources left after destroy: {}", list.stdout);
    ensure!(state_resources(&workspace.state_json()?).is_empty());
    record.push(("destroy".into(), observe_text(&destroy)));

    // Nothing wrote into the installed package: Terraform's lock file hash still matches it.
    let package_after = snapshot(&package_dir)?;
    ensure!(
        package_before == package_after,
        "the installed package changed: {package_before:?} -> {package_after:?}"
    );
    workspace
        .ok(&["plan", "-input=false", "-no-color"])
        .context("plan after destroy (lock file check)")?;
    Ok(record)
}

/// The managed resources kept their ids and everything else is the same, except the data
/// source's `random`, which every read draws anew.
fn assert_unchanged(what: &str, before: &Value, after: &Value) -> anyhow::Result<()> {
    let managed_ids = |state: &Value| -> Vec<(String, Value)> {
        state_resources(state)
            .into_iter()
            .filter(|(address, _)| address.starts_with("null_resource."))
            .map(|(address, values)| (address, values["id"].clone()))
            .collect()
    };
    ensure!(managed_ids(before) == managed_ids(after), "{what}: managed resource ids changed");
    assert_same(what, &normalise(before.clone()), &normalise(after.clone()))
}

/// The id of a null_resource: a decimal number as a string, as the Go provider makes them.
fn decimal_id(state: &Value, address: &str) -> anyhow::Result<String> {
    let id = state_values(state, address)?["id"]
        .as_str()
        .with_context(|| format!("{address} has no id"))?;
    ensure!(
        !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()),
        "{address} id {id:?} is not decimal"
    );
    Ok(id.to_owned())
}

/// Long decimal strings are random ids (null_resource.id, null_data_source.random).
fn is_random_id(text: &str) -> bool {
    text.len() >= 8 && text.bytes().all(|b| b.is_ascii_digit())
}

fn normalise(mut value: Value) -> Value {
    mask_strings(&mut value, &is_random_id, "<id>");
    remove_keys(&mut value, "timestamp");
    value
}

fn observe_plan(run: &Run, plan: &Value) -> Value {
    json!({
        "exit": run.code,
        "resource_changes": normalise(plan["resource_changes"].clone()),
        "output_changes": normalise(plan["output_changes"].clone()),
        "planned_values": normalise(plan["planned_values"].clone()),
        "prior_state": normalise(plan["prior_state"].clone()),
        "text": text_lines(&run.stdout),
    })
}

fn observe_apply(run: &Run, state: &Value) -> Value {
    json!({ "exit": run.code, "state": normalise(state.clone()), "text": text_lines(&run.stdout) })
}

fn observe_text(run: &Run) -> Value {
    json!({ "exit": run.code, "text": text_lines(&run.stdout), "errors": run.error_summaries() })
}

/// Human output with random ids and durations masked, sorted: terraform interleaves the
/// progress lines of concurrent operations in any order.
fn text_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| mask_line(l.trim_end()))
        .filter(|l| !l.is_empty() && !is_progress_line(l))
        .collect();
    lines.sort();
    lines
}

/// "null_resource.a: Still creating... [10s elapsed]": printed only when the machine is slow.
fn is_progress_line(line: &str) -> bool {
    line.contains(": Still ") && line.ends_with(" elapsed]")
}

fn mask_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if digits.len() >= 8 {
            out.push_str("<id>");
        } else {
            out.push_str(digits);
        }
        digits.clear();
    };
    for c in line.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    // "Creation complete after 0s", "Still creating... [10s elapsed]": timing, not behaviour.
    let mut from = 0;
    while let Some(found) = out[from..].find(" after ") {
        let start = from + found + " after ".len();
        let rest = &out[start..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == 's' || c == 'm'))
            .unwrap_or(rest.len());
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            out.replace_range(start..start + end, "<t>");
        }
        from = start;
    }
    out
}

/// Names, sizes and modification times of the files in an installed package.
fn snapshot(dir: &Path) -> anyhow::Result<Vec<(String, u64, std::time::SystemTime)>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let meta = entry.metadata()?;
        files.push((
            entry.file_name().to_string_lossy().into_owned(),
            meta.len(),
            meta.modified()?,
        ));
    }
    files.sort();
    Ok(files)
}

#[test]
fn text_masking_hides_ids_and_durations_only() {
    assert_eq!(
        mask_line("null_resource.a: Creation complete after 12s [id=7166848155323957180]"),
        "null_resource.a: Creation complete after <t> [id=<id>]"
    );
    assert_eq!(
        mask_line("Plan: 1 to add, 0 to change, 10 to destroy."),
        "Plan: 1 to add, 0 to change, 10 to destroy."
    );
    assert_eq!(mask_line("index = 1234567"), "index = 1234567");
    assert!(is_progress_line("null_resource.a: Still creating... [10s elapsed]"));
    assert_eq!(
        text_lines("b\nnull_resource.a: Still destroying... [id=123456789, 20s elapsed]\na\n"),
        ["a", "b"]
    );
    assert_eq!(mask_line("+ id = (known after apply)"), "+ id = (known after apply)");
}

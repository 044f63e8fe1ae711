//! examples/random (`terrarium/random`) end to end, with real terraform: a whole lifecycle
//! (init from the mirror, validate, plan, apply, an empty second plan, an update in place, two
//! kinds of replacement, refresh, outputs from a provider function and a data source,
//! destroy), import, and errors that terraform shows at the attribute they are about.
//! `inspect.rs` compares `terrarium inspect` with `providers schema -json` for it.

use std::collections::BTreeSet;

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::{assert_same, plan_actions, pretty, state_resources, state_values};
use terrarium_tests::{Provider, Workspace};

/// `provider::random::uuid_v5("dns", "python.org")`: the RFC 4122 version 5 UUID, as Python's
/// `uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")` computes it.
const PYTHON_ORG_UUID: &str = "886313e1-3b8a-5372-9b90-0c9aee199e5d";

/// `required_providers` for this provider, pinned to its version.
pub fn required_providers() -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n",
        Provider::Random.required_providers_entry()
    )
}

const RESOURCES_TF: &str = r#"
variable "rotation" {
  type    = string
  default = "one"
}

variable "min" {
  type    = number
  default = 1
}

variable "max" {
  type    = number
  default = 100
}

resource "random_string" "name" {
  length      = 12
  special     = false
  min_numeric = 2
}

resource "random_password" "db" {
  length  = 20
  keepers = {
    rotation = var.rotation
  }
}

resource "random_integer" "port" {
  min     = var.min
  max     = var.max
  exclude = [2, 3]
}

resource "random_uuid" "id" {}

resource "random_choice" "region" {
  option {
    value  = "eu"
    weight = 3
  }
  option {
    value  = "us"
    weight = 0.1
  }
}

data "random_shuffle" "zones" {
  input        = ["a", "b", "c", "d"]
  seed         = "prod"
  result_count = 3
}

output "uuid" {
  value = provider::random::uuid_v5("dns", "python.org")
}

output "builtin_uuid" {
  value = uuidv5("dns", "python.org")
}

output "zones" {
  value = data.random_shuffle.zones.result
}

output "password" {
  value     = random_password.db.result
  sensitive = true
}
"#;

const MANAGED: [&str; 5] = [
    "random_string.name",
    "random_password.db",
    "random_integer.port",
    "random_uuid.id",
    "random_choice.region",
];

fn workspace_with(config: &str) -> anyhow::Result<Workspace> {
    let workspace = Workspace::new(&[Provider::Random])?;
    workspace.write("main.tf", &format!("{}{config}", required_providers()))?;
    Ok(workspace)
}

#[test]
fn random_lifecycle() -> anyhow::Result<()> {
    let workspace = workspace_with(RESOURCES_TF)?;

    // init installs from the mirror and writes the lock file.
    let init = workspace.init().context("init")?;
    ensure!(init.stdout.contains("Installed terrarium/random v0.1.0"), "{init}");
    let lock = workspace.read(".terraform.lock.hcl")?;
    ensure!(
        lock.contains(r#"provider "registry.terraform.io/terrarium/random""#)
            && lock.contains(r#"version     = "0.1.0""#)
            && lock.contains("\"h1:"),
        "lock file:\n{lock}"
    );

    let validate = workspace.json(&["validate", "-json"]).context("validate")?;
    ensure!(
        validate["valid"] == true && validate["warning_count"] == 0,
        "validate: {}",
        pretty(&validate)
    );

    // plan: everything is created; the data source and the function are evaluated now.
    let (run, plan) = workspace.plan_json(&[]).context("first plan")?;
    ensure!(run.code == Some(2), "first plan proposes no changes\n{run}");
    for address in MANAGED {
        ensure!(actions(&plan, address) == ["create"], "{address}: {:?}", plan_actions(&plan));
    }
    // Defaults are planned as values, not "(known after apply)".
    ensure!(
        run.stdout.contains("+ upper       = true") && run.stdout.contains("+ special     = false"),
        "defaults not planned\n{run}"
    );
    // The sensitive result is hidden in the plan; the other one is merely unknown.
    let password_change = &resource_change(&plan, "random_password.db")?["change"];
    ensure!(password_change["after_sensitive"]["result"] == true, "{}", pretty(password_change));
    ensure!(
        resource_change(&plan, "random_string.name")?["change"]["after_sensitive"]
            .get("result")
            .is_none_or(|s| s == false),
        "random_string.result should not be sensitive"
    );
    ensure!(
        block_of(&run.stdout, "random_password.db").contains("+ result      = (sensitive value)"),
        "{run}"
    );
    ensure!(
        plan["output_changes"]["uuid"]["after"] == PYTHON_ORG_UUID,
        "{}",
        pretty(&plan["output_changes"])
    );

    // apply the saved plan.
    let apply = workspace.ok(&["apply", "-input=false", "-no-color", "tfplan"]).context("apply")?;
    ensure!(apply.stdout.contains("Resources: 5 added, 0 changed, 0 destroyed."), "{apply}");
    let state = workspace.state_json()?;
    let name = state_values(&state, "random_string.name")?;
    let name_result = name["result"].as_str().context("no random_string result")?;
    ensure!(
        name_result.len() == 12
            && name_result.chars().all(|c| c.is_ascii_alphanumeric())
            && name_result.chars().filter(char::is_ascii_digit).count() >= 2
            && name["id"] == name["result"],
        "random_string: {}",
        pretty(name)
    );
    let password = password_of(&state)?;
    ensure!(password.chars().count() == 20, "password {password:?}");
    ensure!(
        !apply.stdout.contains(&password) && !apply.stderr.contains(&password),
        "apply printed the password\n{apply}"
    );
    ensure!(
        resource_in_state(&state, "random_password.db")?["sensitive_values"]["result"] == true,
        "the state does not mark the password sensitive"
    );
    let port = integer_result(&state)?;
    ensure!((1..=100).contains(&port) && port != 2 && port != 3, "port {port}");
    ensure!(state_values(&state, "random_integer.port")?["id"] == port.to_string());
    let uuid =
        state_values(&state, "random_uuid.id")?["result"].as_str().context("no uuid")?.to_owned();
    ensure!(is_uuid_v4(&uuid), "not a version 4 UUID: {uuid}");
    let region = &state_values(&state, "random_choice.region")?["result"];
    ensure!(region == "eu" || region == "us", "region {region}");
    // Seeded: this order is the same on every read and in every version of the provider.
    ensure!(
        state_values(&state, "data.random_shuffle.zones")?["result"] == json!(["c", "a", "b"]),
        "{}",
        pretty(&state)
    );

    // The provider function in an output, next to Terraform's own uuidv5 for the same input.
    let outputs = workspace.json(&["output", "-json"])?;
    ensure!(
        outputs["uuid"]["value"] == PYTHON_ORG_UUID
            && outputs["builtin_uuid"]["value"] == PYTHON_ORG_UUID,
        "{}",
        pretty(&outputs)
    );
    ensure!(outputs["password"]["sensitive"] == true);
    let all = workspace.ok(&["output", "-no-color"])?;
    ensure!(
        all.stdout.contains("password = <sensitive>") && !all.stdout.contains(&password),
        "{all}"
    );

    // A second plan has nothing to do.
    let replan = workspace.run(&["plan", "-input=false", "-no-color", "-detailed-exitcode"])?;
    ensure!(replan.code == Some(0), "second plan is not empty\n{replan}");
    ensure!(replan.stdout.contains("No changes."), "{replan}");

    // A wider range still holds the number: an update in place that keeps it.
    workspace.write("terraform.tfvars", "max = 1000\n")?;
    let (run, plan) = workspace.plan_json(&[]).context("update plan")?;
    ensure!(run.code == Some(2), "{run}");
    ensure!(actions(&plan, "random_integer.port") == ["update"], "{:?}", plan_actions(&plan));
    run.shows(&["# random_integer.port will be updated in-place"])?;
    for address in MANAGED.iter().filter(|a| **a != "random_integer.port") {
        ensure!(actions(&plan, address) == ["no-op"], "{address} changes\n{run}");
    }
    let apply = workspace.ok(&["apply", "-input=false", "-no-color", "tfplan"])?;
    ensure!(apply.stdout.contains("Resources: 0 added, 1 changed, 0 destroyed."), "{apply}");
    let state = workspace.state_json()?;
    ensure!(integer_result(&state)? == port, "the update drew a new number");
    ensure!(state_values(&state, "random_integer.port")?["max"] == 1000);

    // Two replacements: new keepers replace the password; a range that rules the number out
    // replaces the integer (the provider's plan decides that from the prior result).
    let (min, max) = (port + 1, port + 11);
    workspace
        .write("terraform.tfvars", &format!("rotation = \"two\"\nmin = {min}\nmax = {max}\n"))?;
    let (run, plan) = workspace.plan_json(&[]).context("replacement plan")?;
    ensure!(run.code == Some(2), "{run}");
    // Both ends of the range moved; either would have ruled the number out.
    for (address, paths) in [
        ("random_password.db", vec![json!(["keepers"])]),
        ("random_integer.port", vec![json!(["max"]), json!(["min"])]),
    ] {
        let change = resource_change(&plan, address)?;
        let mut replace_paths =
            change["change"]["replace_paths"].as_array().cloned().unwrap_or_default();
        replace_paths.sort_by_key(Value::to_string);
        ensure!(
            change["change"]["actions"] == json!(["delete", "create"])
                && change["action_reason"] == "replace_because_cannot_update"
                && replace_paths == paths,
            "{}",
            pretty(change)
        );
    }
    ensure!(
        block_of(&run.stdout, "random_password.db").contains("~ result      = (sensitive value)"),
        "{run}"
    );
    let apply = workspace.ok(&["apply", "-input=false", "-no-color", "tfplan"])?;
    ensure!(apply.stdout.contains("Resources: 2 added, 0 changed, 2 destroyed."), "{apply}");
    let state = workspace.state_json()?;
    let new_password = password_of(&state)?;
    ensure!(new_password != password, "the password was not drawn again");
    ensure!(!apply.stdout.contains(&new_password) && !apply.stdout.contains(&password), "{apply}");
    let new_port = integer_result(&state)?;
    ensure!((min..=max).contains(&new_port), "port {new_port} not in {min}..={max}");
    ensure!(
        state_values(&state, "random_uuid.id")?["result"] == uuid.as_str(),
        "an unrelated resource changed"
    );

    // refresh, both spellings: reads keep what was drawn.
    workspace.ok(&["refresh", "-input=false", "-no-color"])?;
    assert_same("state after refresh", &state, &workspace.state_json()?)?;
    let refresh_only =
        workspace.ok(&["apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(refresh_only.stdout.contains("No changes."), "{refresh_only}");
    assert_same("state after apply -refresh-only", &state, &workspace.state_json()?)?;

    let destroy = workspace.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(destroy.stdout.contains("Destroy complete! Resources: 5 destroyed."), "{destroy}");
    ensure!(state_resources(&workspace.state_json()?).is_empty());
    Ok(())
}

#[test]
fn random_integer_imports_from_result_min_max() -> anyhow::Result<()> {
    let workspace = workspace_with(
        "resource \"random_integer\" \"imported\" {\n  min = 1\n  max = 20\n}\n\n\
         resource \"random_integer\" \"bad_id\" {\n  min = 1\n  max = 20\n}\n",
    )?;
    workspace.init()?;

    let import = workspace.ok(&[
        "import",
        "-input=false",
        "-no-color",
        "random_integer.imported",
        "15,1,20",
    ])?;
    ensure!(import.stdout.contains("Import successful!"), "{import}");
    let state = workspace.state_json()?;
    let imported = state_values(&state, "random_integer.imported")?;
    ensure!(
        imported["result"] == 15 && imported["id"] == "15" && imported["min"] == 1,
        "{}",
        pretty(imported)
    );

    // An ID in the wrong form is refused with the provider's explanation.
    let bad = workspace
        .run_expect(&["import", "-input=false", "-no-color", "random_integer.bad_id", "15,1"], 1)?;
    ensure!(bad.error_summaries() == ["Invalid import ID"], "{bad}");
    ensure!(bad.stderr.contains("RESULT,MIN,MAX"), "{bad}");

    // The imported resource matches its configuration: only bad_id remains to be created.
    let (run, plan) = workspace.plan_json(&[])?;
    ensure!(run.code == Some(2), "{run}");
    ensure!(actions(&plan, "random_integer.imported") == ["no-op"], "{run}");
    ensure!(actions(&plan, "random_integer.bad_id") == ["create"], "{run}");

    // The same through an `import` block, planned with the rest of the configuration.
    workspace
        .write("import.tf", "import {\n  to = random_integer.bad_id\n  id = \"7,1,20\"\n}\n")?;
    let (run, plan) = workspace.plan_json(&[])?;
    ensure!(run.stdout.contains("1 to import"), "{run}");
    let change = resource_change(&plan, "random_integer.bad_id")?;
    ensure!(
        change["change"]["importing"]["id"] == "7,1,20" && change["change"]["after"]["result"] == 7,
        "{}",
        pretty(change)
    );
    Ok(())
}

/// A diagnostic as (address, summary, the configuration line it points at).
type Located = (String, String, String);

/// `terraform validate -json`, expected to fail: the report, and each diagnostic.
fn validation_errors(workspace: &Workspace) -> anyhow::Result<(Value, BTreeSet<Located>)> {
    let validate = workspace.run_expect(&["validate", "-json"], 1)?;
    let report: Value = serde_json::from_str(&validate.stdout)
        .with_context(|| format!("validate -json printed no JSON\n{validate}"))?;
    let mut found = BTreeSet::new();
    for diagnostic in report["diagnostics"].as_array().context("no diagnostics")? {
        found.insert((
            diagnostic["address"].as_str().unwrap_or_default().to_owned(),
            diagnostic["summary"].as_str().unwrap_or_default().to_owned(),
            diagnostic["snippet"]["code"].as_str().unwrap_or_default().trim().to_owned(),
        ));
    }
    Ok((report, found))
}

/// A configured value for an attribute only the provider sets (`id`, `result`) is a validation
/// error naming it, as Go providers give, not Terraform's "inconsistent result" at apply.
#[test]
fn a_configured_computed_only_attribute_is_a_validation_error() -> anyhow::Result<()> {
    let workspace = workspace_with(
        "\nresource \"random_string\" \"mine\" {\n  length = 4\n  id     = \"mine\"\n  result = \"abcd\"\n}\n",
    )?;
    workspace.init()?;
    let (report, found) = validation_errors(&workspace)?;
    let expected: BTreeSet<(String, String, String)> = [
        ("random_string.mine", "Value for a read-only attribute", "id     = \"mine\""),
        ("random_string.mine", "Value for a read-only attribute", "result = \"abcd\""),
    ]
    .into_iter()
    .map(|(a, s, c)| (a.to_owned(), s.to_owned(), c.to_owned()))
    .collect();
    ensure!(found == expected, "diagnostics: {found:?}\n{}", pretty(&report));
    // The plan stops there too, with the detail saying what to do.
    let plan = workspace.run_expect(&["plan", "-input=false", "-no-color"], 1)?;
    // Terraform wraps the detail; compare its words.
    let words = plan.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    ensure!(
        words.contains("id of resource \"random_string\" is read-only")
            && words.contains("Remove id from the configuration."),
        "{plan}"
    );
    Ok(())
}

#[test]
fn random_errors_point_at_the_attribute() -> anyhow::Result<()> {
    let workspace = workspace_with(
        r#"
resource "random_string" "short" {
  length = 0
}

resource "random_integer" "backwards" {
  min = 10
  max = 5
}

resource "random_choice" "weightless" {
  option {
    value = "a"
  }
  option {
    value  = "b"
    weight = 0
  }
}
"#,
    )?;
    workspace.init()?;

    // Each diagnostic is attached to the line of the attribute the provider named.
    let (report, found) = validation_errors(&workspace)?;
    let expected: BTreeSet<(String, String, String)> = [
        ("random_string.short", "Invalid length", "length = 0"),
        ("random_integer.backwards", "Invalid range", "max = 5"),
        ("random_choice.weightless", "Invalid weight", "weight = 0"),
    ]
    .into_iter()
    .map(|(a, s, c)| (a.to_owned(), s.to_owned(), c.to_owned()))
    .collect();
    ensure!(found == expected, "diagnostics: {found:?}\n{}", pretty(&report));

    // The human form shows the same line.
    let validate = workspace.run_expect(&["validate", "-no-color"], 1)?;
    ensure!(
        validate.stderr.contains("Error: Invalid length")
            && validate.stderr.contains("length = 0")
            && validate.stderr.contains("The length must be from 1 to 65536, not 0."),
        "{validate}"
    );

    // A provider function's error names the argument at fault.
    let workspace = workspace_with(
        "output \"bad\" {\n  value = provider::random::uuid_v5(\"galaxy\", \"x\")\n}\n",
    )?;
    workspace.init()?;
    let plan = workspace.run_expect(&["plan", "-input=false", "-no-color"], 1)?;
    ensure!(
        plan.error_summaries() == ["Invalid function argument"]
            && plan.stderr.contains("Invalid value for \"namespace\" parameter")
            && plan.stderr.contains("\"galaxy\" is not a namespace"),
        "{plan}"
    );
    Ok(())
}

/// The resource change for `address` in plan JSON.
fn resource_change<'a>(plan: &'a Value, address: &str) -> anyhow::Result<&'a Value> {
    plan["resource_changes"]
        .as_array()
        .and_then(|changes| changes.iter().find(|c| c["address"] == address))
        .with_context(|| format!("no change for {address} in {}", pretty(plan)))
}

fn actions(plan: &Value, address: &str) -> Vec<String> {
    plan_actions(plan)
        .into_iter()
        .find(|(a, _)| a == address)
        .map(|(_, actions)| actions)
        .unwrap_or_default()
}

/// The whole resource entry (values, sensitive_values, ...) in `terraform show -json` state.
fn resource_in_state<'a>(state: &'a Value, address: &str) -> anyhow::Result<&'a Value> {
    state["values"]["root_module"]["resources"]
        .as_array()
        .and_then(|resources| resources.iter().find(|r| r["address"] == address))
        .with_context(|| format!("no {address} in state"))
}

fn password_of(state: &Value) -> anyhow::Result<String> {
    Ok(state_values(state, "random_password.db")?["result"]
        .as_str()
        .context("no password")?
        .to_owned())
}

fn integer_result(state: &Value) -> anyhow::Result<i64> {
    state_values(state, "random_integer.port")?["result"]
        .as_i64()
        .context("random_integer.port has no whole-number result")
}

/// The part of human plan output about one resource, from its `# ADDRESS` header to the next.
fn block_of<'a>(text: &'a str, address: &str) -> &'a str {
    let header = format!("# {address} ");
    let Some(start) = text.find(&header) else {
        return "";
    };
    let rest = &text[start + header.len()..];
    let end = rest.find("\n  # ").unwrap_or(rest.len());
    &rest[..end]
}

fn is_uuid_v4(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && text.chars().all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c))
        && groups[2].starts_with('4')
        && groups[3].starts_with(['8', '9', 'a', 'b'])
}

/// Keeps the helpers honest about what they parse.
#[test]
fn plan_text_blocks_and_uuid_checks() {
    let text = "  # random_password.db will be created\n  + resource {\n      + result = (sensitive value)\n    }\n\n  # random_string.name will be created\n  + resource {}\n";
    assert!(block_of(text, "random_password.db").contains("(sensitive value)"));
    assert!(!block_of(text, "random_string.name").contains("(sensitive value)"));
    assert_eq!(block_of(text, "random_uuid.id"), "");
    assert!(is_uuid_v4("cc5f51ec-79ae-42d9-8ea3-cd8d770ffac5"));
    assert!(!is_uuid_v4(PYTHON_ORG_UUID), "version 5");
    assert!(!is_uuid_v4("CC5F51EC-79AE-42D9-8EA3-CD8D770FFAC5"));
}

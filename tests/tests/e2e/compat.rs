//! The compatibility promise for components (docs/compatibility.md): a component built against
//! an earlier WIT version keeps working with this host. The fixture is examples/random built
//! against `terrarium:provider@0.2.0` and checked in (tests/fixtures/wit-0.2.0/, never
//! rebuilt); the current host must serve it through real terraform, as a user would run it.

use anyhow::{Context as _, ensure};
use terrarium_tests::json::{plan_actions, pretty, state_resources, state_values};
use terrarium_tests::{Provider, Workspace};

/// `provider::random::uuid_v5("dns", "python.org")`, as Python's `uuid.uuid5` computes it.
const PYTHON_ORG_UUID: &str = "886313e1-3b8a-5372-9b90-0c9aee199e5d";

/// Resources, a data source and a provider function of the old component.
const CONFIG: &str = r#"
resource "random_string" "name" {
  length  = 12
  special = false
}

resource "random_integer" "port" {
  min = 1
  max = 100
}

data "random_shuffle" "zones" {
  input        = ["a", "b", "c", "d"]
  seed         = "prod"
  result_count = 3
}

output "uuid" {
  value = provider::random::uuid_v5("dns", "python.org")
}

output "zones" {
  value = data.random_shuffle.zones.result
}
"#;

#[test]
fn the_fixture_is_built_against_wit_0_2_0() -> anyhow::Result<()> {
    let component = Provider::RandomWit020.component()?.context("a component")?;
    let bytes = std::fs::read(&component)?;
    let export = b"terrarium:provider/provider@0.2.0";
    ensure!(
        bytes.windows(export.len()).any(|w| w == export),
        "{} does not export terrarium:provider/provider@0.2.0: the fixture was replaced",
        component.display()
    );
    Ok(())
}

#[test]
fn a_component_built_against_wit_0_2_0_is_served_through_terraform() -> anyhow::Result<()> {
    let workspace = Workspace::new(&[Provider::RandomWit020])?;
    workspace.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n{CONFIG}",
            Provider::RandomWit020.required_providers_entry()
        ),
    )?;

    let init = workspace.init().context("init")?;
    ensure!(init.stdout.contains("Installed terrarium/random v0.1.0"), "{init}");

    let (run, plan) = workspace.plan_json(&[]).context("plan")?;
    ensure!(run.code == Some(2), "the first plan proposes no changes\n{run}");
    run.shows(&[
        "# random_string.name will be created",
        "# random_integer.port will be created",
        "Plan: 2 to add, 0 to change, 0 to destroy.",
    ])?;
    ensure!(
        plan["output_changes"]["uuid"]["after"] == PYTHON_ORG_UUID,
        "the function's result: {}",
        pretty(&plan["output_changes"])
    );

    let apply = workspace.ok(&["apply", "-input=false", "-no-color", "tfplan"]).context("apply")?;
    ensure!(apply.stdout.contains("Apply complete! Resources: 2 added"), "{apply}");
    let state = workspace.state_json()?;
    let name = state_values(&state, "random_string.name")?["result"].as_str().unwrap_or_default();
    ensure!(
        name.len() == 12 && name.chars().all(|c| c.is_ascii_alphanumeric()),
        "random_string.name: {}",
        pretty(&state)
    );
    let port = state_values(&state, "random_integer.port")?["result"].as_i64().unwrap_or_default();
    ensure!((1..=100).contains(&port), "random_integer.port: {port}");
    // Seeded: the same order in every version of the provider.
    ensure!(
        state_values(&state, "data.random_shuffle.zones")?["result"]
            == serde_json::json!(["c", "a", "b"]),
        "{}",
        pretty(&state)
    );

    let (again, plan) = workspace.plan_json(&[]).context("second plan")?;
    ensure!(
        again.code == Some(0) && again.stdout.contains("No changes."),
        "a plan after apply proposes changes: {:?}\n{again}",
        plan_actions(&plan)
    );

    let destroy = workspace.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(destroy.stdout.contains("Destroy complete! Resources: 2 destroyed."), "{destroy}");
    ensure!(state_resources(&workspace.state_json()?).is_empty(), "resources left after destroy");
    Ok(())
}

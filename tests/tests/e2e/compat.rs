//! The compatibility promise for components (docs/compatibility.md): a component built against
//! an earlier WIT version keeps working with this host. The fixture is examples/random built
//! against `terrarium:provider@0.2.0` and checked in (tests/fixtures/wit-0.2.0/, never
//! rebuilt); the current host must serve it through real terraform, as a user would run it.
//! A component newer than the host is refused with a message naming both versions.

use anyhow::{Context as _, ensure};
use terrarium_tests::json::{plan_actions, pretty, state_resources, state_values};
use terrarium_tests::mirror::{Mirror, terrarium_install};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Provider, Workspace};

/// `provider::random::uuid_v5("dns", "python.org")`, as Python's `uuid.uuid5` computes it.
const PYTHON_ORG_UUID: &str = "886313e1-3b8a-5372-9b90-0c9aee199e5d";

/// Resources, a data source and a provider function of the old component. Its own
/// configuration, not random.rs's: the fixture is frozen, random.rs follows today's example.
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

/// A component newer than the host (here: the fixture, its provider export renamed to WIT
/// 0.9.0) that reached a mirror without `terrarium install`, which would refuse it: terraform
/// shows why the host cannot serve it, naming both versions and what to do; nothing crashes.
#[test]
fn a_component_newer_than_the_host_is_refused_naming_both_versions() -> anyhow::Result<()> {
    let fixture = Provider::RandomWit020.component()?.context("a component")?;
    let scratch = tempfile::tempdir()?;
    let mirror = Mirror::at(scratch.path().join("mirror"))?;
    let installed = terrarium_install(
        &fixture,
        Provider::RandomWit020.source(),
        Provider::RandomWit020.version(),
        mirror.root(),
    )?;
    ensure!(installed.status.success(), "install: {}", String::from_utf8_lossy(&installed.stderr));
    let newer = crate::install_cli::replace_all(
        &std::fs::read(&fixture)?,
        b"terrarium:provider/provider@0.2.0",
        b"terrarium:provider/provider@0.9.0",
    );
    std::fs::write(mirror.package_dir(Provider::RandomWit020).join("provider.wasm"), newer)?;

    let workspace = Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    \
         path    = {}\n    include = [\"{}\"]\n  }}\n}}\n",
        hcl_string(&mirror.root().to_string_lossy()),
        Provider::RandomWit020.source()
    ))?;
    workspace.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\
             resource \"random_string\" \"name\" {{\n  length = 4\n}}\n",
            Provider::RandomWit020.required_providers_entry()
        ),
    )?;
    workspace.init()?;
    let plan = workspace.run(&["plan", "-input=false", "-no-color"])?;
    ensure!(plan.code == Some(1), "a plan with a component newer than the host\n{plan}");
    let shown = plan.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let speaks = format!("speaks version {}", terrarium_tests::wit_version());
    for expected in [
        "Failed to load the provider component",
        "was built for terrarium:provider version 0.9.0",
        speaks.as_str(),
        "rebuild the provider against terrarium-sdk",
        "or use a terrarium release that",
    ] {
        ensure!(shown.contains(expected), "terraform does not say {expected:?}\n{plan}");
    }
    ensure!(!shown.contains("panic") && !shown.contains("Plugin did not respond"), "{plan}");
    Ok(())
}

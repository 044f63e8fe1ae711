//! `make demo`, the first thing a person runs: scripts/demo against this build, in a
//! directory of its own, read the way that person reads it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::ensure;
use terrarium_tests::workspace::run_with_timeout;
use terrarium_tests::{Artifacts, shown};

/// What the demo prints, in this order, when every step did what its heading says.
const EXPECTED: &[&str] = &[
    "==> terraform providers lock",
    "Terraform has updated the lock file.",
    "==> terraform init",
    "Terraform has been successfully initialized!",
    "==> terraform apply",
    "# pets_pet.rex will be created",
    "Apply complete! Resources: 5 added, 0 changed, 0 destroyed.",
    "pet_greeting = \"Hello, rex!\"",
    "==> terraform plan (again: nothing to change)",
    "No changes. Your infrastructure matches the configuration.",
    "terraform.tfstate mentions it 0 times",
    "==> terraform query",
    "list.files_file.out",
    "Action complete: action.files_touch.stamp",
    "Apply complete! Resources: 0 added, 0 changed, 0 destroyed. Actions: 1 invoked.",
    "Destroy complete! Resources: 5 destroyed.",
    "==> Demo complete.",
];

/// The same with OpenTofu (`TERRAFORM=build/tools/bin/tofu make demo`): no actions and no
/// `query`, said so.
const EXPECTED_TOFU: &[&str] = &[
    "==> terraform providers lock",
    "OpenTofu has updated the lock file.",
    "==> terraform init",
    "OpenTofu has been successfully initialized!",
    "==> terraform apply",
    "# pets_pet.rex will be created",
    "Apply complete! Resources: 5 added, 0 changed, 0 destroyed.",
    "pet_greeting = \"Hello, rex!\"",
    "==> terraform plan (again: nothing to change)",
    "No changes. Your infrastructure matches the configuration.",
    "terraform.tfstate mentions it 0 times",
    "==> skipped: terraform query and apply -invoke (OpenTofu has no list resources and no actions)",
    "Destroy complete! Resources: 5 destroyed.",
    "==> Demo complete.",
];

#[test]
fn the_demo_runs_every_step_and_shows_every_plan() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    run_demo(&artifacts.terraform, EXPECTED)
}

#[test]
fn the_demo_runs_with_opentofu() -> anyhow::Result<()> {
    run_demo(&Artifacts::get()?.go_tool("tofu")?, EXPECTED_TOFU)
}

/// Runs scripts/demo with `terraform` and checks that it shows `expected`, in this order.
fn run_demo(terraform: &Path, expected: &[&str]) -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let scratch = tempfile::tempdir_in(&artifacts.scratch_root)?;
    let mut command = Command::new("bash");
    command
        .arg(artifacts.repo_root.join("scripts/demo"))
        .env("TERRARIUM_BIN", artifacts.terrarium()?)
        .env("COMPONENT_DIR", &artifacts.components_dir)
        .env("TERRAFORM", terraform)
        .env("DEMO_DIR", scratch.path())
        .env_remove("TF_CLI_CONFIG_FILE")
        .stdin(Stdio::null());
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(600))?;
    let shown = shown::without_colour(&stdout);
    ensure!(code == Some(0), "the demo failed (exit {code:?}):\n{shown}\n--- stderr\n{stderr}");
    let mut rest = shown.as_str();
    for expected in expected {
        let Some(at) = rest.find(expected) else {
            anyhow::bail!("the demo never showed {expected:?} where it should:\n{shown}");
        };
        rest = &rest[at + expected.len()..];
    }
    ensure!(!shown.contains("Error:"), "the demo showed an error:\n{shown}");
    // A warning is something a person should not have to read in a demo (init's "Incomplete
    // lock file information" included: the demo locks the mirror's checksums first).
    let warnings: Vec<&str> = shown.lines().filter(|l| l.contains("Warning:")).collect();
    ensure!(warnings.is_empty(), "the demo showed warnings {warnings:?}:\n{shown}");
    Ok(())
}

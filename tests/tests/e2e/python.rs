//! Providers written in Python (guest-sdk/python), built with componentize-py: the host
//! serves them like any component, and the SDK's own tests (pytest, through `terrarium
//! harness`) pass.

use std::process::Command;

use anyhow::{Context as _, ensure};
use terrarium_tests::{Artifacts, Provider};

use crate::inspect::inspect_matches_terraform;

#[test]
fn pets_py_inspect_matches_terraform_providers_schema() -> anyhow::Result<()> {
    inspect_matches_terraform(Provider::PetsPy)
}

/// Runs pytest on `paths` (relative to the repository) with the SDK importable and the
/// harness pointed at this build's host and components.
pub fn pytest(paths: &[&str]) -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let repo = &artifacts.repo_root;
    let python = repo.join(".venv/bin/python3");
    ensure!(python.is_file(), "{} is missing; run scripts/setup", python.display());
    let output = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(paths)
        .current_dir(repo)
        .env("PYTHONPATH", repo.join("guest-sdk/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("TERRARIUM_BIN", artifacts.terrarium()?)
        .env("TERRARIUM_COMPONENTS_DIR", &artifacts.components_dir)
        .env("TERRAFORM", &artifacts.terraform)
        .env("TMPDIR", &artifacts.scratch_root)
        .output()
        .context("running pytest")?;
    ensure!(
        output.status.success(),
        "pytest {} failed ({}):\n{}{}",
        paths.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

#[test]
fn the_python_sdk_tests_pass() -> anyhow::Result<()> {
    pytest(&["guest-sdk/python/tests/test_schema.py", "guest-sdk/python/tests/test_wire.py"])
}

/// guest-sdk/python/README.md as a newcomer follows it: written, built, tested, installed,
/// applied by terraform, and served by `terrarium dev --build`.
#[test]
#[ignore = "needs the host to plan from the behaviour interface (docs/planning.md step 3)"]
fn the_python_readme_walkthrough_runs_as_written() -> anyhow::Result<()> {
    pytest(&["guest-sdk/python/tests/test_readme.py"])
}

/// examples/pets/python against SPEC.md, through `terrarium harness` (the host's planner).
#[test]
#[ignore = "needs the host to plan from the behaviour interface (docs/planning.md step 3)"]
fn the_python_pets_pass_their_harness_tests() -> anyhow::Result<()> {
    pytest(&["examples/pets/python"])
}

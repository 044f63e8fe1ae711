//! Providers written in Python (guest-sdk/python), built with componentize-py: the host
//! serves them like any component, and the SDK's own tests (pytest, through `terrarium
//! harness`) pass.

use std::process::Command;

use anyhow::{Context as _, ensure};
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Workspace};

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
    pytest(&[
        "guest-sdk/python/tests/test_schema.py",
        "guest-sdk/python/tests/test_wire.py",
        "guest-sdk/python/tests/test_dev_runtime.py",
    ])
}

/// A failed `python -m terrarium.build` says what is wrong in a line (a syntax error, a module
/// that exports nothing, a default that does not fit its field), not componentize-py's
/// backtraces.
#[test]
fn a_failed_python_build_says_what_is_wrong_in_one_line() -> anyhow::Result<()> {
    pytest(&["guest-sdk/python/tests/test_build.py"])
}

/// `terrarium.http` in a built component, through the harness: a granted origin (a real
/// local server) is reached, with a request body; an ungranted one is refused by the sandbox
/// with a diagnostic naming the grant, and its server sees no request.
#[test]
fn the_python_sdk_reaches_granted_http_origins_only() -> anyhow::Result<()> {
    pytest(&["guest-sdk/python/tests/test_http.py"])
}

/// guest-sdk/python/README.md as a newcomer follows it: written, built, tested, installed,
/// applied by terraform, and served by `terrarium dev --build`.
#[test]
fn the_python_readme_walkthrough_runs_as_written() -> anyhow::Result<()> {
    pytest(&["guest-sdk/python/tests/test_readme.py"])
}

/// examples/pets/python against SPEC.md, through `terrarium harness` (the host's planner).
#[test]
fn the_python_pets_pass_their_harness_tests() -> anyhow::Result<()> {
    pytest(&["examples/pets/python"])
}

/// What needs no plan goes through terraform already: the installed Python pets read a file
/// in their granted directory (a data source), call their function, and what they log reaches
/// TF_LOG_PROVIDER.
#[test]
fn pets_py_reads_granted_files_calls_its_function_and_logs_through_terraform() -> anyhow::Result<()>
{
    let scratch = tempfile::tempdir()?;
    let dir = scratch.path().canonicalize()?.join("pets");
    std::fs::create_dir(&dir)?;
    std::fs::write(dir.join("pet-7.json"), r#"{"name": "rex", "species": "cat", "legs": 3}"#)?;
    let ws = Workspace::with_installs(&[(Provider::PetsPy, &allow_dir_rw(&dir))])?;
    let config = format!(
        "{}\nprovider \"pets\" {{\n  directory = {}\n}}\n\
         data \"pets_pet\" \"rex\" {{\n  id = \"pet-7\"\n}}\n\
         output \"greeting\" {{\n  value = provider::pets::greeting(data.pets_pet.rex.name)\n}}\n\
         output \"legs\" {{\n  value = data.pets_pet.rex.legs\n}}\n",
        required_providers(&[Provider::PetsPy]),
        hcl_string(&dir.to_string_lossy())
    );
    ws.write("main.tf", &config)?;
    ws.init()?;
    let log = scratch.path().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let apply = ["apply", "-auto-approve", "-input=false", "-no-color"];
    let run =
        ws.run_with_env(&apply, &[("TF_LOG_PROVIDER", "INFO"), ("TF_LOG_PATH", &log_path)])?;
    ensure!(run.code == Some(0), "apply failed\n{run}");
    ensure!(
        run.stdout.contains("greeting = \"Hello, rex!\"") && run.stdout.contains("legs = 3"),
        "{run}"
    );
    let text =
        std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    ensure!(
        text.lines().any(|l| l.contains("read a pet") && l.contains("pet-7")),
        "no \"read a pet\" in the provider log:\n{}",
        text.lines().filter(|l| l.contains("pets")).collect::<Vec<_>>().join("\n")
    );
    Ok(())
}

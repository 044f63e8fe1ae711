//! Pulumi: `tests/pulumi/` (pytest, with the PyPI `pulumi` package's generated gRPC stubs in
//! the repository's venv) plays Pulumi's engine. It installs the example components with
//! `terrarium install --pulumi`, starts each `pulumi-resource-NAME` with the engine's address
//! as the engine does, reads the port line, dials it and drives whole lifecycles; the protocol
//! assertions run as well against a reference plugin built on the `pulumi` package's own
//! provider server. (The real CLI checks the package schemas: `pulumi_cli.rs`.)

use std::process::{Command, Stdio};

use anyhow::{Context as _, ensure};
use terrarium_tests::Artifacts;

#[test]
fn the_engine_stand_in_passes_against_terrarium_and_the_reference_plugin() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let python = artifacts.repo_root.join(".venv/bin/python3");
    ensure!(python.exists(), "{} is missing; run scripts/setup", python.display());
    // Each installed plugin holds a copy of terrarium-provider: removed afterwards.
    let scratch = artifacts.scratch_root.join("pulumi");
    let output = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp"])
        .arg(&scratch)
        .arg(artifacts.repo_root.join("tests/pulumi"))
        .current_dir(artifacts.repo_root.join("tests/pulumi"))
        .env("TERRARIUM_BIN", artifacts.terrarium()?)
        .env("TERRARIUM_COMPONENTS_DIR", &artifacts.components_dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .output()
        .context("running pytest")?;
    let _ = std::fs::remove_dir_all(&scratch);
    ensure!(
        output.status.success(),
        "the tests through the Pulumi engine stand-in failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

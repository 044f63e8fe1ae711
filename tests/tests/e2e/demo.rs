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

fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A directory of links to every program on this PATH except `hidden`: the PATH of a machine
/// where those are not installed.
fn path_without(hidden: &[&str]) -> anyhow::Result<(tempfile::TempDir, std::ffi::OsString)> {
    let farm = tempfile::Builder::new().prefix("path-without-").tempdir()?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let link = farm.path().join(&name);
            if hidden.iter().any(|h| name == *h) || link.symlink_metadata().is_ok() {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), link)?;
        }
    }
    let path = std::env::join_paths([farm.path()])?;
    Ok((farm, path))
}

/// `scripts/setup --demo` on a machine without `hidden`, as `make demo` runs it.
fn setup_for_the_demo_without(hidden: &[&str]) -> anyhow::Result<(Option<i32>, String)> {
    let (_farm, path) = path_without(hidden)?;
    let mut command = Command::new("bash");
    command
        .arg(repo_root().join("scripts/setup"))
        .arg("--demo")
        .env("PATH", path)
        .env_remove("TERRAFORM")
        .stdin(Stdio::null());
    let (code, _stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(600))?;
    Ok((code, stderr))
}

/// What only the tests need: the linux_arm64 cross toolchain and its emulator, Go (the Go
/// guests, OpenTofu and the Pulumi CLI), and root's way of installing them.
const TEST_ONLY_TOOLS: &[&str] =
    &["aarch64-linux-gnu-gcc", "qemu-aarch64-static", "go", "apt-get", "sudo"];

#[test]
fn setup_for_the_demo_needs_no_cross_toolchain_no_go_and_no_root() -> anyhow::Result<()> {
    let (code, stderr) = setup_for_the_demo_without(TEST_ONLY_TOOLS)?;
    ensure!(
        code == Some(0),
        "scripts/setup --demo failed without the tests' tools (exit {code:?}):\n{stderr}"
    );
    Ok(())
}

#[test]
fn setup_for_the_demo_names_what_is_missing_and_how_to_get_it() -> anyhow::Result<()> {
    let hidden = [TEST_ONLY_TOOLS, &["node", "npm"]].concat();
    let (code, stderr) = setup_for_the_demo_without(&hidden)?;
    ensure!(
        code == Some(1),
        "scripts/setup --demo without node should fail (exit {code:?}):\n{stderr}"
    );
    ensure!(
        stderr.contains("make demo needs these, which are missing")
            && stderr.contains("node and npm")
            && stderr.contains("https://nodejs.org"),
        "scripts/setup --demo should say that node is missing and where to get it:\n{stderr}"
    );
    ensure!(
        !stderr.contains("aarch64") && !stderr.contains("go.dev"),
        "scripts/setup --demo should not ask for what only the tests need:\n{stderr}"
    );
    Ok(())
}

/// `make demo` builds the host and the four providers the demo installs, not the test fixtures
/// nor the Python and Go guests, and sets up only what the demo needs.
#[test]
fn make_demo_builds_only_what_the_demo_uses() -> anyhow::Result<()> {
    let mut command = Command::new("make");
    command
        .args(["-n", "demo"])
        .current_dir(repo_root())
        .env_remove("MAKEFLAGS")
        .env_remove("MAKELEVEL")
        .env_remove("MFLAGS")
        .stdin(Stdio::null());
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(120))?;
    ensure!(code == Some(0), "make -n demo failed (exit {code:?}):\n{stdout}\n{stderr}");
    ensure!(
        stdout.lines().any(|l| l.trim() == "scripts/setup --demo"),
        "make demo should run `scripts/setup --demo`:\n{stdout}"
    );
    for needed in [
        "-p terrarium",
        "-p null-provider",
        "-p random-provider",
        "-p files-provider",
        "pets_ts.wasm",
    ] {
        ensure!(stdout.contains(needed), "make demo should build {needed:?}:\n{stdout}");
    }
    for unneeded in [
        "faulty-provider",
        "hostile-provider",
        "slow-provider",
        "declaring-provider",
        "etcd-provider",
        "pets-rs",
        "pets_py",
        "web_py",
        "pets_go",
        "aarch64",
    ] {
        ensure!(!stdout.contains(unneeded), "make demo should not build {unneeded:?}:\n{stdout}");
    }
    Ok(())
}

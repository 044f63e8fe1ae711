//! The sandbox through real terraform: grants written by `terrarium install`, a provider that
//! loops forever stopped at its timeout while the rest of the run applies, and examples/files
//! working inside a granted directory and refused outside it.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use terrarium_tests::json::state_resources;
use terrarium_tests::mirror::{Mirror, terrarium_install_with};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Workspace};

/// Installs `provider` with `grants` (install flags) into its own mirror under `root`, and a
/// workspace that takes the provider from there.
pub(crate) fn workspace_with_grants(
    provider: Provider,
    root: &Path,
    grants: &[String],
) -> anyhow::Result<Workspace> {
    let crate_name = provider.component_crate().context("a component provider")?;
    let component = Artifacts::get()?.component(crate_name)?;
    let mirror = Mirror::at(root.join("mirror"))?;
    let output = terrarium_install_with(
        &component,
        provider.source(),
        provider.version(),
        mirror.root(),
        grants,
    )?;
    if !output.status.success() {
        bail!(
            "`terrarium install` failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [\"{}\"]\n  }}\n}}\n",
        hcl_string(&mirror.root().to_string_lossy()),
        provider.source()
    ))
}

pub(crate) fn required(provider: Provider) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n",
        provider.required_providers_entry()
    )
}

pub(crate) const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];

#[test]
fn an_endless_loop_fails_apply_at_the_granted_timeout_and_the_other_resources_apply()
-> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let ws = workspace_with_grants(
        Provider::Hostile,
        scratch.path(),
        &["--timeout".into(), "3s".into()],
    )?;
    ws.write(
        "main.tf",
        &format!(
            "{}\nresource \"hostile_probe\" \"looping\" {{\n  attack = \"loop\"\n}}\n\
             \nresource \"hostile_probe\" \"healthy\" {{\n  attack = \"env-all\"\n}}\n",
            required(Provider::Hostile)
        ),
    )?;
    ws.init()?;

    let started = Instant::now();
    let run = ws.run_expect(APPLY, 1)?;
    // Generous: this checks the run ends because of the timeout, not how fast terraform is.
    ensure!(started.elapsed() < Duration::from_secs(120), "apply took {:?}", started.elapsed());
    ensure!(
        run.error_summaries().iter().any(|e| e == "Provider timed out"),
        "no timeout error\n{run}"
    );
    for needle in
        ["ApplyResourceChange for resource \"hostile_probe\"", "time limit of 3s", "--timeout"]
    {
        ensure!(run.stderr.contains(needle), "stderr lacks {needle:?}\n{run}");
    }
    let state = ws.state_json()?;
    let addresses: Vec<String> =
        state_resources(&state).into_iter().map(|(address, _)| address).collect();
    ensure!(addresses == ["hostile_probe.healthy"], "state holds {addresses:?}");
    Ok(())
}

#[test]
fn files_live_only_inside_the_granted_directory_with_drift_and_import() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let granted = root.join("granted");
    fs::create_dir(&granted)?;
    let ws = workspace_with_grants(
        Provider::Files,
        &root,
        &["--allow-dir".into(), format!("{}:rw", granted.display())],
    )?;
    let inside = granted.join("dir/hello.txt");
    let outside = root.join("outside.txt");
    let resource = |name: &str, path: &Path, content: &str| {
        format!(
            "\nresource \"files_file\" \"{name}\" {{\n  filename = {}\n  content  = {}\n}}\n",
            hcl_string(&path.to_string_lossy()),
            hcl_string(content)
        )
    };
    let base = format!("{}{}", required(Provider::Files), resource("inside", &inside, "hello"));
    ws.write("main.tf", &format!("{base}{}", resource("outside", &outside, "nope")))?;
    ws.init()?;

    // Outside the grant: refused, with the grant that would allow it; inside: written.
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(run.stderr.contains("--allow-dir"), "the error names the grant\n{run}");
    ensure!(!outside.exists(), "a file was written outside the grant");
    ensure!(fs::read_to_string(&inside)? == "hello", "the granted file was not written");

    ws.write("main.tf", &base)?;
    ws.ok(APPLY)?;
    let plan =
        |ws: &Workspace| ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"]);
    let run = plan(&ws)?;
    ensure!(run.code == Some(0), "expected no changes\n{run}");

    // Drift: an edit on disk is planned as a replacement and repaired by apply.
    fs::write(&inside, "edited behind terraform's back")?;
    let run = plan(&ws)?;
    ensure!(
        run.code == Some(2) && run.stdout.contains("must be replaced"),
        "drift not detected\n{run}"
    );
    ws.ok(APPLY)?;
    ensure!(fs::read_to_string(&inside)? == "hello");
    // A deleted file is planned for creation.
    fs::remove_file(&inside)?;
    let run = plan(&ws)?;
    ensure!(
        run.code == Some(2) && run.stdout.contains("will be created"),
        "deletion not detected\n{run}"
    );
    ws.ok(APPLY)?;
    ensure!(fs::read_to_string(&inside)? == "hello");

    // Import an existing file.
    let existing = granted.join("existing.txt");
    fs::write(&existing, "already here")?;
    ws.write("main.tf", &format!("{base}{}", resource("existing", &existing, "already here")))?;
    ws.ok(&[
        "import",
        "-input=false",
        "-no-color",
        "files_file.existing",
        &existing.to_string_lossy(),
    ])?;
    let run = plan(&ws)?;
    ensure!(
        run.code == Some(0),
        "an imported file matching its configuration needs no change\n{run}"
    );

    ws.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(!inside.exists() && !existing.exists(), "destroy removes the files");
    Ok(())
}

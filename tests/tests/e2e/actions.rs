//! Actions through real terraform: examples/files' `files_touch` invoked with
//! `terraform apply -invoke=action.files_touch.t` creates the missing files, updates the
//! modification time of existing ones, and streams its progress messages to terraform.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::ensure;
use terrarium_tests::json::state_resources;
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Provider, Workspace};

/// The directory `granted` in `scratch`, created: the one the provider may write to.
fn granted_dir(scratch: &tempfile::TempDir) -> anyhow::Result<PathBuf> {
    let granted = scratch.path().canonicalize()?.join("granted");
    fs::create_dir(&granted)?;
    Ok(granted)
}

/// An initialised workspace whose files provider may write to `granted` and whose
/// configuration declares `action.files_touch.t` over `paths`.
fn touch_workspace(granted: &Path, paths: &[&Path]) -> anyhow::Result<Workspace> {
    let ws = Workspace::with_installs(&[(Provider::Files, &allow_dir_rw(granted))])?;
    let paths: Vec<String> = paths.iter().map(|p| hcl_string(&p.to_string_lossy())).collect();
    ws.write(
        "main.tf",
        &format!(
            "{}\naction \"files_touch\" \"t\" {{\n  config {{\n    paths = [{}]\n  }}\n}}\n",
            required_providers(&[Provider::Files]),
            paths.join(", ")
        ),
    )?;
    ws.init()?;
    Ok(ws)
}

#[test]
fn invoking_files_touch_creates_and_touches_files_and_reports_progress() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let granted = granted_dir(&scratch)?;
    let missing = granted.join("new.txt");
    let existing = granted.join("old.txt");
    fs::write(&existing, "keep me")?;
    // An old modification time, so that a touch is visible whatever the clock's resolution.
    let long_ago = SystemTime::now() - Duration::from_secs(10 * 24 * 3600);
    fs::File::options().write(true).open(&existing)?.set_modified(long_ago)?;
    let before = fs::metadata(&existing)?.modified()?;

    let ws = touch_workspace(&granted, &[&missing, &existing])?;

    // Declaring an action does nothing by itself.
    let plan = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(plan.code == Some(0), "a plan without -invoke has something to do\n{plan}");
    ensure!(!missing.exists(), "a plan ran the action");

    // A plan for the invocation shows it, and still touches nothing.
    let plan = ws.run(&["plan", "-invoke=action.files_touch.t", "-input=false", "-no-color"])?;
    ensure!(plan.code == Some(0) && plan.stdout.contains("action.files_touch.t"), "{plan}");
    ensure!(!missing.exists(), "planning the invocation ran the action");

    let run = ws.ok(&[
        "apply",
        "-invoke=action.files_touch.t",
        "-auto-approve",
        "-input=false",
        "-no-color",
    ])?;
    ensure!(
        missing.exists() && fs::read(&missing)?.is_empty(),
        "the missing file was not created empty\n{run}"
    );
    ensure!(
        fs::read_to_string(&existing)? == "keep me",
        "touch changed the content of an existing file"
    );
    let after = fs::metadata(&existing)?.modified()?;
    ensure!(
        after > before,
        "the existing file's modification time did not move: {before:?} -> {after:?}"
    );

    // Progress, in order: `touched <path> (i/n)` per file.
    let first = format!("touched {} (1/2)", missing.display());
    let second = format!("touched {} (2/2)", existing.display());
    let output = format!("{}{}", run.stdout, run.stderr);
    let (Some(i), Some(j)) = (output.find(&first), output.find(&second)) else {
        anyhow::bail!("the output lacks the progress messages {first:?} and {second:?}\n{run}");
    };
    ensure!(i < j, "progress out of order\n{run}");

    // With -json the progress is machine-readable.
    let run = ws.ok(&[
        "apply",
        "-invoke=action.files_touch.t",
        "-auto-approve",
        "-input=false",
        "-json",
    ])?;
    let progress: Vec<String> = run
        .json_lines()?
        .into_iter()
        .filter(|l| l["type"] == "action_progress")
        .map(|l| l.to_string())
        .collect();
    ensure!(
        progress.len() == 2 && progress[0].contains(&first) && progress[1].contains(&second),
        "action_progress messages: {progress:?}\n{run}"
    );
    ensure!(
        run.json_lines()?.iter().any(|l| l["type"] == "action_complete"),
        "no action_complete\n{run}"
    );

    // Actions do not touch the state.
    let state = ws.state_json()?;
    ensure!(state_resources(&state).is_empty(), "the invocation left resources in state: {state}");
    Ok(())
}

#[test]
fn a_failing_touch_fails_the_apply_with_the_providers_error() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let granted = granted_dir(&scratch)?;
    let inside = granted.join("inside.txt");
    let outside = scratch.path().canonicalize()?.join("outside.txt");
    let ws = touch_workspace(&granted, &[&inside, &outside])?;
    let run = ws.run(&[
        "apply",
        "-invoke=action.files_touch.t",
        "-auto-approve",
        "-input=false",
        "-no-color",
    ])?;
    ensure!(run.code == Some(1), "touching a file outside the grant did not fail\n{run}");
    ensure!(!outside.exists(), "a file was created outside the grant");
    ensure!(run.stderr.contains("outside.txt"), "the error does not name the file\n{run}");
    Ok(())
}

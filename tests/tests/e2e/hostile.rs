//! A hostile provider (tests/guests/hostile) as Terraform users see it: its terminal escapes
//! reach neither the terminal nor the `TF_LOG` file raw and cannot forge a log line, a number
//! Terraform cannot store is an error naming the attribute (not Terraform failing to write its
//! state), and a schema nested without end is refused with the limit instead of crashing the
//! provider.

use std::path::Path;

use anyhow::ensure;
use terrarium_tests::{Provider, Workspace};

use crate::sandbox::{APPLY, required, workspace_with_grants};

/// Characters that act on a terminal; none may come out of terraform raw.
const RAW_CONTROLS: [char; 5] = ['\u{1b}', '\u{7}', '\u{0}', '\u{202e}', '\u{9b}'];

/// An initialised workspace with the hostile provider installed with `grants`, and one
/// resource per (type, name, attack).
fn hostile_workspace(
    root: &Path,
    grants: &[String],
    resources: &[(&str, &str, &str)],
) -> anyhow::Result<Workspace> {
    let ws = workspace_with_grants(Provider::Hostile, root, grants)?;
    let mut config = required(Provider::Hostile);
    for (ty, name, attack) in resources {
        config
            .push_str(&format!("\nresource \"{ty}\" \"{name}\" {{\n  attack = \"{attack}\"\n}}\n"));
    }
    ws.write("main.tf", &config)?;
    ws.init()?;
    Ok(ws)
}

#[test]
fn terminal_escapes_never_reach_the_terminal_or_forge_log_lines() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let ws = hostile_workspace(
        scratch.path(),
        &[],
        &[("hostile_probe", "escape", "escape"), ("hostile_probe", "panic", "escape-panic")],
    )?;
    let log = scratch.path().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let run = ws.run_with_env(APPLY, &[("TF_LOG", "trace"), ("TF_LOG_PATH", &log_path)])?;
    ensure!(run.code == Some(1), "the attacks fail the apply\n{run}");
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        for c in RAW_CONTROLS {
            ensure!(!text.contains(c), "{stream} carries {c:?} raw\n{run}");
        }
    }
    // What the provider said is still there, written out visibly.
    ensure!(run.stderr.contains("escape \\u{1b}[2K"), "the summary is shown, escaped\n{run}");
    ensure!(run.stderr.contains("Provider crashed"), "the panic is reported\n{run}");
    ensure!(run.stderr.contains("\\u{1b}]52;c;"), "the panic text is shown, escaped\n{run}");

    let log = std::fs::read_to_string(&log)?;
    ensure!(log.contains("hostile log\\u{a}"), "the guest's log record is in TF_LOG, escaped");
    for line in log.lines() {
        ensure!(!line.starts_with("forged line"), "a guest log message forged a line: {line:?}");
        for c in RAW_CONTROLS {
            ensure!(!line.contains(c), "the TF_LOG file carries {c:?} raw: {line:?}");
        }
    }
    Ok(())
}

#[test]
fn a_number_terraform_cannot_store_is_an_error_naming_the_attribute() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let ws = hostile_workspace(
        scratch.path(),
        &[],
        &[
            ("hostile_number", "inf", "+inf"),
            ("hostile_number", "huge", "huge"),
            ("hostile_number", "fine", "one"),
        ],
    )?;
    let run = ws.run_expect(APPLY, 1)?;
    let invalid =
        run.error_summaries().iter().filter(|e| *e == "Provider returned an invalid value").count();
    ensure!(invalid == 2, "one error per unstorable number\n{run}");
    ensure!(run.stderr.contains("at value"), "the error names the attribute\n{run}");
    ensure!(!run.stderr.contains("cannot serialize"), "terraform never saw the infinity\n{run}");
    // The healthy resource applied and the state is readable.
    let state = ws.state_json()?;
    let addresses: Vec<String> = terrarium_tests::json::state_resources(&state)
        .into_iter()
        .map(|(address, _)| address)
        .collect();
    ensure!(addresses == ["hostile_number.fine"], "state holds {addresses:?}");
    Ok(())
}

#[test]
fn a_schema_nested_without_end_is_refused_naming_the_limit() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let grants = ["--allow-env".to_string(), "HOSTILE_DEEP_SCHEMA".to_string()];
    let ws = hostile_workspace(scratch.path(), &grants, &[])?;
    let run =
        ws.run_with_env(&["plan", "-input=false", "-no-color"], &[("HOSTILE_DEEP_SCHEMA", "700")])?;
    ensure!(run.code == Some(1), "plan fails\n{run}");
    ensure!(
        run.stderr.contains("hostile_deep") && run.stderr.contains("limit of 32 levels"),
        "the error names the resource and the limit\n{run}"
    );
    ensure!(!run.stderr.contains("Plugin did not respond"), "the provider did not crash\n{run}");
    Ok(())
}

/// Issue 27: declared behaviour runs on the host, so its size is bounded when the component
/// loads. 300 heavy patterns (2.4 GiB and 78 s of the host's before the bound) are a load
/// error that names the bound and its limit, under the limits the user granted.
#[test]
fn declared_behaviour_over_a_bound_is_refused_naming_the_limit() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let grants: Vec<String> =
        ["--allow-env", "DECLARING_LOAD", "--memory", "512MiB", "--timeout", "20s"]
            .map(String::from)
            .to_vec();
    let ws = workspace_with_grants(Provider::Declaring, scratch.path(), &grants)?;
    ws.write(
        "main.tf",
        &format!(
            "{}\nresource \"declaring_thing\" \"x\" {{\n  name = \"x\"\n}}\n",
            required(Provider::Declaring)
        ),
    )?;
    ws.init()?;
    let plan = ["plan", "-input=false", "-no-color"];
    for (load, bound) in [
        ("patterns:300:150", "the declared patterns compile to more than 33554432 bytes together"),
        ("one-of:200:1000", "200000 one-of values, over this host's limit of 100000"),
    ] {
        let run = ws.run_with_env(&plan, &[("DECLARING_LOAD", load)])?;
        ensure!(run.code == Some(1), "{load}: plan fails\n{run}");
        let stderr = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        ensure!(stderr.contains(bound), "{load}: the error names the bound and its limit\n{run}");
        ensure!(!run.stderr.contains("Plugin did not respond"), "{load}: no crash\n{run}");
    }
    // Within the bounds, the same provider plans.
    let run = ws.run_with_env(&plan, &[("DECLARING_LOAD", "patterns:3:5")])?;
    ensure!(run.code == Some(0), "a small declaration plans\n{run}");
    Ok(())
}

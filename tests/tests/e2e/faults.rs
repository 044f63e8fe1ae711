//! A provider bug as Terraform users see it: tests/guests/faulty crashes in one resource's
//! apply and returns a value of the wrong type in another. Terraform shows each as an error
//! naming the RPC and the resource type (and the attribute, for the bad value), the healthy
//! resource in the same run is still created, and the next run is served normally.

use anyhow::{Context as _, ensure};
use terrarium_tests::json::state_resources;
use terrarium_tests::{Provider, Workspace};

fn config(modes: &[(&str, &str)]) -> String {
    let mut tf = format!(
        "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n",
        Provider::Faulty.required_providers_entry()
    );
    for (name, mode) in modes {
        tf.push_str(&format!(
            "\nresource \"faulty_thing\" \"{name}\" {{\n  mode = \"{mode}\"\n}}\n"
        ));
    }
    tf
}

#[test]
fn a_crashing_resource_fails_with_a_diagnostic_and_the_others_apply() -> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::Faulty])?;
    ws.write(
        "main.tf",
        &config(&[("healthy", "ok"), ("crashing", "panic"), ("confused", "wrong-type")]),
    )?;
    ws.init()?;

    let run = ws.run_expect(&["apply", "-auto-approve", "-input=false", "-no-color"], 1)?;
    let errors = run.error_summaries();
    ensure!(
        errors.iter().any(|e| e == "Provider crashed"),
        "expected a \"Provider crashed\" error\n{run}"
    );
    ensure!(
        errors.iter().any(|e| e == "Provider returned an invalid value"),
        "expected an invalid-value error\n{run}"
    );
    // The details name the RPC, the resource type, what the guest said and the attribute.
    for needle in [
        "ApplyResourceChange for resource \"faulty_thing\"",
        "deliberate panic in apply",
        "at value",
    ] {
        ensure!(run.stderr.contains(needle), "stderr lacks {needle:?}\n{run}");
    }

    // The healthy resource was created in the same run; the faulty ones were not.
    let state = ws.state_json()?;
    let addresses: Vec<String> =
        state_resources(&state).into_iter().map(|(address, _)| address).collect();
    ensure!(addresses == ["faulty_thing.healthy"], "state holds {addresses:?}");

    // Fixed configuration, next run: served normally.
    ws.write("main.tf", &config(&[("healthy", "ok"), ("crashing", "ok"), ("confused", "ok")]))?;
    ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])
        .context("apply after fixing the modes")?;
    let run = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(run.code == Some(0), "expected no changes\n{run}");
    ws.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    Ok(())
}

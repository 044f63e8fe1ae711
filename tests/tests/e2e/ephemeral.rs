//! Ephemeral resources and write-only attributes through real terraform: a password from
//! examples/random's `ephemeral "random_password"` written into a file by examples/files'
//! write-only `content_wo`. The file gets the password; neither the state terraform shows nor
//! the raw terraform.tfstate ever holds it; `content_wo_version` decides when it is written again.

use std::fs;
use std::path::Path;

use anyhow::{Context as _, ensure};
use terrarium_tests::json::{pretty, raw_state_instances, state_resource, state_values};
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Provider, Workspace};

const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];
const PLAN: &[&str] = &["plan", "-detailed-exitcode", "-input=false", "-no-color"];

fn config(secret_file: &Path, version: u32) -> String {
    format!(
        "{}\nephemeral \"random_password\" \"p\" {{\n  length = 24\n}}\n\
         \nresource \"files_file\" \"secret\" {{\n  filename           = {}\n  \
         content_wo         = ephemeral.random_password.p.result\n  content_wo_version = {version}\n}}\n",
        required_providers(&[Provider::Random, Provider::Files]),
        hcl_string(&secret_file.to_string_lossy())
    )
}

/// What must hold after every apply: the file has a fresh 24-character password, and none of
/// terraform's records of the run contain it.
fn check_secret_kept_out_of_state(
    ws: &Workspace,
    secret_file: &Path,
    runs: &[&terrarium_tests::Run],
) -> anyhow::Result<String> {
    let password = fs::read_to_string(secret_file)
        .with_context(|| format!("reading {}", secret_file.display()))?;
    ensure!(
        password.chars().count() == 24,
        "the file holds {password:?}, not a 24-character password"
    );
    // A password whose characters are all one class would suggest the file holds something
    // else (a hash, a placeholder): the default classes are upper, lower, numeric and special.
    ensure!(
        password.chars().any(|c| c.is_ascii_alphabetic()),
        "the file holds {password:?}, which does not look like a random password"
    );

    let state = ws.state_json()?;
    let shown = state.to_string();
    ensure!(
        !shown.contains(&password),
        "`terraform show -json` holds the password:\n{}",
        pretty(&state)
    );
    let values = state_values(&state, "files_file.secret")?;
    ensure!(
        values["content_wo"].is_null(),
        "content_wo is not null in the state: {}",
        pretty(values)
    );
    ensure!(values["filename"] == secret_file.to_string_lossy().as_ref(), "{}", pretty(values));
    // An ephemeral resource is never in state (the file's resource records only that it
    // depends on it, in `depends_on`).
    ensure!(
        state_resource(&state, "ephemeral.random_password.p").is_err()
            && state["values"]["root_module"]["resources"].as_array().is_some_and(|r| r.len() == 1),
        "the ephemeral resource is in the state:\n{}",
        pretty(&state)
    );

    let raw = ws.read("terraform.tfstate")?;
    ensure!(!raw.contains(&password), "terraform.tfstate holds the password:\n{raw}");
    let tfstate: serde_json::Value =
        serde_json::from_str(&raw).context("terraform.tfstate is not JSON")?;
    let instances = raw_state_instances(&tfstate, "files_file", "secret")?;
    ensure!(
        instances.len() == 1 && instances[0]["attributes"]["content_wo"].is_null(),
        "content_wo in terraform.tfstate: {}",
        pretty(&tfstate)
    );
    ensure!(
        tfstate["resources"].as_array().is_some_and(|r| r.iter().all(|r| r["mode"] != "ephemeral")),
        "an ephemeral resource in terraform.tfstate:\n{raw}"
    );

    for run in runs {
        ensure!(
            !run.stdout.contains(&password) && !run.stderr.contains(&password),
            "terraform printed the password\n{run}"
        );
    }
    Ok(password)
}

#[test]
fn an_ephemeral_password_reaches_a_file_through_a_write_only_attribute_and_never_the_state()
-> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    fs::create_dir(&granted)?;
    let secret_file = granted.join("secret.txt");
    let ws = Workspace::with_installs(&[
        (Provider::Random, &[]),
        (Provider::Files, &allow_dir_rw(&granted)),
    ])?;
    ws.write("main.tf", &config(&secret_file, 1))?;
    ws.init()?;

    let validate = ws.json(&["validate", "-json"])?;
    ensure!(validate["valid"] == true, "validate: {}", pretty(&validate));

    let plan = ws.run(PLAN)?;
    ensure!(plan.code == Some(2), "the first plan creates the file\n{plan}");
    ensure!(!secret_file.exists(), "plan wrote the file");
    let apply = ws.ok(APPLY)?;
    ensure!(apply.stdout.contains("Resources: 1 added, 0 changed, 0 destroyed."), "{apply}");
    let first = check_secret_kept_out_of_state(&ws, &secret_file, &[&plan, &apply])?;

    // The ephemeral resource is opened again for every run and draws a new password, but a
    // write-only value is not compared: with the same content_wo_version nothing changes.
    let replan = ws.run(PLAN)?;
    ensure!(
        replan.code == Some(0) && replan.stdout.contains("No changes."),
        "second plan is not empty\n{replan}"
    );
    ensure!(fs::read_to_string(&secret_file)? == first, "a plan changed the file");

    // A new version writes the file again, with the password of this run.
    ws.write("main.tf", &config(&secret_file, 2))?;
    let plan = ws.run(PLAN)?;
    ensure!(plan.code == Some(2), "a new content_wo_version plans a change\n{plan}");
    let apply = ws.ok(APPLY)?;
    ensure!(
        apply.stdout.contains("1 added, 0 changed, 1 destroyed")
            || apply.stdout.contains("0 added, 1 changed, 0 destroyed"),
        "{apply}"
    );
    let second = check_secret_kept_out_of_state(&ws, &secret_file, &[&plan, &apply])?;
    ensure!(
        second != first,
        "bumping content_wo_version did not rewrite the file: still {first:?}"
    );
    let state = ws.state_json()?;
    ensure!(
        state_values(&state, "files_file.secret")?["content_wo_version"] == 2,
        "{}",
        pretty(&state)
    );
    let replan = ws.run(PLAN)?;
    ensure!(replan.code == Some(0), "plan after the new version is not empty\n{replan}");

    ws.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(!secret_file.exists(), "destroy removes the file");
    Ok(())
}

#[test]
fn content_and_content_wo_are_mutually_exclusive() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    fs::create_dir(&granted)?;
    let file = granted.join("both.txt");
    let ws = Workspace::with_installs(&[
        (Provider::Random, &[]),
        (Provider::Files, &allow_dir_rw(&granted)),
    ])?;
    let resource = |body: &str| {
        format!(
            "{}\nephemeral \"random_password\" \"p\" {{\n  length = 8\n}}\n\
             \nresource \"files_file\" \"f\" {{\n  filename = {}\n{body}}}\n",
            required_providers(&[Provider::Random, Provider::Files]),
            hcl_string(&file.to_string_lossy())
        )
    };
    ws.write(
        "main.tf",
        &resource("  content    = \"plain\"\n  content_wo = ephemeral.random_password.p.result\n"),
    )?;
    ws.init()?;
    let run = ws.run(PLAN)?;
    ensure!(run.code == Some(1), "both content and content_wo were accepted\n{run}");
    ensure!(!file.exists(), "a refused configuration wrote the file");

    ws.write("main.tf", &resource(""))?;
    let run = ws.run(PLAN)?;
    ensure!(run.code == Some(1), "neither content nor content_wo was accepted\n{run}");
    Ok(())
}

/// RenewEphemeralResource: a password on a one-second lease (`lease_seconds`), in use by a
/// provisioner that runs for a few seconds, is renewed by Terraform while it is in use; the
/// provider's log shows each renewal.
#[test]
fn terraform_renews_a_leased_password_while_it_is_in_use() -> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::Random])?;
    ws.write(
        "main.tf",
        &format!(
            "{}\nephemeral \"random_password\" \"p\" {{\n  length        = 12\n  lease_seconds = 1\n}}\n\
             \nresource \"terraform_data\" \"uses_it\" {{\n  provisioner \"local-exec\" {{\n    \
             command     = \"sleep 4\"\n    environment = {{ PASSWORD = ephemeral.random_password.p.result }}\n  \
             }}\n}}\n",
            required_providers(&[Provider::Random])
        ),
    )?;
    ws.init()?;
    let log = ws.root().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let run =
        ws.run_with_env(APPLY, &[("TF_LOG_PROVIDER", "INFO"), ("TF_LOG_PATH", log_path.as_str())])?;
    ensure!(run.code == Some(0), "apply failed\n{run}");
    let text = fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    let renewals = text.lines().filter(|l| l.contains("random_password lease renewed")).count();
    ensure!(
        renewals >= 1,
        "Terraform never renewed the leased password; the provider log:\n{}",
        text.lines().filter(|l| l.contains("provider")).collect::<Vec<_>>().join("\n")
    );
    println!("Terraform renewed the one-second lease {renewals} times during a 4 s provisioner");
    Ok(())
}

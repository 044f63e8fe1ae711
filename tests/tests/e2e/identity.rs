//! Resource identity through real terraform, with examples/files' `files_file` (identity schema
//! version 1: `{ path }`, the absolute file name): the identity in state, import by identity,
//! the upgrade of a version 0 identity (`{ filename }`), and configuration generated for an
//! import (`terraform plan -generate-config-out`).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::{pretty, raw_state_instances, state_resource, state_values};
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Provider, Workspace};

const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];
const PLAN: &[&str] = &["plan", "-detailed-exitcode", "-input=false", "-no-color"];

/// A workspace with examples/files granted a fresh directory (returned canonical, so that file
/// names compare equal to what the provider reports).
fn files_workspace() -> anyhow::Result<(tempfile::TempDir, PathBuf, Workspace)> {
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    fs::create_dir(&granted)?;
    let ws = Workspace::with_installs(&[(Provider::Files, &allow_dir_rw(&granted))])?;
    Ok((scratch, granted, ws))
}

fn file_resource(name: &str, path: &Path, content: &str) -> String {
    format!(
        "\nresource \"files_file\" \"{name}\" {{\n  filename = {}\n  content  = {}\n}}\n",
        hcl_string(&path.to_string_lossy()),
        hcl_string(content)
    )
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// An import block for `files_file.NAME` by the identity of `path`, then the resource.
fn identity_import(name: &str, path: &Path, content: &str) -> String {
    format!(
        "\nimport {{\n  to       = files_file.{name}\n  identity = {{\n    path = {}\n  }}\n}}\n{}",
        hcl_string(&path_string(path)),
        file_resource(name, path, content)
    )
}

/// Writes main.tf: the files provider's requirement, then `body`.
fn write_main(ws: &Workspace, body: &str) -> anyhow::Result<()> {
    ws.write("main.tf", &format!("{}{body}", required_providers(&[Provider::Files])))
}

/// The change to `address` in a plan's `terraform show -json`.
fn planned_change<'a>(plan: &'a Value, address: &str) -> anyhow::Result<&'a Value> {
    plan["resource_changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["address"] == address))
        .with_context(|| format!("no change for {address}"))
}

/// Checks the identity of `address` in `terraform show -json` and in terraform.tfstate.
fn check_identity(ws: &Workspace, address: &str, path: &Path) -> anyhow::Result<()> {
    let state = ws.state_json()?;
    let resource = state_resource(&state, address)?;
    ensure!(
        resource["identity_schema_version"] == 1
            && resource["identity"] == json!({ "path": path_string(path) }),
        "identity of {address} in `terraform show -json`: {}",
        pretty(resource)
    );
    let tfstate: Value =
        serde_json::from_str(&ws.read("terraform.tfstate")?).context("terraform.tfstate")?;
    let (type_name, name) = address.split_once('.').context("an address TYPE.NAME")?;
    let instances = raw_state_instances(&tfstate, type_name, name)?;
    ensure!(
        instances.len() == 1
            && instances[0]["identity_schema_version"] == 1
            && instances[0]["identity"] == json!({ "path": path_string(path) }),
        "identity of {address} in terraform.tfstate: {}",
        pretty(&tfstate)
    );
    Ok(())
}

#[test]
fn applied_files_carry_their_identity_in_state() -> anyhow::Result<()> {
    let (_scratch, granted, ws) = files_workspace()?;
    let file = granted.join("sub/a.txt");
    write_main(&ws, &file_resource("a", &file, "alpha"))?;
    ws.init()?;

    // The schema terraform sees declares the identity.
    let schemas = ws.json(&["providers", "schema", "-json"])?;
    let identity_schema = &schemas["provider_schemas"][Provider::Files.source()]["resource_identity_schemas"]
        ["files_file"];
    ensure!(
        identity_schema["version"] == 1
            && identity_schema["attributes"]["path"]["type"] == "string"
            && identity_schema["attributes"]["path"]["required_for_import"] == true,
        "identity schema of files_file: {}",
        pretty(&schemas["provider_schemas"][Provider::Files.source()])
    );

    let (run, plan) = ws.plan_json(&[])?;
    ensure!(run.code == Some(2), "{run}");
    ws.ok(&["apply", "-input=false", "-no-color", "tfplan"])?;
    ensure!(fs::read_to_string(&file)? == "alpha");
    check_identity(&ws, "files_file.a", &file)?;
    // The plan already knew the identity: it is made of configuration only.
    let change = planned_change(&plan, "files_file.a")?;
    ensure!(
        change["change"]["after_identity"].is_null()
            || change["change"]["after_identity"] == json!({ "path": path_string(&file) }),
        "planned identity: {}",
        pretty(change)
    );

    // Read keeps it: a refresh and a second plan change nothing.
    ws.ok(&["apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"])?;
    check_identity(&ws, "files_file.a", &file)?;
    let replan = ws.run(PLAN)?;
    ensure!(replan.code == Some(0), "second plan is not empty\n{replan}");
    Ok(())
}

#[test]
fn an_import_block_with_an_identity_imports_the_file() -> anyhow::Result<()> {
    let (_scratch, granted, ws) = files_workspace()?;
    let existing = granted.join("existing.txt");
    fs::write(&existing, "already here")?;
    write_main(&ws, &identity_import("i", &existing, "already here"))?;
    ws.init()?;

    let (run, plan) = ws.plan_json(&[])?;
    ensure!(
        run.stdout.contains("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy."),
        "the plan does not just import\n{run}"
    );
    run.shows(&["# files_file.i will be imported"])?;
    let change = planned_change(&plan, "files_file.i")?;
    ensure!(
        change["change"]["actions"] == json!(["no-op"])
            && change["change"]["importing"]["identity"]
                == json!({ "path": path_string(&existing) }),
        "{}",
        pretty(change)
    );
    let apply = ws.ok(&["apply", "-input=false", "-no-color", "tfplan"])?;
    ensure!(
        apply
            .stdout
            .contains("Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed."),
        "{apply}"
    );

    let state = ws.state_json()?;
    let values = state_values(&state, "files_file.i")?;
    ensure!(
        values["content"] == "already here"
            && values["filename"] == path_string(&existing).as_str(),
        "imported state: {}",
        pretty(values)
    );
    check_identity(&ws, "files_file.i", &existing)?;
    ensure!(fs::read_to_string(&existing)? == "already here", "the import changed the file");
    let replan = ws.run(PLAN)?;
    ensure!(replan.code == Some(0), "plan after the import is not empty\n{replan}");

    // An identity naming no file is an error, not an empty import.
    let missing = granted.join("missing.txt");
    write_main(&ws, &identity_import("m", &missing, "x"))?;
    let run = ws.run(PLAN)?;
    ensure!(run.code == Some(1), "importing a missing file did not fail\n{run}");
    ensure!(!missing.exists(), "a failed import created the file");
    Ok(())
}

#[test]
fn a_version_0_identity_in_state_is_upgraded_to_version_1() -> anyhow::Result<()> {
    let (_scratch, granted, ws) = files_workspace()?;
    let file = granted.join("old.txt");
    write_main(&ws, &file_resource("old", &file, "v0"))?;
    ws.init()?;
    ws.ok(APPLY)?;
    check_identity(&ws, "files_file.old", &file)?;

    // Rewrite the state as an older provider release would have left it: identity schema
    // version 0, whose only attribute was `filename`.
    let mut tfstate: Value = serde_json::from_str(&ws.read("terraform.tfstate")?)?;
    let instance = tfstate["resources"]
        .as_array_mut()
        .and_then(|r| r.iter_mut().find(|r| r["type"] == "files_file" && r["name"] == "old"))
        .and_then(|r| r["instances"].as_array_mut())
        .and_then(|i| i.first_mut())
        .context("no files_file.old instance in terraform.tfstate")?;
    instance["identity_schema_version"] = json!(0);
    instance["identity"] = json!({ "filename": path_string(&file) });
    tfstate["serial"] = json!(tfstate["serial"].as_u64().unwrap_or(0) + 1);
    ws.write("terraform.tfstate", &serde_json::to_string_pretty(&tfstate)?)?;
    // `terraform show -json` refuses to show an identity of another version than the
    // provider's: it does not upgrade, plan and apply do.
    let show = ws.run(&["show", "-json"])?;
    ensure!(
        show.code == Some(1) && show.stderr.contains("resource identity schema version 0"),
        "the edited state was not taken\n{show}"
    );

    // Terraform upgrades the identity before it reads the resource; the plan has nothing to do.
    let run =
        ws.run(&["plan", "-refresh-only", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(
        matches!(run.code, Some(0) | Some(2)),
        "refresh-only plan failed on the old identity\n{run}"
    );
    let log_path = ws.root().join("upgrade.log");
    let log_path_text = log_path.to_string_lossy().into_owned();
    let apply = ws.run_with_env(APPLY, &[("TF_LOG", "trace"), ("TF_LOG_PATH", &log_path_text)])?;
    ensure!(
        apply.code == Some(0) && apply.stdout.contains("0 added, 0 changed, 0 destroyed"),
        "{apply}"
    );
    check_identity(&ws, "files_file.old", &file)?;
    // It was the provider's upgrade (not a read that happened to return the new identity).
    let log = fs::read_to_string(&log_path)?;
    ensure!(
        log.contains("GRPCProvider.v6: UpgradeResourceIdentity"),
        "terraform did not ask the provider to upgrade the identity (see {})",
        log_path.display()
    );
    ensure!(fs::read_to_string(&file)? == "v0", "the upgrade touched the file");
    Ok(())
}

#[test]
fn plan_generates_configuration_for_an_imported_file() -> anyhow::Result<()> {
    let (_scratch, granted, ws) = files_workspace()?;
    let existing = granted.join("generate me.txt");
    fs::write(&existing, "line one\nline \"two\"\n")?;
    write_main(
        &ws,
        &format!(
            "\nimport {{\n  to = files_file.g\n  id = {}\n}}\n",
            hcl_string(&path_string(&existing))
        ),
    )?;
    ws.init()?;

    let run = ws.run(&[
        "plan",
        "-generate-config-out=generated.tf",
        "-detailed-exitcode",
        "-input=false",
        "-no-color",
    ])?;
    ensure!(run.code == Some(2), "plan with -generate-config-out failed\n{run}");
    ensure!(run.stdout.contains("1 to import, 0 to add, 0 to change, 0 to destroy"), "{run}");
    let generated = ws.read("generated.tf")?;
    ensure!(generated.contains("resource \"files_file\" \"g\" {"), "generated.tf:\n{generated}");
    let lines: Vec<&str> = generated.lines().map(str::trim).collect();
    let attribute =
        |name: &str| lines.iter().find(|l| l.split_whitespace().next() == Some(name)).copied();
    ensure!(
        attribute("filename").is_some_and(|l| l.contains(&path_string(&existing))),
        "no filename in generated.tf:\n{generated}"
    );
    // (Terraform may write a multi-line string as a heredoc, so the text is looked for anywhere.)
    ensure!(
        attribute("content").is_some() && generated.contains("line one"),
        "no content in generated.tf:\n{generated}"
    );
    // Computed-only attributes are left to the provider.
    for computed in ["id", "content_sha256"] {
        ensure!(
            attribute(computed).is_none(),
            "generated.tf sets the computed {computed}:\n{generated}"
        );
    }

    // The generated configuration is what the file is: importing with it changes nothing.
    let apply = ws.ok(APPLY)?;
    ensure!(
        apply.stdout.contains("Resources: 1 imported, 0 added, 0 changed, 0 destroyed."),
        "{apply}"
    );
    let state = ws.state_json()?;
    ensure!(
        state_values(&state, "files_file.g")?["content"] == "line one\nline \"two\"\n",
        "{}",
        pretty(&state)
    );
    check_identity(&ws, "files_file.g", &existing)?;
    let replan = ws.run(PLAN)?;
    ensure!(replan.code == Some(0), "plan with the generated configuration is not empty\n{replan}");
    Ok(())
}

/// A `files_file` whose content comes from random_string's computed `result`, unknown at plan
/// time, and a second one whose very name does: terraform shows both plans (before the fix it
/// printed "Failed to marshal plan to json: value is not known" and applied a plan it never
/// showed). The identity of the first is planned from its file name alone, whatever the
/// content; the second's is null ("known after apply") until its name is known.
#[test]
fn a_plan_with_unknowns_from_another_provider_shows_its_identity() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    fs::create_dir(&granted)?;
    let ws = Workspace::with_installs(&[
        (Provider::Files, &allow_dir_rw(&granted)),
        (Provider::Random, &[]),
    ])?;
    let named = granted.join("named.txt");
    // A template: the granted directory (a plain temporary path), then the unknown name.
    let dir = path_string(&granted);
    ws.write(
        "main.tf",
        &format!(
            "{}\nresource \"random_string\" \"s\" {{\n  length  = 8\n  special = false\n  upper   = false\n}}\n\
             \nresource \"files_file\" \"content\" {{\n  filename = {}\n  content  = random_string.s.result\n}}\n\
             \nresource \"files_file\" \"name\" {{\n  filename = \"{dir}/${{random_string.s.result}}.txt\"\n  content  = \"x\"\n}}\n",
            required_providers(&[Provider::Files, Provider::Random]),
            hcl_string(&path_string(&named)),
        ),
    )?;
    ws.init()?;

    let (run, plan) = ws.plan_json(&[])?;
    run.shows(&[
        "# random_string.s will be created",
        "# files_file.content will be created",
        "# files_file.name will be created",
    ])?;
    let known = planned_change(&plan, "files_file.content")?;
    ensure!(
        known["change"]["after_identity"] == json!({ "path": path_string(&named) }),
        "the identity is made of the file name only: {}",
        pretty(known)
    );
    let later = planned_change(&plan, "files_file.name")?;
    ensure!(
        later["change"]["after_identity"].is_null(),
        "an identity whose file name is unknown is planned null: {}",
        pretty(later)
    );

    let apply = ws.ok(APPLY)?;
    apply.shows(&["# files_file.content will be created", "Apply complete! Resources: 3 added"])?;
    let result = state_values(&ws.state_json()?, "random_string.s")?["result"]
        .as_str()
        .context("random_string.s.result")?
        .to_owned();
    ensure!(fs::read_to_string(&named)? == result);
    check_identity(&ws, "files_file.content", &named)?;
    check_identity(&ws, "files_file.name", &granted.join(format!("{result}.txt")))?;
    let replan = ws.run(PLAN)?;
    ensure!(replan.code == Some(0), "second plan is not empty\n{replan}");
    Ok(())
}

//! The cross-language conformance suite: every implementation of examples/pets/SPEC.md (one
//! row of [`IMPLEMENTATIONS`] per language) goes through the same configurations with real
//! terraform, and each step must give the same human plan, `terraform show -json` plan, state
//! and diagnostics in every language. The first row's results are also checked against the
//! spec itself, so one implementation alone is already tested.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::{first_difference, mask_strings, pretty, state_values};
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Provider, Run, Workspace};

/// Every implementation of the pets spec. A language adds its row here. The first is the
/// reference: the Rust one plans in the guest, with the same `framework` crate the host
/// plans with for the others.
const IMPLEMENTATIONS: &[Provider] =
    &[Provider::PetsRs, Provider::PetsTs, Provider::PetsPy, Provider::PetsGo];

const PET: &str = "pets_pet.rex";

/// What happens to the pet's file behind terraform's back.
#[derive(Clone, Copy, PartialEq)]
enum Drift {
    /// `legs` becomes 5.
    Edited,
    /// The file is deleted.
    Deleted,
}

/// One step: a configuration (after the provider block) and what to do with it.
struct Step {
    name: &'static str,
    body: String,
    action: Action,
}

#[derive(Clone, Copy, PartialEq)]
enum Action {
    /// Plan (saved and shown), then apply that plan.
    Apply,
    /// Plan only; the step expects error diagnostics.
    Fails,
    /// `terraform state rm` of the pet, then plan and apply the configuration (an import).
    ForgetThenApply,
    /// The pet's file changed outside terraform, then plan and apply (the drift undone).
    DriftThenApply(Drift),
    /// Plan only, with a relative `directory` in the provider block; the step expects error
    /// diagnostics.
    FailsInRelativeDirectory,
    /// The pet's file deleted, then `terraform destroy -refresh=false`: delete finds no
    /// file, which is no error (the replace step deletes a pet whose file is there).
    DestroyWithoutFile,
}

/// `pets_pet.rex` with `legs`, `notify`, its toys and vaccines, and its collar size (`None`:
/// the attributes left to their defaults, one toy, one vaccine).
fn rex(grown: Option<&str>) -> String {
    let (legs, notify, toys, vaccines, size) = match grown {
        None => ("", "", r#"[{ kind = "ball" }]"#, r#"[{ name = "rabies" }]"#, "m"),
        Some(size) => (
            "\n  legs   = 3",
            "\n    notify = true",
            r#"[{ kind = "ball" }, { kind = "rope", color = "blue" }]"#,
            r#"[{ name = "rabies" }, { name = "flu" }]"#,
            size,
        ),
    };
    format!(
        "\nresource \"pets_pet\" \"rex\" {{\n  name   = \"rex\"{legs}\n  tags   = [\"good\", \"small\"]\n  \
         secret = \"chip-123\"\n  owner = {{\n    name   = \"ann\"{notify}\n  }}\n  toys = {toys}\n  \
         vaccines = {vaccines}\n  collar {{\n    size = \"{size}\"\n  }}\n}}\n"
    )
}

const DATA_AND_FUNCTION: &str = r#"
data "pets_pet" "same" {
  id = pets_pet.rex.id
}

output "greeting" {
  value = provider::pets::greeting(data.pets_pet.same.name)
}
"#;

const IMPORT: &str = r#"
import {
  to = pets_pet.rex
  id = "pet-2"
}
"#;

const GHOST_IMPORT: &str = r#"
import {
  to = pets_pet.ghost
  id = "pet-9"
}

resource "pets_pet" "ghost" {
  name = "ghost"
}
"#;

const GHOST_DATA: &str = r#"
data "pets_pet" "ghost" {
  id = "pet-9"
}
"#;

fn steps() -> Vec<Step> {
    vec![
        Step { name: "create", body: rex(None), action: Action::Apply },
        Step {
            name: "update in place: legs, a new toy",
            body: rex(Some("m")),
            action: Action::Apply,
        },
        Step {
            name: "replace: a new collar size",
            body: rex(Some("l")) + DATA_AND_FUNCTION,
            action: Action::Apply,
        },
        Step {
            name: "import by id",
            body: IMPORT.to_owned() + &rex(Some("l")),
            action: Action::ForgetThenApply,
        },
        Step {
            name: "drift: the pet's file edited outside terraform",
            body: rex(Some("l")),
            action: Action::DriftThenApply(Drift::Edited),
        },
        Step {
            name: "drift: the pet's file deleted outside terraform",
            body: rex(Some("l")),
            action: Action::DriftThenApply(Drift::Deleted),
        },
        Step {
            name: "invalid: an empty name, a species not in the list",
            body: "\nresource \"pets_pet\" \"rex\" {\n  name    = \"\"\n  species = \"fish\"\n}\n"
                .to_owned(),
            action: Action::Fails,
        },
        Step {
            name: "a function error",
            body: "\noutput \"greeting\" {\n  value = provider::pets::greeting(\"\")\n}\n"
                .to_owned(),
            action: Action::Fails,
        },
        Step {
            name: "import of a pet that does not exist",
            body: rex(Some("l")) + GHOST_IMPORT,
            action: Action::Fails,
        },
        Step {
            name: "a data source for a pet that does not exist",
            body: rex(Some("l")) + GHOST_DATA,
            action: Action::Fails,
        },
        Step {
            name: "a relative directory",
            body: rex(Some("l")),
            action: Action::FailsInRelativeDirectory,
        },
        Step {
            name: "destroy, the file already gone",
            body: rex(None),
            action: Action::DestroyWithoutFile,
        },
    ]
}

/// What one step showed, with the paths of the implementation's own directories masked.
#[derive(Debug, PartialEq)]
struct Seen {
    human_plan: String,
    plan_json: Value,
    state: Value,
    diagnostics: Vec<Value>,
}

/// The pets provider `provider` in a workspace of its own, granted a fresh directory.
pub(crate) fn pets_workspace(
    provider: Provider,
) -> anyhow::Result<(tempfile::TempDir, PathBuf, Workspace)> {
    let scratch = tempfile::tempdir()?;
    let dir = scratch.path().canonicalize()?.join("pets");
    fs::create_dir(&dir)?;
    let ws = match provider.component_crate() {
        Some(_) => Workspace::with_installs(&[(provider, &allow_dir_rw(&dir))])?,
        // A native provider (the framework pets built natively) needs no grant.
        None => Workspace::new(&[provider])?,
    };
    Ok((scratch, dir, ws))
}

pub(crate) fn write_config(
    ws: &Workspace,
    provider: Provider,
    dir: &Path,
    body: &str,
) -> anyhow::Result<()> {
    ws.write(
        "main.tf",
        &format!(
            "{}\nprovider \"pets\" {{\n  directory = {}\n}}\n{body}",
            required_providers(&[provider]),
            hcl_string(&dir.to_string_lossy())
        ),
    )
}

/// `text` with the workspace's and the pets directory's paths replaced by placeholders.
fn masked(text: &str, ws: &Workspace, dir: &Path) -> String {
    text.replace(&dir.to_string_lossy().to_string(), "<pets-dir>")
        .replace(&ws.root().to_string_lossy().to_string(), "<workspace>")
}

fn masked_json(mut value: Value, ws: &Workspace, dir: &Path) -> Value {
    let dir = dir.to_string_lossy().to_string();
    let root = ws.root().to_string_lossy().to_string();
    mask_strings(&mut value, &|s| s.contains(&dir) || s.contains(&root), "<path>");
    // Which terraform version and provider build wrote it is no part of the behaviour.
    if let Some(object) = value.as_object_mut() {
        object.remove("terraform_version");
        object.remove("timestamp");
    }
    value
}

/// The human plan without the lines that differ by run (timings, the saved plan's file name).
fn plan_lines(run: &Run) -> String {
    run.stdout
        .lines()
        .filter(|l| {
            !l.contains("Refreshing state")
                && !l.contains("Reading...")
                && !l.contains("Read complete")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Changes the stored file of the pet in the state behind terraform's back.
fn drift_behind_terraform(ws: &Workspace, dir: &Path, drift: Drift) -> anyhow::Result<()> {
    let state = ws.state_json()?;
    let id = state_values(&state, PET)?["id"].as_str().context("the pet has no id")?.to_owned();
    let file = dir.join(format!("{id}.json"));
    match drift {
        Drift::Edited => {
            let mut stored: Value = serde_json::from_str(&fs::read_to_string(&file)?)?;
            stored["legs"] = json!(5);
            fs::write(&file, stored.to_string())?;
        }
        Drift::Deleted => fs::remove_file(&file)?,
    }
    Ok(())
}

/// Runs every step against `provider`; what each showed.
fn run_steps(provider: Provider) -> anyhow::Result<Vec<Seen>> {
    let (_scratch, dir, ws) = pets_workspace(provider)?;
    write_config(&ws, provider, &dir, &rex(None))?;
    ws.init()?;
    let mut seen = Vec::new();
    for step in &steps() {
        let directory = match step.action {
            Action::FailsInRelativeDirectory => Path::new("pets"),
            _ => &dir,
        };
        write_config(&ws, provider, directory, &step.body)?;
        let context = || format!("{provider:?}, step {:?}", step.name);
        match step.action {
            Action::ForgetThenApply => {
                ws.ok(&["state", "rm", "-no-color", PET]).with_context(context)?;
            }
            Action::DriftThenApply(drift) => drift_behind_terraform(&ws, &dir, drift)?,
            Action::DestroyWithoutFile => drift_behind_terraform(&ws, &dir, Drift::Deleted)?,
            _ => {}
        }
        let (human_plan, plan_json, diagnostics) = match step.action {
            Action::Fails | Action::FailsInRelativeDirectory => {
                let run = ws.run(&["plan", "-input=false", "-json"]).with_context(context)?;
                ensure!(run.code == Some(1), "{}: the plan did not fail\n{run}", context());
                let mut diagnostics: Vec<Value> = run
                    .json_diagnostics()?
                    .into_iter()
                    .map(|d| masked_json(d, &ws, &dir))
                    .collect();
                // The diagnostics of one call come in no promised order (terraform-plugin-
                // framework validates attributes in map order): compared as a set.
                diagnostics.sort_by_key(Value::to_string);
                (String::new(), Value::Null, diagnostics)
            }
            Action::DestroyWithoutFile => {
                let args = ["destroy", "-auto-approve", "-input=false", "-no-color"];
                let run =
                    ws.ok(&[&args[..], &["-refresh=false"]].concat()).with_context(context)?;
                (masked(&plan_lines(&run), &ws, &dir), Value::Null, Vec::new())
            }
            Action::Apply | Action::ForgetThenApply | Action::DriftThenApply(_) => {
                let (run, plan) = ws.plan_json(&[]).with_context(context)?;
                ws.ok(&["apply", "-input=false", "-no-color", "tfplan"]).with_context(context)?;
                (masked(&plan_lines(&run), &ws, &dir), masked_json(plan, &ws, &dir), Vec::new())
            }
        };
        let state = masked_json(ws.state_json().with_context(context)?, &ws, &dir);
        seen.push(Seen { human_plan, plan_json, state, diagnostics });
    }
    Ok(seen)
}

/// The spec, checked on what the first implementation showed.
fn check_spec(seen: &[Seen]) -> anyhow::Result<()> {
    let [
        create,
        update,
        replace,
        import,
        edited,
        deleted,
        invalid,
        function_error,
        missing_import,
        missing_data,
        relative,
        destroy,
    ] = seen
    else {
        anyhow::bail!("expected {} steps, saw {}", steps().len(), seen.len());
    };
    // Create: defaults at depth planned, computed values unknown.
    let after = &create.plan_json["resource_changes"][0]["change"]["after"];
    let unknown = &create.plan_json["resource_changes"][0]["change"]["after_unknown"];
    ensure!(
        after["species"] == "dog"
            && after["legs"] == 4
            && after["owner"]["notify"] == false
            && after["toys"][0]["color"] == "red"
            && after["collar"][0]["material"] == "leather"
            && unknown["id"] == true
            && unknown["toys"][0]["serial"] == true
            && unknown["vaccines"][0]["batch"] == true,
        "create plan: {}",
        pretty(&create.plan_json["resource_changes"])
    );
    ensure!(
        create.human_plan.contains("+ id       = (known after apply)"),
        "{}",
        create.human_plan
    );
    ensure!(create.human_plan.contains("+ secret   = (sensitive value)"), "{}", create.human_plan);
    let rex = state_values(&create.state, PET)?;
    ensure!(
        rex["id"] == "pet-1"
            && rex["toys"][0]["serial"] == "pet-1-toy-0"
            && rex["tags"] == json!(["good", "small"]),
        "created: {}",
        pretty(rex)
    );
    // Update in place: the id and the first toy's serial are kept; the new toy gets one.
    ensure!(
        update.human_plan.contains("pets_pet.rex will be updated in-place"),
        "{}",
        update.human_plan
    );
    let rex = state_values(&update.state, PET)?;
    ensure!(
        rex["id"] == "pet-1"
            && rex["legs"] == 3
            && rex["toys"][0]["serial"] == "pet-1-toy-0"
            && rex["toys"][1]["serial"] == "pet-1-toy-1"
            && rex["toys"][1]["color"] == "blue"
            && rex["vaccines"]
                .as_array()
                .is_some_and(|v| v.contains(&json!({ "name": "rabies", "batch": "pet-1-rabies" }))
                    && v.contains(&json!({ "name": "flu", "batch": "pet-1-flu" }))),
        "updated: {}",
        pretty(rex)
    );
    // Replace: requires-replace on a nested block attribute.
    ensure!(
        replace.human_plan.contains("pets_pet.rex must be replaced")
            && replace.human_plan.contains("# forces replacement"),
        "{}",
        replace.human_plan
    );
    let rex = state_values(&replace.state, PET)?;
    ensure!(rex["id"] == "pet-2", "replaced: {}", pretty(rex));
    ensure!(
        replace.state["values"]["outputs"]["greeting"]["value"] == "Hello, rex!",
        "greeting: {}",
        pretty(&replace.state["values"]["outputs"])
    );
    // Import: the stored pet comes back as it was, and the plan has nothing else to do.
    ensure!(import.human_plan.contains("will be imported"), "{}", import.human_plan);
    ensure!(
        state_values(&import.state, PET)? == state_values(&replace.state, PET)?,
        "imported state differs"
    );
    // Drift: an edited file is the new state, which the plan changes back; a deleted one
    // is created again, with the next id.
    ensure!(
        edited.human_plan.contains("pets_pet.rex will be updated in-place")
            && edited.human_plan.contains("~ legs")
            && edited.human_plan.contains("5 -> 3"),
        "{}",
        edited.human_plan
    );
    let rex = state_values(&edited.state, PET)?;
    ensure!(rex["id"] == "pet-2" && rex["legs"] == 3, "after the edit: {}", pretty(rex));
    ensure!(deleted.human_plan.contains("pets_pet.rex will be created"), "{}", deleted.human_plan);
    let rex = state_values(&deleted.state, PET)?;
    ensure!(rex["id"] == "pet-3", "after the deletion: {}", pretty(rex));
    // What the spec says of missing pets and relative directories.
    for (step, summary, detail) in [
        (missing_import, "Cannot import", "no pet with id pet-9"),
        (missing_data, "No such pet", "no pet with id pet-9"),
        (relative, "Relative directory", "pets is relative; use an absolute path."),
    ] {
        ensure!(
            step.diagnostics.iter().any(|d| d["summary"] == summary && d["detail"] == detail),
            "no {summary:?} diagnostic: {}",
            pretty(&Value::from(step.diagnostics.clone()))
        );
    }
    // Diagnostics name the attributes.
    let summaries: Vec<(&str, &str)> = invalid
        .diagnostics
        .iter()
        .map(|d| (d["summary"].as_str().unwrap_or(""), d["address"].as_str().unwrap_or("")))
        .collect();
    ensure!(
        invalid.diagnostics.len() == 2,
        "invalid: {}",
        pretty(&Value::from(invalid.diagnostics.clone()))
    );
    ensure!(!summaries.is_empty(), "invalid: no diagnostics");
    ensure!(
        function_error
            .diagnostics
            .iter()
            .any(|d| d["detail"].as_str().is_some_and(|t| t.contains("name must not be empty"))),
        "function error: {}",
        pretty(&Value::from(function_error.diagnostics.clone()))
    );
    ensure!(
        destroy.human_plan.contains("Destroy complete! Resources: 1 destroyed."),
        "{}",
        destroy.human_plan
    );
    Ok(())
}

/// Runs the steps against each of `implementations`: the first must meet the spec, and every
/// other must show exactly what the first showed.
pub(crate) fn conformance(implementations: &[Provider]) -> anyhow::Result<()> {
    let mut reference: Option<(Provider, Vec<Seen>)> = None;
    for &provider in implementations {
        let seen = run_steps(provider)?;
        match &reference {
            None => {
                check_spec(&seen).with_context(|| format!("{provider:?} against SPEC.md"))?;
                reference = Some((provider, seen));
            }
            Some((first, expected)) => {
                for ((step, want), got) in steps().iter().zip(expected).zip(&seen) {
                    let what = |part: &str| {
                        format!("{part} of step {:?}: {first:?} vs {provider:?}", step.name)
                    };
                    ensure!(
                        want.human_plan == got.human_plan,
                        "{}\n{}\n---\n{}",
                        what("human plan"),
                        want.human_plan,
                        got.human_plan
                    );
                    for (part, a, b) in [
                        ("plan JSON", &want.plan_json, &got.plan_json),
                        ("state", &want.state, &got.state),
                    ] {
                        if let Some(diff) = first_difference(a, b) {
                            anyhow::bail!("{}: {diff}", what(part));
                        }
                    }
                    ensure!(
                        want.diagnostics == got.diagnostics,
                        "{}\n{}\n---\n{}",
                        what("diagnostics"),
                        pretty(&Value::from(want.diagnostics.clone())),
                        pretty(&Value::from(got.diagnostics.clone()))
                    );
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_pets_implementation_behaves_as_the_spec_says() -> anyhow::Result<()> {
    conformance(IMPLEMENTATIONS)
}

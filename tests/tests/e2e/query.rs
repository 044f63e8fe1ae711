//! List resources through real terraform: `terraform query` with `list "files_file"` blocks in
//! a `.tfquery.hcl` file lists the regular files directly in a directory, sorted by name, with
//! their identities; `limit`, a `suffix` filter and `include_resource` shape the answer; and
//! `-generate-config-out` writes import and resource blocks that a plan then imports.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::pretty;
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Provider, Run, Workspace};

/// What `terraform query -json` reported for one list block.
#[derive(Debug)]
struct Listed {
    display_names: Vec<String>,
    identities: Vec<Value>,
    resource_objects: Vec<Value>,
    /// `list_complete.total`, if the block completed.
    total: Option<u64>,
}

/// The results of `list.files_file.<name>` in the JSON lines of `terraform query -json`.
fn listed(run: &Run, name: &str) -> anyhow::Result<Listed> {
    let address = format!("list.files_file.{name}");
    let mut listed = Listed {
        display_names: Vec::new(),
        identities: Vec::new(),
        resource_objects: Vec::new(),
        total: None,
    };
    for line in run.json_lines()? {
        match line["type"].as_str() {
            Some("list_resource_found")
                if line["list_resource_found"]["address"] == address.as_str() =>
            {
                let found = &line["list_resource_found"];
                ensure!(found["resource_type"] == "files_file", "{}", pretty(&line));
                listed
                    .display_names
                    .push(found["display_name"].as_str().unwrap_or_default().to_owned());
                listed.identities.push(found["identity"].clone());
                listed.resource_objects.push(found["resource_object"].clone());
            }
            Some("list_complete") if line["list_complete"]["address"] == address.as_str() => {
                listed.total = line["list_complete"]["total"].as_u64();
            }
            _ => {}
        }
    }
    Ok(listed)
}

fn identity(path: &Path) -> Value {
    json!({ "path": path.to_string_lossy() })
}

/// A granted directory holding `a.txt`, `b.txt`, `c.log` and a subdirectory with a file of
/// its own (not listed: only files directly in the directory are), and a workspace for it.
fn directory_and_workspace() -> anyhow::Result<(tempfile::TempDir, PathBuf, Workspace)> {
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    let listed = granted.join("listed");
    fs::create_dir_all(listed.join("sub"))?;
    // Written out of order: the listing sorts by name.
    for (name, content) in [
        ("c.log", "log line\n"),
        ("a.txt", "alpha"),
        ("b.txt", "bravo"),
        ("sub/nested.txt", "deep"),
    ] {
        fs::write(listed.join(name), content)?;
    }
    let ws = Workspace::with_installs(&[(Provider::Files, &allow_dir_rw(&granted))])?;
    ws.write("main.tf", &required_providers(&[Provider::Files]))?;
    Ok((scratch, listed, ws))
}

fn list_block(name: &str, directory: &Path, extra: &str, config_extra: &str) -> String {
    format!(
        "list \"files_file\" \"{name}\" {{\n  provider = files\n{extra}  config {{\n    directory = {}\n{config_extra}  }}\n}}\n\n",
        hcl_string(&directory.to_string_lossy())
    )
}

#[test]
fn query_lists_the_files_of_a_directory_with_their_identities() -> anyhow::Result<()> {
    let (_scratch, dir, ws) = directory_and_workspace()?;
    ws.write(
        "list.tfquery.hcl",
        &[
            list_block("all", &dir, "", ""),
            list_block("txt", &dir, "", "    suffix = \".txt\"\n"),
            list_block("first", &dir, "  limit = 1\n", ""),
            list_block("objects", &dir, "  include_resource = true\n", "    suffix = \".log\"\n"),
        ]
        .concat(),
    )?;
    ws.init()?;

    let run = ws.run(&["query", "-json", "-no-color"])?;
    ensure!(run.code == Some(0), "terraform query -json failed\n{run}");
    let errors: Vec<Value> =
        run.json_diagnostics()?.into_iter().filter(|d| d["severity"] == "error").collect();
    ensure!(errors.is_empty(), "errors: {errors:?}\n{run}");

    let all = listed(&run, "all")?;
    ensure!(
        all.display_names == ["a.txt", "b.txt", "c.log"],
        "list.files_file.all: {all:?}\n{run}"
    );
    ensure!(
        all.identities
            == [
                identity(&dir.join("a.txt")),
                identity(&dir.join("b.txt")),
                identity(&dir.join("c.log"))
            ],
        "identities: {all:?}"
    );
    ensure!(all.total == Some(3), "list_complete of list.files_file.all: {all:?}\n{run}");
    // Without include_resource the items carry no resource object.
    ensure!(
        all.resource_objects.iter().all(Value::is_null),
        "unrequested resource objects: {all:?}"
    );

    let txt = listed(&run, "txt")?;
    ensure!(
        txt.display_names == ["a.txt", "b.txt"] && txt.total == Some(2),
        "list.files_file.txt: {txt:?}\n{run}"
    );

    let first = listed(&run, "first")?;
    ensure!(
        first.display_names == ["a.txt"] && first.identities == [identity(&dir.join("a.txt"))],
        "limit = 1 gave {first:?}\n{run}"
    );

    let objects = listed(&run, "objects")?;
    ensure!(objects.display_names == ["c.log"], "list.files_file.objects: {objects:?}");
    let object = &objects.resource_objects[0];
    ensure!(
        object["filename"] == dir.join("c.log").to_string_lossy().as_ref()
            && object["content"] == "log line\n"
            && object["content_wo"].is_null(),
        "resource object: {}",
        pretty(object)
    );

    // The human output names what was found.
    let human = ws.ok(&["query", "-no-color"])?;
    for name in ["a.txt", "b.txt", "c.log"] {
        ensure!(human.stdout.contains(name), "terraform query does not show {name}\n{human}");
    }
    ensure!(!human.stdout.contains("nested.txt"), "a file in a subdirectory was listed\n{human}");
    Ok(())
}

#[test]
fn a_listing_outside_the_granted_directories_fails() -> anyhow::Result<()> {
    let (_scratch, dir, ws) = directory_and_workspace()?;
    let outside = tempfile::tempdir()?;
    fs::write(outside.path().join("secret.txt"), "not for the provider")?;
    ws.write("list.tfquery.hcl", &list_block("outside", &outside.path().canonicalize()?, "", ""))?;
    ws.init()?;
    let run = ws.run(&["query", "-no-color"])?;
    ensure!(run.code == Some(1), "listing an ungranted directory did not fail\n{run}");
    ensure!(!run.stdout.contains("secret.txt"), "an ungranted file was listed\n{run}");

    // And a missing directory is an error too, not an empty listing.
    ws.write("list.tfquery.hcl", &list_block("missing", &dir.join("missing"), "", ""))?;
    let run = ws.run(&["query", "-no-color"])?;
    ensure!(run.code == Some(1), "listing a missing directory did not fail\n{run}");
    Ok(())
}

#[test]
fn query_generates_import_and_resource_blocks_that_a_plan_imports() -> anyhow::Result<()> {
    let (_scratch, dir, ws) = directory_and_workspace()?;
    ws.write("list.tfquery.hcl", &list_block("all", &dir, "", ""))?;
    ws.init()?;

    let run = ws.run(&["query", "-generate-config-out=generated.tf", "-no-color"])?;
    ensure!(run.code == Some(0), "terraform query -generate-config-out failed\n{run}");
    let generated = ws.read("generated.tf")?;
    let imports = generated.matches("import {").count();
    let resources = generated.matches("resource \"files_file\"").count();
    ensure!(
        imports == 3 && resources == 3,
        "{imports} import and {resources} resource blocks:\n{generated}"
    );
    for name in ["a.txt", "b.txt", "c.log"] {
        ensure!(
            generated.contains(&hcl_string(&dir.join(name).to_string_lossy())),
            "generated.tf does not name {name}:\n{generated}"
        );
    }
    for content in ["alpha", "bravo", "log line"] {
        ensure!(
            generated.contains(content),
            "generated.tf lacks the content {content:?}:\n{generated}"
        );
    }
    ensure!(!generated.contains("nested.txt"), "{generated}");

    // The generated blocks import the files as they are.
    let plan = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(
        plan.stdout.contains("Plan: 3 to import, 0 to add, 0 to change, 0 to destroy."),
        "the generated configuration does not just import\n{plan}"
    );
    let apply = ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(apply.stdout.contains("3 imported, 0 added, 0 changed, 0 destroyed"), "{apply}");
    let state = ws.state_json()?;
    let contents: Vec<&str> = state["values"]["root_module"]["resources"]
        .as_array()
        .context("no resources in state")?
        .iter()
        .filter_map(|r| r["values"]["content"].as_str())
        .collect();
    let mut sorted = contents.clone();
    sorted.sort();
    ensure!(sorted == ["alpha", "bravo", "log line\n"], "imported contents {contents:?}");
    Ok(())
}

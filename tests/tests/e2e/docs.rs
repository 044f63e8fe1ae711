//! `terrarium docs`: the registry documentation of every example is checked in
//! (`examples/*/docs`, written by `make docs`), and must be what `terrarium docs` writes from
//! the component built now: a schema change without new docs fails here.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, bail, ensure};
use terrarium_tests::Artifacts;

/// Each documented example's directory under examples/ and its component (the Makefile's
/// DOCUMENTED).
const DOCUMENTED: [(&str, &str); 8] = [
    ("null", "null_provider"),
    ("random", "random_provider"),
    ("files", "files_provider"),
    ("etcd", "etcd_provider"),
    ("pets/rust", "pets_rs"),
    ("pets/typescript", "pets_ts"),
    ("pets/python", "pets_py"),
    ("pets/go", "pets_go"),
];

/// Every file under `dir`, by its path relative to `dir`.
fn files(dir: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) -> anyhow::Result<()> {
        for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else {
                let relative = path.strip_prefix(root)?.to_string_lossy().into_owned();
                out.insert(relative, fs::read_to_string(&path)?);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    if dir.is_dir() {
        walk(dir, dir, &mut out)?;
    }
    Ok(out)
}

/// `terrarium docs COMPONENT --out OUT [--examples DIR]`.
fn terrarium_docs(component: &Path, out: &Path, examples: &Path) -> anyhow::Result<()> {
    let mut command = Command::new(Artifacts::get()?.terrarium()?);
    command.arg("docs").arg(component).arg("--out").arg(out).stdin(Stdio::null());
    if examples.is_dir() {
        command.arg("--examples").arg(examples);
    }
    let output = command.output()?;
    ensure!(
        output.status.success(),
        "terrarium docs {} failed ({}):\n{}",
        component.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

#[test]
fn every_examples_docs_are_checked_in_and_fresh() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let mut stale = Vec::new();
    for (dir, component) in DOCUMENTED {
        let example = artifacts.repo_root.join("examples").join(dir);
        let generated = tempfile::tempdir()?;
        terrarium_docs(
            &artifacts.component(component)?,
            generated.path(),
            &example.join("examples"),
        )?;
        let fresh = files(generated.path())?;
        let checked_in = files(&example.join("docs"))?;
        let names =
            fresh.keys().chain(checked_in.keys()).collect::<std::collections::BTreeSet<_>>();
        for name in names {
            match (fresh.get(name), checked_in.get(name)) {
                (Some(a), Some(b)) if a == b => {}
                (Some(_), Some(_)) => stale.push(format!("examples/{dir}/docs/{name} differs")),
                (Some(_), None) => stale.push(format!("examples/{dir}/docs/{name} is missing")),
                (None, _) => stale.push(format!("examples/{dir}/docs/{name} is no page any more")),
            }
        }
    }
    if !stale.is_empty() {
        bail!(
            "the examples' documentation is stale: run `make docs` and commit examples/*/docs\n  {}",
            stale.join("\n  ")
        );
    }
    Ok(())
}

#[test]
fn a_resource_page_shows_the_schema_as_the_registry_does() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let out = tempfile::tempdir()?;
    terrarium_docs(&artifacts.component("random_provider")?, out.path(), Path::new(""))?;
    let page = fs::read_to_string(out.path().join("resources/string.md"))?;
    for expected in [
        "page_title: \"random_string Resource - terraform-provider-random\"",
        "# random_string (Resource)",
        "### Required\n\n- `length` (Number)",
        "### Read-Only\n\n- `id` (String)\n- `result` (String) The generated string.\n",
    ] {
        ensure!(page.contains(expected), "no {expected:?} in resources/string.md:\n{page}");
    }
    let function = fs::read_to_string(out.path().join("functions/uuid_v5.md"))?;
    ensure!(
        function.contains("```text\nuuid_v5(namespace string, name string) string\n```"),
        "functions/uuid_v5.md:\n{function}"
    );
    ensure!(out.path().join("index.md").is_file(), "no index.md");
    Ok(())
}

/// The pets provider is one provider in four languages (examples/pets/SPEC.md): its
/// generated documentation, schema and descriptions included, is the same in each.
#[test]
fn the_pets_docs_are_the_same_in_every_language() -> anyhow::Result<()> {
    let examples = Artifacts::get()?.repo_root.join("examples/pets");
    let reference = files(&examples.join("rust/docs"))?;
    ensure!(!reference.is_empty(), "examples/pets/rust/docs has no pages");
    for language in ["typescript", "python", "go"] {
        let pages = files(&examples.join(language).join("docs"))?;
        for (name, page) in &reference {
            ensure!(
                pages.get(name) == Some(page),
                "examples/pets/{language}/docs/{name} differs from the Rust one's (or is missing)"
            );
        }
        ensure!(
            pages.len() == reference.len(),
            "examples/pets/{language}/docs has pages the Rust one has not: {:?}",
            pages.keys().filter(|k| !reference.contains_key(*k)).collect::<Vec<_>>()
        );
    }
    Ok(())
}

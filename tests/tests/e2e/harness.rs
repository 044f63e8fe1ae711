//! `terrarium harness COMPONENT`: the JSON-lines protocol the Python and TypeScript SDKs'
//! test helpers speak (docs/harness.md), driven here against examples/files, a Rust
//! component: a whole lifecycle through the host's own dispatch, with no terraform.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::Artifacts;

/// One `terrarium harness` process and its pipes.
struct Harness {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Harness {
    fn start(crate_name: &str, args: &[String]) -> anyhow::Result<Harness> {
        let artifacts = Artifacts::get()?;
        let mut child = Command::new(artifacts.terrarium()?)
            .arg("harness")
            .arg(artifacts.component(crate_name)?)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting terrarium harness")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout")?);
        Ok(Harness { child, stdin, stdout })
    }

    fn ask(&mut self, request: Value) -> anyhow::Result<Value> {
        writeln!(self.stdin, "{request}")?;
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        serde_json::from_str(&line).with_context(|| format!("answer to {request}: {line:?}"))
    }

    /// Asks, and fails on a protocol error or an error diagnostic.
    fn ok(&mut self, request: Value) -> anyhow::Result<Value> {
        let answer = self.ask(request.clone())?;
        let errors = answer["diagnostics"].as_array().into_iter().flatten();
        ensure!(
            answer.get("error").is_none() && errors.clone().all(|d| d["severity"] != "error"),
            "{request} failed: {answer}"
        );
        Ok(answer)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_rust_component_goes_through_a_lifecycle_over_the_harness_protocol() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let dir_path = dir.path().canonicalize()?;
    let file = dir_path.join("a.txt").display().to_string();
    let mut h = Harness::start(
        "files_provider",
        &["--allow-dir".into(), format!("{}:rw", dir_path.display())],
    )?;
    let schema = h.ok(json!({"op": "schema"}))?;
    ensure!(schema["resource_schemas"]["files_file"].is_object(), "schema: {schema}");

    let config = json!({"filename": file, "content": "one"});
    h.ok(json!({"op": "validate", "type": "files_file", "config": config}))?;
    let plan = h.ok(json!({"op": "plan", "type": "files_file", "config": config}))?;
    ensure!(plan["planned_unknown"] == json!({"id": true, "content_sha256": true}), "{plan}");
    ensure!(plan["planned"]["content"] == "one", "{plan}");
    let applied = h.ok(json!({
        "op": "apply", "type": "files_file", "config": config,
        "planned": plan["planned"], "planned_unknown": plan["planned_unknown"],
        "planned_private": plan["planned_private"], "planned_identity": plan["planned_identity"],
    }))?;
    let state = applied["state"].clone();
    ensure!(std::fs::read_to_string(&file)? == "one", "the file was not written");
    ensure!(applied["identity"] == json!({"path": file}), "{applied}");

    // Unchanged: the plan is the state. A new content forces a replacement.
    let same =
        h.ok(json!({"op": "plan", "type": "files_file", "prior": state, "config": config}))?;
    ensure!(same["planned"] == state && same["planned_unknown"] == json!(false), "{same}");
    let changed = json!({"filename": file, "content": "two"});
    let replace =
        h.ok(json!({"op": "plan", "type": "files_file", "prior": state, "config": changed}))?;
    ensure!(replace["requires_replace"] == json!(["content"]), "{replace}");

    // Drift: the file deleted outside; read says it is gone.
    std::fs::remove_file(&file)?;
    let read = h.ok(json!({"op": "read", "type": "files_file", "state": state}))?;
    ensure!(read["state"].is_null(), "{read}");

    // Import by ID, and a destroy plan (null configuration).
    std::fs::write(&file, "three")?;
    let imported = h.ok(json!({"op": "import", "type": "files_file", "id": file}))?;
    ensure!(imported["imported"][0]["state"]["content"] == "three", "{imported}");
    let destroy = h.ok(json!({"op": "plan", "type": "files_file", "prior": state}))?;
    ensure!(destroy["planned"].is_null(), "{destroy}");

    // Data source.
    let data =
        h.ok(json!({"op": "read_data", "type": "files_file", "config": {"filename": file}}))?;
    ensure!(data["state"]["content"] == "three", "{data}");
    Ok(())
}

#[test]
fn the_harness_answers_bad_requests_and_keeps_going() -> anyhow::Result<()> {
    let mut h = Harness::start("files_provider", &[])?;
    let bad = h.ask(json!({"op": "plan", "type": "files_nope"}))?;
    ensure!(bad["error"] == "this provider has no resource type \"files_nope\"", "{bad}");
    let typo = h.ask(json!({"op": "plan", "type": "files_file", "confg": {}}))?;
    ensure!(typo["error"].as_str().is_some_and(|e| e.contains("unknown field `confg`")), "{typo}");
    let wrong =
        h.ask(json!({"op": "validate", "type": "files_file", "config": {"filename": []}}))?;
    ensure!(wrong["error"].as_str().is_some_and(|e| e.contains("filename")), "{wrong}");

    // Validation diagnostics carry their attribute path. The file is outside every grant.
    let invalid =
        h.ask(json!({"op": "validate", "type": "files_file", "config": {"filename": "/x"}}))?;
    let diagnostics = invalid["diagnostics"].as_array().context("no diagnostics")?;
    ensure!(!diagnostics.is_empty(), "{invalid}");
    let outside = json!({"filename": "/nowhere/f", "content": "x"});
    let plan = h.ok(json!({"op": "plan", "type": "files_file", "config": outside}))?;
    let denied = h.ask(json!({
        "op": "apply", "type": "files_file", "config": outside,
        "planned": plan["planned"], "planned_unknown": plan["planned_unknown"],
    }))?;
    let first = &denied["diagnostics"][0];
    ensure!(first["severity"] == "error" && first["attribute"] == "filename", "{denied}");
    Ok(())
}

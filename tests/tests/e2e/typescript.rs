//! Providers written in TypeScript (guest-sdk/js), built with componentize-js: the host serves
//! them like any component.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context as _, ensure};
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::workspace::{hcl_string, run_with_timeout};
use terrarium_tests::{Artifacts, Provider, Workspace};

use crate::dev::{DevServer, shell_word};
use crate::inspect::inspect_matches_terraform;

#[test]
fn pets_ts_inspect_matches_terraform_providers_schema() -> anyhow::Result<()> {
    inspect_matches_terraform(Provider::PetsTs)
}

/// Runs `program args` in `dir` (relative to the repository) with the harness pointed at this
/// build's host; fails with its output unless it succeeds.
fn node_suite(
    dir: &str,
    program: &str,
    args: &[&str],
    env: &[(&str, &Path)],
) -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(artifacts.repo_root.join(dir))
        .env("TERRARIUM_BIN", artifacts.terrarium()?)
        .env("TMPDIR", &artifacts.scratch_root)
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(600))?;
    ensure!(
        code == Some(0),
        "{program} {} in {dir} failed (exit {code:?}):\n{stdout}{stderr}",
        args.join(" ")
    );
    Ok(())
}

/// The TypeScript SDK's own unit tests (values, schemas, behaviour), in node's test runner.
#[test]
fn the_typescript_sdk_unit_suite_passes() -> anyhow::Result<()> {
    node_suite("guest-sdk/js", "node_modules/.bin/tsc", &["-p", "tsconfig.test.json"], &[])?;
    node_suite("guest-sdk/js", "node", &["--test", "dist-test/test/"], &[])
}

/// examples/pets/typescript's own tests: the built component through `terrarium harness`
/// with `@terrarium/sdk/harness`, run by `terrarium-js test`.
#[test]
fn the_typescript_pets_harness_suite_passes() -> anyhow::Result<()> {
    let component = Provider::PetsTs.component()?.context("pets_ts is a component")?;
    node_suite(
        "examples/pets/typescript",
        "node",
        &["../../../guest-sdk/js/bin/terrarium-js.mjs", "test"],
        &[("PETS_TS_WASM", &component)],
    )
}

/// guest-sdk/js/README.md, run as written: its `sh` blocks in order, its file blocks
/// (```` ```ts file=src/provider.ts ````) written where they say, in an empty directory, with
/// `terrarium` and `terraform` on the PATH and `$NOTES_API` a local HTTP server. The
/// walk-through goes from `npm init` to `terraform apply`, so this fails wherever it stops
/// being true.
#[test]
fn the_typescript_readme_walkthrough_runs_as_written() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let readme = std::fs::read_to_string(artifacts.repo_root.join("guest-sdk/js/README.md"))?;
    let script = readme_script(&readme)?;
    let api = ApiServer::start("hello from the API")?;

    let dir = tempfile::Builder::new().prefix("ts-readme-").tempdir()?;
    let terrarium_dir = artifacts.terrarium()?.parent().context("terrarium has no directory")?;
    let terraform_dir = artifacts.terraform.parent().context("terraform has no directory")?;
    let path = std::env::join_paths(
        [terrarium_dir.to_owned(), terraform_dir.to_owned()]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )?;
    let mut command = Command::new("bash");
    command
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("TERRARIUM", &artifacts.repo_root)
        .env("NOTES_API", api.origin())
        .env_remove("TF_CLI_CONFIG_FILE")
        .stdin(Stdio::null());
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(900))?;
    ensure!(
        code == Some(0),
        "the README's walk-through failed (exit {code:?}):\n--- script\n{script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    // A newcomer following the README sees no warning (terraform init's "Incomplete lock file
    // information" included).
    let warnings: Vec<&str> = stdout
        .lines()
        .chain(stderr.lines())
        .filter(|l| l.to_lowercase().contains("warning"))
        .collect();
    ensure!(
        warnings.is_empty(),
        "the README's walk-through warned {warnings:?}:\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    // node's test runner reports in TAP when its output is not a terminal.
    for expected in
        ["# pass 1", "Apply complete! Resources: 1 added", "motd = \"hello from the API\""]
    {
        ensure!(stdout.contains(expected), "the walk-through printed no {expected:?}:\n{stdout}");
    }
    ensure!(stdout.trim_end().ends_with("milk"), "notes-dir/todo.txt is not \"milk\":\n{stdout}");

    // Section 6: `terrarium dev --build` with the TypeScript build, and terraform reattached.
    let project = dir.path().join("notes");
    let build = format!(
        "node {} build src/provider.ts -o notes.wasm",
        shell_word(
            &artifacts.repo_root.join("guest-sdk/js/bin/terrarium-js.mjs").to_string_lossy()
        )
    );
    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    ws.write("main.tf", &std::fs::read_to_string(project.join("main.tf"))?)?;
    let notes_dir = ws.config_dir().join("notes-dir");
    std::fs::create_dir(&notes_dir)?;
    let mut command = Command::new(artifacts.terrarium()?);
    command
        .arg("dev")
        .arg(project.join("notes.wasm"))
        .args(["--source", "example.com/you/notes", "--build", &build, "--watch", "src"])
        .arg("--allow-dir")
        .arg(format!("{}:rw", notes_dir.display()))
        .args(["--allow-http", &api.origin()])
        .current_dir(&project);
    let server = DevServer::spawn(command, "example.com/you/notes", dir.path().join("dev.log"))?;
    server.terraform(&ws, &["init", "-input=false", "-no-color"])?;
    let api_var = format!("notes_api={}", api.origin());
    let plan = server.terraform(&ws, &["plan", "-input=false", "-no-color", "-var", &api_var])?;
    plan.shows(&["# notes_note.todo will be created", "+ motd = \"hello from the API\""])?;
    ensure!(
        server.log_text().contains("terrarium-js: wrote"),
        "the dev server did not build:\n{}",
        server.log_text()
    );

    // `fetch` of an origin that is not granted: the sandbox refuses it (the server sees no
    // request) and the diagnostic names the grant that allows it.
    let other = ApiServer::start("not granted")?;
    let other_var = format!("notes_api={}", other.origin());
    let refused = server.run(&ws, &["plan", "-input=false", "-no-color", "-var", &other_var])?;
    let said = refused.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    ensure!(
        refused.code == Some(1)
            && said.contains(&format!("The request to {}/motd failed", other.origin()))
            && said.contains(&format!("`--allow-http {}` to its command", other.origin())),
        "an ungranted fetch did not fail with the grant to add:\n{refused}"
    );
    ensure!(other.requests() == 0, "the sandbox let a request to {} through", other.origin());
    Ok(())
}

/// The README's runnable blocks as one bash script: `sh` blocks as they are, file blocks as
/// here-documents written to their file.
fn readme_script(readme: &str) -> anyhow::Result<String> {
    let mut script = String::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        let file = info.split_whitespace().find_map(|w| w.strip_prefix("file="));
        match (info.trim(), file) {
            (_, Some(file)) => {
                script.push_str(&format!(
                    "cat > {file} <<'README_EOF'\n{}\nREADME_EOF\n",
                    body.join("\n")
                ));
            }
            ("sh", None) => {
                script.push_str(&body.join("\n"));
                script.push('\n');
            }
            _ => {}
        }
    }
    ensure!(script.contains("terraform apply"), "the README has no runnable `terraform apply`");
    Ok(script)
}

/// A local HTTP server answering every request with `body` (200, text/plain), until dropped.
pub(crate) struct ApiServer {
    port: u16,
    /// How many connections it accepted.
    accepted: Arc<AtomicUsize>,
    _thread: std::thread::JoinHandle<()>,
}

impl ApiServer {
    pub(crate) fn start(body: &'static str) -> anyhow::Result<ApiServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming().take(64) {
                let Ok(mut stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes());
            }
        });
        Ok(ApiServer { port, accepted, _thread: thread })
    }

    pub(crate) fn requests(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    pub(crate) fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// What a TypeScript provider logs (`log.info`) reaches terraform's provider log with its
/// fields, and a file outside its grants is an error that says which grant would allow it.
#[test]
fn pets_ts_logs_reach_tf_log_provider_and_ungranted_files_are_refused() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    let outside = scratch.path().canonicalize()?.join("outside");
    std::fs::create_dir(&granted)?;
    std::fs::create_dir(&outside)?;
    let ws = Workspace::with_installs(&[(Provider::PetsTs, &allow_dir_rw(&granted))])?;
    let config = |dir: &std::path::Path| {
        format!(
            "{}\nprovider \"pets\" {{\n  directory = {}\n}}\n\nresource \"pets_pet\" \"rex\" {{\n  name = \"rex\"\n}}\n",
            required_providers(&[Provider::PetsTs]),
            hcl_string(&dir.to_string_lossy())
        )
    };
    ws.write("main.tf", &config(&granted))?;
    ws.init()?;
    let log = ws.root().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let apply = ["apply", "-auto-approve", "-input=false", "-no-color"];
    let run =
        ws.run_with_env(&apply, &[("TF_LOG_PROVIDER", "INFO"), ("TF_LOG_PATH", &log_path)])?;
    ensure!(run.code == Some(0), "apply failed\n{run}");
    let text =
        std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    let line = text.lines().find(|l| l.contains("created a pet")).with_context(|| {
        format!(
            "no \"created a pet\" in the provider log:\n{}",
            text.lines().filter(|l| l.contains("pets")).collect::<Vec<_>>().join("\n")
        )
    })?;
    ensure!(
        line.contains("pet-1") && line.contains("rex"),
        "the log line lacks its fields: {line}"
    );
    ensure!(
        granted.join("pet-1.json").is_file(),
        "the pet was not written into the granted directory"
    );

    ws.write("main.tf", &config(&outside).replace("\"rex\"\n}", "\"max\"\n}"))?;
    let run = ws.run(&apply)?;
    ensure!(run.code == Some(1), "a pet outside the grants was written\n{run}");
    ensure!(
        run.stderr.contains("--allow-dir")
            && run.stderr.contains(&outside.to_string_lossy().to_string()),
        "the error does not say which grant would allow it\n{run}"
    );
    ensure!(
        !outside.join("pet-1.json").exists() && std::fs::read_dir(&outside)?.next().is_none(),
        "a file appeared outside the grants"
    );
    Ok(())
}

/// The TypeScript declarations of the WIT world in guest-sdk/js/src/wit are what jco
/// generates from wit/ now: a WIT change without `terrarium-js wit-types` fails here.
#[test]
fn the_typescript_wit_declarations_are_generated_from_wit() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let fresh = tempfile::tempdir_in(&artifacts.scratch_root)?;
    let sdk = artifacts.repo_root.join("guest-sdk/js");
    let mut command = Command::new("node");
    command.arg("bin/terrarium-js.mjs").arg("wit-types").arg(fresh.path()).current_dir(&sdk);
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(120))?;
    ensure!(code == Some(0), "terrarium-js wit-types failed:\n{stdout}{stderr}");
    let files = |root: &Path| -> anyhow::Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for sub in ["", "interfaces"] {
            for entry in std::fs::read_dir(root.join(sub))? {
                let path = entry?.path();
                if path.is_file() {
                    let name = path.strip_prefix(root)?.to_string_lossy().into_owned();
                    out.push((name, std::fs::read_to_string(&path)?));
                }
            }
        }
        out.sort();
        Ok(out)
    };
    ensure!(
        files(&sdk.join("src/wit"))? == files(fresh.path())?,
        "guest-sdk/js/src/wit is not what wit/ gives; run `node guest-sdk/js/bin/terrarium-js.mjs wit-types` and commit it"
    );
    Ok(())
}

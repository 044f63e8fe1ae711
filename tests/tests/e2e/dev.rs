//! `terrarium dev` as a provider author uses it: one long-lived server that Terraform reattaches
//! to (TF_REATTACH_PROVIDERS), rebuilding and reloading the provider on every save.
//!
//! The provider is tests/guests/devloop, copied to a temporary directory as an author's crate
//! would be, and built by the dev server's `--build` command with cargo. The test edits its
//! source: a plan in the same reattached session shows the new behaviour; a source that does
//! not compile leaves the old build serving, with a warning in the next plan; Ctrl-C stops the
//! server and removes its socket.
//!
//! The first run compiles wit-bindgen for wasm32-wasip2 into target/tmp/devloop-target (about a
//! minute here); later runs reuse it.

use std::fs;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use serde_json::Value;
use terrarium_tests::workspace::{kill_group, run_with_timeout};
use terrarium_tests::{Artifacts, Run, Workspace};

/// A cold build of the fixture compiles wit-bindgen; on this shared 2-core machine that can
/// take minutes.
const BUILD_TIMEOUT: Duration = Duration::from_secs(900);

const CONFIG: &str = r#"
terraform {
  required_providers {
    devloop = { source = "example/devloop" }
  }
}

provider "devloop" {
  prefix = "dev: "
}

data "devloop_greeting" "this" {}

output "greeting" {
  value = data.devloop_greeting.this.text
}
"#;

/// The author's copy of the fixture: `root/tests/guests/devloop`, with the WIT package at
/// `root/wit` where its bindings look for it.
struct AuthorCrate {
    _root: tempfile::TempDir,
    dir: PathBuf,
}

impl AuthorCrate {
    fn copy(artifacts: &Artifacts) -> anyhow::Result<AuthorCrate> {
        let root = tempfile::Builder::new().prefix("terrarium-devloop-").tempdir()?;
        let repo = &artifacts.repo_root;
        fs::create_dir(root.path().join("wit"))?;
        for entry in fs::read_dir(repo.join("wit"))? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                fs::copy(entry.path(), root.path().join("wit").join(entry.file_name()))?;
            }
        }
        let dir = root.path().join("tests/guests/devloop");
        fs::create_dir_all(dir.join("src"))?;
        let template = repo.join("tests/guests/devloop");
        fs::copy(template.join("Cargo.toml"), dir.join("Cargo.toml"))?;
        fs::copy(template.join("src/lib.rs"), dir.join("src/lib.rs"))?;
        // The workspace's lock file pins the same wit-bindgen, so the build needs no network.
        fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock"))?;
        Ok(AuthorCrate { _root: root, dir })
    }

    fn source(&self) -> PathBuf {
        self.dir.join("src/lib.rs")
    }

    /// Rewrites the source the way an editor saves it (truncate and write).
    fn edit(&self, from: &str, to: &str) -> anyhow::Result<()> {
        let text = fs::read_to_string(self.source())?;
        ensure!(text.contains(from), "the fixture source has no {from:?}");
        fs::write(self.source(), text.replace(from, to))?;
        Ok(())
    }
}

/// A running `terrarium dev`, its stderr collected in a file.
pub(crate) struct DevServer {
    child: Child,
    reattach: String,
    socket: PathBuf,
    log: PathBuf,
}

impl DevServer {
    fn start(
        artifacts: &Artifacts,
        author: &AuthorCrate,
        scratch: &Path,
    ) -> anyhow::Result<DevServer> {
        DevServer::start_watching(artifacts, author, scratch, &[])
    }

    /// [`DevServer::start`], with `also` watched besides the crate's sources.
    fn start_watching(
        artifacts: &Artifacts,
        author: &AuthorCrate,
        scratch: &Path,
        also: &[&Path],
    ) -> anyhow::Result<DevServer> {
        let target = artifacts
            .scratch_root
            .parent()
            .and_then(Path::parent)
            .context("the scratch directory is not inside target/tmp")?
            .join("devloop-target");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let build = format!(
            "{} build --offline --target wasm32-wasip2 --manifest-path {}",
            shell_word(&cargo),
            shell_word(&author.dir.join("Cargo.toml").to_string_lossy())
        );
        let component = target.join("wasm32-wasip2/debug/devloop_provider.wasm");
        let mut command = Command::new(artifacts.terrarium()?);
        command
            .arg("dev")
            .arg(&component)
            .args(["--source", "example/devloop", "--build", &build, "--watch"])
            .arg(author.dir.join("src"))
            .env("CARGO_TARGET_DIR", &target);
        for dir in also {
            command.arg("--watch").arg(dir);
        }
        DevServer::spawn(command, "example/devloop", scratch.join("dev.log"))
    }

    /// Starts `command`, a `terrarium dev` serving `source`, and reads the reattach line it
    /// prints.
    pub(crate) fn spawn(
        mut command: Command,
        source: &str,
        log: PathBuf,
    ) -> anyhow::Result<DevServer> {
        command
            .env("TERRARIUM_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(fs::File::create(&log)?);
        {
            use std::os::unix::process::CommandExt as _;
            command.process_group(0);
        }
        let mut child = command.spawn().context("starting terrarium dev")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (lines, received) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = DevServer { child, reattach: String::new(), socket: PathBuf::new(), log };
        let first = received.recv_timeout(BUILD_TIMEOUT).map_err(|_| {
            anyhow::anyhow!(
                "terrarium dev printed nothing within {BUILD_TIMEOUT:?}\n{}",
                server.log_text()
            )
        })?;
        let quoted = first
            .strip_prefix("export TF_REATTACH_PROVIDERS=")
            .with_context(|| format!("unexpected first line {first:?}\n{}", server.log_text()))?;
        server.reattach = quoted
            .strip_prefix('\'')
            .and_then(|q| q.strip_suffix('\''))
            .with_context(|| format!("the value is not one single-quoted word: {quoted}"))?
            .to_owned();
        let hint = received.recv_timeout(Duration::from_secs(10)).context("no hint line")?;
        ensure!(hint.starts_with("# ") && hint.contains("Ctrl-C"), "unexpected hint line {hint:?}");

        let parsed: Value = serde_json::from_str(&server.reattach)?;
        let entry = &parsed[source];
        ensure!(
            entry["Test"] == true && entry["ProtocolVersion"] == 6 && entry["Protocol"] == "grpc",
            "{parsed}"
        );
        ensure!(
            entry["Pid"] == server.child.id() && entry["Addr"]["Network"] == "unix",
            "{parsed}"
        );
        server.socket = PathBuf::from(entry["Addr"]["String"].as_str().context("no socket path")?);
        ensure!(server.socket.exists(), "the socket {} does not exist", server.socket.display());
        Ok(server)
    }

    pub(crate) fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the log has `count` lines containing `needle`.
    fn wait_for_log(&self, needle: &str, count: usize) -> anyhow::Result<()> {
        let deadline = Instant::now() + BUILD_TIMEOUT;
        while Instant::now() < deadline {
            if self.log_text().matches(needle).count() >= count {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("the dev server never logged {needle:?} {count} times\n{}", self.log_text())
    }

    /// terraform with TF_REATTACH_PROVIDERS pointing here.
    pub(crate) fn terraform(&self, ws: &Workspace, args: &[&str]) -> anyhow::Result<Run> {
        let run = self.run(ws, args)?;
        ensure!(
            run.code == Some(0) || run.code == Some(2),
            "terraform failed\n{run}\n--- dev log ---\n{}",
            self.log_text()
        );
        Ok(run)
    }

    /// Runs terraform reattached to this server, whatever its exit status.
    pub(crate) fn run(&self, ws: &Workspace, args: &[&str]) -> anyhow::Result<Run> {
        ws.run_prepared(args, |command| {
            command.env("TF_REATTACH_PROVIDERS", &self.reattach);
        })
    }

    /// A plan of CONFIG; returns the planned greeting and the plan run.
    fn planned_greeting(&self, ws: &Workspace) -> anyhow::Result<(String, Run)> {
        let run = self.terraform(ws, &["plan", "-input=false", "-no-color", "-out", "tfplan"])?;
        let show = self.terraform(ws, &["show", "-json", "tfplan"])?;
        let plan: Value = serde_json::from_str(&show.stdout).context("plan JSON")?;
        let greeting = plan["planned_values"]["outputs"]["greeting"]["value"]
            .as_str()
            .with_context(|| format!("no planned greeting in {plan}"))?
            .to_owned();
        Ok((greeting, run))
    }
}

impl Drop for DevServer {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

pub(crate) fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[test]
fn edit_rebuild_and_plan_again_in_the_same_session() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let author = AuthorCrate::copy(artifacts)?;
    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    ws.write("main.tf", CONFIG)?;
    let server = DevServer::start(artifacts, &author, ws.root())?;

    server.terraform(&ws, &["init", "-input=false", "-no-color"])?;
    let (greeting, _) = server.planned_greeting(&ws)?;
    assert_eq!(greeting, "dev: hello from build 1");

    // Save a change: the server rebuilds, reloads, and the next plan (same session, nothing
    // re-run or re-exported) shows it.
    author.edit("hello from build 1", "hello from build 2")?;
    server.wait_for_log("reloaded:", 1)?;
    let log = server.log_text();
    ensure!(
        log.contains("reloaded: new code; schema and declared behaviour"),
        "the reload says the code changed, not the schema or the behaviour\n{log}"
    );
    let (greeting, _) = server.planned_greeting(&ws)?;
    assert_eq!(greeting, "dev: hello from build 2");

    // A change that does not compile: the build fails, the old build keeps serving, and the
    // next plan carries a warning saying so.
    author.edit(
        "const GREETING: &str = \"hello from build 2\";",
        "const GREETING: &str = hello from build 3;",
    )?;
    server.wait_for_log("failed: it exited with status", 1)?;
    let (greeting, run) = server.planned_greeting(&ws)?;
    assert_eq!(greeting, "dev: hello from build 2", "the old build keeps serving");
    ensure!(
        run.warning_summaries().iter().any(|w| w == "Provider build failed"),
        "expected a \"Provider build failed\" warning\n{run}"
    );

    // Fixing it brings the new code in.
    author.edit("hello from build 3;", "\"hello from build 3\";")?;
    server.wait_for_log("reloaded:", 2)?;
    let (greeting, run) = server.planned_greeting(&ws)?;
    assert_eq!(greeting, "dev: hello from build 3");
    ensure!(run.warning_summaries().is_empty(), "no stale warning after a good build\n{run}");

    stop_with_ctrl_c(server)
}

/// The Python README's `--watch .` with terraform run in that directory: a `terraform plan`
/// there must not rebuild (issue 28 item 6). Terraform opens its state for writing to lock it
/// and writes `.terraform/`, its lock files, state and plan files; none of them is a source,
/// and a file opened for writing and closed unchanged is no change. A real edit afterwards starts the
/// first build the watch runs: a build started by Terraform's files would have come before
/// it, and be the first "sources changed" line.
#[test]
fn a_plan_in_the_watched_directory_does_not_rebuild() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let author = AuthorCrate::copy(artifacts)?;
    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    ws.write("main.tf", CONFIG)?;
    // The server's log is not written into the watched directory: it would be a real change.
    let scratch = tempfile::Builder::new().prefix("terrarium-devlog-").tempdir()?;
    let server = DevServer::start_watching(artifacts, &author, scratch.path(), &[ws.root()])?;

    server.terraform(&ws, &["init", "-input=false", "-no-color"])?;
    server.terraform(&ws, &["plan", "-input=false", "-no-color"])?;
    server.terraform(&ws, &["plan", "-input=false", "-no-color"])?;
    // A saved plan, under a name that says nothing: a plan file is no source either.
    server.terraform(&ws, &["plan", "-input=false", "-no-color", "-out", "saved"])?;

    author.edit("hello from build 1", "hello from build 2")?;
    server.wait_for_log("reloaded:", 1)?;
    let log = server.log_text();
    let builds: Vec<&str> = log.lines().filter(|l| l.contains("sources changed")).collect();
    ensure!(
        builds.len() == 1 && builds[0].contains("lib.rs"),
        "only the edit of src/lib.rs starts a build, not terraform's files\n{log}"
    );
    stop_with_ctrl_c(server)
}

/// Ctrl-C ends the server promptly and removes its socket.
fn stop_with_ctrl_c(mut server: DevServer) -> anyhow::Result<()> {
    let pid = libc::pid_t::try_from(server.child.id())?;
    // SAFETY: signals exactly our child, which is still running (we have not waited on it).
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.child.try_wait()? {
            break status;
        }
        ensure!(Instant::now() < deadline, "terrarium dev did not stop within 10 s of Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    };
    ensure!(status.success(), "terrarium dev exited with {status}\n{}", server.log_text());
    ensure!(!server.socket.exists(), "the socket {} was left behind", server.socket.display());
    Ok(())
}

#[test]
fn dev_takes_the_grants_install_takes_and_refuses_the_same_mistakes() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let granted = root.join("granted");
    fs::create_dir(&granted)?;
    let component = artifacts.component("files_provider")?;
    let dev = |grant: &str| {
        let mut command = Command::new(artifacts.terrarium()?);
        command.arg("dev").arg(&component).args([
            "--source",
            "terrarium/files",
            "--allow-dir",
            grant,
        ]);
        anyhow::Ok(command)
    };

    // The mistakes `terrarium install` refuses are refused before anything is served.
    for (grant, needle) in [
        (format!("{}:rx", granted.display()), "unknown access mode \"rx\""),
        (format!("{}:rw", root.join("missing").display()), "does not exist"),
    ] {
        let output = dev(&grant)?.stdin(Stdio::null()).output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        ensure!(!output.status.success(), "terrarium dev accepted {grant}: {stderr}");
        ensure!(stderr.contains(needle), "{grant}: stderr lacks {needle:?}: {stderr}");
        ensure!(output.stdout.is_empty(), "{grant}: it printed a reattach line");
    }

    // A granted directory: the files provider writes there under terraform.
    let server = DevServer::spawn(
        dev(&format!("{}:rw", granted.display()))?,
        "terrarium/files",
        root.join("dev.log"),
    )?;
    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    let file = granted.join("from-dev.txt");
    ws.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    files = {{ source = \"terrarium/files\" }}\n  }}\n}}\n\n\
             resource \"files_file\" \"dev\" {{\n  filename = \"{}\"\n  content  = \"written in dev mode\"\n}}\n",
            file.display()
        ),
    )?;
    server.terraform(&ws, &["init", "-input=false", "-no-color"])?;
    server.terraform(&ws, &["apply", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(
        fs::read_to_string(&file)? == "written in dev mode",
        "the granted file was not written"
    );
    stop_with_ctrl_c(server)
}

/// `terrarium dev` for a component whose directory does not exist yet (nothing built): a
/// clear one-line refusal saying how to build it, not a watcher error.
#[test]
fn dev_with_a_component_that_was_never_built_says_what_to_do() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let scratch = tempfile::tempdir()?;
    let component = scratch.path().join("target/wasm32-wasip2/debug/never_built.wasm");
    let mut command = Command::new(artifacts.terrarium()?);
    command.arg("dev").arg(&component).args(["--source", "example/never"]).stdin(Stdio::null());
    // A liveness bound: a server that keeps serving here is the bug.
    let (code, _, stderr) = run_with_timeout(&mut command, Duration::from_secs(60))?;
    ensure!(code.is_some_and(|c| c != 0), "terrarium dev exited with {code:?}: {stderr}");
    let last = stderr.trim_end().lines().last().unwrap_or_default();
    ensure!(
        last.contains("does not exist") && last.contains("cargo build --target wasm32-wasip2"),
        "{stderr}"
    );
    ensure!(!stderr.contains("No path was found"), "the watcher's error leaked: {stderr}");
    Ok(())
}

/// The configuration of the Python and TypeScript dev tests: `readers` copies of the data source (terraform
/// reads them concurrently, so several need an instance each at once) and one resource.
fn greet_config(readers: usize) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    greet = {{ source = "example/greet" }}
  }}
}}

data "greet_message" "this" {{
  count = {readers}
}}

resource "greet_greeting" "this" {{}}

output "message" {{
  value = data.greet_message.this[0].text
}}
"#
    )
}

/// A plan of [`greet_config`]: the planned message, the greeting's planned name, the plan run.
fn planned_greet(server: &DevServer, ws: &Workspace) -> anyhow::Result<(String, String, Run)> {
    let run = server.terraform(ws, &["plan", "-input=false", "-no-color", "-out", "tfplan"])?;
    let show = server.terraform(ws, &["show", "-json", "tfplan"])?;
    let plan: Value = serde_json::from_str(&show.stdout).context("plan JSON")?;
    let message = plan["planned_values"]["outputs"]["message"]["value"]
        .as_str()
        .with_context(|| format!("no planned message in {plan}"))?
        .to_owned();
    let name = plan["planned_values"]["root_module"]["resources"][0]["values"]["name"]
        .as_str()
        .with_context(|| format!("no planned name in {plan}"))?
        .to_owned();
    Ok((message, name, run))
}

/// A Python provider as an author writes it: a data source whose code the test edits, and a
/// resource whose declared default it edits.
const GREET_PY: &str = r#"
import time
from dataclasses import dataclass, replace

import terrarium
from terrarium import attribute

GREETING = "hello from edit 1"


@dataclass(kw_only=True)
class Message:
    text: str | None = attribute(computed=True)


@dataclass(kw_only=True)
class Greeting:
    name: str | None = attribute(default="world")
    id: str | None = attribute(computed=True)


class Greet(terrarium.Provider):
    pass


class MessageSource(terrarium.DataSource[Message]):
    type_name = "greet_message"
    state = Message

    def read(self, config: Message) -> Message:
        time.sleep(0.3)  # holds its instance, so concurrent reads need more instances
        return replace(config, text=GREETING)


class GreetingResource(terrarium.Resource[Greeting]):
    type_name = "greet_greeting"
    state = Greeting

    def create(self, planned: Greeting) -> Greeting:
        return replace(planned, id="g")

    def read(self, current: Greeting) -> Greeting:
        return current

    def update(self, prior: Greeting, planned: Greeting) -> Greeting:
        return replace(planned, id="g")

    def delete(self, prior: Greeting) -> None:
        pass


Greet.data_sources = [MessageSource]
Greet.resources = [GreetingResource]
Provider, Behaviour = terrarium.export(Greet)
"#;

/// `terrarium dev provider.py`: the Python development runtime (interpreter and SDK, built
/// once by `python -m terrarium.dev_runtime` and cached) imports the module from its
/// directory, granted read-only; a save is reloaded by starting new instances, with no
/// componentize-py build (issue 29 item 4). An edit of the code shows in the next plan; an
/// edit of a declared default shows too, and the reload line names it (issue 28 item 6); a
/// module that does not import leaves the previous version serving, with a warning. No
/// timing is asserted: bench/ measures the edit-to-plan time.
#[test]
fn python_edit_shows_in_the_next_plan_without_a_build() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let repo = &artifacts.repo_root;
    let python = repo.join(".venv/bin/python3");
    ensure!(python.is_file(), "{} is missing; run scripts/setup", python.display());
    let author = tempfile::Builder::new().prefix("terrarium-greet-").tempdir()?;
    let module = author.path().join("provider.py");
    fs::write(&module, GREET_PY)?;
    let edit = |from: &str, to: &str| -> anyhow::Result<()> {
        let text = fs::read_to_string(&module)?;
        ensure!(text.contains(from), "the module has no {from:?}");
        fs::write(&module, text.replace(from, to))?;
        Ok(())
    };
    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    ws.write("main.tf", &greet_config(1))?;

    let mut command = Command::new(artifacts.terrarium()?);
    command
        .arg("dev")
        .arg(&module)
        .args(["--source", "example/greet"])
        .env("TERRARIUM_PYTHON", &python)
        .env("PYTHONPATH", repo.join("guest-sdk/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let server = DevServer::spawn(command, "example/greet", ws.root().join("dev.log"))?;

    server.terraform(&ws, &["init", "-input=false", "-no-color"])?;
    let planned = |server: &DevServer| planned_greet(server, &ws);
    let (message, name, _) = planned(&server)?;
    assert_eq!((message.as_str(), name.as_str()), ("hello from edit 1", "world"));

    // An edit of the code: the next plan runs it.
    edit("hello from edit 1", "hello from edit 2")?;
    server.wait_for_log("reloaded:", 1)?;
    let log = server.log_text();
    ensure!(
        log.contains("reloaded: new code; schema and declared behaviour"),
        "a reload of new code with the same schema and behaviour says so\n{log}"
    );
    ensure!(!log.contains("componentize"), "a save builds nothing\n{log}");
    let (message, _, _) = planned(&server)?;
    assert_eq!(message, "hello from edit 2");

    // An edit of a declared default: the reload line says what changed, and the plan has it.
    edit("default=\"world\"", "default=\"moon\"")?;
    server.wait_for_log("reloaded:", 2)?;
    let log = server.log_text();
    ensure!(
        log.contains("resource greet_greeting: attribute name: default changed"),
        "the reload names the changed default\n{log}"
    );
    let (_, name, _) = planned(&server)?;
    assert_eq!(name, "moon");

    // A module that does not import: the previous version keeps serving, with a warning,
    // also on instances it starts after the broken save (six concurrent reads need more
    // instances than the plans so far started): each version runs the sources it was
    // loaded from, never the file as it is now.
    edit("GREETING = \"hello from edit 2\"", "GREETING = (")?;
    server.wait_for_log("reload failed", 1)?;
    ws.write("main.tf", &greet_config(6))?;
    let (message, _, run) = planned(&server)?;
    assert_eq!(message, "hello from edit 2", "the previous version keeps serving");
    ensure!(
        run.warning_summaries().iter().any(|w| w == "Provider reload failed"),
        "expected a \"Provider reload failed\" warning\n{run}"
    );
    ensure!(
        run.error_summaries().is_empty(),
        "new instances of the previous version failed\n{run}"
    );
    edit("GREETING = (", "GREETING = \"hello from edit 3\"")?;
    server.wait_for_log("reloaded:", 3)?;
    let (message, _, run) = planned(&server)?;
    assert_eq!(message, "hello from edit 3");
    ensure!(run.warning_summaries().is_empty(), "no stale warning after a good save\n{run}");

    stop_with_ctrl_c(server)
}

/// The TypeScript twin of [`GREET_PY`]: the entry module, whose declared default the test
/// edits, and a module it imports, whose code the test edits.
const GREET_TS: &str = r#"
import { DataSource, Provider, Resource, schema, serve, string, type State } from '@terrarium/sdk';
import { GREETING } from './messages';

const message = schema({ attributes: { text: string().computed() } });
const greeting = schema({
  attributes: { name: string().default('world'), id: string().computed() },
});

class MessageSource extends DataSource<typeof message> {
  typeName = 'greet_message';
  schema = message;

  async read(config: State<typeof message>): Promise<State<typeof message>> {
    // Holds its instance, so concurrent reads need more instances.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ...config, text: GREETING };
  }
}

class GreetingResource extends Resource<typeof greeting> {
  typeName = 'greet_greeting';
  schema = greeting;

  create(planned: State<typeof greeting>): State<typeof greeting> {
    return { ...planned, id: 'g' };
  }

  read(current: State<typeof greeting>): State<typeof greeting> {
    return current;
  }

  update(_prior: State<typeof greeting>, planned: State<typeof greeting>): State<typeof greeting> {
    return { ...planned, id: 'g' };
  }

  delete(): void {}
}

class Greet extends Provider {
  dataSources = [new MessageSource()];
  resources = [new GreetingResource()];
}

export const { provider, behaviour } = serve(new Greet());
"#;

/// `terrarium dev provider.ts`: the TypeScript development runtime (the JS engine and the SDK,
/// built once by `terrarium-js dev-runtime` with componentize-js and cached) evaluates the
/// entry's bundle, which esbuild makes on each save into a directory granted read-only; a
/// save is reloaded by bundling and starting new instances, with no componentize-js build
/// (issue 29 item 4). An edit of an imported module's code shows in the next plan; an edit of
/// a declared default shows too, and the reload line names it; a save that does not bundle,
/// and one that throws while it loads, leave the previous version serving, with a warning,
/// also in the instances it starts later. No timing is asserted: bench/ measures it.
#[test]
fn typescript_edit_shows_in_the_next_plan_without_a_build() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let repo = &artifacts.repo_root;
    let tool = repo.join("guest-sdk/js/bin/terrarium-js.mjs");
    let author = tempfile::Builder::new().prefix("terrarium-greet-ts-").tempdir()?;
    let entry = author.path().join("provider.ts");
    let messages = author.path().join("messages.ts");
    fs::write(&entry, GREET_TS)?;
    fs::write(&messages, "export const GREETING = 'hello from edit 1';\n")?;
    let edit = |file: &Path, from: &str, to: &str| -> anyhow::Result<()> {
        let text = fs::read_to_string(file)?;
        ensure!(text.contains(from), "{} has no {from:?}", file.display());
        fs::write(file, text.replace(from, to))?;
        Ok(())
    };
    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    ws.write("main.tf", &greet_config(1))?;

    let mut command = Command::new(artifacts.terrarium()?);
    command.arg("dev").arg(&entry).args(["--source", "example/greet"]).env("TERRARIUM_JS", &tool);
    let server = DevServer::spawn(command, "example/greet", ws.root().join("dev.log"))?;

    server.terraform(&ws, &["init", "-input=false", "-no-color"])?;
    let planned = |server: &DevServer| planned_greet(server, &ws);
    let (message, name, _) = planned(&server)?;
    assert_eq!((message.as_str(), name.as_str()), ("hello from edit 1", "world"));

    // An edit of the code, in a module the entry imports: the next plan runs it.
    edit(&messages, "hello from edit 1", "hello from edit 2")?;
    server.wait_for_log("reloaded:", 1)?;
    let log = server.log_text();
    ensure!(
        log.contains("reloaded: new code; schema and declared behaviour"),
        "a reload of new code with the same schema and behaviour says so\n{log}"
    );
    ensure!(!log.contains("componentize"), "a save builds no component\n{log}");
    let (message, _, _) = planned(&server)?;
    assert_eq!(message, "hello from edit 2");

    // An edit of a declared default: the reload line says what changed, and the plan has it.
    edit(&entry, "default('world')", "default('moon')")?;
    server.wait_for_log("reloaded:", 2)?;
    let log = server.log_text();
    ensure!(
        log.contains("resource greet_greeting: attribute name: default changed"),
        "the reload names the changed default\n{log}"
    );
    let (_, name, _) = planned(&server)?;
    assert_eq!(name, "moon");

    // A save that does not bundle, then one that throws while it loads: the previous version
    // keeps serving, with a warning, also on instances it starts after them (six concurrent
    // reads need more instances than the plans so far started).
    edit(&messages, "'hello from edit 2';", "(;")?;
    server.wait_for_log("reload failed", 1)?;
    edit(&messages, "(;", "(() => { throw new Error('a broken save'); })();")?;
    server.wait_for_log("reload failed", 2)?;
    let log = server.log_text();
    ensure!(log.contains("does not bundle"), "the bundler's error is logged\n{log}");
    ensure!(log.contains("a broken save"), "the error the module threw is logged\n{log}");
    ws.write("main.tf", &greet_config(6))?;
    let (message, _, run) = planned(&server)?;
    assert_eq!(message, "hello from edit 2", "the previous version keeps serving");
    ensure!(
        run.warning_summaries().iter().any(|w| w == "Provider reload failed"),
        "expected a \"Provider reload failed\" warning\n{run}"
    );
    ensure!(
        run.error_summaries().is_empty(),
        "new instances of the previous version failed\n{run}"
    );
    edit(&messages, "(() => { throw new Error('a broken save'); })();", "'hello from edit 3';")?;
    server.wait_for_log("reloaded:", 3)?;
    let (message, _, run) = planned(&server)?;
    assert_eq!(message, "hello from edit 3");
    ensure!(run.warning_summaries().is_empty(), "no stale warning after a good save\n{run}");

    stop_with_ctrl_c(server)
}

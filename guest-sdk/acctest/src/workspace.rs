//! A temporary Terraform working directory and terraform runs in it.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::Value;

pub use crate::run::Run;
use crate::shown::Terraform;

/// How long one terraform command may take before the test gives up on it. Generous: the
/// machine is small and shared, but a hung provider must not hang the suite.
pub const TERRAFORM_TIMEOUT: Duration = Duration::from_secs(300);

/// Environment variables that would change what terraform does behind the test's back.
const SCRUBBED_ENV_PREFIXES: &[&str] = &["TF_CLI_ARGS", "TF_VAR_"];
const SCRUBBED_ENV: &[&str] = &[
    "TF_DATA_DIR",
    "TF_PLUGIN_CACHE_DIR",
    "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE",
    "TF_REATTACH_PROVIDERS",
    "TF_WORKSPACE",
    "TF_INPUT",
    "TF_DISABLE_PLUGIN_TLS",
    "TF_PLUGIN_MAGIC_COOKIE",
    // The host's switch for get_provider_schema_optional: tests that want it off say so.
    "TERRARIUM_SCHEMA_OPTIONAL",
];

/// A temporary directory holding a Terraform configuration (`config/`) and the CLI config
/// terraform runs with (`cli.tfrc`: where it installs providers from), and terraform runs in
/// it with a clean environment.
pub struct Workspace {
    dir: tempfile::TempDir,
    config_dir: PathBuf,
    cli_config: PathBuf,
    terraform: PathBuf,
}

impl Workspace {
    /// A workspace in a new temporary directory whose terraform is `terraform` and whose CLI
    /// config is `cli_config_text` (say, a `provider_installation` block naming a mirror).
    pub fn with_cli_config(terraform: &Path, cli_config_text: &str) -> anyhow::Result<Workspace> {
        let dir = tempfile::Builder::new().prefix("terrarium-acctest-").tempdir()?;
        Workspace::in_dir(dir, terraform, cli_config_text)
    }

    /// A workspace in `dir` (removed when the workspace is dropped): `config/` for the
    /// configuration, `cli.tfrc` for the CLI config, the rest free for the caller's files.
    pub fn in_dir(
        dir: tempfile::TempDir,
        terraform: &Path,
        cli_config_text: &str,
    ) -> anyhow::Result<Workspace> {
        let config_dir = dir.path().join("config");
        fs::create_dir(&config_dir)
            .with_context(|| format!("creating {}", config_dir.display()))?;
        let cli_config = dir.path().join("cli.tfrc");
        fs::write(&cli_config, cli_config_text)
            .with_context(|| format!("writing {}", cli_config.display()))?;
        Ok(Workspace { dir, config_dir, cli_config, terraform: terraform.to_owned() })
    }

    /// This workspace, run with the terraform at `terraform` instead of the one it was made
    /// with.
    pub fn with_terraform(mut self, terraform: PathBuf) -> Workspace {
        self.terraform = terraform;
        self
    }

    /// The terraform this workspace runs.
    pub fn terraform(&self) -> &Path {
        &self.terraform
    }

    /// The configuration directory terraform runs in.
    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    /// The temporary directory holding everything (config dir, CLI config, scratch).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn cli_config_path(&self) -> &Path {
        &self.cli_config
    }

    /// Writes `contents` to `name` in the configuration directory.
    pub fn write(&self, name: &str, contents: &str) -> anyhow::Result<()> {
        let path = self.config_dir.join(name);
        fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))
    }

    /// Removes `name` from the configuration directory.
    pub fn remove(&self, name: &str) -> anyhow::Result<()> {
        let path = self.config_dir.join(name);
        fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))
    }

    /// Reads `name` from the configuration directory.
    pub fn read(&self, name: &str) -> anyhow::Result<String> {
        let path = self.config_dir.join(name);
        fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
    }

    /// The command that runs terraform in this workspace, with the test environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.terraform);
        command.args(args).current_dir(&self.config_dir).stdin(Stdio::null());
        for (name, _) in std::env::vars_os() {
            let Some(name) = name.to_str() else { continue };
            if SCRUBBED_ENV.contains(&name)
                || SCRUBBED_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
            {
                command.env_remove(name);
            }
        }
        command
            .env("TF_CLI_CONFIG_FILE", &self.cli_config)
            .env("CHECKPOINT_DISABLE", "1")
            .env("TF_IN_AUTOMATION", "1");
        command
    }

    /// Runs terraform with `args`, whatever its exit code.
    pub fn run(&self, args: &[&str]) -> anyhow::Result<Run> {
        self.run_with_env(args, &[])
    }

    /// Runs terraform with `args` and the extra environment variables `env`, whatever its exit
    /// code. (Terraform passes its environment on to the providers it starts.)
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<Run> {
        self.run_prepared(args, |command| {
            command.envs(env.iter().copied());
        })
    }

    /// Runs terraform with `args`, its command adjusted by `prepare` (environment), whatever
    /// its exit code, and checks what a person sees (see [`crate::shown`]): a plan or apply
    /// is also rendered as a human plan and as `terraform show -json` of the saved plan, and
    /// the test fails if terraform hid an error behind a success.
    pub fn run_prepared(
        &self,
        args: &[&str],
        prepare: impl Fn(&mut Command),
    ) -> anyhow::Result<Run> {
        crate::shown::run_shown(self, args, &prepare)
    }

    /// Runs terraform with exactly `args` and `prepare`, whatever its exit code; no checks.
    pub(crate) fn run_unchecked(
        &self,
        args: &[&str],
        prepare: &dyn Fn(&mut Command),
    ) -> anyhow::Result<Run> {
        let mut command = self.command(args);
        prepare(&mut command);
        let output = run_with_timeout(&mut command, TERRAFORM_TIMEOUT)
            .with_context(|| format!("running terraform {}", args.join(" ")))?;
        Ok(Run {
            args: args.iter().map(|a| a.to_string()).collect(),
            code: output.0,
            stdout: output.1,
            stderr: output.2,
        })
    }

    /// Runs terraform with `args` and requires exit code `code`.
    pub fn run_expect(&self, args: &[&str], code: i32) -> anyhow::Result<Run> {
        let run = self.run(args)?;
        if run.code != Some(code) {
            bail!("expected exit code {code}, got {:?}\n{run}", run.code);
        }
        Ok(run)
    }

    /// Runs terraform with `args` and requires success.
    pub fn ok(&self, args: &[&str]) -> anyhow::Result<Run> {
        self.run_expect(args, 0)
    }

    /// Runs terraform with `args` (which should include `-json`), requires success and parses
    /// stdout as one JSON document.
    pub fn json(&self, args: &[&str]) -> anyhow::Result<Value> {
        let run = self.ok(args)?;
        serde_json::from_str(&run.stdout).with_context(|| format!("stdout is not JSON\n{run}"))
    }

    /// `terraform init`, requiring success.
    pub fn init(&self) -> anyhow::Result<Run> {
        self.ok(&["init", "-input=false", "-no-color"])
    }

    /// `terraform show -json` of the current state.
    pub fn state_json(&self) -> anyhow::Result<Value> {
        self.json(&["show", "-json"])
    }

    /// `terraform plan -out=FILE` then `terraform show -json FILE`: the plan as JSON, plus
    /// the plan run (its exit code is `-detailed-exitcode`'s: 0 no changes, 2 changes).
    pub fn plan_json(&self, extra_args: &[&str]) -> anyhow::Result<(Run, Value)> {
        let plan_file = "tfplan";
        let mut args =
            vec!["plan", "-input=false", "-no-color", "-detailed-exitcode", "-out", plan_file];
        args.extend_from_slice(extra_args);
        let run = self.run(&args)?;
        if !matches!(run.code, Some(0) | Some(2)) {
            bail!("plan failed\n{run}");
        }
        let plan = self.json(&["show", "-json", plan_file])?;
        Ok((run, plan))
    }
}

impl Terraform for Workspace {
    fn root(&self) -> &Path {
        Workspace::root(self)
    }

    fn config_dir(&self) -> &Path {
        Workspace::config_dir(self)
    }

    fn run_unchecked(&self, args: &[&str], prepare: &dyn Fn(&mut Command)) -> anyhow::Result<Run> {
        Workspace::run_unchecked(self, args, prepare)
    }
}

/// A string literal for a CLI config file (HCL 1: only backslash escapes; `${` is literal).
pub fn hcl_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Runs `command` to completion with stdout and stderr captured, killing its whole process
/// group (terraform and the providers it started) if it outlives `timeout`.
pub fn run_with_timeout(
    command: &mut Command,
    timeout: Duration,
) -> anyhow::Result<(Option<i32>, String, String)> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        command.process_group(0);
    }
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > timeout {
            kill_group(&mut child);
            let stderr = stderr.join().unwrap_or_default();
            bail!("timed out after {timeout:?}; killed it. stderr so far:\n{stderr}");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok((status.code(), stdout, stderr))
}

fn read_in_background<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            // A read error just ends the capture; the exit code still tells what happened.
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Kills the child's process group (it leads one: see `process_group(0)`), then the child.
pub fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pgid) = libc::pid_t::try_from(child.id())
        && pgid > 1
    {
        // SAFETY: kill(2) with a negative pid signals exactly that process group; pgid > 1
        // rules out 0 (our own group) and -1 (every process we may signal).
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

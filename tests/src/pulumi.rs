//! The real Pulumi CLI (built by scripts/setup from tools/pulumi) driving Terrarium's Pulumi
//! plugins: a project with a YAML program, its own `PULUMI_HOME` and a local file backend, and
//! nothing from the network.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::artifacts::Artifacts;
use crate::workspace::run_with_timeout;

/// How long one pulumi command may take before the test gives up on it.
pub const PULUMI_TIMEOUT: Duration = Duration::from_secs(300);

/// The passphrase of every test stack's secrets provider.
const PASSPHRASE: &str = "terrarium-e2e";

/// Environment variables that would change what pulumi does behind the test's back.
const SCRUBBED_ENV_PREFIXES: &[&str] = &["PULUMI_", "TF_"];

/// A temporary Pulumi project: `project/` (Pulumi.yaml, the YAML program), `home/` (its
/// `PULUMI_HOME`, plugins under `home/plugins`), `backend/` (the file backend it logged in to),
/// and one stack, `test`.
pub struct Project {
    dir: tempfile::TempDir,
    name: String,
    pulumi: PathBuf,
}

/// What one pulumi command did.
#[derive(Debug, Clone)]
pub struct PulumiRun {
    pub args: Vec<String>,
    /// The exit code; None if it was killed by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl PulumiRun {
    /// Requires every one of `texts` in stdout, in any order (the engine works on resources
    /// concurrently, so their lines come in any order).
    pub fn shows(&self, texts: &[&str]) -> anyhow::Result<()> {
        for text in texts {
            if !self.stdout.contains(text) {
                bail!("pulumi did not show {text:?}\n{self}");
            }
        }
        Ok(())
    }

    /// Requires that stdout never shows `text`.
    pub fn hides(&self, text: &str) -> anyhow::Result<()> {
        if self.stdout.contains(text) || self.stderr.contains(text) {
            bail!("pulumi showed {text:?}\n{self}");
        }
        Ok(())
    }
}

impl fmt::Display for PulumiRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "$ pulumi {}  -> exit {:?}", self.args.join(" "), self.code)?;
        writeln!(f, "--- stdout ---\n{}", self.stdout.trim_end())?;
        write!(f, "--- stderr ---\n{}", self.stderr.trim_end())
    }
}

impl Project {
    /// A project named `name` whose program is YAML, logged in to a file backend of its own,
    /// with the stack `test` selected. Nothing is installed yet: see [`Project::install`].
    pub fn new(name: &str) -> anyhow::Result<Project> {
        let artifacts = Artifacts::get()?;
        let pulumi = artifacts.go_tool("pulumi")?;
        // The YAML language host, which the CLI runs from its own directory (scripts/setup
        // builds both into one).
        artifacts.go_tool("pulumi-language-yaml")?;
        let dir = tempfile::Builder::new().prefix("terrarium-pulumi-").tempdir()?;
        for sub in ["project", "home/plugins", "backend"] {
            fs::create_dir_all(dir.path().join(sub))?;
        }
        let project = Project { dir, name: name.to_owned(), pulumi };
        project.write_program("")?;
        let backend = format!("file://{}", project.root().join("backend").display());
        project.ok(&["login", &backend])?;
        project.ok(&["stack", "init", "test"])?;
        Ok(project)
    }

    /// The temporary directory holding everything.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The project directory (Pulumi.yaml).
    pub fn project_dir(&self) -> PathBuf {
        self.root().join("project")
    }

    /// `PULUMI_HOME/plugins`, where [`Project::install`] puts plugins.
    pub fn plugin_dir(&self) -> PathBuf {
        self.root().join("home/plugins")
    }

    /// The project's own Terrarium configuration (`XDG_CONFIG_HOME`: the approvals record), for
    /// terrarium, pulumi and the plugins pulumi starts.
    pub fn config_home(&self) -> PathBuf {
        self.root().join("config")
    }

    /// `terrarium install COMPONENT --pulumi NAME --version VERSION --plugin-dir
    /// PULUMI_HOME/plugins` plus `extra` (grants), as a user installs a plugin.
    pub fn install(
        &self,
        component: &Path,
        name: &str,
        version: &str,
        extra: &[String],
    ) -> anyhow::Result<()> {
        let terrarium = Artifacts::get()?.terrarium()?;
        let output = Command::new(terrarium)
            .env("XDG_CONFIG_HOME", self.config_home())
            .arg("install")
            .arg(component)
            .args(["--pulumi", name, "--version", version, "--plugin-dir"])
            .arg(self.plugin_dir())
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running {}", terrarium.display()))?;
        if !output.status.success() {
            bail!(
                "`terrarium install --pulumi {name}` failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(())
    }

    /// Writes Pulumi.yaml: the project's name, `runtime: yaml`, then `program` (YAML at the top
    /// level: `resources:`, `outputs:`, ...).
    pub fn write_program(&self, program: &str) -> anyhow::Result<()> {
        let path = self.project_dir().join("Pulumi.yaml");
        let text = format!("name: {}\nruntime: yaml\n{program}", self.name);
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    }

    /// The command that runs pulumi in the project with the test environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.pulumi);
        command.args(args).current_dir(self.project_dir()).stdin(Stdio::null());
        for (name, _) in std::env::vars_os() {
            let Some(name) = name.to_str() else { continue };
            if SCRUBBED_ENV_PREFIXES.iter().any(|p| name.starts_with(p)) {
                command.env_remove(name);
            }
        }
        command
            .env("PULUMI_HOME", self.root().join("home"))
            .env("XDG_CONFIG_HOME", self.config_home())
            .env("PULUMI_CONFIG_PASSPHRASE", PASSPHRASE)
            .env("PULUMI_SKIP_UPDATE_CHECK", "true")
            .env("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "true")
            .env("NO_COLOR", "1");
        command
    }

    /// Runs pulumi with `args` (plus `--non-interactive --color never`), whatever its exit code.
    pub fn run(&self, args: &[&str]) -> anyhow::Result<PulumiRun> {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--non-interactive", "--color", "never"]);
        let mut command = self.command(&all);
        let (code, stdout, stderr) = run_with_timeout(&mut command, PULUMI_TIMEOUT)
            .with_context(|| format!("running pulumi {}", args.join(" ")))?;
        Ok(PulumiRun { args: args.iter().map(|a| a.to_string()).collect(), code, stdout, stderr })
    }

    /// Runs pulumi with `args` and requires success.
    pub fn ok(&self, args: &[&str]) -> anyhow::Result<PulumiRun> {
        let run = self.run(args)?;
        if run.code != Some(0) {
            bail!("pulumi failed\n{run}");
        }
        Ok(run)
    }

    /// The stack's outputs, secrets shown (`pulumi stack output --json --show-secrets`).
    pub fn outputs(&self) -> anyhow::Result<Value> {
        let run = self.ok(&["stack", "output", "--json", "--show-secrets"])?;
        serde_json::from_str(&run.stdout).with_context(|| format!("stdout is not JSON\n{run}"))
    }

    /// The stack's resources as `pulumi stack export` shows them (the checkpoint's deployment).
    pub fn resources(&self) -> anyhow::Result<Vec<Value>> {
        let run = self.ok(&["stack", "export", "--show-secrets"])?;
        let export: Value = serde_json::from_str(&run.stdout)
            .with_context(|| format!("stdout is not JSON\n{run}"))?;
        Ok(export["deployment"]["resources"].as_array().cloned().unwrap_or_default())
    }

    /// The one resource of the stack whose URN ends with `::NAME`.
    pub fn resource(&self, name: &str) -> anyhow::Result<Value> {
        let suffix = format!("::{name}");
        self.resources()?
            .into_iter()
            .find(|r| r["urn"].as_str().is_some_and(|u| u.ends_with(&suffix)))
            .with_context(|| format!("the stack has no resource named {name}"))
    }
}

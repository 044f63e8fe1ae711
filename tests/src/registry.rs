//! `terrarium package` and `terrarium registry serve` run as an author runs them: a release
//! packaged into a directory, served over HTTPS from a local CA, and the lock-file hashes
//! Terraform records.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, bail, ensure};

use crate::artifacts::Artifacts;
use crate::workspace::kill_group;

/// A running `terrarium registry serve DIR` on a free port, killed when dropped.
pub struct RegistryServer {
    child: Child,
    /// `localhost:PORT`: the hostname part of the source addresses it serves.
    pub host: String,
    /// The local CA's certificate, for `SSL_CERT_FILE`.
    pub ca_file: PathBuf,
    /// Where its local CA lives (`XDG_DATA_HOME`) for as long as it runs.
    _data_home: tempfile::TempDir,
}

impl RegistryServer {
    /// Starts serving `dir` and waits for the lines it prints on stdout.
    pub fn start(dir: &Path) -> anyhow::Result<RegistryServer> {
        Self::start_with_descriptor_limit(dir, None)
    }

    /// As [`RegistryServer::start`], with the server's `RLIMIT_NOFILE` lowered to
    /// `descriptors` when given, so that a test can run it out of descriptors.
    pub fn start_with_descriptor_limit(
        dir: &Path,
        descriptors: Option<u64>,
    ) -> anyhow::Result<RegistryServer> {
        let data_home = tempfile::tempdir()?;
        let mut command = Command::new(Artifacts::get()?.terrarium()?);
        command
            .args(["registry", "serve"])
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .env("XDG_DATA_HOME", data_home.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt as _;
            command.process_group(0);
            if let Some(descriptors) = descriptors {
                let limit = libc::rlimit { rlim_cur: descriptors, rlim_max: descriptors };
                // SAFETY: setrlimit is async-signal-safe and only reads `limit`, a copy owned
                // by the closure.
                unsafe {
                    command.pre_exec(move || {
                        if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                            Ok(())
                        } else {
                            Err(std::io::Error::last_os_error())
                        }
                    });
                }
            }
        }
        let mut child = command.spawn().context("starting terrarium registry serve")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().take(3) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let mut lines = Vec::new();
        for _ in 0..3 {
            match receiver.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => lines.push(line.context("reading the registry's stdout")?),
                Err(_) => {
                    kill_group(&mut child);
                    bail!("the registry printed {lines:?} and then nothing within 60 s");
                }
            }
        }
        let host = lines[0]
            .strip_prefix("Registry: https://")
            .and_then(|rest| rest.split_once('/'))
            .map(|(host, _)| host.to_owned())
            .with_context(|| format!("no registry URL in {lines:?}"))?;
        let ca_file = lines[2]
            .strip_prefix("SSL_CERT_FILE=")
            .map(PathBuf::from)
            .with_context(|| format!("no SSL_CERT_FILE in {lines:?}"))?;
        ensure!(
            lines[1] == format!("Network mirror: https://{host}/mirror/v1/"),
            "unexpected mirror line: {lines:?}"
        );
        Ok(RegistryServer { child, host, ca_file, _data_home: data_home })
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the server is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The environment terraform needs to trust this registry.
    pub fn terraform_env(&self) -> Vec<(&'static str, String)> {
        vec![("SSL_CERT_FILE", self.ca_file.display().to_string())]
    }
}

impl Drop for RegistryServer {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

/// `terrarium package COMPONENT --source SOURCE --version VERSION --out OUT EXTRA...`, with
/// `XDG_CONFIG_HOME=config_home` (where Terrarium keeps its own signing key).
pub fn terrarium_package(
    component: &Path,
    source: &str,
    version: &str,
    out: &Path,
    config_home: &Path,
    extra: &[String],
) -> anyhow::Result<Output> {
    let terrarium = Artifacts::get()?.terrarium()?;
    terrarium_package_by(terrarium, component, source, version, out, config_home, extra)
}

/// [`terrarium_package`] run by the `terrarium` executable at `terrarium` (e.g. one laid out
/// as a release: [`terrarium_release`]).
pub fn terrarium_package_by(
    terrarium: &Path,
    component: &Path,
    source: &str,
    version: &str,
    out: &Path,
    config_home: &Path,
    extra: &[String],
) -> anyhow::Result<Output> {
    let artifacts = Artifacts::get()?;
    Command::new(terrarium)
        .arg("package")
        .arg(component)
        .args(["--source", source, "--version", version, "--out"])
        .arg(out)
        .args(extra)
        .env("XDG_CONFIG_HOME", config_home)
        .env("XDG_CACHE_HOME", artifacts.scratch_root.join("cache"))
        .output()
        .context("running terrarium package")
}

/// This build's `terrarium` laid out in `dir` as a Terrarium release ships it: `terrarium` and
/// `terrarium-provider`, and the linux_arm64 `terrarium-provider` in
/// `hosts/linux_arm64/` beside them (hard links where the file system allows, else copies).
/// Returns the path of its `terrarium`.
pub fn terrarium_release(dir: &Path) -> anyhow::Result<PathBuf> {
    let artifacts = Artifacts::get()?;
    let terrarium = artifacts.terrarium()?;
    let place = |from: &Path, to: &Path| -> anyhow::Result<()> {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if std::fs::hard_link(from, to).is_err() {
            std::fs::copy(from, to)
                .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
        }
        Ok(())
    };
    let released = dir.join("terrarium");
    place(terrarium, &released)?;
    place(&terrarium.with_file_name("terrarium-provider"), &dir.join("terrarium-provider"))?;
    place(artifacts.terrarium_arm64()?, &dir.join("hosts/linux_arm64/terrarium-provider"))?;
    Ok(released)
}

/// The `hashes` of `source`'s block in a `.terraform.lock.hcl` (or in `terrarium package`'s
/// printed block), sorted.
pub fn lock_hashes(lock_file: &str, source: &str) -> anyhow::Result<Vec<String>> {
    let start = lock_file
        .find(&format!("provider \"{source}\""))
        .with_context(|| format!("no provider \"{source}\" block in:\n{lock_file}"))?;
    let block = &lock_file[start..];
    let block = &block[..block.find("\n}").unwrap_or(block.len())];
    let mut hashes: Vec<String> = block
        .lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix('"')?.strip_suffix("\",").map(str::to_owned))
        .collect();
    hashes.sort();
    Ok(hashes)
}

//! A real `terrarium serve` process, started the way Terraform starts a provider (magic
//! cookie, socket directory, client certificate), and a tfplugin6 client connected to it over
//! go-plugin's mTLS. For tests that need the host as its own process: its memory can be
//! measured, and nothing the test does shares its heap.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use terrarium_proto::tfplugin6::provider_client::ProviderClient;
use terrarium_runtime::{RuntimeSettings, fill_cache};
use terrarium_tfplugin::plugin;
use tonic::transport::Channel;

use crate::handshake::{connect, parse_handshake, terraform_client_identity, tls_connector_for};

/// A liveness bound for the start-up, generous so a loaded machine does not fail the suite.
const PATIENCE: Duration = Duration::from_secs(60);

/// A guest fixture built for wasm32-wasip2 (`make build`).
pub(crate) fn guest(file: &str, package: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let target = exe.ancestors().nth(3).expect("test executable inside a cargo target directory");
    let path = target.join("wasm32-wasip2/debug").join(file);
    assert!(
        path.exists(),
        "{} is missing: build the guest fixtures first (`make build`, or \
         `cargo build --target wasm32-wasip2 -p {package}`)",
        path.display()
    );
    path
}

pub(crate) fn hostile() -> PathBuf {
    guest("hostile_provider.wasm", "hostile-provider")
}

pub(crate) fn declaring() -> PathBuf {
    guest("declaring_provider.wasm", "declaring-provider")
}

pub(crate) fn faulty() -> PathBuf {
    guest("faulty_provider.wasm", "faulty-provider")
}

/// A running `terrarium serve` and a client for it. The process is killed on drop.
pub(crate) struct ServedProvider {
    child: Child,
    pub(crate) client: ProviderClient<Channel>,
    _scratch: tempfile::TempDir,
}

impl ServedProvider {
    /// Serves `component` with no grants. The compiled-component cache is filled first, in
    /// this process, so the server loads the artifact instead of compiling (compilation is
    /// not what the memory tests measure). `env` is added to the server's environment.
    pub(crate) async fn start(component: &Path, env: &[(&str, &str)]) -> ServedProvider {
        ServedProvider::start_with_grants(component, env, None).await
    }

    /// As [`ServedProvider::start`], with `grants` (the text of a grants file) granted.
    pub(crate) async fn start_with_grants(
        component: &Path,
        env: &[(&str, &str)],
        grants: Option<&str>,
    ) -> ServedProvider {
        ServedProvider::start_limited(component, env, grants, None).await
    }

    /// As [`ServedProvider::start_with_grants`], the server's soft `RLIMIT_NOFILE` set to
    /// `descriptors` when given.
    pub(crate) async fn start_limited(
        component: &Path,
        env: &[(&str, &str)],
        grants: Option<&str>,
        descriptors: Option<u64>,
    ) -> ServedProvider {
        let scratch = tempfile::tempdir().expect("tempdir");
        let grants_file = scratch.path().join("grants.toml");
        if let Some(grants) = grants {
            std::fs::write(&grants_file, grants).expect("grants file");
        }
        let cache_home = scratch.path().join("cache");
        let settings = RuntimeSettings {
            cache_dir: Some(cache_home.join("terrarium")),
            ..RuntimeSettings::default()
        };
        let component_for_cache = component.to_path_buf();
        tokio::task::spawn_blocking(move || fill_cache(&component_for_cache, settings))
            .await
            .expect("cache filler")
            .expect("the fixture compiles");
        let socket_dir = scratch.path().join("sockets");
        std::fs::create_dir_all(&socket_dir).expect("socket dir");
        let identity = terraform_client_identity();
        let mut command = Command::new(env!("CARGO_BIN_EXE_terrarium"));
        command
            .arg("serve")
            .arg("--component")
            .arg(component)
            .arg("--grants")
            .arg(&grants_file)
            .env(plugin::MAGIC_COOKIE_KEY, plugin::MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "6")
            .env("PLUGIN_UNIX_SOCKET_DIR", &socket_dir)
            .env("PLUGIN_CLIENT_CERT", &identity.pem)
            .env("XDG_CACHE_HOME", &cache_home)
            .env_remove("PLUGIN_UNIX_SOCKET_GROUP")
            .env_remove("TERRARIUM_NO_CACHE")
            .env_remove("TERRARIUM_PROTOCOL")
            .env_remove("TERRARIUM_SCHEMA_OPTIONAL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        if let Some(soft) = descriptors {
            use std::os::unix::process::CommandExt as _;
            // SAFETY: between fork and exec only async-signal-safe calls: getrlimit, setrlimit.
            unsafe {
                command.pre_exec(move || {
                    let mut limit: libc::rlimit = std::mem::zeroed();
                    if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    limit.rlim_cur = soft.min(limit.rlim_max);
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command.spawn().expect("terrarium serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + PATIENCE;
        let line = tokio::task::spawn_blocking(move || {
            lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("a handshake line")
        })
        .await
        .expect("handshake reader");
        let handshake = parse_handshake(&format!("{line}\n"));
        let channel =
            connect(tls_connector_for(&handshake, &identity)).await.expect("connects over mTLS");
        let client = ProviderClient::new(channel)
            .max_decoding_message_size(plugin::MAX_MESSAGE_SIZE)
            .max_encoding_message_size(plugin::MAX_MESSAGE_SIZE);
        ServedProvider { child, client, _scratch: scratch }
    }

    /// The server's peak resident memory so far (`VmHWM`), in bytes.
    pub(crate) fn peak_rss(&self) -> u64 {
        self.status_kib("VmHWM:") * 1024
    }

    /// The server's resident memory now (`VmRSS`), in bytes.
    pub(crate) fn rss(&self) -> u64 {
        self.status_kib("VmRSS:") * 1024
    }

    /// How many file descriptors the server holds open.
    pub(crate) fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id())).expect("/proc fd").count()
    }

    fn status_kib(&self, key: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status");
        let line = status.lines().find(|l| l.starts_with(key)).expect("the key in /proc status");
        line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a size in kB")
    }

    /// Whether the server process is still running.
    pub(crate) fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for ServedProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

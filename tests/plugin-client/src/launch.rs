//! Starting a provider process as Terraform does: the magic cookie, the protocol versions
//! Terraform offers, `PLUGIN_CLIENT_CERT`, then the handshake line on stdout.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tonic::transport::Channel;

use crate::{ClientError, ClientIdentity, Handshake, PluginConnector, Trust, tls_config};

/// The environment variable go-plugin checks before serving, and Terraform's value for it.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
/// Terraform's magic cookie.
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// How to start a provider process.
pub struct Launch {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments (Terraform passes none).
    pub args: Vec<OsString>,
    /// Variables added to the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// `PLUGIN_PROTOCOL_VERSIONS`, e.g. "6" or "5,6".
    pub protocol_versions: String,
    /// How long to wait for the handshake line.
    pub patience: Duration,
}

impl Launch {
    /// `program` with no arguments, offered protocol 6, patient for a minute.
    pub fn new(program: impl Into<PathBuf>) -> Launch {
        Launch {
            program: program.into(),
            args: vec![],
            env: vec![],
            protocol_versions: "6".into(),
            patience: Duration::from_secs(60),
        }
    }
}

/// A provider process that printed its handshake line, and a (lazily connecting) mTLS
/// channel to it. The process is killed when this is dropped.
pub struct LaunchedPlugin {
    /// The process.
    pub child: Child,
    /// What it printed.
    pub handshake: Handshake,
    /// The channel to its socket, over mutual TLS with a fresh client identity.
    pub channel: Channel,
}

/// Starts `launch.program` the way Terraform starts a provider and reads its handshake line.
/// The rest of its stdout is drained so that a chatty provider never blocks on a full pipe;
/// its stderr is thrown away.
pub async fn launch(launch: &Launch) -> Result<LaunchedPlugin, ClientError> {
    let program = launch.program.display().to_string();
    let identity = ClientIdentity::generate()?;
    let mut command = Command::new(&launch.program);
    command
        .args(&launch.args)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", &launch.protocol_versions)
        .env("PLUGIN_CLIENT_CERT", &identity.pem)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    for (key, value) in &launch.env {
        command.env(key, value);
    }
    let mut child = command
        .spawn()
        .map_err(|source| ClientError::Spawn { program: program.clone(), source })?;
    let Some(stdout) = child.stdout.take() else {
        return Err(ClientError::Read { program, source: std::io::Error::other("no stdout pipe") });
    };
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    match tokio::time::timeout(launch.patience, reader.read_line(&mut line)).await {
        Err(_) => {
            let seconds = launch.patience.as_secs();
            return Err(ClientError::NoHandshake { program, seconds });
        }
        Ok(Err(source)) => return Err(ClientError::Read { program, source }),
        Ok(Ok(_)) => {}
    }
    tokio::spawn(async move {
        let _ = tokio::io::copy(&mut reader, &mut tokio::io::sink()).await;
    });
    let handshake = Handshake::parse(&line)?;
    let tls = match &handshake.server_certificate {
        Some(certificate) => {
            Some(tls_config(certificate, Some(&identity), Trust::Pinned, rustls::DEFAULT_VERSIONS)?)
        }
        None => None,
    };
    let connector = PluginConnector { socket: handshake.socket.clone(), tls };
    let channel = crate::connect_lazy(connector);
    Ok(LaunchedPlugin { child, handshake, channel })
}

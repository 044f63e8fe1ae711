//! go-plugin's handshake and transport, driven the way Terraform drives them.
//!
//! The tests play Terraform: they make a client certificate like go-plugin's
//! (ECDSA P-521, self-signed, CA:TRUE), read the handshake line, pin the server
//! certificate from its sixth field, connect over the Unix socket with ALPN h2,
//! and make real gRPC calls. Most run `plugin::serve_with` in-process; the
//! process tests re-run this test binary as a plugin child (see
//! [`plugin_child_process`]) to cover the real environment, stdout, signals
//! and exit.

use std::io::{BufRead as _, BufReader, Read as _, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::{CertificateDer, ServerName};
use terrarium_plugin_client::{Trust, tls_config};
use terrarium_proto::plugin::Empty;
use terrarium_proto::plugin::grpc_broker_client::GrpcBrokerClient;
use terrarium_proto::plugin::grpc_controller_client::GrpcControllerClient;
use terrarium_proto::plugin::grpc_stdio_client::GrpcStdioClient;
use terrarium_tfplugin::plugin::{self, PluginEnv, PluginError};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::TlsConnector;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// A liveness bound for things that should take milliseconds; generous so a
/// loaded machine does not fail the suite.
const PATIENCE: Duration = Duration::from_secs(20);

/// Terraform SIGKILLs a plugin that is still alive 2 s after Shutdown.
const TERRAFORM_KILL_DELAY: Duration = Duration::from_secs(2);

// ---------------------------------------------------------------- Terraform's side

// The client side itself (identity, handshake line, TLS, socket dialing) is
// terrarium-plugin-client, shared with bench/; these wrappers add what the tests assert.
pub(crate) use terrarium_plugin_client::{ClientIdentity, Handshake, PluginConnector, connect};

/// A client certificate and key as go-plugin's `generateCert` makes them.
pub(crate) fn terraform_client_identity() -> ClientIdentity {
    ClientIdentity::generate().unwrap()
}

/// Go's client TLS config: the printed server certificate as its only root (so our
/// certificate must verify as Go's x509 pool checks it), `identity` (if any), the given TLS
/// versions, ALPN h2, server name localhost.
fn terraform_tls_config(
    server_certificate: &CertificateDer<'static>,
    identity: Option<&ClientIdentity>,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Arc<rustls::ClientConfig> {
    tls_config(server_certificate, identity, Trust::Roots, versions).unwrap()
}

const ALL_VERSIONS: &[&rustls::SupportedProtocolVersion] =
    &[&rustls::version::TLS13, &rustls::version::TLS12];
const TLS13_ONLY: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS13];
const TLS12_ONLY: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS12];

/// The fields of a handshake line, checked against go-plugin's parser.
pub(crate) fn parse_handshake(line: &str) -> Handshake {
    assert!(line.ends_with('\n'), "{line:?}");
    let handshake = Handshake::parse(line).unwrap();
    assert_eq!(handshake.core_version, "1", "core protocol version");
    assert_eq!(handshake.protocol_version, "6", "plugin protocol version");
    assert_eq!(handshake.network, "unix");
    assert_eq!(handshake.protocol, "grpc");
    let certificate = &handshake.certificate_field;
    if !certificate.is_empty() {
        assert!(!certificate.contains('='), "padding in {certificate:?}");
        // go-plugin reads the field as a certificate only when longer than 50.
        assert!(certificate.len() > 50, "{certificate:?}");
    }
    handshake
}

/// Connects and asks `grpc.health.v1.Health/Check` about "plugin".
async fn health_of_plugin(connector: PluginConnector) -> Result<ServingStatus, String> {
    let channel = connect(connector).await.map_err(|e| format!("connect: {e:?}"))?;
    let response = HealthClient::new(channel)
        .check(HealthCheckRequest { service: plugin::HEALTH_SERVICE_NAME.to_owned() })
        .await
        .map_err(|status| format!("check: {status:?}"))?;
    Ok(response.into_inner().status())
}

// ---------------------------------------------------------------- in-process plugin

/// Hands what `serve_with` writes to the test while it keeps serving.
struct ChannelWriter(mpsc::UnboundedSender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| std::io::Error::other("the test stopped listening"))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct RunningPlugin {
    handshake: Handshake,
    server: JoinHandle<Result<(), PluginError>>,
    _socket_dir: tempfile::TempDir,
}

/// Runs `plugin::serve_with` with no provider services (go-plugin's own are
/// added by it) and waits for the handshake line.
async fn start_plugin(client_certificates: Option<Vec<CertificateDer<'static>>>) -> RunningPlugin {
    let socket_dir = tempfile::tempdir().unwrap();
    let env = PluginEnv {
        protocol_version: 6,
        client_certificates,
        socket_dir: Some(socket_dir.path().to_path_buf()),
        socket_group: None,
    };
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let server = tokio::spawn(async move {
        plugin::serve_with(env, Routes::default(), &mut ChannelWriter(sender)).await
    });
    let mut written = Vec::new();
    while !written.ends_with(b"\n") {
        match tokio::time::timeout(PATIENCE, receiver.recv()).await {
            Ok(Some(chunk)) => written.extend(chunk),
            Ok(None) => panic!("serve_with ended before its handshake: {:?}", server.await),
            Err(_) => panic!("no handshake line after {PATIENCE:?}"),
        }
    }
    let handshake = parse_handshake(&String::from_utf8(written).unwrap());
    assert!(handshake.socket.starts_with(socket_dir.path()));
    assert!(handshake.socket.exists(), "socket must be bound before the handshake");
    RunningPlugin { handshake, server, _socket_dir: socket_dir }
}

/// Calls GRPCController/Shutdown and checks that the server stops within
/// Terraform's kill delay and removes its socket.
async fn shut_down(plugin: RunningPlugin, channel: Channel) {
    GrpcControllerClient::new(channel).shutdown(Empty {}).await.expect("Shutdown answered");
    let stopped = tokio::time::timeout(TERRAFORM_KILL_DELAY, plugin.server)
        .await
        .expect("server still running 2 s after Shutdown");
    stopped.unwrap().expect("server ended cleanly");
    assert!(!plugin.handshake.socket.exists(), "socket left behind");
}

#[tokio::test]
async fn mtls_terraform_client_checks_health_streams_stdio_and_shuts_down() {
    let client = terraform_client_identity();
    let plugin = start_plugin(Some(vec![client.certificate().clone()])).await;
    let server_certificate = plugin
        .handshake
        .server_certificate
        .clone()
        .expect("field 6 carries the server certificate when PLUGIN_CLIENT_CERT is set");
    let connector = PluginConnector {
        socket: plugin.handshake.socket.clone(),
        tls: Some(terraform_tls_config(&server_certificate, Some(&client), ALL_VERSIONS)),
    };

    assert_eq!(health_of_plugin(connector.clone()).await, Ok(ServingStatus::Serving));

    let channel = connect(connector).await.unwrap();
    // go-plugin opens the stdio stream right after connecting; ours stays
    // open and silent.
    let mut stdio = GrpcStdioClient::new(channel.clone())
        .stream_stdio(())
        .await
        .expect("StreamStdio accepted")
        .into_inner();
    let early = tokio::time::timeout(Duration::from_millis(200), stdio.message()).await;
    assert!(early.is_err(), "stdio stream sent or ended early: {early:?}");

    let stdio_end = tokio::spawn(async move { stdio.message().await });
    shut_down(plugin, channel).await;
    // The stream ended cleanly (OK status, no message) rather than being cut.
    let end = tokio::time::timeout(PATIENCE, stdio_end).await.unwrap().unwrap();
    assert!(matches!(end, Ok(None)), "stdio stream ended with {end:?}");
}

#[tokio::test]
async fn mtls_negotiates_h2_and_presents_the_printed_certificate() {
    let client = terraform_client_identity();
    let plugin = start_plugin(Some(vec![client.certificate().clone()])).await;
    let server_certificate = plugin.handshake.server_certificate.clone().unwrap();

    // TLS 1.3 is what Go negotiates; 1.2 is its minimum. Both must work with
    // the P-521 client certificate.
    for (versions, expected) in [
        (TLS13_ONLY, rustls::ProtocolVersion::TLSv1_3),
        (TLS12_ONLY, rustls::ProtocolVersion::TLSv1_2),
    ] {
        let config = terraform_tls_config(&server_certificate, Some(&client), versions);
        let stream = UnixStream::connect(&plugin.handshake.socket).await.unwrap();
        let tls = TlsConnector::from(config)
            .connect(ServerName::try_from("localhost").unwrap(), stream)
            .await
            .unwrap_or_else(|e| panic!("{expected:?} handshake failed: {e}"));
        let (_, session) = tls.get_ref();
        assert_eq!(session.protocol_version(), Some(expected));
        assert_eq!(session.alpn_protocol(), Some(&b"h2"[..]));
        let presented = session.peer_certificates().unwrap();
        assert_eq!(presented.len(), 1);
        assert_eq!(presented[0], server_certificate);

        let connector = PluginConnector {
            socket: plugin.handshake.socket.clone(),
            tls: Some(terraform_tls_config(&server_certificate, Some(&client), versions)),
        };
        assert_eq!(health_of_plugin(connector).await, Ok(ServingStatus::Serving), "{expected:?}");
    }

    let connector = PluginConnector {
        socket: plugin.handshake.socket.clone(),
        tls: Some(terraform_tls_config(&server_certificate, Some(&client), ALL_VERSIONS)),
    };
    shut_down(plugin, connect(connector).await.unwrap()).await;
}

#[tokio::test]
async fn mtls_refuses_every_client_but_terraforms() {
    let terraform = terraform_client_identity();
    let stranger = terraform_client_identity();
    let plugin = start_plugin(Some(vec![terraform.certificate().clone()])).await;
    let server_certificate = plugin.handshake.server_certificate.clone().unwrap();
    let socket = plugin.handshake.socket.clone();
    let with_tls = |identity: Option<&ClientIdentity>, versions| PluginConnector {
        socket: socket.clone(),
        tls: Some(terraform_tls_config(&server_certificate, identity, versions)),
    };

    for (what, connector) in [
        ("another P-521 certificate over TLS 1.3", with_tls(Some(&stranger), TLS13_ONLY)),
        ("another P-521 certificate over TLS 1.2", with_tls(Some(&stranger), TLS12_ONLY)),
        ("no client certificate", with_tls(None, ALL_VERSIONS)),
        ("plaintext", PluginConnector { socket: socket.clone(), tls: None }),
    ] {
        let outcome = health_of_plugin(connector).await;
        assert!(outcome.is_err(), "{what}: accepted ({outcome:?})");
    }

    // Refused clients do not disturb the server.
    let terraform_connector = with_tls(Some(&terraform), ALL_VERSIONS);
    assert_eq!(health_of_plugin(terraform_connector.clone()).await, Ok(ServingStatus::Serving));
    shut_down(plugin, connect(terraform_connector).await.unwrap()).await;
}

#[tokio::test]
async fn plaintext_without_a_client_certificate() {
    let plugin = start_plugin(None).await;
    assert!(
        plugin.handshake.server_certificate.is_none(),
        "field 6 must be empty without PLUGIN_CLIENT_CERT"
    );
    let connector = PluginConnector { socket: plugin.handshake.socket.clone(), tls: None };
    assert_eq!(health_of_plugin(connector.clone()).await, Ok(ServingStatus::Serving));

    let channel = connect(connector).await.unwrap();
    // Terraform starts the broker stream and ignores this answer.
    let broker =
        GrpcBrokerClient::new(channel.clone()).start_stream(futures::stream::empty()).await;
    assert_eq!(broker.map(|_| ()).map_err(|status| status.code()), Err(tonic::Code::Unimplemented));
    shut_down(plugin, channel).await;
}

// ---------------------------------------------------------------- plugin as a process

/// Set in the environment of the child started by the process tests.
const CHILD_MARKER: &str = "TERRARIUM_IT_PLUGIN_CHILD";

/// Not a test: the body of the plugin child process. The process tests run
/// this test binary again with `--ignored --exact` on this function; it serves
/// the way the real binary does (environment, stdout, hclog on stderr).
#[test]
#[ignore = "the plugin child process of the process tests"]
fn plugin_child_process() {
    if std::env::var_os(CHILD_MARKER).is_none() {
        return;
    }
    terrarium_runtime::logging::init_hclog();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let result = runtime.block_on(async {
        let env = PluginEnv::from_env()?;
        plugin::serve(env, Routes::default()).await
    });
    if let Err(error) = result {
        eprintln!("{error}");
        std::process::exit(1);
    }
}

/// A plugin child process and what it printed.
struct ChildPlugin {
    child: Child,
    stdout_lines: std::sync::mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
    _socket_dir: tempfile::TempDir,
}

/// The arguments that run [`plugin_child_process`] in this test binary.
const CHILD_ARGS: [&str; 5] =
    ["handshake::plugin_child_process", "--exact", "--ignored", "--nocapture", "--test-threads=1"];

fn spawn_child_plugin(client_pem: Option<&str>, with_cookie: bool) -> ChildPlugin {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(CHILD_ARGS).stdin(Stdio::null());
    spawn_plugin_with(command, client_pem, with_cookie)
}

/// Spawns `command` (the plugin child, or something that starts it) with the environment
/// Terraform gives a plugin; its stdin is the caller's to set.
fn spawn_plugin_with(
    mut command: Command,
    client_pem: Option<&str>,
    with_cookie: bool,
) -> ChildPlugin {
    let socket_dir = tempfile::tempdir().unwrap();
    command
        .env(CHILD_MARKER, "1")
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_UNIX_SOCKET_DIR", socket_dir.path())
        .env("TF_LOG_PROVIDER", "DEBUG")
        .env_remove("PLUGIN_UNIX_SOCKET_GROUP")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match client_pem {
        Some(pem) => command.env("PLUGIN_CLIENT_CERT", pem),
        None => command.env_remove("PLUGIN_CLIENT_CERT"),
    };
    if with_cookie {
        command.env(plugin::MAGIC_COOKIE_KEY, plugin::MAGIC_COOKIE_VALUE);
    } else {
        command.env_remove(plugin::MAGIC_COOKIE_KEY);
    }
    let mut child = command.spawn().unwrap();

    let stdout = child.stdout.take().unwrap();
    let (sender, stdout_lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    ChildPlugin { child, stdout_lines, stderr, _socket_dir: socket_dir }
}

impl ChildPlugin {
    /// The handshake line. libtest prints its own text on stdout too, and
    /// the line comes right after its unterminated "test <name> ... ".
    fn handshake(&self) -> Handshake {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.stdout_lines.recv_timeout(left) {
                Ok(line) => line,
                Err(error) => panic!("no handshake line from the child: {error}"),
            };
            let candidate = line.rsplit_once(" ... ").map_or(line.as_str(), |(_, rest)| rest);
            if candidate.starts_with("1|") {
                return parse_handshake(&format!("{candidate}\n"));
            }
        }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -{name} failed");
    }

    /// Waits for the child to exit; returns its status, its stderr, and the
    /// stdout lines not yet read.
    fn wait(mut self, limit: Duration) -> ChildExit {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the plugin child still runs after {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        ChildExit {
            status,
            stderr: self.stderr.join().unwrap(),
            // The reader thread ends at EOF, now that the child is gone.
            stdout: self.stdout_lines.iter().collect(),
        }
    }
}

struct ChildExit {
    status: ExitStatus,
    stderr: String,
    stdout: Vec<String>,
}

pub(crate) fn tls_connector_for(handshake: &Handshake, client: &ClientIdentity) -> PluginConnector {
    PluginConnector {
        socket: handshake.socket.clone(),
        tls: Some(terraform_tls_config(
            handshake.server_certificate.as_ref().unwrap(),
            Some(client),
            ALL_VERSIONS,
        )),
    }
}

/// hclog JSON records among the child's stderr lines.
fn hclog_records(stderr: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    stderr
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| match serde_json::from_str(line) {
            Ok(serde_json::Value::Object(record)) => record,
            other => panic!("not an hclog record: {line:?} ({other:?})"),
        })
        .collect()
}

#[tokio::test]
async fn process_ignores_sigint_and_exits_on_sigterm() {
    let client = terraform_client_identity();
    let child = spawn_child_plugin(Some(&client.pem), true);
    let handshake = child.handshake();
    let connector = tls_connector_for(&handshake, &client);
    assert_eq!(health_of_plugin(connector.clone()).await, Ok(ServingStatus::Serving));

    child.signal("INT");
    // Pending signals are acted on before the child runs again, so answering
    // after kill() returned proves SIGINT did not end it.
    assert_eq!(health_of_plugin(connector).await, Ok(ServingStatus::Serving));

    child.signal("TERM");
    let socket = handshake.socket.clone();
    let exit = tokio::task::spawn_blocking(move || child.wait(PATIENCE)).await.unwrap();
    let stderr = exit.stderr;
    assert!(exit.status.success(), "exit {:?}; stderr:\n{stderr}", exit.status);
    assert!(!socket.exists(), "socket left behind");
}

/// Whether process `pid` has ended (gone, or a zombie nobody has reaped yet).
fn process_ended(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => true,
    }
}

#[tokio::test]
async fn process_whose_parent_is_gone_stops_serving() {
    // A Terraform that is killed (or crashes) cannot stop its providers: a provider must
    // notice that the process that started it has gone, or it serves nobody forever. A shell
    // stands in for Terraform here: it starts the plugin, says its pid, and exits when its
    // stdin closes.
    let client = terraform_client_identity();
    let mut shell = Command::new("sh");
    shell
        .args(["-c", r#""$0" "$@" & echo "plugin pid $!"; read _; exit 0"#])
        .arg(std::env::current_exe().unwrap())
        .args(CHILD_ARGS)
        .stdin(Stdio::piped());
    let mut plugin = spawn_plugin_with(shell, Some(&client.pem), true);
    let pid = loop {
        let line = plugin.stdout_lines.recv_timeout(PATIENCE).expect("the shell said no pid");
        if let Some(pid) = line.strip_prefix("plugin pid ") {
            break pid.to_string();
        }
    };
    let handshake = plugin.handshake();
    let connector = tls_connector_for(&handshake, &client);
    assert_eq!(health_of_plugin(connector).await, Ok(ServingStatus::Serving));

    drop(plugin.child.stdin.take());
    assert!(plugin.child.wait().unwrap().success(), "the shell failed");
    let deadline = Instant::now() + PATIENCE;
    while !process_ended(&pid) {
        if Instant::now() > deadline {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!("the plugin still served {PATIENCE:?} after the process that started it ended");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // It stopped as on SIGTERM (the socket removed), and said why.
    assert!(!handshake.socket.exists(), "socket left behind");
    let stderr = tokio::task::spawn_blocking(move || plugin.stderr.join().unwrap()).await.unwrap();
    assert!(stderr.contains("the process that started the provider is gone"), "{stderr}");
}

#[tokio::test]
async fn process_exits_after_controller_shutdown_and_logs_hclog() {
    let client = terraform_client_identity();
    let child = spawn_child_plugin(Some(&client.pem), true);
    let handshake = child.handshake();
    let channel = connect(tls_connector_for(&handshake, &client)).await.unwrap();
    GrpcControllerClient::new(channel).shutdown(Empty {}).await.expect("Shutdown answered");

    let exit = tokio::task::spawn_blocking(move || child.wait(PATIENCE)).await.unwrap();
    let stderr = exit.stderr;
    assert!(exit.status.success(), "exit {:?}; stderr:\n{stderr}", exit.status);
    assert!(!handshake.socket.exists(), "socket left behind");

    // TF_LOG_PROVIDER=DEBUG: the host's debug records arrive as hclog JSON.
    let records = hclog_records(&stderr);
    let listening = records
        .iter()
        .find(|record| record["@message"] == "plugin server listening")
        .unwrap_or_else(|| panic!("no listening record in:\n{stderr}"));
    assert_eq!(listening["@level"], "debug");
    assert_eq!(listening["@module"], "terrarium.plugin.serve");
    assert_eq!(listening["tls"], true);
    let timestamp = listening["@timestamp"].as_str().unwrap();
    let fraction = timestamp.rsplit_once('.').map(|(_, rest)| rest.trim_end_matches('Z')).unwrap();
    assert_eq!(fraction.len(), 6, "{timestamp}");
    assert!(records.iter().all(|record| record["@level"] != "trace"));
}

#[test]
fn process_run_by_hand_explains_itself_and_exits_1() {
    let exit = spawn_child_plugin(None, false).wait(PATIENCE);
    let stderr = exit.stderr;
    assert_eq!(exit.status.code(), Some(1), "stderr:\n{stderr}");
    assert!(stderr.contains("Terraform provider plugin"), "{stderr}");
    assert!(stderr.contains("terrarium install"), "{stderr}");
    assert!(
        exit.stdout.iter().all(|line| !line.contains("|unix|")),
        "a handshake was printed: {:?}",
        exit.stdout
    );
}

//! The Pulumi side of starting a plugin: Pulumi's engine starts `pulumi-resource-NAME` with
//! its own address as the one argument, reads one line from the plugin's stdout, the port it
//! listens on (everything after that line is log output), and dials `127.0.0.1:PORT` in
//! plaintext. It stops a plugin with SIGINT (then kills it 5 s later).
//!
//! [`serve_pulumi`] binds `127.0.0.1:0` (or `PULUMI_PLUGIN_LISTEN_ADDRESS`), writes the port
//! line, and serves the given routes plus `grpc.health.v1.Health` until SIGINT or SIGTERM, or
//! until the engine that started it is gone ([`engine_gone`], as Pulumi's own plugins watch
//! the engine). [`EngineLink`] sends the component's log records to the engine's `Log`.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::Routes;
use tonic::transport::{Channel, Endpoint};
use tonic_health::ServingStatus;

use terrarium_proto::MAX_MESSAGE_SIZE;
use terrarium_proto::pulumirpc::engine_client::EngineClient;
use terrarium_proto::pulumirpc::{LogRequest, LogSeverity};
use terrarium_runtime::logging::{self, Record};

/// What can go wrong while starting or running a Pulumi plugin.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// `PULUMI_PLUGIN_LISTEN_ADDRESS` is not an address to listen on.
    #[error(
        "PULUMI_PLUGIN_LISTEN_ADDRESS={given:?} is not an address to listen on: use HOST:PORT \
         such as 127.0.0.1:5000, a port alone, or unset it"
    )]
    ListenAddress {
        /// The value as given.
        given: String,
    },

    /// TERRARIUM_PULUMI_ENGINE_CHECK_SECONDS is not a whole number of seconds.
    #[error(
        "TERRARIUM_PULUMI_ENGINE_CHECK_SECONDS={given:?} is not a number of seconds; give a whole \
         number of at least 1, or unset it"
    )]
    EngineCheckInterval {
        /// The value as given.
        given: String,
    },

    /// The TCP port the plugin serves on could not be bound.
    #[error("cannot listen on {address}: {source}")]
    BindTcp {
        /// The address tried.
        address: SocketAddr,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },

    /// The port line could not be written to stdout.
    #[error("cannot write the plugin handshake line: {0}")]
    Handshake(#[source] std::io::Error),

    /// Signal handlers could not be installed.
    #[error("cannot install signal handlers: {0}")]
    Signals(#[source] std::io::Error),

    /// The gRPC server failed.
    #[error("the gRPC server failed: {0}")]
    Serve(#[from] tonic::transport::Error),
}

/// How often a plugin started by an engine asks whether the engine is still there, unless
/// [`ENGINE_CHECK_VAR`] says otherwise (Pulumi's plugins ask every 5 minutes; a Wasm host
/// left behind holds memory, so sooner).
pub const ENGINE_CHECK_INTERVAL: Duration = Duration::from_secs(30);

/// Seconds between two checks of the engine, instead of [`ENGINE_CHECK_INTERVAL`].
pub const ENGINE_CHECK_VAR: &str = "TERRARIUM_PULUMI_ENGINE_CHECK_SECONDS";

/// The variable that makes a Pulumi plugin listen somewhere else than a loopback port the
/// kernel chooses (as Pulumi's own provider SDK reads it).
pub const LISTEN_ADDRESS_VAR: &str = "PULUMI_PLUGIN_LISTEN_ADDRESS";

/// Where to listen: `PULUMI_PLUGIN_LISTEN_ADDRESS` (`HOST:PORT`, or only a port), else
/// `127.0.0.1:0`.
pub fn listen_address(variable: Option<&str>) -> Result<SocketAddr, PluginError> {
    let Some(raw) = variable.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(SocketAddr::from(([127, 0, 0, 1], 0)));
    };
    let text = if raw.contains(':') { raw.to_string() } else { format!("127.0.0.1:{raw}") };
    text.parse().map_err(|_| PluginError::ListenAddress { given: raw.to_string() })
}

/// Binds `address` and writes the port line to `port_out`; returns the listener.
pub async fn bind_and_announce<W: Write>(
    address: SocketAddr,
    port_out: &mut W,
) -> Result<TcpListener, PluginError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|source| PluginError::BindTcp { address, source })?;
    let port =
        listener.local_addr().map_err(|source| PluginError::BindTcp { address, source })?.port();
    writeln!(port_out, "{port}").and_then(|()| port_out.flush()).map_err(PluginError::Handshake)?;
    Ok(listener)
}

/// Serves `routes` and gRPC health on `listener` until SIGINT or SIGTERM, or until `gone`
/// resolves (the engine went away).
pub async fn serve_pulumi(
    listener: TcpListener,
    routes: Routes,
    gone: impl Future<Output = ()>,
) -> Result<(), PluginError> {
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter.set_service_status("", ServingStatus::Serving).await;
    let routes = routes.add_service(
        health_service
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE),
    );
    let mut terminate = signal(SignalKind::terminate()).map_err(PluginError::Signals)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(PluginError::Signals)?;
    let stop = async move {
        tokio::select! {
            _ = terminate.recv() => tracing::debug!("SIGTERM received; stopping"),
            _ = interrupt.recv() => tracing::debug!("SIGINT received; stopping"),
            () = gone => {}
        }
    };
    tonic::transport::Server::builder()
        .add_routes(routes)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), stop)
        .await?;
    Ok(())
}

/// The interval of [`ENGINE_CHECK_VAR`] (whole seconds, at least 1), else the default.
pub fn engine_check_interval(variable: Option<&str>) -> Result<Duration, PluginError> {
    match variable.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(ENGINE_CHECK_INTERVAL),
        Some(text) => match text.parse::<u64>() {
            Ok(seconds) if seconds > 0 => Ok(Duration::from_secs(seconds)),
            _ => Err(PluginError::EngineCheckInterval { given: text.to_string() }),
        },
    }
}

/// Resolves when the engine at `address` stops answering: every `interval` it is asked for
/// its gRPC health, and any answer (`Unimplemented` included, as Pulumi counts it) means it
/// is there; a failed call means it is gone.
pub async fn engine_gone(address: String, interval: Duration) {
    let Ok(endpoint) = Endpoint::from_shared(format!("http://{address}")) else {
        tracing::warn!("the engine address {address:?} cannot be dialled; not watching it");
        return std::future::pending().await;
    };
    let mut health = tonic_health::pb::health_client::HealthClient::new(endpoint.connect_lazy());
    loop {
        tokio::time::sleep(interval).await;
        let asked = health.check(tonic_health::pb::HealthCheckRequest::default()).await;
        match asked {
            Ok(_) => {}
            Err(status) if status.code() == tonic::Code::Unimplemented => {}
            Err(status) => {
                tracing::info!("the engine at {address} is gone ({}); stopping", status.message());
                return;
            }
        }
    }
}

tokio::task_local! {
    /// The URN of the resource a call is about, for its log records.
    static RESOURCE: String;
}

/// Runs `call` with the log records it causes attached, in the engine, to the resource `urn`
/// (the engine shows them with that resource).
pub async fn for_resource<F: Future>(urn: &str, call: F) -> F::Output {
    RESOURCE.scope(urn.to_string(), call).await
}

/// The engine a plugin serves: its address once known (from the command line, `Handshake` or
/// `Attach`), to which the component's log records go.
#[derive(Clone, Default)]
pub struct EngineLink {
    address: Arc<Mutex<Option<String>>>,
}

impl EngineLink {
    pub fn address(&self) -> Option<String> {
        self.address.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn set_address(&self, address: &str) {
        *self.address.lock().unwrap_or_else(|p| p.into_inner()) = Some(address.to_string());
    }

    /// From now on, sends the log records of [`logging::emit`] (the component's) to the
    /// engine's `Log`, in order; while no engine is known, or when it cannot be reached, a
    /// record is written to stderr as before. Call within the Tokio runtime.
    pub fn forward_logs(&self) {
        let (records, pending) = mpsc::unbounded_channel();
        tokio::spawn(deliver(self.clone(), pending));
        let link = self.clone();
        logging::forward(move |record| {
            if link.address().is_none() {
                return Err(record);
            }
            let urn = RESOURCE.try_with(String::clone).unwrap_or_default();
            records.send((record, urn)).map_err(|unsent| unsent.0.0)
        });
    }
}

/// Sends the records as they come (with the URN of the resource they are about, if any) to
/// the engine known when each is sent.
async fn deliver(link: EngineLink, mut pending: mpsc::UnboundedReceiver<(Record, String)>) {
    let mut client: Option<(String, EngineClient<Channel>)> = None;
    while let Some((record, urn)) = pending.recv().await {
        let Some(address) = link.address() else {
            logging::write_local(&record);
            continue;
        };
        if client.as_ref().is_none_or(|(known, _)| *known != address) {
            client = Endpoint::from_shared(format!("http://{address}"))
                .ok()
                .map(|e| (address.clone(), EngineClient::new(e.connect_lazy())));
        }
        let Some((_, engine)) = client.as_mut() else {
            logging::write_local(&record);
            continue;
        };
        let request = LogRequest {
            severity: severity(record.level) as i32,
            message: record.text(),
            urn,
            ..LogRequest::default()
        };
        if engine.log(request).await.is_err() {
            logging::write_local(&record);
        }
    }
}

fn severity(level: tracing::Level) -> LogSeverity {
    match level {
        tracing::Level::ERROR => LogSeverity::Error,
        tracing::Level::WARN => LogSeverity::Warning,
        tracing::Level::INFO => LogSeverity::Info,
        _ => LogSeverity::Debug,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listen_address_defaults_to_a_loopback_port_the_kernel_chooses() {
        assert_eq!(listen_address(None).unwrap(), SocketAddr::from(([127, 0, 0, 1], 0)));
        assert_eq!(listen_address(Some(" ")).unwrap(), SocketAddr::from(([127, 0, 0, 1], 0)));
        assert_eq!(listen_address(Some("5000")).unwrap(), SocketAddr::from(([127, 0, 0, 1], 5000)));
        assert_eq!(listen_address(Some("0.0.0.0:7")).unwrap(), SocketAddr::from(([0, 0, 0, 0], 7)));
        let err = listen_address(Some("localhost:x")).unwrap_err().to_string();
        assert!(err.contains("PULUMI_PLUGIN_LISTEN_ADDRESS"), "{err}");
    }
}

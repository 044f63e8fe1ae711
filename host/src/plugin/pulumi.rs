//! The Pulumi side of starting a plugin: Pulumi's engine starts `pulumi-resource-NAME` with
//! its own address as the one argument, reads one line from the plugin's stdout, the port it
//! listens on (everything after that line is log output), and dials `127.0.0.1:PORT` in
//! plaintext. It stops a plugin with SIGINT (then kills it 5 s later).
//!
//! [`serve_pulumi`] binds `127.0.0.1:0` (or `PULUMI_PLUGIN_LISTEN_ADDRESS`), writes the port
//! line, and serves the given routes plus `grpc.health.v1.Health` until SIGINT or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::Routes;
use tonic_health::ServingStatus;

use super::{MAX_MESSAGE_SIZE, PluginError};

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

/// Serves `routes` and gRPC health on `listener` until SIGINT or SIGTERM.
pub async fn serve_pulumi(listener: TcpListener, routes: Routes) -> Result<(), PluginError> {
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
        }
    };
    tonic::transport::Server::builder()
        .add_routes(routes)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), stop)
        .await?;
    Ok(())
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

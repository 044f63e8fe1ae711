//! Serving: handshake, listener, signals, and the tonic server itself.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use rustls::ServerConfig;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::UnixListenerStream;
use tonic::service::Routes;
use tonic::transport::server::Connected;

use super::tls::{ServerIdentity, tls_incoming};
use super::{
    BoundSocket, PluginEnv, PluginError, Shutdown, add_go_plugin_services, bind_unix_socket,
    handshake_line,
};

/// How long open connections get to finish after a shutdown request before the
/// server returns anyway. Terraform kills a plugin 2 s after asking it to stop;
/// the Shutdown answer itself needs only milliseconds.
pub const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// Serves `services` to Terraform the way go-plugin does, printing the
/// handshake line on stdout. See [`serve_with`].
pub async fn serve(env: PluginEnv, services: Routes) -> Result<(), PluginError> {
    serve_with(env, services, &mut std::io::stdout()).await
}

/// Serves `services` (the provider protocol) plus go-plugin's own services to
/// Terraform, writing the handshake line to `handshake_out`:
///
/// * binds a fresh Unix socket, then prints `1|<version>|unix|<path>|grpc|<cert>`;
/// * serves mutual TLS when `env` carries Terraform's client certificate
///   (accepting only that certificate), plaintext otherwise;
/// * returns after `GRPCController/Shutdown`, SIGTERM or the end of the process that
///   started it, once open calls have finished or [`DRAIN_GRACE`] has passed, and removes
///   the socket.
///
/// SIGINT is ignored while serving, as Go plugins do: Ctrl-C reaches the whole
/// process group, and Terraform asks for a graceful stop through StopProvider.
pub async fn serve_with<W: Write + Send>(
    env: PluginEnv,
    services: Routes,
    handshake_out: &mut W,
) -> Result<(), PluginError> {
    let shutdown = Shutdown::new();
    let _signals = watch_signals(&shutdown)?;
    let routes = add_go_plugin_services(services, &shutdown).await;

    let tls = match env.client_certificates {
        Some(accepted) => {
            let identity = ServerIdentity::generate()?;
            let config = identity.server_config(accepted)?;
            Some((identity, config))
        }
        None => None,
    };

    let BoundSocket { listener, path } =
        bind_unix_socket(env.socket_dir.as_deref(), env.socket_group.as_deref())?;
    let line = handshake_line(
        env.protocol_version,
        path.as_path(),
        tls.as_ref().map(|(identity, _)| identity.certificate()),
    );
    handshake_out
        .write_all(line.as_bytes())
        .and_then(|()| handshake_out.flush())
        .map_err(PluginError::Handshake)?;
    tracing::debug!(
        socket = %path.as_path().display(),
        protocol = env.protocol_version,
        tls = tls.is_some(),
        "plugin server listening"
    );

    let result = match tls {
        Some((_, config)) => serve_tls_on(listener, config, routes, shutdown).await,
        None => serve_plaintext_on(listener, routes, shutdown).await,
    };
    // Explicit for clarity: the socket file goes away once serving is over.
    drop(path);
    tracing::debug!("plugin server stopped");
    result
}

/// Serves `routes` in plaintext on `listener` until `shutdown` is triggered
/// (and connections drain, up to [`DRAIN_GRACE`]). For callers that build the
/// routes themselves, e.g. with [`add_go_plugin_services`]; a debug mode that
/// Terraform reattaches to uses this (reattached providers never use TLS).
pub async fn serve_plaintext_on(
    listener: UnixListener,
    routes: Routes,
    shutdown: Shutdown,
) -> Result<(), PluginError> {
    run_server(UnixListenerStream::new(listener), routes, shutdown).await
}

/// Like [`serve_plaintext_on`], but every connection must complete a TLS
/// handshake with `config` first (see [`super::tls`]).
pub async fn serve_tls_on(
    listener: UnixListener,
    config: Arc<ServerConfig>,
    routes: Routes,
    shutdown: Shutdown,
) -> Result<(), PluginError> {
    run_server(tls_incoming(listener, config), routes, shutdown).await
}

async fn run_server<I, IO, IE>(
    incoming: I,
    routes: Routes,
    shutdown: Shutdown,
) -> Result<(), PluginError>
where
    I: Stream<Item = Result<IO, IE>>,
    IO: AsyncRead + AsyncWrite + Connected + Unpin + Send + 'static,
    IE: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stop_accepting = {
        let shutdown = shutdown.clone();
        async move { shutdown.wait().await }
    };
    let server = tonic::transport::Server::builder()
        .add_routes(routes)
        .serve_with_incoming_shutdown(incoming, stop_accepting);
    tokio::pin!(server);

    tokio::select! {
        result = &mut server => result?,
        () = async {
            shutdown.wait().await;
            tokio::time::sleep(DRAIN_GRACE).await;
        } => {
            tracing::debug!(grace = ?DRAIN_GRACE, "connections still open after shutdown; closing them");
        }
    }
    Ok(())
}

/// Aborts the signal task when serving ends.
struct SignalWatcher(JoinHandle<()>);

impl Drop for SignalWatcher {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// How often a provider checks that the process that started it is still there.
const PARENT_CHECK: Duration = Duration::from_secs(1);

/// SIGTERM triggers `shutdown`; SIGINT is caught and ignored. So does the end of the process
/// that started the provider: a Terraform that was killed (or crashed) cannot stop its
/// providers, and one left behind would serve nobody, forever.
fn watch_signals(shutdown: &Shutdown) -> Result<SignalWatcher, PluginError> {
    let mut terminate = signal(SignalKind::terminate()).map_err(PluginError::Signals)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(PluginError::Signals)?;
    let shutdown = shutdown.clone();
    let parent = std::os::unix::process::parent_id();
    let mut parent_check = tokio::time::interval(PARENT_CHECK);
    parent_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    Ok(SignalWatcher(tokio::spawn(async move {
        loop {
            tokio::select! {
                Some(()) = terminate.recv() => {
                    tracing::debug!("SIGTERM received; stopping the server");
                    shutdown.trigger();
                }
                Some(()) = interrupt.recv() => {
                    tracing::debug!("SIGINT ignored; Terraform stops providers through StopProvider");
                }
                _ = parent_check.tick() => {
                    // An orphan is adopted by init or a subreaper: its parent changes.
                    if std::os::unix::process::parent_id() != parent {
                        tracing::warn!(parent, "the process that started the provider is gone; stopping the server");
                        shutdown.trigger();
                        break;
                    }
                }
                else => break,
            }
        }
    })))
}

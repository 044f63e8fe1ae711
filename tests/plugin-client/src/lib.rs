//! Terraform's side of go-plugin, for tests and benchmarks that play Terraform against a
//! provider process: the client certificate go-plugin's AutoMTLS makes ([`ClientIdentity`]),
//! the handshake line a plugin prints ([`Handshake`]), the TLS client configuration go-plugin
//! uses ([`tls_config`]), a connector that dials the plugin's Unix socket ([`PluginConnector`])
//! and a launcher that starts a provider the way Terraform does ([`launch`]); and new builds of
//! a component for hot-reload tests ([`rebuilt`]).
//!
//! Used by the host's integration tests and by `bench/`; the gRPC clients for the protocol
//! itself come from the caller.

mod build;
mod connect;
mod handshake;
mod identity;
mod launch;

pub use build::rebuilt;
pub use connect::{PluginConnector, Trust, connect, connect_lazy, tls_config};
pub use handshake::Handshake;
pub use identity::ClientIdentity;
pub use launch::{Launch, LaunchedPlugin, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, launch};

/// What can go wrong while playing Terraform's side.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot make the client certificate: {0}")]
    Certificate(#[from] rcgen::Error),
    #[error("TLS configuration: {0}")]
    Tls(#[from] rustls::Error),
    #[error("unexpected handshake line {line:?}: {problem}")]
    Handshake { line: String, problem: &'static str },
    #[error("cannot start {program}: {source}")]
    Spawn { program: String, source: std::io::Error },
    #[error("{program} printed no handshake line within {seconds} s")]
    NoHandshake { program: String, seconds: u64 },
    #[error("reading the handshake line of {program}: {source}")]
    Read { program: String, source: std::io::Error },
}

//! The go-plugin side of the conversation with Terraform.
//!
//! Terraform starts a provider executable with no arguments and a handful of
//! environment variables (hashicorp/go-plugin v1.7.0's contract):
//!
//! 1. [`PluginEnv::from_env`] checks the magic cookie (refusing to run when a
//!    person starts the binary by hand), picks the protocol version from
//!    `PLUGIN_PROTOCOL_VERSIONS`, and reads the client certificate that turns on
//!    AutoMTLS. Protocol 6 is chosen when offered, else 5; a user may force
//!    either ([`ForcedProtocol`]).
//! 2. [`serve`] binds a Unix socket, prints the handshake line
//!    (`1|6|unix|<path>|grpc|<cert>`, or `1|5|…`) on stdout, and serves gRPC (mutual TLS when
//!    Terraform sent a certificate, plaintext otherwise) with go-plugin's own
//!    services beside the provider's: `plugin.GRPCController` (Shutdown),
//!    `plugin.GRPCStdio` and `grpc.health.v1.Health`.
//! 3. It returns after `GRPCController/Shutdown`, SIGTERM or the end of the process that
//!    started it (a killed Terraform), removing the socket.
//!
//! The pieces ([`bind_unix_socket`], [`handshake_line`], [`tls`],
//! [`add_go_plugin_services`], [`serve_plaintext_on`], [`serve_tls_on`]) are
//! public so a debug mode (plaintext, no cookie, `TF_REATTACH_PROVIDERS`) can
//! put them together differently.
//!
//! Unix only: go-plugin uses TCP on Windows, which this module does not offer yet.

mod env;
mod handshake;
mod serve;
mod services;
mod shutdown;
mod socket;
pub mod tls;

use std::path::PathBuf;

pub use env::{
    ForcedProtocol, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PluginEnv, SUPPORTED_PROTOCOL_VERSIONS,
    check_magic_cookie, choose_protocol, negotiate_protocol, parse_client_certificates,
};
pub use handshake::{CORE_PROTOCOL_VERSION, handshake_line};
pub use serve::{DRAIN_GRACE, serve, serve_plaintext_on, serve_tls_on, serve_with};
pub use services::{HEALTH_SERVICE_NAME, add_go_plugin_services};
pub use shutdown::Shutdown;
pub use socket::{BoundSocket, SocketPath, bind_unix_socket};

pub use terrarium_proto::MAX_MESSAGE_SIZE;

/// What can go wrong while starting or running the plugin server.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The magic cookie is missing or wrong: a person (or a script) ran the
    /// binary directly. The message explains what the binary is, for the CLI
    /// to print as is (then exit with status 1, as Go plugins do).
    #[error(
        "This binary is a Terraform provider plugin: a provider built as a WebAssembly \
         component and served by Terrarium.\n\
         It is not meant to be run directly. Terraform starts it when a configuration \
         uses the provider.\n\
         \n\
         To make a provider component available to Terraform, use `terrarium install`.\n\
         For every command, run `terrarium --help`."
    )]
    NotLaunchedByTerraform,

    /// Terraform offered no protocol version that we speak.
    #[error(
        "Terraform offered plugin protocol versions [{}] (PLUGIN_PROTOCOL_VERSIONS), but this \
         provider speaks only [{}]; protocol 5 needs Terraform 0.12 or later, protocol 6 \
         Terraform 1.0 or later",
        offered,
        join_versions(supported)
    )]
    NoCommonProtocol {
        /// The raw value of `PLUGIN_PROTOCOL_VERSIONS` ("" when unset).
        offered: String,
        /// The versions we speak.
        supported: Vec<u32>,
    },

    /// The user forced a protocol version that Terraform did not offer.
    #[error(
        "{origin} asks for plugin protocol {version}, but Terraform offered only [{offered}] \
         (PLUGIN_PROTOCOL_VERSIONS). Remove {origin} to let the provider choose, or use a \
         Terraform that speaks protocol {version}"
    )]
    ForcedProtocolNotOffered {
        /// The version asked for.
        version: u32,
        /// How it was asked for (`--protocol 5`, `TERRARIUM_PROTOCOL=5`).
        origin: String,
        /// The raw value of `PLUGIN_PROTOCOL_VERSIONS` ("" when unset).
        offered: String,
    },

    /// The user forced a protocol version that this provider does not speak.
    #[error(
        "{origin} asks for plugin protocol {version}, but this provider speaks only [{}]",
        join_versions(supported)
    )]
    UnsupportedForcedProtocol {
        /// The version asked for.
        version: u32,
        /// How it was asked for.
        origin: String,
        /// The versions we speak.
        supported: Vec<u32>,
    },

    /// `PLUGIN_CLIENT_CERT` is set but holds no usable certificate.
    #[error("PLUGIN_CLIENT_CERT does not hold a PEM certificate: {reason}")]
    InvalidClientCertificate {
        /// What was wrong with it.
        reason: String,
    },

    /// The Unix socket could not be created.
    #[error("cannot listen on the Unix socket {path}: {source}")]
    Bind {
        /// The socket path tried.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },

    /// `PLUGIN_UNIX_SOCKET_GROUP` could not be applied to the socket.
    #[error(
        "cannot give the socket {path} to group {group:?} (PLUGIN_UNIX_SOCKET_GROUP): {reason}"
    )]
    SocketGroup {
        /// The socket path.
        path: PathBuf,
        /// The group name or id as given.
        group: String,
        /// Why it failed.
        reason: String,
    },

    /// Generating the server's certificate failed.
    #[error("cannot generate the plugin's TLS certificate: {0}")]
    Certificate(#[from] rcgen::Error),

    /// Building the TLS configuration failed.
    #[error("cannot set up TLS: {0}")]
    Tls(#[from] rustls::Error),

    /// The handshake line could not be written to stdout.
    #[error("cannot write the plugin handshake line: {0}")]
    Handshake(#[source] std::io::Error),

    /// Signal handlers could not be installed.
    #[error("cannot install signal handlers: {0}")]
    Signals(#[source] std::io::Error),

    /// The gRPC server failed.
    #[error("the gRPC server failed: {0}")]
    Serve(#[from] tonic::transport::Error),
}

fn join_versions(versions: &[u32]) -> String {
    versions.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

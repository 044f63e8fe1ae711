//! Terraform's side of the host: go-plugin's handshake, AutoMTLS, controller and stdio services
//! ([`plugin`]), and the tfplugin6 and tfplugin5 services over the protocol-neutral core
//! ([`server`]).
//!
//! ```text
//! terraform --gRPC/TLS--> plugin (go-plugin) --> server (tfplugin6 <-> neutral types)
//!           --> terrarium_core::Dispatcher
//! ```

pub mod plugin;
pub mod server;

//! Terrarium: runs Terraform providers as sandboxed WebAssembly components.
//!
//! Data flows one way:
//!
//! ```text
//! terraform --gRPC/TLS--> plugin (go-plugin) --> server (tfplugin6 <-> neutral types)
//!           --> dispatch (schemas, codec, checks) --> runtime (wasmtime) --> guest component
//! ```
//!
//! * [`plugin`]: go-plugin's side of the conversation: handshake, AutoMTLS, controller, stdio, health.
//! * [`server`]: tonic services for tfplugin6; protobuf <-> neutral types, nothing else.
//! * [`dispatch`]: the protocol-neutral core: schema registry, codec calls, result checks.
//! * [`codec`]: DynamicValue / RawState bytes <-> typed values, driven by the schema type.
//! * [`runtime`]: wasmtime: load, instantiate, call, trap -> diagnostic.
//! * [`reload`]: `terrarium dev`'s hot reload: file watching and the atomic swap of builds.
//! * [`cli`]: the `terrarium` commands.
//! * [`guest_text`]: guest text made safe (and capped) for terminals and logs.

pub mod cli;
pub mod codec;
pub mod dispatch;
pub mod guest_text;
pub mod logging;
pub mod plugin;
pub mod proto;
pub mod reload;
pub mod runtime;
pub mod sandbox;
pub mod server;

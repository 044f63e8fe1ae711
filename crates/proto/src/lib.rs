//! Generated protobuf and gRPC code (see `build.rs` and `proto/`).
//!
//! Naming notes for users of these modules (prost's mapping of the protocol's names):
//! * `Function.return` is the field `r#return` of type `function::Return`.
//! * The `InvokeAction.Event` oneof `type` is the field `r#type` of type
//!   `invoke_action::event::Type`.
//! * `StopProvider.Response.Error` (capitalised in the protocol) is the field `error`.
//! * `google.protobuf.Empty` maps to `()` and `Timestamp` to `prost_types::Timestamp`.

/// The largest gRPC message accepted or sent, both ways, by every service of every protocol
/// here (tfplugin6/5, go-plugin's, pulumirpc).
///
/// Terraform asks for up to 256 MiB on the state-store byte streams and 64 MiB
/// on GetProviderSchema; terraform-plugin-go servers use 256 MiB both ways.
/// tonic's default (4 MiB) would break large schemas and states, so every
/// service must be built with this limit (`max_decoding_message_size` and
/// `max_encoding_message_size`).
pub const MAX_MESSAGE_SIZE: usize = 256 * 1024 * 1024;

/// Terraform plugin protocol 6 (6.11; a superset of the 6.10 Terraform 1.13-1.15 speak).
pub mod tfplugin6 {
    tonic::include_proto!("tfplugin6");
}

/// Terraform plugin protocol 5 (5.10), served for Terraform that offers only 5 (see
/// `server::provider5`). Same naming notes as tfplugin6, with `Stop.Response.Error` for the
/// last one.
pub mod tfplugin5 {
    tonic::include_proto!("tfplugin5");
}

/// hashicorp/go-plugin's internal services: controller, stdio, broker.
pub mod plugin {
    tonic::include_proto!("plugin");
}

/// Pulumi's resource-provider protocol (`pulumirpc`, the provider service and the messages it
/// needs), served by `server::pulumi`. `google.protobuf.Struct` and `Value` map to
/// `prost_types::Struct` and `prost_types::Value`; `CallResponse.return` and
/// `InvokeResponse.return` are the fields `r#return`.
pub mod pulumirpc {
    tonic::include_proto!("pulumirpc");
}

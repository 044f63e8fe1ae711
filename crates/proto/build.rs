//! Compiles the protocol files in `../proto` into Rust with a pure-Rust
//! protobuf compiler (protox), so building Terrarium never needs a system
//! `protoc`.

use std::path::PathBuf;

/// The files compiled, relative to the proto directory. tfplugin6 and tfplugin5
/// are the Terraform provider protocols; `pulumi/provider.proto` is Pulumi's (it imports
/// `pulumi/plugin.proto` and `pulumi/alias.proto`); the others are go-plugin's internal services.
const PROTO_FILES: &[&str] = &[
    "tfplugin6.proto",
    "tfplugin5.proto",
    "pulumi/provider.proto",
    "pulumi/engine.proto",
    "grpc_controller.proto",
    "grpc_stdio.proto",
    "grpc_broker.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_dir = manifest_dir.join("..").join("..").join("proto");

    // The whole directory, so adding a file also reruns us.
    println!("cargo:rerun-if-changed={}", proto_dir.display());
    println!("cargo:rerun-if-changed={}", proto_dir.join("pulumi").display());
    for file in PROTO_FILES {
        println!("cargo:rerun-if-changed={}", proto_dir.join(file).display());
    }

    // protox resolves google/protobuf/*.proto from its bundled copies.
    let descriptors = protox::compile(PROTO_FILES, [&proto_dir])?;

    tonic_prost_build::configure()
        // Servers for the host; clients for the tests that play Terraform.
        .build_server(true)
        .build_client(true)
        .compile_fds(descriptors)?;
    Ok(())
}

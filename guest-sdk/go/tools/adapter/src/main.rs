//! `go-wasip1-adapter OUT`: writes wasmtime's wasip1 reactor adapter to OUT.

use std::process::ExitCode;

use wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER;

fn main() -> ExitCode {
    let Some(out) = std::env::args_os().nth(1) else {
        eprintln!("usage: go-wasip1-adapter OUT (the file to write the reactor adapter to)");
        return ExitCode::from(2);
    };
    match std::fs::write(&out, WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cannot write the adapter to {}: {e}", out.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

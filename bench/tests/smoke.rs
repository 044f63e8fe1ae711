//! The benchmarks cannot rot: `make test` (through `cargo test --workspace`) runs every section
//! of `terrarium-bench` once, at its smallest size (`--smoke`), against the debug builds the
//! suite already has (the host, `make build-guests`' components, the Go null provider and
//! terraform from `scripts/setup`). A section that no longer runs fails here; its figures are
//! printed and never checked (benchmarks measure, tests do not time). So does
//! `bench/module-reload`, the Python and TypeScript reload script, with one run.

// Test code: a failed unwrap is a failed test with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>` (this test's executable is in its `deps/`).
fn profile_dir() -> PathBuf {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_terrarium-bench"));
    bench.parent().expect("the benchmark's directory").to_path_buf()
}

fn existing(path: PathBuf, how: &str) -> PathBuf {
    assert!(path.exists(), "{} does not exist: {how}", path.display());
    path
}

#[test]
fn every_section_runs_once_at_its_smallest_size() {
    let repo =
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository").to_path_buf();
    let profile = profile_dir();
    let guests = profile.parent().expect("the target directory").join("wasm32-wasip2/debug");
    let guest =
        |name: &str| existing(guests.join(name), "build the guests first (`make build-guests`)");
    let host = existing(
        profile.join("terrarium"),
        "build the host first (`cargo test --workspace` builds it; or `cargo build -p terrarium`)",
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    // The author's crate (guest-sdk/README.md) is built outside the checkout, as `make bench`
    // builds it, and kept across runs (its first build compiles its dependencies).
    let author = std::env::var_os("BENCH_AUTHOR_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .expect("HOME or XDG_CACHE_HOME");
        cache.join("terrarium-bench/author")
    });
    let log = scratch.path().join("stderr.log");
    let output = Command::new(env!("CARGO_BIN_EXE_terrarium-bench"))
        .arg("--smoke")
        .env("TERRARIUM_BIN", &host)
        .env("NULL_COMPONENT", guest("null_provider.wasm"))
        .env("NULL_DEBUG_COMPONENT", guest("null_provider.wasm"))
        .env("RANDOM_COMPONENT", guest("random_provider.wasm"))
        .env("FAULTY_COMPONENT", guest("faulty_provider.wasm"))
        .env("HOSTILE_COMPONENT", guest("hostile_provider.wasm"))
        .env("SLOW_COMPONENT", guest("slow_provider.wasm"))
        .env("PETS_PY_COMPONENT", guest("pets_py.wasm"))
        .env("PETS_TS_COMPONENT", guest("pets_ts.wasm"))
        .env(
            "GO_NULL",
            existing(
                repo.join("build/tools/go-null-2.1.2/terraform-provider-null_v2.1.2_x4"),
                "run `scripts/setup`",
            ),
        )
        .env("TERRAFORM", existing(repo.join("scripts/terraform"), "the repository's terraform"))
        .env(
            "TOFU",
            existing(repo.join("build/tools/bin/tofu"), "run `scripts/setup` (it builds OpenTofu)"),
        )
        .env_remove("FRAMEWORK_PROVIDER")
        // The framework pets pair of `instances` compiles a large Go component: the full run's.
        .env_remove("FRAMEWORK_PETS_NATIVE")
        .env_remove("PETS_FRAMEWORK_COMPONENT")
        // The large generated provider takes minutes to build and to compile: the full run's.
        .env_remove("LARGE_NATIVE")
        .env_remove("LARGE_COMPONENT")
        .env("BENCH_DIR", scratch.path().join("run"))
        .env("BENCH_AUTHOR_DIR", author)
        .env("REPO", &repo)
        .stderr(std::fs::File::create(&log).expect("a log file"))
        .output()
        .expect("terrarium-bench runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    println!("{stdout}");
    assert!(
        output.status.success(),
        "terrarium-bench --smoke failed ({}):\n{stderr}\n{stdout}",
        output.status
    );
    // Every section printed its table(s).
    for title in [
        "Provider start",
        "ReadResource round trip",
        "Concurrent calls",
        "terraform plan and apply",
        "Many provider configurations",
        "through terraform (the README's pets provider",
        "An instance pool grown to",
        "Hot reload under terrarium dev",
        "Reload under the terrarium dev process",
        "A provider in Python",
        "A provider in TypeScript",
        "| ListResource, 100 items",
    ] {
        assert!(stdout.contains(title), "no {title:?} in the output:\n{stdout}\n{stderr}");
    }

    // The edit-to-plan reload of Python and TypeScript modules under `terrarium dev` (the
    // development runtimes, built once and cached) is a script of its own.
    let output = Command::new(repo.join("bench/module-reload"))
        .args(["--runs", "1"])
        .env("TERRARIUM_BIN", &host)
        .env("TERRAFORM", repo.join("scripts/terraform"))
        .output()
        .expect("bench/module-reload runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "bench/module-reload --runs 1 failed ({}):\n{stderr}\n{stdout}",
        output.status
    );
    for language in ["python:", "typescript:"] {
        assert!(stdout.contains(language), "no {language:?} in the output:\n{stdout}\n{stderr}");
    }
}

//! Support for Terrarium's end-to-end tests: a real `terraform` driving the `terrarium` host,
//! which serves the example provider components.
//!
//! * [`artifacts`]: finds what the build produced (the `terrarium` binary, the example
//!   components), the terraform to run and the Go null provider 2.1.2. Nothing is built here:
//!   `make test` builds first, and a missing artifact fails with a message saying so.
//! * [`mirror`]: filesystem mirrors with providers installed the way a user would
//!   (`terrarium install`), one per [`Provider`], installed once per test process.
//! * [`workspace`]: a temporary Terraform working directory with its own CLI config, and
//!   terraform runs with captured stdout, stderr and exit code: the public acceptance-test
//!   helper's ([`terrarium_acctest`]), offering this repository's providers.
//! * [`pulumi`]: the real Pulumi CLI in a project of its own (YAML program, local backend,
//!   private `PULUMI_HOME`) with plugins installed by `terrarium install --pulumi`.
//! * [`readme`]: a guest SDK README's install-and-apply section, run as written.
//! * [`registry`]: `terrarium package` and `terrarium registry serve`, and lock-file hashes.
//! * [`json`]: helpers for terraform's `-json` outputs: schemas, diagnostics, comparisons.
//! * [`shown`]: what a person sees: every plan and apply a test runs is also rendered as a
//!   human plan and as `terraform show -json` of the saved plan, and checked.
//!
//! Environment overrides: `TERRAFORM` (any terraform binary instead of `scripts/terraform`),
//! `TERRARIUM_BIN`, `TERRARIUM_COMPONENTS_DIR`, `TERRARIUM_GO_NULL`, `TERRARIUM_ARM64_BIN`,
//! `TERRARIUM_GO_TOOLS` (the directory holding `tofu`, `pulumi` and `pulumi-language-yaml`).

pub mod artifacts;
pub mod mirror;
pub mod pulumi;
pub mod readme;
pub mod registry;
pub mod workspace;

pub use artifacts::Artifacts;
pub use mirror::Provider;
pub use terrarium_acctest::{json, shown};
pub use workspace::{Run, Workspace};

/// The version of the `terrarium:provider` WIT package this checkout's host speaks and its
/// guests are built against (`package terrarium:provider@VERSION;` in wit/types.wit), for
/// tests that rename it inside a component or expect it in a message.
pub fn wit_version() -> &'static str {
    const TYPES: &str = include_str!("../../wit/types.wit");
    TYPES
        .lines()
        .find_map(|line| line.strip_prefix("package terrarium:provider@")?.strip_suffix(';'))
        .unwrap_or("(no package line in wit/types.wit)")
}

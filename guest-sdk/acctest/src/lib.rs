//! Acceptance tests for Terrarium providers: a real `terraform` installs the provider's built
//! component (with `terrarium install`, into a dev mirror of the test's own), applies
//! configurations, imports, plans again and destroys, and the test checks the state and what
//! a person sees, as terraform-plugin-testing does for Go providers.
//!
//! ```no_run
//! use serde_json::json;
//! use terrarium_acctest::{Check, Provider, Step, TestCase};
//!
//! #[test]
//! fn pet_lifecycle() -> anyhow::Result<()> {
//!     TestCase::new(Provider::built(env!("CARGO_PKG_NAME"), "example/pets")?)
//!         .step(Step::config(r#"resource "pets_pet" "rex" { name = "rex" }"#)
//!             .check(Check::attr("pets_pet.rex", "legs", json!(4))))
//!         .run()
//! }
//! # fn main() {}
//! ```
//!
//! What it runs, each from an environment variable or else `PATH` (see [`tools`]):
//! `TERRAFORM` (any terraform from 1.6 on), `TERRARIUM_BIN` (the host), and the component
//! `cargo build --target wasm32-wasip2` left in the target directory (or `TERRARIUM_COMPONENT`).
//! A missing one fails the test with a message naming the variable.
//!
//! Below [`TestCase`] are the parts it is made of, for tests it does not fit: a [`Workspace`]
//! runs terraform commands in a temporary directory with its own CLI config, [`shown`] checks
//! every plan the way a person sees it, and [`json`] reads terraform's `-json` outputs.
//!
//! Errors are `anyhow` errors: they are test failure reports for a person, carrying
//! terraform's output, and tests return them (`-> anyhow::Result<()>`).

pub mod case;
pub mod json;
pub mod provider;
mod run;
pub mod shown;
pub mod tools;
pub mod workspace;

pub use case::{Check, Step, TestCase};
pub use provider::{Provider, Tools};
pub use workspace::{Run, Workspace};

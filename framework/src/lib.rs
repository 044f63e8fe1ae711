//! The framework's rules for Terrarium providers, in one place for every guest language.
//!
//! A provider declares a [`schema::Schema`] whose attributes carry their behaviour: defaults,
//! plan modifiers ([`schema::Attribute::requires_replace`],
//! [`schema::Attribute::use_state_for_unknown`], [`schema::Attribute::unknown_on_update`]),
//! write-only values and [validators](validate). This crate runs the rules those declare:
//!
//! - [`plan`]: the default plan (defaults at depth, unknowns for computed values,
//!   kept state, replacement at depth, set-element correlation);
//! - [`validate`]: the validators and the walk that runs them ([`check::run_validators`]);
//! - [`check`]: the consistency rules Terraform enforces on plans and applies;
//! - [`semantic`]: values that differ in form but mean the same;
//! - [`dynamic`]: lists and maps of blocks holding a `dynamic` value, in Terraform's form
//!   and in the code's;
//! - [`same_value`] and [`canonical_key`]: Terraform's value equality, sets in O(n log n).
//!
//! They are pure functions of the schema and of values. The Rust SDK runs them inside a
//! component; the host runs them natively for components that declare their behaviour as
//! data (see `docs/planning.md`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
pub mod declared;
pub mod dynamic;
mod equal;
pub mod plan;
pub mod schema;
pub mod semantic;
pub mod validate;

pub use equal::{canonical_key, same_value};

//! Write Terraform providers as WebAssembly components for Terrarium.
//!
//! A provider is a type implementing [`Provider`], exported once with [`export!`]. It lists
//! its resource types ([`Resource`]), data sources ([`DataSource`]) and functions
//! ([`Function`]), and any ephemeral resources ([`EphemeralResource`]), list resources
//! ([`ListResource`], for `terraform query`) and actions ([`Action`]). The schema of each
//! is *derived from the struct that holds its values*:
//! one definition, not two. Null and unknown are explicit in the types ([`Attr<T>`],
//! `Option<T>`), so an unknown can never be read as a zero value by accident.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::{AnyResource, Attr, Model, Provider, Resource, Result};
//!
//! #[derive(Default)]
//! struct Demo;
//!
//! impl Provider for Demo {
//!     fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
//!         vec![Box::new(PetResource)]
//!     }
//! }
//!
//! struct PetResource;
//!
//! /// A pet. (Doc comments become the descriptions Terraform shows.)
//! #[derive(Serialize, Deserialize, Model)]
//! struct Pet {
//!     /// The pet's ID.
//!     #[tf(computed, use_state_for_unknown)]
//!     id: Attr<String>,
//!     /// The pet's name; a new name is a new pet.
//!     #[tf(requires_replace, validate = length(1, 32))]
//!     name: String,
//!     /// How many legs, 4 unless configured.
//!     #[tf(default = 4, validate = range(0.0, 8.0))]
//!     legs: Attr<i64>,
//! }
//!
//! impl Resource for PetResource {
//!     const TYPE_NAME: &'static str = "demo_pet";
//!     type State = Pet;
//!
//!     fn create(&self, planned: Pet) -> Result<Pet> {
//!         Ok(Pet { id: Attr::Known(format!("pet-{}", planned.name)), ..planned })
//!     }
//!
//!     fn read(&self, current: Pet) -> Result<Option<Pet>> {
//!         // Nothing outside Terraform's state to look at: keep the state as it is.
//!         Ok(Some(current))
//!     }
//!
//!     fn delete(&self, _prior: Pet) -> Result<()> {
//!         // Nothing outside Terraform's state to delete: Terraform forgets it.
//!         Ok(())
//!     }
//! }
//!
//! let schema = PetResource.schema().to_model();
//! assert!(schema.block.attribute("id").unwrap().computed);
//! assert_eq!(schema.block.description.text, "A pet. (Doc comments become the descriptions Terraform shows.)");
//!
//! // In the provider crate (a `cdylib` built for `wasm32-wasip2`):
//! // terrarium_sdk::export!(Demo);
//! ```
//!
//! # `#[derive(Model)]`
//!
//! Every named field is an attribute (types: see [`typed`]); its doc comment is its
//! description. `#[tf(...)]` on a field says the rest:
//!
//! | Attribute | Meaning |
//! |---|---|
//! | `required`, `optional`, `computed` | Who sets it. Unsaid: a plain `T` is required, `Option<T>` and `Attr<T>` optional. `optional, computed`: the provider sets it when the configuration does not. |
//! | `sensitive`, `write_only`, `deprecated = "msg"` | As in Terraform. |
//! | `requires_replace`, `requires_replace_if = path::to::fn` | A change replaces the resource (at any depth). |
//! | `use_state_for_unknown` | Keep the prior value instead of "known after apply" (at any depth, in lists, sets and maps). |
//! | `unknown_on_update` | Unknown on every update (say, a `last_modified`). |
//! | `default = expr`, `default_with = path::to::fn` | Planned when the configuration is silent (implies `optional, computed`), at any depth. |
//! | `validate = expr` | A validator from [`validate`] (in scope unqualified): `validate = length(1, 64)`; repeatable. |
//! | `nested` | A nested attribute: the field is a `#[derive(Model)]` struct, or a `Vec`, [`Set`] or `BTreeMap<String, _>` of one. |
//! | `block`, `group`, `min_items = n`, `max_items = n` | A nested block (single, list, set, map by the field's type; `group`: never null). |
//! | `block, computed` | A computed nested block (protocol 6.11): the provider sets its contents, the configuration may not; unknown on create and where the configuration changed, kept otherwise. Use a field that can be unknown (`Attr<Vec<T>>`). Terraform before 1.16 sees a computed attribute of the block's type. |
//! | `type = expr` | The Terraform type, where the Rust type does not say it (a [`Value`] holding a `tuple`, say). |
//! | `name = "..."`, `description = "..."`, `markdown`, `skip` | Rename, describe, Markdown description, leave out. |
//! | `required_for_import`, `optional_for_import` | On a field of an identity struct (see [`identity`]): an `import { identity = {...} }` block must / may give it. |
//!
//! On the struct: `#[tf(version = n)]` (the schema version, see [`Resource::upgrade`]; of an
//! identity struct, the identity schema version),
//! `#[tf(deprecated = "...")]`.
//!
//! # What the SDK does for the author
//!
//! - **Planning** (see [`plan`]): unknowns for computed values on create and where the
//!   configuration changed, defaults, `use_state_for_unknown` and replacement, at every
//!   depth of nested attributes and blocks; then [`Resource::plan`] for anything else.
//! - **Consistency**: before a plan or an apply result leaves the guest, the SDK checks what
//!   Terraform will check (configured values kept, known planned values kept by apply, no
//!   unknowns after apply, types) and names the attribute and the method at fault instead
//!   of Terraform's "Provider produced inconsistent result".
//! - **Validation**: each attribute's validators, at every depth, then [`Resource::validate`].
//! - **Sets** in O(n log n): comparison, diffing and matching by canonical keys.
//! - **Protocol features** a resource opts into with a few lines: an [`identity`]
//!   (planned, returned, imported by, upgraded), write-only attributes (`#[tf(write_only)]`:
//!   create and update see the value, plans and states hold null), moves from other types
//!   ([`Resource::MOVES_FROM`]), generated configuration ([`Resource::generate_config`], on
//!   by default), deferral ([`Diagnostics::deferred`]) and destroy plans
//!   ([`Resource::PLAN_DESTROY`]).
//! - **Graceful stop**: on Terraform's first Ctrl-C a running call sees [`stopping()`]
//!   (and [`stop::sleep`] and [`http`] requests end early) and has a grace period to return
//!   the state it reached; see [`stop`].
//! - **Testing**: [`Server`] serves the same calls natively; [`testing`] drives a resource
//!   through plan, apply, read and import the way Terraform does, in-process.
//!
//! Errors are [`Diagnostics`], optionally pointing at an attribute.

// Only the WIT bindings (generated by wit-bindgen) need `unsafe`; they allow it for themselves.
#![deny(unsafe_code)]
#![warn(missing_docs)]

// The generated bindings name this crate by its public name, from inside and outside alike.
extern crate self as terrarium_sdk;

pub mod action;
mod attr;
pub mod data_source;
mod diag;
pub mod ephemeral;
mod export;
pub mod function;
pub mod http;
pub mod identity;
mod identity_schema;
pub mod json;
mod kind;
pub mod list;
pub mod log;
pub mod meta;
mod provider;
pub mod resource;
pub mod rpc;
pub mod schema;
mod server;
pub mod stop;
pub mod testing;
pub mod timeouts;
pub mod typed;
mod value;

pub use action::{Action, AnyAction};
pub use attr::{Attr, NotKnown};
pub use data_source::{AnyDataSource, DataSource};
pub use diag::{Diagnostics, IntoPath, Result, ResultExt};
pub use ephemeral::{AnyEphemeralResource, EphemeralResource};
pub use function::{AnyFunction, Function};
pub use list::{AnyListResource, ListResource};
pub use meta::provider_meta;
pub use provider::Provider;
pub use resource::{
    AnyResource, Plan, PrivateState, Resource, import_composite, import_passthrough,
};
pub use rpc::DeferredReason;
pub use server::Server;
pub use stop::stopping;
/// Derives [`Model`] (the schema) and [`TfType`] (the object type) from a struct: see
/// the crate documentation and [`typed`].
pub use terrarium_sdk_macros::Model;
pub use timeouts::Timeouts;
pub use typed::{BigNumber, Dynamic, Model, Nest, Set, TfType};
pub use value::{
    Error as ValueError, canonical_key, conform, from_value, infer_type, same_value, to_value,
    upgrade_raw,
};

// The framework's rules (planning, validators, consistency checks), shared with the host.
pub use terrarium_framework::{plan, semantic, validate};

/// The data model: values, types, paths and diagnostics as Terraform knows them.
pub use terrarium_model::{
    self as model, AttributePath, Diagnostic, DynamicValue, Number, PathStep, Refinements,
    Severity, Type, Value,
};

/// Exports a [`Provider`] as the component's implementation of the Terrarium world. Call it
/// once, in the provider crate:
///
/// ```ignore
/// terrarium_sdk::export!(MyProvider);                   // made with Default::default()
/// terrarium_sdk::export!(MyProvider, MyProvider::new);  // made by a function
/// ```
///
/// The provider value is made on the first call the host makes and lives as long as the
/// component instance.
#[macro_export]
macro_rules! export {
    ($provider:ty) => {
        $crate::export!($provider, <$provider as ::core::default::Default>::default);
    };
    ($provider:ty, $create:expr) => {
        const _: () = {
            #[doc(hidden)]
            pub struct __TerrariumExport;

            impl $crate::__private::Export for __TerrariumExport {
                type Provider = $provider;
                fn create() -> $provider {
                    ($create)()
                }
            }

            // Only a component has the world's export names; a native build of the provider
            // crate (for its unit tests) links without them.
            #[cfg(target_arch = "wasm32")]
            $crate::__private::bindings::__export_terrarium_provider!(
                __TerrariumExport with_types_in $crate::__private::bindings
            );
        };
    };
}

#[doc(hidden)]
pub mod __private {
    pub use crate::export::Export;
    pub use wit_bindgen;

    /// The guest bindings of `wit/` (world `terrarium-provider`).
    #[allow(missing_docs, clippy::all, unsafe_code)]
    pub mod bindings {
        wit_bindgen::generate!({
            path: "wit",
            world: "terrarium-provider",
            pub_export_macro: true,
            export_macro_name: "__export_terrarium_provider",
            default_bindings_module: "terrarium_sdk::__private::bindings",
            runtime_path: "terrarium_sdk::__private::wit_bindgen::rt",
        });
    }
}

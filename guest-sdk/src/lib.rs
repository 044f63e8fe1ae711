//! Write Terraform providers as WebAssembly components for Terrarium.
//!
//! A provider is a type implementing [`Provider`], exported once with [`export!`]. It lists
//! its resource types ([`Resource`]), data sources ([`DataSource`]) and functions
//! ([`Function`]); each declares a [`Schema`](schema::Schema) with the fluent builder and
//! reads and writes its state as an ordinary serde struct, with [`Attr<T>`] for values that
//! may be null or not yet known. Errors are [`Diagnostics`], optionally pointing at an
//! attribute.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::schema::{Attribute, Schema};
//! use terrarium_sdk::{AnyResource, Attr, Provider, Resource, Result};
//!
//! #[derive(Default)]
//! struct Demo;
//!
//! impl Provider for Demo {
//!     fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
//!         vec![Box::new(Pet)]
//!     }
//! }
//!
//! struct Pet;
//!
//! #[derive(Serialize, Deserialize)]
//! struct PetState {
//!     id: Attr<String>,
//!     name: String,
//! }
//!
//! impl Resource for Pet {
//!     const TYPE_NAME: &'static str = "demo_pet";
//!     type State = PetState;
//!
//!     fn schema(&self) -> Schema {
//!         Schema::new()
//!             .attribute(Attribute::string("id").computed())
//!             .attribute(Attribute::string("name").required().requires_replace())
//!     }
//!
//!     fn create(&self, planned: PetState) -> Result<PetState> {
//!         Ok(PetState { id: Attr::Known(format!("pet-{}", planned.name)), ..planned })
//!     }
//! }
//!
//! // In the provider crate (a `cdylib` built for `wasm32-wasip2`):
//! // terrarium_sdk::export!(Demo);
//! ```
//!
//! The SDK does the protocol's chores: it plans computed attributes as unknown on create,
//! keeps their values on update, reports replace-forcing changes (see [`plan`]), fits what
//! the provider returns to the schema type, refuses unknowns in applied state, upgrades
//! stored state of the current schema version, and routes every call to the right type by
//! name. [`Server`] serves the same calls natively, so providers can be unit-tested without
//! a host.

#![warn(missing_docs)]

// The generated bindings name this crate by its public name, from inside and outside alike.
extern crate self as terrarium_sdk;

mod attr;
pub mod data_source;
mod diag;
mod export;
pub mod function;
pub mod log;
pub mod plan;
mod provider;
pub mod resource;
pub mod rpc;
pub mod schema;
mod server;
mod value;

pub use attr::{Attr, NotKnown};
pub use data_source::{AnyDataSource, DataSource};
pub use diag::{Diagnostics, IntoPath, Result, ResultExt};
pub use function::{AnyFunction, Function};
pub use provider::Provider;
pub use resource::{AnyResource, Plan, Resource, import_passthrough};
pub use server::Server;
pub use value::{Error as ValueError, conform, from_value, infer_type, same_value, to_value, upgrade_raw};

/// The data model: values, types, paths and diagnostics as Terraform knows them.
pub use terrarium_model::{
    self as model, AttributePath, Diagnostic, DynamicValue, Number, PathStep, Refinements, Severity, Type, Value,
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
    #[allow(missing_docs, clippy::all)]
    pub mod bindings {
        wit_bindgen::generate!({
            path: "../wit",
            world: "terrarium-provider",
            pub_export_macro: true,
            export_macro_name: "__export_terrarium_provider",
            default_bindings_module: "terrarium_sdk::__private::bindings",
            runtime_path: "terrarium_sdk::__private::wit_bindgen::rt",
        });
    }
}

//! Resource identity (Terraform 1.12+): the small, immutable data that names the remote
//! object a resource manages, stored beside its state. Terraform uses it to import
//! (`import { to = ...  identity = { ... } }`), to list (`terraform query`) and to check
//! that a refresh still talks about the same object.
//!
//! A resource declares its identity with a second trait, [`ResourceIdentity`], whose
//! `Identity` is a `#[derive(Model)]` struct, and points [`Resource::identity`] at it:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::identity::{AnyIdentity, ResourceIdentity};
//! use terrarium_sdk::{Attr, Model, Resource, Result, Value};
//!
//! #[derive(Serialize, Deserialize, Model)]
//! struct Server {
//!     #[tf(computed)]
//!     id: Attr<String>,
//!     name: String,
//! }
//!
//! /// The identity of a server. (`#[tf(version = n)]` on the struct: the identity
//! /// schema's version, see [`ResourceIdentity::upgrade_identity`].)
//! #[derive(Serialize, Deserialize, Model)]
//! struct ServerIdentity {
//!     /// The server's ID.
//!     #[tf(required_for_import)]
//!     id: String,
//! }
//!
//! struct ServerResource;
//!
//! impl Resource for ServerResource {
//!     const TYPE_NAME: &'static str = "demo_server";
//!     type State = Server;
//!     fn create(&self, planned: Server) -> Result<Server> {
//!         Ok(Server { id: Attr::Known(format!("srv-{}", planned.name)), ..planned })
//!     }
//!     fn identity(&self) -> Option<&dyn AnyIdentity<Server>> {
//!         Some(self)
//!     }
//! }
//!
//! impl ResourceIdentity for ServerResource {
//!     type Identity = ServerIdentity;
//!     // `None` while the ID is unknown: a create's plan then has an unknown identity.
//!     fn identity_of(&self, state: &Server) -> Option<ServerIdentity> {
//!         state.id.known().map(|id| ServerIdentity { id: id.clone() })
//!     }
//!     fn import_by_identity(&self, identity: ServerIdentity) -> Result<Server> {
//!         Ok(Server { id: Attr::Known(identity.id.clone()), name: identity.id })
//!     }
//! }
//! ```
//!
//! The SDK then returns the identity from read, plan, apply, import and move, keeps it
//! through updates, imports by identity, declares the identity schema, and upgrades stored
//! identities of older versions through [`ResourceIdentity::upgrade_identity`].

use serde::Serialize;
use serde::de::DeserializeOwned;
use terrarium_model::Value;

use crate::diag::{Diagnostics, Result};
pub use crate::identity_schema::{AnyIdentity, IdentityAttribute, IdentitySchema};
use crate::resource::Resource;
use crate::typed::Model;
use crate::value::{conform, from_value, to_value};

/// A resource type's identity, typed: implement it beside [`Resource`] and return
/// `Some(self)` from [`Resource::identity`]. See the [module documentation](self).
pub trait ResourceIdentity: Resource {
    /// The identity, a `#[derive(Model)]` struct of plain attributes (no maps, sets or
    /// objects).
    type Identity: Serialize + DeserializeOwned + Model;

    /// The identity schema; by default the one derived from [`Identity`](Self::Identity).
    fn identity_schema(&self) -> IdentitySchema {
        IdentitySchema::of::<Self::Identity>()
    }

    /// The identity of the object `state` describes. `None` while the state does not
    /// determine it yet (the plan of a create whose ID the remote system assigns): the plan
    /// then says "known after apply". After apply, read or import it must be `Some`.
    fn identity_of(&self, state: &Self::State) -> Option<Self::Identity>;

    /// Builds a state from an identity (`import { identity = {...} }`); Terraform then
    /// calls [`Resource::read`] with it. Attributes not required for import may be null
    /// here. By default import by identity is refused.
    fn import_by_identity(&self, identity: Self::Identity) -> Result<Self::State> {
        let _ = identity;
        Err(Diagnostics::error(
            "Import by identity not supported",
            format!("Resources of type {} cannot be imported by identity.", Self::TYPE_NAME),
        ))
    }

    /// Turns an identity stored with an older identity schema version into the current
    /// one. `raw` is the stored JSON, decoded without a schema (see
    /// [`Resource::upgrade`]); the result is fitted to the current identity type. Only
    /// called for versions lower than the current one.
    fn upgrade_identity(&self, version: i64, raw: Value) -> Result<Value> {
        let _ = raw;
        Err(Diagnostics::error(
            "Cannot upgrade identity",
            format!(
                "The provider cannot upgrade {} identities from identity schema version {version}.",
                Self::TYPE_NAME
            ),
        ))
    }
}

impl<R: ResourceIdentity> AnyIdentity<R::State> for R {
    fn schema(&self) -> IdentitySchema {
        ResourceIdentity::identity_schema(self)
    }

    fn identity_value(&self, state: &R::State) -> Result<Option<Value>> {
        let Some(identity) = self.identity_of(state) else { return Ok(None) };
        let ty = ResourceIdentity::identity_schema(self).implied_type();
        Ok(Some(conform(to_value(&identity)?, &ty)?))
    }

    fn state_from_identity(&self, identity: &Value) -> Result<R::State> {
        let identity = from_value(identity)?;
        self.import_by_identity(identity)
    }

    fn upgrade_raw_identity(&self, version: i64, raw: Value) -> Result<Value> {
        self.upgrade_identity(version, raw)
    }
}

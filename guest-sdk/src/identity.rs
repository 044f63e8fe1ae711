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
//!
//!     fn read(&self, current: Server) -> Result<Option<Server>> {
//!         // Nothing outside Terraform's state to look at: keep the state as it is.
//!         Ok(Some(current))
//!     }
//!
//!     fn delete(&self, _prior: Server) -> Result<()> {
//!         // Nothing outside Terraform's state to delete: Terraform forgets it.
//!         Ok(())
//!     }
//! }
//!
//! impl ResourceIdentity for ServerResource {
//!     type Identity = ServerIdentity;
//!     // The identity is the state's `id` attribute: read just that. While it is unknown
//!     // (the plan of a create) the planned identity is null ("known after apply").
//!     type Source = ServerIdentity;
//!     fn identity_of(&self, source: ServerIdentity) -> Option<ServerIdentity> {
//!         Some(source)
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
//!
//! A planned identity is wholly known or null, never unknown: Terraform cannot show a plan
//! whose identity is unknown. The SDK reads only the [`Source`](ResourceIdentity::Source)
//! attributes from the planned state, so the identity is known as soon as they are, whatever
//! else is unknown; while one of them is unknown or null the planned identity is null.

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

    /// The state attributes the identity is made of: a struct whose fields are named like
    /// those attributes (often [`Identity`](Self::Identity) itself, when its attributes
    /// are named like the state's; [`State`](Resource::State) when the identity needs it
    /// all). Only these attributes are read, so an unknown elsewhere in a planned state does
    /// not hide the identity. A plain field that is unknown or null in the plan makes the
    /// planned identity null (known after apply).
    type Source: DeserializeOwned;

    /// The identity of the object whose state's attributes are `source`. `None` while they
    /// do not determine it yet (an [`Attr`](crate::Attr) field still unknown): the planned
    /// identity is then null. After apply, read or import it must be `Some`.
    fn identity_of(&self, source: Self::Source) -> Option<Self::Identity>;

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
        let source = from_value(&to_value(state)?).map_err(|e| source_error(R::TYPE_NAME, &e))?;
        identity_of_source(self, source)
    }

    fn known_identity_value(&self, state: &Value) -> Result<Option<Value>> {
        let source = match from_value(state) {
            Ok(source) => source,
            Err(e) if e.is_absent() => return Ok(None),
            Err(e) => return Err(source_error(R::TYPE_NAME, &e)),
        };
        Ok(identity_of_source(self, source)?.filter(|v| !v.contains_unknown()))
    }

    fn state_from_identity(&self, identity: &Value) -> Result<R::State> {
        let identity = from_value(identity)?;
        self.import_by_identity(identity)
    }

    fn upgrade_raw_identity(&self, version: i64, raw: Value) -> Result<Value> {
        self.upgrade_identity(version, raw)
    }
}

/// The identity made of `source`, as a value of the identity type.
fn identity_of_source<R: ResourceIdentity>(r: &R, source: R::Source) -> Result<Option<Value>> {
    let Some(identity) = r.identity_of(source) else { return Ok(None) };
    let ty = ResourceIdentity::identity_schema(r).implied_type();
    Ok(Some(conform(to_value(&identity)?, &ty)?))
}

/// A state whose attributes do not fit the identity's source struct: the author's mistake.
fn source_error(type_name: &str, e: &crate::value::Error) -> Diagnostics {
    Diagnostics::error(
        "Invalid identity source",
        format!(
            "The state of {type_name} does not fit its ResourceIdentity::Source: {e}. This is a bug in the provider."
        ),
    )
}

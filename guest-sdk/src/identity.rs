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
use terrarium_model::{AttributePath, Diagnostic, Type, Value};

use crate::diag::{Diagnostics, Result};
use crate::plan::first_unknown;
use crate::resource::Resource;
use crate::schema::Attribute;
use crate::typed::Model;
use crate::value::{conform, from_value, to_value, upgrade_raw};

/// The identity schema of a resource type: a version and flat attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct IdentitySchema {
    /// Bumped when stored identities must be upgraded.
    pub version: i64,
    /// The identity's attributes.
    pub attributes: Vec<IdentityAttribute>,
}

/// One attribute of an identity.
#[derive(Clone, Debug, PartialEq)]
pub struct IdentityAttribute {
    /// Its name.
    pub name: String,
    /// Its type: not a map, set or object (Terraform refuses those).
    pub ty: Type,
    /// An `import { identity = {...} }` block must give it.
    pub required_for_import: bool,
    /// An `import { identity = {...} }` block may give it.
    pub optional_for_import: bool,
    /// What it is.
    pub description: String,
}

impl IdentitySchema {
    /// The schema of a `#[derive(Model)]` identity struct: its fields, with
    /// `#[tf(required_for_import)]` / `#[tf(optional_for_import)]`, and its
    /// `#[tf(version = n)]`.
    pub fn of<T: Model>() -> Self {
        IdentitySchema {
            version: T::schema().schema_version(),
            attributes: T::attributes().iter().map(IdentityAttribute::from_attribute).collect(),
        }
    }

    /// The type of identity objects.
    pub fn implied_type(&self) -> Type {
        Type::object(self.attributes.iter().map(|a| (a.name.clone(), a.ty.clone())))
    }

    /// An identity with every attribute unknown: the planned identity of an object that
    /// does not exist yet.
    pub fn unknown(&self) -> Value {
        Value::Object(self.attributes.iter().map(|a| (a.name.clone(), Value::unknown())).collect())
    }

    /// Mistakes Terraform would reject, one error diagnostic each.
    pub fn check(&self) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        if self.version < 0 {
            problems.push(Diagnostic::error(
                "Invalid identity schema",
                format!("The identity schema version is {}; versions start at 0.", self.version),
            ));
        }
        if self.attributes.is_empty() {
            problems.push(Diagnostic::error(
                "Invalid identity schema",
                "An identity needs at least one attribute.",
            ));
        }
        for a in &self.attributes {
            if contains_map_set_or_object(&a.ty) {
                problems.push(Diagnostic::error(
                    "Invalid identity schema",
                    format!(
                        "Identity attribute {:?} has type {}; identity attributes may not be (or contain) maps, sets or objects.",
                        a.name,
                        a.ty.to_json()
                    ),
                ));
            }
            if a.required_for_import && a.optional_for_import {
                problems.push(Diagnostic::error(
                    "Invalid identity schema",
                    format!("Identity attribute {:?} is both required_for_import and optional_for_import.", a.name),
                ));
            }
        }
        problems
    }
}

fn contains_map_set_or_object(ty: &Type) -> bool {
    match ty {
        Type::Map(_) | Type::Set(_) | Type::Object(_) => true,
        Type::List(inner) => contains_map_set_or_object(inner),
        Type::Tuple(items) => items.iter().any(contains_map_set_or_object),
        _ => false,
    }
}

impl IdentityAttribute {
    fn from_attribute(a: &Attribute) -> Self {
        IdentityAttribute {
            name: a.name().to_string(),
            ty: a.ty(),
            required_for_import: a.is_required_for_import(),
            optional_for_import: a.is_optional_for_import(),
            description: a.description_text().to_string(),
        }
    }
}

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

/// The object-safe form of [`ResourceIdentity`] that [`Resource::identity`] returns; every
/// `ResourceIdentity` is one.
pub trait AnyIdentity<S> {
    /// The identity schema.
    fn schema(&self) -> IdentitySchema;
    /// The identity of `state` as a value of the identity type; `Ok(None)` while unknown.
    fn identity_value(&self, state: &S) -> Result<Option<Value>>;
    /// Builds a state from an identity value.
    fn state_from_identity(&self, identity: &Value) -> Result<S>;
    /// Upgrades a raw stored identity of `version` (lower than the current one).
    fn upgrade_raw_identity(&self, version: i64, raw: Value) -> Result<Value>;
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

/// The identity of a state that must be wholly known (after apply, read, import, move):
/// `None` for a resource without identity.
pub(crate) fn known_identity<S>(
    identity: Option<&dyn AnyIdentity<S>>,
    state: &S,
    type_name: &str,
    operation: &str,
) -> Result<Option<Value>> {
    let Some(identity) = identity else { return Ok(None) };
    match identity.identity_value(state)? {
        Some(value) => {
            if let Some(path) = first_unknown(&value, &AttributePath::root()) {
                return Err(Diagnostics::error(
                    "Provider returned an unknown identity",
                    format!(
                        "After {operation}, the identity of {type_name} has {path} unknown. This is a bug in the provider."
                    ),
                ));
            }
            Ok(Some(value))
        }
        None => Err(Diagnostics::error(
            "Provider returned no identity",
            format!(
                "After {operation}, ResourceIdentity::identity_of of {type_name} returned None: the identity must be known once the object exists. This is a bug in the provider."
            ),
        )),
    }
}

/// Fits a raw stored identity (of the current version, or upgraded) to the identity type.
pub(crate) fn fit_raw_identity(raw: Value, schema: &IdentitySchema) -> Result<Value> {
    Ok(upgrade_raw(raw, &schema.implied_type())?)
}

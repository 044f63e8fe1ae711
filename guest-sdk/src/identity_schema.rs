//! What the SDK needs of a resource type's identity without knowing the resource: the
//! identity schema, the object-safe [`AnyIdentity`] a resource returns from
//! [`Resource::identity`](crate::Resource::identity), and the checks on the identities it
//! produces. All of it is public as [`crate::identity`]; the typed trait an author
//! implements, [`ResourceIdentity`](crate::identity::ResourceIdentity), is there.

use terrarium_model::{AttributePath, Diagnostic, Type, Value};

use crate::diag::{Diagnostics, Result};
use crate::schema::Attribute;
use crate::typed::Model;
use crate::value::upgrade_raw;
use terrarium_framework::plan::first_unknown;

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

/// The object-safe form of [`ResourceIdentity`](crate::identity::ResourceIdentity) that
/// [`Resource::identity`](crate::Resource::identity) returns; every
/// `ResourceIdentity` is one.
pub trait AnyIdentity<S> {
    /// The identity schema.
    fn schema(&self) -> IdentitySchema;
    /// The identity of `state` as a value of the identity type; `Ok(None)` while unknown.
    fn identity_value(&self, state: &S) -> Result<Option<Value>>;
    /// The identity of a state that may hold unknowns (a plan, an import): wholly known, or
    /// `Ok(None)` while the attributes it is made of are not all known. An error only when
    /// they do not fit the identity's [`Source`](crate::identity::ResourceIdentity::Source).
    fn known_identity_value(&self, state: &Value) -> Result<Option<Value>>;
    /// Builds a state from an identity value.
    fn state_from_identity(&self, identity: &Value) -> Result<S>;
    /// Upgrades a raw stored identity of `version` (lower than the current one).
    fn upgrade_raw_identity(&self, version: i64, raw: Value) -> Result<Value>;
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

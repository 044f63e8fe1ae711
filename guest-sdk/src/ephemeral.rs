//! Ephemeral resources: values Terraform uses while it runs and never stores.
//!
//! [`AnyEphemeralResource`] is the object-safe form a provider lists them in (see
//! [`Provider::ephemeral_resources`](crate::Provider::ephemeral_resources)).

use crate::schema::Schema;

/// An ephemeral resource type as the provider lists it.
pub trait AnyEphemeralResource {
    /// The type name as written in configurations: `"<provider>_<name>"`.
    fn type_name(&self) -> &str;
    /// The schema of its configuration and result.
    fn ephemeral_resource_schema(&self) -> Schema;
}

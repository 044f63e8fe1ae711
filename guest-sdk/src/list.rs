//! List resources: `terraform query` lists existing objects of a managed resource type.
//!
//! [`AnyListResource`] is the object-safe form a provider lists them in (see
//! [`Provider::list_resources`](crate::Provider::list_resources)).

use crate::schema::Schema;

/// A list resource as the provider lists it. Its type name is that of the managed resource
/// type it lists, which must have an identity schema.
pub trait AnyListResource {
    /// The managed resource type name it lists.
    fn type_name(&self) -> &str;
    /// The schema of the list block's `config` contents.
    fn list_resource_schema(&self) -> Schema;
}

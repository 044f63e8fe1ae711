//! Actions: operations a configuration invokes (`action` blocks), outside the resource
//! lifecycle.
//!
//! [`AnyAction`] is the object-safe form a provider lists them in (see
//! [`Provider::actions`](crate::Provider::actions)).

use crate::schema::Schema;

/// An action type as the provider lists it.
pub trait AnyAction {
    /// The action type name as written in configurations: `"<provider>_<name>"`.
    fn type_name(&self) -> &str;
    /// The schema of its configuration.
    fn action_schema(&self) -> Schema;
}

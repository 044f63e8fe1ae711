//! A fluent schema builder.
//!
//! ```
//! use terrarium_sdk::schema::{Attribute, Block, NestedBlock, Schema};
//! use terrarium_sdk::Type;
//!
//! let schema = Schema::new()
//!     .description("A server.")
//!     .attribute(Attribute::string("id").computed().description("The server's ID."))
//!     .attribute(Attribute::string("name").required().requires_replace())
//!     .attribute(Attribute::new("tags", Type::map(Type::String)).optional())
//!     .block(NestedBlock::list("disk", Block::new().attribute(Attribute::number("size").required())).max_items(4));
//! assert_eq!(schema.to_model().block.attributes.len(), 3);
//! ```
//!
//! Besides what Terraform sees, attributes carry plan behaviour the SDK applies by default
//! ([`Attribute::requires_replace`], [`Attribute::unknown_on_update`]); see
//! [`crate::resource`]. The types are the framework's (`terrarium_framework::schema`), which
//! the host shares.

pub use terrarium_framework::schema::*;

/// [`Attribute::default`] from any serializable Rust value.
pub trait DefaultOf {
    /// Like [`default`](Attribute::default), from any serializable Rust value (`3`, `"x"`,
    /// `vec!["a"]`), fitted to the attribute's type. A value that does not fit is reported
    /// by [`Schema::check`].
    fn default_of<T: serde::Serialize + ?Sized>(self, value: &T) -> Self;
}

impl DefaultOf for Attribute {
    fn default_of<T: serde::Serialize + ?Sized>(self, value: &T) -> Self {
        let ty = self.ty();
        let fitted = crate::value::to_value(value)
            .and_then(|v| crate::value::conform(v, &ty))
            .map_err(|e| e.to_string());
        self.default_converted(fitted)
    }
}

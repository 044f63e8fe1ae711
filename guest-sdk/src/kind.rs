//! What every kind of provider type (managed resource, data source, ephemeral resource, list
//! resource, action) shares: validating a configuration, finding a type by name, and
//! fitting a state the provider returned to its schema.

use serde::Serialize;
use terrarium_model::{AttributePath, Diagnostic, Type, Value};

use crate::diag::{Diagnostics, Result};
use crate::schema::Schema;
use crate::value::{conform, to_value};
use terrarium_framework::check::run_validators;
use terrarium_framework::plan::{Shape, first_unknown};

/// A `Validate*Config` answer for any kind of type: every attribute's validators over the
/// configuration, then the type's own checks, `own`; the problems of both, in that order.
pub(crate) fn validate_config(
    schema: &Schema,
    config: &Value,
    own: impl FnOnce() -> Result<()>,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    run_validators(Shape::of(schema), config, &AttributePath::root(), &mut problems);
    problems.extend(own().err().map(Diagnostics::into_vec).unwrap_or_default());
    problems
}

/// The type named `type_name` among a provider's types of one kind (`all`), or the diagnostic
/// that names the ones it has.
pub(crate) fn find_type<'a, T: ?Sized>(
    kind: &str,
    all: &'a [Box<T>],
    type_name: &str,
    name_of: impl Fn(&T) -> &str,
) -> std::result::Result<&'a T, Diagnostic> {
    match all.iter().map(Box::as_ref).find(|t| name_of(t) == type_name) {
        Some(t) => Ok(t),
        None => {
            let known: Vec<&str> = all.iter().map(|t| name_of(t)).collect();
            Err(unknown_type(kind, type_name, &known))
        }
    }
}

/// Serializes a state the provider returned, fits it to the schema type, and refuses
/// unknowns: what Terraform stores must be wholly known.
pub(crate) fn known_state<S: Serialize>(state: &S, ty: &Type, operation: &str) -> Result<Value> {
    let value = conform(to_value(state)?, ty)?;
    if let Some(path) = first_unknown(&value, &AttributePath::root()) {
        return Err(Diagnostics::from(
            Diagnostic::error(
                "Provider returned an unknown value",
                format!("After {operation}, {path} is still unknown; the provider must set every computed attribute. This is a bug in the provider."),
            )
            .at(path),
        ));
    }
    Ok(value)
}

/// The diagnostic for a type name the provider does not have: it names the ones it has.
pub(crate) fn unknown_type(kind: &str, name: &str, known: &[&str]) -> Diagnostic {
    Diagnostic::error(
        format!("Unknown {kind}"),
        format!("This provider has no {kind} {name:?}. It has: {}.", list_or_none(known)),
    )
}

/// Names for a message: comma-separated, or "none".
pub(crate) fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() { "none".to_string() } else { names.join(", ") }
}

//! [`Plan`]: what [`Resource::plan`](crate::Resource::plan) sees and changes, after the
//! default plan (see [`crate::plan`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use terrarium_model::{AttributePath, Type, Value};

use super::PrivateState;
use crate::diag::{Diagnostics, Result};
use crate::rpc::ClientCapabilities;
use crate::value::{conform, from_value, to_value};

/// A plan in progress, handed to [`Resource::plan`](crate::Resource::plan) after the default
/// plan has been made.
///
/// Change [`planned_state`](Self::planned_state) (raw, or typed with
/// [`set_planned`](Self::set_planned)) and [`requires_replace`](Self::requires_replace) as
/// needed.
#[derive(Clone, Debug)]
pub struct Plan {
    pub(super) prior_state: Value,
    pub(super) proposed_new_state: Value,
    pub(super) config: Value,
    pub(super) ty: Type,
    pub(super) client: ClientCapabilities,
    /// What Terraform will show and apply.
    pub planned_state: Value,
    /// Attributes whose change replaces the resource; empty for an update in place.
    pub requires_replace: Vec<AttributePath>,
    /// Provider-private data: what the plan stores here reaches apply.
    pub private: PrivateState,
}

impl Plan {
    /// Null when the resource is being created.
    pub fn prior_state(&self) -> &Value {
        &self.prior_state
    }

    /// What Terraform proposed: the configuration with prior values kept for computed
    /// attributes it leaves unset.
    pub fn proposed_new_state(&self) -> &Value {
        &self.proposed_new_state
    }

    /// The configuration (may contain unknown values).
    pub fn config(&self) -> &Value {
        &self.config
    }

    /// Whether Terraform accepts a deferred plan ([`Diagnostics::deferred`]) this time.
    pub fn deferral_allowed(&self) -> bool {
        self.client.deferral_allowed
    }

    /// Whether the resource is being created (there is no prior state).
    pub fn is_create(&self) -> bool {
        self.prior_state.is_null()
    }

    /// Whether the plan replaces the resource (something in [`requires_replace`](Self::requires_replace) changed).
    pub fn is_replace(&self) -> bool {
        !self.requires_replace.is_empty()
    }

    /// Reads the planned state into the resource's state type.
    pub fn planned<T: DeserializeOwned>(&self) -> Result<T> {
        Ok(from_value(&self.planned_state)?)
    }

    /// Reads the prior state (null on create: read it into an `Option`).
    pub fn prior<T: DeserializeOwned>(&self) -> Result<T> {
        Ok(from_value(&self.prior_state)?)
    }

    /// Replaces the planned state with `state`, fitted to the schema.
    pub fn set_planned<T: Serialize>(&mut self, state: &T) -> Result<()> {
        self.planned_state = conform(to_value(state)?, &self.ty)?;
        Ok(())
    }

    /// The planned value of a top-level attribute (null when there is no such attribute).
    pub fn attribute(&self, name: &str) -> &Value {
        self.planned_state.attr(name).unwrap_or(&Value::Null)
    }

    /// Sets the planned value of a top-level attribute.
    pub fn set_attribute(&mut self, name: &str, value: Value) -> Result<()> {
        match &mut self.planned_state {
            Value::Object(attrs) if attrs.contains_key(name) => {
                attrs.insert(name.to_string(), value);
                Ok(())
            }
            _ => Err(Diagnostics::error(
                "Invalid plan",
                format!(
                    "The provider tried to plan attribute {name:?}, which the schema does not have."
                ),
            )),
        }
    }

    /// Whether a top-level attribute's planned value differs from its prior value.
    pub fn changed(&self, name: &str) -> bool {
        let prior = self.prior_state.attr(name).unwrap_or(&Value::Null);
        !crate::value::same_value(prior, self.attribute(name))
    }
}

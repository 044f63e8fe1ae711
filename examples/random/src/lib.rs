//! `terrarium/random`: random values for Terraform configurations, in the spirit of
//! `hashicorp/random`, written on the Terrarium SDK. It is the example to read for how a
//! provider is put together; `examples/null` is the smallest one.
//!
//! ```hcl
//! resource "random_password" "db" {
//!   length  = 24
//!   keepers = { rotation = "2025-q1" } # a new value replaces the password
//! }
//!
//! resource "random_integer" "port" {
//!   min     = 8000
//!   max     = 8999
//!   exclude = [8080, 8443]            # a set of numbers
//! }
//!
//! resource "random_choice" "region" {
//!   option {                          # a nested block, once per option
//!     value  = "eu-west-1"
//!     weight = 3
//!   }
//!   option {
//!     value = "us-east-1"
//!   }
//! }
//!
//! data "random_shuffle" "az" {
//!   input = ["a", "b", "c"]
//!   seed  = "prod"                    # deterministic, as data sources must be (see `shuffle`)
//! }
//!
//! output "id" {
//!   value = provider::random::uuid_v5("dns", "example.com")
//! }
//! ```
//!
//! | Kind        | Name              | What it shows                                                  |
//! |-------------|-------------------|----------------------------------------------------------------|
//! | resource    | `random_string`   | validation with attribute paths, defaults in the plan          |
//! | resource    | `random_password` | the same, with a sensitive result; takes over a                |
//! |             |                   | `random_string` named in a `moved` block (MoveResourceState)   |
//! | resource    | `random_integer`  | numbers, a set, import, a plan hook choosing update or replace |
//! | resource    | `random_uuid`     | the smallest resource                                          |
//! | resource    | `random_choice`   | a nested block, errors inside it                               |
//! | data source | `random_shuffle`  | a deterministic (seeded) data source                           |
//! | ephemeral   | `random_password` | a value never stored: drawn on open, gone when Terraform ends  |
//! | function    | `uuid_v5`         | a provider function, with an error naming its argument         |
//!
//! Every resource has `keepers`: a map that replaces the resource (and so draws a new value)
//! whenever it changes. Values are drawn once, at create, and kept in the state: reads and
//! plans never draw again.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use terrarium_sdk::{
    AnyDataSource, AnyEphemeralResource, AnyFunction, AnyResource, Provider, Result, Value,
    from_value,
};

pub mod choice;
pub mod ephemeral;
pub mod integer;
pub mod rng;
pub mod shuffle;
pub mod string;
pub mod uuids;

pub use choice::RandomChoice;
pub use ephemeral::EphemeralPassword;
pub use integer::RandomInteger;
pub use shuffle::RandomShuffle;
pub use string::{RandomPassword, RandomString};
pub use uuids::{RandomUuid, UuidV5};

/// The provider. It has no configuration: `provider "random" {}` is empty.
#[derive(Default)]
pub struct RandomProvider;

impl Provider for RandomProvider {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![
            Box::new(RandomString),
            Box::new(RandomPassword),
            Box::new(RandomInteger),
            Box::new(RandomUuid),
            Box::new(RandomChoice),
        ]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(RandomShuffle)]
    }

    fn functions(&self) -> Vec<Box<dyn AnyFunction + '_>> {
        vec![Box::new(UuidV5)]
    }

    fn ephemeral_resources(&self) -> Vec<Box<dyn AnyEphemeralResource + '_>> {
        vec![Box::new(EphemeralPassword)]
    }
}

// Makes `RandomProvider` the component's implementation of the Terrarium world.
terrarium_sdk::export!(RandomProvider);

/// `keepers` in a state: a map of strings (an element may be null: `{ a = null }`). Every
/// resource has the field, marked `#[tf(requires_replace)]`: the whole point of keepers is
/// that any change replaces the resource, so its value is drawn again.
pub type Keepers = Option<BTreeMap<String, Option<String>>>;

/// Reads a configuration or a plan, which may not be wholly known yet, into `T`: a struct of
/// [`Attr`](terrarium_sdk::Attr) fields.
///
/// Validation sees configurations before everything in them is known, and an attribute can
/// be partly known (a set with one unknown element). Here any attribute that is not wholly
/// known reads as `Attr::Unknown`, so the checks simply skip what they cannot see yet; apply
/// runs them again on known values.
fn read_partial<T: DeserializeOwned>(value: &Value) -> Result<T> {
    let mut value = value.clone();
    if let Value::Object(attributes) = &mut value {
        for attribute in attributes.values_mut().filter(|v| v.contains_unknown()) {
            *attribute = Value::unknown();
        }
    }
    Ok(from_value(&value)?)
}

/// The provider driven natively, through the SDK's [`Server`](terrarium_sdk::Server), as the
/// host drives the component.
#[cfg(test)]
mod tests {
    use terrarium_sdk::rpc::PlanRequest;
    use terrarium_sdk::{Attr, AttributePath, Resource, Server, conform, to_value};

    use super::*;
    use crate::integer::IntegerState;

    #[test]
    fn the_schema_has_no_mistakes() {
        let (_, diagnostics) = Server::new(RandomProvider).get_schema();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }

    /// A `random_integer` state (or, with `result` null, a configuration).
    fn integer(min: i64, max: i64, result: Attr<i64>) -> Value {
        let id = result.clone().map(|r| r.to_string());
        let state = IntegerState { id, keepers: None, min, max, exclude: None, seed: None, result };
        conform(to_value(&state).unwrap(), &RandomInteger.schema().implied_type()).unwrap()
    }

    #[test]
    fn a_range_change_keeps_the_number_while_it_is_allowed() {
        let server = Server::new(RandomProvider);
        let prior = integer(1, 10, Attr::Known(5));
        let plan = |min, max| {
            // What Terraform proposes: the configuration, with the prior computed values.
            let proposed = integer(min, max, Attr::Known(5));
            server.plan_resource_change(PlanRequest {
                type_name: "random_integer".into(),
                prior_state: prior.clone(),
                proposed_new_state: proposed,
                config: integer(min, max, Attr::Null),
                prior_private: Vec::new(),
                client: Default::default(),
                prior_identity: None,
            })
        };

        let wider = plan(0, 20);
        assert!(wider.diagnostics.is_empty() && wider.requires_replace.is_empty(), "{wider:?}");
        assert_eq!(wider.planned_state.attr("result"), Some(&Value::Number(5.into())));

        let excluding = plan(6, 10);
        assert!(excluding.diagnostics.is_empty(), "{excluding:?}");
        assert_eq!(excluding.requires_replace, [AttributePath::attribute("min")]);
        assert!(excluding.planned_state.attr("result").is_some_and(Value::is_unknown));
    }

    /// `moved { from = random_string.x  to = random_password.x }`: the string becomes a
    /// password without being drawn again.
    #[test]
    fn a_random_string_moves_into_a_random_password() {
        use serde_json::json;
        use terrarium_sdk::testing::Harness;

        let h = Harness::new(RandomProvider).address("registry.terraform.io/terrarium/random");
        let (schema, _) = h.server().get_schema();
        assert!(schema.capabilities.move_resource_state);

        let string = h.create("random_string", json!({"length": 12, "special": false})).unwrap();
        let moved = h.move_state("random_string", &string.state, "random_password").unwrap();
        assert_eq!(moved.state.attr("result"), string.state.attr("result"), "the same value, kept");
        assert_eq!(moved.state.attr("length"), Some(&Value::Number(12.into())));
        assert_eq!(moved.state.attr("special"), Some(&Value::Bool(false)));
        assert_eq!(
            moved.state.attr("id"),
            Some(&Value::string("none")),
            "a password's id never shows it"
        );

        // The configuration that wrote the string now plans no change for the password.
        let config = h.config("random_password", json!({"length": 12, "special": false})).unwrap();
        let plan = h.plan("random_password", &moved.state, &config).unwrap();
        assert!(plan.requires_replace.is_empty(), "{:?}", plan.requires_replace);
        assert_eq!(plan.planned_state, moved.state);

        let refused = h.move_state("random_integer", &string.state, "random_password").unwrap_err();
        assert!(refused.mentions("accepts moves from: random_string"), "{refused}");
        let elsewhere = Harness::new(RandomProvider).address("registry.terraform.io/acme/strings");
        let refused =
            elsewhere.move_state("random_string", &string.state, "random_password").unwrap_err();
        assert!(refused.mentions("not of registry.terraform.io/acme/strings"), "{refused}");
    }
}

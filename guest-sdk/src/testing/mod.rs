//! Unit tests for providers, in-process and native: no Wasm, no terraform.
//!
//! [`Harness`] drives a provider's resources the way Terraform does: validate, plan (with
//! Terraform's proposed new state), apply, read, import and destroy, each through the same
//! [`Server`] calls the component answers, so the SDK's planning and consistency checks run
//! too. Configurations are written as JSON and fitted to the schema.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//! use terrarium_sdk::testing::Harness;
//! use terrarium_sdk::{AnyResource, Attr, Model, Provider, Resource, Result};
//!
//! #[derive(Default)]
//! struct Demo;
//! impl Provider for Demo {
//!     fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
//!         vec![Box::new(PetResource)]
//!     }
//! }
//! struct PetResource;
//! #[derive(Serialize, Deserialize, Model)]
//! struct Pet {
//!     #[tf(computed, use_state_for_unknown)]
//!     id: Attr<String>,
//!     #[tf(requires_replace)]
//!     name: String,
//!     #[tf(default = 4)]
//!     legs: Attr<i64>,
//! }
//! impl Resource for PetResource {
//!     const TYPE_NAME: &'static str = "demo_pet";
//!     type State = Pet;
//!     fn create(&self, planned: Pet) -> Result<Pet> {
//!         Ok(Pet { id: Attr::Known(format!("pet-{}", planned.name)), ..planned })
//!     }
//!     fn update(&self, _prior: Pet, planned: Pet) -> Result<Pet> {
//!         Ok(planned)
//!     }
//!
//!     fn read(&self, current: Pet) -> Result<Option<Pet>> {
//!         // Nothing outside Terraform's state to look at: keep the state as it is.
//!         Ok(Some(current))
//!     }
//!
//!     fn delete(&self, _prior: Pet) -> Result<()> {
//!         // Nothing outside Terraform's state to delete: Terraform forgets it.
//!         Ok(())
//!     }
//! }
//!
//! let h = Harness::new(Demo);
//! let created = h.create("demo_pet", json!({"name": "rex"})).unwrap();
//! assert_eq!(created.state.attr("legs"), Some(&terrarium_sdk::Value::Number(4.into())));
//! let pet: Pet = created.typed().unwrap();
//! assert_eq!(pet.id, Attr::Known("pet-rex".to_string()));
//!
//! let updated = h.update("demo_pet", &created.state, json!({"name": "rex", "legs": 3})).unwrap();
//! assert!(!updated.replaced);
//! let renamed = h.update("demo_pet", &updated.state, json!({"name": "max"})).unwrap();
//! assert!(renamed.replaced);
//! ```

mod action;
mod ephemeral;
mod list;

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::{AttributePath, Diagnostic, Severity, Value};

use crate::kind::find_type;
use crate::provider::Provider;
use crate::rpc::{
    ApplyRequest, ClientCapabilities, DeferredReason, ImportRequest, MoveRequest, PlanRequest,
    PlanResponse, ReadRequest, UpgradeIdentityRequest,
};
use crate::schema::Schema;
use crate::server::Server;
use crate::value::{conform, from_value};
use terrarium_framework::plan::Shape;

/// Makes [`crate::stop::stopping`] answer `stopping` on this thread, as if Terraform had
/// asked the provider to stop (Ctrl-C) during the calls that follow: for testing what a
/// resource returns when it is interrupted. Set it back to `false` afterwards.
#[cfg(not(target_arch = "wasm32"))]
pub fn set_stopping(stopping: bool) {
    crate::stop::set_stopping(stopping);
}

/// Drives one provider in-process; see the [module documentation](self).
pub struct Harness<P> {
    server: Server<P>,
    client: ClientCapabilities,
    address: String,
    /// The `provider_meta` every resource and data source call is made with.
    meta: Option<Value>,
}

/// What a step produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The state after the step (null after destroy, or when read found nothing).
    pub state: Value,
    /// The planned state, for steps that plan.
    pub planned: Value,
    /// Whether the plan replaced the resource.
    pub replaced: bool,
    /// The paths that forced the replacement.
    pub requires_replace: Vec<AttributePath>,
    /// Warnings (errors make the step fail).
    pub warnings: Vec<Diagnostic>,
    /// The provider-private data stored beside the state.
    pub private: Vec<u8>,
    /// The identity stored beside the state, for types with an identity.
    pub identity: Option<Value>,
    /// The identity the plan promised (null: known after apply).
    pub planned_identity: Option<Value>,
    /// Set when the provider deferred the step (only with [`Harness::allow_deferral`]); the
    /// state is then what it was.
    pub deferred: Option<DeferredReason>,
}

impl Outcome {
    fn deferred_only(reason: DeferredReason, warnings: Vec<Diagnostic>) -> Self {
        Outcome { deferred: Some(reason), ..Outcome::state_only(Value::Null, warnings) }
    }

    /// A step that only produced a state (a data source read).
    fn state_only(state: Value, warnings: Vec<Diagnostic>) -> Self {
        Outcome {
            state,
            planned: Value::Null,
            replaced: false,
            requires_replace: Vec::new(),
            warnings,
            private: Vec::new(),
            identity: None,
            planned_identity: None,
            deferred: None,
        }
    }

    /// The state read into the resource's state type.
    pub fn typed<T: DeserializeOwned>(&self) -> Result<T, Failure> {
        from_value(&self.state).map_err(|e| Failure {
            step: "typed",
            diagnostics: vec![e.to_diagnostic()],
            state: None,
        })
    }
}

/// A step that failed, with the error diagnostics the provider (or SDK) returned.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Which step: "validate", "plan", "apply", "read", "import", "config".
    pub step: &'static str,
    /// What went wrong.
    pub diagnostics: Vec<Diagnostic>,
    /// The state a failed apply left behind (see
    /// [`Diagnostics::with_state`](crate::Diagnostics::with_state)), which Terraform records.
    pub state: Option<Box<Value>>,
}

impl Failure {
    /// Whether any diagnostic's summary or detail contains `text`.
    pub fn mentions(&self, text: &str) -> bool {
        self.diagnostics.iter().any(|d| d.summary.contains(text) || d.detail.contains(text))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed:", self.step)?;
        for d in &self.diagnostics {
            write!(f, "\n  {}: {} ({})", d.summary, d.detail, d.attribute)?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

pub(crate) fn split(
    step: &'static str,
    diagnostics: Vec<Diagnostic>,
) -> Result<Vec<Diagnostic>, Failure> {
    let (errors, warnings): (Vec<_>, Vec<_>) =
        diagnostics.into_iter().partition(|d| d.severity == Severity::Error);
    if errors.is_empty() {
        Ok(warnings)
    } else {
        Err(Failure { step, diagnostics: errors, state: None })
    }
}

impl<P: Provider> Harness<P> {
    /// A harness for `provider`, not configured yet (see [`configure`](Self::configure)).
    /// It calls as Terraform 1.15 does: write-only attributes allowed, deferral not.
    pub fn new(provider: P) -> Self {
        Harness {
            server: Server::new(provider),
            client: ClientCapabilities {
                deferral_allowed: false,
                write_only_attributes_allowed: true,
            },
            address: "registry.terraform.io/terrarium/test".to_string(),
            meta: None,
        }
    }

    /// Makes every resource and data source call as if the module had written the
    /// `provider_meta` block `meta` (JSON, fitted to the provider's
    /// [`meta_schema`](Provider::meta_schema)), which [`crate::provider_meta`] then reads.
    pub fn provider_meta(mut self, meta: Json) -> Result<Self, Failure> {
        let Some(schema) = self.server.provider().meta_schema() else {
            return Err(Failure {
                state: None,
                step: "provider_meta",
                diagnostics: vec![Diagnostic::error(
                    "No provider_meta schema",
                    "The provider declares no meta_schema, so Terraform sends it no provider_meta.",
                )],
            });
        };
        self.meta = Some(fit(&schema, &meta)?);
        Ok(self)
    }

    /// `ReadDataSource`: validates `config` (JSON, fitted to the data source's schema) and
    /// reads it; the state it read.
    pub fn read_data(&self, type_name: &str, config: Json) -> Result<Outcome, Failure> {
        let data_sources = self.server.provider().data_sources();
        let schema = find_type("data source", &data_sources, type_name, |d| d.type_name())
            .map(|d| d.data_source_schema())
            .map_err(|d| Failure { step: "config", diagnostics: vec![d], state: None })?;
        let config = fit(&schema, &config)?;
        split("validate", self.server.validate_data_source_config(type_name, &config))?;
        let response = crate::meta::with_meta(self.meta.clone(), || {
            self.server.read_data_source(crate::rpc::ReadDataSourceRequest {
                type_name: type_name.to_string(),
                config,
                client: self.client,
            })
        });
        let warnings = split("read", response.diagnostics)?;
        if let Some(reason) = response.deferred {
            return Ok(Outcome::deferred_only(reason, warnings));
        }
        Ok(Outcome::state_only(response.state, warnings))
    }

    /// The address Terraform knows the provider by, which [`move_state`](Self::move_state)
    /// sends as the source's; `registry.terraform.io/terrarium/test` by default.
    pub fn address(mut self, address: &str) -> Self {
        self.address = address.to_string();
        self
    }

    /// Whether the harness says, as Terraform does with `-allow-deferral`, that it accepts
    /// deferred answers ([`Outcome::deferred`]).
    pub fn allow_deferral(mut self, allowed: bool) -> Self {
        self.client.deferral_allowed = allowed;
        self
    }

    /// The server, for calls the harness has no shortcut for.
    pub fn server(&self) -> &Server<P> {
        &self.server
    }

    /// Validates and configures the provider with `config` (JSON, fitted to its schema).
    pub fn configure(&mut self, config: Json) -> Result<(), Failure> {
        let schema = self.server.provider().schema();
        let config = fit(&schema, &config)?;
        split("validate", self.server.validate_provider_config(&config))?;
        let request = crate::rpc::ConfigureRequest {
            terraform_version: "1.15.0".to_string(),
            config,
            client: self.client,
        };
        split("configure", self.server.configure(request)).map(|_| ())
    }

    fn schema(&self, type_name: &str) -> Result<Schema, Failure> {
        let resources = self.server.provider().resources();
        resources
            .iter()
            .find(|r| r.type_name() == type_name)
            .map(|r| r.resource_schema())
            .ok_or_else(|| Failure {
                state: None,
                step: "config",
                diagnostics: vec![Diagnostic::error(
                    "Unknown resource type",
                    format!("The provider has no {type_name}."),
                )],
            })
    }

    /// A configuration of `type_name` from JSON: attributes left out are null, lists become
    /// the sets, tuples or objects the schema says.
    pub fn config(&self, type_name: &str, config: Json) -> Result<Value, Failure> {
        fit(&self.schema(type_name)?, &config)
    }

    /// `ValidateResourceConfig` on a JSON configuration.
    pub fn validate(&self, type_name: &str, config: Json) -> Result<Vec<Diagnostic>, Failure> {
        let config = self.config(type_name, config)?;
        split(
            "validate",
            self.server.validate_resource_config_for(type_name, &config, &self.client),
        )
    }

    /// Plans `config` against `prior` (null to create), with Terraform's proposed new state.
    pub fn plan(
        &self,
        type_name: &str,
        prior: &Value,
        config: &Value,
    ) -> Result<PlanResponse, Failure> {
        self.plan_with_identity(type_name, prior, None, config)
    }

    /// [`plan`](Self::plan) with the identity stored beside `prior`.
    pub fn plan_with_identity(
        &self,
        type_name: &str,
        prior: &Value,
        prior_identity: Option<&Value>,
        config: &Value,
    ) -> Result<PlanResponse, Failure> {
        let schema = self.schema(type_name)?;
        let proposed = proposed_new_state(&schema, prior, config);
        let response = crate::meta::with_meta(self.meta.clone(), || {
            self.server.plan_resource_change(PlanRequest {
                type_name: type_name.to_string(),
                prior_state: prior.clone(),
                proposed_new_state: proposed,
                config: config.clone(),
                prior_private: Vec::new(),
                client: self.client,
                prior_identity: prior_identity.cloned(),
            })
        });
        split("plan", response.diagnostics.clone())?;
        if let Some(identity) = response.planned_identity.as_ref().filter(|i| i.contains_unknown())
        {
            return Err(Failure {
                state: None,
                step: "plan",
                diagnostics: vec![Diagnostic::error(
                    "Unknown planned identity",
                    format!(
                        "The plan's identity is {identity:?}; a planned identity must be wholly known or null, or Terraform cannot show the plan."
                    ),
                )],
            });
        }
        Ok(response)
    }

    /// Validates, plans and applies a new resource.
    pub fn create(&self, type_name: &str, config: Json) -> Result<Outcome, Failure> {
        self.apply_config(type_name, &Value::Null, None, config)
    }

    /// Validates, plans and applies `config` over `prior`: an update in place, or (when the
    /// plan says so) a replacement, destroy then create, as Terraform does by default. A
    /// plan without changes is not applied, as in Terraform.
    pub fn update(&self, type_name: &str, prior: &Value, config: Json) -> Result<Outcome, Failure> {
        self.apply_config(type_name, prior, None, config)
    }

    /// [`update`](Self::update) from an earlier step's outcome, with the identity stored
    /// beside its state.
    pub fn update_from(
        &self,
        type_name: &str,
        prior: &Outcome,
        config: Json,
    ) -> Result<Outcome, Failure> {
        self.apply_config(type_name, &prior.state, prior.identity.as_ref(), config)
    }

    fn apply_config(
        &self,
        type_name: &str,
        prior: &Value,
        prior_identity: Option<&Value>,
        config: Json,
    ) -> Result<Outcome, Failure> {
        let config = self.config(type_name, config)?;
        let mut warnings = split(
            "validate",
            self.server.validate_resource_config_for(type_name, &config, &self.client),
        )?;
        let plan = self.plan_with_identity(type_name, prior, prior_identity, &config)?;
        let replaced = !plan.requires_replace.is_empty();
        if !prior.is_null() && !replaced && plan.planned_state == *prior && plan.deferred.is_none()
        {
            // No change: Terraform does not apply.
            return Ok(Outcome {
                state: prior.clone(),
                planned: plan.planned_state,
                replaced,
                requires_replace: plan.requires_replace,
                warnings,
                private: plan.planned_private,
                identity: plan.planned_identity.clone().or_else(|| prior_identity.cloned()),
                planned_identity: plan.planned_identity,
                deferred: None,
            });
        }
        let mut apply_prior = prior.clone();
        let mut planned = plan.planned_state.clone();
        let mut planned_identity = plan.planned_identity.clone();
        if replaced {
            self.destroy(type_name, prior)?;
            apply_prior = Value::Null;
            let create = self.plan(type_name, &Value::Null, &config)?;
            planned = create.planned_state;
            planned_identity = create.planned_identity;
        }
        let response = crate::meta::with_meta(self.meta.clone(), || {
            self.server.apply_resource_change(ApplyRequest {
                type_name: type_name.to_string(),
                prior_state: apply_prior,
                planned_state: planned.clone(),
                config,
                planned_private: plan.planned_private,
                planned_identity: planned_identity.clone(),
            })
        });
        let kept = (!response.new_state.is_null()).then_some(&response.new_state);
        warnings.extend(
            split("apply", response.diagnostics)
                .map_err(|f| Failure { state: kept.cloned().map(Box::new), ..f })?,
        );
        check_identity_kept("apply", planned_identity.as_ref(), response.new_identity.as_ref())?;
        Ok(Outcome {
            state: response.new_state,
            planned,
            replaced,
            requires_replace: plan.requires_replace,
            warnings,
            private: response.private,
            identity: response.new_identity,
            planned_identity,
            deferred: plan.deferred,
        })
    }

    /// Refreshes a state (`ReadResource`); null state when the resource is gone.
    pub fn read(&self, type_name: &str, state: &Value) -> Result<Outcome, Failure> {
        self.read_with_private(type_name, state, Vec::new())
    }

    /// Refreshes a state with the private data stored beside it (an [`Outcome::private`]).
    pub fn read_with_private(
        &self,
        type_name: &str,
        state: &Value,
        private: Vec<u8>,
    ) -> Result<Outcome, Failure> {
        self.read_request(type_name, state, private, None)
    }

    /// Refreshes an earlier step's outcome: its state, private data and identity. Like
    /// Terraform, fails when the identity changed.
    pub fn refresh(&self, type_name: &str, prior: &Outcome) -> Result<Outcome, Failure> {
        self.read_request(type_name, &prior.state, prior.private.clone(), prior.identity.as_ref())
    }

    fn read_request(
        &self,
        type_name: &str,
        state: &Value,
        private: Vec<u8>,
        identity: Option<&Value>,
    ) -> Result<Outcome, Failure> {
        let response = crate::meta::with_meta(self.meta.clone(), || {
            self.server.read_resource(ReadRequest {
                type_name: type_name.to_string(),
                current_state: state.clone(),
                private,
                client: self.client,
                current_identity: identity.cloned(),
            })
        });
        let warnings = split("read", response.diagnostics)?;
        if !response.new_state.is_null() {
            check_identity_kept("read", identity, response.new_identity.as_ref())?;
        }
        Ok(Outcome {
            state: response.new_state,
            planned: Value::Null,
            replaced: false,
            requires_replace: Vec::new(),
            warnings,
            private: response.private,
            identity: response.new_identity,
            planned_identity: None,
            deferred: response.deferred,
        })
    }

    /// `terraform import`: imports by ID, then reads, as Terraform does.
    pub fn import(&self, type_name: &str, id: &str) -> Result<Outcome, Failure> {
        self.import_request(type_name, id, None)
    }

    /// `import { to = ...  identity = {...} }`: imports by identity (JSON, fitted to the
    /// identity schema), then reads.
    pub fn import_by_identity(&self, type_name: &str, identity: Json) -> Result<Outcome, Failure> {
        let schema = self.identity_schema(type_name)?;
        let identity = conform(from_json(&identity), &schema.implied_type()).map_err(|e| {
            Failure { step: "config", diagnostics: vec![e.to_diagnostic()], state: None }
        })?;
        self.import_request(type_name, "", Some(identity))
    }

    fn identity_schema(&self, type_name: &str) -> Result<crate::identity::IdentitySchema, Failure> {
        self.server.identity_schemas().remove(type_name).ok_or_else(|| Failure {
            state: None,
            step: "config",
            diagnostics: vec![Diagnostic::error(
                "No identity",
                format!("The provider's {type_name} has no identity schema."),
            )],
        })
    }

    fn import_request(
        &self,
        type_name: &str,
        id: &str,
        identity: Option<Value>,
    ) -> Result<Outcome, Failure> {
        let response = self.server.import_resource_state(ImportRequest {
            type_name: type_name.to_string(),
            id: id.to_string(),
            client: self.client,
            identity,
        });
        let mut warnings = split("import", response.diagnostics)?;
        if let Some(reason) = response.deferred {
            return Ok(Outcome::deferred_only(reason, warnings));
        }
        let Some(imported) = response.imported.into_iter().next() else {
            return Err(Failure {
                state: None,
                step: "import",
                diagnostics: vec![Diagnostic::error(
                    "Nothing imported",
                    "The import returned no resource.",
                )],
            });
        };
        let mut read = self.read_request(
            type_name,
            &imported.state,
            imported.private,
            imported.identity.as_ref(),
        )?;
        warnings.append(&mut read.warnings);
        read.warnings = warnings;
        Ok(read)
    }

    /// `UpgradeResourceIdentity`: a stored identity (JSON) of identity schema `version`.
    pub fn upgrade_identity(
        &self,
        type_name: &str,
        version: i64,
        raw: Json,
    ) -> Result<Value, Failure> {
        let response = self.server.upgrade_resource_identity(UpgradeIdentityRequest {
            type_name: type_name.to_string(),
            version,
            raw_identity: raw_json(&raw),
        });
        split("upgrade identity", response.diagnostics)?;
        Ok(response.upgraded_identity)
    }

    /// `moved { from = <source_type>.x  to = <target_type>.x }`: moves a state of
    /// `source_type` of the same provider (schema version 0, say an earlier
    /// [`Outcome::state`]) into
    /// `target_type`, as Terraform does: the source state travels as stored JSON would
    /// (collections as tuples, no schema).
    pub fn move_state(
        &self,
        source_type: &str,
        source_state: &Value,
        target_type: &str,
    ) -> Result<Outcome, Failure> {
        let response = self.server.move_resource_state(MoveRequest {
            source_provider_address: self.address.clone(),
            source_type_name: source_type.to_string(),
            source_schema_version: 0,
            source_state: stored(source_state),
            target_type_name: target_type.to_string(),
            source_private: Vec::new(),
            source_identity: None,
            source_identity_schema_version: 0,
        });
        let warnings = split("move", response.diagnostics)?;
        Ok(Outcome {
            state: response.target_state,
            planned: Value::Null,
            replaced: false,
            requires_replace: Vec::new(),
            warnings,
            private: response.target_private,
            identity: response.target_identity,
            planned_identity: None,
            deferred: None,
        })
    }

    /// `GenerateResourceConfig`: the configuration Terraform would write for `state`.
    pub fn generate_config(&self, type_name: &str, state: &Value) -> Result<Value, Failure> {
        let response = self.server.generate_resource_config(type_name, state.clone());
        split("generate config", response.diagnostics)?;
        Ok(response.config)
    }

    /// Plans and applies the destruction of `state`.
    pub fn destroy(&self, type_name: &str, state: &Value) -> Result<(), Failure> {
        let response = crate::meta::with_meta(self.meta.clone(), || {
            self.server.apply_resource_change(ApplyRequest {
                type_name: type_name.to_string(),
                prior_state: state.clone(),
                planned_state: Value::Null,
                config: Value::Null,
                planned_private: Vec::new(),
                planned_identity: None,
            })
        });
        split("apply", response.diagnostics).map(|_| ())
    }
}

/// Terraform refuses an identity that changes under a known one: after apply (against a
/// wholly known planned identity) and after read (against the stored identity).
fn check_identity_kept(
    step: &'static str,
    before: Option<&Value>,
    after: Option<&Value>,
) -> Result<(), Failure> {
    match (before, after) {
        (Some(before), Some(after))
            if !before.is_null() && !before.contains_unknown() && before != after =>
        {
            Err(Failure {
                state: None,
                step,
                diagnostics: vec![Diagnostic::error(
                    "Unexpected identity change",
                    format!(
                        "The identity was {before:?} and is now {after:?}; Terraform refuses this."
                    ),
                )],
            })
        }
        (Some(before), None) if !before.is_null() => Err(Failure {
            state: None,
            step,
            diagnostics: vec![Diagnostic::error(
                "Missing identity",
                "The provider returned no identity where there was one.",
            )],
        }),
        _ => Ok(()),
    }
}

/// A value as it reads back from stored JSON: lists, sets and tuples become tuples, maps
/// and objects objects, dynamic values their stored wrapper.
fn stored(value: &Value) -> Value {
    match value {
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            Value::Tuple(items.iter().map(stored).collect())
        }
        Value::Map(m) | Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), stored(v))).collect())
        }
        // Terraform stores a dynamic value with its type: `{"type": ..., "value": ...}`.
        Value::Dynamic(d) => Value::Object(
            [
                ("type".to_string(), Value::string(d.ty.to_json())),
                ("value".to_string(), stored(&d.value)),
            ]
            .into(),
        ),
        other => other.clone(),
    }
}

/// Stored JSON as Terraform hands it to upgrades and moves: objects, tuples and scalars,
/// no schema.
fn raw_json(json: &Json) -> Value {
    match json {
        Json::Array(items) => Value::Tuple(items.iter().map(raw_json).collect()),
        Json::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), raw_json(v))).collect()),
        other => from_json(other),
    }
}

/// JSON to a value of the schema's type, with absent blocks as Terraform has them.
pub(crate) fn fit(schema: &Schema, json: &Json) -> Result<Value, Failure> {
    conform(from_json(json), &schema.implied_type())
        .map(|v| absent_blocks(Shape::of(schema), v))
        .map_err(|e| Failure { step: "config", diagnostics: vec![e.to_diagnostic()], state: None })
}

/// Terraform hands an absent list, set or map block as an empty collection, and an absent
/// group block as an object of nulls.
fn absent_blocks(shape: Shape<'_>, value: Value) -> Value {
    use terrarium_model::schema::BlockNesting;
    let Value::Object(mut object) = value else {
        return value;
    };
    for b in shape.blocks {
        let inner = Shape { attributes: b.block().attributes(), blocks: b.block().blocks() };
        let Some(v) = object.get_mut(b.name()) else { continue };
        let taken = std::mem::replace(v, Value::Null);
        *v = match (b.nesting(), taken) {
            (BlockNesting::List, Value::Null) => Value::List(Vec::new()),
            (BlockNesting::Set, Value::Null) => Value::Set(Vec::new()),
            (BlockNesting::Map, Value::Null) => Value::Map(Default::default()),
            (BlockNesting::Group, Value::Null) => absent_blocks(
                inner,
                Value::Object(
                    b.block()
                        .attributes()
                        .iter()
                        .map(|a| a.name().to_string())
                        .chain(b.block().blocks().iter().map(|b| b.name().to_string()))
                        .map(|n| (n, Value::Null))
                        .collect(),
                ),
            ),
            (BlockNesting::List, Value::List(items)) => {
                Value::List(items.into_iter().map(|i| absent_blocks(inner, i)).collect())
            }
            (BlockNesting::Set, Value::Set(items)) => {
                Value::Set(items.into_iter().map(|i| absent_blocks(inner, i)).collect())
            }
            (BlockNesting::Map, Value::Map(m)) => {
                Value::Map(m.into_iter().map(|(k, i)| (k, absent_blocks(inner, i))).collect())
            }
            (_, other) => absent_blocks(inner, other),
        };
    }
    Value::Object(object)
}

/// JSON as a value: arrays become lists and objects maps, which [`conform`] reshapes.
pub use crate::json::value_from_json as from_json;

/// What Terraform proposes (the configuration with prior computed values carried over), to
/// build [`PlanRequest`]s by hand; see [`terrarium_framework::plan::proposed_new_state`].
pub use terrarium_framework::plan::proposed_new_state;

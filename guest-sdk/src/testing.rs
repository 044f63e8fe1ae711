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

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use terrarium_model::{AttributePath, Diagnostic, Number, Severity, Value};

use crate::plan::{Shape, counterparts, elements};
use crate::provider::Provider;
use crate::rpc::{ApplyRequest, ImportRequest, PlanRequest, PlanResponse, ReadRequest};
use crate::schema::Schema;
use crate::server::Server;
use crate::value::{conform, from_value};

/// Drives one provider in-process; see the [module documentation](self).
pub struct Harness<P> {
    server: Server<P>,
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
}

impl Outcome {
    /// The state read into the resource's state type.
    pub fn typed<T: DeserializeOwned>(&self) -> Result<T, Failure> {
        from_value(&self.state).map_err(|e| Failure { step: "typed", diagnostics: vec![e.to_diagnostic()] })
    }
}

/// A step that failed, with the error diagnostics the provider (or SDK) returned.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Which step: "validate", "plan", "apply", "read", "import", "config".
    pub step: &'static str,
    /// What went wrong.
    pub diagnostics: Vec<Diagnostic>,
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

fn split(step: &'static str, diagnostics: Vec<Diagnostic>) -> Result<Vec<Diagnostic>, Failure> {
    let (errors, warnings): (Vec<_>, Vec<_>) =
        diagnostics.into_iter().partition(|d| d.severity == Severity::Error);
    if errors.is_empty() { Ok(warnings) } else { Err(Failure { step, diagnostics: errors }) }
}

impl<P: Provider> Harness<P> {
    /// A harness for `provider`, not configured yet (see [`configure`](Self::configure)).
    pub fn new(provider: P) -> Self {
        Harness { server: Server::new(provider) }
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
            client: crate::rpc::ClientCapabilities { deferral_allowed: false, write_only_attributes_allowed: true },
        };
        split("configure", self.server.configure(request)).map(|_| ())
    }

    fn schema(&self, type_name: &str) -> Result<Schema, Failure> {
        let resources = self.server.provider().resources();
        resources.iter().find(|r| r.type_name() == type_name).map(|r| r.resource_schema()).ok_or_else(|| Failure {
            step: "config",
            diagnostics: vec![Diagnostic::error("Unknown resource type", format!("The provider has no {type_name}."))],
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
        split("validate", self.server.validate_resource_config(type_name, &config))
    }

    /// Plans `config` against `prior` (null to create), with Terraform's proposed new state.
    pub fn plan(&self, type_name: &str, prior: &Value, config: &Value) -> Result<PlanResponse, Failure> {
        let schema = self.schema(type_name)?;
        let proposed = proposed_new_state(&schema, prior, config);
        let response = self.server.plan_resource_change(PlanRequest {
            type_name: type_name.to_string(),
            prior_state: prior.clone(),
            proposed_new_state: proposed,
            config: config.clone(),
            prior_private: Vec::new(),
        });
        split("plan", response.diagnostics.clone())?;
        Ok(response)
    }

    /// Validates, plans and applies a new resource.
    pub fn create(&self, type_name: &str, config: Json) -> Result<Outcome, Failure> {
        self.update(type_name, &Value::Null, config)
    }

    /// Validates, plans and applies `config` over `prior`: an update in place, or (when the
    /// plan says so) a replacement, destroy then create, as Terraform does by default.
    pub fn update(&self, type_name: &str, prior: &Value, config: Json) -> Result<Outcome, Failure> {
        let config = self.config(type_name, config)?;
        let mut warnings = split("validate", self.server.validate_resource_config(type_name, &config))?;
        let plan = self.plan(type_name, prior, &config)?;
        let replaced = !plan.requires_replace.is_empty();
        let mut apply_prior = prior.clone();
        let mut planned = plan.planned_state.clone();
        if replaced {
            self.destroy(type_name, prior)?;
            apply_prior = Value::Null;
            planned = self.plan(type_name, &Value::Null, &config)?.planned_state;
        }
        let response = self.server.apply_resource_change(ApplyRequest {
            type_name: type_name.to_string(),
            prior_state: apply_prior,
            planned_state: planned.clone(),
            config,
            planned_private: plan.planned_private,
        });
        warnings.extend(split("apply", response.diagnostics)?);
        Ok(Outcome {
            state: response.new_state,
            planned,
            replaced,
            requires_replace: plan.requires_replace,
            warnings,
            private: response.private,
        })
    }

    /// Refreshes a state (`ReadResource`); null state when the resource is gone.
    pub fn read(&self, type_name: &str, state: &Value) -> Result<Outcome, Failure> {
        self.read_with_private(type_name, state, Vec::new())
    }

    /// Refreshes a state with the private data stored beside it (an [`Outcome::private`]).
    pub fn read_with_private(&self, type_name: &str, state: &Value, private: Vec<u8>) -> Result<Outcome, Failure> {
        let response = self.server.read_resource(ReadRequest {
            type_name: type_name.to_string(),
            current_state: state.clone(),
            private,
        });
        let warnings = split("read", response.diagnostics)?;
        Ok(Outcome {
            state: response.new_state,
            planned: Value::Null,
            replaced: false,
            requires_replace: Vec::new(),
            warnings,
            private: response.private,
        })
    }

    /// `terraform import`: imports by ID, then reads, as Terraform does.
    pub fn import(&self, type_name: &str, id: &str) -> Result<Outcome, Failure> {
        let response = self.server.import_resource_state(ImportRequest { type_name: type_name.to_string(), id: id.to_string() });
        let mut warnings = split("import", response.diagnostics)?;
        let Some(imported) = response.imported.into_iter().next() else {
            return Err(Failure {
                step: "import",
                diagnostics: vec![Diagnostic::error("Nothing imported", "The import returned no resource.")],
            });
        };
        let mut read = self.read(type_name, &imported.state)?;
        warnings.append(&mut read.warnings);
        read.warnings = warnings;
        Ok(read)
    }

    /// Plans and applies the destruction of `state`.
    pub fn destroy(&self, type_name: &str, state: &Value) -> Result<(), Failure> {
        let response = self.server.apply_resource_change(ApplyRequest {
            type_name: type_name.to_string(),
            prior_state: state.clone(),
            planned_state: Value::Null,
            config: Value::Null,
            planned_private: Vec::new(),
        });
        split("apply", response.diagnostics).map(|_| ())
    }
}

/// JSON to a value of the schema's type, with absent blocks as Terraform has them.
fn fit(schema: &Schema, json: &Json) -> Result<Value, Failure> {
    conform(from_json(json), &schema.implied_type())
        .map(|v| absent_blocks(Shape::of(schema), v))
        .map_err(|e| Failure { step: "config", diagnostics: vec![e.to_diagnostic()] })
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
                    b.block().attributes().iter().map(|a| a.name().to_string())
                        .chain(b.block().blocks().iter().map(|b| b.name().to_string()))
                        .map(|n| (n, Value::Null))
                        .collect(),
                ),
            ),
            (BlockNesting::List, Value::List(items)) => Value::List(items.into_iter().map(|i| absent_blocks(inner, i)).collect()),
            (BlockNesting::Set, Value::Set(items)) => Value::Set(items.into_iter().map(|i| absent_blocks(inner, i)).collect()),
            (BlockNesting::Map, Value::Map(m)) => Value::Map(m.into_iter().map(|(k, i)| (k, absent_blocks(inner, i))).collect()),
            (_, other) => absent_blocks(inner, other),
        };
    }
    Value::Object(object)
}

/// JSON as a value: arrays become lists and objects maps, which [`conform`] reshapes.
pub fn from_json(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Number::parse(&n.to_string()).map_or(Value::Null, Value::Number),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(from_json).collect()),
        Json::Object(m) => Value::Map(m.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

/// What Terraform proposes: the configuration, with the prior value of every computed
/// attribute the configuration leaves null, nested objects matched to their prior selves
/// (lists by position, maps by key, sets by their non-computed attributes).
///
/// Like Terraform, and unlike a real plan, it knows nothing of the provider: use it to
/// build [`PlanRequest`]s by hand.
pub fn proposed_new_state(schema: &Schema, prior: &Value, config: &Value) -> Value {
    propose(Shape::of(schema), prior, config)
}

fn propose(shape: Shape<'_>, prior: &Value, config: &Value) -> Value {
    let (Value::Object(c), Value::Object(_)) = (config, prior) else {
        return config.clone();
    };
    let mut out = c.clone();
    for a in shape.attributes {
        if a.is_computed()
            && c.get(a.name()).is_some_and(Value::is_null)
            && let Some(p) = prior.attr(a.name())
        {
            out.insert(a.name().to_string(), p.clone());
        }
    }
    for (name, _, inner) in shape.children() {
        let (Some(v), Some(p)) = (out.get_mut(name), prior.attr(name)) else { continue };
        if v.is_null() {
            continue;
        }
        let pairs = counterparts(inner, v, p);
        let prior_elements = elements(p);
        let items: Vec<&mut Value> = match v {
            Value::Object(_) => vec![v],
            Value::List(items) | Value::Set(items) => items.iter_mut().collect(),
            Value::Map(m) => m.values_mut().collect(),
            _ => Vec::new(),
        };
        for (item, pair) in items.into_iter().zip(pairs) {
            if let Some(before) = pair.and_then(|j| prior_elements.get(j).copied()) {
                *item = propose(inner, before, item);
            }
        }
    }
    Value::Object(out)
}

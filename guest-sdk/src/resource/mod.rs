//! Managed resources: the [`Resource`] trait an author implements, and [`AnyResource`],
//! the object-safe form the provider lists them in.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terrarium_sdk::{Attr, Model, Resource, Result};
//!
//! /// A greeting.
//! #[derive(Serialize, Deserialize, Model)]
//! struct Greeting {
//!     #[tf(computed)]
//!     id: Attr<String>,
//!     /// Who to greet.
//!     #[tf(requires_replace)]
//!     name: String,
//!     #[tf(computed)]
//!     text: Attr<String>,
//! }
//!
//! struct GreetingResource;
//!
//! impl Resource for GreetingResource {
//!     const TYPE_NAME: &'static str = "demo_greeting";
//!     type State = Greeting;
//!
//!     fn create(&self, planned: Greeting) -> Result<Greeting> {
//!         let text = format!("Hello, {}!", planned.name);
//!         Ok(Greeting { id: planned.name.clone().into(), text: text.into(), ..planned })
//!     }
//!
//!     fn read(&self, current: Greeting) -> Result<Option<Greeting>> {
//!         // A greeting exists only in Terraform's state: nothing to look at.
//!         Ok(Some(current))
//!     }
//!
//!     fn delete(&self, _prior: Greeting) -> Result<()> {
//!         // Nothing outside Terraform's state to delete.
//!         Ok(())
//!     }
//! }
//! ```
//!
//! `create`, `read` and `delete` are always written by the author: what a resource does with
//! the real object on refresh and on destroy is never a silent default (a resource whose
//! objects live only in Terraform's state says so in two lines, as above). Everything else
//! has a default: the schema (derived from `State`), the plan (see [`crate::plan`]), update,
//! import and upgrade (refused with a clear error). Override what the resource needs.
//!
//! A resource that leaves out `delete` (or `read`) does not compile, so it cannot forget real
//! objects on destroy without saying so:
//!
//! ```compile_fail,E0046
//! # use serde::{Deserialize, Serialize};
//! # use terrarium_sdk::{Attr, Model, Resource, Result};
//! # #[derive(Serialize, Deserialize, Model)]
//! # struct Server { #[tf(computed)] id: Attr<String> }
//! struct ServerResource;
//!
//! impl Resource for ServerResource {
//!     const TYPE_NAME: &'static str = "demo_server";
//!     type State = Server;
//!     fn create(&self, planned: Server) -> Result<Server> { Ok(planned) }
//!     fn read(&self, current: Server) -> Result<Option<Server>> { Ok(Some(current)) }
//!     // no `delete`: error[E0046]: not all trait items implemented
//! }
//! ```

mod import;
mod plan;
mod private;

use serde::Serialize;
use serde::de::DeserializeOwned;
use terrarium_model::{AttributePath, Diagnostic, Value};

use crate::diag::{Diagnostics, Result};
use crate::identity_schema::{AnyIdentity, IdentitySchema, fit_raw_identity, known_identity};
use crate::kind::{known_state, validate_config};
use crate::rpc::{
    ApplyRequest, ApplyResponse, GenerateConfigResponse, ImportRequest, ImportResponse,
    ImportedResource, MoveRequest, MoveResponse, PlanRequest, PlanResponse, ReadRequest,
    ReadResponse, UpgradeIdentityRequest, UpgradeIdentityResponse, UpgradeRequest, UpgradeResponse,
};
use crate::schema::Schema;
use crate::typed::Model;
use crate::value::{conform, from_value, to_value, upgrade_raw_block};
use terrarium_framework::check::{check_apply, check_plan, inconsistent};
use terrarium_framework::plan::{
    Shape, clear_write_only, default_plan, fill_write_only, first_unknown, generated_config,
};

pub use import::{import_composite, import_passthrough};
pub use plan::Plan;
pub use private::PrivateState;

/// A managed resource type.
///
/// `State` is the Rust form of the schema: one field per attribute (and nested block), of a
/// type that can hold every value the attribute can have at that point. The same struct
/// reads the planned state in `create`, the prior state in `update`, and so on. Use
/// [`Attr<T>`](crate::Attr) for computed attributes (unknown in a plan) and anything that
/// may be null; plain `T` only for required attributes that cannot be unknown at apply.
pub trait Resource {
    /// The resource type name as written in configurations: `"<provider>_<name>"`.
    const TYPE_NAME: &'static str;

    /// The Rust form of the resource's state; with `#[derive(Model)]` it is the schema too.
    type State: Serialize + DeserializeOwned + Model;

    /// The schema Terraform sees, with the plan behaviour the SDK applies. By default the
    /// one `#[derive(Model)]` made from [`State`](Self::State); override it to build the
    /// schema by hand (and `impl Model for State {}`).
    fn schema(&self) -> Schema {
        <Self::State as Model>::schema()
    }

    /// Checks a configuration beyond what the schema says. Any attribute may be unknown
    /// here (it may depend on a resource not yet created): read it as raw [`Value`]s, or into
    /// a struct of [`Attr`](crate::Attr) fields.
    fn validate(&self, config: &Value) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Adjusts the plan after the SDK's default plan (see [`crate::plan`]).
    /// Not called when the resource is being destroyed (see
    /// [`PLAN_DESTROY`](Self::PLAN_DESTROY)). Return
    /// [`Diagnostics::deferred`] to ask Terraform to plan it in a later round.
    fn plan(&self, plan: &mut Plan) -> Result<()> {
        let _ = plan;
        Ok(())
    }

    /// Creates the resource. `planned` holds the configuration, with computed attributes
    /// unknown; return the new state, with every attribute known. Write-only attributes
    /// hold their configured value here; the SDK stores them as null whatever is returned.
    fn create(&self, planned: Self::State) -> Result<Self::State>;

    /// Refreshes the state from the real world. `Ok(None)` means the resource no longer
    /// exists (drift), and Terraform will plan to create it. A resource whose objects live
    /// only in Terraform's state returns `Ok(Some(current))`, saying so where a reader sees
    /// it. [`Diagnostics::deferred`] defers it (when Terraform allows).
    fn read(&self, current: Self::State) -> Result<Option<Self::State>>;

    /// Updates the resource in place. Only called when something changed that does not
    /// require replacement; a resource whose every configurable attribute
    /// [`requires_replace`](crate::schema::Attribute::requires_replace) never sees it. By
    /// default an error.
    fn update(&self, prior: Self::State, planned: Self::State) -> Result<Self::State> {
        let _ = (prior, planned);
        Err(Diagnostics::error(
            "Update not supported",
            format!(
                "The provider cannot update a {} in place. This is a bug in the provider: its schema should mark the changed attributes as requiring replacement.",
                Self::TYPE_NAME
            ),
        ))
    }

    /// [`create`](Self::create) with the resource's [`PrivateState`]: what the plan stored
    /// there, and what to keep beside the new state. By default calls `create` and keeps
    /// the private state as planned.
    fn create_with_private(
        &self,
        planned: Self::State,
        private: &mut PrivateState,
    ) -> Result<Self::State> {
        let _ = private;
        self.create(planned)
    }

    /// [`update`](Self::update) with the resource's [`PrivateState`]. By default calls
    /// `update`.
    fn update_with_private(
        &self,
        prior: Self::State,
        planned: Self::State,
        private: &mut PrivateState,
    ) -> Result<Self::State> {
        let _ = private;
        self.update(prior, planned)
    }

    /// [`read`](Self::read) with the resource's [`PrivateState`]. By default calls `read`.
    fn read_with_private(
        &self,
        current: Self::State,
        private: &mut PrivateState,
    ) -> Result<Option<Self::State>> {
        let _ = private;
        self.read(current)
    }

    /// Deletes the resource; on `Ok` Terraform forgets it. A resource whose objects live
    /// only in Terraform's state returns `Ok(())`, saying so where a reader sees it; any
    /// other must delete the real object here, or it is orphaned.
    fn delete(&self, prior: Self::State) -> Result<()>;

    /// Builds a state from the ID a user passes to `terraform import` (or an `import` block's
    /// `id`); Terraform then calls [`read`](Self::read) with it. See [`import_passthrough`]
    /// for the usual case; for `import { identity = ... }` see
    /// [`ResourceIdentity::import_by_identity`](crate::identity::ResourceIdentity::import_by_identity).
    /// By default import is refused.
    fn import(&self, id: &str) -> Result<Self::State> {
        let _ = id;
        Err(Diagnostics::error(
            "Import not supported",
            format!("Resources of type {} cannot be imported.", Self::TYPE_NAME),
        ))
    }

    /// The resource's identity: return `Some(self)` from a resource that also implements
    /// [`ResourceIdentity`](crate::identity::ResourceIdentity). By default it has none.
    fn identity(&self) -> Option<&dyn AnyIdentity<Self::State>> {
        None
    }

    /// Resource types whose state a `moved { from = <other type>  to = <this type> }` block
    /// may move into this one, by type name; [`move_state`](Self::move_state) converts
    /// it. When any resource type has some, the provider declares the
    /// `move_resource_state` capability.
    const MOVES_FROM: &'static [&'static str] = &[];

    /// Converts the stored state of a resource of a type in
    /// [`MOVES_FROM`](Self::MOVES_FROM) (any provider: check
    /// `source.source_provider_address` if it matters) into this type's. As in
    /// [`upgrade`](Self::upgrade), the source state is raw JSON and the result is fitted to
    /// this schema leniently. By default an error.
    fn move_state(&self, source: MoveRequest) -> Result<Value> {
        Err(Diagnostics::error(
            "Cannot move resource state",
            format!(
                "The provider cannot move {} state into {}.",
                source.source_type_name,
                Self::TYPE_NAME
            ),
        ))
    }

    /// The configuration Terraform writes for an imported resource
    /// (`terraform plan -generate-config-out`). By default the state with computed-only and
    /// write-only attributes null ([`generated_config`]).
    fn generate_config(&self, state: Value) -> Result<Value> {
        Ok(generated_config(&self.schema(), state))
    }

    /// Whether a replacement must delete the old object before it creates the new one,
    /// because two cannot exist at once (a fixed file name, a name unique in a remote system).
    /// Terraform deletes first anyway unless a configuration asks for
    /// `create_before_destroy`; Pulumi creates first unless told, and the host tells it for
    /// the types that set this.
    const DELETE_BEFORE_REPLACE: bool = false;

    /// Whether [`plan_destroy`](Self::plan_destroy) wants to see destroy plans; when any
    /// resource type does, the provider declares the `plan_destroy` capability.
    const PLAN_DESTROY: bool = false;

    /// Checks a planned destroy (only with [`PLAN_DESTROY`](Self::PLAN_DESTROY)): an error
    /// stops the plan, a warning is shown. By default nothing.
    fn plan_destroy(&self, prior: Self::State) -> Result<()> {
        let _ = prior;
        Ok(())
    }

    /// Turns a state written with an older schema version into the current one. `raw` is the stored JSON state, decoded without a schema
    /// (objects, tuples, strings, numbers, bools and nulls); the result is fitted to the
    /// current schema the same lenient way. Only called when `version` is lower than
    /// [`Schema::version`]; states of the current version need no code.
    fn upgrade(&self, version: i64, raw: Value) -> Result<Value> {
        let _ = raw;
        Err(Diagnostics::error(
            "Cannot upgrade state",
            format!(
                "The provider cannot upgrade {} state from schema version {version}.",
                Self::TYPE_NAME
            ),
        ))
    }
}

/// A resource type as the provider lists it: every [`Resource`] is one, so
/// `Box::new(MyResource)` is all a provider writes. Its methods take the protocol's requests
/// (see [`crate::rpc`]) and are what [`crate::Server`] calls.
pub trait AnyResource {
    /// The type name, as in [`Resource::TYPE_NAME`].
    fn type_name(&self) -> &str;
    /// The schema, as in [`Resource::schema`].
    fn resource_schema(&self) -> Schema;
    /// The identity schema, for resources with an identity.
    fn identity_schema(&self) -> Option<IdentitySchema>;
    /// The source types it accepts moves from, as in [`Resource::MOVES_FROM`].
    fn moves_from(&self) -> &'static [&'static str];
    /// Whether it plans destroys, as in [`Resource::PLAN_DESTROY`].
    fn plans_destroy(&self) -> bool;
    /// Whether a replacement deletes first, as in [`Resource::DELETE_BEFORE_REPLACE`].
    fn deletes_before_replace(&self) -> bool;
    /// `ValidateResourceConfig`: the resource's own checks.
    fn validate_config(&self, config: &Value) -> Vec<Diagnostic>;
    /// `PlanResourceChange`: the default plan, then [`Resource::plan`].
    fn plan_change(&self, request: PlanRequest) -> PlanResponse;
    /// `ApplyResourceChange`: create, update or delete, by what the plan says.
    fn apply_change(&self, request: ApplyRequest) -> ApplyResponse;
    /// `ReadResource`: refreshes the state.
    fn read_resource(&self, request: ReadRequest) -> ReadResponse;
    /// `ImportResourceState`: builds a state from an ID or an identity.
    fn import_state(&self, request: ImportRequest) -> ImportResponse;
    /// `UpgradeResourceState`: fits stored state to the current schema.
    fn upgrade_state(&self, request: UpgradeRequest) -> UpgradeResponse;
    /// `UpgradeResourceIdentity`: fits a stored identity to the current identity schema.
    fn upgrade_identity(&self, request: UpgradeIdentityRequest) -> UpgradeIdentityResponse;
    /// `MoveResourceState` into this type.
    fn move_state(&self, request: MoveRequest) -> MoveResponse;
    /// `GenerateResourceConfig`.
    fn generate_config(&self, state: Value) -> GenerateConfigResponse;
}

impl<R: Resource> AnyResource for R {
    fn type_name(&self) -> &str {
        R::TYPE_NAME
    }

    fn resource_schema(&self) -> Schema {
        Resource::schema(self)
    }

    fn identity_schema(&self) -> Option<IdentitySchema> {
        Resource::identity(self).map(|i| i.schema())
    }

    fn moves_from(&self) -> &'static [&'static str] {
        R::MOVES_FROM
    }

    fn plans_destroy(&self) -> bool {
        R::PLAN_DESTROY
    }

    fn deletes_before_replace(&self) -> bool {
        R::DELETE_BEFORE_REPLACE
    }

    fn validate_config(&self, config: &Value) -> Vec<Diagnostic> {
        validate_config(&Resource::schema(self), config, || Resource::validate(self, config))
    }

    fn plan_change(&self, request: PlanRequest) -> PlanResponse {
        let schema = Resource::schema(self);
        let (planned_state, requires_replace) = default_plan(
            &schema,
            &request.prior_state,
            &request.proposed_new_state,
            &request.config,
        );
        let mut response = PlanResponse {
            planned_state,
            requires_replace,
            planned_private: request.prior_private,
            deferred: None,
            diagnostics: Vec::new(),
            planned_identity: None,
        };
        if request.proposed_new_state.is_null() {
            // A destroy: seen only with PLAN_DESTROY (Terraform asks only then).
            response.planned_identity = request.prior_identity;
            if R::PLAN_DESTROY {
                let result = from_value(&request.prior_state)
                    .map_err(Diagnostics::from)
                    .and_then(|prior| Resource::plan_destroy(self, prior));
                if let Err(d) = result {
                    let call = format!("Resource::plan_destroy of {}", R::TYPE_NAME);
                    let (deferred, diagnostics) = d.into_deferral(&request.client, &call);
                    response.deferred = deferred;
                    response.diagnostics.extend(diagnostics);
                }
            }
            return response;
        }
        let ty = schema.implied_type();
        let mut plan = Plan {
            prior_state: request.prior_state,
            proposed_new_state: request.proposed_new_state,
            config: request.config,
            ty: ty.clone(),
            client: request.client,
            planned_state: response.planned_state,
            requires_replace: response.requires_replace,
            private: PrivateState::decode(&response.planned_private),
        };
        if let Err(d) = Resource::plan(self, &mut plan) {
            let call = format!("Resource::plan of {}", R::TYPE_NAME);
            let (deferred, diagnostics) = d.into_deferral(&request.client, &call);
            response.deferred = deferred;
            response.diagnostics.extend(diagnostics);
        }
        response.requires_replace = plan.requires_replace;
        response.planned_private = plan.private.encode();
        // The hook may have written anything: check it the way Terraform will, and say so
        // in terms of the resource's code.
        match conform(plan.planned_state.clone(), &ty) {
            Ok(planned) => {
                let mut problems = Vec::new();
                check_plan(
                    Shape::of(&schema),
                    &plan.config,
                    &planned,
                    &AttributePath::root(),
                    &mut problems,
                );
                response.diagnostics.extend(inconsistent(
                    problems,
                    "Provider produced an inconsistent plan",
                    &format!("The plan of {} (the SDK's default plan and Resource::plan)", R::TYPE_NAME),
                    "A plan must keep every configured value as configured; only computed attributes the configuration leaves unset are the provider's to choose.",
                ));
                response.planned_state = planned;
            }
            Err(e) => {
                response.planned_state = plan.planned_state;
                response.diagnostics.push(
                Diagnostic::error(
                    "Provider produced an invalid plan",
                    format!("Resource::plan of {} planned a value of the wrong type: {e}. This is a bug in the provider.", R::TYPE_NAME),
                )
                .at(e.path().clone()),
            );
            }
        }
        if let Some(identity) = Resource::identity(self) {
            match planned_identity(
                identity,
                &plan.prior_state,
                request.prior_identity,
                &response.planned_state,
                !response.requires_replace.is_empty(),
            ) {
                Ok(planned) => response.planned_identity = Some(planned),
                Err(d) => response.diagnostics.extend(d.into_vec()),
            }
        }
        response
    }

    fn apply_change(&self, request: ApplyRequest) -> ApplyResponse {
        let ApplyRequest { prior_state, planned_state, config, planned_private, .. } = request;
        let mut response = ApplyResponse {
            new_state: Value::Null,
            private: planned_private,
            diagnostics: Vec::new(),
            new_identity: None,
        };
        if planned_state.is_null() {
            // Destroy. On failure the resource still exists: keep its state.
            let result = from_value(&prior_state)
                .map_err(Diagnostics::from)
                .and_then(|s| Resource::delete(self, s));
            if let Err(d) = result {
                response.new_state = prior_state;
                response.new_identity = request.planned_identity;
                response.diagnostics.extend(d);
            }
            return response;
        }
        let schema = Resource::schema(self);
        let ty = schema.implied_type();
        let method = if prior_state.is_null() { "create" } else { "update" };
        let mut private = PrivateState::decode(&response.private);
        // Terraform plans write-only attributes null; the code gets their configured values.
        let with_write_only = fill_write_only(Shape::of(&schema), planned_state.clone(), &config);
        let result = if prior_state.is_null() {
            // On failure nothing was created: the new state stays null.
            from_value(&with_write_only)
                .map_err(Diagnostics::from)
                .and_then(|p| Resource::create_with_private(self, p, &mut private))
        } else {
            // On failure the resource is as it was.
            response.new_state = prior_state.clone();
            response.new_identity = request.planned_identity.clone();
            let prior = from_value(&prior_state).map_err(Diagnostics::from);
            let planned = from_value(&with_write_only).map_err(Diagnostics::from);
            prior.and_then(|prior| {
                planned.and_then(|planned| {
                    Resource::update_with_private(self, prior, planned, &mut private)
                })
            })
        };
        response.private = private.encode();
        let result = result.and_then(|state| {
            let identity = known_identity(Resource::identity(self), &state, R::TYPE_NAME, method)?;
            Ok((conform(to_value(&state)?, &ty)?, identity))
        });
        match result {
            Ok((state, identity)) => {
                // Write-only values are never stored, whatever the code returned.
                let mut state = clear_write_only(Shape::of(&schema), state);
                terrarium_framework::semantic::keep_equal(
                    Shape::of(&schema),
                    &planned_state,
                    &mut state,
                );
                let mut problems = Vec::new();
                check_apply(&planned_state, &state, &AttributePath::root(), &mut problems);
                response.diagnostics.extend(inconsistent(
                    problems,
                    "Provider produced an inconsistent result after apply",
                    &format!("Resource::{method} of {}", R::TYPE_NAME),
                    "Apply must keep every value the plan knew; a value the code decides at apply time must be planned as unknown (mark the attribute computed, unknown_on_update, or set it unknown in Resource::plan).",
                ));
                if let Some(path) = first_unknown(&state, &AttributePath::root()) {
                    response.diagnostics.push(
                        Diagnostic::error(
                            "Provider returned an unknown value",
                            format!("After apply, {path} is still unknown: Resource::{method} of {} must set every computed attribute. This is a bug in the provider.", R::TYPE_NAME),
                        )
                        .at(path),
                    );
                } else {
                    response.new_state = state;
                    response.new_identity = identity;
                }
            }
            Err(mut d) => {
                // A change that got part of the way: record what exists, so Terraform
                // keeps track of it (tainted, after a failed create).
                if let Some(kept) = d.take_state() {
                    match conform(kept, &ty) {
                        Ok(kept) => {
                            let kept =
                                clear_write_only(Shape::of(&schema), kept).unknowns_as_null();
                            response.new_identity = from_value::<R::State>(&kept)
                                .ok()
                                .and_then(|s| {
                                    known_identity(
                                        Resource::identity(self),
                                        &s,
                                        R::TYPE_NAME,
                                        method,
                                    )
                                    .ok()
                                })
                                .flatten();
                            response.new_state = kept;
                        }
                        Err(e) => d.push(e.to_diagnostic()),
                    }
                }
                response.diagnostics.extend(d)
            }
        }
        response
    }

    fn read_resource(&self, request: ReadRequest) -> ReadResponse {
        let mut response = ReadResponse {
            new_state: Value::Null,
            private: request.private,
            deferred: None,
            diagnostics: Vec::new(),
            new_identity: None,
        };
        let schema = Resource::schema(self);
        let ty = schema.implied_type();
        let mut private = PrivateState::decode(&response.private);
        let result = from_value(&request.current_state)
            .map_err(Diagnostics::from)
            .and_then(|current| Resource::read_with_private(self, current, &mut private))
            .and_then(|state| match state {
                Some(state) => {
                    let identity =
                        known_identity(Resource::identity(self), &state, R::TYPE_NAME, "read")?;
                    Ok((known_state(&state, &ty, "read")?, identity))
                }
                None => Ok((Value::Null, None)),
            });
        response.private = private.encode();
        match result {
            Ok((mut state, identity)) => {
                terrarium_framework::semantic::keep_equal(
                    Shape::of(&schema),
                    &request.current_state,
                    &mut state,
                );
                response.new_state = state;
                response.new_identity = identity;
            }
            Err(d) => {
                // The resource has not gone away because reading it failed (or waits).
                response.new_state = request.current_state;
                response.new_identity = request.current_identity;
                let call = format!("Resource::read of {}", R::TYPE_NAME);
                let (deferred, diagnostics) = d.into_deferral(&request.client, &call);
                response.deferred = deferred;
                response.diagnostics.extend(diagnostics);
            }
        }
        response
    }

    fn import_state(&self, request: ImportRequest) -> ImportResponse {
        let ty = Resource::schema(self).implied_type();
        let identity = Resource::identity(self);
        let by_identity = request.identity.as_ref().filter(|i| !i.is_null());
        let (state, method) = match (by_identity, identity) {
            (Some(given), Some(identity)) => {
                (identity.state_from_identity(given), "ResourceIdentity::import_by_identity")
            }
            (Some(_), None) => (
                Err(Diagnostics::error(
                    "Import by identity not supported",
                    format!(
                        "Resources of type {} have no identity; import them by ID.",
                        R::TYPE_NAME
                    ),
                )),
                "import",
            ),
            (None, _) => (Resource::import(self, &request.id), "Resource::import"),
        };
        let result = state.and_then(|state| {
            // The imported state may not determine the identity yet (read fills it in);
            // when it does not, an identity import keeps the identity it was given.
            let computed = match identity {
                Some(identity) => identity.known_identity_value(&to_value(&state)?)?,
                None => None,
            };
            Ok((known_state(&state, &ty, "import")?, computed.or_else(|| by_identity.cloned())))
        });
        match result {
            Ok((state, identity)) => ImportResponse {
                imported: vec![ImportedResource {
                    type_name: R::TYPE_NAME.to_string(),
                    state,
                    private: Vec::new(),
                    identity,
                }],
                deferred: None,
                diagnostics: Vec::new(),
            },
            Err(d) => {
                let call = format!("{method} of {}", R::TYPE_NAME);
                let (deferred, diagnostics) = d.into_deferral(&request.client, &call);
                ImportResponse { imported: Vec::new(), deferred, diagnostics }
            }
        }
    }

    fn upgrade_state(&self, request: UpgradeRequest) -> UpgradeResponse {
        let schema = Resource::schema(self);
        let current = schema.schema_version();
        let block = schema.to_model().block;
        let result = if request.version == current {
            Ok(request.raw_state)
        } else if request.version < current {
            Resource::upgrade(self, request.version, request.raw_state)
        } else {
            Err(Diagnostics::error(
                "State written by a newer provider",
                format!(
                    "The {} state has schema version {}, but this provider only knows versions up to {current}. Use the provider version that wrote the state, or newer.",
                    R::TYPE_NAME,
                    request.version
                ),
            ))
        };
        match result.and_then(|raw| Ok(upgrade_raw_block(raw, &block)?)) {
            Ok(upgraded_state) => UpgradeResponse { upgraded_state, diagnostics: Vec::new() },
            Err(d) => UpgradeResponse { upgraded_state: Value::Null, diagnostics: d.into_vec() },
        }
    }

    fn upgrade_identity(&self, request: UpgradeIdentityRequest) -> UpgradeIdentityResponse {
        let Some(identity) = Resource::identity(self) else {
            return UpgradeIdentityResponse {
                upgraded_identity: Value::Null,
                diagnostics: vec![Diagnostic::error(
                    "Resource has no identity",
                    format!(
                        "Resources of type {} have no identity schema, so there is no identity to upgrade.",
                        R::TYPE_NAME
                    ),
                )],
            };
        };
        let schema = identity.schema();
        let current = schema.version;
        let result = if request.version == current {
            Ok(request.raw_identity)
        } else if request.version < current {
            identity.upgrade_raw_identity(request.version, request.raw_identity)
        } else {
            Err(Diagnostics::error(
                "Identity written by a newer provider",
                format!(
                    "The {} identity has identity schema version {}, but this provider only knows versions up to {current}. Use the provider version that wrote the state, or newer.",
                    R::TYPE_NAME,
                    request.version
                ),
            ))
        };
        match result.and_then(|raw| fit_raw_identity(raw, &schema)) {
            Ok(upgraded_identity) => {
                UpgradeIdentityResponse { upgraded_identity, diagnostics: Vec::new() }
            }
            Err(d) => UpgradeIdentityResponse {
                upgraded_identity: Value::Null,
                diagnostics: d.into_vec(),
            },
        }
    }

    fn move_state(&self, request: MoveRequest) -> MoveResponse {
        let mut response = MoveResponse {
            target_state: Value::Null,
            target_private: Vec::new(),
            target_identity: None,
            diagnostics: Vec::new(),
        };
        if !R::MOVES_FROM.contains(&request.source_type_name.as_str()) {
            response.diagnostics.push(Diagnostic::error(
                "Unsupported resource move",
                format!(
                    "{} cannot be moved into {} (it accepts moves from: {}).",
                    request.source_type_name,
                    R::TYPE_NAME,
                    if R::MOVES_FROM.is_empty() {
                        "none".to_string()
                    } else {
                        R::MOVES_FROM.join(", ")
                    }
                ),
            ));
            return response;
        }
        let block = Resource::schema(self).to_model().block;
        let result = Resource::move_state(self, request).and_then(|raw| {
            let state = upgrade_raw_block(raw, &block)?;
            let typed: R::State = from_value(&state)?;
            let identity =
                known_identity(Resource::identity(self), &typed, R::TYPE_NAME, "move_state")?;
            Ok((state, identity))
        });
        match result {
            Ok((state, identity)) => {
                response.target_state = state;
                response.target_identity = identity;
            }
            Err(d) => response.diagnostics = d.into_vec(),
        }
        response
    }

    fn generate_config(&self, state: Value) -> GenerateConfigResponse {
        let ty = Resource::schema(self).implied_type();
        match Resource::generate_config(self, state).and_then(|config| Ok(conform(config, &ty)?)) {
            Ok(config) => GenerateConfigResponse { config, diagnostics: Vec::new() },
            Err(d) => GenerateConfigResponse { config: Value::Null, diagnostics: d.into_vec() },
        }
    }
}

/// The identity a plan promises: an update keeps the prior identity (an object's identity
/// never changes); a create or replacement computes it from the planned state's identity
/// attributes, and is null while they are not all known (Terraform cannot show a plan with
/// an unknown identity; a null one reads "known after apply").
fn planned_identity<S>(
    identity: &dyn AnyIdentity<S>,
    prior_state: &Value,
    prior_identity: Option<Value>,
    planned_state: &Value,
    replaced: bool,
) -> Result<Value> {
    if !prior_state.is_null()
        && !replaced
        && let Some(prior) = prior_identity.filter(|i| !i.is_null())
    {
        return Ok(prior);
    }
    Ok(identity.known_identity_value(planned_state)?.unwrap_or(Value::Null))
}

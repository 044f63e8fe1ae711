//! Managed resource RPCs: validate, read, plan, apply, import, upgrade (state and identity),
//! move, generate configuration. Identities travel beside states, in the type's identity schema.

use terrarium_model::{Diagnostic, Type, Value};
use wasmtime::Store;

use super::types::*;
use super::{
    Dispatcher, Knownness, Subject, answer, behaviour, checked, checked_from_guest,
    client_capabilities, deferred_from_wit, known_type, value_from_guest,
};
use terrarium_runtime::{self as runtime, HostState, guest, wit, wit_behaviour};

const KIND: &str = "resource";

/// What a PlanResourceChange request hands the guest besides its states.
struct PlanExtras {
    provider_meta: Option<wit::Value>,
    prior_identity: Option<wit::Value>,
}

/// A plan of a component that declares its behaviour, before its checks.
struct BehaviourPlan {
    planned: Value,
    requires_replace: Vec<terrarium_model::AttributePath>,
    private: Vec<u8>,
    deferred: Option<DeferredReason>,
    diagnostics: Vec<Diagnostic>,
    identity: Option<wit::Value>,
}

impl Dispatcher {
    /// The value type of managed resource type `name`, or the diagnostic that lists the
    /// provider's types.
    pub fn resource_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        known_type(KIND, name, self.schemas.resource(name), self.schemas.resource_names())
    }

    /// The identity type of managed resource type `name`, or the diagnostic for `subject`
    /// (the call that needs it) that says it has none.
    pub fn identity_type(
        &self,
        subject: Subject<'_>,
        name: &str,
    ) -> Result<&Type, Vec<Diagnostic>> {
        self.resource_type(name)?;
        self.schemas.identity(name).ok_or_else(|| {
            vec![Diagnostic::error(
                "Resource type has no identity",
                format!("{subject} needs a resource identity, but this provider declares no identity schema for {name:?}."),
            )]
        })
    }

    /// An identity Terraform sent, for the guest. Types without an identity schema get none
    /// (Terraform sends none for them), nor does a null identity.
    fn identity_for_guest(&self, type_name: &str, identity: Option<&Value>) -> Option<wit::Value> {
        match (identity, self.schemas.identity(type_name)) {
            (Some(Value::Null), _) | (None, _) | (_, None) => None,
            (Some(value), Some(_)) => Some(runtime::value_to_wit(value)),
        }
    }

    /// An identity the guest returned, checked against the type's identity schema; problems
    /// join `diagnostics`.
    fn checked_identity(
        &self,
        subject: Subject<'_>,
        what: &str,
        type_name: &str,
        identity: Option<wit::Value>,
        known: Knownness,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        let identity = identity?;
        let Some(ty) = self.schemas.identity(type_name) else {
            diagnostics.push(Diagnostic::error(
                "Provider returned an invalid value",
                format!(
                    "{subject} returned a {what}, but the provider declares no identity schema for {type_name:?}. \
                     This is a bug in the provider; Terrarium refused the value so that Terraform never sees it."
                ),
            ));
            return None;
        };
        checked_from_guest(subject, what, identity, ty, known)
            .map_err(|d| diagnostics.extend(d))
            .ok()
    }

    /// The identity a call returned, unless the guest or the checks of its state already
    /// reported errors (as [`Dispatcher::checked_result`]); problems with it join `diagnostics`.
    fn checked_identity_result(
        &self,
        subject: Subject<'_>,
        what: &str,
        type_name: &str,
        identity: Option<wit::Value>,
        known: Knownness,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        if terrarium_model::has_errors(diagnostics) {
            return None;
        }
        self.checked_identity(subject, what, type_name, identity, known, diagnostics)
    }

    pub async fn validate_resource_config(
        &self,
        type_name: &str,
        config: &Value,
        client: ClientCapabilities,
    ) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateResourceConfig", kind: KIND, name: type_name };
        // A Terraform without write-only attributes (before 1.11) would store their values in
        // its state: the host refuses them for every guest, whatever language built it.
        if !client.write_only_attributes_allowed {
            let refused = self.configured_write_only(type_name, config);
            if !refused.is_empty() {
                return refused;
            }
        }
        let client = client_capabilities(client);
        self.validate_config(
            subject,
            self.resource_type(type_name),
            self.schema().resources.get(type_name).map(|s| &s.block),
            config,
            async |g, s, config| {
                g.call_validate_resource_config(s, type_name, config, client).await
            },
        )
        .await
    }

    /// Errors for the write-only attributes `config` sets.
    fn configured_write_only(&self, type_name: &str, config: &Value) -> Vec<Diagnostic> {
        let Some(schema) = self.schema().resources.get(type_name) else {
            return Vec::new();
        };
        schema
            .block
            .configured_write_only(config)
            .into_iter()
            .map(|path| {
                Diagnostic::error(
                    "Write-only attribute not supported",
                    format!(
                        "{path} of {KIND} {type_name:?} is write-only, and this Terraform does not support write-only \
                         attributes: it would store the value in its state. Use Terraform 1.11 or newer (OpenTofu 1.11 or \
                         newer), or remove {path} from the configuration."
                    ),
                )
                .at(path)
            })
            .collect()
    }

    pub async fn read_resource(&self, request: &ReadResourceRequest) -> ReadResourceResponse {
        let subject = Subject { rpc: "ReadResource", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ReadResourceResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let wit_request = guest::ReadResourceRequest {
                type_name: request.type_name.clone(),
                current_state: runtime::value_to_wit(&request.current_state),
                private: request.private.clone(),
                provider_meta: self.provider_meta(request.provider_meta.as_ref()),
                client: client_capabilities(request.client),
                current_identity: self
                    .identity_for_guest(&request.type_name, request.current_identity.as_ref()),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_read_resource(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let new_state = self.checked_state(
                subject,
                "new state",
                r.new_state,
                &request.current_state,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            let new_identity = self.checked_identity_result(
                subject,
                "new identity",
                &request.type_name,
                r.new_identity,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(ReadResourceResponse {
                new_state,
                private: r.private,
                deferred: deferred_from_wit(r.deferred),
                diagnostics,
                new_identity,
            })
        };
        answer(run()).await
    }

    pub async fn plan_resource_change(
        &self,
        request: &PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let subject = Subject { rpc: "PlanResourceChange", kind: KIND, name: &request.type_name };
        let run = async || -> Result<PlanResourceChangeResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let extras = PlanExtras {
                provider_meta: self.provider_meta(request.provider_meta.as_ref()),
                prior_identity: self
                    .identity_for_guest(&request.type_name, request.prior_identity.as_ref()),
            };
            if let Some(schema) = self.behaviour_schema(subject) {
                return self.plan_by_behaviour(subject, schema, ty, request, extras).await;
            }
            let wit_request = guest::PlanResourceChangeRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(&request.prior_state),
                proposed_new_state: runtime::value_to_wit(&request.proposed_new_state),
                config: runtime::value_to_wit(&request.config),
                prior_private: request.prior_private.clone(),
                provider_meta: extras.provider_meta,
                client: client_capabilities(request.client),
                prior_identity: extras.prior_identity,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_plan_resource_change(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let planned_state = self.checked_result(
                subject,
                "planned state",
                r.planned_state,
                ty,
                Knownness::MayBeUnknown,
                &mut diagnostics,
            );
            let planned_identity = self.checked_identity_result(
                subject,
                "planned identity",
                &request.type_name,
                r.planned_identity,
                Knownness::KnownOrNull,
                &mut diagnostics,
            );
            Ok(PlanResourceChangeResponse {
                planned_state,
                requires_replace: r
                    .requires_replace
                    .into_iter()
                    .map(runtime::path_from_wit)
                    .collect(),
                planned_private: r.planned_private,
                deferred: deferred_from_wit(r.deferred),
                diagnostics,
                planned_identity,
            })
        };
        answer(run()).await
    }

    /// PlanResourceChange for a component that declares its behaviour: the host's default
    /// plan (its hooks answered by the guest), adjusted by the guest's plan hook when the
    /// type asks for one, then checked as Terraform will check it.
    async fn plan_by_behaviour(
        &self,
        subject: Subject<'_>,
        schema: &terrarium_framework::schema::Schema,
        ty: &Type,
        request: &PlanResourceChangeRequest,
        extras: PlanExtras,
    ) -> Result<PlanResourceChangeResponse, Vec<Diagnostic>> {
        let PlanExtras { provider_meta, prior_identity } = extras;
        let (prior, proposed, config) =
            (&request.prior_state, &request.proposed_new_state, &request.config);
        let (planned, requires_replace) =
            self.behaviour_default_plan(subject, schema, prior, proposed, config).await?;
        let destroy = proposed.is_null();
        let hooked = self.has_plan_hook(&request.type_name);
        let mut plan = if hooked {
            let wit_request = wit_behaviour::PlanResourceRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(prior),
                planned_state: runtime::value_to_wit(&planned),
                requires_replace: requires_replace.iter().map(runtime::path_to_wit).collect(),
                config: runtime::value_to_wit(config),
                prior_private: request.prior_private.clone(),
                provider_meta,
                client: client_capabilities(request.client),
                prior_identity,
            };
            let r = self
                .call_behaviour(
                    subject,
                    async |b: &wit_behaviour::Guest, s: &mut Store<HostState>| {
                        b.call_plan_resource(s, &wit_request).await
                    },
                )
                .await?;
            BehaviourPlan {
                planned: self.declared_value(
                    subject,
                    &planned,
                    value_from_guest(subject, "planned state", r.planned_state)?,
                ),
                requires_replace: r
                    .requires_replace
                    .into_iter()
                    .map(runtime::path_from_wit)
                    .collect(),
                private: r.planned_private,
                deferred: deferred_from_wit(r.deferred),
                diagnostics: runtime::diagnostics_from_wit(r.diagnostics),
                identity: r.planned_identity,
            }
        } else {
            // The object keeps its identity unless it is created or replaced.
            let keeps_identity = destroy || (!prior.is_null() && requires_replace.is_empty());
            BehaviourPlan {
                planned,
                requires_replace,
                private: request.prior_private.clone(),
                deferred: None,
                diagnostics: Vec::new(),
                identity: if keeps_identity { prior_identity } else { None },
            }
        };
        if !destroy && !terrarium_model::has_errors(&plan.diagnostics) {
            plan.diagnostics.extend(behaviour::check_behaviour_plan(
                schema,
                &request.type_name,
                hooked,
                config,
                &plan.planned,
            ));
        }
        let planned_state = if terrarium_model::has_errors(&plan.diagnostics) {
            None
        } else {
            checked(subject, "planned state", &plan.planned, ty, Knownness::MayBeUnknown)
                .map_err(|d| plan.diagnostics.extend(d))
                .ok()
        };
        let planned_identity = self.checked_identity_result(
            subject,
            "planned identity",
            &request.type_name,
            plan.identity,
            Knownness::KnownOrNull,
            &mut plan.diagnostics,
        );
        Ok(PlanResourceChangeResponse {
            planned_state,
            requires_replace: plan.requires_replace,
            planned_private: plan.private,
            deferred: plan.deferred,
            diagnostics: plan.diagnostics,
            planned_identity,
        })
    }

    pub async fn apply_resource_change(
        &self,
        request: &ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let subject = Subject { rpc: "ApplyResourceChange", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ApplyResourceChangeResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let behaviour = self.behaviour_schema(subject);
            let (prior, planned, config) =
                (&request.prior_state, &request.planned_state, &request.config);
            let for_guest = match behaviour {
                Some(schema) if !planned.is_null() => {
                    Some(behaviour::planned_for_apply(schema, planned.clone(), config))
                }
                _ => None,
            };
            let wit_request = guest::ApplyResourceChangeRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(prior),
                planned_state: runtime::value_to_wit(for_guest.as_ref().unwrap_or(planned)),
                config: runtime::value_to_wit(config),
                planned_private: request.planned_private.clone(),
                provider_meta: self.provider_meta(request.provider_meta.as_ref()),
                planned_identity: self
                    .identity_for_guest(&request.type_name, request.planned_identity.as_ref()),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_apply_resource_change(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            // Even a failed apply reports the state it left behind, so Terraform records
            // partial progress; only a value that does not fit the schema is withheld.
            let new_state = value_from_guest(subject, "new state", r.new_state).and_then(|new| {
                let new = self.declared_value(subject, planned, new);
                let new = match behaviour {
                    Some(schema) if !planned.is_null() => {
                        let method = if prior.is_null() { "create" } else { "update" };
                        let failed = terrarium_model::has_errors(&diagnostics);
                        behaviour::settle_applied(
                            schema,
                            &request.type_name,
                            method,
                            planned,
                            new,
                            failed,
                            &mut diagnostics,
                        )
                    }
                    _ => new,
                };
                checked(subject, "new state", &new, ty, Knownness::WhollyKnown)
            });
            let new_state = match new_state {
                Ok(v) => Some(v),
                Err(d) => {
                    diagnostics.extend(d);
                    None
                }
            };
            let new_identity = self.checked_identity(
                subject,
                "new identity",
                &request.type_name,
                r.new_identity,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(ApplyResourceChangeResponse {
                new_state,
                private: r.private,
                diagnostics,
                new_identity,
            })
        };
        answer(run()).await
    }

    pub async fn import_resource_state(
        &self,
        request: &ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let subject = Subject { rpc: "ImportResourceState", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ImportResourceStateResponse, Vec<Diagnostic>> {
            self.resource_type(&request.type_name)?;
            let identity = match &request.identity {
                Some(identity) => {
                    self.identity_type(subject, &request.type_name)?;
                    Some(runtime::value_to_wit(identity))
                }
                None => None,
            };
            let wit_request = guest::ImportResourceStateRequest {
                type_name: request.type_name.clone(),
                id: request.id.clone(),
                client: client_capabilities(request.client),
                identity,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_import_resource_state(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let mut imported = Vec::new();
            if !terrarium_model::has_errors(&diagnostics) {
                for item in r.imported {
                    let ty = match self.resource_type(&item.type_name) {
                        Ok(ty) => ty,
                        Err(d) => {
                            diagnostics.extend(d);
                            continue;
                        }
                    };
                    let of_type = Subject { name: &item.type_name, ..subject };
                    let state = match value_from_guest(subject, "imported state", item.state)
                        .map(|v| self.declared_value(of_type, &Value::Null, v))
                        .and_then(|v| {
                            checked(subject, "imported state", &v, ty, Knownness::WhollyKnown)
                        }) {
                        Ok(state) => state,
                        Err(d) => {
                            diagnostics.extend(d);
                            continue;
                        }
                    };
                    let identity = self.checked_identity(
                        subject,
                        "imported identity",
                        &item.type_name,
                        item.identity,
                        Knownness::WhollyKnown,
                        &mut diagnostics,
                    );
                    imported.push(ImportedResource {
                        type_name: item.type_name,
                        state,
                        private: item.private,
                        identity,
                    });
                }
            }
            Ok(ImportResourceStateResponse {
                imported,
                deferred: deferred_from_wit(r.deferred),
                diagnostics,
            })
        };
        answer(run()).await
    }

    pub async fn upgrade_resource_state(
        &self,
        request: &UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let subject = Subject { rpc: "UpgradeResourceState", kind: KIND, name: &request.type_name };
        let run = async || -> Result<UpgradeResourceStateResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let raw_state = self.declared_raw_state(subject, &request.raw_state);
            let wit_request = guest::UpgradeResourceStateRequest {
                type_name: request.type_name.clone(),
                version: request.version,
                raw_state: runtime::value_to_wit(&raw_state),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_upgrade_resource_state(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let upgraded_state = self.checked_state(
                subject,
                "upgraded state",
                r.upgraded_state,
                &raw_state,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(UpgradeResourceStateResponse { upgraded_state, diagnostics })
        };
        answer(run()).await
    }

    pub async fn upgrade_resource_identity(
        &self,
        request: &UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        let subject =
            Subject { rpc: "UpgradeResourceIdentity", kind: KIND, name: &request.type_name };
        let run = async || -> Result<UpgradeResourceIdentityResponse, Vec<Diagnostic>> {
            let ty = self.identity_type(subject, &request.type_name)?;
            let wit_request = guest::UpgradeResourceIdentityRequest {
                type_name: request.type_name.clone(),
                version: request.version,
                raw_identity: runtime::value_to_wit(&request.raw_identity),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_upgrade_resource_identity(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let upgraded_identity = self.checked_result(
                subject,
                "upgraded identity",
                r.upgraded_identity,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(UpgradeResourceIdentityResponse { upgraded_identity, diagnostics })
        };
        answer(run()).await
    }

    pub async fn move_resource_state(
        &self,
        request: &MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        let subject =
            Subject { rpc: "MoveResourceState", kind: KIND, name: &request.target_type_name };
        let run = async || -> Result<MoveResourceStateResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.target_type_name)?;
            if !self.schema().capabilities.move_resource_state {
                return Err(vec![not_declared(subject, "move_resource_state")]);
            }
            let source_identity = request.source_identity.as_ref().map(runtime::value_to_wit);
            let wit_request = guest::MoveResourceStateRequest {
                source_provider_address: request.source_provider_address.clone(),
                source_type_name: request.source_type_name.clone(),
                source_schema_version: request.source_schema_version,
                source_state: runtime::value_to_wit(&request.source_state),
                target_type_name: request.target_type_name.clone(),
                source_private: request.source_private.clone(),
                source_identity,
                source_identity_schema_version: request.source_identity_schema_version,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_move_resource_state(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let target_state = self.checked_state(
                Subject { name: &request.target_type_name, ..subject },
                "target state",
                r.target_state,
                &Value::Null,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            let target_identity = self.checked_identity_result(
                subject,
                "target identity",
                &request.target_type_name,
                r.target_identity,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(MoveResourceStateResponse {
                target_state,
                target_private: r.target_private,
                target_identity,
                diagnostics,
            })
        };
        answer(run()).await
    }

    pub async fn generate_resource_config(
        &self,
        type_name: &str,
        state: &Value,
    ) -> GenerateResourceConfigResponse {
        let subject = Subject { rpc: "GenerateResourceConfig", kind: KIND, name: type_name };
        let run = async || -> Result<GenerateResourceConfigResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(type_name)?;
            if !self.server_capabilities().generate_resource_config {
                return Err(vec![not_declared(subject, "generate_resource_config")]);
            }
            if let Some(schema) = self.behaviour_schema(subject) {
                // A component that declares its behaviour: the configuration follows from its
                // schema, as the Rust SDK derives it (every language gets it, none copies it).
                let config = terrarium_framework::plan::generated_config(schema, state.clone());
                let config =
                    checked(subject, "configuration", &config, ty, Knownness::WhollyKnown)?;
                return Ok(GenerateResourceConfigResponse {
                    config: Some(config),
                    diagnostics: Vec::new(),
                });
            }
            let state = runtime::value_to_wit(state);
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_generate_resource_config(s, type_name, &state).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let config = self.checked_result(
                subject,
                "configuration",
                r.config,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            Ok(GenerateResourceConfigResponse { config, diagnostics })
        };
        answer(run()).await
    }
}

/// An RPC whose capability the provider does not declare (Terraform should not have sent it).
fn not_declared(subject: Subject<'_>, capability: &str) -> Diagnostic {
    Diagnostic::error(
        "Not supported by this provider",
        format!(
            "This provider does not declare the {capability} capability, so it cannot serve {subject}."
        ),
    )
}

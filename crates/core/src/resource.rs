//! Managed resource RPCs: validate, read, plan, apply, import, upgrade (state and identity),
//! move, generate configuration. Identities travel beside states, in the type's identity schema.

use terrarium_model::{Diagnostic, Type, Value};
use wasmtime::Store;

use super::types::*;
use super::{
    Dispatcher, Knownness, Subject, answer, client_capabilities, declared, deferred_from_wit,
    encode_checked, encode_value_checked, known_type, value_from_guest,
};
use terrarium_runtime::{self as runtime, HostState, guest, wit, wit_behaviour};

const KIND: &str = "resource";

/// The values of a PlanResourceChange request, decoded.
struct PlanValues {
    prior: Value,
    proposed: Value,
    config: Value,
    provider_meta: Option<wit::Value>,
    prior_identity: Option<wit::Value>,
}

/// A plan of a component that declares its behaviour, before its checks.
struct DeclaredPlan {
    planned: Value,
    requires_replace: Vec<terrarium_model::AttributePath>,
    private: Vec<u8>,
    deferred: Option<DeferredReason>,
    diagnostics: Vec<Diagnostic>,
    identity: Option<wit::Value>,
}

impl Dispatcher {
    fn resource_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        known_type(KIND, name, self.schemas.resource(name), self.schemas.resource_names())
    }

    fn identity_type(&self, subject: Subject<'_>, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        self.resource_type(name)?;
        self.schemas.identity(name).ok_or_else(|| {
            vec![Diagnostic::error(
                "Resource type has no identity",
                format!("{subject} needs a resource identity, but this provider declares no identity schema for {name:?}."),
            )]
        })
    }

    /// An identity Terraform sent, decoded with the type's identity schema. Types without one
    /// get none (Terraform sends none for them).
    fn decode_identity(
        &self,
        subject: Subject<'_>,
        what: &str,
        type_name: &str,
        identity: Option<&DynamicValue>,
    ) -> Result<Option<wit::Value>, Vec<Diagnostic>> {
        let (Some(identity), Some(ty)) = (identity, self.schemas.identity(type_name)) else {
            return Ok(None);
        };
        match self.decode(subject, what, identity, ty)? {
            terrarium_model::Value::Null => Ok(None),
            value => Ok(Some(runtime::value_to_wit(&value))),
        }
    }

    /// An identity the guest returned, checked against the type's identity schema and encoded;
    /// problems join `diagnostics`.
    fn encode_identity(
        &self,
        subject: Subject<'_>,
        what: &str,
        type_name: &str,
        identity: Option<wit::Value>,
        known: Knownness,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<DynamicValue> {
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
        encode_checked(subject, what, identity, ty, known).map_err(|d| diagnostics.extend(d)).ok()
    }

    /// The identity a call returned, unless the guest or the checks of its state already
    /// reported errors (as [`Dispatcher::encode_result`]); problems with it join `diagnostics`.
    fn encode_identity_result(
        &self,
        subject: Subject<'_>,
        what: &str,
        type_name: &str,
        identity: Option<wit::Value>,
        known: Knownness,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<DynamicValue> {
        if terrarium_model::has_errors(diagnostics) {
            return None;
        }
        self.encode_identity(subject, what, type_name, identity, known, diagnostics)
    }

    pub async fn validate_resource_config(
        &self,
        type_name: &str,
        config: &DynamicValue,
        client: ClientCapabilities,
    ) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateResourceConfig", kind: KIND, name: type_name };
        // A Terraform without write-only attributes (before 1.11) would store their values in
        // its state: the host refuses them for every guest, whatever language built it.
        if !client.write_only_attributes_allowed {
            let refused = self.configured_write_only(subject, type_name, config);
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

    /// Errors for the write-only attributes `config` sets (none when it cannot be decoded:
    /// validation then reports that).
    fn configured_write_only(
        &self,
        subject: Subject<'_>,
        type_name: &str,
        config: &DynamicValue,
    ) -> Vec<Diagnostic> {
        let (Some(schema), Ok(ty)) =
            (self.schema().resources.get(type_name), self.resource_type(type_name))
        else {
            return Vec::new();
        };
        let Ok(config) = self.decode(subject, "configuration", config, ty) else {
            return Vec::new();
        };
        schema
            .block
            .configured_write_only(&config)
            .into_iter()
            .map(|path| {
                Diagnostic::error(
                    "Write-only attribute not supported",
                    format!(
                        "{path} of {KIND} {type_name:?} is write-only, and this Terraform does not support write-only \
                         attributes: it would store the value in its state. Use Terraform 1.11 or newer, or remove {path} \
                         from the configuration."
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
                current_state: runtime::value_to_wit(&self.decode(
                    subject,
                    "current state",
                    &request.current_state,
                    ty,
                )?),
                private: request.private.clone(),
                provider_meta: self
                    .decode_provider_meta(subject, request.provider_meta.as_ref())?,
                client: client_capabilities(request.client),
                current_identity: self.decode_identity(
                    subject,
                    "current identity",
                    &request.type_name,
                    request.current_identity.as_ref(),
                )?,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_read_resource(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let new_state = self.encode_result(
                subject,
                "new state",
                r.new_state,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            let new_identity = self.encode_identity_result(
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
            let values = PlanValues {
                prior: self.decode(subject, "prior state", &request.prior_state, ty)?,
                proposed: self.decode(
                    subject,
                    "proposed new state",
                    &request.proposed_new_state,
                    ty,
                )?,
                config: self.decode(subject, "configuration", &request.config, ty)?,
                provider_meta: self
                    .decode_provider_meta(subject, request.provider_meta.as_ref())?,
                prior_identity: self.decode_identity(
                    subject,
                    "prior identity",
                    &request.type_name,
                    request.prior_identity.as_ref(),
                )?,
            };
            if let Some(schema) = self.declared(subject) {
                return self.plan_declared(subject, schema, ty, request, values).await;
            }
            let wit_request = guest::PlanResourceChangeRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(&values.prior),
                proposed_new_state: runtime::value_to_wit(&values.proposed),
                config: runtime::value_to_wit(&values.config),
                prior_private: request.prior_private.clone(),
                provider_meta: values.provider_meta,
                client: client_capabilities(request.client),
                prior_identity: values.prior_identity,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_plan_resource_change(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let planned_state = self.encode_result(
                subject,
                "planned state",
                r.planned_state,
                ty,
                Knownness::MayBeUnknown,
                &mut diagnostics,
            );
            let planned_identity = self.encode_identity_result(
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
    async fn plan_declared(
        &self,
        subject: Subject<'_>,
        schema: &terrarium_framework::schema::Schema,
        ty: &Type,
        request: &PlanResourceChangeRequest,
        values: PlanValues,
    ) -> Result<PlanResourceChangeResponse, Vec<Diagnostic>> {
        let PlanValues { prior, proposed, config, provider_meta, prior_identity } = values;
        let (planned, requires_replace) =
            self.declared_default_plan(subject, schema, &prior, &proposed, &config).await?;
        let destroy = proposed.is_null();
        let hooked = self.declared_plan_hook(&request.type_name);
        let mut plan = if hooked {
            let wit_request = wit_behaviour::PlanResourceRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(&prior),
                planned_state: runtime::value_to_wit(&planned),
                requires_replace: requires_replace.iter().map(runtime::path_to_wit).collect(),
                config: runtime::value_to_wit(&config),
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
            DeclaredPlan {
                planned: value_from_guest(subject, "planned state", r.planned_state)?,
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
            DeclaredPlan {
                planned,
                requires_replace,
                private: request.prior_private.clone(),
                deferred: None,
                diagnostics: Vec::new(),
                identity: if keeps_identity { prior_identity } else { None },
            }
        };
        if !destroy && !terrarium_model::has_errors(&plan.diagnostics) {
            plan.diagnostics.extend(declared::check_declared_plan(
                schema,
                &request.type_name,
                hooked,
                &config,
                &plan.planned,
            ));
        }
        let planned_state = if terrarium_model::has_errors(&plan.diagnostics) {
            None
        } else {
            encode_value_checked(
                subject,
                "planned state",
                &plan.planned,
                ty,
                Knownness::MayBeUnknown,
            )
            .map_err(|d| plan.diagnostics.extend(d))
            .ok()
        };
        let planned_identity = self.encode_identity_result(
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
            let declared = self.declared(subject);
            let prior = self.decode(subject, "prior state", &request.prior_state, ty)?;
            let planned = self.decode(subject, "planned state", &request.planned_state, ty)?;
            let config = self.decode(subject, "configuration", &request.config, ty)?;
            let for_guest = match declared {
                Some(schema) if !planned.is_null() => {
                    declared::planned_for_apply(schema, planned.clone(), &config)
                }
                _ => planned.clone(),
            };
            let wit_request = guest::ApplyResourceChangeRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(&prior),
                planned_state: runtime::value_to_wit(&for_guest),
                config: runtime::value_to_wit(&config),
                planned_private: request.planned_private.clone(),
                provider_meta: self
                    .decode_provider_meta(subject, request.provider_meta.as_ref())?,
                planned_identity: self.decode_identity(
                    subject,
                    "planned identity",
                    &request.type_name,
                    request.planned_identity.as_ref(),
                )?,
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
                let new = match declared {
                    Some(schema) if !planned.is_null() => {
                        let method = if prior.is_null() { "create" } else { "update" };
                        let failed = terrarium_model::has_errors(&diagnostics);
                        declared::settle_applied(
                            schema,
                            &request.type_name,
                            method,
                            &planned,
                            new,
                            failed,
                            &mut diagnostics,
                        )
                    }
                    _ => new,
                };
                encode_value_checked(subject, "new state", &new, ty, Knownness::WhollyKnown)
            });
            let new_state = match new_state {
                Ok(v) => Some(v),
                Err(d) => {
                    diagnostics.extend(d);
                    None
                }
            };
            let new_identity = self.encode_identity(
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
                    let ty = self.identity_type(subject, &request.type_name)?;
                    Some(runtime::value_to_wit(&self.decode(subject, "identity", identity, ty)?))
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
                    let state = match encode_checked(
                        subject,
                        "imported state",
                        item.state,
                        ty,
                        Knownness::WhollyKnown,
                    ) {
                        Ok(state) => state,
                        Err(d) => {
                            diagnostics.extend(d);
                            continue;
                        }
                    };
                    let identity = self.encode_identity(
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
            if request.raw_state.json.is_empty() && !request.raw_state.flatmap.is_empty() {
                return Err(vec![Diagnostic::error(
                    "Unsupported state format",
                    format!(
                        "The stored state of this {} is in the legacy flatmap format written by Terraform 0.11 \
                         and earlier, which Terrarium providers do not read. Refresh the state with the provider \
                         that wrote it under Terraform 0.12 or later, then switch to this provider.",
                        request.type_name
                    ),
                )]);
            }
            let raw = self.decode_raw_json(subject, "state", &request.raw_state.json)?;
            let wit_request = guest::UpgradeResourceStateRequest {
                type_name: request.type_name.clone(),
                version: request.version,
                raw_state: runtime::value_to_wit(&raw),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_upgrade_resource_state(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let upgraded_state = self.encode_result(
                subject,
                "upgraded state",
                r.upgraded_state,
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
            let raw = self.decode_raw_json(subject, "identity", &request.raw_identity.json)?;
            let wit_request = guest::UpgradeResourceIdentityRequest {
                type_name: request.type_name.clone(),
                version: request.version,
                raw_identity: runtime::value_to_wit(&raw),
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_upgrade_resource_identity(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let upgraded_identity = self.encode_result(
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
            let source_state =
                self.decode_raw_json(subject, "source state", &request.source_state.json)?;
            let source_identity = match &request.source_identity {
                Some(raw) if !raw.json.is_empty() => Some(runtime::value_to_wit(
                    &self.decode_raw_json(subject, "source identity", &raw.json)?,
                )),
                _ => None,
            };
            let wit_request = guest::MoveResourceStateRequest {
                source_provider_address: request.source_provider_address.clone(),
                source_type_name: request.source_type_name.clone(),
                source_schema_version: request.source_schema_version,
                source_state: runtime::value_to_wit(&source_state),
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
            let target_state = self.encode_result(
                subject,
                "target state",
                r.target_state,
                ty,
                Knownness::WhollyKnown,
                &mut diagnostics,
            );
            let target_identity = self.encode_identity_result(
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
        state: &DynamicValue,
    ) -> GenerateResourceConfigResponse {
        let subject = Subject { rpc: "GenerateResourceConfig", kind: KIND, name: type_name };
        let run = async || -> Result<GenerateResourceConfigResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(type_name)?;
            if !self.server_capabilities().generate_resource_config {
                return Err(vec![not_declared(subject, "generate_resource_config")]);
            }
            let state = self.decode(subject, "state", state, ty)?;
            if let Some(schema) = self.declared(subject) {
                // A component that declares its behaviour: the configuration follows from its
                // schema, as the Rust SDK derives it (every language gets it, none copies it).
                let config = terrarium_framework::plan::generated_config(schema, state);
                let config = encode_value_checked(
                    subject,
                    "configuration",
                    &config,
                    ty,
                    Knownness::WhollyKnown,
                )?;
                return Ok(GenerateResourceConfigResponse {
                    config: Some(config),
                    diagnostics: Vec::new(),
                });
            }
            let state = runtime::value_to_wit(&state);
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_generate_resource_config(s, type_name, &state).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let config = self.encode_result(
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

//! Managed resource RPCs: validate, read, plan, apply, import, upgrade.

use terrarium_model::{Diagnostic, Type};
use wasmtime::Store;

use super::types::*;
use super::{Knownness, Provider, Subject, client_capabilities, deferred_from_wit, unknown_type_diagnostic};
use crate::codec;
use crate::runtime::{self, HostState, guest};

const KIND: &str = "resource";

impl Provider {
    fn resource_type(&self, name: &str) -> Result<&Type, Vec<Diagnostic>> {
        self.schemas
            .resource(name)
            .ok_or_else(|| vec![unknown_type_diagnostic(KIND, name, self.schemas.resource_names())])
    }

    pub async fn validate_resource_config(
        &self,
        type_name: &str,
        config: &DynamicValue,
        client: ClientCapabilities,
    ) -> Vec<Diagnostic> {
        let subject = Subject { rpc: "ValidateResourceConfig", kind: KIND, name: type_name };
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            let ty = self.resource_type(type_name)?;
            let config = runtime::value_to_wit(&self.decode(subject, "configuration", config, ty)?);
            let client = client_capabilities(client);
            let diags = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_validate_resource_config(s, type_name, &config, client).await
                })
                .await?;
            Ok(runtime::diagnostics_from_wit(diags))
        };
        run().await.unwrap_or_else(|d| d)
    }

    pub async fn read_resource(&self, request: &ReadResourceRequest) -> ReadResourceResponse {
        let subject = Subject { rpc: "ReadResource", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ReadResourceResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let wit_request = guest::ReadResourceRequest {
                type_name: request.type_name.clone(),
                current_state: runtime::value_to_wit(&self.decode(subject, "current state", &request.current_state, ty)?),
                private: request.private.clone(),
                provider_meta: self.decode_provider_meta(subject, request.provider_meta.as_ref())?,
                client: client_capabilities(request.client),
                current_identity: None,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| g.call_read_resource(s, &wit_request).await)
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let new_state =
                self.encode_result(subject, "new state", r.new_state, ty, Knownness::WhollyKnown, &mut diagnostics);
            Ok(ReadResourceResponse { new_state, private: r.private, deferred: deferred_from_wit(r.deferred), diagnostics })
        };
        run().await.unwrap_or_else(|diagnostics| ReadResourceResponse { diagnostics, ..Default::default() })
    }

    pub async fn plan_resource_change(&self, request: &PlanResourceChangeRequest) -> PlanResourceChangeResponse {
        let subject = Subject { rpc: "PlanResourceChange", kind: KIND, name: &request.type_name };
        let run = async || -> Result<PlanResourceChangeResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let wit_request = guest::PlanResourceChangeRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(&self.decode(subject, "prior state", &request.prior_state, ty)?),
                proposed_new_state: runtime::value_to_wit(&self.decode(
                    subject,
                    "proposed new state",
                    &request.proposed_new_state,
                    ty,
                )?),
                config: runtime::value_to_wit(&self.decode(subject, "configuration", &request.config, ty)?),
                prior_private: request.prior_private.clone(),
                provider_meta: self.decode_provider_meta(subject, request.provider_meta.as_ref())?,
                client: client_capabilities(request.client),
                prior_identity: None,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_plan_resource_change(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            let planned_state =
                self.encode_result(subject, "planned state", r.planned_state, ty, Knownness::MayBeUnknown, &mut diagnostics);
            Ok(PlanResourceChangeResponse {
                planned_state,
                requires_replace: r.requires_replace.into_iter().map(runtime::path_from_wit).collect(),
                planned_private: r.planned_private,
                deferred: deferred_from_wit(r.deferred),
                diagnostics,
            })
        };
        run().await.unwrap_or_else(|diagnostics| PlanResourceChangeResponse { diagnostics, ..Default::default() })
    }

    pub async fn apply_resource_change(&self, request: &ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        let subject = Subject { rpc: "ApplyResourceChange", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ApplyResourceChangeResponse, Vec<Diagnostic>> {
            let ty = self.resource_type(&request.type_name)?;
            let wit_request = guest::ApplyResourceChangeRequest {
                type_name: request.type_name.clone(),
                prior_state: runtime::value_to_wit(&self.decode(subject, "prior state", &request.prior_state, ty)?),
                planned_state: runtime::value_to_wit(&self.decode(subject, "planned state", &request.planned_state, ty)?),
                config: runtime::value_to_wit(&self.decode(subject, "configuration", &request.config, ty)?),
                planned_private: request.planned_private.clone(),
                provider_meta: self.decode_provider_meta(subject, request.provider_meta.as_ref())?,
                planned_identity: None,
            };
            let r = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    g.call_apply_resource_change(s, &wit_request).await
                })
                .await?;
            let mut diagnostics = runtime::diagnostics_from_wit(r.diagnostics);
            // Even a failed apply reports the state it left behind, so Terraform records
            // partial progress; only a value that does not fit the schema is withheld.
            let new_state = match self.encode(subject, "new state", r.new_state, ty, Knownness::WhollyKnown) {
                Ok(v) => Some(v),
                Err(d) => {
                    diagnostics.extend(d);
                    None
                }
            };
            Ok(ApplyResourceChangeResponse { new_state, private: r.private, diagnostics })
        };
        run().await.unwrap_or_else(|diagnostics| ApplyResourceChangeResponse { diagnostics, ..Default::default() })
    }

    pub async fn import_resource_state(&self, request: &ImportResourceStateRequest) -> ImportResourceStateResponse {
        let subject = Subject { rpc: "ImportResourceState", kind: KIND, name: &request.type_name };
        let run = async || -> Result<ImportResourceStateResponse, Vec<Diagnostic>> {
            self.resource_type(&request.type_name)?;
            let wit_request = guest::ImportResourceStateRequest {
                type_name: request.type_name.clone(),
                id: request.id.clone(),
                client: client_capabilities(request.client),
                identity: None,
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
                    match self.encode(subject, "imported state", item.state, ty, Knownness::WhollyKnown) {
                        Ok(state) => imported.push(ImportedResource { type_name: item.type_name, state, private: item.private }),
                        Err(d) => diagnostics.extend(d),
                    }
                }
            }
            Ok(ImportResourceStateResponse { imported, deferred: deferred_from_wit(r.deferred), diagnostics })
        };
        run().await.unwrap_or_else(|diagnostics| ImportResourceStateResponse { diagnostics, ..Default::default() })
    }

    pub async fn upgrade_resource_state(&self, request: &UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
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
            let raw = if request.raw_state.json.is_empty() {
                terrarium_model::Value::Null
            } else {
                codec::decode_json_untyped(&request.raw_state.json).map_err(|e| {
                    vec![Diagnostic::error(
                        "Invalid stored state",
                        format!("Terrarium could not read the stored state for {subject}: {e}"),
                    )]
                })?
            };
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
            let upgraded_state =
                self.encode_result(subject, "upgraded state", r.upgraded_state, ty, Knownness::WhollyKnown, &mut diagnostics);
            Ok(UpgradeResourceStateResponse { upgraded_state, diagnostics })
        };
        run().await.unwrap_or_else(|diagnostics| UpgradeResourceStateResponse { diagnostics, ..Default::default() })
    }
}

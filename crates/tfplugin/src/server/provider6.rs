//! The tfplugin6 `Provider` service: one thin function per RPC, protobuf <-> neutral types.

use std::pin::Pin;

use futures::{Stream, StreamExt};
use terrarium_model::{Diagnostic, Severity};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::convert::*;
use super::edge::{Decode, encode, encode_identity};
use super::{ProviderService, not_supported};
use pb::*;
use terrarium_core::types as dt;
use terrarium_core::{Dispatcher, Subject};
use terrarium_model::{Type, Value};
use terrarium_proto::tfplugin6 as pb;

type Reply<T> = Result<Response<T>, Status>;
type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

fn ok<T>(t: T) -> Reply<T> {
    Ok(Response::new(t))
}

fn one<T: Send + 'static>(item: T) -> EventStream<T> {
    Box::pin(futures::stream::once(async move { Ok(item) }))
}

/// A `Validate*Config` RPC: the configuration decoded with `ty` (the type's, or the
/// diagnostic for an unknown type), then `validate`'s diagnostics.
async fn validate(
    p: &Dispatcher,
    subject: Subject<'_>,
    ty: Result<&Type, Vec<Diagnostic>>,
    config: Option<&pb::DynamicValue>,
    validate: impl AsyncFnOnce(&Value) -> Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let config = ty.and_then(|ty| Decode { p, subject }.value("configuration", config, ty));
    match config {
        Ok(config) => validate(&config).await,
        Err(d) => d,
    }
}

impl ProviderService {
    /// Runs an RPC whose diagnostics the person sees, and adds the warnings the serving source
    /// left for the next such call (a reload that failed, in `terrarium dev`).
    async fn shown<T: Shown>(&self, answer: impl Future<Output = Reply<T>>) -> Reply<T> {
        let mut response = answer.await?;
        let warnings = self.serving.take_warnings();
        response.get_mut().diagnostics().extend(diagnostics_to_pb(warnings));
        Ok(response)
    }

    /// The component's capabilities, except that a schema that may change between calls
    /// (`terrarium dev`) must be fetched by every provider process of a run.
    fn capabilities(&self, p: &Dispatcher) -> pb::ServerCapabilities {
        let mut capabilities = capabilities_to_pb(&p.server_capabilities());
        if self.serving.may_change() {
            capabilities.get_provider_schema_optional = false;
        }
        capabilities
    }
}

/// A response whose diagnostics the person sees (Terraform drops those of the schema calls).
trait Shown {
    fn diagnostics(&mut self) -> &mut Vec<pb::Diagnostic>;
}

macro_rules! shown {
    ($($rpc:ident),* $(,)?) => {
        $(impl Shown for $rpc::Response {
            fn diagnostics(&mut self) -> &mut Vec<pb::Diagnostic> {
                &mut self.diagnostics
            }
        })*
    };
}

shown!(
    validate_provider_config,
    validate_resource_config,
    validate_data_resource_config,
    upgrade_resource_state,
    configure_provider,
    read_resource,
    plan_resource_change,
    apply_resource_change,
    import_resource_state,
    read_data_source,
);

/// Events a streaming RPC holds between the guest and Terraform: the guest waits while this
/// many are unread, so a stream of any length runs in bounded memory.
const STREAM_BUFFER: usize = 16;

#[tonic::async_trait]
impl provider_server::Provider for ProviderService {
    async fn get_metadata(
        &self,
        _: Request<get_metadata::Request>,
    ) -> Reply<get_metadata::Response> {
        let p = match self.schema_provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(get_metadata::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let s = p.schema();
        ok(get_metadata::Response {
            server_capabilities: Some(self.capabilities(&p)),
            resources: s
                .resources
                .keys()
                .map(|n| get_metadata::ResourceMetadata { type_name: n.clone() })
                .collect(),
            data_sources: s
                .data_sources
                .keys()
                .map(|n| get_metadata::DataSourceMetadata { type_name: n.clone() })
                .collect(),
            functions: s
                .functions
                .keys()
                .map(|n| get_metadata::FunctionMetadata { name: n.clone() })
                .collect(),
            ephemeral_resources: s
                .ephemeral_resources
                .keys()
                .map(|n| get_metadata::EphemeralMetadata { type_name: n.clone() })
                .collect(),
            list_resources: s
                .list_resources
                .keys()
                .map(|n| get_metadata::ListResourceMetadata { type_name: n.clone() })
                .collect(),
            actions: s
                .actions
                .keys()
                .map(|n| get_metadata::ActionMetadata { type_name: n.clone() })
                .collect(),
            diagnostics: diagnostics_to_pb(p.schema_diagnostics().to_vec()),
            ..Default::default()
        })
    }

    async fn get_provider_schema(
        &self,
        _: Request<get_provider_schema::Request>,
    ) -> Reply<get_provider_schema::Response> {
        let p = match self.schema_provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(get_provider_schema::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let s = p.schema();
        let computed_blocks = self.computed_blocks_allowed();
        let schema_to_pb =
            |schema: &terrarium_model::schema::Schema| schema_to_pb(schema, computed_blocks);
        ok(get_provider_schema::Response {
            provider: Some(schema_to_pb(&s.provider)),
            provider_meta: s.provider_meta.as_ref().map(schema_to_pb),
            resource_schemas: s
                .resources
                .iter()
                .map(|(k, v)| (k.clone(), schema_to_pb(v)))
                .collect(),
            data_source_schemas: s
                .data_sources
                .iter()
                .map(|(k, v)| (k.clone(), schema_to_pb(v)))
                .collect(),
            functions: s.functions.iter().map(|(k, f)| (k.clone(), function_to_pb(f))).collect(),
            ephemeral_resource_schemas: s
                .ephemeral_resources
                .iter()
                .map(|(k, v)| (k.clone(), schema_to_pb(v)))
                .collect(),
            list_resource_schemas: s
                .list_resources
                .iter()
                .map(|(k, v)| (k.clone(), schema_to_pb(v)))
                .collect(),
            action_schemas: s
                .actions
                .iter()
                .map(|(k, v)| (k.clone(), ActionSchema { schema: Some(schema_to_pb(v)) }))
                .collect(),
            server_capabilities: Some(self.capabilities(&p)),
            diagnostics: diagnostics_to_pb(p.schema_diagnostics().to_vec()),
            ..Default::default()
        })
    }

    async fn validate_provider_config(
        &self,
        r: Request<validate_provider_config::Request>,
    ) -> Reply<validate_provider_config::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let diags = match self.provider().await {
                Ok(p) => {
                    let subject =
                        Subject { rpc: "ValidateProviderConfig", kind: "provider", name: "" };
                    let ty = Ok(p.schemas().provider());
                    validate(&p, subject, ty, r.config.as_ref(), async |c| {
                        p.validate_provider_config(c).await
                    })
                    .await
                }
                Err(d) => d,
            };
            ok(validate_provider_config::Response { diagnostics: diagnostics_to_pb(diags) })
        })
        .await
    }

    async fn validate_resource_config(
        &self,
        r: Request<validate_resource_config::Request>,
    ) -> Reply<validate_resource_config::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let diags = match self.provider().await {
                Ok(p) => {
                    let subject = Subject {
                        rpc: "ValidateResourceConfig",
                        kind: "resource",
                        name: &r.type_name,
                    };
                    let client = self.client(r.client_capabilities);
                    let ty = p.resource_type(&r.type_name);
                    validate(&p, subject, ty, r.config.as_ref(), async |c| {
                        p.validate_resource_config(&r.type_name, c, client).await
                    })
                    .await
                }
                Err(d) => d,
            };
            ok(validate_resource_config::Response { diagnostics: diagnostics_to_pb(diags) })
        })
        .await
    }

    async fn validate_data_resource_config(
        &self,
        r: Request<validate_data_resource_config::Request>,
    ) -> Reply<validate_data_resource_config::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let diags = match self.provider().await {
                Ok(p) => {
                    let subject = Subject {
                        rpc: "ValidateDataResourceConfig",
                        kind: "data source",
                        name: &r.type_name,
                    };
                    let ty = p.data_source_type(&r.type_name);
                    validate(&p, subject, ty, r.config.as_ref(), async |c| {
                        p.validate_data_source_config(&r.type_name, c).await
                    })
                    .await
                }
                Err(d) => d,
            };
            ok(validate_data_resource_config::Response { diagnostics: diagnostics_to_pb(diags) })
        })
        .await
    }

    async fn upgrade_resource_state(
        &self,
        r: Request<upgrade_resource_state::Request>,
    ) -> Reply<upgrade_resource_state::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let p = match self.provider().await {
                Ok(p) => p,
                Err(d) => {
                    return ok(upgrade_resource_state::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let subject =
                Subject { rpc: "UpgradeResourceState", kind: "resource", name: &r.type_name };
            let raw = r.raw_state.unwrap_or_default();
            let decoded = p.resource_type(&r.type_name).and_then(|_| {
                if raw.json.is_empty() && !raw.flatmap.is_empty() {
                    return Err(vec![legacy_flatmap(&r.type_name)]);
                }
                Decode { p: &p, subject }.raw_json("state", &raw.json)
            });
            let raw_state = match decoded {
                Ok(raw_state) => raw_state,
                Err(d) => {
                    return ok(upgrade_resource_state::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let mut out = p
                .upgrade_resource_state(&dt::UpgradeResourceStateRequest {
                    type_name: r.type_name.clone(),
                    version: r.version,
                    raw_state,
                })
                .await;
            let ty = p.schemas().resource(&r.type_name);
            let upgraded_state =
                encode(subject, "upgraded state", out.upgraded_state, ty, &mut out.diagnostics);
            ok(upgrade_resource_state::Response {
                upgraded_state,
                diagnostics: diagnostics_to_pb(out.diagnostics),
            })
        })
        .await
    }

    async fn get_resource_identity_schemas(
        &self,
        _: Request<get_resource_identity_schemas::Request>,
    ) -> Reply<get_resource_identity_schemas::Response> {
        let p = match self.schema_provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(get_resource_identity_schemas::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        ok(get_resource_identity_schemas::Response {
            identity_schemas: p
                .identity_schemas()
                .iter()
                .map(|(k, s)| (k.clone(), identity_schema_to_pb(s)))
                .collect(),
            diagnostics: Vec::new(),
        })
    }

    async fn upgrade_resource_identity(
        &self,
        r: Request<upgrade_resource_identity::Request>,
    ) -> Reply<upgrade_resource_identity::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(upgrade_resource_identity::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let subject =
            Subject { rpc: "UpgradeResourceIdentity", kind: "resource", name: &r.type_name };
        let raw = r.raw_identity.unwrap_or_default();
        let decoded = p
            .identity_type(subject, &r.type_name)
            .and_then(|_| Decode { p: &p, subject }.raw_json("identity", &raw.json));
        let raw_identity = match decoded {
            Ok(raw_identity) => raw_identity,
            Err(d) => {
                return ok(upgrade_resource_identity::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let mut out = p
            .upgrade_resource_identity(&dt::UpgradeResourceIdentityRequest {
                type_name: r.type_name.clone(),
                version: r.version,
                raw_identity,
            })
            .await;
        let upgraded_identity = encode_identity(
            subject,
            "upgraded identity",
            &p,
            &r.type_name,
            out.upgraded_identity,
            &mut out.diagnostics,
        );
        ok(upgrade_resource_identity::Response {
            upgraded_identity,
            diagnostics: diagnostics_to_pb(out.diagnostics),
        })
    }

    async fn configure_provider(
        &self,
        r: Request<configure_provider::Request>,
    ) -> Reply<configure_provider::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let diags = match self.provider().await {
                Ok(p) => {
                    let subject = Subject { rpc: "ConfigureProvider", kind: "provider", name: "" };
                    let decode = Decode { p: &p, subject };
                    match decode.value("configuration", r.config.as_ref(), p.schemas().provider()) {
                        Ok(config) => {
                            let diags = p
                                .configure(&dt::ConfigureRequest {
                                    terraform_version: r.terraform_version,
                                    config,
                                    client: self.client(r.client_capabilities),
                                })
                                .await;
                            if !diags.iter().any(|d| d.severity == Severity::Error) {
                                // A swap may have happened while this ran: an accepted
                                // configuration belongs to the new build too.
                                self.serving.configured(&p).await;
                            }
                            diags
                        }
                        Err(d) => d,
                    }
                }
                Err(d) => d,
            };
            ok(configure_provider::Response { diagnostics: diagnostics_to_pb(diags) })
        })
        .await
    }

    async fn read_resource(
        &self,
        r: Request<read_resource::Request>,
    ) -> Reply<read_resource::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let p = match self.provider().await {
                Ok(p) => p,
                Err(d) => {
                    return ok(read_resource::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let subject = Subject { rpc: "ReadResource", kind: "resource", name: &r.type_name };
            let decode = Decode { p: &p, subject };
            let request = p.resource_type(&r.type_name).and_then(|ty| {
                Ok(dt::ReadResourceRequest {
                    type_name: r.type_name.clone(),
                    current_state: decode.value("current state", r.current_state.as_ref(), ty)?,
                    private: r.private,
                    provider_meta: decode.provider_meta(r.provider_meta.as_ref())?,
                    client: self.client(r.client_capabilities),
                    current_identity: decode.identity(
                        "current identity",
                        &r.type_name,
                        r.current_identity.as_ref(),
                    )?,
                })
            });
            let request = match request {
                Ok(request) => request,
                Err(d) => {
                    return ok(read_resource::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let mut out = p.read_resource(&request).await;
            let ty = p.schemas().resource(&r.type_name);
            let d = &mut out.diagnostics;
            let new_state = encode(subject, "new state", out.new_state, ty, d);
            let new_identity =
                encode_identity(subject, "new identity", &p, &r.type_name, out.new_identity, d);
            ok(read_resource::Response {
                new_state,
                private: out.private,
                deferred: deferred(out.deferred),
                diagnostics: diagnostics_to_pb(out.diagnostics),
                new_identity,
            })
        })
        .await
    }

    async fn plan_resource_change(
        &self,
        r: Request<plan_resource_change::Request>,
    ) -> Reply<plan_resource_change::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let p = match self.provider().await {
                Ok(p) => p,
                Err(d) => {
                    return ok(plan_resource_change::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let subject =
                Subject { rpc: "PlanResourceChange", kind: "resource", name: &r.type_name };
            let decode = Decode { p: &p, subject };
            let request = p.resource_type(&r.type_name).and_then(|ty| {
                Ok(dt::PlanResourceChangeRequest {
                    type_name: r.type_name.clone(),
                    prior_state: decode.value("prior state", r.prior_state.as_ref(), ty)?,
                    proposed_new_state: decode.value(
                        "proposed new state",
                        r.proposed_new_state.as_ref(),
                        ty,
                    )?,
                    config: decode.value("configuration", r.config.as_ref(), ty)?,
                    prior_private: r.prior_private,
                    provider_meta: decode.provider_meta(r.provider_meta.as_ref())?,
                    client: self.client(r.client_capabilities),
                    prior_identity: decode.identity(
                        "prior identity",
                        &r.type_name,
                        r.prior_identity.as_ref(),
                    )?,
                })
            });
            let request = match request {
                Ok(request) => request,
                Err(d) => {
                    return ok(plan_resource_change::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let mut out = p.plan_resource_change(&request).await;
            let ty = p.schemas().resource(&r.type_name);
            let d = &mut out.diagnostics;
            let planned_state = encode(subject, "planned state", out.planned_state, ty, d);
            let planned_identity = encode_identity(
                subject,
                "planned identity",
                &p,
                &r.type_name,
                out.planned_identity,
                d,
            );
            ok(plan_resource_change::Response {
                planned_state,
                requires_replace: out.requires_replace.iter().map(path_to_pb).collect(),
                planned_private: out.planned_private,
                diagnostics: diagnostics_to_pb(out.diagnostics),
                legacy_type_system: false,
                deferred: deferred(out.deferred),
                planned_identity,
            })
        })
        .await
    }

    async fn apply_resource_change(
        &self,
        r: Request<apply_resource_change::Request>,
    ) -> Reply<apply_resource_change::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let p = match self.provider().await {
                Ok(p) => p,
                Err(d) => {
                    return ok(apply_resource_change::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let subject =
                Subject { rpc: "ApplyResourceChange", kind: "resource", name: &r.type_name };
            let decode = Decode { p: &p, subject };
            let request = p.resource_type(&r.type_name).and_then(|ty| {
                Ok(dt::ApplyResourceChangeRequest {
                    type_name: r.type_name.clone(),
                    prior_state: decode.value("prior state", r.prior_state.as_ref(), ty)?,
                    planned_state: decode.value("planned state", r.planned_state.as_ref(), ty)?,
                    config: decode.value("configuration", r.config.as_ref(), ty)?,
                    planned_private: r.planned_private,
                    provider_meta: decode.provider_meta(r.provider_meta.as_ref())?,
                    planned_identity: decode.identity(
                        "planned identity",
                        &r.type_name,
                        r.planned_identity.as_ref(),
                    )?,
                })
            });
            let request = match request {
                Ok(request) => request,
                Err(d) => {
                    return ok(apply_resource_change::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let mut out = p.apply_resource_change(&request).await;
            let ty = p.schemas().resource(&r.type_name);
            let d = &mut out.diagnostics;
            let new_state = encode(subject, "new state", out.new_state, ty, d);
            let new_identity =
                encode_identity(subject, "new identity", &p, &r.type_name, out.new_identity, d);
            ok(apply_resource_change::Response {
                new_state,
                private: out.private,
                diagnostics: diagnostics_to_pb(out.diagnostics),
                legacy_type_system: false,
                new_identity,
            })
        })
        .await
    }

    async fn import_resource_state(
        &self,
        r: Request<import_resource_state::Request>,
    ) -> Reply<import_resource_state::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let p = match self.provider().await {
                Ok(p) => p,
                Err(d) => {
                    return ok(import_resource_state::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let subject =
                Subject { rpc: "ImportResourceState", kind: "resource", name: &r.type_name };
            let identity = p.resource_type(&r.type_name).and_then(|_| {
                match r.identity.as_ref().map(|i| i.identity_data.as_ref()) {
                    Some(data) => {
                        let ty = p.identity_type(subject, &r.type_name)?;
                        Ok(Some(Decode { p: &p, subject }.value("identity", data, ty)?))
                    }
                    None => Ok(None),
                }
            });
            let identity = match identity {
                Ok(identity) => identity,
                Err(d) => {
                    return ok(import_resource_state::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let mut out = p
                .import_resource_state(&dt::ImportResourceStateRequest {
                    type_name: r.type_name.clone(),
                    id: r.id,
                    client: self.client(r.client_capabilities),
                    identity,
                })
                .await;
            let mut imported_resources = Vec::with_capacity(out.imported.len());
            for i in std::mem::take(&mut out.imported) {
                let d = &mut out.diagnostics;
                let ty = p.schemas().resource(&i.type_name);
                imported_resources.push(import_resource_state::ImportedResource {
                    state: encode(subject, "imported state", Some(i.state), ty, d),
                    identity: encode_identity(
                        subject,
                        "imported identity",
                        &p,
                        &i.type_name,
                        i.identity,
                        d,
                    ),
                    type_name: i.type_name,
                    private: i.private,
                });
            }
            ok(import_resource_state::Response {
                imported_resources,
                diagnostics: diagnostics_to_pb(out.diagnostics),
                deferred: deferred(out.deferred),
            })
        })
        .await
    }

    async fn move_resource_state(
        &self,
        r: Request<move_resource_state::Request>,
    ) -> Reply<move_resource_state::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(move_resource_state::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let subject =
            Subject { rpc: "MoveResourceState", kind: "resource", name: &r.target_type_name };
        let decode = Decode { p: &p, subject };
        // An unknown type or an undeclared capability is the core's to answer, before the
        // states are read.
        let declared = p.resource_type(&r.target_type_name).is_ok()
            && p.schema().capabilities.move_resource_state;
        let states = if declared {
            let source_identity = r.source_identity.as_ref().filter(|raw| !raw.json.is_empty());
            (|| {
                let state = r.source_state.as_ref().map(|raw| raw.json.as_slice()).unwrap_or(&[]);
                Ok((
                    decode.raw_json("source state", state)?,
                    match source_identity {
                        Some(raw) => Some(decode.raw_json("source identity", &raw.json)?),
                        None => None,
                    },
                ))
            })()
        } else {
            Ok((Value::Null, None))
        };
        let (source_state, source_identity) = match states {
            Ok(states) => states,
            Err(d) => {
                return ok(move_resource_state::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let mut out = p
            .move_resource_state(&dt::MoveResourceStateRequest {
                source_provider_address: r.source_provider_address,
                source_type_name: r.source_type_name,
                source_schema_version: r.source_schema_version,
                source_state,
                target_type_name: r.target_type_name.clone(),
                source_private: r.source_private,
                source_identity,
                source_identity_schema_version: r.source_identity_schema_version,
            })
            .await;
        let ty = p.schemas().resource(&r.target_type_name);
        let d = &mut out.diagnostics;
        let target_state = encode(subject, "target state", out.target_state, ty, d);
        let target_identity = encode_identity(
            subject,
            "target identity",
            &p,
            &r.target_type_name,
            out.target_identity,
            d,
        );
        ok(move_resource_state::Response {
            target_state,
            diagnostics: diagnostics_to_pb(out.diagnostics),
            target_private: out.target_private,
            target_identity,
        })
    }

    async fn read_data_source(
        &self,
        r: Request<read_data_source::Request>,
    ) -> Reply<read_data_source::Response> {
        self.shown(async move {
            let r = r.into_inner();
            let p = match self.provider().await {
                Ok(p) => p,
                Err(d) => {
                    return ok(read_data_source::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let subject =
                Subject { rpc: "ReadDataSource", kind: "data source", name: &r.type_name };
            let decode = Decode { p: &p, subject };
            let request = p.data_source_type(&r.type_name).and_then(|ty| {
                Ok(dt::ReadDataSourceRequest {
                    type_name: r.type_name.clone(),
                    config: decode.value("configuration", r.config.as_ref(), ty)?,
                    provider_meta: decode.provider_meta(r.provider_meta.as_ref())?,
                    client: self.client(r.client_capabilities),
                })
            });
            let request = match request {
                Ok(request) => request,
                Err(d) => {
                    return ok(read_data_source::Response {
                        diagnostics: diagnostics_to_pb(d),
                        ..Default::default()
                    });
                }
            };
            let mut out = p.read_data_source(&request).await;
            let ty = p.schemas().data_source(&r.type_name);
            let state = encode(subject, "state", out.state, ty, &mut out.diagnostics);
            ok(read_data_source::Response {
                state,
                diagnostics: diagnostics_to_pb(out.diagnostics),
                deferred: deferred(out.deferred),
            })
        })
        .await
    }

    async fn generate_resource_config(
        &self,
        r: Request<generate_resource_config::Request>,
    ) -> Reply<generate_resource_config::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(generate_resource_config::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let subject =
            Subject { rpc: "GenerateResourceConfig", kind: "resource", name: &r.type_name };
        // An unknown type or an undeclared capability is the core's to answer, before the
        // state is read.
        let state = match p.resource_type(&r.type_name) {
            Ok(ty) if p.server_capabilities().generate_resource_config => {
                Decode { p: &p, subject }.value("state", r.state.as_ref(), ty)
            }
            _ => Ok(Value::Null),
        };
        let state = match state {
            Ok(state) => state,
            Err(d) => {
                return ok(generate_resource_config::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let mut out = p.generate_resource_config(&r.type_name, &state).await;
        let ty = p.schemas().resource(&r.type_name);
        let config = encode(subject, "configuration", out.config, ty, &mut out.diagnostics);
        ok(generate_resource_config::Response {
            config,
            diagnostics: diagnostics_to_pb(out.diagnostics),
        })
    }

    async fn validate_ephemeral_resource_config(
        &self,
        r: Request<validate_ephemeral_resource_config::Request>,
    ) -> Reply<validate_ephemeral_resource_config::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => {
                let subject = Subject {
                    rpc: "ValidateEphemeralResourceConfig",
                    kind: "ephemeral resource",
                    name: &r.type_name,
                };
                let ty = p.ephemeral_resource_type(&r.type_name);
                validate(&p, subject, ty, r.config.as_ref(), async |c| {
                    p.validate_ephemeral_resource_config(&r.type_name, c).await
                })
                .await
            }
            Err(d) => d,
        };
        ok(validate_ephemeral_resource_config::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn open_ephemeral_resource(
        &self,
        r: Request<open_ephemeral_resource::Request>,
    ) -> Reply<open_ephemeral_resource::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(open_ephemeral_resource::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let subject = Subject {
            rpc: "OpenEphemeralResource",
            kind: "ephemeral resource",
            name: &r.type_name,
        };
        let config = p
            .ephemeral_resource_type(&r.type_name)
            .and_then(|ty| Decode { p: &p, subject }.value("configuration", r.config.as_ref(), ty));
        let config = match config {
            Ok(config) => config,
            Err(d) => {
                return ok(open_ephemeral_resource::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let mut out = p
            .open_ephemeral_resource(&dt::OpenEphemeralResourceRequest {
                type_name: r.type_name.clone(),
                config,
                client: self.client(r.client_capabilities),
            })
            .await;
        let ty = p.schemas().ephemeral_resource(&r.type_name);
        let result = encode(subject, "result", out.result, ty, &mut out.diagnostics);
        ok(open_ephemeral_resource::Response {
            diagnostics: diagnostics_to_pb(out.diagnostics),
            renew_at: out.renew_at.map(timestamp_to_pb),
            result,
            private: out.private,
            deferred: deferred(out.deferred),
        })
    }

    async fn renew_ephemeral_resource(
        &self,
        r: Request<renew_ephemeral_resource::Request>,
    ) -> Reply<renew_ephemeral_resource::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(renew_ephemeral_resource::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let out = p.renew_ephemeral_resource(&r.type_name, r.private).await;
        ok(renew_ephemeral_resource::Response {
            diagnostics: diagnostics_to_pb(out.diagnostics),
            renew_at: out.renew_at.map(timestamp_to_pb),
            private: out.private,
        })
    }

    async fn close_ephemeral_resource(
        &self,
        r: Request<close_ephemeral_resource::Request>,
    ) -> Reply<close_ephemeral_resource::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => p.close_ephemeral_resource(&r.type_name, r.private).await,
            Err(d) => d,
        };
        ok(close_ephemeral_resource::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    type ListResourceStream = EventStream<list_resource::Event>;

    async fn list_resource(
        &self,
        r: Request<list_resource::Request>,
    ) -> Reply<Self::ListResourceStream> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(one(list_resource::Event {
                    diagnostic: diagnostics_to_pb(d),
                    ..Default::default()
                }));
            }
        };
        let subject = Subject { rpc: "ListResource", kind: "list resource", name: &r.type_name };
        let config = p
            .list_resource_type(&r.type_name)
            .and_then(|ty| Decode { p: &p, subject }.value("configuration", r.config.as_ref(), ty));
        let config = match config {
            Ok(config) => config,
            Err(d) => {
                return ok(one(list_resource::Event {
                    diagnostic: diagnostics_to_pb(d),
                    ..Default::default()
                }));
            }
        };
        let request = dt::ListResourceRequest {
            type_name: r.type_name,
            config,
            include_resource_object: r.include_resource_object,
            limit: r.limit,
        };
        let types = (
            p.schemas().identity(&request.type_name).cloned(),
            p.schemas().resource(&request.type_name).cloned(),
        );
        let (events, received) = mpsc::channel(STREAM_BUFFER);
        let type_name = request.type_name.clone();
        // The guest call runs beside the response stream and ends when it does (or, if
        // Terraform hangs up, when the guest notices); it owns what it needs.
        tokio::spawn(async move { p.list_resource(&request, events).await });
        let stream = ReceiverStream::new(received).map(move |mut e: dt::ListEvent| {
            let subject = Subject { rpc: "ListResource", kind: "list resource", name: &type_name };
            let (identity_ty, resource_ty) = (types.0.as_ref(), types.1.as_ref());
            let d = &mut e.diagnostics;
            let identity = encode(subject, "item identity", e.identity, identity_ty, d)
                .map(|data| pb::ResourceIdentityData { identity_data: Some(data) });
            let resource_object =
                encode(subject, "item resource object", e.resource_object, resource_ty, d);
            Ok(list_resource::Event {
                identity,
                display_name: e.display_name,
                resource_object,
                diagnostic: diagnostics_to_pb(e.diagnostics),
            })
        });
        ok(Box::pin(stream))
    }

    async fn validate_list_resource_config(
        &self,
        r: Request<validate_list_resource_config::Request>,
    ) -> Reply<validate_list_resource_config::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => {
                let subject = Subject {
                    rpc: "ValidateListResourceConfig",
                    kind: "list resource",
                    name: &r.type_name,
                };
                let ty = p.list_resource_type(&r.type_name);
                validate(&p, subject, ty, r.config.as_ref(), async |c| {
                    p.validate_list_resource_config(&r.type_name, c).await
                })
                .await
            }
            Err(d) => d,
        };
        ok(validate_list_resource_config::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn get_functions(
        &self,
        _: Request<get_functions::Request>,
    ) -> Reply<get_functions::Response> {
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(get_functions::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        ok(get_functions::Response {
            functions: p
                .schema()
                .functions
                .iter()
                .map(|(k, f)| (k.clone(), function_to_pb(f)))
                .collect(),
            diagnostics: Vec::new(),
        })
    }

    async fn call_function(
        &self,
        r: Request<call_function::Request>,
    ) -> Reply<call_function::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                let text = d
                    .iter()
                    .map(|d| format!("{}: {}", d.summary, d.detail))
                    .collect::<Vec<_>>()
                    .join("\n");
                return ok(call_function::Response {
                    result: None,
                    error: Some(FunctionError { text, function_argument: None }),
                });
            }
        };
        let function_error =
            |e: dt::FunctionError| FunctionError { text: e.text, function_argument: e.argument };
        let function = match p.function_for_call(&r.name, r.arguments.len()) {
            Ok(function) => function,
            Err(e) => {
                return ok(call_function::Response {
                    result: None,
                    error: Some(function_error(e)),
                });
            }
        };
        let mut args = Vec::with_capacity(r.arguments.len());
        for (i, arg) in r.arguments.iter().enumerate() {
            let param = function.parameters.get(i).or(function.variadic.as_ref());
            let ty = param.map(|p| &p.ty).unwrap_or(&Type::Dynamic);
            match terrarium_codec::decode_dynamic_value(&arg.msgpack, &arg.json, ty) {
                Ok(v) => args.push(v),
                Err(e) => {
                    return ok(call_function::Response {
                        result: None,
                        error: Some(FunctionError {
                            text: format!("argument {} could not be decoded: {e}", i + 1),
                            function_argument: Some(i as i64),
                        }),
                    });
                }
            }
        }
        let out = p.call_function(&r.name, &args).await;
        let subject = Subject { rpc: "CallFunction", kind: "function", name: &r.name };
        let mut problems = Vec::new();
        let result =
            encode(subject, "result", out.result, Some(&function.return_type), &mut problems);
        let error = match problems.first() {
            Some(problem) => {
                Some(FunctionError { text: problem.detail.clone(), function_argument: None })
            }
            None => out.error.map(function_error),
        };
        ok(call_function::Response { result, error })
    }

    async fn validate_state_store_config(
        &self,
        _: Request<validate_state_store::Request>,
    ) -> Reply<validate_state_store::Response> {
        ok(validate_state_store::Response { diagnostics: not_supported("state stores") })
    }

    async fn configure_state_store(
        &self,
        _: Request<configure_state_store::Request>,
    ) -> Reply<configure_state_store::Response> {
        ok(configure_state_store::Response {
            diagnostics: not_supported("state stores"),
            ..Default::default()
        })
    }

    type ReadStateBytesStream = EventStream<read_state_bytes::Response>;

    async fn read_state_bytes(
        &self,
        _: Request<read_state_bytes::Request>,
    ) -> Reply<Self::ReadStateBytesStream> {
        ok(one(read_state_bytes::Response {
            diagnostics: not_supported("state stores"),
            ..Default::default()
        }))
    }

    async fn write_state_bytes(
        &self,
        _: Request<tonic::Streaming<write_state_bytes::RequestChunk>>,
    ) -> Reply<write_state_bytes::Response> {
        ok(write_state_bytes::Response { diagnostics: not_supported("state stores") })
    }

    async fn lock_state(&self, _: Request<lock_state::Request>) -> Reply<lock_state::Response> {
        ok(lock_state::Response {
            diagnostics: not_supported("state stores"),
            ..Default::default()
        })
    }

    async fn unlock_state(
        &self,
        _: Request<unlock_state::Request>,
    ) -> Reply<unlock_state::Response> {
        ok(unlock_state::Response { diagnostics: not_supported("state stores") })
    }

    async fn get_states(&self, _: Request<get_states::Request>) -> Reply<get_states::Response> {
        ok(get_states::Response {
            diagnostics: not_supported("state stores"),
            ..Default::default()
        })
    }

    async fn delete_state(
        &self,
        _: Request<delete_state::Request>,
    ) -> Reply<delete_state::Response> {
        ok(delete_state::Response { diagnostics: not_supported("state stores") })
    }

    async fn plan_action(&self, r: Request<plan_action::Request>) -> Reply<plan_action::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                return ok(plan_action::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let subject = Subject { rpc: "PlanAction", kind: "action", name: &r.action_type };
        let config = p
            .action_type(&r.action_type)
            .and_then(|ty| Decode { p: &p, subject }.value("configuration", r.config.as_ref(), ty));
        let config = match config {
            Ok(config) => config,
            Err(d) => {
                return ok(plan_action::Response {
                    diagnostics: diagnostics_to_pb(d),
                    ..Default::default()
                });
            }
        };
        let out = p
            .plan_action(&dt::ActionRequest {
                type_name: r.action_type.clone(),
                config,
                client: self.client(r.client_capabilities),
            })
            .await;
        ok(plan_action::Response {
            diagnostics: diagnostics_to_pb(out.diagnostics),
            deferred: deferred(out.deferred),
        })
    }

    type InvokeActionStream = EventStream<invoke_action::Event>;

    async fn invoke_action(
        &self,
        r: Request<invoke_action::Request>,
    ) -> Reply<Self::InvokeActionStream> {
        use invoke_action::event::{Completed, Progress, Type};
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                let completed = Completed { diagnostics: diagnostics_to_pb(d) };
                return ok(one(invoke_action::Event { r#type: Some(Type::Completed(completed)) }));
            }
        };
        let subject = Subject { rpc: "InvokeAction", kind: "action", name: &r.action_type };
        let config = p
            .action_type(&r.action_type)
            .and_then(|ty| Decode { p: &p, subject }.value("configuration", r.config.as_ref(), ty));
        let config = match config {
            Ok(config) => config,
            Err(d) => {
                let completed = Completed { diagnostics: diagnostics_to_pb(d) };
                return ok(one(invoke_action::Event { r#type: Some(Type::Completed(completed)) }));
            }
        };
        let request = dt::ActionRequest {
            type_name: r.action_type.clone(),
            config,
            client: self.client(r.client_capabilities),
        };
        let (events, received) = mpsc::channel(STREAM_BUFFER);
        tokio::spawn(async move { p.invoke_action(&request, events).await });
        let stream = ReceiverStream::new(received).map(|e: dt::ActionEvent| {
            let event = match e {
                dt::ActionEvent::Progress(message) => Type::Progress(Progress { message }),
                dt::ActionEvent::Completed(d) => {
                    Type::Completed(Completed { diagnostics: diagnostics_to_pb(d) })
                }
            };
            Ok(invoke_action::Event { r#type: Some(event) })
        });
        ok(Box::pin(stream))
    }

    async fn validate_action_config(
        &self,
        r: Request<validate_action_config::Request>,
    ) -> Reply<validate_action_config::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => {
                let subject =
                    Subject { rpc: "ValidateActionConfig", kind: "action", name: &r.type_name };
                let ty = p.action_type(&r.type_name);
                validate(&p, subject, ty, r.config.as_ref(), async |c| {
                    p.validate_action_config(&r.type_name, c).await
                })
                .await
            }
            Err(d) => d,
        };
        ok(validate_action_config::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn stop_provider(
        &self,
        _: Request<stop_provider::Request>,
    ) -> Reply<stop_provider::Response> {
        let error = match self.provider().await {
            Ok(p) => p.stop().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        ok(stop_provider::Response { error })
    }
}

/// The stored state of a resource in the flatmap format of Terraform 0.11 and earlier.
fn legacy_flatmap(type_name: &str) -> Diagnostic {
    Diagnostic::error(
        "Unsupported state format",
        format!(
            "The stored state of this {type_name} is in the legacy flatmap format written by Terraform 0.11 \
             and earlier, which Terrarium providers do not read. Refresh the state with the provider \
             that wrote it under Terraform 0.12 or later, then switch to this provider."
        ),
    )
}

/// Diagnostics for a provider that failed to load, shown on every call.
pub(super) fn load_failure(message: &str) -> Vec<Diagnostic> {
    vec![Diagnostic::error("Failed to load the provider component", message.to_string())]
}

//! The tfplugin6 `Provider` service: one thin function per RPC, protobuf <-> neutral types.

use std::pin::Pin;

use futures::{Stream, StreamExt};
use terrarium_model::Diagnostic;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::convert::*;
use super::{ProviderService, not_supported};
use pb::*;
use terrarium_core::types as dt;
use terrarium_proto::tfplugin6 as pb;

type Reply<T> = Result<Response<T>, Status>;
type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

fn ok<T>(t: T) -> Reply<T> {
    Ok(Response::new(t))
}

fn one<T: Send + 'static>(item: T) -> EventStream<T> {
    Box::pin(futures::stream::once(async move { Ok(item) }))
}

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
            server_capabilities: Some(capabilities_to_pb(&p.server_capabilities())),
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
            server_capabilities: Some(capabilities_to_pb(&p.server_capabilities())),
            diagnostics: diagnostics_to_pb(p.schema_diagnostics().to_vec()),
            ..Default::default()
        })
    }

    async fn validate_provider_config(
        &self,
        r: Request<validate_provider_config::Request>,
    ) -> Reply<validate_provider_config::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => p.validate_provider_config(&dynamic_value(r.config)).await,
            Err(d) => d,
        };
        ok(validate_provider_config::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn validate_resource_config(
        &self,
        r: Request<validate_resource_config::Request>,
    ) -> Reply<validate_resource_config::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => {
                p.validate_resource_config(
                    &r.type_name,
                    &dynamic_value(r.config),
                    client_capabilities(r.client_capabilities),
                )
                .await
            }
            Err(d) => d,
        };
        ok(validate_resource_config::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn validate_data_resource_config(
        &self,
        r: Request<validate_data_resource_config::Request>,
    ) -> Reply<validate_data_resource_config::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => p.validate_data_source_config(&r.type_name, &dynamic_value(r.config)).await,
            Err(d) => d,
        };
        ok(validate_data_resource_config::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn upgrade_resource_state(
        &self,
        r: Request<upgrade_resource_state::Request>,
    ) -> Reply<upgrade_resource_state::Response> {
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
        let out = p
            .upgrade_resource_state(&dt::UpgradeResourceStateRequest {
                type_name: r.type_name,
                version: r.version,
                raw_state: raw_state(r.raw_state),
            })
            .await;
        ok(upgrade_resource_state::Response {
            upgraded_state: out.upgraded_state.map(dynamic_value_to_pb),
            diagnostics: diagnostics_to_pb(out.diagnostics),
        })
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
        let out = p
            .upgrade_resource_identity(&dt::UpgradeResourceIdentityRequest {
                type_name: r.type_name,
                version: r.version,
                raw_identity: raw_state(r.raw_identity),
            })
            .await;
        ok(upgrade_resource_identity::Response {
            upgraded_identity: identity_to_pb(out.upgraded_identity),
            diagnostics: diagnostics_to_pb(out.diagnostics),
        })
    }

    async fn configure_provider(
        &self,
        r: Request<configure_provider::Request>,
    ) -> Reply<configure_provider::Response> {
        let r = r.into_inner();
        let diags = match self.provider().await {
            Ok(p) => {
                p.configure(&dt::ConfigureRequest {
                    terraform_version: r.terraform_version,
                    config: dynamic_value(r.config),
                    client: client_capabilities(r.client_capabilities),
                })
                .await
            }
            Err(d) => d,
        };
        ok(configure_provider::Response { diagnostics: diagnostics_to_pb(diags) })
    }

    async fn read_resource(
        &self,
        r: Request<read_resource::Request>,
    ) -> Reply<read_resource::Response> {
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
        let out = p
            .read_resource(&dt::ReadResourceRequest {
                type_name: r.type_name,
                current_state: dynamic_value(r.current_state),
                private: r.private,
                provider_meta: r.provider_meta.map(|v| dynamic_value(Some(v))),
                client: client_capabilities(r.client_capabilities),
                current_identity: identity(r.current_identity),
            })
            .await;
        ok(read_resource::Response {
            new_state: out.new_state.map(dynamic_value_to_pb),
            private: out.private,
            deferred: deferred(out.deferred),
            diagnostics: diagnostics_to_pb(out.diagnostics),
            new_identity: identity_to_pb(out.new_identity),
        })
    }

    async fn plan_resource_change(
        &self,
        r: Request<plan_resource_change::Request>,
    ) -> Reply<plan_resource_change::Response> {
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
        let out = p
            .plan_resource_change(&dt::PlanResourceChangeRequest {
                type_name: r.type_name,
                prior_state: dynamic_value(r.prior_state),
                proposed_new_state: dynamic_value(r.proposed_new_state),
                config: dynamic_value(r.config),
                prior_private: r.prior_private,
                provider_meta: r.provider_meta.map(|v| dynamic_value(Some(v))),
                client: client_capabilities(r.client_capabilities),
                prior_identity: identity(r.prior_identity),
            })
            .await;
        ok(plan_resource_change::Response {
            planned_state: out.planned_state.map(dynamic_value_to_pb),
            requires_replace: out.requires_replace.iter().map(path_to_pb).collect(),
            planned_private: out.planned_private,
            diagnostics: diagnostics_to_pb(out.diagnostics),
            legacy_type_system: false,
            deferred: deferred(out.deferred),
            planned_identity: identity_to_pb(out.planned_identity),
        })
    }

    async fn apply_resource_change(
        &self,
        r: Request<apply_resource_change::Request>,
    ) -> Reply<apply_resource_change::Response> {
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
        let out = p
            .apply_resource_change(&dt::ApplyResourceChangeRequest {
                type_name: r.type_name,
                prior_state: dynamic_value(r.prior_state),
                planned_state: dynamic_value(r.planned_state),
                config: dynamic_value(r.config),
                planned_private: r.planned_private,
                provider_meta: r.provider_meta.map(|v| dynamic_value(Some(v))),
                planned_identity: identity(r.planned_identity),
            })
            .await;
        ok(apply_resource_change::Response {
            new_state: out.new_state.map(dynamic_value_to_pb),
            private: out.private,
            diagnostics: diagnostics_to_pb(out.diagnostics),
            legacy_type_system: false,
            new_identity: identity_to_pb(out.new_identity),
        })
    }

    async fn import_resource_state(
        &self,
        r: Request<import_resource_state::Request>,
    ) -> Reply<import_resource_state::Response> {
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
        let out = p
            .import_resource_state(&dt::ImportResourceStateRequest {
                type_name: r.type_name,
                id: r.id,
                client: client_capabilities(r.client_capabilities),
                identity: identity(r.identity),
            })
            .await;
        ok(import_resource_state::Response {
            imported_resources: out
                .imported
                .into_iter()
                .map(|i| import_resource_state::ImportedResource {
                    type_name: i.type_name,
                    state: Some(dynamic_value_to_pb(i.state)),
                    private: i.private,
                    identity: identity_to_pb(i.identity),
                })
                .collect(),
            diagnostics: diagnostics_to_pb(out.diagnostics),
            deferred: deferred(out.deferred),
        })
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
        let out = p
            .move_resource_state(&dt::MoveResourceStateRequest {
                source_provider_address: r.source_provider_address,
                source_type_name: r.source_type_name,
                source_schema_version: r.source_schema_version,
                source_state: raw_state(r.source_state),
                target_type_name: r.target_type_name,
                source_private: r.source_private,
                source_identity: r.source_identity.map(|raw| raw_state(Some(raw))),
                source_identity_schema_version: r.source_identity_schema_version,
            })
            .await;
        ok(move_resource_state::Response {
            target_state: out.target_state.map(dynamic_value_to_pb),
            diagnostics: diagnostics_to_pb(out.diagnostics),
            target_private: out.target_private,
            target_identity: identity_to_pb(out.target_identity),
        })
    }

    async fn read_data_source(
        &self,
        r: Request<read_data_source::Request>,
    ) -> Reply<read_data_source::Response> {
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
        let out = p
            .read_data_source(&dt::ReadDataSourceRequest {
                type_name: r.type_name,
                config: dynamic_value(r.config),
                provider_meta: r.provider_meta.map(|v| dynamic_value(Some(v))),
                client: client_capabilities(r.client_capabilities),
            })
            .await;
        ok(read_data_source::Response {
            state: out.state.map(dynamic_value_to_pb),
            diagnostics: diagnostics_to_pb(out.diagnostics),
            deferred: deferred(out.deferred),
        })
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
        let out = p.generate_resource_config(&r.type_name, &dynamic_value(r.state)).await;
        ok(generate_resource_config::Response {
            config: out.config.map(dynamic_value_to_pb),
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
                p.validate_ephemeral_resource_config(&r.type_name, &dynamic_value(r.config)).await
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
        let out = p
            .open_ephemeral_resource(&dt::OpenEphemeralResourceRequest {
                type_name: r.type_name,
                config: dynamic_value(r.config),
                client: client_capabilities(r.client_capabilities),
            })
            .await;
        ok(open_ephemeral_resource::Response {
            diagnostics: diagnostics_to_pb(out.diagnostics),
            renew_at: out.renew_at.map(timestamp_to_pb),
            result: out.result.map(dynamic_value_to_pb),
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
        let request = dt::ListResourceRequest {
            type_name: r.type_name,
            config: dynamic_value(r.config),
            include_resource_object: r.include_resource_object,
            limit: r.limit,
        };
        let (events, received) = mpsc::channel(STREAM_BUFFER);
        // The guest call runs beside the response stream and ends when it does (or, if
        // Terraform hangs up, when the guest notices); it owns what it needs.
        tokio::spawn(async move { p.list_resource(&request, events).await });
        let stream = ReceiverStream::new(received).map(|e: dt::ListEvent| {
            Ok(list_resource::Event {
                identity: identity_to_pb(e.identity),
                display_name: e.display_name,
                resource_object: e.resource_object.map(dynamic_value_to_pb),
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
            Ok(p) => p.validate_list_resource_config(&r.type_name, &dynamic_value(r.config)).await,
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
        let args: Vec<dt::DynamicValue> =
            r.arguments.into_iter().map(|a| dynamic_value(Some(a))).collect();
        let out = p.call_function(&r.name, &args).await;
        ok(call_function::Response {
            result: out.result.map(dynamic_value_to_pb),
            error: out.error.map(|e| FunctionError { text: e.text, function_argument: e.argument }),
        })
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
        let out = p
            .plan_action(&dt::ActionRequest {
                type_name: r.action_type,
                config: dynamic_value(r.config),
                client: client_capabilities(r.client_capabilities),
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
        let request = dt::ActionRequest {
            type_name: r.action_type,
            config: dynamic_value(r.config),
            client: client_capabilities(r.client_capabilities),
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
            Ok(p) => p.validate_action_config(&r.type_name, &dynamic_value(r.config)).await,
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

/// Diagnostics for a provider that failed to load, shown on every call.
pub(super) fn load_failure(message: &str) -> Vec<Diagnostic> {
    vec![Diagnostic::error("Failed to load the provider component", message.to_string())]
}

//! The tfplugin6 `Provider` service: one thin function per RPC, protobuf <-> neutral types.

use std::pin::Pin;

use futures::Stream;
use terrarium_model::Diagnostic;
use tonic::{Request, Response, Status};

use super::convert::*;
use super::{ProviderService, not_supported};
use crate::dispatch::types as dt;
use crate::proto::tfplugin6 as pb;
use pb::*;

type Reply<T> = Result<Response<T>, Status>;
type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

fn ok<T>(t: T) -> Reply<T> {
    Ok(Response::new(t))
}

fn one<T: Send + 'static>(item: T) -> EventStream<T> {
    Box::pin(futures::stream::once(async move { Ok(item) }))
}

#[tonic::async_trait]
impl provider_server::Provider for ProviderService {
    async fn get_metadata(&self, _: Request<get_metadata::Request>) -> Reply<get_metadata::Response> {
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(get_metadata::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        let s = p.schema();
        ok(get_metadata::Response {
            server_capabilities: Some(capabilities_to_pb(&s.capabilities)),
            resources: s.resources.keys().map(|n| get_metadata::ResourceMetadata { type_name: n.clone() }).collect(),
            data_sources: s.data_sources.keys().map(|n| get_metadata::DataSourceMetadata { type_name: n.clone() }).collect(),
            functions: s.functions.keys().map(|n| get_metadata::FunctionMetadata { name: n.clone() }).collect(),
            diagnostics: diagnostics_to_pb(p.schema_diagnostics().to_vec()),
            ..Default::default()
        })
    }

    async fn get_provider_schema(&self, _: Request<get_provider_schema::Request>) -> Reply<get_provider_schema::Response> {
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(get_provider_schema::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        let s = p.schema();
        ok(get_provider_schema::Response {
            provider: Some(schema_to_pb(&s.provider)),
            provider_meta: s.provider_meta.as_ref().map(schema_to_pb),
            resource_schemas: s.resources.iter().map(|(k, v)| (k.clone(), schema_to_pb(v))).collect(),
            data_source_schemas: s.data_sources.iter().map(|(k, v)| (k.clone(), schema_to_pb(v))).collect(),
            functions: s.functions.iter().map(|(k, f)| (k.clone(), function_to_pb(f))).collect(),
            server_capabilities: Some(capabilities_to_pb(&s.capabilities)),
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
                p.validate_resource_config(&r.type_name, &dynamic_value(r.config), client_capabilities(r.client_capabilities))
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
            Err(d) => return ok(upgrade_resource_state::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        let raw = r.raw_state.unwrap_or_default();
        let out = p
            .upgrade_resource_state(&dt::UpgradeResourceStateRequest {
                type_name: r.type_name,
                version: r.version,
                raw_state: dt::RawState { json: raw.json, flatmap: raw.flatmap.into_iter().collect() },
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
        // No resource identities yet: an empty map is how a provider says so.
        ok(get_resource_identity_schemas::Response::default())
    }

    async fn upgrade_resource_identity(
        &self,
        _: Request<upgrade_resource_identity::Request>,
    ) -> Reply<upgrade_resource_identity::Response> {
        ok(upgrade_resource_identity::Response {
            diagnostics: not_supported("UpgradeResourceIdentity"),
            ..Default::default()
        })
    }

    async fn configure_provider(&self, r: Request<configure_provider::Request>) -> Reply<configure_provider::Response> {
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

    async fn read_resource(&self, r: Request<read_resource::Request>) -> Reply<read_resource::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(read_resource::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        let out = p
            .read_resource(&dt::ReadResourceRequest {
                type_name: r.type_name,
                current_state: dynamic_value(r.current_state),
                private: r.private,
                provider_meta: r.provider_meta.map(|v| dynamic_value(Some(v))),
                client: client_capabilities(r.client_capabilities),
            })
            .await;
        ok(read_resource::Response {
            new_state: out.new_state.map(dynamic_value_to_pb),
            private: out.private,
            deferred: deferred(out.deferred),
            diagnostics: diagnostics_to_pb(out.diagnostics),
            new_identity: None,
        })
    }

    async fn plan_resource_change(&self, r: Request<plan_resource_change::Request>) -> Reply<plan_resource_change::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(plan_resource_change::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
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
            })
            .await;
        ok(plan_resource_change::Response {
            planned_state: out.planned_state.map(dynamic_value_to_pb),
            requires_replace: out.requires_replace.iter().map(path_to_pb).collect(),
            planned_private: out.planned_private,
            diagnostics: diagnostics_to_pb(out.diagnostics),
            legacy_type_system: false,
            deferred: deferred(out.deferred),
            planned_identity: None,
        })
    }

    async fn apply_resource_change(
        &self,
        r: Request<apply_resource_change::Request>,
    ) -> Reply<apply_resource_change::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(apply_resource_change::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        let out = p
            .apply_resource_change(&dt::ApplyResourceChangeRequest {
                type_name: r.type_name,
                prior_state: dynamic_value(r.prior_state),
                planned_state: dynamic_value(r.planned_state),
                config: dynamic_value(r.config),
                planned_private: r.planned_private,
                provider_meta: r.provider_meta.map(|v| dynamic_value(Some(v))),
            })
            .await;
        ok(apply_resource_change::Response {
            new_state: out.new_state.map(dynamic_value_to_pb),
            private: out.private,
            diagnostics: diagnostics_to_pb(out.diagnostics),
            legacy_type_system: false,
            new_identity: None,
        })
    }

    async fn import_resource_state(
        &self,
        r: Request<import_resource_state::Request>,
    ) -> Reply<import_resource_state::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(import_resource_state::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        if r.identity.is_some() && r.id.is_empty() {
            return ok(import_resource_state::Response {
                diagnostics: not_supported("import by resource identity"),
                ..Default::default()
            });
        }
        let out = p
            .import_resource_state(&dt::ImportResourceStateRequest {
                type_name: r.type_name,
                id: r.id,
                client: client_capabilities(r.client_capabilities),
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
                    identity: None,
                })
                .collect(),
            diagnostics: diagnostics_to_pb(out.diagnostics),
            deferred: deferred(out.deferred),
        })
    }

    async fn move_resource_state(&self, _: Request<move_resource_state::Request>) -> Reply<move_resource_state::Response> {
        ok(move_resource_state::Response { diagnostics: not_supported("MoveResourceState"), ..Default::default() })
    }

    async fn read_data_source(&self, r: Request<read_data_source::Request>) -> Reply<read_data_source::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(read_data_source::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
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
        _: Request<generate_resource_config::Request>,
    ) -> Reply<generate_resource_config::Response> {
        ok(generate_resource_config::Response {
            diagnostics: not_supported("GenerateResourceConfig"),
            ..Default::default()
        })
    }

    async fn validate_ephemeral_resource_config(
        &self,
        _: Request<validate_ephemeral_resource_config::Request>,
    ) -> Reply<validate_ephemeral_resource_config::Response> {
        ok(validate_ephemeral_resource_config::Response { diagnostics: not_supported("ephemeral resources") })
    }

    async fn open_ephemeral_resource(
        &self,
        _: Request<open_ephemeral_resource::Request>,
    ) -> Reply<open_ephemeral_resource::Response> {
        ok(open_ephemeral_resource::Response { diagnostics: not_supported("ephemeral resources"), ..Default::default() })
    }

    async fn renew_ephemeral_resource(
        &self,
        _: Request<renew_ephemeral_resource::Request>,
    ) -> Reply<renew_ephemeral_resource::Response> {
        ok(renew_ephemeral_resource::Response { diagnostics: not_supported("ephemeral resources"), ..Default::default() })
    }

    async fn close_ephemeral_resource(
        &self,
        _: Request<close_ephemeral_resource::Request>,
    ) -> Reply<close_ephemeral_resource::Response> {
        ok(close_ephemeral_resource::Response { diagnostics: not_supported("ephemeral resources") })
    }

    type ListResourceStream = EventStream<list_resource::Event>;

    async fn list_resource(&self, _: Request<list_resource::Request>) -> Reply<Self::ListResourceStream> {
        ok(one(list_resource::Event { diagnostic: not_supported("list resources"), ..Default::default() }))
    }

    async fn validate_list_resource_config(
        &self,
        _: Request<validate_list_resource_config::Request>,
    ) -> Reply<validate_list_resource_config::Response> {
        ok(validate_list_resource_config::Response { diagnostics: not_supported("list resources") })
    }

    async fn get_functions(&self, _: Request<get_functions::Request>) -> Reply<get_functions::Response> {
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => return ok(get_functions::Response { diagnostics: diagnostics_to_pb(d), ..Default::default() }),
        };
        ok(get_functions::Response {
            functions: p.schema().functions.iter().map(|(k, f)| (k.clone(), function_to_pb(f))).collect(),
            diagnostics: Vec::new(),
        })
    }

    async fn call_function(&self, r: Request<call_function::Request>) -> Reply<call_function::Response> {
        let r = r.into_inner();
        let p = match self.provider().await {
            Ok(p) => p,
            Err(d) => {
                let text = d.iter().map(|d| format!("{}: {}", d.summary, d.detail)).collect::<Vec<_>>().join("\n");
                return ok(call_function::Response {
                    result: None,
                    error: Some(FunctionError { text, function_argument: None }),
                });
            }
        };
        let args: Vec<dt::DynamicValue> = r.arguments.into_iter().map(|a| dynamic_value(Some(a))).collect();
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
        ok(configure_state_store::Response { diagnostics: not_supported("state stores"), ..Default::default() })
    }

    type ReadStateBytesStream = EventStream<read_state_bytes::Response>;

    async fn read_state_bytes(&self, _: Request<read_state_bytes::Request>) -> Reply<Self::ReadStateBytesStream> {
        ok(one(read_state_bytes::Response { diagnostics: not_supported("state stores"), ..Default::default() }))
    }

    async fn write_state_bytes(
        &self,
        _: Request<tonic::Streaming<write_state_bytes::RequestChunk>>,
    ) -> Reply<write_state_bytes::Response> {
        ok(write_state_bytes::Response { diagnostics: not_supported("state stores") })
    }

    async fn lock_state(&self, _: Request<lock_state::Request>) -> Reply<lock_state::Response> {
        ok(lock_state::Response { diagnostics: not_supported("state stores"), ..Default::default() })
    }

    async fn unlock_state(&self, _: Request<unlock_state::Request>) -> Reply<unlock_state::Response> {
        ok(unlock_state::Response { diagnostics: not_supported("state stores") })
    }

    async fn get_states(&self, _: Request<get_states::Request>) -> Reply<get_states::Response> {
        ok(get_states::Response { diagnostics: not_supported("state stores"), ..Default::default() })
    }

    async fn delete_state(&self, _: Request<delete_state::Request>) -> Reply<delete_state::Response> {
        ok(delete_state::Response { diagnostics: not_supported("state stores") })
    }

    async fn plan_action(&self, _: Request<plan_action::Request>) -> Reply<plan_action::Response> {
        ok(plan_action::Response { diagnostics: not_supported("actions"), ..Default::default() })
    }

    type InvokeActionStream = EventStream<invoke_action::Event>;

    async fn invoke_action(&self, _: Request<invoke_action::Request>) -> Reply<Self::InvokeActionStream> {
        let completed = invoke_action::event::Completed { diagnostics: not_supported("actions") };
        ok(one(invoke_action::Event { r#type: Some(invoke_action::event::Type::Completed(completed)) }))
    }

    async fn validate_action_config(
        &self,
        _: Request<validate_action_config::Request>,
    ) -> Reply<validate_action_config::Response> {
        ok(validate_action_config::Response { diagnostics: not_supported("actions") })
    }

    async fn stop_provider(&self, _: Request<stop_provider::Request>) -> Reply<stop_provider::Response> {
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

//! The tfplugin6 service `terrarium dev` serves: each call runs on the generation current when
//! it arrives, and carries the warnings a failed reload left behind.

use std::sync::Arc;

use terrarium_model::{Diagnostic, Severity};
use tonic::{Request, Response, Status};

use super::LiveProvider;
use pb::*;
use terrarium_proto::tfplugin6 as pb;
use terrarium_proto::tfplugin6::provider_server::{Provider, ProviderServer};
use terrarium_tfplugin::plugin::MAX_MESSAGE_SIZE;
use terrarium_tfplugin::server::ProviderService;

type Reply<T> = Result<Response<T>, Status>;

/// Routes every tfplugin6 call to the [`LiveProvider`]'s current generation.
#[derive(Clone)]
pub struct ReloadingService {
    live: Arc<LiveProvider>,
}

impl ReloadingService {
    pub fn new(live: Arc<LiveProvider>) -> ReloadingService {
        ReloadingService { live }
    }

    /// The tonic service with protocol 6 message limits.
    pub fn into_server(self) -> ProviderServer<ReloadingService> {
        ProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }

    /// Appends the pending reload warnings to a response's diagnostics.
    fn attach_warnings(&self, diagnostics: &mut Vec<pb::Diagnostic>) {
        diagnostics.extend(self.live.take_warnings().into_iter().map(warning_to_pb));
    }
}

fn warning_to_pb(d: Diagnostic) -> pb::Diagnostic {
    let severity = match d.severity {
        Severity::Error => diagnostic::Severity::Error,
        Severity::Warning => diagnostic::Severity::Warning,
    };
    pb::Diagnostic {
        severity: severity as i32,
        summary: d.summary,
        detail: d.detail,
        attribute: None,
    }
}

fn schema_may_change(capabilities: &mut Option<ServerCapabilities>) {
    if let Some(capabilities) = capabilities {
        capabilities.get_provider_schema_optional = false;
    }
}

/// Writes the [`Provider`] impl. Calls in `plain` pass straight through. Calls in `warned`
/// also carry pending warnings: those are the calls whose diagnostics Terraform shows to the
/// user (schema calls are left out because Terraform drops their warnings, and a warning taken
/// by them would never be seen).
macro_rules! reloading_provider {
    (
        plain { $( $plain:ident ( $plain_req:ty ) -> $plain_resp:ty ; )* }
        warned { $( $warned:ident ( $warned_req:ty ) -> $warned_resp:ty ; )* }
        streams { $( $stream:ident ( $stream_req:ty ) -> $stream_ty:ident ; )* }
    ) => {
        #[tonic::async_trait]
        impl Provider for ReloadingService {
            $(
                async fn $plain(&self, request: Request<$plain_req>) -> Reply<$plain_resp> {
                    let generation = self.live.current();
                    Provider::$plain(generation.service(), request).await
                }
            )*
            $(
                async fn $warned(&self, request: Request<$warned_req>) -> Reply<$warned_resp> {
                    let generation = self.live.current();
                    let mut response = Provider::$warned(generation.service(), request).await?;
                    self.attach_warnings(&mut response.get_mut().diagnostics);
                    Ok(response)
                }
            )*
            $(
                type $stream_ty = <ProviderService as Provider>::$stream_ty;
                async fn $stream(&self, request: Request<$stream_req>) -> Reply<Self::$stream_ty> {
                    let generation = self.live.current();
                    Provider::$stream(generation.service(), request).await
                }
            )*

            async fn configure_provider(
                &self,
                request: Request<configure_provider::Request>,
            ) -> Reply<configure_provider::Response> {
                let generation = self.live.current();
                let mut response = Provider::configure_provider(generation.service(), request).await?;
                // A swap may have happened while this ran: an accepted configuration belongs
                // to the new build too.
                let accepted = !response
                    .get_ref()
                    .diagnostics
                    .iter()
                    .any(|d| d.severity == diagnostic::Severity::Error as i32);
                if accepted {
                    self.live.carry_configuration_forward(&generation).await;
                }
                self.attach_warnings(&mut response.get_mut().diagnostics);
                Ok(response)
            }

            // A reload may change the schema, so Terraform must not skip fetching it in a
            // later provider process of the same run (the served component declares otherwise).
            async fn get_metadata(&self, request: Request<get_metadata::Request>) -> Reply<get_metadata::Response> {
                let generation = self.live.current();
                let mut response = Provider::get_metadata(generation.service(), request).await?;
                schema_may_change(&mut response.get_mut().server_capabilities);
                Ok(response)
            }

            async fn get_provider_schema(
                &self,
                request: Request<get_provider_schema::Request>,
            ) -> Reply<get_provider_schema::Response> {
                let generation = self.live.current();
                let mut response = Provider::get_provider_schema(generation.service(), request).await?;
                schema_may_change(&mut response.get_mut().server_capabilities);
                Ok(response)
            }

            async fn write_state_bytes(
                &self,
                request: Request<tonic::Streaming<write_state_bytes::RequestChunk>>,
            ) -> Reply<write_state_bytes::Response> {
                let generation = self.live.current();
                Provider::write_state_bytes(generation.service(), request).await
            }
        }
    };
}

reloading_provider! {
    plain {
        get_resource_identity_schemas(get_resource_identity_schemas::Request) -> get_resource_identity_schemas::Response;
        get_functions(get_functions::Request) -> get_functions::Response;
        call_function(call_function::Request) -> call_function::Response;
        stop_provider(stop_provider::Request) -> stop_provider::Response;
        upgrade_resource_identity(upgrade_resource_identity::Request) -> upgrade_resource_identity::Response;
        move_resource_state(move_resource_state::Request) -> move_resource_state::Response;
        generate_resource_config(generate_resource_config::Request) -> generate_resource_config::Response;
        validate_ephemeral_resource_config(validate_ephemeral_resource_config::Request) -> validate_ephemeral_resource_config::Response;
        open_ephemeral_resource(open_ephemeral_resource::Request) -> open_ephemeral_resource::Response;
        renew_ephemeral_resource(renew_ephemeral_resource::Request) -> renew_ephemeral_resource::Response;
        close_ephemeral_resource(close_ephemeral_resource::Request) -> close_ephemeral_resource::Response;
        validate_list_resource_config(validate_list_resource_config::Request) -> validate_list_resource_config::Response;
        validate_state_store_config(validate_state_store::Request) -> validate_state_store::Response;
        configure_state_store(configure_state_store::Request) -> configure_state_store::Response;
        lock_state(lock_state::Request) -> lock_state::Response;
        unlock_state(unlock_state::Request) -> unlock_state::Response;
        get_states(get_states::Request) -> get_states::Response;
        delete_state(delete_state::Request) -> delete_state::Response;
        plan_action(plan_action::Request) -> plan_action::Response;
        validate_action_config(validate_action_config::Request) -> validate_action_config::Response;
    }
    warned {
        validate_provider_config(validate_provider_config::Request) -> validate_provider_config::Response;
        validate_resource_config(validate_resource_config::Request) -> validate_resource_config::Response;
        validate_data_resource_config(validate_data_resource_config::Request) -> validate_data_resource_config::Response;
        upgrade_resource_state(upgrade_resource_state::Request) -> upgrade_resource_state::Response;
        read_resource(read_resource::Request) -> read_resource::Response;
        plan_resource_change(plan_resource_change::Request) -> plan_resource_change::Response;
        apply_resource_change(apply_resource_change::Request) -> apply_resource_change::Response;
        import_resource_state(import_resource_state::Request) -> import_resource_state::Response;
        read_data_source(read_data_source::Request) -> read_data_source::Response;
    }
    streams {
        list_resource(list_resource::Request) -> ListResourceStream;
        read_state_bytes(read_state_bytes::Request) -> ReadStateBytesStream;
        invoke_action(invoke_action::Request) -> InvokeActionStream;
    }
}

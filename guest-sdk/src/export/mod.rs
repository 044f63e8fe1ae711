//! The component's exports: WIT records in, [`Server`] calls, WIT records out.
//!
//! Everything here is plumbing: this module is the glue (one export, one [`Server`] call),
//! and [`convert`] turns the WIT records into the model's types and back.

mod convert;

use std::any::Any;
use std::cell::RefCell;

use convert::{
    client_from_wit, decode, decode_identity, decode_opt, deferred_to_wit, diagnostic_to_wit,
    diagnostics_to_wit, node_from_wit, null, path_to_wit, provider_schema_to_wit, timestamp_to_wit,
    value_to_wit,
};
use terrarium_model::flat;
use terrarium_model::{Diagnostic, Value};

use crate::__private::bindings::exports::terrarium::provider::provider as api;
use crate::__private::bindings::terrarium::provider::streams as wit_streams;
use crate::__private::bindings::terrarium::provider::types as wit;
use crate::action::ActionRequest;
use crate::provider::Provider;
use crate::rpc::{
    ApplyRequest, ConfigureRequest, ImportRequest, MoveRequest, PlanRequest, ReadDataSourceRequest,
    ReadRequest, UpgradeIdentityRequest, UpgradeRequest,
};
use crate::server::Server;
use crate::{ephemeral, list};

/// Implemented by the type [`crate::export!`] declares: names the provider type and how to
/// make one.
#[doc(hidden)]
pub trait Export: 'static {
    type Provider: Provider;
    fn create() -> Self::Provider;
}

thread_local! {
    /// The one provider of this component instance, made on first use. Components are
    /// single-threaded and serve one call at a time, so a `RefCell` is all the locking needed.
    static SERVER: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

fn with_server<E: Export, T>(f: impl FnOnce(&mut Server<E::Provider>) -> T) -> T {
    SERVER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let server = slot.get_or_insert_with(|| {
            report_panics();
            Box::new(Server::new(E::create()))
        });
        // Only `export!` creates the slot, for its one provider type.
        #[allow(clippy::expect_used, reason = "export! creates the slot for its one type")]
        let server = server
            .downcast_mut::<Server<E::Provider>>()
            .expect("a component exports exactly one provider type");
        f(server)
    })
}

/// A panic in provider code traps, and the host turns the trap into an error diagnostic;
/// the panic's message and location go to the provider log first, where they help most.
fn report_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        crate::log::log(crate::log::Level::Error, "the provider panicked", &[("panic", info)]);
        previous(info);
    }));
}

/// A `validate-*-config` export: the configuration decoded (`what` names it in the error if
/// it cannot be), then the diagnostics `validate` finds in it.
fn validate_decoded(
    config: wit::Value,
    what: &str,
    validate: impl FnOnce(&Value) -> Vec<Diagnostic>,
) -> Vec<wit::Diagnostic> {
    match decode(config, what) {
        Ok(config) => diagnostics_to_wit(validate(&config)),
        Err(d) => vec![diagnostic_to_wit(d)],
    }
}

impl<E: Export> crate::__private::bindings::exports::terrarium::provider::replacement::Guest for E {
    fn delete_before_replace() -> Vec<String> {
        with_server::<E, _>(|s| s.delete_before_replace())
    }
}

impl<E: Export> crate::__private::bindings::exports::terrarium::provider::computed_blocks::Guest
    for E
{
    fn computed_blocks()
    -> Vec<crate::__private::bindings::exports::terrarium::provider::computed_blocks::ComputedBlock>
    {
        use crate::__private::bindings::exports::terrarium::provider::computed_blocks::{
            ComputedBlock, SchemaKind,
        };
        with_server::<E, _>(|s| s.computed_blocks())
            .into_iter()
            .map(|(data_source, type_name, path)| ComputedBlock {
                kind: if data_source { SchemaKind::DataSource } else { SchemaKind::Resource },
                type_name,
                path,
            })
            .collect()
    }
}

impl<E: Export> api::Guest for E {
    fn get_schema() -> wit::ProviderSchema {
        let (schema, identities, diagnostics) = with_server::<E, _>(|s| s.schema_with_identities());
        provider_schema_to_wit(schema, identities, diagnostics)
    }

    fn validate_provider_config(config: wit::Value) -> Vec<wit::Diagnostic> {
        validate_decoded(config, "provider configuration", |config| {
            with_server::<E, _>(|s| s.validate_provider_config(config))
        })
    }

    fn validate_resource_config(
        type_name: String,
        config: wit::Value,
        client: wit::ClientCapabilities,
    ) -> Vec<wit::Diagnostic> {
        let client = client_from_wit(&client);
        validate_decoded(config, "resource configuration", |config| {
            with_server::<E, _>(|s| s.validate_resource_config_for(&type_name, config, &client))
        })
    }

    fn validate_data_source_config(type_name: String, config: wit::Value) -> Vec<wit::Diagnostic> {
        validate_decoded(config, "data source configuration", |config| {
            with_server::<E, _>(|s| s.validate_data_source_config(&type_name, config))
        })
    }

    fn configure(request: api::ConfigureRequest) -> Vec<wit::Diagnostic> {
        let config = match decode(request.config, "provider configuration") {
            Ok(config) => config,
            Err(d) => return vec![diagnostic_to_wit(d)],
        };
        let request = ConfigureRequest {
            terraform_version: request.terraform_version,
            config,
            client: client_from_wit(&request.client),
        };
        diagnostics_to_wit(with_server::<E, _>(|s| s.configure(request)))
    }

    fn read_resource(request: api::ReadResourceRequest) -> api::ReadResourceResponse {
        let provider_meta = request.provider_meta;
        let mut diagnostics = Vec::new();
        let current_state = decode_opt(request.current_state, "current state", &mut diagnostics);
        let current_identity =
            decode_identity(request.current_identity, "current identity", &mut diagnostics);
        let (Some(current_state), Some(current_identity)) = (current_state, current_identity)
        else {
            return api::ReadResourceResponse {
                new_state: null(),
                private: request.private,
                deferred: None,
                diagnostics,
                new_identity: None,
            };
        };
        let request = ReadRequest {
            type_name: request.type_name,
            current_state,
            private: request.private,
            client: client_from_wit(&request.client),
            current_identity,
        };
        let response = with_server_for::<E, _>(provider_meta, |s| s.read_resource(request));
        api::ReadResourceResponse {
            new_state: value_to_wit(&response.new_state),
            private: response.private,
            deferred: response.deferred.map(deferred_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
            new_identity: response.new_identity.as_ref().map(value_to_wit),
        }
    }

    fn plan_resource_change(
        request: api::PlanResourceChangeRequest,
    ) -> api::PlanResourceChangeResponse {
        let provider_meta = request.provider_meta;
        let mut diagnostics = Vec::new();
        let prior_state = decode_opt(request.prior_state, "prior state", &mut diagnostics);
        let proposed =
            decode_opt(request.proposed_new_state, "proposed new state", &mut diagnostics);
        let config = decode_opt(request.config, "configuration", &mut diagnostics);
        let prior_identity =
            decode_identity(request.prior_identity, "prior identity", &mut diagnostics);
        let (Some(prior_state), Some(proposed_new_state), Some(config), Some(prior_identity)) =
            (prior_state, proposed, config, prior_identity)
        else {
            return api::PlanResourceChangeResponse {
                planned_state: null(),
                requires_replace: Vec::new(),
                planned_private: request.prior_private,
                deferred: None,
                diagnostics,
                planned_identity: None,
            };
        };
        let request = PlanRequest {
            type_name: request.type_name,
            prior_state,
            proposed_new_state,
            config,
            prior_private: request.prior_private,
            client: client_from_wit(&request.client),
            prior_identity,
        };
        let response = with_server_for::<E, _>(provider_meta, |s| s.plan_resource_change(request));
        api::PlanResourceChangeResponse {
            planned_state: value_to_wit(&response.planned_state),
            requires_replace: response.requires_replace.iter().map(path_to_wit).collect(),
            planned_private: response.planned_private,
            deferred: response.deferred.map(deferred_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
            planned_identity: response.planned_identity.as_ref().map(value_to_wit),
        }
    }

    fn apply_resource_change(
        request: api::ApplyResourceChangeRequest,
    ) -> api::ApplyResourceChangeResponse {
        let provider_meta = request.provider_meta;
        let mut diagnostics = Vec::new();
        let prior_state = decode_opt(request.prior_state, "prior state", &mut diagnostics);
        let planned_state = decode_opt(request.planned_state, "planned state", &mut diagnostics);
        let config = decode_opt(request.config, "configuration", &mut diagnostics);
        let planned_identity =
            decode_identity(request.planned_identity, "planned identity", &mut diagnostics);
        let (Some(prior_state), Some(planned_state), Some(config), Some(planned_identity)) =
            (prior_state, planned_state, config, planned_identity)
        else {
            return api::ApplyResourceChangeResponse {
                new_state: null(),
                private: request.planned_private,
                diagnostics,
                new_identity: None,
            };
        };
        let request = ApplyRequest {
            type_name: request.type_name,
            prior_state,
            planned_state,
            config,
            planned_private: request.planned_private,
            planned_identity,
        };
        let response = with_server_for::<E, _>(provider_meta, |s| s.apply_resource_change(request));
        api::ApplyResourceChangeResponse {
            new_state: value_to_wit(&response.new_state),
            private: response.private,
            diagnostics: diagnostics_to_wit(response.diagnostics),
            new_identity: response.new_identity.as_ref().map(value_to_wit),
        }
    }

    fn import_resource_state(
        request: api::ImportResourceStateRequest,
    ) -> api::ImportResourceStateResponse {
        let mut diagnostics = Vec::new();
        let Some(identity) = decode_identity(request.identity, "identity", &mut diagnostics) else {
            return api::ImportResourceStateResponse {
                imported: Vec::new(),
                deferred: None,
                diagnostics,
            };
        };
        let request = ImportRequest {
            type_name: request.type_name,
            id: request.id,
            client: client_from_wit(&request.client),
            identity,
        };
        let response = with_server::<E, _>(|s| s.import_resource_state(request));
        api::ImportResourceStateResponse {
            imported: response
                .imported
                .into_iter()
                .map(|i| api::ImportedResource {
                    type_name: i.type_name,
                    state: value_to_wit(&i.state),
                    private: i.private,
                    identity: i.identity.as_ref().map(value_to_wit),
                })
                .collect(),
            deferred: response.deferred.map(deferred_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn upgrade_resource_state(
        request: api::UpgradeResourceStateRequest,
    ) -> api::UpgradeResourceStateResponse {
        let raw_state = match decode(request.raw_state, "stored state") {
            Ok(v) => v,
            Err(d) => {
                return api::UpgradeResourceStateResponse {
                    upgraded_state: null(),
                    diagnostics: vec![diagnostic_to_wit(d)],
                };
            }
        };
        let request =
            UpgradeRequest { type_name: request.type_name, version: request.version, raw_state };
        let response = with_server::<E, _>(|s| s.upgrade_resource_state(request));
        api::UpgradeResourceStateResponse {
            upgraded_state: value_to_wit(&response.upgraded_state),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn read_data_source(request: api::ReadDataSourceRequest) -> api::ReadDataSourceResponse {
        let provider_meta = request.provider_meta;
        let config = match decode(request.config, "configuration") {
            Ok(v) => v,
            Err(d) => {
                return api::ReadDataSourceResponse {
                    state: null(),
                    deferred: None,
                    diagnostics: vec![diagnostic_to_wit(d)],
                };
            }
        };
        let request = ReadDataSourceRequest {
            type_name: request.type_name,
            config,
            client: client_from_wit(&request.client),
        };
        let response = with_server_for::<E, _>(provider_meta, |s| s.read_data_source(request));
        api::ReadDataSourceResponse {
            state: value_to_wit(&response.state),
            deferred: response.deferred.map(deferred_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn upgrade_resource_identity(
        request: api::UpgradeResourceIdentityRequest,
    ) -> api::UpgradeResourceIdentityResponse {
        let raw_identity = match decode(request.raw_identity, "stored identity") {
            Ok(v) => v,
            Err(d) => {
                return api::UpgradeResourceIdentityResponse {
                    upgraded_identity: null(),
                    diagnostics: vec![diagnostic_to_wit(d)],
                };
            }
        };
        let request = UpgradeIdentityRequest {
            type_name: request.type_name,
            version: request.version,
            raw_identity,
        };
        let response = with_server::<E, _>(|s| s.upgrade_resource_identity(request));
        api::UpgradeResourceIdentityResponse {
            upgraded_identity: value_to_wit(&response.upgraded_identity),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn move_resource_state(
        request: api::MoveResourceStateRequest,
    ) -> api::MoveResourceStateResponse {
        let mut diagnostics = Vec::new();
        let source_state = decode_opt(request.source_state, "source state", &mut diagnostics);
        let source_identity =
            decode_identity(request.source_identity, "source identity", &mut diagnostics);
        let (Some(source_state), Some(source_identity)) = (source_state, source_identity) else {
            return api::MoveResourceStateResponse {
                target_state: null(),
                target_private: Vec::new(),
                target_identity: None,
                diagnostics,
            };
        };
        let request = MoveRequest {
            source_provider_address: request.source_provider_address,
            source_type_name: request.source_type_name,
            source_schema_version: request.source_schema_version,
            source_state,
            target_type_name: request.target_type_name,
            source_private: request.source_private,
            source_identity,
            source_identity_schema_version: request.source_identity_schema_version,
        };
        let response = with_server::<E, _>(|s| s.move_resource_state(request));
        api::MoveResourceStateResponse {
            target_state: value_to_wit(&response.target_state),
            target_private: response.target_private,
            target_identity: response.target_identity.as_ref().map(value_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn generate_resource_config(
        type_name: String,
        state: wit::Value,
    ) -> api::GenerateResourceConfigResponse {
        let state = match decode(state, "state") {
            Ok(v) => v,
            Err(d) => {
                return api::GenerateResourceConfigResponse {
                    config: null(),
                    diagnostics: vec![diagnostic_to_wit(d)],
                };
            }
        };
        let response = with_server::<E, _>(|s| s.generate_resource_config(&type_name, state));
        api::GenerateResourceConfigResponse {
            config: value_to_wit(&response.config),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn validate_ephemeral_resource_config(
        type_name: String,
        config: wit::Value,
    ) -> Vec<wit::Diagnostic> {
        validate_decoded(config, "ephemeral resource configuration", |config| {
            with_server::<E, _>(|s| s.validate_ephemeral_resource_config(&type_name, config))
        })
    }

    fn open_ephemeral_resource(
        request: api::OpenEphemeralResourceRequest,
    ) -> api::OpenEphemeralResourceResponse {
        let config = match decode(request.config, "configuration") {
            Ok(config) => config,
            Err(d) => {
                return api::OpenEphemeralResourceResponse {
                    result: null(),
                    private: None,
                    renew_at: None,
                    deferred: None,
                    diagnostics: vec![diagnostic_to_wit(d)],
                };
            }
        };
        let request = ephemeral::OpenRequest {
            type_name: request.type_name,
            config,
            client: client_from_wit(&request.client),
        };
        let response = with_server::<E, _>(|s| s.open_ephemeral_resource(request));
        api::OpenEphemeralResourceResponse {
            result: value_to_wit(&response.result),
            private: response.private,
            renew_at: response.renew_at.map(timestamp_to_wit),
            deferred: response.deferred.map(deferred_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn renew_ephemeral_resource(
        type_name: String,
        private: Option<Vec<u8>>,
    ) -> api::RenewEphemeralResourceResponse {
        let response = with_server::<E, _>(|s| {
            s.renew_ephemeral_resource(ephemeral::RenewRequest { type_name, private })
        });
        api::RenewEphemeralResourceResponse {
            private: response.private,
            renew_at: response.renew_at.map(timestamp_to_wit),
            diagnostics: diagnostics_to_wit(response.diagnostics),
        }
    }

    fn close_ephemeral_resource(
        type_name: String,
        private: Option<Vec<u8>>,
    ) -> Vec<wit::Diagnostic> {
        diagnostics_to_wit(with_server::<E, _>(|s| {
            s.close_ephemeral_resource(ephemeral::CloseRequest { type_name, private })
        }))
    }

    fn validate_list_resource_config(
        type_name: String,
        config: wit::Value,
    ) -> Vec<wit::Diagnostic> {
        validate_decoded(config, "list resource configuration", |config| {
            with_server::<E, _>(|s| s.validate_list_resource_config(&type_name, config))
        })
    }

    fn list_resource(
        request: api::ListResourceRequest,
        results: &api::ListResults,
    ) -> Vec<wit::Diagnostic> {
        let config = match decode(request.config, "list resource configuration") {
            Ok(config) => config,
            Err(d) => return vec![diagnostic_to_wit(d)],
        };
        let request = list::ListRequest {
            type_name: request.type_name,
            config,
            include_resource_object: request.include_resource_object,
            limit: request.limit,
        };
        // Each item goes to the host as soon as it is found; the host passes it on to
        // Terraform and answers whether more are wanted.
        let mut push = |item: list::ListItem| {
            results.push(&wit_streams::ListItem {
                identity: value_to_wit(&item.identity),
                display_name: item.display_name,
                resource_object: item.resource_object.as_ref().map(value_to_wit),
                diagnostics: diagnostics_to_wit(item.diagnostics),
            })
        };
        diagnostics_to_wit(with_server::<E, _>(|s| s.list_resource(request, &mut push)))
    }

    fn validate_action_config(type_name: String, config: wit::Value) -> Vec<wit::Diagnostic> {
        validate_decoded(config, "action configuration", |config| {
            with_server::<E, _>(|s| s.validate_action_config(&type_name, config))
        })
    }

    fn plan_action(request: api::ActionRequest) -> api::PlanActionResponse {
        match action_request(request) {
            Ok(request) => {
                let (deferred, diagnostics) = with_server::<E, _>(|s| s.plan_action(request));
                api::PlanActionResponse {
                    deferred: deferred.map(deferred_to_wit),
                    diagnostics: diagnostics_to_wit(diagnostics),
                }
            }
            Err(d) => {
                api::PlanActionResponse { deferred: None, diagnostics: vec![diagnostic_to_wit(d)] }
            }
        }
    }

    fn invoke_action(
        request: api::ActionRequest,
        progress: &api::ActionProgress,
    ) -> Vec<wit::Diagnostic> {
        match action_request(request) {
            Ok(request) => diagnostics_to_wit(with_server::<E, _>(|s| {
                s.invoke_action(request, &|message| progress.report(message))
            })),
            Err(d) => vec![diagnostic_to_wit(d)],
        }
    }

    fn call_function(
        name: String,
        arguments: Vec<wit::Value>,
    ) -> Result<wit::Value, api::FunctionError> {
        let mut values = Vec::with_capacity(arguments.len());
        for (i, argument) in arguments.into_iter().enumerate() {
            let nodes = argument.nodes.into_iter().map(node_from_wit).collect();
            let value = flat::unflatten(nodes).map_err(|e| api::FunctionError {
                text: format!("malformed argument from the host: {e}"),
                argument: u32::try_from(i).ok(),
            })?;
            values.push(value);
        }
        with_server::<E, _>(|s| s.call_function(&name, values))
            .map(|v| value_to_wit(&v))
            .map_err(|e| api::FunctionError { text: e.text, argument: e.argument })
    }

    fn stop() -> Option<String> {
        with_server::<E, _>(|s| s.stop())
    }
}

/// [`with_server`] for a call made for a module, with the module's `provider_meta` visible
/// to the provider's code ([`crate::meta::provider_meta`]). The host checked it against the
/// declared schema; one that cannot be read is treated as absent.
fn with_server_for<E: Export, T>(
    provider_meta: Option<wit::Value>,
    f: impl FnOnce(&mut Server<E::Provider>) -> T,
) -> T {
    let meta = provider_meta.and_then(|m| decode(m, "provider_meta").ok());
    crate::meta::with_meta(meta, || with_server::<E, T>(f))
}

/// The request of `plan-action` and `invoke-action`, with its configuration decoded.
fn action_request(request: api::ActionRequest) -> Result<ActionRequest, Diagnostic> {
    Ok(ActionRequest {
        config: decode(request.config, "action configuration")?,
        type_name: request.type_name,
        client: client_from_wit(&request.client),
    })
}

//! The component's exports: WIT records in, [`Server`] calls, WIT records out.
//!
//! Everything here is plumbing. Values cross as flat node lists (see
//! [`terrarium_model::flat`]); a plain `match` maps the generated node type to
//! [`FlatNode`] and back, and the model crate rebuilds the tree, refusing anything that is
//! not one.

use std::any::Any;
use std::cell::RefCell;

use terrarium_model::flat::{self, FlatBlock, FlatNode};
use terrarium_model::schema::{self as model, BlockNesting, Description, ObjectNesting, TextKind};
use terrarium_model::{
    AttributePath, Diagnostic, Number, NumberBound, PathStep, Refinements, Severity, Value,
};

use crate::__private::bindings::exports::terrarium::provider::provider as api;
use crate::__private::bindings::terrarium::provider::streams as wit_streams;
use crate::__private::bindings::terrarium::provider::types as wit;
use crate::action::ActionRequest;
use crate::identity::IdentitySchema;
use crate::provider::Provider;
use crate::rpc::{
    ApplyRequest, ClientCapabilities, ConfigureRequest, DeferredReason, ImportRequest, MoveRequest,
    PlanRequest, ReadDataSourceRequest, ReadRequest, UpgradeIdentityRequest, UpgradeRequest,
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

/// A value the host sent that is not a tree: a host bug, reported rather than trusted.
fn decode(value: wit::Value, what: &str) -> Result<Value, Diagnostic> {
    let nodes = value.nodes.into_iter().map(node_from_wit).collect();
    flat::unflatten(nodes).map_err(|e| {
        Diagnostic::error(
            "Malformed value from the host",
            format!("The {what} could not be read: {e}. This is a bug in Terrarium."),
        )
    })
}

fn decode_opt(
    value: wit::Value,
    what: &str,
    diagnostics: &mut Vec<wit::Diagnostic>,
) -> Option<Value> {
    match decode(value, what) {
        Ok(v) => Some(v),
        Err(d) => {
            diagnostics.push(diagnostic_to_wit(d));
            None
        }
    }
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

fn null() -> wit::Value {
    wit::Value { nodes: vec![wit::Node::Null] }
}

fn diagnostics_to_wit(diagnostics: Vec<Diagnostic>) -> Vec<wit::Diagnostic> {
    diagnostics.into_iter().map(diagnostic_to_wit).collect()
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
        let response = with_server::<E, _>(|s| s.read_resource(request));
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
        let response = with_server::<E, _>(|s| s.plan_resource_change(request));
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
        let response = with_server::<E, _>(|s| s.apply_resource_change(request));
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
        let response = with_server::<E, _>(|s| s.read_data_source(request));
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

/// An optional value from the host (an identity), decoded; `None` when it was malformed
/// (and a diagnostic says so).
fn decode_identity(
    value: Option<wit::Value>,
    what: &str,
    diagnostics: &mut Vec<wit::Diagnostic>,
) -> Option<Option<Value>> {
    match value {
        None => Some(None),
        Some(v) => decode_opt(v, what, diagnostics).map(Some),
    }
}

fn deferred_to_wit(reason: DeferredReason) -> wit::DeferredReason {
    match reason {
        DeferredReason::Unknown => wit::DeferredReason::Unknown,
        DeferredReason::ResourceConfigUnknown => wit::DeferredReason::ResourceConfigUnknown,
        DeferredReason::ProviderConfigUnknown => wit::DeferredReason::ProviderConfigUnknown,
        DeferredReason::AbsentPrerequisite => wit::DeferredReason::AbsentPrerequisite,
    }
}

fn client_from_wit(c: &wit::ClientCapabilities) -> ClientCapabilities {
    ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
    }
}

/// The request of `plan-action` and `invoke-action`, with its configuration decoded.
fn action_request(request: api::ActionRequest) -> Result<ActionRequest, Diagnostic> {
    Ok(ActionRequest {
        config: decode(request.config, "action configuration")?,
        type_name: request.type_name,
        client: client_from_wit(&request.client),
    })
}

/// Unix time as WIT has it; a time before 1970 (which no renewal asks for) is 1970.
fn timestamp_to_wit(time: std::time::SystemTime) -> wit::Timestamp {
    let since_epoch = time.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    wit::Timestamp {
        seconds: i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
        nanoseconds: since_epoch.subsec_nanos(),
    }
}

// ---- values ----

fn value_to_wit(value: &Value) -> wit::Value {
    wit::Value { nodes: flat::flatten(value).into_iter().map(node_to_wit).collect() }
}

fn node_from_wit(node: wit::Node) -> FlatNode {
    match node {
        wit::Node::Null => FlatNode::Null,
        wit::Node::Unknown(r) => FlatNode::Unknown(refinements_from_wit(r)),
        wit::Node::Bool(b) => FlatNode::Bool(b),
        wit::Node::Number(n) => FlatNode::Number(number_from_wit(n)),
        wit::Node::String(s) => FlatNode::String(s),
        wit::Node::List(c) => FlatNode::List(c),
        wit::Node::Set(c) => FlatNode::Set(c),
        wit::Node::Tuple(c) => FlatNode::Tuple(c),
        wit::Node::Map(e) => FlatNode::Map(e.into_iter().map(|e| (e.key, e.value)).collect()),
        wit::Node::Object(e) => FlatNode::Object(e.into_iter().map(|e| (e.key, e.value)).collect()),
        wit::Node::Dynamic(t) => FlatNode::Dynamic(t.type_, t.value),
    }
}

fn node_to_wit(node: FlatNode) -> wit::Node {
    let entries = |e: Vec<(String, u32)>| {
        e.into_iter().map(|(key, value)| wit::Entry { key, value }).collect()
    };
    match node {
        FlatNode::Null => wit::Node::Null,
        FlatNode::Unknown(r) => wit::Node::Unknown(refinements_to_wit(r)),
        FlatNode::Bool(b) => wit::Node::Bool(b),
        FlatNode::Number(n) => wit::Node::Number(number_to_wit(n)),
        FlatNode::String(s) => wit::Node::String(s),
        FlatNode::List(c) => wit::Node::List(c),
        FlatNode::Set(c) => wit::Node::Set(c),
        FlatNode::Tuple(c) => wit::Node::Tuple(c),
        FlatNode::Map(e) => wit::Node::Map(entries(e)),
        FlatNode::Object(e) => wit::Node::Object(entries(e)),
        FlatNode::Dynamic(type_, value) => wit::Node::Dynamic(wit::Typed { type_, value }),
    }
}

fn number_from_wit(n: wit::Number) -> Number {
    match n {
        wit::Number::Int(i) => Number::Int(i),
        wit::Number::Float(f) => Number::Float(f),
        wit::Number::Decimal(d) => Number::Decimal(d),
    }
}

fn number_to_wit(n: Number) -> wit::Number {
    match n {
        Number::Int(i) => wit::Number::Int(i),
        Number::Float(f) => wit::Number::Float(f),
        Number::Decimal(d) => wit::Number::Decimal(d),
    }
}

fn refinements_from_wit(r: wit::Refinements) -> Refinements {
    let bound = |b: wit::NumberBound| NumberBound {
        value: number_from_wit(b.value),
        inclusive: b.inclusive,
    };
    Refinements {
        nullable: r.nullable,
        string_prefix: r.string_prefix,
        number_lower: r.number_lower.map(bound),
        number_upper: r.number_upper.map(bound),
        length_lower: r.length_lower,
        length_upper: r.length_upper,
    }
}

fn refinements_to_wit(r: Refinements) -> wit::Refinements {
    let bound =
        |b: NumberBound| wit::NumberBound { value: number_to_wit(b.value), inclusive: b.inclusive };
    wit::Refinements {
        nullable: r.nullable,
        string_prefix: r.string_prefix,
        number_lower: r.number_lower.map(bound),
        number_upper: r.number_upper.map(bound),
        length_lower: r.length_lower,
        length_upper: r.length_upper,
    }
}

// ---- diagnostics ----

fn path_to_wit(path: &AttributePath) -> wit::AttributePath {
    path.0
        .iter()
        .map(|step| match step {
            PathStep::Attribute(a) => wit::PathStep::Attribute(a.clone()),
            PathStep::Key(k) => wit::PathStep::Key(k.clone()),
            PathStep::Index(i) => wit::PathStep::Index(*i),
        })
        .collect()
}

fn diagnostic_to_wit(d: Diagnostic) -> wit::Diagnostic {
    wit::Diagnostic {
        severity: match d.severity {
            Severity::Error => wit::Severity::Error,
            Severity::Warning => wit::Severity::Warning,
        },
        attribute: path_to_wit(&d.attribute),
        summary: d.summary,
        detail: d.detail,
    }
}

// ---- schemas ----

fn description_to_wit(d: Description) -> wit::Description {
    wit::Description {
        text: d.text,
        kind: match d.kind {
            TextKind::Plain => wit::TextKind::Plain,
            TextKind::Markdown => wit::TextKind::Markdown,
        },
    }
}

fn schema_to_wit(schema: &model::Schema) -> wit::Schema {
    let blocks = flat::flatten_block(&schema.block).into_iter().map(block_to_wit).collect();
    wit::Schema { version: schema.version, blocks }
}

fn block_to_wit(b: FlatBlock) -> wit::Block {
    wit::Block {
        attributes: b
            .attributes
            .into_iter()
            .map(|fa| {
                let a = fa.attribute;
                let (type_, nested) = match fa.nested {
                    Some((nesting, block)) => (
                        None,
                        Some(wit::NestedAttributes {
                            nesting: object_nesting_to_wit(nesting),
                            block,
                        }),
                    ),
                    None => match &a.ty {
                        model::AttributeType::Type(t) => (Some(t.to_json()), None),
                        // flatten_block always pairs nested attributes with `nested`.
                        model::AttributeType::Nested { .. } => (None, None),
                    },
                };
                wit::Attribute {
                    name: a.name,
                    type_,
                    nested,
                    description: description_to_wit(a.description),
                    required: a.required,
                    optional: a.optional,
                    computed: a.computed,
                    sensitive: a.sensitive,
                    write_only: a.write_only,
                    deprecated: a.deprecated,
                    deprecation_message: a.deprecation_message,
                }
            })
            .collect(),
        block_types: b
            .block_types
            .into_iter()
            .map(|nb| wit::NestedBlock {
                type_name: nb.type_name,
                block: nb.block,
                nesting: block_nesting_to_wit(nb.nesting),
                min_items: nb.min_items,
                max_items: nb.max_items,
            })
            .collect(),
        description: description_to_wit(b.description),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message,
    }
}

fn object_nesting_to_wit(n: ObjectNesting) -> wit::ObjectNesting {
    match n {
        ObjectNesting::Single => wit::ObjectNesting::Single,
        ObjectNesting::List => wit::ObjectNesting::List,
        ObjectNesting::Set => wit::ObjectNesting::Set,
        ObjectNesting::Map => wit::ObjectNesting::Map,
    }
}

fn block_nesting_to_wit(n: BlockNesting) -> wit::BlockNesting {
    match n {
        BlockNesting::Single => wit::BlockNesting::Single,
        BlockNesting::List => wit::BlockNesting::List,
        BlockNesting::Set => wit::BlockNesting::Set,
        BlockNesting::Map => wit::BlockNesting::Map,
        BlockNesting::Group => wit::BlockNesting::Group,
    }
}

fn named_schemas(
    schemas: std::collections::BTreeMap<String, model::Schema>,
) -> Vec<wit::NamedSchema> {
    schemas
        .into_iter()
        .map(|(name, s)| wit::NamedSchema { schema: schema_to_wit(&s), name })
        .collect()
}

fn parameter_to_wit(p: model::Parameter) -> wit::Parameter {
    wit::Parameter {
        name: p.name,
        type_: p.ty.to_json(),
        description: description_to_wit(p.description),
        allow_null: p.allow_null,
        allow_unknown: p.allow_unknown,
    }
}

fn provider_schema_to_wit(
    schema: model::ProviderSchema,
    identities: std::collections::BTreeMap<String, IdentitySchema>,
    diagnostics: Vec<Diagnostic>,
) -> wit::ProviderSchema {
    wit::ProviderSchema {
        provider: schema_to_wit(&schema.provider),
        provider_meta: schema.provider_meta.as_ref().map(schema_to_wit),
        resources: named_schemas(schema.resources),
        data_sources: named_schemas(schema.data_sources),
        functions: schema
            .functions
            .into_iter()
            .map(|(name, f)| wit::Function {
                name,
                parameters: f.parameters.into_iter().map(parameter_to_wit).collect(),
                variadic: f.variadic.map(parameter_to_wit),
                return_: f.return_type.to_json(),
                summary: f.summary,
                description: description_to_wit(f.description),
                deprecation_message: f.deprecation_message,
            })
            .collect(),
        resource_identities: identities
            .into_iter()
            .map(|(name, s)| wit::NamedIdentitySchema {
                name,
                schema: wit::IdentitySchema {
                    version: s.version,
                    attributes: s
                        .attributes
                        .into_iter()
                        .map(|a| wit::IdentityAttribute {
                            name: a.name,
                            type_: a.ty.to_json(),
                            required_for_import: a.required_for_import,
                            optional_for_import: a.optional_for_import,
                            description: a.description,
                        })
                        .collect(),
                },
            })
            .collect(),
        ephemeral_resources: named_schemas(schema.ephemeral_resources),
        list_resources: named_schemas(schema.list_resources),
        actions: named_schemas(schema.actions),
        capabilities: wit::ServerCapabilities {
            plan_destroy: schema.capabilities.plan_destroy,
            get_provider_schema_optional: schema.capabilities.get_provider_schema_optional,
            move_resource_state: schema.capabilities.move_resource_state,
            generate_resource_config: schema.capabilities.generate_resource_config,
        },
        diagnostics: diagnostics_to_wit(diagnostics),
    }
}

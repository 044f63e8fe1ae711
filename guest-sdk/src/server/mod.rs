//! [`Server`]: serves the provider protocol for one [`Provider`], in the neutral model's
//! terms. The component's exports call it (through [`crate::export!`]); tests call it
//! directly, natively.

mod action;
mod ephemeral;
mod list;

use std::collections::BTreeMap;

use terrarium_model::schema::{Block, ProviderSchema};
use terrarium_model::{Diagnostic, Value};

use crate::data_source::AnyDataSource;
use crate::function::FunctionError;
use crate::identity::IdentitySchema;
use crate::kind::{list_or_none, unknown_type};
use crate::provider::Provider;
use crate::resource::AnyResource;
use crate::rpc::{
    ApplyRequest, ApplyResponse, ClientCapabilities, ConfigureRequest, GenerateConfigResponse,
    ImportRequest, ImportResponse, MoveRequest, MoveResponse, PlanRequest, PlanResponse,
    ReadDataSourceRequest, ReadDataSourceResponse, ReadRequest, ReadResponse,
    UpgradeIdentityRequest, UpgradeIdentityResponse, UpgradeRequest, UpgradeResponse,
};
use crate::value::{conform_block, dynamic_blocks_as_collections};

pub(crate) use action::with_action;
pub(crate) use ephemeral::with_ephemeral;
pub(crate) use list::find_list;

/// Routes each protocol call to the provider, resource type, data source or function it is
/// for.
///
/// ```
/// use terrarium_sdk::{Provider, Server};
///
/// #[derive(Default)]
/// struct Empty;
/// impl Provider for Empty {}
///
/// let server = Server::new(Empty);
/// let (schema, diagnostics) = server.get_schema();
/// assert!(schema.resources.is_empty() && diagnostics.is_empty());
/// ```
pub struct Server<P> {
    provider: P,
}

impl<P: Provider> Server<P> {
    /// Serves `provider`.
    pub fn new(provider: P) -> Self {
        Server { provider }
    }

    /// The provider being served.
    pub fn provider(&self) -> &P {
        &self.provider
    }

    /// The whole schema, and any mistakes found in it (duplicate names, invalid attribute
    /// flags) as error diagnostics.
    pub fn get_schema(&self) -> (ProviderSchema, Vec<Diagnostic>) {
        let (schema, _, diagnostics) = self.schema_with_identities();
        (schema, diagnostics)
    }

    /// [`get_schema`](Self::get_schema) and [`identity_schemas`](Self::identity_schemas)
    /// from one pass over the resource types (the `get-schema` export needs both).
    pub(crate) fn schema_with_identities(
        &self,
    ) -> (ProviderSchema, BTreeMap<String, IdentitySchema>, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let mut identities = BTreeMap::new();
        let provider_schema = self.provider.schema();
        diagnostics.extend(provider_schema.check());
        let mut schema =
            ProviderSchema { provider: provider_schema.to_model(), ..ProviderSchema::default() };
        if let Some(meta) = self.provider.meta_schema() {
            diagnostics.extend(meta.check().into_iter().map(|mut d| {
                d.detail = format!("In the provider_meta schema: {}", d.detail);
                d
            }));
            schema.provider_meta = Some(meta.to_model());
        }

        for r in self.provider.resources() {
            let s = r.resource_schema();
            diagnostics.extend(
                s.check().into_iter().map(|d| in_schema_of("resource type", r.type_name(), d)),
            );
            insert_unique(
                &mut schema.resources,
                r.type_name(),
                s.to_model(),
                "resource type",
                &mut diagnostics,
            );
            if let Some(identity) = r.identity_schema() {
                let problems = identity.check().into_iter();
                diagnostics.extend(
                    problems
                        .map(|d| in_schema_of("the identity of resource type", r.type_name(), d)),
                );
                identities.insert(r.type_name().to_string(), identity);
            }
            // Every resource type can generate its configuration (the default does).
            schema.capabilities.generate_resource_config = true;
            schema.capabilities.move_resource_state |= !r.moves_from().is_empty();
            schema.capabilities.plan_destroy |= r.plans_destroy();
        }
        for d in self.provider.data_sources() {
            let s = d.data_source_schema();
            diagnostics.extend(
                s.check().into_iter().map(|diag| in_schema_of("data source", d.type_name(), diag)),
            );
            insert_unique(
                &mut schema.data_sources,
                d.type_name(),
                s.to_model(),
                "data source",
                &mut diagnostics,
            );
        }
        for f in self.provider.functions() {
            let signature = f.function_signature().to_model();
            insert_unique(&mut schema.functions, f.name(), signature, "function", &mut diagnostics);
        }
        for e in self.provider.ephemeral_resources() {
            let s = e.ephemeral_resource_schema();
            diagnostics.extend(
                s.check().into_iter().map(|d| in_schema_of("ephemeral resource", e.type_name(), d)),
            );
            let (kind, name) = ("ephemeral resource", e.type_name());
            insert_unique(
                &mut schema.ephemeral_resources,
                name,
                s.to_model(),
                kind,
                &mut diagnostics,
            );
        }
        for l in self.provider.list_resources() {
            let s = l.list_resource_schema();
            diagnostics.extend(
                s.check().into_iter().map(|d| in_schema_of("list resource", l.type_name(), d)),
            );
            insert_unique(
                &mut schema.list_resources,
                l.type_name(),
                s.to_model(),
                "list resource",
                &mut diagnostics,
            );
            // Terraform refuses a list resource without a managed resource type (with an
            // identity) of its name; say what to register instead.
            if !identities.contains_key(l.type_name()) {
                diagnostics.push(Diagnostic::error(
                    "Invalid provider schema",
                    format!(
                        "The provider lists {:?}, but has no managed resource type of that name with an identity. \
                         List it in Provider::resources too, with Resource::identity returning Some(self).",
                        l.type_name()
                    ),
                ));
            }
        }
        for a in self.provider.actions() {
            let s = a.action_schema();
            diagnostics
                .extend(s.check().into_iter().map(|d| in_schema_of("action", a.type_name(), d)));
            insert_unique(
                &mut schema.actions,
                a.type_name(),
                s.to_model(),
                "action",
                &mut diagnostics,
            );
        }
        (schema, identities, diagnostics)
    }

    /// The resource types whose replacement deletes the old object first
    /// ([`crate::Resource::DELETE_BEFORE_REPLACE`]).
    pub fn delete_before_replace(&self) -> Vec<String> {
        let resources = self.provider.resources();
        resources
            .iter()
            .filter(|r| r.deletes_before_replace())
            .map(|r| r.type_name().to_string())
            .collect()
    }

    /// The computed nested blocks ([`crate::schema::NestedBlock::computed`]) of the resource
    /// types and data sources: whether in a data source, the type name, and the block's path
    /// of block type names.
    pub fn computed_blocks(&self) -> Vec<(bool, String, Vec<String>)> {
        let (schema, _, _) = self.schema_with_identities();
        let mut out = Vec::new();
        for (data_source, schemas) in [(false, &schema.resources), (true, &schema.data_sources)] {
            for (name, s) in schemas {
                out.extend(
                    s.block
                        .computed_block_paths()
                        .into_iter()
                        .map(|p| (data_source, name.clone(), p)),
                );
            }
        }
        out
    }

    /// The identity schemas of the resource types that have one, by type name
    /// (`GetResourceIdentitySchemas`); [`get_schema`](Self::get_schema) reports their
    /// mistakes.
    pub fn identity_schemas(&self) -> BTreeMap<String, IdentitySchema> {
        let resources = self.provider.resources();
        resources
            .iter()
            .filter_map(|r| Some((r.type_name().to_string(), r.identity_schema()?)))
            .collect()
    }

    /// `ValidateProviderConfig`.
    pub fn validate_provider_config(&self, config: &Value) -> Vec<Diagnostic> {
        crate::kind::validate_config(&self.provider.schema(), config, || {
            self.provider.validate(config)
        })
    }

    /// `ValidateResourceConfig`, routed by type name.
    pub fn validate_resource_config(&self, type_name: &str, config: &Value) -> Vec<Diagnostic> {
        match self.resource(type_name) {
            Ok(r) => r.validate_config(&dynamic_blocks_as_collections(
                config.clone(),
                &r.resource_schema().to_model().block,
            )),
            Err(d) => vec![d],
        }
    }

    /// `ValidateResourceConfig` for a client that may not support write-only attributes:
    /// setting one is then an error.
    pub fn validate_resource_config_for(
        &self,
        type_name: &str,
        config: &Value,
        client: &ClientCapabilities,
    ) -> Vec<Diagnostic> {
        let r = match self.resource(type_name) {
            Ok(r) => r,
            Err(d) => return vec![d],
        };
        let config =
            dynamic_blocks_as_collections(config.clone(), &r.resource_schema().to_model().block);
        let mut problems = r.validate_config(&config);
        if !client.write_only_attributes_allowed {
            let schema = r.resource_schema();
            for a in schema.root().attributes().iter().filter(|a| a.is_write_only()) {
                if config.attr(a.name()).is_some_and(|v| !v.is_null()) {
                    problems.push(
                        Diagnostic::error(
                            "Write-only attribute not supported",
                            format!(
                                "{} is write-only, and this Terraform does not support write-only attributes (Terraform 1.11 or newer does).",
                                a.name()
                            ),
                        )
                        .at(terrarium_model::AttributePath::attribute(a.name())),
                    );
                }
            }
        }
        problems
    }

    /// `ValidateDataResourceConfig`, routed by type name.
    pub fn validate_data_source_config(&self, type_name: &str, config: &Value) -> Vec<Diagnostic> {
        match self.data_source(type_name) {
            Ok(d) => d.validate_config(&dynamic_blocks_as_collections(
                config.clone(),
                &d.data_source_schema().to_model().block,
            )),
            Err(d) => vec![d],
        }
    }

    /// `ConfigureProvider`.
    pub fn configure(&mut self, request: ConfigureRequest) -> Vec<Diagnostic> {
        self.provider.configure(request).err().map(|d| d.into_vec()).unwrap_or_default()
    }

    // On an unknown type name, each call answers with what it was given: the state stays as
    // it was, and the diagnostic says which types there are.

    /// `ReadResource`, routed by type name.
    pub fn read_resource(&self, request: ReadRequest) -> ReadResponse {
        match self.resource(&request.type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let current_state = dynamic_blocks_as_collections(request.current_state, &block);
                let mut response = r.read_resource(ReadRequest { current_state, ..request });
                response.new_state =
                    as_terraform_types(response.new_state, &block, &mut response.diagnostics);
                response
            }
            Err(d) => ReadResponse {
                new_state: request.current_state,
                private: request.private,
                deferred: None,
                diagnostics: vec![d],
                new_identity: request.current_identity,
            },
        }
    }

    /// `PlanResourceChange`, routed by type name.
    pub fn plan_resource_change(&self, request: PlanRequest) -> PlanResponse {
        match self.resource(&request.type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let read = |v| dynamic_blocks_as_collections(v, &block);
                let mut response = r.plan_change(PlanRequest {
                    prior_state: read(request.prior_state),
                    proposed_new_state: read(request.proposed_new_state),
                    config: read(request.config),
                    ..request
                });
                response.planned_state =
                    as_terraform_types(response.planned_state, &block, &mut response.diagnostics);
                response
            }
            Err(d) => PlanResponse {
                planned_state: request.proposed_new_state,
                requires_replace: Vec::new(),
                planned_private: request.prior_private,
                deferred: None,
                diagnostics: vec![d],
                planned_identity: request.prior_identity,
            },
        }
    }

    /// `ApplyResourceChange`, routed by type name.
    pub fn apply_resource_change(&self, request: ApplyRequest) -> ApplyResponse {
        match self.resource(&request.type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let read = |v| dynamic_blocks_as_collections(v, &block);
                let mut response = r.apply_change(ApplyRequest {
                    prior_state: read(request.prior_state),
                    planned_state: read(request.planned_state),
                    config: read(request.config),
                    ..request
                });
                response.new_state =
                    as_terraform_types(response.new_state, &block, &mut response.diagnostics);
                response
            }
            Err(d) => ApplyResponse {
                new_state: request.prior_state,
                private: request.planned_private,
                diagnostics: vec![d],
                new_identity: request.planned_identity,
            },
        }
    }

    /// `ImportResourceState`, routed by type name.
    pub fn import_resource_state(&self, request: ImportRequest) -> ImportResponse {
        match self.resource(&request.type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let mut response = r.import_state(request);
                for imported in &mut response.imported {
                    let state = std::mem::replace(&mut imported.state, Value::Null);
                    imported.state = as_terraform_types(state, &block, &mut response.diagnostics);
                }
                response
            }
            Err(d) => ImportResponse { imported: Vec::new(), deferred: None, diagnostics: vec![d] },
        }
    }

    /// `UpgradeResourceState`, routed by type name.
    pub fn upgrade_resource_state(&self, request: UpgradeRequest) -> UpgradeResponse {
        match self.resource(&request.type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let mut response = r.upgrade_state(request);
                response.upgraded_state =
                    as_terraform_types(response.upgraded_state, &block, &mut response.diagnostics);
                response
            }
            Err(d) => UpgradeResponse { upgraded_state: Value::Null, diagnostics: vec![d] },
        }
    }

    /// `UpgradeResourceIdentity`, routed by type name.
    pub fn upgrade_resource_identity(
        &self,
        request: UpgradeIdentityRequest,
    ) -> UpgradeIdentityResponse {
        match self.resource(&request.type_name) {
            Ok(r) => r.upgrade_identity(request),
            Err(d) => {
                UpgradeIdentityResponse { upgraded_identity: Value::Null, diagnostics: vec![d] }
            }
        }
    }

    /// `MoveResourceState`, routed by the target type name.
    pub fn move_resource_state(&self, request: MoveRequest) -> MoveResponse {
        match self.resource(&request.target_type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let mut response = r.move_state(request);
                response.target_state =
                    as_terraform_types(response.target_state, &block, &mut response.diagnostics);
                response
            }
            Err(d) => MoveResponse {
                target_state: Value::Null,
                target_private: Vec::new(),
                target_identity: None,
                diagnostics: vec![d],
            },
        }
    }

    /// `GenerateResourceConfig`, routed by type name.
    pub fn generate_resource_config(
        &self,
        type_name: &str,
        state: Value,
    ) -> GenerateConfigResponse {
        match self.resource(type_name) {
            Ok(r) => {
                let block = r.resource_schema().to_model().block;
                let mut response = r.generate_config(dynamic_blocks_as_collections(state, &block));
                response.config =
                    as_terraform_types(response.config, &block, &mut response.diagnostics);
                response
            }
            Err(d) => GenerateConfigResponse { config: Value::Null, diagnostics: vec![d] },
        }
    }

    /// `ReadDataSource`, routed by type name.
    pub fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        match self.data_source(&request.type_name) {
            Ok(d) => {
                let block = d.data_source_schema().to_model().block;
                let config = dynamic_blocks_as_collections(request.config, &block);
                let mut response = d.read_data(ReadDataSourceRequest { config, ..request });
                response.state =
                    as_terraform_types(response.state, &block, &mut response.diagnostics);
                response
            }
            Err(d) => {
                ReadDataSourceResponse { state: Value::Null, deferred: None, diagnostics: vec![d] }
            }
        }
    }

    /// `CallFunction`, routed by name.
    pub fn call_function(&self, name: &str, arguments: Vec<Value>) -> Result<Value, FunctionError> {
        let functions = self.provider.functions();
        let Some(f) = functions.iter().find(|f| f.name() == name) else {
            let known: Vec<&str> = functions.iter().map(|f| f.name()).collect();
            return Err(FunctionError::new(format!(
                "this provider has no function {name:?} (it has: {})",
                list_or_none(&known)
            )));
        };
        f.call_function(arguments)
    }

    /// `StopProvider`: an error text if the provider could not stop.
    pub fn stop(&self) -> Option<String> {
        self.provider.stop().err()
    }

    fn resource(&self, type_name: &str) -> Result<Box<dyn AnyResource + '_>, Diagnostic> {
        let mut resources = self.provider.resources();
        match resources.iter().position(|r| r.type_name() == type_name) {
            Some(i) => Ok(resources.swap_remove(i)),
            None => {
                let known: Vec<&str> = resources.iter().map(|r| r.type_name()).collect();
                Err(unknown_type("resource type", type_name, &known))
            }
        }
    }

    fn data_source(&self, type_name: &str) -> Result<Box<dyn AnyDataSource + '_>, Diagnostic> {
        let mut data_sources = self.provider.data_sources();
        match data_sources.iter().position(|d| d.type_name() == type_name) {
            Some(i) => Ok(data_sources.swap_remove(i)),
            None => {
                let known: Vec<&str> = data_sources.iter().map(|d| d.type_name()).collect();
                Err(unknown_type("data source", type_name, &known))
            }
        }
    }
}

/// A value the provider's code made, in the types Terraform gives it: lists and maps of
/// blocks with a `dynamic` attribute inside become tuples and objects of their own types
/// (see [`conform_block`]). The code wrote them as lists and maps of block objects.
pub(crate) fn as_terraform_types(
    value: Value,
    block: &Block,
    diagnostics: &mut Vec<Diagnostic>,
) -> Value {
    if block.implied_type() == block.collections_type() {
        return value;
    }
    match conform_block(value.clone(), block) {
        Ok(typed) => typed,
        Err(e) => {
            diagnostics.push(e.to_diagnostic());
            value
        }
    }
}

fn in_schema_of(kind: &str, name: &str, mut d: Diagnostic) -> Diagnostic {
    d.detail = format!("In the schema of {kind} {name:?}: {}", d.detail);
    d
}

fn insert_unique<T>(
    map: &mut BTreeMap<String, T>,
    name: &str,
    value: T,
    kind: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if map.insert(name.to_string(), value).is_some() {
        diagnostics.push(Diagnostic::error(
            "Invalid provider schema",
            format!("The provider declares {kind} {name:?} more than once."),
        ));
    }
}

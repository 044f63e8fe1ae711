//! The Pulumi front end: `pulumirpc.ResourceProvider`, served to Pulumi's engine over the same
//! protocol-neutral core ([`Dispatcher`]) as tfplugin6 and tfplugin5.
//!
//! Pulumi's model is mapped onto Terraform's here, in the host, as Terraform's core does it for
//! Terraform: property values are converted with the schema ([`values`]), names and tokens
//! follow the bridge's conventions ([`names`]), the proposed new state and the attribute-level
//! diff are computed beside the plan (`change`), and the package schema is generated from the
//! Terraform schema ([`schema`]). The component never learns which engine it serves.
//!
//! * `Check` validates (ValidateResourceConfig) and returns the inputs as given.
//! * `Diff` plans (PlanResourceChange) from the prior state and compares the planned state with
//!   it: `replaces` from the plan's `requires_replace`, `detailedDiff` by attribute path.
//! * `Create`/`Update` plan and apply; with `preview` they only plan, unknowns written as
//!   Pulumi's computed value. `Delete` applies a null plan. `Read` refreshes (ReadResource), or
//!   imports (ImportResourceState, then ReadResource) when only an ID is given.
//! * `Invoke` reads a data source or calls a provider function.
//! * The provider's private state travels in the output property [`PRIVATE_PROPERTY`].

mod change;
mod defaults;
pub mod engine;
pub mod names;
pub mod parameterize;
pub mod schema;
pub mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use futures::FutureExt;
use prost_types::value::Kind;
use prost_types::{Struct, Value as Pb};
use terrarium_model::schema::{AttributeType, Block, BlockNesting, ObjectNesting};
use terrarium_model::{AttributePath, Diagnostic, Severity, Type, Value};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::engine::{EngineLink, for_resource};
use names::{Member, Tokens};
use terrarium_codec as codec;
use terrarium_core::types as dt;
use terrarium_core::{Dispatcher, LoadFailure, Serving};
use terrarium_proto::MAX_MESSAGE_SIZE;
use terrarium_proto::pulumirpc as pb;
use values::{Decoded, Failure, Writer};

/// The output property that carries the provider's private state (base64), as the bridge
/// keeps it in `__meta`. Pulumi passes outputs back on every later call, so it survives.
pub const PRIVATE_PROPERTY: &str = "__terrariumPrivate";

/// The output property that carries the schema version the outputs were written with, as the
/// bridge keeps it: a JSON text `{"schema_version":"N"}`. Outputs of an older version are
/// upgraded by the provider (UpgradeResourceState) before anything else reads them.
pub const META_PROPERTY: &str = "__meta";

/// The key of `GetMapping` that asks for the Terraform names of the package's tokens.
pub const TERRAFORM_MAPPING_KEY: &str = "terraform";

type Reply<T> = Result<Response<T>, Status>;

fn ok<T>(t: T) -> Reply<T> {
    Ok(Response::new(t))
}

/// The `pulumirpc.ResourceProvider` service for one provider component, served as the Pulumi
/// package `package` at `version`. While the component loads, RPCs wait for it; if it failed
/// to load, every RPC answers with the reason.
#[derive(Clone)]
pub struct PulumiService {
    /// The component that serves now (the core's one source, which `terrarium dev` swaps).
    serving: Arc<Serving>,
    /// The base plugin's package, once `Parameterize` named it (`serving` then serves it).
    parameterized: Option<Arc<parameterize::Slot>>,
    package: String,
    version: String,
    /// The engine, once known from the command line, `Handshake` or `Attach`.
    engine: EngineLink,
}

impl PulumiService {
    /// Serves whatever `serving` serves (for `terrarium dev`, the build serving when a call
    /// starts: a call keeps the build it started with).
    pub fn serving(
        serving: Arc<Serving>,
        package: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        PulumiService {
            serving,
            parameterized: None,
            package: package.into(),
            version: version.into(),
            engine: EngineLink::default(),
        }
    }

    /// A service whose component is still being loaded by `provider` (which should already be
    /// running): calls wait for it.
    pub fn loading(
        provider: impl Future<Output = Result<Arc<Dispatcher>, Arc<str>>> + Send + 'static,
        package: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        let loading = provider
            .map(|loaded| loaded.map_err(|message| LoadFailure { message, schema_only: None }));
        Self::serving(Arc::new(Serving::loading(loading)), package, version)
    }

    pub fn new(provider: Arc<Dispatcher>, package: &str, version: &str) -> Self {
        Self::serving(Arc::new(Serving::ready(provider)), package, version)
    }

    /// The base plugin [`parameterize::BASE_PLUGIN`] at `version`: it serves the component a
    /// package names through `Parameterize`, loaded with `loader`.
    pub fn parameterized(loader: parameterize::Loader, version: impl Into<String>) -> Self {
        let nothing_yet = LoadFailure::new(parameterize::Slot::not_parameterized().message());
        PulumiService {
            parameterized: Some(Arc::new(parameterize::Slot::new(loader))),
            ..Self::serving(
                Arc::new(Serving::failed(nothing_yet)),
                parameterize::BASE_PLUGIN,
                version,
            )
        }
    }

    /// The tonic service with Pulumi's message limits.
    pub fn into_server(self) -> pb::resource_provider_server::ResourceProviderServer<Self> {
        pb::resource_provider_server::ResourceProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }

    /// The name the plugin was started as (the package, or the base plugin's name).
    pub fn package_name(&self) -> &str {
        &self.package
    }

    /// The engine this plugin serves (its address once known, where logs go).
    pub fn engine(&self) -> &EngineLink {
        &self.engine
    }

    pub fn set_engine_address(&self, address: &str) {
        self.engine.set_address(address);
    }

    async fn provider(&self) -> Result<Arc<Dispatcher>, Status> {
        if let Some(slot) = &self.parameterized
            && slot.parameter().is_none()
        {
            return Err(parameterize::Slot::not_parameterized());
        }
        match self.serving.now().await {
            Ok(generation) => Ok(generation.dispatcher.clone()),
            Err(failure) => Err(Status::failed_precondition(format!(
                "failed to load the provider component: {}",
                failure.message
            ))),
        }
    }

    /// The package served: its name and version (a parameterized package's own, not the base
    /// plugin's).
    fn package(&self) -> (&str, &str) {
        match self.parameterized.as_ref().and_then(|slot| slot.parameter()) {
            Some(parameter) => (&parameter.name, &parameter.version),
            None => (&self.package, &self.version),
        }
    }

    /// The package's tokens; an error for every call when two types would share one.
    fn tokens(&self, p: &Dispatcher) -> Result<Tokens, Status> {
        tokens_of(p, self.package().0).map_err(|e| {
            Status::failed_precondition(format!(
                "this provider's schema cannot be served to Pulumi: {e}"
            ))
        })
    }

    /// The Terraform resource type a token names, with its schema.
    fn resource<'p>(&self, p: &'p Dispatcher, token: &str) -> Result<Resource<'p>, Status> {
        let tokens = self.tokens(p)?;
        match tokens.member(token) {
            Some(Member::Resource(name)) => {
                let s = p
                    .schema()
                    .resources
                    .get(name)
                    .ok_or_else(|| unknown_token(token, &tokens, true))?;
                Ok(Resource {
                    name: name.clone(),
                    block: &s.block,
                    ty: s.block.implied_type(),
                    version: s.version,
                })
            }
            _ => Err(unknown_token(token, &tokens, true)),
        }
    }
}

/// What ApplyResourceChange left: the new state, and the error if the provider failed after
/// making (or changing) the object.
struct Applied {
    state: Value,
    private: Vec<u8>,
    error: Option<Status>,
}

/// A managed resource type a token names, with its schema.
struct Resource<'p> {
    name: String,
    block: &'p Block,
    ty: Type,
    /// The schema version its states are written with.
    version: i64,
}

/// The tokens of the package `package` served from `p`'s schema; an error naming both
/// members when two would get one token.
pub fn tokens_of(p: &Dispatcher, package: &str) -> Result<Tokens, names::TokenCollision> {
    let s = p.schema();
    Tokens::new(package, s.resources.keys(), s.data_sources.keys(), s.functions.keys())
}

fn unknown_token(token: &str, tokens: &Tokens, resource: bool) -> Status {
    let kind = if resource { "resource type" } else { "function" };
    Status::invalid_argument(format!(
        "this provider has no {kind} {token:?}; its {kind}s are: {}",
        tokens.known(resource).join(", ")
    ))
}

/// Reads `properties` with `ty`, or the check failures.
fn decode(properties: Option<&Struct>, ty: &Type) -> Result<Decoded, Vec<Failure>> {
    values::from_struct(properties, ty)
}

/// The same as [`decode`], for RPCs that answer failures as an error.
fn decode_or_status(what: &str, properties: Option<&Struct>, ty: &Type) -> Result<Decoded, Status> {
    decode(properties, ty).map_err(|failures| {
        Status::invalid_argument(format!(
            "invalid {what}: {}",
            failures
                .iter()
                .map(|f| format!("{}: {}", f.property, f.reason))
                .collect::<Vec<_>>()
                .join("; ")
        ))
    })
}

/// A value read from Pulumi's properties, in the form the core takes (what Terraform's wire
/// format would have carried: see `terrarium_codec::canonical`). No bytes are written.
fn typed(value: &Value, ty: &Type) -> Result<Value, Status> {
    codec::canonical(value, ty)
        .map_err(|e| Status::invalid_argument(format!("the value cannot be encoded: {e}")))
}

/// A value the core answered with (checked against its type there); absent is null.
fn answered(value: Option<Value>) -> Value {
    value.unwrap_or(Value::Null)
}

/// Diagnostics with errors as one gRPC error; warnings go to the engine ([`warn`]). `ty` names the properties
/// of the diagnostics' paths.
fn check_diagnostics(what: &str, ty: &Type, diagnostics: &[Diagnostic]) -> Result<(), Status> {
    let mut errors = Vec::new();
    for d in diagnostics {
        let at = if d.attribute.is_root() {
            String::new()
        } else {
            format!(" (at {})", values::property_path(&d.attribute, ty))
        };
        match d.severity {
            Severity::Error => errors.push(format!("{}: {}{at}", d.summary, d.detail)),
            Severity::Warning => warn(&format!("{what}: {}: {}{at}", d.summary, d.detail)),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Status::unknown(format!("{what}: {}", errors.join("\n"))))
    }
}

/// A provider's warning, to the engine's `Log` with the component's records (shown with the
/// resource the call is about): Pulumi's protocol has no warnings in its answers.
fn warn(message: &str) {
    // The person's, like a warning Terraform prints: not a log line TERRARIUM_LOG may hide.
    terrarium_runtime::logging::emit_for_person(
        tracing::Level::WARN,
        "terrarium.pulumi",
        message,
        &[],
    );
}

/// Validation diagnostics as Pulumi check failures (errors only; warnings go to the engine), their
/// paths named as the properties of `ty`.
fn check_failures(diagnostics: Vec<Diagnostic>, ty: &Type) -> Vec<pb::CheckFailure> {
    diagnostics
        .into_iter()
        .filter_map(|d| match d.severity {
            Severity::Error => Some(pb::CheckFailure {
                property: values::property_path(&d.attribute, ty),
                reason: if d.detail.is_empty() {
                    d.summary
                } else {
                    format!("{}: {}", d.summary, d.detail)
                },
            }),
            Severity::Warning => {
                let at = if d.attribute.is_root() {
                    String::new()
                } else {
                    format!(" (at {})", values::property_path(&d.attribute, ty))
                };
                warn(&format!("{}: {}{at}", d.summary, d.detail));
                None
            }
        })
        .collect()
}

/// Required properties the inputs leave out, as check failures.
fn missing_required(block: &Block, ty: &Type, config: &Value) -> Vec<pb::CheckFailure> {
    let mut paths = Vec::new();
    change::missing_required(block, config, &AttributePath::root(), &mut paths);
    paths
        .into_iter()
        .map(|path| {
            let property = values::property_path(&path, ty);
            pb::CheckFailure { reason: format!("missing required property {property:?}"), property }
        })
        .collect()
}

/// The write-only properties `config` sets, refused: a provider must never store them, and
/// Pulumi keeps every input in the stack's state. (The provider's own refusal names Terraform.)
fn write_only_set(block: &Block, ty: &Type, config: &Value) -> Vec<pb::CheckFailure> {
    block
        .configured_write_only(config)
        .into_iter()
        .map(|path| {
            let property = values::property_path(&path, ty);
            pb::CheckFailure {
                reason: format!(
                    "{property:?} is write-only: the provider must never store its value, and \
                     Pulumi keeps every input in the stack's state. Remove {property:?} from the \
                     program; Terraform 1.11 or OpenTofu 1.11 and newer can set it."
                ),
                property,
            }
        })
        .collect()
}

fn failures_to_pb(failures: Vec<Failure>) -> Vec<pb::CheckFailure> {
    failures
        .into_iter()
        .map(|f| pb::CheckFailure { property: f.property, reason: f.reason })
        .collect()
}

/// The private state kept in the outputs.
fn private_of(properties: Option<&Struct>) -> Vec<u8> {
    match properties.and_then(|p| p.fields.get(PRIVATE_PROPERTY)).and_then(|v| v.kind.as_ref()) {
        Some(Kind::StringValue(s)) => {
            base64::engine::general_purpose::STANDARD.decode(s).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// Outputs of a resource (or a data source) `what`: its state in Pulumi's names, secret where
/// the schema or the inputs say so, with the private state beside it. A number a Pulumi number
/// cannot hold exactly is written as its decimal text, with a warning naming it.
fn outputs(
    what: &str,
    state: &Value,
    block: &Block,
    ty: &Type,
    secrets: &BTreeSet<AttributePath>,
    private: &[u8],
    preview: bool,
) -> Struct {
    for (path, n) in values::inexact_numbers(state) {
        let message = format!(
            "{what}: {} = {n} is more than a Pulumi number (a 64-bit float) holds exactly, so it \
             is passed as the string \"{n}\"; a reference to it (`${{...}}`) passes it on exactly, \
             a number written in the program is rounded by the program's language",
            values::property_path(&path, ty)
        );
        warn(&message);
    }
    let secret = |p: &AttributePath| secrets.contains(p) || change::is_sensitive(block, p);
    let mut s = values::to_struct(state, ty, &Writer { secret: &secret, unknowns: preview });
    if !private.is_empty() {
        s.fields.insert(
            PRIVATE_PROPERTY.into(),
            Pb {
                kind: Some(Kind::StringValue(
                    base64::engine::general_purpose::STANDARD.encode(private),
                )),
            },
        );
    }
    s
}

/// The schema version `properties` were written with: `None` for outputs without
/// [`META_PROPERTY`] (written before Terrarium kept it, so at a version nobody knows).
fn schema_version_of(properties: &Struct) -> Result<Option<i64>, Status> {
    let Some(meta) = properties.fields.get(META_PROPERTY).and_then(|v| v.kind.as_ref()) else {
        return Ok(None);
    };
    let version =
        match meta {
            Kind::StringValue(text) => serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|meta| match &meta["schema_version"] {
                    serde_json::Value::String(v) => v.parse().ok(),
                    serde_json::Value::Number(v) => v.as_i64(),
                    _ => None,
                }),
            _ => None,
        };
    version.map(Some).ok_or_else(|| {
        Status::invalid_argument(format!(
            "the resource's {META_PROPERTY} output is not {{\"schema_version\":\"N\"}}: it was \
             changed by hand; restore it from `pulumi stack export` history or delete the property"
        ))
    })
}

/// `properties` with [`META_PROPERTY`] saying they were written at schema `version`.
fn with_schema_version(mut properties: Struct, version: i64) -> Struct {
    let meta = serde_json::json!({ "schema_version": version.to_string() }).to_string();
    properties.fields.insert(META_PROPERTY.into(), Pb { kind: Some(Kind::StringValue(meta)) });
    properties
}

/// The resource ID: the `id` attribute when the type has one, else the resource's name.
fn resource_id(state: &Value, urn: &str) -> String {
    match state.attr("id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        _ => names::urn_name(urn).to_string(),
    }
}

/// `google.rpc.Status`, the message gRPC carries error details in (`grpc-status-details-bin`).
#[derive(Clone, PartialEq, prost::Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

/// A create or update that failed after making or changing the object: the error with the
/// `pulumirpc.ErrorResourceInitFailed` detail, from which the engine records the object (its
/// ID and the state the provider reported) before it reports the error.
fn init_failed(error: Status, id: String, properties: Struct, inputs: Option<Struct>) -> Status {
    use prost::Message as _;
    let detail = pb::ErrorResourceInitFailed {
        id,
        properties: Some(properties),
        reasons: vec![error.message().to_string()],
        inputs,
        refresh_before_update: false,
    };
    let status = RpcStatus {
        code: error.code() as i32,
        message: error.message().to_string(),
        details: vec![prost_types::Any {
            type_url: "type.googleapis.com/pulumirpc.ErrorResourceInitFailed".into(),
            value: detail.encode_to_vec(),
        }],
    };
    Status::with_details(error.code(), error.message(), status.encode_to_vec().into())
}

/// Runs `call` within the engine's `timeout` (seconds; 0 means none).
async fn within<T>(what: &str, timeout: f64, call: impl Future<Output = T>) -> Result<T, Status> {
    if timeout > 0.0 && timeout.is_finite() {
        tokio::time::timeout(Duration::from_secs_f64(timeout), call).await.map_err(|_| {
            Status::deadline_exceeded(format!(
                "{what} did not finish within its timeout of {timeout} s"
            ))
        })
    } else {
        Ok(call.await)
    }
}

fn unimplemented(rpc: &str, why: &str) -> Status {
    Status::unimplemented(format!("{rpc} is not supported by Terrarium's Pulumi front end: {why}"))
}

impl Resource<'_> {
    /// The prior state in `olds` (outputs an earlier call returned), upgraded by the provider
    /// when an older schema version of it wrote them.
    async fn prior(
        &self,
        p: &Dispatcher,
        what: &str,
        olds: Option<&Struct>,
    ) -> Result<Decoded, Status> {
        let Some(olds) = olds else {
            return Ok(Decoded { value: Value::Null, secrets: BTreeSet::new() });
        };
        let version = match schema_version_of(olds)? {
            Some(version) if version < self.version => version,
            Some(version) if version > self.version => {
                return Err(Status::failed_precondition(format!(
                    "the {what} of this {} were written by a newer version of the provider \
                     (schema version {version}; this one has {}): use that version or a later \
                     one",
                    self.name, self.version
                )));
            }
            _ => {
                let decoded = decode_or_status(what, Some(olds), &self.ty)?;
                let value = values::with_empty_blocks(decoded.value, self.block);
                return Ok(Decoded { value, ..decoded });
            }
        };
        let (json, secret_names) = values::to_raw_state(olds, &self.ty);
        let r = p
            .upgrade_resource_state(&dt::UpgradeResourceStateRequest {
                type_name: self.name.clone(),
                version,
                raw_state: codec::decode_json_untyped(json.to_string().as_bytes()).map_err(
                    |e| Status::invalid_argument(format!("the {what} cannot be read: {e}")),
                )?,
            })
            .await;
        check_diagnostics(
            &format!("upgrading the {what} of {} from schema version {version}", self.name),
            &self.ty,
            &r.diagnostics,
        )?;
        let value = answered(r.upgraded_state);
        let secrets = secret_names
            .into_iter()
            .filter(|name| value.attr(name).is_some())
            .map(|name| AttributePath::root().attr(&name))
            .collect();
        Ok(Decoded { value, secrets })
    }

    /// PlanResourceChange from `prior` to `config`; returns the planned state, its private
    /// state and the paths that require replacement.
    async fn plan(
        &self,
        p: &Dispatcher,
        prior: &Value,
        config: &Value,
        prior_private: Vec<u8>,
    ) -> Result<(Value, Vec<u8>, Vec<AttributePath>), Status> {
        let proposed = p.proposed_new_state(&self.name, prior, config).ok_or_else(|| {
            Status::not_found(format!("this provider has no resource type {:?}", self.name))
        })?;
        let r = p
            .plan_resource_change(&dt::PlanResourceChangeRequest {
                type_name: self.name.clone(),
                prior_state: typed(prior, &self.ty)?,
                proposed_new_state: typed(&proposed, &self.ty)?,
                config: typed(config, &self.ty)?,
                prior_private,
                ..Default::default()
            })
            .await;
        check_diagnostics(&format!("planning {}", self.name), &self.ty, &r.diagnostics)?;
        let planned = answered(r.planned_state);
        Ok((planned, r.planned_private, r.requires_replace))
    }

    /// ApplyResourceChange; returns the new state and its private state, and the error when
    /// the provider failed but reported the state it left behind (a create or update that got
    /// part way), which the engine must record.
    async fn apply(
        &self,
        p: &Dispatcher,
        prior: &Value,
        planned: &Value,
        config: &Value,
        planned_private: Vec<u8>,
    ) -> Result<Applied, Status> {
        let r = p
            .apply_resource_change(&dt::ApplyResourceChangeRequest {
                type_name: self.name.clone(),
                prior_state: typed(prior, &self.ty)?,
                planned_state: typed(planned, &self.ty)?,
                config: typed(config, &self.ty)?,
                planned_private,
                ..Default::default()
            })
            .await;
        let checked =
            check_diagnostics(&format!("applying {}", self.name), &self.ty, &r.diagnostics);
        let state = match (&checked, answered(r.new_state)) {
            (Ok(()), state) => state,
            // What was left behind is worth recording only when the provider could say.
            (Err(_), state) if !state.is_null() => state,
            (Err(e), _) => return Err(e.clone()),
        };
        Ok(Applied { state, private: r.private, error: checked.err() })
    }

    /// ReadResource of `state`; `None` when the resource is gone.
    async fn refresh(
        &self,
        p: &Dispatcher,
        state: &Value,
        private: Vec<u8>,
    ) -> Result<Option<(Value, Vec<u8>)>, Status> {
        let r = p
            .read_resource(&dt::ReadResourceRequest {
                type_name: self.name.clone(),
                current_state: typed(state, &self.ty)?,
                private,
                ..Default::default()
            })
            .await;
        check_diagnostics(&format!("reading {}", self.name), &self.ty, &r.diagnostics)?;
        let new_state = answered(r.new_state);
        Ok(if new_state.is_null() { None } else { Some((new_state, r.private)) })
    }
}

impl PulumiService {
    /// Create and Update: plan, then apply unless previewing.
    async fn plan_and_apply(
        &self,
        token: &str,
        urn: &str,
        olds: Option<&Struct>,
        news: Option<&Struct>,
        preview: bool,
        timeout: f64,
    ) -> Result<(String, Struct), Status> {
        let p = self.provider().await?;
        let r = self.resource(&p, token)?;
        let (block, ty) = (r.block, &r.ty);
        let prior = r.prior(&p, "prior outputs", olds).await?;
        let mut config = decode_or_status("inputs", news, ty)?;
        config.value = values::with_empty_blocks(config.value, block);
        let secrets: BTreeSet<AttributePath> =
            prior.secrets.union(&config.secrets).cloned().collect();
        let work = async {
            let (planned, private, _) =
                r.plan(&p, &prior.value, &config.value, private_of(olds)).await?;
            if preview {
                return Ok(Applied { state: planned, private, error: None });
            }
            r.apply(&p, &prior.value, &planned, &config.value, private).await
        };
        let what = if olds.is_some() { "Update" } else { "Create" };
        let applied = within(&format!("{what} of {urn}"), timeout, work).await??;
        let state = &applied.state;
        let id = if preview && !matches!(state.attr("id"), Some(Value::String(_))) {
            String::new()
        } else {
            resource_id(state, urn)
        };
        let properties = outputs(urn, state, block, ty, &secrets, &applied.private, preview);
        let properties = with_schema_version(properties, r.version);
        match applied.error {
            None => Ok((id, properties)),
            Some(error) => Err(init_failed(error, id, properties, news.cloned())),
        }
    }
}

#[tonic::async_trait]
impl pb::resource_provider_server::ResourceProvider for PulumiService {
    async fn handshake(
        &self,
        request: Request<pb::ProviderHandshakeRequest>,
    ) -> Reply<pb::ProviderHandshakeResponse> {
        self.set_engine_address(&request.get_ref().engine_address);
        ok(pb::ProviderHandshakeResponse {
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
    }

    async fn parameterize(
        &self,
        request: Request<pb::ParameterizeRequest>,
    ) -> Reply<pb::ParameterizeResponse> {
        use pb::parameterize_request::Parameters;
        let Some(slot) = &self.parameterized else {
            return Err(unimplemented(
                "Parameterize",
                &format!(
                    "this plugin serves one component, as the package {}; the base plugin `{}`                      serves any component a package names (`terrarium install --pulumi-base`)",
                    self.package,
                    parameterize::BASE_PLUGIN
                ),
            ));
        };
        let parameter = match request.into_inner().parameters {
            Some(Parameters::Args(args)) => parameterize::Parameter::from_args(&args.args)?,
            Some(Parameters::Value(value)) => parameterize::Parameter::from_value(&value)?,
            None => {
                return Err(Status::invalid_argument(format!(
                    "Parameterize without parameters; use: {}",
                    parameterize::USAGE
                )));
            }
        };
        let parameter = slot.parameterize(parameter, &self.serving).await?;
        // The schema must be servable now, not at the first resource.
        self.tokens(&*self.provider().await?)?;
        ok(pb::ParameterizeResponse {
            name: parameter.name.clone(),
            version: parameter.version.clone(),
        })
    }

    async fn get_schema(
        &self,
        request: Request<pb::GetSchemaRequest>,
    ) -> Reply<pb::GetSchemaResponse> {
        let request = request.into_inner();
        if request.version > 0 {
            return Err(Status::invalid_argument(format!(
                "schema version {} is not supported; this provider serves version 0",
                request.version
            )));
        }
        let p = self.provider().await?;
        let (package, version) = self.package();
        if !request.subpackage_name.is_empty() && request.subpackage_name != package {
            return Err(Status::invalid_argument(format!(
                "the schema of {} was asked for, but this plugin serves {package}",
                request.subpackage_name
            )));
        }
        let mut schema = schema::package_schema(p.schema(), &self.tokens(&p)?, version);
        if let (Some(parameter), Some(object)) =
            (self.parameterized.as_ref().and_then(|slot| slot.parameter()), schema.as_object_mut())
        {
            object.insert(
                "parameterization".into(),
                serde_json::json!({
                    "baseProvider": { "name": parameterize::BASE_PLUGIN, "version": self.version },
                    "parameter": base64::engine::general_purpose::STANDARD
                        .encode(parameter.value()),
                }),
            );
        }
        ok(pb::GetSchemaResponse { schema: schema.to_string() })
    }

    async fn check_config(&self, request: Request<pb::CheckRequest>) -> Reply<pb::CheckResponse> {
        let request = request.into_inner();
        let p = self.provider().await?;
        let ty = p.schema().provider.block.implied_type();
        let news = provider_properties(request.news.as_ref());
        let config = match decode(Some(&news), &ty) {
            Ok(c) => c,
            Err(f) => {
                return ok(pb::CheckResponse { inputs: request.news, failures: failures_to_pb(f) });
            }
        };
        let diagnostics = p.validate_provider_config(&typed(&config.value, &ty)?).await;
        ok(pb::CheckResponse { inputs: request.news, failures: check_failures(diagnostics, &ty) })
    }

    async fn diff_config(&self, request: Request<pb::DiffRequest>) -> Reply<pb::DiffResponse> {
        let request = request.into_inner();
        let (olds, news) = (
            request.old_inputs.or(request.olds).unwrap_or_default(),
            request.news.unwrap_or_default(),
        );
        let keys: BTreeSet<&String> = olds.fields.keys().chain(news.fields.keys()).collect();
        let diffs: Vec<String> = keys
            .into_iter()
            .filter(|k| {
                !k.starts_with("__")
                    && *k != "version"
                    && olds.fields.get(*k) != news.fields.get(*k)
            })
            .cloned()
            .collect();
        let changes = if diffs.is_empty() {
            pb::diff_response::DiffChanges::DiffNone
        } else {
            pb::diff_response::DiffChanges::DiffSome
        };
        ok(pb::DiffResponse { changes: changes as i32, diffs, ..Default::default() })
    }

    async fn configure(
        &self,
        request: Request<pb::ConfigureRequest>,
    ) -> Reply<pb::ConfigureResponse> {
        let request = request.into_inner();
        let p = self.provider().await?;
        let ty = p.schema().provider.block.implied_type();
        let args = match request.args {
            Some(args) => args,
            None => variables_to_struct(&request.variables, self.package().0),
        };
        let args = provider_properties(Some(&args));
        let config = decode_or_status("provider configuration", Some(&args), &ty)?;
        let diagnostics = p
            .configure(&dt::ConfigureRequest {
                terraform_version: "pulumi".into(),
                config: typed(&config.value, &ty)?,
                client: Default::default(),
            })
            .await;
        check_diagnostics("configuring the provider", &ty, &diagnostics)?;
        ok(pb::ConfigureResponse {
            accept_secrets: true,
            supports_preview: true,
            accept_resources: true,
            accept_outputs: false,
            supports_autonaming_configuration: false,
        })
    }

    async fn invoke(&self, request: Request<pb::InvokeRequest>) -> Reply<pb::InvokeResponse> {
        let request = request.into_inner();
        let p = self.provider().await?;
        let tokens = self.tokens(&p)?;
        match tokens.member(&request.tok) {
            Some(Member::DataSource(name)) => {
                let Some(s) = p.schema().data_sources.get(name) else {
                    return Err(unknown_token(&request.tok, &tokens, false));
                };
                let ty = s.block.implied_type();
                let config = match decode(request.args.as_ref(), &ty) {
                    Ok(c) => c,
                    Err(f) => {
                        return ok(pb::InvokeResponse {
                            r#return: None,
                            failures: failures_to_pb(f),
                        });
                    }
                };
                let missing = missing_required(&s.block, &ty, &config.value);
                if !missing.is_empty() {
                    return ok(pb::InvokeResponse { r#return: None, failures: missing });
                }
                let config_value = typed(&config.value, &ty)?;
                let failures =
                    check_failures(p.validate_data_source_config(name, &config_value).await, &ty);
                if !failures.is_empty() {
                    return ok(pb::InvokeResponse { r#return: None, failures });
                }
                let r = p
                    .read_data_source(&dt::ReadDataSourceRequest {
                        type_name: name.clone(),
                        config: config_value,
                        ..Default::default()
                    })
                    .await;
                check_diagnostics(&format!("reading data source {name}"), &ty, &r.diagnostics)?;
                let state = answered(r.state);
                let result =
                    outputs(&request.tok, &state, &s.block, &ty, &config.secrets, &[], false);
                ok(pb::InvokeResponse { r#return: Some(result), failures: Vec::new() })
            }
            Some(Member::Function(name)) => {
                let Some(function) = p.schema().functions.get(name) else {
                    return Err(unknown_token(&request.tok, &tokens, false));
                };
                let params: Vec<_> =
                    function.parameters.iter().chain(function.variadic.iter()).collect();
                let arg_ty = Type::object(params.iter().enumerate().map(|(i, param)| {
                    let ty = if i >= function.parameters.len() {
                        Type::list(param.ty.clone())
                    } else {
                        param.ty.clone()
                    };
                    (param.name.clone(), ty)
                }));
                let args = match decode(request.args.as_ref(), &arg_ty) {
                    Ok(a) => a,
                    Err(f) => {
                        return ok(pb::InvokeResponse {
                            r#return: None,
                            failures: failures_to_pb(f),
                        });
                    }
                };
                let mut arguments = Vec::new();
                for param in &function.parameters {
                    let v = args.value.attr(&param.name).cloned().unwrap_or(Value::Null);
                    arguments.push(typed(&v, &param.ty)?);
                }
                if let Some(variadic) = &function.variadic
                    && let Some(Value::List(rest)) = args.value.attr(&variadic.name)
                {
                    for v in rest {
                        arguments.push(typed(v, &variadic.ty)?);
                    }
                }
                let r = p.call_function(name, &arguments).await;
                if let Some(error) = r.error {
                    let property = error
                        .argument
                        .and_then(|i| params.get(usize::try_from(i).ok()?))
                        .map(|param| {
                            values::property_path(
                                &AttributePath::root().attr(param.name.clone()),
                                &arg_ty,
                            )
                        })
                        .unwrap_or_default();
                    return ok(pb::InvokeResponse {
                        r#return: None,
                        failures: vec![pb::CheckFailure { property, reason: error.text }],
                    });
                }
                let result = answered(r.result);
                let result_ty = Type::object([("result", function.return_type.clone())]);
                let wrapped = Value::Object([("result".to_string(), result)].into_iter().collect());
                // A result computed from a secret argument stays secret.
                let from_secret = !args.secrets.is_empty();
                let secret = |p: &AttributePath| from_secret && p.0.len() == 1;
                let s = values::to_struct(
                    &wrapped,
                    &result_ty,
                    &Writer { secret: &secret, unknowns: false },
                );
                ok(pb::InvokeResponse { r#return: Some(s), failures: Vec::new() })
            }
            _ => Err(unknown_token(&request.tok, &tokens, false)),
        }
    }

    async fn call(&self, _: Request<pb::CallRequest>) -> Reply<pb::CallResponse> {
        Err(unimplemented(
            "Call",
            "Terraform providers have no methods on resources; use Invoke for data sources and functions",
        ))
    }

    async fn check(&self, request: Request<pb::CheckRequest>) -> Reply<pb::CheckResponse> {
        let request = request.into_inner();
        let urn = request.urn.clone();
        for_resource(&urn, async move {
            let p = self.provider().await?;
            let resource = self.resource(&p, &request.r#type)?;
            let (type_name, block, ty) = (&resource.name, resource.block, &resource.ty);
            let config = match values::from_inputs(request.news.as_ref(), ty, block) {
                Ok(c) => Decoded { value: values::with_empty_blocks(c.value, block), ..c },
                Err(f) => {
                    return ok(pb::CheckResponse {
                        inputs: request.news,
                        failures: failures_to_pb(f),
                    });
                }
            };
            let missing = missing_required(block, ty, &config.value);
            if !missing.is_empty() {
                return ok(pb::CheckResponse { inputs: request.news, failures: missing });
            }
            let write_only = write_only_set(block, ty, &config.value);
            if !write_only.is_empty() {
                return ok(pb::CheckResponse { inputs: request.news, failures: write_only });
            }
            let diagnostics = p
                .validate_resource_config(type_name, &typed(&config.value, ty)?, Default::default())
                .await;
            let failures = check_failures(diagnostics, ty);
            if !failures.is_empty() {
                return ok(pb::CheckResponse { inputs: request.news, failures });
            }
            // The defaults are what the provider plans for a new object from these inputs. A plan
            // that fails here says nothing the plan of Diff or Create will not say with its
            // context (a prior state), so the inputs then stay as given.
            let inputs = match resource.plan(&p, &Value::Null, &config.value, Vec::new()).await {
                Ok((planned, _, _)) => with_defaults(
                    request.news.unwrap_or_default(),
                    &config.value,
                    &config.secrets,
                    &planned,
                    block,
                    ty,
                ),
                Err(status) => {
                    tracing::debug!("Check of {}: no defaults: {}", request.urn, status.message());
                    request.news.unwrap_or_default()
                }
            };
            ok(pb::CheckResponse { inputs: Some(inputs), failures: Vec::new() })
        })
        .await
    }

    async fn diff(&self, request: Request<pb::DiffRequest>) -> Reply<pb::DiffResponse> {
        let request = request.into_inner();
        let urn = request.urn.clone();
        for_resource(&urn, async move {
            let p = self.provider().await?;
            let resource = self.resource(&p, &request.r#type)?;
            let prior = resource.prior(&p, "prior outputs", request.olds.as_ref()).await?;
            let mut config = decode_or_status("inputs", request.news.as_ref(), &resource.ty)?;
            config.value = values::with_empty_blocks(config.value, resource.block);
            let (planned, _, requires_replace) = resource
                .plan(&p, &prior.value, &config.value, private_of(request.olds.as_ref()))
                .await?;
            let mut detailed = std::collections::HashMap::new();
            let mut diffs = BTreeSet::new();
            let mut replaces = BTreeSet::new();
            let found = change::changes(&prior.value, &planned);
            let replacing = found.iter().any(|(path, _)| change::replaces(path, &requires_replace));
            for (path, kind) in found {
                let replace = change::replaces(&path, &requires_replace);
                // Pulumi's resource ID is not a property; on a replacement every computed
                // output is new, which says nothing the replacement does not.
                if !replace && change::not_a_diff(resource.block, &path, replacing) {
                    continue;
                }
                let kind = match (kind, replace) {
                    (change::Change::Add, false) => pb::property_diff::Kind::Add,
                    (change::Change::Add, true) => pb::property_diff::Kind::AddReplace,
                    (change::Change::Delete, false) => pb::property_diff::Kind::Delete,
                    (change::Change::Delete, true) => pb::property_diff::Kind::DeleteReplace,
                    (change::Change::Update, false) => pb::property_diff::Kind::Update,
                    (change::Change::Update, true) => pb::property_diff::Kind::UpdateReplace,
                };
                let top = change::top_level(&path)
                    .map(|name| {
                        values::property_path(&AttributePath::root().attr(name), &resource.ty)
                    })
                    .unwrap_or_default();
                if replace {
                    replaces.insert(top.clone());
                }
                diffs.insert(top);
                detailed.insert(
                    values::property_path(&path, &resource.ty),
                    pb::PropertyDiff { kind: kind as i32, input_diff: false },
                );
            }
            let changes = if diffs.is_empty() {
                pb::diff_response::DiffChanges::DiffNone
            } else {
                pb::diff_response::DiffChanges::DiffSome
            };
            // Pulumi creates the replacement first unless told; an object that cannot exist
            // twice (the component says which) would be deleted with the old one.
            let delete_before_replace =
                !replaces.is_empty() && p.deletes_before_replace(&resource.name);
            ok(pb::DiffResponse {
                replaces: replaces.into_iter().collect(),
                stables: Vec::new(),
                delete_before_replace,
                changes: changes as i32,
                diffs: diffs.into_iter().collect(),
                detailed_diff: detailed,
                has_detailed_diff: true,
            })
        })
        .await
    }

    async fn create(&self, request: Request<pb::CreateRequest>) -> Reply<pb::CreateResponse> {
        let r = request.into_inner();
        let urn = r.urn.clone();
        for_resource(&urn, async move {
            let (id, properties) = self
                .plan_and_apply(
                    &r.r#type_or_token(),
                    &r.urn,
                    None,
                    r.properties.as_ref(),
                    r.preview,
                    r.timeout,
                )
                .await?;
            ok(pb::CreateResponse {
                id,
                properties: Some(properties),
                refresh_before_update: false,
            })
        })
        .await
    }

    async fn read(&self, request: Request<pb::ReadRequest>) -> Reply<pb::ReadResponse> {
        let r = request.into_inner();
        let urn = r.urn.clone();
        for_resource(&urn, async move {
            let p = self.provider().await?;
            let token = r.r#type_or_token();
            let resource = self.resource(&p, &token)?;
            let (type_name, block, ty) =
                (resource.name.clone(), resource.block, resource.ty.clone());
            let has_state = r.properties.as_ref().is_some_and(|s| !s.fields.is_empty());
            let (state, private, secrets) = if has_state {
                let current = resource.prior(&p, "outputs", r.properties.as_ref()).await?;
                (current.value, private_of(r.properties.as_ref()), current.secrets)
            } else {
                // Import: only the ID is known. An ID that `List` gave is the object's identity.
                let request = match identity_of_import_id(&p, &type_name, &r.id) {
                    Some(identity) => dt::ImportResourceStateRequest {
                        type_name: type_name.clone(),
                        identity: Some(identity),
                        ..Default::default()
                    },
                    None => dt::ImportResourceStateRequest {
                        type_name: type_name.clone(),
                        id: r.id.clone(),
                        ..Default::default()
                    },
                };
                let imported = p.import_resource_state(&request).await;
                check_diagnostics(
                    &format!("importing {type_name} {:?}", r.id),
                    &ty,
                    &imported.diagnostics,
                )?;
                let Some(first) = imported.imported.into_iter().find(|i| i.type_name == type_name)
                else {
                    return Err(Status::not_found(format!(
                        "{type_name} {:?} could not be imported: the provider found nothing",
                        r.id
                    )));
                };
                (first.state, first.private, BTreeSet::new())
            };
            let refreshed = within(
                &format!("Read of {}", r.urn),
                r.timeout,
                resource.refresh(&p, &state, private),
            )
            .await??;
            let Some((state, private)) = refreshed else {
                // Gone: an empty ID tells the engine.
                return ok(pb::ReadResponse::default());
            };
            let properties = outputs(&r.urn, &state, block, &ty, &secrets, &private, false);
            let properties = with_schema_version(properties, resource.version);
            let inputs = inputs_from_state(&properties, r.inputs.as_ref(), block);
            ok(pb::ReadResponse {
                id: resource_id(&state, &r.urn),
                properties: Some(properties),
                inputs: Some(inputs),
                refresh_before_update: false,
            })
        })
        .await
    }

    async fn update(&self, request: Request<pb::UpdateRequest>) -> Reply<pb::UpdateResponse> {
        let r = request.into_inner();
        let urn = r.urn.clone();
        for_resource(&urn, async move {
            let token = r.r#type_or_token();
            let olds = r.olds.clone().unwrap_or_default();
            let (_, properties) = self
                .plan_and_apply(&token, &r.urn, Some(&olds), r.news.as_ref(), r.preview, r.timeout)
                .await?;
            ok(pb::UpdateResponse { properties: Some(properties), refresh_before_update: false })
        })
        .await
    }

    async fn delete(&self, request: Request<pb::DeleteRequest>) -> Reply<()> {
        let r = request.into_inner();
        let urn = r.urn.clone();
        for_resource(&urn, async move {
            let p = self.provider().await?;
            let token = r.r#type_or_token();
            let resource = self.resource(&p, &token)?;
            let prior = resource.prior(&p, "outputs", r.properties.as_ref()).await?;
            let private = private_of(r.properties.as_ref());
            // Pulumi plans no delete, so the host plans it as Terraform does for a provider
            // that plans destroys: such a provider may refuse it (a protected object) before
            // anything is deleted, and the planned private state goes to the apply.
            let plans_destroy = p.server_capabilities().plan_destroy;
            let work = async {
                let private = if plans_destroy {
                    resource.plan(&p, &prior.value, &Value::Null, private).await?.1
                } else {
                    private
                };
                resource.apply(&p, &prior.value, &Value::Null, &Value::Null, private).await
            };
            let applied = within(&format!("Delete of {}", r.urn), r.timeout, work).await??;
            // A failed delete leaves the object as the engine knows it: the error is enough.
            match applied.error {
                Some(error) => Err(error),
                None => ok(()),
            }
        })
        .await
    }

    async fn construct(&self, _: Request<pb::ConstructRequest>) -> Reply<pb::ConstructResponse> {
        Err(unimplemented(
            "Construct",
            "a Terraform provider has custom resources only, no component resources",
        ))
    }

    async fn cancel(&self, _: Request<()>) -> Reply<()> {
        if let Ok(p) = self.provider().await
            && let Some(error) = p.stop().await
        {
            tracing::warn!("cancel: {error}");
        }
        ok(())
    }

    async fn get_plugin_info(&self, _: Request<()>) -> Reply<pb::PluginInfo> {
        ok(pb::PluginInfo { version: self.version.clone() })
    }

    async fn attach(&self, request: Request<pb::PluginAttach>) -> Reply<()> {
        self.set_engine_address(&request.get_ref().address);
        ok(())
    }

    async fn get_mapping(
        &self,
        request: Request<pb::GetMappingRequest>,
    ) -> Reply<pb::GetMappingResponse> {
        let request = request.into_inner();
        if request.key != TERRAFORM_MAPPING_KEY
            || !(request.provider.is_empty() || request.provider == self.package().0)
        {
            return ok(pb::GetMappingResponse::default());
        }
        let p = self.provider().await?;
        let tokens = self.tokens(&p)?;
        let s = p.schema();
        let map =
            |names: Vec<(&String, Option<&str>)>| -> serde_json::Map<String, serde_json::Value> {
                names
                    .into_iter()
                    .filter_map(|(n, t)| Some((n.clone(), serde_json::json!({ "tok": t? }))))
                    .collect()
            };
        let data = serde_json::json!({
            "name": self.package().0,
            "version": self.package().1,
            "resources": map(s.resources.keys().map(|n| (n, tokens.resource(n))).collect()),
            "dataSources": map(s.data_sources.keys().map(|n| (n, tokens.data_source(n))).collect()),
        });
        ok(pb::GetMappingResponse {
            provider: self.package().0.to_string(),
            data: data.to_string().into_bytes(),
        })
    }

    async fn get_mappings(
        &self,
        request: Request<pb::GetMappingsRequest>,
    ) -> Reply<pb::GetMappingsResponse> {
        let providers = if request.get_ref().key == TERRAFORM_MAPPING_KEY {
            vec![self.package().0.to_string()]
        } else {
            Vec::new()
        };
        ok(pb::GetMappingsResponse { providers })
    }

    type ListStream = ReceiverStream<Result<pb::ListResponse, Status>>;

    async fn list(&self, request: Request<pb::ListRequest>) -> Reply<Self::ListStream> {
        let r = request.into_inner();
        let p = self.provider().await?;
        let resource = self.resource(&p, &r.token)?;
        let Some(schema) = p.schema().list_resources.get(&resource.name) else {
            return Err(unimplemented(
                "List",
                &format!(
                    "the component has no list resource for {} ({}), so it cannot list them",
                    r.token, resource.name
                ),
            ));
        };
        let offset = match r.continuation_token.as_str() {
            "" => 0,
            token => token.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
                Status::invalid_argument(format!(
                    "the continuation token {token:?} is not one this provider gave; start again \
                     without one"
                ))
            })?,
        };
        let ty = schema.block.implied_type();
        let query = decode_or_status("query", r.query.as_ref(), &ty)?;
        let (sender, received) = tokio::sync::mpsc::channel(LIST_BUFFER);
        if query.value.contains_unknown() {
            // Unknown until the query's values are: Pulumi's Computed, alone.
            let computed = pb::list_response::Response::Computed(Default::default());
            let _ = sender.send(Ok(pb::ListResponse { response: Some(computed) })).await;
            return ok(ReceiverStream::new(received));
        }
        let missing = missing_required(&schema.block, &ty, &query.value);
        let mut failures = failures_text(&missing);
        if failures.is_empty() {
            let query_value = typed(&query.value, &ty)?;
            let diagnostics = p.validate_list_resource_config(&resource.name, &query_value).await;
            failures = failures_text(&check_failures(diagnostics, &ty));
        }
        if !failures.is_empty() {
            return Err(Status::invalid_argument(format!("invalid query: {failures}")));
        }
        let page = Page::new(r.limit, r.page_size, offset);
        let listing = dt::ListResourceRequest {
            type_name: resource.name.clone(),
            config: typed(&query.value, &ty)?,
            include_resource_object: false,
            limit: page.items_to_list(),
        };
        let identity = p.identity_schemas().get(&resource.name).map(|s| s.implied_type());
        tokio::spawn(list_pages(p, listing, identity.unwrap_or(Type::Dynamic), page, sender));
        ok(ReceiverStream::new(received))
    }
}

/// How many responses a `List` stream holds before the listing waits for the engine.
const LIST_BUFFER: usize = 16;

/// Check failures as one line of text.
fn failures_text(failures: &[pb::CheckFailure]) -> String {
    failures.iter().map(|f| format!("{}: {}", f.property, f.reason)).collect::<Vec<_>>().join("; ")
}

/// One page of a `List`: Terraform lists from the start, so a page after the first is the
/// listing again with the items before it skipped (its continuation token is their count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Page {
    /// Items skipped: those of the pages before.
    offset: i64,
    /// Items on this page at most (0: no bound).
    size: i64,
    /// Items of the whole listing at most (0: no bound).
    limit: i64,
}

impl Page {
    fn new(limit: i64, page_size: i64, offset: i64) -> Page {
        Page { offset, size: page_size.max(0), limit: limit.max(0) }
    }

    /// The limit for Terraform's ListResource: through this page, and one item more to know
    /// whether another page follows, within the listing's limit (0: none).
    fn items_to_list(&self) -> i64 {
        let through_page = if self.size > 0 { self.offset + self.size + 1 } else { 0 };
        match (through_page, self.limit) {
            (0, limit) => limit,
            (through, 0) => through,
            (through, limit) => through.min(limit),
        }
    }

    /// What to do with the `n`th item listed (from 0).
    fn place(&self, n: i64) -> Placement {
        if n < self.offset {
            Placement::Skip
        } else if self.limit > 0 && n >= self.limit {
            Placement::Stop
        } else if self.size > 0 && n >= self.offset + self.size {
            Placement::NextPage(self.offset + self.size)
        } else {
            Placement::Send
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    Skip,
    Send,
    /// There is another page, from this item on.
    NextPage(i64),
    Stop,
}

/// Runs `listing` and sends its items on this page as `List` results: the ID is the item's
/// identity as JSON (which `Read` imports by), the name its display name.
async fn list_pages(
    p: Arc<Dispatcher>,
    listing: dt::ListResourceRequest,
    identity_ty: Type,
    page: Page,
    sender: tokio::sync::mpsc::Sender<Result<pb::ListResponse, Status>>,
) {
    let (events, mut received) = tokio::sync::mpsc::channel(LIST_BUFFER);
    let lister = p.clone();
    let listed = tokio::spawn(async move { lister.list_resource(&listing, events).await });
    let mut n = 0;
    while let Some(event) = received.recv().await {
        let errors = check_diagnostics("listing", &identity_ty, &event.diagnostics);
        let answer = match (errors, &event.identity) {
            (Err(status), _) => Err(status),
            (Ok(()), None) => continue,
            (Ok(()), Some(identity)) => {
                let place = page.place(n);
                n += 1;
                match place {
                    Placement::Skip => continue,
                    Placement::Stop => break,
                    Placement::NextPage(from) => Ok(pb::list_response::Response::Continuation(
                        pb::list_response::Continuation { continuation_token: from.to_string() },
                    )),
                    Placement::Send => listed_id(identity, &identity_ty).map(|id| {
                        pb::list_response::Response::Result(pb::list_response::Result {
                            id,
                            name: event.display_name.clone(),
                        })
                    }),
                }
            }
        };
        let last = !matches!(answer, Ok(pb::list_response::Response::Result(_)));
        let answer = answer.map(|response| pb::ListResponse { response: Some(response) });
        if sender.send(answer).await.is_err() || last {
            break;
        }
    }
    // The listing ends when its consumer does.
    drop(received);
    let _ = listed.await;
}

/// The Pulumi ID of a listed item: its identity as a JSON object.
fn listed_id(identity: &Value, ty: &Type) -> Result<String, Status> {
    let json = codec::encode_json(identity, ty)
        .map_err(|e| Status::internal(format!("the listed identity cannot be written: {e}")))?;
    String::from_utf8(json)
        .map_err(|e| Status::internal(format!("the listed identity cannot be written: {e}")))
}

/// The identity an import ID stands for, when it is one `List` gave (a JSON object that is
/// an identity of the resource type).
fn identity_of_import_id(p: &Dispatcher, type_name: &str, id: &str) -> Option<Value> {
    if !id.trim_start().starts_with('{') {
        return None;
    }
    let ty = p.identity_schemas().get(type_name)?.implied_type();
    let value = codec::decode_json(id.as_bytes(), &ty).ok()?;
    codec::canonical(&value, &ty).ok()
}

/// The type token of a request: `type` when the engine sends it, else from the URN.
trait TypeToken {
    fn r#type_or_token(&self) -> String;
}

macro_rules! type_token {
    ($($t:ty),*) => {$(
        impl TypeToken for $t {
            fn r#type_or_token(&self) -> String {
                if self.r#type.is_empty() { token_from_urn(&self.urn) } else { self.r#type.clone() }
            }
        }
    )*};
}
type_token!(pb::CreateRequest, pb::ReadRequest, pb::UpdateRequest, pb::DeleteRequest);

/// `urn:pulumi:stack::project::[parent$]type::name` -> `type`.
fn token_from_urn(urn: &str) -> String {
    let parts: Vec<&str> = urn.split("::").collect();
    let qualified = parts.get(parts.len().saturating_sub(2)).copied().unwrap_or_default();
    qualified.rsplit('$').next().unwrap_or(qualified).to_string()
}

/// The provider's configuration properties without Pulumi's own (`version`, `__` keys).
fn provider_properties(properties: Option<&Struct>) -> Struct {
    Struct {
        fields: properties
            .map(|p| {
                p.fields
                    .iter()
                    .filter(|(k, _)| *k != "version" && !k.starts_with("__"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Old engines configure with `variables`: `package:key` to a string (JSON for non-strings).
fn variables_to_struct(
    variables: &std::collections::HashMap<String, String>,
    package: &str,
) -> Struct {
    let prefix = format!("{package}:");
    Struct {
        fields: variables
            .iter()
            .map(|(k, v)| {
                let key = k.strip_prefix(&prefix).unwrap_or(k).to_string();
                let value = match serde_json::from_str::<serde_json::Value>(v) {
                    Ok(json @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
                        json_to_pb(&json)
                    }
                    _ => Pb { kind: Some(Kind::StringValue(v.clone())) },
                };
                (key, value)
            })
            .collect(),
    }
}

fn json_to_pb(json: &serde_json::Value) -> Pb {
    use serde_json::Value as J;
    let kind = match json {
        J::Null => Kind::NullValue(0),
        J::Bool(b) => Kind::BoolValue(*b),
        J::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(f64::NAN)),
        J::String(s) => Kind::StringValue(s.clone()),
        J::Array(items) => Kind::ListValue(prost_types::ListValue {
            values: items.iter().map(json_to_pb).collect(),
        }),
        J::Object(m) => Kind::StructValue(Struct {
            fields: m.iter().map(|(k, v)| (k.clone(), json_to_pb(v))).collect(),
        }),
    };
    Pb { kind: Some(kind) }
}

/// `news` with the defaults the plan filled in ([`defaults::fill`]): a property that gets a
/// default inside is written again whole, its secrets (`secrets`) and unknowns kept.
fn with_defaults(
    news: Struct,
    config: &Value,
    secrets: &BTreeSet<AttributePath>,
    planned: &Value,
    block: &Block,
    ty: &Type,
) -> Struct {
    let Value::Object(given) = config else { return news };
    let filled = defaults::fill(config, planned, block);
    let Value::Object(filled) = filled else { return news };
    let changed: BTreeMap<String, Value> =
        filled.into_iter().filter(|(k, v)| given.get(k).is_none_or(|g| g != v)).collect();
    if changed.is_empty() {
        return news;
    }
    let secret = |p: &AttributePath| secrets.contains(p) || change::is_sensitive(block, p);
    let written =
        values::to_struct(&Value::Object(changed), ty, &Writer { secret: &secret, unknowns: true });
    let mut news = news;
    for (k, v) in written.fields {
        news.fields.insert(k, v);
    }
    news
}

/// The inputs a resource read from the provider stands for: its configurable attributes. On a
/// refresh only those the old inputs set; on an import every one that is not null.
fn inputs_from_state(outputs: &Struct, old_inputs: Option<&Struct>, block: &Block) -> Struct {
    let configurable: BTreeSet<String> = block
        .attributes
        .iter()
        .filter(|a| a.required || a.optional)
        .map(|a| a.name.clone())
        .chain(block.block_types.iter().map(|b| b.type_name.clone()))
        .collect();
    let names = names::PropertyNames::new(
        block
            .attributes
            .iter()
            .map(|a| a.name.as_str())
            .chain(block.block_types.iter().map(|b| b.type_name.as_str())),
    );
    let wanted = |key: &str| -> bool {
        match old_inputs.filter(|o| !o.fields.is_empty()) {
            Some(old) => old.fields.contains_key(key),
            None => names.terraform(key).is_some_and(|n| configurable.contains(n)),
        }
    };
    let settable = settable_fields(&outputs.fields, block);
    Struct { fields: settable.into_iter().filter(|(k, _)| wanted(k)).collect() }
}

/// The fields of an object of `block` one can set: its required and optional attributes and
/// its nested blocks, not null, and inside each nested block or nested attribute object the
/// same, so that an imported resource's inputs hold no computed-only value at any depth (a
/// program holding one would be refused).
fn settable_fields(fields: &BTreeMap<String, Pb>, block: &Block) -> BTreeMap<String, Pb> {
    let names = names::PropertyNames::new(
        block
            .attributes
            .iter()
            .map(|a| a.name.as_str())
            .chain(block.block_types.iter().map(|b| b.type_name.as_str())),
    );
    let mut out = BTreeMap::new();
    for (key, value) in fields {
        if matches!(value.kind, Some(Kind::NullValue(_)) | None) {
            continue;
        }
        let Some(name) = names.terraform(key) else { continue };
        let kept = if let Some(a) = block.attributes.iter().find(|a| a.name == name) {
            if !(a.required || a.optional) {
                continue;
            }
            match &a.ty {
                AttributeType::Nested { nesting, attributes } => {
                    let inner = Block { attributes: attributes.clone(), ..Block::default() };
                    settable_value(value, &inner, *nesting == ObjectNesting::Map)
                }
                AttributeType::Type(_) => value.clone(),
            }
        } else if let Some(b) = block.block_types.iter().find(|b| b.type_name == name) {
            settable_value(value, &b.block, b.nesting == BlockNesting::Map)
        } else {
            continue;
        };
        out.insert(key.clone(), kept);
    }
    out
}

/// A nested object, or a list of them, or (`map`) a map of them, with only what one can set
/// ([`settable_fields`]).
fn settable_value(value: &Pb, block: &Block, map: bool) -> Pb {
    let kind = match &value.kind {
        Some(Kind::StructValue(s)) if s.fields.contains_key(values::SIG_KEY) => {
            return value.clone();
        }
        Some(Kind::StructValue(s)) if map => Kind::StructValue(Struct {
            fields: s
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), settable_value(v, block, false)))
                .collect(),
        }),
        Some(Kind::StructValue(s)) => {
            Kind::StructValue(Struct { fields: settable_fields(&s.fields, block) })
        }
        Some(Kind::ListValue(l)) => Kind::ListValue(prost_types::ListValue {
            values: l.values.iter().map(|v| settable_value(v, block, map)).collect(),
        }),
        _ => return value.clone(),
    };
    Pb { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_skip_what_came_before_and_say_where_the_next_starts() {
        // No page size, no limit: everything, on one page.
        let all = Page::new(0, 0, 0);
        assert_eq!(all.items_to_list(), 0);
        assert_eq!((0..3).map(|n| all.place(n)).collect::<Vec<_>>(), [Placement::Send; 3]);
        // Pages of 2: the second page lists 5 (one more, to know of a third) and skips 2.
        let second = Page::new(0, 2, 2);
        assert_eq!(second.items_to_list(), 5);
        let places: Vec<_> = (0..5).map(|n| second.place(n)).collect();
        use Placement::*;
        assert_eq!(places, [Skip, Skip, Send, Send, NextPage(4)]);
        // A limit ends the listing, without a next page.
        let limited = Page::new(3, 2, 2);
        assert_eq!(limited.items_to_list(), 3);
        assert_eq!((0..4).map(|n| limited.place(n)).collect::<Vec<_>>(), [Skip, Skip, Send, Stop]);
    }

    #[test]
    fn the_type_token_is_read_from_the_urn() {
        assert_eq!(
            token_from_urn("urn:pulumi:dev::proj::random:index/string:String::pw"),
            "random:index/string:String"
        );
        assert_eq!(
            token_from_urn("urn:pulumi:dev::proj::my:Parent$random:index/string:String::pw"),
            "random:index/string:String"
        );
    }
}

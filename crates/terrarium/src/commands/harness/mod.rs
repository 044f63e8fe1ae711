//! `terrarium harness COMPONENT`: a provider component driven by a test, one JSON request per
//! line on stdin and one JSON answer per line on stdout, without terraform. Every request is
//! one call on the same `Dispatcher` that serves terraform, so a test sees the very planner,
//! checks and sandbox that terraform does; the harness only plays terraform's own part (the
//! proposed new state of a plan, and decoding a configuration). The SDKs' test helpers in
//! Python and TypeScript speak this protocol; docs/harness.md describes it.

mod values;

use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Value as Json, json};
use terrarium_model::schema::Block;
use terrarium_model::{ClientCapabilities, Diagnostic, Severity, Type, Value};

use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_core::types::{
    ApplyResourceChangeRequest, ConfigureRequest, DeferredReason, ImportResourceStateRequest,
    ListResourceRequest, PlanResourceChangeRequest, ReadDataSourceRequest, ReadResourceRequest,
};
use terrarium_runtime::sandbox::{Grants, ProtectedPath, Refuse};
use terrarium_runtime::{Runtime, RuntimeSettings};

use terrarium_install::grant_args::{GRANT_ARG_IDS, GrantArgs};
use terrarium_install::protected;
use values::{config_from_json, from_json, to_json};

#[derive(clap::Args, Debug)]
pub struct HarnessArgs {
    /// The provider component (.wasm) to drive.
    #[arg(value_name = "COMPONENT")]
    pub component: PathBuf,
    /// What the provider may do, as `terrarium install` takes it (nothing by default).
    #[command(flatten)]
    pub grant_flags: GrantArgs,
    /// Take the grants from this grants file instead of flags.
    #[arg(long, value_name = "FILE", conflicts_with_all = GRANT_ARG_IDS)]
    pub grants: Option<PathBuf>,
    /// Compile the component instead of using the compiled-component cache.
    #[arg(long)]
    pub no_cache: bool,
}

/// One request line. `type` names the resource, data source or function type.
#[derive(Deserialize, Debug)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Request {
    /// The provider's schema, as `terrarium inspect` prints it.
    Schema,
    /// ValidateProviderConfig, then ConfigureProvider when it found no error.
    Configure {
        #[serde(default)]
        config: Json,
    },
    /// Validate{Resource,DataResource,Provider}Config.
    Validate {
        #[serde(default)]
        kind: Kind,
        #[serde(rename = "type", default)]
        type_name: String,
        #[serde(default)]
        config: Json,
    },
    /// PlanResourceChange, with the proposed new state terraform would send.
    Plan {
        #[serde(rename = "type")]
        type_name: String,
        #[serde(default)]
        prior: Json,
        #[serde(default)]
        prior_private: String,
        #[serde(default)]
        prior_identity: Option<Json>,
        /// Null plans a destroy.
        #[serde(default)]
        config: Json,
    },
    /// ApplyResourceChange of what a plan answered.
    Apply {
        #[serde(rename = "type")]
        type_name: String,
        #[serde(default)]
        prior: Json,
        #[serde(default)]
        planned: Json,
        #[serde(default)]
        planned_unknown: Json,
        #[serde(default)]
        planned_private: String,
        #[serde(default)]
        planned_identity: Option<Json>,
        #[serde(default)]
        config: Json,
    },
    /// ReadResource.
    Read {
        #[serde(rename = "type")]
        type_name: String,
        state: Json,
        #[serde(default)]
        private: String,
        #[serde(default)]
        identity: Option<Json>,
    },
    /// ImportResourceState, by ID or by identity.
    Import {
        #[serde(rename = "type")]
        type_name: String,
        #[serde(default)]
        id: String,
        #[serde(default)]
        identity: Option<Json>,
    },
    /// ReadDataSource.
    ReadData {
        #[serde(rename = "type")]
        type_name: String,
        #[serde(default)]
        config: Json,
    },
    /// ValidateListResourceConfig, then ListResource (`terraform query`), every item.
    List {
        #[serde(rename = "type")]
        type_name: String,
        #[serde(default)]
        config: Json,
        /// The list block's `limit`; 0 (the default here): every item.
        #[serde(default)]
        limit: i64,
        /// The list block's `include_resource`: each item carries its resource object.
        #[serde(default)]
        include_resource: bool,
    },
    /// CallFunction.
    Call {
        function: String,
        #[serde(default)]
        arguments: Vec<Json>,
    },
}

#[derive(Deserialize, Debug, Default, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Kind {
    #[default]
    Resource,
    DataSource,
    Provider,
}

/// A request that cannot be made: answered with `{"error": ...}`, and the harness goes on.
#[derive(Debug, thiserror::Error)]
enum RequestError {
    #[error("not a harness request: {0}")]
    Parse(#[from] serde_json::Error),
    #[error("this provider has no {0} type {1:?}")]
    UnknownType(&'static str, String),
    #[error("{0}")]
    Value(#[from] values::ValueError),
    #[error("{what} cannot be encoded: {error}")]
    Encode { what: &'static str, error: codec::CodecError },
    #[error("{0} is not base64 (pass back what the harness answered)")]
    Private(&'static str),
}

/// Terraform 1.15's capabilities: write-only attributes allowed, deferral not.
const CLIENT: ClientCapabilities =
    ClientCapabilities { deferral_allowed: false, write_only_attributes_allowed: true };

pub fn run(args: &HarnessArgs) -> anyhow::Result<()> {
    let mut settings =
        RuntimeSettings { log_module: "provider.terrarium-harness".into(), ..Default::default() };
    if args.no_cache {
        settings.cache_dir = None;
    }
    let grants = match &args.grants {
        Some(file) => Grants::load(file)?,
        None => args.grant_flags.grants()?,
    };
    let mut protected = protected::host(settings.cache_dir.as_deref());
    protected.push(ProtectedPath::new(
        &args.component,
        "the provider component",
        "a provider that can write there can replace its own code",
        Refuse::Write,
    ));
    super::serve::apply_grants(&mut settings, grants, &protected)?;
    let runtime = Runtime::load(&args.component, settings)
        .with_context(|| format!("cannot load {}", args.component.display()))?;
    let tokio = crate::tokio_runtime()?;
    let provider = tokio.block_on(Dispatcher::start(Arc::new(runtime)))?;
    let harness = Harness { provider };
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line.context("cannot read the next request from stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = tokio
            .block_on(harness.answer(&line))
            .unwrap_or_else(|e| json!({ "error": e.to_string() }));
        let mut out = stdout.lock();
        serde_json::to_writer(&mut out, &answer)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(())
}

struct Harness {
    provider: Dispatcher,
}

impl Harness {
    async fn answer(&self, line: &str) -> Result<Json, RequestError> {
        let p = &self.provider;
        match serde_json::from_str::<Request>(line)? {
            Request::Schema => Ok(super::inspect::provider_json(p.schema(), p.identity_schemas())),
            Request::Configure { config } => {
                let block = &p.schema().provider.block;
                let config = config_value(&config, block)?;
                let mut diagnostics = p.validate_provider_config(&config).await;
                if !terrarium_model::has_errors(&diagnostics) {
                    let request = ConfigureRequest {
                        terraform_version: "1.15.0".into(),
                        config,
                        client: CLIENT,
                    };
                    diagnostics.extend(p.configure(&request).await);
                }
                Ok(json!({ "diagnostics": diagnostics_json(&diagnostics) }))
            }
            Request::Validate { kind, type_name, config } => {
                let diagnostics = match kind {
                    Kind::Provider => {
                        let block = &p.schema().provider.block;
                        p.validate_provider_config(&config_value(&config, block)?).await
                    }
                    Kind::Resource => {
                        let block = self.resource(&type_name)?;
                        let config = config_value(&config, block)?;
                        p.validate_resource_config(&type_name, &config, CLIENT).await
                    }
                    Kind::DataSource => {
                        let block = self.data_source(&type_name)?;
                        let config = config_value(&config, block)?;
                        p.validate_data_source_config(&type_name, &config).await
                    }
                };
                Ok(json!({ "diagnostics": diagnostics_json(&diagnostics) }))
            }
            Request::Plan { type_name, prior, prior_private, prior_identity, config } => {
                let block = self.resource(&type_name)?;
                let ty = block.implied_type();
                let prior = from_json(&prior, &Json::Null, &ty, "prior")?;
                let config = config_from_json(&config, &Json::Null, block, "config")?;
                let proposed = p
                    .proposed_new_state(&type_name, &prior, &config)
                    .ok_or_else(|| RequestError::UnknownType("resource", type_name.clone()))?;
                let request = PlanResourceChangeRequest {
                    prior_state: encode(&prior, &ty, "prior")?,
                    proposed_new_state: encode(&proposed, &ty, "the proposed new state")?,
                    config: encode(&config, &ty, "config")?,
                    prior_private: private(&prior_private, "prior_private")?,
                    provider_meta: None,
                    client: CLIENT,
                    prior_identity: self.identity(&type_name, prior_identity.as_ref())?,
                    type_name,
                };
                let r = p.plan_resource_change(&request).await;
                let (planned, planned_unknown) = decoded(r.planned_state.as_ref());
                Ok(json!({
                    "planned": planned,
                    "planned_unknown": planned_unknown,
                    "requires_replace": r.requires_replace.iter().map(path_json).collect::<Vec<_>>(),
                    "planned_private": STANDARD.encode(&r.planned_private),
                    "planned_identity": self.identity_json(&request.type_name, r.planned_identity.as_ref()),
                    "deferred": r.deferred.map(deferred_json),
                    "diagnostics": diagnostics_json(&r.diagnostics),
                }))
            }
            Request::Apply {
                type_name,
                prior,
                planned,
                planned_unknown,
                planned_private,
                planned_identity,
                config,
            } => {
                let block = self.resource(&type_name)?;
                let ty = block.implied_type();
                let prior = from_json(&prior, &Json::Null, &ty, "prior")?;
                let planned = from_json(&planned, &planned_unknown, &ty, "planned")?;
                let config = config_from_json(&config, &Json::Null, block, "config")?;
                let request = ApplyResourceChangeRequest {
                    prior_state: encode(&prior, &ty, "prior")?,
                    planned_state: encode(&planned, &ty, "planned")?,
                    config: encode(&config, &ty, "config")?,
                    planned_private: private(&planned_private, "planned_private")?,
                    provider_meta: None,
                    planned_identity: self.identity(&type_name, planned_identity.as_ref())?,
                    type_name,
                };
                let r = p.apply_resource_change(&request).await;
                Ok(json!({
                    "state": decoded(r.new_state.as_ref()).0,
                    "private": STANDARD.encode(&r.private),
                    "identity": self.identity_json(&request.type_name, r.new_identity.as_ref()),
                    "diagnostics": diagnostics_json(&r.diagnostics),
                }))
            }
            Request::Read { type_name, state, private: private_data, identity } => {
                let ty = self.resource(&type_name)?.implied_type();
                let state = from_json(&state, &Json::Null, &ty, "state")?;
                let request = ReadResourceRequest {
                    current_state: encode(&state, &ty, "state")?,
                    private: private(&private_data, "private")?,
                    provider_meta: None,
                    client: CLIENT,
                    current_identity: self.identity(&type_name, identity.as_ref())?,
                    type_name,
                };
                let r = p.read_resource(&request).await;
                Ok(json!({
                    "state": decoded(r.new_state.as_ref()).0,
                    "private": STANDARD.encode(&r.private),
                    "identity": self.identity_json(&request.type_name, r.new_identity.as_ref()),
                    "deferred": r.deferred.map(deferred_json),
                    "diagnostics": diagnostics_json(&r.diagnostics),
                }))
            }
            Request::Import { type_name, id, identity } => {
                let request = ImportResourceStateRequest {
                    id,
                    client: CLIENT,
                    identity: self.identity(&type_name, identity.as_ref())?,
                    type_name,
                };
                let r = p.import_resource_state(&request).await;
                let imported: Vec<Json> = r
                    .imported
                    .iter()
                    .map(|i| {
                        let known = p.schema().resources.contains_key(&i.type_name);
                        json!({
                            "type": i.type_name,
                            "state": known.then(|| decoded(Some(&i.state)).0),
                            "private": STANDARD.encode(&i.private),
                            "identity": self.identity_json(&i.type_name, i.identity.as_ref()),
                        })
                    })
                    .collect();
                Ok(json!({
                    "imported": imported,
                    "deferred": r.deferred.map(deferred_json),
                    "diagnostics": diagnostics_json(&r.diagnostics),
                }))
            }
            Request::ReadData { type_name, config } => {
                let block = self.data_source(&type_name)?;
                let ty = block.implied_type();
                let config = config_from_json(&config, &Json::Null, block, "config")?;
                let request = ReadDataSourceRequest {
                    type_name,
                    config: encode(&config, &ty, "config")?,
                    provider_meta: None,
                    client: CLIENT,
                };
                let r = p.read_data_source(&request).await;
                Ok(json!({
                    "state": decoded(r.state.as_ref()).0,
                    "deferred": r.deferred.map(deferred_json),
                    "diagnostics": diagnostics_json(&r.diagnostics),
                }))
            }
            Request::List { type_name, config, limit, include_resource } => {
                let block = self.list_resource(&type_name)?;
                let config = config_value(&config, block)?;
                let mut diagnostics = p.validate_list_resource_config(&type_name, &config).await;
                let mut items = Vec::new();
                if !terrarium_model::has_errors(&diagnostics) {
                    let request = ListResourceRequest {
                        type_name,
                        config,
                        include_resource_object: include_resource,
                        limit,
                    };
                    // The guest waits while the reader is behind: read as it lists.
                    let (events, mut received) = tokio::sync::mpsc::channel(16);
                    let listing = p.list_resource(&request, events);
                    let reading = async {
                        let mut all = Vec::new();
                        while let Some(event) = received.recv().await {
                            all.push(event);
                        }
                        all
                    };
                    let ((), events) = futures::join!(listing, reading);
                    for event in events {
                        diagnostics.extend(event.diagnostics);
                        if let Some(identity) = event.identity {
                            items.push(json!({
                                "identity": decoded(Some(&identity)).0,
                                "display_name": event.display_name,
                                "state": decoded(event.resource_object.as_ref()).0,
                            }));
                        }
                    }
                }
                Ok(json!({ "items": items, "diagnostics": diagnostics_json(&diagnostics) }))
            }
            Request::Call { function, arguments } => {
                let Some(f) = p.schema().functions.get(&function) else {
                    return Err(RequestError::UnknownType("function", function));
                };
                let mut args = Vec::with_capacity(arguments.len());
                for (i, a) in arguments.iter().enumerate() {
                    let ty = f
                        .parameters
                        .get(i)
                        .or(f.variadic.as_ref())
                        .map_or(Type::Dynamic, |p| p.ty.clone());
                    let value = from_json(a, &Json::Null, &ty, "an argument")?;
                    args.push(encode(&value, &ty, "an argument")?);
                }
                let r = p.call_function(&function, &args).await;
                let result = decoded(r.result.as_ref()).0;
                Ok(match r.error {
                    Some(e) => json!({
                        "result": null,
                        "function_error": { "text": e.text, "argument": e.argument },
                    }),
                    None => json!({ "result": result }),
                })
            }
        }
    }

    fn resource(&self, name: &str) -> Result<&Block, RequestError> {
        let schema = self.provider.schema().resources.get(name);
        schema.map(|s| &s.block).ok_or_else(|| RequestError::UnknownType("resource", name.into()))
    }

    fn data_source(&self, name: &str) -> Result<&Block, RequestError> {
        let schema = self.provider.schema().data_sources.get(name);
        schema
            .map(|s| &s.block)
            .ok_or_else(|| RequestError::UnknownType("data source", name.into()))
    }

    fn list_resource(&self, name: &str) -> Result<&Block, RequestError> {
        let schema = self.provider.schema().list_resources.get(name);
        schema
            .map(|s| &s.block)
            .ok_or_else(|| RequestError::UnknownType("list resource", name.into()))
    }

    fn identity(
        &self,
        type_name: &str,
        json: Option<&Json>,
    ) -> Result<Option<Value>, RequestError> {
        let (Some(json), Some(schema)) = (json, self.provider.identity_schemas().get(type_name))
        else {
            return Ok(None);
        };
        if json.is_null() {
            return Ok(None);
        }
        let ty = schema.implied_type();
        Ok(Some(encode(&from_json(json, &Json::Null, &ty, "identity")?, &ty, "identity")?))
    }

    fn identity_json(&self, type_name: &str, value: Option<&Value>) -> Json {
        match self.provider.identity_schemas().get(type_name) {
            Some(_) => decoded(value).0,
            None => Json::Null,
        }
    }
}

fn config_value(json: &Json, block: &Block) -> Result<Value, RequestError> {
    let config = config_from_json(json, &Json::Null, block, "config")?;
    encode(&config, &block.implied_type(), "config")
}

/// A value read from the request's JSON, in the form the core takes (what Terraform's wire
/// format would have carried: see `terrarium_codec::canonical`).
fn encode(value: &Value, ty: &Type, what: &'static str) -> Result<Value, RequestError> {
    codec::canonical(value, ty).map_err(|error| RequestError::Encode { what, error })
}

/// A value the dispatcher answered (checked against its type there) as JSON and its unknown
/// mask; null when there is none.
fn decoded(value: Option<&Value>) -> (Json, Json) {
    match value {
        Some(v) => to_json(v),
        None => (Json::Null, Json::Bool(false)),
    }
}

fn private(text: &str, what: &'static str) -> Result<Vec<u8>, RequestError> {
    STANDARD.decode(text).map_err(|_| RequestError::Private(what))
}

fn path_json(path: &terrarium_model::AttributePath) -> Json {
    if path.is_root() { Json::String(String::new()) } else { Json::String(path.to_string()) }
}

fn diagnostics_json(diagnostics: &[Diagnostic]) -> Vec<Json> {
    diagnostics
        .iter()
        .map(|d| {
            json!({
                "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
                "summary": d.summary,
                "detail": d.detail,
                "attribute": path_json(&d.attribute),
            })
        })
        .collect()
}

fn deferred_json(reason: DeferredReason) -> &'static str {
    match reason {
        DeferredReason::Unknown => "unknown",
        DeferredReason::ResourceConfigUnknown => "resource_config_unknown",
        DeferredReason::ProviderConfigUnknown => "provider_config_unknown",
        DeferredReason::AbsentPrerequisite => "absent_prerequisite",
    }
}

//! The protocol-neutral core, over typed values. For every RPC: find the schema the values
//! belong to, call the guest with them, check what it returned against the schema. The wire
//! formats are the front ends' (tfplugin decodes Terraform's msgpack and JSON at its edge and
//! encodes the answer, as terraform-plugin-framework's `fromproto6`/`toproto6` do; Pulumi and
//! `terrarium harness` hand values over as they are).
//!
//! A guest bug (a trap, a timeout, a value of the wrong type) becomes an error diagnostic that
//! names the RPC and the resource type; Terraform never sees a malformed value and the host
//! keeps serving.
//!
//! One instance serves one call at a time, so calls in flight are spread over a pool of
//! instances (`InstancePool`), created as needed up to a bound. Every instance is configured
//! by replaying the recorded ConfigureProvider before the first call that needs a configured
//! provider; calls that need none (validation, functions) take any instance and never wait for
//! a configuration. After a trap the instance is discarded and a fresh one takes its place.
//!
//! Streaming RPCs (ListResource, InvokeAction) hand the guest a sink that forwards each item
//! into a small bounded channel as it is pushed; the guest waits while the channel is full
//! (that wait does not count against its time limit), learns from `push` when Terraform wants
//! no more, and is interrupted if it carries on after Terraform has hung up.

mod action;
mod behaviour;
mod data_source;
mod ephemeral;
mod list;
mod pool;
mod provider;
mod resource;
mod schemas;
mod serving;
pub mod types;

use std::sync::Arc;

use terrarium_model::schema::{Block, ProviderSchema, ServerCapabilities};
use terrarium_model::{AttributePath, Diagnostic, Type, Value};
use wasmtime::Store;

use pool::InstancePool;
pub use schemas::Schemas;
pub use serving::{Generation, LoadFailure, Serving, report_carried};
use terrarium_codec as codec;
use terrarium_runtime::{
    self as runtime, GuestError, HostState, Runtime, guest, wit, wit_behaviour,
};

/// What a call is about, for diagnostics: "ReadResource for null_resource".
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    pub rpc: &'static str,
    pub kind: &'static str,
    pub name: &'a str,
}

impl std::fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.name.is_empty() {
            write!(f, "{}", self.rpc)
        } else {
            write!(f, "{} for {} {:?}", self.rpc, self.kind, self.name)
        }
    }
}

tokio::task_local! {
    /// What the sandbox refused the guest calls of the RPC being answered (see [`answer`]).
    static REFUSALS: std::cell::RefCell<Vec<runtime::Refusal>>;
}

/// Keeps what the sandbox refused a guest call for the diagnostics of the RPC it serves.
fn note_refusals(refused: Vec<runtime::Refusal>) {
    if !refused.is_empty() {
        // Outside an RPC's `answer` (a hook, a start), the log line is all there is.
        let _ = REFUSALS.try_with(|r| r.borrow_mut().extend(refused));
    }
}

/// Runs the steps of one RPC (call the guest, check its answer); the
/// first step that fails answers with its diagnostics alone. File operations the sandbox
/// refused on the way are added as a warning, so that a person sees which rule stopped the
/// provider even when the provider did not report the error it got.
async fn answer<R: types::Failed>(steps: impl Future<Output = Result<R, Vec<Diagnostic>>>) -> R {
    REFUSALS
        .scope(std::cell::RefCell::new(Vec::new()), async {
            let mut response = steps.await.unwrap_or_else(R::failed);
            let refused = REFUSALS.with(|r| r.take());
            if !refused.is_empty() {
                response.diagnostics_mut().push(refusal_diagnostic(&refused));
            }
            response
        })
        .await
}

/// The warning that lists refused file operations, then why each kind of them was refused.
fn refusal_diagnostic(refused: &[runtime::Refusal]) -> Diagnostic {
    let what: Vec<&str> = refused.iter().map(|r| r.what.as_str()).collect();
    let mut explanations: Vec<&str> = Vec::new();
    for r in refused {
        if !explanations.contains(&r.explanation) {
            explanations.push(r.explanation);
        }
    }
    Diagnostic::warning(
        "The sandbox refused a file operation",
        format!("{}. {}", what.join("; "), explanations.join(" ")),
    )
}

/// A provider component being served: its schemas and its instances. Every protocol front
/// end (tfplugin6, tfplugin5) turns its requests into calls on one `Dispatcher`.
pub struct Dispatcher {
    runtime: Arc<Runtime>,
    schemas: Schemas,
    /// Diagnostics the guest reported with its schema (shown by GetProviderSchema).
    schema_diagnostics: Vec<Diagnostic>,
    /// Set when the component declares its behaviour: the host then plans and validates
    /// for it with the framework's rules.
    behaviour: Option<behaviour::Behaviour>,
    /// The resource types whose replacement deletes the old object first.
    delete_before_replace: std::collections::BTreeSet<String>,
    pool: InstancePool,
}

/// Why a provider could not start serving.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Guest(#[from] GuestError),
    #[error("the provider's schema is invalid: {0}")]
    Schema(String),
}

impl Dispatcher {
    /// Instantiates the component and reads its schema.
    pub async fn start(runtime: Arc<Runtime>) -> Result<Dispatcher, StartError> {
        let mut instance = runtime.instantiate().await?;
        let mut schema = instance
            .call(async |g: &guest::Guest, s: &mut Store<HostState>| g.call_get_schema(s).await)
            .await?;
        let identities =
            schemas::identity_schemas_from_wit(std::mem::take(&mut schema.resource_identities))
                .map_err(|e| StartError::Schema(e.to_string()))?;
        let (mut schema, schema_diagnostics) = runtime::provider_schema_from_wit(schema)
            .map_err(|e| StartError::Schema(e.to_string()))?;
        mark_computed_blocks(&mut schema, instance.computed_blocks().await?)
            .map_err(StartError::Schema)?;
        let schemas = Schemas::new(schema, identities).map_err(StartError::Schema)?;
        let behaviour = if instance.declares_behaviour() {
            let behaviour = instance
                .call_behaviour(async |b: &wit_behaviour::Guest, s: &mut Store<HostState>| {
                    b.call_get_behaviour(s).await
                })
                .await?;
            // The host's own work on the behaviour has the component's limits too.
            let started = std::time::Instant::now();
            let limits = runtime::BehaviourLimits {
                memory: runtime.settings().max_memory_bytes,
                time: runtime.settings().call_timeout,
            };
            let behaviour = runtime::provider_behaviour_from_wit(behaviour, limits, started)
                .map_err(|e| StartError::Schema(format!("its declared behaviour: {e}")))?;
            Some(
                behaviour::Behaviour::new(schemas.provider_schema(), behaviour, limits, started)
                    .map_err(|e| StartError::Schema(format!("its declared behaviour: {e}")))?,
            )
        } else {
            None
        };
        let delete_before_replace: std::collections::BTreeSet<String> =
            instance.delete_before_replace().await?.into_iter().collect();
        if let Some(unknown) = delete_before_replace
            .iter()
            .find(|t| !schemas.provider_schema().resources.contains_key(*t))
        {
            return Err(StartError::Schema(format!(
                "`delete-before-replace` names {unknown:?}, which is not one of its resource types"
            )));
        }
        let pool = InstancePool::new(runtime.settings().instance_pool_size, instance);
        Ok(Dispatcher {
            runtime,
            schemas,
            schema_diagnostics,
            behaviour,
            delete_before_replace,
            pool,
        })
    }

    /// The loaded component this provider instantiates.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// The behaviour (defaults, validators, plan modifiers) the component declared, if it
    /// declares any.
    pub fn behaviour(&self) -> Option<&runtime::ProviderBehaviour> {
        self.behaviour.as_ref().map(|b| &b.given)
    }

    /// Whether a replacement of `type_name` must delete the old object before it creates the
    /// new one (the component's `replacement` export says so).
    pub fn deletes_before_replace(&self, type_name: &str) -> bool {
        self.delete_before_replace.contains(type_name)
    }

    pub fn schema(&self) -> &ProviderSchema {
        self.schemas.provider_schema()
    }

    pub fn schema_diagnostics(&self) -> &[Diagnostic] {
        &self.schema_diagnostics
    }

    /// Identity schemas by managed resource type (only the types that have one).
    pub fn identity_schemas(&self) -> &std::collections::BTreeMap<String, types::IdentitySchema> {
        self.schemas.identity_schemas()
    }

    /// The capabilities to declare to Terraform: the guest's, except that the provider schema
    /// is always declared optional to fetch, because the schema of an installed component
    /// cannot change within a terraform run (Terraform then skips GetProviderSchema in later
    /// provider processes). `TERRARIUM_SCHEMA_OPTIONAL=0` turns that off, for measuring its
    /// effect; `terrarium dev`, where a reload may change the schema, turns it off itself.
    /// A component that declares its behaviour also generates configuration: the host derives
    /// it from the schema (`Dispatcher::generate_resource_config`).
    pub fn server_capabilities(&self) -> ServerCapabilities {
        let mut capabilities = self.schema().capabilities;
        capabilities.get_provider_schema_optional =
            std::env::var_os("TERRARIUM_SCHEMA_OPTIONAL").is_none_or(|v| v != "0");
        capabilities.generate_resource_config |= self.behaviour.is_some();
        capabilities
    }

    /// The schemas' value types, for a front end that decodes what it receives.
    pub fn schemas(&self) -> &Schemas {
        &self.schemas
    }

    /// The module's `provider_meta` block for the guest, when one was sent and the provider
    /// declares a schema for it.
    fn provider_meta(&self, meta: Option<&Value>) -> Option<wit::Value> {
        match (meta, self.schemas.provider_meta()) {
            (Some(meta), Some(_)) => Some(runtime::value_to_wit(meta)),
            _ => None,
        }
    }

    /// A `Validate*Config` RPC: the configuration, of the type's schema (`ty`, or the
    /// diagnostic for an unknown type), handed to the guest's `validate`, whose diagnostics
    /// are the answer.
    ///
    /// A component that declares its behaviour has its declared validators run first.
    ///
    /// Before the guest looks, the host refuses values for attributes only the provider may
    /// set (computed, neither required nor optional) in `block`, the schema of the
    /// configuration, as Terraform's own SDKs do: otherwise the value passes validation and
    /// plan, and apply ends in Terraform's "inconsistent result" error.
    async fn validate_config(
        &self,
        subject: Subject<'_>,
        ty: Result<&Type, Vec<Diagnostic>>,
        block: Option<&Block>,
        config: &Value,
        validate: impl AsyncFnOnce(
            &guest::Guest,
            &mut Store<HostState>,
            &wit::Value,
        ) -> wasmtime::Result<Vec<wit::Diagnostic>>,
    ) -> Vec<Diagnostic> {
        let run = async || -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
            ty?;
            let mut diagnostics: Vec<Diagnostic> = block
                .map(|b| b.configured_computed_only(config))
                .unwrap_or_default()
                .into_iter()
                .map(|path| configured_computed_only(subject, path))
                .collect();
            if let Some(schema) = self.behaviour_schema(subject) {
                diagnostics.extend(self.run_behaviour_validators(subject, schema, config).await?);
            }
            let config = runtime::value_to_wit(config);
            let diags = self
                .call(subject, async |g: &guest::Guest, s: &mut Store<HostState>| {
                    validate(g, s, &config).await
                })
                .await?;
            diagnostics.extend(runtime::diagnostics_from_wit(diags));
            Ok(diagnostics)
        };
        run().await.unwrap_or_else(|d| d)
    }

    /// The result value of a call, unless the guest already reported errors (then Terraform
    /// ignores the value, so it is not checked); problems with it join `diagnostics`.
    fn checked_result(
        &self,
        subject: Subject<'_>,
        what: &str,
        value: wit::Value,
        ty: &Type,
        known: Knownness,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        if terrarium_model::has_errors(diagnostics) {
            return None;
        }
        checked_from_guest(subject, what, value, ty, known).map_err(|d| diagnostics.extend(d)).ok()
    }

    /// [`Dispatcher::checked_result`] for a state or plan, in the form Terraform expects when
    /// the component declares its behaviour (see [`Dispatcher::declared_value`]): `reference`
    /// is what Terraform sent the call (a prior state, a configuration), or null.
    #[allow(clippy::too_many_arguments)]
    fn checked_state(
        &self,
        subject: Subject<'_>,
        what: &str,
        value: wit::Value,
        reference: &Value,
        ty: &Type,
        known: Knownness,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        if terrarium_model::has_errors(diagnostics) {
            return None;
        }
        value_from_guest(subject, what, value)
            .map(|v| self.declared_value(subject, reference, v))
            .and_then(|v| checked(subject, what, &v, ty, known))
            .map_err(|d| diagnostics.extend(d))
            .ok()
    }
}

/// A value the guest returned, checked against its schema type (see [`checked`]).
fn checked_from_guest(
    subject: Subject<'_>,
    what: &str,
    value: wit::Value,
    ty: &Type,
    known: Knownness,
) -> Result<Value, Vec<Diagnostic>> {
    let value = value_from_guest(subject, what, value)?;
    checked(subject, what, &value, ty, known)
}

/// A value the guest returned, in the host's model.
fn value_from_guest(
    subject: Subject<'_>,
    what: &str,
    value: wit::Value,
) -> Result<Value, Vec<Diagnostic>> {
    runtime::value_from_wit(value).map_err(|e| {
        vec![invalid_result(
            subject,
            what,
            AttributePath::root(),
            &format!("the value is malformed: {e}"),
        )]
    })
}

/// A value the host is about to answer with, checked against its schema type (and whether it
/// may be unknown): in the form decoding gives (`terrarium_codec::canonical`), so that every
/// front end can encode it without failing, and Terraform never sees a malformed value.
fn checked(
    subject: Subject<'_>,
    what: &str,
    value: &Value,
    ty: &Type,
    known: Knownness,
) -> Result<Value, Vec<Diagnostic>> {
    let mut diags: Vec<Diagnostic> = codec::check(value, ty)
        .into_iter()
        .map(|m| invalid_result(subject, what, m.path, &m.message))
        .collect();
    let unknown_refused = match known {
        Knownness::MayBeUnknown => None,
        Knownness::WhollyKnown => Some(
            "the value is unknown, but every value must be known once it has been applied or read",
        ),
        Knownness::KnownOrNull => Some(
            "the value is unknown, but it must be wholly known or null (null while the plan cannot tell it yet): Terraform cannot show a plan with an unknown identity",
        ),
    };
    if let Some(message) = unknown_refused {
        collect_unknowns(value, &AttributePath::root(), &mut |path| {
            diags.push(invalid_result(subject, what, path, message));
        });
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    codec::canonical(value, ty).map_err(|e| {
        vec![invalid_result(subject, what, e.path().clone(), &format!("it cannot be encoded: {e}"))]
    })
}

/// Whether a returned value may still contain unknowns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Knownness {
    MayBeUnknown,
    WhollyKnown,
    /// A planned identity: wholly known, or null while the plan cannot tell it.
    KnownOrNull,
}

fn collect_unknowns(value: &Value, path: &AttributePath, found: &mut impl FnMut(AttributePath)) {
    match value {
        Value::Unknown(_) => found(path.clone()),
        Value::List(items) | Value::Tuple(items) => {
            for (i, v) in items.iter().enumerate() {
                collect_unknowns(v, &path.index(i as i64), found);
            }
        }
        // Set elements have no stable address; Terraform points at the set itself.
        Value::Set(items) if items.iter().any(Value::contains_unknown) => found(path.clone()),
        Value::Map(m) => {
            m.iter().for_each(|(k, v)| collect_unknowns(v, &path.key(k.clone()), found))
        }
        Value::Object(m) => {
            m.iter().for_each(|(k, v)| collect_unknowns(v, &path.attr(k.clone()), found))
        }
        Value::Dynamic(d) => collect_unknowns(&d.value, path, found),
        _ => {}
    }
}

/// Marks the nested blocks the component names in its `computed-blocks` export computed;
/// an error naming the first one that is not a nested block of its schema.
fn mark_computed_blocks(
    schema: &mut ProviderSchema,
    computed: Vec<runtime::wit_computed_blocks::ComputedBlock>,
) -> Result<(), String> {
    use runtime::wit_computed_blocks::SchemaKind;
    for c in computed {
        let (kind, schemas) = match c.kind {
            SchemaKind::Resource => ("resource type", &mut schema.resources),
            SchemaKind::DataSource => ("data source", &mut schema.data_sources),
        };
        let found = schemas
            .get_mut(&c.type_name)
            .and_then(|s| s.block.nested_block_mut(&c.path))
            .map(|b| b.computed = true);
        if found.is_none() {
            return Err(format!(
                "`computed-blocks` names the block {:?} of the {kind} {:?}, which has no nested \
                 block there",
                c.path.join("."),
                c.type_name
            ));
        }
    }
    Ok(())
}

/// A configuration that sets the computed-only attribute at `path`.
fn configured_computed_only(subject: Subject<'_>, path: AttributePath) -> Diagnostic {
    Diagnostic::error(
        "Value for a read-only attribute",
        format!(
            "{path} of {} {:?} is read-only: the provider computes it. Remove {path} from the configuration.",
            subject.kind, subject.name
        ),
    )
    .at(path)
}

fn invalid_result(
    subject: Subject<'_>,
    what: &str,
    path: AttributePath,
    message: &str,
) -> Diagnostic {
    let at = if path.is_root() { String::new() } else { format!(" at {path}") };
    Diagnostic::error(
        "Provider returned an invalid value",
        format!(
            "The {what} returned by {subject} does not match the provider's schema{at}: {message}. \
             This is a bug in the provider; Terrarium refused the value so that Terraform never sees it."
        ),
    )
    .at(path)
}

fn guest_error_diagnostic(subject: Subject<'_>, error: &GuestError) -> Diagnostic {
    match error {
        GuestError::Trap { message, output } => {
            let said = if output.is_empty() {
                String::new()
            } else {
                format!("\n\nThe provider's last output:\n{output}")
            };
            Diagnostic::error(
                "Provider crashed",
                format!(
                    "The provider crashed while serving {subject}: {message}{said}\n\n\
                     Terrarium discarded the crashed instance and keeps serving; this is a bug in the provider."
                ),
            )
        }
        GuestError::Timeout { .. } | GuestError::Limit { .. } | GuestError::StackOverflow => {
            let summary = match error {
                GuestError::Timeout { .. } => "Provider timed out",
                GuestError::StackOverflow => "Provider exceeded its stack limit",
                _ => "Provider exceeded a resource limit",
            };
            let remedy = error.remedy().map(|r| format!(" {r}")).unwrap_or_default();
            Diagnostic::error(
                summary,
                format!(
                    "While serving {subject}, {error}, and was interrupted.{remedy} \
                     Terrarium discarded the instance and keeps serving; the next call runs in a fresh one."
                ),
            )
        }
        GuestError::Stopped { .. } => Diagnostic::error(
            "Provider stopped",
            format!("{subject} was interrupted: {error}. Terrarium discarded the instance."),
        ),
        GuestError::Malformed(e) => Diagnostic::error(
            "Provider returned an invalid value",
            format!(
                "{subject} returned something Terrarium cannot read: {e}. This is a bug in the provider."
            ),
        ),
        GuestError::Instantiate(e) => Diagnostic::error(
            "Provider unavailable",
            format!("Terrarium could not start the provider for {subject}: {e}"),
        ),
    }
}

/// The schema type `found` for `name`, or the diagnostic that lists the `known` types of its kind.
fn known_type<'a>(
    kind: &str,
    name: &str,
    found: Option<&'a Type>,
    known: impl Iterator<Item = String>,
) -> Result<&'a Type, Vec<Diagnostic>> {
    found.ok_or_else(|| vec![unknown_type_diagnostic(kind, name, known)])
}

fn unknown_type_diagnostic(
    kind: &str,
    name: &str,
    known: impl Iterator<Item = String>,
) -> Diagnostic {
    let known: Vec<String> = known.collect();
    let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
    Diagnostic::error(
        format!("Unknown {kind} type"),
        format!("This provider has no {kind} type {name:?}. Its {kind} types are: {list}."),
    )
}

fn client_capabilities(c: types::ClientCapabilities) -> wit::ClientCapabilities {
    runtime::client_capabilities(c.deferral_allowed, c.write_only_attributes_allowed)
}

fn deferred_from_wit(d: Option<wit::DeferredReason>) -> Option<types::DeferredReason> {
    d.map(|r| match r {
        wit::DeferredReason::Unknown => types::DeferredReason::Unknown,
        wit::DeferredReason::ResourceConfigUnknown => types::DeferredReason::ResourceConfigUnknown,
        wit::DeferredReason::ProviderConfigUnknown => types::DeferredReason::ProviderConfigUnknown,
        wit::DeferredReason::AbsentPrerequisite => types::DeferredReason::AbsentPrerequisite,
    })
}

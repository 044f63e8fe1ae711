//! The protocol-neutral core. For every RPC: find the schema the values belong to, decode
//! them, call the guest, check what it returned against the schema, encode the result.
//!
//! A guest bug (a trap, a timeout, a value of the wrong type) becomes an error diagnostic that
//! names the RPC and the resource type; Terraform never sees a malformed value and the host
//! keeps serving.
//!
//! One instance serves one call at a time. After a trap the instance is discarded and the
//! next call gets a fresh one, configured by replaying the recorded ConfigureProvider.

mod data_source;
mod provider;
mod resource;
mod schemas;
pub mod types;

use std::sync::Arc;

use terrarium_model::schema::ProviderSchema;
use terrarium_model::{AttributePath, Diagnostic, Type, Value};
use tokio::sync::Mutex;
use wasmtime::Store;

use crate::codec;
use crate::runtime::{self, GuestError, GuestInstance, HostState, Runtime, guest, wit};
pub use schemas::Schemas;
use types::DynamicValue;

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

/// A provider component being served: its schemas and its instance.
pub struct Provider {
    runtime: Arc<Runtime>,
    schemas: Schemas,
    /// Diagnostics the guest reported with its schema (shown by GetProviderSchema).
    schema_diagnostics: Vec<Diagnostic>,
    instance: Mutex<Option<GuestInstance>>,
    /// The ConfigureProvider request, replayed into every new instance.
    configured: Mutex<Option<guest::ConfigureRequest>>,
}

/// Why a provider could not start serving.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Guest(#[from] GuestError),
    #[error("the provider's schema is invalid: {0}")]
    Schema(String),
}

impl Provider {
    /// Instantiates the component and reads its schema.
    pub async fn start(runtime: Arc<Runtime>) -> Result<Provider, StartError> {
        let mut instance = runtime.instantiate().await?;
        let schema = instance.call(async |g: &guest::Guest, s: &mut Store<HostState>| g.call_get_schema(s).await).await?;
        let (schema, schema_diagnostics) =
            runtime::provider_schema_from_wit(schema).map_err(|e| StartError::Schema(e.to_string()))?;
        let schemas = Schemas::new(schema).map_err(StartError::Schema)?;
        Ok(Provider {
            runtime,
            schemas,
            schema_diagnostics,
            instance: Mutex::new(Some(instance)),
            configured: Mutex::new(None),
        })
    }

    pub fn schema(&self) -> &ProviderSchema {
        self.schemas.provider_schema()
    }

    pub fn schema_diagnostics(&self) -> &[Diagnostic] {
        &self.schema_diagnostics
    }

    /// Runs one guest call on the provider's instance, creating (and configuring) a fresh
    /// instance first if the last one was discarded.
    async fn call<R>(
        &self,
        subject: Subject<'_>,
        f: impl AsyncFnOnce(&guest::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Vec<Diagnostic>> {
        let mut slot = self.instance.lock().await;
        if slot.is_none() {
            *slot = Some(self.fresh_instance(subject).await?);
        }
        let Some(instance) = slot.as_mut() else {
            return Err(vec![Diagnostic::error("Provider unavailable", "no provider instance could be created")]);
        };
        match instance.call(f).await {
            Ok(r) => Ok(r),
            Err(e) => {
                if e.poisons_instance() {
                    *slot = None;
                }
                Err(vec![guest_error_diagnostic(subject, &e)])
            }
        }
    }

    async fn fresh_instance(&self, subject: Subject<'_>) -> Result<GuestInstance, Vec<Diagnostic>> {
        let mut instance =
            self.runtime.instantiate().await.map_err(|e| vec![guest_error_diagnostic(subject, &e)])?;
        let recorded = self.configured.lock().await.clone();
        if let Some(request) = recorded {
            let diags = instance
                .call(async |g: &guest::Guest, s: &mut Store<HostState>| g.call_configure(s, &request).await)
                .await
                .map_err(|e| {
                    let replay = Subject { rpc: "ConfigureProvider (replayed)", kind: "", name: "" };
                    vec![guest_error_diagnostic(replay, &e)]
                })?;
            let diags = runtime::diagnostics_from_wit(diags);
            if terrarium_model::has_errors(&diags) {
                return Err(diags);
            }
        }
        Ok(instance)
    }

    /// Decodes a value Terraform sent, with the type it belongs to.
    fn decode(&self, subject: Subject<'_>, what: &str, dv: &DynamicValue, ty: &Type) -> Result<Value, Vec<Diagnostic>> {
        codec::decode_dynamic_value(&dv.msgpack, &dv.json, ty).map_err(|e| {
            vec![Diagnostic::error(
                "Invalid value from Terraform",
                format!("Terrarium could not decode the {what} of {subject}: {e}"),
            )]
        })
    }

    fn decode_optional(
        &self,
        subject: Subject<'_>,
        what: &str,
        dv: Option<&DynamicValue>,
        ty: Option<&Type>,
    ) -> Result<Option<wit::Value>, Vec<Diagnostic>> {
        match (dv, ty) {
            (Some(dv), Some(ty)) => Ok(Some(runtime::value_to_wit(&self.decode(subject, what, dv, ty)?))),
            _ => Ok(None),
        }
    }

    /// Checks a value the guest returned against its schema type and encodes it.
    fn encode(
        &self,
        subject: Subject<'_>,
        what: &str,
        value: wit::Value,
        ty: &Type,
        known: Knownness,
    ) -> Result<DynamicValue, Vec<Diagnostic>> {
        let value = runtime::value_from_wit(value).map_err(|e| {
            vec![invalid_result(subject, what, AttributePath::root(), &format!("the value is malformed: {e}"))]
        })?;
        let mut diags: Vec<Diagnostic> = codec::check(&value, ty)
            .into_iter()
            .map(|m| invalid_result(subject, what, m.path, &m.message))
            .collect();
        if known == Knownness::WhollyKnown {
            collect_unknowns(&value, &AttributePath::root(), &mut |path| {
                diags.push(invalid_result(
                    subject,
                    what,
                    path,
                    "the value is unknown, but every value must be known once it has been applied or read",
                ));
            });
        }
        if !diags.is_empty() {
            return Err(diags);
        }
        codec::encode_msgpack(&value, ty)
            .map(DynamicValue::msgpack)
            .map_err(|e| vec![invalid_result(subject, what, e.path().clone(), &format!("it cannot be encoded: {e}"))])
    }
}

/// Whether a returned value may still contain unknowns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Knownness {
    MayBeUnknown,
    WhollyKnown,
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
        Value::Set(items) => {
            if items.iter().any(Value::contains_unknown) {
                found(path.clone());
            }
        }
        Value::Map(m) => m.iter().for_each(|(k, v)| collect_unknowns(v, &path.key(k.clone()), found)),
        Value::Object(m) => m.iter().for_each(|(k, v)| collect_unknowns(v, &path.attr(k.clone()), found)),
        Value::Dynamic(d) => collect_unknowns(&d.value, path, found),
        _ => {}
    }
}

fn invalid_result(subject: Subject<'_>, what: &str, path: AttributePath, message: &str) -> Diagnostic {
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
            let said = if output.is_empty() { String::new() } else { format!("\n\nThe provider's last output:\n{output}") };
            Diagnostic::error(
                "Provider crashed",
                format!(
                    "The provider crashed while serving {subject}: {message}{said}\n\n\
                     Terrarium discarded the crashed instance and keeps serving; this is a bug in the provider."
                ),
            )
        }
        GuestError::Timeout { limit } => Diagnostic::error(
            "Provider timed out",
            format!(
                "The provider did not finish {subject} within {} s and was interrupted. \
                 Terrarium discarded the instance and keeps serving.",
                limit.as_secs_f64()
            ),
        ),
        GuestError::Malformed(e) => Diagnostic::error(
            "Provider returned an invalid value",
            format!("{subject} returned something Terrarium cannot read: {e}. This is a bug in the provider."),
        ),
        GuestError::Instantiate(e) => {
            Diagnostic::error("Provider unavailable", format!("Terrarium could not start the provider for {subject}: {e}"))
        }
    }
}

fn unknown_type_diagnostic(kind: &str, name: &str, known: impl Iterator<Item = String>) -> Diagnostic {
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

//! The host plans for components that declare their behaviour (WIT `behaviour`,
//! docs/planning.md): the framework's rules run here, natively, for a guest in any language,
//! and the guest is called back only for what is code (computed defaults, replacement
//! decisions, custom validators, the plan hook) and for its CRUD.
//!
//! Every schema of such a component is planned by the host, including the ones its behaviour
//! leaves out (they have no defaults or modifiers, but their computed attributes still become
//! unknown, their configured values are still checked, ...).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Instant;

use terrarium_framework::check::{
    check_apply, check_plan, hook_validations, inconsistent, run_validators,
};
use terrarium_framework::declared::{
    SchemaBehaviour, schema_with_behaviour, schema_without_behaviour,
};
use terrarium_framework::plan::{
    Hooks, Shape, clear_write_only, default_plan_with, fill_defaults_with, fill_write_only,
    first_unknown, proposed_new_state,
};
use terrarium_framework::schema::Schema;
use terrarium_framework::{canonical_key, dynamic, semantic};
use terrarium_model::schema::ProviderSchema;
use terrarium_model::{AttributePath, Diagnostic, Value};
use wasmtime::Store;

use super::{Dispatcher, Subject};
use terrarium_runtime::{
    self as runtime, BehaviourLimits, BoundError, HostState, ProviderBehaviour, wit,
    wit_behaviour as wb,
};

/// How many times one plan may go back to the guest for hook answers. Each round answers
/// every hook the planner reached; a computed default can only reveal hooks nested below
/// it, so real schemas need as many rounds as their nesting is deep.
const MAX_HOOK_ROUNDS: usize = 16;

/// The framework's schema of every type of a component that declares its behaviour: the
/// schema Terraform sees joined with the declared behaviour.
pub(super) struct Behaviour {
    /// The behaviour as the component declared it (for `terrarium dev` to say what a reload
    /// changed).
    pub(super) given: ProviderBehaviour,
    provider: Schema,
    resources: BTreeMap<String, Schema>,
    data_sources: BTreeMap<String, Schema>,
    ephemeral_resources: BTreeMap<String, Schema>,
    list_resources: BTreeMap<String, Schema>,
    actions: BTreeMap<String, Schema>,
    /// Managed resource types whose plan goes through the guest's `plan-resource`.
    plan_hooks: Vec<String>,
}

impl Behaviour {
    /// Joins the declared behaviour with the schemas; an error names what the behaviour
    /// declares that the schema does not have.
    /// The join has the time limit `limits` gives, counted from `started`.
    pub(super) fn new(
        schema: &ProviderSchema,
        mut behaviour: ProviderBehaviour,
        limits: BehaviourLimits,
        started: Instant,
    ) -> Result<Behaviour, String> {
        let given = behaviour.clone();
        let join = |kind: &str,
                    schemas: &BTreeMap<String, terrarium_model::schema::Schema>,
                    declared: &mut BTreeMap<String, SchemaBehaviour>|
         -> Result<BTreeMap<String, Schema>, String> {
            if let Some(name) = declared.keys().find(|n| !schemas.contains_key(*n)) {
                return Err(format!(
                    "the behaviour is declared for {kind} {name:?}, which the schema does not have"
                ));
            }
            schemas
                .iter()
                .map(|(name, schema)| {
                    if started.elapsed() > limits.time {
                        return Err(BoundError::Time { limit: limits.time }.to_string());
                    }
                    let behaviour = declared.remove(name).unwrap_or_default();
                    schema_with_behaviour(schema, &behaviour)
                        .map(|s| (name.clone(), s))
                        .map_err(|e| format!("{kind} {name:?}: {e}"))
                })
                .collect()
        };
        let plan_hooks = behaviour
            .resources
            .iter()
            .filter(|(_, b)| b.plan_hook)
            .map(|(n, _)| n.clone())
            .collect();
        Ok(Behaviour {
            given,
            provider: schema_with_behaviour(&schema.provider, &behaviour.provider)
                .map_err(|e| format!("the provider: {e}"))?,
            resources: join("resource", &schema.resources, &mut behaviour.resources)?,
            data_sources: join("data source", &schema.data_sources, &mut behaviour.data_sources)?,
            ephemeral_resources: join(
                "ephemeral resource",
                &schema.ephemeral_resources,
                &mut behaviour.ephemeral_resources,
            )?,
            list_resources: join(
                "list resource",
                &schema.list_resources,
                &mut behaviour.list_resources,
            )?,
            actions: join("action", &schema.actions, &mut behaviour.actions)?,
            plan_hooks,
        })
    }

    /// The schema of the type a call is about, by the kind names dispatch uses.
    pub(super) fn schema(&self, subject: Subject<'_>) -> Option<&Schema> {
        match subject.kind {
            "provider" => Some(&self.provider),
            "resource" => self.resources.get(subject.name),
            "data source" => self.data_sources.get(subject.name),
            "ephemeral resource" => self.ephemeral_resources.get(subject.name),
            "list resource" => self.list_resources.get(subject.name),
            "action" => self.actions.get(subject.name),
            _ => None,
        }
    }

    pub(super) fn has_plan_hook(&self, type_name: &str) -> bool {
        self.plan_hooks.iter().any(|n| n == type_name)
    }
}

/// The hook answers a plan has so far, and the questions the planner asked that have none.
#[derive(Default)]
struct HookAnswers {
    defaults: HashMap<(u32, String), Value>,
    replacements: HashMap<(u32, String, String), bool>,
    asked: Mutex<Asked>,
}

#[derive(Default)]
struct Asked {
    /// Each question once, with the key its answer is kept under.
    defaults: Vec<((u32, String), Value)>,
    replacements: Vec<((u32, String, String), Value, Value)>,
}

impl Hooks for HookAnswers {
    fn default(&self, id: u32, parent: &Value) -> Option<Value> {
        let key = (id, canonical_key(parent));
        if let Some(v) = self.defaults.get(&key) {
            return Some(v.clone());
        }
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        if !asked.defaults.iter().any(|(k, _)| *k == key) {
            asked.defaults.push((key, parent.clone()));
        }
        None
    }

    fn replace(&self, id: u32, prior: &Value, planned: &Value) -> Option<bool> {
        let key = (id, canonical_key(prior), canonical_key(planned));
        if let Some(b) = self.replacements.get(&key) {
            return Some(*b);
        }
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        if !asked.replacements.iter().any(|(k, _, _)| *k == key) {
            asked.replacements.push((key, prior.clone(), planned.clone()));
        }
        None
    }
}

impl HookAnswers {
    fn take_asked(&self) -> Asked {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// A hook answer that cannot be used.
fn bad_hook_answer(
    subject: Subject<'_>,
    hook: &str,
    problem: impl std::fmt::Display,
) -> Diagnostic {
    Diagnostic::error(
        "Provider returned an invalid value",
        format!(
            "The behaviour hook {hook} answered {subject} with {problem}. This is a bug in the provider."
        ),
    )
}

impl Dispatcher {
    /// The framework's schema for the type `subject` is about, when the component declares
    /// its behaviour (otherwise the guest plans and validates by itself).
    pub(super) fn behaviour_schema(&self, subject: Subject<'_>) -> Option<&Schema> {
        self.behaviour.as_ref().and_then(|d| d.schema(subject))
    }

    /// A value that a component declaring its behaviour returned (a state, a plan) for the
    /// type `subject` is about, in the form Terraform expects: lists and maps of blocks that
    /// hold a `dynamic` value become the tuples and objects (with their types) Terraform types
    /// them as, and a `dynamic` value that came back with the data `reference` (what Terraform
    /// sent: the plan, the prior state) holds at the same place keeps the type it had there.
    /// SDKs that read a `dynamic` value as plain data (Python, TypeScript, Go) write lists and
    /// maps of blocks as lists and maps, and infer the type of a `dynamic` value from its
    /// data (a tuple where Terraform had a list). Other components' values are left as they
    /// are.
    pub(super) fn declared_value(
        &self,
        subject: Subject<'_>,
        reference: &Value,
        value: Value,
    ) -> Value {
        let Some(block) = self.declared_block(subject) else { return value };
        let reference = dynamic::blocks_as_collections(reference.clone(), block);
        dynamic::typed_blocks(dynamic::keep_dynamic_types(&reference, value), block)
    }

    /// Stored state for the upgrade of a component that declares its behaviour: lists and
    /// maps of blocks that hold a `dynamic` value, which Terraform stores as dynamic values
    /// (`{"type": ..., "value": ...}`), as the lists and maps of blocks the provider's code
    /// reads (see [`dynamic::raw_blocks_as_collections`]). Other components' get it as it is.
    pub(super) fn declared_raw_state(&self, subject: Subject<'_>, raw: &Value) -> Value {
        match self.declared_block(subject) {
            Some(block) => dynamic::raw_blocks_as_collections(raw.clone(), block),
            None => raw.clone(),
        }
    }

    /// The schema block (as Terraform sees it) of the type `subject` is about, when the
    /// component declares its behaviour.
    fn declared_block(&self, subject: Subject<'_>) -> Option<&terrarium_model::schema::Block> {
        self.behaviour_schema(subject)?;
        let schemas = self.schemas.provider_schema();
        let schema = match subject.kind {
            "provider" => Some(&schemas.provider),
            "resource" => schemas.resources.get(subject.name),
            "data source" => schemas.data_sources.get(subject.name),
            "ephemeral resource" => schemas.ephemeral_resources.get(subject.name),
            "list resource" => schemas.list_resources.get(subject.name),
            "action" => schemas.actions.get(subject.name),
            _ => None,
        };
        schema.map(|s| &s.block)
    }

    /// What Terraform proposes for a resource of `type_name` (its configuration with the
    /// prior computed values carried over), for the front ends and tools that play Terraform
    /// (the Pulumi front end, `terrarium harness`). `None` for an unknown type.
    pub fn proposed_new_state(
        &self,
        type_name: &str,
        prior: &Value,
        config: &Value,
    ) -> Option<Value> {
        let subject = Subject { rpc: "", kind: "resource", name: type_name };
        let plain;
        let schema = match self.behaviour_schema(subject) {
            Some(schema) => schema,
            None => {
                plain = schema_without_behaviour(self.schema().resources.get(type_name)?);
                &plain
            }
        };
        Some(proposed_new_state(schema, prior, config))
    }

    /// Whether the managed resource type's plan goes through the guest's plan hook.
    pub(super) fn has_plan_hook(&self, type_name: &str) -> bool {
        self.behaviour.as_ref().is_some_and(|d| d.has_plan_hook(type_name))
    }

    /// Asks the guest until the planner has every hook answer it needs for `run` (a default
    /// plan or a fill of defaults), then returns what `run` gives with them.
    async fn with_hook_answers<T>(
        &self,
        subject: Subject<'_>,
        run: impl Fn(&HookAnswers) -> T,
    ) -> Result<T, Vec<Diagnostic>> {
        let mut answers = <HookAnswers as Default>::default();
        for _ in 0..MAX_HOOK_ROUNDS {
            let result = run(&answers);
            let asked = answers.take_asked();
            if asked.defaults.is_empty() && asked.replacements.is_empty() {
                return Ok(result);
            }
            if !asked.defaults.is_empty() {
                let requests: Vec<wb::DefaultRequest> = asked
                    .defaults
                    .iter()
                    .map(|((id, _), parent)| wb::DefaultRequest {
                        id: *id,
                        parent_config: runtime::value_to_wit(parent),
                    })
                    .collect();
                let values = self
                    .call_behaviour(subject, async |b: &wb::Guest, s: &mut Store<HostState>| {
                        b.call_compute_defaults(s, &requests).await
                    })
                    .await?;
                if values.len() != requests.len() {
                    return Err(vec![bad_hook_answer(
                        subject,
                        "compute-defaults",
                        format_args!("{} values for {} requests", values.len(), requests.len()),
                    )]);
                }
                for ((key, _), value) in asked.defaults.into_iter().zip(values) {
                    let value = runtime::value_from_wit(value).map_err(|e| {
                        vec![bad_hook_answer(
                            subject,
                            "compute-defaults",
                            format_args!("a malformed value: {e}"),
                        )]
                    })?;
                    answers.defaults.insert(key, value);
                }
            }
            if !asked.replacements.is_empty() {
                let requests: Vec<wb::ReplaceRequest> = asked
                    .replacements
                    .iter()
                    .map(|((id, _, _), prior, planned)| wb::ReplaceRequest {
                        id: *id,
                        prior: runtime::value_to_wit(prior),
                        planned: runtime::value_to_wit(planned),
                    })
                    .collect();
                let decisions = self
                    .call_behaviour(subject, async |b: &wb::Guest, s: &mut Store<HostState>| {
                        b.call_decide_replacements(s, &requests).await
                    })
                    .await?;
                if decisions.len() != requests.len() {
                    return Err(vec![bad_hook_answer(
                        subject,
                        "decide-replacements",
                        format_args!("{} answers for {} requests", decisions.len(), requests.len()),
                    )]);
                }
                for ((key, _, _), replace) in asked.replacements.into_iter().zip(decisions) {
                    answers.replacements.insert(key, replace);
                }
            }
        }
        Err(vec![Diagnostic::error(
            "Provider's defaults do not settle",
            format!(
                "Planning {subject} asked the provider's computed defaults {MAX_HOOK_ROUNDS} times and they kept \
                 revealing new ones. This is a bug in the provider."
            ),
        )])
    }

    /// The declared validators of `schema` over `config`: the declarative ones here, the
    /// custom ones through the guest's `validate-values`.
    pub(super) async fn run_behaviour_validators(
        &self,
        subject: Subject<'_>,
        schema: &Schema,
        config: &Value,
    ) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
        let shape = Shape::of(schema);
        let mut diagnostics = Vec::new();
        run_validators(shape, config, &AttributePath::root(), &mut diagnostics);
        let requests: Vec<wb::ValidateRequest> = hook_validations(shape, config)
            .into_iter()
            .map(|h| wb::ValidateRequest {
                id: h.id,
                value: runtime::value_to_wit(&h.value),
                parent: runtime::value_to_wit(&h.parent),
                path: runtime::path_to_wit(&h.path),
            })
            .collect();
        if !requests.is_empty() {
            let found = self
                .call_behaviour(subject, async |b: &wb::Guest, s: &mut Store<HostState>| {
                    b.call_validate_values(s, &requests).await
                })
                .await?;
            diagnostics.extend(runtime::diagnostics_from_wit(found));
        }
        Ok(diagnostics)
    }

    /// The configuration Terraform sent, for the guest, and, when the component
    /// declares its behaviour, with its defaults filled in (computed ones included), as the
    /// Rust SDK does before it opens an ephemeral resource, lists, or runs an action.
    pub(super) async fn configuration_with_defaults(
        &self,
        subject: Subject<'_>,
        config: &Value,
    ) -> Result<wit::Value, Vec<Diagnostic>> {
        match self.behaviour_schema(subject) {
            Some(schema) => {
                let shape = Shape::of(schema);
                let filled = self
                    .with_hook_answers(subject, |hooks| {
                        fill_defaults_with(shape, config.clone(), hooks)
                    })
                    .await?;
                Ok(runtime::value_to_wit(&filled))
            }
            None => Ok(runtime::value_to_wit(config)),
        }
    }

    /// The default plan of a managed resource, every hook it names answered by the guest:
    /// the planned state and the attributes that replace the resource.
    pub(super) async fn behaviour_default_plan(
        &self,
        subject: Subject<'_>,
        schema: &Schema,
        prior: &Value,
        proposed: &Value,
        config: &Value,
    ) -> Result<(Value, Vec<AttributePath>), Vec<Diagnostic>> {
        self.with_hook_answers(subject, |hooks| {
            default_plan_with(schema, prior, proposed, config, hooks)
        })
        .await
    }
}

/// Checks a plan the way Terraform will (configured values kept, write-only values null),
/// saying so in terms of the provider's code.
pub(super) fn check_behaviour_plan(
    schema: &Schema,
    type_name: &str,
    hooked: bool,
    config: &Value,
    planned: &Value,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    check_plan(Shape::of(schema), config, planned, &AttributePath::root(), &mut problems);
    let culprit = if hooked {
        format!(
            "The plan of {type_name} (the host's default plan and the provider's plan-resource hook)"
        )
    } else {
        format!("The plan of {type_name}")
    };
    inconsistent(
        problems,
        "Provider produced an inconsistent plan",
        &culprit,
        "A plan must keep every configured value as configured; only computed attributes the configuration leaves unset are the provider's to choose.",
    )
}

/// What the guest's apply gets for a planned state: Terraform plans write-only attributes
/// null, and the code needs their configured values.
pub(super) fn planned_for_apply(schema: &Schema, planned: Value, config: &Value) -> Value {
    fill_write_only(Shape::of(schema), planned, config)
}

/// The state an apply returned, made what Terraform may store and checked against the plan:
/// write-only values dropped, values equal in meaning to the planned ones kept as planned,
/// every known planned value kept and no unknown left. A failed apply's partial state only
/// loses its write-only values and unknowns.
pub(super) fn settle_applied(
    schema: &Schema,
    type_name: &str,
    method: &str,
    planned: &Value,
    new: Value,
    failed: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> Value {
    let shape = Shape::of(schema);
    let mut state = clear_write_only(shape, new);
    if failed {
        return state.unknowns_as_null();
    }
    semantic::keep_equal(shape, planned, &mut state);
    let mut problems = Vec::new();
    check_apply(planned, &state, &AttributePath::root(), &mut problems);
    diagnostics.extend(inconsistent(
        problems,
        "Provider produced an inconsistent result after apply",
        &format!("The {method} of {type_name}"),
        "Apply must keep every value the plan knew; a value the code decides at apply time must be planned as unknown (declare the attribute computed with unknown-on-update, or set it unknown in the plan hook).",
    ));
    if let Some(path) = first_unknown(&state, &AttributePath::root()) {
        diagnostics.push(
            Diagnostic::error(
                "Provider returned an unknown value",
                format!(
                    "After apply, {path} is still unknown: the {method} of {type_name} must set every computed attribute. \
                     This is a bug in the provider."
                ),
            )
            .at(path),
        );
    }
    state
}

//! A deliberately faulty provider, for tests of what the host does with guest bugs.
//!
//! It is written against the raw WIT bindings rather than terrarium-sdk, so that it can
//! return what no SDK would let an author return. Its one resource, `faulty_thing`, behaves
//! according to its `mode` attribute when applied:
//!
//! | mode                  | ApplyResourceChange does                                   |
//! |-----------------------|------------------------------------------------------------|
//! | `ok`                  | returns a valid state                                      |
//! | `panic`               | panics (a trap)                                            |
//! | `loop`                | loops forever                                              |
//! | `wrong-type`          | returns a number for the string attribute `value`          |
//! | `unknown-after-apply` | leaves `value` unknown                                     |
//! | `bad-tree`            | returns a node list whose child index is out of range      |
//! | `plan-panic`          | (plan panics instead)                                      |
//! | `slow`                | sleeps 200 ms on the host clock, then returns a state whose |
//! |                       | `id` names this instance and `value` says whether it was   |
//! |                       | configured (for instance-pool tests and benchmarks)        |
//! | `identity-wrong-type` | returns the identity `{ id = 42 }` (the schema: string)     |
//! | `defer`               | (plan defers with reason resource-config-unknown instead)   |
//! | `plan-unknown-identity` | (plan returns a wholly unknown identity instead)          |
//! | `plan-unknown-identity-id` | (plan returns the identity `{ id = unknown }` instead) |
//! | `realloc-calls-host`  | returns a valid state; the next `cabi_realloc` (the host    |
//! |                       | passing the next call's arguments) calls the host, as Go's  |
//! |                       | garbage collector did, which the component model forbids    |
//!
//! `faulty_thing` has the identity `{ id = string }`: apply returns `{ id = <state id> }`,
//! read hands back the identity it was given (or derives it from the state), import by
//! identity returns a state whose `id` is the identity's. Every other new RPC answers what a
//! provider without the feature answers.
//!
//! The second resource, `faulty_nested`, is healthy: its one attribute `rule` is a nested
//! attribute (an object, nesting single, with the required string `pattern`), which plugin
//! protocol 5 cannot express. Plan answers the proposed state, apply the planned state, read
//! the current state, so protocol 6 can plan and apply it for real.
//!
//! The third, `faulty_secret`, only has a schema: an optional write-only `secret_wo` that its
//! validation never refuses, whatever the client can do (an SDK would refuse it for a
//! Terraform older than 1.11), for tests of the host's own refusal.

use std::hash::BuildHasher;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether ConfigureProvider has been called on this instance.
static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// Set by apply in mode `realloc-calls-host`: the next [`cabi_realloc`] calls the host.
static REALLOC_CALLS_HOST: AtomicBool = AtomicBool::new(false);

/// The allocator the host calls to pass values into the component (the canonical ABI's
/// `realloc`), in place of wasi-libc's: the same allocation, except that once armed it first
/// calls an import, as a Go guest did when its garbage collector started in there.
///
/// # Safety
///
/// The canonical ABI's contract: `old_ptr` is null with `old_len` 0, or an allocation of
/// `old_len` bytes at `align` made here; `align` is a power of two.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cabi_realloc(
    old_ptr: *mut u8,
    old_len: usize,
    align: usize,
    new_len: usize,
) -> *mut u8 {
    use std::alloc::{Layout, alloc, handle_alloc_error, realloc};
    if REALLOC_CALLS_HOST.swap(false, Ordering::SeqCst) {
        std::hint::black_box(terrarium::provider::lifecycle::stopping());
    }
    if new_len == 0 {
        return align as *mut u8;
    }
    // SAFETY: the caller's contract above; the layouts are the ones the allocations were made with.
    unsafe {
        let ptr = if old_len == 0 {
            alloc(Layout::from_size_align_unchecked(new_len, align))
        } else {
            realloc(old_ptr, Layout::from_size_align_unchecked(old_len, align), new_len)
        };
        if ptr.is_null() {
            handle_alloc_error(Layout::from_size_align_unchecked(new_len, align));
        }
        ptr
    }
}

/// A random token drawn once per instance (std's hash keys come from WASI random), so a
/// test can tell instances apart.
fn instance_token() -> u64 {
    static TOKEN: OnceLock<u64> = OnceLock::new();
    *TOKEN.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0u8))
}

wit_bindgen::generate!({
    world: "terrarium-provider",
    path: "../../../wit",
});

#[path = "../../common/values.rs"]
mod values;
use values::{attributes, null_value, object, string_attr, unknown};

use exports::terrarium::provider::provider::*;
use terrarium::provider::streams::{ActionProgress, ListResults};
use terrarium::provider::types::{
    Attribute, Block, DeferredReason, Description, Diagnostic, IdentityAttribute, IdentitySchema,
    NamedIdentitySchema, NamedSchema, NestedAttributes, Node, ObjectNesting, ProviderSchema,
    Schema, ServerCapabilities, Severity, TextKind, Value,
};

struct Faulty;

/// The resource type with a nested attribute (see the module documentation).
const NESTED: &str = "faulty_nested";

/// The resource type with a write-only attribute (see the module documentation).
const SECRET: &str = "faulty_secret";

fn text(t: &str) -> Description {
    Description { text: t.to_string(), kind: TextKind::Plain }
}

fn attribute(name: &str, required: bool, computed: bool) -> Attribute {
    Attribute {
        name: name.to_string(),
        type_: Some("\"string\"".to_string()),
        nested: None,
        description: text(""),
        required,
        optional: false,
        computed,
        sensitive: false,
        write_only: false,
        deprecated: false,
        deprecation_message: String::new(),
    }
}

/// `faulty_nested`: `rule = { pattern = string }`, the object in `blocks[1]`.
fn nested_schema() -> Schema {
    let rule = Attribute {
        type_: None,
        nested: Some(NestedAttributes { nesting: ObjectNesting::Single, block: 1 }),
        ..attribute("rule", true, false)
    };
    Schema {
        version: 0,
        blocks: vec![block(vec![rule]), block(vec![attribute("pattern", true, false)])],
    }
}

/// `faulty_secret`: the computed `id` and the optional write-only `secret_wo`.
fn secret_schema() -> Schema {
    let secret =
        Attribute { optional: true, write_only: true, ..attribute("secret_wo", false, false) };
    Schema { version: 0, blocks: vec![block(vec![attribute("id", false, true), secret])] }
}

fn block(attributes: Vec<Attribute>) -> Block {
    Block {
        attributes,
        block_types: vec![],
        description: text(""),
        deprecated: false,
        deprecation_message: String::new(),
    }
}

fn error(summary: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        summary: summary.to_string(),
        detail: String::new(),
        attribute: vec![],
    }
}

/// `faulty_thing`'s identity: `{ id = <id> }`.
fn identity_of(id: Node) -> Value {
    object(vec![("id", id)])
}

impl Guest for Faulty {
    fn get_schema() -> ProviderSchema {
        let thing = Schema {
            version: 0,
            blocks: vec![block(vec![
                attribute("mode", true, false),
                attribute("id", false, true),
                attribute("value", false, true),
            ])],
        };
        ProviderSchema {
            provider: Schema { version: 0, blocks: vec![block(vec![])] },
            provider_meta: None,
            resources: vec![
                NamedSchema { name: "faulty_thing".into(), schema: thing },
                NamedSchema { name: NESTED.into(), schema: nested_schema() },
                NamedSchema { name: SECRET.into(), schema: secret_schema() },
            ],
            data_sources: vec![],
            functions: vec![],
            resource_identities: vec![NamedIdentitySchema {
                name: "faulty_thing".into(),
                schema: IdentitySchema {
                    version: 0,
                    attributes: vec![IdentityAttribute {
                        name: "id".into(),
                        type_: "\"string\"".into(),
                        required_for_import: true,
                        optional_for_import: false,
                        description: String::new(),
                    }],
                },
            }],
            ephemeral_resources: vec![],
            list_resources: vec![],
            actions: vec![],
            capabilities: ServerCapabilities {
                plan_destroy: false,
                get_provider_schema_optional: false,
                move_resource_state: false,
                generate_resource_config: false,
            },
            diagnostics: vec![],
        }
    }

    fn validate_provider_config(_: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn validate_resource_config(_: String, _: Value, _: ClientCapabilities) -> Vec<Diagnostic> {
        vec![]
    }

    fn validate_data_source_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn configure(_: ConfigureRequest) -> Vec<Diagnostic> {
        CONFIGURED.store(true, Ordering::SeqCst);
        vec![]
    }

    fn read_resource(r: ReadResourceRequest) -> ReadResourceResponse {
        if r.type_name == NESTED {
            // Nothing exists outside the state: it reads back as it was.
            return ReadResourceResponse {
                new_state: r.current_state,
                private: r.private,
                deferred: None,
                diagnostics: vec![],
                new_identity: None,
            };
        }
        let new_identity = match r.current_identity {
            Some(identity) => Some(identity),
            None => attributes(&r.current_state).remove("id").map(identity_of),
        };
        ReadResourceResponse {
            new_state: r.current_state,
            private: r.private,
            deferred: None,
            diagnostics: vec![],
            new_identity,
        }
    }

    fn plan_resource_change(r: PlanResourceChangeRequest) -> PlanResourceChangeResponse {
        let proposed = r.proposed_new_state;
        if r.type_name == NESTED {
            // No computed attributes: the configuration is the plan (null on destroy).
            return PlanResourceChangeResponse {
                planned_state: proposed,
                requires_replace: vec![],
                planned_private: vec![],
                deferred: None,
                diagnostics: vec![],
                planned_identity: None,
            };
        }
        let mut planned_identity = r.prior_identity;
        let planned = match string_attr(&proposed, "mode") {
            Some(mode) => {
                if mode == "plan-unknown-identity" {
                    planned_identity = Some(Value { nodes: vec![unknown()] });
                }
                if mode == "plan-unknown-identity-id" {
                    planned_identity = Some(identity_of(unknown()));
                }
                if mode == "plan-panic" {
                    panic!("faulty: deliberate panic in plan");
                }
                if mode == "defer" {
                    return PlanResourceChangeResponse {
                        planned_state: proposed,
                        requires_replace: vec![],
                        planned_private: vec![],
                        deferred: Some(DeferredReason::ResourceConfigUnknown),
                        diagnostics: vec![],
                        planned_identity: None,
                    };
                }
                let prior = attributes(&r.prior_state);
                let keep = |name: &str| prior.get(name).cloned().unwrap_or_else(unknown);
                let same_mode =
                    string_attr(&r.prior_state, "mode").as_deref() == Some(mode.as_str());
                let (id, value) =
                    if same_mode { (keep("id"), keep("value")) } else { (unknown(), unknown()) };
                object(vec![("id", id), ("mode", Node::String(mode)), ("value", value)])
            }
            None => proposed, // destroy: null
        };
        PlanResourceChangeResponse {
            planned_state: planned,
            requires_replace: vec![],
            planned_private: vec![],
            deferred: None,
            diagnostics: vec![],
            planned_identity,
        }
    }

    fn apply_resource_change(r: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        if r.type_name == NESTED {
            // The plan is the outcome (null on destroy).
            return ApplyResourceChangeResponse {
                new_state: r.planned_state,
                private: vec![],
                diagnostics: vec![],
                new_identity: None,
            };
        }
        let Some(mode) = string_attr(&r.planned_state, "mode") else {
            return ApplyResourceChangeResponse {
                new_state: null_value(),
                private: vec![],
                diagnostics: vec![],
                new_identity: None,
            };
        };
        let value = match mode.as_str() {
            "ok" => Node::String("fine".into()),
            "realloc-calls-host" => {
                REALLOC_CALLS_HOST.store(true, Ordering::SeqCst);
                Node::String("fine".into())
            }
            "slow" => {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let configured =
                    if CONFIGURED.load(Ordering::SeqCst) { "configured" } else { "unconfigured" };
                let state = object(vec![
                    ("id", Node::String(format!("instance-{:016x}", instance_token()))),
                    ("mode", Node::String(mode)),
                    ("value", Node::String(configured.into())),
                ]);
                return ApplyResourceChangeResponse {
                    new_state: state,
                    private: vec![],
                    diagnostics: vec![],
                    new_identity: None,
                };
            }
            "panic" => panic!("faulty: deliberate panic in apply"),
            "loop" => {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }
            "wrong-type" => Node::Number(terrarium::provider::types::Number::Int(42)),
            "unknown-after-apply" => unknown(),
            "bad-tree" => {
                let state = Value { nodes: vec![Node::List(vec![7])] };
                return ApplyResourceChangeResponse {
                    new_state: state,
                    private: vec![],
                    diagnostics: vec![],
                    new_identity: None,
                };
            }
            "identity-wrong-type" => {
                let state = object(vec![
                    ("id", Node::String("thing-identity-wrong-type".into())),
                    ("mode", Node::String(mode)),
                    ("value", Node::String("fine".into())),
                ]);
                let identity =
                    identity_of(Node::Number(terrarium::provider::types::Number::Int(42)));
                return ApplyResourceChangeResponse {
                    new_state: state,
                    private: vec![],
                    diagnostics: vec![],
                    new_identity: Some(identity),
                };
            }
            other => {
                return ApplyResourceChangeResponse {
                    new_state: null_value(),
                    private: vec![],
                    diagnostics: vec![error(&format!("unknown mode {other:?}"))],
                    new_identity: None,
                };
            }
        };
        let id = format!("thing-{mode}");
        let state = object(vec![
            ("id", Node::String(id.clone())),
            ("mode", Node::String(mode)),
            ("value", value),
        ]);
        ApplyResourceChangeResponse {
            new_state: state,
            private: vec![],
            diagnostics: vec![],
            new_identity: Some(identity_of(Node::String(id))),
        }
    }

    fn import_resource_state(r: ImportResourceStateRequest) -> ImportResourceStateResponse {
        if r.type_name == NESTED {
            return ImportResourceStateResponse {
                imported: vec![],
                deferred: None,
                diagnostics: vec![error("faulty_nested cannot be imported")],
            };
        }
        // Only by identity: the state is rebuilt from the identity's `id`.
        let Some(id) = r.identity.as_ref().and_then(|i| string_attr(i, "id")) else {
            return ImportResourceStateResponse {
                imported: vec![],
                deferred: None,
                diagnostics: vec![error("faulty_thing can only be imported by identity")],
            };
        };
        let state = object(vec![
            ("id", Node::String(id.clone())),
            ("mode", Node::String("ok".into())),
            ("value", Node::String("fine".into())),
        ]);
        ImportResourceStateResponse {
            imported: vec![ImportedResource {
                type_name: r.type_name,
                state,
                private: vec![],
                identity: Some(identity_of(Node::String(id))),
            }],
            deferred: None,
            diagnostics: vec![],
        }
    }

    fn upgrade_resource_state(r: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
        // Stored state is an object of strings already: hand it back as it came.
        UpgradeResourceStateResponse { upgraded_state: r.raw_state, diagnostics: vec![] }
    }

    fn read_data_source(_: ReadDataSourceRequest) -> ReadDataSourceResponse {
        ReadDataSourceResponse {
            state: null_value(),
            deferred: None,
            diagnostics: vec![error("no data sources")],
        }
    }

    fn call_function(_: String, _: Vec<Value>) -> Result<Value, FunctionError> {
        Err(FunctionError { text: "no functions".into(), argument: None })
    }

    fn upgrade_resource_identity(
        r: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        // Version 0 is the only one there has been: hand it back as it came.
        UpgradeResourceIdentityResponse { upgraded_identity: r.raw_identity, diagnostics: vec![] }
    }

    fn move_resource_state(_: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: null_value(),
            target_private: vec![],
            target_identity: None,
            diagnostics: vec![error("faulty_thing cannot be moved into")],
        }
    }

    fn generate_resource_config(_: String, _: Value) -> GenerateResourceConfigResponse {
        GenerateResourceConfigResponse {
            config: null_value(),
            diagnostics: vec![error("no configuration generation")],
        }
    }

    fn validate_ephemeral_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("no ephemeral resources")]
    }

    fn open_ephemeral_resource(_: OpenEphemeralResourceRequest) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            result: null_value(),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: vec![error("no ephemeral resources")],
        }
    }

    fn renew_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse {
            private: None,
            renew_at: None,
            diagnostics: vec![error("no ephemeral resources")],
        }
    }

    fn close_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> Vec<Diagnostic> {
        vec![error("no ephemeral resources")]
    }

    fn validate_list_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("no list resources")]
    }

    fn list_resource(_: ListResourceRequest, _: &ListResults) -> Vec<Diagnostic> {
        vec![error("no list resources")]
    }

    fn validate_action_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("no actions")]
    }

    fn plan_action(_: ActionRequest) -> PlanActionResponse {
        PlanActionResponse { deferred: None, diagnostics: vec![error("no actions")] }
    }

    fn invoke_action(_: ActionRequest, _: &ActionProgress) -> Vec<Diagnostic> {
        vec![error("no actions")]
    }

    fn stop() -> Option<String> {
        None
    }
}

// WIT 0.2.2: no type here must be deleted before its replacement is created.
impl exports::terrarium::provider::replacement::Guest for Faulty {
    fn delete_before_replace() -> Vec<String> {
        Vec::new()
    }
}

// WIT 0.2.3: no block here is computed.
impl exports::terrarium::provider::computed_blocks::Guest for Faulty {
    fn computed_blocks() -> Vec<exports::terrarium::provider::computed_blocks::ComputedBlock> {
        Vec::new()
    }
}

export!(Faulty);

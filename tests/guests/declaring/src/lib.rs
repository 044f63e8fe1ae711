//! A provider that declares its behaviour (WIT `behaviour`), so that the host plans for it,
//! and answers its hooks wrongly on request: for tests of what the host does with a guest in
//! any language whose hooks are buggy.
//!
//! Written against the raw WIT bindings, as `tests/guests/faulty` is, so that it can answer
//! what no SDK would. Its one resource, `declaring_thing`, has a required `name`, an optional
//! `mode`, an optional and computed number `size` whose default is the hook 1 (3, unless the
//! mode says otherwise), an optional `label` checked by the custom validator hook 2 (`"bad"`
//! is refused) and a computed `id`; its plan goes through the plan hook.
//!
//! | mode                  | the guest does                                              |
//! |-----------------------|-------------------------------------------------------------|
//! | (null) or `ok`        | everything right                                            |
//! | `short-defaults`      | `compute-defaults` answers no value at all                  |
//! | `default-panic`       | `compute-defaults` panics (a trap)                          |
//! | `default-wrong-type`  | `compute-defaults` answers a string for the number `size`   |
//! | `plan-renames`        | the plan hook plans another `name` than the configured one  |
//! | `apply-resizes`       | apply returns another `size` than the planned one           |
//!
//! With the env var `DECLARING_LOAD` granted and set, its behaviour is as large as a hostile
//! component's, for the host's bounds on loading it (the numbers are N, M, K):
//!
//! | `DECLARING_LOAD`   | declares                                                        |
//! |--------------------|-----------------------------------------------------------------|
//! | `patterns:N:K`     | N distinct patterns `^\w{K}I$` on `label`                      |
//! | `one-of:N:M`       | N `one-of` validators of M values of 100 bytes each on `label`  |
//! | `wide:N`           | a resource `declaring_wide` of N attributes, each with behaviour |

wit_bindgen::generate!({
    world: "terrarium-provider-with-behaviour",
    path: "../../../wit",
});

#[path = "../../common/values.rs"]
mod values;
use values::{attributes, null_value, object, string_attr};

use exports::terrarium::provider::behaviour::{
    AttributeBehaviour, CountRange, CustomValidator, DefaultRequest, DefaultValue, NamedBehaviour,
    PlanResourceRequest, PlanResourceResponse, ProviderBehaviour, ReplaceRequest, ReplaceRule,
    SchemaBehaviour, ValidateRequest, Validator,
};
use exports::terrarium::provider::provider::*;
use terrarium::provider::streams::{ActionProgress, ListResults};
use terrarium::provider::types::{
    Attribute, Block, Description, Diagnostic, NamedSchema, Node, Number, ProviderSchema, Schema,
    ServerCapabilities, Severity, TextKind, Value,
};

struct Declaring;

const THING: &str = "declaring_thing";
const SIZE_DEFAULT: u32 = 1;
const LABEL_CHECK: u32 = 2;
const WIDE: &str = "declaring_wide";

/// `DECLARING_LOAD`, as its kind and numbers (see the module's documentation).
fn load() -> Option<(String, u32, u32)> {
    let spec = std::env::var("DECLARING_LOAD").ok()?;
    let mut parts = spec.split(':');
    let kind = parts.next()?.to_string();
    let n = parts.next()?.parse().ok()?;
    let m = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((kind, n, m))
}

fn text(t: &str) -> Description {
    Description { text: t.to_string(), kind: TextKind::Plain }
}

fn attribute(name: &str, ty: &str) -> Attribute {
    Attribute {
        name: name.to_string(),
        type_: Some(format!("{ty:?}")),
        nested: None,
        description: text(""),
        required: false,
        optional: false,
        computed: false,
        sensitive: false,
        write_only: false,
        deprecated: false,
        deprecation_message: String::new(),
    }
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

fn error(summary: &str, detail: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        summary: summary.to_string(),
        detail: detail.to_string(),
        attribute: vec![],
    }
}

fn mode(value: &Value) -> String {
    string_attr(value, "mode").unwrap_or_else(|| "ok".to_string())
}

/// `value` with the attribute `name` set to `node`.
fn with(value: &Value, name: &str, node: Node) -> Value {
    let mut attrs = attributes(value);
    attrs.insert(name.to_string(), node);
    object(attrs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect())
}

impl Guest for Declaring {
    fn get_schema() -> ProviderSchema {
        let thing = Schema {
            version: 0,
            blocks: vec![block(vec![
                Attribute { required: true, ..attribute("name", "string") },
                Attribute { optional: true, ..attribute("mode", "string") },
                Attribute { optional: true, computed: true, ..attribute("size", "number") },
                Attribute { optional: true, ..attribute("label", "string") },
                Attribute { computed: true, ..attribute("id", "string") },
            ])],
        };
        let mut resources = vec![NamedSchema { name: THING.into(), schema: thing }];
        if let Some(("wide", n, _)) = load().as_ref().map(|(k, n, m)| (k.as_str(), *n, *m)) {
            let attributes = (0..n)
                .map(|i| Attribute { optional: true, ..attribute(&format!("a{i}"), "string") })
                .collect();
            resources.push(NamedSchema {
                name: WIDE.into(),
                schema: Schema { version: 0, blocks: vec![block(attributes)] },
            });
        }
        ProviderSchema {
            provider: Schema { version: 0, blocks: vec![block(vec![])] },
            provider_meta: None,
            resources,
            data_sources: vec![],
            functions: vec![],
            resource_identities: vec![],
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
        vec![]
    }

    fn read_resource(r: ReadResourceRequest) -> ReadResourceResponse {
        ReadResourceResponse {
            new_state: r.current_state,
            private: r.private,
            deferred: None,
            diagnostics: vec![],
            new_identity: None,
        }
    }

    fn plan_resource_change(r: PlanResourceChangeRequest) -> PlanResourceChangeResponse {
        // Never called: the host plans for a component that declares its behaviour.
        PlanResourceChangeResponse {
            planned_state: r.proposed_new_state,
            requires_replace: vec![],
            planned_private: vec![],
            deferred: None,
            diagnostics: vec![error("Planned by the guest", "the host should have planned")],
            planned_identity: None,
        }
    }

    fn apply_resource_change(r: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        let planned = r.planned_state;
        let new_state = if matches!(planned.nodes.first(), Some(Node::Null)) {
            null_value()
        } else {
            let named = with(&planned, "id", Node::String("thing-1".into()));
            if mode(&planned) == "apply-resizes" {
                with(&named, "size", Node::Number(Number::Int(99)))
            } else {
                named
            }
        };
        ApplyResourceChangeResponse {
            new_state,
            private: r.planned_private,
            diagnostics: vec![],
            new_identity: None,
        }
    }

    fn import_resource_state(_: ImportResourceStateRequest) -> ImportResourceStateResponse {
        ImportResourceStateResponse {
            imported: vec![],
            deferred: None,
            diagnostics: vec![error("Not supported", "no import")],
        }
    }

    fn upgrade_resource_state(r: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
        UpgradeResourceStateResponse { upgraded_state: r.raw_state, diagnostics: vec![] }
    }

    fn read_data_source(_: ReadDataSourceRequest) -> ReadDataSourceResponse {
        ReadDataSourceResponse {
            state: null_value(),
            deferred: None,
            diagnostics: vec![error("Not supported", "no data sources")],
        }
    }

    fn call_function(_: String, _: Vec<Value>) -> Result<Value, FunctionError> {
        Err(FunctionError { text: "no functions".into(), argument: None })
    }

    fn upgrade_resource_identity(
        r: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        UpgradeResourceIdentityResponse { upgraded_identity: r.raw_identity, diagnostics: vec![] }
    }

    fn move_resource_state(_: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: null_value(),
            target_private: vec![],
            target_identity: None,
            diagnostics: vec![error("Not supported", "no moves")],
        }
    }

    fn generate_resource_config(_: String, _: Value) -> GenerateResourceConfigResponse {
        GenerateResourceConfigResponse {
            config: null_value(),
            diagnostics: vec![error("Not supported", "no configuration generation")],
        }
    }

    fn validate_ephemeral_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn open_ephemeral_resource(_: OpenEphemeralResourceRequest) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            result: null_value(),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: vec![error("Not supported", "no ephemeral resources")],
        }
    }

    fn renew_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse { private: None, renew_at: None, diagnostics: vec![] }
    }

    fn close_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> Vec<Diagnostic> {
        vec![]
    }

    fn validate_list_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn list_resource(_: ListResourceRequest, _: &ListResults) -> Vec<Diagnostic> {
        vec![error("Not supported", "no list resources")]
    }

    fn validate_action_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn plan_action(_: ActionRequest) -> PlanActionResponse {
        PlanActionResponse {
            deferred: None,
            diagnostics: vec![error("Not supported", "no actions")],
        }
    }

    fn invoke_action(_: ActionRequest, _: &ActionProgress) -> Vec<Diagnostic> {
        vec![error("Not supported", "no actions")]
    }

    fn stop() -> Option<String> {
        None
    }
}

impl exports::terrarium::provider::behaviour::Guest for Declaring {
    fn get_behaviour() -> ProviderBehaviour {
        let none = SchemaBehaviour { attributes: vec![], replace_blocks: vec![], plan_hook: false };
        let plain = |name: &str| AttributeBehaviour {
            path: vec![name.to_string()],
            default: None,
            use_state_for_unknown: false,
            unknown_on_update: false,
            requires_replace: ReplaceRule::Never,
            validators: vec![],
        };
        let thing = SchemaBehaviour {
            attributes: vec![
                AttributeBehaviour {
                    default: Some(DefaultValue::Computed(SIZE_DEFAULT)),
                    ..plain("size")
                },
                AttributeBehaviour {
                    validators: vec![Validator::Custom(CustomValidator {
                        id: LABEL_CHECK,
                        description: "not \"bad\"".into(),
                    })],
                    ..plain("label")
                },
                AttributeBehaviour { use_state_for_unknown: true, ..plain("id") },
            ],
            replace_blocks: vec![],
            plan_hook: true,
        };
        let mut thing = thing;
        let mut resources = vec![];
        match load().as_ref().map(|(k, n, m)| (k.as_str(), *n, *m)) {
            Some(("patterns", n, k)) => {
                let label = thing.attributes.iter_mut().find(|a| a.path == ["label"]);
                if let Some(label) = label {
                    label
                        .validators
                        .extend((0..n).map(|i| Validator::Pattern(format!("^\\w{{{k}}}{i}$"))));
                }
            }
            Some(("one-of", n, m)) => {
                let label = thing.attributes.iter_mut().find(|a| a.path == ["label"]);
                if let Some(label) = label {
                    label.validators.extend((0..n).map(|i| {
                        Validator::OneOf((0..m).map(|j| format!("{i:0>50}{j:0>50}")).collect())
                    }));
                }
            }
            Some(("wide", n, _)) => {
                let wide = (0..n)
                    .map(|i| AttributeBehaviour {
                        validators: vec![Validator::Length(CountRange { min: 0, max: 100 })],
                        ..plain(&format!("a{i}"))
                    })
                    .collect();
                resources.push(NamedBehaviour {
                    name: WIDE.into(),
                    behaviour: SchemaBehaviour {
                        attributes: wide,
                        replace_blocks: vec![],
                        plan_hook: false,
                    },
                });
            }
            _ => {}
        }
        resources.insert(0, NamedBehaviour { name: THING.into(), behaviour: thing });
        ProviderBehaviour {
            provider: none,
            resources,
            data_sources: vec![],
            ephemeral_resources: vec![],
            list_resources: vec![],
            actions: vec![],
        }
    }

    fn compute_defaults(requests: Vec<DefaultRequest>) -> Vec<Value> {
        let mut out = Vec::new();
        for r in requests {
            match mode(&r.parent_config).as_str() {
                "short-defaults" => return vec![],
                "default-panic" => panic!("declaring: deliberate panic in compute-defaults"),
                "default-wrong-type" => out.push(leaf(Node::String("big".into()))),
                _ => out.push(leaf(Node::Number(Number::Int(3)))),
            }
        }
        out
    }

    fn decide_replacements(requests: Vec<ReplaceRequest>) -> Vec<bool> {
        requests.iter().map(|_| false).collect()
    }

    fn validate_values(requests: Vec<ValidateRequest>) -> Vec<Diagnostic> {
        requests
            .into_iter()
            .filter(|r| matches!(r.value.nodes.first(), Some(Node::String(s)) if s == "bad"))
            .map(|r| Diagnostic {
                attribute: r.path,
                ..error("Invalid label", "label must not be \"bad\"")
            })
            .collect()
    }

    fn plan_resource(r: PlanResourceRequest) -> PlanResourceResponse {
        let planned = if mode(&r.config) == "plan-renames" {
            with(&r.planned_state, "name", Node::String("renamed".into()))
        } else {
            r.planned_state
        };
        PlanResourceResponse {
            planned_state: planned,
            requires_replace: r.requires_replace,
            planned_private: r.prior_private,
            deferred: None,
            diagnostics: vec![],
            planned_identity: None,
        }
    }
}

/// A value that is a single leaf.
fn leaf(node: Node) -> Value {
    Value { nodes: vec![node] }
}

// WIT 0.2.2: no type here must be deleted before its replacement is created.
impl exports::terrarium::provider::replacement::Guest for Declaring {
    fn delete_before_replace() -> Vec<String> {
        Vec::new()
    }
}

// WIT 0.2.3: no block here is computed.
impl exports::terrarium::provider::computed_blocks::Guest for Declaring {
    fn computed_blocks() -> Vec<exports::terrarium::provider::computed_blocks::ComputedBlock> {
        Vec::new()
    }
}

export!(Declaring);

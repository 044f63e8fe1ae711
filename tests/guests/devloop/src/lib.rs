//! A tiny provider for the hot-reload tests, written against the raw WIT bindings so that it
//! builds in seconds. Its data source `devloop_greeting` has one computed attribute, `text`,
//! which is the provider configuration's `prefix` (if any) followed by [`GREETING`]. The tests
//! change that constant and rebuild; a plan in the same reattached session must show the new
//! text.

wit_bindgen::generate!({
    world: "terrarium-provider",
    path: "../../../wit",
});

use std::sync::Mutex;

use exports::terrarium::provider::provider::*;
use terrarium::provider::types::{
    Attribute, Block, Description, Diagnostic, Entry, NamedSchema, Node, ProviderSchema, Schema,
    ServerCapabilities, Severity, TextKind, Value,
};

/// What this build says. The end-to-end test rewrites this line.
const GREETING: &str = "hello from build 1";

/// The configured `prefix` (empty until ConfigureProvider, or when it is null).
static PREFIX: Mutex<String> = Mutex::new(String::new());

struct Devloop;

fn plain(text: &str) -> Description {
    Description { text: text.to_string(), kind: TextKind::Plain }
}

fn string_attribute(name: &str, optional: bool, computed: bool) -> Attribute {
    Attribute {
        name: name.to_string(),
        type_: Some("\"string\"".to_string()),
        nested: None,
        description: plain(""),
        required: false,
        optional,
        computed,
        sensitive: false,
        write_only: false,
        deprecated: false,
        deprecation_message: String::new(),
    }
}

fn schema(attributes: Vec<Attribute>) -> Schema {
    Schema {
        version: 0,
        blocks: vec![Block {
            attributes,
            block_types: vec![],
            description: plain(""),
            deprecated: false,
            deprecation_message: String::new(),
        }],
    }
}

/// The string attribute `name` of an object value, if it is a known string.
fn string_attr(value: &Value, name: &str) -> Option<String> {
    let Some(Node::Object(entries)) = value.nodes.first() else {
        return None;
    };
    let entry = entries.iter().find(|e| e.key == name)?;
    match value.nodes.get(entry.value as usize) {
        Some(Node::String(s)) => Some(s.clone()),
        _ => None,
    }
}

fn null_value() -> Value {
    Value { nodes: vec![Node::Null] }
}

fn error(summary: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        summary: summary.to_string(),
        detail: String::new(),
        attribute: vec![],
    }
}

impl Guest for Devloop {
    fn get_schema() -> ProviderSchema {
        ProviderSchema {
            provider: schema(vec![string_attribute("prefix", true, false)]),
            provider_meta: None,
            resources: vec![],
            data_sources: vec![NamedSchema {
                name: "devloop_greeting".into(),
                schema: schema(vec![string_attribute("text", false, true)]),
            }],
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
        vec![error("devloop has no resources")]
    }

    fn validate_data_source_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn configure(r: ConfigureRequest) -> Vec<Diagnostic> {
        let prefix = string_attr(&r.config, "prefix").unwrap_or_default();
        *PREFIX.lock().unwrap_or_else(|p| p.into_inner()) = prefix;
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
        PlanResourceChangeResponse {
            planned_state: r.proposed_new_state,
            requires_replace: vec![],
            planned_private: vec![],
            deferred: None,
            diagnostics: vec![error("devloop has no resources")],
            planned_identity: None,
        }
    }

    fn apply_resource_change(_: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        ApplyResourceChangeResponse {
            new_state: null_value(),
            private: vec![],
            diagnostics: vec![error("devloop has no resources")],
            new_identity: None,
        }
    }

    fn import_resource_state(_: ImportResourceStateRequest) -> ImportResourceStateResponse {
        ImportResourceStateResponse {
            imported: vec![],
            deferred: None,
            diagnostics: vec![error("devloop has no resources")],
        }
    }

    fn upgrade_resource_state(r: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
        UpgradeResourceStateResponse { upgraded_state: r.raw_state, diagnostics: vec![] }
    }

    fn read_data_source(_: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let prefix = PREFIX.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let text = format!("{prefix}{GREETING}");
        let state = Value {
            nodes: vec![
                Node::Object(vec![Entry { key: "text".into(), value: 1 }]),
                Node::String(text),
            ],
        };
        ReadDataSourceResponse { state, deferred: None, diagnostics: vec![] }
    }

    fn upgrade_resource_identity(
        _: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        UpgradeResourceIdentityResponse {
            upgraded_identity: null_value(),
            diagnostics: vec![error("devloop has no resources")],
        }
    }

    fn move_resource_state(_: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: null_value(),
            target_private: vec![],
            target_identity: None,
            diagnostics: vec![error("devloop has no resources")],
        }
    }

    fn generate_resource_config(_: String, _: Value) -> GenerateResourceConfigResponse {
        GenerateResourceConfigResponse {
            config: null_value(),
            diagnostics: vec![error("devloop has no resources")],
        }
    }

    fn validate_ephemeral_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("devloop has no ephemeral resources")]
    }

    fn open_ephemeral_resource(_: OpenEphemeralResourceRequest) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            result: null_value(),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: vec![error("devloop has no ephemeral resources")],
        }
    }

    fn renew_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse {
            private: None,
            renew_at: None,
            diagnostics: vec![error("devloop has no ephemeral resources")],
        }
    }

    fn close_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> Vec<Diagnostic> {
        vec![error("devloop has no ephemeral resources")]
    }

    fn validate_list_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("devloop has no list resources")]
    }

    fn list_resource(_: ListResourceRequest, _: &ListResults) -> Vec<Diagnostic> {
        vec![error("devloop has no list resources")]
    }

    fn validate_action_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("devloop has no actions")]
    }

    fn plan_action(_: ActionRequest) -> PlanActionResponse {
        PlanActionResponse { deferred: None, diagnostics: vec![error("devloop has no actions")] }
    }

    fn invoke_action(_: ActionRequest, _: &ActionProgress) -> Vec<Diagnostic> {
        vec![error("devloop has no actions")]
    }

    fn call_function(_: String, _: Vec<Value>) -> Result<Value, FunctionError> {
        Err(FunctionError { text: "devloop has no functions".into(), argument: None })
    }

    fn stop() -> Option<String> {
        None
    }
}

// WIT 0.2.2: no type here must be deleted before its replacement is created.
impl exports::terrarium::provider::replacement::Guest for Devloop {
    fn delete_before_replace() -> Vec<String> {
        Vec::new()
    }
}

// WIT 0.2.3: no block here is computed.
impl exports::terrarium::provider::computed_blocks::Guest for Devloop {
    fn computed_blocks() -> Vec<exports::terrarium::provider::computed_blocks::ComputedBlock> {
        Vec::new()
    }
}

export!(Devloop);

//! A hostile provider, for tests of the sandbox: it tries to reach what it was not granted
//! and to exhaust every limit, on request.
//!
//! Written against the raw WIT bindings (like `tests/guests/faulty`), so it can do and return
//! what no SDK would let an author do. Its resource `hostile_probe` has a required `attack`,
//! an optional `target`, and computed `id` and `result`. ApplyResourceChange performs the
//! attack; an attempt the sandbox refused is reported as an error diagnostic whose summary
//! starts with "refused:" and names the error the guest saw, an attempt that succeeded as
//! `result` (so a test can tell a leak from a refusal).
//!
//! | attack             | tries to                                                        |
//! |--------------------|-----------------------------------------------------------------|
//! | `read-file`        | read the file `target`                                          |
//! | `write-file`       | create the file `target`                                        |
//! | `list-dir`         | list the directory `target`                                     |
//! | `env`              | read the environment variable `target`                          |
//! | `env-all`          | list every environment variable it can see                      |
//! | `http`             | GET the URL `target` through wasi:http                          |
//! | `http-follow`      | GET `target` and follow one redirect, as a client would         |
//! | `tcp`              | open a TCP connection to `target` (HOST:PORT) with wasi:sockets |
//! | `loop`             | loop forever                                                    |
//! | `sleep`            | sleep for an hour (blocked in the host, not computing)          |
//! | `alloc`            | allocate without end                                            |
//! | `recurse`          | recurse without end                                             |
//! | `huge-value`       | return a 300,000-node list where the schema says string         |
//! | `cyclic-value`     | return a value tree whose root is its own child                 |
//! | `dangling-value`   | return a value tree pointing past its end                       |
//! | `panic:RPC`        | panic in that RPC (any resource RPC; see below for the others)  |
//!
//! Streams: the list resource `hostile_flood` (config `count`, `bytes`, optional
//! `panic_after`) pushes `count` items, each with the identity `{ n = i }` of the resource
//! type `hostile_flood` and, when asked for, a resource object whose `data` is a `bytes`-long
//! string; it stops early only when `push` returns false (unless `ignore_stop` is true: then
//! it pushes on regardless), and panics after `panic_after` items if that is set. The action `hostile_chatter` (config `count`, optional
//! `panic_after`) reports `count` progress messages, panicking after `panic_after`.
//! Other new RPCs answer what a provider without the feature answers.
//!
//! Provider RPCs panic when the provider configuration's `panic_in` names them
//! (`ValidateProviderConfig`, `ConfigureProvider`, and `StopProvider` after such a
//! configuration); GetProviderSchema panics when the environment variable
//! `HOSTILE_PANIC_IN_SCHEMA` is visible; the data source `hostile_data` and the function
//! `boom` always panic.

use std::sync::atomic::{AtomicBool, Ordering};

wit_bindgen::generate!({
    world: "terrarium-provider",
    path: "../../../wit",
});

#[path = "../../common/values.rs"]
mod values;
use values::{attributes, int_attr, null_value, object, string_attr, unknown};

use exports::terrarium::provider::provider::*;
use terrarium::provider::streams::{ActionProgress, ListItem, ListResults};
use terrarium::provider::types::{
    Attribute, Block, Description, Diagnostic, Entry, Function, IdentityAttribute, IdentitySchema,
    NamedIdentitySchema, NamedSchema, Node, Number, ProviderSchema, Schema, ServerCapabilities,
    Severity, TextKind, Value,
};

/// Set by a configuration with `panic_in = "StopProvider"`.
static PANIC_IN_STOP: AtomicBool = AtomicBool::new(false);

struct Hostile;

fn text(t: &str) -> Description {
    Description { text: t.to_string(), kind: TextKind::Plain }
}

fn attribute(name: &str, required: bool, optional: bool, computed: bool) -> Attribute {
    typed_attribute(name, "\"string\"", required, optional, computed)
}

fn typed_attribute(
    name: &str,
    type_json: &str,
    required: bool,
    optional: bool,
    computed: bool,
) -> Attribute {
    Attribute {
        name: name.to_string(),
        type_: Some(type_json.to_string()),
        nested: None,
        description: text(""),
        required,
        optional,
        computed,
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

/// Panics when the resource value asks for a panic in `rpc`.
fn maybe_panic(value: &Value, rpc: &str) {
    if string_attr(value, "attack").is_some_and(|a| a.strip_prefix("panic:") == Some(rpc)) {
        panic!("hostile: deliberate panic in {rpc}");
    }
}

fn provider_panic(config: &Value, rpc: &str) {
    if string_attr(config, "panic_in").as_deref() == Some(rpc) {
        panic!("hostile: deliberate panic in {rpc}");
    }
}

#[inline(never)]
#[allow(unconditional_recursion, reason = "recursing without end is the attack")]
fn recurse(depth: u64, acc: &mut [u8; 256]) -> u64 {
    acc[(depth % 256) as usize] = depth as u8;
    let next = std::hint::black_box(depth + 1);
    recurse(next, acc) + acc[(depth % 7) as usize] as u64
}

/// Performs an attack; Ok is what it got (a leak, if the sandbox should have refused it),
/// Err the error it saw.
fn attack(kind: &str, target: &str) -> Result<String, String> {
    match kind {
        "read-file" => std::fs::read(target)
            .map(|b| format!("read {} bytes", b.len()))
            .map_err(|e| e.to_string()),
        "write-file" => std::fs::write(target, b"hostile was here")
            .map(|()| "written".into())
            .map_err(|e| e.to_string()),
        "list-dir" => std::fs::read_dir(target)
            .map(|entries| format!("{} entries", entries.count()))
            .map_err(|e| e.to_string()),
        "env" => std::env::var(target).map_err(|e| e.to_string()),
        "env-all" => Ok(std::env::vars().map(|(k, _)| k).collect::<Vec<_>>().join(",")),
        "http" => http_get(target).map(|(status, _)| format!("status {status}")),
        "http-follow" => match http_get(target)? {
            (status, Some(location)) if (300..400).contains(&status) => {
                http_get(&location).map(|(status, _)| format!("followed to status {status}"))
            }
            (status, _) => Ok(format!("status {status} without a redirect")),
        },
        "tcp" => std::net::TcpStream::connect(target)
            .map(|_| "connected".into())
            .map_err(|e| e.to_string()),
        "loop" => {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        "sleep" => {
            std::thread::sleep(std::time::Duration::from_secs(3600));
            Ok("slept".into())
        }
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                let mut chunk = vec![0u8; 1 << 20];
                chunk[0] = 1; // touch it, so it is really committed
                hoard.push(std::hint::black_box(chunk));
            }
        }
        "recurse" => {
            let mut acc = [0u8; 256];
            Ok(recurse(0, &mut acc).to_string())
        }
        other => Err(format!("unknown attack {other:?}")),
    }
}

/// A GET through wasi:http: the status and any Location header, or the error code the host
/// returned.
fn http_get(url: &str) -> Result<(u16, Option<String>), String> {
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{Fields, OutgoingRequest, Scheme};
    let (scheme, rest) = url.split_once("://").ok_or("not an absolute URL")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let request = OutgoingRequest::new(Fields::new());
    let scheme = if scheme == "https" { Scheme::Https } else { Scheme::Http };
    request.set_scheme(Some(&scheme)).map_err(|()| "bad scheme")?;
    request.set_authority(Some(authority)).map_err(|()| "bad authority")?;
    request.set_path_with_query(Some(path)).map_err(|()| "bad path")?;
    let future = outgoing_handler::handle(request, None).map_err(|e| format!("{e:?}"))?;
    future.subscribe().block();
    match future.get() {
        Some(Ok(Ok(response))) => {
            let location = response
                .headers()
                .get("location")
                .into_iter()
                .next()
                .map(|v| String::from_utf8_lossy(&v).into_owned());
            Ok((response.status(), location))
        }
        Some(Ok(Err(code))) => Err(format!("{code:?}")),
        Some(Err(())) | None => Err("no response".into()),
    }
}

impl Guest for Hostile {
    fn get_schema() -> ProviderSchema {
        if std::env::var_os("HOSTILE_PANIC_IN_SCHEMA").is_some() {
            panic!("hostile: deliberate panic in GetProviderSchema");
        }
        let probe = Schema {
            version: 0,
            blocks: vec![block(vec![
                attribute("attack", true, false, false),
                attribute("target", false, true, false),
                attribute("id", false, false, true),
                attribute("result", false, false, true),
            ])],
        };
        let data = Schema {
            version: 0,
            blocks: vec![block(vec![attribute("result", false, false, true)])],
        };
        let number = "\"number\"";
        let flood = Schema {
            version: 0,
            blocks: vec![block(vec![
                typed_attribute("n", number, false, false, true),
                attribute("data", false, false, true),
            ])],
        };
        let flood_config = Schema {
            version: 0,
            blocks: vec![block(vec![
                typed_attribute("count", number, true, false, false),
                typed_attribute("bytes", number, true, false, false),
                typed_attribute("panic_after", number, false, true, false),
                typed_attribute("ignore_stop", "\"bool\"", false, true, false),
            ])],
        };
        let chatter_config = Schema {
            version: 0,
            blocks: vec![block(vec![
                typed_attribute("count", number, true, false, false),
                typed_attribute("panic_after", number, false, true, false),
            ])],
        };
        ProviderSchema {
            provider: Schema {
                version: 0,
                blocks: vec![block(vec![attribute("panic_in", false, true, false)])],
            },
            provider_meta: None,
            resources: vec![
                NamedSchema { name: "hostile_probe".into(), schema: probe },
                NamedSchema { name: "hostile_flood".into(), schema: flood },
            ],
            data_sources: vec![NamedSchema { name: "hostile_data".into(), schema: data }],
            functions: vec![Function {
                name: "boom".into(),
                parameters: vec![],
                variadic: None,
                return_: "\"string\"".into(),
                summary: "panics".into(),
                description: text(""),
                deprecation_message: String::new(),
            }],
            resource_identities: vec![NamedIdentitySchema {
                name: "hostile_flood".into(),
                schema: IdentitySchema {
                    version: 0,
                    attributes: vec![IdentityAttribute {
                        name: "n".into(),
                        type_: number.into(),
                        required_for_import: true,
                        optional_for_import: false,
                        description: String::new(),
                    }],
                },
            }],
            ephemeral_resources: vec![],
            list_resources: vec![NamedSchema {
                name: "hostile_flood".into(),
                schema: flood_config,
            }],
            actions: vec![NamedSchema { name: "hostile_chatter".into(), schema: chatter_config }],
            capabilities: ServerCapabilities {
                plan_destroy: false,
                get_provider_schema_optional: false,
                move_resource_state: false,
                generate_resource_config: false,
            },
            diagnostics: vec![],
        }
    }

    fn validate_provider_config(config: Value) -> Vec<Diagnostic> {
        provider_panic(&config, "ValidateProviderConfig");
        vec![]
    }

    fn validate_resource_config(
        _: String,
        config: Value,
        _: ClientCapabilities,
    ) -> Vec<Diagnostic> {
        maybe_panic(&config, "ValidateResourceConfig");
        vec![]
    }

    fn validate_data_source_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn configure(r: ConfigureRequest) -> Vec<Diagnostic> {
        provider_panic(&r.config, "ConfigureProvider");
        if string_attr(&r.config, "panic_in").as_deref() == Some("StopProvider") {
            PANIC_IN_STOP.store(true, Ordering::SeqCst);
        }
        vec![]
    }

    fn read_resource(r: ReadResourceRequest) -> ReadResourceResponse {
        maybe_panic(&r.current_state, "ReadResource");
        ReadResourceResponse {
            new_state: r.current_state,
            private: r.private,
            deferred: None,
            diagnostics: vec![],
            new_identity: r.current_identity,
        }
    }

    fn plan_resource_change(r: PlanResourceChangeRequest) -> PlanResourceChangeResponse {
        maybe_panic(&r.proposed_new_state, "PlanResourceChange");
        let planned = match string_attr(&r.proposed_new_state, "attack") {
            Some(attack) => {
                let target =
                    attributes(&r.proposed_new_state).remove("target").unwrap_or(Node::Null);
                object(vec![
                    ("attack", Node::String(attack)),
                    ("id", unknown()),
                    ("result", unknown()),
                    ("target", target),
                ])
            }
            None => r.proposed_new_state,
        };
        PlanResourceChangeResponse {
            planned_state: planned,
            requires_replace: vec![],
            planned_private: vec![],
            deferred: None,
            diagnostics: vec![],
            planned_identity: r.prior_identity,
        }
    }

    fn apply_resource_change(r: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        maybe_panic(&r.planned_state, "ApplyResourceChange");
        let Some(kind) = string_attr(&r.planned_state, "attack") else {
            return ApplyResourceChangeResponse {
                new_state: null_value(),
                private: vec![],
                diagnostics: vec![],
                new_identity: None,
            };
        };
        let target = string_attr(&r.planned_state, "target").unwrap_or_default();
        let done = |result: Node| {
            let target = if target.is_empty() { Node::Null } else { Node::String(target.clone()) };
            object(vec![
                ("attack", Node::String(kind.clone())),
                ("id", Node::String(format!("probe-{kind}"))),
                ("result", result),
                ("target", target),
            ])
        };
        let new_state = match kind.as_str() {
            "huge-value" => {
                let mut nodes = vec![Node::List((1..=300_000).collect())];
                nodes.extend((0..300_000).map(|_| Node::Bool(true)));
                Value { nodes }
            }
            "cyclic-value" => Value { nodes: vec![Node::List(vec![0])] },
            "dangling-value" => {
                Value { nodes: vec![Node::Object(vec![Entry { key: "attack".into(), value: 99 }])] }
            }
            k if k.starts_with("panic:") => done(Node::String("no panic asked here".into())),
            _ => match attack(&kind, &target) {
                Ok(got) => done(Node::String(got)),
                Err(seen) => {
                    return ApplyResourceChangeResponse {
                        new_state: null_value(),
                        private: vec![],
                        diagnostics: vec![error(&format!("refused: {kind} {target}"), &seen)],
                        new_identity: None,
                    };
                }
            },
        };
        ApplyResourceChangeResponse {
            new_state,
            private: vec![],
            diagnostics: vec![],
            new_identity: None,
        }
    }

    fn import_resource_state(r: ImportResourceStateRequest) -> ImportResourceStateResponse {
        if r.id == "panic:ImportResourceState" {
            panic!("hostile: deliberate panic in ImportResourceState");
        }
        ImportResourceStateResponse {
            imported: vec![],
            deferred: None,
            diagnostics: vec![error("not importable", "")],
        }
    }

    fn upgrade_resource_state(r: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
        maybe_panic(&r.raw_state, "UpgradeResourceState");
        UpgradeResourceStateResponse { upgraded_state: r.raw_state, diagnostics: vec![] }
    }

    fn read_data_source(_: ReadDataSourceRequest) -> ReadDataSourceResponse {
        panic!("hostile: deliberate panic in ReadDataSource");
    }

    fn call_function(_: String, _: Vec<Value>) -> Result<Value, FunctionError> {
        panic!("hostile: deliberate panic in CallFunction");
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
            diagnostics: vec![error("not movable", "")],
        }
    }

    fn generate_resource_config(_: String, _: Value) -> GenerateResourceConfigResponse {
        GenerateResourceConfigResponse {
            config: null_value(),
            diagnostics: vec![error("no configuration generation", "")],
        }
    }

    fn validate_ephemeral_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![error("no ephemeral resources", "")]
    }

    fn open_ephemeral_resource(_: OpenEphemeralResourceRequest) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            result: null_value(),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: vec![error("no ephemeral resources", "")],
        }
    }

    fn renew_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse {
            private: None,
            renew_at: None,
            diagnostics: vec![error("no ephemeral resources", "")],
        }
    }

    fn close_ephemeral_resource(_: String, _: Option<Vec<u8>>) -> Vec<Diagnostic> {
        vec![error("no ephemeral resources", "")]
    }

    fn validate_list_resource_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn list_resource(r: ListResourceRequest, results: &ListResults) -> Vec<Diagnostic> {
        let count = int_attr(&r.config, "count").unwrap_or(0);
        let bytes = usize::try_from(int_attr(&r.config, "bytes").unwrap_or(0)).unwrap_or(0);
        let panic_after = int_attr(&r.config, "panic_after");
        let ignore_stop =
            matches!(attributes(&r.config).get("ignore_stop"), Some(Node::Bool(true)));
        let data = "x".repeat(bytes);
        for n in 0..count {
            if panic_after == Some(n) {
                panic!("hostile: deliberate panic in ListResource after {n} items");
            }
            let resource_object = r.include_resource_object.then(|| {
                object(vec![
                    ("data", Node::String(data.clone())),
                    ("n", Node::Number(Number::Int(n))),
                ])
            });
            let item = ListItem {
                identity: object(vec![("n", Node::Number(Number::Int(n)))]),
                display_name: format!("flood item {n}"),
                resource_object,
                diagnostics: vec![],
            };
            if !results.push(&item) && !ignore_stop {
                break;
            }
        }
        vec![]
    }

    fn validate_action_config(_: String, _: Value) -> Vec<Diagnostic> {
        vec![]
    }

    fn plan_action(_: ActionRequest) -> PlanActionResponse {
        PlanActionResponse { deferred: None, diagnostics: vec![] }
    }

    fn invoke_action(r: ActionRequest, progress: &ActionProgress) -> Vec<Diagnostic> {
        let count = int_attr(&r.config, "count").unwrap_or(0);
        let panic_after = int_attr(&r.config, "panic_after");
        for i in 0..count {
            if panic_after == Some(i) {
                panic!("hostile: deliberate panic in InvokeAction after {i} reports");
            }
            progress.report(&format!("chatter {} of {count}", i + 1));
        }
        vec![]
    }

    fn stop() -> Option<String> {
        if PANIC_IN_STOP.load(Ordering::SeqCst) {
            panic!("hostile: deliberate panic in StopProvider");
        }
        None
    }
}

export!(Hostile);

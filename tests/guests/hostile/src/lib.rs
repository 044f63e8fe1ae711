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
//! | `append-file`      | open the existing file `target` for appending and write to it   |
//! | `list-dir`         | list the directory `target`                                     |
//! | `symlink`          | `LINK -> TO`: create the symbolic link LINK pointing at TO      |
//! | `rename`           | `FROM -> TO`: rename FROM to TO (files or directories)          |
//! | `link`             | `FROM -> TO`: make TO a hard link to FROM                       |
//! | `mkdir`            | create the directory `target` (and its parents)                 |
//! | `hold-files`       | "COUNT DIR": open `DIR/held` COUNT times and never close them   |
//! | `env`              | read the environment variable `target`                          |
//! | `env-all`          | list every environment variable it can see                      |
//! | `http`             | GET the URL `target` through wasi:http                          |
//! | `http-follow`      | GET `target` and follow one redirect, as a client would         |
//! | `tcp`              | open a TCP connection to `target` (HOST:PORT) with wasi:sockets |
//! | `loop`             | loop forever                                                    |
//! | `sleep`            | sleep for an hour (blocked in the host, not computing)          |
//! | `wait-for-stop`    | (cooperative) poll `lifecycle.stopping` every 50 ms until it     |
//! |                    | answers true, then return `stopped after N polls`               |
//! | `alloc`            | allocate without end                                            |
//! | `fill-memory`      | allocate and write without end                                  |
//! | `hold-memory`      | allocate and write `target` MiB, then hold it for 3 seconds     |
//! | `recurse`          | recurse without end                                             |
//! | `huge-value`       | return a 300,000-node list where the schema says string         |
//! | `cyclic-value`     | return a value tree whose root is its own child                 |
//! | `dangling-value`   | return a value tree pointing past its end                       |
//! | `panic:RPC`        | panic in that RPC (any resource RPC; see below for the others)  |
//! | `header-maps`      | leak `target` wasi:http header maps, each filled to its limit   |
//! | `directories`      | ask for the preopened directories `target` times, keeping every |
//! |                    | descriptor (what the TypeScript SDK once did once per call)     |
//! | `open-requests`    | send `target` ("COUNT URL") requests without reading any, then  |
//! |                    | wait for the last one                                           |
//! | `long-diagnostic`  | return an error whose summary and detail are `target` bytes     |
//! | `many-diagnostics` | return `target` warnings and one error                          |
//! | `long-string`      | return a `result` of `target` bytes                             |
//! | `escape`           | return, log and print text full of terminal escape sequences    |
//! | `escape-panic`     | panic with terminal escape sequences in the message             |
//!
//! The resource `hostile_number` (required `attack`, computed number `value`) returns `+inf`,
//! `-inf` or `huge` (1e999999999) as its value, whichever `attack` names.
//!
//! A deeply nested schema: when the environment variable `HOSTILE_DEEP_SCHEMA` is visible, the
//! schema has a resource `hostile_deep` with that many levels of nested blocks.
//!
//! Streams: the list resource `hostile_flood` (config `count`, `bytes`, optional
//! `panic_after`) pushes `count` items, each with the identity `{ n = i }` of the resource
//! type `hostile_flood` and, when asked for, a resource object whose `data` is a `bytes`-long
//! string; it stops early only when `push` returns false (unless `ignore_stop` is true: then
//! it pushes on regardless), and panics after `panic_after` items if that is set; optional
//! `name_bytes` pads each display name to that many bytes and `name_text` is appended to it.
//! The action `hostile_chatter` (config `count`, optional `panic_after`, `bytes`, `text`)
//! reports `count` progress messages, each padded to `bytes` and followed by `text`, panicking
//! after `panic_after`.
//! Other new RPCs answer what a provider without the feature answers.
//!
//! Provider RPCs panic when the provider configuration's `panic_in` names them
//! (`ValidateProviderConfig`, `ConfigureProvider`, and `StopProvider` after such a
//! configuration); the guest's `stop` never returns after a configuration with
//! `hang_in = "StopProvider"`; GetProviderSchema panics when the environment variable
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
use terrarium::provider::log::{Level, log};
use terrarium::provider::streams::{ActionProgress, ListItem, ListResults};
use terrarium::provider::types::{
    Attribute, Block, BlockNesting, Description, Diagnostic, Entry, Function, IdentityAttribute,
    IdentitySchema, NamedIdentitySchema, NamedSchema, NestedBlock, Node, Number, ProviderSchema,
    Schema, ServerCapabilities, Severity, TextKind, Value,
};

/// Set by a configuration with `panic_in = "StopProvider"`.
static PANIC_IN_STOP: AtomicBool = AtomicBool::new(false);

/// Set by a configuration with `hang_in = "StopProvider"`.
static HANG_IN_STOP: AtomicBool = AtomicBool::new(false);

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

/// `text` padded with dots to `bytes`, then `suffix`.
fn padded(mut text: String, bytes: usize, suffix: &str) -> String {
    while text.len() < bytes {
        text.push('.');
    }
    text.push_str(suffix);
    text
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

/// Text that would take over a terminal if printed raw: erase line, cursor up, a fake green
/// "Apply complete!", a window title, an OSC 52 clipboard write, a hyperlink, a bidi override,
/// a carriage return and a NUL.
const ESCAPES: &str = "\u{1b}[2K\u{1b}[1A\u{1b}[32mApply complete!\u{1b}[0m \u{1b}]0;pwned\u{7}\
     \u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]8;;http://evil\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{202e}txt.exe\r\u{0}";

/// A nested-block chain `depth` levels deep, as the flat block list of a schema.
fn deep_blocks(depth: u32) -> Vec<Block> {
    (0..=depth)
        .map(|i| Block {
            attributes: vec![attribute("leaf", false, true, false)],
            block_types: if i < depth {
                vec![NestedBlock {
                    type_name: "inner".into(),
                    block: i + 1,
                    nesting: BlockNesting::List,
                    min_items: 0,
                    max_items: 0,
                }]
            } else {
                vec![]
            },
            description: text(""),
            deprecated: false,
            deprecation_message: String::new(),
        })
        .collect()
}

/// Creates `count` header maps of 28 KiB each (just under the host's limit per map, which
/// traps when exceeded) and leaks them.
fn leak_header_maps(count: usize) -> Result<String, String> {
    use wasip2::http::types::Fields;
    let value = vec![b'v'; 1024];
    let mut bytes = 0usize;
    for i in 0..count {
        let fields = Fields::new();
        for h in 0..28 {
            fields.append(&format!("x-hostile-{h}"), &value).map_err(|e| format!("{e:?}"))?;
            bytes += value.len();
        }
        std::mem::forget(fields);
        if i + 1 == count {
            return Ok(format!("leaked {count} header maps holding {bytes} bytes"));
        }
    }
    Ok("leaked nothing".into())
}

/// Asks wasi:filesystem for the preopened directories `count` times and never drops a
/// descriptor: each answer is new handles in the host's table.
fn leak_directories(count: usize) -> Result<String, String> {
    let mut held = 0usize;
    for _ in 0..count {
        let directories = wasip2::filesystem::preopens::get_directories();
        held += directories.len();
        std::mem::forget(directories);
    }
    Ok(format!("holding {held} directory descriptors"))
}

/// Sends `count` GETs to `url` and keeps every response future without reading it, then waits
/// for the last one.
fn open_requests(count: usize, url: &str) -> Result<String, String> {
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{Fields, OutgoingRequest, Scheme};
    let (_, rest) = url.split_once("://").ok_or("not an absolute URL")?;
    let authority = rest.split('/').next().unwrap_or(rest);
    let mut last = None;
    for _ in 0..count {
        let request = OutgoingRequest::new(Fields::new());
        request.set_scheme(Some(&Scheme::Http)).map_err(|()| "bad scheme")?;
        request.set_authority(Some(authority)).map_err(|()| "bad authority")?;
        request.set_path_with_query(Some("/")).map_err(|()| "bad path")?;
        let future = outgoing_handler::handle(request, None).map_err(|e| format!("{e:?}"))?;
        if let Some(previous) = last.replace(future) {
            std::mem::forget(previous);
        }
    }
    let future = last.ok_or("no requests")?;
    future.subscribe().block();
    match future.get() {
        Some(Ok(Ok(response))) => {
            Ok(format!("opened {count}, the last got status {}", response.status()))
        }
        Some(Ok(Err(code))) => Err(format!("opened {count}, the last failed: {code:?}")),
        Some(Err(())) | None => Err("no response".into()),
    }
}

/// Performs an attack; Ok is what it got (a leak, if the sandbox should have refused it),
/// Err the error it saw.
fn attack(kind: &str, target: &str) -> Result<String, String> {
    let count = || target.parse::<usize>().map_err(|e| format!("target {target:?}: {e}"));
    match kind {
        "header-maps" => leak_header_maps(count()?),
        "directories" => leak_directories(count()?),
        "open-requests" => {
            let (n, url) = target.split_once(' ').ok_or("target is \"COUNT URL\"")?;
            open_requests(n.parse().map_err(|_| "COUNT is a number")?, url)
        }
        "read-file" => std::fs::read(target)
            .map(|b| format!("read {} bytes", b.len()))
            .map_err(|e| e.to_string()),
        "write-file" => std::fs::write(target, b"hostile was here")
            .map(|()| "written".into())
            .map_err(|e| e.to_string()),
        "list-dir" => std::fs::read_dir(target)
            .map(|entries| format!("{} entries", entries.count()))
            .map_err(|e| e.to_string()),
        "symlink" => {
            let (link, to) = target.split_once(" -> ").ok_or("expected `LINK -> TO`")?;
            symlink(link, to).map(|()| "linked".into())
        }
        "rename" => {
            let (from, to) = target.split_once(" -> ").ok_or("expected `FROM -> TO`")?;
            std::fs::rename(from, to).map(|()| "renamed".into()).map_err(|e| e.to_string())
        }
        "link" => {
            let (from, to) = target.split_once(" -> ").ok_or("expected `FROM -> TO`")?;
            std::fs::hard_link(from, to).map(|()| "linked".into()).map_err(|e| e.to_string())
        }
        "append-file" => {
            use std::io::Write as _;
            std::fs::OpenOptions::new()
                .append(true)
                .open(target)
                .and_then(|mut f| f.write_all(b"hostile was here"))
                .map(|()| "appended".into())
                .map_err(|e| e.to_string())
        }
        "hold-files" => {
            // Opens `DIR/held` COUNT times and never closes one: the instance keeps holding
            // them after the call.
            let (n, dir) = target.split_once(' ').ok_or("target is \"COUNT DIR\"")?;
            let n: usize = n.parse().map_err(|_| "COUNT is a number")?;
            let path = std::path::Path::new(dir).join("held");
            std::fs::write(&path, b"held").map_err(|e| e.to_string())?;
            for opened in 0..n {
                match std::fs::File::open(&path) {
                    Ok(file) => std::mem::forget(file),
                    Err(e) => return Err(format!("opened {opened}, then: {e}")),
                }
            }
            Ok(format!("opened {n}"))
        }
        "mkdir" => {
            std::fs::create_dir_all(target).map(|()| "created".into()).map_err(|e| e.to_string())
        }
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
        "wait-for-stop" => {
            let mut polls: u64 = 1;
            while !terrarium::provider::lifecycle::stopping() {
                std::thread::sleep(std::time::Duration::from_millis(50));
                polls += 1;
            }
            Ok(format!("stopped after {polls} polls"))
        }
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                let mut chunk = vec![0u8; 1 << 20];
                chunk[0] = 1; // touch it, so it is really committed
                hoard.push(std::hint::black_box(chunk));
            }
        }
        "hold-memory" => {
            // Fill `target` MiB, then hold it for a while, so that parallel calls overlap.
            let hoard: Vec<Vec<u8>> =
                (0..count()?).map(|_| std::hint::black_box(vec![0xa5u8; 1 << 20])).collect();
            std::thread::sleep(std::time::Duration::from_secs(3));
            Ok(format!("held {} MiB", hoard.len()))
        }
        "fill-memory" => {
            // As `alloc`, but every byte is written, so the host really commits the memory.
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(std::hint::black_box(vec![0xa5u8; 1 << 20]));
            }
        }
        "recurse" => {
            let mut acc = [0u8; 256];
            Ok(recurse(0, &mut acc).to_string())
        }
        other => Err(format!("unknown attack {other:?}")),
    }
}

/// `symlink-at` of the granted directory that holds `link` (std has no stable symlink call on
/// WASI), with `to` as given: the host must judge the target, not this guest.
fn symlink(link: &str, to: &str) -> Result<(), String> {
    use wasip2::filesystem::preopens::get_directories;
    let link = std::path::Path::new(link);
    for (dir, name) in get_directories() {
        if let Ok(relative) = link.strip_prefix(&name) {
            let relative = relative.to_str().ok_or("the link is not UTF-8")?;
            return dir.symlink_at(to, relative).map_err(|e| format!("{e:?}"));
        }
    }
    Err(format!("{} is in no granted directory", link.display()))
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

/// The diagnostics of the attacks on what people read.
fn text_attack(kind: &str, target: &str) -> Vec<Diagnostic> {
    let n = target.parse::<usize>().unwrap_or(0);
    match kind {
        "long-diagnostic" => vec![error(&"S".repeat(n), &"D".repeat(n))],
        "many-diagnostics" => {
            let mut diags: Vec<Diagnostic> = (0..n)
                .map(|i| Diagnostic {
                    severity: Severity::Warning,
                    summary: format!("warning {i}"),
                    detail: String::new(),
                    attribute: vec![],
                })
                .collect();
            diags.push(error("the error after the warnings", ""));
            diags
        }
        _ => {
            log(Level::Error, &format!("hostile log\n{ESCAPES}\nforged line"), &[]);
            eprintln!("hostile stderr {ESCAPES}");
            vec![error(&format!("escape {ESCAPES}"), &format!("line one\n{ESCAPES}\nline three"))]
        }
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
                typed_attribute("name_bytes", number, false, true, false),
                attribute("name_text", false, true, false),
            ])],
        };
        let chatter_config = Schema {
            version: 0,
            blocks: vec![block(vec![
                typed_attribute("count", number, true, false, false),
                typed_attribute("panic_after", number, false, true, false),
                typed_attribute("bytes", number, false, true, false),
                attribute("text", false, true, false),
            ])],
        };
        let numbers = Schema {
            version: 0,
            blocks: vec![block(vec![
                attribute("attack", true, false, false),
                typed_attribute("value", number, false, false, true),
            ])],
        };
        let mut resources = vec![
            NamedSchema { name: "hostile_probe".into(), schema: probe },
            NamedSchema { name: "hostile_flood".into(), schema: flood },
            NamedSchema { name: "hostile_number".into(), schema: numbers },
        ];
        if let Some(depth) =
            std::env::var("HOSTILE_DEEP_SCHEMA").ok().and_then(|d| d.parse::<u32>().ok())
        {
            resources.push(NamedSchema {
                name: "hostile_deep".into(),
                schema: Schema { version: 0, blocks: deep_blocks(depth) },
            });
        }
        ProviderSchema {
            provider: Schema {
                version: 0,
                blocks: vec![block(vec![
                    attribute("panic_in", false, true, false),
                    attribute("hang_in", false, true, false),
                ])],
            },
            provider_meta: None,
            resources,
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
        if string_attr(&r.config, "hang_in").as_deref() == Some("StopProvider") {
            HANG_IN_STOP.store(true, Ordering::SeqCst);
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
            Some(attack) if r.type_name == "hostile_number" => {
                object(vec![("attack", Node::String(attack)), ("value", unknown())])
            }
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
        if r.type_name == "hostile_number" {
            let attack = string_attr(&r.planned_state, "attack").unwrap_or_default();
            let value = match attack.as_str() {
                "+inf" => Number::Float(f64::INFINITY),
                "-inf" => Number::Float(f64::NEG_INFINITY),
                "huge" => Number::Decimal("1e999999999".into()),
                _ => Number::Int(1),
            };
            return ApplyResourceChangeResponse {
                new_state: object(vec![
                    ("attack", Node::String(attack)),
                    ("value", Node::Number(value)),
                ]),
                private: vec![],
                diagnostics: vec![],
                new_identity: None,
            };
        }
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
            "long-diagnostic" | "many-diagnostics" | "escape" => {
                return ApplyResourceChangeResponse {
                    new_state: null_value(),
                    private: vec![],
                    diagnostics: text_attack(&kind, &target),
                    new_identity: None,
                };
            }
            "escape-panic" => panic!("hostile: {ESCAPES}"),
            "long-string" => match target.parse::<usize>() {
                Ok(n) => done(Node::String("s".repeat(n))),
                Err(e) => done(Node::String(e.to_string())),
            },
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
        let name_bytes =
            usize::try_from(int_attr(&r.config, "name_bytes").unwrap_or(0)).unwrap_or(0);
        let name_text = string_attr(&r.config, "name_text").unwrap_or_default();
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
                display_name: padded(format!("flood item {n}"), name_bytes, &name_text),
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
        let bytes = usize::try_from(int_attr(&r.config, "bytes").unwrap_or(0)).unwrap_or(0);
        let text = string_attr(&r.config, "text").unwrap_or_default();
        for i in 0..count {
            if panic_after == Some(i) {
                panic!("hostile: deliberate panic in InvokeAction after {i} reports");
            }
            progress.report(&padded(format!("chatter {} of {count}", i + 1), bytes, &text));
        }
        vec![]
    }

    fn stop() -> Option<String> {
        if PANIC_IN_STOP.load(Ordering::SeqCst) {
            panic!("hostile: deliberate panic in StopProvider");
        }
        if HANG_IN_STOP.load(Ordering::SeqCst) {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        None
    }
}

// WIT 0.2.2: no type here must be deleted before its replacement is created.
impl exports::terrarium::provider::replacement::Guest for Hostile {
    fn delete_before_replace() -> Vec<String> {
        Vec::new()
    }
}

// WIT 0.2.3: no block here is computed.
impl exports::terrarium::provider::computed_blocks::Guest for Hostile {
    fn computed_blocks() -> Vec<exports::terrarium::provider::computed_blocks::ComputedBlock> {
        Vec::new()
    }
}

export!(Hostile);

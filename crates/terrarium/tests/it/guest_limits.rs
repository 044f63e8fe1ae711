//! What a hostile guest (`tests/guests/hostile`) does to people and to the host, over real
//! gRPC with mTLS against a `terrarium serve` process: terminal escapes in every kind of text
//! it sends (neutralised), enormous texts and floods of diagnostics (capped, with a note),
//! numbers Terraform cannot store (refused), wasmtime's own limits (named), leaked host
//! resources and memory across instances (bounded, and measured here: the figures are
//! printed).

use std::collections::BTreeMap;

use terrarium_codec as codec;
use terrarium_model::{Type, Value};
use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, declaring, hostile};
use crate::streams::{chatter_text_config, drain, flood_named_msgpack, invoke, list};

/// The hostile guest's escape text (see its `ESCAPES`): what must never reach a terminal raw.
const RAW_CONTROLS: [char; 6] = ['\u{1b}', '\u{7}', '\u{0}', '\r', '\u{202e}', '\u{9b}'];

const MIB: u64 = 1 << 20;

fn probe_type() -> Type {
    Type::object([
        ("attack", Type::String),
        ("target", Type::String),
        ("id", Type::String),
        ("result", Type::String),
    ])
}

fn number_type() -> Type {
    Type::object([("attack", Type::String), ("value", Type::Number)])
}

fn dynamic(value: &Value, ty: &Type) -> pb::DynamicValue {
    pb::DynamicValue { msgpack: codec::encode_msgpack(value, ty).expect("encodable"), json: vec![] }
}

async fn apply(
    client: &mut pb::provider_client::ProviderClient<tonic::transport::Channel>,
    type_name: &str,
    ty: &Type,
    planned: &Value,
) -> pb::apply_resource_change::Response {
    let request = pb::apply_resource_change::Request {
        type_name: type_name.into(),
        prior_state: Some(dynamic(&Value::Null, ty)),
        planned_state: Some(dynamic(planned, ty)),
        config: Some(dynamic(planned, ty)),
        ..Default::default()
    };
    client.apply_resource_change(request).await.expect("ApplyResourceChange answers").into_inner()
}

/// Applies a `hostile_probe` with `attack` and `target`.
async fn probe(
    p: &mut ServedProvider,
    attack: &str,
    target: &str,
) -> pb::apply_resource_change::Response {
    let planned = Value::Object(BTreeMap::from([
        ("attack".to_string(), Value::string(attack)),
        ("target".to_string(), Value::string(target)),
        ("id".to_string(), Value::unknown()),
        ("result".to_string(), Value::unknown()),
    ]));
    apply(&mut p.client, "hostile_probe", &probe_type(), &planned).await
}

fn only_error(what: &str, diags: &[pb::Diagnostic]) -> pb::Diagnostic {
    assert_eq!(diags.len(), 1, "{what}: {diags:#?}");
    assert_eq!(diags[0].severity, pb::diagnostic::Severity::Error as i32, "{what}");
    diags[0].clone()
}

fn assert_neutralised(what: &str, text: &str) {
    for c in RAW_CONTROLS {
        assert!(!text.contains(c), "{what} passes {c:?} raw: {text:?}");
    }
    assert!(text.contains("\\u{1b}[2K") && text.contains("\\u{202e}"), "{what}: {text:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guest_text_is_neutralised_before_it_reaches_people() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;

    // Diagnostics: one-line summary, multi-line detail whose newlines are kept.
    let d = only_error("escape", &probe(&mut p, "escape", "").await.diagnostics);
    assert_neutralised("summary", &d.summary);
    assert!(!d.summary.contains('\n'), "{:?}", d.summary);
    assert_neutralised("detail", &d.detail);
    assert!(
        d.detail.starts_with("line one\n") && d.detail.ends_with("\nline three"),
        "{:?}",
        d.detail
    );

    // A panic message and the guest's last output, in "Provider crashed".
    let d = only_error("escape-panic", &probe(&mut p, "escape-panic", "").await.diagnostics);
    assert_eq!(d.summary, "Provider crashed");
    assert_neutralised("panic", &d.detail);

    // List display names and action progress.
    let escapes = "\u{1b}[2K\u{1b}]0;title\u{7}\r\u{0}\u{202e}\u{9b}\nforged";
    let config = pb::DynamicValue {
        msgpack: flood_named_msgpack(2, 1, None, false, None, Some(escapes)),
        json: vec![],
    };
    let mut events = list(&mut p, config, false, 10).await;
    let mut names = Vec::new();
    while let Some(event) = futures::StreamExt::next(&mut events).await {
        names.push(event.expect("an event").display_name);
    }
    assert_eq!(names.len(), 2, "{names:?}");
    for name in &names {
        assert_neutralised("display name", name);
        assert!(!name.contains('\n'), "{name:?}");
    }
    let events = invoke(&mut p, chatter_text_config(2, None, None, Some(escapes))).await;
    for event in &events {
        if let pb::invoke_action::event::Type::Progress(progress) = event {
            assert_neutralised("progress", &progress.message);
            assert!(!progress.message.contains('\n'), "{:?}", progress.message);
        }
    }
    println!("neutralised: {:?}", d.detail.lines().find(|l| l.contains("u{1b}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guest_text_is_capped_with_a_note_saying_what_was_cut() {
    use terrarium_runtime::guest_text::{
        MAX_DETAIL_BYTES, MAX_DIAGNOSTICS, MAX_DISPLAY_NAME_BYTES, MAX_PROGRESS_BYTES,
        MAX_SUMMARY_BYTES,
    };
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let note = "provider text is limited to";

    let ten_mib = (10 * MIB).to_string();
    let d = only_error(
        "long-diagnostic",
        &probe(&mut p, "long-diagnostic", &ten_mib).await.diagnostics,
    );
    assert!(
        d.summary.len() < MAX_SUMMARY_BYTES + 200 && d.summary.contains(note),
        "{}",
        d.summary.len()
    );
    assert!(
        d.detail.len() < MAX_DETAIL_BYTES + 200 && d.detail.contains(note),
        "{}",
        d.detail.len()
    );
    assert!(d.detail.contains(&format!("cut {} more bytes", 10 * MIB - MAX_DETAIL_BYTES as u64)));

    let diags = probe(&mut p, "many-diagnostics", "200000").await.diagnostics;
    assert_eq!(diags.len(), MAX_DIAGNOSTICS + 1);
    let last = diags.last().expect("the count");
    assert_eq!(last.summary, "Too many diagnostics from the provider");
    assert_eq!(
        last.severity,
        pb::diagnostic::Severity::Error as i32,
        "the cut error is not hidden"
    );
    assert!(last.detail.contains("returned 200001 diagnostics"), "{}", last.detail);

    // A string too large for Terraform's state is refused, naming the attribute.
    let twenty_mib = (20 * MIB).to_string();
    let d = only_error("long-string", &probe(&mut p, "long-string", &twenty_mib).await.diagnostics);
    assert_eq!(d.summary, "Provider returned an invalid value");
    assert!(d.detail.contains("at result") && d.detail.contains("16MiB"), "{}", d.detail);

    let eight_mib = (8 * MIB) as i64;
    let config = pb::DynamicValue {
        msgpack: flood_named_msgpack(2, 1, None, false, Some(eight_mib), None),
        json: vec![],
    };
    let mut events = list(&mut p, config, false, 10).await;
    while let Some(event) = futures::StreamExt::next(&mut events).await {
        let name = event.expect("an event").display_name;
        assert!(name.len() < MAX_DISPLAY_NAME_BYTES + 200 && name.contains(note), "{}", name.len());
    }
    let events = invoke(&mut p, chatter_text_config(2, None, Some(eight_mib), None)).await;
    assert_eq!(events.len(), 3);
    for event in &events {
        if let pb::invoke_action::event::Type::Progress(progress) = event {
            let m = &progress.message;
            assert!(m.len() < MAX_PROGRESS_BYTES + 200 && m.contains(note), "{}", m.len());
        }
    }
    let (_, diagnostics) = drain(list(&mut p, flood_config_plain(), false, 10).await).await;
    assert!(diagnostics.is_empty(), "the provider still serves: {diagnostics:?}");
}

fn flood_config_plain() -> pb::DynamicValue {
    pb::DynamicValue { msgpack: flood_named_msgpack(1, 1, None, false, None, None), json: vec![] }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_terraform_cannot_store_are_refused_naming_the_attribute() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    for attack in ["+inf", "-inf", "huge"] {
        let planned = Value::Object(BTreeMap::from([
            ("attack".to_string(), Value::string(attack)),
            ("value".to_string(), Value::unknown()),
        ]));
        let out = apply(&mut p.client, "hostile_number", &number_type(), &planned).await;
        assert!(out.new_state.is_none(), "{attack}: a state Terraform cannot write was sent");
        let d = only_error(attack, &out.diagnostics);
        assert_eq!(d.summary, "Provider returned an invalid value", "{attack}");
        assert!(d.detail.contains("at value") && d.detail.contains("Terraform"), "{}", d.detail);
        let steps = d.attribute.map(|a| a.steps).unwrap_or_default();
        assert!(
            matches!(steps.as_slice(), [pb::attribute_path::Step { selector: Some(pb::attribute_path::step::Selector::AttributeName(n)) }] if n == "value"),
            "{attack}: {steps:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wasmtime_limits_are_named_rather_than_reported_as_crashes() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let d = only_error(
        "transfer",
        &probe(&mut p, "long-string", &(140 * MIB).to_string()).await.diagnostics,
    );
    assert_eq!(d.summary, "Provider exceeded a resource limit", "{}", d.detail);
    assert!(
        d.detail.contains("more than 128MiB") && d.detail.contains("in one call"),
        "{}",
        d.detail
    );
    assert!(
        !d.detail.contains("bug in the provider;") && !d.detail.contains("wasm backtrace"),
        "{}",
        d.detail
    );

    let d = only_error("handles", &probe(&mut p, "header-maps", "5000").await.diagnostics);
    assert_eq!(d.summary, "Provider exceeded a resource limit", "{}", d.detail);
    assert!(d.detail.contains("more than 1024 host resources"), "{}", d.detail);
    assert!(!d.detail.contains("crashed"), "{}", d.detail);

    // Descriptors are host resources too, and the message says so: the TypeScript SDK once
    // asked for the preopened directories on every call and kept them, and its provider read
    // of "HTTP header maps, requests, ..." only.
    let d = only_error("descriptors", &probe(&mut p, "directories", "2000").await.diagnostics);
    assert_eq!(d.summary, "Provider exceeded a resource limit", "{}", d.detail);
    assert!(
        d.detail.contains("more than 1024 host resources")
            && d.detail.contains("file and directory descriptors")
            && d.detail.contains("after that many calls on one instance"),
        "{}",
        d.detail
    );
}

/// Item 8: a guest that leaks header maps into the host holds at most its table's worth.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaked_header_maps_stay_within_the_per_instance_budget() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let before = p.rss();
    let out = probe(&mut p, "header-maps", "6000").await;
    let after = p.peak_rss();
    println!(
        "header-map attack (6000 maps of 28 KiB): host RSS {} MiB before, peak {} MiB after: {:?}",
        before / MIB,
        after / MIB,
        out.diagnostics.first().map(|d| &d.summary)
    );
    let summary = out.diagnostics.first().map(|d| d.summary.as_str());
    assert_eq!(summary, Some("Provider exceeded a resource limit"), "{:?}", out.diagnostics);
    assert!(after < before + 96 * MIB, "the host grew by {} MiB", (after - before) / MIB);
    assert!(p.is_running());
}

/// Item 8: ten guests filling their memory at once hold no more than `total_memory` together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_guests_share_one_total_memory_budget() {
    let grants = "[limits]\nmemory = \"128MiB\"\ntotal_memory = \"384MiB\"\n";
    let mut p = ServedProvider::start_with_grants(&hostile(), &[], Some(grants)).await;
    let before = p.rss();
    let mut calls = Vec::new();
    for _ in 0..10 {
        let mut client = p.client.clone();
        calls.push(tokio::spawn(async move {
            let planned = Value::Object(BTreeMap::from([
                ("attack".to_string(), Value::string("hold-memory")),
                ("target".to_string(), Value::string("100")),
                ("id".to_string(), Value::unknown()),
                ("result".to_string(), Value::unknown()),
            ]));
            apply(&mut client, "hostile_probe", &probe_type(), &planned).await
        }));
    }
    let (mut held, mut refused) = (0, 0);
    for call in calls {
        let out = call.await.expect("the call");
        if out.diagnostics.is_empty() {
            held += 1;
            continue;
        }
        let d = only_error("hold-memory", &out.diagnostics);
        assert_eq!(d.summary, "Provider exceeded a resource limit", "{}", d.detail);
        assert!(d.detail.contains("384MiB") && d.detail.contains("total_memory"), "{}", d.detail);
        refused += 1;
    }
    let peak = p.peak_rss();
    println!(
        "10 parallel guests holding 100MiB each (memory 128MiB, total_memory 384MiB): host RSS {} MiB \
         before, peak {} MiB; {held} held their memory, {refused} were stopped by the total",
        before / MIB,
        peak / MIB
    );
    assert!(held <= 3 && refused >= 1, "{held} held, {refused} refused");
    assert!(peak < before + 384 * MIB + 96 * MIB, "the host grew by {} MiB", (peak - before) / MIB);
    // Memory comes back when instances go: later calls still get their whole share.
    let out = probe(&mut p, "hold-memory", "100").await;
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
}

/// Item 8: requests the guest sends and never reads hold at most MAX_OPEN_REQUESTS connections.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_requests_hold_a_bounded_number_of_connections() {
    use terrarium_runtime::sandbox::http::MAX_OPEN_REQUESTS;
    // A server that accepts connections and never answers: every request stays open.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let server = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let grants = format!("allow_http = [\"http://{server}\"]\n");
    let mut p = ServedProvider::start_with_grants(&hostile(), &[], Some(&grants)).await;
    let fds_before = p.open_fds();
    let out = probe(&mut p, "open-requests", &format!("800 http://{server}/")).await;
    let d = only_error("open-requests", &out.diagnostics);
    assert!(d.detail.contains("ConnectionLimitReached"), "{}", d.detail);
    let fds_after = p.open_fds();
    println!("800 unread requests: the host holds {fds_before} fds before, {fds_after} after");
    assert!(fds_after < fds_before + MAX_OPEN_REQUESTS + 32, "{fds_after} fds");
}

/// Serves the hostile guest with a schema nested `depth` levels deep; its schema response.
async fn deep_schema(depth: usize) -> (ServedProvider, pb::get_provider_schema::Response) {
    let grants = "allow_env = [\"HOSTILE_DEEP_SCHEMA\"]\n";
    let depth = depth.to_string();
    let env = [("HOSTILE_DEEP_SCHEMA", depth.as_str())];
    let mut p = ServedProvider::start_with_grants(&hostile(), &env, Some(grants)).await;
    let schema = p
        .client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("GetProviderSchema answers")
        .into_inner();
    (p, schema)
}

/// Item 6: a schema nested 700 levels deep is refused when it is loaded, naming the limit; the
/// host does not overflow its stack, and a schema at the limit loads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_nested_without_end_is_refused_when_it_is_loaded() {
    use terrarium_model::flat::MAX_SCHEMA_DEPTH;
    let (mut p, schema) = deep_schema(700).await;
    let text: Vec<String> =
        schema.diagnostics.iter().map(|d| format!("{}: {}", d.summary, d.detail)).collect();
    assert!(
        text.iter().any(|t| t.contains("\"hostile_deep\"")
            && t.contains(&format!("nested {} levels deep", MAX_SCHEMA_DEPTH + 1))
            && t.contains(&format!("limit of {MAX_SCHEMA_DEPTH} levels"))),
        "{text:#?}"
    );
    assert!(p.is_running(), "the host survived");

    let (_, schema) = deep_schema(MAX_SCHEMA_DEPTH).await;
    assert!(schema.diagnostics.is_empty(), "{:?}", schema.diagnostics);
    assert!(schema.resource_schemas.contains_key("hostile_deep"));
}

/// Item 11: a component that claims this host's WIT version but whose `get-schema` returns
/// something else is refused when it is loaded, as an interface mismatch naming the function
/// (at instantiation it would fail with an error naming none, reported as a crash).
#[test]
fn a_changed_signature_at_the_same_version_is_an_interface_mismatch() {
    use terrarium_runtime::{PROVIDER_EXPORT, Runtime, RuntimeSettings};
    let scratch = tempfile::tempdir().expect("tempdir");
    let component = wat::parse_str(format!(
        r#"(component
             (core module $m (func (export "get-schema") (result i32) i32.const 0))
             (core instance $i (instantiate $m))
             (func $get-schema (result u32) (canon lift (core func $i "get-schema")))
             (instance $provider (export "get-schema" (func $get-schema)))
             (export "{PROVIDER_EXPORT}" (instance $provider)))"#
    ))
    .expect("a valid component");
    let path = scratch.path().join("changed.wasm");
    std::fs::write(&path, component).expect("written");
    let settings = RuntimeSettings { cache_dir: None, ..RuntimeSettings::default() };
    let error = Runtime::load(&path, settings).err().expect("refused").to_string();
    assert!(
        error.contains("its function `get-schema` does not have that version's signature")
            && error.contains("Rebuild it against terrarium-sdk"),
        "{error}"
    );
}

/// Serves the declaring guest with the declared behaviour `load` (its `DECLARING_LOAD`
/// forms); the summaries and details of its schema diagnostics.
async fn declared_load(load: &str) -> (ServedProvider, Vec<String>) {
    let grants = "allow_env = [\"DECLARING_LOAD\"]\n";
    let env = [("DECLARING_LOAD", load)];
    let mut p = ServedProvider::start_with_grants(&declaring(), &env, Some(grants)).await;
    let schema = p
        .client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("GetProviderSchema answers")
        .into_inner();
    let text = schema.diagnostics.iter().map(|d| format!("{}: {}", d.summary, d.detail)).collect();
    (p, text)
}

/// Issue 27: 300 patterns of a few megabytes compiled each (2.4 GiB of the host's and 78 s
/// before) are refused once their compiled size passes the component's budget; the host
/// stays small and keeps running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_patterns_are_bounded_in_compiled_size_together() {
    use terrarium_runtime::behaviour::MAX_PATTERN_MEMORY;
    let (mut p, text) = declared_load("patterns:300:150").await;
    let bound = format!("compile to more than {MAX_PATTERN_MEMORY} bytes together");
    assert!(text.iter().any(|t| t.contains(&bound)), "{text:#?}");
    assert!(p.is_running(), "the host survived");
    let peak = p.peak_rss();
    assert!(peak < 384 * MIB, "the host peaked at {} MiB", peak / MIB);
}

/// Issue 27: one pattern whose automaton would pass the limit for one pattern is refused,
/// naming the pattern, its attribute and the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_pattern_over_the_size_of_one_is_refused() {
    use terrarium_framework::validate::PATTERN_SIZE_LIMIT;
    let (_, text) = declared_load("patterns:1:400").await;
    let limit = format!("the limit for one pattern is {PATTERN_SIZE_LIMIT} bytes compiled");
    assert!(
        text.iter().any(|t| t.contains(r#""^\\w{400}0$" (of "label")"#) && t.contains(&limit)),
        "{text:#?}"
    );
}

/// Issue 27: `one-of` lists are bounded in count and bytes (2,000 large ones held 336 MiB of
/// the host's before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_one_of_values_are_bounded() {
    use terrarium_runtime::behaviour::{MAX_ONE_OF_BYTES, MAX_ONE_OF_VALUES};
    let (_, text) = declared_load("one-of:200:1000").await;
    let bound = format!("200000 one-of values, over this host's limit of {MAX_ONE_OF_VALUES}");
    assert!(text.iter().any(|t| t.contains(&bound)), "{text:#?}");
    // Few values, but long ones: 20 x 200 x 100 bytes.
    let (_, text) = declared_load("one-of:20:200").await;
    let bound =
        format!("400000 bytes of one-of values, over this host's limit of {MAX_ONE_OF_BYTES}");
    assert!(!text.iter().any(|t| t.contains(&bound)), "under the bytes bound: {text:#?}");
    let (_, text) = declared_load("one-of:20:600").await;
    let bound =
        format!("1200000 bytes of one-of values, over this host's limit of {MAX_ONE_OF_BYTES}");
    assert!(text.iter().any(|t| t.contains(&bound)), "{text:#?}");
}

/// Issue 27: a schema of 40,000 attributes, each with behaviour, loads and joins with its
/// behaviour (by path, in one pass; it took 91 s of the host's when each attribute searched
/// the behaviour), and within the bounds nothing is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wide_schema_with_behaviour_everywhere_loads() {
    let (mut p, text) = declared_load("wide:40000").await;
    assert!(text.is_empty(), "{text:#?}");
    let schema = p
        .client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("GetProviderSchema answers")
        .into_inner();
    let wide = &schema.resource_schemas["declaring_wide"];
    assert_eq!(wide.block.as_ref().map(|b| b.attributes.len()), Some(40_000));
}

/// A guest that opens a file `count` times in a granted directory and never closes one,
/// with the server's soft descriptor limit at `descriptors`; the server, the probe's answer,
/// and the server's descriptors before and after.
async fn hold_files(
    count: usize,
    descriptors: Option<u64>,
) -> (ServedProvider, pb::apply_resource_change::Response, usize, usize, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let grants = format!("allow_dir = [\"{}:rw\"]\n", dir.path().display());
    let mut p = ServedProvider::start_limited(&hostile(), &[], Some(&grants), descriptors).await;
    // The instance that serves the probe exists before it opens anything.
    let _ = probe(&mut p, "env", "HOME").await;
    let before = p.open_fds();
    let target = format!("{count} {}", dir.path().display());
    let out = probe(&mut p, "hold-files", &target).await;
    let after = p.open_fds();
    println!("{count} files held open: the host holds {before} fds before, {after} after");
    (p, out, before, after, dir)
}

/// The host's warning that lists what the sandbox refused, and the guest's error.
fn refused_and_error(out: &pb::apply_resource_change::Response) -> (String, String) {
    let refusal = out
        .diagnostics
        .iter()
        .find(|d| d.summary == "The sandbox refused a file operation")
        .unwrap_or_else(|| panic!("no refusal warning: {:#?}", out.diagnostics));
    assert_eq!(refusal.severity, pb::diagnostic::Severity::Warning as i32);
    let error = out
        .diagnostics
        .iter()
        .find(|d| d.severity == pb::diagnostic::Severity::Error as i32)
        .unwrap_or_else(|| panic!("the guest saw no error: {:#?}", out.diagnostics));
    (refusal.detail.clone(), format!("{}: {}", error.summary, error.detail))
}

/// Issue 27: one instance may hold at most MAX_OPEN_FILES descriptors of the host (before,
/// 1,000 opened files were 1,000 descriptors of the host's, held until the instance went).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_holds_a_bounded_number_of_open_files() {
    use terrarium_runtime::held_files::MAX_OPEN_FILES;
    let (mut p, out, before, after, _dir) = hold_files(1000, None).await;
    let (refused, error) = refused_and_error(&out);
    assert!(
        refused.contains(&format!("may hold at most {MAX_OPEN_FILES} files open at once"))
            && refused.contains("/held was refused")
            && refused.contains("no grant raises the bound"),
        "{refused}"
    );
    assert!(error.contains("opened ") && error.contains(", then: "), "{error}");
    assert!(after <= before + MAX_OPEN_FILES, "{before} fds before, {after} after");
    assert!(after >= before + MAX_OPEN_FILES - 8, "the guest could open files: {before}, {after}");
    assert!(p.is_running(), "the host survived");
}

/// Issue 27: guests together may hold at most half of the process's descriptors, so the
/// host keeps the other half (before, a guest took every descriptor up to RLIMIT_NOFILE).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_together_leave_the_host_half_of_its_descriptors() {
    const LIMIT: u64 = 256;
    let (mut p, out, _, after, _dir) = hold_files(1000, Some(LIMIT)).await;
    let (refused, _) = refused_and_error(&out);
    assert!(
        refused.contains(&format!("guests together may use at most {}", LIMIT / 2)),
        "{refused}"
    );
    assert!(after <= LIMIT as usize / 2 + 2, "the host holds {after} of {LIMIT}");
    p.client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("the host still answers");
    assert!(p.is_running(), "the host survived");
}

//! ListResource and InvokeAction over real gRPC with mTLS against a `terrarium serve` process
//! serving the hostile guest: items are forwarded as the guest pushes them, in bounded memory,
//! the guest is told to stop at Terraform's limit and when Terraform hangs up, and a trap
//! mid-stream ends the stream with an error diagnostic rather than a gRPC error.

use std::collections::BTreeMap;

use futures::StreamExt;
use terrarium_codec as codec;
use terrarium_model::{Number, Type, Value};
use terrarium_proto::tfplugin6 as pb;

use crate::served::{ServedProvider, hostile};

fn number(n: i64) -> Value {
    Value::Number(Number::Int(n))
}

fn flood_config(count: i64, bytes: i64, panic_after: Option<i64>) -> pb::DynamicValue {
    pb::DynamicValue { msgpack: flood_msgpack(count, bytes, panic_after, false), json: vec![] }
}

/// `hostile_flood`'s list configuration; `ignore_stop` makes it push on after `push` said stop.
fn flood_msgpack(count: i64, bytes: i64, panic_after: Option<i64>, ignore_stop: bool) -> Vec<u8> {
    flood_named_msgpack(count, bytes, panic_after, ignore_stop, None, None)
}

/// As [`flood_msgpack`], with display names padded to `name_bytes` and followed by `name_text`.
pub(crate) fn flood_named_msgpack(
    count: i64,
    bytes: i64,
    panic_after: Option<i64>,
    ignore_stop: bool,
    name_bytes: Option<i64>,
    name_text: Option<&str>,
) -> Vec<u8> {
    let ty = Type::object([
        ("count", Type::Number),
        ("bytes", Type::Number),
        ("panic_after", Type::Number),
        ("ignore_stop", Type::Bool),
        ("name_bytes", Type::Number),
        ("name_text", Type::String),
    ]);
    let value = Value::Object(BTreeMap::from([
        ("count".to_string(), number(count)),
        ("bytes".to_string(), number(bytes)),
        ("panic_after".to_string(), panic_after.map_or(Value::Null, number)),
        ("ignore_stop".to_string(), if ignore_stop { Value::Bool(true) } else { Value::Null }),
        ("name_bytes".to_string(), name_bytes.map_or(Value::Null, number)),
        ("name_text".to_string(), name_text.map_or(Value::Null, Value::string)),
    ]));
    codec::encode_msgpack(&value, &ty).expect("encodable")
}

fn chatter_config(count: i64, panic_after: Option<i64>) -> pb::DynamicValue {
    chatter_text_config(count, panic_after, None, None)
}

/// As [`chatter_config`], with messages padded to `bytes` and followed by `text`.
pub(crate) fn chatter_text_config(
    count: i64,
    panic_after: Option<i64>,
    bytes: Option<i64>,
    text: Option<&str>,
) -> pb::DynamicValue {
    let ty = Type::object([
        ("count", Type::Number),
        ("panic_after", Type::Number),
        ("bytes", Type::Number),
        ("text", Type::String),
    ]);
    let value = Value::Object(BTreeMap::from([
        ("count".to_string(), number(count)),
        ("panic_after".to_string(), panic_after.map_or(Value::Null, number)),
        ("bytes".to_string(), bytes.map_or(Value::Null, number)),
        ("text".to_string(), text.map_or(Value::Null, Value::string)),
    ]));
    pb::DynamicValue {
        msgpack: codec::encode_msgpack(&value, &ty).expect("encodable"),
        json: vec![],
    }
}

pub(crate) async fn list(
    p: &mut ServedProvider,
    config: pb::DynamicValue,
    include_resource_object: bool,
    limit: i64,
) -> tonic::Streaming<pb::list_resource::Event> {
    let request = pb::list_resource::Request {
        type_name: "hostile_flood".into(),
        config: Some(config),
        include_resource_object,
        limit,
    };
    p.client.list_resource(request).await.expect("ListResource answers with a stream").into_inner()
}

/// Reads a whole ListResource stream: the number of items, and the diagnostics of every event.
pub(crate) async fn drain(
    mut events: tonic::Streaming<pb::list_resource::Event>,
) -> (usize, Vec<pb::Diagnostic>) {
    let mut items = 0;
    let mut diagnostics = Vec::new();
    while let Some(event) = events.next().await {
        let event = event.expect("events, never a gRPC error");
        if event.identity.is_some() {
            items += 1;
        }
        diagnostics.extend(event.diagnostic);
    }
    (items, diagnostics)
}

fn identity_n(event: &pb::list_resource::Event) -> i64 {
    let ty = Type::object([("n", Type::Number)]);
    let data =
        event.identity.as_ref().and_then(|i| i.identity_data.as_ref()).expect("identity data");
    match codec::decode_msgpack(&data.msgpack, &ty).expect("the host encoded it") {
        Value::Object(o) => match o.get("n") {
            Some(Value::Number(Number::Int(n))) => *n,
            other => panic!("identity n: {other:?}"),
        },
        other => panic!("identity: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_list_items_streams_completely_in_bounded_memory() {
    const ITEMS: i64 = 100_000;
    const BYTES: i64 = 4096;
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let mut events = list(&mut p, flood_config(ITEMS, BYTES, None), true, ITEMS * 2).await;

    let resource_type = Type::object([("n", Type::Number), ("data", Type::String)]);
    let mut items: i64 = 0;
    let mut payload: u64 = 0;
    while let Some(event) = events.next().await {
        let event = event.expect("events, never a gRPC error");
        assert!(event.diagnostic.is_empty(), "item {items}: {:?}", event.diagnostic);
        assert_eq!(identity_n(&event), items, "items arrive in the order pushed");
        let object = event.resource_object.as_ref().expect("a resource object, as asked for");
        payload += object.msgpack.len() as u64;
        if items == 0 {
            let decoded = codec::decode_msgpack(&object.msgpack, &resource_type)
                .expect("the host encoded it");
            let Value::Object(o) = decoded else { panic!("resource object: {decoded:?}") };
            assert_eq!(o.get("data"), Some(&Value::string("x".repeat(BYTES as usize))));
        }
        items += 1;
    }
    assert_eq!(items, ITEMS);
    assert!(payload > 400_000_000, "the items add up to {payload} bytes");
    let peak = p.peak_rss();
    println!(
        "ListResource of {ITEMS} items of {BYTES} bytes ({payload} bytes): host peak RSS {} MiB",
        peak >> 20
    );
    assert!(
        peak < 150 << 20,
        "the host's peak RSS was {} MiB for {} MiB of items",
        peak >> 20,
        payload >> 20
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_is_told_to_stop_at_terraforms_limit() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    // The guest panics before pushing item 11 (n = 10): only a guest that pushed past the
    // limit gets there, and then the stream would end with a "Provider crashed" diagnostic.
    let (items, diagnostics) =
        drain(list(&mut p, flood_config(1000, 16, Some(10)), false, 10).await).await;
    assert_eq!(items, 10);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_a_guest_pushes_past_the_limit_are_not_sent() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    // The guest ignores `push` returning false and pushes all 1,000 items.
    let config = pb::DynamicValue { msgpack: flood_msgpack(1000, 16, None, true), json: vec![] };
    let (items, diagnostics) = drain(list(&mut p, config, false, 10).await).await;
    assert_eq!(items, 10);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trap_mid_stream_ends_it_with_an_error_diagnostic() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let (items, diagnostics) =
        drain(list(&mut p, flood_config(100, 16, Some(50)), false, 1000).await).await;
    assert_eq!(items, 50);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d.severity, pb::diagnostic::Severity::Error as i32);
    assert_eq!(d.summary, "Provider crashed");
    assert!(d.detail.contains("ListResource for list resource \"hostile_flood\""), "{}", d.detail);
    assert!(d.detail.contains("deliberate panic in ListResource after 50 items"), "{}", d.detail);
    // The host discarded the crashed instance and serves the next listing.
    let (items, diagnostics) =
        drain(list(&mut p, flood_config(3, 16, None), false, 1000).await).await;
    assert_eq!((items, diagnostics.len()), (3, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_hangs_up_mid_stream_leaves_the_host_serving() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let mut events = list(&mut p, flood_config(1_000_000_000, 64, None), true, i64::MAX).await;
    for expected in 0..5 {
        let event = events.next().await.expect("an event").expect("not a gRPC error");
        assert_eq!(identity_n(&event), expected);
    }
    drop(events);

    // Other RPCs, and other listings, are served afterwards.
    let schema = p
        .client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("schema")
        .into_inner();
    assert!(schema.list_resource_schemas.contains_key("hostile_flood"));
    for _ in 0..3 {
        let (items, diagnostics) =
            drain(list(&mut p, flood_config(7, 16, None), false, 100).await).await;
        assert_eq!((items, diagnostics.len()), (7, 0), "{diagnostics:?}");
    }
    assert!(p.is_running());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_list_resource_type_is_a_diagnostic_event() {
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let request = pb::list_resource::Request {
        type_name: "hostile_nothing".into(),
        config: Some(flood_config(1, 1, None)),
        include_resource_object: false,
        limit: 10,
    };
    let events = p.client.list_resource(request).await.expect("a stream").into_inner();
    let (items, diagnostics) = drain(events).await;
    assert_eq!(items, 0);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].summary, "Unknown list resource type");
    assert!(diagnostics[0].detail.contains("\"hostile_nothing\""), "{}", diagnostics[0].detail);
    assert!(diagnostics[0].detail.contains("hostile_flood"), "{}", diagnostics[0].detail);
}

pub(crate) async fn invoke(
    p: &mut ServedProvider,
    config: pb::DynamicValue,
) -> Vec<pb::invoke_action::event::Type> {
    let request = pb::invoke_action::Request {
        action_type: "hostile_chatter".into(),
        config: Some(config),
        client_capabilities: None,
    };
    let mut events = p
        .client
        .invoke_action(request)
        .await
        .expect("InvokeAction answers with a stream")
        .into_inner();
    let mut out = Vec::new();
    while let Some(event) = events.next().await {
        out.push(event.expect("events, never a gRPC error").r#type.expect("an event type"));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invoke_action_streams_progress_then_completes() {
    use pb::invoke_action::event::Type;
    let mut p = ServedProvider::start(&hostile(), &[]).await;
    let events = invoke(&mut p, chatter_config(200, None)).await;
    assert_eq!(events.len(), 201, "200 progress events and one completion");
    for (i, event) in events[..200].iter().enumerate() {
        match event {
            Type::Progress(progress) => {
                assert_eq!(progress.message, format!("chatter {} of 200", i + 1))
            }
            other => panic!("event {i}: {other:?}"),
        }
    }
    match &events[200] {
        Type::Completed(completed) => {
            assert!(completed.diagnostics.is_empty(), "{:?}", completed.diagnostics)
        }
        other => panic!("last event: {other:?}"),
    }

    // A trap mid-action: the progress so far, then a completion carrying the error.
    let events = invoke(&mut p, chatter_config(200, Some(5))).await;
    assert_eq!(events.len(), 6, "{events:?}");
    assert!(events[..5].iter().all(|e| matches!(e, Type::Progress(_))));
    let Type::Completed(completed) = &events[5] else { panic!("last event: {:?}", events[5]) };
    assert_eq!(completed.diagnostics.len(), 1);
    assert_eq!(completed.diagnostics[0].summary, "Provider crashed");
    assert!(
        completed.diagnostics[0].detail.contains("InvokeAction for action \"hostile_chatter\"")
    );
}

/// In process, through dispatch: a guest that keeps pushing after Terraform hung up (its
/// pushes return false at once) is cut off a few seconds later, long before its call timeout
/// (the default five minutes), and the next listing runs in a fresh instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_that_ignores_a_hang_up_is_cut_off_long_before_its_timeout() {
    use std::sync::Arc;
    use std::time::Duration;
    use terrarium_core::Dispatcher;
    use terrarium_core::types::ListResourceRequest;
    use terrarium_runtime::{Runtime, RuntimeSettings};

    let cache = tempfile::tempdir().expect("tempdir");
    let settings = RuntimeSettings {
        cache_dir: Some(cache.path().to_path_buf()),
        ..RuntimeSettings::default()
    };
    assert!(
        settings.call_timeout >= Duration::from_secs(300),
        "the bound below must be well under the timeout"
    );
    let runtime = Runtime::load(&hostile(), settings).expect("fixture loads");
    let provider = Arc::new(Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts"));
    let config_type = provider.list_resource_type("hostile_flood").expect("a list type").clone();
    let request = |count, ignore_stop| ListResourceRequest {
        type_name: "hostile_flood".into(),
        config: codec::decode_msgpack(&flood_msgpack(count, 16, None, ignore_stop), &config_type)
            .expect("decodes"),
        include_resource_object: false,
        limit: i64::MAX,
    };

    let (events, mut received) = tokio::sync::mpsc::channel(16);
    let listing = {
        let provider = provider.clone();
        let request = request(i64::MAX, true);
        tokio::spawn(async move { provider.list_resource(&request, events).await })
    };
    for _ in 0..5 {
        received.recv().await.expect("an item");
    }
    drop(received);
    // A liveness bound, not a timing assertion: without the cut-off this waits for the
    // five-minute call timeout.
    tokio::time::timeout(Duration::from_secs(120), listing)
        .await
        .expect("the listing was cut off after the hang-up")
        .expect("the listing task");

    let (events, mut received) = tokio::sync::mpsc::channel(16);
    provider.list_resource(&request(3, false), events).await;
    let mut items = 0;
    while let Some(event) = received.recv().await {
        assert!(event.diagnostics.is_empty(), "{:?}", event.diagnostics);
        items += 1;
    }
    assert_eq!(items, 3);
}

/// In process, through dispatch: time the guest spends waiting for a slow reader is not its
/// own, so it does not count against its time limit (here 2 s, while the reader pauses 3 s
/// with the channel full).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_for_a_slow_reader_does_not_count_against_the_time_limit() {
    use std::sync::Arc;
    use std::time::Duration;
    use terrarium_core::Dispatcher;
    use terrarium_core::types::ListResourceRequest;
    use terrarium_runtime::{Runtime, RuntimeSettings};

    const ITEMS: usize = 40;
    let cache = tempfile::tempdir().expect("tempdir");
    let settings = RuntimeSettings {
        cache_dir: Some(cache.path().to_path_buf()),
        call_timeout: Duration::from_secs(2),
        ..RuntimeSettings::default()
    };
    let runtime = Runtime::load(&hostile(), settings).expect("fixture loads");
    let provider = Arc::new(Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts"));
    let config_type = provider.list_resource_type("hostile_flood").expect("a list type").clone();
    let request = ListResourceRequest {
        type_name: "hostile_flood".into(),
        config: codec::decode_msgpack(&flood_msgpack(ITEMS as i64, 16, None, false), &config_type)
            .expect("decodes"),
        include_resource_object: false,
        limit: i64::MAX,
    };
    let (events, mut received) = tokio::sync::mpsc::channel(16);
    let listing = tokio::spawn(async move { provider.list_resource(&request, events).await });
    let first = received.recv().await.expect("a first item");
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    // The guest fills the channel and waits in `push` meanwhile.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut items = 1;
    while let Some(event) = received.recv().await {
        assert!(event.diagnostics.is_empty(), "after {items} items: {:?}", event.diagnostics);
        items += 1;
    }
    assert_eq!(items, ITEMS);
    listing.await.expect("the listing task");
}

//! Hot reload (`terrarium dev`): a new build of the component file is swapped in between calls.
//!
//! These tests drive the tfplugin6 service `terrarium dev` serves ([`LiveProvider::service`]) and
//! the component file watcher, writing new builds the two ways build tools do (in place, and
//! renamed over the old file). Builds that behave the same but must be loaded anew are made by
//! appending a custom section (which no runtime reads) to a component, so their bytes differ.
//!
//! `reloads_under_load_through_the_dev_server_fail_no_call` runs the `terrarium dev` executable
//! and calls it over its plaintext socket, as a reattached Terraform does.
//!
//! How long a reload takes is measured by `make bench BENCH_ARGS=reload` (bench/src/reload.rs),
//! not here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_dev::{self as reload, LiveProvider, Reloader, watch};
use terrarium_model::{Type, Value};
use terrarium_plugin_client::rebuilt;
use terrarium_proto::tfplugin6 as pb;
use terrarium_proto::tfplugin6::provider_server::Provider as _;
use terrarium_runtime::{Compiler, Runtime, RuntimeSettings};
use terrarium_tfplugin::server::ProviderService;
use tonic::Request;

fn component(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let target = exe.ancestors().nth(3).expect("test executable inside a cargo target directory");
    let path = target.join(format!("wasm32-wasip2/debug/{name}.wasm"));
    assert!(path.exists(), "{} is missing: build the guests first (`make build`)", path.display());
    path
}

/// Writes a new build the way `cargo` and most tools do: to a temporary file renamed over
/// the old one.
fn rename_over(path: &Path, bytes: &[u8]) {
    let temporary = path.with_extension("wasm.partial");
    std::fs::write(&temporary, bytes).expect("write the new build");
    std::fs::rename(&temporary, path).expect("rename it over the old build");
}

/// Writes a new build into the existing file.
fn write_in_place(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("write the new build in place");
}

fn settings(cache: Option<&Path>, pool: usize) -> RuntimeSettings {
    RuntimeSettings {
        call_timeout: Duration::from_secs(60),
        cache_dir: cache.map(Path::to_path_buf),
        instance_pool_size: pool,
        ..RuntimeSettings::default()
    }
}

/// A dev server's pieces, serving `bytes` from `dir/provider.wasm` and watching the file.
struct Dev {
    path: PathBuf,
    live: Arc<LiveProvider>,
    service: ProviderService,
    _watch: watch::Watch,
}

async fn dev(dir: &Path, bytes: &[u8], settings: RuntimeSettings) -> Dev {
    let path = dir.join("provider.wasm");
    std::fs::write(&path, bytes).unwrap();
    let runtime =
        Runtime::from_bytes(bytes, &path, settings.clone()).expect("the first build loads");
    let provider = Dispatcher::start(Arc::new(runtime)).await.expect("the first build starts");
    let live = LiveProvider::new(Arc::new(provider), reload::digest(bytes));
    // As `terrarium dev` does: new builds are compiled without optimisations.
    let reload_settings = RuntimeSettings { compiler: Compiler::Baseline, ..settings };
    let reloader = Arc::new(Reloader::new(live.clone(), path.clone(), reload_settings));
    let watch =
        watch::watch_component(reloader, watch::COMPONENT_QUIET).expect("watch the component");
    Dev { path, service: live.service(), live, _watch: watch }
}

impl Dev {
    /// Waits until the serving generation is past `generation`; panics after a generous while.
    async fn wait_past(&self, generation: u64) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let now = self.live.generation();
            if now > generation {
                return now;
            }
            assert!(
                Instant::now() < deadline,
                "no reload past generation {generation} within 120 s"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    async fn schema(&self) -> pb::get_provider_schema::Response {
        self.service
            .get_provider_schema(Request::new(Default::default()))
            .await
            .expect("GetProviderSchema")
            .into_inner()
    }

    async fn validate_provider_config(&self, config: Vec<u8>) -> Vec<pb::Diagnostic> {
        let request = pb::validate_provider_config::Request {
            config: Some(pb::DynamicValue { msgpack: config, json: vec![] }),
        };
        self.service
            .validate_provider_config(Request::new(request))
            .await
            .expect("ValidateProviderConfig")
            .into_inner()
            .diagnostics
    }

    async fn configure(&self, config: Vec<u8>) {
        let request = pb::configure_provider::Request {
            terraform_version: "1.15.5".into(),
            config: Some(pb::DynamicValue { msgpack: config, json: vec![] }),
            ..Default::default()
        };
        let response = self
            .service
            .configure_provider(Request::new(request))
            .await
            .expect("ConfigureProvider")
            .into_inner();
        assert!(response.diagnostics.is_empty(), "{:?}", response.diagnostics);
    }
}

fn msgpack(value: &Value, ty: &Type) -> Vec<u8> {
    codec::encode_msgpack(value, ty).expect("encodable")
}

fn empty_object() -> Vec<u8> {
    msgpack(&Value::Object(BTreeMap::new()), &Type::object(Vec::<(String, Type)>::new()))
}

fn summaries(diagnostics: &[pb::Diagnostic]) -> Vec<&str> {
    diagnostics.iter().map(|d| d.summary.as_str()).collect()
}

/// A `faulty_thing` applied in `mode` through the service; returns its `value` attribute.
async fn apply_faulty(
    service: &impl pb::provider_server::Provider,
    ty: &Type,
    mode: &str,
) -> Result<String, Vec<pb::Diagnostic>> {
    let thing = |id: Value, value: Value| {
        Value::Object(BTreeMap::from([
            ("id".to_string(), id),
            ("mode".to_string(), Value::string(mode)),
            ("value".to_string(), value),
        ]))
    };
    let dv = |v: &Value| Some(pb::DynamicValue { msgpack: msgpack(v, ty), json: vec![] });
    let request = pb::apply_resource_change::Request {
        type_name: "faulty_thing".into(),
        prior_state: dv(&Value::Null),
        planned_state: dv(&thing(Value::unknown(), Value::unknown())),
        config: dv(&thing(Value::Null, Value::Null)),
        ..Default::default()
    };
    let response = service
        .apply_resource_change(Request::new(request))
        .await
        .expect("ApplyResourceChange")
        .into_inner();
    if !response.diagnostics.is_empty() {
        return Err(response.diagnostics);
    }
    let state = codec::decode_msgpack(&response.new_state.expect("a state").msgpack, ty)
        .expect("host encoded it");
    match state {
        Value::Object(attrs) => match &attrs["value"] {
            Value::String(s) => Ok(s.clone()),
            other => panic!("value is not a string: {other:?}"),
        },
        other => panic!("state is not an object: {other:?}"),
    }
}

fn faulty_thing_type(schema: &pb::get_provider_schema::Response) -> Type {
    assert!(schema.resource_schemas.contains_key("faulty_thing"), "not the faulty fixture");
    Type::object(["id", "mode", "value"].map(|n| (n, Type::String)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_build_serves_new_calls_while_calls_in_flight_finish_on_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let faulty = std::fs::read(component("faulty_provider")).unwrap();
    let dev = dev(dir.path(), &faulty, settings(None, 4)).await;
    let ty = faulty_thing_type(&dev.schema().await);

    // A call that takes 200 ms in the guest is in flight when the new build lands.
    let first = dev.live.current().expect("a build serves");
    let in_flight = tokio::spawn({
        let service = dev.service.clone();
        let ty = ty.clone();
        async move { apply_faulty(&service, &ty, "slow").await }
    });
    // The call holds the generation it started on (beside the live provider and `first`).
    while Arc::strong_count(&first) < 3 {
        tokio::task::yield_now().await;
    }
    rename_over(&dev.path, &std::fs::read(component("null_provider")).unwrap());
    assert_eq!(dev.wait_past(1).await, 2);

    let schema = dev.schema().await;
    assert!(schema.resource_schemas.contains_key("null_resource"), "new calls run the new build");
    assert!(!schema.resource_schemas.contains_key("faulty_thing"));
    assert_eq!(
        in_flight.await.unwrap().expect("the call in flight finished on the old build"),
        "unconfigured"
    );
    // Whether that call was still running at the swap depends on timing (it takes 200 ms).
    // What makes it safe does not: a call keeps the generation it started on, and that
    // generation keeps serving on the old code after the swap until its last call ends.
    assert_eq!(first.number, 1);
    assert_eq!(
        apply_faulty(&ProviderService::new(first.dispatcher.clone()), &ty, "slow")
            .await
            .expect("the old build still serves its calls"),
        "unconfigured"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_recorded_configuration_is_replayed_into_the_new_build() {
    let dir = tempfile::tempdir().unwrap();
    let faulty = std::fs::read(component("faulty_provider")).unwrap();
    let dev = dev(dir.path(), &faulty, settings(None, 4)).await;
    let ty = faulty_thing_type(&dev.schema().await);
    dev.configure(empty_object()).await;
    assert_eq!(apply_faulty(&dev.service, &ty, "slow").await.unwrap(), "configured");

    // Same code, new bytes: without the carried-over configuration its instances would say
    // "unconfigured", since nothing sends ConfigureProvider again.
    write_in_place(&dev.path, &rebuilt(&faulty, "second"));
    assert_eq!(dev.wait_past(1).await, 2);
    let values =
        futures::future::join_all((0..3).map(|_| apply_faulty(&dev.service, &ty, "slow"))).await;
    for value in values {
        assert_eq!(
            value.unwrap(),
            "configured",
            "the new build's instances were configured by replay"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_build_that_fails_to_load_is_not_swapped_in_and_the_next_call_warns() {
    let dir = tempfile::tempdir().unwrap();
    let null = std::fs::read(component("null_provider")).unwrap();
    let dev = dev(dir.path(), &null, settings(None, 4)).await;

    let not_a_provider = wat::parse_str("(component)").unwrap();
    for (broken, expected) in [
        (b"not wasm at all".to_vec(), "not a WebAssembly file"),
        (not_a_provider, "does not export"),
    ] {
        write_in_place(&dev.path, &broken);
        // Nothing observable changes on a failed reload except the queued warning: wait for it.
        let deadline = Instant::now() + Duration::from_secs(60);
        let diagnostics = loop {
            let diagnostics = dev.validate_provider_config(empty_object()).await;
            if !diagnostics.is_empty() || Instant::now() > deadline {
                break diagnostics;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        assert_eq!(summaries(&diagnostics), vec![reload::RELOAD_FAILED], "{diagnostics:#?}");
        assert_eq!(diagnostics[0].severity, pb::diagnostic::Severity::Warning as i32);
        assert!(diagnostics[0].detail.contains(expected), "{}", diagnostics[0].detail);
        assert!(
            diagnostics[0].detail.contains("previous build keeps serving"),
            "{}",
            diagnostics[0].detail
        );

        // The old build still serves, and the warning was given once.
        assert_eq!(dev.live.generation(), 1);
        assert!(dev.schema().await.resource_schemas.contains_key("null_resource"));
        assert!(dev.validate_provider_config(empty_object()).await.is_empty());
    }

    // A good build after broken ones is swapped in.
    rename_over(&dev.path, &rebuilt(&null, "fixed"));
    assert_eq!(dev.wait_past(1).await, 2);
}

/// ≥ 20 swaps while ≥ 1000 calls run 16 at a time; no call may fail. The calls read a
/// `null_resource` (which needs a configured provider, so every new build's instances are
/// configured by replay while the calls run) and validate the provider configuration.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reloads_under_load_fail_no_call() {
    const SWAPS: u64 = 20;
    const CALLS: usize = 1000;
    const CONCURRENCY: usize = 16;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let null = std::fs::read(component("null_provider")).unwrap();
    // Two builds alternate; after the first round both come from the compiled-component
    // cache, so the swaps come quickly while the calls run.
    let builds = [null.clone(), rebuilt(&null, "b")];
    let dev = Arc::new(dev(dir.path(), &builds[0], settings(Some(&cache), 8)).await);
    dev.configure(empty_object()).await;

    let resource_type = Type::object([("id", Type::String), ("triggers", Type::map(Type::String))]);
    let state = msgpack(
        &Value::Object(BTreeMap::from([
            ("id".to_string(), Value::string("42")),
            ("triggers".to_string(), Value::Null),
        ])),
        &resource_type,
    );

    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|worker| {
            let (dev, stop, calls, failures, state) =
                (dev.clone(), stop.clone(), calls.clone(), failures.clone(), state.clone());
            tokio::spawn(async move {
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    let failure = if (worker + n).is_multiple_of(4) {
                        let diagnostics = dev.validate_provider_config(empty_object()).await;
                        (!diagnostics.is_empty())
                            .then(|| format!("ValidateProviderConfig: {diagnostics:?}"))
                    } else {
                        let request = pb::read_resource::Request {
                            type_name: "null_resource".into(),
                            current_state: Some(pb::DynamicValue {
                                msgpack: state.clone(),
                                json: vec![],
                            }),
                            ..Default::default()
                        };
                        match dev.service.read_resource(Request::new(request)).await {
                            Ok(r) => {
                                let r = r.into_inner();
                                match (r.diagnostics.is_empty(), r.new_state) {
                                    (true, Some(s)) if s.msgpack == state => None,
                                    (_, s) => Some(format!(
                                        "ReadResource: {:?}, state {s:?}",
                                        r.diagnostics
                                    )),
                                }
                            }
                            Err(status) => Some(format!("ReadResource: {status}")),
                        }
                    };
                    if let Some(f) = failure {
                        failures.lock().unwrap().push(f);
                    }
                    calls.fetch_add(1, Ordering::Relaxed);
                    n += 1;
                }
            })
        })
        .collect();

    let started_calls = calls.load(Ordering::Relaxed);
    let mut generation = 1;
    let mut swaps = 0;
    while swaps < SWAPS || calls.load(Ordering::Relaxed) - started_calls < CALLS {
        let next = &builds[(swaps as usize + 1) % 2];
        if swaps % 2 == 0 {
            rename_over(&dev.path, next);
        } else {
            write_in_place(&dev.path, next);
        }
        generation = dev.wait_past(generation).await;
        swaps += 1;
        assert!(swaps < 1000, "the calls are not making progress");
    }
    let during = calls.load(Ordering::Relaxed) - started_calls;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.unwrap();
    }
    let failures = failures.lock().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} calls failed; first: {}",
        failures.len(),
        calls.load(Ordering::Relaxed),
        failures[0]
    );
    assert!(swaps >= SWAPS && during >= CALLS, "{swaps} swaps, {during} calls");
    eprintln!(
        "hot reload under load: {swaps} swaps during {during} calls ({CONCURRENCY} at a time), none failed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reload_reports_what_changed_in_the_schema_and_skips_an_unchanged_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("provider.wasm");
    let null = std::fs::read(component("null_provider")).unwrap();
    std::fs::write(&path, &null).unwrap();
    let runtime = Runtime::from_bytes(&null, &path, settings(None, 2)).unwrap();
    let provider = Dispatcher::start(Arc::new(runtime)).await.unwrap();
    let live = LiveProvider::new(Arc::new(provider), reload::digest(&null));
    let reloader = Reloader::new(live.clone(), path.clone(), settings(None, 2));

    // The same bytes (a build tool touched the file): nothing to do.
    assert!(matches!(reloader.reload().await.unwrap(), reload::ReloadOutcome::Unchanged));
    assert_eq!(live.generation(), 1);

    std::fs::write(&path, std::fs::read(component("random_provider")).unwrap()).unwrap();
    let reload::ReloadOutcome::Swapped { generation, changes, .. } =
        reloader.reload().await.unwrap()
    else {
        panic!("the new build was not swapped in");
    };
    assert_eq!(generation, 2);
    for expected in [
        "resource null_resource removed",
        "data source null_data_source removed",
        "resource random_string added",
    ] {
        assert!(changes.iter().any(|c| c == expected), "{expected:?} missing from {changes:#?}");
    }
    assert!(
        changes.iter().any(|c| c.starts_with("function ") && c.ends_with(" added")),
        "{changes:#?}"
    );
}

/// The same through the real thing: the `terrarium dev` executable, its plaintext Unix socket
/// (as Terraform reattaches to it), gRPC calls 16 at a time, and new builds renamed over the
/// component file ≥ 20 times while ≥ 1000 calls run. No call may fail.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reloads_under_load_through_the_dev_server_fail_no_call() {
    use pb::provider_client::ProviderClient;
    use tokio::io::AsyncBufReadExt as _;

    const SWAPS: usize = 20;
    const CALLS: usize = 1000;
    const CONCURRENCY: usize = 16;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("provider.wasm");
    let faulty = std::fs::read(component("faulty_provider")).unwrap();
    std::fs::write(&path, &faulty).unwrap();
    let log = dir.path().join("dev.log");
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_terrarium"))
        .args(["dev", "--source", "example/faulty", "--no-cache"])
        .arg(&path)
        .env("TERRARIUM_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .kill_on_drop(true)
        .spawn()
        .expect("start terrarium dev");
    let mut stdout = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(120), stdout.next_line())
        .await
        .expect("terrarium dev prints its reattach line")
        .unwrap()
        .expect("a first line");
    let reattach: serde_json::Value = serde_json::from_str(
        first
            .strip_prefix("export TF_REATTACH_PROVIDERS='")
            .and_then(|l| l.strip_suffix('\''))
            .expect("an export line"),
    )
    .unwrap();
    let socket = PathBuf::from(reattach["example/faulty"]["Addr"]["String"].as_str().unwrap());

    let channel = tonic::transport::Endpoint::from_static("http://unused")
        .connect_with_connector(UnixConnector(socket.clone()))
        .await
        .expect("connect to the dev server's socket");
    let client = ProviderClient::new(channel);
    let configure = pb::configure_provider::Request {
        terraform_version: "1.15.5".into(),
        config: Some(pb::DynamicValue { msgpack: empty_object(), json: vec![] }),
        ..Default::default()
    };
    let configured = client.clone().configure_provider(configure).await.unwrap().into_inner();
    assert!(configured.diagnostics.is_empty(), "{:?}", configured.diagnostics);
    // A reload may change the schema, so in dev mode Terraform must fetch it in every
    // provider process (`terrarium serve` declares it optional).
    let schema = client
        .clone()
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let capabilities = schema.server_capabilities.expect("server capabilities");
    assert!(!capabilities.get_provider_schema_optional);

    let ty = Type::object(["id", "mode", "value"].map(|n| (n, Type::String)));
    let thing = |id: Value, value: Value| {
        Value::Object(BTreeMap::from([
            ("id".to_string(), id),
            ("mode".to_string(), Value::string("ok")),
            ("value".to_string(), value),
        ]))
    };
    let dv = |v: &Value| Some(pb::DynamicValue { msgpack: msgpack(v, &ty), json: vec![] });
    let apply = pb::apply_resource_change::Request {
        type_name: "faulty_thing".into(),
        prior_state: dv(&Value::Null),
        planned_state: dv(&thing(Value::unknown(), Value::unknown())),
        config: dv(&thing(Value::Null, Value::Null)),
        ..Default::default()
    };

    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let (mut client, stop, calls, failures, apply) =
                (client.clone(), stop.clone(), calls.clone(), failures.clone(), apply.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let failure = match client.apply_resource_change(apply.clone()).await {
                        Ok(r)
                            if r.get_ref().diagnostics.is_empty()
                                && r.get_ref().new_state.is_some() =>
                        {
                            None
                        }
                        Ok(r) => Some(format!("{:?}", r.into_inner().diagnostics)),
                        Err(status) => Some(status.to_string()),
                    };
                    if let Some(f) = failure {
                        failures.lock().unwrap().push(f);
                    }
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();

    let reloads =
        |log: &Path| std::fs::read_to_string(log).unwrap_or_default().matches("reloaded:").count();
    let mut swaps = 0;
    while swaps < SWAPS || calls.load(Ordering::Relaxed) < CALLS {
        rename_over(&path, &rebuilt(&faulty, &format!("swap-{swaps}")));
        let deadline = Instant::now() + Duration::from_secs(120);
        while reloads(&log) <= swaps {
            assert!(
                Instant::now() < deadline,
                "no reload logged\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        swaps += 1;
        assert!(swaps < 1000, "the calls are not making progress");
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.unwrap();
    }
    let total = calls.load(Ordering::Relaxed);
    // Taken out of the mutex at once: the guard must not be held across the awaits below.
    let failures = std::mem::take(&mut *failures.lock().unwrap());
    assert!(
        failures.is_empty(),
        "{} of {total} calls failed; first: {}",
        failures.len(),
        failures[0]
    );
    eprintln!(
        "terrarium dev under load: {swaps} reloads during {total} gRPC calls ({CONCURRENCY} at a time), none failed"
    );

    // SIGINT, as Ctrl-C sends: the server stops and removes its socket.
    let pid = server.id().expect("still running").to_string();
    let sent = std::process::Command::new("kill").args(["-INT", &pid]).status().expect("run kill");
    assert!(sent.success(), "kill -INT {pid}: {sent}");
    let status = tokio::time::timeout(Duration::from_secs(10), server.wait())
        .await
        .expect("stops on SIGINT")
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(!socket.exists(), "the socket was left behind");
}

/// Dials a Unix socket in plaintext, as Terraform does for a reattached provider.
#[derive(Clone)]
struct UnixConnector(PathBuf);

impl tonic::codegen::Service<tonic::codegen::http::Uri> for UnixConnector {
    type Response = hyper_util::rt::TokioIo<tokio::net::UnixStream>;
    type Error = std::io::Error;
    type Future =
        std::pin::Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: tonic::codegen::http::Uri) -> Self::Future {
        let socket = self.0.clone();
        Box::pin(async move {
            Ok(hyper_util::rt::TokioIo::new(tokio::net::UnixStream::connect(socket).await?))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_a_working_build_calls_say_why_until_one_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("provider.wasm");
    let live = LiveProvider::failed("no working build of provider.wasm yet: it does not exist");
    let service = live.service();
    let reloader = Reloader::new(live.clone(), path.clone(), settings(None, 2));

    let response =
        service.get_provider_schema(Request::new(Default::default())).await.unwrap().into_inner();
    assert_eq!(summaries(&response.diagnostics), vec!["Failed to load the provider component"]);
    assert!(
        response.diagnostics[0].detail.contains("does not exist"),
        "{:?}",
        response.diagnostics
    );

    std::fs::write(&path, std::fs::read(component("null_provider")).unwrap()).unwrap();
    let reload::ReloadOutcome::Swapped { generation, changes, .. } =
        reloader.reload().await.unwrap()
    else {
        panic!("the first working build was not swapped in");
    };
    assert_eq!((generation, changes), (1, vec!["first working build".to_string()]));
    let response =
        service.get_provider_schema(Request::new(Default::default())).await.unwrap().into_inner();
    assert!(response.diagnostics.is_empty(), "{:?}", response.diagnostics);
    assert!(response.resource_schemas.contains_key("null_resource"));
}

/// A build read while a tool was still writing it in place fails to load; when the file has
/// changed by then, the reloader loads the finished build instead of reporting a broken one
/// (seen as a rare failed call in `reloads_under_load_fail_no_call` on a busy machine).
#[test]
fn a_build_read_mid_write_is_read_again_once_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("provider.wasm");
    let whole = std::fs::read(component("null_provider")).unwrap();
    let half = whole[..whole.len() / 2].to_vec();
    let settings = RuntimeSettings { compiler: Compiler::Baseline, ..settings(None, 1) };

    // What the reader saw (half a build) differs from the file now (the whole build).
    std::fs::write(&path, &whole).unwrap();
    let loaded = reload::load_settled(&path, half.clone(), None, &settings, Duration::ZERO)
        .expect("the finished build loads");
    let (_, digest) = loaded.expect("a new build");
    assert_eq!(digest, reload::digest(&whole));

    // A build that is broken as it stands on disk is still reported.
    std::fs::write(&path, &half).unwrap();
    let error = reload::load_settled(&path, half, None, &settings, Duration::ZERO)
        .err()
        .expect("half a build does not load");
    assert!(!error.to_string().is_empty());
}

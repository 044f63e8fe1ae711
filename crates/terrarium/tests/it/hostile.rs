//! The hostile suite: a guest (`tests/guests/hostile`, built by `make build`) tries to read
//! files outside its grants, read environment variables, reach ungranted hosts and open raw
//! sockets, loop, sleep, allocate and recurse without end, return enormous and malformed
//! values, and panic in every RPC. Every attempt must be refused or stopped with a clear
//! diagnostic, and the host must keep serving. The suite prints a table of what was tried.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use terrarium_codec as codec;
use terrarium_core::Dispatcher;
use terrarium_core::types::{
    ApplyResourceChangeRequest, ConfigureRequest, ImportResourceStateRequest,
    PlanResourceChangeRequest, ReadDataSourceRequest, ReadResourceRequest,
    UpgradeResourceStateRequest,
};
use terrarium_model::{Diagnostic, Type, Value};
use terrarium_runtime::sandbox::{ByteSize, Grants, Limits};
use terrarium_runtime::{Runtime, RuntimeSettings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::served::hostile;

/// What was tried and what came of it, printed at the end.
#[derive(Default)]
struct Tally {
    rows: Vec<(String, String)>,
}

impl Tally {
    fn record(&mut self, attempt: impl Into<String>, outcome: impl Into<String>) {
        let outcome: String = outcome.into();
        let first_line =
            outcome.lines().next().unwrap_or_default().chars().take(110).collect::<String>();
        self.rows.push((attempt.into(), first_line));
    }

    fn print(&self) {
        let width = self.rows.iter().map(|(a, _)| a.len()).max().unwrap_or(0);
        println!(
            "\nhostile suite: {} attempts, every one refused or stopped, host still serving",
            self.rows.len()
        );
        for (attempt, outcome) in &self.rows {
            println!("  {attempt:width$}  -> {outcome}");
        }
    }
}

async fn start(grants: Grants, cache: &Path) -> Dispatcher {
    start_with(settings(grants, cache)).await
}

/// Settings with these grants, opened as a provider start opens them.
fn settings(grants: Grants, cache: &Path) -> RuntimeSettings {
    let mut settings =
        RuntimeSettings { cache_dir: Some(cache.to_path_buf()), ..RuntimeSettings::default() };
    terrarium::commands::serve::apply_grants(&mut settings, grants, &[])
        .expect("grants are usable");
    settings
}

async fn start_with(settings: RuntimeSettings) -> Dispatcher {
    let runtime = Runtime::load(&hostile(), settings).expect("fixture loads");
    Dispatcher::start(Arc::new(runtime)).await.expect("fixture starts")
}

fn probe_type(p: &Dispatcher) -> Type {
    p.schema().resources["hostile_probe"].block.implied_type()
}

fn probe_value(attack: &str, target: &str, id: Value, result: Value) -> Value {
    Value::Object(BTreeMap::from([
        ("attack".to_string(), Value::string(attack)),
        ("target".to_string(), if target.is_empty() { Value::Null } else { Value::string(target) }),
        ("id".to_string(), id),
        ("result".to_string(), result),
    ]))
}

/// `v` as the core takes it (as Terraform's wire format carries it).
fn encode(p: &Dispatcher, v: &Value) -> Value {
    codec::canonical(v, &probe_type(p)).expect("encodable")
}

/// Applies a probe; returns the `result` it reported, or its diagnostics.
async fn probe(p: &Dispatcher, attack: &str, target: &str) -> Result<String, Vec<Diagnostic>> {
    let planned = probe_value(attack, target, Value::unknown(), Value::unknown());
    let config = probe_value(attack, target, Value::Null, Value::Null);
    let request = ApplyResourceChangeRequest {
        type_name: "hostile_probe".into(),
        prior_state: Value::Null,
        planned_state: encode(p, &planned),
        config: encode(p, &config),
        ..Default::default()
    };
    // A hang here is a sandbox failure, not a slow test: bound it.
    let out = tokio::time::timeout(Duration::from_secs(60), p.apply_resource_change(&request))
        .await
        .unwrap_or_else(|_| panic!("attack {attack:?} was not stopped within 60 s"));
    if !out.diagnostics.is_empty() {
        return Err(out.diagnostics);
    }
    let state = out.new_state.expect("a state when there are no diagnostics");
    match state {
        Value::Object(mut o) => match o.remove("result") {
            Some(Value::String(s)) => Ok(s),
            other => panic!("result is not a string: {other:?}"),
        },
        other => panic!("state is not an object: {other:?}"),
    }
}

fn single_error(attack: &str, diags: &[Diagnostic]) -> Diagnostic {
    assert_eq!(diags.len(), 1, "{attack}: expected one diagnostic, got {diags:#?}");
    assert!(diags[0].is_error(), "{attack}: {:?}", diags[0]);
    diags[0].clone()
}

/// The guest saw an error (the sandbox refused), and reported it as a diagnostic.
async fn expect_refused(
    p: &Dispatcher,
    tally: &mut Tally,
    attack: &str,
    target: &str,
) -> Diagnostic {
    match probe(p, attack, target).await {
        Ok(leak) => panic!("{attack} {target}: the sandbox let it through: {leak}"),
        Err(diags) => {
            // The host's own warning, when the file system refused: kept apart.
            let (host, guest): (Vec<_>, Vec<_>) =
                diags.into_iter().partition(|d| d.summary == SANDBOX_REFUSED);
            let d = single_error(attack, &guest);
            assert!(d.summary.starts_with("refused:"), "{attack}: {d:?}");
            let said: String =
                host.iter().map(|w| format!("; the host warned: {}", w.detail)).collect();
            tally.record(format!("{attack} {target}"), format!("refused: {}{}", d.detail, said));
            d
        }
    }
}

/// The summary of the host's warning that lists what the sandbox's file system refused.
const SANDBOX_REFUSED: &str = "The sandbox refused a file operation";

/// The host's warning for `attack` on `target`, which must be refused.
async fn host_warning(p: &Dispatcher, attack: &str, target: &str) -> String {
    let diags = probe(p, attack, target).await.expect_err("refused");
    let warning = diags
        .iter()
        .find(|d| d.summary == SANDBOX_REFUSED)
        .unwrap_or_else(|| panic!("{attack} {target}: no warning from the host: {diags:#?}"));
    assert!(!warning.is_error(), "{warning:?}");
    warning.detail.clone()
}

async fn expect_allowed(p: &Dispatcher, tally: &mut Tally, attack: &str, target: &str) -> String {
    let got = probe(p, attack, target)
        .await
        .unwrap_or_else(|d| panic!("{attack} {target} was granted: {d:#?}"));
    tally.record(format!("{attack} {target} (granted)"), format!("allowed: {got}"));
    got
}

/// The host stopped the guest: one error diagnostic with this summary.
async fn expect_stopped(
    p: &Dispatcher,
    tally: &mut Tally,
    attack: &str,
    summary: &str,
) -> Diagnostic {
    let diags = probe(p, attack, "").await.expect_err("the host must stop this");
    let d = single_error(attack, &diags);
    assert_eq!(d.summary, summary, "{attack}: {d:#?}");
    assert!(
        d.detail.contains("ApplyResourceChange for resource \"hostile_probe\""),
        "{attack}: {}",
        d.detail
    );
    tally.record(attack, format!("{}: {}", d.summary, d.detail));
    d
}

/// A one-response HTTP server on loopback that counts the connections it accepted. It answers
/// `/redirect` with a redirect to `redirect_to`, anything else with 200.
async fn http_server(redirect_to: Option<String>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let redirect_to = redirect_to.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let asked_redirect = buf[..n].starts_with(b"GET /redirect ");
                let response = match (&redirect_to, asked_redirect) {
                    (Some(to), true) => format!(
                        "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    ),
                    _ => "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
                        .to_string(),
                };
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    (addr, accepted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hostile_suite_is_refused_or_stopped_and_the_host_keeps_serving() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let root = scratch.path().canonicalize().expect("canonical tempdir");
    let cache = root.join("cache");
    let ro = root.join("granted-ro");
    let rw = root.join("granted-rw");
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::create_dir_all(&rw).unwrap();
    std::fs::write(ro.join("readable.txt"), "granted content").unwrap();
    std::fs::write(root.join("outside.txt"), "must stay invisible").unwrap();
    // SAFETY: set before any thread of this test reads the environment; the names are unique
    // to this test, so parallel tests that read others are unaffected.
    unsafe {
        std::env::set_var("HOSTILE_TEST_GRANTED", "visible");
        std::env::set_var("HOSTILE_TEST_SECRET", "must-not-leak");
    }
    let (ungranted, ungranted_hits) = http_server(None).await;
    let (granted, granted_hits) = http_server(Some(format!("http://{ungranted}/stolen"))).await;

    let grants = Grants {
        http: vec![format!("http://{granted}").parse().unwrap()],
        dirs: vec![
            format!("{}:ro", ro.display()).parse().unwrap(),
            format!("{}:rw", rw.display()).parse().unwrap(),
        ],
        env: vec!["HOSTILE_TEST_GRANTED".into()],
        limits: Limits {
            memory: Some(ByteSize(64 << 20)),
            timeout: Some(Duration::from_secs(2)),
            http_response: None,
            total_memory: None,
        },
    };
    let p = start(grants, &cache).await;
    let mut tally = Tally::default();

    // Files: nothing outside the grants exists; read-only means read-only; no escape by '..'.
    let outside = root.join("outside.txt");
    expect_refused(&p, &mut tally, "read-file", &outside.display().to_string()).await;
    expect_refused(&p, &mut tally, "read-file", "/etc/passwd").await;
    expect_refused(&p, &mut tally, "list-dir", "/").await;
    expect_refused(&p, &mut tally, "list-dir", &root.display().to_string()).await;
    expect_refused(&p, &mut tally, "write-file", &ro.join("new.txt").display().to_string()).await;
    expect_refused(&p, &mut tally, "write-file", &format!("{}/../escaped.txt", rw.display())).await;
    expect_refused(&p, &mut tally, "read-file", &format!("{}/../outside.txt", ro.display())).await;
    assert!(!root.join("escaped.txt").exists() && !ro.join("new.txt").exists());
    // What a person is told (issue 28): the path, and the grant that would allow it.
    let said = host_warning(&p, "read-file", &outside.display().to_string()).await;
    let wanted = format!(
        "open of {} was refused: it is outside every directory granted to the provider; a grant \
         of {} (`--allow-dir {}:ro`) would allow it",
        outside.display(),
        root.display(),
        root.display()
    );
    assert!(said.contains(&wanted) && said.contains("terrarium install --force"), "{said}");
    let said = host_warning(&p, "list-dir", "/etc").await;
    assert!(said.contains("open of /etc was refused") && said.contains("`--allow-dir /etc:ro`"));
    let said = host_warning(&p, "write-file", &ro.join("new.txt").display().to_string()).await;
    let wanted = format!(
        "open for writing of {} was refused: the provider's grant of {} is read-only; \
         `--allow-dir {}:rw` would allow it",
        ro.join("new.txt").display(),
        ro.display(),
        ro.display()
    );
    assert!(said.contains(&wanted), "{said}");
    let said = host_warning(&p, "mkdir", &ro.join("sub").display().to_string()).await;
    assert!(said.contains(&format!("`--allow-dir {}:rw`", ro.display())), "{said}");
    let read =
        expect_allowed(&p, &mut tally, "read-file", &ro.join("readable.txt").display().to_string())
            .await;
    assert_eq!(read, "read 15 bytes");
    expect_allowed(&p, &mut tally, "write-file", &rw.join("written.txt").display().to_string())
        .await;
    assert_eq!(std::fs::read_to_string(rw.join("written.txt")).unwrap(), "hostile was here");

    // Environment: only granted variables exist.
    expect_refused(&p, &mut tally, "env", "HOSTILE_TEST_SECRET").await;
    expect_refused(&p, &mut tally, "env", "PATH").await;
    assert_eq!(expect_allowed(&p, &mut tally, "env", "HOSTILE_TEST_GRANTED").await, "visible");
    assert_eq!(expect_allowed(&p, &mut tally, "env-all", "").await, "HOSTILE_TEST_GRANTED");

    // Network: only granted origins, and nothing reaches an ungranted one.
    let d = expect_refused(&p, &mut tally, "http", &format!("http://{ungranted}/")).await;
    assert!(d.detail.contains("HttpRequestDenied"), "{}", d.detail);
    let d = expect_refused(&p, &mut tally, "http", &format!("https://{granted}/")).await;
    assert!(
        d.detail.contains("HttpRequestDenied"),
        "another scheme is another origin: {}",
        d.detail
    );
    expect_refused(&p, &mut tally, "http", "http://169.254.169.254/latest/meta-data/").await;
    assert_eq!(
        expect_allowed(&p, &mut tally, "http", &format!("http://{granted}/")).await,
        "status 200"
    );
    // A granted server cannot redirect the provider to an ungranted one: the second request
    // is checked like the first.
    let d =
        expect_refused(&p, &mut tally, "http-follow", &format!("http://{granted}/redirect")).await;
    assert!(d.detail.contains("HttpRequestDenied"), "{}", d.detail);
    assert_eq!(ungranted_hits.load(Ordering::SeqCst), 0, "a refused request reached the network");
    assert_eq!(granted_hits.load(Ordering::SeqCst), 2);
    expect_refused(&p, &mut tally, "tcp", &granted.to_string()).await;
    assert_eq!(
        granted_hits.load(Ordering::SeqCst),
        2,
        "raw sockets are off, even to granted hosts"
    );

    // Limits: each named, with the grant or setting that raises it.
    let started = Instant::now();
    let d = expect_stopped(&p, &mut tally, "loop", "Provider timed out").await;
    assert!(started.elapsed() < Duration::from_secs(30), "the loop was not interrupted in time");
    assert!(
        d.detail.contains("time limit of 2s") && d.detail.contains("--timeout"),
        "{}",
        d.detail
    );
    let started = Instant::now();
    let d = expect_stopped(&p, &mut tally, "sleep", "Provider timed out").await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "a guest blocked in the host was not interrupted"
    );
    assert!(d.detail.contains("--timeout"), "{}", d.detail);
    let d = expect_stopped(&p, &mut tally, "alloc", "Provider exceeded a resource limit").await;
    assert!(d.detail.contains("64MiB") && d.detail.contains("--memory"), "{}", d.detail);
    let d = expect_stopped(&p, &mut tally, "recurse", "Provider exceeded its stack limit").await;
    assert!(d.detail.contains("stack"), "{}", d.detail);

    // Enormous and malformed values never reach Terraform.
    for attack in ["huge-value", "cyclic-value", "dangling-value"] {
        let diags = probe(&p, attack, "").await.expect_err("refused");
        let d = single_error(attack, &diags);
        assert_eq!(d.summary, "Provider returned an invalid value", "{attack}: {d:#?}");
        tally.record(attack, format!("{}: {}", d.summary, d.detail));
    }

    // Panics in every RPC: each a "Provider crashed" naming the RPC.
    let crashed = |rpc: &str, diags: &[Diagnostic], tally: &mut Tally| {
        let d = single_error(rpc, diags);
        assert_eq!(d.summary, "Provider crashed", "{rpc}: {d:#?}");
        assert!(
            d.detail.contains(rpc) && d.detail.contains(&format!("deliberate panic in {rpc}")),
            "{}",
            d.detail
        );
        tally.record(format!("panic in {rpc}"), format!("{}: {}", d.summary, d.detail));
    };
    for rpc in ["PlanResourceChange", "ApplyResourceChange"] {
        let planned = probe_value(&format!("panic:{rpc}"), "", Value::unknown(), Value::unknown());
        let config = probe_value(&format!("panic:{rpc}"), "", Value::Null, Value::Null);
        let diags = if rpc == "PlanResourceChange" {
            let request = PlanResourceChangeRequest {
                type_name: "hostile_probe".into(),
                proposed_new_state: encode(&p, &config),
                config: encode(&p, &config),
                ..Default::default()
            };
            p.plan_resource_change(&request).await.diagnostics
        } else {
            let request = ApplyResourceChangeRequest {
                type_name: "hostile_probe".into(),
                planned_state: encode(&p, &planned),
                config: encode(&p, &config),
                ..Default::default()
            };
            p.apply_resource_change(&request).await.diagnostics
        };
        crashed(rpc, &diags, &mut tally);
    }
    let config = probe_value("panic:ValidateResourceConfig", "", Value::Null, Value::Null);
    let diags =
        p.validate_resource_config("hostile_probe", &encode(&p, &config), Default::default()).await;
    crashed("ValidateResourceConfig", &diags, &mut tally);
    let state = probe_value("panic:ReadResource", "", Value::string("x"), Value::string("y"));
    let request = ReadResourceRequest {
        type_name: "hostile_probe".into(),
        current_state: encode(&p, &state),
        ..Default::default()
    };
    crashed("ReadResource", &p.read_resource(&request).await.diagnostics, &mut tally);
    let request = ImportResourceStateRequest {
        type_name: "hostile_probe".into(),
        id: "panic:ImportResourceState".into(),
        ..Default::default()
    };
    crashed(
        "ImportResourceState",
        &p.import_resource_state(&request).await.diagnostics,
        &mut tally,
    );
    let request = UpgradeResourceStateRequest {
        type_name: "hostile_probe".into(),
        version: 0,
        raw_state: codec::decode_json_untyped(
            br#"{"attack":"panic:UpgradeResourceState","target":null,"id":"x","result":"y"}"#,
        )
        .expect("JSON"),
    };
    crashed(
        "UpgradeResourceState",
        &p.upgrade_resource_state(&request).await.diagnostics,
        &mut tally,
    );
    let data_type = p.schema().data_sources["hostile_data"].block.implied_type();
    let data = Value::Object(BTreeMap::from([("result".to_string(), Value::Null)]));
    let request = ReadDataSourceRequest {
        type_name: "hostile_data".into(),
        config: codec::canonical(&data, &data_type).unwrap(),
        ..Default::default()
    };
    crashed("ReadDataSource", &p.read_data_source(&request).await.diagnostics, &mut tally);
    let out = p.call_function("boom", &[]).await;
    let error = out.error.expect("a function error");
    assert!(
        out.result.is_none() && error.text.contains("deliberate panic in CallFunction"),
        "{error:?}"
    );
    tally.record("panic in CallFunction", error.text.clone());
    let provider_type = p.schema().provider.block.implied_type();
    let provider_config = |rpc: &str| {
        let v = Value::Object(BTreeMap::from([
            ("panic_in".to_string(), Value::string(rpc)),
            ("hang_in".to_string(), Value::Null),
        ]));
        codec::canonical(&v, &provider_type).unwrap()
    };
    crashed(
        "ValidateProviderConfig",
        &p.validate_provider_config(&provider_config("ValidateProviderConfig")).await,
        &mut tally,
    );
    let request =
        ConfigureRequest { config: provider_config("ConfigureProvider"), ..Default::default() };
    crashed("ConfigureProvider", &p.configure(&request).await, &mut tally);

    // After all that, the same provider still serves.
    let read = probe(&p, "read-file", &ro.join("readable.txt").display().to_string()).await;
    assert_eq!(read.as_deref().ok(), Some("read 15 bytes"), "the host keeps serving: {read:?}");

    // StopProvider after a configuration that makes the guest's stop panic: an error text,
    // not a host crash.
    let request =
        ConfigureRequest { config: provider_config("StopProvider"), ..Default::default() };
    assert!(p.configure(&request).await.is_empty());
    let stop_error = p.stop().await.expect("the panic is reported");
    assert!(
        stop_error.contains("deliberate panic in StopProvider") || stop_error.contains("crashed"),
        "{stop_error}"
    );
    tally.record("panic in StopProvider", stop_error);

    // GetProviderSchema: a provider that cannot say its schema does not start, with a reason.
    // SAFETY: as above; only this test reads this name.
    unsafe { std::env::set_var("HOSTILE_PANIC_IN_SCHEMA", "1") };
    let grants = Grants { env: vec!["HOSTILE_PANIC_IN_SCHEMA".into()], ..Grants::default() };
    let runtime = Runtime::load(&hostile(), settings(grants, &cache)).expect("loads");
    let error = Dispatcher::start(Arc::new(runtime)).await.err().expect("cannot start").to_string();
    assert!(error.contains("deliberate panic in GetProviderSchema"), "{error}");
    tally.record("panic in GetProviderSchema", error);

    tally.print();
    assert!(tally.rows.len() >= 30, "the suite tried {} things", tally.rows.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_out_of_a_granted_directory_are_refused_and_a_swapped_grant_stays_put() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let root = scratch.path().canonicalize().expect("canonical tempdir");
    let rw = root.join("granted-rw");
    std::fs::create_dir_all(rw.join("sub")).unwrap();
    std::fs::write(rw.join("mine.txt"), "mine").unwrap();
    let grants =
        Grants { dirs: vec![format!("{}:rw", rw.display()).parse().unwrap()], ..Grants::default() };
    let settings = settings(grants.clone(), &root.join("cache"));
    let p = start_with(settings.clone()).await;
    let mut tally = Tally::default();
    let link = |name: &str, to: &str| format!("{} -> {to}", rw.join(name).display());

    // wasmtime-wasi refuses absolute targets itself; relative ones that climb out are the
    // host's to refuse, however they are spelt.
    for (name, to) in [
        ("up", "../../../../../../../.."),
        ("hidden", "sub/../.."),
        ("dot", "./../x"),
        ("abs", "/"),
    ] {
        let d = expect_refused(&p, &mut tally, "symlink", &link(name, to)).await;
        assert!(d.detail.contains("not-permitted"), "{name}: {}", d.detail);
        assert!(std::fs::symlink_metadata(rw.join(name)).is_err(), "the link {name} was made");
    }
    // A link below its own directory is fine.
    assert_eq!(expect_allowed(&p, &mut tally, "symlink", &link("down", "sub")).await, "linked");
    assert_eq!(std::fs::read_link(rw.join("down")).unwrap(), Path::new("sub"));

    // The granted directory is swapped for a link to `/` behind the provider's back (what a
    // guest did before links were checked, or any other process): new instances still get
    // the directory opened at the start, never a new lookup of its path.
    std::fs::rename(&rw, root.join("moved-away")).unwrap();
    std::os::unix::fs::symlink("/", &rw).unwrap();
    let fresh = start_with(settings).await;
    let read = probe(&fresh, "read-file", &rw.join("mine.txt").display().to_string()).await;
    assert_eq!(read.as_deref().ok(), Some("read 4 bytes"), "{read:?}");
    expect_refused(&fresh, &mut tally, "read-file", &rw.join("etc/passwd").display().to_string())
        .await;
    // A provider started now (the next process) refuses the grant: it names a link.
    let mut next = RuntimeSettings::default();
    let err = terrarium::commands::serve::apply_grants(&mut next, grants, &[]).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    tally.record("start with a granted directory swapped for a link", err.to_string());
    tally.print();
}

#[test]
fn a_cache_entry_of_another_component_is_rebuilt_not_run() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = scratch.path().join("cache");
    let settings =
        || RuntimeSettings { cache_dir: Some(cache.clone()), ..RuntimeSettings::default() };
    let entries = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
            .collect()
    };
    Runtime::load(&crate::served::faulty(), settings()).expect("faulty loads");
    let faulty_entry = entries().pop().expect("faulty's entry");
    Runtime::load(&hostile(), settings()).expect("hostile loads");
    let hostile_entry =
        entries().into_iter().find(|e| *e != faulty_entry).expect("hostile's entry");
    // A provider that could write the cache puts another component's entry (valid on its own:
    // artifact and tag) in place of its own: the next start must run the component the lock
    // file names.
    for extension in ["cwasm", "tag"] {
        let target = hostile_entry.with_extension(extension);
        std::fs::remove_file(&target).unwrap();
        std::fs::copy(faulty_entry.with_extension(extension), &target).unwrap();
    }
    let runtime = Runtime::load(&hostile(), settings()).expect("hostile loads");
    // The fixtures differ in what they import: only the hostile one asks for wasi:http.
    let imports = runtime.imports();
    assert!(
        imports.iter().any(|i| i.starts_with("wasi:http/outgoing-handler")),
        "the loaded code is not hostile's: {imports:?}"
    );
    let faulty_imports = Runtime::load(&crate::served::faulty(), settings()).unwrap().imports();
    assert_ne!(imports, faulty_imports, "the swapped entry was run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_provider_interrupts_calls_that_ignore_it_after_the_grace_period() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let settings = RuntimeSettings {
        stop_grace: Duration::from_secs(1),
        ..settings(Grants::default(), scratch.path())
    };
    let p = Arc::new(start_with(settings).await);
    for attack in ["loop", "sleep"] {
        let running = {
            let p = p.clone();
            tokio::spawn(async move { probe(&p, attack, "").await })
        };
        // A stop reaches only calls already running: stop until this one has come back.
        while !running.is_finished() {
            tokio::time::sleep(Duration::from_millis(300)).await;
            p.stop().await;
        }
        let diags = running.await.expect("joined").expect_err("interrupted");
        let d = single_error(attack, &diags);
        assert_eq!(d.summary, "Provider stopped", "{attack}: {d:#?}");
        assert!(d.detail.contains("StopProvider"), "{}", d.detail);
        assert!(d.detail.contains("grace period of 1s"), "{}", d.detail);
        // Calls after the stop run normally.
        let after = probe(&p, "env", "HOME").await.expect_err("HOME is not granted");
        assert!(after[0].summary.starts_with("refused:"), "{after:#?}");
    }
}

#[test]
fn inspect_lists_what_the_component_could_ask_for() {
    let settings = RuntimeSettings { cache_dir: None, ..RuntimeSettings::default() };
    let runtime = Runtime::load(&hostile(), settings).expect("fixture loads");
    let imports = runtime.imports();
    for wanted in [
        "wasi:http/outgoing-handler",
        "wasi:filesystem/preopens",
        "wasi:sockets/tcp",
        "terrarium:provider/types",
        "terrarium:provider/streams",
    ] {
        assert!(imports.iter().any(|i| i.starts_with(wanted)), "{wanted} missing from {imports:?}");
    }
    let listing = terrarium::commands::inspect::imports_listing(&imports);
    let http =
        listing.lines().find(|l| l.starts_with("wasi:http/outgoing-handler")).expect("listed");
    assert!(http.contains("--allow-http"), "{http}");
    let streams =
        listing.lines().find(|l| l.starts_with("terrarium:provider/streams")).expect("listed");
    assert!(streams.contains("list results and action progress"), "{streams}");
}

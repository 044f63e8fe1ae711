//! Side-by-side benchmarks of Terrarium (the `terrarium` host serving examples/null) against
//! the Go null provider 2.1.2, in one run, on one machine. `make bench` builds what it needs
//! and runs this; BENCHMARKS.md explains every figure.
//!
//! Every comparison alternates the two providers run by run (ours, Go, Go, ours, ...) so that
//! a change in machine load hits both alike, and reports medians.
//!
//! Arguments: `--runs N` (default 5), `--sizes 1,100,1000`, `--skip-terraform`,
//! `--skip-list-stream`; `list-stream` runs only the ListResource streaming section
//! (list_stream.rs).
//! Paths come from the environment (bench/run sets them): TERRARIUM_BIN, NULL_COMPONENT,
//! FAULTY_COMPONENT, HOSTILE_COMPONENT, GO_NULL, TERRAFORM, BENCH_DIR. `list-stream` needs only
//! the host and the hostile component, and finds them next to this executable when unset.

mod list_stream;
mod plugin_client;
mod terraform;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use terrarium_model::{Type, Value};

use plugin_client::{Launch, Protocol, RunningPlugin};

/// Everything the benchmarks run.
pub struct Setup {
    terrarium: PathBuf,
    null_component: PathBuf,
    faulty_component: PathBuf,
    go_null: PathBuf,
    terraform: PathBuf,
    dir: PathBuf,
    runs: usize,
    sizes: Vec<usize>,
}

fn env_path(key: &str) -> anyhow::Result<PathBuf> {
    let p = PathBuf::from(
        std::env::var_os(key).with_context(|| format!("{key} is not set (run `make bench`)"))?,
    );
    if !p.exists() {
        bail!("{key}={} does not exist (run `make bench`, which builds it)", p.display());
    }
    Ok(p)
}

/// The command line.
struct Args {
    runs: usize,
    sizes: Vec<usize>,
    skip_terraform: bool,
    skip_list_stream: bool,
    /// `list-stream`: only the ListResource streaming section.
    only_list_stream: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut runs = 5;
    let mut sizes = vec![1, 100, 1000];
    let mut skip_terraform = false;
    let mut skip_list_stream = false;
    let mut only_list_stream = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "list-stream" => only_list_stream = true,
            "--skip-list-stream" => skip_list_stream = true,
            "--runs" => {
                runs = args.next().context("--runs needs a number")?.parse().context("--runs")?
            }
            "--sizes" => {
                sizes = args
                    .next()
                    .context("--sizes needs a list")?
                    .split(',')
                    .map(|s| s.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .context("--sizes")?
            }
            "--skip-terraform" => skip_terraform = true,
            other => bail!(
                "unknown argument {other:?} (known: list-stream, --runs N, --sizes 1,100,1000, --skip-terraform, \
                 --skip-list-stream)"
            ),
        }
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    Ok(Args { runs, sizes, skip_terraform, skip_list_stream, only_list_stream })
}

/// A build artifact: `key` from the environment, else `default` (a path in the cargo target
/// directory this executable was built into).
fn artifact_path(
    key: &str,
    default: impl FnOnce(&std::path::Path) -> PathBuf,
) -> anyhow::Result<PathBuf> {
    if std::env::var_os(key).is_some() {
        return env_path(key);
    }
    let exe = std::env::current_exe().context("the path of this executable")?;
    let profile_dir = exe.parent().context("this executable has no directory")?;
    let p = default(profile_dir);
    if !p.exists() {
        bail!(
            "{} does not exist and {key} is not set (`bench/run list-stream` builds it)",
            p.display()
        );
    }
    Ok(p)
}

fn list_setup(runs: usize) -> anyhow::Result<(list_stream::ListSetup, Option<tempfile::TempDir>)> {
    let terrarium = artifact_path("TERRARIUM_BIN", |dir| dir.join("terrarium"))?;
    let hostile_component = artifact_path("HOSTILE_COMPONENT", |dir| {
        dir.parent().unwrap_or(dir).join("wasm32-wasip2/release/hostile_provider.wasm")
    })?;
    let (dir, scratch) = match std::env::var_os("BENCH_DIR") {
        Some(dir) => (PathBuf::from(dir).join("list-stream"), None),
        None => {
            let scratch = tempfile::tempdir()?;
            (scratch.path().to_path_buf(), Some(scratch))
        }
    };
    Ok((list_stream::ListSetup { terrarium, hostile_component, dir, runs }, scratch))
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 }
}

/// One line of the result table.
pub struct Row {
    what: String,
    ours: f64,
    go: Option<f64>,
    unit: &'static str,
    /// The target and whether it is met, as text.
    target: String,
}

impl Row {
    fn ratio(&self) -> String {
        match self.go {
            Some(go) if go > 0.0 => format!("{:.2}", self.ours / go),
            _ => "-".into(),
        }
    }
}

fn fmt(v: f64, unit: &str) -> String {
    match unit {
        "s" => format!("{v:.3} s"),
        "ms" => format!("{v:.1} ms"),
        "µs" => format!("{v:.0} µs"),
        "MB" => format!("{v:.1} MB"),
        _ => format!("{v} {unit}"),
    }
}

fn print_table(rows: &[Row]) {
    println!();
    println!("| measurement | terrarium | Go null 2.1.2 | ratio | target |");
    println!("|---|---:|---:|---:|---|");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {} |",
            r.what,
            fmt(r.ours, r.unit),
            r.go.map(|g| fmt(g, r.unit)).unwrap_or_else(|| "-".into()),
            r.ratio(),
            r.target
        );
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

fn main() -> anyhow::Result<()> {
    let Args { runs, sizes, skip_terraform, skip_list_stream, only_list_stream } = parse_args()?;
    let tokio =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    if only_list_stream {
        let (list, _scratch) = list_setup(runs)?;
        return tokio.block_on(list_stream::run(&list));
    }
    let setup = Setup {
        terrarium: env_path("TERRARIUM_BIN")?,
        null_component: env_path("NULL_COMPONENT")?,
        faulty_component: env_path("FAULTY_COMPONENT")?,
        go_null: env_path("GO_NULL")?,
        terraform: env_path("TERRAFORM")?,
        dir: PathBuf::from(std::env::var_os("BENCH_DIR").context("BENCH_DIR is not set")?),
        runs,
        sizes,
    };
    // Checked before anything runs, so that a missing artifact does not cost a whole run.
    let list = if skip_list_stream { None } else { Some(list_setup(runs)?) };
    std::fs::create_dir_all(&setup.dir)?;
    let mut rows = Vec::new();

    eprintln!("== cold start (exec to handshake line, and to the first GetProviderSchema answer)");
    rows.extend(tokio.block_on(cold_start(&setup))?);
    eprintln!("== one ReadResource round trip (4 KB state, gRPC over mutual TLS)");
    rows.extend(tokio.block_on(read_resource_round_trip(&setup))?);
    eprintln!("== ten concurrent calls that each wait 200 ms in the guest");
    rows.extend(tokio.block_on(concurrent_calls(&setup))?);
    if !skip_terraform {
        rows.extend(terraform::run_all(&setup)?);
    }
    print_table(&rows);
    if let Some((list, _scratch)) = list {
        tokio.block_on(list_stream::run(&list))?;
    }
    Ok(())
}

fn ours_launch(
    setup: &Setup,
    component: &std::path::Path,
    cache_home: Option<&std::path::Path>,
) -> Launch {
    let mut launch = Launch::new(&setup.terrarium, Protocol::V6);
    launch.args = vec!["serve".into(), "--component".into(), component.as_os_str().to_owned()];
    if let Some(dir) = cache_home {
        launch.env.push(("XDG_CACHE_HOME".into(), dir.as_os_str().to_owned()));
    }
    launch
}

fn go_launch(setup: &Setup) -> Launch {
    // The Go null provider 2.1.2 (SDK v1) speaks protocol 5 only.
    Launch::new(&setup.go_null, Protocol::V5)
}

async fn cold_start(setup: &Setup) -> anyhow::Result<Vec<Row>> {
    let warm_cache = tempfile::tempdir_in(&setup.dir)?;
    // Fill the cache once.
    RunningPlugin::start(&ours_launch(setup, &setup.null_component, Some(warm_cache.path())))
        .await?
        .ready()
        .await?
        .stop()
        .await;

    let (
        mut ours_warm_hs,
        mut ours_warm_ready,
        mut ours_cold_hs,
        mut ours_cold_ready,
        mut go_hs,
        mut go_ready,
    ) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    for i in 0..setup.runs.max(5) * 2 {
        let go_first = i % 2 == 1;
        for which in if go_first { ["go", "warm", "cold"] } else { ["warm", "cold", "go"] } {
            let cold_cache;
            let launch = match which {
                "go" => go_launch(setup),
                "warm" => ours_launch(setup, &setup.null_component, Some(warm_cache.path())),
                _ => {
                    cold_cache = tempfile::tempdir_in(&setup.dir)?;
                    ours_launch(setup, &setup.null_component, Some(cold_cache.path()))
                }
            };
            let started = Instant::now();
            let plugin = RunningPlugin::start(&launch).await?;
            let handshake = started.elapsed();
            let plugin = plugin.ready().await?;
            let ready = started.elapsed();
            plugin.stop().await;
            let (hs, rd) = match which {
                "go" => (&mut go_hs, &mut go_ready),
                "warm" => (&mut ours_warm_hs, &mut ours_warm_ready),
                _ => (&mut ours_cold_hs, &mut ours_cold_ready),
            };
            hs.push(handshake.as_secs_f64() * 1e3);
            rd.push(ready.as_secs_f64() * 1e3);
        }
    }
    let warm_hs = median(&mut ours_warm_hs);
    Ok(vec![
        Row {
            what: "cold start, exec → handshake line, warm cache".into(),
            ours: warm_hs,
            go: Some(median(&mut go_hs)),
            unit: "ms",
            target: format!("≤ 10 ms: {}", verdict(warm_hs <= 10.0)),
        },
        Row {
            what: "cold start, exec → handshake line, cold cache".into(),
            ours: median(&mut ours_cold_hs),
            go: Some(median(&mut go_hs.clone())),
            unit: "ms",
            target: "-".into(),
        },
        Row {
            what: "exec → first GetProviderSchema answered, warm cache".into(),
            ours: median(&mut ours_warm_ready),
            go: Some(median(&mut go_ready)),
            unit: "ms",
            target: "-".into(),
        },
        Row {
            what: "exec → first GetProviderSchema answered, cold cache (compiles)".into(),
            ours: median(&mut ours_cold_ready),
            go: Some(median(&mut go_ready.clone())),
            unit: "ms",
            target: "-".into(),
        },
    ])
}

/// The null_resource state type, the same in both providers.
#[allow(clippy::expect_used, reason = "a constant type")]
fn null_resource_type() -> Type {
    Type::from_json(r#"["object",{"id":"string","triggers":["map","string"]}]"#)
        .expect("a valid type")
}

/// A null_resource state of about 4 KB: 64 triggers of 48-byte values.
fn four_kb_state() -> Value {
    let triggers: BTreeMap<String, Value> = (0..64)
        .map(|i| (format!("trigger_{i:02}"), Value::string(format!("{i:02}-{}", "x".repeat(45)))))
        .collect();
    Value::Object(BTreeMap::from([
        ("id".to_string(), Value::string("1234567890123456789")),
        ("triggers".to_string(), Value::Map(triggers)),
    ]))
}

const ROUND_TRIPS: usize = 200;

async fn read_resource_round_trip(setup: &Setup) -> anyhow::Result<Vec<Row>> {
    let state = terrarium::codec::encode_msgpack(&four_kb_state(), &null_resource_type())?;
    eprintln!("   state: {} bytes of msgpack", state.len());
    let cache = tempfile::tempdir_in(&setup.dir)?;
    let mut ours =
        RunningPlugin::start(&ours_launch(setup, &setup.null_component, Some(cache.path())))
            .await?
            .ready()
            .await?;
    let mut go = RunningPlugin::start(&go_launch(setup)).await?.ready().await?;
    ours.configure_empty().await?;
    go.configure_empty().await?;
    for _ in 0..20 {
        ours.read_resource("null_resource", &state).await?;
        go.read_resource("null_resource", &state).await?;
    }
    let (mut ours_t, mut go_t) = (Vec::with_capacity(ROUND_TRIPS), Vec::with_capacity(ROUND_TRIPS));
    for i in 0..ROUND_TRIPS {
        // Alternate which goes first.
        for which in if i % 2 == 0 { [0, 1] } else { [1, 0] } {
            let started = Instant::now();
            if which == 0 {
                ours.read_resource("null_resource", &state).await?;
                ours_t.push(started.elapsed().as_secs_f64() * 1e6);
            } else {
                go.read_resource("null_resource", &state).await?;
                go_t.push(started.elapsed().as_secs_f64() * 1e6);
            }
        }
    }
    ours.stop().await;
    go.stop().await;
    Ok(vec![Row {
        what: format!("ReadResource round trip, 4 KB state (median of {ROUND_TRIPS})"),
        ours: median(&mut ours_t),
        go: Some(median(&mut go_t)),
        unit: "µs",
        target: "-".into(),
    }])
}

async fn concurrent_calls(setup: &Setup) -> anyhow::Result<Vec<Row>> {
    let cache = tempfile::tempdir_in(&setup.dir)?;
    let mut plugin =
        RunningPlugin::start(&ours_launch(setup, &setup.faulty_component, Some(cache.path())))
            .await?
            .ready()
            .await?;
    let mut batches = Vec::new();
    let mut first = None;
    for _ in 0..=setup.runs.max(5) {
        let started = Instant::now();
        plugin.slow_applies(10).await?;
        let took = started.elapsed().as_secs_f64() * 1e3;
        if first.is_none() {
            first = Some(took);
        } else {
            batches.push(took);
        }
    }
    plugin.stop().await;
    let steady = median(&mut batches);
    let first = first.unwrap_or(f64::NAN);
    Ok(vec![
        Row {
            what: "10 concurrent 200 ms guest calls, pool warm (median of batches)".into(),
            ours: steady,
            go: None,
            unit: "ms",
            target: format!("≤ 300 ms: {}", verdict(steady <= 300.0)),
        },
        Row {
            what: "10 concurrent 200 ms guest calls, first batch (instances created)".into(),
            ours: first,
            go: None,
            unit: "ms",
            target: format!("≤ 300 ms: {}", verdict(first <= 300.0)),
        },
    ])
}

/// Waits at most `limit` for `f`.
pub async fn within<T>(
    limit: Duration,
    what: &str,
    f: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    tokio::time::timeout(limit, f)
        .await
        .with_context(|| format!("{what} took longer than {limit:?}"))?
}

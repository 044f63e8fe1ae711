//! Benchmarks of Terrarium: side by side with the native providers it replaces (the Go null
//! provider 2.1.2, and a terraform-plugin-framework provider as a harder baseline), in one run,
//! on one machine; hot reload under each of wasmtime's compilers; scale. `make bench` builds
//! what it needs and runs this; BENCHMARKS.md explains every figure.
//!
//! Every comparison alternates the providers run by run (ours, Go, Go, ours, ...) so that a
//! change in machine load hits both alike, and reports medians.
//!
//! Arguments: sections to run (default: all of them, in this order): `start`, `round-trip`,
//! `concurrent`, `terraform`, `instances`, `scale`, `reload`, `dev-reload`, `languages`, `list-stream`; `--runs N` (default 5),
//! `--sizes 1,100,1000,10000` (terraform plan/apply sizes); `--smoke` runs every section once
//! at its smallest size, against whatever builds the environment names (debug builds too), so
//! that `make test` proves each section still runs (bench/tests/smoke.rs): its figures mean
//! nothing and nothing is asserted on them.
//! Paths come from the environment (bench/run sets them): TERRARIUM_BIN, TERRARIUM_PROVIDER_BIN
//! (what serves: the served-only executable; TERRARIUM_BIN's `serve` when unset), NULL_COMPONENT,
//! NULL_DEBUG_COMPONENT, FAULTY_COMPONENT, HOSTILE_COMPONENT, SLOW_COMPONENT, GO_NULL,
//! TOFU (for `instances`' OpenTofu half), RELEASE_EXAMPLES (for `dev-reload`:
//! the release example components, separated by `:`; examples/null's when unset), FRAMEWORK_PROVIDER (optional: without it the start section leaves the framework baseline
//! out and says so), TERRAFORM, BENCH_DIR, BENCH_AUTHOR_DIR, REPO, and for `languages`
//! PETS_PY_COMPONENT and PETS_TS_COMPONENT (and, when set, PETS_GO_COMPONENT and
//! PETS_RS_COMPONENT); for `instances`' framework pair (optional) FRAMEWORK_PETS_NATIVE and
//! PETS_FRAMEWORK_COMPONENT. `list-stream` needs only
//! the host and the hostile component, and finds them next to this executable when unset.

mod author;
mod dev_reload;
mod instances;
mod languages;
mod list_stream;
mod plugin_client;
mod pss;
mod reload;
mod scale;
mod start;
mod terraform;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use terrarium_model::{Type, Value};

use plugin_client::{Launch, Protocol, RunningPlugin};

/// Everything the benchmarks run.
pub struct Setup {
    /// The `terrarium` CLI: `dev` for the reload sections.
    terrarium: PathBuf,
    /// What serves a provider as users install it: the served-only `terrarium-provider`
    /// (`TERRARIUM_PROVIDER_BIN`; the CLI's `serve` when unset).
    served: PathBuf,
    null_component: PathBuf,
    null_debug_component: PathBuf,
    faulty_component: PathBuf,
    slow_component: PathBuf,
    go_null: PathBuf,
    framework_provider: Option<PathBuf>,
    terraform: PathBuf,
    dir: PathBuf,
    /// Where the author's crates (guest-sdk/README.md) are made and built; kept across runs.
    author_dir: PathBuf,
    repo: PathBuf,
    runs: usize,
    sizes: Vec<usize>,
    /// `--smoke`: every section once, at its smallest size.
    smoke: bool,
}

impl Setup {
    /// `n` repetitions of something a section measures many times, or one in a smoke run.
    pub fn times(&self, n: usize) -> usize {
        if self.smoke { 1 } else { n }
    }
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

/// The sections, in the order they run.
const SECTIONS: [&str; 10] = [
    "start",
    "round-trip",
    "concurrent",
    "terraform",
    "instances",
    "scale",
    "reload",
    "dev-reload",
    "languages",
    "list-stream",
];

/// The command line.
struct Args {
    runs: usize,
    sizes: Vec<usize>,
    sections: Vec<&'static str>,
    smoke: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut runs = 5;
    let mut sizes = vec![1, 100, 1000, 10_000];
    let mut sections = Vec::new();
    let mut smoke = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
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
            "--smoke" => smoke = true,
            other => match SECTIONS.iter().find(|s| **s == other) {
                Some(section) => sections.push(*section),
                None => bail!(
                    "unknown argument {other:?} (known: --runs N, --sizes 1,100,1000,10000, --smoke, \
                     and the sections {})",
                    SECTIONS.join(", ")
                ),
            },
        }
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    if sections.is_empty() {
        sections = SECTIONS.to_vec();
    }
    if smoke {
        runs = 1;
        sizes = vec![sizes.iter().copied().min().unwrap_or(1)];
    }
    Ok(Args { runs, sizes, sections, smoke })
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

fn list_setup(
    runs: usize,
    smoke: bool,
) -> anyhow::Result<(list_stream::ListSetup, Option<tempfile::TempDir>)> {
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
    Ok((list_stream::ListSetup { terrarium, hostile_component, dir, runs, smoke }, scratch))
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 }
}

/// One line of a result table.
pub struct Row {
    what: String,
    ours: f64,
    /// What `ours` is compared with (the table says what that is).
    baseline: Option<f64>,
    unit: &'static str,
    /// The target and whether it is met, as text.
    target: String,
}

impl Row {
    fn ratio(&self) -> String {
        match self.baseline {
            Some(baseline) if baseline > 0.0 && !self.ours.is_nan() => {
                format!("{:.2}", self.ours / baseline)
            }
            _ => "-".into(),
        }
    }
}

/// One section's table: its rows, and the names of the two columns they compare.
pub struct Table {
    title: String,
    ours: String,
    baseline: String,
    rows: Vec<Row>,
}

impl Table {
    /// A table against the Go null provider 2.1.2.
    fn against_go(title: &str, rows: Vec<Row>) -> Table {
        Table {
            title: title.into(),
            ours: "terrarium".into(),
            baseline: "Go null 2.1.2".into(),
            rows,
        }
    }
}

/// A figure with its unit; NaN (not measured on this side) as "-".
fn fmt(v: f64, unit: &str) -> String {
    if v.is_nan() {
        return "-".into();
    }
    match unit {
        "s" => format!("{v:.3} s"),
        "ms" => format!("{v:.1} ms"),
        "µs" => format!("{v:.0} µs"),
        "MB" | "MiB" => format!("{v:.1} {unit}"),
        _ => format!("{v} {unit}"),
    }
}

fn print_table(table: &Table) {
    println!();
    println!("### {}", table.title);
    println!();
    println!("| measurement | {} | {} | ratio | target |", table.ours, table.baseline);
    println!("|---|---:|---:|---:|---|");
    for r in &table.rows {
        println!(
            "| {} | {} | {} | {} | {} |",
            r.what,
            fmt(r.ours, r.unit),
            r.baseline.map(|g| fmt(g, r.unit)).unwrap_or_else(|| "-".into()),
            r.ratio(),
            r.target
        );
    }
}

/// The 1, 5 and 15 minute load averages, as `uptime` shows them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|e| format!("unknown ({e})"))
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

fn main() -> anyhow::Result<()> {
    let Args { runs, sizes, sections, smoke } = parse_args()?;
    let tokio =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    if sections == ["list-stream"] {
        let (list, _scratch) = list_setup(runs, smoke)?;
        return tokio.block_on(list_stream::run(&list));
    }
    let setup = Setup {
        terrarium: env_path("TERRARIUM_BIN")?,
        served: match std::env::var_os("TERRARIUM_PROVIDER_BIN") {
            Some(_) => env_path("TERRARIUM_PROVIDER_BIN")?,
            None => env_path("TERRARIUM_BIN")?,
        },
        null_component: env_path("NULL_COMPONENT")?,
        null_debug_component: env_path("NULL_DEBUG_COMPONENT")?,
        faulty_component: env_path("FAULTY_COMPONENT")?,
        slow_component: env_path("SLOW_COMPONENT")?,
        go_null: env_path("GO_NULL")?,
        framework_provider: match std::env::var_os("FRAMEWORK_PROVIDER") {
            Some(_) => Some(env_path("FRAMEWORK_PROVIDER")?),
            None => None,
        },
        terraform: env_path("TERRAFORM")?,
        dir: PathBuf::from(std::env::var_os("BENCH_DIR").context("BENCH_DIR is not set")?),
        author_dir: PathBuf::from(
            std::env::var_os("BENCH_AUTHOR_DIR").context("BENCH_AUTHOR_DIR is not set")?,
        ),
        repo: env_path("REPO")?,
        runs,
        sizes,
        smoke,
    };
    // Checked before anything runs, so that a missing artifact does not cost a whole run.
    let list =
        if sections.contains(&"list-stream") { Some(list_setup(runs, smoke)?) } else { None };
    std::fs::create_dir_all(&setup.dir)?;
    println!(
        "# terrarium-bench {}{}",
        sections.join(" "),
        if smoke {
            " (smoke run: one run at the smallest size; these figures mean nothing)"
        } else {
            ""
        }
    );
    println!();
    println!("- load average before: {}", load_average());
    let mut tables = Vec::new();
    let mut authors = author::Builds::new(&setup.repo, &setup.author_dir);
    for section in &sections {
        match *section {
            "start" => tables.extend(tokio.block_on(start::run(&setup, &mut authors))?),
            "round-trip" => {
                eprintln!("== one ReadResource round trip (4 KB state, gRPC over mutual TLS)");
                let rows = tokio.block_on(read_resource_round_trip(&setup))?;
                tables.push(Table::against_go("ReadResource round trip", rows));
            }
            "concurrent" => {
                eprintln!("== ten concurrent calls that each wait 200 ms in the guest");
                let rows = tokio.block_on(concurrent_calls(&setup))?;
                tables.push(Table::against_go("Concurrent calls", rows));
            }
            "terraform" => {
                let rows = terraform::run_all(&setup)?;
                tables.push(Table::against_go("terraform plan and apply, N null_resources", rows));
            }
            "instances" => tables.extend(instances::run(&setup)?),
            "scale" => tables.extend(scale::run(&setup, &mut authors)?),
            "reload" => tables.extend(tokio.block_on(reload::run(&setup, &mut authors))?),
            "dev-reload" => tables.extend(tokio.block_on(dev_reload::run(&setup))?),
            "languages" => tables.extend(tokio.block_on(languages::run(&setup))?),
            _ => {}
        }
    }
    println!("- load average after: {}", load_average());
    for table in &tables {
        print_table(table);
    }
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
    let mut launch = Launch::new(&setup.served, Protocol::V6);
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
    let state = terrarium_codec::encode_msgpack(&four_kb_state(), &null_resource_type())?;
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
    for _ in 0..setup.times(20) {
        ours.read_resource("null_resource", &state).await?;
        go.read_resource("null_resource", &state).await?;
    }
    let round_trips = setup.times(ROUND_TRIPS);
    let (mut ours_t, mut go_t) = (Vec::with_capacity(round_trips), Vec::with_capacity(round_trips));
    for i in 0..round_trips {
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
        what: format!("ReadResource round trip, 4 KB state (median of {round_trips})"),
        ours: median(&mut ours_t),
        baseline: Some(median(&mut go_t)),
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
    for _ in 0..=setup.times(setup.runs.max(5)) {
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
            baseline: None,
            unit: "ms",
            target: format!("≤ 300 ms: {}", verdict(steady <= 300.0)),
        },
        Row {
            what: "10 concurrent 200 ms guest calls, first batch (instances created)".into(),
            ours: first,
            baseline: None,
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

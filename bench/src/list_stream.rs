//! Streamed ListResource (`terraform query`) through a `terrarium serve` process, started as
//! Terraform starts it and called over gRPC with mutual TLS, from the hostile test guest's
//! `hostile_flood` list resource (config `count`, `bytes`: `count` items whose resource
//! object carries a `bytes`-long string).
//!
//! Every run starts a fresh host, so its peak resident memory (`VmHWM`) belongs to one
//! listing. The client reads every event as fast as it can and does not decode the msgpack
//! inside. Figures: items per second and payload MiB per second (the payload is the
//! protobuf-encoded events, as they cross the wire before gRPC framing and TLS), time from
//! sending the request to the first item, the host's CPU time and peak RSS. A last case asks for `limit = 10` items of an
//! endless flood: the stream ends only after the guest's call has returned (the host holds
//! the stream's sender until then), so the time to its end shows how soon the guest stops.
//! InvokeAction's progress stream goes the same way; `hostile_chatter` (config `count`)
//! reports `count` short progress messages, measured the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use futures::StreamExt;
use prost::Message as _;
use terrarium_model::schema::Schema;
use terrarium_model::{Number, Type, Value};
use terrarium_proto::tfplugin6 as pb6;

use crate::median;
use crate::plugin_client::{Launch, Protocol, RunningPlugin};

/// What the listing benchmark needs.
pub struct ListSetup {
    pub terrarium: PathBuf,
    pub hostile_component: PathBuf,
    pub dir: PathBuf,
    pub runs: usize,
    /// A smoke run: each case with a thousandth of its items.
    pub smoke: bool,
}

impl ListSetup {
    /// `n` items, or a thousandth of them in a smoke run.
    fn scaled(&self, n: i64) -> i64 {
        if self.smoke { (n / 1000).max(1) } else { n }
    }
}

/// One listing to measure.
#[derive(Clone, Copy)]
struct Case {
    count: i64,
    bytes: i64,
    include_resource_object: bool,
}

impl Case {
    fn describe(&self) -> String {
        if self.include_resource_object {
            format!("{} items × {} B objects", thousands(self.count as u64), self.bytes)
        } else {
            format!(
                "{} items, identities only (include_resource_object = false)",
                thousands(self.count as u64)
            )
        }
    }
}

const CASES: [Case; 3] = [
    Case { count: 100_000, bytes: 4096, include_resource_object: true },
    Case { count: 1_000_000, bytes: 64, include_resource_object: true },
    Case { count: 1_000_000, bytes: 64, include_resource_object: false },
];

/// Items asked for by the limit case, out of a flood that would never end by itself.
const LIMIT: i64 = 10;
const ENDLESS: i64 = 1_000_000_000_000;

/// What one listing cost.
struct Sample {
    items: u64,
    payload_bytes: u64,
    seconds: f64,
    first_item_ms: f64,
    host_cpu_s: f64,
    rss_before: u64,
    rss_peak: u64,
}

fn launch(setup: &ListSetup, cache_home: &Path) -> Launch {
    let mut launch = Launch::new(&setup.terrarium, Protocol::V6);
    launch.args =
        vec!["serve".into(), "--component".into(), setup.hostile_component.as_os_str().to_owned()];
    launch.env.push(("XDG_CACHE_HOME".into(), cache_home.as_os_str().to_owned()));
    launch
}

/// The types of the hostile fixture's configurations, read from its own schema: attributes
/// the fixture gains later go out as null instead of missing (which Terraform never sends).
pub struct HostileTypes {
    provider: Type,
    flood: Type,
    chatter: Type,
}

impl HostileTypes {
    /// Loads `component` in this process to read its schema.
    pub async fn of(component: &Path) -> anyhow::Result<HostileTypes> {
        let settings = terrarium_runtime::RuntimeSettings::default();
        let runtime = terrarium_runtime::Runtime::load(component, settings)?;
        let provider = terrarium_core::Dispatcher::start(Arc::new(runtime)).await?;
        let schema = provider.schema();
        let of = |schemas: &BTreeMap<String, Schema>, name: &str| {
            schemas
                .get(name)
                .map(|s| s.block.implied_type())
                .with_context(|| format!("{} has no {name}", component.display()))
        };
        Ok(HostileTypes {
            provider: schema.provider.block.implied_type(),
            flood: of(&schema.list_resources, "hostile_flood")?,
            chatter: of(&schema.actions, "hostile_chatter")?,
        })
    }
}

/// A value of the object type `ty` with the attributes of `set`, every other one null, as
/// msgpack.
fn config(ty: &Type, set: &[(&str, Value)]) -> anyhow::Result<Vec<u8>> {
    let Type::Object(object) = ty else { bail!("a configuration type is not an object: {ty:?}") };
    let mut value: BTreeMap<String, Value> =
        object.attributes.keys().map(|name| (name.clone(), Value::Null)).collect();
    for (name, v) in set {
        let Some(slot) = value.get_mut(*name) else {
            bail!("the hostile fixture's schema has no attribute {name:?}");
        };
        *slot = v.clone();
    }
    Ok(terrarium_codec::encode_msgpack(&Value::Object(value), ty)?)
}

/// `hostile_flood`'s list configuration.
fn flood_config(types: &HostileTypes, count: i64, bytes: i64) -> anyhow::Result<Vec<u8>> {
    config(
        &types.flood,
        &[
            ("count", Value::Number(Number::Int(count))),
            ("bytes", Value::Number(Number::Int(bytes))),
        ],
    )
}

fn proc_status_kib(pid: u32, field: &str) -> anyhow::Result<u64> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).context("/proc/<pid>/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .with_context(|| format!("no {field} in /proc status"))?;
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("{line:?}: not a number"))
}

/// The process's peak resident memory so far (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> anyhow::Result<u64> {
    Ok(proc_status_kib(pid, "VmHWM:")? * 1024)
}

/// User + system CPU time of the process so far, in seconds (clock ticks of 1/100 s).
fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).context("/proc/<pid>/stat")?;
    // The command name (field 2) may contain spaces; the fields after it are plain.
    let after_name = stat.rsplit_once(')').context("/proc stat without a command name")?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15, i.e. 11 and 12 after the name (state is 3).
    let ticks = |i: usize| -> anyhow::Result<f64> {
        Ok(fields
            .get(i)
            .context("/proc stat too short")?
            .parse::<u64>()
            .context("/proc stat field")? as f64)
    };
    Ok((ticks(11)? + ticks(12)?) / 100.0)
}

/// A fresh host, configured, and what it had used before the measured call.
struct FreshHost {
    plugin: RunningPlugin,
    pid: u32,
    rss_before: u64,
    cpu_before: f64,
}

async fn fresh_host(
    setup: &ListSetup,
    types: &HostileTypes,
    cache_home: &Path,
) -> anyhow::Result<FreshHost> {
    let mut plugin = RunningPlugin::start(&launch(setup, cache_home)).await?.ready().await?;
    // The provider configuration with nothing set (no panic, no hang).
    plugin.configure(config(&types.provider, &[])?).await?;
    let pid = plugin.pid().context("the host exited before the call")?;
    Ok(FreshHost { rss_before: peak_rss(pid)?, cpu_before: cpu_seconds(pid)?, plugin, pid })
}

/// Starts a host, configures it, lists once into the void and measures.
async fn one_listing(
    setup: &ListSetup,
    types: &HostileTypes,
    cache_home: &Path,
    request: pb6::list_resource::Request,
) -> anyhow::Result<Sample> {
    let FreshHost { mut plugin, pid, rss_before, cpu_before } =
        fresh_host(setup, types, cache_home).await?;
    let started = Instant::now();
    let mut events = plugin.list_resource(request).await?;
    let mut first_item = None;
    let (mut items, mut payload_bytes) = (0u64, 0u64);
    while let Some(event) = events.next().await {
        let event = event.context("a gRPC error in the middle of the stream")?;
        if let Some(d) = event.diagnostic.first() {
            bail!("item {items}: a diagnostic: {}: {}", d.summary, d.detail);
        }
        if event.identity.is_some() {
            first_item.get_or_insert_with(|| started.elapsed());
            items += 1;
        }
        payload_bytes += event.encoded_len() as u64;
    }
    let seconds = started.elapsed().as_secs_f64();
    let host_cpu_s = cpu_seconds(pid)? - cpu_before;
    let rss_peak = peak_rss(pid)?;
    plugin.stop().await;
    Ok(Sample {
        items,
        payload_bytes,
        seconds,
        first_item_ms: first_item.context("no item arrived")?.as_secs_f64() * 1e3,
        host_cpu_s,
        rss_before,
        rss_peak,
    })
}

fn request(
    types: &HostileTypes,
    count: i64,
    bytes: i64,
    include_resource_object: bool,
    limit: i64,
) -> anyhow::Result<pb6::list_resource::Request> {
    Ok(pb6::list_resource::Request {
        type_name: "hostile_flood".into(),
        config: Some(pb6::DynamicValue {
            msgpack: flood_config(types, count, bytes)?,
            json: vec![],
        }),
        include_resource_object,
        limit,
    })
}

/// Starts a host, configures it, invokes `hostile_chatter` with `count` reports and measures
/// (an item here is a progress event).
async fn one_invocation(
    setup: &ListSetup,
    types: &HostileTypes,
    cache_home: &Path,
    count: i64,
) -> anyhow::Result<Sample> {
    use pb6::invoke_action::event::Type as Event;
    let request = pb6::invoke_action::Request {
        action_type: "hostile_chatter".into(),
        config: Some(pb6::DynamicValue {
            msgpack: config(&types.chatter, &[("count", Value::Number(Number::Int(count)))])?,
            json: vec![],
        }),
        client_capabilities: None,
    };
    let FreshHost { mut plugin, pid, rss_before, cpu_before } =
        fresh_host(setup, types, cache_home).await?;
    let started = Instant::now();
    let mut events = plugin.invoke_action(request).await?;
    let mut first_report = None;
    let (mut reports, mut payload_bytes, mut completed) = (0u64, 0u64, false);
    while let Some(event) = events.next().await {
        let event = event.context("a gRPC error in the middle of the stream")?;
        payload_bytes += event.encoded_len() as u64;
        match event.r#type {
            Some(Event::Progress(_)) => {
                first_report.get_or_insert_with(|| started.elapsed());
                reports += 1;
            }
            Some(Event::Completed(c)) => {
                if let Some(d) = c.diagnostics.first() {
                    bail!("the action completed with a diagnostic: {}: {}", d.summary, d.detail);
                }
                completed = true;
            }
            None => bail!("an InvokeAction event without a type"),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if !completed {
        bail!("the action's stream ended without a completion event");
    }
    let host_cpu_s = cpu_seconds(pid)? - cpu_before;
    let rss_peak = peak_rss(pid)?;
    plugin.stop().await;
    Ok(Sample {
        items: reports,
        payload_bytes,
        seconds,
        first_item_ms: first_report.context("no progress arrived")?.as_secs_f64() * 1e3,
        host_cpu_s,
        rss_before,
        rss_peak,
    })
}

/// Reports per InvokeAction of the action case.
const REPORTS: i64 = 1_000_000;

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Runs every case `setup.runs` times (fresh host each time) and prints a table on stdout.
pub async fn run(setup: &ListSetup) -> anyhow::Result<()> {
    std::fs::create_dir_all(&setup.dir)?;
    let cache = tempfile::tempdir_in(&setup.dir)?;
    // Fill the compiled-component cache once: a start compiling the guest is not what this measures.
    RunningPlugin::start(&launch(setup, cache.path())).await?.ready().await?.stop().await;
    let types = &HostileTypes::of(&setup.hostile_component).await?;

    let mut lines = Vec::new();
    let cases: Vec<Case> =
        CASES.iter().map(|c| Case { count: setup.scaled(c.count), ..*c }).collect();
    let reports = setup.scaled(REPORTS);
    for case in cases.iter().map(Some).chain([None]) {
        let (what, expected) = match case {
            Some(case) => (format!("ListResource, {}", case.describe()), case.count),
            None => {
                (format!("InvokeAction, {} progress reports", thousands(reports as u64)), reports)
            }
        };
        eprintln!("== {what} ({} runs)", setup.runs);
        let mut samples = Vec::with_capacity(setup.runs);
        for _ in 0..setup.runs {
            let sample = match case {
                Some(case) => {
                    let request = request(
                        types,
                        case.count,
                        case.bytes,
                        case.include_resource_object,
                        case.count * 2,
                    )?;
                    one_listing(setup, types, cache.path(), request).await?
                }
                None => one_invocation(setup, types, cache.path(), reports).await?,
            };
            if sample.items != expected as u64 {
                bail!("{what}: {} items arrived, expected {expected}", sample.items);
            }
            eprintln!(
                "   {:.3} s, first item {:.1} ms, host CPU {:.2} s, peak RSS {} → {}",
                sample.seconds,
                sample.first_item_ms,
                sample.host_cpu_s,
                mib(sample.rss_before as f64),
                mib(sample.rss_peak as f64)
            );
            samples.push(sample);
        }
        let payload =
            median(&mut samples.iter().map(|s| s.payload_bytes as f64).collect::<Vec<_>>());
        let items_per_s =
            median(&mut samples.iter().map(|s| s.items as f64 / s.seconds).collect::<Vec<_>>());
        let mib_per_s = median(
            &mut samples
                .iter()
                .map(|s| s.payload_bytes as f64 / s.seconds / (1024.0 * 1024.0))
                .collect::<Vec<_>>(),
        );
        let seconds = median(&mut samples.iter().map(|s| s.seconds).collect::<Vec<_>>());
        let first = median(&mut samples.iter().map(|s| s.first_item_ms).collect::<Vec<_>>());
        let cpu = median(&mut samples.iter().map(|s| s.host_cpu_s).collect::<Vec<_>>());
        let before = median(&mut samples.iter().map(|s| s.rss_before as f64).collect::<Vec<_>>());
        let peak_max = samples.iter().map(|s| s.rss_peak).max().unwrap_or(0) as f64;
        lines.push(format!(
            "| {} | {} | {:.3} s | {} | {:.1} | {:.1} ms | {:.2} s | {} → {} | {:.3} |",
            what,
            mib(payload),
            seconds,
            thousands(items_per_s as u64),
            mib_per_s,
            first,
            cpu,
            mib(before),
            mib(peak_max),
            peak_max / payload,
        ));
    }

    eprintln!(
        "== ListResource with limit = {LIMIT} of an endless flood of 4 KiB objects ({} runs)",
        setup.runs
    );
    let mut ends = Vec::with_capacity(setup.runs);
    let mut firsts = Vec::with_capacity(setup.runs);
    for _ in 0..setup.runs {
        let sample =
            one_listing(setup, types, cache.path(), request(types, ENDLESS, 4096, true, LIMIT)?)
                .await?;
        if sample.items != LIMIT as u64 {
            bail!("limit {LIMIT}: {} items arrived", sample.items);
        }
        eprintln!(
            "   stream ended after {:.1} ms (first item {:.1} ms)",
            sample.seconds * 1e3,
            sample.first_item_ms
        );
        ends.push(sample.seconds * 1e3);
        firsts.push(sample.first_item_ms);
    }

    println!();
    println!(
        "Streamed RPCs, `terrarium serve` with tests/guests/hostile (median of {} runs each; an item is a list \
         item or a progress report):",
        setup.runs
    );
    println!();
    println!(
        "| stream | payload | wall time | items/s | MiB/s | first item | host CPU | host peak RSS (start → max of runs) | peak RSS / payload |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for line in &lines {
        println!("{line}");
    }
    println!();
    println!(
        "limit = {LIMIT} on an endless flood: the stream (and the guest's call) ended {:.1} ms after the request \
         (first item at {:.1} ms; max end {:.1} ms)",
        median(&mut ends.clone()),
        median(&mut firsts),
        ends.iter().copied().fold(0.0, f64::max)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The configurations this section sends decode under the hostile fixture's schema as
    /// the host decodes Terraform's (the section broke twice when the fixture gained an
    /// attribute). Uses the debug build `make build-guests` makes.
    #[tokio::test]
    async fn the_configurations_sent_match_the_hostile_fixtures_schema() {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
        let component = target.join("wasm32-wasip2/debug/hostile_provider.wasm");
        let types = HostileTypes::of(&component).await.unwrap();
        let decoded = |bytes: Vec<u8>, ty: &Type| terrarium_codec::decode_msgpack(&bytes, ty);
        let flood = decoded(flood_config(&types, 3, 16).unwrap(), &types.flood).unwrap();
        let Value::Object(flood) = flood else { panic!("not an object: {flood:?}") };
        assert_eq!(flood.get("count"), Some(&Value::Number(Number::Int(3))));
        assert_eq!(flood.get("name_bytes"), Some(&Value::Null));
        decoded(config(&types.provider, &[]).unwrap(), &types.provider).unwrap();
        let chatter = config(&types.chatter, &[("count", Value::Number(Number::Int(2)))]).unwrap();
        decoded(chatter, &types.chatter).unwrap();
        let unknown = config(&types.flood, &[("no_such_attribute", Value::Null)]).unwrap_err();
        assert!(unknown.to_string().contains("no attribute \"no_such_attribute\""), "{unknown}");
    }
}

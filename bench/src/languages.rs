//! Providers written in Python and TypeScript: examples/pets built with the Python SDK
//! (componentize-py) and the TypeScript SDK (componentize-js), components of 17–40 MB that
//! start a dozen core modules each; with PETS_GO_COMPONENT and PETS_RS_COMPONENT set, the Go
//! pets (stock Go, wasip1, one 7 MB core module) and the Rust pets too. Next to a Rust provider (examples/null, release): exec →
//! handshake and → first GetProviderSchema with a warm cache, the CPU and memory of a start,
//! a ReadResource round trip, an instance pool grown to 16 by 16 calls at once (the pool's
//! per-component limits must hold for these components), and a reload under `terrarium dev`;
//! also the component's size, its first compile (wall and CPU), and the provider CPU one more
//! resource costs in a `terraform plan` of 1,000.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use terrarium_model::{Type, Value};
use terrarium_runtime::DEV_COMPILER;

use crate::plugin_client::{Launch, RunningPlugin};
use crate::start::{self, Samples};
use crate::{Row, Setup, Table, median, ours_launch, verdict};

/// One provider under test.
struct Subject {
    label: &'static str,
    component: PathBuf,
}

/// The `pets_pet` state type of examples/pets/SPEC.md.
const PET_TYPE: &str = r#"["object",{
    "id":"string","name":"string","species":"string","legs":"number",
    "tags":["set","string"],"secret":"string",
    "owner":["object",{"name":"string","email":"string","notify":"bool"}],
    "toys":["list",["object",{"kind":"string","color":"string","serial":"string"}]],
    "vaccines":["set",["object",{"name":"string","batch":"string"}]],
    "collar":["list",["object",{"material":"string","size":"string"}]]}]"#;

/// The pet the round trips read, as the provider stores it (SPEC.md: `DIR/pet-1.json`, the
/// state without its id).
const PET_FILE: &str = r#"{"name":"rex","species":"dog","legs":4,"tags":["good","loud"],
    "secret":"s3cret","owner":{"name":"ann","email":"ann@example.com","notify":false},
    "toys":[{"kind":"ball","color":"red","serial":"pet-1-toy-0"},
            {"kind":"rope","color":"blue","serial":"pet-1-toy-1"}],
    "vaccines":[{"name":"rabies","batch":"pet-1-rabies"}],
    "collar":[{"material":"leather","size":"m"}]}"#;

fn pet_state() -> anyhow::Result<(Vec<u8>, Type)> {
    let ty = Type::from_json(PET_TYPE)?;
    let s = |v: &str| Value::string(v);
    let object = |fields: Vec<(&str, Value)>| {
        Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    let toy = |kind: &str, color: &str, i: u32| {
        object(vec![
            ("kind", s(kind)),
            ("color", s(color)),
            ("serial", s(&format!("pet-1-toy-{i}"))),
        ])
    };
    let state = object(vec![
        ("id", s("pet-1")),
        ("name", s("rex")),
        ("species", s("dog")),
        ("legs", Value::Number(4i32.into())),
        ("tags", Value::Set(vec![s("good"), s("loud")])),
        ("secret", s("s3cret")),
        (
            "owner",
            object(vec![
                ("name", s("ann")),
                ("email", s("ann@example.com")),
                ("notify", Value::Bool(false)),
            ]),
        ),
        ("toys", Value::List(vec![toy("ball", "red", 0), toy("rope", "blue", 1)])),
        (
            "vaccines",
            Value::Set(vec![object(vec![("name", s("rabies")), ("batch", s("pet-1-rabies"))])]),
        ),
        ("collar", Value::List(vec![object(vec![("material", s("leather")), ("size", s("m"))])])),
    ]);
    Ok((terrarium_codec::encode_msgpack(&state, &ty)?, ty))
}

/// The pets provider's configuration: `directory`.
fn pets_configuration(dir: &Path) -> anyhow::Result<Vec<u8>> {
    let ty = Type::from_json(r#"["object",{"directory":"string"}]"#)?;
    let value = Value::Object(BTreeMap::from([(
        "directory".to_string(),
        Value::string(dir.to_string_lossy()),
    )]));
    Ok(terrarium_codec::encode_msgpack(&value, &ty)?)
}

/// A directory holding `pet-1.json`, granted read-write to the provider by a grants file.
struct PetsDir {
    data: PathBuf,
    grants: PathBuf,
}

fn pets_dir(root: &Path) -> anyhow::Result<PetsDir> {
    let data = root.join("pets");
    std::fs::create_dir_all(&data)?;
    std::fs::write(data.join("pet-1.json"), PET_FILE)?;
    let grants = root.join("grants.toml");
    std::fs::write(&grants, format!("allow_dir = [\"{}:rw\"]\n", data.display()))?;
    Ok(PetsDir { data, grants })
}

const ROUND_TRIPS: usize = 200;
/// Calls made at once to grow the pool to its default bound.
const AT_ONCE: usize = terrarium_runtime::DEFAULT_INSTANCE_POOL_SIZE;

/// What serving one provider cost beyond its start.
struct Served {
    round_trip_us: f64,
    rss_after_round_trips_mb: f64,
    first_batch_ms: f64,
    rss_after_batch_mb: f64,
}

/// Reads `state` of `type_name` ROUND_TRIPS times one after the other (after 20 unmeasured),
/// then AT_ONCE times at once, on a configured provider; stops it.
async fn serve(
    setup: &Setup,
    mut plugin: RunningPlugin,
    type_name: &str,
    state: &[u8],
) -> anyhow::Result<Served> {
    for _ in 0..setup.times(20) {
        plugin.read_resource(type_name, state).await?;
    }
    let mut samples = Vec::with_capacity(ROUND_TRIPS);
    for _ in 0..setup.times(ROUND_TRIPS) {
        let started = Instant::now();
        plugin.read_resource(type_name, state).await?;
        samples.push(started.elapsed().as_secs_f64() * 1e6);
    }
    let pid = plugin.pid().context("the provider exited")?;
    let rss_after_round_trips_mb = start::peak_rss_mb(pid)?;
    let started = Instant::now();
    plugin.read_resources_at_once(type_name, state, AT_ONCE).await?;
    let first_batch_ms = started.elapsed().as_secs_f64() * 1e3;
    let rss_after_batch_mb = start::peak_rss_mb(pid)?;
    plugin.stop().await;
    Ok(Served {
        round_trip_us: median(&mut samples),
        rss_after_round_trips_mb,
        first_batch_ms,
        rss_after_batch_mb,
    })
}

/// A pets provider, configured with the granted directory, reading `pet-1`.
async fn serve_pets(
    setup: &Setup,
    component: &Path,
    cache_home: &Path,
    pets: &PetsDir,
) -> anyhow::Result<Served> {
    let (state, _) = pet_state()?;
    let mut launch = ours_launch(setup, component, Some(cache_home));
    launch.args.extend(["--grants".into(), pets.grants.as_os_str().to_owned()]);
    let mut plugin = RunningPlugin::start(&launch).await?.ready().await?;
    plugin.configure(pets_configuration(&pets.data)?).await?;
    serve(setup, plugin, "pets_pet", &state).await
}

/// examples/null, reading 4 KB null_resource states: the baseline.
async fn serve_null(setup: &Setup, cache_home: &Path) -> anyhow::Result<Served> {
    let ty = crate::null_resource_type();
    let state = terrarium_codec::encode_msgpack(&crate::four_kb_state(), &ty)?;
    let mut plugin =
        RunningPlugin::start(&ours_launch(setup, &setup.null_component, Some(cache_home)))
            .await?
            .ready()
            .await?;
    plugin.configure_empty().await?;
    serve(setup, plugin, "null_resource", &state).await
}

pub async fn run(setup: &Setup) -> anyhow::Result<Vec<Table>> {
    let mut subjects = vec![
        Subject { label: "Python", component: crate::env_path("PETS_PY_COMPONENT")? },
        Subject { label: "TypeScript", component: crate::env_path("PETS_TS_COMPONENT")? },
    ];
    // The Go pets, and the Rust pets (the same provider in Rust), when given.
    for (label, key) in [("Go", "PETS_GO_COMPONENT"), ("Rust", "PETS_RS_COMPONENT")] {
        if std::env::var_os(key).is_some() {
            subjects.push(Subject { label, component: crate::env_path(key)? });
        }
    }
    eprintln!("== providers in other languages (examples/pets) next to examples/null");
    let root = setup.dir.join("languages");
    std::fs::create_dir_all(&root)?;
    let pets = pets_dir(&root)?;
    let warm_cache = tempfile::tempdir_in(&root)?;
    // Fill the cache (Cranelift, optimizing, as `terrarium install` does).
    let mut starts: Vec<Samples> = Vec::new();
    let mut launches = vec![ours_launch(setup, &setup.null_component, Some(warm_cache.path()))];
    // The first start compiles into the cache, as `terrarium install` does: its wall time and
    // the CPU of every compiling thread.
    let mut first_compiles = Vec::new();
    for subject in &subjects {
        let launch = ours_launch(setup, &subject.component, Some(warm_cache.path()));
        let (wall_s, cpu_s) = first_start(&launch).await?;
        eprintln!(
            "   {} ({:.1} MiB): first start, compiled into the cache in {wall_s:.1} s ({cpu_s:.1} s CPU)",
            subject.label,
            std::fs::metadata(&subject.component)?.len() as f64 / f64::from(1 << 20),
        );
        first_compiles.push((wall_s, cpu_s));
        launches.push(launch);
    }
    starts.resize_with(launches.len(), Samples::default);
    for i in 0..setup.times(setup.runs.max(5) * 2) {
        let order: Vec<usize> = if i % 2 == 0 {
            (0..launches.len()).collect()
        } else {
            (0..launches.len()).rev().collect()
        };
        for k in order {
            start::start_once(&launches[k], &mut starts[k]).await?;
        }
    }
    let null_start = starts[0].medians();
    let null_compile = {
        let cold = tempfile::tempdir_in(&root)?;
        first_start(&ours_launch(setup, &setup.null_component, Some(cold.path()))).await?
    };
    let null_plan_us = plan_cpu_per_resource_us(
        setup,
        &root.join("plan-null"),
        &setup.null_component,
        &PlanShape::null(),
    )?;
    let null_served = serve_null(setup, warm_cache.path()).await?;
    eprintln!(
        "   Rust (examples/null): handshake {:.1} ms, schema {:.1} ms, ReadResource {:.0} µs",
        null_start.0, null_start.1, null_served.round_trip_us
    );
    let null_reload = crate::reload::reload_ms(
        &root.join("reload-null"),
        &std::fs::read(&setup.null_component)?,
        DEV_COMPILER,
        setup.runs,
    )
    .await?;

    let null_size = std::fs::metadata(&setup.null_component)?.len() as f64 / f64::from(1 << 20);
    let mut tables = Vec::new();
    for (k, subject) in subjects.iter().enumerate() {
        let (handshake, ready, cpu, rss) = starts[k + 1].medians();
        let served = serve_pets(setup, &subject.component, warm_cache.path(), &pets).await?;
        let bytes = std::fs::read(&subject.component)?;
        let scratch = root.join(format!("reload-{k}"));
        let reload_ms =
            match crate::reload::reload_ms(&scratch, &bytes, DEV_COMPILER, setup.runs).await {
                Ok(ms) => ms,
                Err(e) => bail!("reloading the {} component: {e:#}", subject.label),
            };
        eprintln!(
            "   {}: handshake {handshake:.1} ms, schema {ready:.1} ms, ReadResource {:.0} µs, \
             16 at once {:.1} ms, reload {reload_ms:.0} ms",
            subject.label, served.round_trip_us, served.first_batch_ms
        );
        let plan_us = plan_cpu_per_resource_us(
            setup,
            &root.join(format!("plan-{k}")),
            &subject.component,
            &PlanShape::pets(&pets),
        )?;
        let (compile_s, compile_cpu_s) = first_compiles[k];
        let size = bytes.len() as f64 / f64::from(1 << 20);
        let row = |what: String, ours: f64, baseline: f64, unit, target: String| Row {
            what,
            ours,
            baseline: Some(baseline),
            unit,
            target,
        };
        tables.push(Table {
            title: format!("A provider in {} (examples/pets, {size:.1} MiB)", subject.label),
            ours: format!("{} pets", subject.label),
            baseline: "Rust (examples/null, release)".into(),
            rows: vec![
                row("component size".into(), size, null_size, "MiB", "-".into()),
                row(
                    "first start: compiled into the cache (Cranelift), wall time".into(),
                    compile_s,
                    null_compile.0,
                    "s",
                    "-".into(),
                ),
                row(
                    "first start: CPU time of the compile, every thread".into(),
                    compile_cpu_s,
                    null_compile.1,
                    "s",
                    "-".into(),
                ),
                row(
                    format!(
                        "terraform plan of {PLANNED} resources: provider CPU per resource, \
                         (CPU at {PLANNED} - CPU at 1) / {}",
                        PLANNED - 1
                    ),
                    plan_us,
                    null_plan_us,
                    "µs",
                    "-".into(),
                ),
                row(
                    "exec → handshake line, warm cache".into(),
                    handshake,
                    null_start.0,
                    "ms",
                    format!("≤ 5 ms: {}", verdict(handshake <= 5.0)),
                ),
                row(
                    "exec → first GetProviderSchema answered, warm cache".into(),
                    ready,
                    null_start.1,
                    "ms",
                    "-".into(),
                ),
                row(
                    "CPU time by the first GetProviderSchema answer".into(),
                    cpu,
                    null_start.2,
                    "ms",
                    "-".into(),
                ),
                row(
                    "peak RSS by the first GetProviderSchema answer".into(),
                    rss,
                    null_start.3,
                    "MB",
                    "-".into(),
                ),
                row(
                    format!(
                        "ReadResource round trip (median of {}; pets_pet from its file, \
                         null_resource with a 4 KB state)",
                        setup.times(ROUND_TRIPS)
                    ),
                    served.round_trip_us,
                    null_served.round_trip_us,
                    "µs",
                    "-".into(),
                ),
                row(
                    "peak RSS after the round trips (one instance)".into(),
                    served.rss_after_round_trips_mb,
                    null_served.rss_after_round_trips_mb,
                    "MB",
                    "-".into(),
                ),
                row(
                    format!(
                        "{AT_ONCE} ReadResource calls at once, the pool growing to {AT_ONCE}: all \
                         answered in"
                    ),
                    served.first_batch_ms,
                    null_served.first_batch_ms,
                    "ms",
                    "every instance created within the pool's limits: met".into(),
                ),
                row(
                    format!("peak RSS after the {AT_ONCE} calls at once"),
                    served.rss_after_batch_mb,
                    null_served.rss_after_batch_mb,
                    "MB",
                    "-".into(),
                ),
                row(
                    format!(
                        "reload under terrarium dev ({}): file written → first call on the new \
                         build",
                        DEV_COMPILER.name()
                    ),
                    reload_ms,
                    null_reload,
                    "ms",
                    format!("≤ 1000 ms: {}", verdict(reload_ms <= 1000.0)),
                ),
            ],
        });
    }
    Ok(tables)
}

/// A start whose cache has no compiled artifact yet, to the first GetProviderSchema answer:
/// its wall time and the CPU of every thread (Cranelift compiles on several), in seconds.
async fn first_start(launch: &Launch) -> anyhow::Result<(f64, f64)> {
    let began = Instant::now();
    let plugin = RunningPlugin::start(launch).await?.ready().await?;
    let wall_s = began.elapsed().as_secs_f64();
    let cpu_s = start::cpu_ms(plugin.pid().context("the provider exited")?)? / 1e3;
    plugin.stop().await;
    Ok((wall_s, cpu_s))
}

/// Resources in the plan whose provider CPU is divided among them.
const PLANNED: usize = 1000;

/// What a plan's configuration holds: the provider's source and type, its `provider` block's
/// body, the resource type and one resource's body, and the grants the provider needs.
struct PlanShape {
    source: &'static str,
    type_name: &'static str,
    provider_body: String,
    resource: &'static str,
    resource_body: &'static str,
    grants: Option<PathBuf>,
}

impl PlanShape {
    fn null() -> PlanShape {
        PlanShape {
            source: "hashicorp/null",
            type_name: "null",
            provider_body: String::new(),
            resource: "null_resource",
            resource_body: "",
            grants: None,
        }
    }

    fn pets(pets: &PetsDir) -> PlanShape {
        PlanShape {
            source: "terrarium/pets",
            type_name: "pets",
            provider_body: format!("  directory = \"{}\"\n", pets.data.display()),
            resource: "pets_pet",
            resource_body: "  name = \"rex-${count.index}\"\n",
            grants: Some(pets.grants.clone()),
        }
    }
}

/// The provider CPU one more resource costs in a `terraform plan` (every Validate and Plan
/// call it brings): the plan of [`PLANNED`] resources less the plan of one, which carries the
/// same start, divided by the resources between them. Each plan runs once unmeasured first.
fn plan_cpu_per_resource_us(
    setup: &Setup,
    root: &Path,
    component: &Path,
    shape: &PlanShape,
) -> anyhow::Result<f64> {
    let planned = setup.times(PLANNED).max(2);
    let prepared = crate::terraform::Prepared::ours_granted(
        setup,
        root,
        shape.source,
        shape.type_name,
        component,
        shape.grants.as_deref(),
    )?;
    let mut cpu = Vec::new();
    for count in [1, planned] {
        let dir = root.join(format!("work-{count}"));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("main.tf"),
            format!(
                "terraform {{\n  required_providers {{\n    {t} = {{ source = \"{source}\" }}\n  }}\n}}\n\n\
                 provider \"{t}\" {{\n{provider}}}\n\n\
                 resource \"{resource}\" \"r\" {{\n  count = {count}\n{body}}}\n",
                t = shape.type_name,
                source = shape.source,
                provider = shape.provider_body,
                resource = shape.resource,
                body = shape.resource_body,
            ),
        )?;
        crate::terraform::plan(setup, &prepared, &dir)?;
        let mut samples: Vec<f64> = (0..setup.times(3))
            .map(|_| crate::terraform::plan(setup, &prepared, &dir).map(|s| s.provider_cpu_s))
            .collect::<anyhow::Result<_>>()?;
        cpu.push(median(&mut samples));
    }
    Ok((cpu[1] - cpu[0]) * 1e6 / (planned - 1) as f64)
}

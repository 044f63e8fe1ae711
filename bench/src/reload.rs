//! Hot reload (`terrarium dev`): how long a new build takes from its file being written to the
//! first call it serves, under each of wasmtime's compilers, for the components authors
//! reload: examples/null (release and debug, this repository's tuned profile) and the crate
//! guest-sdk/README.md teaches (with `cargo new`'s profiles, and with the README's). Also the
//! compilation alone, the speed of the code each compiler makes, and `terrarium dev`'s start.
//!
//! The reload runs the host's own pieces in this process, as `terrarium dev` wires them: the
//! file watcher with its quiet period, the reloader (read, compile, instantiate, read the
//! schema, carry the configuration over, swap) and the tfplugin6 service a call goes through.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use terrarium_core::Dispatcher;
use terrarium_dev::{self as reload, LiveProvider, Reloader, watch};
use terrarium_model::{Type, Value};
use terrarium_plugin_client::rebuilt;
use terrarium_proto::tfplugin6 as pb;
use terrarium_proto::tfplugin6::provider_server::Provider as _;
use terrarium_runtime::{Compiler, DEV_COMPILER, Runtime, RuntimeSettings};
use terrarium_tfplugin::server::ProviderService;
use tokio::io::AsyncBufReadExt as _;
use tonic::Request;

use crate::author::{Builds, Profiles};
use crate::{Row, Setup, Table, median, verdict};

/// A component to reload, and the reload target it has, if any.
struct Subject {
    label: String,
    path: PathBuf,
    /// The target for a reload under `terrarium dev`'s compiler, in milliseconds.
    target_ms: Option<f64>,
}

fn settings(compiler: Compiler) -> RuntimeSettings {
    RuntimeSettings {
        cache_dir: None,
        compiler,
        instance_pool_size: 4,
        call_timeout: Duration::from_secs(600),
        ..RuntimeSettings::default()
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

/// Seconds to compile (and link) `bytes` under `compiler`, median of `runs`.
fn compile_ms(bytes: &[u8], path: &Path, compiler: Compiler, runs: usize) -> anyhow::Result<f64> {
    let mut samples = Vec::new();
    for run in 0..runs {
        let build = rebuilt(bytes, &format!("compile-{run}"));
        let started = Instant::now();
        Runtime::from_bytes(&build, path, settings(compiler))?;
        samples.push(ms(started.elapsed()));
    }
    Ok(median(&mut samples))
}

/// A dev server's pieces serving `path`, reloading new builds with `compiler`.
struct Dev {
    live: Arc<LiveProvider>,
    service: ProviderService,
    _watch: watch::Watch,
}

async fn dev(path: &Path, bytes: &[u8], compiler: Compiler) -> anyhow::Result<Dev> {
    let runtime = Runtime::from_bytes(bytes, path, settings(compiler))?;
    let provider = Dispatcher::start(Arc::new(runtime)).await?;
    let live = LiveProvider::new(Arc::new(provider), reload::digest(bytes));
    let reloader = Arc::new(Reloader::new(live.clone(), path.to_path_buf(), settings(compiler)));
    let watch = watch::watch_component(reloader, watch::COMPONENT_QUIET)?;
    Ok(Dev { service: live.service(), live, _watch: watch })
}

impl Dev {
    /// A provider configuration with every attribute null, for the schema being served.
    fn null_configuration(&self) -> anyhow::Result<Vec<u8>> {
        let provider = self.live.current().context("no build is serving")?;
        let ty = provider.schema().provider.block.implied_type();
        let Type::Object(object) = &ty else {
            bail!("the provider configuration is not an object: {ty:?}")
        };
        let value =
            Value::Object(object.attributes.keys().map(|k| (k.clone(), Value::Null)).collect());
        Ok(terrarium_codec::encode_msgpack(&value, &ty)?)
    }

    async fn validate(&self, config: &[u8]) -> anyhow::Result<()> {
        let request = pb::validate_provider_config::Request {
            config: Some(pb::DynamicValue { msgpack: config.to_vec(), json: vec![] }),
        };
        let response = self.service.validate_provider_config(Request::new(request)).await?;
        let diagnostics = &response.get_ref().diagnostics;
        if !diagnostics.is_empty() {
            bail!("ValidateProviderConfig answered {diagnostics:?}");
        }
        Ok(())
    }
}

/// Milliseconds from a new build renamed over `path` to the first call served by it, median of
/// `runs`.
pub async fn reload_ms(
    dir: &Path,
    bytes: &[u8],
    compiler: Compiler,
    runs: usize,
) -> anyhow::Result<f64> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("provider.wasm");
    std::fs::write(&path, bytes)?;
    let dev = dev(&path, bytes, compiler).await?;
    let config = dev.null_configuration()?;
    let mut samples = Vec::new();
    for round in 1..=runs as u64 {
        let build = rebuilt(bytes, &format!("reload-{round}"));
        let partial = path.with_extension("wasm.partial");
        std::fs::write(&partial, &build)?;
        let written = Instant::now();
        // As cargo and most tools write a build: a new file renamed over the old one.
        std::fs::rename(&partial, &path)?;
        loop {
            let generation = dev.live.generation();
            dev.validate(&config).await?;
            if generation > round {
                samples.push(ms(written.elapsed()));
                break;
            }
            if written.elapsed() > Duration::from_secs(300) {
                bail!("no reload of {} within 300 s", path.display());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    Ok(median(&mut samples))
}

/// Milliseconds one PlanResourceChange of a `null_resource` with 10,000 triggers takes in the
/// examples/null code `compiler` made, median of `runs`: the cost of quicker compilation.
async fn plan_ms(component: &Path, compiler: Compiler, runs: usize) -> anyhow::Result<f64> {
    let runtime = Runtime::load(component, settings(compiler))?;
    let service = ProviderService::new(Arc::new(Dispatcher::start(Arc::new(runtime)).await?));
    let ty = crate::null_resource_type();
    let triggers: BTreeMap<String, Value> =
        (0..10_000).map(|i| (format!("t{i:05}"), Value::string(format!("value {i}")))).collect();
    let config = Value::Object(BTreeMap::from([
        ("id".to_string(), Value::Null),
        ("triggers".to_string(), Value::Map(triggers)),
    ]));
    let config = terrarium_codec::encode_msgpack(&config, &ty)?;
    let null = terrarium_codec::encode_msgpack(&Value::Null, &ty)?;
    let dv = |msgpack: &[u8]| Some(pb::DynamicValue { msgpack: msgpack.to_vec(), json: vec![] });
    let mut samples = Vec::new();
    for _ in 0..runs + 1 {
        let request = pb::plan_resource_change::Request {
            type_name: "null_resource".into(),
            prior_state: dv(&null),
            proposed_new_state: dv(&config),
            config: dv(&config),
            ..Default::default()
        };
        let started = Instant::now();
        let response = service.plan_resource_change(Request::new(request)).await?;
        samples.push(ms(started.elapsed()));
        if !response.get_ref().diagnostics.is_empty() {
            bail!("PlanResourceChange answered {:?}", response.get_ref().diagnostics);
        }
    }
    // The first call also instantiates the provider.
    samples.remove(0);
    Ok(median(&mut samples))
}

/// Milliseconds from exec of `terrarium dev COMPONENT` to its `export TF_REATTACH_PROVIDERS`
/// line (the component compiled, instantiated and its schema read), with the compiled-component
/// cache in `cache_home`.
async fn dev_start_ms(
    terrarium: &Path,
    component: &Path,
    cache_home: &Path,
    scratch: &Path,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let mut child = tokio::process::Command::new(terrarium)
        .arg("dev")
        .arg(component)
        .args(["--source", "example/pets"])
        .env("XDG_CACHE_HOME", cache_home)
        .env("TMPDIR", scratch)
        .env("TERRARIUM_LOG", "warn")
        .current_dir(scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start {}", terrarium.display()))?;
    let stdout = child.stdout.take().context("no stdout")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let took = loop {
        match tokio::time::timeout(Duration::from_secs(300), lines.next_line()).await {
            Ok(Ok(Some(line))) if line.starts_with("export TF_REATTACH_PROVIDERS=") => {
                break started.elapsed();
            }
            Ok(Ok(Some(_))) => {}
            Ok(Ok(None)) => bail!("terrarium dev ended before serving"),
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => bail!("terrarium dev did not serve within 300 s"),
        }
    };
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: a plain kill(2) of the child this function started, by its own pid.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    if tokio::time::timeout(Duration::from_secs(10), child.wait()).await.is_err() {
        child.start_kill()?;
    }
    Ok(ms(took))
}

pub async fn run(setup: &Setup, authors: &mut Builds) -> anyhow::Result<Vec<Table>> {
    // A smoke run proves the section runs, not what each compiler costs: `terrarium dev`'s
    // compiler alone, on examples/null alone (each Cranelift compile of a debug build takes
    // seconds to minutes, and the README profile's crate is a cold build of its own).
    let compilers: &[Compiler] = if setup.smoke { &[DEV_COMPILER] } else { &Compiler::ALL };
    let mut reloads = Vec::new();
    let mut compiles = Vec::new();
    let mut subjects = vec![
        Subject {
            label: "examples/null, release".into(),
            path: setup.null_component.clone(),
            target_ms: Some(100.0),
        },
        Subject {
            label: "examples/null, debug (this repository's dev profile)".into(),
            path: setup.null_debug_component.clone(),
            target_ms: Some(250.0),
        },
    ];
    let author_profiles: &[Profiles] =
        if setup.smoke { &[] } else { &[Profiles::Readme, Profiles::CargoNew] };
    if setup.smoke {
        subjects.truncate(1);
    }
    for &profiles in author_profiles {
        let build = authors.debug(profiles)?;
        reloads.push(Row {
            what: format!(
                "the author's crate, {}: `cargo build` after an edit of src/lib.rs",
                profiles.name()
            ),
            ours: build.rebuild_s * 1e3,
            baseline: None,
            unit: "ms",
            target: "-".into(),
        });
        subjects.push(Subject {
            label: format!("the author's crate, {}, debug", profiles.name()),
            path: build.component.clone(),
            target_ms: (profiles == Profiles::Readme).then_some(250.0),
        });
    }
    for subject in &subjects {
        let bytes = std::fs::read(&subject.path)
            .with_context(|| format!("cannot read {}", subject.path.display()))?;
        let label = format!("{} ({})", subject.label, size_text(bytes.len()));
        eprintln!("== reload: {label}");
        let mut by_compiler = BTreeMap::new();
        let mut compile_by_compiler = BTreeMap::new();
        for &compiler in compilers {
            let scratch = tempfile::tempdir_in(&setup.dir)?;
            let compile = compile_ms(&bytes, &subject.path, compiler, setup.runs)?;
            let reload = reload_ms(scratch.path(), &bytes, compiler, setup.runs).await?;
            eprintln!(
                "   {:<48} compile {compile:>8.1} ms   file written -> first call on it {reload:>8.1} ms",
                compiler.name()
            );
            by_compiler.insert(compiler.name(), reload);
            compile_by_compiler.insert(compiler.name(), compile);
        }
        let ours = by_compiler[DEV_COMPILER.name()];
        let before = by_compiler.get(Compiler::Unoptimized.name()).copied();
        reloads.push(Row {
            what: format!("reload, {label}: file written → first call on the new build"),
            ours,
            baseline: before,
            unit: "ms",
            target: match subject.target_ms {
                Some(t) => format!("≤ {t:.0} ms: {}", verdict(ours <= t)),
                None => "-".into(),
            },
        });
        let optimizing = compile_by_compiler.get(Compiler::Optimizing.name()).copied();
        for compiler in compilers {
            compiles.push(Row {
                what: format!("{label}, {}: compile", compiler.name()),
                ours: compile_by_compiler[compiler.name()],
                baseline: optimizing,
                unit: "ms",
                target: "-".into(),
            });
            compiles.push(Row {
                what: format!("{label}, {}: reload", compiler.name()),
                ours: by_compiler[compiler.name()],
                baseline: None,
                unit: "ms",
                target: "-".into(),
            });
        }
    }

    eprintln!(
        "== the code each compiler makes: PlanResourceChange, null_resource, 10,000 triggers"
    );
    let mut code = Vec::new();
    let optimizing = if compilers.contains(&Compiler::Optimizing) {
        Some(plan_ms(&setup.null_component, Compiler::Optimizing, setup.runs).await?)
    } else {
        None
    };
    for &compiler in compilers {
        let took = match optimizing {
            Some(optimizing) if compiler == Compiler::Optimizing => optimizing,
            _ => plan_ms(&setup.null_component, compiler, setup.runs).await?,
        };
        eprintln!("   {:<48} {took:>8.1} ms", compiler.name());
        code.push(Row {
            what: format!(
                "PlanResourceChange, 10,000 triggers, examples/null release, {}",
                compiler.name()
            ),
            ours: took,
            baseline: optimizing,
            unit: "ms",
            target: "-".into(),
        });
    }

    {
        let component = &if setup.smoke {
            setup.null_debug_component.clone()
        } else {
            authors.debug(Profiles::CargoNew)?.component.clone()
        };
        let size = size_text(std::fs::metadata(component)?.len() as usize);
        eprintln!("== terrarium dev start on {} ({size})", component.display());
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        for _ in 0..setup.runs.min(3) {
            let scratch = tempfile::tempdir_in(&setup.dir)?;
            let cache = scratch.path().join("cache");
            cold.push(dev_start_ms(&setup.terrarium, component, &cache, scratch.path()).await?);
            warm.push(dev_start_ms(&setup.terrarium, component, &cache, scratch.path()).await?);
        }
        let (cold, warm) = (median(&mut cold), median(&mut warm));
        eprintln!("   cold cache {cold:.0} ms, warm cache {warm:.0} ms");
        reloads.push(Row {
            what: format!("`terrarium dev` start on the author's cargo-new debug build ({size}), cold cache: exec → serving"),
            ours: cold,
            baseline: None,
            unit: "ms",
            target: "-".into(),
        });
        reloads.push(Row {
            what: "`terrarium dev` start, same build, warm cache: exec → serving".into(),
            ours: warm,
            baseline: None,
            unit: "ms",
            target: "-".into(),
        });
    }

    Ok(vec![
        Table {
            title: format!("Hot reload under terrarium dev ({})", DEV_COMPILER.name()),
            ours: "terrarium dev".into(),
            baseline: format!("before ({})", Compiler::Unoptimized.name()),
            rows: reloads,
        },
        Table {
            title: "Each compiler: compile alone, and the whole reload".into(),
            ours: "time".into(),
            baseline: format!("compile, {}", Compiler::Optimizing.name()),
            rows: compiles,
        },
        Table {
            title: "The code each compiler makes".into(),
            ours: "PlanResourceChange".into(),
            baseline: Compiler::Optimizing.name().into(),
            rows: code,
        },
    ])
}

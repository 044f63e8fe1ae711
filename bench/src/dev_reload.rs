//! Reload under the real `terrarium dev` process, timed from outside it: every release example
//! component (examples/null, examples/random, ...) is served by `terrarium dev`, then a new
//! build is renamed over its file, as cargo leaves one, and the clock runs until a call made
//! after the process has logged the swap is answered. Unlike the `reload` section, which
//! wires the dev crate's pieces in this process, nothing here is inside the host: the figure is
//! what an author's next `terraform plan` waits for (plus terraform's own start).
//!
//! The host's own log line gives the part inside it: `took_ms` is reading, compiling (Winch),
//! instantiating and configuring the new build; the rest is the quiet period that lets one
//! write settle (`terrarium_dev::watch::COMPONENT_QUIET`), the file event, the log line and the
//! call.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use terrarium_plugin_client::{PluginConnector, rebuilt};
use terrarium_proto::tfplugin6 as pb;
use terrarium_proto::tfplugin6::provider_client::ProviderClient;
use tokio::io::AsyncBufReadExt as _;
use tokio::sync::mpsc;

use crate::{Row, Setup, Table, median, verdict};

/// The target: every release example component up to this size reloads within it.
const TARGET_MS: f64 = 100.0;
const UP_TO_BYTES: u64 = 2 << 20;

/// The release example components to reload: `RELEASE_EXAMPLES` (paths separated by `:`), else
/// examples/null's.
fn components(setup: &Setup) -> Vec<PathBuf> {
    match std::env::var_os("RELEASE_EXAMPLES") {
        Some(list) => std::env::split_paths(&list).filter(|p| p.exists()).collect(),
        None => vec![setup.null_component.clone()],
    }
}

/// The socket path of the one provider in a `TF_REATTACH_PROVIDERS` export line.
fn reattach_socket(line: &str) -> anyhow::Result<PathBuf> {
    let at = line.find("\"String\":\"").context("no socket address in the reattach line")? + 10;
    let end = line[at..].find('"').context("an unterminated socket address")? + at;
    Ok(PathBuf::from(&line[at..end]))
}

/// One reload: when the swap was logged, and the `took_ms` the host reported.
struct Logged {
    at: Instant,
    took_ms: Option<f64>,
}

fn took_ms(line: &str) -> Option<f64> {
    let at = line.find("took_ms=")? + 8;
    line[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// What reloading one component cost, medians of the runs.
struct Reloads {
    total_ms: f64,
    inside_ms: f64,
    /// CPU time the dev process spent from the rename to the answer: what a loaded machine
    /// stretches into wall time, and about what an idle one would take.
    cpu_ms: f64,
}

async fn reload_component(setup: &Setup, component: &Path) -> anyhow::Result<Reloads> {
    let scratch = tempfile::tempdir_in(&setup.dir)?;
    let path = scratch.path().join("provider.wasm");
    let bytes = std::fs::read(component)?;
    std::fs::write(&path, &bytes)?;
    let mut child = tokio::process::Command::new(&setup.terrarium)
        .arg("dev")
        .arg(&path)
        .args(["--source", "example/bench"])
        .env("XDG_CACHE_HOME", scratch.path().join("cache"))
        .env("TMPDIR", scratch.path())
        .env("TERRARIUM_LOG", "info")
        .env("NO_COLOR", "1")
        .current_dir(scratch.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start {} dev", setup.terrarium.display()))?;
    let stdout = child.stdout.take().context("no stdout")?;
    let stderr = child.stderr.take().context("no stderr")?;
    // The log, read as it comes: each "reloaded:" line is timed on arrival.
    let (sender, mut logged) = mpsc::unbounded_channel::<Logged>();
    let reader = tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let mut text = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("reloaded:") {
                let _ = sender.send(Logged { at: Instant::now(), took_ms: took_ms(&line) });
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let mut stdout = tokio::io::BufReader::new(stdout).lines();
    let socket = loop {
        match tokio::time::timeout(Duration::from_secs(300), stdout.next_line()).await {
            Ok(Ok(Some(line))) if line.starts_with("export TF_REATTACH_PROVIDERS=") => {
                break reattach_socket(&line)?;
            }
            Ok(Ok(Some(_))) => {}
            _ => {
                let _ = child.start_kill();
                let log = reader.await.unwrap_or_default();
                bail!("terrarium dev {} did not serve:\n{log}", component.display());
            }
        }
    };
    let channel = terrarium_plugin_client::connect(PluginConnector { socket, tls: None }).await?;
    let mut client = ProviderClient::new(channel);
    client.get_provider_schema(pb::get_provider_schema::Request {}).await?;
    let (mut totals, mut insides, mut cpus) = (Vec::new(), Vec::new(), Vec::new());
    let pid = child.id().context("terrarium dev exited")?;
    // One unmeasured reload first (the page cache, Winch's first use in the process).
    for round in 0..=setup.runs {
        let partial = path.with_extension("wasm.partial");
        std::fs::write(&partial, rebuilt(&bytes, &format!("dev-reload-{round}")))?;
        let cpu_before = crate::start::cpu_ms(pid)?;
        let written = Instant::now();
        std::fs::rename(&partial, &path)?;
        let Ok(Some(swap)) = tokio::time::timeout(Duration::from_secs(300), logged.recv()).await
        else {
            bail!("terrarium dev logged no reload of {} within 300 s", component.display())
        };
        client.get_provider_schema(pb::get_provider_schema::Request {}).await?;
        let total = written.elapsed().as_secs_f64() * 1e3;
        let cpu = crate::start::cpu_ms(pid)? - cpu_before;
        eprintln!(
            "   reload {round}: {total:.1} ms file renamed → call answered, {cpu:.1} ms of the dev process's CPU (logged {:.1} ms in, host's took_ms {})",
            (swap.at - written).as_secs_f64() * 1e3,
            swap.took_ms.map_or("-".into(), |t| format!("{t:.0}"))
        );
        if round > 0 {
            totals.push(total);
            insides.push(swap.took_ms.unwrap_or(f64::NAN));
            cpus.push(cpu);
        }
    }
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: a plain kill(2) of the child this function started, by its own pid.
        unsafe { libc::kill(pid, libc::SIGINT) };
    }
    if tokio::time::timeout(Duration::from_secs(10), child.wait()).await.is_err() {
        child.start_kill()?;
    }
    let _ = reader.await;
    Ok(Reloads {
        total_ms: median(&mut totals),
        inside_ms: median(&mut insides),
        cpu_ms: median(&mut cpus),
    })
}

pub async fn run(setup: &Setup) -> anyhow::Result<Vec<Table>> {
    let mut rows = Vec::new();
    for component in components(setup) {
        let size = std::fs::metadata(&component)?.len();
        let name = component.file_name().map_or_else(String::new, |n| n.to_string_lossy().into());
        eprintln!(
            "== terrarium dev, {name} ({:.2} MiB): new build renamed over → first call answered",
            size as f64 / f64::from(1 << 20)
        );
        let r = reload_component(setup, &component).await?;
        let target = if size <= UP_TO_BYTES {
            format!("≤ {TARGET_MS:.0} ms: {}", verdict(r.total_ms <= TARGET_MS))
        } else {
            "- (over 2 MiB)".into()
        };
        rows.push(Row {
            what: format!(
                "{name} ({:.2} MiB): file renamed over → first call answered after the swap \
                 (median of {})",
                size as f64 / f64::from(1 << 20),
                setup.runs
            ),
            ours: r.total_ms,
            baseline: None,
            unit: "ms",
            target,
        });
        rows.push(Row {
            what: format!(
                "{name}: of which inside the host (read, compile, instantiate, configure: the \
                 log's took_ms)"
            ),
            ours: r.inside_ms,
            baseline: None,
            unit: "ms",
            target: "-".into(),
        });
        rows.push(Row {
            what: format!(
                "{name}: CPU time of the terrarium dev process from the rename to the answer \
                 (every thread)"
            ),
            ours: r.cpu_ms,
            baseline: None,
            unit: "ms",
            target: "-".into(),
        });
    }
    Ok(vec![Table {
        title: "Reload under the terrarium dev process, release examples, timed from outside"
            .into(),
        ours: "terrarium dev".into(),
        baseline: "-".into(),
        rows,
    }])
}

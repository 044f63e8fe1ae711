//! `terraform plan` and `terraform apply` on N `null_resource`s, ours against Go's, with the
//! same configuration and the same terraform.
//!
//! Both providers are reached through `dev_overrides` in a CLI configuration, pointing at a
//! directory whose `terraform-provider-null` is a small shell wrapper that runs the real
//! provider under `/usr/bin/time`. Every provider process terraform starts thus writes its
//! user and system CPU time and its peak RSS to a file; the wrapper is the same for both
//! providers and `time` measures only its child.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::{Row, Setup, median, verdict};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Which {
    Ours,
    Go,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Ours => "ours",
            Which::Go => "go",
        }
    }
}

/// What one terraform command cost.
#[derive(Default, Clone, Copy)]
pub struct Sample {
    pub wall_s: f64,
    pub provider_cpu_s: f64,
    pub peak_rss_mb: f64,
    pub processes: usize,
    /// With [`run_sampled`]: the largest sum, over the samples taken while the command ran, of
    /// the proportional set sizes of every provider process alive at that sample (MiB).
    pub peak_pss_mb: f64,
    /// How many provider processes that largest sum was over.
    pub pss_processes: usize,
}

/// A CLI configuration whose `dev_overrides` run a provider under `/usr/bin/time`.
pub struct Prepared {
    cli_config: PathBuf,
    times_dir: PathBuf,
}

impl Prepared {
    /// Under `root`: the provider `source` (`hashicorp/null`) of type `type_name` is run by the
    /// shell command `command` (which must `exec` the provider).
    pub fn new(
        root: &Path,
        source: &str,
        type_name: &str,
        command: &str,
    ) -> anyhow::Result<Prepared> {
        let wrap = root.join("provider");
        let times_dir = root.join("times");
        std::fs::create_dir_all(&wrap)?;
        std::fs::create_dir_all(&times_dir)?;
        let script = wrap.join(format!("terraform-provider-{type_name}"));
        let timed = command.replacen(
            "exec ",
            "exec /usr/bin/time -f '%U %S %M' -o \"$TERRARIUM_BENCH_TIMES/$$\" ",
            1,
        );
        std::fs::write(&script, format!("#!/bin/sh\n{timed}\n"))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
        let cli_config = root.join("terraformrc");
        std::fs::write(
            &cli_config,
            format!(
                "provider_installation {{\n  dev_overrides {{\n    \"{source}\" = \"{}\"\n  }}\n  direct {{}}\n}}\n",
                wrap.display()
            ),
        )?;
        Ok(Prepared { cli_config, times_dir })
    }

    /// `terrarium serve --component COMPONENT` with its own compiled-component cache.
    pub fn ours(
        setup: &Setup,
        root: &Path,
        source: &str,
        type_name: &str,
        component: &Path,
    ) -> anyhow::Result<Prepared> {
        Prepared::ours_granted(setup, root, source, type_name, component, None)
    }

    /// [`Prepared::ours`] with the grants of a grants file (`--grants FILE`).
    pub fn ours_granted(
        setup: &Setup,
        root: &Path,
        source: &str,
        type_name: &str,
        component: &Path,
        grants: Option<&Path>,
    ) -> anyhow::Result<Prepared> {
        let cache_home = root.join("cache");
        std::fs::create_dir_all(&cache_home)?;
        let grants = grants.map(|g| format!(" --grants '{}'", g.display())).unwrap_or_default();
        let command = format!(
            "XDG_CACHE_HOME='{}' exec '{}' serve --component '{}'{grants}",
            cache_home.display(),
            setup.served.display(),
            component.display()
        );
        Prepared::new(root, source, type_name, &command)
    }
}

fn prepare(setup: &Setup, which: Which) -> anyhow::Result<Prepared> {
    let root = setup.dir.join(format!("tf-{}", which.name()));
    match which {
        Which::Ours => {
            Prepared::ours(setup, &root, "hashicorp/null", "null", &setup.null_component)
        }
        Which::Go => Prepared::new(
            &root,
            "hashicorp/null",
            "null",
            &format!("exec '{}'", setup.go_null.display()),
        ),
    }
}

fn workdir(setup: &Setup, which: Which, size: usize) -> anyhow::Result<PathBuf> {
    let dir = setup.dir.join(format!("tf-{}", which.name())).join(format!("work-{size}"));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("main.tf"),
        format!(
            "terraform {{\n  required_providers {{\n    null = {{ source = \"hashicorp/null\" }}\n  }}\n}}\n\n\
             resource \"null_resource\" \"r\" {{\n  count = {size}\n}}\n"
        ),
    )?;
    Ok(dir)
}

/// Runs `terraform ARGS` in `dir` with the provider `prepared` names.
pub fn run(
    setup: &Setup,
    prepared: &Prepared,
    dir: &Path,
    args: &[&str],
) -> anyhow::Result<Sample> {
    run_sampled(&setup.terraform, prepared, dir, args, None)
}

/// Runs `CLIENT ARGS` (terraform or tofu) in `dir` with the provider `prepared` names; with
/// `provider_exe`, samples the proportional set size of every process running that executable
/// that descends from the client, every 50 ms, and keeps the largest sum.
pub fn run_sampled(
    client: &Path,
    prepared: &Prepared,
    dir: &Path,
    args: &[&str],
    provider_exe: Option<&Path>,
) -> anyhow::Result<Sample> {
    for entry in std::fs::read_dir(&prepared.times_dir)? {
        std::fs::remove_file(entry?.path())?;
    }
    let (out_path, err_path) = (dir.join("client.stdout"), dir.join("client.stderr"));
    let started = Instant::now();
    let mut child = Command::new(client)
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", &prepared.cli_config)
        .env("TF_IN_AUTOMATION", "1")
        .env("CHECKPOINT_DISABLE", "1")
        .env("TERRARIUM_BENCH_TIMES", &prepared.times_dir)
        .env_remove("TF_LOG")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?)
        .spawn()
        .with_context(|| format!("cannot run {}", client.display()))?;
    let exe = provider_exe.map(std::fs::canonicalize).transpose()?;
    let client_pid = child.id();
    let done = std::sync::atomic::AtomicBool::new(false);
    let (status, wall_s, (peak_pss_kb, pss_processes)) = std::thread::scope(|scope| {
        // The sampler runs beside the wait, so that the wall time is not rounded to its period.
        let sampler = scope.spawn(|| {
            let mut peak = (0u64, 0usize);
            let Some(exe) = &exe else { return peak };
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let now = crate::pss::descendants_pss_kb(client_pid, exe);
                if now.0 > peak.0 {
                    peak = now;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            peak
        });
        let status = child.wait();
        let wall_s = started.elapsed().as_secs_f64();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (status, wall_s, sampler.join().unwrap_or((0, 0)))
    });
    let status = status?;
    if !status.success() {
        bail!(
            "{} {} failed in {}:\n{}{}",
            client.display(),
            args.join(" "),
            dir.display(),
            std::fs::read_to_string(&out_path).unwrap_or_default(),
            std::fs::read_to_string(&err_path).unwrap_or_default()
        );
    }
    let mut sample = Sample {
        wall_s,
        peak_pss_mb: peak_pss_kb as f64 / 1024.0,
        pss_processes,
        ..Sample::default()
    };
    for entry in std::fs::read_dir(&prepared.times_dir)? {
        let text = std::fs::read_to_string(entry?.path())?;
        // `time` may prefix a line such as "Command terminated by signal 9".
        let Some(line) = text.lines().last() else { continue };
        let fields: Vec<f64> = line.split_whitespace().filter_map(|f| f.parse().ok()).collect();
        if let [user, sys, rss_kb] = fields[..] {
            sample.provider_cpu_s += user + sys;
            sample.peak_rss_mb = sample.peak_rss_mb.max(rss_kb / 1024.0);
            sample.processes += 1;
        }
    }
    Ok(sample)
}

pub fn plan(setup: &Setup, p: &Prepared, dir: &Path) -> anyhow::Result<Sample> {
    run(setup, p, dir, &["plan", "-input=false", "-no-color", "-lock=false"])
}

/// The first apply: the state is removed first.
pub fn apply(setup: &Setup, p: &Prepared, dir: &Path) -> anyhow::Result<Sample> {
    for name in ["terraform.tfstate", "terraform.tfstate.backup"] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    run(setup, p, dir, &["apply", "-auto-approve", "-input=false", "-no-color", "-lock=false"])
}

pub fn run_all(setup: &Setup) -> anyhow::Result<Vec<Row>> {
    let ours = prepare(setup, Which::Ours)?;
    let go = prepare(setup, Which::Go)?;
    let mut rows = Vec::new();
    for &size in &setup.sizes {
        eprintln!("== terraform plan / apply, {size} null_resource(s), alternating runs");
        let dirs = [
            (Which::Ours, workdir(setup, Which::Ours, size)?),
            (Which::Go, workdir(setup, Which::Go, size)?),
        ];
        // One unmeasured round each: fills our compile cache and the OS page cache.
        for (which, dir) in &dirs {
            let p = if *which == Which::Ours { &ours } else { &go };
            plan(setup, p, dir)?;
        }
        let mut samples: Vec<(Which, &str, Sample)> = Vec::new();
        // An apply of 10,000 resources takes minutes: fewer runs there.
        let runs = if size >= 10_000 { setup.runs.min(3) } else { setup.runs };
        for i in 0..runs {
            let order: Vec<&(Which, PathBuf)> =
                if i % 2 == 0 { dirs.iter().collect() } else { dirs.iter().rev().collect() };
            for (which, dir) in order {
                let p = if *which == Which::Ours { &ours } else { &go };
                let s = plan(setup, p, dir)?;
                eprintln!(
                    "   {:<4} plan  {:>7.3} s  cpu {:.3} s  rss {:.1} MB  ({} processes)",
                    which.name(),
                    s.wall_s,
                    s.provider_cpu_s,
                    s.peak_rss_mb,
                    s.processes
                );
                samples.push((*which, "plan", s));
                let s = apply(setup, p, dir)?;
                eprintln!(
                    "   {:<4} apply {:>7.3} s  cpu {:.3} s  rss {:.1} MB  ({} processes)",
                    which.name(),
                    s.wall_s,
                    s.provider_cpu_s,
                    s.peak_rss_mb,
                    s.processes
                );
                samples.push((*which, "apply", s));
            }
        }
        for command in ["plan", "apply"] {
            let pick = |which: Which, f: fn(&Sample) -> f64| -> f64 {
                let mut v: Vec<f64> = samples
                    .iter()
                    .filter(|(w, c, _)| *w == which && *c == command)
                    .map(|(_, _, s)| f(s))
                    .collect();
                median(&mut v)
            };
            let wall = (pick(Which::Ours, |s| s.wall_s), pick(Which::Go, |s| s.wall_s));
            let cpu =
                (pick(Which::Ours, |s| s.provider_cpu_s), pick(Which::Go, |s| s.provider_cpu_s));
            let rss = (pick(Which::Ours, |s| s.peak_rss_mb), pick(Which::Go, |s| s.peak_rss_mb));
            let procs = pick(Which::Ours, |s| s.processes as f64);
            let wall_limit = if size == 1 { 0.9 } else { 1.0 };
            let cpu_limit = if size >= 10_000 { 0.3 } else { 0.5 };
            rows.push(Row {
                what: format!("terraform {command}, {size} resource(s): wall time"),
                ours: wall.0,
                baseline: Some(wall.1),
                unit: "s",
                target: format!("ratio ≤ {wall_limit}: {}", verdict(wall.0 <= wall.1 * wall_limit)),
            });
            rows.push(Row {
                what: format!(
                    "terraform {command}, {size}: provider CPU, all {procs:.0} processes"
                ),
                ours: cpu.0,
                baseline: Some(cpu.1),
                unit: "s",
                target: format!("ratio ≤ {cpu_limit}: {}", verdict(cpu.0 <= cpu.1 * cpu_limit)),
            });
            rows.push(Row {
                what: format!("terraform {command}, {size}: peak RSS of a provider process"),
                ours: rss.0,
                baseline: Some(rss.1),
                unit: "MB",
                target: format!("ratio ≤ 1: {}", verdict(rss.0 <= rss.1)),
            });
        }
    }
    Ok(rows)
}

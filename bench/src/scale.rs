//! Scale beyond the null provider's plan/apply sizes, through real terraform:
//!
//! * one resource with a 10,000-element set of nested objects: the README's `pets_pet` (the
//!   author's crate, release build) with 10,000 `toys`, each with a computed serial kept
//!   through updates. terraform-plugin-framework is known to take over a minute of provider
//!   CPU for 1,000 set blocks (its set handling compares elements pairwise);
//! * the memory of a provider whose instance pool grew to 16: `slow_server`s (the
//!   tests/guests/slow fixture, release) that each take a second to create, applied with
//!   `-parallelism=16`, against the same apply with `-parallelism=1`.

use std::fmt::Write as _;
use std::path::Path;

use crate::author::Builds;
use crate::terraform::{self, Prepared, Sample};
use crate::{Row, Setup, Table, median, verdict};

const TOYS: usize = 10_000;
/// The pool's width (`-parallelism`) and the number of `slow_server`s applied at it.
const WIDE: usize = 16;
const WIDE_SERVERS: usize = 32;

/// The set's size, or ten elements in a smoke run.
fn toys(setup: &Setup) -> usize {
    if setup.smoke { 10 } else { TOYS }
}

fn pets_config(toys: usize, name: &str) -> String {
    let mut text = String::from(
        "terraform {\n  required_providers {\n    pets = { source = \"example.com/you/pets\" }\n  }\n}\n\n\
         resource \"pets_pet\" \"rex\" {\n",
    );
    let _ = writeln!(text, "  name = \"{name}\"\n  toys = [");
    for i in 0..toys {
        let _ = writeln!(text, "    {{ kind = \"toy-{i:05}\" }},");
    }
    text.push_str("  ]\n}\n");
    text
}

fn medians(samples: &mut [Sample]) -> Sample {
    let pick = |f: fn(&Sample) -> f64| {
        let mut v: Vec<f64> = samples.iter().map(f).collect();
        median(&mut v)
    };
    Sample {
        wall_s: pick(|s| s.wall_s),
        provider_cpu_s: pick(|s| s.provider_cpu_s),
        peak_rss_mb: pick(|s| s.peak_rss_mb),
        processes: pick(|s| s.processes as f64) as usize,
        ..Sample::default()
    }
}

fn rows_for(what: &str, s: &Sample, cpu_target_s: Option<f64>) -> Vec<Row> {
    vec![
        Row {
            what: format!("{what}: wall time"),
            ours: s.wall_s,
            baseline: None,
            unit: "s",
            target: "-".into(),
        },
        Row {
            what: format!("{what}: provider CPU, all {} processes", s.processes),
            ours: s.provider_cpu_s,
            baseline: None,
            unit: "s",
            target: match cpu_target_s {
                Some(t) => format!("< {t} s: {}", verdict(s.provider_cpu_s < t)),
                None => "-".into(),
            },
        },
        Row {
            what: format!("{what}: peak RSS of a provider process"),
            ours: s.peak_rss_mb,
            baseline: None,
            unit: "MB",
            target: "-".into(),
        },
    ]
}

/// A plan, an apply and a plan with nothing to change, of one `pets_pet` with 10,000 toys.
fn big_set(setup: &Setup, authors: &mut Builds) -> anyhow::Result<Vec<Row>> {
    let component = authors.release()?;
    let toys = toys(setup);
    eprintln!("== one pets_pet with a set of {toys} toys (objects), through terraform");
    let root = setup.dir.join("scale-set");
    let prepared = Prepared::ours(setup, &root, "example.com/you/pets", "pets", &component)?;
    let work = root.join("work");
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("main.tf"), pets_config(toys, "rex"))?;
    // Fills the compiled-component cache.
    terraform::plan(setup, &prepared, &work)?;
    let (mut plans, mut applies, mut replans) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..setup.runs.min(3) {
        plans.push(terraform::plan(setup, &prepared, &work)?);
        applies.push(terraform::apply(setup, &prepared, &work)?);
        replans.push(terraform::run(
            setup,
            &prepared,
            &work,
            &["plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode"],
        )?);
        for (what, s) in [
            ("plan", plans.last()),
            ("apply", applies.last()),
            ("plan, no changes", replans.last()),
        ] {
            if let Some(s) = s {
                eprintln!(
                    "   {what:<17} {:>7.3} s  cpu {:.3} s  rss {:.1} MB  ({} processes)",
                    s.wall_s, s.provider_cpu_s, s.peak_rss_mb, s.processes
                );
            }
        }
    }
    let mut rows = Vec::new();
    let what = |c: &str| format!("{c}, one pets_pet with a set of {toys} objects");
    rows.extend(rows_for(&what("terraform plan"), &medians(&mut plans), Some(1.0)));
    rows.extend(rows_for(&what("terraform apply"), &medians(&mut applies), Some(1.0)));
    rows.extend(rows_for(
        &what("terraform plan after apply (no changes)"),
        &medians(&mut replans),
        Some(1.0),
    ));
    Ok(rows)
}

fn slow_config(servers: usize) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    slow = {{ source = \"example/slow\" }}\n  }}\n}}\n\n\
         resource \"slow_server\" \"s\" {{\n  count        = {servers}\n  boot_seconds = 1\n}}\n"
    )
}

/// Peak RSS of the provider during an apply of slow resources at two parallelisms.
fn pool_memory(setup: &Setup) -> anyhow::Result<Vec<Row>> {
    // A smoke run grows the pool to 2 with 2 servers.
    let (wide_n, servers) = if setup.smoke { (2, 2) } else { (WIDE, WIDE_SERVERS) };
    eprintln!(
        "== memory of an instance pool grown to {wide_n}: slow_server (1 s each), -parallelism={wide_n} and 1"
    );
    let root = setup.dir.join("scale-pool");
    let prepared = Prepared::ours(setup, &root, "example/slow", "slow", &setup.slow_component)?;
    let apply = |work: &Path, servers: usize, parallelism: usize| -> anyhow::Result<Sample> {
        std::fs::create_dir_all(work)?;
        std::fs::write(work.join("main.tf"), slow_config(servers))?;
        for name in ["terraform.tfstate", "terraform.tfstate.backup"] {
            let _ = std::fs::remove_file(work.join(name));
        }
        let parallelism = format!("-parallelism={parallelism}");
        terraform::run(
            setup,
            &prepared,
            work,
            &["apply", "-auto-approve", "-input=false", "-no-color", "-lock=false", &parallelism],
        )
    };
    let (wide, narrow) = (root.join("p16"), root.join("p1"));
    // Fills the compiled-component cache.
    apply(&narrow, 1, 1)?;
    let (mut at16, mut at1) = (Vec::new(), Vec::new());
    let narrow_servers = setup.times(4);
    for _ in 0..setup.runs.min(3) {
        at16.push(apply(&wide, servers, wide_n)?);
        at1.push(apply(&narrow, narrow_servers, 1)?);
        eprintln!(
            "   peak RSS {:.1} MB at -parallelism={wide_n} ({servers} servers, {:.1} s), {:.1} MB at -parallelism=1 ({narrow_servers} servers)",
            at16.last().map_or(0.0, |s| s.peak_rss_mb),
            at16.last().map_or(0.0, |s| s.wall_s),
            at1.last().map_or(0.0, |s| s.peak_rss_mb),
        );
    }
    let (wide, narrow) = (medians(&mut at16), medians(&mut at1));
    Ok(vec![
        Row {
            what: format!(
                "terraform apply, {servers} slow_servers, -parallelism={wide_n} ({wide_n} instances): peak RSS of the provider"
            ),
            ours: wide.peak_rss_mb,
            baseline: Some(narrow.peak_rss_mb),
            unit: "MB",
            target: "-".into(),
        },
        Row {
            what: format!(
                "the same: each instance beyond the first, (RSS at {wide_n} - RSS at 1) / {}",
                wide_n - 1
            ),
            ours: (wide.peak_rss_mb - narrow.peak_rss_mb) / (wide_n - 1) as f64,
            baseline: None,
            unit: "MB",
            target: "-".into(),
        },
        Row {
            what: format!(
                "the same: wall time ({servers} × 1 s at {wide_n} at once: {} s of waiting)",
                servers.div_ceil(wide_n)
            ),
            ours: wide.wall_s,
            baseline: None,
            unit: "s",
            target: "-".into(),
        },
    ])
}

pub fn run(setup: &Setup, authors: &mut Builds) -> anyhow::Result<Vec<Table>> {
    Ok(vec![
        Table {
            title: format!(
                "A set of {} objects through terraform (the README's pets provider, release)",
                toys(setup)
            ),
            ours: "terrarium".into(),
            baseline: "-".into(),
            rows: big_set(setup, authors)?,
        },
        Table {
            title: format!(
                "An instance pool grown to {} (tests/guests/slow, release)",
                if setup.smoke { 2 } else { WIDE }
            ),
            ours: format!("-parallelism={}", if setup.smoke { 2 } else { WIDE }),
            baseline: "-parallelism=1".into(),
            rows: pool_memory(setup)?,
        },
    ])
}

//! Many provider instances: every provider configuration (a terraform alias, an OpenTofu
//! provider `for_each` instance) is its own provider process, so N configurations cost N
//! processes. One `plan` and one `apply` with N configurations of one provider, each managing
//! one resource, for N = 1, 8, 32, 64: the largest summed proportional set size (PSS) of all the
//! provider processes alive at once, the wall time and the provider CPU. Terrarium's processes
//! map the same host executable and the same compiled component, so their pages are shared and
//! PSS counts them once; native Go processes share their executable's pages too, but each
//! builds its own heap.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::terraform::{self, Prepared, Sample};
use crate::{Row, Setup, Table, median, verdict};

/// The configuration counts measured (`--smoke`: the first only).
pub const COUNTS: [usize; 4] = [1, 8, 32, 64];

/// Targets: total PSS at the largest N against the native provider's, and the PSS each
/// configuration beyond the first adds.
const TOTAL_RATIO_TARGET: f64 = 0.2;
const PER_INSTANCE_TARGET_MB: f64 = 5.0;

/// A provider measured as a component and natively.
struct Pair {
    /// What the tables call it.
    label: String,
    /// `hashicorp/null`
    source: String,
    /// `null`
    type_name: String,
    /// The resource each configuration manages, and its arguments (HCL body lines).
    resource: String,
    body: String,
    /// What each provider block says (HCL body lines; `{dir}` becomes the configuration's own
    /// directory, made under [`Pair::dirs`] before the run).
    provider_body: String,
    /// A directory under which each configuration gets its own (and ours is granted,
    /// read-write), for a provider that keeps its resources in files.
    dirs: Option<String>,
    component: PathBuf,
    native: PathBuf,
    native_label: String,
}

/// How the N configurations are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Client {
    /// terraform, N `provider` blocks with aliases.
    TerraformAliases,
    /// OpenTofu, one `provider` block with `for_each` over N keys.
    TofuForEach,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::TerraformAliases => "terraform, N aliases",
            Client::TofuForEach => "OpenTofu, provider for_each over N keys",
        }
    }

    fn dir_name(self) -> &'static str {
        match self {
            Client::TerraformAliases => "aliases",
            Client::TofuForEach => "for-each",
        }
    }
}

fn configuration(pair: &Pair, client: Client, n: usize, dirs: Option<&Path>) -> String {
    let (source, ty, resource, body) = (&pair.source, &pair.type_name, &pair.resource, &pair.body);
    let provider_body = |key: &str| match dirs {
        Some(dirs) => pair.provider_body.replace("{dir}", &format!("{}/{key}", dirs.display())),
        None => pair.provider_body.clone(),
    };
    let mut text = format!(
        "terraform {{\n  required_providers {{\n    {ty} = {{ source = \"{source}\" }}\n  }}\n}}\n\n"
    );
    match client {
        Client::TerraformAliases => {
            for i in 0..n {
                let _ = writeln!(
                    text,
                    "provider \"{ty}\" {{\n  alias = \"p{i}\"\n{}}}\n\n\
                     resource \"{resource}\" \"r{i}\" {{\n  provider = {ty}.p{i}\n{body}}}\n",
                    provider_body(&format!("k{i}"))
                );
            }
        }
        Client::TofuForEach => {
            let _ = writeln!(
                text,
                "locals {{\n  keys = toset([for i in range({n}) : \"k${{i}}\"])\n}}\n\n\
                 provider \"{ty}\" {{\n  alias    = \"each\"\n  for_each = local.keys\n{}}}\n\n\
                 resource \"{resource}\" \"r\" {{\n  for_each = local.keys\n  provider = {ty}.each[each.key]\n{body}}}",
                provider_body("${each.key}")
            );
        }
    }
    text
}

/// One plan and one apply (on an empty state): the wall times and provider CPU added, the
/// larger of the two PSS peaks.
fn plan_and_apply(
    client: &Path,
    prepared: &Prepared,
    dir: &Path,
    exe: &Path,
) -> anyhow::Result<Sample> {
    for name in ["terraform.tfstate", "terraform.tfstate.backup"] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    let plan = terraform::run_sampled(
        client,
        prepared,
        dir,
        &["plan", "-input=false", "-no-color", "-lock=false"],
        Some(exe),
    )?;
    let apply = terraform::run_sampled(
        client,
        prepared,
        dir,
        &["apply", "-auto-approve", "-input=false", "-no-color", "-lock=false"],
        Some(exe),
    )?;
    let (peak_pss_mb, pss_processes) = if apply.peak_pss_mb >= plan.peak_pss_mb {
        (apply.peak_pss_mb, apply.pss_processes)
    } else {
        (plan.peak_pss_mb, plan.pss_processes)
    };
    Ok(Sample {
        wall_s: plan.wall_s + apply.wall_s,
        provider_cpu_s: plan.provider_cpu_s + apply.provider_cpu_s,
        peak_rss_mb: plan.peak_rss_mb.max(apply.peak_rss_mb),
        processes: plan.processes + apply.processes,
        peak_pss_mb,
        pss_processes,
    })
}

fn medians(samples: &[Sample]) -> Sample {
    let pick = |f: fn(&Sample) -> f64| median(&mut samples.iter().map(f).collect::<Vec<_>>());
    Sample {
        wall_s: pick(|s| s.wall_s),
        provider_cpu_s: pick(|s| s.provider_cpu_s),
        peak_rss_mb: pick(|s| s.peak_rss_mb),
        processes: pick(|s| s.processes as f64) as usize,
        peak_pss_mb: pick(|s| s.peak_pss_mb),
        pss_processes: pick(|s| s.pss_processes as f64) as usize,
    }
}

fn measure(
    setup: &Setup,
    pair: &Pair,
    client: Client,
    client_exe: &Path,
    counts: &[usize],
) -> anyhow::Result<Vec<Row>> {
    let root = setup.dir.join("instances").join(&pair.type_name).join(client.dir_name());
    // Each configuration's directory, made beforehand (keys k0, k1, ... in both clients).
    let dirs = match &pair.dirs {
        Some(name) => {
            let dirs = root.join(name);
            for i in 0..counts.iter().copied().max().unwrap_or(1) {
                std::fs::create_dir_all(dirs.join(format!("k{i}")))?;
            }
            Some(dirs)
        }
        None => None,
    };
    let ours = match &dirs {
        Some(dirs) => {
            let grants = root.join("grants.toml");
            std::fs::write(&grants, format!("allow_dir = [\"{}:rw\"]\n", dirs.display()))?;
            Prepared::ours_granted(
                setup,
                &root.join("ours"),
                &pair.source,
                &pair.type_name,
                &pair.component,
                Some(&grants),
            )?
        }
        None => Prepared::ours(
            setup,
            &root.join("ours"),
            &pair.source,
            &pair.type_name,
            &pair.component,
        )?,
    };
    let native = Prepared::new(
        &root.join("native"),
        &pair.source,
        &pair.type_name,
        &format!("exec '{}'", pair.native.display()),
    )?;
    let sides = [(&ours, setup.served.as_path()), (&native, pair.native.as_path())];
    let mut rows = Vec::new();
    let mut totals: Vec<(usize, f64, f64)> = Vec::new();
    for &n in counts {
        eprintln!("== {} ({}), {n} configuration(s)", pair.label, client.name());
        let dirs: Vec<PathBuf> = ["ours", "native"]
            .iter()
            .map(|side| {
                let dir = root.join(side).join(format!("n{n}"));
                std::fs::create_dir_all(&dir)?;
                std::fs::write(
                    dir.join("main.tf"),
                    configuration(pair, client, n, dirs.as_deref()),
                )?;
                Ok(dir)
            })
            .collect::<anyhow::Result<_>>()?;
        // One unmeasured plan each: fills our compile cache and the page cache.
        for (k, (prepared, _)) in sides.iter().enumerate() {
            terraform::run_sampled(
                client_exe,
                prepared,
                &dirs[k],
                &["plan", "-input=false", "-lock=false"],
                None,
            )?;
        }
        let mut samples: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
        for run in 0..setup.runs {
            let order: [usize; 2] = if run % 2 == 0 { [0, 1] } else { [1, 0] };
            for k in order {
                let (prepared, exe) = sides[k];
                let s = plan_and_apply(client_exe, prepared, &dirs[k], exe)?;
                eprintln!(
                    "   {:<6} peak PSS {:>7.1} MB over {:>2} processes, wall {:.3} s, cpu {:.3} s",
                    if k == 0 { "ours" } else { "native" },
                    s.peak_pss_mb,
                    s.pss_processes,
                    s.wall_s,
                    s.provider_cpu_s
                );
                samples[k].push(s);
            }
        }
        let (o, g) = (medians(&samples[0]), medians(&samples[1]));
        let last = Some(n) == counts.iter().copied().max() && n > 1;
        rows.push(Row {
            what: format!(
                "{}, {n} configuration(s), plan + apply: peak PSS of all provider processes \
                 (ours {} at once, native {})",
                client.name(),
                o.pss_processes,
                g.pss_processes
            ),
            ours: o.peak_pss_mb,
            baseline: Some(g.peak_pss_mb),
            unit: "MB",
            target: if last {
                format!(
                    "ratio ≤ {TOTAL_RATIO_TARGET}: {}",
                    verdict(o.peak_pss_mb <= g.peak_pss_mb * TOTAL_RATIO_TARGET)
                )
            } else {
                "-".into()
            },
        });
        rows.push(Row {
            what: format!("{}, {n}: wall time, plan + apply", client.name()),
            ours: o.wall_s,
            baseline: Some(g.wall_s),
            unit: "s",
            target: "-".into(),
        });
        rows.push(Row {
            what: format!(
                "{}, {n}: provider CPU, plan + apply, all processes (ours {}, native {})",
                client.name(),
                o.processes,
                g.processes
            ),
            ours: o.provider_cpu_s,
            baseline: Some(g.provider_cpu_s),
            unit: "s",
            target: "-".into(),
        });
        totals.push((n, o.peak_pss_mb, g.peak_pss_mb));
    }
    if let Some(&(_, one_ours, one_native)) = totals.iter().find(|t| t.0 == 1) {
        for &(n, ours, native) in totals.iter().filter(|t| t.0 > 1) {
            let (o, g) =
                ((ours - one_ours) / (n - 1) as f64, (native - one_native) / (n - 1) as f64);
            rows.push(Row {
                what: format!(
                    "{}: PSS each configuration beyond the first adds, (PSS at {n} - PSS at 1) / {}",
                    client.name(),
                    n - 1
                ),
                ours: o,
                baseline: Some(g),
                unit: "MB",
                target: format!(
                    "≤ {PER_INSTANCE_TARGET_MB} MB: {}",
                    verdict(o <= PER_INSTANCE_TARGET_MB)
                ),
            });
        }
    }
    Ok(rows)
}

pub fn run(setup: &Setup) -> anyhow::Result<Vec<Table>> {
    let counts: Vec<usize> = if setup.smoke { vec![COUNTS[0]] } else { COUNTS.to_vec() };
    let mut pairs = vec![Pair {
        label: "examples/null against the Go null provider 2.1.2".into(),
        source: "hashicorp/null".into(),
        type_name: "null".into(),
        resource: "null_resource".into(),
        body: String::new(),
        provider_body: String::new(),
        dirs: None,
        component: setup.null_component.clone(),
        native: setup.go_null.clone(),
        native_label: "Go null 2.1.2".into(),
    }];
    // The fairest pair there is: examples/pets/framework, one terraform-plugin-framework
    // source built natively and as a component (through the tfprotov6 adapter).
    let framework = (
        std::env::var_os("FRAMEWORK_PETS_NATIVE").map(PathBuf::from).filter(|p| p.exists()),
        std::env::var_os("PETS_FRAMEWORK_COMPONENT").map(PathBuf::from).filter(|p| p.exists()),
    );
    match framework {
        (Some(native), Some(component)) => pairs.push(Pair {
            label: "examples/pets/framework, native and as a component".into(),
            source: "terrarium/pets".into(),
            type_name: "pets".into(),
            resource: "pets_pet".into(),
            body: "  name = \"rex\"\n".into(),
            provider_body: "  directory = \"{dir}\"\n".into(),
            dirs: Some("pets".into()),
            component,
            native,
            native_label: "framework pets, native Go".into(),
        }),
        _ => eprintln!(
            "   FRAMEWORK_PETS_NATIVE and PETS_FRAMEWORK_COMPONENT are not both set: the \
             framework pets pair is left out"
        ),
    }
    let tofu = std::env::var_os("TOFU").map(PathBuf::from).filter(|p| p.exists());
    if tofu.is_none() {
        eprintln!("   TOFU is not set: the OpenTofu provider for_each half is left out");
    }
    let mut tables = Vec::new();
    for pair in &pairs {
        let mut rows = measure(setup, pair, Client::TerraformAliases, &setup.terraform, &counts)?;
        if let Some(tofu) = &tofu {
            rows.extend(measure(setup, pair, Client::TofuForEach, tofu, &counts)?);
        }
        tables.push(Table {
            title: format!("Many provider configurations: {}", pair.label),
            ours: "terrarium".into(),
            baseline: pair.native_label.clone(),
            rows,
        });
    }
    Ok(tables)
}

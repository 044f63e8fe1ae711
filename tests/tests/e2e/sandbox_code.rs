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
    let ws = scratch.workspace(&mirror)?;
    let mut config = probes(&attempts);
    // The grant still works for data: this one is written.
    config.push_str(
        &probes(&[("data", "write-file", at("notes.txt"))])
            .replace(&required(Provider::Hostile), ""),
    );
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

//! A guest SDK README's install-and-apply section, run as a reader runs it: its `sh` block with
//! `terrarium install`, its `hcl` block as `main.tf`, its `sh` block with `terraform init`, in
//! one shell, with `terrarium` and `terraform` on the PATH. The reader answers `yes` to
//! `terraform apply` (`TF_CLI_ARGS_apply=-auto-approve`); nothing else is changed but the
//! example directory, moved into the test's. Any warning on that path fails: a newcomer
//! following the README should see none.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context as _, ensure};

use crate::Artifacts;
use crate::workspace::run_with_timeout;

/// The fenced blocks of `text` whose info string starts with `lang`.
pub fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        if info.split_whitespace().next().unwrap_or("") == lang {
            out.push(body.join("\n") + "\n");
        }
    }
    out
}

/// What the README's install-and-apply section printed, stdout and stderr together.
#[derive(Debug)]
pub struct Walkthrough {
    pub output: String,
}

/// Runs `readme`'s install and apply blocks in `dir` (the reader's project directory), each
/// `from` of `replace` replaced by its `to`, with `env` added. Fails when a block fails or
/// anything on the way warns.
pub fn install_and_apply(
    readme: &str,
    dir: &Path,
    replace: &[(&str, &str)],
    env: &[(&str, &str)],
) -> anyhow::Result<Walkthrough> {
    let artifacts = Artifacts::get()?;
    let sh = blocks(readme, "sh");
    let install = sh
        .iter()
        .find(|b| b.contains("terrarium install"))
        .context("no `terrarium install` block")?;
    let apply =
        sh.iter().find(|b| b.contains("terraform init")).context("no `terraform init` block")?;
    let hcl = blocks(readme, "hcl");
    let main_tf = hcl.first().context("no hcl block")?;
    let here =
        |text: &str| replace.iter().fold(text.to_owned(), |t, (from, to)| t.replace(from, to));
    std::fs::write(dir.join("main.tf"), here(main_tf))?;
    let script = format!("{}\n{}", here(install), here(apply));

    let terrarium_dir = artifacts.terrarium()?.parent().context("terrarium has no directory")?;
    let terraform_dir = artifacts.terraform.parent().context("terraform has no directory")?;
    let path = std::env::join_paths(
        [terrarium_dir.to_owned(), terraform_dir.to_owned()]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )?;
    let mut command = Command::new("bash");
    command
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir)
        .env("PATH", path)
        .env("TF_CLI_ARGS_apply", "-auto-approve")
        .env("CHECKPOINT_DISABLE", "1")
        .env_remove("TF_CLI_CONFIG_FILE")
        .env_remove("TF_IN_AUTOMATION")
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(600))?;
    let output = format!("{stdout}\n{stderr}");
    ensure!(
        code == Some(0),
        "the README's install and apply failed (exit {code:?}):\n--- script\n{script}\n--- output\n{output}"
    );
    let warnings: Vec<&str> =
        output.lines().filter(|l| l.to_lowercase().contains("warning")).collect();
    ensure!(
        warnings.is_empty(),
        "the README's install and apply warned {warnings:?}:\n--- script\n{script}\n--- output\n{output}"
    );
    ensure!(output.contains("Apply complete!"), "the README's apply applied nothing:\n{output}");
    Ok(Walkthrough { output })
}

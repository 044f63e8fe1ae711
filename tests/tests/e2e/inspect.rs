//! `terrarium inspect COMPONENT` prints exactly what `terraform providers schema -json` shows
//! for that provider (key order aside).

use std::process::{Command, Stdio};

use anyhow::{Context as _, ensure};
use serde_json::Value;
use terrarium_tests::json::{assert_same, provider_schema};
use terrarium_tests::{Artifacts, Provider, Workspace};

/// `terrarium inspect` output for `provider`'s component.
pub fn inspect(provider: Provider) -> anyhow::Result<Value> {
    let artifacts = Artifacts::get()?;
    let crate_name = provider.component_crate().context("not a component provider")?;
    let component = artifacts.component(crate_name)?;
    let output = Command::new(artifacts.terrarium()?)
        .arg("inspect")
        .arg(&component)
        .stdin(Stdio::null())
        .output()
        .context("running terrarium inspect")?;
    let stdout = String::from_utf8(output.stdout)?;
    ensure!(
        output.status.success(),
        "terrarium inspect failed ({}):\n{stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout)
        .with_context(|| format!("terrarium inspect printed no JSON:\n{stdout}"))
}

/// `terraform providers schema -json` for a configuration requiring just `provider`: the whole
/// document.
pub fn terraform_schema(provider: Provider) -> anyhow::Result<Value> {
    let workspace = Workspace::new(&[provider])?;
    workspace.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n",
            provider.required_providers_entry()
        ),
    )?;
    workspace.init()?;
    workspace.json(&["providers", "schema", "-json"])
}

pub fn inspect_matches_terraform(provider: Provider) -> anyhow::Result<()> {
    let from_terraform = terraform_schema(provider)?;
    let expected = provider_schema(&from_terraform, provider.source())?;
    assert_same(
        "`terrarium inspect` and `terraform providers schema -json`",
        expected,
        &inspect(provider)?,
    )
}

#[test]
fn null_inspect_matches_terraform_providers_schema() -> anyhow::Result<()> {
    inspect_matches_terraform(Provider::Null)
}

#[test]
fn random_inspect_matches_terraform_providers_schema() -> anyhow::Result<()> {
    inspect_matches_terraform(Provider::Random)
}

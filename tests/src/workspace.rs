//! The e2e tests' workspaces: the public [`terrarium_acctest::Workspace`], with providers
//! from this repository's mirrors and this build's terraform.

use std::ops::Deref;
use std::path::PathBuf;

use anyhow::{Context as _, bail};

pub use terrarium_acctest::workspace::{
    Run, TERRAFORM_TIMEOUT, hcl_string, kill_group, run_with_timeout,
};

use crate::artifacts::Artifacts;
use crate::mirror::{Mirror, Provider, terrarium_install_with};

/// A [`terrarium_acctest::Workspace`] (everything it does is reached through `Deref`) whose
/// terraform is the one this build runs.
pub struct Workspace(terrarium_acctest::Workspace);

impl Deref for Workspace {
    type Target = terrarium_acctest::Workspace;

    fn deref(&self) -> &terrarium_acctest::Workspace {
        &self.0
    }
}

impl Workspace {
    /// Deletes the provider `source`'s entry from `.terraform.lock.hcl`, as the advice for a
    /// changed package tells a person to.
    pub fn delete_lock_entry(&self, source: &str) -> anyhow::Result<()> {
        let lock = self.read(".terraform.lock.hcl")?;
        let entry = format!("provider \"{source}\" {{");
        let start =
            lock.find(&entry).context("no entry for the provider in .terraform.lock.hcl")?;
        let end =
            lock[start..].find("\n}\n").map(|i| start + i + 3).context("an unterminated entry")?;
        self.write(".terraform.lock.hcl", &format!("{}{}", &lock[..start], &lock[end..]))
    }

    /// A workspace whose CLI config offers exactly `providers`, each from its own mirror,
    /// and nothing from the network.
    pub fn new(providers: &[Provider]) -> anyhow::Result<Workspace> {
        let mut blocks = String::new();
        for (i, provider) in providers.iter().enumerate() {
            if providers[..i].iter().any(|p| p.source() == provider.source()) {
                bail!(
                    "{provider:?} and another provider in {providers:?} share the source {}",
                    provider.source()
                );
            }
            let mirror = provider.mirror()?;
            blocks.push_str(&format!(
                "  filesystem_mirror {{\n    path    = {}\n    include = [\"{}\"]\n  }}\n",
                hcl_string(&mirror.root().to_string_lossy()),
                provider.source()
            ));
        }
        Workspace::with_cli_config(&format!(
            "disable_checkpoint = true\n\nprovider_installation {{\n{blocks}}}\n"
        ))
    }

    /// A workspace whose providers are installed with `terrarium install` arguments of the
    /// test's choosing (grants such as `--allow-dir DIR:rw`), into one mirror of its own under
    /// the workspace root; the CLI config offers exactly those providers.
    pub fn with_installs(installs: &[(Provider, &[String])]) -> anyhow::Result<Workspace> {
        let dir = tempfile::Builder::new().prefix("terrarium-e2e-").tempdir()?;
        let mirror = Mirror::at(dir.path().join("mirror"))?;
        let mut includes = Vec::new();
        for (provider, install_args) in installs {
            let component = provider
                .component()?
                .with_context(|| format!("{provider:?} is not a component provider"))?;
            let output = terrarium_install_with(
                &component,
                provider.source(),
                provider.version(),
                mirror.root(),
                install_args,
            )?;
            if !output.status.success() {
                bail!(
                    "`terrarium install` of {provider:?} failed ({}):\n{}{}",
                    output.status,
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            includes.push(format!("\"{}\"", provider.source()));
        }
        let cli_config = format!(
            "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    \
             path    = {}\n    include = [{}]\n  }}\n}}\n",
            hcl_string(&mirror.root().to_string_lossy()),
            includes.join(", ")
        );
        let workspace =
            terrarium_acctest::Workspace::in_dir(dir, &Artifacts::get()?.terraform, &cli_config)?;
        Ok(Workspace(workspace))
    }

    /// A workspace with a CLI config of the caller's choosing.
    pub fn with_cli_config(cli_config_text: &str) -> anyhow::Result<Workspace> {
        let dir = tempfile::Builder::new().prefix("terrarium-e2e-").tempdir()?;
        let workspace = terrarium_acctest::Workspace::in_dir(
            dir,
            &Artifacts::get()?.terraform,
            cli_config_text,
        )?;
        Ok(Workspace(workspace))
    }

    /// This workspace, run with the terraform at `terraform` instead of the default one.
    pub fn with_terraform(self, terraform: PathBuf) -> Workspace {
        Workspace(self.0.with_terraform(terraform))
    }
}

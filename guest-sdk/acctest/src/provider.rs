//! The provider under test, installed the way its users install it: `terrarium install` into
//! a filesystem mirror of the test's own (a dev mirror), which the workspace's CLI config
//! makes terraform's only source for it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context as _, bail};

use crate::tools;
use crate::workspace::{Workspace, hcl_string};

/// The registry host a source address without one belongs to.
const DEFAULT_REGISTRY: &str = "registry.terraform.io";

/// What an acceptance test runs: a terraform and the `terrarium` host.
#[derive(Debug, Clone)]
pub struct Tools {
    pub terraform: PathBuf,
    pub terrarium: PathBuf,
}

impl Tools {
    /// `$TERRAFORM` and `$TERRARIUM_BIN`, else `terraform` and `terrarium` on `PATH`.
    pub fn from_env() -> anyhow::Result<Tools> {
        Ok(Tools { terraform: tools::terraform()?, terrarium: tools::terrarium()? })
    }
}

/// A provider component under test, with the address configurations give it.
#[derive(Debug, Clone)]
pub struct Provider {
    component: PathBuf,
    source: String,
    version: String,
    install_args: Vec<String>,
}

impl Provider {
    /// The component at `component`, under the source address `source` (`NAMESPACE/TYPE` or
    /// `HOST/NAMESPACE/TYPE`), as version 0.0.1 with no grants.
    pub fn new(component: impl Into<PathBuf>, source: &str) -> Provider {
        Provider {
            component: component.into(),
            source: source.to_owned(),
            version: "0.0.1".to_owned(),
            install_args: Vec::new(),
        }
    }

    /// The component cargo built for wasm32-wasip2 from the crate `crate_name` (pass
    /// `env!("CARGO_PKG_NAME")`: dashes become underscores, as in the library's name); see [`tools::built_component`].
    pub fn built(crate_name: &str, source: &str) -> anyhow::Result<Provider> {
        Ok(Provider::new(tools::built_component(crate_name)?, source))
    }

    /// Installs it as `version` (configurations pin exactly this version).
    pub fn version(mut self, version: &str) -> Provider {
        self.version = version.to_owned();
        self
    }

    /// Grants it what `terrarium install` flags grant (`--allow-http`, `--allow-dir DIR:rw`,
    /// `--allow-env NAME`, `--timeout 5s`, ...): a component gets nothing else.
    pub fn grant<S: AsRef<str>>(mut self, install_args: &[S]) -> Provider {
        self.install_args.extend(install_args.iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn component(&self) -> &Path {
        &self.component
    }

    /// The source address with its registry host: `registry.terraform.io/NAMESPACE/TYPE`.
    pub fn full_source(&self) -> String {
        if self.source.matches('/').count() >= 2 {
            self.source.clone()
        } else {
            format!("{DEFAULT_REGISTRY}/{}", self.source)
        }
    }

    /// The provider's type, which is also its local name in configurations (`pets`).
    pub fn local_name(&self) -> &str {
        self.source.rsplit('/').next().unwrap_or(&self.source)
    }

    /// A `terraform { required_providers { ... } }` block requiring exactly this provider.
    pub fn required_providers(&self) -> String {
        format!(
            "terraform {{\n  required_providers {{\n    {} = {{\n      source  = \"{}\"\n      \
             version = \"{}\"\n    }}\n  }}\n}}\n",
            self.local_name(),
            self.source,
            self.version
        )
    }

    /// Runs `terrarium install` for it into the filesystem mirror `mirror`.
    pub fn install(&self, terrarium: &Path, mirror: &Path) -> anyhow::Result<()> {
        let output = Command::new(terrarium)
            .arg("install")
            .arg(&self.component)
            .args(["--source", &self.full_source(), "--version", &self.version, "--mirror"])
            .arg(mirror)
            .args(&self.install_args)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running {}", terrarium.display()))?;
        if !output.status.success() {
            bail!(
                "`terrarium install {}` failed ({}):\n{}{}",
                self.component.display(),
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(())
    }
}

impl Workspace {
    /// A workspace whose terraform installs exactly `providers`, from a dev mirror in the
    /// workspace that `tools.terrarium` installs them into, and nothing from the network.
    pub fn with_providers(tools: &Tools, providers: &[Provider]) -> anyhow::Result<Workspace> {
        let dir = tempfile::Builder::new().prefix("terrarium-acctest-").tempdir()?;
        let mirror = dir.path().join("mirror");
        let mut includes = Vec::new();
        for provider in providers {
            provider.install(&tools.terrarium, &mirror)?;
            includes.push(hcl_string(&provider.full_source()));
        }
        let cli_config = format!(
            "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    \
             path    = {}\n    include = [{}]\n  }}\n}}\n",
            hcl_string(&mirror.to_string_lossy()),
            includes.join(", ")
        );
        Workspace::in_dir(dir, &tools.terraform, &cli_config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_full_sources_name_the_same_provider() {
        let short = Provider::new("p.wasm", "example/pets").version("1.2.3");
        assert_eq!(short.full_source(), "registry.terraform.io/example/pets");
        assert_eq!(short.local_name(), "pets");
        assert!(short.required_providers().contains("source  = \"example/pets\""));
        assert!(short.required_providers().contains("version = \"1.2.3\""));
        let full = Provider::new("p.wasm", "registry.example.com/example/pets");
        assert_eq!(full.full_source(), "registry.example.com/example/pets");
    }
}

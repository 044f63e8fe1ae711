//! Providers installed into filesystem mirrors, as a user would install them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use anyhow::{Context as _, bail};

use crate::artifacts::Artifacts;

/// A provider the end-to-end tests can put in a workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// examples/null served by terrarium, as a drop-in for hashicorp/null 2.1.2.
    Null,
    /// The original Go hashicorp/null 2.1.2, for side-by-side comparisons.
    GoNull,
    /// examples/random served by terrarium.
    Random,
    /// tests/guests/faulty: crashes, loops or returns bad values on request.
    Faulty,
    /// tests/guests/hostile: tries to escape its sandbox and exhaust its limits on request.
    Hostile,
    /// tests/guests/declaring: declares its behaviour, so that the host plans for it; as
    /// large a declaration as a hostile component's on request.
    Declaring,
    /// tests/guests/slow: a create that waits, and winds down on Terraform's Ctrl-C.
    Slow,
    /// tests/guests/slow/python: the same provider, written with the Python SDK.
    SlowPy,
    /// tests/guests/slow/typescript: the same provider, written with the TypeScript SDK.
    SlowTs,
    /// tests/guests/slow/go: its slow_server, written with the Go SDK.
    SlowGo,
    /// examples/files: files inside granted directories.
    Files,
    /// examples/etcd: keys in a real etcd over granted HTTP.
    Etcd,
    /// examples/random as built against WIT `terrarium:provider@0.2.0`, checked in under
    /// tests/fixtures/wit-0.2.0/ and never rebuilt: what a user's old component looks like.
    RandomWit020,
    /// examples/pets/rust: pets in a granted directory (examples/pets/SPEC.md), written with
    /// the Rust SDK: the conformance suite's reference, planning in the guest.
    PetsRs,
    /// examples/pets/typescript: the same pets, written with the TypeScript SDK.
    PetsTs,
    /// examples/pets/python: the same pets, written with the Python SDK.
    PetsPy,
    /// examples/pets/go: the same pets, written with the Go SDK.
    PetsGo,
    /// examples/pets/framework: the same pets on terraform-plugin-framework, served as a
    /// component through the tfprotov6 adapter (guest-sdk/go/tfprotov6adapter).
    PetsFramework,
    /// examples/pets/framework built natively: an ordinary Go provider binary that terraform
    /// runs through go-plugin, the baseline the component must match.
    PetsFrameworkNative,
}

impl Provider {
    pub const ALL: [Provider; 19] = [
        Provider::Null,
        Provider::GoNull,
        Provider::Random,
        Provider::Faulty,
        Provider::Hostile,
        Provider::Declaring,
        Provider::Slow,
        Provider::SlowPy,
        Provider::SlowTs,
        Provider::SlowGo,
        Provider::Files,
        Provider::Etcd,
        Provider::RandomWit020,
        Provider::PetsRs,
        Provider::PetsTs,
        Provider::PetsPy,
        Provider::PetsGo,
        Provider::PetsFramework,
        Provider::PetsFrameworkNative,
    ];

    /// The full source address configurations use (`required_providers`).
    pub fn source(self) -> &'static str {
        match self {
            // Same address as the original: configurations work unchanged with either.
            Provider::Null | Provider::GoNull => "registry.terraform.io/hashicorp/null",
            // Not a drop-in for hashicorp/random, so it does not take its address.
            Provider::Random | Provider::RandomWit020 => "registry.terraform.io/terrarium/random",
            Provider::Faulty => "registry.terraform.io/terrarium/faulty",
            Provider::Hostile => "registry.terraform.io/terrarium/hostile",
            Provider::Declaring => "registry.terraform.io/terrarium/declaring",
            Provider::Slow | Provider::SlowPy | Provider::SlowTs | Provider::SlowGo => {
                "registry.terraform.io/terrarium/slow"
            }
            Provider::Files => "registry.terraform.io/terrarium/files",
            Provider::Etcd => "registry.terraform.io/terrarium/etcd",
            Provider::PetsRs
            | Provider::PetsTs
            | Provider::PetsPy
            | Provider::PetsGo
            | Provider::PetsFramework
            | Provider::PetsFrameworkNative => "registry.terraform.io/terrarium/pets",
        }
    }

    /// The `NAMESPACE/TYPE` short form of [`Provider::source`].
    pub fn short_source(self) -> &'static str {
        self.source().trim_start_matches("registry.terraform.io/")
    }

    /// The provider's local name (its type), e.g. `null`.
    pub fn local_name(self) -> &'static str {
        self.source().rsplit('/').next().unwrap_or_default()
    }

    pub fn version(self) -> &'static str {
        match self {
            Provider::Null | Provider::GoNull => "2.1.2",
            Provider::Random
            | Provider::Faulty
            | Provider::Hostile
            | Provider::Declaring
            | Provider::Slow
            | Provider::SlowPy
            | Provider::SlowTs
            | Provider::SlowGo
            | Provider::Files
            | Provider::Etcd
            | Provider::RandomWit020
            | Provider::PetsRs
            | Provider::PetsTs
            | Provider::PetsPy
            | Provider::PetsGo
            | Provider::PetsFramework
            | Provider::PetsFrameworkNative => "0.1.0",
        }
    }

    /// The example crate whose component serves this provider (None for native providers).
    pub fn component_crate(self) -> Option<&'static str> {
        match self {
            Provider::Null => Some("null_provider"),
            Provider::Random => Some("random_provider"),
            Provider::Faulty => Some("faulty_provider"),
            Provider::Hostile => Some("hostile_provider"),
            Provider::Declaring => Some("declaring_provider"),
            Provider::Slow => Some("slow_provider"),
            Provider::SlowPy => Some("slow_py"),
            Provider::SlowTs => Some("slow_ts"),
            Provider::SlowGo => Some("slow_go"),
            Provider::Files => Some("files_provider"),
            Provider::Etcd => Some("etcd_provider"),
            Provider::PetsRs => Some("pets_rs"),
            Provider::PetsTs => Some("pets_ts"),
            Provider::PetsPy => Some("pets_py"),
            Provider::PetsGo => Some("pets_go"),
            Provider::PetsFramework => Some("pets_framework"),
            Provider::GoNull | Provider::RandomWit020 | Provider::PetsFrameworkNative => None,
        }
    }

    /// The checked-in component file serving this provider, relative to tests/fixtures/
    /// (None for providers built by `make build-guests`, and for native ones).
    pub fn component_fixture(self) -> Option<&'static str> {
        match self {
            Provider::RandomWit020 => Some("wit-0.2.0/random_provider.wasm"),
            _ => None,
        }
    }

    /// The component serving this provider: built by `make build-guests` or checked in
    /// (None for native providers).
    pub fn component(self) -> anyhow::Result<Option<PathBuf>> {
        let artifacts = Artifacts::get()?;
        if let Some(fixture) = self.component_fixture() {
            return artifacts.fixture(fixture).map(Some);
        }
        self.component_crate().map(|name| artifacts.component(name)).transpose()
    }

    /// A `required_providers` entry for this provider, pinned to its version.
    pub fn required_providers_entry(self) -> String {
        format!(
            "{} = {{\n      source  = \"{}\"\n      version = \"{}\"\n    }}",
            self.local_name(),
            self.short_source(),
            self.version()
        )
    }

    /// A `required_providers` entry for this provider with its full source address (host
    /// included), pinned to its version.
    pub fn required_providers_entry_at_host(self) -> String {
        format!(
            "{} = {{\n      source  = \"{}\"\n      version = \"{}\"\n    }}",
            self.local_name(),
            self.source(),
            self.version()
        )
    }

    /// The mirror this provider is installed in, installing it on first use in this process.
    /// Installed packages are never written to afterwards (Terraform's lock file hashes them).
    pub fn mirror(self) -> anyhow::Result<&'static Mirror> {
        static MIRRORS: [OnceLock<Result<Mirror, String>>; Provider::ALL.len()] =
            [const { OnceLock::new() }; Provider::ALL.len()];
        let index = Provider::ALL.iter().position(|p| *p == self).unwrap_or_default();
        MIRRORS[index]
            .get_or_init(|| {
                let install = || -> anyhow::Result<Mirror> {
                    let artifacts = Artifacts::get()?;
                    let mirror = Mirror::at(
                        artifacts.scratch_root.join(format!("mirror-{self:?}").to_lowercase()),
                    )?;
                    mirror.install(self)?;
                    Ok(mirror)
                };
                install().map_err(|e| format!("installing {self:?} into a mirror: {e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The installed executable Terraform would start for this provider.
    pub fn installed_executable(self) -> anyhow::Result<PathBuf> {
        let dir = self.mirror()?.package_dir(self);
        let prefix = format!("terraform-provider-{}", self.local_name());
        // Terraform runs the first file, in lexical order, named terraform-provider-TYPE[_.]...
        let mut names: Vec<_> = fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| {
                n == &prefix
                    || n.starts_with(&format!("{prefix}_"))
                    || n.starts_with(&format!("{prefix}."))
            })
            .collect();
        names.sort();
        match names.first() {
            Some(name) => Ok(dir.join(name)),
            None => bail!("no {prefix}* executable in {}", dir.display()),
        }
    }
}

/// A `terraform { required_providers { ... } }` block for `providers`, each pinned to its version.
pub fn required_providers(providers: &[Provider]) -> String {
    let entries: Vec<String> =
        providers.iter().map(|p| format!("    {}\n", p.required_providers_entry())).collect();
    format!("terraform {{\n  required_providers {{\n{}  }}\n}}\n", entries.concat())
}

/// [`required_providers`] with full source addresses, host included: what OpenTofu, whose
/// default host is registry.opentofu.org, needs to find providers installed under
/// registry.terraform.io.
pub fn required_providers_at_host(providers: &[Provider]) -> String {
    let entries: Vec<String> = providers
        .iter()
        .map(|p| format!("    {}\n", p.required_providers_entry_at_host()))
        .collect();
    format!("terraform {{\n  required_providers {{\n{}  }}\n}}\n", entries.concat())
}

/// The `terrarium install` arguments granting read and write access to `dir` (examples/files
/// needs one to do anything).
pub fn allow_dir_rw(dir: &Path) -> Vec<String> {
    vec!["--allow-dir".to_owned(), format!("{}:rw", dir.display())]
}

/// A filesystem mirror directory (Terraform's unpacked layout).
#[derive(Debug)]
pub struct Mirror {
    root: PathBuf,
}

impl Mirror {
    /// A mirror rooted at `root` (created if needed).
    pub fn at(root: PathBuf) -> anyhow::Result<Mirror> {
        fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
        let root = root.canonicalize().with_context(|| format!("resolving {}", root.display()))?;
        Ok(Mirror { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `ROOT/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH` for `provider`.
    pub fn package_dir(&self, provider: Provider) -> PathBuf {
        self.root.join(provider.source()).join(provider.version()).join(terraform_platform())
    }

    /// Installs `provider`: components with `terrarium install`, native ones by copying.
    pub fn install(&self, provider: Provider) -> anyhow::Result<()> {
        let artifacts = Artifacts::get()?;
        match provider.component()? {
            Some(component) => {
                let output = terrarium_install(
                    &component,
                    provider.source(),
                    provider.version(),
                    &self.root,
                )?;
                if !output.status.success() {
                    bail!(
                        "`terrarium install` failed ({}):\n{}{}",
                        output.status,
                        String::from_utf8_lossy(&output.stdout),
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
            }
            None => {
                let dir = self.package_dir(provider);
                fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                let native = match provider {
                    Provider::PetsFrameworkNative => artifacts.framework_pets_native()?,
                    _ => artifacts.go_null()?,
                };
                let name = native.file_name().context("the native provider has no file name")?;
                fs::copy(native, dir.join(name)).with_context(|| {
                    format!("copying {} into {}", native.display(), dir.display())
                })?;
            }
        }
        Ok(())
    }
}

/// Runs `terrarium install COMPONENT --source SOURCE --version VERSION --mirror MIRROR`.
pub fn terrarium_install(
    component: &Path,
    source: &str,
    version: &str,
    mirror: &Path,
) -> anyhow::Result<std::process::Output> {
    terrarium_install_with(component, source, version, mirror, &[])
}

/// [`terrarium_install`] with more arguments (grants: `--allow-dir DIR:rw`, `--timeout 5s`, ...).
pub fn terrarium_install_with(
    component: &Path,
    source: &str,
    version: &str,
    mirror: &Path,
    extra: &[String],
) -> anyhow::Result<std::process::Output> {
    let terrarium = Artifacts::get()?.terrarium()?;
    Command::new(terrarium)
        .arg("install")
        .arg(component)
        .args(["--source", source, "--version", version, "--mirror"])
        .arg(mirror)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", terrarium.display()))
}

/// Terraform's name for this platform (`linux_amd64`, ...).
pub fn terraform_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    format!("{os}_{arch}")
}

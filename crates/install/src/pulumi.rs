//! `terrarium install --pulumi NAME`: lay a provider component out as a Pulumi resource plugin.
//!
//! Pulumi's engine looks for the plugin `NAME` at version `V` in the directory
//! `resource-NAME-vV` under its plugin directory (`$PULUMI_HOME/plugins`, else
//! `~/.pulumi/plugins`) and runs the executable `pulumi-resource-NAME` in it with the engine's
//! address as its one argument:
//!
//! ```text
//! PLUGINS/resource-NAME-vVERSION/
//!     pulumi-resource-NAME    a copy of the terrarium executable (it serves Pulumi when so named)
//!     provider.wasm           the component
//!     grants.toml             what the component may do (deny by default)
//! ```

use std::path::{Path, PathBuf};

use super::layout::PackageLayout;
use super::{COMPONENT_FILE_NAME, InstallError};
use terrarium_runtime::sandbox::GRANTS_FILE_NAME;

/// What an installed Pulumi plugin executable is called, before its package name.
pub const EXECUTABLE_PREFIX: &str = "pulumi-resource-";

/// The layout of the plugin `name` at `version` under `plugin_dir`.
pub fn pulumi_layout(plugin_dir: &Path, name: &str, version: &str) -> PackageLayout {
    let package_dir = plugin_dir.join(format!("resource-{name}-v{version}"));
    let suffix = std::env::consts::EXE_SUFFIX;
    PackageLayout {
        executable: package_dir.join(format!("{EXECUTABLE_PREFIX}{name}{suffix}")),
        component: package_dir.join(COMPONENT_FILE_NAME),
        grants: package_dir.join(GRANTS_FILE_NAME),
        package_dir,
    }
}

/// `$PULUMI_HOME/plugins`, else `~/.pulumi/plugins`: where Pulumi's engine looks.
pub fn default_plugin_dir() -> Result<PathBuf, InstallError> {
    let from_env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(home) = from_env("PULUMI_HOME") {
        return Ok(home.join("plugins"));
    }
    from_env("HOME")
        .map(|home| home.join(".pulumi").join("plugins"))
        .ok_or(InstallError::NoDefaultPluginDir)
}

/// A Pulumi package name: lowercase letters, digits and dashes, starting with a letter (the
/// name is the first part of every token, `NAME:index/...`).
pub fn check_package_name(name: &str) -> Result<(), InstallError> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if valid { Ok(()) } else { Err(InstallError::InvalidPulumiName { given: name.to_string() }) }
}

/// The package name and version of an installed plugin executable, from its own name and its
/// directory's (`resource-NAME-vVERSION/pulumi-resource-NAME`). `None` when it is not one.
pub fn installed_plugin(executable: &Path) -> Option<(String, Option<String>)> {
    let file = executable.file_name()?.to_str()?;
    let file = file.strip_suffix(std::env::consts::EXE_SUFFIX).unwrap_or(file);
    let name = file.strip_prefix(EXECUTABLE_PREFIX)?.to_string();
    let dir = executable.parent()?.file_name()?.to_str()?;
    let version = dir.strip_prefix(&format!("resource-{name}-v")).map(str::to_string);
    Some((name, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_pulumis_plugin_directory() {
        let layout = pulumi_layout(Path::new("/p"), "random", "1.2.3");
        assert_eq!(layout.package_dir, Path::new("/p/resource-random-v1.2.3"));
        assert!(layout.executable.ends_with("resource-random-v1.2.3/pulumi-resource-random"));
        assert_eq!(
            installed_plugin(&layout.executable),
            Some(("random".to_string(), Some("1.2.3".to_string())))
        );
        assert_eq!(installed_plugin(Path::new("/x/terraform-provider-random_v1")), None);
    }

    #[test]
    fn package_names_are_checked() {
        assert!(check_package_name("random").is_ok());
        assert!(check_package_name("my-files2").is_ok());
        for bad in ["", "Random", "a/b", "1abc", "a_b"] {
            let err = check_package_name(bad).unwrap_err().to_string();
            assert!(err.contains("--pulumi"), "{err}");
        }
    }
}

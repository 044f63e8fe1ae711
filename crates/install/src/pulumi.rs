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

use std::fs;
use std::path::{Path, PathBuf};

use super::layout::{InstallOutcome, PackageLayout};
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

/// The base plugin's name: `pulumi-resource-terrarium` serves whatever component a package
/// names through `Parameterize` (the Pulumi front end's `parameterize`).
pub const BASE_PLUGIN: &str = "terrarium";

/// Installs the base plugin at `version` under `plugin_dir`: the served-only executable
/// `host_executable` alone, in `resource-terrarium-vVERSION/`. A different executable already
/// there is replaced only with `force`. Returns the installed executable.
pub fn install_base(
    plugin_dir: &Path,
    version: &str,
    host_executable: &Path,
    force: bool,
) -> Result<(PathBuf, InstallOutcome), InstallError> {
    let layout = pulumi_layout(plugin_dir, BASE_PLUGIN, version);
    let bytes = fs::read(host_executable).map_err(InstallError::CurrentExe)?;
    let existing = layout.package_dir.exists();
    if existing {
        if fs::read(&layout.executable).is_ok_and(|b| b == bytes) {
            return Ok((layout.executable, InstallOutcome::AlreadyUpToDate));
        }
        if !force {
            return Err(InstallError::AlreadyInstalled {
                dir: layout.package_dir,
                source_address: format!("pulumi plugin {BASE_PLUGIN}"),
                version: version.to_string(),
            });
        }
    }
    let write_error = |path: &Path| {
        let path = path.to_owned();
        move |cause| InstallError::Write { path, cause }
    };
    fs::create_dir_all(&layout.package_dir).map_err(write_error(&layout.package_dir))?;
    // Written beside, then renamed: an engine starting the plugin meanwhile never runs half
    // an executable.
    let staged = layout.package_dir.join(format!(".{EXECUTABLE_PREFIX}{BASE_PLUGIN}.new"));
    fs::write(&staged, &bytes).map_err(write_error(&staged))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&staged, fs::Permissions::from_mode(0o755))
            .map_err(write_error(&staged))?;
    }
    fs::rename(&staged, &layout.executable).map_err(write_error(&layout.executable))?;
    let outcome = if existing { InstallOutcome::Replaced } else { InstallOutcome::Installed };
    Ok((layout.executable, outcome))
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
    fn the_base_plugin_is_the_executable_alone_and_a_different_one_needs_force() {
        let dir = tempfile::tempdir().expect("tempdir");
        let exe = dir.path().join("terrarium-provider");
        fs::write(&exe, b"one").expect("write");
        let plugins = dir.path().join("plugins");
        let (installed, outcome) = install_base(&plugins, "0.1.0", &exe, false).expect("install");
        assert_eq!(outcome, InstallOutcome::Installed);
        assert!(installed.ends_with("resource-terrarium-v0.1.0/pulumi-resource-terrarium"));
        assert_eq!(installed_plugin(&installed), Some(("terrarium".into(), Some("0.1.0".into()))));
        let files: Vec<_> = fs::read_dir(installed.parent().expect("dir")).expect("read").collect();
        assert_eq!(files.len(), 1, "only the executable");
        let again = install_base(&plugins, "0.1.0", &exe, false).expect("again").1;
        assert_eq!(again, InstallOutcome::AlreadyUpToDate);
        fs::write(&exe, b"two").expect("write");
        let refused = install_base(&plugins, "0.1.0", &exe, false).expect_err("different");
        assert!(matches!(refused, InstallError::AlreadyInstalled { .. }), "{refused}");
        let forced = install_base(&plugins, "0.1.0", &exe, true).expect("force").1;
        assert_eq!(forced, InstallOutcome::Replaced);
        assert_eq!(fs::read(&installed).expect("read"), b"two");
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

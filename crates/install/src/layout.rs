//! The mirror's directory layout and writing a package into it.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::{InstallError, Platform, ProviderSource, ProviderVersion, check_component};
use terrarium_runtime::sandbox::{GRANTS_FILE_NAME, Grants};

/// Name of the component file inside an installed provider package, beside the executable.
pub const COMPONENT_FILE_NAME: &str = "provider.wasm";

/// Where the files of one installed provider package go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageLayout {
    /// `MIRROR/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH`
    pub package_dir: PathBuf,
    /// `terraform-provider-TYPE_vVERSION` (plus `.exe` on Windows) inside `package_dir`.
    pub executable: PathBuf,
    /// [`COMPONENT_FILE_NAME`] inside `package_dir`.
    pub component: PathBuf,
    /// [`GRANTS_FILE_NAME`] inside `package_dir`.
    pub grants: PathBuf,
}

impl PackageLayout {
    pub fn new(
        mirror: &Path,
        source: &ProviderSource,
        version: &ProviderVersion,
        platform: Platform,
    ) -> Self {
        let package_dir = mirror
            .join(&source.hostname)
            .join(&source.namespace)
            .join(&source.type_name)
            .join(version.as_str())
            .join(platform.to_string());
        let suffix = if platform.os == "windows" { ".exe" } else { "" };
        let executable = package_dir
            .join(format!("terraform-provider-{}_v{}{suffix}", source.type_name, version));
        let component = package_dir.join(COMPONENT_FILE_NAME);
        let grants = package_dir.join(GRANTS_FILE_NAME);
        Self { package_dir, executable, component, grants }
    }
}

/// Where an installed executable finds its component: beside itself.
pub fn component_beside(executable: &Path) -> PathBuf {
    executable.with_file_name(COMPONENT_FILE_NAME)
}

/// Everything an installation needs, resolved and validated.
#[derive(Debug, Clone)]
pub struct InstallRequest {
    pub component: PathBuf,
    pub source: ProviderSource,
    pub version: ProviderVersion,
    pub mirror: PathBuf,
    pub platform: Platform,
    /// The host executable to copy in (normally the served-only `terrarium-provider`).
    pub host_executable: PathBuf,
    pub force: bool,
    /// What the component may do, written to the grants file.
    pub grants: Grants,
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallOutcome {
    Installed,
    /// An identical package was already there; nothing was written.
    AlreadyUpToDate,
    /// A different package was there and `force` replaced it.
    Replaced,
}

/// Lays out the package as Terraform's mirror layout wants it (see [`install_package`]).
pub fn install(request: &InstallRequest) -> Result<(PackageLayout, InstallOutcome), InstallError> {
    let layout =
        PackageLayout::new(&request.mirror, &request.source, &request.version, request.platform);
    let package = Package {
        component: &request.component,
        host_executable: &request.host_executable,
        grants: &request.grants,
        source_address: request.source.to_string(),
        version: request.version.to_string(),
        force: request.force,
    };
    let outcome = install_package(&layout, &package)?;
    Ok((layout, outcome))
}

/// What goes into one installed package, whatever its layout (a Terraform mirror's or a
/// Pulumi plugin directory's).
#[derive(Debug, Clone)]
pub struct Package<'a> {
    pub component: &'a Path,
    pub host_executable: &'a Path,
    pub grants: &'a Grants,
    /// What the package is, for the grants file and error messages (`acme/widgets`).
    pub source_address: String,
    pub version: String,
    pub force: bool,
}

/// Lays `package` out at `layout`. The new package is assembled in a staging directory beside
/// its final place and renamed into it, so nobody ever sees a half-written package.
pub fn install_package(
    layout: &PackageLayout,
    package: &Package<'_>,
) -> Result<InstallOutcome, InstallError> {
    check_component(package.component)?;
    let executable_bytes = fs::read(package.host_executable).map_err(InstallError::CurrentExe)?;
    let component_bytes = fs::read(package.component).map_err(|cause| {
        InstallError::ReadComponent { path: package.component.to_owned(), cause }
    })?;

    let grants_text =
        package.grants.render(&format!("{} {}", package.source_address, package.version));

    let existing = layout.package_dir.exists();
    if existing {
        if package_matches(layout, &executable_bytes, &component_bytes, grants_text.as_bytes()) {
            return Ok(InstallOutcome::AlreadyUpToDate);
        }
        if !package.force {
            return Err(InstallError::AlreadyInstalled {
                dir: layout.package_dir.clone(),
                source_address: package.source_address.clone(),
                version: package.version.clone(),
            });
        }
    }

    let parent = layout.package_dir.parent().unwrap_or(Path::new(".")).to_owned();
    let write_error = |path: &Path| {
        let path = path.to_owned();
        move |cause| InstallError::Write { path, cause }
    };
    fs::create_dir_all(&parent).map_err(write_error(&parent))?;

    // Dot-prefixed names: Terraform does not parse them as platforms while they briefly exist.
    let pid = std::process::id();
    let name = layout.package_dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let staging = parent.join(format!(".{name}.terrarium-new-{pid}"));
    let retired = parent.join(format!(".{name}.terrarium-old-{pid}"));
    let result = (|| -> Result<(), InstallError> {
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(write_error(&staging))?;
        }
        fs::create_dir(&staging).map_err(write_error(&staging))?;
        let staged = PackageLayout {
            executable: staging.join(layout.executable.file_name().unwrap_or_default()),
            component: staging.join(COMPONENT_FILE_NAME),
            grants: staging.join(GRANTS_FILE_NAME),
            package_dir: staging.clone(),
        };
        write_file(&staged.executable, &executable_bytes, true)?;
        write_file(&staged.component, &component_bytes, false)?;
        write_file(&staged.grants, grants_text.as_bytes(), false)?;
        if existing {
            fs::rename(&layout.package_dir, &retired).map_err(write_error(&layout.package_dir))?;
        }
        fs::rename(&staging, &layout.package_dir).map_err(write_error(&layout.package_dir))?;
        if existing {
            fs::remove_dir_all(&retired).map_err(write_error(&retired))?;
        }
        Ok(())
    })();
    if result.is_err() {
        // Best effort: leave no staging directory behind; the original error is what matters.
        let _ = fs::remove_dir_all(&staging);
    }
    result?;
    Ok(if existing { InstallOutcome::Replaced } else { InstallOutcome::Installed })
}

/// True when the package directory holds exactly these three files with these contents.
fn package_matches(
    layout: &PackageLayout,
    executable: &[u8],
    component: &[u8],
    grants: &[u8],
) -> bool {
    let Ok(entries) = fs::read_dir(&layout.package_dir) else {
        return false;
    };
    let names: Result<Vec<OsString>, _> = entries.map(|e| e.map(|e| e.file_name())).collect();
    let Ok(mut names) = names else { return false };
    names.sort();
    let mut expected =
        [layout.executable.file_name(), layout.component.file_name(), layout.grants.file_name()]
            .map(|n| n.unwrap_or_default().to_owned());
    expected.sort();
    names == expected
        && fs::read(&layout.executable).is_ok_and(|b| b == executable)
        && fs::read(&layout.component).is_ok_and(|b| b == component)
        && fs::read(&layout.grants).is_ok_and(|b| b == grants)
}

fn write_file(path: &Path, bytes: &[u8], executable: bool) -> Result<(), InstallError> {
    let error = |cause| InstallError::Write { path: path.to_owned(), cause };
    fs::write(path, bytes).map_err(error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = if executable { 0o755 } else { 0o644 };
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(error)?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

/// `$XDG_DATA_HOME/terrarium/mirror`, else `~/.local/share/terrarium/mirror`. Deliberately not
/// one of the directories Terraform searches implicitly: a user opts in with the CLI config.
pub fn default_mirror_dir() -> Result<PathBuf, InstallError> {
    let data_home = crate::user_files::data_home().ok_or(InstallError::NoDefaultMirror)?;
    Ok(data_home.join("terrarium").join("mirror"))
}

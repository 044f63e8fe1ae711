//! `terrarium install`: lay a provider component out as a Terraform filesystem mirror.
//!
//! Terraform finds a provider in an *unpacked* filesystem mirror at
//! `MIRROR/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`, runs the first file in that directory whose
//! name starts with `terraform-provider-TYPE`, with no arguments, and records a hash of the whole
//! directory in the configuration's `.terraform.lock.hcl`. So the installed package is:
//!
//! ```text
//! MIRROR/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/
//!     terraform-provider-TYPE_vVERSION   a copy of the running `terrarium` executable
//!     provider.wasm                      the component ([`COMPONENT_FILE_NAME`])
//!     grants.toml                        what the component may do ([`GRANTS_FILE_NAME`])
//! ```
//!
//! The grants file is always written, commented, even when nothing is granted, so that a user
//! can see that nothing is and how to change it.
//!
//! When Terraform starts the executable, `terrarium serve` finds the component beside its own
//! executable ([`component_beside`]). Nothing may ever be written into that directory at run
//! time (caches live in the user's cache directory), or the lock file's hash would stop matching.

// Doc comments on the clap arguments are `--help` text, where brackets mean optional parts.
#![allow(rustdoc::broken_intra_doc_links)]

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::Context as _;

use crate::sandbox::{ByteSize, DirGrant, GRANTS_FILE_NAME, Grants, HttpGrant, Limits};

/// Name of the component file inside an installed provider package, beside the executable.
pub const COMPONENT_FILE_NAME: &str = "provider.wasm";

/// Registry host assumed when `--source` is written as `NAMESPACE/TYPE`, as Terraform does.
pub const DEFAULT_REGISTRY_HOST: &str = "registry.terraform.io";

/// The eight bytes every WebAssembly *component* starts with: the magic `\0asm`, then the
/// component-model version (0x0d) and layer (1). A core module has version 1, layer 0 instead.
const COMPONENT_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
const CORE_MODULE_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/// Arguments of `terrarium install`.
///
/// Note for the parent command: this defines its own `--version`, so the top-level command must
/// not propagate clap's automatic `--version` flag into subcommands.
#[derive(clap::Args, Debug, Clone)]
pub struct InstallArgs {
    /// The provider component to install: a WebAssembly component (.wasm), for instance one
    /// built with `cargo build --target wasm32-wasip2`.
    pub component: PathBuf,

    /// Provider source address, HOST/NAMESPACE/TYPE (or NAMESPACE/TYPE for registry.terraform.io),
    /// exactly as configurations will write it in `required_providers`.
    #[arg(long, value_name = "HOST/NAMESPACE/TYPE")]
    pub source: String,

    /// Provider version to install it as, a semantic version such as 1.2.3.
    #[arg(long, value_name = "X.Y.Z")]
    pub version: String,

    /// Mirror directory to install into [default: $XDG_DATA_HOME/terrarium/mirror, i.e.
    /// ~/.local/share/terrarium/mirror].
    #[arg(long, value_name = "DIR")]
    pub mirror: Option<PathBuf>,

    /// Replace an existing, different installation of the same source, version and platform.
    #[arg(long)]
    pub force: bool,

    /// Let the provider send HTTP requests to this origin, [http://|https://]HOST[:PORT]
    /// (HTTPS when no scheme is given). Repeatable.
    #[arg(long = "allow-http", value_name = "ORIGIN")]
    pub allow_http: Vec<HttpGrant>,

    /// Let the provider see this directory (at the same path), read-only unless `:rw` is
    /// added: PATH[:ro|rw]. Repeatable.
    #[arg(long = "allow-dir", value_name = "PATH[:ro|rw]")]
    pub allow_dir: Vec<DirGrant>,

    /// Let the provider see this environment variable of the process Terraform starts.
    /// Repeatable.
    #[arg(long = "allow-env", value_name = "NAME", value_parser = parse_env_arg)]
    pub allow_env: Vec<String>,

    /// Linear memory per provider instance, e.g. 256MiB [default: 512MiB].
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<ByteSize>,

    /// Wall-clock time per provider call, e.g. 30s or 5m [default: 5m].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_arg)]
    pub timeout: Option<std::time::Duration>,

    /// Largest HTTP response body the provider may receive, e.g. 16MiB [default: 64MiB].
    #[arg(long = "http-response", value_name = "SIZE")]
    pub http_response: Option<ByteSize>,
}

fn parse_env_arg(s: &str) -> Result<String, String> {
    crate::sandbox::parse_env_name(s).map_err(|e| e.to_string())
}

fn parse_duration_arg(s: &str) -> Result<std::time::Duration, String> {
    crate::sandbox::parse_duration(s).map_err(|e| e.to_string())
}

impl InstallArgs {
    /// The grants these flags describe.
    pub fn grants(&self) -> Result<Grants, crate::sandbox::GrantError> {
        let mut http = self.allow_http.clone();
        http.sort();
        http.dedup();
        let mut env = self.allow_env.clone();
        env.sort();
        env.dedup();
        let grants = Grants {
            http,
            dirs: self.allow_dir.clone(),
            env,
            limits: Limits {
                memory: self.memory,
                timeout: self.timeout,
                http_response: self.http_response,
            },
        };
        grants.limits.validate()?;
        Ok(grants)
    }
}

/// Why an installation was refused or failed. Every message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot read the component {}: {source}", path.display())]
    ReadComponent { path: PathBuf, source: io::Error },

    #[error(
        "{} is not a WebAssembly file (it does not start with the bytes \"\\0asm\"); \
         pass the .wasm file your build produced, e.g. target/wasm32-wasip2/release/NAME.wasm",
        path.display()
    )]
    NotWasm { path: PathBuf },

    #[error(
        "{} is a core WebAssembly module, not a component; build it with \
         `cargo build --target wasm32-wasip2` (which emits components) or wrap it with \
         `wasm-tools component new`",
        path.display()
    )]
    CoreModule { path: PathBuf },

    #[error(
        "{} is a WebAssembly binary with version/layer bytes {found}, not a component \
         (expected 0d 00 01 00); rebuild it with a current toolchain",
        path.display()
    )]
    UnsupportedWasmVersion { path: PathBuf, found: String },

    #[error(
        "invalid --source {given:?}: {reason}; expected HOST/NAMESPACE/TYPE or NAMESPACE/TYPE, \
         for example registry.terraform.io/acme/widgets or acme/widgets"
    )]
    InvalidSource { given: String, reason: String },

    #[error(
        "invalid --version {given:?}: {reason}; expected a semantic version MAJOR.MINOR.PATCH \
         such as 1.2.3 or 1.2.3-beta.1"
    )]
    InvalidVersion { given: String, reason: String },

    #[error(
        "this platform ({os}/{arch}) has no Terraform platform name; Terraform providers can \
         only be installed on platforms Terraform itself runs on"
    )]
    UnsupportedPlatform { os: String, arch: String },

    #[error("no --mirror given and neither XDG_DATA_HOME nor HOME is set; pass --mirror DIR")]
    NoDefaultMirror,

    #[error(
        "{} already holds a different {source_address} {version}; pass --force to replace it \
         (configurations that locked the old package then fail Terraform's checksum check: \
         delete the provider's entry from their .terraform.lock.hcl and run `terraform init`)",
        dir.display()
    )]
    AlreadyInstalled { dir: PathBuf, source_address: String, version: String },

    #[error("cannot find the running terrarium executable to install: {0}")]
    CurrentExe(io::Error),

    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
}

/// A provider source address, normalised the way Terraform does (lower case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSource {
    pub hostname: String,
    pub namespace: String,
    pub type_name: String,
}

impl FromStr for ProviderSource {
    type Err = InstallError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid =
            |reason: String| InstallError::InvalidSource { given: given.to_owned(), reason };
        let parts: Vec<&str> = given.split('/').collect();
        let (hostname, namespace, type_name) = match parts.as_slice() {
            [namespace, type_name] => (DEFAULT_REGISTRY_HOST, *namespace, *type_name),
            [hostname, namespace, type_name] => (*hostname, *namespace, *type_name),
            _ => {
                return Err(invalid(format!("it has {} part(s) separated by '/'", parts.len())));
            }
        };
        check_hostname(hostname)
            .map_err(|reason| invalid(format!("hostname {hostname:?} {reason}")))?;
        check_name_part(namespace)
            .map_err(|reason| invalid(format!("namespace {namespace:?} {reason}")))?;
        check_name_part(type_name)
            .map_err(|reason| invalid(format!("type {type_name:?} {reason}")))?;
        if type_name.eq_ignore_ascii_case("terraform") {
            // terraform.io/builtin/terraform is built into Terraform; no mirror can replace it.
            return Err(invalid("the type name \"terraform\" is reserved by Terraform".to_owned()));
        }
        Ok(Self {
            hostname: hostname.to_ascii_lowercase(),
            namespace: namespace.to_ascii_lowercase(),
            type_name: type_name.to_ascii_lowercase(),
        })
    }
}

impl fmt::Display for ProviderSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.hostname, self.namespace, self.type_name)
    }
}

/// Terraform's rule for namespace and type: letters, digits and dashes, no leading or trailing
/// dash. Underscores would break the executable name, which Terraform splits on `_`.
fn check_name_part(part: &str) -> Result<(), String> {
    if part.is_empty() {
        return Err("is empty".to_owned());
    }
    if part.len() > 64 {
        return Err("is longer than 64 characters".to_owned());
    }
    if let Some(bad) = part.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-')) {
        return Err(format!("contains {bad:?}; use only letters, digits and dashes"));
    }
    if part.starts_with('-') || part.ends_with('-') {
        return Err("starts or ends with a dash".to_owned());
    }
    Ok(())
}

/// A DNS name (ASCII labels of letters, digits and dashes), optionally with `:PORT`.
fn check_hostname(hostname: &str) -> Result<(), String> {
    let (name, port) = match hostname.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (hostname, None),
    };
    if let Some(port) = port
        && port.parse::<u16>().map_or(true, |p| p == 0)
    {
        return Err(format!("has an invalid port {port:?}"));
    }
    if name.is_empty() {
        return Err("is empty".to_owned());
    }
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("is not a valid DNS name".to_owned());
        }
        if let Some(bad) = label.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-')) {
            return Err(format!("contains {bad:?}, which a DNS name cannot"));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err("has a label starting or ending with a dash".to_owned());
        }
    }
    Ok(())
}

/// A provider version in the canonical form Terraform writes in lock files and mirror paths:
/// `MAJOR.MINOR.PATCH[-PRERELEASE]`, no `v` prefix, no leading zeros, no build metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderVersion(String);

impl ProviderVersion {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProviderVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ProviderVersion {
    type Err = InstallError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: &str| InstallError::InvalidVersion {
            given: given.to_owned(),
            reason: reason.to_owned(),
        };
        if given.starts_with(['v', 'V']) {
            return Err(invalid("drop the leading \"v\""));
        }
        if given.contains('+') {
            return Err(invalid("build metadata (\"+...\") is not allowed in provider versions"));
        }
        let (core, prerelease) = match given.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (given, None),
        };
        let numbers: Vec<&str> = core.split('.').collect();
        if numbers.len() != 3 {
            return Err(invalid("it needs exactly three numbers"));
        }
        for number in &numbers {
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid("MAJOR, MINOR and PATCH must be decimal numbers"));
            }
            if number.len() > 1 && number.starts_with('0') {
                return Err(invalid("numbers must not have leading zeros"));
            }
            if number.parse::<u64>().is_err() {
                return Err(invalid("a number is too large"));
            }
        }
        if let Some(prerelease) = prerelease {
            for identifier in prerelease.split('.') {
                if identifier.is_empty()
                    || !identifier.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                {
                    return Err(invalid(
                        "the pre-release part must be dot-separated letters, digits and dashes",
                    ));
                }
                if identifier.len() > 1
                    && identifier.starts_with('0')
                    && identifier.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(invalid(
                        "numeric pre-release identifiers must not have leading zeros",
                    ));
                }
            }
        }
        Ok(Self(given.to_owned()))
    }
}

/// A Terraform platform: Go's GOOS and GOARCH names, which Terraform uses in `OS_ARCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    pub os: &'static str,
    pub arch: &'static str,
}

impl Platform {
    /// The platform this binary was built for, which is the platform it can serve on.
    pub fn current() -> Result<Self, InstallError> {
        Self::from_rust(std::env::consts::OS, std::env::consts::ARCH)
    }

    /// Maps Rust's target names onto Go's.
    pub fn from_rust(os: &str, arch: &str) -> Result<Self, InstallError> {
        let go_os = match os {
            "linux" => "linux",
            "macos" => "darwin",
            "windows" => "windows",
            "freebsd" => "freebsd",
            "openbsd" => "openbsd",
            "netbsd" => "netbsd",
            "solaris" => "solaris",
            "illumos" => "illumos",
            _ => return Err(unsupported(os, arch)),
        };
        let go_arch = match arch {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "arm" => "arm",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "s390x" => "s390x",
            "riscv64" => "riscv64",
            "loongarch64" => "loong64",
            _ => return Err(unsupported(os, arch)),
        };
        Ok(Self { os: go_os, arch: go_arch })
    }
}

fn unsupported(os: &str, arch: &str) -> InstallError {
    InstallError::UnsupportedPlatform { os: os.to_owned(), arch: arch.to_owned() }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}

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

/// Checks that `path` is a readable WebAssembly component (by its preamble; the runtime checks
/// the rest when it loads it).
pub fn check_component(path: &Path) -> Result<(), InstallError> {
    let read_error = |source| InstallError::ReadComponent { path: path.to_owned(), source };
    let mut file = fs::File::open(path).map_err(read_error)?;
    if file.metadata().map_err(read_error)?.is_dir() {
        return Err(read_error(io::Error::new(io::ErrorKind::InvalidInput, "it is a directory")));
    }
    let mut preamble = Vec::with_capacity(8);
    file.by_ref().take(8).read_to_end(&mut preamble).map_err(read_error)?;
    if preamble.len() < 4 || preamble[..4] != COMPONENT_PREAMBLE[..4] {
        return Err(InstallError::NotWasm { path: path.to_owned() });
    }
    if preamble[..] == CORE_MODULE_PREAMBLE {
        return Err(InstallError::CoreModule { path: path.to_owned() });
    }
    if preamble[..] != COMPONENT_PREAMBLE {
        let found = preamble[4..].iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
        return Err(InstallError::UnsupportedWasmVersion { path: path.to_owned(), found });
    }
    Ok(())
}

/// Everything an installation needs, resolved and validated.
#[derive(Debug, Clone)]
pub struct InstallRequest {
    pub component: PathBuf,
    pub source: ProviderSource,
    pub version: ProviderVersion,
    pub mirror: PathBuf,
    pub platform: Platform,
    /// The host executable to copy in (normally the running `terrarium`).
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

/// Lays out the package. The new package is assembled in a staging directory beside its final
/// place and renamed into it, so Terraform never sees a half-written package.
pub fn install(request: &InstallRequest) -> Result<(PackageLayout, InstallOutcome), InstallError> {
    check_component(&request.component)?;
    let layout =
        PackageLayout::new(&request.mirror, &request.source, &request.version, request.platform);
    let executable_bytes = fs::read(&request.host_executable).map_err(InstallError::CurrentExe)?;
    let component_bytes = fs::read(&request.component).map_err(|source| {
        InstallError::ReadComponent { path: request.component.clone(), source }
    })?;

    let grants_text = request.grants.render(&format!("{} {}", request.source, request.version));

    let existing = layout.package_dir.exists();
    if existing {
        if package_matches(&layout, &executable_bytes, &component_bytes, grants_text.as_bytes()) {
            return Ok((layout, InstallOutcome::AlreadyUpToDate));
        }
        if !request.force {
            return Err(InstallError::AlreadyInstalled {
                dir: layout.package_dir.clone(),
                source_address: request.source.to_string(),
                version: request.version.to_string(),
            });
        }
    }

    let version_dir = layout.package_dir.parent().unwrap_or(&request.mirror).to_owned();
    let write_error = |path: &Path| {
        let path = path.to_owned();
        move |source| InstallError::Write { path, source }
    };
    fs::create_dir_all(&version_dir).map_err(write_error(&version_dir))?;

    // Dot-prefixed names: Terraform does not parse them as platforms while they briefly exist.
    let pid = std::process::id();
    let staging = version_dir.join(format!(".{}.terrarium-new-{pid}", request.platform));
    let retired = version_dir.join(format!(".{}.terrarium-old-{pid}", request.platform));
    let result = (|| {
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
    let outcome = if existing { InstallOutcome::Replaced } else { InstallOutcome::Installed };
    Ok((layout, outcome))
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
    let error = |source| InstallError::Write { path: path.to_owned(), source };
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
    let from_env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let data_home = from_env("XDG_DATA_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| from_env("HOME").map(|home| home.join(".local").join("share")))
        .ok_or(InstallError::NoDefaultMirror)?;
    Ok(data_home.join("terrarium").join("mirror"))
}

/// The `provider_installation` block that makes Terraform take `source` from `mirror` and
/// everything else from where it normally would.
pub fn cli_config_block(mirror: &Path, source: &ProviderSource) -> String {
    let path = hcl_quote(&mirror.to_string_lossy());
    let address = hcl_quote(&source.to_string());
    format!(
        "provider_installation {{\n  \
           filesystem_mirror {{\n    path    = {path}\n    include = [{address}]\n  }}\n  \
           direct {{\n    exclude = [{address}]\n  }}\n\
         }}\n"
    )
}

/// A string literal for the CLI config file. Terraform parses that file as HCL 1, where only
/// backslash escapes are special (`${` is literal there, unlike in HCL 2 configurations).
fn hcl_quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// One paragraph saying what the installed provider may do.
fn grants_summary(grants: &Grants, file: &Path) -> String {
    let mut lines = vec![format!("Grants ({}):", file.display())];
    if grants.http.is_empty() && grants.dirs.is_empty() && grants.env.is_empty() {
        lines.push("  none: no network, no files, no environment (deny by default)".into());
    }
    lines.extend(grants.http.iter().map(|g| format!("  HTTP to {g}")));
    lines.extend(grants.dirs.iter().map(|d| format!("  directory {d}")));
    lines.extend(grants.env.iter().map(|e| format!("  environment variable {e}")));
    if let Some(m) = grants.limits.memory {
        lines.push(format!("  memory {m} per instance"));
    }
    if let Some(t) = grants.limits.timeout {
        lines.push(format!("  {} per call", crate::sandbox::format_duration(t)));
    }
    lines.join("\n")
}

/// `terrarium install`: validates, installs, then prints the CLI config block on stdout (so it
/// can be redirected into a file) and guidance on stderr.
pub fn run(args: &InstallArgs) -> anyhow::Result<()> {
    let source: ProviderSource = args.source.parse()?;
    let version: ProviderVersion = args.version.parse()?;
    let grants = args.grants()?;
    check_component(&args.component)?;
    let mirror = match &args.mirror {
        Some(mirror) => mirror.clone(),
        None => default_mirror_dir()?,
    };
    fs::create_dir_all(&mirror)
        .map_err(|source| InstallError::Write { path: mirror.clone(), source })?;
    // Terraform resolves a relative mirror path against its own working directory, not ours.
    let mirror = mirror
        .canonicalize()
        .with_context(|| format!("cannot resolve the mirror directory {}", mirror.display()))?;
    let request = InstallRequest {
        component: args.component.clone(),
        source,
        version,
        mirror,
        platform: Platform::current()?,
        host_executable: std::env::current_exe().map_err(InstallError::CurrentExe)?,
        force: args.force,
        grants,
    };
    let (layout, outcome) = install(&request)?;
    fill_compiled_cache(&request.component);

    let what = format!("{} {} ({})", request.source, request.version, request.platform);
    let verb = match outcome {
        InstallOutcome::Installed => "Installed",
        InstallOutcome::Replaced => "Replaced",
        InstallOutcome::AlreadyUpToDate => "Already installed (unchanged)",
    };
    eprintln!("{verb}: {what}\n  in {}\n", layout.package_dir.display());
    eprintln!("{}\n", grants_summary(&request.grants, &layout.grants));
    eprintln!(
        "Use it with this block in your Terraform CLI configuration (~/.terraformrc, or the file \
         TF_CLI_CONFIG_FILE names); when several providers share this mirror, list them all in \
         `include`:\n"
    );
    print!("{}", cli_config_block(&request.mirror, &request.source));
    eprintln!(
        "\nand require it in your configuration:\n\n  terraform {{\n    required_providers {{\n      \
         {} = {{\n        source  = \"{}\"\n        version = \"{}\"\n      }}\n    }}\n  }}",
        request.source.type_name, request.source, request.version
    );
    Ok(())
}

/// Compiles the component into the user's compiled-component cache now, so that the first
/// terraform run loads it instead of compiling it (seconds) in every provider process it
/// starts. Only speed depends on this, so a failure is a warning.
fn fill_compiled_cache(component: &Path) {
    let settings = crate::runtime::RuntimeSettings::default();
    if settings.cache_dir.is_none() {
        return;
    }
    match crate::runtime::fill_cache(component, settings) {
        Ok(outcome) => tracing::debug!(?outcome, "compiled-component cache filled"),
        Err(e) => eprintln!(
            "Warning: the component could not be compiled ahead of time: {e}\n\
             Terraform will show the problem when it starts the provider.\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPONENT: &[u8] = b"\0asm\x0d\x00\x01\x00rest-of-component";

    fn source(text: &str) -> ProviderSource {
        text.parse().expect("valid source")
    }

    fn version(text: &str) -> ProviderVersion {
        text.parse().expect("valid version")
    }

    struct Fixture {
        dir: tempfile::TempDir,
        request: InstallRequest,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let component = dir.path().join("thing.wasm");
        fs::write(&component, COMPONENT).expect("write component");
        let host_executable = dir.path().join("terrarium");
        fs::write(&host_executable, b"#!host-binary").expect("write host");
        let request = InstallRequest {
            component,
            source: source("example.com/acme/widgets"),
            version: version("1.2.3"),
            mirror: dir.path().join("mirror"),
            platform: Platform { os: "linux", arch: "amd64" },
            host_executable,
            force: false,
            grants: Grants::default(),
        };
        Fixture { dir, request }
    }

    #[test]
    fn layout_is_terraforms_unpacked_mirror_layout() {
        let layout = PackageLayout::new(
            Path::new("/m"),
            &source("acme/widgets"),
            &version("0.1.0-beta.2"),
            Platform { os: "darwin", arch: "arm64" },
        );
        let dir = Path::new("/m/registry.terraform.io/acme/widgets/0.1.0-beta.2/darwin_arm64");
        assert_eq!(layout.package_dir, dir);
        assert_eq!(layout.executable, dir.join("terraform-provider-widgets_v0.1.0-beta.2"));
        assert_eq!(layout.component, dir.join("provider.wasm"));
        assert_eq!(component_beside(&layout.executable), layout.component);

        let windows = PackageLayout::new(
            Path::new("/m"),
            &source("acme/widgets"),
            &version("1.0.0"),
            Platform { os: "windows", arch: "amd64" },
        );
        assert!(
            windows.executable.ends_with("windows_amd64/terraform-provider-widgets_v1.0.0.exe")
        );
    }

    #[test]
    fn install_writes_executable_component_and_grants_and_nothing_else() {
        let f = fixture();
        let (layout, outcome) = install(&f.request).expect("install");
        assert_eq!(outcome, InstallOutcome::Installed);
        assert_eq!(
            layout.package_dir,
            f.dir.path().join("mirror/example.com/acme/widgets/1.2.3/linux_amd64")
        );
        assert_eq!(fs::read(&layout.executable).unwrap(), b"#!host-binary");
        assert_eq!(fs::read(&layout.component).unwrap(), COMPONENT);
        let mut names: Vec<_> = fs::read_dir(&layout.package_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["grants.toml", "provider.wasm", "terraform-provider-widgets_v1.2.3"]);
        // No flags: a commented grants file that grants nothing.
        let grants = Grants::load(&layout.grants).expect("grants file parses");
        assert_eq!(grants, Grants::default());
        assert!(
            fs::read_to_string(&layout.grants)
                .unwrap()
                .contains("NOTHING else unless it is listed here")
        );
        // No staging leftovers beside the package.
        let siblings: Vec<_> =
            fs::read_dir(layout.package_dir.parent().unwrap()).unwrap().collect();
        assert_eq!(siblings.len(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs::metadata(&layout.executable).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
    }

    #[test]
    fn reinstalling_identical_package_is_a_no_op_and_different_one_needs_force() {
        let mut f = fixture();
        install(&f.request).expect("first install");
        let (_, outcome) = install(&f.request).expect("second install");
        assert_eq!(outcome, InstallOutcome::AlreadyUpToDate);

        fs::write(&f.request.component, b"\0asm\x0d\x00\x01\x00changed").unwrap();
        let err = install(&f.request).expect_err("different package without --force");
        assert!(matches!(err, InstallError::AlreadyInstalled { .. }), "{err}");
        assert!(err.to_string().contains("--force"), "{err}");

        f.request.force = true;
        let (layout, outcome) = install(&f.request).expect("forced install");
        assert_eq!(outcome, InstallOutcome::Replaced);
        assert_eq!(fs::read(&layout.component).unwrap(), b"\0asm\x0d\x00\x01\x00changed");
        let siblings: Vec<_> =
            fs::read_dir(layout.package_dir.parent().unwrap()).unwrap().collect();
        assert_eq!(siblings.len(), 1, "retired package left behind");
    }

    #[test]
    fn component_validation_explains_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            fs::write(&path, bytes).unwrap();
            path
        };

        let missing = dir.path().join("missing.wasm");
        assert!(matches!(check_component(&missing), Err(InstallError::ReadComponent { .. })));
        assert!(matches!(check_component(dir.path()), Err(InstallError::ReadComponent { .. })));

        let text = write("text.wasm", b"hello world");
        let err = check_component(&text).unwrap_err();
        assert!(matches!(err, InstallError::NotWasm { .. }), "{err}");
        assert!(matches!(
            check_component(&write("empty.wasm", b"")),
            Err(InstallError::NotWasm { .. })
        ));

        let core = write("core.wasm", b"\0asm\x01\x00\x00\x00");
        let err = check_component(&core).unwrap_err();
        assert!(matches!(err, InstallError::CoreModule { .. }), "{err}");
        assert!(err.to_string().contains("wasm32-wasip2"), "{err}");

        let old = write("old.wasm", b"\0asm\x0c\x00\x01\x00");
        let err = check_component(&old).unwrap_err();
        assert!(
            matches!(err, InstallError::UnsupportedWasmVersion { ref found, .. } if found == "0c 00 01 00")
        );
        let truncated = write("short.wasm", b"\0asm\x0d");
        assert!(matches!(
            check_component(&truncated),
            Err(InstallError::UnsupportedWasmVersion { .. })
        ));

        assert!(check_component(&write("ok.wasm", COMPONENT)).is_ok());
    }

    #[test]
    fn install_refuses_a_non_component_before_writing_anything() {
        let mut f = fixture();
        fs::write(&f.request.component, b"\0asm\x01\x00\x00\x00").unwrap();
        f.request.force = true;
        assert!(matches!(install(&f.request), Err(InstallError::CoreModule { .. })));
        assert!(!f.request.mirror.exists());
    }

    #[test]
    fn sources_are_parsed_and_normalised() {
        assert_eq!(
            source("acme/widgets"),
            ProviderSource {
                hostname: "registry.terraform.io".into(),
                namespace: "acme".into(),
                type_name: "widgets".into()
            }
        );
        assert_eq!(
            source("Example.COM:8443/Acme/my-thing").to_string(),
            "example.com:8443/acme/my-thing"
        );
    }

    #[test]
    fn malformed_sources_are_refused_with_a_reason() {
        for (given, reason) in [
            ("widgets", "1 part"),
            ("a/b/c/d", "4 part"),
            ("acme/", "type \"\" is empty"),
            ("/widgets", "namespace \"\" is empty"),
            ("acme/my_widgets", "contains '_'"),
            ("acme/-widgets", "dash"),
            ("acme/widgets-", "dash"),
            ("ex ample.com/acme/widgets", "contains ' '"),
            ("example..com/acme/widgets", "not a valid DNS name"),
            ("example.com:0/acme/widgets", "invalid port"),
            ("example.com:http/acme/widgets", "invalid port"),
            ("hashicorp/terraform", "reserved"),
        ] {
            let err = given.parse::<ProviderSource>().expect_err(given);
            let message = err.to_string();
            assert!(matches!(err, InstallError::InvalidSource { .. }), "{given}: {message}");
            assert!(message.contains(reason), "{given}: {message}");
            assert!(message.contains("HOST/NAMESPACE/TYPE"), "{given}: {message}");
        }
    }

    #[test]
    fn versions_must_be_canonical_semver() {
        for good in [
            "0.0.0",
            "1.2.3",
            "10.20.30",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-0.3.7",
            "1.0.0-x-y",
        ] {
            assert_eq!(version(good).as_str(), good);
        }
        for (bad, reason) in [
            ("v1.2.3", "leading \"v\""),
            ("1.2", "three numbers"),
            ("1.2.3.4", "three numbers"),
            ("1.02.3", "leading zeros"),
            ("1.x.3", "decimal"),
            ("", "three numbers"),
            ("1.2.3+build5", "build metadata"),
            ("1.2.3-", "pre-release"),
            ("1.2.3-a..b", "pre-release"),
            ("1.2.3-01", "leading zeros"),
            ("1.2.3-beta/1", "pre-release"),
            ("99999999999999999999.0.0", "too large"),
        ] {
            let err = bad.parse::<ProviderVersion>().expect_err(bad);
            let message = err.to_string();
            assert!(matches!(err, InstallError::InvalidVersion { .. }), "{bad}: {message}");
            assert!(message.contains(reason), "{bad}: {message}");
        }
    }

    #[test]
    fn platforms_use_go_names() {
        assert_eq!(Platform::from_rust("linux", "x86_64").unwrap().to_string(), "linux_amd64");
        assert_eq!(Platform::from_rust("macos", "aarch64").unwrap().to_string(), "darwin_arm64");
        assert_eq!(Platform::from_rust("windows", "x86").unwrap().to_string(), "windows_386");
        assert!(matches!(
            Platform::from_rust("plan9", "x86_64"),
            Err(InstallError::UnsupportedPlatform { .. })
        ));
        assert!(matches!(
            Platform::from_rust("linux", "mips"),
            Err(InstallError::UnsupportedPlatform { .. })
        ));
        assert!(Platform::current().is_ok());
    }

    #[test]
    fn cli_config_block_names_the_mirror_and_excludes_it_from_direct() {
        let block = cli_config_block(
            Path::new("/data/my \"mirror\" ${x}"),
            &source("example.com/acme/widgets"),
        );
        assert_eq!(
            block,
            "provider_installation {\n  filesystem_mirror {\n    path    = \"/data/my \\\"mirror\\\" ${x}\"\n    \
             include = [\"example.com/acme/widgets\"]\n  }\n  direct {\n    exclude = [\"example.com/acme/widgets\"]\n  }\n}\n"
        );
        assert_eq!(hcl_quote(r"C:\dir\%{a}"), r#""C:\\dir\\%{a}""#);
    }

    #[test]
    fn install_args_parse_as_a_clap_subcommand() {
        use clap::{Args as _, FromArgMatches as _};
        let command = InstallArgs::augment_args(clap::Command::new("install"));
        command.clone().debug_assert();
        let matches = command
            .try_get_matches_from([
                "install",
                "p.wasm",
                "--source",
                "acme/w",
                "--version",
                "1.0.0",
                "--mirror",
                "/m",
            ])
            .expect("parse");
        let args = InstallArgs::from_arg_matches(&matches).expect("args");
        assert_eq!(args.component, Path::new("p.wasm"));
        assert_eq!(args.source, "acme/w");
        assert_eq!(args.version, "1.0.0");
        assert_eq!(args.mirror.as_deref(), Some(Path::new("/m")));
        assert!(!args.force);
    }

    #[test]
    fn grant_flags_are_written_to_the_grants_file_and_a_change_needs_force() {
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from([
            "terrarium",
            "install",
            "x.wasm",
            "--source",
            "acme/widgets",
            "--version",
            "1.0.0",
            "--allow-http",
            "http://127.0.0.1:2379",
            "--allow-http",
            "api.example.com",
            "--allow-dir",
            "/srv/data:rw",
            "--allow-env",
            "WIDGET_TOKEN",
            "--memory",
            "64MiB",
            "--timeout",
            "20s",
        ])
        .expect("flags parse");
        let Some(crate::cli::Command::Install(args)) = cli.command else { panic!("not install") };
        let grants = args.grants().expect("valid grants");
        assert_eq!(grants.http.len(), 2);
        assert_eq!(grants.dirs[0].to_string(), "/srv/data:rw");
        assert_eq!(grants.limits.timeout, Some(std::time::Duration::from_secs(20)));

        let mut f = fixture();
        f.request.grants = grants.clone();
        let (layout, _) = install(&f.request).expect("install");
        assert_eq!(Grants::load(&layout.grants).expect("parses"), grants);
        // Same component, other grants: a different package.
        f.request.grants = Grants::default();
        assert!(matches!(install(&f.request), Err(InstallError::AlreadyInstalled { .. })));
        f.request.force = true;
        assert_eq!(install(&f.request).expect("forced").1, InstallOutcome::Replaced);
        assert_eq!(Grants::load(&layout.grants).expect("parses"), Grants::default());
    }

    #[test]
    fn bad_grant_flags_are_refused_with_the_reason() {
        for bad in [
            vec!["--allow-http", "ftp://x"],
            vec!["--allow-dir", "relative"],
            vec!["--allow-env", "NOT-A-NAME"],
            vec!["--memory", "lots"],
            vec!["--timeout", "forever"],
        ] {
            let mut argv =
                vec!["terrarium", "install", "x.wasm", "--source", "acme/w", "--version", "1.0.0"];
            argv.extend(bad.iter().copied());
            assert!(
                <crate::cli::Cli as clap::Parser>::try_parse_from(&argv).is_err(),
                "{bad:?} must be refused"
            );
        }
    }
}

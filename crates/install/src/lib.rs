//! `terrarium install`: lay a provider component out as a Terraform filesystem mirror.
//!
//! Terraform finds a provider in an *unpacked* filesystem mirror at
//! `MIRROR/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`, runs the first file in that directory whose
//! name starts with `terraform-provider-TYPE`, with no arguments, and records a hash of the whole
//! directory in the configuration's `.terraform.lock.hcl`. So the installed package is:
//!
//! ```text
//! MIRROR/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/
//!     terraform-provider-TYPE_vVERSION   a copy of `terrarium-provider` ([`served_executable`])
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
//!
//! [`GRANTS_FILE_NAME`]: terrarium_runtime::sandbox::GRANTS_FILE_NAME

// Doc comments on the clap arguments are `--help` text, where brackets mean optional parts.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod approvals;
mod cli_config;
mod component;
pub mod grant_args;
mod layout;
mod platform;
pub mod protected;
pub mod pulumi;
pub mod release;
mod source;
pub mod user_files;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::approvals::Approvals;
pub use cli_config::cli_config_block;
pub use component::check_component;
pub use layout::{
    COMPONENT_FILE_NAME, InstallOutcome, InstallRequest, Package, PackageLayout, component_beside,
    default_mirror_dir, install, install_package,
};
pub use platform::Platform;
pub use release::{Release, Releases};
pub use source::{DEFAULT_REGISTRY_HOST, ProviderSource, ProviderVersion};
use terrarium_runtime::sandbox::Grants;

/// Arguments of `terrarium install`.
///
/// Note for the parent command: this defines its own `--version`, so the top-level command must
/// not propagate clap's automatic `--version` flag into subcommands.
#[derive(clap::Args, Debug, Clone)]
#[command(group(
    clap::ArgGroup::new("target").required(true).args(["source", "pulumi", "pulumi_base"])
))]
pub struct InstallArgs {
    /// The provider component to install: a WebAssembly component (.wasm), for instance one
    /// built with `cargo build --target wasm32-wasip2`, or a release zip of `terrarium
    /// package` (only its component is taken: its executable and grants are the publisher's).
    #[arg(required_unless_present_any = ["from_registry", "pulumi_base"])]
    pub component: Option<PathBuf>,

    /// Fetch the release of --source at --version from its registry (Terraform's provider
    /// registry protocol, signature checked) and install its component under this host,
    /// leaving the publisher's executable and grants behind.
    #[arg(long, conflicts_with_all = ["component", "pulumi"])]
    pub from_registry: bool,

    /// Provider source address, HOST/NAMESPACE/TYPE (or NAMESPACE/TYPE for registry.terraform.io),
    /// exactly as configurations will write it in `required_providers`.
    #[arg(long, value_name = "HOST/NAMESPACE/TYPE")]
    pub source: Option<String>,

    /// Install it as the Pulumi resource plugin (package) NAME instead, for Pulumi's engine:
    /// `resource-NAME-vVERSION/pulumi-resource-NAME` under --plugin-dir.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["source", "mirror"])]
    pub pulumi: Option<String>,

    /// Install the Pulumi base plugin `terrarium` (no component): it serves any component a
    /// Pulumi program adds as a package, `pulumi package add terrarium COMPONENT.wasm`, with
    /// the grants beside that component once you approve them.
    #[arg(
        long,
        conflicts_with_all = ["component", "source", "mirror", "from_registry"]
    )]
    pub pulumi_base: bool,

    /// Provider version to install it as, a semantic version such as 1.2.3 (with
    /// --pulumi-base: the plugin's version [default: this terrarium's]).
    #[arg(long, value_name = "X.Y.Z", required_unless_present = "pulumi_base")]
    pub version: Option<String>,

    /// Mirror directory to install into [default: $XDG_DATA_HOME/terrarium/mirror, i.e.
    /// ~/.local/share/terrarium/mirror].
    #[arg(long, value_name = "DIR")]
    pub mirror: Option<PathBuf>,

    /// Pulumi plugin directory to install into, with --pulumi [default: $PULUMI_HOME/plugins,
    /// i.e. ~/.pulumi/plugins].
    #[arg(long, value_name = "DIR")]
    pub plugin_dir: Option<PathBuf>,

    /// Replace an existing, different installation of the same source, version and platform.
    #[arg(long)]
    pub force: bool,

    /// What the provider may do: written to the grants file beside it.
    #[command(flatten)]
    pub grant_flags: crate::grant_args::GrantArgs,
}

impl InstallArgs {
    /// The grants these flags describe.
    pub fn grants(&self) -> Result<Grants, terrarium_runtime::sandbox::GrantError> {
        self.grant_flags.grants()
    }
}

/// Why an installation was refused or failed. Every message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    // `cause`, not `source`: the message says it, and anyhow's chain must not say it again.
    #[error("cannot read the component {}: {cause}", path.display())]
    ReadComponent { path: PathBuf, cause: io::Error },

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

    #[error(
        "invalid platform {given:?}: expected Terraform's OS_ARCH, such as linux_amd64, \
         linux_arm64, darwin_arm64 or windows_amd64"
    )]
    InvalidPlatform { given: String },

    #[error("no --mirror given and neither XDG_DATA_HOME nor HOME is set; pass --mirror DIR")]
    NoDefaultMirror,

    #[error("no --plugin-dir given and neither PULUMI_HOME nor HOME is set; pass --plugin-dir DIR")]
    NoDefaultPluginDir,

    #[error(
        "invalid --pulumi {given:?}: a Pulumi package name is lowercase letters, digits and \
         dashes, starting with a letter, for example random or my-files"
    )]
    InvalidPulumiName { given: String },

    #[error(
        "{} already holds a different {source_address} {version}; pass --force to replace it \
         (configurations that locked the old package then fail Terraform's checksum check: \
         delete the provider's entry from their .terraform.lock.hcl and run `terraform init`)",
        dir.display()
    )]
    AlreadyInstalled { dir: PathBuf, source_address: String, version: String },

    #[error("cannot find the running terrarium executable to install: {0}")]
    CurrentExe(io::Error),

    #[error(
        "{} is missing: it is the served-only executable a provider package ships, built beside \
         terrarium (`cargo build -p terrarium` builds both; a release ships both)",
        path.display()
    )]
    NoServedExecutable { path: PathBuf },

    #[error(
        "cannot write {}: {cause}; install into a directory you can write, with --mirror DIR",
        path.display()
    )]
    Write { path: PathBuf, cause: io::Error },

    #[error(transparent)]
    Load(#[from] terrarium_runtime::LoadError),

    #[error(
        "{} loads, but it cannot serve: {reason}; this is a bug in the provider, so rebuild it \
         with the problem fixed (`terrarium inspect` shows the same)",
        path.display()
    )]
    CannotServe { path: PathBuf, reason: String },
}

impl InstallOutcome {
    /// What happened, as the first word(s) of the line that reports it.
    fn verb(&self) -> &'static str {
        match self {
            InstallOutcome::Installed => "Installed",
            InstallOutcome::Replaced => "Replaced",
            InstallOutcome::AlreadyUpToDate => "Already installed (unchanged)",
        }
    }
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
    if let Some(m) = grants.limits.total_memory {
        lines.push(format!("  memory {m} for all instances together"));
    }
    if let Some(t) = grants.limits.timeout {
        lines.push(format!("  {} per call", terrarium_runtime::sandbox::format_duration(t)));
    }
    lines.join("\n")
}

/// `terrarium install`: validates, installs, then prints the CLI config block on stdout (so it
/// can be redirected into a file) and guidance on stderr. A release zip or `--from-registry` is
/// read or fetched through `releases`.
pub fn run(args: &InstallArgs, releases: &dyn Releases) -> anyhow::Result<()> {
    if args.pulumi_base {
        return run_pulumi_base(args);
    }
    if let Some(name) = &args.pulumi {
        return run_pulumi(args, name, releases);
    }
    if args.plugin_dir.is_some() {
        anyhow::bail!(
            "--plugin-dir is where Pulumi plugins go: add --pulumi NAME, or use --mirror DIR for Terraform"
        );
    }
    let source: ProviderSource = args.source.as_deref().unwrap_or_default().parse()?;
    let version: ProviderVersion = args.version.as_deref().unwrap_or_default().parse()?;
    let grants = args.grants()?;
    let component = Component::resolve(args, Some(&source), &version, releases)?;
    check_component(component.path())?;
    validate_component(component.path())?;
    let mirror = match &args.mirror {
        Some(mirror) => mirror.clone(),
        None => default_mirror_dir()?,
    };
    // Checked again when the provider starts, where the working directory is known too.
    let mut protected = crate::protected::host(None);
    protected.push(crate::protected::mirror(&mirror));
    terrarium_runtime::sandbox::dirs::check_dir_grants(&grants.dirs, &protected)?;
    let approvals = Approvals::for_user();
    check_grants_in_force(approvals.as_ref(), &mirror)?;
    fs::create_dir_all(&mirror)
        .map_err(|cause| InstallError::Write { path: mirror.clone(), cause })?;
    // Terraform resolves a relative mirror path against its own working directory, not ours.
    let mirror = mirror
        .canonicalize()
        .with_context(|| format!("cannot resolve the mirror directory {}", mirror.display()))?;
    let request = InstallRequest {
        component: component.path().to_path_buf(),
        source,
        version,
        mirror,
        platform: Platform::current()?,
        host_executable: served_executable()?,
        force: args.force,
        grants,
    };
    let (layout, outcome) = install(&request)?;
    trust_installed(approvals.as_ref(), &layout.grants, &request.mirror)?;

    let what = format!("{} {} ({})", request.source, request.version, request.platform);
    let verb = outcome.verb();
    eprintln!("{verb}: {what}\n  in {}\n", layout.package_dir.display());
    component.tell_about_release();
    if outcome == InstallOutcome::Replaced {
        eprintln!(
            "The package changed, so configurations that already use {} {} fail Terraform's \
             checksum check until you delete its entry from their .terraform.lock.hcl and run \
             `terraform init` again (`terraform init -upgrade` does not help: the version is the \
             same).\n",
            request.source, request.version
        );
    }
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
    if request.source.hostname == source::DEFAULT_REGISTRY_HOST {
        eprintln!(
            "\nKeep the host in `source`, for OpenTofu above all: OpenTofu reads `{}/{}` as \
             registry.opentofu.org/{}/{}, which this mirror does not hold.",
            request.source.namespace,
            request.source.type_name,
            request.source.namespace,
            request.source.type_name
        );
    }
    eprintln!(
        "\nthen, in that configuration's directory, record the package's checksum before \
         `terraform init` (else init computes it itself and reports incomplete lock file \
         information):\n\n  terraform providers lock -fs-mirror={} {}",
        request.mirror.display(),
        request.source
    );
    Ok(())
}

/// `terrarium install --pulumi NAME`: the same checks, Pulumi's plugin layout.
fn run_pulumi(args: &InstallArgs, name: &str, releases: &dyn Releases) -> anyhow::Result<()> {
    pulumi::check_package_name(name)?;
    let version: ProviderVersion = args.version.as_deref().unwrap_or_default().parse()?;
    let grants = args.grants()?;
    let component = Component::resolve(args, None, &version, releases)?;
    check_component(component.path())?;
    validate_component(component.path())?;
    let plugin_dir = match &args.plugin_dir {
        Some(dir) => dir.clone(),
        None => pulumi::default_plugin_dir()?,
    };
    let mut protected = crate::protected::host(None);
    protected.push(crate::protected::mirror(&plugin_dir));
    terrarium_runtime::sandbox::dirs::check_dir_grants(&grants.dirs, &protected)?;
    let approvals = Approvals::for_user();
    check_grants_in_force(approvals.as_ref(), &plugin_dir)?;
    let layout = pulumi::pulumi_layout(&plugin_dir, name, version.as_str());
    let host_executable = served_executable()?;
    let package = Package {
        component: component.path(),
        host_executable: &host_executable,
        grants: &grants,
        source_address: format!("pulumi plugin {name}"),
        version: version.to_string(),
        force: args.force,
    };
    let outcome = install_package(&layout, &package)?;
    trust_installed(approvals.as_ref(), &layout.grants, &plugin_dir)?;
    let verb = outcome.verb();
    eprintln!(
        "{verb}: Pulumi resource plugin {name} {version}\n  in {}\n",
        layout.package_dir.display()
    );
    eprintln!("{}\n", grants_summary(&grants, &layout.grants));
    eprintln!(
        "Pulumi's engine finds it by name and version: a program that uses the package {name} \
         at {version} starts {}.",
        layout.executable.display()
    );
    println!("{}", layout.package_dir.display());
    Ok(())
}

/// `terrarium install --pulumi-base`: the base plugin alone, no component and no grants (each
/// component's come from beside it).
fn run_pulumi_base(args: &InstallArgs) -> anyhow::Result<()> {
    if args.grants()? != Grants::default() {
        anyhow::bail!(
            "the base plugin has no grants of its own: each component it serves runs with the \
             grants.toml beside it, once you approve them (`terrarium grants approve DIR`); drop \
             the grant flags"
        );
    }
    let version: ProviderVersion = args.version.as_deref().unwrap_or_default().parse()?;
    let plugin_dir = match &args.plugin_dir {
        Some(dir) => dir.clone(),
        None => pulumi::default_plugin_dir()?,
    };
    let (executable, outcome) =
        pulumi::install_base(&plugin_dir, version.as_str(), &served_executable()?, args.force)?;
    let name = pulumi::BASE_PLUGIN;
    eprintln!(
        "{}: Pulumi base plugin {name} {version}\n  in {}\n",
        outcome.verb(),
        executable.display()
    );
    eprintln!(
        "Add a component to a Pulumi program as a package, in the program's directory:\n\n  \
         pulumi package add {name} PATH/TO/COMPONENT.wasm [NAME [X.Y.Z]]\n\n\
         (for a YAML program, `pulumi package gen-sdk {name} PATH/TO/COMPONENT.wasm --language \
         yaml --out sdks`: pulumi-yaml cannot link what `package add` generates). It runs with \
         the grants.toml beside the component once you approve them (`terrarium grants approve \
         DIR`); without one, with no grants."
    );
    println!("{}", executable.display());
    Ok(())
}

/// The component to install: the file given, or the one taken out of a release.
enum Component {
    File(PathBuf),
    /// Taken out of a release: written to a scratch file, with what the release said.
    Release {
        path: PathBuf,
        _scratch: tempfile::TempDir,
        release: Release,
    },
}

impl Component {
    fn resolve(
        args: &InstallArgs,
        source: Option<&ProviderSource>,
        version: &ProviderVersion,
        releases: &dyn Releases,
    ) -> anyhow::Result<Component> {
        let release = match (&args.component, source) {
            (Some(path), _) if release::is_release_zip(path) => {
                let bytes = fs::read(path)
                    .map_err(|cause| InstallError::ReadComponent { path: path.clone(), cause })?;
                releases.read_zip(&bytes, &path.display().to_string())?
            }
            (Some(path), _) => return Ok(Component::File(path.clone())),
            (None, Some(source)) => {
                eprintln!("fetching {source} {version} from {}", source.hostname);
                releases.fetch(source, version, &Platform::current()?)?
            }
            (None, None) => anyhow::bail!("pass the component to install, or --from-registry"),
        };
        let scratch = tempfile::tempdir().context("cannot make a scratch directory")?;
        let path = scratch.path().join(COMPONENT_FILE_NAME);
        fs::write(&path, &release.component)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Component::Release { path, _scratch: scratch, release })
    }

    fn path(&self) -> &Path {
        match self {
            Component::File(path) | Component::Release { path, .. } => path,
        }
    }

    /// What was taken from a release and what was left behind, for the person installing.
    fn tell_about_release(&self) {
        let Component::Release { release, .. } = self else { return };
        eprintln!(
            "Took the component out of {}; the publisher's executable was left behind: this \
             terrarium serves it.",
            release.origin
        );
        let requested = release.requested_grants.as_deref().and_then(|g| Grants::parse(g).ok());
        match requested {
            Some(requested) if requested != Grants::default() => eprintln!(
                "The publisher's grants file asks for {}; it is not in force. Grant what you agree \
                 to with this command's --allow-http, --allow-dir and --allow-env flags.\n",
                crate::approvals::summary(&requested)
            ),
            _ => eprintln!(),
        }
    }
}

/// Refuses to install into `mirror` when a grant already in force (written by an earlier
/// `install`, or approved) could write there: that provider could replace this one's
/// executable, which Terraform runs natively.
fn check_grants_in_force(approvals: Option<&Approvals>, mirror: &Path) -> anyhow::Result<()> {
    let Some(approvals) = approvals else { return Ok(()) };
    let protected = [crate::protected::mirror(mirror)];
    for file in approvals.grants_in_force() {
        let Ok(grants) = Grants::load(&file) else { continue };
        terrarium_runtime::sandbox::dirs::check_protected(&grants.dirs, &protected).map_err(
            |e| {
                anyhow::anyhow!(
                    "cannot install into {}: a grant already in force, in {}, reaches it: {e}; \
                 install into another directory, or narrow that grant first",
                    mirror.display(),
                    file.display()
                )
            },
        )?;
    }
    Ok(())
}

/// Records that the user wrote this grants file (so it is in force as it is) and the mirror
/// it went into (so that no later grant may cover it).
fn trust_installed(
    approvals: Option<&Approvals>,
    grants_file: &Path,
    mirror: &Path,
) -> anyhow::Result<()> {
    let Some(approvals) = approvals else { return Ok(()) };
    approvals.trust(grants_file).and_then(|()| approvals.record_mirror(mirror)).with_context(|| {
        format!("cannot record the installed grants in {}", approvals.dir().display())
    })
}

/// Loads the component as the installed provider will (compiling it into the user's
/// compiled-component cache, so that the first terraform run loads it instead of compiling it
/// in every provider process) and reads its schema, so that a component Terrarium cannot
/// serve is refused now rather than when Terraform starts it. Runs the component's
/// `get-schema` with no grants.
pub fn validate_component(component: &Path) -> Result<(), InstallError> {
    use terrarium_core::{Dispatcher, StartError};
    let cannot_serve =
        |reason: String| InstallError::CannotServe { path: component.to_owned(), reason };
    let runtime =
        terrarium_runtime::Runtime::load(component, terrarium_runtime::RuntimeSettings::default())?;
    let tokio = crate::tokio_runtime().map_err(|e| cannot_serve(format!("{e:#}")))?;
    let provider =
        tokio.block_on(Dispatcher::start(std::sync::Arc::new(runtime))).map_err(|e| match e {
            StartError::Guest(e) => cannot_serve(format!("reading its schema failed: {e}")),
            StartError::Schema(e) => cannot_serve(format!("its schema is invalid: {e}")),
        })?;
    if let Some(error) = provider.schema_diagnostics().iter().find(|d| d.is_error()) {
        let detail =
            if error.detail.is_empty() { String::new() } else { format!(": {}", error.detail) };
        return Err(cannot_serve(format!(
            "its schema comes with the error \"{}\"{detail}",
            error.summary
        )));
    }
    Ok(())
}

/// The name of the served-only executable (`crates/terrarium/src/bin/terrarium-provider.rs`).
pub const SERVED_EXECUTABLE_NAME: &str = "terrarium-provider";

/// The executable a provider package ships: `terrarium-provider`, which only serves, found
/// beside the running `terrarium` (cargo builds both into one directory, and a release ships
/// both). The running executable itself is never copied: it carries the author's commands,
/// with pgp, zip, the registry server and the file watcher, which Terraform never needs.
pub fn served_executable() -> Result<PathBuf, InstallError> {
    served_executable_in(&running_dir()?)
}

/// [`served_executable`] in `dir` (the running terrarium's directory).
pub fn served_executable_in(dir: &Path) -> Result<PathBuf, InstallError> {
    let path = dir.join(format!("{SERVED_EXECUTABLE_NAME}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        return Err(InstallError::NoServedExecutable { path });
    }
    Ok(path)
}

/// The directory of the running `terrarium`.
pub fn running_dir() -> Result<PathBuf, InstallError> {
    let running = std::env::current_exe().map_err(InstallError::CurrentExe)?;
    Ok(running.parent().map(Path::to_path_buf).unwrap_or_default())
}

/// Where a Terrarium release ships the served-only executable built for another platform,
/// beside `terrarium` in `dir`: `hosts/OS_ARCH/terrarium-provider` (`.exe` for Windows). With
/// them, `terrarium package` reaches those platforms without the author cross-compiling.
pub fn shipped_host_path(dir: &Path, platform: Platform) -> PathBuf {
    let suffix = if platform.os == "windows" { ".exe" } else { "" };
    dir.join("hosts").join(platform.to_string()).join(format!("{SERVED_EXECUTABLE_NAME}{suffix}"))
}

/// Every platform a release in `dir` ships a served-only executable for
/// ([`shipped_host_path`]), in name order; directories that name no platform are left alone.
pub fn shipped_hosts(dir: &Path) -> Vec<(Platform, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir.join("hosts")) else { return Vec::new() };
    let mut found: Vec<(Platform, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| Platform::parse(&entry.file_name().to_string_lossy()).ok())
        .map(|platform| (platform, shipped_host_path(dir, platform)))
        .filter(|(_, path)| path.is_file())
        .collect();
    found.sort_by_key(|(platform, _)| platform.to_string());
    found
}

/// The tokio runtime every command uses. Two worker threads: a provider process mostly waits
/// on Terraform, and each extra thread costs start-up time and memory.
pub fn tokio_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?)
}

#[cfg(test)]
mod tests {
    use super::cli_config::hcl_quote;
    use super::*;

    /// `terrarium install` parsed as the `terrarium` binary's command line parses it.
    mod cli {
        #[derive(clap::Parser)]
        #[command(name = "terrarium")]
        pub struct Cli {
            #[command(subcommand)]
            pub command: Option<Command>,
        }

        #[derive(clap::Subcommand)]
        pub enum Command {
            Install(crate::InstallArgs),
        }
    }

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
        assert_eq!(
            Platform::parse("linux_arm64").unwrap(),
            Platform { os: "linux", arch: "arm64" }
        );
        for bad in ["linux", "linux-amd64", "plan9_amd64", "linux_x86_64", "_amd64", ""] {
            assert!(matches!(Platform::parse(bad), Err(InstallError::InvalidPlatform { .. })));
        }
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
            .clone()
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
        assert_eq!(args.component.as_deref(), Some(Path::new("p.wasm")));
        assert_eq!(args.source.as_deref(), Some("acme/w"));
        assert_eq!(args.version.as_deref(), Some("1.0.0"));
        assert_eq!(args.mirror.as_deref(), Some(Path::new("/m")));
        assert!(!args.force);

        // Pulumi instead of Terraform: --pulumi with --plugin-dir; one of the two is needed,
        // and the mirror belongs to Terraform only.
        let parse = |args: &[&str]| {
            command
                .clone()
                .try_get_matches_from([&["install", "p.wasm", "--version", "1.0.0"], args].concat())
        };
        let matches = parse(&["--pulumi", "random", "--plugin-dir", "/p"]).expect("parse");
        let args = InstallArgs::from_arg_matches(&matches).expect("args");
        assert_eq!(args.pulumi.as_deref(), Some("random"));
        assert_eq!(args.plugin_dir.as_deref(), Some(Path::new("/p")));
        assert!(parse(&[]).is_err(), "neither --source nor --pulumi");
        assert!(parse(&["--pulumi", "random", "--source", "acme/w"]).is_err());
        assert!(parse(&["--pulumi", "random", "--mirror", "/m"]).is_err());

        // The base plugin: no component, no version needed, nothing of Terraform's.
        let base = |args: &[&str]| {
            command.clone().try_get_matches_from([&["install", "--pulumi-base"], args].concat())
        };
        let args = InstallArgs::from_arg_matches(&base(&[]).expect("parse")).expect("args");
        assert!(args.pulumi_base && args.component.is_none() && args.version.is_none());
        assert!(base(&["p.wasm"]).is_err(), "a component with --pulumi-base");
        assert!(base(&["--source", "acme/w"]).is_err());
        let no_version =
            command.clone().try_get_matches_from(["install", "p.wasm", "--pulumi", "r"]);
        assert!(no_version.is_err(), "a version is needed without --pulumi-base");
    }

    #[test]
    fn grant_flags_are_written_to_the_grants_file_and_a_change_needs_force() {
        let cli = <cli::Cli as clap::Parser>::try_parse_from([
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
        let Some(cli::Command::Install(args)) = cli.command else { panic!("not install") };
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
                <cli::Cli as clap::Parser>::try_parse_from(&argv).is_err(),
                "{bad:?} must be refused"
            );
        }
    }
}

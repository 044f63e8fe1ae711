//! The `terrarium` command line, and the served-only `terrarium-provider` executable that
//! `install` and `package` put beside a provider's component. Terraform runs that executable
//! with no arguments, which means `serve`.
//!
//! Each command but the two that serve is behind a cargo feature of its name, all on by
//! default, as wasmtime's are: `cargo build -p terrarium --no-default-features --bin
//! terrarium-provider` builds the executable a provider ships with nothing but what serving
//! needs (no pgp, zip, registry server, file watcher, scaffolder or docs renderer).

pub mod commands;

#[cfg(feature = "dev")]
use commands::dev;
#[cfg(feature = "docs")]
use commands::docs;
#[cfg(feature = "grants")]
use commands::grants;
#[cfg(feature = "harness")]
use commands::harness;
#[cfg(feature = "inspect")]
use commands::inspect;
use commands::{pulumi, serve};
use terrarium_install as install;
#[cfg(feature = "package")]
use terrarium_registry::package;
#[cfg(feature = "registry")]
use terrarium_registry::registry;
#[cfg(feature = "new")]
use terrarium_scaffold as new;

use clap::{Parser, Subcommand};

/// Run Terraform providers as sandboxed WebAssembly components.
#[derive(Parser, Debug)]
#[command(name = "terrarium", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve a provider component to Terraform (what the installed executable does when
    /// Terraform starts it).
    Serve(serve::ServeArgs),
    /// Install a provider component into a filesystem mirror Terraform can install from.
    #[cfg(feature = "install")]
    Install(install::InstallArgs),
    /// Package a provider component as a signed registry release (zips per platform,
    /// SHA256SUMS and its signature), also usable as a packed filesystem mirror.
    #[cfg(feature = "package")]
    Package(package::PackageArgs),
    /// Serve packaged providers to Terraform over HTTPS: a provider registry and a network
    /// mirror.
    #[cfg(feature = "registry")]
    Registry(registry::RegistryArgs),
    /// Print a provider component's schema as `terraform providers schema -json` shows it.
    #[cfg(feature = "inspect")]
    Inspect(inspect::InspectArgs),
    /// Serve a provider component for Terraform's debug mode (TF_REATTACH_PROVIDERS) and reload
    /// it whenever it is rebuilt.
    #[cfg(feature = "dev")]
    Dev(dev::DevArgs),
    /// Drive a provider component from a test without terraform: JSON requests on stdin
    /// (configure, validate, plan, apply, read, import, call), one JSON answer per line on
    /// stdout, through the same planner and checks terraform sees (docs/harness.md).
    #[cfg(feature = "harness")]
    Harness(harness::HarnessArgs),
    /// Serve a provider component to Pulumi's engine as a resource plugin (what an executable
    /// installed with `terrarium install --pulumi` does); without ENGINE, in attach mode.
    ServePulumi(pulumi::ServePulumiArgs),
    /// Write registry documentation (docs/index.md, docs/resources/*.md, ...) for a provider
    /// component, from its schema and an examples/ directory.
    #[cfg(feature = "docs")]
    Docs(docs::DocsArgs),
    /// Show and approve the grants a provider package asks for: a publisher's grants file is
    /// a request, in force only once you approve it.
    #[cfg(feature = "grants")]
    Grants(grants::GrantsArgs),
    /// Create a provider project in Rust, Python or TypeScript: a resource, a data source and
    /// a function with tests, examples, a README and a Makefile, ready to build, test and
    /// reload.
    #[cfg(feature = "new")]
    New(new::NewArgs),
}

/// The command line of `terrarium-provider`: the executable a provider package ships, which
/// only serves.
#[derive(Parser, Debug)]
#[command(name = "terrarium-provider", version, long_about = None)]
#[command(about = "Serves a provider component to Terraform (with no arguments, as Terraform \
    starts it) or to Pulumi's engine. Built by Terrarium for provider packages; the author's \
    commands are in `terrarium`.")]
pub struct ServedCli {
    #[command(subcommand)]
    pub command: Option<ServedCommand>,
}

#[derive(Subcommand, Debug)]
pub enum ServedCommand {
    /// Serve a provider component to Terraform (what Terraform starts this executable for).
    Serve(serve::ServeArgs),
    /// Serve a provider component to Pulumi's engine as a resource plugin; without ENGINE, in
    /// attach mode.
    ServePulumi(pulumi::ServePulumiArgs),
}

/// Runs the command line; returns the process exit code.
pub fn main() -> anyhow::Result<std::process::ExitCode> {
    if let Some(code) = run_as_pulumi_plugin() {
        return code;
    }
    let cli = Cli::parse();
    match cli.command {
        None => serve::run(&serve::ServeArgs::default()),
        Some(Command::Serve(args)) => serve::run(&args),
        #[cfg(feature = "install")]
        Some(Command::Install(mut args)) => {
            // The base plugin is this release's unless the person says otherwise.
            if args.pulumi_base && args.version.is_none() {
                args.version = Some(env!("CARGO_PKG_VERSION").to_string());
            }
            for_people(|| install::run(&args, &terrarium_registry::fetch::ReleaseClient))
        }
        Some(Command::ServePulumi(args)) => pulumi::run(&args),
        #[cfg(feature = "package")]
        Some(Command::Package(args)) => for_people(|| package::run(&args)),
        #[cfg(feature = "registry")]
        Some(Command::Registry(args)) => for_people(|| registry::run(&args)),
        #[cfg(feature = "dev")]
        Some(Command::Dev(args)) => {
            terrarium_runtime::logging::init_human();
            dev::run(&args)
        }
        #[cfg(feature = "harness")]
        Some(Command::Harness(args)) => for_people(|| harness::run(&args)),
        #[cfg(feature = "docs")]
        Some(Command::Docs(args)) => for_people(|| docs::run(&args)),
        #[cfg(feature = "grants")]
        Some(Command::Grants(args)) => for_people(|| grants::run(&args)),
        #[cfg(feature = "new")]
        Some(Command::New(args)) => {
            new::run(&args)?;
            Ok(std::process::ExitCode::SUCCESS)
        }
        #[cfg(feature = "inspect")]
        Some(Command::Inspect(args)) => for_people(|| inspect::run(&args)),
    }
}

/// Runs `terrarium-provider`'s command line; returns the process exit code.
pub fn served_main() -> anyhow::Result<std::process::ExitCode> {
    if let Some(code) = run_as_pulumi_plugin() {
        return code;
    }
    match ServedCli::parse().command {
        None => serve::run(&serve::ServeArgs::default()),
        Some(ServedCommand::Serve(args)) => serve::run(&args),
        Some(ServedCommand::ServePulumi(args)) => pulumi::run(&args),
    }
}

/// Installed as `pulumi-resource-NAME`, the executable is a Pulumi plugin: the engine starts
/// it with its own address as the one argument, which is no terrarium command. `None` when
/// this executable is not installed so.
fn run_as_pulumi_plugin() -> Option<anyhow::Result<std::process::ExitCode>> {
    let exe = std::env::current_exe().ok()?;
    let (name, version) = install::pulumi::installed_plugin(&exe)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    Some(pulumi::run_installed(&exe, name, version, &args))
}

/// Runs a command whose output is for a person (human-readable logging), succeeding when it
/// returns.
#[allow(dead_code, reason = "every command that uses it may be left out of the build")]
fn for_people(run: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<std::process::ExitCode> {
    terrarium_runtime::logging::init_human();
    run()?;
    Ok(std::process::ExitCode::SUCCESS)
}

pub(crate) use terrarium_install::tokio_runtime;

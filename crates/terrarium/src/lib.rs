//! The `terrarium` command line. Terraform runs the installed executable with no arguments,
//! which means `serve`.

pub mod commands;

use commands::{dev, docs, grants, harness, inspect, pulumi, serve};
use terrarium_install as install;
use terrarium_registry::{package, registry};
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
    Install(install::InstallArgs),
    /// Package a provider component as a signed registry release (zips per platform,
    /// SHA256SUMS and its signature), also usable as a packed filesystem mirror.
    Package(package::PackageArgs),
    /// Serve packaged providers to Terraform over HTTPS: a provider registry and a network
    /// mirror.
    Registry(registry::RegistryArgs),
    /// Print a provider component's schema as `terraform providers schema -json` shows it.
    Inspect(inspect::InspectArgs),
    /// Serve a provider component for Terraform's debug mode (TF_REATTACH_PROVIDERS) and reload
    /// it whenever it is rebuilt.
    Dev(dev::DevArgs),
    /// Drive a provider component from a test without terraform: JSON requests on stdin
    /// (configure, validate, plan, apply, read, import, call), one JSON answer per line on
    /// stdout, through the same planner and checks terraform sees (docs/harness.md).
    Harness(harness::HarnessArgs),
    /// Serve a provider component to Pulumi's engine as a resource plugin (what an executable
    /// installed with `terrarium install --pulumi` does); without ENGINE, in attach mode.
    ServePulumi(pulumi::ServePulumiArgs),
    /// Write registry documentation (docs/index.md, docs/resources/*.md, ...) for a provider
    /// component, from its schema and an examples/ directory.
    Docs(docs::DocsArgs),
    /// Show and approve the grants a provider package asks for: a publisher's grants file is
    /// a request, in force only once you approve it.
    Grants(grants::GrantsArgs),
    /// Create a provider project in Rust, Python or TypeScript: a resource, a data source and
    /// a function with tests, examples, a README and a Makefile, ready to build, test and
    /// reload.
    New(new::NewArgs),
}

/// Runs the command line; returns the process exit code.
pub fn main() -> anyhow::Result<std::process::ExitCode> {
    // Installed as `pulumi-resource-NAME`, the executable is a Pulumi plugin: the engine starts
    // it with its own address as the one argument, which is no terrarium command.
    let exe = std::env::current_exe().ok();
    if let Some((name, version)) = exe.as_deref().and_then(install::pulumi::installed_plugin) {
        let args: Vec<String> = std::env::args().skip(1).collect();
        return pulumi::run_installed(
            exe.as_deref().unwrap_or(std::path::Path::new(".")),
            name,
            version,
            &args,
        );
    }
    let cli = Cli::parse();
    match cli.command {
        None => serve::run(&serve::ServeArgs::default()),
        Some(Command::Serve(args)) => serve::run(&args),
        Some(Command::Install(args)) => {
            for_people(|| install::run(&args, &terrarium_registry::fetch::ReleaseClient))
        }
        Some(Command::ServePulumi(args)) => pulumi::run(&args),
        Some(Command::Package(args)) => for_people(|| package::run(&args)),
        Some(Command::Registry(args)) => for_people(|| registry::run(&args)),
        Some(Command::Dev(args)) => {
            terrarium_runtime::logging::init_human();
            dev::run(&args)
        }
        Some(Command::Harness(args)) => for_people(|| harness::run(&args)),
        Some(Command::Docs(args)) => for_people(|| docs::run(&args)),
        Some(Command::Grants(args)) => for_people(|| grants::run(&args)),
        Some(Command::New(args)) => {
            new::run(&args)?;
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(Command::Inspect(args)) => for_people(|| inspect::run(&args)),
    }
}

/// Runs a command whose output is for a person (human-readable logging), succeeding when it
/// returns.
fn for_people(run: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<std::process::ExitCode> {
    terrarium_runtime::logging::init_human();
    run()?;
    Ok(std::process::ExitCode::SUCCESS)
}

pub(crate) use terrarium_install::tokio_runtime;

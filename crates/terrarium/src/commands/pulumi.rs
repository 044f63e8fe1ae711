//! Serving a component to Pulumi's engine: what the installed `pulumi-resource-NAME` does when
//! the engine starts it (with the engine's address as its one argument), and
//! `terrarium serve-pulumi`, the same by hand.
//!
//! Started without an engine address, the plugin runs in attach mode: it prints its port and
//! waits for an engine that is told about it (`PULUMI_DEBUG_PROVIDERS=NAME:PORT`), which then
//! calls `Attach` with its address.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use futures::FutureExt as _;

use terrarium_pulumi::PulumiService;
use terrarium_pulumi::engine::{
    ENGINE_CHECK_VAR, LISTEN_ADDRESS_VAR, bind_and_announce, engine_check_interval, engine_gone,
    listen_address, serve_pulumi,
};
use terrarium_pulumi::parameterize::{BASE_PLUGIN, Loader};
use terrarium_runtime::RuntimeSettings;

use terrarium_install::COMPONENT_FILE_NAME;

/// The version a plugin reports when nothing says which it is (not installed by version).
pub const UNVERSIONED: &str = "0.0.0-dev";

#[derive(clap::Args, Debug, Clone)]
pub struct ServePulumiArgs {
    /// The Pulumi package name to serve the component as (the first part of its tokens).
    #[arg(long, value_name = "NAME")]
    pub name: String,
    /// The plugin version to report [default: 0.0.0-dev].
    #[arg(long = "plugin-version", value_name = "X.Y.Z")]
    pub plugin_version: Option<String>,
    /// The provider component to serve.
    #[arg(long, value_name = "FILE")]
    pub component: PathBuf,
    /// The grants file, yours: in force as written [default: `grants.toml` beside the
    /// component, in force once `terrarium install` wrote it or you approved it].
    #[arg(long, value_name = "FILE")]
    pub grants: Option<PathBuf>,
    /// Compile the component instead of using the compiled-component cache.
    #[arg(long)]
    pub no_cache: bool,
    /// The most provider instances alive at once [default: 16].
    #[arg(long, value_name = "N")]
    pub max_instances: Option<NonZeroUsize>,
    /// The engine's address; without it the plugin waits for an engine to attach.
    #[arg(value_name = "ENGINE")]
    pub engine: Option<String>,
}

/// The installed executable `exe`, started by the engine with `args` (after the program name):
/// the engine's address, perhaps after `--logtostderr`, `-v=N` or `--tracing ENDPOINT`.
pub fn run_installed(
    exe: &Path,
    name: String,
    version: Option<String>,
    args: &[String],
) -> anyhow::Result<ExitCode> {
    let mut engine = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--tracing" => {
                rest.next();
            }
            flag if flag.starts_with('-') => {}
            address => engine = engine.or(Some(address.to_string())),
        }
    }
    let dir = exe.parent().context("this executable has no parent directory")?;
    let no_cache = std::env::var_os("TERRARIUM_NO_CACHE").is_some_and(|v| v == "1");
    if name == BASE_PLUGIN && !dir.join(COMPONENT_FILE_NAME).exists() {
        return run_base(version.unwrap_or_else(|| UNVERSIONED.to_string()), no_cache, engine);
    }
    run(&ServePulumiArgs {
        name,
        plugin_version: version,
        component: dir.join(COMPONENT_FILE_NAME),
        grants: None,
        no_cache,
        max_instances: None,
        engine,
    })
}

pub fn run(args: &ServePulumiArgs) -> anyhow::Result<ExitCode> {
    terrarium_runtime::logging::init_human();
    let mut settings = settings_for(&args.name, args.no_cache);
    if let Some(n) = args.max_instances {
        settings.instance_pool_size = n.get();
    }
    let component = args.component.clone();
    let grants_file = super::serve::GrantsFile::of(args.grants.clone(), &component);
    let version = args.plugin_version.clone().unwrap_or_else(|| UNVERSIONED.to_string());
    let name = args.name.clone();
    serve(args.engine.clone(), move || {
        let loading = tokio::spawn(load(component, grants_file, settings));
        PulumiService::loading(
            async move {
                loading.await.unwrap_or_else(|e| {
                    Err(Arc::from(format!("loading the provider component failed: {e}")))
                })
            },
            name,
            version,
        )
    })
}

/// The base plugin `pulumi-resource-terrarium` at `version`: the component comes from
/// `Parameterize`, with the grants beside it (a request the person approves, never the
/// program's).
fn run_base(version: String, no_cache: bool, engine: Option<String>) -> anyhow::Result<ExitCode> {
    terrarium_runtime::logging::init_human();
    let settings = settings_for(BASE_PLUGIN, no_cache);
    serve(engine, move || {
        let loader: Loader = Arc::new(move |component: PathBuf| {
            let grants_file = super::serve::GrantsFile::of(None, &component);
            load(component, grants_file, settings.clone()).boxed()
        });
        PulumiService::parameterized(loader, version)
    })
}

fn settings_for(name: &str, no_cache: bool) -> RuntimeSettings {
    let mut settings = RuntimeSettings {
        log_module: format!("provider.pulumi-resource-{name}"),
        ..RuntimeSettings::default()
    };
    if no_cache {
        settings.cache_dir = None;
    }
    settings
}

async fn load(
    component: PathBuf,
    grants_file: super::serve::GrantsFile,
    settings: RuntimeSettings,
) -> Result<Arc<terrarium_core::Dispatcher>, Arc<str>> {
    super::serve::load(&component, grants_file, settings).await.map(Arc::new).map_err(|failure| {
        // The whole failure, grants file included: Pulumi has no schema-only use for a
        // component whose grants are wrong.
        tracing::error!(component = %component.display(), "{}", failure.message);
        failure.message
    })
}

/// Serves the service `make` builds (inside the async runtime) to the engine at `engine`, or
/// in attach mode without one.
fn serve(
    engine: Option<String>,
    make: impl FnOnce() -> PulumiService + Send + 'static,
) -> anyhow::Result<ExitCode> {
    let address = listen_address(std::env::var(LISTEN_ADDRESS_VAR).ok().as_deref())?;
    let check_interval = engine_check_interval(std::env::var(ENGINE_CHECK_VAR).ok().as_deref())?;
    let runtime = crate::tokio_runtime()?;
    let served = runtime.block_on(async move {
        // The port line first: the engine waits for it, and loading runs meanwhile.
        let listener = bind_and_announce(address, &mut std::io::stdout()).await?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let service = make();
        let name = service.package_name().to_string();
        // The component's log records go to the engine once it is known.
        service.engine().forward_logs();
        // The engine that started the plugin is watched: when it is gone, so is the plugin.
        // An attached plugin outlives the engines that attach to it.
        let gone = match &engine {
            Some(engine) => {
                service.set_engine_address(engine);
                engine_gone(engine.clone(), check_interval).boxed()
            }
            None => {
                eprintln!(
                    "Serving the Pulumi plugin {name} in attach mode on port {port}. Tell Pulumi's engine about it with\n\n  PULUMI_DEBUG_PROVIDERS={name}:{port}\n"
                );
                std::future::pending().boxed()
            }
        };
        serve_pulumi(listener, tonic::service::Routes::new(service.into_server()), gone).await
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    served?;
    Ok(ExitCode::SUCCESS)
}

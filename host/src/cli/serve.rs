//! `terrarium serve`: what the installed provider executable does when Terraform starts it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use crate::dispatch::Provider;
use crate::plugin::{self, PluginEnv, PluginError};
use crate::runtime::{Runtime, RuntimeSettings};
use crate::server::ProviderService;

use super::install::COMPONENT_FILE_NAME;

#[derive(clap::Args, Debug, Default)]
pub struct ServeArgs {
    /// The provider component to serve [default: `provider.wasm` beside this executable].
    #[arg(long, value_name = "FILE")]
    pub component: Option<PathBuf>,
    /// Compile the component on every start instead of using the compiled-component cache
    /// (also: TERRARIUM_NO_CACHE=1, for the executable Terraform starts).
    #[arg(long)]
    pub no_cache: bool,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    // The cookie comes first: a person who runs the executable by hand gets an explanation,
    // not a log line or a half-started server.
    let env = match PluginEnv::from_env() {
        Ok(env) => env,
        Err(e @ PluginError::NotLaunchedByTerraform) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    crate::logging::init_hclog();
    let component = match &args.component {
        Some(path) => path.clone(),
        None => default_component()?,
    };
    let mut settings = RuntimeSettings { log_module: log_module(), ..RuntimeSettings::default() };
    if args.no_cache {
        settings.cache_dir = None;
    }

    let runtime = super::tokio_runtime()?;
    let served = runtime.block_on(async move {
        let service = match load(&component, settings).await {
            Ok(provider) => ProviderService::new(Arc::new(provider)),
            Err(message) => {
                // Keep serving: Terraform then shows the reason as a diagnostic.
                tracing::error!(component = %component.display(), "{message}");
                ProviderService::failed(message)
            }
        };
        let routes = tonic::service::Routes::new(service.into_server());
        plugin::serve(env, routes).await
    });
    // Do not wait for guest calls still running on blocking threads: Terraform kills a
    // provider that has not exited 2 s after Shutdown.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    served?;
    Ok(ExitCode::SUCCESS)
}

async fn load(component: &std::path::Path, settings: RuntimeSettings) -> Result<Provider, String> {
    let runtime = Runtime::load(component, settings).map_err(|e| e.to_string())?;
    Provider::start(Arc::new(runtime)).await.map_err(|e| format!("{}: {e}", component.display()))
}

/// The component installed beside this executable by `terrarium install`.
fn default_component() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find this executable's own path")?;
    let dir = exe.parent().context("this executable has no parent directory")?;
    Ok(dir.join(COMPONENT_FILE_NAME))
}

/// go-plugin names the provider's logger after the executable; guest records use the same
/// name so TF_LOG_PROVIDER output reads as one provider.
fn log_module() -> String {
    let name = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "terrarium".into());
    format!("provider.{name}")
}

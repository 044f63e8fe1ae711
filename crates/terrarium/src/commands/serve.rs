//! `terrarium serve`: what the installed provider executable does when Terraform starts it.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use terrarium_core::Dispatcher;
use terrarium_runtime::sandbox::{GRANTS_FILE_NAME, GrantError, Grants, ProtectedPath, Sandbox};
use terrarium_runtime::{Runtime, RuntimeSettings};
use terrarium_tfplugin::plugin::{self, ForcedProtocol, PluginEnv, PluginError};
use terrarium_tfplugin::server::{LoadFailure, Protocol5, ProviderService};

use terrarium_install::COMPONENT_FILE_NAME;

#[derive(clap::Args, Debug, Default)]
pub struct ServeArgs {
    /// The provider component to serve [default: `provider.wasm` beside this executable].
    #[arg(long, value_name = "FILE")]
    pub component: Option<PathBuf>,
    /// Compile the component on every start instead of using the compiled-component cache
    /// (also: TERRARIUM_NO_CACHE=1, for the executable Terraform starts).
    #[arg(long)]
    pub no_cache: bool,
    /// The most provider instances alive at once, i.e. guest calls in flight
    /// [default: 16; also: TERRARIUM_MAX_INSTANCES, for the executable Terraform starts].
    #[arg(long, value_name = "N")]
    pub max_instances: Option<NonZeroUsize>,
    /// The grants file, yours: in force as written [default: `grants.toml` beside the
    /// component, in force once `terrarium install` wrote it or you approved it]. A missing
    /// file grants nothing; an invalid one stops the provider with an error.
    #[arg(long, value_name = "FILE")]
    pub grants: Option<PathBuf>,
    /// Speak this Terraform plugin protocol version instead of the newest Terraform offers
    /// (6, else 5) [also: TERRARIUM_PROTOCOL, for the executable Terraform starts]. Terraform
    /// must offer it.
    #[arg(long, value_name = "VERSION", value_parser = clap::value_parser!(u32).range(5..=6))]
    pub protocol: Option<u32>,
}

const MAX_INSTANCES_VAR: &str = "TERRARIUM_MAX_INSTANCES";
const PROTOCOL_VAR: &str = "TERRARIUM_PROTOCOL";

/// The protocol version the user forces, from `--protocol` or else [`PROTOCOL_VAR`] (Terraform
/// starts the installed executable with no arguments, so the variable is the only way there).
/// Unlike the other settings, a bad value is an error: the user asked for a protocol, and
/// serving another one would hide that the request was not honoured.
fn forced_protocol(
    flag: Option<u32>,
    variable: Option<String>,
) -> anyhow::Result<Option<ForcedProtocol>> {
    if let Some(version) = flag {
        return Ok(Some(ForcedProtocol { version, origin: format!("--protocol {version}") }));
    }
    let Some(raw) = variable.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    match raw.trim() {
        "5" => Ok(Some(ForcedProtocol { version: 5, origin: format!("{PROTOCOL_VAR}=5") })),
        "6" => Ok(Some(ForcedProtocol { version: 6, origin: format!("{PROTOCOL_VAR}=6") })),
        _ => anyhow::bail!(
            "{PROTOCOL_VAR}={raw:?} is not a plugin protocol version this provider speaks: use 5 or 6, or unset it"
        ),
    }
}

/// The pool bound from the environment; an unusable value is reported and ignored, because
/// failing before the handshake would only show Terraform a bare "plugin exited".
fn max_instances_from_env() -> Option<NonZeroUsize> {
    let raw = std::env::var(MAX_INSTANCES_VAR).ok().filter(|v| !v.is_empty())?;
    match raw.trim().parse::<NonZeroUsize>() {
        Ok(n) => Some(n),
        Err(e) => {
            tracing::warn!(value = %raw, error = %e, "ignoring {MAX_INSTANCES_VAR}: not a positive integer");
            None
        }
    }
}

pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    // The cookie comes first: a person who runs the executable by hand gets an explanation,
    // not a log line or a half-started server.
    let forced = forced_protocol(args.protocol, std::env::var(PROTOCOL_VAR).ok());
    let env = match PluginEnv::from_env_forcing(forced.as_ref().ok().and_then(Option::as_ref)) {
        Ok(env) => env,
        Err(e @ PluginError::NotLaunchedByTerraform) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    // After the cookie check, so that running the executable by hand still explains itself.
    forced?;
    terrarium_runtime::logging::init_hclog();
    let component = match &args.component {
        Some(path) => path.clone(),
        None => default_component()?,
    };
    let mut settings = RuntimeSettings { log_module: log_module(), ..RuntimeSettings::default() };
    if args.no_cache {
        settings.cache_dir = None;
    }
    if let Some(n) = args.max_instances.or_else(max_instances_from_env) {
        settings.instance_pool_size = n.get();
    }

    let grants_file = GrantsFile::of(args.grants.clone(), &component);

    let runtime = crate::tokio_runtime()?;
    let served = runtime.block_on(async move {
        // Terraform waits for the handshake line before anything else, and the handshake needs
        // only the socket and the TLS identity. Loading the component (reading, checking and
        // mapping the compiled artifact, instantiating it, reading its schema) runs on a
        // worker meanwhile; RPCs that arrive before it is done wait for it.
        let loading = tokio::spawn(async move {
            load(&component, grants_file, settings).await.map(Arc::new).inspect_err(|failure| {
                // Keep serving: Terraform then shows the reason as a diagnostic.
                tracing::error!(component = %component.display(), "{}", failure.message);
            })
        });
        let service = ProviderService::loading(async move {
            loading.await.unwrap_or_else(|e| {
                Err(LoadFailure::new(format!("loading the provider component failed: {e}")))
            })
        });
        // The version is 5 or 6: negotiation chooses among SUPPORTED_PROTOCOL_VERSIONS only.
        let routes = match env.protocol_version {
            5 => tonic::service::Routes::new(Protocol5::new(service).into_server()),
            _ => tonic::service::Routes::new(service.into_server()),
        };
        tracing::debug!(
            protocol = env.protocol_version,
            "serving plugin protocol {}",
            env.protocol_version
        );
        plugin::serve(env, routes).await
    });
    // Do not wait for guest calls still running on blocking threads: Terraform kills a
    // provider that has not exited 2 s after Shutdown.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    served?;
    Ok(ExitCode::SUCCESS)
}

/// Where a served provider's grants come from, which decides whether they are in force.
pub(crate) enum GrantsFile {
    /// Named with `--grants` by the person who runs the host: theirs, in force as written
    /// (Terraform and Pulumi start an installed provider without it).
    Named(PathBuf),
    /// Beside the component: trusted when `terrarium install` wrote it, else a request the
    /// person approves (see `approvals`).
    Beside(PathBuf),
}

impl GrantsFile {
    pub(crate) fn of(named: Option<PathBuf>, component: &std::path::Path) -> GrantsFile {
        match named {
            Some(file) => GrantsFile::Named(file),
            None => GrantsFile::Beside(component.with_file_name(GRANTS_FILE_NAME)),
        }
    }

    fn path(&self) -> &std::path::Path {
        match self {
            GrantsFile::Named(file) | GrantsFile::Beside(file) => file,
        }
    }
}

pub(crate) async fn load(
    component: &std::path::Path,
    grants_file: GrantsFile,
    settings: RuntimeSettings,
) -> Result<Dispatcher, LoadFailure> {
    let granted = match granted_settings(component, &grants_file, settings.clone()) {
        Ok(granted) => granted,
        Err(message) => {
            // The component may well be fine: load it with no grant at all, for its schema
            // alone (see `LoadFailure::schema_only`).
            let schema_only = start(component, settings).await.ok().map(Arc::new);
            return Err(LoadFailure { message: Arc::from(message), schema_only });
        }
    };
    start(component, granted).await.map_err(LoadFailure::new)
}

/// `settings` with the grants of `grants_file` applied.
fn granted_settings(
    component: &std::path::Path,
    grants_file: &GrantsFile,
    mut settings: RuntimeSettings,
) -> Result<RuntimeSettings, String> {
    // The grants are read once, here; nothing later (the provider's configuration included)
    // can change them. An unreadable or invalid file is an error, never "no grants". A grants
    // file the user did not write is only a request (see `approvals`).
    let grants = match grants_file {
        GrantsFile::Named(file) => Grants::load(file).map_err(|e| e.to_string())?,
        GrantsFile::Beside(file) => {
            let approvals = terrarium_install::approvals::Approvals::for_user().ok_or_else(|| {
                "neither XDG_CONFIG_HOME nor HOME is set, so Terrarium cannot find which grants \
                 you approved: set HOME"
                    .to_string()
            })?;
            approvals.grants_for(file).map_err(|e| e.to_string())?
        }
    };
    let grants_file = grants_file.path();
    // The rules `terrarium install` checked, again: the file may have been edited since, and
    // only now is Terraform's working directory known.
    let mut protected = terrarium_install::protected::installed_package(component, grants_file);
    protected.extend(terrarium_install::protected::host(settings.cache_dir.as_deref()));
    protected.extend(terrarium_install::protected::current_working_dir());
    apply_grants(&mut settings, grants, &protected)
        .map_err(|e| format!("{e} (in the grants file {})", grants_file.display()))?;
    Ok(settings)
}

/// Loads the component and reads its schema.
async fn start(
    component: &std::path::Path,
    settings: RuntimeSettings,
) -> Result<Dispatcher, String> {
    // Reading and deserializing the artifact is blocking work: keep it off the async workers
    // that are setting up the listener.
    let path = component.to_path_buf();
    let runtime = tokio::task::spawn_blocking(move || Runtime::load(&path, settings))
        .await
        .map_err(|e| format!("loading the provider component failed: {e}"))?
        .map_err(|e| e.to_string())?;
    Dispatcher::start(Arc::new(runtime)).await.map_err(|e| format!("{}: {e}", component.display()))
}

/// Applies a provider's grants to the runtime settings: its limits and its sandbox, with its
/// granted directories opened. Fails when a directory grant breaks a rule of
/// `sandbox::dirs` (`protected` are the paths no grant may cover).
pub fn apply_grants(
    settings: &mut RuntimeSettings,
    grants: Grants,
    protected: &[ProtectedPath],
) -> Result<(), GrantError> {
    if let Some(memory) = grants.limits.memory {
        settings.max_memory_bytes = usize::try_from(memory.0).unwrap_or(usize::MAX);
    }
    if let Some(timeout) = grants.limits.timeout {
        settings.call_timeout = timeout;
    }
    settings.max_total_memory_bytes = usize::try_from(grants.total_memory()).unwrap_or(usize::MAX);
    tracing::debug!(
        http = grants.http.len(),
        dirs = grants.dirs.len(),
        env = grants.env.len(),
        "sandbox grants loaded"
    );
    settings.sandbox = Arc::new(Sandbox::new(grants, protected)?);
    Ok(())
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

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::{Cli, Command};

    fn serve_args(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        let cli = Cli::try_parse_from([&["terrarium", "serve"], args].concat())?;
        match cli.command {
            Some(Command::Serve(args)) => Ok(args),
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn protocol_flag_takes_5_or_6() {
        assert_eq!(serve_args(&[]).unwrap().protocol, None);
        assert_eq!(serve_args(&["--protocol", "5"]).unwrap().protocol, Some(5));
        assert_eq!(serve_args(&["--protocol", "6"]).unwrap().protocol, Some(6));
        for bad in ["4", "7", "five"] {
            assert!(serve_args(&["--protocol", bad]).is_err(), "--protocol {bad} accepted");
        }
    }

    #[test]
    fn the_flag_wins_over_the_variable() {
        let forced = forced_protocol(Some(6), Some("5".into())).unwrap().unwrap();
        assert_eq!(forced, ForcedProtocol { version: 6, origin: "--protocol 6".into() });
        let forced = forced_protocol(None, Some(" 5 ".into())).unwrap().unwrap();
        assert_eq!(forced, ForcedProtocol { version: 5, origin: "TERRARIUM_PROTOCOL=5".into() });
        assert_eq!(forced_protocol(None, None).unwrap(), None);
        assert_eq!(forced_protocol(None, Some(String::new())).unwrap(), None);
    }

    #[test]
    fn an_unusable_variable_is_an_error_naming_it() {
        for raw in ["7", "v5", "5,6"] {
            let error = forced_protocol(None, Some(raw.into())).unwrap_err().to_string();
            assert!(error.starts_with(&format!("TERRARIUM_PROTOCOL={raw:?} is not")), "{error}");
            assert!(error.contains("use 5 or 6"), "{error}");
        }
    }
}

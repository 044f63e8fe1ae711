//! Hot reload: serving a provider component that may be replaced while it serves.
//!
//! `terrarium dev` serves one long-lived process that Terraform reattaches to across any number
//! of commands. When the component file changes, the new build is loaded beside the old one and
//! swapped in between calls:
//!
//! * [`LiveProvider`] holds the component currently serving: the core's [`Serving`], the one
//!   source every front end asks. Every call takes the current [`Generation`] when it starts and
//!   keeps it to the end, so calls in flight finish on the old code while new calls run the new
//!   code. An old generation is dropped (its instances with it) when its last call finishes.
//! * [`Reloader`] loads a new build: it reads the file, checks the world version (the runtime's
//!   load does) and the schema (the guest's own `get-schema`, validated by dispatch),
//!   instantiates it, carries the recorded ConfigureProvider request over (so Terraform need not
//!   configure the provider again), and only then swaps. A build that fails any of this is not
//!   swapped in: the old one keeps serving, the error is logged, and the next call that can carry
//!   diagnostics returns it as a warning.
//! * The front ends are the ordinary ones over that source ([`LiveProvider::service`] for
//!   Terraform): the source tells them that the schema may change, which warnings wait for the
//!   next call, and a configuration accepted on an old generation is carried to the new one.
//! * [`watch`] notices new builds (written in place or renamed over the old file) and, with a
//!   build command, rebuilds when sources change.
//! * [`diff`] describes what changed in the schema, for the reload log line.

pub mod diff;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use terrarium_model::Diagnostic;

use terrarium_core::{Dispatcher, Generation, LoadFailure, Serving, report_carried};
use terrarium_runtime::{Runtime, RuntimeSettings};
use terrarium_tfplugin::server::ProviderService;

/// The component `terrarium dev` serves: the core's [`Serving`] (which every front end asks
/// for the generation a call runs on, and which [`Reloader`] swaps), and the digest of the build
/// serving, so that a file touched without a new build is not loaded again.
pub struct LiveProvider {
    serving: Arc<Serving>,
    digest: Mutex<Option<[u8; 32]>>,
}

impl LiveProvider {
    /// A live provider serving `provider` as generation 1.
    pub fn new(provider: Arc<Dispatcher>, digest: [u8; 32]) -> Arc<LiveProvider> {
        Arc::new(LiveProvider {
            serving: Arc::new(Serving::ready(provider).reloading()),
            digest: Mutex::new(Some(digest)),
        })
    }

    /// A live provider with no working build yet: every call answers with `message` as an
    /// error until a build loads.
    pub fn failed(message: impl Into<String>) -> Arc<LiveProvider> {
        Arc::new(LiveProvider {
            serving: Arc::new(Serving::failed(LoadFailure::new(message)).reloading()),
            digest: Mutex::new(None),
        })
    }

    /// What every front end serves from.
    pub fn serving(&self) -> &Arc<Serving> {
        &self.serving
    }

    /// The tfplugin6 service Terraform talks to: each call runs on the generation current
    /// when it arrives, and carries the warnings a failed reload left behind.
    pub fn service(&self) -> ProviderService {
        ProviderService::serving(self.serving.clone())
    }

    /// The generation new calls run on (`None` before any build loaded).
    pub fn current(&self) -> Option<Arc<Generation>> {
        self.serving.current()
    }

    /// The number of the generation new calls run on (0 before any build loaded).
    pub fn generation(&self) -> u64 {
        self.current().map_or(0, |g| g.number)
    }

    /// Queues a warning for the next call that can carry diagnostics ([`Serving::warn`]).
    pub fn warn(&self, warning: Diagnostic) {
        self.serving.warn(warning);
    }

    /// Drops a queued warning with this summary: a later build or reload succeeded.
    pub fn clear_warning(&self, summary: &str) {
        self.serving.clear_warning(summary);
    }

    fn digest(&self) -> Option<[u8; 32]> {
        *self.digest.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// How long to wait, after a build failed to load, before checking whether the file was still
/// being written when it was read.
const WRITE_SETTLE: Duration = Duration::from_millis(100);

/// How many times a build that keeps changing under the reader is read again.
const MAX_REREADS: usize = 5;

fn read_component(path: &Path) -> Result<Vec<u8>, ReloadError> {
    std::fs::read(path).map_err(|cause| {
        ReloadError::Load(terrarium_runtime::LoadError::Read { path: path.to_path_buf(), cause })
    })
}

/// Loads `bytes`, read from `path`: `None` when they are the build already serving (`known`).
///
/// A tool that writes the file in place may take longer than the watcher's quiet period (a
/// large debug build on a busy machine), so the bytes read may be half a build. When they fail
/// to load, the file is read again after `settle`: if it has changed meanwhile, the new
/// contents are loaded instead of reporting a half-written build as broken.
pub fn load_settled(
    path: &Path,
    mut bytes: Vec<u8>,
    known: Option<[u8; 32]>,
    settings: &RuntimeSettings,
    settle: Duration,
) -> Result<Option<(Runtime, [u8; 32])>, ReloadError> {
    let mut rereads = 0;
    loop {
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        if known == Some(digest) {
            return Ok(None);
        }
        match Runtime::from_bytes(&bytes, path, settings.clone()) {
            Ok(runtime) => return Ok(Some((runtime, digest))),
            Err(error) => {
                if rereads == MAX_REREADS {
                    return Err(error.into());
                }
                std::thread::sleep(settle);
                let now = read_component(path)?;
                if now == bytes {
                    return Err(error.into());
                }
                tracing::debug!(component = %path.display(), "the build changed while it was read; reading it again");
                bytes = now;
                rereads += 1;
            }
        }
    }
}

/// Why a build was not swapped in.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    #[error("{0}")]
    Load(#[from] terrarium_runtime::LoadError),
    #[error("{path}: {source}")]
    Start {
        path: PathBuf,
        #[source]
        source: terrarium_core::StartError,
    },
    #[error("loading {path} was interrupted: {message}")]
    Interrupted { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Prepare { path: PathBuf, message: String },
}

/// What a reload did.
#[derive(Debug)]
pub enum ReloadOutcome {
    /// The file holds the build already serving (an editor or a build tool touched it).
    Unchanged,
    /// A new build is serving.
    Swapped {
        generation: u64,
        /// The schema changes, one line each (empty when the schema is the same; "first
        /// working build" when no build was serving before).
        changes: Vec<String>,
        /// Reading, compiling, instantiating and configuring the new build.
        took: Duration,
    },
}

/// Makes the runtime of the next version of sources that a runtime reads itself (see
/// [`Reloader::reinstantiating`]); an error says why there is none.
pub type NextVersion = Box<dyn Fn() -> Result<Arc<Runtime>, String> + Send + Sync>;

/// Loads new builds of one component file into a [`LiveProvider`]. Reloads run one at a time.
pub struct Reloader {
    live: Arc<LiveProvider>,
    path: PathBuf,
    settings: RuntimeSettings,
    /// What [`Reloader::reinstantiate`] starts new instances of, and its component's digest.
    next_version: Option<(Arc<NextVersion>, [u8; 32])>,
    serial: tokio::sync::Mutex<()>,
}

impl Reloader {
    pub fn new(live: Arc<LiveProvider>, path: PathBuf, settings: RuntimeSettings) -> Reloader {
        Reloader { live, path, settings, next_version: None, serial: tokio::sync::Mutex::new(()) }
    }

    /// A reloader that starts instances of the runtime `next_version` makes (of a component
    /// whose bytes have `digest`) instead of reading a new build: for a runtime that reads the
    /// provider's code from files when it starts, such as the Python development runtime.
    /// Each reload asks for a new runtime, so that every version keeps reading its own sources
    /// (a copy), also in the instances it starts after a later save that did not load.
    pub fn reinstantiating(
        live: Arc<LiveProvider>,
        path: PathBuf,
        settings: RuntimeSettings,
        next_version: NextVersion,
        digest: [u8; 32],
    ) -> Reloader {
        Reloader {
            live,
            path,
            settings,
            next_version: Some((Arc::new(next_version), digest)),
            serial: tokio::sync::Mutex::new(()),
        }
    }

    pub fn live(&self) -> &Arc<LiveProvider> {
        &self.live
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Loads the component file's current contents and swaps them in, unless they fail to
    /// load (then the old build keeps serving and the error is returned) or are the build
    /// already serving.
    pub async fn reload(&self) -> Result<ReloadOutcome, ReloadError> {
        let _one_at_a_time = self.serial.lock().await;
        let started = Instant::now();
        let path = self.path.clone();
        let settings = self.settings.clone();
        let known = self.live.digest();
        let loaded = tokio::task::spawn_blocking(
            move || -> Result<Option<(Runtime, [u8; 32])>, ReloadError> {
                let bytes = read_component(&path)?;
                load_settled(&path, bytes, known, &settings, WRITE_SETTLE)
            },
        )
        .await
        .map_err(|e| ReloadError::Interrupted {
            path: self.path.clone(),
            message: e.to_string(),
        })??;
        let Some((runtime, digest)) = loaded else {
            return Ok(ReloadOutcome::Unchanged);
        };
        self.swap_in(Arc::new(runtime), digest, started).await
    }

    /// Starts new instances of the component already serving (so they read the provider's
    /// sources afresh) and swaps them in, with the checks and the carried configuration of a
    /// reload. Needs a reloader made by [`Reloader::reinstantiating`]; others reload the file.
    pub async fn reinstantiate(&self) -> Result<ReloadOutcome, ReloadError> {
        let Some((next_version, digest)) = &self.next_version else {
            return self.reload().await;
        };
        let _one_at_a_time = self.serial.lock().await;
        let started = Instant::now();
        // Copies the sources, or runs a bundler: off the async threads.
        let make = next_version.clone();
        let runtime = tokio::task::spawn_blocking(move || make())
            .await
            .map_err(|e| ReloadError::Interrupted {
                path: self.path.clone(),
                message: e.to_string(),
            })?
            .map_err(|message| ReloadError::Prepare { path: self.path.clone(), message })?;
        self.swap_in(runtime, *digest, started).await
    }

    /// Starts `runtime`, configures it as the serving build was, and swaps it in.
    async fn swap_in(
        &self,
        runtime: Arc<Runtime>,
        digest: [u8; 32],
        started: Instant,
    ) -> Result<ReloadOutcome, ReloadError> {
        let old = self.live.current();
        let provider = Dispatcher::start(runtime)
            .await
            .map_err(|source| ReloadError::Start { path: self.path.clone(), source })?;
        let provider = Arc::new(provider);

        // Configure the new build before it serves, so the first call after the swap finds a
        // configured instance; then swap, and carry over a configuration that arrived on the
        // old build meanwhile.
        let carried_generation = match &old {
            Some(old) => match old.recorded_configuration() {
                (Some(request), generation) => {
                    report_carried(&provider.adopt_configuration(&request).await);
                    generation
                }
                (None, generation) => generation,
            },
            None => 0,
        };
        let changes = match &old {
            Some(old) => {
                let mut changes = diff::describe(old.schema(), provider.schema());
                changes.extend(diff::describe_identities(
                    old.identity_schemas(),
                    provider.identity_schemas(),
                ));
                changes.extend(diff::describe_behaviour(old.behaviour(), provider.behaviour()));
                changes
            }
            None => vec!["first working build".to_string()],
        };
        let (old, new) = self.live.serving.swap(provider);
        *self.live.digest.lock().unwrap_or_else(|p| p.into_inner()) = Some(digest);
        if let Some(old) = &old
            && old.recorded_configuration().1 != carried_generation
        {
            self.live.serving.configured(old).await;
        }
        Ok(ReloadOutcome::Swapped { generation: new.number, changes, took: started.elapsed() })
    }

    /// [`Reloader::reload`], with the outcome logged and a failure queued as a warning for the
    /// next call.
    pub async fn reload_and_report(&self) {
        self.report(self.reload().await);
    }

    /// [`Reloader::reinstantiate`], with the outcome logged and a failure queued as a warning
    /// for the next call.
    pub async fn reinstantiate_and_report(&self) {
        self.report(self.reinstantiate().await);
    }

    fn report(&self, outcome: Result<ReloadOutcome, ReloadError>) {
        match outcome {
            Ok(ReloadOutcome::Unchanged) => {
                tracing::debug!(component = %self.path.display(), "component file touched, contents unchanged");
            }
            Ok(ReloadOutcome::Swapped { generation, changes, took }) => {
                self.live.clear_warning(RELOAD_FAILED);
                let schema = if changes.is_empty() {
                    "new code; schema and declared behaviour (defaults, validators, plan \
                     modifiers) unchanged"
                        .to_string()
                } else {
                    changes.join("; ")
                };
                tracing::info!(
                    component = %self.path.display(),
                    generation,
                    took_ms = took.as_millis() as u64,
                    "reloaded: {schema}"
                );
            }
            Err(error) => {
                tracing::error!(component = %self.path.display(), "reload failed, the previous build keeps serving: {error}");
                self.live.warn(reload_failed_warning(&self.path, &error.to_string()));
            }
        }
    }
}

/// The summary of the warning a failed reload leaves for the next call.
pub const RELOAD_FAILED: &str = "Provider reload failed";
/// The summary of the warning a failed build leaves for the next call.
pub const BUILD_FAILED: &str = "Provider build failed";

/// The warning a failed reload leaves for the next call.
pub fn reload_failed_warning(path: &Path, message: &str) -> Diagnostic {
    Diagnostic::warning(
        RELOAD_FAILED,
        format!(
            "terrarium dev could not load the new build of {}: {message}\n\n\
             The previous build keeps serving this and later calls until a build loads.",
            path.display()
        ),
    )
}

/// The warning a failed build command leaves for the next call.
pub fn build_failed_warning(command: &str, message: &str) -> Diagnostic {
    Diagnostic::warning(
        BUILD_FAILED,
        format!(
            "terrarium dev ran `{command}`, which failed: {message}; its output is in the \
             terminal running `terrarium dev`.\n\n\
             The previous build keeps serving this and later calls until a build succeeds."
        ),
    )
}

/// The SHA-256 of a component's bytes, as [`LiveProvider::new`] wants it.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

//! The one answer to "which build of the component serves this call", asked by every front end
//! (tfplugin6, tfplugin5 through it, Pulumi) at the start of each call.
//!
//! A [`Serving`] is loading (calls wait), current (a [`Generation`]), or failed (calls answer
//! with the [`LoadFailure`], except the schema calls when a schema-only fallback loaded).
//! `terrarium dev` swaps a new generation in ([`Serving::swap`]); a call keeps the generation
//! it started on to its end, so calls in flight finish on the old code. What a swap needs of
//! the front ends is here too, so that none of them keeps a second list of its calls: the
//! warnings left for the next call that can show them ([`Serving::warn`]), whether the schema
//! may change between calls ([`Serving::may_change`]), and carrying a configuration that
//! arrived on the old generation over to the new one ([`Serving::configured`]).

use std::sync::{Arc, Mutex, RwLock};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use terrarium_model::{Diagnostic, Severity};

use crate::Dispatcher;

/// Why a component cannot serve.
#[derive(Clone)]
pub struct LoadFailure {
    /// What went wrong and what to do, answered to every call.
    pub message: Arc<str>,
    /// The component loaded without any grant, when only what surrounds it failed (its
    /// grants file): it answers the schema calls, so that Terraform reports `message` as an
    /// ordinary diagnostic on the provider instead of folding it into its own
    /// schema-loading error. It never serves anything else.
    pub schema_only: Option<Arc<Dispatcher>>,
}

impl LoadFailure {
    pub fn new(message: impl Into<String>) -> Self {
        LoadFailure { message: Arc::from(message.into()), schema_only: None }
    }
}

/// One loaded build of the component, serving until the next one is swapped in.
pub struct Generation {
    /// Counts builds served, from 1 (a [`Serving`] that started failed swaps in 1 first).
    pub number: u64,
    pub dispatcher: Arc<Dispatcher>,
}

/// A call runs on the dispatcher of the generation it started with.
impl std::ops::Deref for Generation {
    type Target = Dispatcher;

    fn deref(&self) -> &Dispatcher {
        &self.dispatcher
    }
}

type Loaded = Result<Arc<Generation>, LoadFailure>;

enum Now {
    /// Still loading: calls wait for it.
    Loading(Shared<BoxFuture<'static, Loaded>>),
    Settled(Loaded),
}

impl Now {
    /// The generation serving, without waiting: `None` while loading or failed.
    fn serving(&self) -> Option<Arc<Generation>> {
        match self {
            Now::Loading(loading) => loading.peek().and_then(|loaded| loaded.clone().ok()),
            Now::Settled(loaded) => loaded.clone().ok(),
        }
    }
}

struct State {
    now: Now,
    /// The number of the last generation made (0 before any).
    last: u64,
}

/// The component that serves now; see the module documentation.
pub struct Serving {
    state: RwLock<State>,
    /// Set for a serving source that [`Serving::swap`] replaces while clients keep talking to
    /// it (`terrarium dev`).
    reloads: bool,
    /// Warnings for the next call whose diagnostics reach the person.
    pending_warnings: Mutex<Vec<Diagnostic>>,
}

impl Serving {
    fn with(now: Now, last: u64) -> Serving {
        Serving {
            state: RwLock::new(State { now, last }),
            reloads: false,
            pending_warnings: Mutex::new(Vec::new()),
        }
    }

    /// `dispatcher` serving as generation 1.
    pub fn ready(dispatcher: Arc<Dispatcher>) -> Serving {
        Serving::with(Now::Settled(Ok(Arc::new(Generation { number: 1, dispatcher }))), 1)
    }

    /// Nothing serving: every call answers with `failure` until a swap.
    pub fn failed(failure: LoadFailure) -> Serving {
        Serving::with(Now::Settled(Err(failure)), 0)
    }

    /// A component still being loaded by `loading`, which should already be running (a
    /// spawned task): calls that arrive meanwhile wait for it.
    pub fn loading(
        loading: impl Future<Output = Result<Arc<Dispatcher>, LoadFailure>> + Send + 'static,
    ) -> Serving {
        let loading = loading
            .map(|loaded| loaded.map(|dispatcher| Arc::new(Generation { number: 1, dispatcher })));
        Serving::with(Now::Loading(loading.boxed().shared()), 1)
    }

    /// Marks this source as one that swaps builds while clients talk to it (hot reload): the
    /// front ends then tell clients not to keep the schema between processes.
    pub fn reloading(mut self) -> Serving {
        self.reloads = true;
        self
    }

    /// Whether the schema may change between calls.
    pub fn may_change(&self) -> bool {
        self.reloads
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The generation a call starting now runs on, waiting while it loads; the failure when
    /// nothing can serve.
    pub async fn now(&self) -> Result<Arc<Generation>, LoadFailure> {
        let now = match &self.read().now {
            Now::Loading(loading) => loading.clone(),
            Now::Settled(loaded) => return loaded.clone(),
        };
        now.await
    }

    /// The generation for the schema calls: also a [`LoadFailure::schema_only`] fallback (as
    /// generation 0, which never serves anything but its schema).
    pub async fn for_schema(&self) -> Result<Arc<Generation>, LoadFailure> {
        match self.now().await {
            Err(LoadFailure { schema_only: Some(dispatcher), .. }) => {
                Ok(Arc::new(Generation { number: 0, dispatcher }))
            }
            loaded => loaded,
        }
    }

    /// The generation serving now without waiting: `None` while loading or failed.
    pub fn current(&self) -> Option<Arc<Generation>> {
        self.read().now.serving()
    }

    /// Makes `dispatcher` the next generation; returns the one it replaced (`None` when
    /// nothing served) and the new one. Calls that already took the old generation keep it.
    pub fn swap(&self, dispatcher: Arc<Dispatcher>) -> (Option<Arc<Generation>>, Arc<Generation>) {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        let old = state.now.serving();
        state.last += 1;
        let next = Arc::new(Generation { number: state.last, dispatcher });
        state.now = Now::Settled(Ok(next.clone()));
        (old, next)
    }

    /// After `on` accepted a configuration: if a swap happened meanwhile, the configuration
    /// belongs to the new build too, which adopts it (a ConfigureProvider still running on
    /// the old generation at the swap must not be lost).
    pub async fn configured(&self, on: &Generation) {
        let Some(current) = self.current() else { return };
        if current.number == on.number {
            return;
        }
        if let (Some(request), _) = on.recorded_configuration() {
            report_carried(&current.adopt_configuration(&request).await);
        }
    }

    /// Queues a warning for the next call that can carry diagnostics. Only the latest warning
    /// of each summary is kept: a build that fails three times says so once.
    pub fn warn(&self, warning: Diagnostic) {
        let mut pending = self.pending_warnings.lock().unwrap_or_else(|p| p.into_inner());
        pending.retain(|w| w.summary != warning.summary);
        pending.push(warning);
    }

    /// Drops a queued warning with this summary: a later build or reload succeeded.
    pub fn clear_warning(&self, summary: &str) {
        self.pending_warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|w| w.summary != summary);
    }

    /// Takes the queued warnings (each is returned once). Front ends add them to the calls
    /// whose diagnostics the person sees (not the schema calls: Terraform drops their
    /// warnings, and a warning taken by them would never be seen).
    pub fn take_warnings(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.pending_warnings.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Logs a carried-over configuration the new build rejected.
pub fn report_carried(diagnostics: &[Diagnostic]) {
    for d in diagnostics.iter().filter(|d| d.severity == Severity::Error) {
        tracing::warn!(
            summary = %d.summary,
            detail = %d.detail,
            "the new build rejected the provider configuration carried over from the previous one; \
             calls that need a configured provider will fail until Terraform configures it again"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failed_source_answers_every_call_with_its_failure() {
        let serving = Serving::failed(LoadFailure::new("no build yet"));
        assert!(serving.current().is_none());
        assert!(!serving.may_change());
        let Err(failure) = serving.now().await else { panic!("nothing serves") };
        assert_eq!(&*failure.message, "no build yet");
        assert!(serving.for_schema().await.is_err(), "no schema-only fallback was loaded");

        let loading = Serving::loading(async { Err(LoadFailure::new("broken")) });
        let Err(failure) = loading.now().await else { panic!("the load failed") };
        assert_eq!(&*failure.message, "broken");
        assert!(Serving::failed(LoadFailure::new("x")).reloading().may_change());
    }

    #[test]
    fn a_warning_is_taken_once_and_the_latest_of_a_summary_is_kept() {
        let serving = Serving::failed(LoadFailure::new("x"));
        serving.warn(Diagnostic::warning("Provider reload failed", "first"));
        serving.warn(Diagnostic::warning("Provider build failed", "build"));
        serving.warn(Diagnostic::warning("Provider reload failed", "second"));
        serving.clear_warning("Provider build failed");
        let taken = serving.take_warnings();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].detail, "second");
        assert!(serving.take_warnings().is_empty());
    }
}

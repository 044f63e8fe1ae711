//! The instance pool: the instances of one provider, lent one call at a time.
//!
//! A call leases an idle instance (or a new one, up to the pool's bound), configured first by
//! replaying the recorded ConfigureProvider when the RPC needs a configured provider, and
//! settles the lease afterwards: the instance goes back unless its call poisoned it.

use std::sync::{Arc, Mutex};

use terrarium_model::Diagnostic;
use tokio::sync::{Semaphore, SemaphorePermit};
use wasmtime::Store;

use super::{Dispatcher, Subject, guest_error_diagnostic, types};
use terrarium_runtime::guest_text::{self, Lines};
use terrarium_runtime::{
    self as runtime, GuestError, GuestInstance, HostState, guest, wit_behaviour,
};

/// The instances of one provider and the configuration they must see.
///
/// Instances not serving a call wait in `idle`; a call takes one (or creates one) and gives it
/// back afterwards, unless it trapped. The semaphore bounds the instances alive at once: an
/// instance is created only when none is idle, while its caller holds a permit, so
/// idle + busy never exceeds the bound.
pub(super) struct InstancePool {
    idle: Mutex<Vec<PooledInstance>>,
    permits: Semaphore,
    pub(super) configuration: Mutex<Configuration>,
}

/// The latest successful ConfigureProvider request. Generations count them from 1, so an
/// instance that has seen generation `g` needs no replay while `g` is current.
///
/// The request is kept twice: as the guest gets it, for replay into instances, and as the
/// front end sent it, so that a reloaded component (whose provider schema may differ) can
/// take it over with its own schema ([`Dispatcher::adopt_configuration`]).
#[derive(Default)]
pub(super) struct Configuration {
    request: Option<Arc<guest::ConfigureRequest>>,
    pub(super) sent: Option<Arc<types::ConfigureRequest>>,
    pub(super) generation: u64,
}

/// An instance and the configuration generation it has seen (0: never configured).
struct PooledInstance {
    instance: GuestInstance,
    generation: u64,
}

/// An instance lent to one call, with the permit that counts it.
struct Lease<'a> {
    pooled: PooledInstance,
    _permit: SemaphorePermit<'a>,
}

impl InstancePool {
    pub(super) fn new(size: usize, first: GuestInstance) -> InstancePool {
        InstancePool {
            idle: Mutex::new(vec![PooledInstance { instance: first, generation: 0 }]),
            permits: Semaphore::new(size.max(1)),
            configuration: Mutex::new(Configuration::default()),
        }
    }

    fn configuration(&self) -> (Option<Arc<guest::ConfigureRequest>>, u64) {
        let c = self.configuration.lock().unwrap_or_else(|p| p.into_inner());
        (c.request.clone(), c.generation)
    }

    /// Records a successful configuration; returns its generation.
    fn record(&self, request: guest::ConfigureRequest, sent: Arc<types::ConfigureRequest>) -> u64 {
        let mut c = self.configuration.lock().unwrap_or_else(|p| p.into_inner());
        c.generation += 1;
        c.request = Some(Arc::new(request));
        c.sent = Some(sent);
        c.generation
    }

    /// Takes an idle instance, preferring one that has seen `generation` when `configured`
    /// is wanted and one that has not otherwise (keeping configured ones for the calls that
    /// need them). Among equals the most recently used, whose memory is warmest.
    fn take_idle(&self, configured: bool, generation: u64) -> Option<PooledInstance> {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        let preferred = idle.iter().rposition(|i| (i.generation == generation) == configured);
        match preferred {
            Some(at) => Some(idle.remove(at)),
            None => idle.pop(),
        }
    }

    fn give_back(&self, lease: Lease<'_>) {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(lease.pooled);
    }
}

/// Whether an RPC needs a configured provider. Validation and functions are defined to work
/// on an unconfigured provider (Terraform calls them before ConfigureProvider), and
/// ConfigureProvider configures the instance itself; everything else gets the replay.
fn needs_configuration(rpc: &str) -> bool {
    !matches!(
        rpc,
        "ValidateProviderConfig"
            | "ValidateResourceConfig"
            | "ValidateDataResourceConfig"
            | "ValidateEphemeralResourceConfig"
            | "ValidateListResourceConfig"
            | "ValidateActionConfig"
            | "CallFunction"
            | "ConfigureProvider"
    )
}

impl Dispatcher {
    /// Runs one guest call on an instance from the pool: an idle one if there is one,
    /// otherwise a fresh one (waiting for a permit when the pool is at its bound), configured
    /// first if the call needs it. The instance goes back to the pool afterwards unless the
    /// call poisoned it; if this future is dropped mid-call, so is the instance.
    pub(super) async fn call<R>(
        &self,
        subject: Subject<'_>,
        f: impl AsyncFnOnce(&guest::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Vec<Diagnostic>> {
        let mut lease = self.lease(subject, needs_configuration(subject.rpc)).await?;
        let result = lease.pooled.instance.call(f).await;
        super::note_refusals(lease.pooled.instance.take_refusals());
        self.settle(subject, lease, result)
    }

    /// [`call`](Self::call) for the hooks of a component that declares its behaviour
    /// (`behaviour` interface), on an instance leased the same way.
    pub(super) async fn call_behaviour<R>(
        &self,
        subject: Subject<'_>,
        f: impl AsyncFnOnce(&wit_behaviour::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Vec<Diagnostic>> {
        let mut lease = self.lease(subject, needs_configuration(subject.rpc)).await?;
        let result = lease.pooled.instance.call_behaviour(f).await;
        super::note_refusals(lease.pooled.instance.take_refusals());
        self.settle(subject, lease, result)
    }

    /// Ends a lease: the instance goes back to the pool unless its call poisoned it, and a
    /// guest error becomes the call's diagnostic.
    fn settle<R>(
        &self,
        subject: Subject<'_>,
        lease: Lease<'_>,
        result: Result<R, GuestError>,
    ) -> Result<R, Vec<Diagnostic>> {
        if !matches!(&result, Err(e) if e.poisons_instance()) {
            self.pool.give_back(lease);
        }
        result.map_err(|e| vec![guest_error_diagnostic(subject, &e)])
    }

    /// Runs a guest call that streams its results to a consumer. When the consumer goes away
    /// (`consumer_gone` resolves), the guest learns it from its next `push` and should return;
    /// one that keeps going is abandoned after [`STREAM_GRACE`] and its instance discarded.
    pub(super) async fn call_streaming<R>(
        &self,
        subject: Subject<'_>,
        consumer_gone: impl Future<Output = ()>,
        f: impl AsyncFnOnce(&guest::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, Vec<Diagnostic>> {
        tokio::select! {
            r = self.call(subject, f) => r,
            _ = async { consumer_gone.await; tokio::time::sleep(STREAM_GRACE).await } => Err(vec![Diagnostic::error(
                "Provider ignored a closed stream",
                format!(
                    "Terraform stopped reading the results of {subject}, but the provider kept running for {} \
                     afterwards, so Terrarium interrupted it and discarded the instance.",
                    terrarium_runtime::sandbox::format_duration(STREAM_GRACE)
                ),
            )]),
        }
    }

    /// Configures one instance with `request` and, if the guest accepts it, records it for
    /// replay into every other instance. Returns the guest's diagnostics.
    pub(super) async fn configure_instance(
        &self,
        subject: Subject<'_>,
        request: guest::ConfigureRequest,
        sent: Arc<types::ConfigureRequest>,
    ) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
        let mut lease = self.lease(subject, false).await?;
        let result = lease
            .pooled
            .instance
            .call(async |g: &guest::Guest, s: &mut Store<HostState>| {
                g.call_configure(s, &request).await
            })
            .await
            .map(runtime::diagnostics_from_wit);
        if let Ok(diags) = &result
            && !terrarium_model::has_errors(diags)
        {
            lease.pooled.generation = self.pool.record(request, sent);
        }
        self.settle(subject, lease, result)
    }

    /// Asks idle instances to stop, all at once, each within [`STOP_CALL_TIMEOUT`]. Returns
    /// the first error text, if any. An instance whose `stop` does not return in time is
    /// interrupted and discarded, so this never takes much longer than that deadline.
    ///
    /// Busy instances are not waited for: their calls learn of the stop from
    /// `lifecycle.stopping` and return within the grace period or are interrupted.
    pub(super) async fn stop_idle(&self) -> Option<String> {
        let mut taken = Vec::new();
        // Each instance is taken with a permit, so the pool's bound holds while they are out.
        while let Ok(permit) = self.pool.permits.try_acquire() {
            let Some(pooled) = self.pool.idle.lock().unwrap_or_else(|p| p.into_inner()).pop()
            else {
                break;
            };
            taken.push((pooled, permit));
        }
        let results =
            futures::future::join_all(taken.into_iter().map(async |(mut pooled, permit)| {
                let result = pooled
                    .instance
                    .call_within(
                        STOP_CALL_TIMEOUT,
                        async |g: &guest::Guest, s: &mut Store<HostState>| g.call_stop(s).await,
                    )
                    .await;
                (pooled, permit, result)
            }))
            .await;
        let mut first_error = None;
        let mut idle = self.pool.idle.lock().unwrap_or_else(|p| p.into_inner());
        for (pooled, _permit, result) in results {
            match result {
                Ok(None) => idle.push(pooled),
                Ok(Some(text)) => {
                    first_error.get_or_insert_with(|| {
                        guest_text::for_people(&text, Lines::Multi, guest_text::MAX_DETAIL_BYTES)
                    });
                    idle.push(pooled);
                }
                Err(GuestError::Timeout { .. }) => {
                    first_error.get_or_insert(format!(
                        "the provider's stop did not return within {}; Terrarium interrupted it and \
                         discarded the instance",
                        terrarium_runtime::sandbox::format_duration(STOP_CALL_TIMEOUT)
                    ));
                }
                Err(e) => {
                    first_error.get_or_insert(e.to_string());
                    if !e.poisons_instance() {
                        idle.push(pooled);
                    }
                }
            }
        }
        first_error
    }

    /// Lends an instance for one call, configured with the current configuration when
    /// `configured` is asked for.
    async fn lease(
        &self,
        subject: Subject<'_>,
        configured: bool,
    ) -> Result<Lease<'_>, Vec<Diagnostic>> {
        let permit = self.pool.permits.acquire().await.map_err(|_| {
            vec![Diagnostic::error(
                "Provider unavailable",
                "the provider's instance pool has been closed",
            )]
        })?;
        let (request, generation) = self.pool.configuration();
        let mut pooled = match self.pool.take_idle(configured, generation) {
            Some(pooled) => pooled,
            None => {
                let instance = self
                    .runtime
                    .instantiate()
                    .await
                    .map_err(|e| vec![guest_error_diagnostic(subject, &e)])?;
                PooledInstance { instance, generation: 0 }
            }
        };
        if let (true, Some(request)) = (configured, request)
            && pooled.generation != generation
        {
            self.replay(&mut pooled.instance, &request).await?;
            pooled.generation = generation;
        }
        Ok(Lease { pooled, _permit: permit })
    }

    /// Configures an instance with the recorded request. On failure the instance must not be
    /// used (it is dropped by the caller).
    async fn replay(
        &self,
        instance: &mut GuestInstance,
        request: &guest::ConfigureRequest,
    ) -> Result<(), Vec<Diagnostic>> {
        let diags = instance
            .call(async |g: &guest::Guest, s: &mut Store<HostState>| {
                g.call_configure(s, request).await
            })
            .await
            .map_err(|e| {
                let replay = Subject { rpc: "ConfigureProvider (replayed)", kind: "", name: "" };
                vec![guest_error_diagnostic(replay, &e)]
            })?;
        let diags = runtime::diagnostics_from_wit(diags);
        if terrarium_model::has_errors(&diags) {
            return Err(diags);
        }
        Ok(())
    }
}

/// How long the guest's `stop` export may take on one instance: StopProvider waits for it,
/// and Terraform's first Ctrl-C should be answered within seconds.
const STOP_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a guest may keep running after the consumer of its stream has gone away.
const STREAM_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

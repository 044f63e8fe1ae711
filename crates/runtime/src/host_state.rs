//! What a guest instance can reach: its WASI context (clocks and random always; directories,
//! environment variables and outbound HTTP only as granted), its memory and table limits,
//! captured stdout/stderr, and the log and lifecycle imports.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use wasmtime::component::ResourceTable;
use wasmtime::{ResourceLimiter, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::filesystem::FsPerms;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::RuntimeSettings;
use super::StopSignal;
use super::bindings::{wit, wit_lifecycle, wit_log};
use crate::guest_text::{self, Lines};
use crate::sandbox::Access;
use crate::sandbox::http::HttpPolicy;

/// A file operation the sandbox refused a guest: what, and why in words a person can act on
/// (one explanation per kind of refusal, shared by all of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// "open for writing of /path was refused: RULE".
    pub what: String,
    /// What the rule protects and what can be done about it.
    pub explanation: &'static str,
}

/// The store data of one guest instance.
pub struct HostState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    http_policy: HttpPolicy,
    pub(super) table: ResourceTable,
    pub(crate) limits: GuestLimits,
    /// The time limit and stop generation of the call running now.
    pub(crate) budget: super::CallBudget,
    /// How long the call running now has waited for the consumer of its stream (Terraform
    /// reading slowly): that time is not the guest's, so it extends the call's time limit.
    pub(crate) waited_for_consumer: Arc<Mutex<ConsumerWait>>,
    /// The log module name guest records are written under (`provider.<name>`).
    module: String,
    /// StopProvider requests, which the running call sees through `lifecycle.stopping`.
    stop: Arc<StopSignal>,
    /// What the file system refused the call running now (`fs_guard`), for its diagnostics.
    refusals: Vec<Refusal>,
    /// The paths of the read-only grants, to name the one a refused write fell under.
    read_only_grants: Vec<std::path::PathBuf>,
}

impl HostState {
    /// The store data for a new instance, with exactly what the grants allow. Fails when a
    /// granted directory cannot be opened.
    pub(crate) fn new(
        settings: &RuntimeSettings,
        output: &GuestOutput,
        shared_memory: &Arc<MemoryBudget>,
        stop: Arc<StopSignal>,
    ) -> Result<HostState, String> {
        let sandbox = &settings.sandbox;
        // Deny by default: no arguments, no network sockets (the default socket check refuses
        // every address and name lookups are off), stdin empty; only granted directories and
        // environment variables.
        let mut builder = WasiCtx::builder();
        builder
            .stdout(output.clone())
            .stderr(output.clone())
            .allow_ip_name_lookup(false)
            .allow_tcp(false)
            .allow_udp(false);
        for (name, value) in sandbox.env() {
            builder.env(name, value);
        }
        for dir in sandbox.dirs() {
            let grant = dir.grant();
            let perms = match grant.access {
                Access::ReadOnly => FsPerms::ReadOnly,
                Access::ReadWrite => FsPerms::ReadWrite,
            };
            // The directory opened when the provider started, never a new lookup of its path:
            // a guest may have swapped that path for a link since. The same path inside as
            // outside, so paths in configurations mean the same thing.
            builder.preopened_dir(dir.host_path(), grant.path.to_string_lossy(), perms).map_err(
                |e| {
                    format!(
                        "cannot open the granted directory {} (grant {grant}): {e:#}",
                        grant.path.display()
                    )
                },
            )?;
        }
        // The guest's `/` outside its grants: an empty directory where every open is refused
        // with a diagnostic naming the grant that would allow it (`outside`).
        let root_granted =
            sandbox.dirs().iter().any(|d| d.grant().path == std::path::Path::new("/"));
        if !root_granted && let Some(root) = crate::outside::root_host_path() {
            builder
                .preopened_dir(root, "/", FsPerms::ReadOnly)
                .map_err(|e| format!("cannot open the guest's empty root directory: {e:#}"))?;
        }
        let read_only_grants = sandbox
            .dirs()
            .iter()
            .filter(|d| d.grant().access == Access::ReadOnly)
            .map(|d| d.grant().path.clone())
            .collect();
        let wasi = builder.build();
        let store_limits = StoreLimitsBuilder::new()
            .memory_size(settings.max_memory_bytes)
            .instances(settings.max_instances)
            .tables(settings.max_tables)
            .table_elements(settings.max_table_elements)
            .trap_on_grow_failure(true)
            .build();
        let limits = GuestLimits {
            inner: store_limits,
            max_memory_bytes: settings.max_memory_bytes,
            max_table_elements: settings.max_table_elements,
            exceeded: None,
            shared: shared_memory.clone(),
            reserved: 0,
            pending: 0,
        };
        let http_policy = HttpPolicy::new(
            &sandbox.grants().http,
            sandbox.max_http_response(),
            &settings.log_module,
        );
        // Host memory the guest can make the host hold: every WASI handle (file and directory
        // descriptors, header maps, requests, responses, streams, pollables) is an entry of
        // this table, and no header map grows past its own limit, so header maps alone stay
        // within 32 MiB per instance.
        let mut table = ResourceTable::new();
        table.set_max_capacity(MAX_HOST_RESOURCES);
        let mut http = WasiHttpCtx::new();
        http.set_field_size_limit(MAX_HEADER_MAP_BYTES);
        Ok(HostState {
            wasi,
            http,
            http_policy,
            table,
            limits,
            budget: super::CallBudget { deadline: std::time::Instant::now(), stop_generation: 0 },
            waited_for_consumer: Arc::default(),
            module: settings.log_module.clone(),
            stop,
            refusals: Vec::new(),
            read_only_grants,
        })
    }

    /// Keeps what the file system refused the running call, at most a few entries.
    pub(super) fn note_refusal(&mut self, refusal: Refusal) {
        const KEPT: usize = 8;
        if self.refusals.len() < KEPT {
            self.refusals.push(refusal);
        }
    }

    /// Whether any directory is granted read-only.
    pub(super) fn has_read_only_grants(&self) -> bool {
        !self.read_only_grants.is_empty()
    }

    /// The read-only grant that `path` (a host path) is under, if any.
    pub(super) fn read_only_grant_of(&self, path: &std::path::Path) -> Option<&std::path::Path> {
        // Grants never nest: at most one holds the path.
        self.read_only_grants.iter().find(|g| path.starts_with(g)).map(|g| g.as_path())
    }

    /// What the file system refused since the last call of this, oldest first.
    pub(crate) fn take_refusals(&mut self) -> Vec<Refusal> {
        std::mem::take(&mut self.refusals)
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl WasiHttpView for HostState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.http_policy,
        }
    }
}

/// Time one call has spent waiting for the consumer of its stream.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConsumerWait {
    /// Waits that have ended.
    pub(crate) total: std::time::Duration,
    /// When the wait going on now began.
    pub(crate) since: Option<std::time::Instant>,
}

impl ConsumerWait {
    /// Everything waited so far, the wait going on now included.
    pub(crate) fn so_far(&self) -> std::time::Duration {
        self.total + self.since.map_or(std::time::Duration::ZERO, |since| since.elapsed())
    }
}

/// The most host resources (WASI handles: file and directory descriptors, header maps, HTTP
/// requests and responses, body streams, pollables, ...) one instance may hold at once.
pub const MAX_HOST_RESOURCES: usize = 1024;
/// The largest header map (`wasi:http` fields) a guest may build, in bytes of host memory
/// (wasmtime's estimate: names and values plus a few dozen bytes per entry). Requests are
/// rarely above 8 KiB of headers.
pub const MAX_HEADER_MAP_BYTES: usize = 32 * 1024;

/// A limit a guest ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitHit {
    /// Linear memory would have grown past this many bytes.
    Memory { limit: usize },
    /// The instances of the provider together would have held more memory than this.
    TotalMemory { limit: usize },
    /// A table would have grown past this many elements.
    TableElements { limit: usize },
    /// The instance would have held more host resources than this.
    HostResources { limit: usize },
    /// A `wasi:http` header map would have grown past this many bytes.
    HeaderMap { limit: usize },
    /// One call would have copied more data between guest and host than wasmtime allows.
    Transfer,
    /// The instance would have held more component-model handles than wasmtime allows.
    Handles,
}

/// Linear memory all instances of one runtime hold together, against one limit: each
/// instance reserves what it grows by and gives it back when it is dropped, so a provider
/// process cannot hold more than the `total_memory` grant however many calls run at once.
#[derive(Debug)]
pub struct MemoryBudget {
    used: std::sync::atomic::AtomicUsize,
    limit: usize,
}

impl MemoryBudget {
    pub fn new(limit: usize) -> MemoryBudget {
        MemoryBudget { used: std::sync::atomic::AtomicUsize::new(0), limit }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes reserved now by all instances.
    pub fn used(&self) -> usize {
        self.used.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn reserve(&self, bytes: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .is_ok()
    }

    fn release(&self, bytes: usize) {
        use std::sync::atomic::Ordering;
        let _ = self.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
            Some(used.saturating_sub(bytes))
        });
    }
}

/// The store's resource limiter: wasmtime's [`StoreLimits`], plus a record of which limit a
/// guest ran into, so that the failure can be reported as that limit rather than as whatever
/// the guest did when its allocation failed.
pub struct GuestLimits {
    inner: StoreLimits,
    max_memory_bytes: usize,
    max_table_elements: usize,
    exceeded: Option<LimitHit>,
    /// The provider's memory budget, shared by all its instances.
    shared: Arc<MemoryBudget>,
    /// What this instance has reserved from `shared`.
    reserved: usize,
    /// The last reservation, given back if that growth then fails.
    pending: usize,
}

impl Drop for GuestLimits {
    fn drop(&mut self) {
        self.shared.release(self.reserved);
    }
}

impl GuestLimits {
    /// The limit hit since the last call to this, if any.
    pub fn take_exceeded(&mut self) -> Option<LimitHit> {
        self.exceeded.take()
    }
}

impl ResourceLimiter for GuestLimits {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory_bytes {
            self.exceeded = Some(LimitHit::Memory { limit: self.max_memory_bytes });
        }
        if !self.inner.memory_growing(current, desired, maximum)? {
            return Ok(false);
        }
        let growth = desired.saturating_sub(current);
        if !self.shared.reserve(growth) {
            let limit = self.shared.limit();
            self.exceeded = Some(LimitHit::TotalMemory { limit });
            // As StoreLimits does with trap_on_grow_failure: the guest cannot carry on.
            wasmtime::bail!(
                "the provider's instances together would hold more than {} of memory",
                crate::sandbox::ByteSize(limit as u64)
            );
        }
        self.reserved += growth;
        self.pending = growth;
        Ok(true)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.shared.release(pending);
        self.reserved = self.reserved.saturating_sub(pending);
        self.inner.memory_grow_failed(error)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_table_elements {
            self.exceeded = Some(LimitHit::TableElements { limit: self.max_table_elements });
        }
        self.inner.table_growing(current, desired, maximum)
    }

    fn table_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.inner.table_grow_failed(error)
    }

    fn instances(&self) -> usize {
        self.inner.instances()
    }

    fn tables(&self) -> usize {
        self.inner.tables()
    }

    fn memories(&self) -> usize {
        self.inner.memories()
    }
}

fn level_of(level: wit_log::Level) -> tracing::Level {
    match level {
        wit_log::Level::Trace => tracing::Level::TRACE,
        wit_log::Level::Debug => tracing::Level::DEBUG,
        wit_log::Level::Info => tracing::Level::INFO,
        wit_log::Level::Warn => tracing::Level::WARN,
        wit_log::Level::Error => tracing::Level::ERROR,
    }
}

/// A guest's log text on one line, control characters written out, within the log limit:
/// a newline in a guest message must not forge a record in a `TF_LOG` file.
fn log_text(s: &str) -> String {
    guest_text::for_people(s, Lines::Single, guest_text::MAX_LOG_BYTES)
}

/// The `types` interface declares no functions.
impl wit::Host for HostState {}

impl wit_log::Host for HostState {
    fn enabled(&mut self, level: wit_log::Level) -> bool {
        crate::logging::enabled(level_of(level))
    }

    fn log(&mut self, level: wit_log::Level, message: String, fields: Vec<wit_log::Field>) {
        let level = level_of(level);
        if !crate::logging::enabled(level) {
            return;
        }
        let fields: Vec<(String, serde_json::Value)> = fields
            .into_iter()
            .take(64)
            .map(|f| {
                let value =
                    serde_json::from_str(&f.value).unwrap_or(serde_json::Value::String(f.value));
                (log_text(&f.key), guest_text::log_value(value))
            })
            .collect();
        crate::logging::emit(level, &self.module, &log_text(&message), &fields);
    }
}

impl wit_lifecycle::Host for HostState {
    fn stopping(&mut self) -> bool {
        self.stop.stopped_since_generation(self.budget.stop_generation)
    }
}

/// A guest's stdout and stderr: each complete line goes to the host log at DEBUG, and the
/// last few KiB are kept so that a trap (a Rust panic prints its message to stderr first)
/// can be reported with what the guest said.
#[derive(Clone)]
pub struct GuestOutput {
    inner: Arc<Mutex<OutputState>>,
}

struct OutputState {
    tail: VecDeque<u8>,
    line: Vec<u8>,
    module: String,
}

const OUTPUT_TAIL_BYTES: usize = 4096;
const OUTPUT_LINE_BYTES: usize = 8192;

impl GuestOutput {
    pub fn new(module: &str) -> GuestOutput {
        GuestOutput {
            inner: Arc::new(Mutex::new(OutputState {
                tail: VecDeque::with_capacity(OUTPUT_TAIL_BYTES),
                line: Vec::new(),
                module: module.to_string(),
            })),
        }
    }

    /// The last bytes the guest wrote, as text, trimmed.
    pub fn tail(&self) -> String {
        let state = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let bytes: Vec<u8> = state.tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    /// Forgets what was written so far (called before each guest call).
    pub fn clear(&self) {
        let mut state = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        state.tail.clear();
    }

    fn write(&self, buf: &[u8]) {
        let mut state = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        for &b in buf {
            if state.tail.len() == OUTPUT_TAIL_BYTES {
                state.tail.pop_front();
            }
            state.tail.push_back(b);
            if b == b'\n' || state.line.len() >= OUTPUT_LINE_BYTES {
                let line = std::mem::take(&mut state.line);
                let text = String::from_utf8_lossy(&line);
                crate::logging::emit(
                    tracing::Level::DEBUG,
                    &state.module,
                    &log_text(text.trim_end()),
                    &[("stream".to_string(), serde_json::Value::from("guest-output"))],
                );
                if b != b'\n' {
                    state.line.push(b);
                }
            } else {
                state.line.push(b);
            }
        }
    }
}

impl IsTerminal for GuestOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for GuestOutput {
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl tokio::io::AsyncWrite for GuestOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.write(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_keeps_only_the_tail() {
        let out = GuestOutput::new("provider.test");
        out.write(&vec![b'a'; 10_000]);
        out.write(b"\npanicked at src/lib.rs:1:1: boom\n");
        let tail = out.tail();
        assert!(tail.ends_with("panicked at src/lib.rs:1:1: boom"));
        assert!(tail.len() <= OUTPUT_TAIL_BYTES);
        out.clear();
        assert_eq!(out.tail(), "");
    }
}

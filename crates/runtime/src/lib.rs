//! The wasmtime side: engine settings, loading a provider component, instantiating it, and
//! calling into it with limits, so that a guest that traps, loops or allocates without end
//! becomes an error for one call rather than a crash or a hang.
//!
//! Beside it, what every part of the host shares below the protocols: the sandbox
//! ([`sandbox`]: grants, directory and HTTP policy), logging ([`logging`]) and guest text made
//! safe for terminals ([`guest_text`]).

pub mod behaviour;
mod bindings;
pub mod cache;
mod epoch;
mod fs_guard;
pub mod guest_text;
pub mod held_files;
mod host_state;
pub mod logging;
mod outside;
pub mod sandbox;
mod streams;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use wasmtime::component::{Component, HasSelf, InstancePre, Linker};
use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig,
    RegallocAlgorithm, Store, Strategy, UpdateDeadline,
};

pub use behaviour::{BehaviourLimits, BoundError, ProviderBehaviour, provider_behaviour_from_wit};
use bindings::TerrariumProviderWithBehaviour;
pub use bindings::{
    BEHAVIOUR_EXPORT, COMPUTED_BLOCKS_EXPORT, ConvertError, PROVIDER_EXPORT, REPLACEMENT_EXPORT,
    WORLD_LINE, WORLD_PACKAGE, WORLD_VERSION, client_capabilities, diagnostics_from_wit, guest,
    path_from_wit, path_to_wit, provider_schema_from_wit, schema_from_wit, value_from_wit,
    value_to_wit, wit, wit_behaviour, wit_computed_blocks, wit_streams,
};
pub use host_state::{
    GuestOutput, HostState, LimitHit, MAX_HEADER_MAP_BYTES, MAX_HOST_RESOURCES, MemoryBudget,
    Refusal,
};
pub use streams::{ListSink, ProgressSink, PushItem, ReportProgress};
pub use terrarium_framework::declared::{
    AttributeBehaviour, DeclaredDefault, DeclaredReplace, DeclaredValidator, SchemaBehaviour,
};

use crate::guest_text::Lines;
use crate::sandbox::Sandbox;
use epoch::EpochTicker;

/// Limits and settings that apply to every instance.
#[derive(Clone, Debug)]
pub struct RuntimeSettings {
    /// Linear memory an instance may grow to.
    pub max_memory_bytes: usize,
    /// Linear memory all instances of one loaded component may hold together (never less
    /// than `max_memory_bytes`).
    pub max_total_memory_bytes: usize,
    /// Core instances one component instance may create (a store limit).
    pub max_instances: usize,
    /// Component instances one provider keeps alive at most: one serves one call at a time,
    /// so this bounds the guest calls in flight (Terraform makes 10 at a time by default).
    pub instance_pool_size: usize,
    pub max_tables: usize,
    pub max_table_elements: usize,
    /// Wall-clock time one guest call may take before it is interrupted.
    pub call_timeout: Duration,
    /// How long a call running when Terraform asks the provider to stop (StopProvider) may
    /// go on winding down before it is interrupted ([`DEFAULT_STOP_GRACE`]).
    pub stop_grace: Duration,
    /// The log module guest records are written under.
    pub log_module: String,
    /// Where compiled components are cached; `None` compiles on every start.
    pub cache_dir: Option<PathBuf>,
    /// What the user granted the component (directories, environment, HTTP origins).
    pub sandbox: Arc<Sandbox>,
    /// Which compiler makes native code of the component: the one that makes the fastest
    /// code for installed providers (compiled once, cached), a quick one for `terrarium dev`,
    /// whose builds are compiled on every save and serve a few commands each.
    pub compiler: Compiler,
}

/// The compiler `terrarium dev` compiles the builds it serves with: each is compiled on every
/// save and serves a few commands, so compiling quickly matters more than fast code.
/// (BENCHMARKS.md measures each compiler.) Winch is wasmtime's baseline compiler for x86-64;
/// elsewhere Cranelift does the quickest compilation it can.
pub const DEV_COMPILER: Compiler =
    if cfg!(target_arch = "x86_64") { Compiler::Baseline } else { Compiler::UnoptimizedSinglePass };

/// Which of wasmtime's compilers makes native code of a component, and how hard it works.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compiler {
    /// Cranelift with its optimisations: the fastest code and the slowest compilation.
    Optimizing,
    /// Cranelift without optimisations.
    Unoptimized,
    /// Cranelift without optimisations, with its single-pass register allocator.
    UnoptimizedSinglePass,
    /// Winch, wasmtime's baseline compiler: one pass over each function, no optimisations.
    Baseline,
}

impl Compiler {
    /// Every compiler, for benchmarks.
    pub const ALL: [Compiler; 4] = [
        Compiler::Optimizing,
        Compiler::Unoptimized,
        Compiler::UnoptimizedSinglePass,
        Compiler::Baseline,
    ];

    /// A short name for logs and benchmark tables.
    pub fn name(self) -> &'static str {
        match self {
            Compiler::Optimizing => "Cranelift, optimizing",
            Compiler::Unoptimized => "Cranelift, opt-level none",
            Compiler::UnoptimizedSinglePass => "Cranelift, opt-level none, single-pass regalloc",
            Compiler::Baseline => "Winch",
        }
    }

    /// The compiler to use when this one cannot compile a component. Winch lacks some
    /// WebAssembly proposals that Cranelift compiles (tail calls, exceptions, GC, relaxed and
    /// part of plain SIMD), so such a component is compiled by Cranelift, as quickly as it can.
    pub fn fallback(self) -> Option<Compiler> {
        match self {
            Compiler::Baseline => Some(Compiler::Unoptimized),
            Compiler::Optimizing | Compiler::Unoptimized | Compiler::UnoptimizedSinglePass => None,
        }
    }

    fn configure(self, config: &mut Config) {
        let (strategy, opt_level) = match self {
            Compiler::Optimizing => (Strategy::Cranelift, OptLevel::Speed),
            Compiler::Unoptimized | Compiler::UnoptimizedSinglePass => {
                (Strategy::Cranelift, OptLevel::None)
            }
            // Winch compiles the component's functions; Cranelift still compiles the
            // component-model trampolines, which need no optimising either.
            Compiler::Baseline => (Strategy::Winch, OptLevel::None),
        };
        config.strategy(strategy);
        config.cranelift_opt_level(opt_level);
        if self == Compiler::UnoptimizedSinglePass {
            config.cranelift_regalloc_algorithm(RegallocAlgorithm::SinglePass);
        }
    }
}

/// Terraform's default parallelism (10), plus room for validation and function calls made
/// beside it.
pub const DEFAULT_INSTANCE_POOL_SIZE: usize = 16;

/// The grace period after StopProvider: long enough for a call that polls
/// `lifecycle.stopping` to record what it has done and return, short enough that the first
/// Ctrl-C ends a guest that ignores it within seconds.
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(5);

impl Default for RuntimeSettings {
    fn default() -> Self {
        RuntimeSettings {
            max_memory_bytes: sandbox::grants::DEFAULT_MEMORY as usize,
            max_total_memory_bytes: sandbox::grants::DEFAULT_TOTAL_MEMORY as usize,
            max_instances: 32,
            instance_pool_size: DEFAULT_INSTANCE_POOL_SIZE,
            max_tables: 32,
            max_table_elements: 1 << 20,
            call_timeout: sandbox::grants::DEFAULT_TIMEOUT,
            stop_grace: DEFAULT_STOP_GRACE,
            log_module: "provider.terrarium".to_string(),
            cache_dir: if std::env::var_os("TERRARIUM_NO_CACHE").is_some_and(|v| !v.is_empty()) {
                None
            } else {
                cache::default_dir()
            },
            sandbox: Arc::new(Sandbox::default()),
            compiler: Compiler::Optimizing,
        }
    }
}

/// Why a component could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    // `cause`, not `source`: the message says it, and anyhow's chain must not say it again.
    #[error("cannot read the component {path}: {cause}")]
    Read { path: PathBuf, cause: std::io::Error },
    #[error(
        "{path} is a core WebAssembly module, not a component; build the provider with \
         `cargo build --target wasm32-wasip2` (which emits components) or wrap it with `wasm-tools component new`"
    )]
    CoreModule { path: PathBuf },
    #[error("{path} is not a WebAssembly file (it does not start with the \\0asm magic)")]
    NotWasm { path: PathBuf },
    #[error(
        "{path} is not a valid component: {message}; rebuild it (a file cut short by an interrupted \
         copy or download looks like this)"
    )]
    Invalid { path: PathBuf, message: String },
    #[error(
        "{path} was built for {package} version {found}, but this terrarium speaks version {expected}; \
         rebuild the provider against terrarium-sdk for {package}@{expected}, or use a terrarium release that speaks {found}"
    )]
    WorldVersion { path: PathBuf, package: &'static str, found: String, expected: &'static str },
    #[error(
        "{path} does not export {export}; a Terrarium provider is a component built with terrarium-sdk \
         (its exports: {exports})"
    )]
    NotAProvider { path: PathBuf, export: &'static str, exports: String },
    #[error(
        "{path} exports {export}, but its function `{function}` does not have that version's signature \
         ({reason}): it was built from a changed WIT without a new version. Rebuild it against \
         terrarium-sdk for {package}@{version}"
    )]
    InterfaceMismatch {
        path: PathBuf,
        export: &'static str,
        function: &'static str,
        reason: String,
        package: &'static str,
        version: &'static str,
    },
    #[error(
        "{path} imports something Terrarium does not provide to providers: {message}; build it with \
         terrarium-sdk, whose imports this terrarium serves"
    )]
    Imports { path: PathBuf, message: String },
    #[error("cannot set up the WebAssembly engine: {0}")]
    Engine(String),
}

/// A failed guest call: a trap, an exceeded limit, or output the host could not read.
#[derive(Debug, thiserror::Error)]
pub enum GuestError {
    #[error("the provider crashed: {message}{}", if output.is_empty() { String::new() } else { format!("\n\nThe provider's last output:\n{output}") })]
    Trap { message: String, output: String },
    #[error("the provider took longer than its time limit of {} per call", sandbox::format_duration(*limit))]
    Timeout { limit: Duration },
    #[error("{}", limit_text(hit))]
    Limit { hit: LimitHit },
    #[error("the provider exhausted its WebAssembly call stack (recursion without a bound?)")]
    StackOverflow,
    #[error(
        "Terraform asked the provider to stop (StopProvider), and the running call did not return \
         within the grace period of {}, so it was interrupted",
        sandbox::format_duration(*grace)
    )]
    Stopped { grace: Duration },
    #[error("the provider returned something malformed: {0}")]
    Malformed(#[from] ConvertError),
    #[error("the provider could not be instantiated: {0}")]
    Instantiate(String),
}

fn limit_text(hit: &LimitHit) -> String {
    match hit {
        LimitHit::Memory { limit } => format!(
            "the provider tried to grow its memory past its limit of {} per instance",
            sandbox::ByteSize(*limit as u64)
        ),
        LimitHit::TotalMemory { limit } => format!(
            "the provider tried to grow its memory while its instances together already held close to \
             their limit of {} for the whole provider process",
            sandbox::ByteSize(*limit as u64)
        ),
        LimitHit::TableElements { limit } => {
            format!("the provider tried to grow a table past its limit of {limit} elements")
        }
        LimitHit::HostResources { limit } => format!(
            "the provider tried to hold more than {limit} host resources at once (WASI handles: file \
             and directory descriptors, HTTP header maps, requests, responses, streams, pollables); \
             one that keeps a handle per call, such as a file it never closes, reaches this after \
             that many calls on one instance"
        ),
        LimitHit::HeaderMap { limit } => format!(
            "the provider tried to build an HTTP header map larger than {} of host memory",
            sandbox::ByteSize(*limit as u64)
        ),
        LimitHit::Transfer => format!(
            "the provider tried to pass more than {} to or from the host in one call (a limit of the \
             WebAssembly runtime)",
            sandbox::ByteSize(MAX_TRANSFER_BYTES as u64)
        ),
        LimitHit::Handles => format!(
            "the provider tried to hold more than {MAX_COMPONENT_HANDLES} component handles at once (a limit \
             of the WebAssembly runtime)"
        ),
    }
}

/// wasmtime's own limits, which Terrarium leaves at their defaults: the data one call may copy
/// between guest and host, and the component-model handles one instance may hold.
const MAX_TRANSFER_BYTES: usize = 128 << 20;
const MAX_COMPONENT_HANDLES: usize = 100_000;

/// Which of wasmtime's limits an error is, if any. wasmtime reports them as plain errors whose
/// types are private, so they are told apart by their text.
fn runtime_limit(err: &wasmtime::Error) -> Option<LimitHit> {
    let full = err.chain().any(|e| {
        matches!(
            e.downcast_ref::<wasmtime::component::ResourceTableError>(),
            Some(wasmtime::component::ResourceTableError::Full)
        )
    });
    if full {
        return Some(LimitHit::HostResources { limit: MAX_HOST_RESOURCES });
    }
    let text = format!("{err:#}");
    if text.contains("total size of fields exceeds limit") {
        Some(LimitHit::HeaderMap { limit: MAX_HEADER_MAP_BYTES })
    } else if text.contains("fuel allocated for hostcalls has been exhausted") {
        Some(LimitHit::Transfer)
    } else if text.contains("store handle limit exceeded") {
        Some(LimitHit::Handles)
    } else {
        None
    }
}

impl GuestError {
    /// Which grant or setting raises the limit this error ran into, for diagnostics.
    pub fn remedy(&self) -> Option<String> {
        match self {
            GuestError::Timeout { .. } => Some(
                "The limit is the `timeout` grant: raise it in the grants file beside the installed provider \
                 (`[limits] timeout = \"10m\"`) or reinstall with `terrarium install --timeout DURATION`."
                    .into(),
            ),
            GuestError::Limit { hit: LimitHit::Memory { .. } } => Some(
                "The limit is the `memory` grant: raise it in the grants file beside the installed provider \
                 (`[limits] memory = \"1GiB\"`) or reinstall with `terrarium install --memory SIZE`."
                    .into(),
            ),
            GuestError::Limit { hit: LimitHit::TotalMemory { .. } } => Some(
                "The limit is the `total_memory` grant, the memory of all the provider's instances together \
                 (up to 16 calls run at once, each in its own instance): raise it in the grants file beside \
                 the installed provider (`[limits] total_memory = \"4GiB\"`) or reinstall with \
                 `terrarium install --total-memory SIZE`, or lower Terraform's -parallelism."
                    .into(),
            ),
            GuestError::Limit { hit: LimitHit::TableElements { .. } } => Some(
                "Table sizes are a Terrarium setting (max_table_elements), not a grant; a provider that needs \
                 more is almost certainly broken."
                    .into(),
            ),
            GuestError::Limit {
                hit:
                    LimitHit::HostResources { .. }
                    | LimitHit::HeaderMap { .. }
                    | LimitHit::Transfer
                    | LimitHit::Handles,
            } => Some(
                "This is a fixed limit, not a grant: a provider that needs more is leaking resources or \
                 moving data in too large pieces, which is a bug in the provider."
                    .into(),
            ),
            GuestError::StackOverflow => Some(format!(
                "The stack is a Terrarium setting of {} (max_wasm_stack), not a grant; recursion without a \
                 bound cannot be given more.",
                sandbox::ByteSize(MAX_WASM_STACK as u64)
            )),
            _ => None,
        }
    }

    /// Whether the instance that produced this error must be thrown away.
    pub fn poisons_instance(&self) -> bool {
        !matches!(self, GuestError::Malformed(_))
    }
}

/// A loaded, linked provider component, ready to be instantiated any number of times.
pub struct Runtime {
    engine: Engine,
    pre: Linked,
    settings: RuntimeSettings,
    path: PathBuf,
    stop: Arc<StopSignal>,
    /// The memory all instances of this component hold together.
    memory: Arc<MemoryBudget>,
    /// Advances the engine's epoch while calls run.
    ticker: Arc<EpochTicker>,
}

/// StopProvider: every call running when it arrives learns of it (`lifecycle.stopping`) and
/// is interrupted once the grace period after it has passed; calls started after it run
/// normally. Each stop starts a new generation; a call remembers the one it started in.
pub(crate) struct StopSignal {
    generation: AtomicU64,
    /// When each stop arrived: entry `g` began generation `g + 1`.
    arrivals: Mutex<Vec<Instant>>,
    grace: Duration,
    notify: tokio::sync::Notify,
}

impl StopSignal {
    fn new(grace: Duration) -> StopSignal {
        StopSignal {
            generation: AtomicU64::new(0),
            arrivals: Mutex::new(Vec::new()),
            grace,
            notify: tokio::sync::Notify::new(),
        }
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    fn stop(&self) {
        let mut arrivals = self.arrivals.lock().unwrap_or_else(|p| p.into_inner());
        arrivals.push(Instant::now());
        self.generation.store(arrivals.len() as u64, Ordering::SeqCst);
        drop(arrivals);
        self.notify.notify_waiters();
    }

    /// Whether a stop has been asked for since `generation`.
    pub(crate) fn stopped_since_generation(&self, generation: u64) -> bool {
        self.generation() != generation
    }

    /// When a call that began in `generation` must be interrupted: the grace period after
    /// the first stop since then. `None` while no stop has come.
    fn interrupt_at(&self, generation: u64) -> Option<Instant> {
        let arrivals = self.arrivals.lock().unwrap_or_else(|p| p.into_inner());
        let index = usize::try_from(generation).ok()?;
        arrivals.get(index).map(|at| *at + self.grace)
    }

    /// Resolves when a call that began in `generation` must be interrupted.
    async fn interrupt_due(&self, generation: u64) {
        self.stopped_since(generation).await;
        if let Some(at) = self.interrupt_at(generation) {
            tokio::time::sleep_until(at.into()).await;
        }
    }

    /// Resolves once a stop has been asked for since `generation`.
    async fn stopped_since(&self, generation: u64) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.generation() != generation {
                return;
            }
            notified.await;
        }
    }
}

/// How often (in epoch ticks) a running guest is checked for its deadline and for a stop.
const CHECK_TICKS: u64 = 5;

/// Why the epoch callback interrupted a guest.
#[derive(Debug, thiserror::Error)]
enum Interrupted {
    #[error("the call ran past its time limit")]
    TimedOut,
    #[error("the call was stopped by StopProvider")]
    Stopped,
}

/// A guest call's budget, kept in the store so the epoch callback can see it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallBudget {
    pub(crate) deadline: Instant,
    pub(crate) stop_generation: u64,
}

/// What an engine is built for; runtimes with the same shape share one engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EngineShape {
    max_memory_bytes: usize,
    max_table_elements: usize,
    pool_size: usize,
    compiler: Compiler,
}

impl EngineShape {
    fn of(settings: &RuntimeSettings) -> EngineShape {
        EngineShape {
            max_memory_bytes: settings.max_memory_bytes,
            max_table_elements: settings.max_table_elements,
            pool_size: settings.instance_pool_size.max(1),
            compiler: settings.compiler,
        }
    }
}

/// Core instances, memories and tables one component instance may take from the pool.
/// A Rust wasm32-wasip2 provider has one memory, a handful of core instances (its module,
/// the WASI adapter and shims) and a few tables. A Python provider has 14 core instances
/// before it links any native extension (componentize-py links each as a core instance of
/// its own), so core instances get more room; they reserve no memory in advance.
const POOL_CORE_INSTANCES_PER_COMPONENT: u32 = 64;
const POOL_MEMORIES_PER_COMPONENT: u32 = 2;
const POOL_TABLES_PER_COMPONENT: u32 = 8;

/// The WebAssembly stack one call may use.
const MAX_WASM_STACK: usize = 1 << 20;

/// The settings that go into the cache key: code compiled under one of these loads under any
/// other, because the allocator (pooling or on demand) does not change generated code.
fn base_config() -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    // Epochs interrupt a guest that runs past its call timeout (an infinite loop must not
    // hang Terraform); the check costs a load and compare per loop header.
    config.epoch_interruption(true);
    config.max_wasm_stack(MAX_WASM_STACK);
    config
}

/// The pooling allocator: memories, tables and stacks are reserved once per engine, so an
/// instantiation reuses a slot (copy-on-write memory image, no mmap per instance) instead of
/// building one. Slots are sized for several providers' pools, because a process (tests,
/// `inspect`) can hold more than one provider on the same engine.
fn pooling_config(shape: EngineShape) -> PoolingAllocationConfig {
    let components = u32::try_from(shape.pool_size.saturating_mul(4).max(64)).unwrap_or(u32::MAX);
    let mut pool = PoolingAllocationConfig::new();
    pool.total_component_instances(components)
        .total_core_instances(components.saturating_mul(POOL_CORE_INSTANCES_PER_COMPONENT))
        .total_memories(components.saturating_mul(POOL_MEMORIES_PER_COMPONENT))
        .total_tables(components.saturating_mul(POOL_TABLES_PER_COMPONENT))
        // One fiber stack per call in flight (instantiation runs on one too).
        .total_stacks(components)
        .max_core_instances_per_component(POOL_CORE_INSTANCES_PER_COMPONENT)
        .max_memories_per_component(POOL_MEMORIES_PER_COMPONENT)
        .max_tables_per_component(POOL_TABLES_PER_COMPONENT)
        .max_memory_size(shape.max_memory_bytes)
        .table_elements(shape.max_table_elements);
    pool
}

/// An engine and the ticker that advances its epoch.
struct EngineEntry {
    shape: EngineShape,
    engine: Engine,
    ticker: Arc<EpochTicker>,
}

/// Engines by shape, one per shape per process: every runtime of that shape shares it and
/// its epoch ticker.
static ENGINES: Mutex<Vec<EngineEntry>> = Mutex::new(Vec::new());

fn engine_for(settings: &RuntimeSettings) -> Result<Engine, LoadError> {
    let shape = EngineShape::of(settings);
    let mut engines = ENGINES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(entry) = engines.iter().find(|e| e.shape == shape) {
        return Ok(entry.engine.clone());
    }
    // The compiler and its flags are part of the engine's compatibility hash, and so of the
    // cache key too.
    let mut config = base_config();
    shape.compiler.configure(&mut config);
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pooling_config(shape)));
    let engine = match Engine::new(&config) {
        Ok(engine) => engine,
        Err(e) => {
            // The pool reserves address space up front; where that is refused (a low
            // `ulimit -v`), allocating per instance still works, only slower.
            tracing::warn!(error = %format!("{e:#}"), "cannot reserve the instance pool; allocating instances on demand");
            let mut config = base_config();
            shape.compiler.configure(&mut config);
            Engine::new(&config).map_err(|e| LoadError::Engine(format!("{e:#}")))?
        }
    };
    let ticker = EpochTicker::start(&engine)
        .map_err(|e| LoadError::Engine(format!("cannot start the epoch thread: {e}")))?;
    engines.push(EngineEntry { shape, engine: engine.clone(), ticker: Arc::new(ticker) });
    Ok(engine)
}

/// The epoch ticker of an engine made by [`engine_for`].
fn ticker_for(engine: &Engine) -> Result<Arc<EpochTicker>, LoadError> {
    let engines = ENGINES.lock().unwrap_or_else(|p| p.into_inner());
    engines
        .iter()
        .find(|e| Engine::same(&e.engine, engine))
        .map(|e| e.ticker.clone())
        .ok_or_else(|| LoadError::Engine("the engine has no epoch ticker".into()))
}

impl Runtime {
    /// Loads and links a provider component from a file. With the compiled-component cache,
    /// a file loaded before is not read again: its compiled artifact is mapped.
    pub fn load(path: &Path, mut settings: RuntimeSettings) -> Result<Runtime, LoadError> {
        let (engine, (component, _)) =
            compile_with_fallback(&mut settings, path, |engine, settings| {
                load_file(engine, path, settings)
            })?;
        Runtime::linked(engine, &component, path, settings)
    }

    pub fn from_bytes(
        bytes: &[u8],
        path: &Path,
        mut settings: RuntimeSettings,
    ) -> Result<Runtime, LoadError> {
        check_component_header(bytes, path)?;
        let (engine, (component, outcome)) =
            compile_with_fallback(&mut settings, path, |engine, settings| {
                cache::load(engine, bytes, settings.cache_dir.as_deref())
                    .map_err(|e| invalid(path, &e))
            })?;
        tracing::debug!(component = %path.display(), cache = ?outcome, "component loaded");
        Runtime::linked(engine, &component, path, settings)
    }

    fn linked(
        engine: Engine,
        component: &Component,
        path: &Path,
        settings: RuntimeSettings,
    ) -> Result<Runtime, LoadError> {
        let path = path.to_path_buf();
        let pre = link(&engine, component, &path)?;
        let stop = Arc::new(StopSignal::new(settings.stop_grace));
        let memory = Arc::new(MemoryBudget::new(
            settings.max_total_memory_bytes.max(settings.max_memory_bytes),
        ));
        let ticker = ticker_for(&engine)?;
        Ok(Runtime { engine, pre, settings, path, stop, memory, ticker })
    }

    /// The same compiled and linked component under another sandbox: no compiling or linking
    /// again, and calls, memory budget and stop signal of its own. `terrarium dev` serves each
    /// version of a Python module's sources this way, every version granted its own copy.
    pub fn with_sandbox(&self, sandbox: Arc<Sandbox>) -> Runtime {
        let settings = RuntimeSettings { sandbox, ..self.settings.clone() };
        Runtime {
            engine: self.engine.clone(),
            pre: self.pre.clone(),
            stop: Arc::new(StopSignal::new(settings.stop_grace)),
            memory: Arc::new(MemoryBudget::new(
                settings.max_total_memory_bytes.max(settings.max_memory_bytes),
            )),
            ticker: self.ticker.clone(),
            path: self.path.clone(),
            settings,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the component imports, i.e. everything it could ask the host for, by name
    /// (`wasi:http/outgoing-handler@0.2.x`, ...). Whether a request succeeds is up to the grants.
    pub fn imports(&self) -> Vec<String> {
        let component = self.pre.instance_pre.component();
        component.component_type().imports(&self.engine).map(|(name, _)| name.to_string()).collect()
    }

    pub fn settings(&self) -> &RuntimeSettings {
        &self.settings
    }

    /// The memory budget all instances of this component share.
    pub fn memory_budget(&self) -> &MemoryBudget {
        &self.memory
    }

    /// Tells every guest call running now that Terraform asked the provider to stop
    /// (StopProvider): they see it through `lifecycle.stopping`, and those still running
    /// after the grace period ([`RuntimeSettings::stop_grace`]) are interrupted with
    /// [`GuestError::Stopped`] and their instances discarded.
    pub fn stop_running_calls(&self) {
        self.stop.stop();
    }

    /// A fresh instance with its own memory and WASI context.
    pub async fn instantiate(&self) -> Result<GuestInstance, GuestError> {
        let output = GuestOutput::new(&self.settings.log_module);
        let state = HostState::new(&self.settings, &output, &self.memory, self.stop.clone())
            .map_err(GuestError::Instantiate)?;
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        let budget = CallBudget {
            deadline: Instant::now() + self.settings.call_timeout,
            stop_generation: self.stop.generation(),
        };
        store.data_mut().budget = budget;
        // Checked every few ticks rather than trapping at one fixed deadline, so that a stop
        // reaches a guest that is computing, not only one waiting on the host.
        let stop = self.stop.clone();
        store.epoch_deadline_callback(move |ctx| {
            let budget = ctx.data().budget;
            let now = Instant::now();
            if stop.stopped_since_generation(budget.stop_generation)
                && stop.interrupt_at(budget.stop_generation).is_some_and(|at| now >= at)
            {
                return Err(Interrupted::Stopped.into());
            }
            if now >= budget.deadline {
                return Err(Interrupted::TimedOut.into());
            }
            // Yield to the executor now and then, so that whoever awaits the call can give up
            // on a guest that computes without end (a stream whose consumer has gone away),
            // and so that a busy guest does not hold its worker thread for its whole call.
            Ok(UpdateDeadline::Yield(CHECK_TICKS))
        });
        store.set_epoch_deadline(CHECK_TICKS);
        let pre = &self.pre;
        let bindings = guard(
            &mut store,
            &output,
            &self.settings,
            &self.stop,
            &self.ticker,
            budget,
            async |store: &mut Store<HostState>| {
                let instance = pre.instance_pre.instantiate_async(&mut *store).await?;
                let provider = pre.provider.load(&mut *store, &instance)?;
                let behaviour = match &pre.behaviour {
                    Some(indices) => Some(indices.load(&mut *store, &instance)?),
                    None => None,
                };
                let replacement = match &pre.replacement {
                    Some(indices) => Some(indices.load(&mut *store, &instance)?),
                    None => None,
                };
                let computed_blocks = match &pre.computed_blocks {
                    Some(indices) => Some(indices.load(&mut *store, &instance)?),
                    None => None,
                };
                Ok(Bindings { provider, behaviour, replacement, computed_blocks })
            },
        )
        .await?;
        Ok(GuestInstance {
            store,
            bindings: Some(bindings),
            output,
            settings: self.settings.clone(),
            stop: self.stop.clone(),
            ticker: self.ticker.clone(),
        })
    }
}

/// A linked component and where its exported interfaces are.
#[derive(Clone)]
struct Linked {
    instance_pre: InstancePre<HostState>,
    provider: guest::GuestIndices,
    /// Set when the component declares its behaviour, so that the host plans for it.
    behaviour: Option<wit_behaviour::GuestIndices>,
    /// Set when the component says how its types are replaced (0.2.2 and later).
    replacement: Option<bindings::wit_replacement::GuestIndices>,
    /// Set when the component names its computed nested blocks (0.2.3 and later).
    computed_blocks: Option<bindings::wit_computed_blocks::GuestIndices>,
}

/// The exported interfaces of one instance.
struct Bindings {
    provider: guest::Guest,
    behaviour: Option<wit_behaviour::Guest>,
    replacement: Option<bindings::wit_replacement::Guest>,
    computed_blocks: Option<bindings::wit_computed_blocks::Guest>,
}

/// Compiles (or loads from the cache) with `settings.compiler`; when that compiler cannot
/// compile the component and has a [fallback](Compiler::fallback), with the fallback, saying so
/// in one log line, and `settings.compiler` becomes the fallback so that the runtime's settings
/// say what compiled it. Returns the engine the component was compiled for.
fn compile_with_fallback<T>(
    settings: &mut RuntimeSettings,
    path: &Path,
    compile: impl Fn(&Engine, &RuntimeSettings) -> Result<T, LoadError>,
) -> Result<(Engine, T), LoadError> {
    let engine = engine_for(settings)?;
    let refused = match compile(&engine, settings) {
        Err(LoadError::Invalid { message, .. }) => message,
        other => return other.map(|compiled| (engine, compiled)),
    };
    let Some(fallback) = settings.compiler.fallback() else {
        return Err(LoadError::Invalid { path: path.to_path_buf(), message: refused });
    };
    let fallback_settings = RuntimeSettings { compiler: fallback, ..settings.clone() };
    let engine = engine_for(&fallback_settings)?;
    // An invalid file fails here too, with the fallback's error; only a success is logged.
    let compiled = compile(&engine, &fallback_settings)?;
    tracing::warn!(
        component = %path.display(),
        "{} cannot compile this component ({}); compiled it with {} instead",
        settings.compiler.name(),
        guest_text::for_people(&refused, Lines::Single, guest_text::MAX_DETAIL_BYTES),
        fallback.name()
    );
    *settings = fallback_settings;
    Ok((engine, compiled))
}

/// Links a provider component against what the host provides, and checks that it exports the
/// provider interface with the signatures of this host's WIT version. The `behaviour`
/// interface is optional: components built before it existed do not export it.
fn link(engine: &Engine, component: &Component, path: &Path) -> Result<Linked, LoadError> {
    check_world_version(engine, component, path)?;
    let mut linker: Linker<HostState> = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)
        .map_err(|e| LoadError::Engine(format!("{e:#}")))?;
    fs_guard::add_to_linker(&mut linker).map_err(|e| LoadError::Engine(format!("{e:#}")))?;
    // Always linked, so a component that imports wasi:http loads; every request is then
    // checked against the HTTP grants (sandbox::http), and none are granted by default.
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)
        .map_err(|e| LoadError::Engine(format!("{e:#}")))?;
    TerrariumProviderWithBehaviour::add_to_linker::<HostState, HasSelf<HostState>>(
        &mut linker,
        |s| s,
    )
    .map_err(|e| LoadError::Engine(format!("{e:#}")))?;
    let instance_pre = linker
        .instantiate_pre(component)
        .map_err(|e| LoadError::Imports { path: path.to_path_buf(), message: format!("{e:#}") })?;
    bindings::check_provider_signatures(&instance_pre).map_err(|m| {
        LoadError::InterfaceMismatch {
            path: path.to_path_buf(),
            export: PROVIDER_EXPORT,
            function: m.function,
            reason: m.reason,
            package: WORLD_PACKAGE,
            version: WORLD_VERSION,
        }
    })?;
    let provider =
        guest::GuestIndices::new(&instance_pre).map_err(|e| LoadError::NotAProvider {
            path: path.to_path_buf(),
            export: PROVIDER_EXPORT,
            exports: format!("{e:#}"),
        })?;
    let behaviour = match component.get_export_index(None, BEHAVIOUR_EXPORT) {
        None => None,
        Some(_) => Some(wit_behaviour::GuestIndices::new(&instance_pre).map_err(|e| {
            LoadError::NotAProvider {
                path: path.to_path_buf(),
                export: BEHAVIOUR_EXPORT,
                exports: format!("{e:#}"),
            }
        })?),
    };
    let replacement = match component.get_export_index(None, REPLACEMENT_EXPORT) {
        None => None,
        Some(_) => {
            Some(bindings::wit_replacement::GuestIndices::new(&instance_pre).map_err(|e| {
                LoadError::NotAProvider {
                    path: path.to_path_buf(),
                    export: REPLACEMENT_EXPORT,
                    exports: format!("{e:#}"),
                }
            })?)
        }
    };
    let computed_blocks = match component.get_export_index(None, COMPUTED_BLOCKS_EXPORT) {
        None => None,
        Some(_) => {
            Some(bindings::wit_computed_blocks::GuestIndices::new(&instance_pre).map_err(|e| {
                LoadError::NotAProvider {
                    path: path.to_path_buf(),
                    export: COMPUTED_BLOCKS_EXPORT,
                    exports: format!("{e:#}"),
                }
            })?)
        }
    };
    Ok(Linked { instance_pre, provider, behaviour, replacement, computed_blocks })
}

fn check_component_header(bytes: &[u8], path: &Path) -> Result<(), LoadError> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err(LoadError::NotWasm { path: path.to_path_buf() });
    }
    // Bytes 4..8: version and layer. Core modules are version 1, layer 0.
    if bytes[4..8] == [1, 0, 0, 0] {
        return Err(LoadError::CoreModule { path: path.to_path_buf() });
    }
    Ok(())
}

fn is_patch_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn check_world_version(
    engine: &Engine,
    component: &Component,
    path: &Path,
) -> Result<(), LoadError> {
    let ty = component.component_type();
    let names: Vec<String> = ty.exports(engine).map(|(name, _)| name.to_string()).collect();
    let prefix = format!("{WORLD_PACKAGE}/provider@");
    let versions = || names.iter().filter_map(|n| n.strip_prefix(&prefix));
    // Any patch of this host's minor line: earlier ones lack only what a patch added, later
    // ones add only what this host may ignore.
    if versions().any(|v| v.strip_prefix(WORLD_LINE).is_some_and(is_patch_number)) {
        return Ok(());
    }
    if let Some(found) = versions().next() {
        return Err(LoadError::WorldVersion {
            path: path.to_path_buf(),
            package: WORLD_PACKAGE,
            found: found.to_string(),
            expected: WORLD_VERSION,
        });
    }
    Err(LoadError::NotAProvider {
        path: path.to_path_buf(),
        export: PROVIDER_EXPORT,
        exports: if names.is_empty() { "none".into() } else { names.join(", ") },
    })
}

fn classify(
    err: wasmtime::Error,
    output: &GuestOutput,
    settings: &RuntimeSettings,
    hit: Option<LimitHit>,
) -> GuestError {
    match err.downcast_ref::<Interrupted>() {
        Some(Interrupted::TimedOut) => return GuestError::Timeout { limit: settings.call_timeout },
        Some(Interrupted::Stopped) => return GuestError::Stopped { grace: settings.stop_grace },
        None => {}
    }
    match err.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::Interrupt) => {
            return GuestError::Timeout { limit: settings.call_timeout };
        }
        Some(wasmtime::Trap::StackOverflow) => return GuestError::StackOverflow,
        _ => {}
    }
    // A refused memory growth surfaces as whatever the guest does then (Rust aborts with
    // "memory allocation failed"); the limiter's record says what really happened.
    if let Some(hit) = hit.or_else(|| runtime_limit(&err)) {
        return GuestError::Limit { hit };
    }
    // Both are the guest's text (a panic message, symbol names in the backtrace).
    GuestError::Trap {
        message: guest_text::for_people(
            &trap_text(&err),
            Lines::Multi,
            guest_text::MAX_DETAIL_BYTES,
        ),
        output: guest_text::for_people(&output.tail(), Lines::Multi, guest_text::MAX_DETAIL_BYTES),
    }
}

/// What a trap was, for people: the trap first, with what it means when its name does not say
/// it, then the WebAssembly backtrace (wasmtime's own text puts the backtrace first and the trap
/// at its very end, where a reader of the first lines never sees it). Errors that are not traps
/// as wasmtime formats them.
fn trap_text(err: &wasmtime::Error) -> String {
    let Some(trap) = err.downcast_ref::<wasmtime::Trap>() else {
        return format!("{err:#}");
    };
    // "wasm trap: ...".
    let mut text = trap.to_string();
    if let Some(meaning) = trap_meaning(trap) {
        text.push_str(". ");
        text.push_str(meaning);
        text.push('.');
    }
    let backtrace = err.downcast_ref::<wasmtime::WasmBacktrace>();
    // Whatever else the error says (contexts other than the backtrace), outermost first.
    let (trap_line, backtrace_text) = (trap.to_string(), backtrace.map(|b| b.to_string()));
    for other in err.chain().map(|e| e.to_string()) {
        if other != trap_line && Some(&other) != backtrace_text.as_ref() {
            text.push('\n');
            text.push_str(&other);
        }
    }
    match backtrace {
        Some(b) if !b.frames().is_empty() => {
            text.push_str("\n\n");
            text.push_str(&b.to_string().replacen(
                "error while executing at wasm backtrace:",
                "WebAssembly backtrace, innermost call first:",
                1,
            ));
        }
        _ => text.push_str("\n\n(wasmtime recorded no WebAssembly backtrace)"),
    }
    text
}

/// What a trap means, when its name does not say it.
fn trap_meaning(trap: &wasmtime::Trap) -> Option<&'static str> {
    match trap {
        wasmtime::Trap::CannotLeaveComponent => Some(
            "The provider called the host while the host was passing it a value (from its \
             allocator `cabi_realloc`, or from a post-return function), which the component \
             model forbids. Go providers built with a Terrarium Go SDK before 2026-11-27 did \
             this when Go's garbage collector started there, after a few hundred calls on one \
             instance: rebuild the provider with the current guest-sdk/go",
        ),
        wasmtime::Trap::UnreachableCodeReached => Some(
            "The provider aborted (a Rust panic ends this way): its last output, if any, says \
             why",
        ),
        wasmtime::Trap::MemoryOutOfBounds => {
            Some("The provider read or wrote outside its own memory (a bug in its code or SDK)")
        }
        _ => None,
    }
}

/// One live instance of the provider. It serves one call at a time; after a trap it must be
/// dropped (the component model forbids re-entering it).
pub struct GuestInstance {
    store: Store<HostState>,
    /// Set once instantiation has finished.
    bindings: Option<Bindings>,
    output: GuestOutput,
    settings: RuntimeSettings,
    stop: Arc<StopSignal>,
    ticker: Arc<EpochTicker>,
}

impl GuestInstance {
    /// Runs one guest call with a fresh time budget, turning traps and timeouts into
    /// [`GuestError`]s.
    pub async fn call<R>(
        &mut self,
        f: impl AsyncFnOnce(&guest::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, GuestError> {
        let timeout = self.settings.call_timeout;
        self.call_within(timeout, f).await
    }

    /// What the sandbox's file system refused the last call (`fs_guard`), once.
    pub fn take_refusals(&mut self) -> Vec<Refusal> {
        self.store.data_mut().take_refusals()
    }

    /// Whether the component declares its behaviour (exports `behaviour`), so that the host
    /// plans and validates for it.
    pub fn declares_behaviour(&self) -> bool {
        self.bindings.as_ref().is_some_and(|b| b.behaviour.is_some())
    }

    /// The resource types whose replacement must delete the old object first (the
    /// `replacement` export); none when the component was built before 0.2.2.
    pub async fn delete_before_replace(&mut self) -> Result<Vec<String>, GuestError> {
        let Some(Some(replacement)) = self.bindings.as_ref().map(|b| b.replacement.clone()) else {
            return Ok(Vec::new());
        };
        self.call(async |_, store| replacement.call_delete_before_replace(store).await).await
    }

    /// The computed nested blocks the component names (the `computed-blocks` export); none
    /// when the component was built before 0.2.3.
    pub async fn computed_blocks(
        &mut self,
    ) -> Result<Vec<bindings::wit_computed_blocks::ComputedBlock>, GuestError> {
        let Some(Some(computed)) = self.bindings.as_ref().map(|b| b.computed_blocks.clone()) else {
            return Ok(Vec::new());
        };
        self.call(async |_, store| computed.call_computed_blocks(store).await).await
    }

    /// Runs one call of the `behaviour` interface (a hook), as [`call`](Self::call) does;
    /// an error if the component does not export it.
    pub async fn call_behaviour<R>(
        &mut self,
        f: impl AsyncFnOnce(&wit_behaviour::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, GuestError> {
        let Some(Some(behaviour)) = self.bindings.as_ref().map(|b| b.behaviour.clone()) else {
            return Err(GuestError::Instantiate(format!(
                "the component does not export {BEHAVIOUR_EXPORT}"
            )));
        };
        self.call(async |_, store| f(&behaviour, store).await).await
    }

    /// [`call`](Self::call) with a time limit of its own, shorter than the call timeout
    /// (the guest's `stop`, which must not hold up StopProvider).
    pub async fn call_within<R>(
        &mut self,
        timeout: Duration,
        f: impl AsyncFnOnce(&guest::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, GuestError> {
        let Some(bindings) = self.bindings.as_ref() else {
            return Err(GuestError::Instantiate("the instance was never instantiated".into()));
        };
        let mut settings = self.settings.clone();
        settings.call_timeout = timeout.min(settings.call_timeout);
        let budget = CallBudget {
            deadline: Instant::now() + settings.call_timeout,
            stop_generation: self.stop.generation(),
        };
        let guest = &bindings.provider;
        guard(
            &mut self.store,
            &self.output,
            &settings,
            &self.stop,
            &self.ticker,
            budget,
            async |store: &mut Store<HostState>| f(guest, store).await,
        )
        .await
    }
}

/// Runs guest work within `budget`. Work inside the guest is interrupted by the epoch
/// callback; work the guest is waiting on in the host (a sleep, an HTTP response) is dropped
/// here when the deadline passes or the grace period after a stop ends. Either way the
/// instance must be discarded afterwards, which the error says
/// ([`GuestError::poisons_instance`]).
async fn guard<R>(
    store: &mut Store<HostState>,
    output: &GuestOutput,
    settings: &RuntimeSettings,
    stop: &StopSignal,
    ticker: &EpochTicker,
    budget: CallBudget,
    f: impl AsyncFnOnce(&mut Store<HostState>) -> wasmtime::Result<R>,
) -> Result<R, GuestError> {
    // The epoch (the clock of the interruption below) advances only while some call runs.
    let _running = ticker.call_running();
    output.clear();
    store.data_mut().take_refusals();
    store.data_mut().budget = budget;
    store.data_mut().limits.take_exceeded();
    let waited = store.data().waited_for_consumer.clone();
    *waited.lock().unwrap_or_else(|p| p.into_inner()) = host_state::ConsumerWait::default();
    store.set_epoch_deadline(CHECK_TICKS);
    let outcome = {
        let call = f(store);
        tokio::pin!(call);
        loop {
            // Time the guest spent waiting for the consumer of its stream extends the deadline.
            let deadline =
                || budget.deadline + waited.lock().unwrap_or_else(|p| p.into_inner()).so_far();
            tokio::select! {
                r = &mut call => break r.map_err(Some),
                _ = tokio::time::sleep_until(deadline().into()) => {
                    if deadline() <= Instant::now() {
                        break Err(None);
                    }
                }
                _ = stop.interrupt_due(budget.stop_generation) => break Err(None),
            }
        }
    };
    let hit = store.data_mut().limits.take_exceeded();
    match outcome {
        Ok(r) => Ok(r),
        Err(Some(e)) => Err(classify(e, output, settings, hit)),
        Err(None)
            if stop.interrupt_at(budget.stop_generation).is_some_and(|at| at <= Instant::now()) =>
        {
            Err(GuestError::Stopped { grace: settings.stop_grace })
        }
        Err(None) => Err(GuestError::Timeout { limit: settings.call_timeout }),
    }
}

/// Compiles `path` into the compiled-component cache (a no-op when it is there already), so
/// that the first start after `terrarium install` loads instead of compiling. Checks that the
/// component is a provider this host can serve, as a start would (world version, imports,
/// signatures).
pub fn fill_cache(
    path: &Path,
    mut settings: RuntimeSettings,
) -> Result<cache::CacheOutcome, LoadError> {
    let (engine, (component, outcome)) =
        compile_with_fallback(&mut settings, path, |engine, settings| {
            load_file(engine, path, settings)
        })?;
    link(&engine, &component, path)?;
    Ok(outcome)
}

/// Loads the component file at `path` through the cache.
fn load_file(
    engine: &Engine,
    path: &Path,
    settings: &RuntimeSettings,
) -> Result<(Component, cache::CacheOutcome), LoadError> {
    let dir = settings.cache_dir.as_deref();
    let checked = |bytes: &[u8]| check_component_header(bytes, path);
    let (component, outcome) =
        cache::load_file(engine, path, dir, checked).map_err(|e| match e {
            cache::FileLoadError::Read(cause) => {
                LoadError::Read { path: path.to_path_buf(), cause }
            }
            cache::FileLoadError::Rejected(e) => e,
            cache::FileLoadError::Compile(e) => invalid(path, &e),
        })?;
    tracing::debug!(component = %path.display(), cache = ?outcome, "component loaded");
    Ok((component, outcome))
}

fn invalid(path: &Path, error: &wasmtime::Error) -> LoadError {
    LoadError::Invalid { path: path.to_path_buf(), message: format!("{error:#}") }
}

/// A component file's load state, shared by everything that serves it.
pub type SharedRuntime = Arc<Runtime>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_key_does_not_depend_on_the_pool_size() {
        // `terrarium install` fills the cache with default settings; a provider started with
        // another pool bound must still find the entry.
        let small =
            engine_for(&RuntimeSettings { instance_pool_size: 2, ..RuntimeSettings::default() })
                .unwrap();
        let large =
            engine_for(&RuntimeSettings { instance_pool_size: 40, ..RuntimeSettings::default() })
                .unwrap();
        assert_eq!(cache::key(&small, b"component"), cache::key(&large, b"component"));
    }

    /// A component of `n` core instances (of one empty module).
    fn component_of_core_instances(n: usize) -> Vec<u8> {
        let instances = "(core instance (instantiate $m))".repeat(n);
        wat::parse_str(format!("(component (core module $m) {instances})")).unwrap()
    }

    #[tokio::test]
    async fn a_component_of_many_core_instances_instantiates_from_the_pool() {
        // A Python provider with a few native extensions (each a core instance of its own)
        // has well over the 14 core instances of the pets example.
        let engine = engine_for(&RuntimeSettings::default()).unwrap();
        let component = Component::new(&engine, component_of_core_instances(40)).unwrap();
        let mut store = Store::new(&engine, ());
        Linker::<()>::new(&engine).instantiate_async(&mut store, &component).await.unwrap();
    }

    /// A component whose core module makes a tail call (`return_call`), a proposal Winch does
    /// not compile and Cranelift does.
    const TAIL_CALL_COMPONENT: &str = r#"
        (component
          (core module $m
            (func $one (result i32) i32.const 1)
            (func (export "one") (result i32) return_call $one))
          (core instance (instantiate $m)))"#;

    #[test]
    fn only_winch_falls_back_and_to_cranelift() {
        assert_eq!(Compiler::Baseline.fallback(), Some(Compiler::Unoptimized));
        for compiler in
            [Compiler::Optimizing, Compiler::Unoptimized, Compiler::UnoptimizedSinglePass]
        {
            assert_eq!(compiler.fallback(), None, "{compiler:?}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_component_winch_cannot_compile_is_compiled_by_cranelift() {
        let bytes = wat::parse_str(TAIL_CALL_COMPONENT).unwrap();
        let path = Path::new("tail-call.wasm");
        let settings = || RuntimeSettings {
            compiler: Compiler::Baseline,
            cache_dir: None,
            ..Default::default()
        };
        // Winch alone refuses it.
        let winch = engine_for(&settings()).unwrap();
        assert!(Component::new(&winch, &bytes).is_err());
        // The loader compiles it with Cranelift and goes on to what it checks next: this
        // component exports no provider.
        match Runtime::from_bytes(&bytes, path, settings()) {
            Err(LoadError::NotAProvider { .. }) => {}
            Err(other) => panic!("expected the compiled component to be checked, got: {other}"),
            Ok(_) => panic!("a component without the provider export was loaded"),
        }
        let mut chosen = settings();
        let (engine, component) = compile_with_fallback(&mut chosen, path, |engine, _| {
            Component::new(engine, &bytes).map_err(|e| invalid(path, &e))
        })
        .unwrap();
        assert_eq!(chosen.compiler, Compiler::Unoptimized);
        assert!(component.component_type().exports(&engine).next().is_none());
        // A file that is not valid WebAssembly stays an error, whichever compiler tries.
        let mut broken = settings();
        let err = compile_with_fallback(&mut broken, path, |engine, _| {
            Component::new(engine, &bytes[..bytes.len() - 3]).map_err(|e| invalid(path, &e))
        })
        .unwrap_err();
        assert!(matches!(err, LoadError::Invalid { .. }), "{err}");
    }

    #[test]
    fn header_check_names_the_problem() {
        let p = Path::new("x.wasm");
        assert!(matches!(
            check_component_header(b"hello world", p),
            Err(LoadError::NotWasm { .. })
        ));
        assert!(matches!(
            check_component_header(b"\0asm\x01\0\0\0", p),
            Err(LoadError::CoreModule { .. })
        ));
        assert!(check_component_header(b"\0asm\x0d\0\x01\0", p).is_ok());
    }
}

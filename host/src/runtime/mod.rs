//! The wasmtime side: engine settings, loading a provider component, instantiating it, and
//! calling into it with limits, so that a guest that traps, loops or allocates without end
//! becomes an error for one call rather than a crash or a hang.

mod bindings;
pub mod cache;
mod host_state;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};

pub use bindings::{
    ConvertError, PROVIDER_EXPORT, WORLD_PACKAGE, WORLD_VERSION, client_capabilities, diagnostics_from_wit, guest,
    path_from_wit, provider_schema_from_wit, schema_from_wit, value_from_wit, value_to_wit, wit,
};
use bindings::{TerrariumProvider, TerrariumProviderPre};
pub use host_state::{GuestOutput, HostState};

/// Limits and settings that apply to every instance.
#[derive(Clone, Debug)]
pub struct RuntimeSettings {
    /// Linear memory an instance may grow to.
    pub max_memory_bytes: usize,
    /// Core instances one component instance may create (a store limit).
    pub max_instances: usize,
    /// Component instances one provider keeps alive at most: one serves one call at a time,
    /// so this bounds the guest calls in flight (Terraform makes 10 at a time by default).
    pub instance_pool_size: usize,
    pub max_tables: usize,
    pub max_table_elements: usize,
    /// Wall-clock time one guest call may take before it is interrupted.
    pub call_timeout: Duration,
    /// The log module guest records are written under.
    pub log_module: String,
    /// Where compiled components are cached; `None` compiles on every start.
    pub cache_dir: Option<PathBuf>,
}

/// Terraform's default parallelism (10), plus room for validation and function calls made
/// beside it.
pub const DEFAULT_INSTANCE_POOL_SIZE: usize = 16;

impl Default for RuntimeSettings {
    fn default() -> Self {
        RuntimeSettings {
            max_memory_bytes: 512 << 20,
            max_instances: 32,
            instance_pool_size: DEFAULT_INSTANCE_POOL_SIZE,
            max_tables: 32,
            max_table_elements: 1 << 20,
            call_timeout: Duration::from_secs(300),
            log_module: "provider.terrarium".to_string(),
            cache_dir: if std::env::var_os("TERRARIUM_NO_CACHE").is_some_and(|v| !v.is_empty()) {
                None
            } else {
                cache::default_dir()
            },
        }
    }
}

/// Why a component could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read the component {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "{path} is a core WebAssembly module, not a component; build the provider with \
         `cargo build --target wasm32-wasip2` (which emits components) or wrap it with `wasm-tools component new`"
    )]
    CoreModule { path: PathBuf },
    #[error("{path} is not a WebAssembly file (it does not start with the \\0asm magic)")]
    NotWasm { path: PathBuf },
    #[error("{path} is not a valid component: {message}")]
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
    #[error("{path} imports something Terrarium does not provide to providers: {message}")]
    Imports { path: PathBuf, message: String },
    #[error("cannot set up the WebAssembly engine: {0}")]
    Engine(String),
}

/// A failed guest call: a trap, an exceeded limit, or output the host could not read.
#[derive(Debug, thiserror::Error)]
pub enum GuestError {
    #[error("the provider crashed: {message}")]
    Trap { message: String, output: String },
    #[error("the provider took longer than {limit:?} and was stopped")]
    Timeout { limit: Duration },
    #[error("the provider returned something malformed: {0}")]
    Malformed(#[from] ConvertError),
    #[error("the provider could not be instantiated: {0}")]
    Instantiate(String),
}

impl GuestError {
    /// Whether the instance that produced this error must be thrown away.
    pub fn poisons_instance(&self) -> bool {
        !matches!(self, GuestError::Malformed(_))
    }
}

/// A loaded, linked provider component, ready to be instantiated any number of times.
pub struct Runtime {
    engine: Engine,
    pre: TerrariumProviderPre<HostState>,
    settings: RuntimeSettings,
    path: PathBuf,
}

/// How often the engine's epoch advances; call timeouts are measured in these ticks.
const EPOCH_TICK: Duration = Duration::from_millis(10);

/// What an engine is built for; runtimes with the same shape share one engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EngineShape {
    max_memory_bytes: usize,
    max_table_elements: usize,
    pool_size: usize,
}

impl EngineShape {
    fn of(settings: &RuntimeSettings) -> EngineShape {
        EngineShape {
            max_memory_bytes: settings.max_memory_bytes,
            max_table_elements: settings.max_table_elements,
            pool_size: settings.instance_pool_size.max(1),
        }
    }
}

/// Core instances, memories and tables one component instance may take from the pool.
/// A Rust wasm32-wasip2 provider has one memory, a handful of core instances (its module,
/// the WASI adapter and shims) and a few tables; these leave generous headroom.
const POOL_CORE_INSTANCES_PER_COMPONENT: u32 = 16;
const POOL_MEMORIES_PER_COMPONENT: u32 = 2;
const POOL_TABLES_PER_COMPONENT: u32 = 8;

/// The settings that go into the cache key: code compiled under one of these loads under any
/// other, because the allocator (pooling or on demand) does not change generated code.
fn base_config() -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    // Epochs interrupt a guest that runs past its call timeout (an infinite loop must not
    // hang Terraform); the check costs a load and compare per loop header.
    config.epoch_interruption(true);
    config.max_wasm_stack(1 << 20);
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

/// Engines by shape, one per shape per process: every runtime of that shape shares it and
/// its epoch ticker.
fn engine_for(settings: &RuntimeSettings) -> Result<Engine, LoadError> {
    static ENGINES: Mutex<Vec<(EngineShape, Engine)>> = Mutex::new(Vec::new());
    let shape = EngineShape::of(settings);
    let mut engines = ENGINES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, engine)) = engines.iter().find(|(s, _)| *s == shape) {
        return Ok(engine.clone());
    }
    let mut config = base_config();
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pooling_config(shape)));
    let engine = match Engine::new(&config) {
        Ok(engine) => engine,
        Err(e) => {
            // The pool reserves address space up front; where that is refused (a low
            // `ulimit -v`), allocating per instance still works, only slower.
            tracing::warn!(error = %format!("{e:#}"), "cannot reserve the instance pool; allocating instances on demand");
            Engine::new(&base_config()).map_err(|e| LoadError::Engine(format!("{e:#}")))?
        }
    };
    let ticker = engine.weak();
    std::thread::Builder::new()
        .name("terrarium-epoch".into())
        .spawn(move || {
            while let Some(engine) = ticker.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .map_err(|e| LoadError::Engine(format!("cannot start the epoch thread: {e}")))?;
    engines.push((shape, engine.clone()));
    Ok(engine)
}

impl Runtime {
    /// Loads and links a provider component from a file.
    pub fn load(path: &Path, settings: RuntimeSettings) -> Result<Runtime, LoadError> {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Read { path: path.to_path_buf(), source })?;
        Runtime::from_bytes(&bytes, path, settings)
    }

    pub fn from_bytes(bytes: &[u8], path: &Path, settings: RuntimeSettings) -> Result<Runtime, LoadError> {
        let path = path.to_path_buf();
        check_component_header(bytes, &path)?;
        let engine = engine_for(&settings)?;
        let (component, outcome) = cache::load(&engine, bytes, settings.cache_dir.as_deref())
            .map_err(|e| LoadError::Invalid { path: path.clone(), message: format!("{e:#}") })?;
        tracing::debug!(component = %path.display(), cache = ?outcome, "component loaded");
        check_world_version(&engine, &component, &path)?;

        let mut linker: Linker<HostState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(|e| LoadError::Engine(format!("{e:#}")))?;
        TerrariumProvider::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .map_err(|e| LoadError::Engine(format!("{e:#}")))?;
        let instance_pre = linker
            .instantiate_pre(&component)
            .map_err(|e| LoadError::Imports { path: path.clone(), message: format!("{e:#}") })?;
        let pre = TerrariumProviderPre::new(instance_pre).map_err(|e| LoadError::NotAProvider {
            path: path.clone(),
            export: PROVIDER_EXPORT,
            exports: format!("{e:#}"),
        })?;
        Ok(Runtime { engine, pre, settings, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn settings(&self) -> &RuntimeSettings {
        &self.settings
    }

    /// A fresh instance with its own memory and WASI context.
    pub async fn instantiate(&self) -> Result<GuestInstance, GuestError> {
        let output = GuestOutput::new(&self.settings.log_module);
        let mut store = Store::new(&self.engine, HostState::new(&self.settings, &output));
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(ticks(self.settings.call_timeout));
        let bindings =
            self.pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &output, &self.settings))?;
        Ok(GuestInstance { store, bindings, output, settings: self.settings.clone() })
    }
}

fn ticks(d: Duration) -> u64 {
    (d.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64
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

fn check_world_version(engine: &Engine, component: &Component, path: &Path) -> Result<(), LoadError> {
    let ty = component.component_type();
    let names: Vec<String> = ty.exports(engine).map(|(name, _)| name.to_string()).collect();
    if names.iter().any(|n| n == PROVIDER_EXPORT) {
        return Ok(());
    }
    let prefix = format!("{WORLD_PACKAGE}/provider@");
    if let Some(found) = names.iter().find_map(|n| n.strip_prefix(&prefix)) {
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

fn classify(err: wasmtime::Error, output: &GuestOutput, settings: &RuntimeSettings) -> GuestError {
    if matches!(err.downcast_ref::<wasmtime::Trap>(), Some(wasmtime::Trap::Interrupt)) {
        return GuestError::Timeout { limit: settings.call_timeout };
    }
    GuestError::Trap { message: format!("{err:#}"), output: output.tail() }
}

/// One live instance of the provider. It serves one call at a time; after a trap it must be
/// dropped (the component model forbids re-entering it).
pub struct GuestInstance {
    store: Store<HostState>,
    bindings: TerrariumProvider,
    output: GuestOutput,
    settings: RuntimeSettings,
}

impl GuestInstance {
    /// Runs one guest call with a fresh time budget, turning traps and timeouts into
    /// [`GuestError`]s.
    pub async fn call<R>(
        &mut self,
        f: impl AsyncFnOnce(&guest::Guest, &mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, GuestError> {
        self.output.clear();
        self.store.set_epoch_deadline(ticks(self.settings.call_timeout));
        let guest = self.bindings.terrarium_provider_provider();
        f(guest, &mut self.store).await.map_err(|e| classify(e, &self.output, &self.settings))
    }
}

/// Compiles `path` into the compiled-component cache (a no-op when it is there already), so
/// that the first start after `terrarium install` loads instead of compiling. Checks that the
/// component is a provider this host can serve, as a start would.
pub fn fill_cache(path: &Path, settings: RuntimeSettings) -> Result<cache::CacheOutcome, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read { path: path.to_path_buf(), source })?;
    check_component_header(&bytes, path)?;
    let engine = engine_for(&settings)?;
    let (component, outcome) = cache::load(&engine, &bytes, settings.cache_dir.as_deref())
        .map_err(|e| LoadError::Invalid { path: path.to_path_buf(), message: format!("{e:#}") })?;
    check_world_version(&engine, &component, path)?;
    Ok(outcome)
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
        let small = engine_for(&RuntimeSettings { instance_pool_size: 2, ..RuntimeSettings::default() }).unwrap();
        let large = engine_for(&RuntimeSettings { instance_pool_size: 40, ..RuntimeSettings::default() }).unwrap();
        assert_eq!(cache::key(&small, b"component"), cache::key(&large, b"component"));
    }

    #[test]
    fn header_check_names_the_problem() {
        let p = Path::new("x.wasm");
        assert!(matches!(check_component_header(b"hello world", p), Err(LoadError::NotWasm { .. })));
        assert!(matches!(check_component_header(b"\0asm\x01\0\0\0", p), Err(LoadError::CoreModule { .. })));
        assert!(check_component_header(b"\0asm\x0d\0\x01\0", p).is_ok());
    }
}

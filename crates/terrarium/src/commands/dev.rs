//! `terrarium dev`: a long-lived provider server for Terraform's debug mode, with hot reload.
//!
//! Terraform reattaches to an already running provider when `TF_REATTACH_PROVIDERS` names it:
//! it connects to the given socket in plaintext, never starts or stops the process, and never
//! sends `GRPCController/Shutdown` when the entry says `"Test": true` (without it Terraform
//! would also take the provider for protocol 5). So one `terrarium dev` serves any number of
//! terraform commands, until Ctrl-C; and since it outlives them, it can swap in each new build
//! of the component between calls (see [`terrarium_dev`]).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use tokio::signal::unix::{SignalKind, signal};

use terrarium_core::Dispatcher;
use terrarium_dev::{self as reload, LiveProvider, Reloader, watch};
use terrarium_runtime::sandbox::{Access, DirGrant, Grants, ProtectedPath, Refuse, Sandbox};
use terrarium_runtime::{DEV_COMPILER, Runtime, RuntimeSettings};
use terrarium_tfplugin::plugin::{self, BoundSocket, Shutdown};

use terrarium_install::grant_args::{GRANT_ARG_IDS, GrantArgs};
use terrarium_install::protected;

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("consumer").required(true).args(["source", "pulumi"])))]
pub struct DevArgs {
    /// The provider component to serve and to reload whenever it changes, e.g.
    /// target/wasm32-wasip2/debug/my_provider.wasm; or a Python provider module (provider.py)
    /// or a TypeScript entry module (src/provider.ts), served by that language's development
    /// runtime and reloaded on every save without a component build.
    #[arg(value_name = "COMPONENT")]
    pub component: PathBuf,
    /// The provider's source address as configurations name it (`example/null`, or in full
    /// `registry.terraform.io/example/null`): the key in TF_REATTACH_PROVIDERS.
    #[arg(long, value_name = "ADDRESS")]
    pub source: Option<String>,
    /// Serve Pulumi's engine instead, as the Pulumi plugin NAME in attach mode: prints the port
    /// and `PULUMI_DEBUG_PROVIDERS=NAME:PORT` (docs/pulumi.md).
    #[arg(long, value_name = "NAME", conflicts_with = "source")]
    pub pulumi: Option<String>,
    /// A shell command that rebuilds COMPONENT, run when files under --watch change (and once
    /// at start); each successful build is reloaded, a failed one leaves the old build serving.
    #[arg(long, value_name = "COMMAND", requires = "watch")]
    pub build: Option<String>,
    /// A directory of sources whose changes run --build (repeatable). `target` and `.git`
    /// directories and editor temporaries are ignored.
    #[arg(long, value_name = "DIR", requires = "build")]
    pub watch: Vec<PathBuf>,
    /// Compile the component at start instead of taking it from the compiled-component cache
    /// (reloaded builds are always compiled, and not cached: each is new).
    #[arg(long)]
    pub no_cache: bool,
    /// The most provider instances alive at once per build [default: 16].
    #[arg(long, value_name = "N")]
    pub max_instances: Option<NonZeroUsize>,
    /// What the provider may do, as `terrarium install` takes it (nothing by default).
    #[command(flatten)]
    pub grant_flags: GrantArgs,
    /// Take the grants from this grants file instead of flags, e.g. the grants.toml of an
    /// installed copy of the provider.
    #[arg(long, value_name = "FILE", conflicts_with_all = GRANT_ARG_IDS)]
    pub grants: Option<PathBuf>,
}

impl DevArgs {
    /// The grants from `--grants FILE` or from the grant flags, checked by the rules
    /// `terrarium install` and a provider start apply (see `sandbox::dirs`).
    ///
    /// For a Python or TypeScript module the result is what each version of its sources is
    /// served under ([`ModuleSandbox::version`] adds that version's directory).
    fn apply_grants(
        &self,
        settings: &mut RuntimeSettings,
        module: Option<&ModuleDev>,
    ) -> anyhow::Result<ModuleSandbox> {
        let grants = match &self.grants {
            Some(file) => {
                if !file.is_file() {
                    bail!("--grants {}: no such file", file.display());
                }
                Grants::load(file)?
            }
            None => self.grant_flags.grants()?,
        };
        let mut protected = protected::host(settings.cache_dir.as_deref());
        protected.extend(protected::dev(&self.component, &self.watch));
        if let Some(module) = module {
            // The module's directory and the copies of its versions: protected, so no grant
            // may make them writable. Each version's copy is granted read-only, and only to
            // that version (`ModuleSandbox::version`).
            let language = module.language.name();
            protected.push(
                ProtectedPath::new(
                    &module.dir,
                    &format!("the directory of the {language} module terrarium dev serves"),
                    "a provider that can write there can change its own code, which is then \
                     reloaded",
                    Refuse::Write,
                )
                .and_inside(),
            );
            protected.push(
                ProtectedPath::new(
                    module.versions.path(),
                    &format!("the copies of the {language} module's versions terrarium dev serves"),
                    "a provider that can write there can change the code it runs",
                    Refuse::Write,
                )
                .and_inside(),
            );
        }
        protected.extend(protected::current_working_dir());
        if let Some(file) = &self.grants {
            protected.push(ProtectedPath::new(
                file,
                "the grants file",
                "a provider that can write there can widen its own grants",
                Refuse::Write,
            ));
        }
        super::serve::apply_grants(settings, grants.clone(), &protected)?;
        Ok(ModuleSandbox { grants, protected })
    }
}

/// The grants and protected paths of `terrarium dev`, to which each version of a Python or
/// TypeScript module's sources adds its own directory.
#[derive(Debug)]
struct ModuleSandbox {
    grants: Grants,
    protected: Vec<ProtectedPath>,
}

impl ModuleSandbox {
    /// The sandbox of the version whose sources were copied (or bundled) to `dir`: that
    /// directory granted read-only, and the variables that tell `language`'s runtime where the
    /// module is.
    fn version(&self, dir: &Path, language: Language, module: &str) -> anyhow::Result<Sandbox> {
        let mut grants = self.grants.clone();
        grants.dirs.push(DirGrant { path: dir.to_path_buf(), access: Access::ReadOnly });
        let mut sandbox = Sandbox::new(grants, &self.protected)?;
        let (dir_var, module_var) = language.variables();
        sandbox.set_env(dir_var, &dir.to_string_lossy());
        sandbox.set_env(module_var, module);
        Ok(sandbox)
    }
}

/// The variables the Python development runtime (guest-sdk/python/terrarium/_devrt.py) reads:
/// the directory of the author's module and its name.
const PYTHON_DIR_VAR: &str = "TERRARIUM_DEV_PYTHON_DIR";
const PYTHON_MODULE_VAR: &str = "TERRARIUM_DEV_PYTHON_MODULE";
/// The variables the TypeScript development runtime (guest-sdk/js/src/devrt.ts) reads: the
/// directory of the bundle of the author's module and its file name.
const JS_DIR_VAR: &str = "TERRARIUM_DEV_JS_DIR";
const JS_MODULE_VAR: &str = "TERRARIUM_DEV_JS_MODULE";

/// The languages whose modules `terrarium dev` serves through a development runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Language {
    Python,
    TypeScript,
}

impl Language {
    /// The language of a module file, by its extension; `None` for a component.
    fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "py" => Some(Language::Python),
            "ts" | "mts" | "js" | "mjs" => Some(Language::TypeScript),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::TypeScript => "TypeScript",
        }
    }

    /// The variables that name the directory of a version and the module in it.
    fn variables(self) -> (&'static str, &'static str) {
        match self {
            Language::Python => (PYTHON_DIR_VAR, PYTHON_MODULE_VAR),
            Language::TypeScript => (JS_DIR_VAR, JS_MODULE_VAR),
        }
    }
}

/// A Python or TypeScript provider module served by its language's development runtime: a
/// component holding the interpreter (or JS engine) and the SDK, built once by the SDK
/// (`python -m terrarium.dev_runtime`, `terrarium-js dev-runtime`) and cached outside the
/// checkout, which loads the module from a directory granted read-only in every new instance.
/// A save is then reloaded by starting new instances, without componentize-py or
/// componentize-js.
struct ModuleDev {
    language: Language,
    /// The module's directory, absolute.
    dir: PathBuf,
    /// The module file, absolute.
    entry: PathBuf,
    /// What the runtime loads from a version's directory: the Python module's name
    /// (`provider` for provider.py), the bundle's file name (`provider.js` for provider.ts).
    module: String,
    /// The runtime component.
    runtime: PathBuf,
    /// For TypeScript, the command that bundles the entry (`terrarium-js dev-runtime` prints
    /// it), to which the entry and `--outfile=` are added.
    bundler: Vec<String>,
    /// Where each version of the sources is copied (`gen-N`).
    versions: VersionsDir,
}

/// A directory of this process's own, removed when it ends.
struct VersionsDir(PathBuf);

impl VersionsDir {
    /// A new directory under the system's temporary directory, which must not be inside
    /// `sources` (the copies would count as edits).
    fn create(sources: &Path, language: Language) -> anyhow::Result<VersionsDir> {
        let base = std::env::temp_dir();
        let base = base.canonicalize().unwrap_or(base);
        if base.starts_with(sources) {
            bail!(
                "the temporary directory {} is inside {}, where terrarium dev copies each \
                 version of the module from; set TMPDIR to a directory outside it",
                base.display(),
                sources.display()
            );
        }
        for attempt in 0..100u32 {
            let dir = base.join(format!(
                "terrarium-dev-{}-{}-{attempt}",
                language.name().to_lowercase(),
                std::process::id()
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(VersionsDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", dir.display()));
                }
            }
        }
        bail!("cannot create a directory for the module's versions in {}", base.display())
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for VersionsDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies the files under `from` that count as sources ([`watch::is_source`]: not tool state,
/// not editor temporaries) to `to`, directories included.
fn copy_sources(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if watch::is_source(&path.join("x")) {
                copy_sources(&path, &to.join(entry.file_name()))?;
            }
        } else if (kind.is_file() || (kind.is_symlink() && path.is_file()))
            && watch::is_source(&path)
        {
            std::fs::copy(&path, to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// The versions of a Python or TypeScript module's sources, each served by its own
/// [`Runtime`] of the one compiled development runtime: a save copies the sources (Python) or
/// bundles the entry (TypeScript) to `gen-N` and grants that directory, read-only, to that
/// version alone. A version's instances, also those it starts after a later save (more
/// concurrent calls, an instance thrown away), load the code it was loaded from, so a save
/// that does not load leaves the previous version working.
struct ModuleVersions {
    base: Arc<Runtime>,
    sandbox: ModuleSandbox,
    language: Language,
    sources: PathBuf,
    entry: PathBuf,
    module: String,
    bundler: Vec<String>,
    root: PathBuf,
    made: std::sync::atomic::AtomicU64,
}

impl ModuleVersions {
    /// Copies (or bundles) the sources as they are now and returns the runtime that serves
    /// that version.
    fn next(&self) -> anyhow::Result<Arc<Runtime>> {
        let n = self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let dir = self.root.join(format!("gen-{n}"));
        match self.language {
            Language::Python => copy_sources(&self.sources, &dir).with_context(|| {
                format!("cannot copy {} to {}", self.sources.display(), dir.display())
            })?,
            Language::TypeScript => bundle(&self.bundler, &self.entry, &dir.join(&self.module))?,
        }
        let sandbox = self.sandbox.version(&dir, self.language, &self.module)?;
        Ok(Arc::new(self.base.with_sandbox(Arc::new(sandbox))))
    }
}

/// Bundles a TypeScript entry to `out` with `bundler` (esbuild, as `terrarium-js dev-runtime`
/// names it); its errors (file, line, what) are the error.
fn bundle(bundler: &[String], entry: &Path, out: &Path) -> anyhow::Result<()> {
    let (program, args) = bundler.split_first().context("the bundle command is empty")?;
    let mut outfile = std::ffi::OsString::from("--outfile=");
    outfile.push(out);
    let output = std::process::Command::new(program)
        .args(args)
        .arg(entry)
        .arg(outfile)
        .stdin(std::process::Stdio::null())
        .output()
        .with_context(|| {
            format!("cannot run {program}, the bundler `terrarium-js dev-runtime` named")
        })?;
    if !output.status.success() {
        let errors = String::from_utf8_lossy(&output.stderr);
        bail!(
            "{} does not bundle ({}): {}",
            entry.display(),
            output.status,
            errors.trim().lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join(" | ")
        );
    }
    Ok(())
}

impl ModuleDev {
    /// Finds `language`'s runtime (building it the first time) and, for TypeScript, the
    /// command that bundles each save.
    fn prepare(module: &Path, language: Language) -> anyhow::Result<ModuleDev> {
        if !module.is_file() {
            bail!("{}: no such {} module", module.display(), language.name());
        }
        let dir = module
            .parent()
            .map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
            .context("the module has no directory")?
            .canonicalize()
            .with_context(|| format!("cannot resolve the directory of {}", module.display()))?;
        let stem = module.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if stem.is_empty() || !stem.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
            bail!(
                "{} is not named as a {} module (letters, digits, _)",
                module.display(),
                language.name()
            );
        }
        let entry = dir.join(module.file_name().context("the module has no file name")?);
        let (runtime, bundler, name) = match language {
            Language::Python => {
                if stem.contains('-') {
                    bail!(
                        "{} is not named as a Python module (letters, digits, _)",
                        module.display()
                    );
                }
                (python_runtime()?, Vec::new(), stem.to_string())
            }
            Language::TypeScript => {
                let (runtime, bundler) = typescript_runtime(&dir)?;
                (runtime, bundler, format!("{stem}.js"))
            }
        };
        let versions = VersionsDir::create(&dir, language)?;
        Ok(ModuleDev { language, dir, entry, module: name, runtime, bundler, versions })
    }
}

/// The Python development runtime, from `TERRARIUM_PYTHON` (else `python3`: the Python the
/// author installed the SDK and componentize-py in), which builds it the first time.
fn python_runtime() -> anyhow::Result<PathBuf> {
    let python = std::env::var("TERRARIUM_PYTHON").unwrap_or_else(|_| "python3".into());
    tracing::info!(
        "finding the Python development runtime (built once, then cached): `{python} -m terrarium.dev_runtime`"
    );
    let output = std::process::Command::new(&python)
        .args(["-m", "terrarium.dev_runtime"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| {
            format!(
                "cannot run {python}; set TERRARIUM_PYTHON to the Python that has the terrarium SDK"
            )
        })?;
    if !output.status.success() {
        bail!(
            "`{python} -m terrarium.dev_runtime` failed ({}); its output is above. The Python \
             that runs it needs the terrarium SDK and componentize-py (set TERRARIUM_PYTHON \
             to choose another)",
            output.status
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| PathBuf::from(l.trim()))
        .context("`python -m terrarium.dev_runtime` printed no path")
}

/// The TypeScript SDK's command line: `TERRARIUM_JS`, else `node_modules/.bin/terrarium-js`
/// in the module's directory or one above it (where npm links the SDK).
fn terrarium_js(dir: &Path) -> anyhow::Result<PathBuf> {
    if let Some(given) = std::env::var_os("TERRARIUM_JS") {
        return Ok(PathBuf::from(given));
    }
    dir.ancestors()
        .map(|d| d.join("node_modules/.bin/terrarium-js"))
        .find(|p| p.is_file())
        .with_context(|| {
            format!(
                "no node_modules/.bin/terrarium-js in {} or above it: install the TypeScript SDK \
                 (npm install @terrarium/sdk), or set TERRARIUM_JS to its bin/terrarium-js.mjs",
                dir.display()
            )
        })
}

/// The TypeScript development runtime and the command that bundles a save for it, from
/// `terrarium-js dev-runtime`, which builds the runtime the first time.
fn typescript_runtime(dir: &Path) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let tool = terrarium_js(dir)?;
    tracing::info!(
        "finding the TypeScript development runtime (built once, then cached): `{} dev-runtime`",
        tool.display()
    );
    // A .mjs file is run by node, whatever its mode.
    let mut command = match tool.extension() {
        Some(ext) if ext == "mjs" || ext == "js" => {
            let mut node = std::process::Command::new("node");
            node.arg(&tool);
            node
        }
        _ => std::process::Command::new(&tool),
    };
    let output = command
        .arg("dev-runtime")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| {
            format!(
                "cannot run {}; set TERRARIUM_JS to the SDK's bin/terrarium-js.mjs",
                tool.display()
            )
        })?;
    if !output.status.success() {
        bail!("`{} dev-runtime` failed ({}); its output is above", tool.display(), output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines().filter(|l| !l.trim().is_empty());
    let runtime = lines
        .next()
        .map(|l| PathBuf::from(l.trim()))
        .context("`terrarium-js dev-runtime` printed no path")?;
    let bundler: Vec<String> = lines
        .next()
        .map(serde_json::from_str)
        .transpose()
        .context("`terrarium-js dev-runtime` printed no bundle command (a JSON array of strings)")?
        .context(
            "`terrarium-js dev-runtime` printed no bundle command; update the TypeScript SDK",
        )?;
    Ok((runtime, bundler))
}

pub fn run(args: &DevArgs) -> anyhow::Result<ExitCode> {
    match (&args.source, &args.pulumi) {
        (Some(source), _) => check_source_address(source)?,
        (None, Some(name)) => terrarium_install::pulumi::check_package_name(name)?,
        (None, None) => {
            bail!("pass --source ADDRESS to serve Terraform, or --pulumi NAME to serve Pulumi")
        }
    }
    for dir in &args.watch {
        if !dir.is_dir() {
            bail!("--watch {}: not a directory", dir.display());
        }
    }
    // Dev builds are compiled quickly rather than into the fastest code, the first one too
    // (a debug build of an SDK provider takes seconds to optimise); the cache keeps it apart
    // from the optimised code of an installed copy.
    let mut settings = RuntimeSettings {
        log_module: "provider.terrarium-dev".into(),
        compiler: DEV_COMPILER,
        ..RuntimeSettings::default()
    };
    if args.no_cache {
        settings.cache_dir = None;
    }
    if let Some(n) = args.max_instances {
        settings.instance_pool_size = n.get();
    }
    let module = match Language::of(&args.component) {
        Some(language) => {
            if args.build.is_some() {
                bail!(
                    "{} is served without a build: each save under its directory is reloaded; \
                     leave out --build and --watch",
                    args.component.display()
                );
            }
            Some(ModuleDev::prepare(&args.component, language)?)
        }
        None => None,
    };
    let sandbox = args.apply_grants(&mut settings, module.as_ref())?;
    let runtime = crate::tokio_runtime()?;
    let served = match &module {
        Some(module) => runtime.block_on(serve_module(args, module, sandbox, settings)),
        None => runtime.block_on(serve(args, settings)),
    };
    // Guest calls still running on blocking threads are not waited for; the person pressed Ctrl-C.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    served?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(args: &DevArgs, settings: RuntimeSettings) -> anyhow::Result<()> {
    let component = args.component.clone();
    let mut build_failure = None;
    if let Some(command) = &args.build {
        tracing::info!("building: `{command}`");
        if let Err(failure) = watch::run_build(command).await {
            tracing::error!("build `{command}` failed: {failure} (its output is above)");
            build_failure = Some(reload::build_failed_warning(command, &failure));
        }
    }
    let live = match load(&component, settings.clone()).await {
        Ok((provider, digest)) => {
            let schema = provider.schema();
            tracing::info!(
                component = %component.display(),
                resources = schema.resources.len(),
                data_sources = schema.data_sources.len(),
                functions = schema.functions.len(),
                "loaded"
            );
            LiveProvider::new(Arc::new(provider), digest)
        }
        Err(message) => {
            if let Some(missing) = missing_directory(&component) {
                // Nothing can be watched for a build that never comes: say what to do instead.
                let how = match &args.build {
                    Some(command) => format!("check that `{command}` builds it there"),
                    None => "build it first (`cargo build --target wasm32-wasip2`), or pass the \
                             command that builds it with --build CMD --watch SRC_DIR"
                        .to_string(),
                };
                bail!(
                    "{} does not exist, nor does its directory {}: {how}",
                    component.display(),
                    missing.display()
                );
            }
            // Keep serving: the next good build is swapped in, and meanwhile every call says why.
            tracing::error!(
                component = %component.display(),
                "cannot load the component yet: {message}; it is served as soon as a build writes it"
            );
            LiveProvider::failed(format!(
                "terrarium dev has no working build of {} yet: {message}",
                component.display()
            ))
        }
    };
    if let Some(warning) = build_failure {
        live.warn(warning);
    }

    // Each new build is compiled once and never seen again: caching it would only leave one
    // dead entry per save in the user's cache directory.
    let reload_settings = RuntimeSettings { cache_dir: None, ..settings };
    let reloader = Arc::new(Reloader::new(live.clone(), component.clone(), reload_settings));
    let _component_watch = watch::watch_component(reloader.clone(), watch::COMPONENT_QUIET)
        .with_context(|| format!("cannot watch {} for new builds", component.display()))?;
    let _source_watch = match &args.build {
        Some(command) => Some(watch::watch_sources(
            &args.watch,
            Some(command.clone()),
            reloader.clone(),
            watch::SOURCES_QUIET,
        )?),
        None => None,
    };

    serve_live(args, live).await
}

/// Serves a Python or TypeScript module through its language's development runtime: the
/// runtime is loaded once; every save under the module's directory starts new instances,
/// which load it afresh.
async fn serve_module(
    args: &DevArgs,
    dev: &ModuleDev,
    sandbox: ModuleSandbox,
    settings: RuntimeSettings,
) -> anyhow::Result<()> {
    let path = dev.runtime.clone();
    let reload_settings = settings.clone();
    let language = dev.language.name();
    let (base, digest) = tokio::task::spawn_blocking(move || {
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let digest = reload::digest(&bytes);
        let runtime = Runtime::from_bytes(&bytes, &path, settings)?;
        anyhow::Ok((Arc::new(runtime), digest))
    })
    .await
    .with_context(|| format!("loading the {language} development runtime was interrupted"))??;
    let module = dev.entry.clone();
    let versions = Arc::new(ModuleVersions {
        base,
        sandbox,
        language: dev.language,
        sources: dev.dir.clone(),
        entry: dev.entry.clone(),
        module: dev.module.clone(),
        bundler: dev.bundler.clone(),
        root: dev.versions.path().to_path_buf(),
        made: std::sync::atomic::AtomicU64::new(0),
    });
    let first = {
        let versions = versions.clone();
        tokio::task::spawn_blocking(move || versions.next())
            .await
            .context("preparing the module's first version was interrupted")?
    };
    let started = match first {
        Ok(first) => Dispatcher::start(first).await.map_err(anyhow::Error::from),
        Err(error) => Err(error),
    };
    let live = match started {
        Ok(provider) => {
            let schema = provider.schema();
            tracing::info!(
                module = %module.display(),
                resources = schema.resources.len(),
                data_sources = schema.data_sources.len(),
                functions = schema.functions.len(),
                "loaded"
            );
            LiveProvider::new(Arc::new(provider), digest)
        }
        Err(error) => {
            tracing::error!(
                module = %module.display(),
                "cannot load the module yet: {error:#}; it is served as soon as a save fixes it"
            );
            LiveProvider::failed(format!(
                "terrarium dev has no working version of {} yet: {error:#}",
                module.display()
            ))
        }
    };
    let next_version: reload::NextVersion =
        Box::new(move || versions.next().map_err(|e| format!("{e:#}")));
    let reloader = Arc::new(Reloader::reinstantiating(
        live.clone(),
        module,
        reload_settings,
        next_version,
        digest,
    ));
    let _source_watch =
        watch::watch_sources(std::slice::from_ref(&dev.dir), None, reloader, watch::MODULE_QUIET)?;
    serve_live(args, live).await
}

/// Serves `live` to Terraform (or Pulumi) until Ctrl-C.
async fn serve_live(args: &DevArgs, live: Arc<LiveProvider>) -> anyhow::Result<()> {
    if let Some(name) = &args.pulumi {
        return serve_pulumi(name, live).await;
    }
    let source = args.source.clone().unwrap_or_default();

    // Reattached providers are never asked to shut down (with "Test": true), and one that is
    // must not end the session: the controller gets a switch of its own, and only a signal
    // stops the server.
    let stop = Shutdown::new();
    let controller = Shutdown::new();
    let routes = plugin::add_go_plugin_services(
        tonic::service::Routes::new(live.service().into_server()),
        &controller,
    )
    .await;
    let BoundSocket { listener, path } = plugin::bind_unix_socket(None, None)?;
    let reattach = reattach_value(&source, std::process::id(), path.as_path());
    println!("export TF_REATTACH_PROVIDERS={}", shell_quote(&reattach));
    println!(
        "# Run the line above in the shell where you run terraform; {} is then served from here, \
         reloaded on every build, until Ctrl-C.",
        source
    );
    let _signals = stop_on_signals(&stop, &controller)?;
    tracing::info!(socket = %path.as_path().display(), "serving for Terraform's debug mode; Ctrl-C stops");
    plugin::serve_plaintext_on(listener, routes, stop).await?;
    // The socket file goes away here, before the process ends.
    drop(path);
    tracing::info!("stopped");
    Ok(())
}

/// Serves `live` to Pulumi's engine in attach mode: the port line, then the variable that
/// tells the engine where the plugin is; every call runs on the build serving when it starts.
async fn serve_pulumi(name: &str, live: Arc<LiveProvider>) -> anyhow::Result<()> {
    use terrarium_pulumi::engine::{LISTEN_ADDRESS_VAR, bind_and_announce, listen_address};
    let address = listen_address(std::env::var(LISTEN_ADDRESS_VAR).ok().as_deref())?;
    let listener = bind_and_announce(address, &mut std::io::stdout()).await?;
    let port = listener.local_addr()?.port();
    println!("export PULUMI_DEBUG_PROVIDERS={name}:{port}");
    println!(
        "# Run the line above in the shell where you run pulumi; the plugin {name} is then served \
         from here, reloaded on every build, until Ctrl-C."
    );
    let service = terrarium_pulumi::PulumiService::serving(
        live.serving().clone(),
        name,
        super::pulumi::UNVERSIONED,
    );
    tracing::info!(port, "serving Pulumi's engine in attach mode; Ctrl-C stops");
    // The component's logs stay in this terminal, as `terrarium dev` shows them for
    // Terraform; the plugin outlives the engines that attach to it.
    terrarium_pulumi::engine::serve_pulumi(
        listener,
        tonic::service::Routes::new(service.into_server()),
        std::future::pending(),
    )
    .await?;
    tracing::info!("stopped");
    Ok(())
}

/// Loads, instantiates and reads the schema of the component; returns it with its digest.
async fn load(
    component: &Path,
    settings: RuntimeSettings,
) -> Result<(Dispatcher, [u8; 32]), String> {
    let path = component.to_path_buf();
    let (runtime, digest) = tokio::task::spawn_blocking(move || {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let digest = reload::digest(&bytes);
        Runtime::from_bytes(&bytes, &path, settings).map(|r| (r, digest)).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| format!("loading was interrupted: {e}"))??;
    let provider = Dispatcher::start(Arc::new(runtime))
        .await
        .map_err(|e| format!("{}: {e}", component.display()))?;
    Ok((provider, digest))
}

/// The TF_REATTACH_PROVIDERS value for a provider served on a Unix socket: `"Test": true`
/// keeps Terraform from stopping the process after each command and from taking it for a
/// protocol 5 provider.
pub fn reattach_value(source: &str, pid: u32, socket: &Path) -> String {
    serde_json::json!({
        source: {
            "Protocol": "grpc",
            "ProtocolVersion": 6,
            "Pid": pid,
            "Test": true,
            "Addr": { "Network": "unix", "String": socket.to_string_lossy() },
        }
    })
    .to_string()
}

/// `text` as one single-quoted POSIX shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A provider source address as Terraform writes it: `TYPE`, `NAMESPACE/TYPE` or
/// `HOSTNAME/NAMESPACE/TYPE`. Terraform checks the details; this catches what would make the
/// printed line useless (a path, a version constraint, spaces).
fn check_source_address(source: &str) -> anyhow::Result<()> {
    let parts: Vec<&str> = source.split('/').collect();
    let name =
        |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_".contains(c));
    let host = |p: &str| {
        !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "-.:".contains(c))
    };
    let well_formed = match parts.as_slice() {
        [ty] => name(ty),
        [namespace, ty] => name(namespace) && name(ty),
        [hostname, namespace, ty] => host(hostname) && name(namespace) && name(ty),
        _ => false,
    };
    if !well_formed {
        bail!(
            "--source {source:?} is not a provider source address; write it as in the configuration's \
             required_providers, e.g. example/null or registry.terraform.io/example/null"
        );
    }
    Ok(())
}

/// Aborts the signal task when serving ends.
struct SignalTask(tokio::task::JoinHandle<()>);

impl Drop for SignalTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP stop the server. Unlike a provider Terraform starts,
/// which ignores SIGINT (Terraform stops it), this one belongs to the person at the terminal.
/// The component's directory, when it does not exist (so there is nothing to watch).
fn missing_directory(component: &Path) -> Option<PathBuf> {
    let dir = match component.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    (!dir.is_dir()).then_some(dir)
}

fn stop_on_signals(stop: &Shutdown, controller: &Shutdown) -> anyhow::Result<SignalTask> {
    let mut interrupt =
        signal(SignalKind::interrupt()).context("cannot install the SIGINT handler")?;
    let mut terminate =
        signal(SignalKind::terminate()).context("cannot install the SIGTERM handler")?;
    let mut hangup = signal(SignalKind::hangup()).context("cannot install the SIGHUP handler")?;
    let (stop, controller) = (stop.clone(), controller.clone());
    Ok(SignalTask(tokio::spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => tracing::info!("interrupted; stopping"),
            _ = terminate.recv() => tracing::info!("SIGTERM received; stopping"),
            _ = hangup.recv() => tracing::info!("SIGHUP received; stopping"),
        }
        // The stdio streams end with the controller's switch; open connections then drain.
        controller.trigger();
        stop.trigger();
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reattach_value_is_what_terraform_reads() {
        let value = reattach_value("example/null", 42, Path::new("/tmp/terrarium-plugin-abc"));
        let parsed: serde_json::Value = serde_json::from_str(&value).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!({"example/null": {
                "Protocol": "grpc", "ProtocolVersion": 6, "Pid": 42, "Test": true,
                "Addr": {"Network": "unix", "String": "/tmp/terrarium-plugin-abc"}
            }})
        );
    }

    #[test]
    fn shell_quoting_survives_single_quotes() {
        assert_eq!(shell_quote("{\"a\":1}"), "'{\"a\":1}'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    fn dev_args(args: &[&str]) -> Result<DevArgs, clap::Error> {
        let argv = [&["terrarium", "dev", "p.wasm", "--source", "acme/w"], args].concat();
        match <crate::Cli as clap::Parser>::try_parse_from(argv)?.command {
            Some(crate::Command::Dev(args)) => Ok(args),
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn dev_serves_terraform_or_pulumi() {
        let pulumi = |args: &[&str]| {
            <crate::Cli as clap::Parser>::try_parse_from(
                [&["terrarium", "dev", "p.wasm"], args].concat(),
            )
        };
        assert!(pulumi(&["--pulumi", "random"]).is_ok());
        assert!(pulumi(&[]).is_err(), "neither --source nor --pulumi");
        assert!(pulumi(&["--pulumi", "random", "--source", "acme/w"]).is_err());
    }

    #[test]
    fn dev_takes_the_grant_flags_of_install_or_a_grants_file() {
        let args = dev_args(&["--allow-dir", "/srv/data:rw", "--allow-env", "TOKEN"]).unwrap();
        let grants = args.grant_flags.grants().unwrap();
        assert_eq!(grants.dirs[0].to_string(), "/srv/data:rw");
        assert_eq!(grants.env, ["TOKEN"]);
        assert!(dev_args(&["--grants", "g.toml"]).unwrap().grants.is_some());
        // A file or flags, not both; a mistyped mode is refused as by install.
        assert!(dev_args(&["--grants", "g.toml", "--allow-env", "TOKEN"]).is_err());
        let err = dev_args(&["--allow-dir", "/data:rx"]).unwrap_err().to_string();
        assert!(err.contains("unknown access mode"), "{err}");
    }

    #[test]
    fn dev_checks_directory_grants_before_serving() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let component = root.join("src/p.wasm");
        std::fs::create_dir_all(root.join("src")).unwrap();
        let missing = format!("{}:rw", root.join("missing").display());
        let covering = format!("{}:rw", root.display());
        for (grant, needle) in
            [(missing, "does not exist"), (covering, "the component terrarium dev serves")]
        {
            let mut args = dev_args(&["--allow-dir", &grant]).unwrap();
            args.component = component.clone();
            let err =
                args.apply_grants(&mut RuntimeSettings::default(), None).unwrap_err().to_string();
            assert!(err.contains(needle), "{grant}: {err}");
        }
        let grants_file = root.join("grants.toml");
        std::fs::create_dir(root.join("data")).unwrap();
        std::fs::write(
            &grants_file,
            format!("allow_dir = [\"{}:rw\"]\n", root.join("data").display()),
        )
        .unwrap();
        let mut args = dev_args(&["--grants", &grants_file.to_string_lossy()]).unwrap();
        args.component = component;
        let mut settings = RuntimeSettings::default();
        args.apply_grants(&mut settings, None).unwrap();
        assert_eq!(settings.sandbox.dirs().len(), 1);
    }

    /// Each version of a Python module's sources is a copy of the sources (not of tool state)
    /// granted read-only to that version alone, with the runtime's variables; the module's
    /// directory itself is granted to none, and a read-write grant of it, or of the copies, is
    /// refused.
    #[test]
    fn each_python_version_is_granted_its_own_copy_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("provider.py"), "GREETING = 1\n").unwrap();
        std::fs::create_dir(root.join("helpers")).unwrap();
        std::fs::write(root.join("helpers/names.py"), "NAME = 'x'\n").unwrap();
        std::fs::create_dir(root.join(".terraform")).unwrap();
        std::fs::write(root.join(".terraform/state"), "tool state").unwrap();
        std::fs::write(root.join("terraform.tfstate"), "{}").unwrap();
        let versions = tempfile::tempdir().unwrap();
        let python = ModuleDev {
            language: Language::Python,
            dir: root.clone(),
            entry: root.join("provider.py"),
            module: "provider".into(),
            runtime: root.join("runtime.wasm"),
            bundler: Vec::new(),
            versions: VersionsDir(versions.path().canonicalize().unwrap()),
        };
        let mut args = dev_args(&[]).unwrap();
        args.component = root.join("provider.py");
        let mut settings = RuntimeSettings::default();
        let sandbox = args.apply_grants(&mut settings, Some(&python)).unwrap();
        assert!(settings.sandbox.dirs().is_empty(), "the module's directory is granted to none");

        let gen1 = python.versions.path().join("gen-1");
        copy_sources(&root, &gen1).unwrap();
        assert!(gen1.join("provider.py").is_file() && gen1.join("helpers/names.py").is_file());
        assert!(!gen1.join(".terraform").exists() && !gen1.join("terraform.tfstate").exists());
        // A later save changes the sources, never a copy already made.
        std::fs::write(root.join("provider.py"), "GREETING = (\n").unwrap();
        assert_eq!(std::fs::read_to_string(gen1.join("provider.py")).unwrap(), "GREETING = 1\n");

        let version = sandbox.version(&gen1, Language::Python, "provider").unwrap();
        let dirs = version.dirs();
        assert_eq!(dirs.len(), 1);
        assert_eq!(dirs[0].grant().path, gen1);
        assert_eq!(dirs[0].grant().access, Access::ReadOnly);
        let env = version.env();
        assert!(env.contains(&(PYTHON_DIR_VAR.into(), gen1.to_string_lossy().into_owned())));
        assert!(env.contains(&(PYTHON_MODULE_VAR.into(), "provider".into())));

        for writable in [root.clone(), python.versions.path().to_path_buf()] {
            let flag = format!("{}:rw", writable.display());
            let mut args = dev_args(&["--allow-dir", &flag]).unwrap();
            args.component = root.join("provider.py");
            let err = args
                .apply_grants(&mut RuntimeSettings::default(), Some(&python))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(&flag), "{flag}: {err}");
        }
    }

    #[test]
    fn source_addresses() {
        for ok in ["null", "example/null", "registry.terraform.io/example/null", "my-corp/my_thing"]
        {
            assert!(check_source_address(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a//b", "a/b/c/d", "example/null ", "./provider.wasm", "example/null@1.0"] {
            assert!(check_source_address(bad).is_err(), "{bad:?}");
        }
    }
}

//! `terrarium docs COMPONENT`: registry documentation for a provider component, generated
//! from its schema the way terraform-plugin-docs generates it for Go providers (see
//! [`render`]), with example configurations from an `examples/` directory in
//! terraform-plugin-docs' layout:
//!
//! ```text
//! examples/provider/provider.tf
//! examples/resources/TYPE/resource.tf              import.sh, import-by-string-id.tf,
//!                                                  import-by-identity.tf
//! examples/data-sources/TYPE/data-source.tf
//! examples/functions/NAME/function.tf
//! examples/ephemeral-resources/TYPE/ephemeral-resource.tf
//! examples/list-resources/TYPE/list-resource.tfquery.hcl
//! examples/actions/TYPE/action.tf
//! ```
//!
//! A component that declares its behaviour (WIT `behaviour`: Python and TypeScript components
//! do) has its declared defaults stated in the reference. A Rust component plans itself, in
//! code the host cannot read, so its defaults are what its doc comments say.

pub mod render;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use terrarium_model::schema::ProviderSchema;

use terrarium_core::Dispatcher;
use terrarium_runtime::{
    BehaviourLimits, HostState, ProviderBehaviour, Runtime, RuntimeSettings,
    provider_behaviour_from_wit, wit_behaviour,
};

#[derive(clap::Args, Debug)]
pub struct DocsArgs {
    /// The provider component (.wasm) to document.
    pub component: PathBuf,
    /// The directory to write the documentation into; the pages it held before are replaced.
    #[arg(long, value_name = "DIR", default_value = "docs")]
    pub out: PathBuf,
    /// The directory of example configurations [default: `examples` beside the --out
    /// directory, when it exists].
    #[arg(long, value_name = "DIR")]
    pub examples: Option<PathBuf>,
    /// The provider's name (its type, as in `terraform-provider-NAME`) [default: the prefix
    /// its resource types share].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// The subdirectories of a docs directory that hold generated pages.
const PAGE_DIRS: [&str; 6] =
    ["resources", "data-sources", "functions", "ephemeral-resources", "list-resources", "actions"];

pub fn run(args: &DocsArgs) -> anyhow::Result<()> {
    let runtime = Arc::new(Runtime::load(&args.component, RuntimeSettings::default())?);
    let tokio = crate::tokio_runtime()?;
    let provider = tokio.block_on(Dispatcher::start(Arc::clone(&runtime)))?;
    let behaviour = tokio.block_on(component_behaviour(&runtime))?;
    for d in provider.schema_diagnostics() {
        eprintln!("{d}");
    }
    let schema = provider.schema();
    let name = match &args.name {
        Some(name) => name.clone(),
        None => provider_name(schema).with_context(|| {
            format!(
                "cannot tell the provider's name from the types of {}; pass --name NAME",
                args.component.display()
            )
        })?,
    };
    let examples_dir = match &args.examples {
        Some(dir) if !dir.is_dir() => bail!("--examples {}: no such directory", dir.display()),
        Some(dir) => Some(dir.clone()),
        None => {
            let beside = args.out.parent().unwrap_or(Path::new("")).join("examples");
            beside.is_dir().then_some(beside)
        }
    };
    let examples = |relative: &str| {
        let dir = examples_dir.as_ref()?;
        fs::read_to_string(dir.join(relative)).ok()
    };
    let pages =
        render::pages(&name, schema, provider.identity_schemas(), behaviour.as_ref(), &examples);
    write_pages(&args.out, &pages)?;
    println!("Wrote {} pages for the {name} provider into {}", pages.len(), args.out.display());
    Ok(())
}

/// The behaviour the component declares, if it exports the `behaviour` interface.
async fn component_behaviour(runtime: &Runtime) -> anyhow::Result<Option<ProviderBehaviour>> {
    let mut instance = runtime.instantiate().await?;
    if !instance.declares_behaviour() {
        return Ok(None);
    }
    let behaviour = instance
        .call_behaviour(async |b: &wit_behaviour::Guest, s: &mut wasmtime::Store<HostState>| {
            b.call_get_behaviour(s).await
        })
        .await?;
    let limits = BehaviourLimits {
        memory: runtime.settings().max_memory_bytes,
        time: runtime.settings().call_timeout,
    };
    let behaviour = provider_behaviour_from_wit(behaviour, limits, std::time::Instant::now())
        .map_err(|e| anyhow::anyhow!("the component's declared behaviour: {e}"))?;
    Ok(Some(behaviour))
}

/// The prefix every resource, data source, ephemeral resource, list resource and action type
/// shares (`random` of `random_string`), if they share one.
fn provider_name(schema: &ProviderSchema) -> Option<String> {
    let types = schema
        .resources
        .keys()
        .chain(schema.data_sources.keys())
        .chain(schema.ephemeral_resources.keys())
        .chain(schema.list_resources.keys())
        .chain(schema.actions.keys());
    let mut name: Option<&str> = None;
    for type_name in types {
        let prefix = type_name.split('_').next()?;
        match name {
            None => name = Some(prefix),
            Some(known) if known == prefix => {}
            Some(_) => return None,
        }
    }
    name.filter(|n| !n.is_empty()).map(str::to_owned)
}

/// Writes `pages` under `out`, first removing the pages of an earlier run (`index.md` and
/// the page directories), so a type that is gone loses its page.
fn write_pages(out: &Path, pages: &[render::Page]) -> anyhow::Result<()> {
    let index = out.join("index.md");
    if index.is_file() {
        fs::remove_file(&index).with_context(|| format!("cannot remove {}", index.display()))?;
    }
    for dir in PAGE_DIRS {
        let dir = out.join(dir);
        if dir.is_dir() {
            fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
        }
    }
    for page in pages {
        let path = out.join(&page.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        fs::write(&path, &page.text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrarium_model::schema::Schema;

    #[test]
    fn the_name_is_the_prefix_every_type_shares() {
        let mut s = ProviderSchema::default();
        assert_eq!(provider_name(&s), None);
        s.resources.insert("random_string".into(), Schema::default());
        s.data_sources.insert("random_shuffle".into(), Schema::default());
        assert_eq!(provider_name(&s).as_deref(), Some("random"));
        s.actions.insert("other_poke".into(), Schema::default());
        assert_eq!(provider_name(&s), None);
    }

    #[test]
    fn a_rerun_replaces_the_pages_and_keeps_other_files() {
        let out = tempfile::tempdir().unwrap();
        let page = |path: &str| render::Page { path: path.into(), text: "x\n".into() };
        write_pages(out.path(), &[page("index.md"), page("resources/gone.md")]).unwrap();
        fs::write(out.path().join("guide.md"), "mine").unwrap();
        write_pages(out.path(), &[page("index.md"), page("resources/kept.md")]).unwrap();
        assert!(!out.path().join("resources/gone.md").exists());
        assert!(out.path().join("resources/kept.md").is_file());
        assert_eq!(fs::read_to_string(out.path().join("guide.md")).unwrap(), "mine");
    }
}

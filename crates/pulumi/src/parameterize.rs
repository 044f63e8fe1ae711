//! The base plugin `terrarium`: one Pulumi plugin for every component, named by `Parameterize`.
//!
//! `pulumi package add terrarium COMPONENT.wasm [NAME [VERSION]]` starts the base
//! plugin and calls `Parameterize` with those arguments; the plugin loads the component and
//! answers with the package it serves. `GetSchema` then returns that package's schema with a
//! `parameterization` block whose `parameter` (JSON: the component's path as given and its
//! SHA-256) the program keeps (pulumi-yaml in `sdks/NAME-VERSION.yaml`). Every later engine
//! hands the same bytes back through `Parameterize` before anything else.
//!
//! What the component may do is never in the parameter: the program could change it. Its
//! grants are those of the `grants.toml` beside the component, a request until the person
//! approves it, as for a plugin archive (the loader decides, see `terrarium`'s `serve`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use sha2::{Digest as _, Sha256};
use terrarium_core::{Dispatcher, Serving};
use tonic::Status;

use terrarium_proto::pulumirpc as pb;

/// The name the base plugin is installed under: `pulumi-resource-terrarium`.
pub const BASE_PLUGIN: &str = "terrarium";

/// The version a parameterized package gets when the arguments give none.
pub const DEFAULT_PACKAGE_VERSION: &str = "0.0.0";

/// How `pulumi package add` is used with the base plugin, for errors.
/// The name and version are positional: the CLI would take `--version` for its own flag.
pub const USAGE: &str = "pulumi package add terrarium PATH/TO/COMPONENT.wasm [NAME [X.Y.Z]]";

/// Loads a component (with the grants beside it) for the package it is parameterized as.
pub type Loader =
    Arc<dyn Fn(PathBuf) -> BoxFuture<'static, Result<Arc<Dispatcher>, Arc<str>>> + Send + Sync>;

/// What the base plugin serves once parameterized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// The component, as the person named it (relative to the program's directory, where the
    /// engine starts plugins, or absolute).
    pub component: String,
    /// Its SHA-256 when the package was added: a different file is refused.
    pub sha256: String,
    /// The Pulumi package name (the first part of its tokens).
    pub name: String,
    /// The package version.
    pub version: String,
}

impl Parameter {
    /// From `pulumi package add terrarium ARGS...`: the component, then perhaps the package
    /// name and version.
    pub fn from_args(args: &[String]) -> Result<Parameter, Status> {
        if let Some(flag) = args.iter().find(|a| a.starts_with('-')) {
            return Err(Status::invalid_argument(format!(
                "unknown argument {flag:?}: the name and version come after the component, \
                 without flags; use: {USAGE}"
            )));
        }
        let (component, name, version) = match args {
            [component] => (component, None, None),
            [component, name] => (component, Some(name), None),
            [component, name, version] => (component, Some(name), Some(version)),
            [] => {
                return Err(Status::invalid_argument(format!(
                    "name the provider component to serve; use: {USAGE}"
                )));
            }
            [..] => {
                return Err(Status::invalid_argument(format!(
                    "{} arguments, but a package is one component, its name and its version; \
                     use: {USAGE}",
                    args.len()
                )));
            }
        };
        let name = match name {
            Some(name) => name.clone(),
            None => package_name_of(Path::new(component))?,
        };
        check_package_name(&name)?;
        let version = version.cloned().unwrap_or_else(|| DEFAULT_PACKAGE_VERSION.to_string());
        check_version(&version)?;
        let sha256 = sha256_of(Path::new(component))?;
        Ok(Parameter { component: component.clone(), sha256, name, version })
    }

    /// From the `parameter` an earlier `GetSchema` answered with, handed back by an engine.
    pub fn from_value(
        value: &pb::parameterize_request::ParametersValue,
    ) -> Result<Parameter, Status> {
        let bad = |why: &str| {
            Status::invalid_argument(format!(
                "the parameter of the package {} is not one this plugin wrote ({why}); add the \
                 package again with `{USAGE}`",
                value.name
            ))
        };
        let json: serde_json::Value =
            serde_json::from_slice(&value.value).map_err(|_| bad("it is not JSON"))?;
        let field =
            |key: &str| json.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
        let component = field("component").ok_or_else(|| bad("no component"))?;
        let sha256 = field("sha256").ok_or_else(|| bad("no sha256"))?;
        check_package_name(&value.name)?;
        check_version(&value.version)?;
        Ok(Parameter {
            component,
            sha256,
            name: value.name.clone(),
            version: value.version.clone(),
        })
    }

    /// The bytes the schema carries and the engine hands back.
    pub fn value(&self) -> Vec<u8> {
        serde_json::json!({ "component": self.component, "sha256": self.sha256 })
            .to_string()
            .into_bytes()
    }

    /// The component file, checked to be the one the package was added with.
    pub fn checked_component(&self) -> Result<PathBuf, Status> {
        let path = PathBuf::from(&self.component);
        let now = sha256_of(&path)?;
        if now != self.sha256 {
            return Err(Status::failed_precondition(format!(
                "the component {} changed since the package {} {} was added (SHA-256 {} then, {} \
                 now); if the new build is the one you want, add it again: `pulumi package add \
                 terrarium {} {} {}`",
                self.component,
                self.name,
                self.version,
                short(&self.sha256),
                short(&now),
                self.component,
                self.name,
                self.version
            )));
        }
        Ok(path)
    }
}

fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

fn sha256_of(path: &Path) -> Result<String, Status> {
    let bytes = std::fs::read(path).map_err(|e| {
        let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
        Status::failed_precondition(format!(
            "cannot read the provider component {} (from {cwd}): {e}; name a .wasm file that \
             exists, relative to the program's directory or absolute",
            path.display()
        ))
    })?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

/// The package name a component's file name suggests: `files_provider.wasm` is `files`,
/// `terraform-provider-pets.wasm` is `pets`.
fn package_name_of(component: &Path) -> Result<String, Status> {
    let stem = component.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let stem = stem.strip_prefix("terraform-provider-").unwrap_or(stem);
    let stem =
        stem.strip_suffix("_provider").or_else(|| stem.strip_suffix("-provider")).unwrap_or(stem);
    let name = stem.to_ascii_lowercase().replace('_', "-");
    check_package_name(&name).map_err(|_| {
        Status::invalid_argument(format!(
            "the file name of {} suggests no Pulumi package name; give one after the component \
             (lowercase letters, digits and dashes); use: {USAGE}",
            component.display()
        ))
    })?;
    Ok(name)
}

/// A Pulumi package name: lowercase letters, digits and dashes, starting with a letter.
fn check_package_name(name: &str) -> Result<(), Status> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if valid && name != BASE_PLUGIN {
        Ok(())
    } else {
        Err(Status::invalid_argument(format!(
            "{name:?} cannot name a package: use lowercase letters, digits and dashes, starting \
             with a letter, and not {BASE_PLUGIN:?}"
        )))
    }
}

/// A semantic version, as Pulumi requires of a parameterized package.
fn check_version(version: &str) -> Result<(), Status> {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() == 3
        && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        Ok(())
    } else {
        Err(Status::invalid_argument(format!(
            "{version:?} is not a semantic version such as 1.2.3; use: {USAGE}"
        )))
    }
}

/// The base plugin's state: nothing until `Parameterize`, then one package for good.
pub struct Slot {
    loader: Loader,
    parameter: tokio::sync::OnceCell<Parameter>,
}

impl Slot {
    pub fn new(loader: Loader) -> Slot {
        Slot { loader, parameter: tokio::sync::OnceCell::new() }
    }

    /// The package this plugin serves, once parameterized.
    pub fn parameter(&self) -> Option<&Parameter> {
        self.parameter.get()
    }

    /// Loads the component `parameter` names into `serving`, once: a plugin serves one package
    /// for its life (the engine starts one per package), so another parameter later is refused.
    pub async fn parameterize(
        &self,
        parameter: Parameter,
        serving: &Serving,
    ) -> Result<&Parameter, Status> {
        let served = self
            .parameter
            .get_or_try_init(|| async {
                let component = parameter.checked_component()?;
                let provider = (self.loader)(component).await.map_err(|message| {
                    Status::failed_precondition(format!(
                        "failed to load the provider component: {message}"
                    ))
                })?;
                serving.swap(provider);
                Ok::<_, Status>(parameter.clone())
            })
            .await?;
        if *served != parameter {
            return Err(Status::failed_precondition(format!(
                "this plugin already serves {} {} from {}; the engine starts one plugin per package",
                served.name, served.version, served.component
            )));
        }
        Ok(served)
    }

    /// Why nothing can be served yet.
    pub fn not_parameterized() -> Status {
        Status::failed_precondition(format!(
            "the plugin {BASE_PLUGIN} serves the component a package names, and no package named \
             one: add the component as a package first, `{USAGE}`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_come_from_the_file_or_from_the_flag() {
        let dir = tempfile::tempdir().expect("tempdir");
        let wasm = dir.path().join("files_provider.wasm");
        std::fs::write(&wasm, b"\0asm").expect("write");
        let path = wasm.display().to_string();
        let p = Parameter::from_args(&args(&[&path])).expect("parameter");
        assert_eq!((p.name.as_str(), p.version.as_str()), ("files", DEFAULT_PACKAGE_VERSION));
        assert_eq!(p.sha256.len(), 64);
        let p = Parameter::from_args(&args(&[&path, "my-files", "1.2.3"])).expect("parameter");
        assert_eq!((p.name.as_str(), p.version.as_str()), ("my-files", "1.2.3"));

        for (bad, said) in [
            (args(&[]), "name the provider component"),
            (args(&[&path, "My_Files"]), "cannot name a package"),
            (args(&[&path, "files", "one"]), "not a semantic version"),
            (args(&[&path, "--grants", "x"]), "unknown argument"),
            (args(&[&path, "files", "1.0.0", "other.wasm"]), "4 arguments"),
            (args(&["missing.wasm"]), "cannot read the provider component missing.wasm"),
        ] {
            let e = Parameter::from_args(&bad).expect_err("refused");
            assert!(e.message().contains(said), "{bad:?}: {}", e.message());
            assert!(!e.message().ends_with(".."), "{}", e.message());
        }
    }

    #[test]
    fn the_value_round_trips_and_a_changed_component_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let wasm = dir.path().join("pets.wasm");
        std::fs::write(&wasm, b"\0asm one").expect("write");
        let p = Parameter::from_args(&args(&[&wasm.display().to_string()])).expect("parameter");
        let value = pb::parameterize_request::ParametersValue {
            name: p.name.clone(),
            version: p.version.clone(),
            value: p.value(),
        };
        assert_eq!(Parameter::from_value(&value).expect("value"), p);
        assert_eq!(p.checked_component().expect("same file"), wasm);

        std::fs::write(&wasm, b"\0asm two").expect("write");
        let e = p.checked_component().expect_err("changed");
        assert!(
            e.message().contains("changed since the package pets 0.0.0 was added"),
            "{}",
            e.message()
        );
        assert!(e.message().contains("`pulumi package add terrarium "), "{}", e.message());

        let junk = pb::parameterize_request::ParametersValue { value: b"{}".to_vec(), ..value };
        let e = Parameter::from_value(&junk).expect_err("junk");
        assert!(e.message().contains("no component"), "{}", e.message());
    }
}

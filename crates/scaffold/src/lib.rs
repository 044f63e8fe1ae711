//! `terrarium new NAME`: a provider project that builds, tests, reloads and installs as
//! generated: a resource, a data source and a function, tests with the SDK's Harness,
//! examples for `terrarium docs`, a README and a Makefile. In Rust (a crate that also has an
//! acceptance test with terrarium-acctest and packages for a registry), Python, TypeScript
//! or Go (a module whose `go test` runs the Harness tests and an acceptance test).
//!
//! The templates are files beside this module (`rust/`, `python/`, `typescript/`, `go/`, and
//! `examples/` for
//! every language), compiled into the binary; a template's `{{KEY}}` placeholders are
//! filled from [`Scaffold`].

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

/// The version of the SDK crates a new provider depends on.
const SDK_VERSION: &str = "0.1";
/// The componentize-py and pytest a Python provider is built and tested with: those
/// `scripts/setup` installs (a test checks they agree).
const PYTHON_TOOLS: &str = "componentize-py==0.25.1 pytest==9.2.0";

/// The line `terrarium new --lang python` prints to set up the project's venv.
fn python_setup() -> String {
    format!("python3 -m venv .venv && .venv/bin/pip install {PYTHON_TOOLS}")
}

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    /// The provider's type name (lowercase letters and digits, e.g. `pets`): it prefixes
    /// every resource type (`pets_example`) and names the crate `terraform-provider-NAME`.
    pub name: String,
    /// Where to create the project [default: ./terraform-provider-NAME]. It must not exist
    /// or be empty.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The language of the provider. Python, TypeScript and Go need --sdk-path (their SDKs
    /// are not published).
    #[arg(long, value_enum, default_value_t = Language::Rust)]
    pub lang: Language,
    /// The source address configurations give the provider ([HOST/]NAMESPACE/NAME)
    /// [default: example/NAME].
    #[arg(long, value_name = "ADDRESS")]
    pub source: Option<String>,
    /// Take the SDK from the Terrarium checkout at DIR: Rust depends on its crates by path
    /// instead of crates.io; Python puts its guest-sdk/python on PYTHONPATH (required);
    /// TypeScript depends on its guest-sdk/js with a `file:` dependency (required); Go
    /// replaces the module terrarium.dev/sdk with its guest-sdk/go (required).
    #[arg(long, value_name = "DIR")]
    pub sdk_path: Option<PathBuf>,
}

/// The languages `terrarium new` can set a provider up in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Rust,
    Python,
    Typescript,
    Go,
}

pub fn run(args: &NewArgs) -> anyhow::Result<()> {
    let scaffold = Scaffold::from_args(args)?;
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(&scaffold.crate_name));
    let files = match args.lang {
        Language::Rust => rust_files(),
        Language::Python => python_files(),
        Language::Typescript => typescript_files(),
        Language::Go => go_files(),
    };
    write_crate(&dir, &scaffold, &files)?;
    println!("Created the {} provider in {}. Next:", scaffold.name, dir.display());
    println!("  cd {}", dir.display());
    match args.lang {
        Language::Rust | Language::Go => {}
        Language::Python => println!("  {}", python_setup()),
        Language::Typescript => {
            let checkout = scaffold.sdk_path.as_deref().unwrap_or(Path::new("CHECKOUT"));
            if !checkout.join("guest-sdk/js/node_modules").is_dir() {
                println!(
                    "  {}   # once: the SDK's toolchain",
                    checkout.join("scripts/setup").display()
                );
            }
            println!("  npm install  # links @terrarium/sdk from {}", checkout.display());
        }
    }
    println!("  make build   # the component");
    println!("  make test    # unit and acceptance tests (terraform and terrarium on PATH)");
    println!("  make dev     # hot reload while you edit");
    Ok(())
}

/// What fills the templates' placeholders.
#[derive(Debug)]
pub struct Scaffold {
    /// `pets`
    pub name: String,
    /// `terraform-provider-pets`
    pub crate_name: String,
    /// `example/pets`
    pub source: String,
    /// The Terrarium checkout the SDK crates come from, when not crates.io.
    pub sdk_path: Option<PathBuf>,
}

impl Scaffold {
    pub fn from_args(args: &NewArgs) -> anyhow::Result<Scaffold> {
        check_name(&args.name)?;
        let source = args.source.clone().unwrap_or_else(|| format!("example/{}", args.name));
        if source.rsplit('/').next() != Some(args.name.as_str()) || source.split('/').count() < 2 {
            bail!(
                "--source {source}: the address must end in the provider's name, \
                 [HOST/]NAMESPACE/{}",
                args.name
            );
        }
        let sdk_path = match &args.sdk_path {
            None if args.lang == Language::Python => bail!(
                "terrarium new --lang python needs --sdk-path DIR, a Terrarium checkout: the \
                 Python SDK is taken from its guest-sdk/python"
            ),
            None if args.lang == Language::Typescript => bail!(
                "terrarium new --lang typescript needs --sdk-path DIR, a Terrarium checkout: \
                 the TypeScript SDK is not on npm, the project depends on its guest-sdk/js"
            ),
            None if args.lang == Language::Go => bail!(
                "terrarium new --lang go needs --sdk-path DIR, a Terrarium checkout: the Go \
                 SDK is not on the Go proxy, the module replaces it with its guest-sdk/go"
            ),
            None => None,
            Some(path) => {
                let marker = match args.lang {
                    Language::Typescript => "guest-sdk/js/package.json",
                    Language::Go => "guest-sdk/go/go.mod",
                    Language::Rust | Language::Python => "guest-sdk/Cargo.toml",
                };
                if !path.join(marker).is_file() {
                    bail!(
                        "--sdk-path {}: not a Terrarium checkout (no {marker} in it); give the \
                         directory the Terrarium repository is cloned in",
                        path.display()
                    );
                }
                Some(path.canonicalize().with_context(|| format!("resolving {}", path.display()))?)
            }
        };
        Ok(Scaffold {
            name: args.name.clone(),
            crate_name: format!("terraform-provider-{}", args.name),
            source,
            sdk_path,
        })
    }

    /// The value of placeholder `key`.
    fn value(&self, key: &str) -> Option<String> {
        Some(match key {
            "NAME" => self.name.clone(),
            "CRATE" => self.crate_name.clone(),
            "LIB" => self.crate_name.replace('-', "_"),
            "STRUCT" => format!("{}Provider", camel_case(&self.name)),
            "SOURCE" => self.source.clone(),
            "SDK_DEPENDENCY" => self.dependency("terrarium-sdk", "guest-sdk"),
            "ACCTEST_DEPENDENCY" => self.dependency("terrarium-acctest", "guest-sdk/acctest"),
            "DEPENDENCY_NOTE" => self.dependency_note(),
            "SDK_ROOT" => self.sdk_path.as_ref()?.to_string_lossy().into_owned(),
            "JS_SDK_DEPENDENCY" => {
                let sdk = self.sdk_path.as_ref()?.join("guest-sdk/js");
                serde_json::Value::String(format!("file:{}", sdk.to_string_lossy())).to_string()
            }
            _ => return None,
        })
    }

    fn dependency(&self, name: &str, dir: &str) -> String {
        match &self.sdk_path {
            None => format!("{name} = \"{SDK_VERSION}\""),
            Some(root) => format!(
                "{name} = {{ version = \"{SDK_VERSION}\", path = {} }}",
                toml_string(&root.join(dir).to_string_lossy())
            ),
        }
    }

    fn dependency_note(&self) -> String {
        match &self.sdk_path {
            None => format!(
                "`terrarium-sdk` and `terrarium-acctest` {SDK_VERSION} come from crates.io."
            ),
            Some(root) => format!(
                "`terrarium-sdk` and `terrarium-acctest` come from the Terrarium checkout at \
                 `{}` (`terrarium new --sdk-path`). To take them from crates.io instead, drop \
                 the `path = ...` of both in `Cargo.toml`: `terrarium-sdk = \"{SDK_VERSION}\"`, \
                 `terrarium-acctest = \"{SDK_VERSION}\"`.",
                root.display()
            ),
        }
    }

    /// `text` with every `{{KEY}}` replaced by its value.
    pub fn render(&self, template: &str) -> anyhow::Result<String> {
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find("}}").context("a template has an unclosed {{")?;
            let key = &after[..end];
            match self.value(key) {
                Some(value) => out.push_str(&value),
                None => bail!("a template names an unknown placeholder {{{{{key}}}}}"),
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// A provider type name Terraform accepts and every resource type can start with.
fn check_name(name: &str) -> anyhow::Result<()> {
    let mut chars = name.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    if !starts_with_letter || !chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) {
        bail!(
            "{name:?} is not a provider name: use lowercase letters and digits, starting with a \
             letter (it prefixes every resource type, as in {}_example)",
            if name.is_empty() { "NAME" } else { name }
        );
    }
    Ok(())
}

fn camel_case(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_ascii_uppercase()).into_iter().chain(chars).collect()
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One file of a template: where it goes in the crate, and its template text.
type TemplateFile = (&'static str, &'static str);

fn rust_files() -> Vec<TemplateFile> {
    vec![
        ("Cargo.toml", include_str!("rust/Cargo.toml.tmpl")),
        ("src/lib.rs", include_str!("rust/lib.rs.tmpl")),
        ("tests/acceptance.rs", include_str!("rust/acceptance.rs.tmpl")),
        ("README.md", include_str!("rust/README.md.tmpl")),
        ("Makefile", include_str!("rust/Makefile.tmpl")),
        (".cargo/config.toml", include_str!("rust/dot-cargo/config.toml.tmpl")),
        (".gitignore", include_str!("rust/gitignore.tmpl")),
    ]
    .into_iter()
    .chain(example_files())
    .collect()
}

fn python_files() -> Vec<TemplateFile> {
    vec![
        ("provider.py", include_str!("python/provider.py.tmpl")),
        ("test_provider.py", include_str!("python/test_provider.py.tmpl")),
        ("test_acceptance.py", include_str!("python/test_acceptance.py.tmpl")),
        ("README.md", include_str!("python/README.md.tmpl")),
        ("Makefile", include_str!("python/Makefile.tmpl")),
        (".gitignore", include_str!("python/gitignore.tmpl")),
    ]
    .into_iter()
    .chain(example_files())
    .collect()
}

fn typescript_files() -> Vec<TemplateFile> {
    vec![
        ("src/provider.ts", include_str!("typescript/provider.ts.tmpl")),
        ("test/provider.test.ts", include_str!("typescript/provider.test.ts.tmpl")),
        ("test/acceptance.test.ts", include_str!("typescript/acceptance.test.ts.tmpl")),
        ("package.json", include_str!("typescript/package.json.tmpl")),
        ("tsconfig.json", include_str!("typescript/tsconfig.json.tmpl")),
        ("README.md", include_str!("typescript/README.md.tmpl")),
        ("Makefile", include_str!("typescript/Makefile.tmpl")),
        (".gitignore", include_str!("typescript/gitignore.tmpl")),
    ]
    .into_iter()
    .chain(example_files())
    .collect()
}

fn go_files() -> Vec<TemplateFile> {
    vec![
        ("main.go", include_str!("go/main.go.tmpl")),
        ("provider_test.go", include_str!("go/provider_test.go.tmpl")),
        ("acceptance_test.go", include_str!("go/acceptance_test.go.tmpl")),
        ("go.mod", include_str!("go/go.mod.tmpl")),
        ("README.md", include_str!("go/README.md.tmpl")),
        ("Makefile", include_str!("go/Makefile.tmpl")),
        (".gitignore", include_str!("go/gitignore.tmpl")),
    ]
    .into_iter()
    .chain(example_files())
    .collect()
}

/// The configurations `terrarium docs` renders, the same for every language.
fn example_files() -> Vec<TemplateFile> {
    vec![
        ("examples/provider/provider.tf", include_str!("examples/provider.tf.tmpl")),
        (
            "examples/resources/{{NAME}}_example/resource.tf",
            include_str!("examples/resource.tf.tmpl"),
        ),
        (
            "examples/data-sources/{{NAME}}_example/data-source.tf",
            include_str!("examples/data-source.tf.tmpl"),
        ),
        ("examples/functions/greet/function.tf", include_str!("examples/function.tf.tmpl")),
    ]
}

/// Renders every file into `dir`, which must not exist or be empty.
fn write_crate(dir: &Path, scaffold: &Scaffold, files: &[TemplateFile]) -> anyhow::Result<()> {
    if dir.exists() {
        let mut entries =
            fs::read_dir(dir).with_context(|| format!("{} is not a directory", dir.display()))?;
        if entries.next().is_some() {
            bail!("{} already exists and is not empty: choose another --dir", dir.display());
        }
    }
    // Render everything first: a broken template leaves no half-written crate behind.
    let mut rendered = Vec::with_capacity(files.len());
    for (path, template) in files {
        rendered.push((scaffold.render(path)?, scaffold.render(template)?));
    }
    for (path, text) in rendered {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scaffold(name: &str) -> anyhow::Result<Scaffold> {
        Scaffold::from_args(&NewArgs {
            name: name.into(),
            dir: None,
            lang: Language::Rust,
            source: None,
            sdk_path: None,
        })
    }

    #[test]
    fn every_template_renders_with_no_placeholder_left() {
        let s = scaffold("pets").unwrap();
        for (path, template) in rust_files() {
            let text = s.render(template).unwrap();
            assert!(!text.contains("{{"), "{path}: {text}");
            assert!(!s.render(path).unwrap().contains("{{"));
        }
        let cargo = s.render(include_str!("rust/Cargo.toml.tmpl")).unwrap();
        assert!(cargo.contains("name = \"terraform-provider-pets\""));
        assert!(cargo.contains("terrarium-sdk = \"0.1\""));
        let lib = s.render(include_str!("rust/lib.rs.tmpl")).unwrap();
        assert!(lib.contains("pub struct PetsProvider;") && lib.contains("\"pets_example\""));
    }

    /// The types (Rust structs, Python and TypeScript classes) `text` defines.
    fn defined_types(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|line| {
                let line = line.trim_start();
                let rest = ["pub struct ", "class ", "export class "]
                    .iter()
                    .find_map(|prefix| line.strip_prefix(prefix))?;
                rest.split(|c: char| !c.is_alphanumeric() && c != '_').next()
            })
            .collect()
    }

    /// The lines of `text` that import names: Rust `use` items, Python and TypeScript
    /// import statements, continuation lines included.
    fn imports(text: &str) -> Vec<&str> {
        let mut lines = Vec::new();
        let mut open = false;
        for line in text.lines().map(str::trim) {
            if line.starts_with("use ") || line.starts_with("import ") || line.starts_with("from ")
            {
                open = true;
            }
            if open {
                lines.push(line);
                // A statement goes on while its line ends inside a list.
                open = line.ends_with(['{', '(', ',']);
            }
        }
        lines
    }

    #[test]
    fn a_provider_named_like_a_type_of_the_template_still_compiles() {
        // `terrarium new example` once defined `struct Example` twice; `new provider` or
        // `new value` would shadow what the template imports.
        for name in ["example", "provider", "value", "result", "resource"] {
            let mut s = scaffold(name).unwrap();
            s.sdk_path = Some(PathBuf::from("/src/terrarium"));
            let sources = [
                s.render(include_str!("rust/lib.rs.tmpl")).unwrap(),
                s.render(include_str!("python/provider.py.tmpl")).unwrap(),
                s.render(include_str!("typescript/provider.ts.tmpl")).unwrap(),
            ];
            for text in &sources {
                let mut types = defined_types(text);
                let count = types.len();
                types.sort_unstable();
                types.dedup();
                assert_eq!(types.len(), count, "{name}: a type is defined twice in\n{text}");
                let provider = s.value("STRUCT").unwrap();
                for line in imports(text) {
                    let shadowed = line
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|word| word == provider);
                    assert!(
                        !shadowed,
                        "{name}: the provider type {provider} is also imported: {line}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_python_template_renders_with_the_checkout_on_pythonpath() {
        let mut s = scaffold("pets").unwrap();
        s.sdk_path = Some(PathBuf::from("/src/terrarium"));
        for (path, template) in python_files() {
            let text = s.render(template).unwrap();
            assert!(!text.contains("{{"), "{path}: {text}");
            assert!(!s.render(path).unwrap().contains("{{"));
        }
        let makefile = s.render(include_str!("python/Makefile.tmpl")).unwrap();
        assert!(makefile.contains("TERRARIUM_CHECKOUT ?= /src/terrarium\n"), "{makefile}");
        let provider = s.render(include_str!("python/provider.py.tmpl")).unwrap();
        assert!(provider.contains("class PetsProvider(terrarium.Provider)"), "{provider}");
    }

    #[test]
    fn every_typescript_template_renders_with_a_file_dependency_on_the_checkout() {
        let mut s = scaffold("pets").unwrap();
        s.sdk_path = Some(PathBuf::from("/src/ter\"rarium"));
        for (path, template) in typescript_files() {
            let text = s.render(template).unwrap();
            assert!(!text.contains("{{"), "{path}: {text}");
            assert!(!s.render(path).unwrap().contains("{{"));
        }
        let package = s.render(include_str!("typescript/package.json.tmpl")).unwrap();
        let package: serde_json::Value = serde_json::from_str(&package).unwrap();
        assert_eq!(package["name"], "terraform-provider-pets");
        assert_eq!(package["dependencies"]["@terrarium/sdk"], "file:/src/ter\"rarium/guest-sdk/js");
        let provider = s.render(include_str!("typescript/provider.ts.tmpl")).unwrap();
        assert!(provider.contains("class PetsProvider extends Provider"), "{provider}");
        assert!(provider.contains("typeName = 'pets_example'"), "{provider}");
    }

    #[test]
    fn python_typescript_and_go_without_a_checkout_are_refused_with_what_to_do() {
        for lang in [Language::Python, Language::Typescript, Language::Go] {
            let error = Scaffold::from_args(&NewArgs {
                name: "pets".into(),
                dir: None,
                lang,
                source: None,
                sdk_path: None,
            })
            .unwrap_err()
            .to_string();
            assert!(error.contains("needs --sdk-path DIR, a Terrarium checkout"), "{error}");
        }
    }

    #[test]
    fn every_go_template_renders_with_the_checkout_replacing_the_sdk() {
        let mut s = scaffold("pets").unwrap();
        s.sdk_path = Some(PathBuf::from("/src/terrarium"));
        for (path, template) in go_files() {
            let text = s.render(template).unwrap();
            assert!(!text.contains("{{"), "{path}: {text}");
            assert!(!s.render(path).unwrap().contains("{{"));
        }
        let go_mod = s.render(include_str!("go/go.mod.tmpl")).unwrap();
        assert!(go_mod.contains("terrarium.dev/sdk => /src/terrarium/guest-sdk/go\n"), "{go_mod}");
        let main = s.render(include_str!("go/main.go.tmpl")).unwrap();
        assert!(main.contains("terrarium.NewResource[Example](\"pets_example\""), "{main}");
    }

    #[test]
    fn a_checkout_without_the_typescript_sdk_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("guest-sdk")).unwrap();
        fs::write(dir.path().join("guest-sdk/Cargo.toml"), "").unwrap();
        let error = Scaffold::from_args(&NewArgs {
            name: "pets".into(),
            dir: None,
            lang: Language::Typescript,
            source: None,
            sdk_path: Some(dir.path().to_owned()),
        })
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("not a Terrarium checkout (no guest-sdk/js/package.json"),
            "{error}"
        );
    }

    #[test]
    fn bad_names_and_sources_are_refused_with_what_to_do() {
        for bad in ["", "Pets", "1pets", "my-pets", "pets_x"] {
            let error = scaffold(bad).unwrap_err().to_string();
            assert!(error.contains("lowercase letters and digits"), "{bad}: {error}");
        }
        let error = Scaffold::from_args(&NewArgs {
            name: "pets".into(),
            dir: None,
            lang: Language::Rust,
            source: Some("example/cats".into()),
            sdk_path: None,
        })
        .unwrap_err()
        .to_string();
        assert!(error.contains("must end in the provider's name"), "{error}");
    }

    /// The versions the Python next steps pin are those scripts/setup installs and the
    /// README tells; `new` once printed an unpinned `pip install componentize-py pytest`.
    #[test]
    fn the_python_next_steps_pin_the_tools_setup_installs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let setup = fs::read_to_string(root.join("scripts/setup")).unwrap();
        let pinned = |name: &str| {
            let key = format!("{}_version=\"", name.replace('-', "_"));
            let start = setup.find(&key).unwrap_or_else(|| panic!("no {key} in scripts/setup"));
            let rest = &setup[start + key.len()..];
            format!("{name}=={}", &rest[..rest.find('"').unwrap()])
        };
        let line = python_setup();
        for tool in ["componentize-py", "pytest"] {
            assert!(line.split(' ').any(|word| word == pinned(tool)), "{tool}: {line}");
        }
        let readme = include_str!("python/README.md.tmpl");
        assert!(readme.contains(&format!("pip install {PYTHON_TOOLS}\n")), "{readme}");
    }

    #[test]
    fn a_path_dependency_also_says_its_crates_io_version() {
        let mut s = scaffold("pets").unwrap();
        s.sdk_path = Some(PathBuf::from("/src/terrarium"));
        assert_eq!(
            s.value("SDK_DEPENDENCY").unwrap(),
            "terrarium-sdk = { version = \"0.1\", path = \"/src/terrarium/guest-sdk\" }"
        );
    }

    #[test]
    fn an_unknown_placeholder_is_a_template_bug() {
        let s = scaffold("pets").unwrap();
        assert!(s.render("{{NOPE}}").is_err());
        assert!(s.render("{{NAME").is_err());
        assert_eq!(s.render("a {{NAME}} b").unwrap(), "a pets b");
    }

    #[test]
    fn a_non_empty_directory_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("keep"), "x").unwrap();
        let error = write_crate(dir.path(), &scaffold("pets").unwrap(), &rust_files());
        assert!(error.unwrap_err().to_string().contains("already exists and is not empty"));
        assert_eq!(fs::read_to_string(dir.path().join("keep")).unwrap(), "x");
    }
}

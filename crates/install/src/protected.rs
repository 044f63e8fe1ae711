//! The paths no directory grant may cover, as each command knows them: what Terrarium and
//! Terraform run or trust later (see `sandbox::dirs` for the rules). `install` and `dev`
//! check grants against them before anything is written or served; a provider start checks
//! again, with the working directory Terraform started it in.

use std::path::{Path, PathBuf};

use terrarium_runtime::cache;
use terrarium_runtime::sandbox::{ProtectedPath, Refuse};

const MIRROR_WHY: &str = "a provider that can write there can rewrite its own grants file, or \
     replace an executable that Terraform runs natively";

/// What every command protects: the terrarium executable, the compiled-component cache
/// (`cache_dir`, the one in use, and the default one), Terraform's and OpenTofu's own
/// configuration and the directories they take providers from, and Pulumi's home.
pub fn host(cache_dir: Option<&Path>) -> Vec<ProtectedPath> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = var("HOME");
    let mut protected = terraform_config(
        home.as_deref(),
        var("TF_CLI_CONFIG_FILE").as_deref(),
        var("TF_PLUGIN_CACHE_DIR").as_deref(),
    );
    protected.extend(implied_mirrors(
        home.as_deref(),
        var("XDG_DATA_HOME").as_deref(),
        std::env::var("XDG_DATA_DIRS").ok().as_deref(),
    ));
    protected.extend(opentofu_config(
        home.as_deref(),
        var("XDG_CONFIG_HOME").as_deref(),
        var("TOFU_CLI_CONFIG_FILE").as_deref(),
    ));
    protected.extend(pulumi_home(home.as_deref(), var("PULUMI_HOME").as_deref()));
    if let Some(approvals) = crate::approvals::Approvals::for_user() {
        protected.push(
            ProtectedPath::new(
                approvals.dir(),
                "your record of approved grants",
                "a provider that can write there can approve its own grants",
                Refuse::Write,
            )
            .and_inside(),
        );
        protected.extend(approvals.mirrors().iter().map(|m| mirror(m)));
    }
    if let Ok(exe) = std::env::current_exe() {
        protected.push(ProtectedPath::new(
            &exe,
            "the terrarium executable",
            "Terraform and terrarium run it natively, outside any sandbox",
            Refuse::Write,
        ));
    }
    let caches: Vec<PathBuf> =
        cache_dir.map(Path::to_path_buf).into_iter().chain(cache::default_dir()).collect();
    for dir in caches {
        protected.push(
            ProtectedPath::new(
                &dir,
                "Terrarium's compiled-component cache",
                "it holds the native code every Terrarium provider runs and the key that \
                 authenticates it, so no grant may reach it, not even read-only (set \
                 XDG_CACHE_HOME to move the cache elsewhere)",
                Refuse::Any,
            )
            .and_inside(),
        );
    }
    let configs: Vec<PathBuf> = protected
        .iter()
        .filter(|p| p.what.ends_with("CLI configuration"))
        .map(|p| p.path.clone())
        .collect();
    for config in configs {
        protected.extend(named_in_cli_config(&config, home.as_deref()));
    }
    protected
}

const PLUGIN_DIR_WHY: &str = "Terraform and OpenTofu take provider executables from it without \
     being told, and run them natively, outside any sandbox";

/// The directories Terraform and OpenTofu search for providers without being told (their
/// implied local mirrors): `$XDG_DATA_HOME/{terraform,opentofu}/plugins` (default
/// `~/.local/share`) and the same under each of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`).
fn implied_mirrors(
    home: Option<&Path>,
    data_home: Option<&Path>,
    data_dirs: Option<&str>,
) -> Vec<ProtectedPath> {
    let data_home =
        data_home.map(Path::to_path_buf).or_else(|| home.map(|h| h.join(".local/share")));
    let data_dirs = data_dirs.filter(|d| !d.is_empty()).unwrap_or("/usr/local/share:/usr/share");
    data_home
        .into_iter()
        .chain(data_dirs.split(':').filter(|d| d.starts_with('/')).map(PathBuf::from))
        .flat_map(|base| {
            ["terraform", "opentofu"].map(|client| {
                ProtectedPath::new(
                    &base.join(client).join("plugins"),
                    &format!("{client}'s implied provider mirror"),
                    PLUGIN_DIR_WHY,
                    Refuse::Write,
                )
                .and_inside()
            })
        })
        .collect()
}

/// OpenTofu's CLI configuration: `TOFU_CLI_CONFIG_FILE`, `~/.tofurc` and
/// `$XDG_CONFIG_HOME/opentofu/tofurc` (OpenTofu also reads `TF_CLI_CONFIG_FILE` and
/// `~/.terraformrc`, protected with Terraform's).
fn opentofu_config(
    home: Option<&Path>,
    config_home: Option<&Path>,
    cli_config: Option<&Path>,
) -> Vec<ProtectedPath> {
    const WHY: &str = "OpenTofu reads it to decide which provider executables to run, natively, \
                       outside any sandbox";
    let config_home =
        config_home.map(Path::to_path_buf).or_else(|| home.map(|h| h.join(".config")));
    cli_config
        .map(Path::to_path_buf)
        .into_iter()
        .chain(home.map(|h| h.join(".tofurc")))
        .chain(config_home.map(|c| c.join("opentofu/tofurc")))
        .map(|file| ProtectedPath::new(&file, "OpenTofu's CLI configuration", WHY, Refuse::Write))
        .collect()
}

/// Pulumi's home (`PULUMI_HOME`, default `~/.pulumi`): the plugins Pulumi runs natively and
/// the credentials of its backends, so no grant may reach it, not even read-only.
fn pulumi_home(home: Option<&Path>, pulumi_home: Option<&Path>) -> Vec<ProtectedPath> {
    pulumi_home
        .map(Path::to_path_buf)
        .or_else(|| home.map(|h| h.join(".pulumi")))
        .map(|dir| {
            ProtectedPath::new(
                &dir,
                "Pulumi's home (PULUMI_HOME)",
                "it holds the plugins Pulumi runs natively and the credentials of its backends",
                Refuse::Any,
            )
            .and_inside()
        })
        .into_iter()
        .collect()
}

/// Every directory a CLI configuration file names (filesystem mirrors, dev_overrides, the
/// plugin cache): each absolute path in a quoted string of the file, `~` and `$HOME`
/// expanded. Reading more than the blocks that matter is deliberate: protecting a path the
/// file only mentions costs a grant nothing it needs, missing one costs native code.
fn named_in_cli_config(file: &Path, home: Option<&Path>) -> Vec<ProtectedPath> {
    let Ok(text) = std::fs::read_to_string(file) else { return Vec::new() };
    paths_in_quotes(&text, home)
        .into_iter()
        .map(|path| {
            ProtectedPath::new(
                &path,
                &format!("a directory the CLI configuration {} names", file.display()),
                "Terraform and OpenTofu take provider executables from the directories their CLI \
                 configuration names, and run them natively",
                Refuse::Write,
            )
            .and_inside()
        })
        .collect()
}

/// The absolute paths in the double-quoted strings of `text`.
fn paths_in_quotes(text: &str, home: Option<&Path>) -> Vec<PathBuf> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| {
            let home = home?.to_string_lossy().into_owned();
            let expanded = if let Some(rest) = quoted.strip_prefix("~/") {
                format!("{home}/{rest}")
            } else {
                quoted.replace("${HOME}", &home).replace("$HOME", &home)
            };
            expanded.starts_with('/').then(|| PathBuf::from(expanded))
        })
        .collect()
}

/// Terraform's CLI configuration file (`cli_config`, else `~/.terraformrc`), which decides
/// which provider executables Terraform runs (a `dev_overrides` block names any directory),
/// and the directories Terraform takes providers from without being told
/// (`~/.terraform.d`, the plugin cache).
fn terraform_config(
    home: Option<&Path>,
    cli_config: Option<&Path>,
    plugin_cache: Option<&Path>,
) -> Vec<ProtectedPath> {
    const WHY: &str = "Terraform reads it to decide which provider executables to run, \
                       natively, outside any sandbox";
    let mut protected = Vec::new();
    if let Some(file) =
        cli_config.map(Path::to_path_buf).or_else(|| home.map(|h| h.join(".terraformrc")))
    {
        protected.push(ProtectedPath::new(
            &file,
            "Terraform's CLI configuration",
            WHY,
            Refuse::Write,
        ));
    }
    if let Some(home) = home {
        protected.push(
            ProtectedPath::new(
                &home.join(".terraform.d"),
                "Terraform's ~/.terraform.d directory",
                WHY,
                Refuse::Write,
            )
            .and_inside(),
        );
    }
    if let Some(dir) = plugin_cache {
        protected.push(
            ProtectedPath::new(
                dir,
                "Terraform's plugin cache (TF_PLUGIN_CACHE_DIR)",
                WHY,
                Refuse::Write,
            )
            .and_inside(),
        );
    }
    protected
}

/// The filesystem mirror providers are installed into.
pub fn mirror(mirror: &Path) -> ProtectedPath {
    ProtectedPath::new(mirror, "the provider mirror", MIRROR_WHY, Refuse::Write).and_inside()
}

/// An installed provider's own files, when it is started: its package directory (the
/// executable's), its component and its grants file (which `--component` and `--grants` may
/// put elsewhere).
pub fn installed_package(component: &Path, grants_file: &Path) -> Vec<ProtectedPath> {
    let mut protected = Vec::new();
    if let Some(package) = std::env::current_exe().ok().as_deref().and_then(Path::parent) {
        protected.push(
            ProtectedPath::new(
                package,
                "this provider's installed package",
                MIRROR_WHY,
                Refuse::Write,
            )
            .and_inside(),
        );
    }
    protected.push(ProtectedPath::new(
        component,
        "this provider's component",
        "a provider that can write there can replace its own code",
        Refuse::Write,
    ));
    protected.push(ProtectedPath::new(
        grants_file,
        "this provider's grants file",
        "a provider that can write there can widen its own grants",
        Refuse::Write,
    ));
    protected
}

/// Terraform's working directory (where it starts the provider): its configuration, its
/// data directory (`.terraform`, or `TF_DATA_DIR`) of providers and modules, its implied
/// mirror `terraform.d`, and the directories of the modules it loads (from the data
/// directory's `modules/modules.json`, which may name directories outside it).
pub fn working_dir(dir: &Path) -> Vec<ProtectedPath> {
    let data_dir = std::env::var_os("TF_DATA_DIR").filter(|v| !v.is_empty()).map(PathBuf::from);
    working_dir_with(dir, data_dir.as_deref())
}

fn working_dir_with(dir: &Path, data_dir: Option<&Path>) -> Vec<ProtectedPath> {
    let mut protected = vec![
        ProtectedPath::new(
            dir,
            "Terraform's working directory",
            "a provider that can write there can add a .tf file whose provisioners run commands \
             on the next apply",
            Refuse::Write,
        ),
        ProtectedPath::new(
            &dir.join(".terraform"),
            "Terraform's .terraform directory",
            "it holds the providers and modules Terraform runs",
            Refuse::Write,
        )
        .and_inside(),
        ProtectedPath::new(
            &dir.join("terraform.d"),
            "the working directory's implied provider mirror (terraform.d)",
            PLUGIN_DIR_WHY,
            Refuse::Write,
        )
        .and_inside(),
    ];
    let data_dir = data_dir.map(|d| dir.join(d)).unwrap_or_else(|| dir.join(".terraform"));
    protected.push(
        ProtectedPath::new(
            &data_dir,
            "Terraform's data directory (TF_DATA_DIR)",
            "it holds the providers Terraform runs and the manifest of the modules it loads",
            Refuse::Write,
        )
        .and_inside(),
    );
    protected.extend(module_dirs(dir, &data_dir.join("modules/modules.json")).iter().map(|m| {
        ProtectedPath::new(
            m,
            "the directory of a module Terraform loads",
            "a provider that can write there can add configuration that runs commands on the \
             next apply",
            Refuse::Write,
        )
    }));
    protected
}

/// The module directories a `modules.json` manifest names, relative to the working directory.
fn module_dirs(working_dir: &Path, manifest: &Path) -> Vec<PathBuf> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        #[serde(rename = "Modules", default)]
        modules: Vec<Module>,
    }
    #[derive(serde::Deserialize)]
    struct Module {
        #[serde(rename = "Dir")]
        dir: String,
    }
    let Ok(text) = std::fs::read_to_string(manifest) else { return Vec::new() };
    let Ok(manifest) = serde_json::from_str::<Manifest>(&text) else { return Vec::new() };
    manifest
        .modules
        .into_iter()
        .filter(|m| !m.dir.is_empty())
        .map(|m| working_dir.join(m.dir))
        .collect()
}

/// The working directory of this process, when it has one.
pub fn current_working_dir() -> Vec<ProtectedPath> {
    std::env::current_dir().map(|dir| working_dir(&dir)).unwrap_or_default()
}

/// What `terrarium dev` runs: the component it reloads, the sources `--build` compiles, and
/// what the build reads as configuration or runs: cargo's and rustup's homes and every
/// `.cargo` directory cargo consults (those of the working directory, the watched
/// directories and all their parents).
pub fn dev(component: &Path, watched: &[PathBuf]) -> Vec<ProtectedPath> {
    let mut protected = vec![ProtectedPath::new(
        component,
        "the component terrarium dev serves",
        "a provider that can write there can replace its own code, which is then reloaded",
        Refuse::Write,
    )];
    protected.extend(watched.iter().map(|dir| {
        ProtectedPath::new(
            dir,
            "a --watch directory",
            "a provider that can write there can change the sources --build compiles and runs",
            Refuse::Write,
        )
        .and_inside()
    }));
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = var("HOME");
    protected.extend(build_tools(
        var("CARGO_HOME").or_else(|| home.as_ref().map(|h| h.join(".cargo"))),
        var("RUSTUP_HOME").or_else(|| home.as_ref().map(|h| h.join(".rustup"))),
        std::env::current_dir().ok().into_iter().chain(watched.iter().cloned()),
    ));
    protected
}

/// Cargo's and rustup's homes, and the `.cargo` directory of each of `dirs` and their parents.
fn build_tools(
    cargo_home: Option<PathBuf>,
    rustup_home: Option<PathBuf>,
    dirs: impl Iterator<Item = PathBuf>,
) -> Vec<ProtectedPath> {
    const WHY: &str = "cargo reads it during --build, and its configuration can name programs \
                       cargo runs natively";
    let mut protected: Vec<ProtectedPath> =
        [(cargo_home, "cargo's home (CARGO_HOME)"), (rustup_home, "rustup's home (RUSTUP_HOME)")]
            .into_iter()
            .filter_map(|(dir, what)| {
                dir.map(|d| ProtectedPath::new(&d, what, WHY, Refuse::Write).and_inside())
            })
            .collect();
    let mut seen = std::collections::BTreeSet::new();
    for dir in dirs {
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        for ancestor in dir.ancestors() {
            let config = ancestor.join(".cargo");
            if seen.insert(config.clone()) {
                protected.push(
                    ProtectedPath::new(
                        &config,
                        "a .cargo directory cargo reads",
                        WHY,
                        Refuse::Write,
                    )
                    .and_inside(),
                );
            }
        }
    }
    protected
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrarium_runtime::sandbox::dirs::check_dir_grants;

    #[test]
    fn terraforms_own_configuration_is_protected() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        for d in ["work/data", "cache", "plugins/mirror"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        let rw = |p: &Path| vec![format!("{}:rw", p.display()).parse().unwrap()];
        let protected = terraform_config(Some(&home), None, Some(&home.join("cache")));
        for (grant, what) in
            [(home.clone(), "Terraform's CLI configuration"), (home.join("cache"), "plugin cache")]
        {
            let err = check_dir_grants(&rw(&grant), &protected).unwrap_err().to_string();
            assert!(err.contains(what), "{err}");
        }
        assert!(check_dir_grants(&rw(&home.join("work/data")), &protected).is_ok());
        // TF_CLI_CONFIG_FILE names the file that counts.
        let config = home.join("plugins/cli.tfrc");
        let protected = terraform_config(Some(&home), Some(&config), None);
        let err = check_dir_grants(&rw(&home.join("plugins")), &protected).unwrap_err();
        assert!(err.to_string().contains("CLI configuration"), "{err}");
    }
}

//! The paths no directory grant may cover, as each command knows them: what Terrarium and
//! Terraform run or trust later (see `sandbox::dirs` for the rules). `install` and `dev`
//! check grants against them before anything is written or served; a provider start checks
//! again, with the working directory Terraform started it in.

use std::path::{Path, PathBuf};

use crate::runtime::cache;
use crate::sandbox::{ProtectedPath, Refuse};

const MIRROR_WHY: &str = "a provider that can write there can rewrite its own grants file, or \
     replace an executable that Terraform runs natively";

/// What every command protects: the terrarium executable, the compiled-component cache
/// (`cache_dir`, the one in use, and the default one) and Terraform's own configuration.
pub fn host(cache_dir: Option<&Path>) -> Vec<ProtectedPath> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut protected = terraform_config(
        var("HOME").as_deref(),
        var("TF_CLI_CONFIG_FILE").as_deref(),
        var("TF_PLUGIN_CACHE_DIR").as_deref(),
    );
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
    protected
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

/// Terraform's working directory (where it starts the provider): its configuration, and its
/// `.terraform` directory of providers and modules.
pub fn working_dir(dir: &Path) -> Vec<ProtectedPath> {
    vec![
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
    ]
}

/// The working directory of this process, when it has one.
pub fn current_working_dir() -> Vec<ProtectedPath> {
    std::env::current_dir().map(|dir| working_dir(&dir)).unwrap_or_default()
}

/// What `terrarium dev` runs: the component it reloads and the sources `--build` compiles.
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
    protected
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::dirs::check_dir_grants;

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

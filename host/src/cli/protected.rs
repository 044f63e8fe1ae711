//! The paths no directory grant may cover, as each command knows them: what Terrarium and
//! Terraform run or trust later (see `sandbox::dirs` for the rules). `install` and `dev`
//! check grants against them before anything is written or served; a provider start checks
//! again, with the working directory Terraform started it in.

use std::path::{Path, PathBuf};

use crate::runtime::cache;
use crate::sandbox::{ProtectedPath, Refuse};

const MIRROR_WHY: &str = "a provider that can write there can rewrite its own grants file, or \
     replace an executable that Terraform runs natively";

/// What every command protects: the terrarium executable and the compiled-component cache
/// (`cache_dir`, the one in use, and the default one).
pub fn host(cache_dir: Option<&Path>) -> Vec<ProtectedPath> {
    let mut protected = Vec::new();
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

//! `docs/architecture.md` is the map of the code, and a map that names what no longer exists
//! sends a newcomer looking for it. So every repository path the map names in a code span must
//! exist, and every `Type::function` and `module::function` it names must be a function of that
//! type or module in the Rust sources.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of every code span (`...`) outside fenced blocks.
fn code_spans(markdown: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            spans.push(inside.to_string());
        }
    }
    spans
}

/// Every tracked-looking Rust file of the repository (build outputs and tools left out).
fn rust_sources(root: &Path) -> BTreeMap<PathBuf, String> {
    const SKIPPED: &[&str] = &["target", "build", ".git", ".venv", "node_modules", "reference"];
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !SKIPPED.contains(&name.as_str()) {
                    dirs.push(path);
                }
            } else if name.ends_with(".rs")
                && let Ok(text) = fs::read_to_string(&path)
            {
                out.insert(path.strip_prefix(root).unwrap_or(&path).to_path_buf(), text);
            }
        }
    }
    out
}

fn is_path(span: &str) -> bool {
    const EXTENSIONS: &[&str] = &[".rs", ".wit", ".proto", ".md", ".toml", ".py", ".ts", ".go"];
    span.contains('/')
        && !span.contains("://")
        && span.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        && (span.ends_with('/') || EXTENSIONS.iter().any(|e| span.ends_with(e)))
}

fn split_item(span: &str) -> Option<(&str, &str)> {
    let (owner, function) = span.split_once("::")?;
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    let function_like = function.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    (ident(owner) && ident(function) && function_like).then_some((owner, function))
}

fn defines_fn(text: &str, function: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn ", "async fn ", "pub async fn "]
            .iter()
            .chain(["pub(crate) async fn ", "pub(super) async fn "].iter())
            .any(|prefix| {
                line.strip_prefix(prefix).is_some_and(|rest| {
                    rest.strip_prefix(function).is_some_and(|after| after.starts_with(['(', '<']))
                })
            })
    })
}

/// A type's functions are in a file that implements the type (or declares the trait).
fn type_has_fn(sources: &BTreeMap<PathBuf, String>, owner: &str, function: &str) -> bool {
    let implements = |text: &str| {
        text.lines().any(|line| {
            let line = line.trim_start();
            let head = line.split('{').next().unwrap_or("");
            let words: Vec<&str> = head
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            (line.starts_with("impl") && words.contains(&owner))
                || line.starts_with(&format!("pub trait {owner}"))
                || line.starts_with(&format!("trait {owner}"))
                || line.starts_with(&format!("pub(crate) trait {owner}"))
        })
    };
    sources.values().any(|text| implements(text) && defines_fn(text, function))
}

/// A module's functions are in `module.rs`, `module/mod.rs`, or a crate's `lib.rs`
/// (`terrarium_core::...`, or the crate's short name as the map writes it).
fn module_has_fn(sources: &BTreeMap<PathBuf, String>, module: &str, function: &str) -> bool {
    let short = module.strip_prefix("terrarium_").unwrap_or(module);
    sources.iter().any(|(path, text)| {
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
        let parent = path.parent().and_then(|p| p.file_name()).and_then(|f| f.to_str());
        let grandparent = path
            .parent()
            .and_then(|p| p.parent())
            .and_then(|p| p.file_name())
            .and_then(|f| f.to_str());
        let is_module = file == format!("{module}.rs")
            || (file == "mod.rs" && parent == Some(module))
            || (file == "lib.rs" && parent == Some("src") && grandparent == Some(short));
        is_module && defines_fn(text, function)
    })
}

#[test]
fn architecture_md_names_only_what_exists() {
    let root = repo_root();
    let map = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let sources = rust_sources(&root);
    let mut missing = Vec::new();
    let spans = code_spans(&map);
    let (mut paths, mut items) = (0, 0);
    for span in &spans {
        if is_path(span) {
            paths += 1;
            if !root.join(span).exists() {
                missing.push(format!("the path `{span}` does not exist"));
            }
        } else if let Some((owner, function)) = split_item(span) {
            items += 1;
            let found = if owner.starts_with(|c: char| c.is_ascii_uppercase()) {
                type_has_fn(&sources, owner, function)
            } else {
                module_has_fn(&sources, owner, function)
            };
            if !found {
                missing.push(format!("`{span}`: no function `{function}` of `{owner}`"));
            }
        }
    }
    assert!(paths > 20 && items > 20, "the map names {paths} paths and {items} functions");
    assert!(
        missing.is_empty(),
        "docs/architecture.md names what the code does not have; update the map:\n  {}",
        missing.join("\n  ")
    );
}

/// The link targets of `markdown` that are files of this repository (no URL, no anchor alone).
fn local_links(markdown: &str) -> Vec<String> {
    let mut links = Vec::new();
    for part in markdown.split("](").skip(1) {
        let Some(end) = part.find(')') else { continue };
        let target = part[..end].split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            links.push(target.to_string());
        }
    }
    links
}

/// What the build or setup writes, not the repository: named in the docs, never checked in.
fn generated(span: &str) -> bool {
    const GENERATED: &[&str] =
        &["build/", "target/", ".venv/", "dist/", "mirror/", "guest-sdk/js/dist", "notes/"];
    GENERATED.iter().any(|g| span.starts_with(g)) || span.contains("node_modules")
}

/// A path of this repository, as the docs write one: its first directory is one at the top of
/// the repository (`crates/...`, `guest-sdk/...`); not a placeholder (`docs/resources/TYPE.md`)
/// nor what `terrarium docs` or `terrarium new` write in an author's project (`docs/index.md`,
/// `tests/acceptance.rs`).
fn repository_path(root: &Path, span: &str) -> bool {
    const AUTHORS: &[&str] = &["docs/index.md", "docs/resources/", "tests/acceptance.rs"];
    const PLACEHOLDERS: &[&str] = &["TYPE", "NAME", "VERSION", "HOST", "NAMESPACE", "OUT/"];
    let first = span.split('/').next().unwrap_or("");
    !first.is_empty()
        && root.join(first).is_dir()
        && !PLACEHOLDERS.iter().any(|p| span.contains(p))
        && !AUTHORS.iter().any(|a| span.starts_with(a))
}

/// README.md, CONTRIBUTING.md and docs/*.md send a newcomer to files: each one they name (in a
/// code span or a link) must exist, relative to the repository or to the document.
#[test]
fn the_readme_and_docs_name_only_paths_that_exist() {
    let root = repo_root();
    let mut documents = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    for entry in fs::read_dir(root.join("docs")).expect("docs/").flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            documents.push(entry.path());
        }
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for document in &documents {
        let text = fs::read_to_string(document).expect("a document");
        let dir = document.parent().unwrap_or(&root);
        let name = document.strip_prefix(&root).unwrap_or(document).display().to_string();
        let spans = code_spans(&text)
            .into_iter()
            .filter(|s| is_path(s) && !generated(s) && repository_path(&root, s));
        for path in spans.chain(local_links(&text)) {
            checked += 1;
            if !root.join(&path).exists() && !dir.join(&path).exists() {
                missing.push(format!("{name} names `{path}`, which does not exist"));
            }
        }
    }
    assert!(checked > 100, "only {checked} paths found in {documents:?}");
    assert!(
        missing.is_empty(),
        "documents name paths that do not exist; correct them:\n  {}",
        missing.join("\n  ")
    );
}

/// Every package authors depend on keeps a changelog naming its breaking changes and their
/// migrations, so that code written against an earlier version does not break silently.
#[test]
fn every_package_authors_depend_on_has_a_changelog() {
    let root = repo_root();
    let packages = ["guest-sdk", "guest-sdk/acctest", "guest-sdk/python", "guest-sdk/js"];
    let missing: Vec<String> = packages
        .iter()
        .chain(&["guest-sdk/go", "wit"])
        .map(|p| format!("{p}/CHANGELOG.md"))
        .filter(|p| !root.join(p).is_file())
        .collect();
    assert!(missing.is_empty(), "packages without a changelog: {missing:?}");
    let sdk = fs::read_to_string(root.join("guest-sdk/CHANGELOG.md")).unwrap_or_default();
    assert!(
        sdk.contains("type Source") && sdk.contains("identity_of"),
        "guest-sdk/CHANGELOG.md should give the migration for ResourceIdentity's `type Source`"
    );
}

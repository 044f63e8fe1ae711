//! The crate an author outside this repository makes by following guest-sdk/README.md
//! (sections 1 to 3: `cargo new --lib`, its `Cargo.toml`, the pets provider and its test),
//! built as the README and docs/dev-mode.md build it, so that the reload figures are the ones
//! such an author gets, not only those of this repository's own tuned examples.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// Which `Cargo.toml` profiles the crate is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profiles {
    /// What `cargo new` writes: no profile sections at all.
    CargoNew,
    /// The README's `Cargo.toml`, profile sections included.
    Readme,
}

impl Profiles {
    pub fn name(self) -> &'static str {
        match self {
            Profiles::CargoNew => "cargo new's profiles",
            Profiles::Readme => "the README's dev profile",
        }
    }

    fn dir_name(self) -> &'static str {
        match self {
            Profiles::CargoNew => "cargo-new",
            Profiles::Readme => "readme",
        }
    }
}

/// One build of the author's crate.
pub struct AuthorBuild {
    pub profiles: Profiles,
    /// The debug component (`cargo build --target wasm32-wasip2`).
    pub component: PathBuf,
    /// Seconds `cargo build --target wasm32-wasip2` took after `src/lib.rs` changed: the
    /// build half of an edit-reload loop.
    pub rebuild_s: f64,
    /// The crate's directory.
    pub dir: PathBuf,
}

/// The fenced block of `language` that follows the heading starting with `heading`.
fn block_after<'a>(readme: &'a str, heading: &str, language: &str) -> anyhow::Result<&'a str> {
    let start = readme
        .find(&format!("\n## {heading}"))
        .with_context(|| format!("guest-sdk/README.md has no section \"## {heading}\""))?;
    let fence = format!("\n```{language}\n");
    let open = readme[start..]
        .find(&fence)
        .with_context(|| format!("no ```{language} block after \"## {heading}\""))?
        + start
        + fence.len();
    let close = readme[open..].find("\n```").context("an unclosed code block")? + open;
    Ok(&readme[open..=close])
}

/// The `Cargo.toml` the README shows, its `terrarium-sdk` path pointed at this repository's
/// SDK, and without its profile sections for [`Profiles::CargoNew`].
fn cargo_toml_additions(readme: &str, sdk: &Path, profiles: Profiles) -> anyhow::Result<String> {
    let toml = block_after(readme, "1.", "toml")?;
    // Whatever the README's line says (a registry version, or a path for a checkout), the
    // bench builds against this repository's SDK.
    let sdk_line = format!("terrarium-sdk = {{ path = \"{}\" }}", sdk.display());
    if !toml.lines().any(|l| l.starts_with("terrarium-sdk =")) {
        bail!(
            "the README's Cargo.toml no longer has a terrarium-sdk line; update bench/src/author.rs"
        );
    }
    let toml: String = toml
        .lines()
        .map(|l| if l.starts_with("terrarium-sdk =") { sdk_line.as_str() } else { l })
        .map(|l| format!("{l}\n"))
        .collect();
    Ok(match profiles {
        Profiles::Readme => toml,
        Profiles::CargoNew => {
            let mut kept = Vec::new();
            for line in toml.lines() {
                if line.starts_with("[profile") {
                    break;
                }
                kept.push(line);
            }
            // Comments that introduced the profile sections go with them.
            while kept.last().is_some_and(|l| l.starts_with('#') || l.is_empty()) {
                kept.pop();
            }
            kept.join("\n") + "\n"
        }
    })
}

fn cargo(dir: &Path, args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(args)
        .current_dir(dir)
        // The author's crate is its own workspace with its own target directory, as outside
        // this repository; the bench's own environment must not leak in.
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .status()
        .with_context(|| format!("cannot run cargo in {}", dir.display()))?;
    if !status.success() {
        bail!("cargo {} failed in {}", args.join(" "), dir.display());
    }
    Ok(())
}

/// Makes the crate under `root` (once; later runs reuse it and its target directory) and
/// builds it; then changes `src/lib.rs` and times the rebuild.
pub fn build(repo: &Path, root: &Path, profiles: Profiles) -> anyhow::Result<AuthorBuild> {
    let readme = std::fs::read_to_string(repo.join("guest-sdk/README.md"))?;
    let parent = root.join(profiles.dir_name());
    let dir = parent.join("terraform-provider-pets");
    let lib = [block_after(&readme, "2.", "rust")?, block_after(&readme, "3.", "rust")?].join("\n");
    let additions = cargo_toml_additions(&readme, &repo.join("guest-sdk"), profiles)?;
    if !dir.join("Cargo.toml").exists() {
        std::fs::create_dir_all(&parent)?;
        cargo(&parent, &["new", "--lib", "--vcs", "none", "terraform-provider-pets"])?;
    }
    // `cargo new` writes [package], then an empty [dependencies]; the README's sections
    // follow [package] (also when an earlier run wrote them already).
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))?;
    let package = manifest.split("\n[").next().unwrap_or(&manifest).trim_end();
    let manifest = format!("{package}\n\n{additions}");
    write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
    write_if_changed(&dir.join("src/lib.rs"), &lib)?;
    eprintln!("   building {} ({})", dir.display(), profiles.name());
    cargo(&dir, &["build", "--target", "wasm32-wasip2"])?;
    // An edit: the same code with one more comment line, so every build is a real rebuild.
    std::fs::write(dir.join("src/lib.rs"), format!("{lib}\n// edited {:?}\n", Instant::now()))?;
    let started = Instant::now();
    cargo(&dir, &["build", "--target", "wasm32-wasip2"])?;
    let rebuild_s = started.elapsed().as_secs_f64();
    let component = dir.join("target/wasm32-wasip2/debug/terraform_provider_pets.wasm");
    if !component.exists() {
        bail!("the build left no {}", component.display());
    }
    Ok(AuthorBuild { profiles, component, rebuild_s, dir })
}

fn write_if_changed(path: &Path, text: &str) -> anyhow::Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// The author's builds, made on first use and then shared by the sections that need them.
pub struct Builds {
    repo: PathBuf,
    root: PathBuf,
    debug: Vec<AuthorBuild>,
    release: Option<PathBuf>,
}

impl Builds {
    pub fn new(repo: &Path, root: &Path) -> Builds {
        Builds {
            repo: repo.to_path_buf(),
            root: root.to_path_buf(),
            debug: Vec::new(),
            release: None,
        }
    }

    /// The debug build with `profiles`.
    pub fn debug(&mut self, profiles: Profiles) -> anyhow::Result<&AuthorBuild> {
        if let Some(i) = self.debug.iter().position(|b| b.profiles == profiles) {
            return Ok(&self.debug[i]);
        }
        let built = build(&self.repo, &self.root, profiles)?;
        self.debug.push(built);
        Ok(&self.debug[self.debug.len() - 1])
    }

    /// The release build (`cargo build --release`, as the README's section 4 installs it).
    pub fn release(&mut self) -> anyhow::Result<PathBuf> {
        if let Some(path) = &self.release {
            return Ok(path.clone());
        }
        let dir = self.debug(Profiles::CargoNew)?.dir.clone();
        eprintln!("   building {} (release)", dir.display());
        cargo(&dir, &["build", "--release", "--target", "wasm32-wasip2"])?;
        let component = dir.join("target/wasm32-wasip2/release/terraform_provider_pets.wasm");
        if !component.exists() {
            bail!("the build left no {}", component.display());
        }
        self.release = Some(component.clone());
        Ok(component)
    }
}

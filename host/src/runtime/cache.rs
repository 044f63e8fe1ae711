//! The compiled-component cache. Terraform starts a provider process three or four times per
//! command, so compiling the component on every start would dominate its cost. The first
//! start compiles it and stores the artifact; later starts load it.
//!
//! Entries live in the user's cache directory (`$XDG_CACHE_HOME/terrarium`, else
//! `~/.cache/terrarium`), never beside the installed provider, whose directory Terraform's lock
//! file hashes. An entry is named by the SHA-256 of the component and of the engine's
//! settings, so a changed component or a different wasmtime build never finds a stale entry.
//! Each entry carries the SHA-256 of its own bytes and is checked before use: loading native
//! code from a corrupted file would be undefined behaviour, so a truncated, corrupted or
//! foreign entry is rebuilt, never trusted. Entries are written to a temporary file and
//! renamed into place, so concurrent first starts cannot see half an entry.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Entries start with this, then the SHA-256 of the rest, then the artifact.
const MAGIC: &[u8; 16] = b"terrarium-cwasm1";
const HEADER: usize = MAGIC.len() + 32;

/// The default cache directory, or `None` when neither `XDG_CACHE_HOME` nor `HOME` is set.
pub fn default_dir() -> Option<PathBuf> {
    let from = |key: &str| std::env::var_os(key).filter(|v| !v.is_empty()).map(PathBuf::from);
    from("XDG_CACHE_HOME")
        .or_else(|| from("HOME").map(|h| h.join(".cache")))
        .map(|d| d.join("terrarium"))
}

/// Feeds `Hash` output into SHA-256, so the engine's settings hash is stable across
/// processes (std's hashers are randomly seeded).
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn finish(&self) -> u64 {
        0
    }
}

/// The entry name for a component under an engine's settings.
pub fn key(engine: &Engine, component: &[u8]) -> String {
    let mut h = ShaHasher(Sha256::new());
    h.write(b"terrarium-component-cache\0");
    h.write(env!("CARGO_PKG_VERSION").as_bytes());
    engine.precompile_compatibility_hash().hash(&mut h);
    h.write(&Sha256::digest(component));
    hex::encode(h.0.finalize())
}

/// What happened when a component was loaded, for logs and benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    Hit,
    /// Compiled and stored (or the store failed, which is logged and otherwise harmless).
    Miss,
    /// A bad entry was found, discarded and rebuilt.
    Rebuilt,
    Disabled,
}

/// Loads `bytes` as a component through the cache in `dir` (compiling directly when `dir`
/// is `None`). Compilation errors are returned; cache I/O problems only cost speed.
pub fn load(
    engine: &Engine,
    bytes: &[u8],
    dir: Option<&Path>,
) -> wasmtime::Result<(Component, CacheOutcome)> {
    let Some(dir) = dir else {
        return Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled));
    };
    let path = dir.join(format!("{}.cwasm", key(engine, bytes)));
    let mut outcome = CacheOutcome::Miss;
    match std::fs::read(&path) {
        Ok(entry) => match verified_artifact(&entry) {
            // SAFETY: the artifact's bytes are exactly what `precompile_component` produced
            // for this engine's settings (the key covers them) and the checksum proves they
            // are unchanged since; `deserialize` copies them, so later changes to the file
            // cannot affect the loaded code.
            Some(artifact) => match unsafe { Component::deserialize(engine, artifact) } {
                Ok(component) => return Ok((component, CacheOutcome::Hit)),
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "discarding a cache entry wasmtime refused");
                    outcome = CacheOutcome::Rebuilt;
                }
            },
            None => {
                tracing::warn!(path = %path.display(), "discarding a corrupted or truncated cache entry");
                outcome = CacheOutcome::Rebuilt;
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the cache entry; compiling")
        }
    }
    let artifact = engine.precompile_component(bytes)?;
    if let Err(e) = store(dir, &path, &artifact) {
        tracing::warn!(dir = %dir.display(), error = %e, "cannot store the compiled component; the next start compiles again");
    }
    // SAFETY: produced just now by this engine.
    let component = unsafe { Component::deserialize(engine, &artifact)? };
    Ok((component, outcome))
}

fn verified_artifact(entry: &[u8]) -> Option<&[u8]> {
    if entry.len() < HEADER || &entry[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (sum, artifact) = entry[MAGIC.len()..].split_at(32);
    (Sha256::digest(artifact).as_slice() == sum).then_some(artifact)
}

fn store(dir: &Path, path: &Path, artifact: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(&Sha256::digest(artifact))?;
    tmp.write_all(artifact)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // The smallest component there is.
    const EMPTY_COMPONENT: &str = "(component)";

    fn engine() -> Engine {
        Engine::default()
    }

    #[test]
    fn second_load_hits_and_damage_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine();
        let bytes = wat::parse_str(EMPTY_COMPONENT).unwrap();
        let (_, first) = load(&engine, &bytes, Some(dir.path())).unwrap();
        assert_eq!(first, CacheOutcome::Miss);
        let (_, second) = load(&engine, &bytes, Some(dir.path())).unwrap();
        assert_eq!(second, CacheOutcome::Hit);

        let entry = dir.path().join(format!("{}.cwasm", key(&engine, &bytes)));
        // Flip one byte of the artifact.
        let mut data = std::fs::read(&entry).unwrap();
        let last = data.len() - 1;
        data[last] ^= 0xff;
        std::fs::write(&entry, &data).unwrap();
        assert_eq!(load(&engine, &bytes, Some(dir.path())).unwrap().1, CacheOutcome::Rebuilt);
        assert_eq!(load(&engine, &bytes, Some(dir.path())).unwrap().1, CacheOutcome::Hit);

        // Truncate it.
        std::fs::write(&entry, &data[..HEADER / 2]).unwrap();
        assert_eq!(load(&engine, &bytes, Some(dir.path())).unwrap().1, CacheOutcome::Rebuilt);
    }

    #[test]
    fn concurrent_first_starts_all_load_and_leave_a_valid_entry() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine();
        let bytes = wat::parse_str(EMPTY_COMPONENT).unwrap();
        std::thread::scope(|scope| {
            let loads: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| load(&engine, &bytes, Some(dir.path())).map(|(_, o)| o)))
                .collect();
            for l in loads {
                let outcome = l.join().unwrap().unwrap();
                assert!(matches!(outcome, CacheOutcome::Miss | CacheOutcome::Hit), "{outcome:?}");
            }
        });
        assert_eq!(load(&engine, &bytes, Some(dir.path())).unwrap().1, CacheOutcome::Hit);
        // Only the entry remains: no temporary files were left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn key_depends_on_the_component() {
        let engine = engine();
        assert_ne!(key(&engine, b"a"), key(&engine, b"b"));
        assert_eq!(key(&engine, b"a"), key(&engine, b"a"));
    }
}

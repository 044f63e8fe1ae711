//! The compiled-component cache. Terraform starts a provider process three or four times per
//! command, so compiling the component on every start would dominate its cost. The first
//! start compiles it and stores the artifact; later starts load it.
//!
//! Entries live in the user's cache directory (`$XDG_CACHE_HOME/terrarium`, else
//! `~/.cache/terrarium`), never beside the installed provider, whose directory Terraform's lock
//! file hashes. An entry is named by the SHA-256 of the component and of the engine's
//! settings, so a changed component or a different wasmtime build never finds a stale entry.
//! Entries are written to a temporary file and renamed into place, so concurrent first starts
//! cannot see half an entry.
//!
//! An entry is native code the host runs, so it is authenticated, not only checksummed: its
//! header carries an HMAC-SHA256, under a per-user random key ([`KEY_FILE_NAME`], created on
//! first use, readable by the user only), of the entry's name and of the SHA-256 of its
//! artifact. A truncated or corrupted entry, an entry of another component copied over this
//! one, or an entry written by anyone without the key is rebuilt, never run. No directory
//! grant may cover the cache directory (`sandbox::dirs`), so a provider can neither read the
//! key nor write entries; the MAC is what still holds when something else can.
//!
//! Why a MAC over a digest rather than over the artifact: the header is small, so a later
//! start that maps the artifact (`Component::deserialize_file`) instead of reading it can
//! check the MAC without hashing the whole file, given a second proof that the file is the
//! one the digest was taken of (for instance a MAC'd record of its device, inode, size and
//! change time, which every write and rename changes). Today the artifact is read and its
//! digest compared on every load.

use std::hash::{Hash, Hasher};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac as _};
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Entries start with this, then the MAC, then the SHA-256 of the artifact, then the artifact.
const MAGIC: &[u8; 16] = b"terrarium-cwasm2";
const HEADER: usize = MAGIC.len() + 32 + 32;

/// The key file inside the cache directory.
pub const KEY_FILE_NAME: &str = "entries.key";
const KEY_BYTES: usize = 32;

type HmacSha256 = Hmac<Sha256>;

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
    // The entry format too: builds that write another format use other names, instead of
    // each discarding the other's entries in a cache they share.
    h.write(MAGIC);
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
/// is `None`, or when the cache's key cannot be read or made). Compilation errors are
/// returned; cache I/O problems only cost speed.
pub fn load(
    engine: &Engine,
    bytes: &[u8],
    dir: Option<&Path>,
) -> wasmtime::Result<(Component, CacheOutcome)> {
    let Some(dir) = dir else {
        return Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled));
    };
    let secret = match entry_key(dir) {
        Ok(secret) => secret,
        Err(e) => {
            // Without the key no entry can be trusted, nor stored for a later start to trust.
            tracing::warn!(dir = %dir.display(), error = %e, "cannot read or create the compiled-component cache's key; compiling without the cache");
            return Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled));
        }
    };
    let name = key(engine, bytes);
    let path = dir.join(format!("{name}.cwasm"));
    let mut outcome = CacheOutcome::Miss;
    match std::fs::read(&path) {
        Ok(entry) => match authenticated_artifact(&secret, &name, &entry) {
            // SAFETY: the MAC proves that this host wrote these bytes under this entry name,
            // i.e. that they are what `precompile_component` produced for this component and
            // this engine's settings, and they are unchanged since; `deserialize` copies them,
            // so later changes to the file cannot affect the loaded code.
            Some(artifact) => match unsafe { Component::deserialize(engine, artifact) } {
                Ok(component) => return Ok((component, CacheOutcome::Hit)),
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "discarding a cache entry wasmtime refused");
                    outcome = CacheOutcome::Rebuilt;
                }
            },
            None => {
                tracing::warn!(path = %path.display(), "discarding a cache entry that is corrupted, truncated or not authentic");
                outcome = CacheOutcome::Rebuilt;
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the cache entry; compiling")
        }
    }
    let artifact = engine.precompile_component(bytes)?;
    if let Err(e) = store(dir, &path, &secret, &name, &artifact) {
        tracing::warn!(dir = %dir.display(), error = %e, "cannot store the compiled component; the next start compiles again");
    }
    // SAFETY: produced just now by this engine.
    let component = unsafe { Component::deserialize(engine, &artifact)? };
    Ok((component, outcome))
}

/// The MAC of an entry's header fields.
fn tag(secret: &[u8; KEY_BYTES], name: &str, digest: &[u8]) -> HmacSha256 {
    // A key of any length is accepted by HMAC; this cannot fail.
    let mut mac = <HmacSha256 as hmac::Mac>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(MAGIC);
    mac.update(&(name.len() as u64).to_le_bytes());
    mac.update(name.as_bytes());
    mac.update(digest);
    mac
}

/// The artifact of an entry whose MAC and digest hold, for the entry named `name`.
fn authenticated_artifact<'a>(
    secret: &[u8; KEY_BYTES],
    name: &str,
    entry: &'a [u8],
) -> Option<&'a [u8]> {
    if entry.len() < HEADER || &entry[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (mac, rest) = entry[MAGIC.len()..].split_at(32);
    let (digest, artifact) = rest.split_at(32);
    tag(secret, name, digest).verify_slice(mac).ok()?;
    (Sha256::digest(artifact).as_slice() == digest).then_some(artifact)
}

fn store(
    dir: &Path,
    path: &Path,
    secret: &[u8; KEY_BYTES],
    name: &str,
    artifact: &[u8],
) -> std::io::Result<()> {
    let digest = Sha256::digest(artifact);
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(&tag(secret, name, &digest).finalize().into_bytes())?;
    tmp.write_all(&digest)?;
    tmp.write_all(artifact)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The cache's key, created (with the directory) on first use. Only the user can read it.
fn entry_key(dir: &Path) -> std::io::Result<[u8; KEY_BYTES]> {
    let path = dir.join(KEY_FILE_NAME);
    if let Some(secret) = read_key(&path)? {
        return Ok(secret);
    }
    create_private_dir(dir)?;
    let mut secret = [0u8; KEY_BYTES];
    getrandom::fill(&mut secret).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    // NamedTempFile is created with mode 0600.
    tmp.write_all(&secret)?;
    tmp.as_file().sync_all()?;
    match tmp.persist_noclobber(&path) {
        Ok(_) => Ok(secret),
        // Another start made one meanwhile: use that one.
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => match read_key(&path)? {
            Some(secret) => Ok(secret),
            None => Err(std::io::Error::other("the key file is damaged")),
        },
        Err(e) => Err(e.error),
    }
}

/// The key in `path`; `None` when there is none. A damaged key file is replaced by a new key,
/// which only means every entry is rebuilt once.
fn read_key(path: &Path) -> std::io::Result<Option<[u8; KEY_BYTES]>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::with_capacity(KEY_BYTES + 1);
    file.take(KEY_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    match <[u8; KEY_BYTES]>::try_from(bytes.as_slice()) {
        Ok(secret) => Ok(Some(secret)),
        Err(_) => {
            tracing::warn!(path = %path.display(), "replacing a damaged compiled-component cache key");
            std::fs::remove_file(path)?;
            Ok(None)
        }
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
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
        // Only the key and the entry remain: no temporary files were left behind.
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, [format!("{}.cwasm", key(&engine, &bytes)), KEY_FILE_NAME.to_string()]);
    }

    #[test]
    fn another_components_entry_or_one_made_without_the_key_is_rebuilt_never_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine();
        // Two components that differ in what they import.
        let a = wat::parse_str("(component (import \"a\" (func)))").unwrap();
        let b = wat::parse_str("(component (import \"b\" (func)))").unwrap();
        let imports = |c: &Component| -> Vec<String> {
            c.component_type().imports(&engine).map(|(n, _)| n.to_string()).collect()
        };
        load(&engine, &a, Some(dir.path())).unwrap();
        load(&engine, &b, Some(dir.path())).unwrap();
        let entry = |bytes: &[u8]| dir.path().join(format!("{}.cwasm", key(&engine, bytes)));

        // B's entry (valid on its own, self-checksum included) copied over A's.
        std::fs::copy(entry(&b), entry(&a)).unwrap();
        let (component, outcome) = load(&engine, &a, Some(dir.path())).unwrap();
        assert_eq!(outcome, CacheOutcome::Rebuilt);
        assert_eq!(imports(&component), ["a"]);

        // An entry for A made with another key, as someone without this user's key would.
        let forged = [7u8; KEY_BYTES];
        let artifact = engine.precompile_component(&b).unwrap();
        store(dir.path(), &entry(&a), &forged, &key(&engine, &a), &artifact).unwrap();
        let (component, outcome) = load(&engine, &a, Some(dir.path())).unwrap();
        assert_eq!(outcome, CacheOutcome::Rebuilt);
        assert_eq!(imports(&component), ["a"]);
        assert_eq!(load(&engine, &a, Some(dir.path())).unwrap().1, CacheOutcome::Hit);
    }

    #[test]
    fn the_key_is_private_made_once_and_a_damaged_one_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let first = entry_key(&cache).unwrap();
        assert_eq!(entry_key(&cache).unwrap(), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&cache.join(KEY_FILE_NAME)), 0o600);
            assert_eq!(mode(&cache), 0o700);
        }
        std::fs::write(cache.join(KEY_FILE_NAME), b"short").unwrap();
        let replaced = entry_key(&cache).unwrap();
        assert_ne!(replaced, first);
        assert_eq!(entry_key(&cache).unwrap(), replaced);
    }

    #[test]
    fn key_depends_on_the_component() {
        let engine = engine();
        assert_ne!(key(&engine, b"a"), key(&engine, b"b"));
        assert_eq!(key(&engine, b"a"), key(&engine, b"a"));
    }
}

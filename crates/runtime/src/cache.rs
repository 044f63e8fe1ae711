//! The compiled-component cache. Terraform starts a provider process three or four times per
//! command, so compiling the component on every start would dominate its cost. The first
//! start compiles it and stores the artifact; later starts map it into memory.
//!
//! Entries live in the user's cache directory (`$XDG_CACHE_HOME/terrarium`, else
//! `~/.cache/terrarium`), never beside the installed provider, whose directory Terraform's lock
//! file hashes. Three kinds of files, each written to a temporary file and renamed into place
//! (so concurrent first starts never see half of one):
//!
//! * `ENTRY.cwasm`: an artifact, exactly what `Engine::precompile_component` produced, read-only.
//!   `ENTRY` is the SHA-256 of the component and of the engine's settings, so a changed component
//!   or a different wasmtime build never finds a stale entry.
//! * `ENTRY.tag`: an HMAC-SHA256 under a per-user random key ([`KEY_FILE_NAME`], created on first
//!   use, readable by the user only) of the entry's name, the SHA-256 of its artifact, and the
//!   artifact file's identity (device, inode, size, modification and change times).
//! * `RECORD.rec`: for one component file and one engine (`RECORD` hashes the file's path and
//!   the engine's settings), the HMAC of the component file's identity and of the entry its
//!   contents compile to.
//!
//! A start stats the component file; when a record holds its identity and the entry's tag the
//! artifact's, the artifact is mapped (`Component::deserialize_file`) without reading or
//! hashing either file, so a 33 MB component loads in about a millisecond. Every write,
//! truncation, rename or replacement of a file changes its identity (its change time cannot be
//! set back), so a changed component misses its record and is read and hashed again, and a
//! changed artifact misses its tag: it is hashed, and compiled again unless its digest still
//! holds. A tag or record that is corrupted, copied from another entry or component, or
//! written without the key is ignored; the code it names is never run. No directory grant may
//! cover the cache directory, not even read-only (`sandbox::dirs`), so a provider can neither
//! read the key nor write these files; the MAC is what still holds when something else can.
//!
//! An identity stands for contents only once the change time lies further back than the file
//! system clock's granularity (`SETTLED`): two writes within one tick may leave it as it was.
//! A file changed more recently is waited for, briefly, before it is read and its identity
//! recorded.
//!
//! The artifacts are kept within [`BUDGET`] bytes: after storing one, the cache removes the
//! entries used least recently (their tag, then their artifact) until the rest fit, never the
//! entry just stored. Every load of an entry marks it as used by setting its tag's modification
//! time: the artifact's times are part of its identity, the tag's are part of nothing trusted.
//! A record whose entry was removed misses it, and the component is compiled again. Eviction
//! only removes files, so it cannot make anything trusted: a concurrent start that read a tag
//! whose artifact is then gone finds no entry, and one whose artifact is removed while it maps
//! it sees the artifact's identity change; both compile instead.

use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac as _};
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The format of tags and records; part of every name, so builds that use another format
/// use other files instead of discarding each other's.
const MAGIC: &[u8; 16] = b"terrarium-cwasm3";

/// The key file inside the cache directory.
pub const KEY_FILE_NAME: &str = "entries.key";
const KEY_BYTES: usize = 32;

const ARTIFACT_EXTENSION: &str = "cwasm";
const TAG_EXTENSION: &str = "tag";
const RECORD_EXTENSION: &str = "rec";

/// How far back a file's change time must lie before its identity is taken to stand for its
/// contents: file systems stamp changes with a clock that advances in ticks of up to 10 ms.
const SETTLED: Duration = Duration::from_millis(20);

/// How many bytes of artifacts the cache keeps: a few dozen components (a Python or TypeScript
/// one compiles to about 60 MB), twice what the whole test suite compiles.
pub const BUDGET: u64 = 2 << 30;

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

/// A hasher over what every name depends on: the purpose, the file format, this build and
/// the engine's compilation settings.
fn name_hasher(engine: &Engine, purpose: &[u8]) -> ShaHasher {
    let mut h = ShaHasher(Sha256::new());
    h.write(purpose);
    h.write(MAGIC);
    h.write(env!("CARGO_PKG_VERSION").as_bytes());
    engine.precompile_compatibility_hash().hash(&mut h);
    h
}

/// The entry name for a component under an engine's settings.
pub fn key(engine: &Engine, component: &[u8]) -> String {
    entry_name(engine, &Sha256::digest(component).into())
}

fn entry_name(engine: &Engine, component_digest: &[u8; 32]) -> String {
    let mut h = name_hasher(engine, b"terrarium-component-cache\0");
    h.write(component_digest);
    hex::encode(h.0.finalize())
}

/// The record name for a component file under an engine's settings.
fn record_name(engine: &Engine, component: &Path) -> String {
    let mut h = name_hasher(engine, b"terrarium-component-record\0");
    let path = std::path::absolute(component).unwrap_or_else(|_| component.to_path_buf());
    h.write(path.as_os_str().as_encoded_bytes());
    hex::encode(h.0.finalize())
}

/// What happened when a component was loaded, for logs and benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// A record named the entry: the artifact was mapped without reading the component.
    Mapped,
    /// The component was read and hashed, and its entry loaded.
    Hit,
    /// Compiled and stored (or the store failed, which is logged and otherwise harmless).
    Miss,
    /// A bad entry was found, discarded and rebuilt.
    Rebuilt,
    Disabled,
}

/// Why a component file could not be loaded.
#[derive(Debug)]
pub enum FileLoadError<E> {
    Read(std::io::Error),
    /// The caller's check refused the bytes.
    Rejected(E),
    Compile(wasmtime::Error),
}

/// Loads `bytes` as a component through the cache in `dir` (compiling directly when `dir`
/// is `None`, or when the cache's key cannot be read or made). Compilation errors are
/// returned; cache I/O problems only cost speed.
pub fn load(
    engine: &Engine,
    bytes: &[u8],
    dir: Option<&Path>,
) -> wasmtime::Result<(Component, CacheOutcome)> {
    match dir.and_then(Cache::open) {
        Some(cache) => {
            cache.load_named(engine, bytes).map(|(component, outcome, _)| (component, outcome))
        }
        None => Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled)),
    }
}

/// Loads the component file at `path` through the cache in `dir`: when a record names its
/// entry, maps the artifact without reading the file; otherwise reads it, runs `check` on its
/// bytes, and loads them as [`load`] does (recording the file for the next start).
pub fn load_file<E>(
    engine: &Engine,
    path: &Path,
    dir: Option<&Path>,
    check: impl FnOnce(&[u8]) -> Result<(), E>,
) -> Result<(Component, CacheOutcome), FileLoadError<E>> {
    let Some(cache) = dir.and_then(Cache::open) else {
        let bytes = std::fs::read(path).map_err(FileLoadError::Read)?;
        check(&bytes).map_err(FileLoadError::Rejected)?;
        let component = Component::new(engine, &bytes).map_err(FileLoadError::Compile)?;
        return Ok((component, CacheOutcome::Disabled));
    };
    let file = File::open(path).map_err(FileLoadError::Read)?;
    let identity = Identity::of(&file).map_err(FileLoadError::Read)?;
    let record = cache.dir.join(format!("{}.{RECORD_EXTENSION}", record_name(engine, path)));
    let discarded = match cache.by_record(engine, &record, &identity) {
        Recorded::Found(component) => return Ok((component, CacheOutcome::Mapped)),
        Recorded::Absent => false,
        Recorded::Discarded => true,
    };
    let (bytes, settled) = read_settled(file, identity).map_err(FileLoadError::Read)?;
    check(&bytes).map_err(FileLoadError::Rejected)?;
    let (component, mut outcome, name) =
        cache.load_named(engine, &bytes).map_err(FileLoadError::Compile)?;
    if discarded && outcome == CacheOutcome::Miss {
        outcome = CacheOutcome::Rebuilt;
    }
    match settled {
        Some(identity) => {
            if let Err(e) = cache.write_record(&record, &identity, &name) {
                tracing::warn!(path = %record.display(), error = %e, "cannot record the component file in the compiled-component cache; the next start reads it again");
            }
        }
        None => {
            tracing::debug!(component = %path.display(), "the component file changed while it was read; not recording it")
        }
    }
    Ok((component, outcome))
}

/// A file's identity: what every write, truncation, rename or replacement of it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

const IDENTITY_BYTES: usize = 7 * 8;

impl Identity {
    fn of(file: &File) -> std::io::Result<Identity> {
        let m = file.metadata()?;
        Ok(Identity {
            device: m.dev(),
            inode: m.ino(),
            size: m.size(),
            modified: (m.mtime(), m.mtime_nsec()),
            changed: (m.ctime(), m.ctime_nsec()),
        })
    }

    fn to_bytes(self) -> [u8; IDENTITY_BYTES] {
        let fields = [
            self.device,
            self.inode,
            self.size,
            self.modified.0 as u64,
            self.modified.1 as u64,
            self.changed.0 as u64,
            self.changed.1 as u64,
        ];
        let mut out = [0u8; IDENTITY_BYTES];
        for (chunk, field) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&field.to_le_bytes());
        }
        out
    }

    fn from_bytes(bytes: &[u8]) -> Option<Identity> {
        let mut fields = bytes.chunks_exact(8).map(|c| c.try_into().map(u64::from_le_bytes));
        let mut next = || fields.next()?.ok();
        Some(Identity {
            device: next()?,
            inode: next()?,
            size: next()?,
            modified: (next()? as i64, next()? as i64),
            changed: (next()? as i64, next()? as i64),
        })
    }

    /// How long before `now` the file last changed (zero for a change time in the future).
    fn age(&self, now: SystemTime) -> Duration {
        let (secs, nanos) = self.changed;
        let changed = u64::try_from(secs).ok().map(|s| {
            UNIX_EPOCH + Duration::from_secs(s) + Duration::from_nanos(nanos.max(0) as u64)
        });
        changed.and_then(|c| now.duration_since(c).ok()).unwrap_or_default()
    }
}

/// Reads `file` whole. Also returns its identity when that identity stands for the bytes
/// read: the file had settled before the read began and did not change during it. A file
/// that changed within [`SETTLED`] is given that long first.
fn read_settled(
    mut file: File,
    identity: Identity,
) -> std::io::Result<(Vec<u8>, Option<Identity>)> {
    let mut before = identity;
    let mut started = SystemTime::now();
    let age = before.age(started);
    if age < SETTLED {
        std::thread::sleep(SETTLED - age);
        before = Identity::of(&file)?;
        started = SystemTime::now();
    }
    let mut bytes = Vec::with_capacity(usize::try_from(before.size).unwrap_or(0));
    // From the start: a file just written is positioned at its end.
    file.rewind()?;
    file.read_to_end(&mut bytes)?;
    let after = Identity::of(&file)?;
    let settled = before.age(started) >= SETTLED && after == before;
    Ok((bytes, settled.then_some(before)))
}

/// The cache directory, its key, and how many bytes of artifacts it keeps.
struct Cache {
    dir: PathBuf,
    secret: [u8; KEY_BYTES],
    budget: u64,
}

/// What a component file's record led to.
enum Recorded {
    Found(Component),
    /// No record, or one for another identity (or not authentic): the file must be read.
    Absent,
    /// The record named an entry that must not be run; it was removed.
    Discarded,
}

/// Why an entry, a tag or a record was not used, for the log line.
#[derive(Debug, thiserror::Error)]
enum Distrust {
    #[error(
        "it is not authentic (corrupted, truncated, copied from another entry, or not written with this cache's key)"
    )]
    NotAuthentic,
    #[error("its artifact changed since it was written (its SHA-256 no longer matches)")]
    Changed,
    #[error("wasmtime refused it: {0:#}")]
    Refused(wasmtime::Error),
    #[error("it cannot be read: {0}")]
    Io(#[from] std::io::Error),
}

impl Cache {
    /// The cache in `dir`, with its key (made on first use). `None`, logged, when the key
    /// cannot be read or made: without it no entry can be trusted, nor stored for a later
    /// start to trust.
    fn open(dir: &Path) -> Option<Cache> {
        match entry_key(dir) {
            Ok(secret) => Some(Cache { dir: dir.to_path_buf(), secret, budget: BUDGET }),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot read or create the compiled-component cache's key; compiling without the cache");
                None
            }
        }
    }

    /// Loads `bytes` from their entry, compiling and storing them when it is missing or bad;
    /// also returns the entry's name.
    fn load_named(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome, String)> {
        let name = entry_name(engine, &Sha256::digest(bytes).into());
        let mut outcome = CacheOutcome::Miss;
        match self.open_entry(engine, &name) {
            Ok(Some(component)) => return Ok((component, CacheOutcome::Hit, name)),
            Ok(None) => {}
            Err(why) => {
                tracing::warn!(entry = %self.artifact(&name).display(), "discarding a compiled-component cache entry and compiling the component again: {why}");
                outcome = CacheOutcome::Rebuilt;
            }
        }
        let artifact = engine.precompile_component(bytes)?;
        match self.store(&name, &artifact) {
            Ok(()) => self.evict(&name),
            Err(e) => {
                tracing::warn!(dir = %self.dir.display(), error = %e, "cannot store the compiled component; the next start compiles again")
            }
        }
        // SAFETY: produced just now by this engine, and copied by `deserialize`.
        let component = unsafe { Component::deserialize(engine, &artifact)? };
        Ok((component, outcome, name))
    }

    fn artifact(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.{ARTIFACT_EXTENSION}"))
    }

    fn tag_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.{TAG_EXTENSION}"))
    }

    /// The component a record names, when the record is authentic, holds `identity` and names
    /// an entry that loads. Anything else is logged (unless there is no record).
    fn by_record(&self, engine: &Engine, record: &Path, identity: &Identity) -> Recorded {
        let bytes = match std::fs::read(record) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Recorded::Absent,
            Err(e) => {
                tracing::warn!(path = %record.display(), error = %e, "cannot read a compiled-component cache record; reading the component");
                return Recorded::Absent;
            }
        };
        let Some((recorded, name)) = self.authentic_record(record, &bytes) else {
            tracing::warn!(path = %record.display(), "ignoring a compiled-component cache record that is not authentic (corrupted, copied, or not written with this cache's key); reading the component");
            return Recorded::Absent;
        };
        if recorded != *identity {
            // The component file was replaced or written since: an ordinary rebuild.
            return Recorded::Absent;
        }
        match self.open_entry(engine, &name) {
            Ok(Some(component)) => Recorded::Found(component),
            Ok(None) => Recorded::Absent,
            Err(why) => {
                tracing::warn!(entry = %self.artifact(&name).display(), "not using a compiled-component cache entry: {why}; reading the component");
                Recorded::Discarded
            }
        }
    }

    /// The component in entry `name`: `None` when there is no such entry (or only its tag: it
    /// was evicted meanwhile), an error when there is one that must not be run (its files are
    /// then removed). An entry that loads is marked as used now.
    fn open_entry(&self, engine: &Engine, name: &str) -> Result<Option<Component>, Distrust> {
        let mut tag_file = match File::open(self.tag_path(name)) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut tag = Vec::new();
        tag_file.read_to_end(&mut tag)?;
        let result = self.open_tagged(engine, name, &tag);
        match &result {
            Ok(Some(_)) => mark_used(&tag_file, name),
            Ok(None) => {}
            Err(_) => {
                // Leave nothing behind that a later start could mistake for an entry.
                let _ = std::fs::remove_file(self.tag_path(name));
                let _ = std::fs::remove_file(self.artifact(name));
            }
        }
        result
    }

    /// The component of an entry whose tag holds `tag`; `None` when its artifact is gone.
    fn open_tagged(
        &self,
        engine: &Engine,
        name: &str,
        tag: &[u8],
    ) -> Result<Option<Component>, Distrust> {
        let (digest, tagged) = self.authentic_tag(name, tag).ok_or(Distrust::NotAuthentic)?;
        let path = self.artifact(name);
        let file = match File::open(&path) {
            Ok(file) => file,
            // Evicted by another start since the tag was read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let identity = Identity::of(&file)?;
        if identity == tagged {
            return map(engine, &path, file, &identity).map(Some);
        }
        // Copied or restored, or changed: the digest decides.
        let (bytes, settled) = read_settled(file, identity)?;
        if Sha256::digest(&bytes).as_slice() != digest {
            return Err(Distrust::Changed);
        }
        if let Some(identity) = settled
            && let Err(e) = self.write_tag(name, &digest, &identity)
        {
            tracing::debug!(path = %path.display(), error = %e, "cannot update a compiled-component cache tag");
        }
        // SAFETY: the MAC proves that this host wrote an artifact with this digest under this
        // entry's name, i.e. what `precompile_component` produced for this component and these
        // settings, and these bytes have that digest; `deserialize` copies them.
        unsafe { Component::deserialize(engine, &bytes) }.map(Some).map_err(Distrust::Refused)
    }

    /// The digest and artifact identity of an authentic tag for entry `name`.
    fn authentic_tag(&self, name: &str, tag: &[u8]) -> Option<([u8; 32], Identity)> {
        let body = self.authentic(b"tag", name, tag)?;
        let (digest, identity) = body.split_at_checked(32)?;
        Some((digest.try_into().ok()?, Identity::from_bytes(identity)?))
    }

    /// The component identity and entry name of an authentic record at `record`.
    fn authentic_record(&self, record: &Path, bytes: &[u8]) -> Option<(Identity, String)> {
        let file_name = record.file_name()?.to_str()?;
        let body = self.authentic(b"record", file_name, bytes)?;
        let (identity, name) = body.split_at_checked(IDENTITY_BYTES)?;
        Some((Identity::from_bytes(identity)?, String::from_utf8(name.to_vec()).ok()?))
    }

    /// The body of `file` (MAGIC, MAC, body) when its MAC holds for `kind` and `name`.
    fn authentic<'a>(&self, kind: &[u8], name: &str, file: &'a [u8]) -> Option<&'a [u8]> {
        let rest = file.strip_prefix(MAGIC.as_slice())?;
        let (mac, body) = rest.split_at_checked(32)?;
        self.mac(kind, name, body).verify_slice(mac).ok()?;
        Some(body)
    }

    fn mac(&self, kind: &[u8], name: &str, body: &[u8]) -> HmacSha256 {
        // A key of any length is accepted by HMAC; this cannot fail.
        let mut mac = <HmacSha256 as hmac::Mac>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        for field in [MAGIC.as_slice(), kind, name.as_bytes(), body] {
            mac.update(&(field.len() as u64).to_le_bytes());
            mac.update(field);
        }
        mac
    }

    /// Writes `MAGIC, MAC, body` to `path` through a temporary file.
    fn write_authenticated(
        &self,
        path: &Path,
        kind: &[u8],
        name: &str,
        body: &[u8],
    ) -> std::io::Result<()> {
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        tmp.write_all(MAGIC)?;
        tmp.write_all(&self.mac(kind, name, body).finalize().into_bytes())?;
        tmp.write_all(body)?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    fn write_tag(&self, name: &str, digest: &[u8; 32], identity: &Identity) -> std::io::Result<()> {
        let body = [digest.as_slice(), &identity.to_bytes()].concat();
        self.write_authenticated(&self.tag_path(name), b"tag", name, &body)
    }

    fn write_record(&self, record: &Path, identity: &Identity, name: &str) -> std::io::Result<()> {
        let file_name = record
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| std::io::Error::other("a record path without a file name"))?;
        let body = [identity.to_bytes().as_slice(), name.as_bytes()].concat();
        self.write_authenticated(record, b"record", file_name, &body)
    }

    /// Stores an artifact, read-only, and its tag. The tag names the artifact file's identity
    /// only once the file, read back, has the artifact's digest.
    fn store(&self, name: &str, artifact: &[u8]) -> std::io::Result<()> {
        let digest: [u8; 32] = Sha256::digest(artifact).into();
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        tmp.write_all(artifact)?;
        tmp.as_file().sync_all()?;
        let mut read_only = tmp.as_file().metadata()?.permissions();
        read_only.set_readonly(true);
        tmp.as_file().set_permissions(read_only)?;
        let path = self.artifact(name);
        let file = tmp.persist(&path).map_err(|e| e.error)?;
        let identity = Identity::of(&file)?;
        let (bytes, settled) = read_settled(file, identity)?;
        match settled {
            Some(identity) if Sha256::digest(&bytes).as_slice() == digest => {
                self.write_tag(name, &digest, &identity)
            }
            _ => Err(std::io::Error::other("the artifact changed while it was stored")),
        }
    }

    /// When the artifacts exceed the budget, removes the entries used least recently (tag,
    /// then artifact) until the rest fit; never entry `keep`. Problems only leave more behind.
    fn evict(&self, keep: &str) {
        let mut entries = match self.entries() {
            Ok(entries) => entries,
            Err(e) => {
                tracing::debug!(dir = %self.dir.display(), error = %e, "cannot list the compiled-component cache");
                return;
            }
        };
        let mut total: u64 = entries.iter().map(|e| e.size).sum();
        if total <= self.budget {
            return;
        }
        entries.sort_by_key(|e| e.used);
        let (mut count, mut freed) = (0u32, 0u64);
        for entry in entries.iter().filter(|e| e.name != keep) {
            if total <= self.budget {
                break;
            }
            let gone = |path: PathBuf| match std::fs::remove_file(&path) {
                Ok(()) => true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => {
                    tracing::debug!(path = %path.display(), error = %e, "cannot evict from the compiled-component cache");
                    false
                }
            };
            if gone(self.tag_path(&entry.name)) && gone(self.artifact(&entry.name)) {
                total = total.saturating_sub(entry.size);
                count += 1;
                freed += entry.size;
            }
        }
        tracing::debug!(dir = %self.dir.display(), count, freed, kept = total, "evicted the compiled-component cache entries used least recently");
    }

    /// Every entry's artifact: its size and when it was last used (its tag's modification
    /// time, else the artifact's for an artifact whose tag is not written yet).
    fn entries(&self) -> std::io::Result<Vec<Stored>> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&self.dir)?.flatten() {
            let file_name = entry.file_name();
            let Some(name) = file_name
                .to_str()
                .and_then(|n| n.strip_suffix(&format!(".{ARTIFACT_EXTENSION}")))
                .filter(|n| is_entry_name(n))
            else {
                continue;
            };
            // Not following links: only the cache's own files count, and only they are removed.
            let Ok(artifact) = entry.metadata() else { continue };
            if !artifact.is_file() {
                continue;
            }
            let used = std::fs::symlink_metadata(self.tag_path(name))
                .and_then(|tag| tag.modified())
                .or_else(|_| artifact.modified())
                .unwrap_or(UNIX_EPOCH);
            found.push(Stored { name: name.to_string(), size: artifact.len(), used });
        }
        Ok(found)
    }
}

/// An entry's artifact, as eviction sees it.
struct Stored {
    name: String,
    size: u64,
    used: SystemTime,
}

/// Whether `name` is what [`entry_name`] makes: 64 lowercase hexadecimal digits.
fn is_entry_name(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Marks entry `name` as used now: its tag's modification time, which eviction goes by.
fn mark_used(tag: &File, name: &str) {
    if let Err(e) = tag.set_modified(SystemTime::now()) {
        tracing::debug!(entry = name, error = %e, "cannot mark a compiled-component cache entry as used");
    }
}

/// Maps the artifact `file` (opened from `path`, with `identity`) as a component.
fn map(
    engine: &Engine,
    path: &Path,
    file: File,
    identity: &Identity,
) -> Result<Component, Distrust> {
    // wasmtime maps a file by path; the path of the open descriptor names the very file whose
    // identity was checked, whatever happens to `path` meanwhile.
    let by_descriptor = descriptor_path(&file).filter(|p| p.exists());
    let component = match &by_descriptor {
        // SAFETY: the tag's MAC proves that this host wrote an artifact whose identity is
        // `identity` under this entry's name: what `precompile_component` produced for this
        // component and these settings, unchanged since (a change would change the identity).
        // The file is read-only in a directory only this user can write and no provider may
        // be granted.
        Some(p) => unsafe { Component::deserialize_file(engine, p) },
        None => {
            let mut bytes = Vec::with_capacity(usize::try_from(identity.size).unwrap_or(0));
            (&file).read_to_end(&mut bytes)?;
            // SAFETY: as above; read from the checked descriptor and copied by `deserialize`.
            unsafe { Component::deserialize(engine, &bytes) }
        }
    };
    let component = component.map_err(Distrust::Refused)?;
    // A write between the check and the mapping would have changed the identity.
    if Identity::of(&file)? != *identity {
        tracing::debug!(path = %path.display(), "the artifact changed while it was mapped");
        return Err(Distrust::Changed);
    }
    Ok(component)
}

/// A path that opens the same file as `file`, where the system has one.
fn descriptor_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd as _;
    let fd = file.as_raw_fd();
    if cfg!(target_os = "linux") {
        Some(PathBuf::from(format!("/proc/self/fd/{fd}")))
    } else if cfg!(target_os = "macos") {
        Some(PathBuf::from(format!("/dev/fd/{fd}")))
    } else {
        None
    }
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
    let file = match File::open(path) {
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
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    // The smallest component there is.
    const EMPTY_COMPONENT: &str = "(component)";

    fn engine() -> Engine {
        Engine::default()
    }

    /// Two components that differ in what they import, so the code that runs tells them apart.
    fn component_importing(name: &str) -> Vec<u8> {
        wat::parse_str(format!("(component (import \"{name}\" (func)))")).unwrap()
    }

    fn imports(engine: &Engine, component: &Component) -> Vec<String> {
        component.component_type().imports(engine).map(|(n, _)| n.to_string()).collect()
    }

    fn entry_files(dir: &Path, engine: &Engine, bytes: &[u8]) -> (PathBuf, PathBuf) {
        let name = key(engine, bytes);
        (dir.join(format!("{name}.cwasm")), dir.join(format!("{name}.tag")))
    }

    /// Rewrites a file in place (same inode), as a process with write access could.
    fn overwrite_in_place(path: &Path, bytes: &[u8]) {
        let mut permissions = std::fs::metadata(path).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false, reason = "a test playing the attacker")]
        permissions.set_readonly(false);
        std::fs::set_permissions(path, permissions).unwrap();
        let mut file = std::fs::OpenOptions::new().write(true).truncate(true).open(path).unwrap();
        file.write_all(bytes).unwrap();
    }

    /// What the cache logs while `f` runs.
    fn logged<R>(f: impl FnOnce() -> R) -> (R, String) {
        #[derive(Clone, Default)]
        struct Capture(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Capture {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let capture = Capture::default();
        let writer = capture.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        let result = tracing::subscriber::with_default(subscriber, f);
        let text = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
        (result, text)
    }

    fn load_path(engine: &Engine, path: &Path, dir: &Path) -> (Component, CacheOutcome) {
        load_file(engine, path, Some(dir), |_| Ok::<(), ()>(())).unwrap_or_else(|e| panic!("{e:?}"))
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

        let (artifact, _) = entry_files(dir.path(), &engine, &bytes);
        // Flip one byte of the artifact.
        let mut data = std::fs::read(&artifact).unwrap();
        let last = data.len() - 1;
        data[last] ^= 0xff;
        overwrite_in_place(&artifact, &data);
        let (outcome, log) = logged(|| load(&engine, &bytes, Some(dir.path())).unwrap().1);
        assert_eq!(outcome, CacheOutcome::Rebuilt);
        assert!(log.contains("discarding a compiled-component cache entry and compiling the component again: its artifact changed since it was written"), "{log}");
        assert_eq!(load(&engine, &bytes, Some(dir.path())).unwrap().1, CacheOutcome::Hit);

        // Truncate it.
        overwrite_in_place(&artifact, &data[..data.len() / 2]);
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
        let name = key(&engine, &bytes);
        let mut expected = [format!("{name}.cwasm"), format!("{name}.tag"), KEY_FILE_NAME.into()];
        expected.sort();
        assert_eq!(names, expected);
    }

    #[test]
    fn another_components_entry_or_one_made_without_the_key_is_rebuilt_never_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine();
        let (a, b) = (component_importing("a"), component_importing("b"));
        load(&engine, &a, Some(dir.path())).unwrap();
        load(&engine, &b, Some(dir.path())).unwrap();
        let (a_artifact, a_tag) = entry_files(dir.path(), &engine, &a);
        let (b_artifact, b_tag) = entry_files(dir.path(), &engine, &b);

        // B's entry (valid on its own) renamed over A's.
        std::fs::copy(&b_artifact, dir.path().join("b.cwasm")).unwrap();
        std::fs::copy(&b_tag, dir.path().join("b.tag")).unwrap();
        std::fs::rename(dir.path().join("b.cwasm"), &a_artifact).unwrap();
        std::fs::rename(dir.path().join("b.tag"), &a_tag).unwrap();
        let ((component, outcome), log) = logged(|| load(&engine, &a, Some(dir.path())).unwrap());
        assert_eq!(outcome, CacheOutcome::Rebuilt);
        assert_eq!(imports(&engine, &component), ["a"]);
        assert!(log.contains("it is not authentic"), "{log}");

        // An entry for A made with another key, as someone without this user's key would.
        let forger =
            Cache { dir: dir.path().to_path_buf(), secret: [7u8; KEY_BYTES], budget: BUDGET };
        forger.store(&key(&engine, &a), &engine.precompile_component(&b).unwrap()).unwrap();
        let (component, outcome) = load(&engine, &a, Some(dir.path())).unwrap();
        assert_eq!(outcome, CacheOutcome::Rebuilt);
        assert_eq!(imports(&engine, &component), ["a"]);
        assert_eq!(load(&engine, &a, Some(dir.path())).unwrap().1, CacheOutcome::Hit);
    }

    #[test]
    fn a_recorded_component_file_is_mapped_and_a_changed_one_is_read_again() {
        let scratch = tempfile::tempdir().unwrap();
        let cache = scratch.path().join("cache");
        let engine = engine();
        let path = scratch.path().join("provider.wasm");
        std::fs::write(&path, component_importing("a")).unwrap();
        assert_eq!(load_path(&engine, &path, &cache).1, CacheOutcome::Miss);
        let refuse = |_: &[u8]| Err::<(), _>("read");
        let (component, outcome) = load_file(&engine, &path, Some(&cache), refuse).unwrap();
        // The check runs only on bytes that were read: these were not.
        assert_eq!(outcome, CacheOutcome::Mapped);
        assert_eq!(imports(&engine, &component), ["a"]);

        // A new build renamed over the old one, and one written in place with the same size:
        // each is read, and the code that runs is the new build's.
        let b = component_importing("b");
        std::fs::write(scratch.path().join("new.wasm"), &b).unwrap();
        std::fs::rename(scratch.path().join("new.wasm"), &path).unwrap();
        let (component, outcome) = load_path(&engine, &path, &cache);
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Miss, vec!["b".into()]));
        assert_eq!(load_path(&engine, &path, &cache).1, CacheOutcome::Mapped);
        overwrite_in_place(&path, &component_importing("c"));
        let (component, outcome) = load_path(&engine, &path, &cache);
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Miss, vec!["c".into()]));
        assert_eq!(load_path(&engine, &path, &cache).1, CacheOutcome::Mapped);

        // A file that fails the check is refused, whatever its record said before.
        overwrite_in_place(&path, b"not a component");
        let wasm_only = |b: &[u8]| if b.starts_with(b"\0asm") { Ok(()) } else { Err("not wasm") };
        let refused = load_file(&engine, &path, Some(&cache), wasm_only);
        assert!(matches!(refused, Err(FileLoadError::Rejected("not wasm"))));
    }

    #[test]
    fn a_tampered_artifact_is_never_mapped_and_is_compiled_again() {
        let scratch = tempfile::tempdir().unwrap();
        let cache = scratch.path().join("cache");
        let engine = engine();
        let (a, b) = (component_importing("a"), component_importing("b"));
        let path = scratch.path().join("provider.wasm");
        std::fs::write(&path, &a).unwrap();
        load_path(&engine, &path, &cache);
        assert_eq!(load_path(&engine, &path, &cache).1, CacheOutcome::Mapped);
        // B's artifact written over A's in place: same file, same name, valid code.
        let (a_artifact, _) = entry_files(&cache, &engine, &a);
        overwrite_in_place(&a_artifact, &engine.precompile_component(&b).unwrap());
        let ((component, outcome), log) = logged(|| load_path(&engine, &path, &cache));
        assert_eq!(imports(&engine, &component), ["a"]);
        assert_eq!(outcome, CacheOutcome::Rebuilt);
        assert!(log.contains("not using a compiled-component cache entry: its artifact changed since it was written"), "{log}");
        assert_eq!(load_path(&engine, &path, &cache).1, CacheOutcome::Mapped);
    }

    #[test]
    fn a_tampered_copied_or_forged_record_is_ignored() {
        let scratch = tempfile::tempdir().unwrap();
        let cache = scratch.path().join("cache");
        let engine = engine();
        let (a, b) = (component_importing("a"), component_importing("b"));
        let (path_a, path_b) = (scratch.path().join("a.wasm"), scratch.path().join("b.wasm"));
        std::fs::write(&path_a, &a).unwrap();
        std::fs::write(&path_b, &b).unwrap();
        load_path(&engine, &path_a, &cache);
        load_path(&engine, &path_b, &cache);
        let record = |p: &Path| cache.join(format!("{}.rec", record_name(&engine, p)));
        let (record_a, record_b) = (record(&path_a), record(&path_b));

        // B's record (valid for B) put in place of A's.
        std::fs::copy(&record_b, &record_a).unwrap();
        let ((component, outcome), log) = logged(|| load_path(&engine, &path_a, &cache));
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Hit, vec!["a".into()]));
        assert!(
            log.contains("ignoring a compiled-component cache record that is not authentic"),
            "{log}"
        );
        assert_eq!(load_path(&engine, &path_a, &cache).1, CacheOutcome::Mapped);

        // A record for A's file naming B's entry, made without this user's key.
        let file = File::open(&path_a).unwrap();
        let forger = Cache { dir: cache.clone(), secret: [7u8; KEY_BYTES], budget: BUDGET };
        forger.write_record(&record_a, &Identity::of(&file).unwrap(), &key(&engine, &b)).unwrap();
        let (component, outcome) = load_path(&engine, &path_a, &cache);
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Hit, vec!["a".into()]));

        // One flipped byte.
        let mut bytes = std::fs::read(&record_a).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&record_a, &bytes).unwrap();
        let (component, outcome) = load_path(&engine, &path_a, &cache);
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Hit, vec!["a".into()]));
    }

    #[test]
    fn the_key_is_private_made_once_and_a_damaged_one_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let first = entry_key(&cache).unwrap();
        assert_eq!(entry_key(&cache).unwrap(), first);
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

    /// The files in `dir`, sorted.
    fn file_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    /// The files of the entries of `components`, and the key.
    fn entries_of(dir: &Path, engine: &Engine, components: &[&[u8]]) -> Vec<String> {
        let mut names = vec![KEY_FILE_NAME.to_string()];
        for bytes in components {
            let (artifact, tag) = entry_files(dir, engine, bytes);
            for path in [artifact, tag] {
                names.push(path.file_name().unwrap().to_str().unwrap().to_string());
            }
        }
        names.sort();
        names
    }

    /// Sets when `bytes`' entry was last used to `ago` before now.
    fn used_ago(dir: &Path, engine: &Engine, bytes: &[u8], ago: Duration) {
        let (_, tag) = entry_files(dir, engine, bytes);
        File::open(tag).unwrap().set_modified(SystemTime::now() - ago).unwrap();
    }

    fn tag_modified(dir: &Path, engine: &Engine, bytes: &[u8]) -> SystemTime {
        std::fs::metadata(entry_files(dir, engine, bytes).1).unwrap().modified().unwrap()
    }

    const DAY: Duration = Duration::from_secs(86400);

    #[test]
    fn beyond_the_budget_the_entries_used_least_recently_are_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine();
        let mut cache = Cache::open(dir.path()).unwrap();
        let [a, b, c, d] = ["a", "b", "c", "d"].map(component_importing);
        for bytes in [&a, &b, &c] {
            assert_eq!(cache.load_named(&engine, bytes).unwrap().1, CacheOutcome::Miss);
        }
        // Used three, two and one days ago; then A is loaded, which marks it as used now.
        for (bytes, days) in [(&a, 3), (&b, 2), (&c, 1)] {
            used_ago(dir.path(), &engine, bytes, DAY * days);
        }
        assert_eq!(cache.load_named(&engine, &a).unwrap().1, CacheOutcome::Hit);
        assert!(tag_modified(dir.path(), &engine, &a) > tag_modified(dir.path(), &engine, &c));

        // Room for two artifacts: storing D evicts B, then C (the least recently used).
        let size = |bytes: &[u8]| engine.precompile_component(bytes).unwrap().len() as u64;
        let (a_artifact, _) = entry_files(dir.path(), &engine, &a);
        assert_eq!(std::fs::metadata(&a_artifact).unwrap().len(), size(&a));
        cache.budget = size(&a) + size(&d);
        assert_eq!(cache.load_named(&engine, &d).unwrap().1, CacheOutcome::Miss);
        assert_eq!(file_names(dir.path()), entries_of(dir.path(), &engine, &[&a, &d]));

        // An evicted component is compiled again, and it is its own code that runs.
        cache.budget = BUDGET;
        let (component, outcome, _) = cache.load_named(&engine, &b).unwrap();
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Miss, vec!["b".into()]));
        assert_eq!(cache.load_named(&engine, &b).unwrap().1, CacheOutcome::Hit);
    }

    #[test]
    fn the_entry_just_stored_is_kept_and_a_record_of_an_evicted_one_compiles_again() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("cache");
        let engine = engine();
        let (a, b) = (component_importing("a"), component_importing("b"));
        let path = scratch.path().join("provider.wasm");
        std::fs::write(&path, &a).unwrap();
        assert_eq!(load_path(&engine, &path, &dir).1, CacheOutcome::Miss);
        assert_eq!(load_path(&engine, &path, &dir).1, CacheOutcome::Mapped);

        // No room at all: each store evicts every other entry, never its own.
        let mut cache = Cache::open(&dir).unwrap();
        cache.budget = 0;
        assert_eq!(cache.load_named(&engine, &b).unwrap().1, CacheOutcome::Miss);
        let record = format!("{}.rec", record_name(&engine, &path));
        let mut expected = entries_of(&dir, &engine, &[&b]);
        expected.push(record.clone());
        expected.sort();
        assert_eq!(file_names(&dir), expected);

        // The provider's record names an entry that is gone: it is read and compiled again.
        let ((component, outcome), log) = logged(|| load_path(&engine, &path, &dir));
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Miss, vec!["a".into()]));
        assert!(!log.contains("WARN"), "{log}");
        assert_eq!(load_path(&engine, &path, &dir).1, CacheOutcome::Mapped);

        // A start that read the tag just before another evicted the entry finds no artifact:
        // no entry, and no warning.
        let (a_artifact, _) = entry_files(&dir, &engine, &a);
        std::fs::remove_file(&a_artifact).unwrap();
        let ((component, outcome), log) = logged(|| load_path(&engine, &path, &dir));
        assert_eq!((outcome, imports(&engine, &component)), (CacheOutcome::Miss, vec!["a".into()]));
        assert!(!log.contains("WARN"), "{log}");
        assert_eq!(load_path(&engine, &path, &dir).1, CacheOutcome::Mapped);
    }

    #[test]
    fn concurrent_starts_that_evict_each_other_all_run_their_own_code() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine();
        std::thread::scope(|scope| {
            let starts: Vec<_> = (0..4)
                .map(|i| {
                    let (dir, engine) = (dir.path(), &engine);
                    scope.spawn(move || {
                        let mut cache = Cache::open(dir).unwrap();
                        cache.budget = 0;
                        let name = format!("c{i}");
                        let bytes = component_importing(&name);
                        for _ in 0..8 {
                            let (component, _, _) = cache.load_named(engine, &bytes).unwrap();
                            assert_eq!(imports(engine, &component), [name.as_str()]);
                        }
                    })
                })
                .collect();
            for start in starts {
                start.join().unwrap();
            }
        });
    }

    #[test]
    fn key_depends_on_the_component() {
        let engine = engine();
        assert_ne!(key(&engine, b"a"), key(&engine, b"b"));
        assert_eq!(key(&engine, b"a"), key(&engine, b"a"));
    }
}

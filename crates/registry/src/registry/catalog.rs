//! What a registry directory holds: `terrarium package`'s output, read back on every request
//! (so a release packaged while the registry runs is served at once).
//!
//! The directory is `DIR/HOST/NAMESPACE/TYPE/` with the files of [`release`]: zips in
//! Terraform's packed-mirror layout, and for each signed version its `SHA256SUMS`, signature,
//! public key and manifest. The network mirror protocol serves every zip; the registry
//! protocol serves only versions whose `SHA256SUMS` is signed, since Terraform requires it.
//!
//! [`release`]: crate::package::release

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::package::archive::read_zip;
use crate::package::hashes::package_hash;
use crate::package::release::{PROTOCOL_VERSIONS, ReleaseNames, parse_zip_name};
use crate::package::signing::public_key_id;
use terrarium_install::Platform;

/// The directory a registry serves.
pub struct Catalog {
    root: PathBuf,
    /// `h1:` hashes of zips: computing one unpacks the zip, which the mirror protocol would
    /// otherwise do on every request.
    h1_cache: Mutex<HashMap<ZipVersion, String>>,
}

/// One version of a zip file: its path, size and modification time.
type ZipVersion = (PathBuf, u64, Option<SystemTime>);

/// One provider's directory, `DIR/HOST/NAMESPACE/TYPE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderDir {
    pub host: String,
    pub namespace: String,
    pub type_name: String,
    pub dir: PathBuf,
}

/// One version of a provider: its zips by platform, and its signature if it has one.
#[derive(Debug, Clone, Default)]
pub struct VersionFiles {
    pub zips: BTreeMap<String, (Platform, String)>,
    pub signed: Option<SignedRelease>,
}

/// The signed `SHA256SUMS` of a version and what the registry protocol says about it.
#[derive(Debug, Clone)]
pub struct SignedRelease {
    pub shasums_file: String,
    pub signature_file: String,
    /// Hex SHA-256 by file name, as `SHA256SUMS` lists them.
    pub shasums: BTreeMap<String, String>,
    pub public_key: String,
    pub key_id: String,
    pub protocols: Vec<String>,
}

impl Catalog {
    pub fn new(root: PathBuf) -> Self {
        Self { root, h1_cache: Mutex::new(HashMap::new()) }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every provider directory, sorted.
    pub fn providers(&self) -> Vec<ProviderDir> {
        let mut found = Vec::new();
        for host in subdirectories(&self.root) {
            for namespace in subdirectories(&self.root.join(&host)) {
                for type_name in subdirectories(&self.root.join(&host).join(&namespace)) {
                    let dir = self.root.join(&host).join(&namespace).join(&type_name);
                    found.push(ProviderDir {
                        host: host.clone(),
                        namespace: namespace.clone(),
                        type_name,
                        dir,
                    });
                }
            }
        }
        found.sort_by(|a, b| {
            (&a.host, &a.namespace, &a.type_name).cmp(&(&b.host, &b.namespace, &b.type_name))
        });
        found
    }

    /// The directory of `HOST/NAMESPACE/TYPE`, when it exists (names compared in lower case,
    /// as Terraform normalises them).
    pub fn provider(&self, host: &str, namespace: &str, type_name: &str) -> Option<ProviderDir> {
        let (host, namespace, type_name) = (
            host.to_ascii_lowercase(),
            namespace.to_ascii_lowercase(),
            type_name.to_ascii_lowercase(),
        );
        self.providers()
            .into_iter()
            .find(|p| p.host == host && p.namespace == namespace && p.type_name == type_name)
    }

    /// `h1:` hash of a zip's contents, cached while the file is unchanged.
    pub fn zip_h1(&self, path: &Path) -> Option<String> {
        let metadata = fs::metadata(path).ok()?;
        let key: ZipVersion = (path.to_owned(), metadata.len(), metadata.modified().ok());
        if let Ok(cache) = self.h1_cache.lock()
            && let Some(hash) = cache.get(&key)
        {
            return Some(hash.clone());
        }
        let files = read_zip(&fs::read(path).ok()?).ok()?;
        let hash = package_hash(files.iter().map(|f| (f.name.as_str(), f.content.as_slice())))?;
        if let Ok(mut cache) = self.h1_cache.lock() {
            cache.insert(key, hash.clone());
        }
        Some(hash)
    }
}

impl ProviderDir {
    /// Every version found in the directory, with its files.
    pub fn versions(&self) -> BTreeMap<String, VersionFiles> {
        let mut versions: BTreeMap<String, VersionFiles> = BTreeMap::new();
        for name in file_names(&self.dir) {
            if let Some((version, platform)) = parse_zip_name(&self.type_name, &name) {
                versions
                    .entry(version)
                    .or_default()
                    .zips
                    .insert(platform.to_string(), (platform, name));
            }
        }
        for (version, files) in &mut versions {
            files.signed = self.signed_release(version);
        }
        versions
    }

    /// The signed release of `version`, when its `SHA256SUMS`, signature and key are all there.
    fn signed_release(&self, version: &str) -> Option<SignedRelease> {
        let names = ReleaseNames::new(&self.type_name, version);
        let shasums_text = fs::read_to_string(self.dir.join(names.shasums())).ok()?;
        if !self.dir.join(names.signature()).is_file() {
            return None;
        }
        let public_key = fs::read_to_string(self.dir.join(names.signing_key())).ok()?;
        let key_id = public_key_id(&public_key)?;
        let shasums = shasums_text
            .lines()
            .filter_map(|line| line.split_once("  "))
            .map(|(hash, name)| (name.to_owned(), hash.to_owned()))
            .collect();
        let protocols = fs::read_to_string(self.dir.join(names.manifest()))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|manifest| {
                let list = manifest["metadata"]["protocol_versions"].as_array()?.clone();
                list.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>()
            })
            .unwrap_or_else(|| PROTOCOL_VERSIONS.map(str::to_owned).to_vec());
        Some(SignedRelease {
            shasums_file: names.shasums(),
            signature_file: names.signature(),
            shasums,
            public_key,
            key_id,
            protocols,
        })
    }

    /// True when `file_name` is a file of this provider a registry may hand out: a zip, or a
    /// version's `SHA256SUMS`, signature, manifest or public key (never anything else that
    /// happens to lie in the directory).
    pub fn serves(&self, file_name: &str) -> bool {
        if parse_zip_name(&self.type_name, file_name).is_some() {
            return true;
        }
        let Some(rest) = file_name.strip_prefix(&format!("terraform-provider-{}_", self.type_name))
        else {
            return false;
        };
        let Some((version, _)) = rest.split_once('_') else { return false };
        let names = ReleaseNames::new(&self.type_name, version);
        [names.shasums(), names.signature(), names.manifest(), names.signing_key()]
            .contains(&file_name.to_owned())
    }
}

fn subdirectories(dir: &Path) -> Vec<String> {
    entries(dir, true)
}

fn file_names(dir: &Path) -> Vec<String> {
    entries(dir, false)
}

/// Names of the visible directories or files in `dir` (staging files start with a dot).
fn entries(dir: &Path, directories: bool) -> Vec<String> {
    let Ok(read) = fs::read_dir(dir) else { return Vec::new() };
    read.flatten()
        .filter(|e| e.file_type().is_ok_and(|t| if directories { t.is_dir() } else { t.is_file() }))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.'))
        .collect()
}

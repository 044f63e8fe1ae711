//! A provider release as a registry serves it, and writing one.
//!
//! All versions of one provider share one directory, `OUT/HOST/NAMESPACE/TYPE/`, which is at
//! once Terraform's *packed* filesystem-mirror layout (Terraform reads the zips there and
//! ignores the other files) and the set of files a registry serves for each version:
//!
//! ```text
//! terraform-provider-TYPE_VERSION_OS_ARCH.zip        one per platform: executable, component, grants
//! terraform-provider-TYPE_VERSION_manifest.json      terraform-registry-manifest.json: protocol versions
//! terraform-provider-TYPE_VERSION_SHA256SUMS         hex SHA-256 and name of each of the above
//! terraform-provider-TYPE_VERSION_SHA256SUMS.sig     binary detached OpenPGP signature of SHA256SUMS
//! terraform-provider-TYPE_VERSION_signing-key.asc    the public key that signature verifies with
//! ```
//!
//! These are the release asset names HashiCorp's release tooling (goreleaser) gives a
//! provider's GitHub release, which the public registry reads.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::archive::{provider_files, write_zip};
use super::hashes::{package_hash, sha256_hex, zip_hash};
use super::signing::{SigningError, SigningKey};
use terrarium_install::{Platform, ProviderSource, ProviderVersion};
use terrarium_runtime::sandbox::Grants;

/// The plugin protocol versions the host speaks, as the registry manifest lists them.
pub const PROTOCOL_VERSIONS: [&str; 2] = ["5.0", "6.0"];

/// The release file names of one provider version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseNames {
    prefix: String,
}

impl ReleaseNames {
    pub fn new(type_name: &str, version: &str) -> Self {
        Self { prefix: format!("terraform-provider-{type_name}_{version}_") }
    }

    pub fn zip(&self, platform: Platform) -> String {
        format!("{}{platform}.zip", self.prefix)
    }

    pub fn shasums(&self) -> String {
        format!("{}SHA256SUMS", self.prefix)
    }

    pub fn signature(&self) -> String {
        format!("{}SHA256SUMS.sig", self.prefix)
    }

    pub fn manifest(&self) -> String {
        format!("{}manifest.json", self.prefix)
    }

    pub fn signing_key(&self) -> String {
        format!("{}signing-key.asc", self.prefix)
    }

    /// True for every file of this version (and no other version's).
    pub fn owns(&self, file_name: &str) -> bool {
        file_name.starts_with(&self.prefix)
    }
}

/// `OUT/HOST/NAMESPACE/TYPE`: where every version of a provider goes.
pub fn provider_dir(out: &Path, source: &ProviderSource) -> PathBuf {
    out.join(&source.hostname).join(&source.namespace).join(&source.type_name)
}

/// Splits a packed-mirror zip name, `terraform-provider-TYPE_VERSION_OS_ARCH.zip`, into
/// version and platform as Terraform does (case-insensitively); `None` for other files.
pub fn parse_zip_name(type_name: &str, file_name: &str) -> Option<(String, Platform)> {
    let lower = file_name.to_ascii_lowercase();
    let rest = lower.strip_prefix(&format!("terraform-provider-{type_name}_"))?;
    let rest = rest.strip_suffix(".zip")?;
    let mut parts = rest.split('_');
    let (version, os, arch) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let platform = Platform::parse(&format!("{os}_{arch}")).ok()?;
    Some((version.to_owned(), platform))
}

/// One platform's package: the host executable built for it.
#[derive(Debug, Clone)]
pub struct PlatformHost {
    pub platform: Platform,
    pub executable: PathBuf,
}

/// Everything a release needs, validated by the caller.
pub struct ReleaseRequest<'a> {
    pub component: &'a Path,
    pub source: &'a ProviderSource,
    pub version: &'a ProviderVersion,
    pub out: &'a Path,
    pub hosts: &'a [PlatformHost],
    pub grants: &'a Grants,
    pub signing_key: &'a SigningKey,
    pub force: bool,
}

/// One platform's zip and its two lock-file hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackagedPlatform {
    pub platform: Platform,
    pub zip: PathBuf,
    pub h1: String,
    pub zh: String,
}

/// What [`write_release`] made.
#[derive(Debug, Clone)]
pub struct Release {
    pub dir: PathBuf,
    pub platforms: Vec<PackagedPlatform>,
    /// `zh:` of every file `SHA256SUMS` lists (zips and manifest), which Terraform records
    /// once it has verified the signature.
    pub listed_zip_hashes: Vec<String>,
    pub key_id: String,
    /// False when an identical release was already there (nothing was written).
    pub written: bool,
}

impl Release {
    /// The `provider` block `terraform providers lock` writes after locking every packaged
    /// platform from a registry serving this release.
    pub fn lock_block(&self, source: &ProviderSource, version: &ProviderVersion) -> String {
        let mut hashes: Vec<&str> = self.platforms.iter().map(|p| p.h1.as_str()).collect();
        hashes.extend(self.listed_zip_hashes.iter().map(String::as_str));
        hashes.sort_unstable();
        hashes.dedup();
        let lines: String = hashes.iter().map(|h| format!("    \"{h}\",\n")).collect();
        format!(
            "provider \"{source}\" {{\n  version = \"{version}\"\n  hashes = [\n{lines}  ]\n}}\n"
        )
    }
}

/// Why a release could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error("cannot read {}: {cause}", path.display())]
    Read { path: PathBuf, cause: io::Error },

    #[error("cannot write {}: {cause}; pass an --out directory you can write", path.display())]
    Write { path: PathBuf, cause: io::Error },

    #[error("cannot zip the {platform} package: {cause}")]
    Zip { platform: Platform, cause: zip::result::ZipError },

    #[error(
        "{} already holds a different {source_address} {version}; a published version must never \
         change (lock files hold its hashes), so package a new version, or pass --force to \
         replace it",
        dir.display()
    )]
    AlreadyPackaged { dir: PathBuf, source_address: String, version: String },

    #[error(transparent)]
    Signing(#[from] SigningError),
}

/// Writes the release files of one version into [`provider_dir`]. Each file is written under
/// a temporary name and renamed, and `SHA256SUMS` and its signature last, so a registry serving
/// the directory meanwhile never hands out a half-written release.
pub fn write_release(request: &ReleaseRequest<'_>) -> Result<Release, ReleaseError> {
    let names = ReleaseNames::new(&request.source.type_name, request.version.as_str());
    let dir = provider_dir(request.out, request.source);
    let read = |path: &Path| {
        fs::read(path).map_err(|cause| ReleaseError::Read { path: path.to_owned(), cause })
    };
    let component = read(request.component)?;
    let grants = request.grants.render(&format!("{} {}", request.source, request.version));

    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut platforms = Vec::new();
    for host in request.hosts {
        let suffix = if host.platform.os == "windows" { ".exe" } else { "" };
        let package = provider_files(
            format!("terraform-provider-{}_v{}{suffix}", request.source.type_name, request.version),
            read(&host.executable)?,
            &component,
            &grants,
        );
        let zip = write_zip(&package)
            .map_err(|cause| ReleaseError::Zip { platform: host.platform, cause })?;
        let h1 = package_hash(package.iter().map(|f| (f.name.as_str(), f.content.as_slice())))
            .unwrap_or_default();
        let name = names.zip(host.platform);
        platforms.push(PackagedPlatform {
            platform: host.platform,
            zip: dir.join(&name),
            h1,
            zh: zip_hash(&zip),
        });
        files.push((name, zip));
    }
    files.push((names.manifest(), manifest_json().into_bytes()));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let shasums: String =
        files.iter().map(|(name, bytes)| format!("{}  {name}\n", sha256_hex(bytes))).collect();
    let listed_zip_hashes = files.iter().map(|(_, bytes)| zip_hash(bytes)).collect();

    let mut release = Release {
        dir: dir.clone(),
        platforms,
        listed_zip_hashes,
        key_id: request.signing_key.key_id(),
        written: true,
    };
    let shasums_path = dir.join(names.shasums());
    if shasums_path.exists() {
        if fs::read(&shasums_path).is_ok_and(|old| old == shasums.as_bytes()) {
            // The same release is already there, signed: leave it as it is.
            release.written = false;
            return Ok(release);
        }
        if !request.force {
            return Err(ReleaseError::AlreadyPackaged {
                dir,
                source_address: request.source.to_string(),
                version: request.version.to_string(),
            });
        }
    }

    let write_error = |path: &Path| {
        let path = path.to_owned();
        move |cause| ReleaseError::Write { path, cause }
    };
    fs::create_dir_all(&dir).map_err(write_error(&dir))?;
    // --force: drop the old version's files first, platforms no longer packaged included.
    for entry in fs::read_dir(&dir).map_err(write_error(&dir))? {
        let entry = entry.map_err(write_error(&dir))?;
        if entry.file_name().to_str().is_some_and(|name| names.owns(name)) {
            fs::remove_file(entry.path()).map_err(write_error(&entry.path()))?;
        }
    }
    let signature = request.signing_key.sign_detached(shasums.as_bytes())?;
    let public_key = request.signing_key.public_key_armored()?;
    files.push((names.signing_key(), public_key.into_bytes()));
    files.push((names.shasums(), shasums.into_bytes()));
    files.push((names.signature(), signature));
    for (name, bytes) in &files {
        let path = dir.join(name);
        let staged = dir.join(format!(".{name}.terrarium-new-{}", std::process::id()));
        fs::write(&staged, bytes).map_err(write_error(&staged))?;
        fs::rename(&staged, &path).map_err(write_error(&path))?;
    }
    Ok(release)
}

/// terraform-registry-manifest.json: the protocol versions the provider speaks.
pub fn manifest_json() -> String {
    let manifest = serde_json::json!({
        "version": 1,
        "metadata": { "protocol_versions": PROTOCOL_VERSIONS },
    });
    format!("{manifest:#}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zip_names_round_trip_and_other_files_are_not_zips() {
        let names = ReleaseNames::new("widgets", "1.2.3-beta.1");
        let linux_arm64 = Platform { os: "linux", arch: "arm64" };
        let zip = names.zip(linux_arm64);
        assert_eq!(zip, "terraform-provider-widgets_1.2.3-beta.1_linux_arm64.zip");
        assert_eq!(parse_zip_name("widgets", &zip), Some(("1.2.3-beta.1".into(), linux_arm64)));
        assert_eq!(
            parse_zip_name("widgets", "Terraform-Provider-Widgets_1.0.0_LINUX_AMD64.ZIP"),
            Some(("1.0.0".into(), Platform { os: "linux", arch: "amd64" }))
        );
        for other in [names.shasums(), names.signature(), names.manifest(), names.signing_key()] {
            assert!(names.owns(&other));
            assert_eq!(parse_zip_name("widgets", &other), None, "{other}");
        }
        assert!(!ReleaseNames::new("widgets", "1.2.3").owns(&zip));
    }

    #[test]
    fn a_release_lists_and_signs_its_files_and_a_changed_one_needs_force() {
        let out = tempfile::tempdir().unwrap();
        let component = out.path().join("c.wasm");
        fs::write(&component, b"\0asm\x0d\x00\x01\x00one").unwrap();
        let executable = out.path().join("exe");
        fs::write(&executable, b"\x7fELF").unwrap();
        let source: ProviderSource = "acme/widgets".parse().unwrap();
        let version: ProviderVersion = "0.1.0".parse().unwrap();
        let hosts =
            [PlatformHost { platform: Platform { os: "linux", arch: "amd64" }, executable }];
        let key = SigningKey::generated_for_tests();
        let mut request = ReleaseRequest {
            component: &component,
            source: &source,
            version: &version,
            out: out.path(),
            hosts: &hosts,
            grants: &Grants::default(),
            signing_key: &key,
            force: false,
        };
        let release = write_release(&request).unwrap();
        assert!(release.written);
        let names = ReleaseNames::new("widgets", "0.1.0");
        let zip = fs::read(release.dir.join(names.zip(hosts[0].platform))).unwrap();
        let manifest = fs::read(release.dir.join(names.manifest())).unwrap();
        let sums = fs::read_to_string(release.dir.join(names.shasums())).unwrap();
        assert_eq!(
            sums,
            format!(
                "{}  {}\n{}  {}\n",
                sha256_hex(&zip),
                names.zip(hosts[0].platform),
                sha256_hex(&manifest),
                names.manifest()
            )
        );
        // The zip's h1 is the h1 of what it unpacks to.
        let unpacked = super::super::archive::read_zip(&zip).unwrap();
        assert_eq!(
            package_hash(unpacked.iter().map(|f| (f.name.as_str(), f.content.as_slice()))),
            Some(release.platforms[0].h1.clone())
        );
        let block = release.lock_block(&source, &version);
        assert!(block.starts_with(
            "provider \"registry.terraform.io/acme/widgets\" {\n  version = \"0.1.0\"\n"
        ));
        assert_eq!(block.matches("\"zh:").count(), 2, "{block}");
        assert_eq!(block.matches("\"h1:").count(), 1, "{block}");

        assert!(!write_release(&request).unwrap().written, "the same release is left alone");
        fs::write(&component, b"\0asm\x0d\x00\x01\x00two").unwrap();
        assert!(matches!(write_release(&request), Err(ReleaseError::AlreadyPackaged { .. })));
        request.force = true;
        assert!(write_release(&request).unwrap().written);
        let leftovers = fs::read_dir(&release.dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with('.'))
            .count();
        assert_eq!(leftovers, 0, "no staging files are left behind");
    }

    #[test]
    fn the_manifest_lists_both_protocols() {
        let manifest: serde_json::Value = serde_json::from_str(&manifest_json()).unwrap();
        assert_eq!(manifest["version"], 1);
        assert_eq!(manifest["metadata"]["protocol_versions"], serde_json::json!(["5.0", "6.0"]));
    }
}

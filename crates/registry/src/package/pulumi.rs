//! `terrarium package --pulumi NAME`: the provider as the plugin archives Pulumi installs,
//! one per platform, `pulumi-resource-NAME-vVERSION-OS-ARCH.tar.gz`, for
//! `pulumi plugin install resource NAME VERSION --file ARCHIVE` (or a plugin server).
//!
//! Pulumi unpacks an archive into `$PULUMI_HOME/plugins/resource-NAME-vVERSION/`, the layout
//! `terrarium install --pulumi` writes: the served-only executable named
//! `pulumi-resource-NAME`, `provider.wasm` and `grants.toml`. Written reproducibly, as the
//! release zips are: sorted entries, fixed modes, owners and times, gzip without a name or time.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::GzBuilder;

use super::archive::{PackageFile, provider_files};
use super::release::PlatformHost;
use terrarium_install::pulumi::EXECUTABLE_PREFIX;
use terrarium_install::{Platform, ProviderVersion};
use terrarium_runtime::sandbox::Grants;

/// Why the plugin archives could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PluginArchiveError {
    #[error("cannot read {}: {cause}", path.display())]
    Read { path: PathBuf, cause: std::io::Error },

    #[error("cannot write {}: {cause}", path.display())]
    Write { path: PathBuf, cause: std::io::Error },

    #[error(
        "{} already holds another build of this version; a version is published once: give a \
         new --version, or --force to replace it",
        path.display()
    )]
    AlreadyPackaged { path: PathBuf },
}

/// What the archive of Pulumi package `name` at `version` for `platform` is called, as
/// Pulumi's plugin downloads name them (`linux-amd64`, `darwin-arm64`).
pub fn archive_name(name: &str, version: &ProviderVersion, platform: Platform) -> String {
    format!("{EXECUTABLE_PREFIX}{name}-v{version}-{}-{}.tar.gz", platform.os, platform.arch)
}

/// Writes one archive per host into `out` (created if missing); returns their paths.
pub fn write_plugin_archives(
    component: &Path,
    name: &str,
    version: &ProviderVersion,
    hosts: &[PlatformHost],
    grants: &Grants,
    out: &Path,
    force: bool,
) -> Result<Vec<PathBuf>, PluginArchiveError> {
    let read = |path: &Path| {
        fs::read(path).map_err(|cause| PluginArchiveError::Read { path: path.to_owned(), cause })
    };
    let write_error = |path: &Path| {
        let path = path.to_owned();
        move |cause| PluginArchiveError::Write { path, cause }
    };
    let component = read(component)?;
    let grants = grants.render(&format!("Pulumi package {name} {version}"));
    fs::create_dir_all(out).map_err(write_error(out))?;
    let mut written = Vec::new();
    for host in hosts {
        let suffix = if host.platform.os == "windows" { ".exe" } else { "" };
        let files = provider_files(
            format!("{EXECUTABLE_PREFIX}{name}{suffix}"),
            read(&host.executable)?,
            &component,
            &grants,
        );
        let path = out.join(archive_name(name, version, host.platform));
        let bytes = write_tar_gz(&files).map_err(write_error(&path))?;
        if !force && fs::read(&path).is_ok_and(|old| old != bytes) {
            return Err(PluginArchiveError::AlreadyPackaged { path });
        }
        // Written beside and renamed, so nobody installs half an archive.
        let partial = path.with_extension("gz.partial");
        fs::write(&partial, &bytes).map_err(write_error(&partial))?;
        fs::rename(&partial, &path).map_err(write_error(&path))?;
        written.push(path);
    }
    Ok(written)
}

/// `files` as a gzipped tar: sorted by name, owner root, time 0, modes 0755 or 0644.
pub fn write_tar_gz(files: &[PackageFile]) -> std::io::Result<Vec<u8>> {
    let mut sorted: Vec<&PackageFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let gzip = GzBuilder::new().mtime(0).write(Vec::new(), Compression::default());
    let mut tar = tar::Builder::new(gzip);
    tar.mode(tar::HeaderMode::Deterministic);
    for file in sorted {
        let mut header = tar::Header::new_gnu();
        header.set_size(file.content.len() as u64);
        header.set_mode(if file.executable { 0o755 } else { 0o644 });
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, &file.name, file.content.as_slice())?;
    }
    let mut gzip = tar.into_inner()?;
    gzip.flush()?;
    gzip.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn files() -> Vec<PackageFile> {
        vec![
            PackageFile { name: "provider.wasm".into(), content: vec![7; 5000], executable: false },
            PackageFile {
                name: "pulumi-resource-x".into(),
                content: b"ELF".to_vec(),
                executable: true,
            },
        ]
    }

    #[test]
    fn the_same_files_give_the_same_bytes_and_unpack_with_their_modes() {
        let one = write_tar_gz(&files()).unwrap();
        let mut reversed = files();
        reversed.reverse();
        assert_eq!(one, write_tar_gz(&reversed).unwrap(), "the order of the files shows");

        let mut unpacked = Vec::new();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(one.as_slice()));
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            let mut content = Vec::new();
            entry.read_to_end(&mut content).unwrap();
            let name = entry.path().unwrap().display().to_string();
            unpacked.push((name, entry.header().mode().unwrap(), content.len()));
        }
        assert_eq!(
            unpacked,
            vec![
                ("provider.wasm".to_owned(), 0o644, 5000),
                ("pulumi-resource-x".to_owned(), 0o755, 3),
            ]
        );
    }

    #[test]
    fn archives_are_named_as_pulumi_names_its_plugin_downloads() {
        let version: ProviderVersion = "1.2.3".parse().unwrap();
        let platform = Platform { os: "linux", arch: "arm64" };
        assert_eq!(
            archive_name("random", &version, platform),
            "pulumi-resource-random-v1.2.3-linux-arm64.tar.gz"
        );
    }
}

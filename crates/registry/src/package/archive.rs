//! Release zips: written reproducibly (the same files give the same bytes, so the same `zh:`
//! hash), and read back for their `h1:` hash.

use std::io::{Cursor, Read as _, Write as _};

/// One file of a package: its name inside the zip and what Terraform unpacks it to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFile {
    pub name: String,
    pub content: Vec<u8>,
    /// Unpacked with mode 0755 instead of 0644 (Terraform keeps the zip's Unix mode).
    pub executable: bool,
}

/// What every package of a provider holds, for Terraform and for Pulumi alike: the host
/// executable as `executable_name`, the component and its grants file.
pub fn provider_files(
    executable_name: String,
    executable: Vec<u8>,
    component: &[u8],
    grants: &str,
) -> Vec<PackageFile> {
    vec![
        PackageFile { name: executable_name, content: executable, executable: true },
        PackageFile {
            name: terrarium_install::COMPONENT_FILE_NAME.to_owned(),
            content: component.to_vec(),
            executable: false,
        },
        PackageFile {
            name: terrarium_runtime::sandbox::GRANTS_FILE_NAME.to_owned(),
            content: grants.as_bytes().to_vec(),
            executable: false,
        },
    ]
}

/// Writes `files` as a zip: sorted by name, deflated, Unix modes, and every timestamp the zip
/// format's earliest (1980-01-01), so nothing but the contents reaches the bytes.
pub fn write_zip(files: &[PackageFile]) -> zip::result::ZipResult<Vec<u8>> {
    let mut sorted: Vec<&PackageFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for file in sorted {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(zip::DateTime::default())
            .unix_permissions(if file.executable { 0o755 } else { 0o644 });
        writer.start_file(file.name.as_str(), options)?;
        writer.write_all(&file.content)?;
    }
    Ok(writer.finish()?.into_inner())
}

/// The files a zip holds (directories left out), in the zip's order, as Terraform's `h1:`
/// hash of a zip sees them.
pub fn read_zip(bytes: &[u8]) -> zip::result::ZipResult<Vec<PackageFile>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))?;
    let mut files = Vec::with_capacity(archive.len());
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index)?;
        if entry.is_dir() {
            continue;
        }
        let mut content = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
        entry.read_to_end(&mut content)?;
        let executable = entry.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
        files.push(PackageFile { name: entry.name()?.into_owned(), content, executable });
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<PackageFile> {
        vec![
            PackageFile { name: "b.wasm".into(), content: vec![0; 4096], executable: false },
            PackageFile { name: "a-exe".into(), content: b"#!x".to_vec(), executable: true },
        ]
    }

    #[test]
    fn zips_are_reproducible_and_read_back_sorted_with_modes() {
        let first = write_zip(&files()).unwrap();
        let mut reversed = files();
        reversed.reverse();
        assert_eq!(write_zip(&reversed).unwrap(), first, "input order must not matter");
        let read = read_zip(&first).unwrap();
        assert_eq!(read.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["a-exe", "b.wasm"]);
        assert!(read[0].executable && !read[1].executable);
        assert_eq!(read[1].content, vec![0; 4096]);
        assert!(first.len() < 4096, "the content is deflated");
    }
}

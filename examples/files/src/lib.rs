//! `terrarium/files`: files on disk, in the spirit of hashicorp/local, for Terrarium.
//!
//! The provider is ordinary file-system code (`std::fs`); what it may touch is decided by the
//! user, not by the provider: Terrarium shows it only the directories granted with
//! `terrarium install --allow-dir DIR:rw` (or `DIR:ro` for reading). A path outside every
//! grant does not exist for it, so writing there fails with a diagnostic that says how to
//! grant the directory.
//!
//! | type                   | what                                                          |
//! |------------------------|---------------------------------------------------------------|
//! | resource `files_file`  | a file with the given content; replaced when the content or   |
//! |                        | name changes; drift (edited or deleted on disk) is detected   |
//! |                        | on refresh and planned as a replacement; import by file name  |
//! | data `files_file`      | reads a file                                                  |
//! | action `files_touch`   | creates missing files, updates modification times; reports   |
//! |                        | progress per file                                             |

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use terrarium_sdk::{
    AnyAction, AnyDataSource, AnyResource, Attr, DataSource, Diagnostics, IntoPath, Model, Provider, Resource, Result,
};

pub mod touch;

pub use touch::Touch;

#[derive(Default)]
pub struct FilesProvider;

impl Provider for FilesProvider {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(FileResource)]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(FileData)]
    }

    fn actions(&self) -> Vec<Box<dyn AnyAction + '_>> {
        vec![Box::new(Touch)]
    }
}

terrarium_sdk::export!(FilesProvider);

/// Largest file the provider reads into state; Terraform state is no place for more.
const MAX_FILE_BYTES: u64 = 4 << 20;

pub struct FileResource;

/// `files_file`.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct FileState {
    /// The file's SHA-256 (hex), like hashicorp/local's id.
    #[tf(computed)]
    pub id: Attr<String>,
    /// Absolute path of the file; it must be inside a directory granted read-write.
    #[tf(requires_replace)]
    pub filename: String,
    /// The file's content (UTF-8).
    #[tf(requires_replace)]
    pub content: String,
    /// SHA-256 of the content, hex.
    #[tf(computed)]
    pub content_sha256: Attr<String>,
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A diagnostic for a file-system error, with what to grant when the sandbox is the reason.
fn fs_error(action: &str, filename: &str, e: &std::io::Error) -> Diagnostics {
    fs_error_at("filename", action, filename, e)
}

/// [`fs_error`] about the attribute `at`: the file it names cannot be used; the grant to
/// ask for is that of its directory.
fn fs_error_at(at: impl IntoPath, action: &str, filename: &str, e: &std::io::Error) -> Diagnostics {
    let dir = std::path::Path::new(filename).parent().map(|p| p.display().to_string()).unwrap_or_default();
    fs_error_in(at, action, filename, &dir, e)
}

/// [`fs_error_at`], naming the directory `dir` that needs a grant.
fn fs_error_in(at: impl IntoPath, action: &str, filename: &str, dir: &str, e: &std::io::Error) -> Diagnostics {
    let hint = match e.kind() {
        std::io::ErrorKind::NotFound
        | std::io::ErrorKind::PermissionDenied
        | std::io::ErrorKind::ReadOnlyFilesystem => {
            format!(
                " Terrarium shows this provider only the directories its grants list. If {dir} should be \
                 usable, grant it: `terrarium install --allow-dir {dir}:rw` (or add \"{dir}:rw\" to \
                 allow_dir in the provider's grants.toml)."
            )
        }
        _ => String::new(),
    };
    Diagnostics::attribute_error(at, format!("Cannot {action} {filename}"), format!("{e}.{hint}"))
}

fn check_absolute(filename: &str) -> Result<()> {
    if std::path::Path::new(filename).is_absolute() {
        Ok(())
    } else {
        Err(Diagnostics::attribute_error(
            "filename",
            "Relative file name",
            format!(
                "{filename:?} is relative; use an absolute path inside a granted directory (for example \"${{abspath(path.module)}}/out.txt\")."
            ),
        ))
    }
}

/// Reads a file for state: `None` when it does not exist.
fn read_file(filename: &str) -> Result<Option<String>> {
    let meta = match std::fs::metadata(filename) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fs_error("read", filename, &e)),
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(Diagnostics::attribute_error(
            "filename",
            "File too large",
            format!("{filename} has {} bytes; this provider keeps at most {MAX_FILE_BYTES} in state.", meta.len()),
        ));
    }
    let bytes = std::fs::read(filename).map_err(|e| fs_error("read", filename, &e))?;
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Diagnostics::attribute_error("filename", "Not a text file", format!("{filename} is not valid UTF-8."))
    })
}

impl Resource for FileResource {
    const TYPE_NAME: &'static str = "files_file";
    type State = FileState;

    fn schema(&self) -> terrarium_sdk::schema::Schema {
        FileState::schema().description("A file with the given content, inside a directory granted to the provider.")
    }

    fn create(&self, planned: FileState) -> Result<FileState> {
        check_absolute(&planned.filename)?;
        let path = std::path::Path::new(&planned.filename);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fs_error("create the directory of", &planned.filename, &e))?;
        }
        std::fs::write(path, planned.content.as_bytes()).map_err(|e| fs_error("write", &planned.filename, &e))?;
        let digest = sha256(planned.content.as_bytes());
        Ok(FileState { id: digest.clone().into(), content_sha256: digest.into(), ..planned })
    }

    /// Drift: a deleted file leaves the state (Terraform plans to create it again); an edited
    /// one reads back with its new content, which differs from the configuration and so
    /// plans a replacement.
    fn read(&self, current: FileState) -> Result<Option<FileState>> {
        let Some(content) = read_file(&current.filename)? else { return Ok(None) };
        let digest = sha256(content.as_bytes());
        Ok(Some(FileState { id: digest.clone().into(), content_sha256: digest.into(), content, ..current }))
    }

    fn delete(&self, prior: FileState) -> Result<()> {
        match std::fs::remove_file(&prior.filename) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(fs_error("delete", &prior.filename, &e)),
        }
    }

    /// `terraform import files_file.x /abs/path`.
    fn import(&self, id: &str) -> Result<FileState> {
        check_absolute(id)?;
        let content = read_file(id)?.ok_or_else(|| {
            Diagnostics::error("Cannot import", format!("{id} does not exist (or is outside the granted directories)."))
        })?;
        let digest = sha256(content.as_bytes());
        Ok(FileState { id: digest.clone().into(), filename: id.to_string(), content, content_sha256: digest.into() })
    }
}

pub struct FileData;

/// `data "files_file"`.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct FileDataState {
    /// Absolute path of the file; it must be inside a granted directory.
    pub filename: String,
    /// The file's content.
    #[tf(computed)]
    pub content: Attr<String>,
    /// SHA-256 of the content, hex.
    #[tf(computed)]
    pub content_sha256: Attr<String>,
}

impl DataSource for FileData {
    const TYPE_NAME: &'static str = "files_file";
    type State = FileDataState;

    fn read(&self, config: FileDataState) -> Result<FileDataState> {
        check_absolute(&config.filename)?;
        let content = read_file(&config.filename)?
            .ok_or_else(|| fs_error("read", &config.filename, &std::io::Error::from(std::io::ErrorKind::NotFound)))?;
        let digest = sha256(content.as_bytes());
        Ok(FileDataState { content: content.into(), content_sha256: digest.into(), ..config })
    }
}

#[cfg(test)]
mod tests {
    use terrarium_sdk::Server;

    use super::*;

    #[test]
    fn the_schema_has_no_mistakes() {
        let (_, diagnostics) = Server::new(FilesProvider).get_schema();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }

    #[test]
    fn create_read_drift_and_delete() {
        let dir = tempfile::tempdir().unwrap();
        let filename = dir.path().join("sub/hello.txt").display().to_string();
        let planned = FileState {
            id: Attr::Unknown,
            filename: filename.clone(),
            content: "hello".into(),
            content_sha256: Attr::Unknown,
        };
        let created = FileResource.create(planned).unwrap();
        assert_eq!(std::fs::read_to_string(&filename).unwrap(), "hello");
        assert_eq!(created.content_sha256, Attr::Known(sha256(b"hello")));

        std::fs::write(&filename, "edited").unwrap();
        let read = FileResource.read(created).unwrap().expect("still there");
        assert_eq!(read.content, "edited");
        std::fs::remove_file(&filename).unwrap();
        assert!(FileResource.read(read).unwrap().is_none(), "a deleted file leaves the state");
    }

    #[test]
    fn relative_names_are_refused() {
        let planned = FileState {
            id: Attr::Unknown,
            filename: "x.txt".into(),
            content: String::new(),
            content_sha256: Attr::Unknown,
        };
        assert!(FileResource.create(planned).is_err());
    }
}

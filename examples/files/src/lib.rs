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
//! |                        | on refresh and planned as a replacement                       |
//! |                        | - identity `{ path }` (version 1, upgraded from version 0's   |
//! |                        |   `{ filename }`): import by identity or by file name         |
//! |                        | - write-only `content_wo`: written, never stored in state;    |
//! |                        |   a new `content_wo_version` writes it again                  |
//! |                        | - `-generate-config-out` writes its configuration             |
//! | data `files_file`      | reads a file                                                  |
//! | list `files_file`      | `terraform query`: the files of a directory, by identity      |
//! | action `files_touch`   | creates missing files, updates modification times; reports   |
//! |                        | progress per file                                             |

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use terrarium_sdk::identity::{AnyIdentity, ResourceIdentity};
use terrarium_sdk::{
    AnyAction, AnyDataSource, AnyListResource, AnyResource, Attr, DataSource, Diagnostics,
    IntoPath, Model, Provider, Resource, Result, Value,
};

pub mod list;
pub mod touch;

pub use list::FileListConfig;
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

    /// `terraform query`: the resource type lists the files of a directory (see [`list`]).
    fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
        vec![Box::new(FileResource)]
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
    /// The file's content (UTF-8). Set exactly one of content and content_wo.
    #[tf(requires_replace)]
    pub content: Option<String>,
    /// The file's content, write-only: written to the file but never stored in the state or
    /// the plan (Terraform 1.11+), for secrets. Set exactly one of content and content_wo.
    #[tf(write_only)]
    pub content_wo: Option<String>,
    /// Terraform cannot see changes of content_wo; change this number to write it again.
    #[tf(requires_replace)]
    pub content_wo_version: Option<i64>,
    /// SHA-256 of the content, hex.
    #[tf(computed)]
    pub content_sha256: Attr<String>,
}

/// The identity of a `files_file`: which file it is. Terraform keeps it beside the state;
/// `import { to = files_file.x  identity = { path = "/abs/f" } }` imports by it, and
/// `terraform query` lists files by it.
#[derive(Debug, Serialize, Deserialize, Model)]
#[tf(version = 1)]
pub struct FileIdentity {
    /// The absolute file name.
    #[tf(required_for_import)]
    pub path: String,
}

/// The state attribute a `files_file`'s identity is made of.
#[derive(Deserialize)]
pub struct FileName {
    filename: String,
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
    let dir = std::path::Path::new(filename)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    fs_error_in(at, action, filename, &dir, e)
}

/// [`fs_error_at`], naming the directory `dir` that needs a grant.
fn fs_error_in(
    at: impl IntoPath,
    action: &str,
    filename: &str,
    dir: &str,
    e: &std::io::Error,
) -> Diagnostics {
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
            format!(
                "{filename} has {} bytes; this provider keeps at most {MAX_FILE_BYTES} in state.",
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(filename).map_err(|e| fs_error("read", filename, &e))?;
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Diagnostics::attribute_error(
            "filename",
            "Not a text file",
            format!("{filename} is not valid UTF-8."),
        )
    })
}

impl Resource for FileResource {
    const TYPE_NAME: &'static str = "files_file";
    type State = FileState;
    /// A replacement with the same file name is the same file: written first, it would be
    /// deleted with the old object.
    const DELETE_BEFORE_REPLACE: bool = true;

    fn schema(&self) -> terrarium_sdk::schema::Schema {
        FileState::schema().description(
            "A file with the given content, inside a directory granted to the provider.",
        )
    }

    /// Exactly one of `content` and `content_wo`; either may still be unknown here.
    fn validate(&self, config: &Value) -> Result<()> {
        let given = |name| config.attr(name).unwrap_or(&Value::Null);
        let (content, content_wo) = (given("content"), given("content_wo"));
        if content.is_unknown() || content_wo.is_unknown() {
            return Ok(());
        }
        match (content.is_null(), content_wo.is_null()) {
            (false, false) => Err(Diagnostics::attribute_error(
                "content_wo",
                "Conflicting content",
                "Set content or content_wo, not both.",
            )),
            (true, true) => Err(Diagnostics::attribute_error(
                "content",
                "Missing content",
                "Set content (stored in the state) or content_wo (write-only, never stored).",
            )),
            _ => Ok(()),
        }
    }

    /// `planned.content_wo` holds the configured value here, although the plan and the
    /// state hold null: the SDK passes write-only values to create and update only.
    fn create(&self, planned: FileState) -> Result<FileState> {
        check_absolute(&planned.filename)?;
        let Some(content) = planned.content.as_ref().or(planned.content_wo.as_ref()) else {
            return Err(Diagnostics::attribute_error(
                "content",
                "Missing content",
                "Set content or content_wo.",
            ));
        };
        let path = std::path::Path::new(&planned.filename);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| fs_error("create the directory of", &planned.filename, &e))?;
        }
        std::fs::write(path, content.as_bytes())
            .map_err(|e| fs_error("write", &planned.filename, &e))?;
        let digest = sha256(content.as_bytes());
        Ok(FileState { id: digest.clone().into(), content_sha256: digest.into(), ..planned })
    }

    /// Drift: a deleted file leaves the state (Terraform plans to create it again); an edited
    /// one reads back with its new content, which differs from the configuration and so
    /// plans a replacement. A file written from `content_wo` has no content in the state to
    /// compare, only its digest: edited, it reads as gone, so Terraform writes it again.
    fn read(&self, current: FileState) -> Result<Option<FileState>> {
        let Some(content) = read_file(&current.filename)? else { return Ok(None) };
        let digest = sha256(content.as_bytes());
        if current.content.is_none() {
            return Ok((current.content_sha256.known() == Some(&digest)).then_some(current));
        }
        Ok(Some(FileState {
            id: digest.clone().into(),
            content_sha256: digest.into(),
            content: Some(content),
            ..current
        }))
    }

    fn delete(&self, prior: FileState) -> Result<()> {
        match std::fs::remove_file(&prior.filename) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(fs_error("delete", &prior.filename, &e)),
        }
    }

    /// `terraform import files_file.x /abs/path`, or an `import` block's `id`. The file is
    /// imported with `content` (the generated configuration then has it).
    fn import(&self, id: &str) -> Result<FileState> {
        check_absolute(id)?;
        let content = read_file(id)?.ok_or_else(|| {
            Diagnostics::error(
                "Cannot import",
                format!("{id} does not exist (or is outside the granted directories)."),
            )
        })?;
        let digest = sha256(content.as_bytes());
        Ok(FileState {
            id: digest.clone().into(),
            filename: id.to_string(),
            content: Some(content),
            content_wo: None,
            content_wo_version: None,
            content_sha256: digest.into(),
        })
    }

    /// `files_file` has an identity: see the `ResourceIdentity` below.
    fn identity(&self) -> Option<&dyn AnyIdentity<FileState>> {
        Some(self)
    }
}

impl ResourceIdentity for FileResource {
    type Identity = FileIdentity;
    type Source = FileName;

    /// The file name is configured, so the identity is known from the first plan on, even
    /// when the content is not.
    fn identity_of(&self, source: FileName) -> Option<FileIdentity> {
        Some(FileIdentity { path: source.filename })
    }

    /// `import { to = files_file.x  identity = { path = "/abs/f" } }`.
    fn import_by_identity(&self, identity: FileIdentity) -> Result<FileState> {
        self.import(&identity.path)
    }

    /// Version 0 of the identity was `{ filename = "..." }`.
    fn upgrade_identity(&self, version: i64, raw: Value) -> Result<Value> {
        match (version, raw.attr("filename")) {
            (0, Some(filename)) => {
                Ok(Value::Object([("path".to_string(), filename.clone())].into()))
            }
            _ => Err(Diagnostics::error(
                "Cannot upgrade identity",
                format!(
                    "A files_file identity of version {version} should be {{ filename = \"...\" }}; this one is {raw:?}."
                ),
            )),
        }
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
        let content = read_file(&config.filename)?.ok_or_else(|| {
            fs_error("read", &config.filename, &std::io::Error::from(std::io::ErrorKind::NotFound))
        })?;
        let digest = sha256(content.as_bytes());
        Ok(FileDataState { content: content.into(), content_sha256: digest.into(), ..config })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use terrarium_sdk::Server;
    use terrarium_sdk::testing::Harness;

    use super::*;

    fn planned(filename: &str, content: Option<&str>, content_wo: Option<&str>) -> FileState {
        FileState {
            id: Attr::Unknown,
            filename: filename.to_string(),
            content: content.map(str::to_string),
            content_wo: content_wo.map(str::to_string),
            content_wo_version: None,
            content_sha256: Attr::Unknown,
        }
    }

    fn path_identity(path: &str) -> Value {
        Value::Object([("path".to_string(), Value::string(path))].into())
    }

    #[test]
    fn the_schema_has_no_mistakes() {
        let server = Server::new(FilesProvider);
        let (schema, diagnostics) = server.get_schema();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert!(schema.capabilities.generate_resource_config);
        let identity = &server.identity_schemas()["files_file"];
        assert_eq!(identity.version, 1);
        assert_eq!(identity.attributes.len(), 1);
        assert_eq!(identity.attributes[0].name, "path");
        assert!(identity.attributes[0].required_for_import);
        let content_wo = schema.resources["files_file"].block.attribute("content_wo").unwrap();
        assert!(content_wo.write_only && content_wo.optional);
    }

    #[test]
    fn create_read_drift_and_delete() {
        let dir = tempfile::tempdir().unwrap();
        let filename = dir.path().join("sub/hello.txt").display().to_string();
        let created = FileResource.create(planned(&filename, Some("hello"), None)).unwrap();
        assert_eq!(std::fs::read_to_string(&filename).unwrap(), "hello");
        assert_eq!(created.content_sha256, Attr::Known(sha256(b"hello")));

        std::fs::write(&filename, "edited").unwrap();
        let read = FileResource.read(created).unwrap().expect("still there");
        assert_eq!(read.content.as_deref(), Some("edited"));
        std::fs::remove_file(&filename).unwrap();
        assert!(FileResource.read(read).unwrap().is_none(), "a deleted file leaves the state");
    }

    #[test]
    fn relative_names_are_refused() {
        assert!(FileResource.create(planned("x.txt", Some(""), None)).is_err());
    }

    #[test]
    fn identity_is_the_path_from_the_first_plan_on() {
        let dir = tempfile::tempdir().unwrap();
        let filename = dir.path().join("a.txt").display().to_string();
        let h = Harness::new(FilesProvider);
        let created =
            h.create("files_file", json!({"filename": filename, "content": "a"})).unwrap();
        assert_eq!(
            created.planned_identity,
            Some(path_identity(&filename)),
            "the file name is configured"
        );
        assert_eq!(created.identity, Some(path_identity(&filename)));
        let read = h.refresh("files_file", &created).unwrap();
        assert_eq!(read.identity, Some(path_identity(&filename)));
    }

    #[test]
    fn import_by_identity_or_by_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let filename = dir.path().join("existing.txt").display().to_string();
        std::fs::write(&filename, "there").unwrap();
        let h = Harness::new(FilesProvider);

        let by_identity = h.import_by_identity("files_file", json!({"path": filename})).unwrap();
        assert_eq!(by_identity.identity, Some(path_identity(&filename)));
        assert_eq!(by_identity.state.attr("content"), Some(&Value::string("there")));

        let by_id = h.import("files_file", &filename).unwrap();
        assert_eq!(by_id.state, by_identity.state);
        assert_eq!(by_id.identity, by_identity.identity);

        let missing = dir.path().join("missing.txt").display().to_string();
        let err = h.import_by_identity("files_file", json!({"path": missing})).unwrap_err();
        assert!(err.mentions("does not exist"), "{err}");
    }

    #[test]
    fn version_0_identities_are_upgraded() {
        let h = Harness::new(FilesProvider);
        let upgraded =
            h.upgrade_identity("files_file", 0, json!({"filename": "/srv/a.txt"})).unwrap();
        assert_eq!(upgraded, path_identity("/srv/a.txt"));
        let current = h.upgrade_identity("files_file", 1, json!({"path": "/srv/b.txt"})).unwrap();
        assert_eq!(current, path_identity("/srv/b.txt"));
        let err = h.upgrade_identity("files_file", 0, json!({"name": "x"})).unwrap_err();
        assert!(err.mentions("should be { filename"), "{err}");
    }

    #[test]
    fn content_wo_is_written_never_stored_and_rewritten_by_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let filename = dir.path().join("secret.txt").display().to_string();
        let h = Harness::new(FilesProvider);
        let config = |secret: &str, version: i64| json!({"filename": filename, "content_wo": secret, "content_wo_version": version});

        let created = h.create("files_file", config("s3cret", 1)).unwrap();
        assert_eq!(std::fs::read_to_string(&filename).unwrap(), "s3cret");
        assert_eq!(created.state.attr("content_wo"), Some(&Value::Null));
        assert_eq!(created.state.attr("content"), Some(&Value::Null));
        assert_eq!(created.state.attr("content_sha256"), Some(&Value::string(sha256(b"s3cret"))));

        // Terraform cannot see a new write-only value...
        let same = h.update_from("files_file", &created, config("other", 1)).unwrap();
        assert!(!same.replaced);
        assert_eq!(std::fs::read_to_string(&filename).unwrap(), "s3cret");
        // ...until the version changes.
        let rotated = h.update_from("files_file", &same, config("n3w", 2)).unwrap();
        assert!(rotated.replaced);
        assert_eq!(std::fs::read_to_string(&filename).unwrap(), "n3w");
        assert_eq!(rotated.state.attr("content_wo"), Some(&Value::Null));

        let refreshed = h.refresh("files_file", &rotated).unwrap();
        assert_eq!(refreshed.state, rotated.state, "unchanged on disk: nothing to do");
        std::fs::write(&filename, "tampered").unwrap();
        let drifted = h.refresh("files_file", &rotated).unwrap();
        assert!(drifted.state.is_null(), "edited on disk: planned to be written again");
    }

    #[test]
    fn exactly_one_of_content_and_content_wo() {
        let h = Harness::new(FilesProvider);
        let both = h
            .validate("files_file", json!({"filename": "/f", "content": "a", "content_wo": "b"}))
            .unwrap_err();
        assert!(both.mentions("not both"), "{both}");
        let neither = h.validate("files_file", json!({"filename": "/f"})).unwrap_err();
        assert!(neither.mentions("Set content"), "{neither}");
        assert!(h.validate("files_file", json!({"filename": "/f", "content_wo": "b"})).is_ok());
    }

    #[test]
    fn generated_configuration_has_what_the_configuration_sets() {
        let dir = tempfile::tempdir().unwrap();
        let filename = dir.path().join("gen.txt").display().to_string();
        std::fs::write(&filename, "generated").unwrap();
        let h = Harness::new(FilesProvider);
        let imported = h.import("files_file", &filename).unwrap();
        let config = h.generate_config("files_file", &imported.state).unwrap();
        let expected =
            h.config("files_file", json!({"filename": filename, "content": "generated"})).unwrap();
        assert_eq!(config, expected, "computed-only id and content_sha256 left out");
    }
}

//! `list "files_file"`: the files in a directory, for `terraform query`. Each is named by
//! its identity (`{ path = "/abs/file" }`), so the listing can be turned into `import`
//! blocks, or into configuration with `terraform query -generate-config-out=files.tf`.
//!
//! ```hcl
//! # files.tfquery.hcl
//! list "files_file" "notes" {
//!   provider = files
//!   config {
//!     directory = "/srv/notes"
//!     suffix    = ".md"          # optional: only names ending with it
//!   }
//! }
//! ```
//!
//! Only regular files directly in the directory are listed (not subdirectories, nor
//! symbolic links), sorted by name. The listing is the resource type's own: `files_file`
//! implements [`ListResource`] beside `Resource` and `ResourceIdentity`, and an item's
//! state is exactly what importing the file would give.

use serde::Deserialize;
use terrarium_sdk::list::{ListResource, ListResults};
use terrarium_sdk::{Diagnostics, Model, Resource, Result, Value};

use crate::{FileIdentity, FileResource, fs_error_in};

/// The `config` block of `list "files_file"`.
#[derive(Debug, Deserialize, Model)]
pub struct FileListConfig {
    /// Absolute path of the directory to list; it must be inside a granted directory.
    pub directory: String,
    /// Only files whose names end with this (say ".txt").
    pub suffix: Option<String>,
}

impl ListResource for FileResource {
    type Config = FileListConfig;

    fn validate_list(&self, config: &Value) -> Result<()> {
        match config.attr("directory") {
            Some(Value::String(directory)) if !std::path::Path::new(directory).is_absolute() => {
                Err(Diagnostics::attribute_error(
                    "directory",
                    "Relative directory",
                    format!(
                        "{directory:?} is relative; use an absolute path inside a granted directory."
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    fn list(&self, config: FileListConfig, results: &mut ListResults<Self>) -> Result<()> {
        let directory = &config.directory;
        let cannot_list =
            |e: std::io::Error| fs_error_in("directory", "list", directory, directory, &e);
        let mut names = Vec::new();
        for entry in std::fs::read_dir(directory).map_err(cannot_list)? {
            let entry = entry.map_err(cannot_list)?;
            // `file_type` does not follow symbolic links: only regular files are listed.
            if !entry.file_type().map_err(cannot_list)?.is_file() {
                continue;
            }
            // A name that is not UTF-8 cannot be a Terraform string.
            let Ok(name) = entry.file_name().into_string() else { continue };
            if config.suffix.as_deref().is_none_or(|suffix| name.ends_with(suffix)) {
                names.push(name);
            }
        }
        names.sort();

        for name in names {
            let path = std::path::Path::new(directory).join(&name).display().to_string();
            let identity = FileIdentity { path: path.clone() };
            // The state is read only when Terraform asks for resource objects.
            if !results.push(identity, name, || self.import(&path)) {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use terrarium_sdk::testing::Harness;

    use crate::FilesProvider;

    #[test]
    fn lists_regular_files_sorted_with_identity_and_state() {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in [("b.txt", "bee"), ("a.txt", "ay"), ("c.md", "see")] {
            std::fs::write(dir.path().join(name), content).unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.txt")).unwrap();
        let directory = dir.path().display().to_string();

        let h = Harness::new(FilesProvider);
        let all = h.list("files_file", json!({ "directory": directory })).unwrap();
        assert_eq!(all.display_names(), ["a.txt", "b.txt", "c.md"]);

        let txt =
            h.list("files_file", json!({ "directory": directory, "suffix": ".txt" })).unwrap();
        assert_eq!(txt.display_names(), ["a.txt", "b.txt"]);
        let a = &txt.items[0];
        let path = dir.path().join("a.txt").display().to_string();
        assert_eq!(a.identity.attr("path"), Some(&terrarium_sdk::Value::string(&path)));
        let state = a.resource_object.as_ref().expect("objects were asked for");
        assert_eq!(state.attr("filename"), Some(&terrarium_sdk::Value::string(&path)));
        assert_eq!(state.attr("content"), Some(&terrarium_sdk::Value::string("ay")));

        let first = h.list_with("files_file", json!({ "directory": directory }), false, 1).unwrap();
        assert_eq!(first.display_names(), ["a.txt"]);
        assert_eq!(first.items[0].resource_object, None);
    }

    #[test]
    fn a_relative_or_missing_directory_is_an_error_about_it() {
        let h = Harness::new(FilesProvider);
        let relative = h.list("files_file", json!({"directory": "notes"})).unwrap_err();
        assert_eq!(
            (relative.step, relative.diagnostics[0].attribute.to_string().as_str()),
            ("validate", "directory")
        );

        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone").display().to_string();
        let failed = h.list("files_file", json!({ "directory": missing })).unwrap_err();
        assert!(failed.mentions(&format!("Cannot list {missing}")), "{failed}");
    }
}

//! `action "files_touch"`: creates files that are missing and updates the modification
//! time of those that exist, like `touch(1)`, reporting each file as it goes.
//!
//! ```hcl
//! action "files_touch" "stamp" {
//!   config {
//!     paths = ["/srv/app/.deployed", "/srv/app/restart.txt"]
//!   }
//! }
//! ```
//!
//! `terraform apply -invoke=action.files_touch.stamp` runs it and shows
//! `touched /srv/app/.deployed (1/2)`, then `(2/2)`. An action has no state: nothing of it
//! is stored, and running it again touches the files again.

use std::fs::OpenOptions;
use std::time::SystemTime;

use serde::Deserialize;
use terrarium_sdk::action::{Action, Progress};
use terrarium_sdk::{Diagnostics, Model, Result, Value};

use crate::fs_error_at;

/// `files_touch`.
pub struct Touch;

/// The configuration of `files_touch`.
#[derive(Debug, Deserialize, Model)]
pub struct TouchConfig {
    /// Absolute paths of the files to touch, each inside a directory granted read-write.
    pub paths: Vec<String>,
}

impl Action for Touch {
    const TYPE_NAME: &'static str = "files_touch";
    type Config = TouchConfig;

    /// Relative paths are refused before anything runs; paths not known yet (they may
    /// name a file another resource creates) are checked when the action runs.
    fn validate(&self, config: &Value) -> Result<()> {
        let mut problems = Diagnostics::new();
        if let Some(Value::List(paths)) = config.attr("paths") {
            for (i, path) in paths.iter().enumerate() {
                if let Value::String(path) = path
                    && !std::path::Path::new(path).is_absolute()
                {
                    let at = terrarium_sdk::AttributePath::attribute("paths").index(i as i64);
                    problems.push_attribute_error(at, "Relative file name", relative(path));
                }
            }
        }
        problems.into_result()
    }

    fn invoke(&self, config: TouchConfig, progress: &Progress) -> Result<()> {
        let count = config.paths.len();
        for (i, path) in config.paths.iter().enumerate() {
            let at = terrarium_sdk::AttributePath::attribute("paths").index(i as i64);
            if !std::path::Path::new(path).is_absolute() {
                return Err(Diagnostics::attribute_error(at, "Relative file name", relative(path)));
            }
            touch(path).map_err(|e| fs_error_at(at, "touch", path, &e))?;
            progress.report(format!("touched {path} ({}/{count})", i + 1));
        }
        Ok(())
    }
}

fn relative(path: &str) -> String {
    format!("{path:?} is relative; use an absolute path inside a granted directory.")
}

/// Creates `path` empty if it is missing (its content is never changed), then sets its
/// modification time to now.
fn touch(path: &str) -> std::io::Result<()> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    file.set_modified(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use terrarium_sdk::testing::Harness;

    use crate::FilesProvider;

    #[test]
    fn creates_missing_files_and_refreshes_existing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.txt");
        std::fs::write(&old, "kept").unwrap();
        let long_ago = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        std::fs::File::options().write(true).open(&old).unwrap().set_modified(long_ago).unwrap();
        let new = dir.path().join("new.txt");

        let paths = [old.display().to_string(), new.display().to_string()];
        let invoked =
            Harness::new(FilesProvider).invoke("files_touch", json!({ "paths": paths })).unwrap();

        assert_eq!(
            invoked.progress,
            [format!("touched {} (1/2)", paths[0]), format!("touched {} (2/2)", paths[1])]
        );
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "kept");
        assert!(std::fs::metadata(&old).unwrap().modified().unwrap() > long_ago);
        assert_eq!(std::fs::read_to_string(&new).unwrap(), "");
    }

    #[test]
    fn relative_paths_are_refused_at_validation_and_failures_name_the_path() {
        let h = Harness::new(FilesProvider);
        let relative = h.invoke("files_touch", json!({"paths": ["/abs", "rel.txt"]})).unwrap_err();
        assert_eq!(relative.step, "validate");
        assert_eq!(relative.diagnostics[0].attribute.to_string(), "paths[1]");

        let dir = tempfile::tempdir().unwrap();
        let missing_dir = dir.path().join("no/such/dir/f").display().to_string();
        let failed = h.invoke("files_touch", json!({ "paths": [missing_dir] })).unwrap_err();
        assert_eq!(failed.step, "invoke");
        assert!(failed.mentions(&format!("Cannot touch {missing_dir}")), "{failed}");
    }
}

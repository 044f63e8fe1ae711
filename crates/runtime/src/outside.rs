//! What a guest sees outside its grants, and what a person is told when it reaches there.
//!
//! Guests resolve paths against their granted directories themselves (wasi-libc, Go's
//! runtime), so a path outside every grant used to fail inside the guest, as "no such file",
//! without the host ever seeing it: a person read `FileNotFoundError` for a directory that
//! exists. So the guest's `/` is a directory of its own: empty, with no name on the host
//! (created, opened and removed once per process, so nothing can ever be put in it), granted
//! read-only. Paths under a grant still resolve to the grant (the longest granted prefix
//! wins); every other path reaches this directory, where `fs_guard` refuses every open and
//! the refusal names the path and the grant that would allow it.
//!
//! Writes under a read-only grant are named the same way, with the `:rw` grant.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What a refusal of this module tells a person, whatever the path.
pub const EXPLANATION: &str = "A provider component sees only the directories granted to it; \
     nothing else of the file system exists for it. Grants are the person's: `terrarium install \
     --force --allow-dir DIR[:ro|:rw] ...` (then delete the provider's entry from .terraform.lock.hcl and run `terraform init`), `terrarium dev \
     --allow-dir ...`, or `terrarium grants approve DIR` for a package's request.";

/// The guest's `/`: the open directory and its identity (device, inode).
struct Stand {
    dir: std::fs::File,
    id: (u64, u64),
}

fn stand() -> Option<&'static Stand> {
    static STAND: OnceLock<Option<Stand>> = OnceLock::new();
    STAND
        .get_or_init(|| {
            let made = tempfile::Builder::new().prefix("terrarium-outside-").tempdir().ok()?;
            let dir = std::fs::File::open(made.path()).ok()?;
            // Removed while open: the directory lives on for this process only, empty for good
            // (the kernel creates nothing in a removed directory).
            made.close().ok()?;
            let meta = dir.metadata().ok()?;
            Some(Stand { dir, id: (meta.dev(), meta.ino()) })
        })
        .as_ref()
}

/// The host path to open as the guest's `/` (`None` when no such directory can be made:
/// the guest then sees no `/`, as before).
pub(crate) fn root_host_path() -> Option<PathBuf> {
    use std::os::fd::AsRawFd as _;
    stand().map(|s| PathBuf::from(format!("/proc/self/fd/{}", s.dir.as_raw_fd())))
}

/// Whether `dir` (a directory a guest holds) is the guest's `/`.
pub(crate) fn is_root(dir: &std::fs::File) -> bool {
    stand().is_some_and(|s| dir.metadata().is_ok_and(|m| (m.dev(), m.ino()) == s.id))
}

/// The rule a refusal of `path` (an absolute path in the guest, outside every grant) names.
pub(crate) fn outside_rule(path: &Path, directory: bool, writes: bool) -> String {
    let dir = if directory { path } else { path.parent().unwrap_or(path) };
    let access = if writes { "rw" } else { "ro" };
    format!(
        "it is outside every directory granted to the provider; a grant of {dir} \
         (`--allow-dir {dir}:{access}`) would allow it",
        dir = dir.display()
    )
}

/// The rule a refused write under the read-only grant `grant` names.
pub(crate) fn read_only_rule(grant: &Path) -> String {
    format!(
        "the provider's grant of {grant} is read-only; `--allow-dir {grant}:rw` would allow it",
        grant = grant.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guests_root_is_empty_and_cannot_be_written() {
        let path = root_host_path().expect("a stand-in root");
        let dir = std::fs::File::open(&path).expect("opens again, by its descriptor");
        assert!(is_root(&dir));
        assert_eq!(std::fs::read_dir(&path).expect("listable").count(), 0);
        assert!(std::fs::write(path.join("planted"), b"x").is_err(), "a removed directory");
        assert!(!is_root(&std::fs::File::open("/").expect("/")));
    }

    #[test]
    fn a_refusal_names_the_grant_that_would_allow_it() {
        let file = Path::new("/srv/data/notes.txt");
        assert!(outside_rule(file, false, false).contains("`--allow-dir /srv/data:ro`"));
        assert!(outside_rule(file, false, true).contains("`--allow-dir /srv/data:rw`"));
        assert!(outside_rule(Path::new("/srv/data"), true, false).contains("/srv/data:ro"));
        assert!(read_only_rule(Path::new("/srv")).contains("`--allow-dir /srv:rw`"));
    }
}

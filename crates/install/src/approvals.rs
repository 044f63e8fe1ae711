//! Who decides what a provider may do: the person who runs it, never its publisher.
//!
//! A grants file beside an installed provider is trusted only when the user wrote it, which
//! is what `terrarium install` does (and records here). A grants file that arrived in a
//! package (a release from `terrarium package`, unpacked by `terraform init` from a registry
//! or a mirror) is a *request*: the provider starts only once the user has approved exactly
//! that request with `terrarium grants approve`, and then runs with the grants the approval
//! holds (which the user may narrow by editing it). A request that changes (a new release
//! asking for more) needs a new approval. All of it lives in the user's configuration
//! directory (`$XDG_CONFIG_HOME/terrarium`), which no grant may reach.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use terrarium_runtime::sandbox::{GRANTS_FILE_NAME, Grants};

/// The user's record of trusted grants files, approvals and mirrors.
#[derive(Clone, Debug)]
pub struct Approvals {
    dir: PathBuf,
}

/// Why a provider's grants cannot be used as they are.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error(
        "{who} asks for grants you have not approved ({summary}); a provider's publisher does not \
         decide what it may do, you do. Review the request with `terrarium grants show {package}`, \
         then approve it with `terrarium grants approve {package}`"
    )]
    NotApproved { who: String, summary: String, package: String },
    #[error(
        "{who} asks for other grants than the ones you approved (now: {summary}). Review the new \
         request with `terrarium grants show {package}`, then approve it with `terrarium grants \
         approve {package}`"
    )]
    Changed { who: String, summary: String, package: String },
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Grants(#[from] terrarium_runtime::sandbox::GrantError),
}

impl Approvals {
    /// The user's record (`$XDG_CONFIG_HOME/terrarium`, else `~/.config/terrarium`); `None`
    /// when neither variable is set.
    pub fn for_user() -> Option<Approvals> {
        crate::user_files::config_home().map(|c| Approvals { dir: c.join("terrarium") })
    }

    /// The record in `dir` (tests).
    pub fn at(dir: PathBuf) -> Approvals {
        Approvals { dir }
    }

    /// Where the record lives: no grant may write there.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records that the user wrote the grants file at `path` (by `terrarium install`).
    pub fn trust(&self, path: &Path) -> io::Result<()> {
        self.write_entry("trusted", &canonical(path))
    }

    /// Records a mirror providers were installed into, so that no later grant may cover it.
    pub fn record_mirror(&self, mirror: &Path) -> io::Result<()> {
        self.write_entry("mirrors", &canonical(mirror))
    }

    /// The mirrors `install` has put providers in, as recorded.
    pub fn mirrors(&self) -> Vec<PathBuf> {
        self.entries("mirrors")
    }

    /// Every grants file in force on this machine that the user decided: those `install`
    /// wrote and the approvals (`install` checks a new mirror against all of them).
    pub fn grants_in_force(&self) -> Vec<PathBuf> {
        let mut files = self.entries("trusted");
        if let Ok(entries) = fs::read_dir(self.dir.join("approved")) {
            files.extend(
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "toml")),
            );
        }
        files
    }

    fn write_entry(&self, kind: &str, path: &Path) -> io::Result<()> {
        let dir = self.dir.join(kind);
        fs::create_dir_all(&dir)?;
        let text = path.to_string_lossy();
        fs::write(dir.join(key(text.as_bytes())), text.as_bytes())
    }

    /// The paths recorded under `kind` that still exist; the records of the others are
    /// dropped (a path that comes back is recorded again by the command that makes it).
    fn entries(&self, kind: &str) -> Vec<PathBuf> {
        let Ok(entries) = fs::read_dir(self.dir.join(kind)) else { return Vec::new() };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let path = PathBuf::from(fs::read_to_string(e.path()).ok()?);
                if path.exists() {
                    Some(path)
                } else {
                    let _ = fs::remove_file(e.path());
                    None
                }
            })
            .collect()
    }

    fn is_trusted(&self, grants_file: &Path) -> bool {
        let text = canonical(grants_file).to_string_lossy().into_owned();
        fs::read_to_string(self.dir.join("trusted").join(key(text.as_bytes())))
            .is_ok_and(|recorded| recorded == text)
    }

    /// The approval of `subject` (a provider address, or a grants file's path): the grants
    /// the user allows and the request they approved.
    fn approval_files(&self, subject: &str) -> (PathBuf, PathBuf) {
        let dir = self.dir.join("approved");
        let name = key(subject.as_bytes());
        (dir.join(format!("{name}.toml")), dir.join(format!("{name}.requested")))
    }

    /// The grants a provider whose grants file is `grants_file` runs with (see the module
    /// documentation), or why it may not start.
    pub fn grants_for(&self, grants_file: &Path) -> Result<Grants, ApprovalError> {
        if self.is_trusted(grants_file) {
            return Ok(Grants::load(grants_file)?);
        }
        let request = read_request(grants_file)?;
        let requested = Grants::parse(&request).map_err(|e| match e {
            terrarium_runtime::sandbox::GrantError::Syntax { message, .. } => {
                terrarium_runtime::sandbox::GrantError::Syntax {
                    path: grants_file.to_path_buf(),
                    message,
                }
            }
            other => other,
        })?;
        let subject = Subject::of(grants_file);
        let (granted, approved_request) = self.approval_files(&subject.key);
        match fs::read_to_string(&approved_request) {
            Ok(approved) if approved == request => Ok(Grants::load(&granted)?),
            // Asking for nothing needs no approval: it is what every provider gets.
            _ if requested == Grants::default() => Ok(requested),
            Ok(_) => Err(ApprovalError::Changed {
                who: subject.who,
                summary: summary(&requested),
                package: subject.package,
            }),
            Err(_) => Err(ApprovalError::NotApproved {
                who: subject.who,
                summary: summary(&requested),
                package: subject.package,
            }),
        }
    }

    /// Approves the request in `grants_file`: the provider then runs with exactly those
    /// grants (written where the user may narrow them). Returns that file.
    pub fn approve(&self, grants_file: &Path) -> Result<PathBuf, ApprovalError> {
        let request = read_request(grants_file)?;
        Grants::parse(&request)?;
        let subject = Subject::of(grants_file);
        let (granted, approved_request) = self.approval_files(&subject.key);
        let write = |path: &Path, text: &str| -> Result<(), ApprovalError> {
            let parent = path.parent().unwrap_or(Path::new("."));
            fs::create_dir_all(parent)
                .and_then(|()| fs::write(path, text))
                .map_err(|source| ApprovalError::Read { path: path.to_path_buf(), source })
        };
        write(
            &granted,
            &format!(
                "# Approved by `terrarium grants approve` for {}.\n# Narrow these grants here if you \
                 like; a provider never gets more than this file allows.\n{request}",
                subject.who
            ),
        )?;
        write(&approved_request, &request)?;
        Ok(granted)
    }

    /// What `terrarium grants show` prints for `grants_file`.
    pub fn describe(&self, grants_file: &Path) -> Result<String, ApprovalError> {
        let request = read_request(grants_file)?;
        let requested = Grants::parse(&request)?;
        let subject = Subject::of(grants_file);
        let status = if self.is_trusted(grants_file) {
            "written by `terrarium install` on this machine: in force as it is".to_string()
        } else {
            let (granted, approved_request) = self.approval_files(&subject.key);
            match fs::read_to_string(&approved_request) {
                Ok(approved) if approved == request => {
                    format!("approved; the provider runs with the grants in {}", granted.display())
                }
                Ok(_) => "the request changed since you approved it: not in force".into(),
                Err(_) if requested == Grants::default() => "nothing to approve".into(),
                Err(_) => "not approved: the provider will not start".into(),
            }
        };
        Ok(format!(
            "{}\n  requested in {}: {}\n  status: {status}\n",
            subject.who,
            grants_file.display(),
            summary(&requested)
        ))
    }
}

/// Whose grants a grants file holds: the provider address its package's path names when it
/// is laid out as Terraform lays out providers (`HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`), for
/// one approval per provider wherever it is unpacked; else the file itself.
struct Subject {
    key: String,
    who: String,
    package: String,
}

impl Subject {
    fn of(grants_file: &Path) -> Subject {
        let package_dir = grants_file.parent().unwrap_or(Path::new("."));
        let package = package_dir.display().to_string();
        let parts: Vec<String> = canonical(package_dir)
            .components()
            .rev()
            .take(5)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if let [platform, version, type_name, namespace, host] = parts.as_slice()
            && platform.contains('_')
            && version.chars().next().is_some_and(|c| c.is_ascii_digit())
            && (host.contains('.') || host.contains(':') || host == "localhost")
        {
            let address = format!("{host}/{namespace}/{type_name}").to_lowercase();
            return Subject { key: address.clone(), who: format!("provider {address}"), package };
        }
        let path = canonical(grants_file).display().to_string();
        Subject { key: path.clone(), who: format!("the provider in {package}"), package }
    }
}

fn read_request(grants_file: &Path) -> Result<String, ApprovalError> {
    match fs::read_to_string(grants_file) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(ApprovalError::Read { path: grants_file.to_path_buf(), source }),
    }
}

/// The grants in a few words, for a message.
pub fn summary(grants: &Grants) -> String {
    let mut parts = Vec::new();
    let join = |items: Vec<String>| items.join(", ");
    if !grants.http.is_empty() {
        parts
            .push(format!("HTTP to {}", join(grants.http.iter().map(|g| g.to_string()).collect())));
    }
    if !grants.dirs.is_empty() {
        parts.push(format!(
            "the directories {}",
            join(grants.dirs.iter().map(|g| g.to_string()).collect())
        ));
    }
    if !grants.env.is_empty() {
        parts.push(format!("the environment variables {}", join(grants.env.clone())));
    }
    if grants.limits != Default::default() {
        parts.push("other limits".into());
    }
    if parts.is_empty() { "nothing".into() } else { parts.join("; ") }
}

fn canonical(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            parent.canonicalize().map(|p| p.join(name)).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

fn key(bytes: &[u8]) -> String {
    hex::encode(&Sha256::digest(bytes)[..16])
}

/// The grants file of a package directory or the file itself, as the user names it.
pub fn grants_file_of(path: &Path) -> PathBuf {
    if path.is_dir() { path.join(GRANTS_FILE_NAME) } else { path.to_path_buf() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(root: &Path, grants: &str) -> PathBuf {
        let dir = root.join("registry.example.com/acme/x/1.2.0/linux_amd64");
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join(GRANTS_FILE_NAME);
        fs::write(&file, grants).unwrap();
        file
    }

    #[test]
    fn a_shipped_request_needs_the_users_approval_and_a_changed_one_a_new_one() {
        let root = tempfile::tempdir().unwrap();
        let approvals = Approvals::at(root.path().join("config"));
        let file = package(root.path(), "allow_http = [\"https://api.example.com\"]\n");
        let err = approvals.grants_for(&file).unwrap_err().to_string();
        assert!(err.contains("provider registry.example.com/acme/x asks for grants"), "{err}");
        assert!(err.contains("HTTP to https://api.example.com"), "{err}");
        assert!(err.contains("terrarium grants approve"), "{err}");

        let granted = approvals.approve(&file).unwrap();
        assert_eq!(approvals.grants_for(&file).unwrap().http.len(), 1);
        // The user narrows the approval: that is what counts.
        fs::write(&granted, "allow_http = []\n").unwrap();
        assert!(approvals.grants_for(&file).unwrap().http.is_empty());

        // A new release asks for more: refused until approved again.
        fs::write(&file, "allow_http = [\"https://api.example.com\", \"https://evil.example\"]\n")
            .unwrap();
        let err = approvals.grants_for(&file).unwrap_err().to_string();
        assert!(err.contains("other grants than the ones you approved"), "{err}");
        assert!(approvals.describe(&file).unwrap().contains("request changed"));
    }

    #[test]
    fn an_empty_request_needs_no_approval_and_a_trusted_file_is_used_as_it_is() {
        let root = tempfile::tempdir().unwrap();
        let approvals = Approvals::at(root.path().join("config"));
        let file = package(root.path(), "allow_http = []\n");
        assert_eq!(approvals.grants_for(&file).unwrap(), Grants::default());
        fs::write(&file, "allow_env = [\"HOME\"]\n").unwrap();
        assert!(approvals.grants_for(&file).is_err());
        approvals.trust(&file).unwrap();
        assert_eq!(approvals.grants_for(&file).unwrap().env, ["HOME"]);
        assert_eq!(approvals.grants_in_force(), [file.canonicalize().unwrap()]);
    }
}

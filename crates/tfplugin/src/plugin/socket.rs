//! The Unix socket Terraform connects to.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

use super::PluginError;

/// How many random names to try before giving up on finding a free one.
const BIND_ATTEMPTS: usize = 8;

/// A bound listening socket and the guard that removes its file.
#[derive(Debug)]
pub struct BoundSocket {
    /// The listener, ready to accept.
    pub listener: UnixListener,
    /// The socket file; dropping it removes the file.
    pub path: SocketPath,
}

/// The path of a socket file this process created. Dropping it removes the
/// file, so the socket disappears on every way out of [`super::serve`] (a
/// SIGKILL aside, which nothing can clean up after).
#[derive(Debug)]
pub struct SocketPath(PathBuf);

impl SocketPath {
    /// The path.
    pub fn as_path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SocketPath {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_file(&self.0)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!(path = %self.0.display(), %error, "could not remove the plugin socket");
        }
    }
}

/// Binds a fresh socket named `terrarium-plugin-<random>` in `dir`, or in the
/// system temp dir (`TMPDIR`) when `dir` is `None`, as go-plugin does. With a
/// `group` (`PLUGIN_UNIX_SOCKET_GROUP`, a name or a numeric gid) the socket is
/// given to that group with mode 0660.
pub fn bind_unix_socket(
    dir: Option<&Path>,
    group: Option<&str>,
) -> Result<BoundSocket, PluginError> {
    let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let mut last_error = None;
    for _ in 0..BIND_ATTEMPTS {
        let path = dir.join(format!("terrarium-plugin-{}", random_suffix()));
        // The path goes into the '|'-separated handshake line.
        if path.to_string_lossy().contains(['|', '\n', '\r']) {
            return Err(PluginError::Bind {
                path,
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the socket directory contains '|' or a line break, which the handshake \
                     line cannot carry; set TMPDIR to another directory",
                ),
            });
        }
        // bind() fails if the name exists, so a clash can never reuse a file.
        match UnixListener::bind(&path) {
            Ok(listener) => {
                let path = SocketPath(path);
                if let Some(group) = group {
                    give_to_group(path.as_path(), group)?;
                }
                return Ok(BoundSocket { listener, path });
            }
            Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => {
                last_error = Some((path, error));
            }
            Err(source) => return Err(PluginError::Bind { path, source }),
        }
    }
    let (path, source) = last_error.unwrap_or_else(|| {
        (dir.clone(), std::io::Error::other("no attempt was made to bind the socket"))
    });
    Err(PluginError::Bind { path, source })
}

/// 64 random bits in hex, from the TLS provider's CSPRNG (already linked in).
fn random_suffix() -> String {
    let mut bytes = [0u8; 8];
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    if provider.secure_random.fill(&mut bytes).is_err() {
        // Not expected with aws-lc-rs. Names need only be unlikely to clash:
        // bind() refuses an existing name, and we retry.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        bytes = ((u64::from(std::process::id()) << 32) | u64::from(nanos)).to_le_bytes();
    }
    hex::encode(bytes)
}

fn give_to_group(path: &Path, group: &str) -> Result<(), PluginError> {
    let fail = |reason: String| PluginError::SocketGroup {
        path: path.to_path_buf(),
        group: group.to_owned(),
        reason,
    };
    let gid = resolve_group(group).map_err(&fail)?;
    std::os::unix::fs::chown(path, None, Some(gid)).map_err(|e| fail(e.to_string()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .map_err(|e| fail(e.to_string()))
}

/// A numeric gid, or a group name looked up in `/etc/group`. Groups known
/// only to NSS (LDAP, sssd) are not found by name; give their gid instead.
fn resolve_group(group: &str) -> Result<u32, String> {
    if let Ok(gid) = group.parse::<u32>() {
        return Ok(gid);
    }
    let table = std::fs::read_to_string("/etc/group")
        .map_err(|e| format!("cannot read /etc/group to look the group up: {e}"))?;
    find_group(&table, group)
        .ok_or_else(|| format!("no group named {group:?} in /etc/group (a numeric gid also works)"))
}

/// Finds `name` in the text of an `/etc/group` file (`name:password:gid:members`).
fn find_group(table: &str, name: &str) -> Option<u32> {
    table.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        fields.nth(1)?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn binds_in_the_given_dir_and_removes_the_file_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let bound = bind_unix_socket(Some(dir.path()), None).unwrap();
        let path = bound.path.as_path().to_path_buf();
        assert_eq!(path.parent(), Some(dir.path()));
        assert!(path.file_name().unwrap().to_string_lossy().starts_with("terrarium-plugin-"));
        assert!(path.exists());

        let other = bind_unix_socket(Some(dir.path()), None).unwrap();
        assert_ne!(other.path.as_path(), path, "names must be unique");

        drop(bound);
        assert!(!path.exists());
        assert!(other.path.as_path().exists());
    }

    #[tokio::test]
    async fn missing_dir_is_a_bind_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        match bind_unix_socket(Some(&missing), None) {
            Err(PluginError::Bind { path, .. }) => assert!(path.starts_with(&missing)),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[tokio::test]
    async fn own_primary_group_by_gid_gets_mode_0660() {
        use std::os::unix::fs::MetadataExt as _;
        let dir = tempfile::tempdir().unwrap();
        // Our own group is the one group we may always chown to.
        let gid = std::fs::metadata(dir.path()).unwrap().gid();
        let bound = bind_unix_socket(Some(dir.path()), Some(&gid.to_string())).unwrap();
        let meta = std::fs::metadata(bound.path.as_path()).unwrap();
        assert_eq!(meta.gid(), gid);
        assert_eq!(meta.mode() & 0o777, 0o660);
    }

    #[tokio::test]
    async fn unknown_group_name_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let result = bind_unix_socket(Some(dir.path()), Some("no-such-group-terrarium"));
        assert!(matches!(result, Err(PluginError::SocketGroup { .. })));
    }

    #[test]
    fn group_table_lookup() {
        let table = "root:x:0:\nwheel:x:10:alice,bob\nbroken\nstaff::50:\n";
        assert_eq!(find_group(table, "root"), Some(0));
        assert_eq!(find_group(table, "wheel"), Some(10));
        assert_eq!(find_group(table, "staff"), Some(50));
        assert_eq!(find_group(table, "whee"), None);
        assert_eq!(find_group(table, "broken"), None);
    }
}

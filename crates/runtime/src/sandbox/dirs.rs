//! Directory grants on the host: the rules a set of them must follow, and the directories
//! themselves, opened once per process.
//!
//! A guest with a read-write grant can rename, delete and create anything inside it, so the
//! host must never find a path through a granted directory later and trust what is there:
//!
//! - Each granted directory is opened once, when the provider starts, component by component
//!   without following a symbolic link (a grant must name the real directory), and every
//!   instance gets that same open directory. A guest that renames a granted directory away
//!   and puts a link in its place changes nothing for the next instance.
//! - Grants must not nest or overlap: with `/a:rw` and `/a/b`, the guest could swap `/a/b`
//!   for anything before the next provider process opens it, and `/a/b:ro` would be writable
//!   through `/a` anyway.
//! - A read-write grant must not cover what Terrarium or Terraform later run or trust: the
//!   provider mirror (its own executable and grants file), the terrarium executable, the
//!   compiled-component cache and Terraform's working directory. The cache (native code, and
//!   the key that authenticates it) may not be covered by any grant, read-only included.
//!
//! Symbolic links the guest creates are checked too (`runtime::fs_guard`): their targets may
//! not leave the directory they are created in.

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::path::{Component, Path, PathBuf};

use super::grants::{Access, DirGrant};

/// Why a set of directory grants is refused. Each message says why and what to do.
#[derive(Debug, thiserror::Error)]
pub enum DirGrantError {
    #[error(
        "the granted directory {} does not exist: create it first, or correct the grant {grant}",
        path.display()
    )]
    Missing { grant: String, path: PathBuf },
    #[error("the granted path {} is not a directory: grant the directory that holds it", path.display())]
    NotADirectory { grant: String, path: PathBuf },
    #[error(
        "the granted directory {} is reached through a symbolic link{}: grant the real directory, \
         because a link can be changed to point elsewhere after the grant was reviewed",
        path.display(),
        match real { Some(real) => format!(" (it resolves to {})", real.display()), None => String::new() }
    )]
    Symlink { grant: String, path: PathBuf, real: Option<PathBuf> },
    #[error("cannot open the granted directory {} (grant {grant}): {source}", path.display())]
    Open { grant: String, path: PathBuf, source: io::Error },
    #[error(
        "the directory grants {outer} and {inner} overlap ({} is inside {}): a provider that can write in \
         one could replace the other with a link to anywhere, and a read-only grant inside a read-write one \
         is writable through it; keep only {outer}, or grant directories side by side",
        inner_path.display(), outer_path.display()
    )]
    Overlap { outer: String, inner: String, outer_path: PathBuf, inner_path: PathBuf },
    #[error(
        "the directory grant {grant} {relation} {what} {}: {why}; grant a narrower directory that does \
         not {relation_verb} it{remedy}",
        path.display(),
        relation = if *inside { "is inside" } else { "covers" },
        relation_verb = if *inside { "lie inside" } else { "contain" },
        remedy = if *read_only_allowed { ", or grant it read-only (:ro)" } else { "" }
    )]
    Covers {
        grant: String,
        what: String,
        path: PathBuf,
        why: String,
        inside: bool,
        read_only_allowed: bool,
    },
    #[error(
        "the directory grant {grant} {} a {fstype} file system (mounted at {}): a kernel \
         pseudo-file system shows the host itself (its processes' environment and memory, its \
         devices and settings), not files, so no grant may reach it, not even read-only; grant \
         a directory on an ordinary file system",
        if *inside { "is on" } else { "covers" },
        mount_point.display()
    )]
    PseudoFilesystem { grant: String, fstype: String, mount_point: PathBuf, inside: bool },
}

/// Which grants a protected path refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refuse {
    /// Read-write grants that cover it (reading it is harmless).
    Write,
    /// Every grant that covers it: reading it is a leak too.
    Any,
}

/// Something no directory grant may cover: what Terrarium or Terraform runs or trusts later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtectedPath {
    /// The path, resolved (symbolic links followed) as far as it exists.
    pub path: PathBuf,
    /// What it is, for the message (`the provider mirror`).
    pub what: String,
    /// What a provider could do with it, for the message.
    pub why: String,
    pub refuse: Refuse,
    /// Whether a grant *inside* it is refused too (a directory of several providers' files:
    /// a grant of one provider's subdirectory reaches another's).
    pub refuse_inside: bool,
}

impl ProtectedPath {
    /// A protected path; `path` is resolved as far as it exists, so that a link on the way
    /// to it cannot hide that a grant covers it.
    pub fn new(path: &Path, what: &str, why: &str, refuse: Refuse) -> ProtectedPath {
        ProtectedPath {
            path: resolve_existing(path),
            what: what.to_string(),
            why: why.to_string(),
            refuse,
            refuse_inside: false,
        }
    }

    /// Refuses grants inside it too.
    pub fn and_inside(mut self) -> ProtectedPath {
        self.refuse_inside = true;
        self
    }
}

/// `path` with its longest existing prefix canonicalized and the rest appended (a file that
/// does not exist yet is still protected where it will be).
fn resolve_existing(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut prefix = absolute.as_path();
    loop {
        if let Ok(real) = prefix.canonicalize() {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (prefix.parent(), prefix.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                prefix = parent;
            }
            _ => return absolute,
        }
    }
}

/// Whether `inner` is `outer` or lies inside it (by components, so `/a/bc` is not in `/a/b`).
fn within(inner: &Path, outer: &Path) -> bool {
    inner.starts_with(outer)
}

/// A granted directory, open for the life of the process.
#[derive(Debug)]
pub struct GrantedDir {
    grant: DirGrant,
    dir: OwnedFd,
}

impl GrantedDir {
    pub fn grant(&self) -> &DirGrant {
        &self.grant
    }

    /// A path that opens exactly this open directory, never a lookup by its name: the
    /// descriptor's entry in `/proc/self/fd` (Linux) or `/dev/fd` is a link the kernel
    /// resolves to the open file itself.
    pub fn host_path(&self) -> PathBuf {
        let fds = if cfg!(target_os = "linux") { "/proc/self/fd" } else { "/dev/fd" };
        Path::new(fds).join(self.dir.as_raw_fd().to_string())
    }
}

impl fmt::Display for GrantedDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.grant.fmt(f)
    }
}

/// Checks a set of directory grants against each other and against `protected`, and that
/// each names an existing real directory. `terrarium install` and `terrarium dev` call this
/// before anything is written or served; a provider start calls [`open_dir_grants`], which
/// checks the same again (the grants file may have been edited since, and the working
/// directory is only known then).
pub fn check_dir_grants(
    dirs: &[DirGrant],
    protected: &[ProtectedPath],
) -> Result<(), DirGrantError> {
    open_dir_grants(dirs, protected).map(drop)
}

/// Checks the grants as [`check_dir_grants`] does and opens each granted directory.
pub fn open_dir_grants(
    dirs: &[DirGrant],
    protected: &[ProtectedPath],
) -> Result<Vec<GrantedDir>, DirGrantError> {
    let mut opened = Vec::with_capacity(dirs.len());
    for grant in dirs {
        let dir = open_real_dir(&grant.path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => {
                DirGrantError::Missing { grant: grant.to_string(), path: grant.path.clone() }
            }
            _ if e.raw_os_error() == Some(libc::ELOOP) => DirGrantError::Symlink {
                grant: grant.to_string(),
                path: grant.path.clone(),
                real: grant.path.canonicalize().ok(),
            },
            // ENOTDIR: either the path is a file, or a component before it is a link to one.
            _ if e.raw_os_error() == Some(libc::ENOTDIR) => match grant.path.canonicalize() {
                Ok(real) if real != grant.path && real.is_dir() => DirGrantError::Symlink {
                    grant: grant.to_string(),
                    path: grant.path.clone(),
                    real: Some(real),
                },
                _ => DirGrantError::NotADirectory {
                    grant: grant.to_string(),
                    path: grant.path.clone(),
                },
            },
            _ => DirGrantError::Open {
                grant: grant.to_string(),
                path: grant.path.clone(),
                source: e,
            },
        })?;
        if let Some(mount) = pseudo_filesystem(&dir, &grant.path) {
            return Err(DirGrantError::PseudoFilesystem {
                grant: grant.to_string(),
                fstype: mount.fstype,
                inside: mount.holds_grant,
                mount_point: mount.point,
            });
        }
        opened.push(GrantedDir { grant: grant.clone(), dir });
    }
    // The paths are real (no links on the way), so comparing them is comparing directories.
    for (i, a) in dirs.iter().enumerate() {
        for b in &dirs[i + 1..] {
            let (outer, inner) = if within(&b.path, &a.path) {
                (a, b)
            } else if within(&a.path, &b.path) {
                (b, a)
            } else {
                continue;
            };
            return Err(DirGrantError::Overlap {
                outer: outer.to_string(),
                inner: inner.to_string(),
                outer_path: outer.path.clone(),
                inner_path: inner.path.clone(),
            });
        }
    }
    check_protected(dirs, protected)?;
    Ok(opened)
}

/// Checks directory grants against `protected` alone (by path: the grants need not exist),
/// e.g. the grants already in force against a mirror about to be created.
pub fn check_protected(
    dirs: &[DirGrant],
    protected: &[ProtectedPath],
) -> Result<(), DirGrantError> {
    for grant in dirs {
        for p in protected {
            if p.refuse == Refuse::Write && grant.access == Access::ReadOnly {
                continue;
            }
            let covers = within(&p.path, &grant.path);
            let inside = !covers && p.refuse_inside && within(&grant.path, &p.path);
            if covers || inside {
                return Err(DirGrantError::Covers {
                    grant: grant.to_string(),
                    what: p.what.clone(),
                    path: p.path.clone(),
                    why: p.why.clone(),
                    inside,
                    read_only_allowed: p.refuse == Refuse::Write,
                });
            }
        }
    }
    Ok(())
}

/// Kernel pseudo-file systems, told apart by type (their names in /proc/self/mountinfo), not
/// by where they are mounted: `/proc` bind-mounted elsewhere is still the host's processes.
const PSEUDO_FILESYSTEMS: &[&str] = &[
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "bpf",
    "configfs",
    "fusectl",
    "pstore",
    "efivarfs",
    "mqueue",
    "hugetlbfs",
    "binfmt_misc",
    "autofs",
    "rpc_pipefs",
    "nsfs",
    "selinuxfs",
];

/// A mount of a pseudo-file system that a grant reaches.
struct PseudoMount {
    fstype: String,
    point: PathBuf,
    /// The granted directory is on it (rather than covering its mount point).
    holds_grant: bool,
}

/// The pseudo-file system the open directory `dir` (granted as `path`) is on, or one mounted
/// below it.
fn pseudo_filesystem(dir: &OwnedFd, path: &Path) -> Option<PseudoMount> {
    let is_pseudo = |fstype: &str| PSEUDO_FILESYSTEMS.contains(&fstype);
    let Ok(mountinfo) = std::fs::read_to_string("/proc/self/mountinfo") else {
        // No mount table (not Linux, or no /proc): the file system's own magic number.
        return statfs_pseudo(dir).map(|fstype| PseudoMount {
            fstype: fstype.into(),
            point: path.to_path_buf(),
            holds_grant: true,
        });
    };
    let mounts = parse_mountinfo(&mountinfo);
    let own = mount_id(dir);
    mounts.into_iter().find_map(|(id, point, fstype)| {
        if !is_pseudo(&fstype) {
            return None;
        }
        let holds_grant = own == Some(id);
        (holds_grant || within(&point, path)).then_some(PseudoMount { fstype, point, holds_grant })
    })
}

/// The mounts of /proc/self/mountinfo: id, mount point and file system type.
fn parse_mountinfo(text: &str) -> Vec<(u64, PathBuf, String)> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let id = fields.first()?.parse().ok()?;
            let point = unescape_mount_path(fields.get(4)?);
            let separator = fields.iter().position(|f| *f == "-")?;
            let fstype = fields.get(separator + 1)?.to_string();
            Some((id, point, fstype))
        })
        .collect()
}

/// A mount point as mountinfo writes it: space, tab, newline and backslash as octal escapes.
fn unescape_mount_path(field: &str) -> PathBuf {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (bytes[i], octal) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(out))
}

/// The id of the mount the open file `fd` is on (statx's `stx_mnt_id`, as in mountinfo).
#[cfg(target_os = "linux")]
fn mount_id(fd: &OwnedFd) -> Option<u64> {
    // SAFETY: an all-zero statx is a valid value for the kernel to fill.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open, the path is an empty NUL-terminated string (AT_EMPTY_PATH: the
    // descriptor itself), and `stx` is a valid statx buffer.
    let rc = unsafe {
        libc::statx(fd.as_raw_fd(), c"".as_ptr(), libc::AT_EMPTY_PATH, libc::STATX_MNT_ID, &mut stx)
    };
    (rc == 0 && stx.stx_mask & libc::STATX_MNT_ID != 0).then_some(stx.stx_mnt_id)
}

#[cfg(not(target_os = "linux"))]
fn mount_id(_: &OwnedFd) -> Option<u64> {
    None
}

/// The pseudo-file system `fd` is on, by the magic number fstatfs gives (Linux).
#[cfg(target_os = "linux")]
fn statfs_pseudo(fd: &OwnedFd) -> Option<&'static str> {
    // SAFETY: an all-zero statfs is a valid value for the kernel to fill.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid statfs buffer.
    if unsafe { libc::fstatfs(fd.as_raw_fd(), &mut st) } != 0 {
        return None;
    }
    match st.f_type {
        libc::PROC_SUPER_MAGIC => Some("proc"),
        libc::SYSFS_MAGIC => Some("sysfs"),
        libc::DEVPTS_SUPER_MAGIC => Some("devpts"),
        libc::CGROUP_SUPER_MAGIC => Some("cgroup"),
        libc::CGROUP2_SUPER_MAGIC => Some("cgroup2"),
        libc::DEBUGFS_MAGIC => Some("debugfs"),
        libc::TRACEFS_MAGIC => Some("tracefs"),
        libc::SECURITYFS_MAGIC => Some("securityfs"),
        libc::BPF_FS_MAGIC => Some("bpf"),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn statfs_pseudo(_: &OwnedFd) -> Option<&'static str> {
    None
}

/// Opens the directory at the absolute `path` one component at a time, refusing to follow a
/// symbolic link anywhere on the way (`ELOOP`, or `ENOTDIR` for a link to a file).
fn open_real_dir(path: &Path) -> io::Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    const FLAGS: libc::c_int =
        libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    const FLAGS: libc::c_int =
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let open_at = |at: libc::c_int, name: &std::ffi::OsStr| -> io::Result<OwnedFd> {
        let name = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(name))
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))?;
        // SAFETY: `name` is a NUL-terminated string that outlives the call; `at` is an open
        // descriptor or AT_FDCWD.
        let fd = unsafe { libc::openat(at, name.as_ptr(), FLAGS) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `openat` returned a new descriptor that nothing else owns.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    };
    let mut current: Option<OwnedFd> = None;
    for component in path.components() {
        let next = match component {
            Component::RootDir => open_at(libc::AT_FDCWD, std::ffi::OsStr::new("/"))?,
            Component::Normal(name) => {
                let at = current.as_ref().map_or(libc::AT_FDCWD, |fd| fd.as_raw_fd());
                open_at(at, name)?
            }
            Component::CurDir => continue,
            Component::ParentDir | Component::Prefix(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a granted path is absolute and has no '..'",
                ));
            }
        };
        current = Some(next);
    }
    current.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an empty path"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(path: &Path, access: &str) -> DirGrant {
        format!("{}:{access}", path.display()).parse().unwrap()
    }

    fn real_tempdir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn a_missing_directory_a_file_and_a_link_are_refused() {
        let (_dir, root) = real_tempdir();
        let err = check_dir_grants(&[grant(&root.join("nope"), "rw")], &[]).unwrap_err();
        assert!(matches!(err, DirGrantError::Missing { .. }), "{err}");
        assert!(err.to_string().contains("does not exist: create it first"), "{err}");

        std::fs::write(root.join("file"), "x").unwrap();
        let err = check_dir_grants(&[grant(&root.join("file"), "ro")], &[]).unwrap_err();
        assert!(matches!(err, DirGrantError::NotADirectory { .. }), "{err}");

        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::create_dir(root.join("real/inner")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        for linked in [root.join("link"), root.join("link/inner")] {
            let err = check_dir_grants(&[grant(&linked, "ro")], &[]).unwrap_err();
            assert!(matches!(err, DirGrantError::Symlink { .. }), "{err}");
            assert!(err.to_string().contains("resolves to"), "{err}");
        }
        assert!(check_dir_grants(&[grant(&root.join("real/inner"), "rw")], &[]).is_ok());
    }

    #[test]
    fn nested_and_equal_grants_are_refused_and_siblings_are_not() {
        let (_dir, root) = real_tempdir();
        for d in ["a/b", "ab", "c"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for (outer, inner) in [
            (grant(&root.join("a"), "rw"), grant(&root.join("a/b"), "ro")),
            (grant(&root.join("a"), "ro"), grant(&root.join("a/b"), "rw")),
            (grant(&root.join("a"), "ro"), grant(&root.join("a"), "rw")),
        ] {
            for pair in [[outer.clone(), inner.clone()], [inner.clone(), outer.clone()]] {
                let err = check_dir_grants(&pair, &[]).unwrap_err();
                assert!(matches!(err, DirGrantError::Overlap { .. }), "{err}");
                assert!(err.to_string().contains("overlap"), "{err}");
            }
        }
        let siblings = [
            grant(&root.join("a"), "rw"),
            grant(&root.join("ab"), "rw"),
            grant(&root.join("c"), "ro"),
        ];
        assert!(check_dir_grants(&siblings, &[]).is_ok());
    }

    #[test]
    fn grants_covering_protected_paths_are_refused_with_why() {
        let (_dir, root) = real_tempdir();
        for d in ["home/mirror/pkg", "home/cache", "home/work", "elsewhere"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let protected = [
            ProtectedPath::new(
                &root.join("home/mirror"),
                "the provider mirror",
                "it holds executables",
                Refuse::Write,
            )
            .and_inside(),
            ProtectedPath::new(
                &root.join("home/cache"),
                "the compiled-component cache",
                "native code",
                Refuse::Any,
            ),
            ProtectedPath::new(
                &root.join("home/work/not-yet"),
                "the working directory",
                "tf files",
                Refuse::Write,
            ),
        ];
        let refused = |g: DirGrant| check_dir_grants(&[g], &protected).unwrap_err().to_string();
        let err = refused(grant(&root.join("home"), "rw"));
        assert!(err.contains("covers the provider mirror") && err.contains("it holds executables"));
        assert!(err.contains("or grant it read-only (:ro)"), "{err}");
        let err = refused(grant(&root.join("home/mirror/pkg"), "rw"));
        assert!(err.contains("is inside the provider mirror"), "{err}");
        // Read-only is fine for the mirror, not for the cache.
        let err = refused(grant(&root.join("home"), "ro"));
        assert!(err.contains("covers the compiled-component cache"), "{err}");
        assert!(!err.contains("read-only (:ro)"), "{err}");
        assert!(check_dir_grants(&[grant(&root.join("home/mirror"), "ro")], &protected).is_ok());
        // A protected path that does not exist yet is protected where it will be.
        let err = refused(grant(&root.join("home/work"), "rw"));
        assert!(err.contains("covers the working directory"), "{err}");
        assert!(check_dir_grants(&[grant(&root.join("elsewhere"), "rw")], &protected).is_ok());
    }

    #[test]
    fn protected_paths_are_resolved_through_links() {
        let (_dir, root) = real_tempdir();
        std::fs::create_dir_all(root.join("real/cache")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        let p = ProtectedPath::new(&root.join("link/cache/entry"), "x", "y", Refuse::Any);
        assert_eq!(p.path, root.join("real/cache/entry"));
        assert!(check_dir_grants(&[grant(&root.join("real"), "ro")], &[p]).is_err());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn pseudo_file_systems_are_refused_by_type_even_read_only() {
        for path in ["/proc", "/proc/sys", "/sys", "/sys/kernel", "/dev/pts"] {
            if !Path::new(path).is_dir() {
                continue;
            }
            let err = check_dir_grants(&[grant(Path::new(path), "ro")], &[]).unwrap_err();
            assert!(matches!(err, DirGrantError::PseudoFilesystem { .. }), "{path}: {err}");
            assert!(err.to_string().contains("pseudo-file system"), "{err}");
        }
        // `/dev` is on devtmpfs, or (in a container) on a tmpfs that covers /dev/pts.
        let err = check_dir_grants(&[grant(Path::new("/dev"), "ro")], &[]).unwrap_err();
        assert!(matches!(err, DirGrantError::PseudoFilesystem { .. }), "{err}");
        let (_dir, root) = real_tempdir();
        assert!(check_dir_grants(&[grant(&root, "ro")], &[]).is_ok());
    }

    #[test]
    fn mountinfo_lines_and_escaped_mount_points_are_read() {
        let text = "22 1 0:21 / /proc rw,nosuid shared:5 - proc proc rw\n\
                    90 29 0:50 / /mnt/with\\040space rw - tmpfs tmpfs rw\n\
                    garbage\n";
        let mounts = parse_mountinfo(text);
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0], (22, PathBuf::from("/proc"), "proc".to_string()));
        assert_eq!(mounts[1].1, PathBuf::from("/mnt/with space"));
    }

    #[test]
    fn the_opened_directory_is_the_one_granted_even_after_a_swap() {
        let (_dir, root) = real_tempdir();
        std::fs::create_dir(root.join("granted")).unwrap();
        std::fs::write(root.join("granted/mine.txt"), "mine").unwrap();
        let opened = open_dir_grants(&[grant(&root.join("granted"), "rw")], &[]).unwrap();
        // Swapped for a link to somewhere else after the start: the open directory stays.
        std::fs::rename(root.join("granted"), root.join("moved")).unwrap();
        std::os::unix::fs::symlink("/", root.join("granted")).unwrap();
        let seen = opened[0].host_path().join("mine.txt");
        assert_eq!(std::fs::read_to_string(seen).unwrap(), "mine");
    }
}

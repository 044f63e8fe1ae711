//! The host descriptors a guest can make the host hold: every file or directory a guest opens
//! is a descriptor of the host process, and a process that runs out of them cannot accept a
//! connection, read its cache or answer Terraform. So a guest opens a file only while
//!
//! - its instance holds fewer than [`MAX_OPEN_FILES`] descriptors, and
//! - the whole process holds fewer than half of its `RLIMIT_NOFILE`: the other half is the
//!   host's own, whatever every instance together holds (and whatever reaches the kernel
//!   through a stream of a file whose descriptor the guest dropped, which the first count
//!   cannot see).
//!
//! Both are checked when a guest opens something (`fs_guard`), the only way it gets a new one.

use std::collections::HashSet;
use std::os::fd::AsRawFd as _;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::filesystem::Descriptor;

/// The most files and directories one instance may hold open at once.
pub const MAX_OPEN_FILES: usize = 256;

/// What the limits of this module protect, for the diagnostic of a refusal.
pub const EXPLANATION: &str = "Every file a provider holds open is a descriptor of the provider \
     process, which also needs descriptors to answer Terraform, so the host bounds them \
     (Terrarium's docs/security.md); no grant raises the bound.";

/// Why a guest may not open one more file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OverLimit {
    /// The instance holds [`MAX_OPEN_FILES`].
    Instance,
    /// The process holds `held` descriptors of a share of `share` for guests.
    Process { held: usize, share: usize },
}

impl OverLimit {
    /// The rule a refusal names: what the limit is and what the provider can do.
    pub(crate) fn rule(&self) -> String {
        match self {
            OverLimit::Instance => format!(
                "a provider may hold at most {MAX_OPEN_FILES} files open at once (the host's \
                 limit of descriptors per instance); close files it no longer reads"
            ),
            OverLimit::Process { held, share } => format!(
                "the provider process holds {held} descriptors, and guests together may use at \
                 most {share} (half of its RLIMIT_NOFILE; the rest is the host's); close files \
                 it no longer reads"
            ),
        }
    }
}

/// Whether the instance whose resources are `table` may open one more file.
pub(crate) fn admit(table: &mut ResourceTable) -> Result<(), OverLimit> {
    if held_by_instance(table) >= MAX_OPEN_FILES {
        return Err(OverLimit::Instance);
    }
    let share = guest_share();
    match held_by_process() {
        Some(held) if held >= share => Err(OverLimit::Process { held, share }),
        _ => Ok(()),
    }
}

/// The distinct host descriptors behind the instance's file and directory handles (the
/// granted directories count once however often the guest asks for them).
fn held_by_instance(table: &mut ResourceTable) -> usize {
    let mut fds = HashSet::new();
    for entry in table.iter_mut() {
        match entry.downcast_ref::<Descriptor>() {
            Some(Descriptor::File(f)) => fds.insert(f.file.as_raw_fd()),
            Some(Descriptor::Dir(d)) => fds.insert(d.dir.as_raw_fd()),
            None => false,
        };
    }
    fds.len()
}

/// Half of the process's soft `RLIMIT_NOFILE` (at least 64).
fn guest_share() -> usize {
    // SAFETY: an all-zero rlimit is a valid value for getrlimit to fill.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `limit` is a valid, writable rlimit.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let soft = if read { limit.rlim_cur } else { 1024 };
    usize::try_from(soft / 2).unwrap_or(usize::MAX).max(64)
}

/// The descriptors the process holds now (`None` where /proc cannot say).
fn held_by_process() -> Option<usize> {
    // The entry of the directory read itself is one of them; it does not matter here.
    std::fs::read_dir("/proc/self/fd").ok().map(|entries| entries.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guests_share_is_half_the_descriptor_limit() {
        // SAFETY: as in `guest_share`.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        // SAFETY: as in `guest_share`.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        assert_eq!(guest_share(), usize::try_from(limit.rlim_cur / 2).unwrap().max(64));
        assert!(held_by_process().is_some_and(|n| n >= 3), "stdin, stdout and stderr at least");
    }

    #[test]
    fn an_empty_table_holds_nothing() {
        assert_eq!(held_by_instance(&mut ResourceTable::new()), 0);
        assert_eq!(admit(&mut ResourceTable::new()), Ok(()));
    }
}

//! Symbolic links a guest creates may not point out of the directory they are created in.
//!
//! wasmtime-wasi refuses absolute link targets, and resolves every path the guest opens inside
//! its granted directory, so a link cannot take the guest itself anywhere. But other programs
//! follow links by path: Terraform, the user's tools, and (before the granted directories were
//! opened once per process) the host itself. A link `grant/x -> ../../..` is `/` to all of
//! them. So a target must stay below the link's own directory: relative, and without a `..`
//! component. (Checking the target against the link's position instead is not enough: the
//! position itself may run through a link the guest made, `sub -> .`.)
//!
//! And a guest may never write what a client later runs or reads as code or configuration
//! (`sandbox::code_files`): every call that creates, opens for writing, renames onto or links
//! to a name is checked here, before wasmtime-wasi does what it did, and a file with an
//! execute bit is never written, moved or linked.
//!
//! Every open is also counted against the descriptors guests may hold (`held_files`).

use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd, RawFd};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path};

use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView as _};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorFlags, ErrorCode, Host as _, HostDescriptor as _, OpenFlags, PathFlags,
};

use super::{HostState, Refusal};
use crate::sandbox::code_files::{self, EXECUTABLE_RULE};
use crate::{held_files, outside};

/// The interface whose methods are replaced: the version wasmtime-wasi 48 links (a test
/// of the hostile guest proves the replacement is the one guests call).
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// Whether a guest may create a link with this target.
pub(crate) fn target_stays_below(target: &str) -> bool {
    let target = Path::new(target);
    !target.as_os_str().is_empty()
        && target.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The host descriptor of a directory the guest holds, if it is one.
fn dir_fd(state: &mut HostState, fd: &Resource<Descriptor>) -> Option<RawFd> {
    match state.table.get(fd) {
        Ok(Descriptor::Dir(d)) => Some(d.dir.as_raw_fd()),
        _ => None,
    }
}

/// Whether `path`, looked up below the directory `dir` (never above it, never through a
/// magic link, and without following a link at its end), is a file with an execute bit.
/// A path that cannot be looked up so is not one (wasmtime-wasi refuses such paths itself).
fn is_executable_at(dir: RawFd, path: &str) -> bool {
    let Ok(name) = std::ffi::CString::new(path) else { return false };
    // SAFETY: an all-zero open_how is a valid value (no flags, no mode, no resolve flags).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: `name` is NUL-terminated and outlives the call; `how` is a valid open_how of the
    // size passed; `dir` is an open directory descriptor.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            name.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return false;
    }
    // SAFETY: openat2 returned a new descriptor that nothing else owns.
    let file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
    file.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The path a person knows: `path` below the host directory the guest's descriptor `dir`
/// is (which the kernel names in /proc/self/fd), else `path` as the guest gave it.
fn shown_path(state: &mut HostState, dir: &Resource<Descriptor>, path: &str) -> String {
    dir_fd(state, dir)
        .and_then(|fd| std::fs::read_link(format!("/proc/self/fd/{fd}")).ok())
        .map_or_else(|| path.to_string(), |base| base.join(path).display().to_string())
}

/// Records and logs a refused call on `path` (below the guest's descriptor `dir`) by a rule
/// of `code_files`; the guest gets `not-permitted`.
fn refuse(
    state: &mut HostState,
    call: &str,
    dir: &Resource<Descriptor>,
    path: &str,
    rule: &str,
) -> ErrorCode {
    let path = shown_path(state, dir, path);
    note(state, call, &path, rule, code_files::EXPLANATION);
    ErrorCode::NotPermitted
}

/// Whether `dir` is the guest's `/` outside its grants (`outside`).
fn is_outside(state: &mut HostState, dir: &Resource<Descriptor>) -> bool {
    matches!(state.table.get(dir), Ok(Descriptor::Dir(d)) if outside::is_root(&d.dir))
}

/// `path` (relative to the guest's `/`) as the absolute path the guest meant.
fn at_root(path: &str) -> std::path::PathBuf {
    let mut absolute = std::path::PathBuf::from("/");
    for part in Path::new(path).components() {
        match part {
            Component::Normal(name) => absolute.push(name),
            Component::ParentDir => {
                absolute.pop();
            }
            _ => {}
        }
    }
    absolute
}

/// `not-permitted`, noted with the grant that would allow it, when `path` below `dir` is
/// under a read-only grant (wasmtime-wasi refuses the write itself, without a word).
fn refused_by_read_only_grant(
    state: &mut HostState,
    call: &str,
    dir: &Resource<Descriptor>,
    path: &str,
) -> Option<ErrorCode> {
    // Most providers have no read-only grant: spare them a readlink per write.
    if !state.has_read_only_grants() {
        return None;
    }
    let shown = shown_path(state, dir, path);
    let grant = state.read_only_grant_of(Path::new(&shown))?.to_path_buf();
    note(state, call, &shown, &outside::read_only_rule(&grant), outside::EXPLANATION);
    Some(ErrorCode::NotPermitted)
}

/// Logs a refused call on the host path `path` and keeps it for the call's diagnostics.
fn note(state: &mut HostState, call: &str, path: &str, rule: &str, explanation: &'static str) {
    tracing::warn!(%path, call, "refused: {rule}");
    state.note_refusal(Refusal {
        what: format!("{call} of {path} was refused: {rule}"),
        explanation,
    });
}

/// Replaces wasmtime-wasi's `[method]descriptor.symlink-at`, `open-at`, `rename-at`,
/// `link-at` and `create-directory-at` with ones that apply the rules of this module first
/// and otherwise do what they did.
pub(super) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let defined = define(linker);
    linker.allow_shadowing(false);
    defined
}

fn define(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let mut types = linker.instance(FILESYSTEM_TYPES)?;
    types.func_wrap_async(
        "[method]descriptor.symlink-at",
        |mut store, (dir, target, link): (Resource<Descriptor>, String, String)| {
            Box::new(async move {
                if !target_stays_below(&target) {
                    tracing::warn!(
                        %target, %link,
                        "refused a symbolic link whose target leaves its directory"
                    );
                    return Ok((Err(ErrorCode::NotPermitted),));
                }
                if let Some(code) = code_files::refused_file_name(&link) {
                    return Ok((Err(refuse(store.data_mut(), "symlink", &dir, &link, code.rule)),));
                }
                let mut filesystem = store.data_mut().filesystem();
                match filesystem.symlink_at(dir, target, link).await {
                    Ok(()) => Ok((Ok(()),)),
                    Err(e) => Ok((Err(filesystem.convert_error_code(e)?),)),
                }
            })
        },
    )?;
    types.func_wrap_async(
        "[method]descriptor.open-at",
        |mut store,
         (dir, path_flags, path, oflags, flags): (
            Resource<Descriptor>,
            PathFlags,
            String,
            OpenFlags,
            DescriptorFlags,
        )| {
            Box::new(async move {
                let truncate = oflags.contains(OpenFlags::TRUNCATE);
                let writes = truncate
                    || oflags.contains(OpenFlags::CREATE)
                    || flags.contains(DescriptorFlags::WRITE);
                let call = if writes { "open for writing" } else { "open" };
                let state = store.data_mut();
                if is_outside(state, &dir) {
                    let shown = at_root(&path);
                    let directory = oflags.contains(OpenFlags::DIRECTORY);
                    let rule = outside::outside_rule(&shown, directory, writes);
                    note(state, call, &shown.display().to_string(), &rule, outside::EXPLANATION);
                    return Ok((Err(ErrorCode::NotPermitted),));
                }
                if writes && let Some(code) = refused_by_read_only_grant(state, call, &dir, &path) {
                    return Ok((Err(code),));
                }
                // Every open is a descriptor of the host process (`held_files`).
                if let Err(over) = held_files::admit(&mut state.table) {
                    let shown = shown_path(state, &dir, &path);
                    note(state, call, &shown, &over.rule(), held_files::EXPLANATION);
                    return Ok((Err(ErrorCode::Quota),));
                }
                if !writes {
                    let mut filesystem = store.data_mut().filesystem();
                    return match filesystem.open_at(dir, path_flags, path, oflags, flags).await {
                        Ok(fd) => Ok((Ok(fd),)),
                        Err(e) => Ok((Err(filesystem.convert_error_code(e)?),)),
                    };
                }
                if let Some(code) = code_files::refused_file_name(&path) {
                    return Ok((Err(refuse(
                        store.data_mut(),
                        "open for writing",
                        &dir,
                        &path,
                        code.rule,
                    )),));
                }
                // Opened without truncation first, so that an executable is refused before a
                // byte of it is lost; truncated afterwards, which is what O_TRUNC does.
                let (oflags, flags) = if truncate {
                    (oflags & !OpenFlags::TRUNCATE, flags | DescriptorFlags::WRITE)
                } else {
                    (oflags, flags)
                };
                let dir_path = shown_path(store.data_mut(), &dir, "");
                let opened = {
                    let mut filesystem = store.data_mut().filesystem();
                    match filesystem.open_at(dir, path_flags, path.clone(), oflags, flags).await {
                        Ok(fd) => fd,
                        Err(e) => return Ok((Err(filesystem.convert_error_code(e)?),)),
                    }
                };
                let state = store.data_mut();
                let file = match state.table.get(&opened) {
                    Ok(Descriptor::File(f)) => Some(f.file.clone()),
                    _ => None,
                };
                let executable = file.as_ref().is_some_and(|f| {
                    f.metadata().is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
                });
                if executable {
                    state.table.delete(opened)?;
                    let shown = std::path::Path::new(&dir_path).join(&path).display().to_string();
                    let why = code_files::EXPLANATION;
                    note(state, "open for writing", &shown, EXECUTABLE_RULE, why);
                    return Ok((Err(ErrorCode::NotPermitted),));
                }
                if truncate
                    && let Some(file) = file
                    && let Err(e) = file.set_len(0)
                {
                    state.table.delete(opened)?;
                    tracing::debug!(%path, "truncating after open failed: {e}");
                    return Ok((Err(ErrorCode::Io),));
                }
                Ok((Ok(opened),))
            })
        },
    )?;
    types.func_wrap_async(
        "[method]descriptor.rename-at",
        |mut store,
         (dir, old, new_dir, new): (Resource<Descriptor>, String, Resource<Descriptor>, String)| {
            Box::new(async move {
                let state = store.data_mut();
                if let Some(code) = code_files::refused_file_name(&new) {
                    return Ok((Err(refuse(state, "rename", &new_dir, &new, code.rule)),));
                }
                let from = dir_fd(state, &dir).is_some_and(|d| is_executable_at(d, &old));
                let onto = dir_fd(state, &new_dir).is_some_and(|d| is_executable_at(d, &new));
                if from || onto {
                    let (at, path) = if from { (&dir, &old) } else { (&new_dir, &new) };
                    return Ok((Err(refuse(state, "rename", at, path, EXECUTABLE_RULE)),));
                }
                let mut filesystem = store.data_mut().filesystem();
                match filesystem.rename_at(dir, old, new_dir, new).await {
                    Ok(()) => Ok((Ok(()),)),
                    Err(e) => Ok((Err(filesystem.convert_error_code(e)?),)),
                }
            })
        },
    )?;
    types.func_wrap_async(
        "[method]descriptor.link-at",
        |mut store,
         (dir, old_flags, old, new_dir, new): (
            Resource<Descriptor>,
            PathFlags,
            String,
            Resource<Descriptor>,
            String,
        )| {
            Box::new(async move {
                let state = store.data_mut();
                if let Some(code) = code_files::refused_file_name(&new) {
                    return Ok((Err(refuse(state, "link", &new_dir, &new, code.rule)),));
                }
                if dir_fd(state, &dir).is_some_and(|d| is_executable_at(d, &old)) {
                    return Ok((Err(refuse(state, "link", &dir, &old, EXECUTABLE_RULE)),));
                }
                let mut filesystem = store.data_mut().filesystem();
                match filesystem.link_at(dir, old_flags, old, new_dir, new).await {
                    Ok(()) => Ok((Ok(()),)),
                    Err(e) => Ok((Err(filesystem.convert_error_code(e)?),)),
                }
            })
        },
    )?;
    types.func_wrap_async(
        "[method]descriptor.create-directory-at",
        |mut store, (dir, path): (Resource<Descriptor>, String)| {
            Box::new(async move {
                let state = store.data_mut();
                if is_outside(state, &dir) {
                    let shown = at_root(&path);
                    let rule = outside::outside_rule(&shown, false, true);
                    let shown = shown.display().to_string();
                    note(state, "create directory", &shown, &rule, outside::EXPLANATION);
                    return Ok((Err(ErrorCode::NotPermitted),));
                }
                if let Some(code) =
                    refused_by_read_only_grant(state, "create directory", &dir, &path)
                {
                    return Ok((Err(code),));
                }
                if let Some(code) = code_files::refused_directory_name(&path) {
                    return Ok((Err(refuse(
                        store.data_mut(),
                        "create directory",
                        &dir,
                        &path,
                        code.rule,
                    )),));
                }
                let mut filesystem = store.data_mut().filesystem();
                match filesystem.create_directory_at(dir, path).await {
                    Ok(()) => Ok((Ok(()),)),
                    Err(e) => Ok((Err(filesystem.convert_error_code(e)?),)),
                }
            })
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_targets_below_the_link_are_allowed() {
        for ok in ["x", "sub/file", "./x", "a/./b", "."] {
            assert!(target_stays_below(ok), "{ok}");
        }
        for bad in ["", "..", "../x", "a/../b", "a/../../..", "/etc", "/", "sub/.."] {
            assert!(!target_stays_below(bad), "{bad}");
        }
    }
}

//! Symbolic links a guest creates may not point out of the directory they are created in.
//!
//! wasmtime-wasi refuses absolute link targets, and resolves every path the guest opens inside
//! its granted directory, so a link cannot take the guest itself anywhere. But other programs
//! follow links by path: Terraform, the user's tools, and (before the granted directories were
//! opened once per process) the host itself. A link `grant/x -> ../../..` is `/` to all of
//! them. So a target must stay below the link's own directory: relative, and without a `..`
//! component. (Checking the target against the link's position instead is not enough: the
//! position itself may run through a link the guest made, `sub -> .`.)

use std::path::{Component, Path};

use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView as _};
use wasmtime_wasi::p2::bindings::filesystem::types::{ErrorCode, Host as _, HostDescriptor as _};

use super::HostState;

/// The interface whose `symlink-at` is replaced: the version wasmtime-wasi 48 links (a test
/// of the hostile guest proves the replacement is the one guests call).
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// Whether a guest may create a link with this target.
pub(crate) fn target_stays_below(target: &str) -> bool {
    let target = Path::new(target);
    !target.as_os_str().is_empty()
        && target.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Replaces wasmtime-wasi's `[method]descriptor.symlink-at` with one that refuses targets
/// leaving the link's directory (`not-permitted`) and otherwise does what it did.
pub(super) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let defined = linker.instance(FILESYSTEM_TYPES)?.func_wrap_async(
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
                let mut filesystem = store.data_mut().filesystem();
                match filesystem.symlink_at(dir, target, link).await {
                    Ok(()) => Ok((Ok(()),)),
                    Err(e) => Ok((Err(filesystem.convert_error_code(e)?),)),
                }
            })
        },
    );
    linker.allow_shadowing(false);
    defined
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

//! Checking that the file to install is a WebAssembly component.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use super::InstallError;

/// The eight bytes every WebAssembly *component* starts with: the magic `\0asm`, then the
/// component-model version (0x0d) and layer (1). A core module has version 1, layer 0 instead.
const COMPONENT_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
const CORE_MODULE_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/// Checks that `path` is a readable WebAssembly component (by its preamble; the runtime checks
/// the rest when it loads it).
pub fn check_component(path: &Path) -> Result<(), InstallError> {
    let read_error = |cause| InstallError::ReadComponent { path: path.to_owned(), cause };
    let mut file = fs::File::open(path).map_err(read_error)?;
    if file.metadata().map_err(read_error)?.is_dir() {
        return Err(read_error(io::Error::new(io::ErrorKind::InvalidInput, "it is a directory")));
    }
    let mut preamble = Vec::with_capacity(8);
    file.by_ref().take(8).read_to_end(&mut preamble).map_err(read_error)?;
    if preamble.len() < 4 || preamble[..4] != COMPONENT_PREAMBLE[..4] {
        return Err(InstallError::NotWasm { path: path.to_owned() });
    }
    if preamble[..] == CORE_MODULE_PREAMBLE {
        return Err(InstallError::CoreModule { path: path.to_owned() });
    }
    if preamble[..] != COMPONENT_PREAMBLE {
        let found = preamble[4..].iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
        return Err(InstallError::UnsupportedWasmVersion { path: path.to_owned(), found });
    }
    Ok(())
}

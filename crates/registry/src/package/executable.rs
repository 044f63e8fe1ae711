//! Checking that a host executable is built for the platform it is packaged for: a zip for
//! `linux_arm64` holding an x86-64 binary would install fine and fail at every start.

use std::fs;
use std::io::{self, Read as _};
use std::path::Path;

use terrarium_install::Platform;

/// What an executable's header says it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutableKind {
    /// `elf`, `mach-o` or `pe`.
    pub format: &'static str,
    /// Go's name for the CPU, or `None` where the header names one Terraform has no name for.
    pub arch: Option<&'static str>,
}

impl ExecutableKind {
    /// True when Terraform would run this executable on `platform`.
    pub fn runs_on(self, platform: Platform) -> bool {
        let format_fits = match platform.os {
            "darwin" => self.format.starts_with("mach-o"),
            "windows" => self.format == "pe",
            _ => self.format == "elf",
        };
        // A universal ("fat") Mach-O binary holds several architectures.
        let arch_fits = self.arch == Some(platform.arch) || self.format == "mach-o-fat";
        format_fits && arch_fits
    }
}

/// Reads the header of the executable at `path`. `Ok(None)`: not an executable format.
pub fn executable_kind(path: &Path) -> io::Result<Option<ExecutableKind>> {
    let mut header = Vec::with_capacity(4096);
    fs::File::open(path)?.take(4096).read_to_end(&mut header)?;
    Ok(kind_of(&header))
}

fn kind_of(header: &[u8]) -> Option<ExecutableKind> {
    let u16_at = |at: usize, little: bool| -> Option<u16> {
        let bytes: [u8; 2] = header.get(at..at + 2)?.try_into().ok()?;
        Some(if little { u16::from_le_bytes(bytes) } else { u16::from_be_bytes(bytes) })
    };
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(header.get(at..at + 4)?.try_into().ok()?))
    };
    if header.starts_with(b"\x7fELF") {
        let little = *header.get(5)? == 1;
        let arch = match u16_at(18, little)? {
            0x3e => Some("amd64"),
            0xb7 => Some("arm64"),
            0x03 => Some("386"),
            0x28 => Some("arm"),
            0x15 if little => Some("ppc64le"),
            0x16 => Some("s390x"),
            0xf3 => Some("riscv64"),
            0x102 => Some("loong64"),
            _ => None,
        };
        return Some(ExecutableKind { format: "elf", arch });
    }
    if header.starts_with(b"MZ") {
        let pe = usize::try_from(u32_at(0x3c)?).ok()?;
        if header.get(pe..pe + 4)? != b"PE\0\0" {
            return None;
        }
        let arch = match u16_at(pe + 4, true)? {
            0x8664 => Some("amd64"),
            0xaa64 => Some("arm64"),
            0x14c => Some("386"),
            _ => None,
        };
        return Some(ExecutableKind { format: "pe", arch });
    }
    if header.starts_with(&[0xcf, 0xfa, 0xed, 0xfe]) {
        let arch = match u32_at(4)? {
            0x0100_0007 => Some("amd64"),
            0x0100_000c => Some("arm64"),
            _ => None,
        };
        return Some(ExecutableKind { format: "mach-o", arch });
    }
    if header.starts_with(&[0xca, 0xfe, 0xba, 0xbe]) {
        return Some(ExecutableKind { format: "mach-o-fat", arch: None });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf(machine: u16) -> Vec<u8> {
        let mut header = b"\x7fELF\x02\x01\x01".to_vec();
        header.resize(18, 0);
        header.extend(machine.to_le_bytes());
        header
    }

    #[test]
    fn elf_machines_map_to_go_arches_and_platforms() {
        let arm64 = kind_of(&elf(0xb7)).unwrap();
        assert_eq!(arm64, ExecutableKind { format: "elf", arch: Some("arm64") });
        assert!(arm64.runs_on(Platform { os: "linux", arch: "arm64" }));
        assert!(!arm64.runs_on(Platform { os: "linux", arch: "amd64" }));
        assert!(!arm64.runs_on(Platform { os: "darwin", arch: "arm64" }));
        assert_eq!(kind_of(&elf(0x3e)).unwrap().arch, Some("amd64"));
        assert_eq!(kind_of(b"#!/bin/sh\n"), None);
        assert_eq!(kind_of(b"\x7fEL"), None);
    }

    #[test]
    fn the_running_test_binary_runs_here() {
        let exe = std::env::current_exe().unwrap();
        let kind = executable_kind(&exe).unwrap().unwrap();
        assert!(kind.runs_on(Platform::current().unwrap()), "{kind:?}");
    }
}

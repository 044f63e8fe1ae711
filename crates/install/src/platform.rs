//! The Terraform platform (`OS_ARCH`) an installed package is for.

use std::fmt;

use super::InstallError;

/// A Terraform platform: Go's GOOS and GOARCH names, which Terraform uses in `OS_ARCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    pub os: &'static str,
    pub arch: &'static str,
}

impl Platform {
    /// The platform this binary was built for, which is the platform it can serve on.
    pub fn current() -> Result<Self, InstallError> {
        Self::from_rust(std::env::consts::OS, std::env::consts::ARCH)
    }

    /// Parses Terraform's `OS_ARCH` form, e.g. `linux_arm64`, for the platforms Terraform
    /// itself is built for.
    pub fn parse(text: &str) -> Result<Self, InstallError> {
        const OSES: [&str; 8] =
            ["linux", "darwin", "windows", "freebsd", "openbsd", "netbsd", "solaris", "illumos"];
        const ARCHES: [&str; 8] =
            ["amd64", "arm64", "386", "arm", "ppc64le", "s390x", "riscv64", "loong64"];
        let invalid = || InstallError::InvalidPlatform { given: text.to_owned() };
        let (os, arch) = text.split_once('_').ok_or_else(invalid)?;
        let os = OSES.into_iter().find(|known| *known == os).ok_or_else(invalid)?;
        let arch = ARCHES.into_iter().find(|known| *known == arch).ok_or_else(invalid)?;
        Ok(Self { os, arch })
    }

    /// Maps Rust's target names onto Go's.
    pub fn from_rust(os: &str, arch: &str) -> Result<Self, InstallError> {
        let go_os = match os {
            "linux" => "linux",
            "macos" => "darwin",
            "windows" => "windows",
            "freebsd" => "freebsd",
            "openbsd" => "openbsd",
            "netbsd" => "netbsd",
            "solaris" => "solaris",
            "illumos" => "illumos",
            _ => return Err(unsupported(os, arch)),
        };
        let go_arch = match arch {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "arm" => "arm",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "s390x" => "s390x",
            "riscv64" => "riscv64",
            "loongarch64" => "loong64",
            _ => return Err(unsupported(os, arch)),
        };
        Ok(Self { os: go_os, arch: go_arch })
    }
}

fn unsupported(os: &str, arch: &str) -> InstallError {
    InstallError::UnsupportedPlatform { os: os.to_owned(), arch: arch.to_owned() }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}

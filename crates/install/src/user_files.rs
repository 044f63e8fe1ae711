//! Where a user's Terrarium files live (XDG base directories) and writing private ones.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// `$XDG_DATA_HOME`, else `~/.local/share`; `None` when neither variable helps.
pub fn data_home() -> Option<PathBuf> {
    xdg_home("XDG_DATA_HOME", &[".local", "share"])
}

/// `$XDG_CONFIG_HOME`, else `~/.config`; `None` when neither variable helps.
pub fn config_home() -> Option<PathBuf> {
    xdg_home("XDG_CONFIG_HOME", &[".config"])
}

fn xdg_home(variable: &str, under_home: &[&str]) -> Option<PathBuf> {
    let from_env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    from_env(variable).filter(|p| p.is_absolute()).or_else(|| {
        from_env("HOME").map(|home| under_home.iter().fold(home, |p, part| p.join(part)))
    })
}

/// Writes a file only its owner can read (a secret key), never replacing one.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
}

//! The SDK is publishable: `cargo package` makes crates.io packages of it and of what it
//! needs (the model, the framework's rules, the derive macros) and of the acceptance-test helper, and the SDK's
//! package carries the WIT contract its bindings are generated from.
//!
//! `--no-verify` (building each package from crates.io sources is what `cargo publish`
//! does, and costs minutes) and `--offline` (the dependencies are in cargo's cache once the
//! workspace has been built).

use std::path::Path;
use std::process::Command;

/// The crates a provider author depends on, in the order crates.io must receive them.
const PUBLISHED: [&str; 5] = [
    "terrarium-model",
    "terrarium-framework",
    "terrarium-sdk-macros",
    "terrarium-sdk",
    "terrarium-acctest",
];

/// Runs cargo with `args` in the workspace root, with its own target directory; its stdout.
fn cargo(args: &[&str], target_dir: &Path) -> Result<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().ok_or("guest-sdk has no parent")?;
    let output = Command::new(env!("CARGO"))
        .args(args)
        .args(["--offline", "--allow-dirty"])
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(root)
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn the_sdk_and_its_helpers_package_for_crates_io() -> Result<(), String> {
    let target = tempfile::tempdir().expect("a temporary directory");
    let mut args = vec!["package", "--no-verify"];
    for name in PUBLISHED {
        args.extend(["-p", name]);
    }
    cargo(&args, target.path())?;
    for name in PUBLISHED {
        let package = target.path().join(format!("package/{name}-0.1.0.crate"));
        assert!(package.is_file(), "no {}", package.display());
    }
    Ok(())
}

#[test]
fn the_sdk_package_carries_the_wit_contract_and_readme() -> Result<(), String> {
    let target = tempfile::tempdir().expect("a temporary directory");
    let listing = cargo(&["package", "--list", "-p", "terrarium-sdk"], target.path())?;
    let files: Vec<&str> = listing.lines().collect();
    for wanted in ["wit/provider.wit", "wit/types.wit", "README.md", "src/lib.rs"] {
        assert!(files.contains(&wanted), "{wanted} is not in the package: {files:?}");
    }
    Ok(())
}

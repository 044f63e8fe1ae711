//! `terrarium install` run as a user would, and terraform using exactly what it printed.

use std::fs;

use anyhow::{Context as _, ensure};
use terrarium_tests::mirror::{terraform_platform, terrarium_install};
use terrarium_tests::{Artifacts, Provider, Workspace};

fn null_component() -> anyhow::Result<std::path::PathBuf> {
    Artifacts::get()?.component("null_provider")
}

#[test]
fn install_lays_out_the_package_and_its_printed_cli_config_works() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let component = null_component()?;
    let scratch = tempfile::tempdir()?;
    let mirror = scratch.path().join("mirror");

    let output = terrarium_install(&component, "hashicorp/null", "2.1.2", &mirror)?;
    let stdout = String::from_utf8(output.stdout)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(output.status.success(), "install failed: {}\n{stdout}{stderr}", output.status);

    // The exact package layout Terraform's filesystem mirror search expects.
    let mirror = mirror.canonicalize()?;
    let package =
        mirror.join("registry.terraform.io/hashicorp/null/2.1.2").join(terraform_platform());
    let mut names: Vec<String> = fs::read_dir(&package)
        .with_context(|| format!("no package directory {}", package.display()))?
        .map(|e| Ok(e?.file_name().to_string_lossy().into_owned()))
        .collect::<anyhow::Result<_>>()?;
    names.sort();
    assert_eq!(names, ["grants.toml", "provider.wasm", "terraform-provider-null_v2.1.2"]);
    assert!(
        fs::read(package.join("provider.wasm"))? == fs::read(&component)?,
        "provider.wasm is not a copy of the component"
    );
    assert!(
        fs::read(package.join("terraform-provider-null_v2.1.2"))?
            == fs::read(artifacts.terrarium()?)?,
        "the provider executable is not a copy of terrarium"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode =
            fs::metadata(package.join("terraform-provider-null_v2.1.2"))?.permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "the provider executable is not executable: {mode:o}");
    }

    // stdout is the CLI config block and nothing else: use it verbatim.
    assert!(stdout.contains("filesystem_mirror"), "{stdout}");
    assert!(stdout.contains(&format!("\"{}\"", mirror.display())), "mirror path missing: {stdout}");
    assert!(stdout.contains("\"registry.terraform.io/hashicorp/null\""), "{stdout}");
    let workspace = Workspace::with_cli_config(&stdout)?;
    workspace.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n",
            Provider::Null.required_providers_entry()
        ),
    )?;
    let init = workspace.init()?;
    assert!(init.stdout.contains("Installed hashicorp/null v2.1.2"), "{init}");

    // Installing the same thing again changes nothing and succeeds.
    let again = terrarium_install(&component, "hashicorp/null", "2.1.2", &mirror)?;
    ensure!(again.status.success(), "reinstall failed: {}", String::from_utf8_lossy(&again.stderr));
    workspace.ok(&["validate", "-no-color"])?;
    Ok(())
}

#[test]
fn install_refuses_bad_input_with_a_clear_message_and_writes_nothing() -> anyhow::Result<()> {
    let component = null_component()?;
    let scratch = tempfile::tempdir()?;
    let mirror = scratch.path().join("mirror");
    let core_module = scratch.path().join("core.wasm");
    fs::write(&core_module, b"\0asm\x01\x00\x00\x00")?;
    let not_wasm = scratch.path().join("notes.txt");
    fs::write(&not_wasm, "hello")?;
    let missing = scratch.path().join("missing.wasm");

    let cases: [(&std::path::Path, &str, &str, &str); 6] = [
        (&core_module, "acme/thing", "1.0.0", "core WebAssembly module"),
        (&not_wasm, "acme/thing", "1.0.0", "not a WebAssembly file"),
        (&missing, "acme/thing", "1.0.0", "missing.wasm"),
        (&component, "acme/my_thing", "1.0.0", "--source"),
        (&component, "thing", "1.0.0", "--source"),
        (&component, "acme/thing", "v1.0", "--version"),
    ];
    for (path, source, version, expected) in cases {
        let output = terrarium_install(path, source, version, &mirror)?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{source} {version} {}: accepted", path.display());
        assert!(
            stderr.contains(expected),
            "{source} {version}: message lacks {expected:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let written: Vec<_> = match fs::read_dir(&mirror) {
        Ok(entries) => entries.collect(),
        Err(_) => Vec::new(),
    };
    assert!(written.is_empty(), "refused installs wrote into the mirror: {written:?}");
    Ok(())
}

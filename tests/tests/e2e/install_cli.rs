//! `terrarium install` run as a user would, and terraform using exactly what it printed.

use std::fs;

use anyhow::{Context as _, ensure};
use terrarium_tests::mirror::{terraform_platform, terrarium_install, terrarium_install_with};
use terrarium_tests::{Artifacts, Provider, Workspace};

/// What every refusal must look like: one or two lines that say what was wrong, each cause
/// once, no backtrace, not ending in "..".
fn assert_user_error(stderr: &str) {
    let text = stderr.trim_end();
    assert!(text.lines().count() <= 2, "more than two lines: {text}");
    assert!(!text.contains("panicked") && !text.contains("backtrace"), "{text}");
    assert!(!text.ends_with(".."), "{text}");
    // A cause said twice (an error's message and its source both printed) repeats its text.
    let message = text.trim_start_matches("terrarium: ");
    if let Some((_, cause)) = message.rsplit_once(": ") {
        assert_eq!(message.matches(cause).count(), 1, "the cause is repeated: {text}");
    }
}

pub(crate) fn replace_all(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len(), "same length, so that no section size changes");
    let mut out = bytes.to_vec();
    let mut at = 0;
    while let Some(i) = out[at..].windows(from.len()).position(|w| w == from) {
        out[at + i..at + i + from.len()].copy_from_slice(to);
        at += i + from.len();
    }
    assert!(at > 0, "{} not found", String::from_utf8_lossy(from));
    out
}

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
            == fs::read(artifacts.terrarium_provider()?)?,
        "the provider executable is not a copy of the served-only terrarium-provider"
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

    // OpenTofu (default host registry.opentofu.org) with the same CLI configuration and the
    // block install printed, verbatim: found, because the printed source keeps its host, which
    // install tells the person to keep.
    ensure!(
        stderr.contains("OpenTofu reads `hashicorp/null` as registry.opentofu.org/hashicorp/null"),
        "install does not tell an OpenTofu user to keep the host: {stderr}"
    );
    let printed = stderr
        .split_once("\n\n  terraform {")
        .and_then(|(_, rest)| rest.split_once("\n\n"))
        .map(|(block, _)| format!("terraform {{{block}\n"))
        .with_context(|| format!("install printed no required_providers block: {stderr}"))?;
    let tofu = Workspace::with_cli_config(&stdout)?.with_terraform(artifacts.go_tool("tofu")?);
    tofu.write("main.tf", &printed)?;
    let init = tofu.init()?;
    assert!(
        init.stdout.contains("Installed registry.terraform.io/hashicorp/null v2.1.2"),
        "{init}"
    );

    // Installing the same thing again changes nothing and succeeds.
    let again = terrarium_install(&component, "hashicorp/null", "2.1.2", &mirror)?;
    ensure!(again.status.success(), "reinstall failed: {}", String::from_utf8_lossy(&again.stderr));
    workspace.ok(&["validate", "-no-color"])?;
    Ok(())
}

/// The bytes of an ELF executable's sections that are loaded into memory (debug information
/// left out: its line tables may still name the files of code the linker dropped).
fn loaded_sections(elf: &[u8]) -> anyhow::Result<Vec<u8>> {
    let field = |at: usize, len: usize| -> anyhow::Result<u64> {
        let bytes = elf.get(at..at + len).context("the ELF file is truncated")?;
        Ok(bytes.iter().rev().fold(0, |n, b| (n << 8) | u64::from(*b)))
    };
    ensure!(elf.starts_with(b"\x7fELF\x02\x01"), "not a little-endian 64-bit ELF executable");
    let (table, entry, count) = (field(0x28, 8)?, field(0x3a, 2)?, field(0x3c, 2)?);
    let mut loaded = Vec::new();
    for i in 0..count {
        let header = usize::try_from(table + i * entry)?;
        const SHF_ALLOC: u64 = 2;
        const SHT_NOBITS: u64 = 8;
        if field(header + 8, 8)? & SHF_ALLOC == 0 || field(header + 4, 4)? == SHT_NOBITS {
            continue;
        }
        let (offset, size) =
            (usize::try_from(field(header + 24, 8)?)?, usize::try_from(field(header + 32, 8)?)?);
        loaded.extend_from_slice(elf.get(offset..offset + size).context("a section is cut")?);
    }
    Ok(loaded)
}

/// What `install` puts beside the component only serves: it refuses the author's commands and
/// links none of their libraries, which `terrarium` itself links. A dependency's panic
/// locations name its source path in the loaded executable, so a crate's path there is the
/// crate's code linked in.
#[cfg(target_os = "linux")]
#[test]
fn the_installed_executable_only_serves_and_links_no_author_tools() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let served = artifacts.terrarium_provider()?;
    let refused = std::process::Command::new(served).args(["install", "--help"]).output()?;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    ensure!(!refused.status.success(), "terrarium-provider ran `install`: {stderr}");
    ensure!(stderr.contains("unrecognized subcommand 'install'"), "{stderr}");
    let help = std::process::Command::new(served).arg("--help").output()?;
    let help = String::from_utf8_lossy(&help.stdout);
    ensure!(help.contains("serve-pulumi") && help.contains("serve "), "{help}");

    let full = loaded_sections(&fs::read(artifacts.terrarium()?)?)?;
    let lean = loaded_sections(&fs::read(served)?)?;
    let links = |file: &[u8], path: &str| file.windows(path.len()).any(|w| w == path.as_bytes());
    for (krate, path) in [("pgp", "/pgp-0."), ("zip", "/zip-"), ("notify", "/notify-")] {
        ensure!(links(&full, path), "terrarium does not link {krate}: nothing to compare with");
        ensure!(!links(&lean, path), "terrarium-provider links {krate} ({path})");
    }
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
    // Components that pass the header check but that Terrarium cannot serve: made from a
    // real one, cut short, or with the provider's WIT version or an import renamed in place.
    let bytes = fs::read(&component)?;
    let truncated = scratch.path().join("truncated.wasm");
    fs::write(&truncated, &bytes[..bytes.len() / 2])?;
    let version = terrarium_tests::wit_version();
    let other_version = scratch.path().join("other-version.wasm");
    fs::write(
        &other_version,
        replace_all(
            &bytes,
            format!("terrarium:provider/provider@{version}").as_bytes(),
            b"terrarium:provider/provider@0.9.0",
        ),
    )?;
    let unknown_import = scratch.path().join("unknown-import.wasm");
    let renamed_import = format!("terrarium:provider/lgg@{version}");
    fs::write(
        &unknown_import,
        replace_all(
            &bytes,
            format!("terrarium:provider/log@{version}").as_bytes(),
            renamed_import.as_bytes(),
        ),
    )?;

    // A schema Terraform would refuse: a resource type name with a space in it.
    let invalid_schema = scratch.path().join("invalid-schema.wasm");
    fs::write(&invalid_schema, replace_all(&bytes, b"null_resource", b"null resource"))?;

    let cases: [(&std::path::Path, &str, &str, &str); 10] = [
        (&core_module, "acme/thing", "1.0.0", "core WebAssembly module"),
        (&not_wasm, "acme/thing", "1.0.0", "not a WebAssembly file"),
        (&missing, "acme/thing", "1.0.0", "missing.wasm"),
        (&truncated, "acme/thing", "1.0.0", "is not a valid component"),
        (&other_version, "acme/thing", "1.0.0", "was built for terrarium:provider version 0.9.0"),
        (&unknown_import, "acme/thing", "1.0.0", renamed_import.as_str()),
        (&invalid_schema, "acme/thing", "1.0.0", "\"null resource\" is not a valid identifier"),
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
        assert_user_error(&stderr);
    }
    let written: Vec<_> = match fs::read_dir(&mirror) {
        Ok(entries) => entries.collect(),
        Err(_) => Vec::new(),
    };
    assert!(written.is_empty(), "refused installs wrote into the mirror: {written:?}");
    Ok(())
}

#[test]
fn install_into_a_mirror_that_cannot_be_written_says_so() -> anyhow::Result<()> {
    let component = null_component()?;
    let scratch = tempfile::tempdir()?;
    // A regular file where the mirror's parent directory should be (the tests run as root,
    // for whom file modes do not stop writes).
    let file = scratch.path().join("not-a-directory");
    fs::write(&file, "")?;
    let output = terrarium_install(&component, "acme/thing", "1.0.0", &file.join("mirror"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(!output.status.success(), "accepted: {stderr}");
    ensure!(stderr.contains("cannot write") && stderr.contains("--mirror DIR"), "{stderr}");
    assert_user_error(&stderr);
    Ok(())
}

#[test]
fn reinstalling_with_force_says_the_lock_entry_must_go() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let scratch = tempfile::tempdir()?;
    let mirror = scratch.path().join("mirror");
    let first = terrarium_install(&null_component()?, "acme/thing", "1.0.0", &mirror)?;
    ensure!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let other = artifacts.component("random_provider")?;
    let refused = terrarium_install(&other, "acme/thing", "1.0.0", &mirror)?;
    ensure!(!refused.status.success(), "a different package replaced without --force");
    let forced =
        terrarium_install_with(&other, "acme/thing", "1.0.0", &mirror, &["--force".to_string()])?;
    let stderr = String::from_utf8_lossy(&forced.stderr);
    ensure!(forced.status.success(), "{stderr}");
    ensure!(stderr.contains("Replaced"), "{stderr}");
    ensure!(
        stderr.contains(".terraform.lock.hcl") && stderr.contains("terraform init"),
        "the success message does not say the lock entry must be removed: {stderr}"
    );
    Ok(())
}

/// The header of the grants file `terrarium install` writes says what to do after an edit, and
/// doing exactly that works: the edited grant is in force on the next apply. (A plain
/// `terraform init` refuses the edited package, because the lock file holds its old hash: the
/// header must not send anyone there.)
#[test]
fn an_edited_grants_file_works_as_its_header_says() -> anyhow::Result<()> {
    let api = crate::typescript::ApiServer::start("hello from the API")?;
    let origin = api.origin();
    let provider = Provider::Slow;
    let ws = Workspace::with_installs(&[(provider, &[])])?;
    ws.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\n\
             data \"slow_page\" \"motd\" {{\n  url = \"{origin}/motd\"\n}}\n\n\
             output \"motd\" {{\n  value = data.slow_page.motd.text\n}}\n",
            provider.required_providers_entry()
        ),
    )?;
    ws.init()?;
    let apply = ["apply", "-auto-approve", "-input=false", "-no-color"];
    ws.run_expect(&apply, 1)?;
    ensure!(api.requests() == 0, "the sandbox let a request to {origin} through");

    let grants = terrarium_tests::mirror::Mirror::at(ws.root().join("mirror"))?
        .package_dir(provider)
        .join("grants.toml");
    let text = fs::read_to_string(&grants)?;
    let header: String = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ");
    let advice = "delete the provider's entry from .terraform.lock.hcl, then run `terraform init`";
    ensure!(header.contains(advice), "the header does not say {advice:?}:\n{text}");

    // The edit, then what the header says.
    fs::write(&grants, text.replace("allow_http = []", &format!("allow_http = [\"{origin}\"]")))?;
    let plain = ws.run(&["init", "-input=false", "-no-color"])?;
    ensure!(
        plain.code == Some(1) && plain.stderr.contains("checksum"),
        "terraform init took the edited package with the old lock entry\n{plain}"
    );
    ws.delete_lock_entry(provider.source())?;
    ws.init()?;
    let granted = ws.ok(&apply)?;
    ensure!(
        granted.stdout.contains("motd = \"hello from the API\""),
        "the edited grant is not in force\n{granted}"
    );
    Ok(())
}

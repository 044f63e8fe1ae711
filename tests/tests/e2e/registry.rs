//! A provider released the way every Terraform provider is: `terrarium package` writes the
//! registry release (zips for linux_amd64 and linux_arm64, SHA256SUMS, its OpenPGP signature),
//! `terrarium registry serve` serves it over HTTPS, and a real terraform installs it from there,
//! verifies the signature, locks the hashes `terrarium package` printed, and applies. Also: the
//! same directory as a network mirror, tampered releases refused, and the linux_arm64 host
//! started under qemu.

use std::fs;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, ensure};
use terrarium_tests::registry::{
    RegistryServer, lock_hashes, terrarium_package, terrarium_package_by, terrarium_release,
};
use terrarium_tests::{Artifacts, Workspace};

const VERSION: &str = "1.0.0";

fn null_component() -> anyhow::Result<PathBuf> {
    Artifacts::get()?.component("null_provider")
}

/// `terrarium package` of examples/null as `{host}/acme/null` into `out`, for linux_amd64 and
/// (when `arm64`) linux_arm64; returns its stdout (the lock-file block) and stderr.
fn package_null(
    host: &str,
    out: &Path,
    config_home: &Path,
    arm64: bool,
) -> anyhow::Result<(String, String)> {
    let source = format!("{host}/acme/null");
    let output = if arm64 {
        // A Terrarium release ships the linux_arm64 host beside itself: `package` with no
        // --platform packages both platforms, with nothing cross-compiled by the author.
        let release = config_home.with_file_name("terrarium-release");
        let terrarium = terrarium_release(&release)?;
        terrarium_package_by(
            &terrarium,
            &null_component()?,
            &source,
            VERSION,
            out,
            config_home,
            &[],
        )?
    } else {
        let platforms = ["--platform".to_owned(), "linux_amd64".to_owned()];
        terrarium_package(&null_component()?, &source, VERSION, out, config_home, &platforms)?
    };
    let stdout = String::from_utf8(output.stdout)?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    ensure!(output.status.success(), "terrarium package failed:\n{stdout}{stderr}");
    Ok((stdout, stderr))
}

fn null_config(host: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    null = {{\n      source  = \"{host}/acme/null\"\n      \
         version = \"{VERSION}\"\n    }}\n  }}\n}}\n\nresource \"null_resource\" \"a\" {{}}\n"
    )
}

fn direct_workspace(host: &str) -> anyhow::Result<Workspace> {
    let workspace = Workspace::with_cli_config(
        "disable_checkpoint = true\n\nprovider_installation {\n  direct {}\n}\n",
    )?;
    workspace.write("main.tf", &null_config(host))?;
    Ok(workspace)
}

fn env_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn terraform_installs_verifies_locks_and_applies_a_packaged_release() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("releases");
    fs::create_dir(&out)?;
    let server = RegistryServer::start(&out)?;
    let source = format!("{}/acme/null", server.host);
    let (printed_block, summary) =
        package_null(&server.host, &out, &scratch.path().join("config"), false)?;

    // The release, exactly as a registry serves it, in the packed filesystem-mirror layout.
    let dir = out.join(&server.host).join("acme/null");
    let mut names: Vec<String> = fs::read_dir(&dir)?
        .map(|e| Ok(e?.file_name().to_string_lossy().into_owned()))
        .collect::<anyhow::Result<_>>()?;
    names.sort();
    assert_eq!(
        names,
        [
            "terraform-provider-null_1.0.0_SHA256SUMS",
            "terraform-provider-null_1.0.0_SHA256SUMS.sig",
            "terraform-provider-null_1.0.0_linux_amd64.zip",
            "terraform-provider-null_1.0.0_manifest.json",
            "terraform-provider-null_1.0.0_signing-key.asc",
        ]
    );
    let key_id = summary
        .split("signed with key ID ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .with_context(|| format!("no key ID in the summary:\n{summary}"))?
        .to_owned();
    let expected = lock_hashes(&printed_block, &source)?;
    // One h1 per platform; one zh per file SHA256SUMS lists (the zip and the manifest).
    assert_eq!(
        expected.iter().map(|h| &h[..3]).collect::<Vec<_>>(),
        ["h1:", "zh:", "zh:"],
        "{printed_block}"
    );

    let env = server.terraform_env();
    let workspace = direct_workspace(&server.host)?;
    let init = workspace.run_with_env(&["init", "-input=false", "-no-color"], &env_refs(&env))?;
    ensure!(init.code == Some(0), "init failed\n{init}");
    // Terraform checked the signature of SHA256SUMS against the key the registry handed out.
    assert!(
        init.stdout
            .contains(&format!("Installed {source} v{VERSION} (self-signed, key ID {key_id})")),
        "{init}"
    );
    // Its lock file: the h1 of what it unpacked and every zh of the signed SHA256SUMS, all
    // exactly as `terrarium package` printed them.
    assert_eq!(lock_hashes(&workspace.read(".terraform.lock.hcl")?, &source)?, expected);
    let apply = workspace
        .run_with_env(&["apply", "-auto-approve", "-input=false", "-no-color"], &env_refs(&env))?;
    ensure!(apply.code == Some(0), "apply failed\n{apply}");
    assert!(apply.stdout.contains("1 added"), "{apply}");

    // The same directory through the network mirror protocol, which serves any address: here
    // example.com/acme/null, packaged into it too. (Not one with a port: Terraform 1.15 joins
    // the mirror URL and a `localhost:PORT/...` path so that the host reads as a URL scheme.)
    let (mirror_block, _) =
        package_null("example.com", &out, &scratch.path().join("config"), false)?;
    let mirror_source = "example.com/acme/null";
    let mirror_h1 = lock_hashes(&mirror_block, mirror_source)?.remove(0);
    let mirror = Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  network_mirror {{\n    \
         url = \"https://{}/mirror/v1/\"\n  }}\n}}\n",
        server.host
    ))?;
    mirror.write("main.tf", &null_config("example.com"))?;
    let init = mirror.run_with_env(&["init", "-input=false", "-no-color"], &env_refs(&env))?;
    ensure!(init.code == Some(0), "init from the network mirror failed\n{init}");
    assert!(init.stdout.contains(&format!("Installed {mirror_source} v{VERSION}")), "{init}");
    let locked = lock_hashes(&mirror.read(".terraform.lock.hcl")?, mirror_source)?;
    assert!(locked.contains(&mirror_h1), "mirror lock {locked:?}, printed {mirror_block}");
    let apply = mirror
        .run_with_env(&["apply", "-auto-approve", "-input=false", "-no-color"], &env_refs(&env))?;
    ensure!(apply.code == Some(0), "apply through the mirror's package failed\n{apply}");
    Ok(())
}

#[test]
fn the_package_directory_is_a_packed_filesystem_mirror() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("releases");
    let (printed_block, _) =
        package_null("example.com", &out, &scratch.path().join("config"), false)?;
    let source = "example.com/acme/null";
    let workspace = Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    \
         path    = {}\n    include = [\"{source}\"]\n  }}\n}}\n",
        terrarium_tests::workspace::hcl_string(&out.to_string_lossy())
    ))?;
    workspace.write("main.tf", &null_config("example.com"))?;
    let init = workspace.init()?;
    assert!(
        init.stdout.contains(&format!("Installed {source} v{VERSION} (unauthenticated)")),
        "{init}"
    );
    // Unsigned, so Terraform records only the h1 of what it unpacked: the one package printed.
    let locked = lock_hashes(&workspace.read(".terraform.lock.hcl")?, source)?;
    let printed = lock_hashes(&printed_block, source)?;
    let printed_h1: Vec<&String> = printed.iter().filter(|h| h.starts_with("h1:")).collect();
    assert_eq!(locked.iter().collect::<Vec<_>>(), printed_h1);
    workspace.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    Ok(())
}

/// Flips one byte of `path` (returning the original bytes).
fn tamper(path: &Path, at_end: usize) -> anyhow::Result<Vec<u8>> {
    let original = fs::read(path)?;
    let mut bytes = original.clone();
    let index = bytes.len().saturating_sub(at_end);
    bytes[index] ^= 0x01;
    fs::write(path, bytes)?;
    Ok(original)
}

#[test]
fn terraform_refuses_a_tampered_zip_and_a_tampered_signature() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("releases");
    fs::create_dir(&out)?;
    let server = RegistryServer::start(&out)?;
    package_null(&server.host, &out, &scratch.path().join("config"), false)?;
    let dir = out.join(&server.host).join("acme/null");
    let zip = dir.join("terraform-provider-null_1.0.0_linux_amd64.zip");
    let signature = dir.join("terraform-provider-null_1.0.0_SHA256SUMS.sig");
    let env = server.terraform_env();
    let init = || -> anyhow::Result<terrarium_tests::Run> {
        direct_workspace(&server.host)?
            .run_with_env(&["init", "-input=false", "-no-color"], &env_refs(&env))
    };

    // One byte of the zip's central directory: still a zip, no longer the one SHA256SUMS lists.
    let original_zip = tamper(&zip, 30)?;
    let refused = init()?;
    ensure!(refused.code == Some(1), "a tampered zip was installed\n{refused}");
    assert!(refused.stderr.contains("checksum"), "{refused}");
    fs::write(&zip, original_zip)?;

    let original_signature = tamper(&signature, 10)?;
    let refused = init()?;
    ensure!(refused.code == Some(1), "a tampered signature was accepted\n{refused}");
    assert!(refused.stderr.contains("signature"), "{refused}");
    fs::write(&signature, original_signature)?;

    // Restored, the same release installs: the refusals were the tampering's doing.
    let accepted = init()?;
    ensure!(accepted.code == Some(0), "the restored release was refused\n{accepted}");
    Ok(())
}

/// Unpacks `zip` into `dir` as Terraform does (Unix modes kept).
fn unzip(zip: &Path, dir: &Path) -> anyhow::Result<()> {
    let mut archive = zip::ZipArchive::new(fs::File::open(zip)?)?;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index)?;
        let name = entry.enclosed_name().context("an entry escapes the package")?;
        let path = dir.join(name);
        let mut file = fs::File::create(&path)?;
        std::io::copy(&mut entry, &mut file)?;
        #[cfg(unix)]
        if let Some(mode) = entry.unix_mode() {
            use std::os::unix::fs::PermissionsExt as _;
            fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o777))?;
        }
    }
    Ok(())
}

/// A release for linux_amd64 and linux_arm64, packaged by a terrarium laid out as a Terrarium
/// release (the arm64 host beside it) with no --platform: `terraform providers lock` for both
/// platforms downloads and verifies both zips and locks exactly what `terrarium package` printed. Then the
/// linux_arm64 package's executable, run by Terraform through qemu-aarch64-static (user-mode
/// emulation), starts, completes go-plugin's handshake with AutoMTLS, and serves a plan and an
/// apply.
#[test]
fn a_linux_arm64_release_locks_and_its_host_serves_terraform_under_qemu() -> anyhow::Result<()> {
    let qemu = Path::new("/usr/bin/qemu-aarch64-static");
    let sysroot = Path::new("/usr/aarch64-linux-gnu");
    ensure!(
        qemu.is_file() && sysroot.is_dir(),
        "qemu-aarch64-static or the aarch64 sysroot is missing; run scripts/setup"
    );
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("releases");
    fs::create_dir(&out)?;
    let server = RegistryServer::start(&out)?;
    let source = format!("{}/acme/null", server.host);
    let (printed_block, _) =
        package_null(&server.host, &out, &scratch.path().join("config"), true)?;
    let expected = lock_hashes(&printed_block, &source)?;
    // One h1 per platform; one zh per file SHA256SUMS lists (two zips and the manifest).
    assert_eq!(
        expected.iter().map(|h| &h[..3]).collect::<Vec<_>>(),
        ["h1:", "h1:", "zh:", "zh:", "zh:"],
        "{printed_block}"
    );
    let env = server.terraform_env();
    let locking = direct_workspace(&server.host)?;
    let lock = locking.run_with_env(
        &["providers", "lock", "-no-color", "-platform=linux_amd64", "-platform=linux_arm64"],
        &env_refs(&env),
    )?;
    ensure!(lock.code == Some(0), "providers lock failed\n{lock}");
    assert_eq!(lock_hashes(&locking.read(".terraform.lock.hcl")?, &source)?, expected);

    let package = scratch.path().join("linux_arm64");
    fs::create_dir(&package)?;
    unzip(
        &out.join(&server.host).join("acme/null/terraform-provider-null_1.0.0_linux_arm64.zip"),
        &package,
    )?;
    let executable = package.join("terraform-provider-null_v1.0.0");
    let header = fs::read(&executable)?;
    ensure!(
        header.starts_with(b"\x7fELF") && header.get(18..20) == Some(&[0xb7, 0x00][..]),
        "the linux_arm64 package does not hold an aarch64 ELF executable"
    );

    // Terraform starts the first terraform-provider-null* file in a dev_overrides directory:
    // here, a script that runs the arm64 executable under emulation.
    let launcher = scratch.path().join("launcher");
    fs::create_dir(&launcher)?;
    let script = launcher.join("terraform-provider-null");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec {} -L {} {} \"$@\"\n",
            qemu.display(),
            sysroot.display(),
            executable.display()
        ),
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;
    }
    let workspace = Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  dev_overrides {{\n    \
         \"{source}\" = {}\n  }}\n  direct {{}}\n}}\n",
        terrarium_tests::workspace::hcl_string(&launcher.to_string_lossy())
    ))?;
    workspace.write("main.tf", &null_config(&server.host))?;
    let cache = scratch.path().join("cache");
    let cache = cache.to_string_lossy();
    let env = [("XDG_CACHE_HOME", cache.as_ref())];
    let apply =
        workspace.run_with_env(&["apply", "-auto-approve", "-input=false", "-no-color"], &env)?;
    ensure!(apply.code == Some(0), "apply through the arm64 host failed\n{apply}");
    assert!(apply.stdout.contains("1 added"), "{apply}");
    Ok(())
}

/// A TLS client that asks for `path`, reads the start of the answer and then nothing more:
/// it holds a download.
fn slow_reader(
    server: &RegistryServer,
    address: SocketAddr,
    path: &str,
) -> anyhow::Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>> {
    let pem = fs::read(&server.ca_file)?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        roots.add(cert?)?;
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("localhost".to_owned())?;
    let tcp = TcpStream::connect(address)?;
    tcp.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut tls =
        rustls::StreamOwned::new(rustls::ClientConnection::new(Arc::new(config), name)?, tcp);
    write!(tls, "GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", server.host)?;
    let mut start = [0u8; 12];
    tls.read_exact(&mut start)?;
    ensure!(start.starts_with(b"HTTP/1.1 200"), "{:?}", String::from_utf8_lossy(&start));
    Ok(tls)
}

/// The peak resident memory of process `pid` so far, in bytes.
fn peak_rss(pid: u32) -> anyhow::Result<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .context("no VmHWM")?
        .parse()?;
    Ok(kib * 1024)
}

/// Issue 27: the registry keeps serving a normal `terraform init` while hostile clients hold
/// more idle connections than it has descriptors for and others hold downloads they never
/// read. Before, it exited at its first EMFILE (about 1,020 idle connections at the usual
/// limit, fewer here where the test lowers it) and read each zip whole into memory for every
/// request. A bounded load: loopback only, a fixed number of clients, all closed at the end.
#[test]
fn the_registry_keeps_serving_while_clients_hold_connections_and_downloads() -> anyhow::Result<()> {
    const DESCRIPTORS: u64 = 160;
    const IDLE_CLIENTS: usize = 300;
    const SLOW_READERS: usize = 8;
    let scratch = tempfile::tempdir()?;
    let out = scratch.path().join("releases");
    fs::create_dir(&out)?;
    let mut server = RegistryServer::start_with_descriptor_limit(&out, Some(DESCRIPTORS))?;
    package_null(&server.host, &out, &scratch.path().join("config"), false)?;
    let port: u16 = server.host.rsplit(':').next().context("a port")?.parse()?;
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let zip_name = format!("terraform-provider-null_{VERSION}_linux_amd64.zip");
    let zip_bytes = fs::metadata(out.join(&server.host).join("acme/null").join(&zip_name))?.len();
    let zip = format!("/v1/files/{}/acme/null/{zip_name}", server.host);

    let slow = (0..SLOW_READERS)
        .map(|_| slow_reader(&server, address, &zip))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let idle =
        (0..IDLE_CLIENTS).map(|_| TcpStream::connect(address)).collect::<Result<Vec<_>, _>>()?;
    let env = server.terraform_env();
    let workspace = direct_workspace(&server.host)?;
    let init = workspace.run_with_env(&["init", "-input=false", "-no-color"], &env_refs(&env))?;
    ensure!(init.code == Some(0), "init failed while hostile clients held the registry\n{init}");
    ensure!(server.is_running(), "the registry stopped");
    // Downloads are streamed: the held ones cost the server no copy of the zip each.
    let peak = peak_rss(server.pid())?;
    ensure!(
        peak < 96 * (1 << 20) + zip_bytes,
        "the registry peaked at {} MiB serving a {} MiB zip",
        peak >> 20,
        zip_bytes >> 20
    );
    drop((idle, slow));
    // And it still serves once they are gone.
    let again = direct_workspace(&server.host)?;
    let init = again.run_with_env(&["init", "-input=false", "-no-color"], &env_refs(&env))?;
    ensure!(init.code == Some(0), "init failed after the hostile clients left\n{init}");
    Ok(())
}

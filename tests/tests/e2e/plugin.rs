//! The installed executable as Terraform starts it (go-plugin handshake), and as a person
//! running it by hand sees it. TLS itself is tested in depth in crates/terrarium/tests; here, the line.

use std::io::{BufRead as _, BufReader};
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, bail, ensure};
use base64::Engine as _;
use terrarium_tests::Provider;
use terrarium_tests::workspace::{kill_group, run_with_timeout};

const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
const MAGIC_COOKIE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// A certificate like the one Terraform's AutoMTLS makes: ECDSA P-521, self-signed, CA.
fn terraform_like_client_cert() -> anyhow::Result<String> {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512)?;
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])?;
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::OrganizationName, "HashiCorp");
    params.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
    Ok(params.self_signed(&key)?.pem())
}

#[test]
fn installed_executable_prints_a_six_field_handshake_with_a_server_certificate()
-> anyhow::Result<()> {
    let executable = Provider::Null.installed_executable()?;
    let socket_dir = tempfile::tempdir()?;
    let mut child = Command::new(&executable)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_MIN_PORT", "10000")
        .env("PLUGIN_MAX_PORT", "25000")
        .env("PLUGIN_CLIENT_CERT", terraform_like_client_cert()?)
        .env("PLUGIN_UNIX_SOCKET_DIR", socket_dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| format!("starting {}", executable.display()))?;

    // Read the first line on a thread so that a silent plugin fails the test instead of hanging it.
    let stdout = child.stdout.take().context("no stdout")?;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let result = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        let _ = sender.send(result);
    });
    let line = receiver.recv_timeout(Duration::from_secs(60));
    let exited_early = child.try_wait()?;
    kill_group(&mut child);
    let line = match line {
        Ok(line) => line.context("reading the handshake line")?,
        Err(_) => bail!("no handshake line within 60 s (process status: {exited_early:?})"),
    };

    let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('|').collect();
    ensure!(fields.len() == 6, "expected 6 fields, got {}: {line:?}", fields.len());
    assert_eq!(fields[0], "1", "core protocol version: {line}");
    assert_eq!(fields[1], "6", "Terraform protocol version: {line}");
    assert_eq!(fields[2], "unix", "network: {line}");
    assert!(
        std::path::Path::new(fields[3]).starts_with(socket_dir.path()),
        "socket {} is not in PLUGIN_UNIX_SOCKET_DIR {}",
        fields[3],
        socket_dir.path().display()
    );
    assert_eq!(fields[4], "grpc", "{line}");
    // go-plugin reads field 6 as a certificate only when it is longer than 50 characters.
    let certificate = fields[5];
    assert!(certificate.len() > 50, "no server certificate in field 6: {line}");
    assert!(!certificate.ends_with('='), "field 6 must be unpadded base64: {line}");
    let der = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(certificate)
        .context("field 6 is not standard base64 without padding")?;
    assert_eq!(der.first(), Some(&0x30), "field 6 is not a DER certificate (SEQUENCE)");
    assert!(
        der.windows(b"localhost".len()).any(|w| w == b"localhost"),
        "the server certificate does not name localhost (Terraform verifies the DNS SAN)"
    );
    Ok(())
}

#[test]
fn installed_executable_run_by_hand_explains_itself_and_exits_1() -> anyhow::Result<()> {
    let executable = Provider::Null.installed_executable()?;
    let mut command = Command::new(&executable);
    command.env_remove(MAGIC_COOKIE_KEY).env_remove("PLUGIN_CLIENT_CERT");
    let (code, stdout, stderr) = run_with_timeout(&mut command, Duration::from_secs(60))?;
    assert_eq!(code, Some(1), "exit code; stdout: {stdout}\nstderr: {stderr}");
    assert!(!stdout.starts_with("1|"), "printed a handshake without the cookie: {stdout}");
    let message = format!("{stdout}{stderr}");
    let lower = message.to_lowercase();
    assert!(lower.contains("terraform"), "the explanation does not mention Terraform: {message}");
    assert!(lower.contains("plugin") || lower.contains("provider"), "{message}");
    assert!(!lower.contains("panicked"), "{message}");
    assert!(message.lines().count() <= 30, "the explanation should be short: {message}");
    Ok(())
}

//! examples/etcd against a real etcd (Debian's etcd-server, installed by scripts/setup),
//! started on loopback for this test. The provider is granted only etcd's origin; a second
//! installation without the grant fails with the diagnostic naming it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use terrarium_tests::mirror::{Mirror, terrarium_install_with};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Workspace};

/// A free loopback port (there is a small race until etcd binds it; acceptable in tests).
fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// An etcd server for one test, killed on drop.
struct Etcd {
    child: Child,
    port: u16,
    _data: tempfile::TempDir,
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Etcd {
    fn start() -> anyhow::Result<Etcd> {
        let etcd = ["/usr/bin/etcd", "/usr/local/bin/etcd"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .context(
                "etcd is not installed; run scripts/setup (Debian: apt-get install etcd-server)",
            )?;
        let data = tempfile::tempdir()?;
        let port = free_port()?;
        let peer = free_port()?;
        let client_url = format!("http://127.0.0.1:{port}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let child = Command::new(etcd)
            .args(["--name", "terrarium-test", "--data-dir"])
            .arg(data.path())
            .args(["--listen-client-urls", &client_url, "--advertise-client-urls", &client_url])
            .args(["--listen-peer-urls", &peer_url, "--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", &format!("terrarium-test={peer_url}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting etcd")?;
        let server = Etcd { child, port, _data: data };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if server.get("/terrarium-probe").is_ok() {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        bail!("etcd did not answer on port {port} within 30 s")
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// POSTs JSON to the gateway over a plain socket (the test's own view of etcd).
    fn post(&self, path: &str, body: &str) -> anyhow::Result<serde_json::Value> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        let (head, body) = response.split_once("\r\n\r\n").context("no HTTP body")?;
        ensure!(
            head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
            "etcd said {head}"
        );
        Ok(serde_json::from_str(body)?)
    }

    fn put(&self, key: &str, value: &str) -> anyhow::Result<()> {
        let body = serde_json::json!({ "key": BASE64.encode(key), "value": BASE64.encode(value) });
        self.post("/v3/kv/put", &body.to_string()).map(|_| ())
    }

    fn get(&self, key: &str) -> anyhow::Result<Option<String>> {
        let body = serde_json::json!({ "key": BASE64.encode(key) });
        let response = self.post("/v3/kv/range", &body.to_string())?;
        let Some(kv) = response["kvs"].as_array().and_then(|kvs| kvs.first()) else {
            return Ok(None);
        };
        let value = BASE64.decode(kv["value"].as_str().unwrap_or_default())?;
        Ok(Some(String::from_utf8(value)?))
    }

    fn delete(&self, key: &str) -> anyhow::Result<()> {
        let body = serde_json::json!({ "key": BASE64.encode(key) });
        self.post("/v3/kv/deleterange", &body.to_string()).map(|_| ())
    }
}

fn workspace(root: &Path, grants: &[String]) -> anyhow::Result<Workspace> {
    let provider = Provider::Etcd;
    let component =
        Artifacts::get()?.component(provider.component_crate().context("a component")?)?;
    let mirror = Mirror::at(root.join("mirror"))?;
    let output = terrarium_install_with(
        &component,
        provider.source(),
        provider.version(),
        mirror.root(),
        grants,
    )?;
    ensure!(
        output.status.success(),
        "`terrarium install` failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [\"{}\"]\n  }}\n}}\n",
        hcl_string(&mirror.root().to_string_lossy()),
        provider.source()
    ))
}

fn config(endpoint: &str, keys: &[(&str, &str, &str)]) -> String {
    let mut tf = format!(
        "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\nprovider \"etcd\" {{\n  endpoint = {}\n}}\n",
        Provider::Etcd.required_providers_entry(),
        hcl_string(endpoint)
    );
    for (name, key, value) in keys {
        tf.push_str(&format!(
            "\nresource \"etcd_key\" \"{name}\" {{\n  key   = {}\n  value = {}\n}}\n",
            hcl_string(key),
            hcl_string(value)
        ));
    }
    tf
}

const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];
const PLAN: &[&str] = &["plan", "-detailed-exitcode", "-input=false", "-no-color"];

#[test]
fn etcd_keys_with_crud_import_and_drift_only_through_the_granted_origin() -> anyhow::Result<()> {
    let etcd = Etcd::start()?;
    let scratch = tempfile::tempdir()?;
    let ws = workspace(scratch.path(), &["--allow-http".into(), etcd.origin()])?;
    ws.write("main.tf", &config(&etcd.origin(), &[("a", "/terrarium/a", "one")]))?;
    ws.init()?;
    ws.ok(APPLY)?;
    ensure!(etcd.get("/terrarium/a")?.as_deref() == Some("one"), "the key was not written");
    let run = ws.run(PLAN)?;
    ensure!(run.code == Some(0), "expected no changes\n{run}");

    // Update in place.
    ws.write("main.tf", &config(&etcd.origin(), &[("a", "/terrarium/a", "two")]))?;
    let run = ws.run(PLAN)?;
    ensure!(
        run.code == Some(2) && run.stdout.contains("updated in-place"),
        "expected an in-place update\n{run}"
    );
    ws.ok(APPLY)?;
    ensure!(etcd.get("/terrarium/a")?.as_deref() == Some("two"));

    // Drift: a value changed behind terraform's back is put back; a deleted key is recreated.
    etcd.put("/terrarium/a", "tampered")?;
    let run = ws.run(PLAN)?;
    ensure!(run.code == Some(2) && run.stdout.contains("tampered"), "drift not shown\n{run}");
    ws.ok(APPLY)?;
    ensure!(etcd.get("/terrarium/a")?.as_deref() == Some("two"));
    etcd.delete("/terrarium/a")?;
    let run = ws.run(PLAN)?;
    ensure!(
        run.code == Some(2) && run.stdout.contains("will be created"),
        "deletion not detected\n{run}"
    );
    ws.ok(APPLY)?;
    ensure!(etcd.get("/terrarium/a")?.as_deref() == Some("two"));

    // Import an existing key.
    etcd.put("/terrarium/existing", "was here")?;
    ws.write(
        "main.tf",
        &config(
            &etcd.origin(),
            &[("a", "/terrarium/a", "two"), ("existing", "/terrarium/existing", "was here")],
        ),
    )?;
    ws.ok(&["import", "-input=false", "-no-color", "etcd_key.existing", "/terrarium/existing"])?;
    let run = ws.run(PLAN)?;
    ensure!(
        run.code == Some(0),
        "an imported key matching its configuration needs no change\n{run}"
    );

    ws.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(
        etcd.get("/terrarium/a")?.is_none() && etcd.get("/terrarium/existing")?.is_none(),
        "destroy left keys"
    );

    // The same provider installed without the grant: refused, with the grant named.
    let ungranted = tempfile::tempdir()?;
    let ws = workspace(ungranted.path(), &[])?;
    ws.write("main.tf", &config(&etcd.origin(), &[("a", "/terrarium/a", "one")]))?;
    ws.init()?;
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(
        run.error_summaries().iter().any(|e| e == "HTTP request denied by the sandbox"),
        "expected the sandbox denial\n{run}"
    );
    let grant = format!("--allow-http {}", etcd.origin());
    ensure!(run.stderr.contains(&grant), "the diagnostic does not name {grant:?}\n{run}");
    ensure!(etcd.get("/terrarium/a")?.is_none(), "the ungranted provider reached etcd");
    Ok(())
}

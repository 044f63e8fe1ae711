//! Terraform's first Ctrl-C: it sends StopProvider and waits for the calls it made. A create
//! that has already made its object (tests/guests/slow's `slow_server`, waiting for its server
//! to boot with `terrarium_sdk::stop::sleep`) learns of the stop and returns the object, and
//! Terraform records it in the state instead of orphaning it. A create that fails after
//! making its object keeps it the same way, with its error (`Diagnostics::with_state`).

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use terrarium_tests::json::state_resources;
use terrarium_tests::workspace::{TERRAFORM_TIMEOUT, kill_group};
use terrarium_tests::{Provider, Workspace};

/// Waits until `path` holds a line containing `needle`.
fn wait_for_line(path: &std::path::Path, needle: &str, until: Instant) -> anyhow::Result<()> {
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().any(|l| l.contains(needle)) {
            return Ok(());
        }
        if Instant::now() > until {
            bail!("{} never said {needle:?}; it holds:\n{text}", path.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn ctrl_c_during_a_slow_create_records_the_created_object() -> anyhow::Result<()> {
    ctrl_c_keeps_the_created_object(Provider::Slow).map(drop)
}

/// Ctrl-C while `provider`'s `slow_server` create waits for its server: the server is in the
/// state, not ready. Returns the server's values (the conformance table compares them).
pub fn ctrl_c_keeps_the_created_object(provider: Provider) -> anyhow::Result<serde_json::Value> {
    interrupted_create(&Workspace::new(&[provider])?, provider, "")
}

/// [`ctrl_c_keeps_the_created_object`] in `ws`, with `extra` (HCL) in the server's block.
pub fn interrupted_create(
    ws: &Workspace,
    provider: Provider,
    extra: &str,
) -> anyhow::Result<serde_json::Value> {
    ws.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\n\
             resource \"slow_server\" \"web\" {{\n  boot_seconds = 3600\n{extra}}}\n",
            provider.required_providers_entry_at_host()
        ),
    )?;
    ws.init()?;

    // The provider's log says when create has started the server; only then is a stop
    // something it can see (a stop reaches calls already running).
    let log = ws.root().join("terraform.log");
    let mut command = ws.command(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    command
        .env("TF_LOG_PROVIDER", "INFO")
        .env("TF_LOG_PATH", &log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    {
        use std::os::unix::process::CommandExt as _;
        command.process_group(0);
    }
    let mut terraform = command.spawn().context("starting terraform apply")?;
    let stdout = terraform.stdout.take().context("piped stdout")?;
    let stderr = terraform.stderr.take().context("piped stderr")?;
    let stdout = std::thread::spawn(move || {
        BufReader::new(stdout).lines().map_while(Result::ok).collect::<Vec<_>>().join("\n")
    });
    let stderr = std::thread::spawn(move || {
        BufReader::new(stderr).lines().map_while(Result::ok).collect::<Vec<_>>().join("\n")
    });
    let until = Instant::now() + TERRAFORM_TIMEOUT;
    if let Err(e) = wait_for_line(&log, "slow_server started", until) {
        kill_group(&mut terraform);
        return Err(e);
    }

    // Ctrl-C: SIGINT to terraform alone, as a terminal sends it to the foreground process.
    let pid = libc::pid_t::try_from(terraform.id()).context("pid")?;
    // SAFETY: kill(2) with the positive pid of the child this test started.
    ensure!(unsafe { libc::kill(pid, libc::SIGINT) } == 0, "cannot signal terraform");
    let status = loop {
        if let Some(status) = terraform.try_wait()? {
            break status;
        }
        if Instant::now() > until {
            kill_group(&mut terraform);
            bail!("terraform did not finish after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let run = format!("exit {status}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    ensure!(stdout.contains("Interrupt received"), "terraform did not see the Ctrl-C\n{run}");
    ensure!(
        !stdout.contains("Provider stopped") && !stderr.contains("Provider stopped"),
        "the create was interrupted instead of winding down\n{run}"
    );

    // The server create had started is in the state, as it was when the stop came.
    let state = ws.state_json()?;
    let resources = state_resources(&state);
    let [(address, values)] = resources.as_slice() else {
        bail!("expected one resource in the state, found {resources:?}\n{run}");
    };
    ensure!(address == "slow_server.web", "{address}");
    ensure!(values["id"] == "server-3600", "{values}");
    ensure!(values["ready"] == false, "{values}");
    Ok(values.clone())
}

#[test]
fn a_create_that_fails_after_making_its_object_leaves_it_tainted_in_the_state() -> anyhow::Result<()>
{
    let ws = Workspace::new(&[Provider::Slow])?;
    ws.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n\n\
             resource \"slow_server\" \"web\" {{\n  boot_seconds = 1\n  fail_boot = true\n}}\n",
            Provider::Slow.required_providers_entry()
        ),
    )?;
    ws.init()?;
    let run = ws.run_expect(&["apply", "-auto-approve", "-input=false", "-no-color"], 1)?;
    ensure!(
        run.error_summaries() == ["Server failed to boot"],
        "apply did not fail with the provider's error alone\n{run}"
    );

    // The started server is in the state, tainted, with what create knew of it.
    let state = ws.state_json()?;
    let server = terrarium_tests::json::state_resource(&state, "slow_server.web")?;
    ensure!(server["tainted"] == true, "the failed create is not tainted: {server}");
    ensure!(server["values"]["id"] == "server-1", "{server}");
    ensure!(server["values"]["ready"] == false, "{server}");

    // What a person sees next: the server is replaced, and the plan says why.
    let plan = ws.ok(&["plan", "-input=false", "-no-color"])?;
    plan.shows(&["# slow_server.web is tainted, so must be replaced"])?;
    Ok(())
}

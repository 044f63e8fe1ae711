//! The sandbox through real terraform: grants written by `terrarium install`, a provider that
//! loops forever stopped at its timeout while the rest of the run applies, and examples/files
//! working inside a granted directory and refused outside it.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use terrarium_tests::json::state_resources;
use terrarium_tests::mirror::{Mirror, terrarium_install_with};
use terrarium_tests::workspace::hcl_string;
use terrarium_tests::{Artifacts, Provider, Workspace};

/// Installs `provider` with `grants` (install flags) into its own mirror under `root`, and a
/// workspace that takes the provider from there.
pub(crate) fn workspace_with_grants(
    provider: Provider,
    root: &Path,
    grants: &[String],
) -> anyhow::Result<Workspace> {
    let crate_name = provider.component_crate().context("a component provider")?;
    let component = Artifacts::get()?.component(crate_name)?;
    let mirror = Mirror::at(root.join("mirror"))?;
    let output = terrarium_install_with(
        &component,
        provider.source(),
        provider.version(),
        mirror.root(),
        grants,
    )?;
    if !output.status.success() {
        bail!(
            "`terrarium install` failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [\"{}\"]\n  }}\n}}\n",
        hcl_string(&mirror.root().to_string_lossy()),
        provider.source()
    ))
}

pub(crate) fn required(provider: Provider) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {}\n  }}\n}}\n",
        provider.required_providers_entry()
    )
}

pub(crate) const APPLY: &[&str] = &["apply", "-auto-approve", "-input=false", "-no-color"];

#[test]
fn an_endless_loop_fails_apply_at_the_granted_timeout_and_the_other_resources_apply()
-> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let ws = workspace_with_grants(
        Provider::Hostile,
        scratch.path(),
        &["--timeout".into(), "3s".into()],
    )?;
    ws.write(
        "main.tf",
        &format!(
            "{}\nresource \"hostile_probe\" \"looping\" {{\n  attack = \"loop\"\n}}\n\
             \nresource \"hostile_probe\" \"healthy\" {{\n  attack = \"env-all\"\n}}\n",
            required(Provider::Hostile)
        ),
    )?;
    ws.init()?;

    let started = Instant::now();
    let run = ws.run_expect(APPLY, 1)?;
    // Generous: this checks the run ends because of the timeout, not how fast terraform is.
    ensure!(started.elapsed() < Duration::from_secs(120), "apply took {:?}", started.elapsed());
    ensure!(
        run.error_summaries().iter().any(|e| e == "Provider timed out"),
        "no timeout error\n{run}"
    );
    for needle in
        ["ApplyResourceChange for resource \"hostile_probe\"", "time limit of 3s", "--timeout"]
    {
        ensure!(run.stderr.contains(needle), "stderr lacks {needle:?}\n{run}");
    }
    let state = ws.state_json()?;
    let addresses: Vec<String> =
        state_resources(&state).into_iter().map(|(address, _)| address).collect();
    ensure!(addresses == ["hostile_probe.healthy"], "state holds {addresses:?}");
    Ok(())
}

#[test]
fn files_live_only_inside_the_granted_directory_with_drift_and_import() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let granted = root.join("granted");
    fs::create_dir(&granted)?;
    let ws = workspace_with_grants(
        Provider::Files,
        &root,
        &["--allow-dir".into(), format!("{}:rw", granted.display())],
    )?;
    let inside = granted.join("dir/hello.txt");
    let outside = root.join("outside.txt");
    let resource = |name: &str, path: &Path, content: &str| {
        format!(
            "\nresource \"files_file\" \"{name}\" {{\n  filename = {}\n  content  = {}\n}}\n",
            hcl_string(&path.to_string_lossy()),
            hcl_string(content)
        )
    };
    let base = format!("{}{}", required(Provider::Files), resource("inside", &inside, "hello"));
    ws.write("main.tf", &format!("{base}{}", resource("outside", &outside, "nope")))?;
    ws.init()?;

    // Outside the grant: refused, with the grant that would allow it; inside: written.
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(run.stderr.contains("--allow-dir"), "the error names the grant\n{run}");
    ensure!(!outside.exists(), "a file was written outside the grant");
    ensure!(fs::read_to_string(&inside)? == "hello", "the granted file was not written");

    ws.write("main.tf", &base)?;
    ws.ok(APPLY)?;
    let plan =
        |ws: &Workspace| ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"]);
    let run = plan(&ws)?;
    ensure!(run.code == Some(0), "expected no changes\n{run}");

    // Drift: an edit on disk is planned as a replacement and repaired by apply.
    fs::write(&inside, "edited behind terraform's back")?;
    let run = plan(&ws)?;
    ensure!(
        run.code == Some(2) && run.stdout.contains("must be replaced"),
        "drift not detected\n{run}"
    );
    ws.ok(APPLY)?;
    ensure!(fs::read_to_string(&inside)? == "hello");
    // A deleted file is planned for creation.
    fs::remove_file(&inside)?;
    let run = plan(&ws)?;
    ensure!(
        run.code == Some(2) && run.stdout.contains("will be created"),
        "deletion not detected\n{run}"
    );
    ws.ok(APPLY)?;
    ensure!(fs::read_to_string(&inside)? == "hello");

    // Import an existing file.
    let existing = granted.join("existing.txt");
    fs::write(&existing, "already here")?;
    ws.write("main.tf", &format!("{base}{}", resource("existing", &existing, "already here")))?;
    ws.ok(&[
        "import",
        "-input=false",
        "-no-color",
        "files_file.existing",
        &existing.to_string_lossy(),
    ])?;
    let run = plan(&ws)?;
    ensure!(
        run.code == Some(0),
        "an imported file matching its configuration needs no change\n{run}"
    );

    ws.ok(&["destroy", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(!inside.exists() && !existing.exists(), "destroy removes the files");
    Ok(())
}

/// `text` with every run of whitespace as one space: Terraform wraps diagnostic text.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs `terrarium install` of the hostile provider into `mirror` with `args`, and `env`.
fn install_hostile(
    mirror: &Path,
    args: &[String],
    env: &[(&str, &Path)],
) -> anyhow::Result<std::process::Output> {
    let component = Artifacts::get()?.component("hostile_provider")?;
    let mut command = std::process::Command::new(Artifacts::get()?.terrarium()?);
    command
        .arg("install")
        .arg(component)
        .args(["--source", Provider::Hostile.source(), "--version", Provider::Hostile.version()])
        .arg("--mirror")
        .arg(mirror)
        .args(args)
        .stdin(std::process::Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    Ok(command.output()?)
}

/// `terrarium install` refused: exit status 1, nothing installed, and stderr says `needles`.
fn expect_install_refused(
    output: &std::process::Output,
    mirror: &Path,
    needles: &[&str],
) -> anyhow::Result<()> {
    let stderr = flat(&String::from_utf8_lossy(&output.stderr));
    ensure!(!output.status.success(), "install succeeded: {stderr}");
    for needle in needles {
        ensure!(stderr.contains(needle), "stderr lacks {needle:?}: {stderr}");
    }
    ensure!(!stderr.contains("panicked") && !stderr.contains("Backtrace"), "{stderr}");
    let package = mirror.join(Provider::Hostile.source());
    ensure!(!package.exists(), "a refused install left {}", package.display());
    Ok(())
}

/// A workspace taking the hostile provider from `mirror`, configured with `resources`
/// (`(name, attack, target)`, each depending on the one before).
fn hostile_workspace(
    mirror: &Path,
    resources: &[(&str, &str, String)],
) -> anyhow::Result<Workspace> {
    let ws = Workspace::with_cli_config(&format!(
        "disable_checkpoint = true\n\nprovider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [\"{}\"]\n  }}\n}}\n",
        hcl_string(&mirror.to_string_lossy()),
        Provider::Hostile.source()
    ))?;
    write_probes(&ws, resources)?;
    Ok(ws)
}

fn write_probes(ws: &Workspace, resources: &[(&str, &str, String)]) -> anyhow::Result<()> {
    let mut config = required(Provider::Hostile);
    for (i, (name, attack, target)) in resources.iter().enumerate() {
        let depends = match i {
            0 => String::new(),
            _ => format!("  depends_on = [hostile_probe.{}]\n", resources[i - 1].0),
        };
        config.push_str(&format!(
            "\nresource \"hostile_probe\" \"{name}\" {{\n  attack = \"{attack}\"\n  target = {}\n{depends}}}\n",
            hcl_string(target)
        ));
    }
    ws.write("main.tf", &config)
}

/// Replaces the installed hostile provider's grants file (a user editing it after install).
fn edit_installed_grants(mirror: &Path, allow_dir: &[String]) -> anyhow::Result<PathBuf> {
    let package = Mirror::at(mirror.to_path_buf())?.package_dir(Provider::Hostile);
    let grants = package.join("grants.toml");
    // TOML basic strings escape as HCL's do.
    let quoted: Vec<String> = allow_dir.iter().map(|d| hcl_string(d)).collect();
    fs::write(&grants, format!("allow_dir = [{}]\n", quoted.join(", ")))?;
    Ok(grants)
}

#[test]
fn a_link_out_of_a_grant_and_nested_grants_never_reach_the_file_system() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let outer = root.join("outer");
    let inner = outer.join("inner");
    fs::create_dir_all(&inner)?;
    fs::write(inner.join("kept.txt"), "kept")?;
    let rw = |p: &Path| format!("{}:rw", p.display());
    let ro = |p: &Path| format!("{}:ro", p.display());

    // Nested grants are refused by `terrarium install`.
    let mirror = root.join("mirror");
    let output = install_hostile(
        &mirror,
        &["--allow-dir".into(), rw(&outer), "--allow-dir".into(), ro(&inner)],
        &[],
    )?;
    expect_install_refused(&output, &mirror, &["overlap", "is inside"])?;

    // One read-write grant: a relative link that climbs out of it is refused.
    let output = install_hostile(&mirror, &["--allow-dir".into(), rw(&outer)], &[])?;
    ensure!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let escape = outer.join("escape");
    let ws = hostile_workspace(
        &mirror,
        &[("link", "symlink", format!("{} -> ../../../../../../../../..", escape.display()))],
    )?;
    ws.init()?;
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(
        run.error_summaries().iter().any(|e| e.starts_with("refused: symlink")),
        "the link was not refused\n{run}"
    );
    ensure!(fs::symlink_metadata(&escape).is_err(), "the escaping link exists\n{run}");

    // The grants file edited by hand to nest a grant (the attack: swap the inner directory for
    // a link to `/` in one run, read the host's files through it in the next): the provider
    // refuses to start, and nothing is swapped.
    edit_installed_grants(&mirror, &[rw(&outer), ro(&inner)])?;
    let ws = hostile_workspace(
        &mirror,
        &[
            ("swap", "rename", format!("{} -> {}", inner.display(), outer.join("moved").display())),
            ("link", "symlink", format!("{} -> ../../../../../../../../..", inner.display())),
        ],
    )?;
    ws.init()?;
    let run = ws.run_expect(APPLY, 1)?;
    let said = flat(&run.stderr);
    ensure!(said.contains("overlap"), "the provider did not refuse the nested grants\n{run}");
    ensure!(said.contains("grants file"), "the error does not say where to fix it\n{run}");
    // Shown as a diagnostic of its own, not inside Terraform's schema-loading error (which
    // adds two full stops of its own to whatever it wraps).
    ensure!(
        run.error_summaries() == ["Failed to load the provider component"],
        "the load error is not a diagnostic of its own\n{run}"
    );
    ensure!(!said.contains(".."), "the load error ends in '..'\n{run}");
    write_probes(&ws, &[("read", "read-file", inner.join("etc/passwd").display().to_string())])?;
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(!run.stdout.contains("read "), "the host's files were read\n{run}");
    ensure!(fs::read_to_string(inner.join("kept.txt"))? == "kept", "the inner grant was swapped");
    Ok(())
}

#[test]
fn grants_covering_the_mirror_the_cache_or_the_working_directory_are_refused() -> anyhow::Result<()>
{
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let project = root.join("project");
    let mirror = project.join("mirror");
    fs::create_dir_all(&mirror)?;
    let rw = |p: &Path| format!("{}:rw", p.display());

    // A project-local mirror under a read-write grant: refused at install, saying why.
    let output = install_hostile(&mirror, &["--allow-dir".into(), rw(&project)], &[])?;
    expect_install_refused(&output, &mirror, &["covers the provider mirror", "grants file"])?;

    // The compiled-component cache, even read-only: refused at install.
    let cache_home = root.join("cache-home");
    fs::create_dir_all(&cache_home)?;
    let output = install_hostile(
        &mirror,
        &["--allow-dir".into(), format!("{}:ro", cache_home.display())],
        &[("XDG_CACHE_HOME", &cache_home)],
    )?;
    expect_install_refused(&output, &mirror, &["compiled-component cache", "XDG_CACHE_HOME"])?;

    // The same grant written into the grants file by hand: the provider refuses to start, so
    // it can rewrite neither its grants nor its executable (which terraform runs natively).
    let output = install_hostile(&mirror, &[], &[])?;
    ensure!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let grants = edit_installed_grants(&mirror, &[rw(&project)])?;
    let grants_text = fs::read_to_string(&grants)?;
    let package = grants.parent().context("package dir")?.to_path_buf();
    let executable = fs::read_dir(&package)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("terraform-provider-"))
        })
        .context("the installed executable")?;
    let ws = hostile_workspace(
        &mirror,
        &[
            ("grants", "write-file", grants.display().to_string()),
            (
                "exe",
                "rename",
                format!("{} -> {}.aside", executable.display(), executable.display()),
            ),
        ],
    )?;
    ws.init()?;
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(flat(&run.stderr).contains("covers this provider's installed package"), "{run}");
    ensure!(fs::read_to_string(&grants)? == grants_text, "the provider rewrote its grants");
    ensure!(executable.exists(), "the provider moved its executable");

    // Terraform's working directory: only known when terraform starts the provider.
    let ws = hostile_workspace(&mirror, &[])?;
    let evil = ws.config_dir().join("evil.tf");
    edit_installed_grants(&mirror, &[rw(&ws.config_dir().canonicalize()?)])?;
    write_probes(&ws, &[("tf", "write-file", evil.display().to_string())])?;
    ws.init()?;
    let run = ws.run_expect(APPLY, 1)?;
    ensure!(flat(&run.stderr).contains("covers Terraform's working directory"), "{run}");
    ensure!(!evil.exists(), "the provider wrote a .tf file into the working directory");
    Ok(())
}

#[test]
fn a_mistyped_mode_or_a_missing_directory_is_refused_at_install() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let root = scratch.path().canonicalize()?;
    let mirror = root.join("mirror");
    let data = root.join("data");
    fs::create_dir(&data)?;
    let output =
        install_hostile(&mirror, &["--allow-dir".into(), format!("{}:rx", data.display())], &[])?;
    expect_install_refused(&output, &mirror, &["unknown access mode \"rx\"", "use ro"])?;
    let missing = root.join("not-there");
    let output = install_hostile(
        &mirror,
        &["--allow-dir".into(), format!("{}:rw", missing.display())],
        &[],
    )?;
    expect_install_refused(&output, &mirror, &["does not exist", "create it first"])?;
    Ok(())
}

//! `terrarium new`: the crate it generates, in a directory outside the repository, builds to a
//! component and passes its own tests as generated (`make test`: the Harness unit tests, then
//! the acceptance test, a real terraform against the built component through the public
//! terrarium-acctest). Its SDK dependencies point at this checkout (`--sdk-path`), and the
//! workspace's lock file pins the same crate versions, so the build needs no network.
//!
//! The same crate then goes the whole way to its users: `make package`, `terrarium registry
//! serve`, and `terraform init` + `apply` from that registry.
//!
//! The first run compiles the SDK and its dependencies twice (wasm32-wasip2 and native) into
//! `target/scaffold` (a few minutes on two cores); later runs reuse it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context as _, ensure};
use terrarium_tests::registry::{RegistryServer, lock_hashes};
use terrarium_tests::workspace::{TERRAFORM_TIMEOUT, run_with_timeout};
use terrarium_tests::{Artifacts, Workspace};

/// The provider's name: the crate is `terraform-provider-scaffolded`.
pub const NAME: &str = "scaffolded";

/// A crate `terrarium new` generated, in a temporary directory outside the repository.
pub struct Generated {
    _root: tempfile::TempDir,
    pub dir: PathBuf,
    /// The cargo target directory its builds use (kept between test runs).
    pub target_dir: PathBuf,
}

impl Generated {
    /// Runs `terrarium new NAME --dir ... --sdk-path REPO` (with `extra` arguments).
    pub fn new(extra: &[&str]) -> anyhow::Result<Generated> {
        let artifacts = Artifacts::get()?;
        let root = tempfile::Builder::new().prefix("terrarium-new-").tempdir()?;
        ensure!(
            !root.path().starts_with(&artifacts.repo_root),
            "{} is inside the repository",
            root.path().display()
        );
        let dir = root.path().join(format!("terraform-provider-{NAME}"));
        let output = Command::new(artifacts.terrarium()?)
            .args(["new", NAME, "--dir"])
            .arg(&dir)
            .arg("--sdk-path")
            .arg(&artifacts.repo_root)
            .args(extra)
            .stdin(Stdio::null())
            .output()?;
        ensure!(
            output.status.success(),
            "terrarium new failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        // The same versions of serde, wit-bindgen, ... as the workspace, all in cargo's cache.
        std::fs::copy(artifacts.repo_root.join("Cargo.lock"), dir.join("Cargo.lock"))?;
        let target_dir = artifacts
            .components_dir
            .parent()
            .and_then(Path::parent)
            .context("the components directory is not TARGET/wasm32-wasip2/PROFILE")?
            .join("scaffold");
        Ok(Generated { _root: root, dir, target_dir })
    }

    /// `make TARGET` in the crate, with this build's terraform and terrarium, offline;
    /// its stdout and stderr, or an error with both.
    pub fn make(&self, target: &str) -> anyhow::Result<String> {
        self.make_with(&[target], &[])
    }

    /// [`make`](Self::make) with more arguments (variables, options) and environment.
    pub fn make_with(&self, args: &[&str], env: &[(&str, &Path)]) -> anyhow::Result<String> {
        let artifacts = Artifacts::get()?;
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut command = Command::new("make");
        command
            .args(args)
            .envs(env.iter().copied())
            .arg(format!("CARGO={cargo}"))
            .arg(format!("TERRAFORM={}", artifacts.terraform.display()))
            .arg(format!("TERRARIUM={}", artifacts.terrarium()?.display()))
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target_dir)
            .env("CARGO_NET_OFFLINE", "true")
            .env("RUST_LIB_BACKTRACE", "0")
            .env_remove("TERRARIUM_BIN")
            .env_remove("TERRARIUM_COMPONENT");
        // Building the SDK from cold takes a while on a small machine; a hung build does not.
        let (code, stdout, stderr) = run_with_timeout(&mut command, TERRAFORM_TIMEOUT * 4)?;
        ensure!(code == Some(0), "make {args:?} exited {code:?}\n{stdout}\n{stderr}");
        Ok(format!("{stdout}\n{stderr}"))
    }

    /// The debug component `make build` leaves.
    pub fn component(&self) -> PathBuf {
        self.target_dir.join(format!("wasm32-wasip2/debug/terraform_provider_{NAME}.wasm"))
    }
}

#[test]
fn a_new_provider_builds_and_passes_its_own_tests_outside_the_repository() -> anyhow::Result<()> {
    let generated = Generated::new(&[])?;
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "tests/acceptance.rs",
        "README.md",
        "Makefile",
        ".cargo/config.toml",
        "examples/resources/scaffolded_example/resource.tf",
    ] {
        ensure!(generated.dir.join(file).is_file(), "terrarium new wrote no {file}");
    }
    let output = generated.make("test")?;
    ensure!(generated.component().is_file(), "make test built no component\n{output}");
    // The unit tests (the SDK's Harness) and the acceptance test (terraform) all ran.
    for line in [
        "test tests::an_example_is_created_updated_and_replaced ... ok",
        "test tests::the_function_greets_and_refuses_an_empty_name ... ok",
        "test example_resource_data_source_and_function ... ok",
    ] {
        ensure!(output.contains(line), "no {line:?} in make test's output:\n{output}");
    }
    Ok(())
}

/// The whole path of an author's provider, outside the repository: `terrarium new`, `make
/// build`, `make package` (the generated Makefile's recipe) into a directory that `terrarium
/// registry serve` serves over HTTPS from its own CA, then a real `terraform init` from that
/// registry (the signature verified, the lock file's `h1:` and `zh:` hashes exactly those
/// `terrarium package` printed) and `terraform apply` of the resource, data source and function.
///
/// `make package` packages the debug component `make build` left (`-o release` skips the
/// release build, which would compile every dependency once more for nothing this test checks).
#[test]
fn a_new_provider_goes_through_a_registry_to_terraform_apply() -> anyhow::Result<()> {
    let generated = Generated::new(&[])?;
    generated.make("build")?;
    let dist = generated.dir.join("dist");
    std::fs::create_dir(&dist)?;
    let server = RegistryServer::start(&dist)?;
    let source = format!("{}/example/{NAME}", server.host);
    let config_home = generated.dir.join("config");
    let component = generated.component();
    let packaged = generated.make_with(
        &[
            "-o",
            "release",
            "package",
            &format!("SOURCE={source}"),
            &format!("RELEASE_COMPONENT={}", component.display()),
        ],
        &[("XDG_CONFIG_HOME", &config_home)],
    )?;
    init_and_apply_from_registry(&server, &source, &packaged)
}

/// A real `terraform init` of `source` 0.1.0 from `server` (the signature verified, the lock
/// file's `h1:` and `zh:` hashes exactly those `terrarium package` printed in `packaged`), then
/// `terraform apply` of the scaffold's resource, data source and function.
fn init_and_apply_from_registry(
    server: &RegistryServer,
    source: &str,
    packaged: &str,
) -> anyhow::Result<()> {
    let expected = lock_hashes(packaged, source)?;
    // One h1 for linux_amd64; one zh per file SHA256SUMS lists (the zip and the manifest).
    assert_eq!(
        expected.iter().map(|h| &h[..3]).collect::<Vec<_>>(),
        ["h1:", "zh:", "zh:"],
        "{packaged}"
    );

    let workspace = Workspace::with_cli_config(
        "disable_checkpoint = true\n\nprovider_installation {\n  direct {}\n}\n",
    )?;
    workspace.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {NAME} = {{\n      source  = \"{source}\"\n      \
             version = \"0.1.0\"\n    }}\n  }}\n}}\n\n\
             resource \"{NAME}_example\" \"this\" {{\n  name = \"world\"\n}}\n\n\
             data \"{NAME}_example\" \"this\" {{\n  name = {NAME}_example.this.name\n}}\n\n\
             output \"greeting\" {{\n  value = provider::{NAME}::greet(data.{NAME}_example.this.name)\n}}\n"
        ),
    )?;
    let ca_file = server.ca_file.to_string_lossy();
    let env = [("SSL_CERT_FILE", ca_file.as_ref())];
    let init = workspace.run_with_env(&["init", "-input=false", "-no-color"], &env)?;
    ensure!(init.code == Some(0), "init from the registry failed\n{init}");
    // Signed with the key `terrarium package` made for this author, which the registry served.
    ensure!(
        init.stdout.contains(&format!("Installed {source} v0.1.0 (self-signed, key ID")),
        "{init}"
    );
    assert_eq!(lock_hashes(&workspace.read(".terraform.lock.hcl")?, source)?, expected);
    let apply =
        workspace.run_with_env(&["apply", "-auto-approve", "-input=false", "-no-color"], &env)?;
    ensure!(apply.code == Some(0), "apply failed\n{apply}");
    ensure!(apply.stdout.contains("1 added"), "{apply}");
    ensure!(apply.stdout.contains("greeting = \"Hello, world!\""), "{apply}");
    Ok(())
}

#[test]
fn new_refuses_a_missing_checkout_and_a_non_empty_directory() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let root = tempfile::tempdir()?;
    let new = |args: &[&str]| -> anyhow::Result<(bool, String)> {
        let output = Command::new(artifacts.terrarium()?)
            .arg("new")
            .args(args)
            .current_dir(root.path())
            .stdin(Stdio::null())
            .output()?;
        Ok((output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned()))
    };
    for lang in ["python", "typescript", "go"] {
        let (ok, stderr) = new(&["pets", "--lang", lang])?;
        ensure!(!ok && stderr.contains(&format!("--lang {lang} needs --sdk-path DIR")), "{stderr}");
        ensure!(!root.path().join("terraform-provider-pets").exists(), "--lang {lang} wrote files");
    }
    // A directory that is not a checkout (it has no guest-sdk/js) is named as such.
    let (ok, stderr) =
        new(&["pets", "--lang", "typescript", "--sdk-path", &root.path().to_string_lossy()])?;
    ensure!(!ok && stderr.contains("not a Terrarium checkout (no guest-sdk/js"), "{stderr}");
    let (ok, stderr) = new(&["pets"])?;
    ensure!(ok, "{stderr}");
    let (ok, stderr) = new(&["pets"])?;
    ensure!(!ok && stderr.contains("already exists and is not empty"), "{stderr}");
    Ok(())
}

/// Runs `terrarium new NAME --lang LANG --dir ... --sdk-path REPO` in a temporary directory
/// outside the repository; the directory (removed when dropped) and the project in it.
fn new_project(lang: &str, files: &[&str]) -> anyhow::Result<(tempfile::TempDir, PathBuf)> {
    let artifacts = Artifacts::get()?;
    let root = tempfile::Builder::new().prefix("terrarium-new-").tempdir()?;
    ensure!(!root.path().starts_with(&artifacts.repo_root), "the temp dir is in the repository");
    let dir = root.path().join(format!("terraform-provider-{NAME}"));
    let output = Command::new(artifacts.terrarium()?)
        .args(["new", NAME, "--lang", lang, "--dir"])
        .arg(&dir)
        .arg("--sdk-path")
        .arg(&artifacts.repo_root)
        .stdin(Stdio::null())
        .output()?;
    ensure!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for file in files {
        ensure!(dir.join(file).is_file(), "terrarium new --lang {lang} wrote no {file}");
    }
    Ok((root, dir))
}

/// `make test` in `dir` with this build's terrarium; its stdout, or an error with its output.
fn make_test(dir: &Path, configure: impl FnOnce(&mut Command)) -> anyhow::Result<String> {
    make_in(dir, &["test"], configure)
}

/// `make ARGS` in `dir` with this build's terrarium; its stdout, or an error with its output.
fn make_in(
    dir: &Path,
    args: &[&str],
    configure: impl FnOnce(&mut Command),
) -> anyhow::Result<String> {
    let artifacts = Artifacts::get()?;
    let mut make = Command::new("make");
    make.args(args)
        .arg(format!("TERRARIUM={}", artifacts.terrarium()?.display()))
        .current_dir(dir)
        .env("TMPDIR", &artifacts.scratch_root)
        .env_remove("TERRARIUM_BIN")
        .stdin(Stdio::null());
    configure(&mut make);
    let (code, stdout, stderr) = run_with_timeout(&mut make, TERRAFORM_TIMEOUT * 4)?;
    ensure!(code == Some(0), "make {args:?} exited {code:?}\n{stdout}\n{stderr}");
    ensure!(dir.join(format!("target/{NAME}.wasm")).is_file(), "make {args:?} built no component");
    Ok(format!("{stdout}\n{stderr}"))
}

/// `make package` of the project `terrarium new --lang LANG` wrote in `dir`, with the component
/// its `make test` built (`-o build`: not built again), into a registry this test serves, then
/// [`init_and_apply_from_registry`]: the whole path of an author, after their own tests.
fn package_and_apply(dir: &Path) -> anyhow::Result<()> {
    let dist = dir.join("dist");
    std::fs::create_dir(&dist)?;
    let server = RegistryServer::start(&dist)?;
    let source = format!("{}/example/{NAME}", server.host);
    let config_home = dir.join("config");
    let args = ["-o", "build", "package", &format!("SOURCE={source}")];
    let packaged = make_in(dir, &args, |make| {
        make.env("XDG_CONFIG_HOME", &config_home);
    })?;
    init_and_apply_from_registry(&server, &source, &packaged)
}

/// `terrarium new --lang python`, outside the repository: the project builds with this
/// checkout's Python SDK (`--sdk-path`, put on PYTHONPATH by its Makefile), its Harness tests
/// pass through this build's `terrarium harness` and its acceptance test through a real
/// terraform (`terrarium.acctest`), as generated. Then the component goes through a registry
/// to `terraform apply` ([`package_and_apply`]). Uses the repository's
/// `.venv` (componentize-py and pytest), as the Python SDK's own tests do.
#[test]
fn a_new_python_provider_builds_and_passes_its_own_tests_outside_the_repository()
-> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let python = artifacts.repo_root.join(".venv/bin/python3");
    ensure!(python.is_file(), "{} is missing; run scripts/setup", python.display());
    let files = ["provider.py", "test_provider.py", "test_acceptance.py", "README.md", "Makefile"];
    let (_root, dir) = new_project("python", &files)?;
    let stdout = make_test(&dir, |make| {
        make.arg(format!("PYTHON={}", python.display()))
            .arg(format!("TERRAFORM={}", artifacts.terraform.display()))
            .env_remove("PYTHONPATH");
    })?;
    // The four Harness tests and the acceptance test (a real terraform, three steps) passed.
    ensure!(stdout.contains("5 passed"), "no \"5 passed\" in make test's output:\n{stdout}");
    ensure!(stdout.contains("test_acceptance.py ."), "the acceptance test did not run:\n{stdout}");
    package_and_apply(&dir)
}

/// `terrarium new --lang typescript`, outside the repository: the project depends on this
/// checkout's guest-sdk/js (a `file:` dependency, which `npm install` links, offline: nothing
/// is downloaded), `make test` type-checks and builds the component with the checkout's
/// toolchain (componentize-js, most of this test's minute), its Harness tests pass through
/// this build's `terrarium harness` and its acceptance test through a real terraform
/// (`@terrarium/sdk/acctest`), as generated. Then the component goes through a registry to
/// `terraform apply` ([`package_and_apply`]).
#[test]
fn a_new_typescript_provider_builds_and_passes_its_own_tests_outside_the_repository()
-> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let toolchain = artifacts.repo_root.join("guest-sdk/js/node_modules/.bin/componentize-js");
    ensure!(toolchain.is_file(), "{} is missing; run scripts/setup", toolchain.display());
    let files = [
        "src/provider.ts",
        "test/provider.test.ts",
        "test/acceptance.test.ts",
        "package.json",
        "README.md",
        "Makefile",
    ];
    let (_root, dir) = new_project("typescript", &files)?;
    let stdout = make_test(&dir, |make| {
        make.arg(format!("TERRAFORM={}", artifacts.terraform.display()))
            .env("npm_config_offline", "true");
    })?;
    ensure!(
        dir.join("node_modules/@terrarium/sdk").canonicalize()?
            == artifacts.repo_root.join("guest-sdk/js").canonicalize()?,
        "npm install did not link @terrarium/sdk to the checkout"
    );
    // node's test runner reports in TAP when its output is not a terminal: the four Harness
    // tests and the acceptance test (a real terraform, three steps) passed.
    for line in ["# pass 5", "# fail 0"] {
        ensure!(stdout.contains(line), "no {line:?} in make test's output:\n{stdout}");
    }
    let acceptance = "- the example resource, data source and function through terraform";
    ensure!(
        stdout.lines().any(|l| l.trim_start().starts_with("ok ") && l.ends_with(acceptance)),
        "the acceptance test did not pass:\n{stdout}"
    );
    package_and_apply(&dir)
}

/// `terrarium new --lang go`, outside the repository: the module replaces terrarium.dev/sdk
/// with this checkout's guest-sdk/go, `make test` builds the component with the checkout's
/// scripts/go-component (stock Go for wasip1, wasm-tools, the reactor adapter) and runs `go
/// test` as generated: the Harness tests through this build's `terrarium harness`, and the
/// acceptance test, a real terraform applying its three steps through `terrarium install`.
/// Then the component goes through a registry to `terraform apply` ([`package_and_apply`]).
/// Most of its minute is the acceptance test's first load of the component (Cranelift).
#[test]
fn a_new_go_provider_builds_and_passes_its_own_tests_outside_the_repository() -> anyhow::Result<()>
{
    let artifacts = Artifacts::get()?;
    let files =
        ["main.go", "provider_test.go", "acceptance_test.go", "go.mod", "README.md", "Makefile"];
    let (_root, dir) = new_project("go", &files)?;
    let stdout = make_test(&dir, |make| {
        make.arg(format!("TERRAFORM={}", artifacts.terraform.display()));
    })?;
    for test in [
        "TestAnExampleIsCreatedUpdatedAndReplaced",
        "TestAnEmptyNameIsRefusedAtTheAttribute",
        "TestTheDataSourceGreets",
        "TestTheFunctionGreetsAndRefusesAnEmptyName",
        "TestExampleResourceDataSourceAndFunction",
    ] {
        ensure!(stdout.contains(&format!("--- PASS: {test} ")), "{test} did not pass:\n{stdout}");
    }
    package_and_apply(&dir)
}

/// `make dev`'s recipe in a new Go provider, as generated: `terrarium dev` builds it with the
/// Makefile's build command and serves it to terraform's debug mode; an edit of main.go is rebuilt
/// and reloaded, and the next plan in the same session (nothing re-exported) shows it.
#[test]
fn a_new_go_provider_reloads_an_edit_under_make_dev() -> anyhow::Result<()> {
    let artifacts = Artifacts::get()?;
    let (root, dir) = new_project("go", &["main.go", "Makefile"])?;
    // The Makefile's recipe, run with `exec` so that the dev server is this test's child
    // (the reattach line names its pid); scripts/go-component sets GOTOOLCHAIN itself.
    let recipe = Command::new("make")
        .args(["-s", "-n", "dev"])
        .arg(format!("TERRARIUM={}", artifacts.terrarium()?.display()))
        .current_dir(&dir)
        .output()?;
    ensure!(recipe.status.success(), "make -n dev: {}", String::from_utf8_lossy(&recipe.stderr));
    let recipe = String::from_utf8(recipe.stdout)?;
    ensure!(recipe.trim().lines().count() == 1, "make dev is not one command:\n{recipe}");
    let mut command = Command::new("bash");
    command
        .args(["-c", &format!("exec {}", recipe.trim())])
        .current_dir(&dir)
        .env_remove("TERRARIUM_BIN");
    // The log goes beside the project, not into the directory `make dev` watches.
    let log = root.path().join("dev.log");
    let server = crate::dev::DevServer::spawn(command, &format!("example/{NAME}"), log)?;

    let ws = Workspace::with_cli_config("disable_checkpoint = true\n")?;
    ws.write(
        "main.tf",
        &format!(
            "terraform {{\n  required_providers {{\n    {NAME} = {{ source = \"example/{NAME}\" }}\n  \
             }}\n}}\n\noutput \"greeting\" {{\n  value = provider::{NAME}::greet(\"world\")\n}}\n"
        ),
    )?;
    let planned = |ws: &Workspace| -> anyhow::Result<String> {
        let plan = server.run(ws, &["plan", "-input=false", "-no-color", "-out", "tfplan"])?;
        ensure!(plan.code == Some(0), "{plan}\n--- dev log ---\n{}", server.log_text());
        let show = server.run(ws, &["show", "-json", "tfplan"])?;
        let plan: serde_json::Value = serde_json::from_str(&show.stdout)?;
        Ok(plan["planned_values"]["outputs"]["greeting"]["value"].as_str().unwrap_or("").to_owned())
    };
    let init = server.run(&ws, &["init", "-input=false", "-no-color"])?;
    ensure!(init.code == Some(0), "{init}");
    assert_eq!(planned(&ws)?, "Hello, world!");

    let main_go = dir.join("main.go");
    let text = std::fs::read_to_string(&main_go)?;
    ensure!(text.contains("return greeting(\"Hello\", name), nil"), "the template changed");
    std::fs::write(
        &main_go,
        text.replace(
            "return greeting(\"Hello\", name), nil",
            "return greeting(\"Howdy\", name), nil",
        ),
    )?;
    let deadline = std::time::Instant::now() + TERRAFORM_TIMEOUT * 4;
    while !server.log_text().contains("reloaded:") {
        ensure!(
            std::time::Instant::now() < deadline,
            "make dev never reloaded the edit\n{}",
            server.log_text()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert_eq!(planned(&ws)?, "Howdy, world!");
    Ok(())
}

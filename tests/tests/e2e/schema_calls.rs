//! The host declares `get_provider_schema_optional`, so within one terraform command only the
//! first provider process is asked for the (large) schema; every later process, one per
//! provider configuration and graph walk, is answered from terraform's own cache.
//! `TERRARIUM_SCHEMA_OPTIONAL=0` turns the declaration off, and then every process is asked.
//!
//! Counted from terraform's own trace log (`TF_LOG=trace`, `internal/plugin6/grpc_provider.go`):
//! `GRPCProvider.v6: GetProviderSchema` is logged when terraform's process-wide cache did not
//! answer (each process then asks its provider once), `GRPCProvider.v6: returning cached schema`
//! when it did, and go-plugin logs `starting plugin` for every provider process.

use std::fs;

use anyhow::{Context as _, ensure};
use terrarium_tests::mirror::required_providers;
use terrarium_tests::{Provider, Workspace};

/// Two configurations of one provider, each with a resource, and a provider function: terraform
/// starts a process for the schema, one per configuration per walk, and one for functions.
const CONFIG_TF: &str = r#"
provider "random" {}

provider "random" {
  alias = "second"
}

resource "random_string" "first" {
  length = 8
}

resource "random_string" "second" {
  provider = random.second
  length   = 8
}

resource "random_integer" "third" {
  provider = random.second
  min      = 1
  max      = 6
}

output "uuid" {
  value = provider::random::uuid_v5("dns", "example.com")
}
"#;

/// What one traced terraform command did with the provider's schema.
#[derive(Debug)]
struct SchemaCalls {
    /// Times terraform's schema cache did not answer and it went to a provider process.
    uncached: usize,
    /// Times the cache answered instead.
    cached: usize,
    /// Provider processes started.
    processes: usize,
}

fn traced_plan(ws: &Workspace, name: &str, env: &[(&str, &str)]) -> anyhow::Result<SchemaCalls> {
    let log_path = ws.root().join(format!("{name}.log"));
    let log_path_text = log_path.to_string_lossy().into_owned();
    let mut all_env = vec![("TF_LOG", "trace"), ("TF_LOG_PATH", log_path_text.as_str())];
    all_env.extend_from_slice(env);
    let run =
        ws.run_with_env(&["plan", "-input=false", "-no-color", "-detailed-exitcode"], &all_env)?;
    ensure!(run.code == Some(0), "plan ({name}) is not empty or failed\n{run}");
    let log =
        fs::read_to_string(&log_path).with_context(|| format!("reading {}", log_path.display()))?;
    let count = |needle: &str| log.lines().filter(|l| l.contains(needle)).count();
    let provider_executable = format!("terraform-provider-{}", Provider::Random.local_name());
    Ok(SchemaCalls {
        uncached: count("GRPCProvider.v6: GetProviderSchema"),
        cached: count("GRPCProvider.v6: returning cached schema"),
        processes: log
            .lines()
            .filter(|l| l.contains("starting plugin") && l.contains(&provider_executable))
            .count(),
    })
}

#[test]
fn terraform_asks_for_the_schema_once_per_command_unless_the_host_is_told_otherwise()
-> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::Random])?;
    ws.write("main.tf", &format!("{}{CONFIG_TF}", required_providers(&[Provider::Random])))?;
    ws.init()?;
    ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;

    let optional = traced_plan(&ws, "optional", &[])?;
    let required = traced_plan(&ws, "required", &[("TERRARIUM_SCHEMA_OPTIONAL", "0")])?;

    // Both runs start the same processes: the configuration decides that, not the flag.
    ensure!(
        optional.processes >= 3 && optional.processes == required.processes,
        "provider processes: {optional:?} with the declaration, {required:?} without"
    );
    // Declared: the first process is asked, every later question is answered from the cache.
    ensure!(
        optional.uncached == 1 && optional.cached > 0,
        "with get_provider_schema_optional terraform asked {} times: {optional:?}",
        optional.uncached
    );
    // Not declared: the cache may never answer, so each process that serves a call is asked.
    ensure!(
        required.cached == 0 && required.uncached > 1,
        "with TERRARIUM_SCHEMA_OPTIONAL=0 the cache still answered: {required:?}"
    );
    Ok(())
}

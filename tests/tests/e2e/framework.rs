//! An existing terraform-plugin-framework provider as a component: examples/pets/framework
//! (the pets of examples/pets/SPEC.md on terraform-plugin-framework v1.19) built twice from the
//! same source, as an ordinary native provider binary and as a component served through
//! guest-sdk/go/tfprotov6adapter. Both go through every step of the pets conformance suite
//! with real terraform: the native build must meet the spec, and the component must show
//! exactly the same human plans, plan JSON, states and diagnostics (errors included). Beyond
//! the spec, its list resource, action and generated configuration go through both too.

use std::collections::BTreeMap;

use anyhow::ensure;
use serde_json::{Value, json};
use terrarium_tests::Provider;
use terrarium_tests::json::{pretty, state_resource};

use crate::pets::{conformance, pets_workspace, write_config};

#[test]
fn the_framework_pets_behave_the_same_natively_and_as_a_component() -> anyhow::Result<()> {
    conformance(&[Provider::PetsFrameworkNative, Provider::PetsFramework])
}

/// What terraform showed of the framework pets' `pets_tag` and `pets_feed` (beyond the spec:
/// examples/pets/framework/tags.go) through one build.
fn tags_and_feeding(provider: Provider) -> anyhow::Result<Value> {
    let (_scratch, dir, ws) = pets_workspace(provider)?;
    write_config(
        &ws,
        provider,
        &dir,
        "\nimport {\n  to = pets_tag.seven\n  id = \"tag-7\"\n}\n\n\
         action \"pets_feed\" \"rex\" {\n  config {\n    pet   = \"rex\"\n    times = 2\n  }\n}\n",
    )?;
    let list = |name: &str, extra: &str| {
        format!(
            "list \"pets_tag\" \"{name}\" {{\n  provider = pets\n{extra}  config {{\n    up_to = 3\n  }}\n}}\n\n"
        )
    };
    ws.write(
        "tags.tfquery.hcl",
        &[
            list("all", ""),
            list("first", "  limit = 1\n"),
            list("objects", "  include_resource = true\n"),
        ]
        .concat(),
    )?;
    ws.init()?;

    // ListResource, streamed.
    let query = ws.run(&["query", "-json", "-no-color"])?;
    ensure!(query.code == Some(0), "terraform query -json failed\n{query}");
    // By list block: terraform runs the blocks at once, so only each block's order is stable.
    let mut found: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for line in query.json_lines()? {
        let (event, item) = match line["type"].as_str() {
            Some("list_resource_found") => ("found", &line["list_resource_found"]),
            Some("list_complete") => ("complete", &line["list_complete"]),
            _ => continue,
        };
        let address = item["address"].as_str().unwrap_or_default().to_owned();
        found.entry(address).or_default().push(json!({ event: item }));
    }
    let items: usize = found.values().map(|v| v.len()).sum();
    ensure!(items == 3 + 1 + 3 + 3, "terraform query did not find 3 + 1 + 3 tags\n{query}");

    // GenerateResourceConfig, for an import block by id; the generated block imports as is.
    let plan =
        ws.run(&["plan", "-generate-config-out=generated.tf", "-input=false", "-no-color"])?;
    ensure!(plan.code == Some(0), "plan -generate-config-out failed\n{plan}");
    let generated: Vec<String> = ws
        .read("generated.tf")?
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let apply = ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    ensure!(apply.stdout.contains("1 imported, 0 added, 0 changed, 0 destroyed"), "{apply}");
    let state = ws.state_json()?;
    let tag = state_resource(&state, "pets_tag.seven")?;

    // InvokeAction, its progress streamed.
    let invoked = ws.ok(&[
        "apply",
        "-invoke=action.pets_feed.rex",
        "-auto-approve",
        "-input=false",
        "-no-color",
    ])?;
    let progress: Vec<&str> =
        invoked.stdout.lines().filter(|l| l.contains("feeding rex")).map(str::trim).collect();
    ensure!(progress.len() == 2, "the action's progress is not shown\n{invoked}");
    Ok(json!({
        "query": found,
        "generated": generated,
        "imported": { "values": tag["values"], "identity": tag["identity"] },
        "progress": progress,
    }))
}

/// Beyond the spec, what the adapter serves as streams or on request: list resources
/// (`terraform query`), configuration generated for an import (GenerateResourceConfig) and an
/// action's progress (`terraform apply -invoke`) are the same through the component as
/// natively.
#[test]
fn the_framework_lists_generates_and_invokes_the_same_as_a_component() -> anyhow::Result<()> {
    let native = tags_and_feeding(Provider::PetsFrameworkNative)?;
    let component = tags_and_feeding(Provider::PetsFramework)?;
    ensure!(
        native == component,
        "the component differs from the native build:\n--- native\n{}\n--- component\n{}",
        pretty(&native),
        pretty(&component)
    );
    Ok(())
}

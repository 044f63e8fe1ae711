//! `moved` across resource types through real terraform: examples/random's `random_string`
//! becomes a `random_password` (MoveResourceState), keeping the string it drew.

use anyhow::{Context as _, ensure};
use serde_json::json;
use terrarium_tests::json::{plan_actions, pretty, state_resource, state_resources, state_values};
use terrarium_tests::mirror::required_providers;
use terrarium_tests::{Provider, Workspace};

const STRING_TF: &str = r#"
resource "random_string" "x" {
  length  = 20
  special = false
}
"#;

const PASSWORD_TF: &str = r#"
resource "random_password" "x" {
  length  = 20
  special = false
}

moved {
  from = random_string.x
  to   = random_password.x
}
"#;

#[test]
fn a_random_string_moves_to_a_random_password_and_keeps_its_result() -> anyhow::Result<()> {
    let ws = Workspace::new(&[Provider::Random])?;
    let required = required_providers(&[Provider::Random]);
    ws.write("main.tf", &format!("{required}{STRING_TF}"))?;
    ws.init()?;
    ws.ok(&["apply", "-auto-approve", "-input=false", "-no-color"])?;
    let state = ws.state_json()?;
    let drawn = state_values(&state, "random_string.x")?["result"]
        .as_str()
        .context("no random_string result")?
        .to_owned();
    ensure!(drawn.chars().count() == 20, "result {drawn:?}");

    ws.write("main.tf", &format!("{required}{PASSWORD_TF}"))?;
    let (run, plan) = ws.plan_json(&[])?;
    ensure!(
        run.stdout.contains("# random_string.x has moved to random_password.x"),
        "the plan does not show the move\n{run}"
    );
    ensure!(
        !run.stdout.contains("must be replaced") && !run.stdout.contains("will be created"),
        "the move replaces the resource\n{run}"
    );
    let change = plan["resource_changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["address"] == "random_password.x"))
        .with_context(|| format!("no change for random_password.x: {:?}", plan_actions(&plan)))?;
    ensure!(
        change["previous_address"] == "random_string.x"
            && (change["change"]["actions"] == json!(["no-op"])
                || change["change"]["actions"] == json!(["update"])),
        "{}",
        pretty(change)
    );
    // The moved state is a password's: its result is now hidden in the plan.
    ensure!(
        !run.stdout.contains(&drawn),
        "the plan shows the result, which is now sensitive\n{run}"
    );

    let apply = ws.ok(&["apply", "-input=false", "-no-color", "tfplan"])?;
    ensure!(apply.stdout.contains("0 added") && apply.stdout.contains("0 destroyed"), "{apply}");
    let state = ws.state_json()?;
    let addresses: Vec<String> =
        state_resources(&state).into_iter().map(|(address, _)| address).collect();
    ensure!(addresses == ["random_password.x"], "state holds {addresses:?}");
    let moved = state_resource(&state, "random_password.x")?;
    ensure!(
        moved["values"]["result"] == drawn.as_str(),
        "the move drew a new result: {}",
        pretty(moved)
    );
    ensure!(
        moved["sensitive_values"]["result"] == true,
        "the moved result is not sensitive: {}",
        pretty(moved)
    );
    // A password's id is not its secret: the moved state holds the string only as `result`.
    ensure!(
        moved.to_string().matches(drawn.as_str()).count() == 1,
        "the moved state holds the password outside `result`: {}",
        pretty(moved)
    );
    ensure!(
        moved["values"]["length"] == 20 && moved["values"]["special"] == false,
        "{}",
        pretty(moved)
    );

    // Nothing is left to do, with or without the moved block.
    let replan = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(replan.code == Some(0), "plan after the move is not empty\n{replan}");
    ws.write(
        "main.tf",
        &format!("{required}{}", PASSWORD_TF.split("moved").next().unwrap_or_default()),
    )?;
    let replan = ws.run(&["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    ensure!(replan.code == Some(0), "plan without the moved block is not empty\n{replan}");
    Ok(())
}

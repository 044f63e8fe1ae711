//! The public acceptance-test helper (`terrarium_acctest`: steps, checks, import, expected
//! errors, empty plan after apply, destroy) run as a provider author runs it, against
//! examples/random's component and this build's terraform and terrarium.

use anyhow::{Context as _, ensure};
use serde_json::{Value, json};
use terrarium_acctest::{Check, Step, TestCase, Tools};
use terrarium_tests::{Artifacts, Provider};

/// A test case against examples/random, installed as `terrarium/random` at its version.
fn random_case() -> anyhow::Result<TestCase> {
    let artifacts = Artifacts::get()?;
    let provider = Provider::Random;
    let component = artifacts.component(provider.component_crate().context("no component")?)?;
    let tools = Tools {
        terraform: artifacts.terraform.clone(),
        terrarium: artifacts.terrarium()?.to_owned(),
    };
    Ok(TestCase::new(
        terrarium_acctest::Provider::new(component, provider.short_source())
            .version(provider.version()),
    )
    .tools(tools))
}

#[test]
fn acceptance_steps_against_random() -> anyhow::Result<()> {
    let result_between = |low: i64, high: i64| {
        move |values: &Value| {
            let n = values["result"].as_i64().context("result is not a number")?;
            ensure!((low..=high).contains(&n), "result {n} is not in {low}..={high}");
            Ok(())
        }
    };
    random_case()?
        .step(
            Step::config(
                r#"resource "random_integer" "n" {
  min = 1
  max = 9
}"#,
            )
            .check(Check::attr("random_integer.n", "min", json!(1)))
            .check(Check::attr_set("random_integer.n", "id"))
            .check(Check::custom("random_integer.n", result_between(1, 9))),
        )
        .step(
            Step::config(
                r#"resource "random_integer" "n" {
  min = 1
  max = 99
}"#,
            )
            .check(Check::attr("random_integer.n", "max", json!(99)))
            .check(Check::custom("random_integer.n", result_between(1, 9))),
        )
        .step(
            Step::config(
                r#"resource "random_integer" "n" {
  min = 5
  max = 1
}"#,
            )
            .expect_error("max (1) must not be less than min (5)"),
        )
        .step(
            Step::config(
                r#"resource "random_string" "s" {
  length = 8
  upper  = false
}"#,
            )
            .check(Check::attr("random_string.s", "upper", json!(false)))
            .check(Check::attr("random_string.s", "lower", json!(true)))
            .check(Check::custom("random_string.s", |v| {
                let s = v["result"].as_str().context("no result")?;
                ensure!(
                    s.chars().count() == 8 && !s.chars().any(|c| c.is_ascii_uppercase()),
                    "{s}"
                );
                Ok(())
            })),
        )
        .step(
            Step::import(
                r#"resource "random_integer" "imported" {
  min = 1
  max = 20
}"#,
                "random_integer.imported",
                "15,1,20",
            )
            .check(Check::attr("random_integer.imported", "result", json!(15))),
        )
        .run()
}

#[test]
fn a_failing_check_fails_the_case() -> anyhow::Result<()> {
    let result = random_case()?
        .step(Step::config(r#"resource "random_uuid" "u" {}"#).check(Check::attr(
            "random_uuid.u",
            "result",
            json!("not-this"),
        )))
        .run();
    let error = format!("{:#}", result.expect_err("the check must fail"));
    assert!(
        error.contains("step 1: check failed") && error.contains("expected \"not-this\""),
        "{error}"
    );
    Ok(())
}

#[test]
fn a_case_ending_in_an_expected_error_destroys_what_it_applied() -> anyhow::Result<()> {
    random_case()?
        .step(Step::config(
            r#"resource "random_integer" "n" {
  min = 1
  max = 9
}"#,
        ))
        .step(
            Step::config(
                r#"resource "random_integer" "n" {
  min = 5
  max = 1
}"#,
            )
            .expect_error("max (1) must not be less than min (5)"),
        )
        .run()
}

//! What a person sees. Terraform can succeed and still show a person nothing useful: a plan
//! whose JSON form cannot be built prints `Failed to marshal plan to json` and exits 0, and
//! `terraform apply` then asks for approval of a plan it never showed. So every terraform
//! command the e2e tests run through [`Workspace`](crate::Workspace) is checked here:
//!
//! * no plan, apply or destroy may print `Failed to marshal` (or `error in marshaling`),
//!   whatever its exit code, and no command may print it, or an error diagnostic, while it
//!   exits 0;
//! * every `plan` is also saved and rendered with `terraform show -json PLANFILE` (a plan
//!   run without `-out` gets one), and every `apply` or `destroy` that plans for itself, or a
//!   `plan -json`, is preceded by the same plan in human form (`terraform plan`, no
//!   `-json`) and its `show -json`;
//! * the human plan shows the resource line of every change the JSON plan lists
//!   ("# random_string.s will be created", "must be replaced", "will be destroyed", ...).
//!
//! The extra runs write no trace log (`TF_LOG_PATH`): a test's log records its own commands.

use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::run::Run;

/// Text terraform prints when it cannot render a plan.
const MARSHAL_FAILURES: &[&str] = &["Failed to marshal", "error in marshaling"];

/// The plan file the checks save plans to, in the workspace root (outside the configuration).
const SHOWN_PLAN: &str = "shown.tfplan";

/// Flags of plan and apply that take their value as the next argument.
const FLAGS_WITH_VALUE: &[&str] = &[
    "-out",
    "-var",
    "-var-file",
    "-target",
    "-replace",
    "-parallelism",
    "-lock-timeout",
    "-state",
    "-state-out",
    "-backup",
    "-generate-config-out",
    "-invoke",
];

/// Where the checks run terraform: a [`Workspace`](crate::Workspace)'s directories, and
/// terraform runs in it without these checks.
pub(crate) trait Terraform {
    fn root(&self) -> &Path;
    fn config_dir(&self) -> &Path;
    fn run_unchecked(&self, args: &[&str], prepare: &dyn Fn(&mut Command)) -> anyhow::Result<Run>;
}

/// Runs terraform with `args` in `ws` and checks what a person sees (see the module docs).
pub(crate) fn run_shown(
    ws: &dyn Terraform,
    args: &[&str],
    prepare: &dyn Fn(&mut Command),
) -> anyhow::Result<Run> {
    let extra = |command: &mut Command| {
        prepare(command);
        command.env_remove("TF_LOG").env_remove("TF_LOG_PATH");
    };
    let saved_plan = ws.root().join(SHOWN_PLAN);
    let saved_plan_text = saved_plan.to_string_lossy().into_owned();
    let (command, rest) = match args.split_first() {
        Some((command, rest)) => (*command, rest),
        None => return checked(ws.run_unchecked(args, prepare)?),
    };
    let json = rest.contains(&"-json");
    match command {
        // The plan itself is the human form; it only needs saving to be shown as JSON.
        "plan" if !json => {
            let (args, plan_file) = match flag_value(rest, "-out") {
                Some(file) => (args.to_vec(), ws.config_dir().join(file)),
                None => {
                    let mut with_out = args.to_vec();
                    with_out.push("-out");
                    with_out.push(&saved_plan_text);
                    (with_out, saved_plan.clone())
                }
            };
            let run = checked(ws.run_unchecked(&args, prepare)?)?;
            if planned(&run) {
                show_plan(ws, &run, &plan_file, &extra)?;
            }
            Ok(run)
        }
        "plan" | "apply" | "destroy" if !(command == "apply" && has_positional(rest)) => {
            let mut plan_args = vec!["plan", "-input=false", "-no-color", "-out", &saved_plan_text];
            if command == "destroy" {
                plan_args.push("-destroy");
            }
            plan_args.extend(plan_flags(rest));
            let human = checked(ws.run_unchecked(&plan_args, &extra)?)?;
            if planned(&human) {
                show_plan(ws, &human, &saved_plan, &extra)?;
            }
            let run = checked(ws.run_unchecked(args, prepare)?)?;
            if planned(&run) && !planned(&human) {
                bail!(
                    "terraform {} succeeded, but the same plan in human form failed:\n{human}",
                    args.join(" ")
                );
            }
            Ok(run)
        }
        _ => checked(ws.run_unchecked(args, prepare)?),
    }
}

/// Whether a plan or apply run succeeded (`-detailed-exitcode`'s 2 included).
fn planned(run: &Run) -> bool {
    let detailed = run.args.iter().any(|a| a == "-detailed-exitcode");
    run.code == Some(0) || (detailed && run.code == Some(2))
}

/// Refuses a plan that could not be rendered, and an error behind a success. (A command
/// that fails may say it cannot render something else: `terraform show -json` of a state
/// whose identity a provider upgrades only at plan time does.)
fn checked(run: Run) -> anyhow::Result<Run> {
    let all = format!("{}\n{}", run.stdout, run.stderr);
    let plans = matches!(run.args.first().map(String::as_str), Some("plan" | "apply" | "destroy"));
    if let Some(failure) = MARSHAL_FAILURES.iter().find(|f| all.contains(**f))
        && (plans || planned(&run))
    {
        bail!("terraform printed {failure:?}: a person cannot see this plan\n{run}");
    }
    if planned(&run) && shows_an_error(&all) {
        bail!("terraform printed an error but exited {:?}\n{run}", run.code);
    }
    Ok(run)
}

/// Whether human or `-json` output reports an error diagnostic.
fn shows_an_error(text: &str) -> bool {
    text.contains("\"@level\":\"error\"")
        || text.lines().any(|l| l.trim_start_matches(['│', '╷', '╵', ' ']).starts_with("Error: "))
}

/// `terraform show -json` of a saved plan must succeed, and the human plan `human` must show
/// the resource line of every change it lists.
fn show_plan(
    ws: &dyn Terraform,
    human: &Run,
    plan_file: &Path,
    extra: &dyn Fn(&mut Command),
) -> anyhow::Result<()> {
    let plan_file = plan_file.to_string_lossy();
    let show = checked(ws.run_unchecked(&["show", "-json", &plan_file], extra)?)?;
    if show.code != Some(0) {
        bail!("terraform show -json of the plan failed\n{show}\n--- the plan ---\n{human}");
    }
    let plan: Value = serde_json::from_str(&show.stdout)
        .with_context(|| format!("terraform show -json printed no JSON\n{show}"))?;
    let text = without_colour(&human.stdout);
    for (address, phrases) in expected_lines(&plan) {
        let shown = text.lines().any(|line| {
            line.contains(&format!("# {address} ")) && phrases.iter().any(|p| line.contains(p))
        });
        if !shown {
            bail!(
                "the plan lists a change of {address}, but the human plan has no line \"# {address} ... {}\"\n{human}",
                phrases.join("\" or \"")
            );
        }
    }
    Ok(())
}

/// `text` without ANSI colour sequences (a plan run without `-no-color` has them inside the
/// resource lines: "will be \x1b[1m\x1b[31mdestroyed").
pub fn without_colour(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, then one final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What the human plan says about each change `plan` (show -json) lists, by address.
pub fn expected_lines(plan: &Value) -> Vec<(String, &'static [&'static str])> {
    let mut lines = Vec::new();
    for change in plan["resource_changes"].as_array().into_iter().flatten() {
        let Some(address) = change["address"].as_str() else { continue };
        let actions: Vec<&str> = change["change"]["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let importing = !change["change"]["importing"].is_null();
        let phrases: &'static [&'static str] = match actions.as_slice() {
            ["create"] => &["will be created"],
            ["update"] => &["will be updated in-place"],
            ["delete"] => &["will be destroyed"],
            ["delete", "create"] | ["create", "delete"] => {
                &["must be replaced", "will be replaced"]
            }
            ["read"] => &["will be read during apply"],
            ["forget"] => &["will no longer be managed by Terraform"],
            ["no-op"] if importing => &["will be imported"],
            _ => continue,
        };
        lines.push((address.to_string(), phrases));
    }
    lines
}

/// The value of `flag` (`-flag=value` or `-flag value`), if given.
fn flag_value<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    let prefix = format!("{flag}=");
    args.iter().enumerate().find_map(|(i, a)| match a.strip_prefix(&prefix) {
        Some(value) => Some(value),
        None if *a == flag => args.get(i + 1).copied(),
        None => None,
    })
}

/// Whether `args` (of apply) name a saved plan: a word that is no flag's value.
fn has_positional(args: &[&str]) -> bool {
    let mut previous_takes_value = false;
    for a in args {
        if previous_takes_value {
            previous_takes_value = false;
        } else if a.starts_with('-') {
            previous_takes_value = FLAGS_WITH_VALUE.contains(a);
        } else {
            return true;
        }
    }
    false
}

/// The flags of a plan, apply or destroy that decide what is planned, for a plan in human
/// form: without output format, approval, exit-code and plan-file flags.
fn plan_flags<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let dropped = ["-json", "-auto-approve", "-detailed-exitcode", "-no-color", "-input=false"];
    let mut out = Vec::new();
    let mut skip_value = false;
    for a in args {
        if skip_value {
            skip_value = false;
        } else if *a == "-out" {
            skip_value = true;
        } else if !dropped.contains(a) && !a.starts_with("-out=") {
            out.push(*a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_change_has_the_line_a_person_reads() {
        let plan = json!({"resource_changes": [
            {"address": "a.x", "change": {"actions": ["create"]}},
            {"address": "a.y", "change": {"actions": ["delete", "create"]}},
            {"address": "a.z", "change": {"actions": ["no-op"]}},
            {"address": "a.i", "change": {"actions": ["no-op"], "importing": {"id": "1"}}},
            {"address": "a.d", "change": {"actions": ["delete"]}},
        ]});
        let lines = expected_lines(&plan);
        let addresses: Vec<&str> = lines.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(addresses, ["a.x", "a.y", "a.i", "a.d"]);
        assert_eq!(lines[1].1, ["must be replaced", "will be replaced"]);
    }

    #[test]
    fn a_saved_plan_is_told_from_flag_values() {
        assert!(has_positional(&["-input=false", "tfplan"]));
        assert!(!has_positional(&["-var", "x=1", "-auto-approve"]));
        assert_eq!(
            plan_flags(&["-auto-approve", "-var", "x=1", "-out", "f", "-refresh-only", "-json"]),
            ["-var", "x=1", "-refresh-only"]
        );
        assert_eq!(flag_value(&["-out=p"], "-out"), Some("p"));
        assert_eq!(flag_value(&["-out", "p"], "-out"), Some("p"));
    }

    #[test]
    fn colour_is_no_part_of_a_resource_line() {
        assert_eq!(
            without_colour("  # a.b will be \x1b[1m\x1b[31mdestroyed\x1b[0m"),
            "  # a.b will be destroyed"
        );
    }

    #[test]
    fn hidden_errors_are_seen_in_human_and_json_output() {
        assert!(shows_an_error("│ Error: Provider returned an invalid value\n"));
        assert!(shows_an_error(r#"{"@level":"error","@message":"Error: x"}"#));
        assert!(!shows_an_error("Plan: 1 to add, 0 to change, 0 to destroy.\n"));
    }
}

//! What one terraform command did, and what its output says.

use std::fmt;

use anyhow::{Context as _, bail};
use serde_json::Value;

/// What one terraform command did.
#[derive(Debug, Clone)]
pub struct Run {
    pub args: Vec<String>,
    /// The exit code; None if it was killed by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The summaries of the error diagnostics in (`-no-color`) human output, in order.
    pub fn error_summaries(&self) -> Vec<String> {
        diagnostic_summaries(&self.stderr, "Error: ")
    }

    /// The summaries of the warning diagnostics in (`-no-color`) human output, in order.
    pub fn warning_summaries(&self) -> Vec<String> {
        let mut all = diagnostic_summaries(&self.stdout, "Warning: ");
        all.extend(diagnostic_summaries(&self.stderr, "Warning: "));
        all
    }

    /// stdout as JSON lines (the streaming `-json` output of plan, apply, ...).
    pub fn json_lines(&self) -> anyhow::Result<Vec<Value>> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).with_context(|| format!("not a JSON line: {l}")))
            .collect()
    }

    /// Requires every line of `lines` in stdout: the resource lines a person should see in
    /// a plan ("# random_string.s will be created", "must be replaced", ...).
    pub fn shows(&self, lines: &[&str]) -> anyhow::Result<()> {
        for line in lines {
            if !self.stdout.contains(line) {
                bail!("terraform did not show {line:?}\n{self}");
            }
        }
        Ok(())
    }

    /// The `diagnostic` objects of streaming `-json` output.
    pub fn json_diagnostics(&self) -> anyhow::Result<Vec<Value>> {
        Ok(self
            .json_lines()?
            .into_iter()
            .filter(|line| line["type"] == "diagnostic")
            .map(|mut line| line["diagnostic"].take())
            .collect())
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "$ terraform {}  -> exit {:?}", self.args.join(" "), self.code)?;
        writeln!(f, "--- stdout ---\n{}", self.stdout.trim_end())?;
        write!(f, "--- stderr ---\n{}", self.stderr.trim_end())
    }
}

fn diagnostic_summaries(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.trim_start_matches(['│', '╷', '╵', ' ']))
        .filter_map(|l| l.strip_prefix(prefix))
        .map(|s| s.trim().to_owned())
        .collect()
}

//! Text a guest wrote, made safe to show to people: diagnostics, panic output, list display
//! names, action progress, function errors and log records all pass [`for_people`] (or
//! [`diagnostics`]) before they leave the host.
//!
//! A guest is untrusted, and its text ends up on the user's terminal (Terraform prints
//! diagnostics and progress as they are) and in `TF_LOG` files. Control characters there are
//! commands: an escape sequence can erase lines, set the window title, write the clipboard
//! (OSC 52) or draw a fake "Apply complete!"; a carriage return overwrites a line; bidi
//! overrides make text read differently from what it is; a newline in a log message forges a
//! log line. So every such character is written out visibly instead (`\u{1b}`), except
//! newlines and tabs in text Terraform shows as multi-line (diagnostic details, panic output).
//!
//! Sizes and counts are capped too, with a note saying what was cut, so a guest cannot make
//! Terraform print hundreds of megabytes or hundreds of thousands of messages.

use std::fmt::Write as _;

use terrarium_model::{AttributePath, Diagnostic, PathStep, Severity};

/// The longest diagnostic summary shown, in bytes (it is one line in Terraform's output).
pub const MAX_SUMMARY_BYTES: usize = 1024;
/// The longest diagnostic detail shown, in bytes.
pub const MAX_DETAIL_BYTES: usize = 64 * 1024;
/// The most diagnostics one response carries; the rest are replaced by one that counts them.
pub const MAX_DIAGNOSTICS: usize = 100;
/// The longest list-result display name, in bytes.
pub const MAX_DISPLAY_NAME_BYTES: usize = 1024;
/// The longest action progress message, in bytes.
pub const MAX_PROGRESS_BYTES: usize = 4096;
/// The longest function error text, in bytes.
pub const MAX_FUNCTION_ERROR_BYTES: usize = 64 * 1024;
/// The longest log message or field written for a guest, in bytes: within Terraform's 64 KiB
/// stderr line buffer, so a record is never split into fragments.
pub const MAX_LOG_BYTES: usize = 16 * 1024;
/// The longest path step name or key in a diagnostic's attribute path, in bytes.
const MAX_PATH_STEP_BYTES: usize = 1024;

/// Whether newlines and tabs are kept (text Terraform shows as a block) or escaped too (text
/// that must stay on one line: summaries, names, progress, log records).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    Multi,
    Single,
}

/// Whether `c` is shown as an escape: control characters (C0, DEL, C1), bidirectional
/// formatting characters, and line/paragraph separators; newline and tab only for
/// [`Lines::Single`].
fn needs_escape(c: char, lines: Lines) -> bool {
    match c {
        '\n' | '\t' => lines == Lines::Single,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidi marks, embeddings, overrides and isolates (Trojan Source), and the separators
        // some terminals treat as line breaks.
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        '\u{2028}' | '\u{2029}' => true,
        _ => false,
    }
}

/// `text` with every character that could act on a terminal or a log written out visibly
/// (`\u{1b}`), cut at `max_bytes` (of the escaped text) with a note saying how much was cut.
pub fn for_people(text: &str, lines: Lines, max_bytes: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_bytes) + 16);
    for (at, c) in text.char_indices() {
        let before = out.len();
        if needs_escape(c, lines) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
        if out.len() > max_bytes {
            out.truncate(before);
            let _ = write!(
                out,
                "… [Terrarium cut {} more bytes: provider text is limited to {max_bytes} bytes here]",
                text.len() - at
            );
            break;
        }
    }
    out
}

/// Whether `text` would be changed by [`for_people`] (other than by the size cap).
pub fn is_clean(text: &str, lines: Lines) -> bool {
    !text.chars().any(|c| needs_escape(c, lines))
}

/// A guest's diagnostics, made safe ([`for_people`]) and capped at [`MAX_DIAGNOSTICS`]: the
/// ones beyond are replaced by a single diagnostic that counts them (an error if any of them
/// was an error, so a failure is never hidden behind warnings).
pub fn diagnostics(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let total = diags.len();
    let mut cut_errors = 0usize;
    let mut out: Vec<Diagnostic> = Vec::with_capacity(total.min(MAX_DIAGNOSTICS + 1));
    for (i, d) in diags.into_iter().enumerate() {
        if i >= MAX_DIAGNOSTICS {
            cut_errors += usize::from(d.severity == Severity::Error);
            continue;
        }
        out.push(Diagnostic {
            severity: d.severity,
            summary: for_people(&d.summary, Lines::Single, MAX_SUMMARY_BYTES),
            detail: for_people(&d.detail, Lines::Multi, MAX_DETAIL_BYTES),
            attribute: path(d.attribute),
        });
    }
    if total > MAX_DIAGNOSTICS {
        let cut = total - MAX_DIAGNOSTICS;
        let severity = if cut_errors > 0 { Severity::Error } else { Severity::Warning };
        out.push(Diagnostic {
            severity,
            summary: "Too many diagnostics from the provider".into(),
            detail: format!(
                "The provider returned {total} diagnostics; Terrarium shows the first {MAX_DIAGNOSTICS} and cut \
                 the other {cut} ({cut_errors} of them errors)."
            ),
            attribute: AttributePath::root(),
        });
    }
    out
}

fn path(path: AttributePath) -> AttributePath {
    let clean = |s: String| {
        if s.len() <= MAX_PATH_STEP_BYTES && is_clean(&s, Lines::Single) {
            s
        } else {
            for_people(&s, Lines::Single, MAX_PATH_STEP_BYTES)
        }
    };
    AttributePath(
        path.0
            .into_iter()
            .map(|step| match step {
                PathStep::Attribute(a) => PathStep::Attribute(clean(a)),
                PathStep::Key(k) => PathStep::Key(clean(k)),
                index => index,
            })
            .collect(),
    )
}

/// A log field value (JSON) with its strings made safe for a log line.
pub fn log_value(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as Json;
    match value {
        Json::String(s) => Json::String(for_people(&s, Lines::Single, MAX_LOG_BYTES)),
        Json::Array(items) => Json::Array(items.into_iter().map(log_value).collect()),
        Json::Object(entries) => Json::Object(
            entries
                .into_iter()
                .map(|(k, v)| (for_people(&k, Lines::Single, MAX_LOG_BYTES), log_value(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_written_out() {
        let attack = "ok\u{1b}[2K\u{1b}]52;c;aGk=\u{7}\r\u{0}\u{202e}evil\u{9b}";
        let shown = for_people(attack, Lines::Multi, 1000);
        assert_eq!(shown, "ok\\u{1b}[2K\\u{1b}]52;c;aGk=\\u{7}\\u{d}\\u{0}\\u{202e}evil\\u{9b}");
        assert!(shown.chars().all(|c| !c.is_control()));
    }

    #[test]
    fn newlines_survive_only_in_multi_line_text() {
        assert_eq!(for_people("a\n\tb", Lines::Multi, 100), "a\n\tb");
        assert_eq!(for_people("a\n\tb", Lines::Single, 100), "a\\u{a}\\u{9}b");
        assert_eq!(for_people("ünïcode ✓", Lines::Single, 100), "ünïcode ✓");
    }

    #[test]
    fn long_text_is_cut_with_a_note() {
        let shown = for_people(&"é".repeat(1000), Lines::Single, 101);
        assert!(shown.starts_with(&"é".repeat(50)), "{shown}");
        assert!(shown.ends_with(
            "Terrarium cut 1900 more bytes: provider text is limited to 101 bytes here]"
        ));
        // Escapes count against the cap too.
        let shown = for_people(&"\u{1b}".repeat(100), Lines::Single, 12);
        assert!(shown.starts_with("\\u{1b}\\u{1b}…"), "{shown}");
    }

    #[test]
    fn diagnostics_are_capped_and_errors_never_hidden() {
        let mut many: Vec<Diagnostic> =
            (0..MAX_DIAGNOSTICS).map(|i| Diagnostic::warning(format!("w{i}"), "")).collect();
        many.push(Diagnostic::error("the real failure", ""));
        let shown = diagnostics(many);
        assert_eq!(shown.len(), MAX_DIAGNOSTICS + 1);
        let last = shown.last().unwrap();
        assert!(last.is_error(), "{last:?}");
        assert!(last.detail.contains("returned 101 diagnostics"), "{}", last.detail);
    }
}

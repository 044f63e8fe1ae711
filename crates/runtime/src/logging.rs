//! Logging on stderr, in the form the reader expects.
//!
//! Under Terraform ([`init_hclog`]) every record is one line of hclog JSON:
//!
//! ```text
//! {"@level":"info","@message":"...","@module":"terrarium.plugin","@timestamp":"2006-01-02T15:04:05.000000Z","key":"value"}
//! ```
//!
//! go-plugin parses such lines and re-logs them through Terraform's own logger
//! with their level and fields; `@timestamp` must have exactly six fractional
//! digits or the whole line is treated as plain text. The level threshold
//! follows Terraform's: `TF_LOG_PROVIDER`, else `TF_LOG`, with TRACE, DEBUG,
//! INFO, WARN, ERROR or OFF (`JSON` and any unknown value mean TRACE); when
//! neither is set only errors are written.
//!
//! Interactive commands use [`init_human`]: plain `LEVEL module: message k=v`
//! lines at the level given by `TERRARIUM_LOG` (default INFO).
//!
//! [`emit`] writes one record directly, in whichever format is installed; it
//! carries guest log calls, whose field names are only known at run time.
//!
//! Dependencies' events (h2, hyper, tonic) are capped at WARN: at TRACE they
//! would bury the provider's own records.

use std::io::Write;
use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};
use tracing_subscriber::util::SubscriberInitExt as _;

/// The hclog JSON keys with a meaning of their own.
const RESERVED_KEYS: [&str; 4] = ["@level", "@message", "@module", "@timestamp"];

/// Our crate's targets; everything else is a dependency.
const OWN_TARGET_PREFIX: &str = "terrarium";

/// The most verbose level let through from dependencies.
const DEPENDENCY_MAX_LEVEL: Level = Level::WARN;

/// How records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// hclog JSON lines, for Terraform.
    Hclog,
    /// Plain text, for a person.
    Human,
}

/// The installed output: format and threshold. Set once, by the first `init_*`
/// or the first [`emit`].
#[derive(Debug, Clone, Copy)]
struct Output {
    format: Format,
    filter: LevelFilter,
}

static OUTPUT: OnceLock<Output> = OnceLock::new();

fn output() -> Output {
    *OUTPUT.get_or_init(|| Output { format: Format::Hclog, filter: level_from_env() })
}

/// The provider log threshold Terraform would apply: `TF_LOG_PROVIDER`, else
/// `TF_LOG` (empty counts as unset).
pub fn level_from_env() -> LevelFilter {
    let var = |key: &str| std::env::var(key).ok().filter(|value| !value.is_empty());
    parse_tf_log(var("TF_LOG_PROVIDER").or_else(|| var("TF_LOG")).as_deref())
}

/// Terraform's reading of a `TF_LOG`-style value: TRACE/DEBUG/INFO/WARN/ERROR
/// (any case), OFF; `JSON` and anything unrecognised mean TRACE; unset means
/// ERROR (Terraform still collects plugin errors with logging off).
pub fn parse_tf_log(value: Option<&str>) -> LevelFilter {
    let Some(value) = value else {
        return LevelFilter::ERROR;
    };
    match value.trim().to_ascii_uppercase().as_str() {
        "TRACE" | "JSON" => LevelFilter::TRACE,
        "DEBUG" => LevelFilter::DEBUG,
        "INFO" => LevelFilter::INFO,
        "WARN" => LevelFilter::WARN,
        "ERROR" => LevelFilter::ERROR,
        "OFF" => LevelFilter::OFF,
        _ => LevelFilter::TRACE,
    }
}

/// Installs hclog JSON output on stderr as the global `tracing` subscriber and
/// as the format of [`emit`], at the level from [`level_from_env`]. Calling it
/// again, or after another subscriber was installed, changes nothing.
pub fn init_hclog() {
    let output = install(Format::Hclog, level_from_env());
    let _ = tracing_subscriber::registry()
        .with(LineLayer::new(Format::Hclog, output.filter, std::io::stderr))
        .try_init();
}

/// Installs plain-text output on stderr for interactive commands, at the level
/// named by `TERRARIUM_LOG` (trace, debug, info, warn, error, off; default info).
pub fn init_human() {
    let filter = match std::env::var("TERRARIUM_LOG") {
        Ok(value) if !value.trim().is_empty() => value.trim().parse().unwrap_or(LevelFilter::INFO),
        _ => LevelFilter::INFO,
    };
    let output = install(Format::Human, filter);
    let _ = tracing_subscriber::registry()
        .with(LineLayer::new(Format::Human, output.filter, std::io::stderr))
        .try_init();
}

fn install(format: Format, filter: LevelFilter) -> Output {
    *OUTPUT.get_or_init(|| Output { format, filter })
}

/// Whether a record at `level` would be written (lets callers skip building it).
pub fn enabled(level: Level) -> bool {
    level <= output().filter
}

/// Writes one record to stderr, in the installed format (hclog JSON if none
/// was), if `level` passes the installed threshold. `module` becomes `@module`;
/// `fields` follow in order. A field that reuses a reserved hclog key
/// (`@level`, ...) is written as `_@level` so it cannot forge the record.
/// When a forwarder is installed ([`forward`]) it gets the record first.
pub fn emit(level: Level, module: &str, message: &str, fields: &[(String, Value)]) {
    deliver(level, module, message, fields, Threshold::Applies);
}

/// Like [`emit`], whatever the threshold: for what the person must read rather than a log
/// line (a provider's warning diagnostics, where the client's answer has no place for them),
/// which `TERRARIUM_LOG=error` must not hide.
pub fn emit_for_person(level: Level, module: &str, message: &str, fields: &[(String, Value)]) {
    deliver(level, module, message, fields, Threshold::Ignored);
}

/// Whether `TERRARIUM_LOG`'s threshold decides if a record is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Threshold {
    Applies,
    Ignored,
}

/// A record of [`emit`] or [`emit_for_person`]: to the forwarder, else to stderr.
fn deliver(
    level: Level,
    module: &str,
    message: &str,
    fields: &[(String, Value)],
    threshold: Threshold,
) {
    if threshold == Threshold::Applies && level > output().filter {
        return;
    }
    if let Some(forwarder) = FORWARDER.get() {
        let record = Record {
            level,
            module: module.to_string(),
            message: message.to_string(),
            fields: fields.to_vec(),
        };
        if let Err(record) = forwarder(record) {
            write_local(&record);
        }
        return;
    }
    if let Some(line) = render(output(), level, module, message, fields, threshold) {
        write_line(&mut std::io::stderr().lock(), &line);
    }
}

/// One record of [`emit`], owned, as a forwarder gets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub level: Level,
    pub module: String,
    pub message: String,
    pub fields: Vec<(String, Value)>,
}

impl Record {
    /// The record as one line of text without its level: `module: message key=value ...`.
    pub fn text(&self) -> String {
        human_text(&self.module, &self.message, self.fields.iter().map(|(k, v)| (k.as_str(), v)))
    }
}

/// Takes a record somewhere else than stderr, or hands it back to be written there.
type Forwarder = Box<dyn Fn(Record) -> Result<(), Record> + Send + Sync>;

static FORWARDER: OnceLock<Forwarder> = OnceLock::new();

/// Sends every record of [`emit`] to `forwarder` from now on (a Pulumi plugin sends its
/// component's records to the engine); a record it hands back is written to stderr. Only the
/// first call installs one.
pub fn forward(forwarder: impl Fn(Record) -> Result<(), Record> + Send + Sync + 'static) {
    let _ = FORWARDER.set(Box::new(forwarder));
}

/// Writes `record` to stderr in the installed format, whatever forwarder is installed.
pub fn write_local(record: &Record) {
    // Let through already (or meant for the person): not filtered again.
    let (level, module, message) = (record.level, &record.module, &record.message);
    if let Some(line) = render(output(), level, module, message, &record.fields, Threshold::Ignored)
    {
        write_line(&mut std::io::stderr().lock(), &line);
    }
}

/// The line [`emit`] writes under `output`, or `None` when filtered out.
fn render(
    output: Output,
    level: Level,
    module: &str,
    message: &str,
    fields: &[(String, Value)],
    threshold: Threshold,
) -> Option<String> {
    if threshold == Threshold::Applies && level > output.filter {
        return None;
    }
    let fields = fields.iter().map(|(key, value)| (key.as_str(), value));
    Some(format_line(output.format, level, module, message, fields))
}

/// One record as a line in `format`, newline included.
fn format_line<'a>(
    format: Format,
    level: Level,
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> String {
    match format {
        Format::Hclog => hclog_line(level, module, message, fields, Utc::now()),
        Format::Human => human_line(level, module, message, fields),
    }
}

/// One hclog JSON record, newline included.
pub fn hclog_line<'a>(
    level: Level,
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (&'a str, &'a Value)>,
    timestamp: DateTime<Utc>,
) -> String {
    let mut record = Map::new();
    record.insert("@level".into(), Value::from(hclog_level(level)));
    record.insert("@message".into(), Value::from(message));
    record.insert("@module".into(), Value::from(module));
    record.insert("@timestamp".into(), Value::from(hclog_timestamp(timestamp)));
    for (key, value) in fields {
        let key = if RESERVED_KEYS.contains(&key) { format!("_{key}") } else { key.to_owned() };
        record.insert(key, value.clone());
    }
    let mut line = Value::Object(record).to_string();
    line.push('\n');
    line
}

/// hclog's `TimeFormatJSON` (`2006-01-02T15:04:05.000000Z07:00`) in UTC:
/// exactly six fractional digits, then `Z`.
pub fn hclog_timestamp(timestamp: DateTime<Utc>) -> String {
    timestamp.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

fn hclog_level(level: Level) -> &'static str {
    match level {
        Level::TRACE => "trace",
        Level::DEBUG => "debug",
        Level::INFO => "info",
        Level::WARN => "warn",
        Level::ERROR => "error",
    }
}

/// One plain-text record: `LEVEL module: message key=value ...`.
pub fn human_line<'a>(
    level: Level,
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> String {
    format!("{level:>5} {}\n", human_text(module, message, fields))
}

/// `module: message key=value ...`, the text of a plain-text record after its level.
fn human_text<'a>(
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> String {
    let mut line = format!("{module}: {message}");
    for (key, value) in fields {
        line.push(' ');
        line.push_str(key);
        line.push('=');
        match value {
            Value::String(text) if is_bare(text) => line.push_str(text),
            other => line.push_str(&other.to_string()),
        }
    }
    line
}

/// Whether a string reads unambiguously without quotes after `key=`.
fn is_bare(text: &str) -> bool {
    !text.is_empty()
        && !text.chars().any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '=')
}

fn write_line(writer: &mut impl Write, line: &str) {
    // One write per record keeps lines whole when several threads log; a
    // failed write to stderr has nowhere to be reported.
    let _ = writer.write_all(line.as_bytes());
    let _ = writer.flush();
}

/// `terrarium::plugin::tls` -> `terrarium.plugin.tls`, hclog's naming style.
fn module_of(metadata: &Metadata<'_>) -> String {
    module_name(metadata.target()).replace("::", ".")
}

/// The names the host's modules have always carried in its log records, by the crate that
/// holds each module now (the host was one crate, `terrarium`): `@module` in Terraform's log
/// stays `terrarium.plugin.serve` whatever crate the code moved to. Most specific first.
const MODULE_NAMES: &[(&str, &str)] = &[
    ("terrarium_runtime::sandbox", "terrarium::sandbox"),
    ("terrarium_runtime::logging", "terrarium::logging"),
    ("terrarium_runtime::guest_text", "terrarium::guest_text"),
    ("terrarium_runtime", "terrarium::runtime"),
    ("terrarium_proto", "terrarium::proto"),
    ("terrarium_codec", "terrarium::codec"),
    ("terrarium_core", "terrarium::dispatch"),
    ("terrarium_tfplugin", "terrarium"),
    ("terrarium_pulumi::engine", "terrarium::plugin::pulumi"),
    ("terrarium_pulumi", "terrarium::server::pulumi"),
    ("terrarium_dev", "terrarium::reload"),
    ("terrarium_install::grant_args", "terrarium::cli::grant_args"),
    ("terrarium_install::protected", "terrarium::cli::protected"),
    ("terrarium_install::user_files", "terrarium::cli::user_files"),
    ("terrarium_install", "terrarium::cli::install"),
    ("terrarium_registry", "terrarium::cli"),
    ("terrarium_scaffold", "terrarium::cli::new"),
    ("terrarium::commands", "terrarium::cli"),
];

/// A log target (a module path) under the module name it has always had.
fn module_name(target: &str) -> std::borrow::Cow<'_, str> {
    if target == "terrarium" {
        return "terrarium::cli".into();
    }
    for (now, was) in MODULE_NAMES {
        if let Some(rest) = target.strip_prefix(now)
            && (rest.is_empty() || rest.starts_with("::"))
        {
            return format!("{was}{rest}").into();
        }
    }
    target.into()
}

fn passes(filter: LevelFilter, metadata: &Metadata<'_>) -> bool {
    let level = *metadata.level();
    level <= filter
        && (metadata.target().starts_with(OWN_TARGET_PREFIX) || level <= DEPENDENCY_MAX_LEVEL)
}

/// Collects an event's message and fields.
#[derive(Default)]
struct FieldCollector {
    message: String,
    fields: Vec<(String, Value)>,
}

impl FieldCollector {
    fn of(event: &Event<'_>) -> Self {
        let mut collector = FieldCollector::default();
        event.record(&mut collector);
        collector
    }

    fn push(&mut self, field: &Field, value: Value) {
        if field.name() == "message" {
            self.message = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
        } else {
            self.fields.push((field.name().to_owned(), value));
        }
    }

    fn borrowed(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.fields.iter().map(|(key, value)| (key.as_str(), value))
    }
}

impl Visit for FieldCollector {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.push(field, Value::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.push(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.push(field, Value::from(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        // NaN and infinities have no JSON number form.
        let value = serde_json::Number::from_f64(value)
            .map_or_else(|| Value::from(value.to_string()), Value::Number);
        self.push(field, value);
    }
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.push(field, Value::from(value.to_string()));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.push(field, Value::from(format!("{value:?}")));
    }
}

/// A `tracing` layer writing one line per event to `make_writer`, in `format`.
pub struct LineLayer<W> {
    format: Format,
    filter: LevelFilter,
    make_writer: W,
}

impl<W> LineLayer<W> {
    /// Writes events at `filter` or more severe (dependencies capped at WARN).
    pub fn new(format: Format, filter: LevelFilter, make_writer: W) -> Self {
        LineLayer { format, filter, make_writer }
    }
}

impl<S, W> Layer<S> for LineLayer<W>
where
    S: Subscriber,
    W: for<'w> MakeWriter<'w> + 'static,
{
    fn enabled(&self, metadata: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        passes(self.filter, metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.filter)
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let metadata = event.metadata();
        let collected = FieldCollector::of(event);
        let line = format_line(
            self.format,
            *metadata.level(),
            &module_of(metadata),
            &collected.message,
            collected.borrowed(),
        );
        write_line(&mut self.make_writer.make_writer(), &line);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_keep_the_module_names_they_had_before_the_host_became_crates() {
        for (target, module) in [
            ("terrarium_tfplugin::plugin::serve", "terrarium::plugin::serve"),
            ("terrarium_tfplugin::server", "terrarium::server"),
            ("terrarium_runtime", "terrarium::runtime"),
            ("terrarium_runtime::cache", "terrarium::runtime::cache"),
            ("terrarium_runtime::sandbox::http", "terrarium::sandbox::http"),
            ("terrarium_core::pool", "terrarium::dispatch::pool"),
            ("terrarium_pulumi", "terrarium::server::pulumi"),
            ("terrarium_pulumi::engine", "terrarium::plugin::pulumi"),
            ("terrarium_dev::watch", "terrarium::reload::watch"),
            ("terrarium_install", "terrarium::cli::install"),
            ("terrarium_registry::registry::server", "terrarium::cli::registry::server"),
            ("terrarium::commands::dev", "terrarium::cli::dev"),
            ("terrarium", "terrarium::cli"),
            ("terrarium::plugin", "terrarium::plugin"),
            ("terrarium_runtimes", "terrarium_runtimes"),
            ("h2::codec", "h2::codec"),
        ] {
            assert_eq!(module_name(target), module, "{target}");
        }
    }

    use chrono::TimeZone as _;

    use super::*;

    /// An in-memory writer for tests of the layers.
    #[derive(Clone, Default)]
    struct CapturedOutput(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl CapturedOutput {
        /// Everything written so far, as text.
        fn contents(&self) -> String {
            let bytes = self.0.lock().map(|guard| guard.clone()).unwrap_or_default();
            String::from_utf8_lossy(&bytes).into_owned()
        }
    }

    impl Write for CapturedOutput {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'w> MakeWriter<'w> for CapturedOutput {
        type Writer = CapturedOutput;
        fn make_writer(&'w self) -> Self::Writer {
            self.clone()
        }
    }

    fn json(line: &str) -> Map<String, Value> {
        assert!(line.ends_with('\n'), "{line:?}");
        assert_eq!(line.matches('\n').count(), 1, "{line:?}");
        match serde_json::from_str(line).unwrap() {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    /// hclog's Go layout `2006-01-02T15:04:05.000000Z07:00`, checked by shape.
    fn matches_hclog_time_format(text: &str) -> bool {
        let bytes = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            bytes.get(range).is_some_and(|b| b.iter().all(u8::is_ascii_digit))
        };
        bytes.len() == 27
            && digits(0..4)
            && bytes[4] == b'-'
            && digits(5..7)
            && bytes[7] == b'-'
            && digits(8..10)
            && bytes[10] == b'T'
            && digits(11..13)
            && bytes[13] == b':'
            && digits(14..16)
            && bytes[16] == b':'
            && digits(17..19)
            && bytes[19] == b'.'
            && digits(20..26)
            && bytes[26] == b'Z'
    }

    #[test]
    fn timestamp_has_exactly_six_fractional_digits() {
        let whole_second = Utc.with_ymd_and_hms(2006, 1, 2, 15, 4, 5).unwrap();
        assert_eq!(hclog_timestamp(whole_second), "2006-01-02T15:04:05.000000Z");

        let nanos = whole_second + chrono::Duration::nanoseconds(123_456_789);
        assert_eq!(hclog_timestamp(nanos), "2006-01-02T15:04:05.123456Z");

        let now = hclog_timestamp(Utc::now());
        assert!(matches_hclog_time_format(&now), "{now}");
    }

    #[test]
    fn hclog_line_has_the_special_keys_and_fields_in_order() {
        let at = Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap();
        let fields = [
            ("resource".to_owned(), Value::from("null_resource")),
            ("count".to_owned(), Value::from(3)),
            ("@level".to_owned(), Value::from("error")),
        ];
        let line = hclog_line(
            Level::WARN,
            "provider.null",
            "line one\nline \"two\"",
            fields.iter().map(|(k, v)| (k.as_str(), v)),
            at,
        );
        let record = json(&line);
        let keys: Vec<&str> = record.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["@level", "@message", "@module", "@timestamp", "resource", "count", "_@level"]
        );
        assert_eq!(record["@level"], "warn");
        assert_eq!(record["@message"], "line one\nline \"two\"");
        assert_eq!(record["@module"], "provider.null");
        assert_eq!(record["@timestamp"], "2024-05-06T07:08:09.000000Z");
        assert_eq!(record["resource"], "null_resource");
        assert_eq!(record["count"], 3);
        assert_eq!(record["_@level"], "error");
    }

    #[test]
    fn tf_log_levels_follow_terraform() {
        assert_eq!(parse_tf_log(None), LevelFilter::ERROR);
        assert_eq!(parse_tf_log(Some("TRACE")), LevelFilter::TRACE);
        assert_eq!(parse_tf_log(Some("debug")), LevelFilter::DEBUG);
        assert_eq!(parse_tf_log(Some("Info")), LevelFilter::INFO);
        assert_eq!(parse_tf_log(Some("WARN")), LevelFilter::WARN);
        assert_eq!(parse_tf_log(Some("ERROR")), LevelFilter::ERROR);
        assert_eq!(parse_tf_log(Some("OFF")), LevelFilter::OFF);
        assert_eq!(parse_tf_log(Some("JSON")), LevelFilter::TRACE);
        assert_eq!(parse_tf_log(Some("verbose")), LevelFilter::TRACE);
    }

    #[test]
    fn emitted_records_honour_the_filter_and_format() {
        let fields = vec![("id".to_owned(), Value::from("abc"))];
        let hclog = Output { format: Format::Hclog, filter: LevelFilter::INFO };
        let applies = Threshold::Applies;
        assert_eq!(render(hclog, Level::DEBUG, "provider", "hidden", &fields, applies), None);
        let line = render(hclog, Level::INFO, "provider", "shown", &fields, applies).unwrap();
        let record = json(&line);
        assert_eq!(record["@level"], "info");
        assert_eq!(record["@module"], "provider");
        assert_eq!(record["id"], "abc");

        let off = Output { format: Format::Hclog, filter: LevelFilter::OFF };
        assert_eq!(render(off, Level::ERROR, "provider", "x", &[], applies), None);
        // What the person must read is written whatever the threshold.
        let warning = render(off, Level::WARN, "terrarium.pulumi", "w", &[], Threshold::Ignored);
        assert!(warning.is_some_and(|line| json(&line)["@message"] == "w"));

        let human = Output { format: Format::Human, filter: LevelFilter::TRACE };
        assert_eq!(
            render(human, Level::TRACE, "provider", "step", &fields, applies).as_deref(),
            Some("TRACE provider: step id=abc\n")
        );
    }

    #[test]
    fn layer_writes_filtered_hclog_records() {
        let captured = CapturedOutput::default();
        let subscriber = tracing_subscriber::registry().with(LineLayer::new(
            Format::Hclog,
            LevelFilter::INFO,
            captured.clone(),
        ));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: "terrarium::plugin", socket = "/tmp/s", attempts = 2_u64, ok = true, "listening on {}", "unix");
            tracing::debug!(target: "terrarium::plugin", "too verbose for INFO");
            tracing::info!(target: "h2::codec", "dependency chatter below WARN");
            tracing::warn!(target: "h2::codec", "dependency warning");
        });
        let output = captured.contents();
        let lines: Vec<&str> = output.split_inclusive('\n').collect();
        assert_eq!(lines.len(), 2, "{output}");

        let first = json(lines[0]);
        assert_eq!(first["@level"], "info");
        assert_eq!(first["@message"], "listening on unix");
        assert_eq!(first["@module"], "terrarium.plugin");
        assert_eq!(first["socket"], "/tmp/s");
        assert_eq!(first["attempts"], 2);
        assert_eq!(first["ok"], true);
        assert!(matches_hclog_time_format(first["@timestamp"].as_str().unwrap()));

        let second = json(lines[1]);
        assert_eq!(second["@level"], "warn");
        assert_eq!(second["@module"], "h2.codec");
    }

    #[test]
    fn human_layer_writes_plain_lines() {
        let captured = CapturedOutput::default();
        let subscriber = tracing_subscriber::registry().with(LineLayer::new(
            Format::Human,
            LevelFilter::INFO,
            captured.clone(),
        ));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: "terrarium::cli", path = "/a b", name = "x", "installed");
        });
        assert_eq!(captured.contents(), " INFO terrarium.cli: installed path=\"/a b\" name=x\n");
    }
}

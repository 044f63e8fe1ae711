//! What a user allows a provider component: the grants and the grants file.
//!
//! The file is TOML, written (with comments) by `terrarium install` beside the installed
//! provider and read once when the provider starts. Every entry uses the same syntax as the
//! install flag that writes it, so a diagnostic can name the exact flag or line that would
//! allow a refused access:
//!
//! ```toml
//! allow_http = ["https://api.example.com", "http://127.0.0.1:2379"]
//! allow_dir  = ["/srv/terraform-files:rw"]
//! allow_env  = ["EXAMPLE_TOKEN"]
//!
//! [limits]
//! memory  = "256MiB"
//! timeout = "30s"
//! ```
//!
//! Unknown keys are errors, not ignored: a misspelt grant must not silently deny (or, worse,
//! look like it allows) something.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// The file name of the grants file inside an installed provider package.
pub const GRANTS_FILE_NAME: &str = "grants.toml";

/// Everything a provider component may do beyond computing: deny by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grants {
    /// Origins (scheme, host, port) it may send HTTP requests to.
    pub http: Vec<HttpGrant>,
    /// Host directories it sees, at the same path, read-only or read-write.
    pub dirs: Vec<DirGrant>,
    /// Environment variables (of the process Terraform starts) it sees.
    pub env: Vec<String>,
    /// Resource limits that differ from the defaults.
    pub limits: Limits,
}

/// Why a grant or the grants file is not usable. Every message names the offending text.
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    #[error(
        "invalid HTTP grant {given:?}: {reason}; expected [http://|https://]HOST[:PORT], for example \
         api.example.com, https://api.example.com:8443 or http://127.0.0.1:2379"
    )]
    Http { given: String, reason: String },
    #[error(
        "invalid directory grant {given:?}: {reason}; expected an absolute PATH[:ro|rw], for example /srv/data:rw"
    )]
    Dir { given: String, reason: String },
    #[error(
        "invalid environment grant {given:?}: a variable name is letters, digits and underscores, not starting with a digit"
    )]
    Env { given: String },
    #[error(
        "invalid size {given:?}: expected a number of bytes with an optional unit (KiB, MiB, GiB), for example 256MiB"
    )]
    Size { given: String },
    #[error(
        "invalid duration {given:?}: expected a number with a unit (ms, s, m), for example 30s"
    )]
    Duration { given: String },
    #[error("invalid limit: {0}")]
    Limit(String),
    #[error(transparent)]
    Dirs(#[from] super::dirs::DirGrantError),
    // `cause`, not `source`: the message says it, and anyhow's chain must not say it again.
    #[error("cannot read the grants file {}: {cause}", path.display())]
    Read { path: PathBuf, cause: std::io::Error },
    #[error("the grants file {} is invalid: {message}", path.display())]
    Syntax { path: PathBuf, message: String },
}

/// The scheme of an HTTP grant. Plain HTTP must be asked for explicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HttpScheme {
    Http,
    Https,
}

impl HttpScheme {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpScheme::Http => "http",
            HttpScheme::Https => "https",
        }
    }

    pub fn default_port(self) -> u16 {
        match self {
            HttpScheme::Http => 80,
            HttpScheme::Https => 443,
        }
    }
}

/// One origin a provider may call: scheme, host (lower case; an IPv6 address without
/// brackets) and port. Hosts match exactly: a grant for `example.com` does not cover
/// `api.example.com`, and a name does not cover the addresses it resolves to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HttpGrant {
    pub scheme: HttpScheme,
    pub host: String,
    pub port: u16,
}

impl HttpGrant {
    /// Whether this grant allows a request to `scheme://host:port`.
    pub fn allows(&self, scheme: HttpScheme, host: &str, port: u16) -> bool {
        self.scheme == scheme
            && self.port == port
            && self.host.eq_ignore_ascii_case(normalise_host(host))
    }
}

/// `[::1]` and `::1` are the same host; a trailing dot names the same DNS name.
pub(crate) fn normalise_host(host: &str) -> &str {
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    host.strip_suffix('.').unwrap_or(host)
}

impl fmt::Display for HttpGrant {
    /// The canonical form, which parses back to the same grant.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host =
            if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        if self.port == self.scheme.default_port() {
            write!(f, "{}://{host}", self.scheme.as_str())
        } else {
            write!(f, "{}://{host}:{}", self.scheme.as_str(), self.port)
        }
    }
}

impl FromStr for HttpGrant {
    type Err = GrantError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: &str| GrantError::Http {
            given: given.to_string(),
            reason: reason.to_string(),
        };
        let trimmed = given.trim();
        let (scheme, rest) = match trimmed.split_once("://") {
            Some((s, rest)) if s.eq_ignore_ascii_case("https") => (HttpScheme::Https, rest),
            Some((s, rest)) if s.eq_ignore_ascii_case("http") => (HttpScheme::Http, rest),
            Some(_) => return Err(invalid("only http:// and https:// can be granted")),
            // TLS unless plain HTTP is asked for by name.
            None => (HttpScheme::Https, trimmed),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#', '@']) {
            return Err(invalid(
                "a grant is an origin (scheme, host, port), without path, query or credentials",
            ));
        }
        let (host, port) = if let Some(after) = rest.strip_prefix('[') {
            let (host, after) = after
                .split_once(']')
                .ok_or_else(|| invalid("an IPv6 address needs a closing ']'"))?;
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':').ok_or_else(|| invalid("unexpected text after ']'"))?),
            };
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(invalid("the text in brackets is not an IPv6 address"));
            }
            (host.to_string(), port)
        } else {
            match rest.rsplit_once(':') {
                Some((host, port)) => (host.to_string(), Some(port)),
                None => (rest.to_string(), None),
            }
        };
        let port = match port {
            None => scheme.default_port(),
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| invalid("the port is not 1-65535"))?,
        };
        let host = normalise_host(&host).to_ascii_lowercase();
        if host.is_empty() {
            return Err(invalid("the host is empty"));
        }
        if host.contains('*') {
            return Err(invalid("wildcards are not supported; grant each host"));
        }
        if !host.contains(':')
            && !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        {
            return Err(invalid("the host is not a DNS name or IP address"));
        }
        Ok(HttpGrant { scheme, host, port })
    }
}

/// Read-only or read-write access to a granted directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::ReadOnly => "ro",
            Access::ReadWrite => "rw",
        }
    }
}

/// A host directory the provider sees at the same absolute path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirGrant {
    pub path: PathBuf,
    pub access: Access,
}

impl fmt::Display for DirGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.access.as_str())
    }
}

impl FromStr for DirGrant {
    type Err = GrantError;

    /// `PATH`, `PATH:ro` or `PATH:rw`; read-only unless `rw` is asked for.
    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid =
            |reason: &str| GrantError::Dir { given: given.to_string(), reason: reason.to_string() };
        // Text after the last ':' that is not a path component is a mode, and must be one we
        // know: `/data:rx` is a typo to report, not a directory named `data:rx` to grant.
        let (path, access) = match given.rsplit_once(':') {
            Some((path, "ro")) => (path, Access::ReadOnly),
            Some((path, "rw")) => (path, Access::ReadWrite),
            Some((_, mode)) if !mode.contains('/') => {
                return Err(invalid(&format!(
                    "unknown access mode {mode:?}: use ro (read-only) or rw (read-write); a path \
                     that itself ends in ':{mode}' needs an explicit mode, e.g. {given}:ro"
                )));
            }
            _ => (given, Access::ReadOnly),
        };
        let path = Path::new(path);
        if !path.is_absolute() {
            return Err(invalid(
                "the path must be absolute (it is the same path inside the sandbox)",
            ));
        }
        if path.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Err(invalid("the path must not contain '..'"));
        }
        if path.parent().is_none() {
            return Err(invalid(
                "granting the whole file system defeats the sandbox; grant a directory",
            ));
        }
        Ok(DirGrant { path: path.to_path_buf(), access })
    }
}

/// Checks an environment variable name.
pub fn parse_env_name(given: &str) -> Result<String, GrantError> {
    let ok = !given.is_empty()
        && !given.starts_with(|c: char| c.is_ascii_digit())
        && given.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok { Ok(given.to_string()) } else { Err(GrantError::Env { given: given.to_string() }) }
}

/// Limits that differ from the host's defaults; `None` keeps the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Linear memory one instance may grow to, in bytes.
    pub memory: Option<ByteSize>,
    /// Wall-clock time one guest call may take.
    pub timeout: Option<Duration>,
    /// The largest HTTP response body the provider may receive.
    pub http_response: Option<ByteSize>,
    /// Linear memory all instances of the provider process may hold together, in bytes.
    pub total_memory: Option<ByteSize>,
}

/// The smallest memory limit accepted: a Rust component needs a few MiB to start at all.
pub const MIN_MEMORY: u64 = 4 << 20;
/// Above this the pooling allocator's reservations stop making sense.
pub const MAX_MEMORY: u64 = 4 << 30;

impl Limits {
    /// Checks the values are in a usable range.
    pub fn validate(&self) -> Result<(), GrantError> {
        if let Some(m) = self.memory
            && !(MIN_MEMORY..=MAX_MEMORY).contains(&m.0)
        {
            return Err(GrantError::Limit(format!(
                "memory {m} is outside {} to {}",
                ByteSize(MIN_MEMORY),
                ByteSize(MAX_MEMORY)
            )));
        }
        if let Some(t) = self.timeout
            && (t < Duration::from_millis(10) || t > Duration::from_secs(24 * 3600))
        {
            return Err(GrantError::Limit(format!(
                "timeout {} is outside 10ms to 24h",
                format_duration(t)
            )));
        }
        if let Some(r) = self.http_response
            && r.0 == 0
        {
            return Err(GrantError::Limit("http_response must be more than 0 bytes".into()));
        }
        if let Some(total) = self.total_memory {
            let memory = self.memory.unwrap_or(ByteSize(DEFAULT_MEMORY));
            if total < memory {
                return Err(GrantError::Limit(format!(
                    "total_memory {total} is less than the memory of one instance ({memory}); raise it to at \
                     least {memory}"
                )));
            }
        }
        Ok(())
    }
}

/// A size in bytes, written with binary units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
            if n != 0 && n.is_multiple_of(1 << shift) {
                return write!(f, "{}{unit}", n >> shift);
            }
        }
        write!(f, "{n}B")
    }
}

impl FromStr for ByteSize {
    type Err = GrantError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let invalid = || GrantError::Size { given: given.to_string() };
        let s = given.trim();
        let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (digits, unit) = s.split_at(split);
        let n: u64 = digits.parse().map_err(|_| invalid())?;
        let shift = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 0,
            "k" | "kb" | "kib" => 10,
            "m" | "mb" | "mib" => 20,
            "g" | "gb" | "gib" => 30,
            _ => return Err(invalid()),
        };
        n.checked_mul(1 << shift).map(ByteSize).ok_or_else(invalid)
    }
}

/// Parses `500ms`, `30s`, `5m`, `1h`, or a bare number of seconds.
pub fn parse_duration(given: &str) -> Result<Duration, GrantError> {
    let invalid = || GrantError::Duration { given: given.to_string() };
    let s = given.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    let millis = match unit.trim() {
        "ms" => Some(n),
        "" | "s" => n.checked_mul(1000),
        "m" | "min" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => None,
    };
    millis.map(Duration::from_millis).ok_or_else(invalid)
}

/// The shortest exact text for a duration, in the syntax [`parse_duration`] reads.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(3_600_000) && ms > 0 {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The file as TOML sees it.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct GrantsFile {
    #[serde(default)]
    allow_http: Vec<String>,
    #[serde(default)]
    allow_dir: Vec<String>,
    #[serde(default)]
    allow_env: Vec<String>,
    #[serde(default)]
    limits: LimitsFile,
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    memory: Option<String>,
    timeout: Option<String>,
    http_response: Option<String>,
    total_memory: Option<String>,
}

impl Grants {
    /// Reads a grants file. A missing file means no grants (deny everything, default limits):
    /// a provider installed without grants needs none.
    pub fn load(path: &Path) -> Result<Grants, GrantError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Grants::parse(&text).map_err(|e| match e {
                GrantError::Syntax { message, .. } => {
                    GrantError::Syntax { path: path.to_path_buf(), message }
                }
                other => {
                    GrantError::Syntax { path: path.to_path_buf(), message: other.to_string() }
                }
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Grants::default()),
            Err(cause) => Err(GrantError::Read { path: path.to_path_buf(), cause }),
        }
    }

    /// Parses the text of a grants file.
    pub fn parse(text: &str) -> Result<Grants, GrantError> {
        let file: GrantsFile = toml::from_str(text)
            .map_err(|e| GrantError::Syntax { path: PathBuf::new(), message: e.to_string() })?;
        let mut grants = Grants {
            http: file.allow_http.iter().map(|s| s.parse()).collect::<Result<_, _>>()?,
            dirs: file.allow_dir.iter().map(|s| s.parse()).collect::<Result<_, _>>()?,
            env: file.allow_env.iter().map(|s| parse_env_name(s)).collect::<Result<_, _>>()?,
            limits: Limits {
                memory: file.limits.memory.as_deref().map(str::parse).transpose()?,
                timeout: file.limits.timeout.as_deref().map(parse_duration).transpose()?,
                http_response: file.limits.http_response.as_deref().map(str::parse).transpose()?,
                total_memory: file.limits.total_memory.as_deref().map(str::parse).transpose()?,
            },
        };
        grants.limits.validate()?;
        grants.http.sort();
        grants.http.dedup();
        grants.env.sort();
        grants.env.dedup();
        Ok(grants)
    }

    /// Whether a request to this origin is granted.
    pub fn allows_http(&self, scheme: HttpScheme, host: &str, port: u16) -> bool {
        self.http.iter().any(|g| g.allows(scheme, host, port))
    }

    /// The grants file, commented so that a person can review and edit it.
    pub fn render(&self, provider: &str) -> String {
        let list = |items: Vec<String>| -> String {
            if items.is_empty() {
                "[]".to_string()
            } else {
                let quoted: Vec<String> = items.iter().map(|s| toml_string(s)).collect();
                format!("[\n  {},\n]", quoted.join(",\n  "))
            }
        };
        let limit = |name: &str, value: Option<String>, default: &str| match value {
            Some(v) => format!("{name} = {}\n", toml_string(&v)),
            None => format!("# {name} = {}  (default)\n", toml_string(default)),
        };
        let mut out = String::new();
        out.push_str(&format!(
            "# Terrarium grants for {provider}.\n\
             #\n\
             # The provider runs as a sandboxed WebAssembly component. It gets clocks, random numbers\n\
             # and its own memory, and NOTHING else unless it is listed here. The provider's own\n\
             # configuration can never widen these grants. This file is read when the provider starts.\n\
             #\n\
             # Written by `terrarium install`, it is yours and in force. Arrived in a package you did\n\
             # not install yourself (a release `terraform init` fetched), it is only the publisher's\n\
             # request: see `terrarium grants show DIR` and `terrarium grants approve DIR`.\n\
             #\n\
             # Terraform's dependency lock file hashes this directory, grants included, so after an\n\
             # edit `terraform init` reports a checksum mismatch (on purpose: a changed grant is a\n\
             # change to review; `terraform init -upgrade` does not help, the version is the same).\n\
             # To accept the edit, in each configuration that uses the provider: delete the\n\
             # provider's entry from .terraform.lock.hcl, then run `terraform init`.\n\n"
        ));
        out.push_str(
            "# Origins the provider may send HTTP requests to: [http://|https://]HOST[:PORT].\n\
             # Without a scheme, HTTPS. Checked on every request and redirect; hosts match exactly.\n\
             # (terrarium install --allow-http ORIGIN)\n",
        );
        out.push_str(&format!(
            "allow_http = {}\n\n",
            list(self.http.iter().map(ToString::to_string).collect())
        ));
        out.push_str(
            "# Directories the provider sees, at the same path: PATH:ro (read-only) or PATH:rw.\n\
             # Nothing else of the file system is visible. Each must exist, be named by its real\n\
             # path (no symbolic link on the way) and not nest in another; a read-write grant may\n\
             # not cover the provider mirror, the terrarium executable or Terraform's working\n\
             # directory, and no grant the compiled-component cache (see docs/security.md).\n\
             # (terrarium install --allow-dir PATH[:ro|rw])\n",
        );
        out.push_str(&format!(
            "allow_dir = {}\n\n",
            list(self.dirs.iter().map(ToString::to_string).collect())
        ));
        out.push_str(
            "# Environment variables the provider sees (when set in Terraform's environment).\n\
             # (terrarium install --allow-env NAME)\n",
        );
        out.push_str(&format!("allow_env = {}\n\n", list(self.env.clone())));
        out.push_str(
            "# Resource limits. A provider that exceeds one gets an error diagnostic naming it; the\n\
             # instance is discarded and the next call runs in a fresh one.\n[limits]\n",
        );
        out.push_str("# Linear memory per instance. (terrarium install --memory SIZE)\n");
        out.push_str(&limit(
            "memory",
            self.limits.memory.map(|m| m.to_string()),
            &ByteSize(DEFAULT_MEMORY).to_string(),
        ));
        out.push_str("# Wall-clock time per call. (terrarium install --timeout DURATION)\n");
        out.push_str(&limit(
            "timeout",
            self.limits.timeout.map(format_duration),
            &format_duration(DEFAULT_TIMEOUT),
        ));
        out.push_str(
            "# Largest HTTP response body the provider may receive. (terrarium install --http-response SIZE)\n",
        );
        out.push_str(&limit(
            "http_response",
            self.limits.http_response.map(|m| m.to_string()),
            &ByteSize(DEFAULT_HTTP_RESPONSE).to_string(),
        ));
        out.push_str(
            "# Linear memory of all instances together (up to 16 serve calls at once), at least `memory`.\n\
             # (terrarium install --total-memory SIZE)\n",
        );
        out.push_str(&limit(
            "total_memory",
            self.limits.total_memory.map(|m| m.to_string()),
            &ByteSize(DEFAULT_TOTAL_MEMORY).to_string(),
        ));
        out
    }

    /// The memory all instances of the provider may hold together: the `total_memory` grant,
    /// else [`DEFAULT_TOTAL_MEMORY`], and never less than one instance's `memory`.
    pub fn total_memory(&self) -> u64 {
        let memory = self.limits.memory.map_or(DEFAULT_MEMORY, |m| m.0);
        self.limits.total_memory.map_or(DEFAULT_TOTAL_MEMORY, |t| t.0).max(memory)
    }
}

/// Default linear memory per instance.
pub const DEFAULT_MEMORY: u64 = 512 << 20;
/// Default wall-clock time per guest call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// Default largest HTTP response body.
pub const DEFAULT_HTTP_RESPONSE: u64 = 64 << 20;
/// Default linear memory of all instances of one provider process together: four instances
/// at the default `memory`. Without it, 16 instances could take 8 GiB.
pub const DEFAULT_TOTAL_MEMORY: u64 = 2 << 30;

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_grants_parse_to_origins() {
        let g: HttpGrant = "api.example.com".parse().unwrap();
        assert_eq!(
            g,
            HttpGrant { scheme: HttpScheme::Https, host: "api.example.com".into(), port: 443 }
        );
        let g: HttpGrant = "http://127.0.0.1:2379".parse().unwrap();
        assert_eq!(g.to_string(), "http://127.0.0.1:2379");
        assert!(g.allows(HttpScheme::Http, "127.0.0.1", 2379));
        assert!(!g.allows(HttpScheme::Https, "127.0.0.1", 2379));
        assert!(!g.allows(HttpScheme::Http, "127.0.0.1", 2380));
        assert!(!g.allows(HttpScheme::Http, "localhost", 2379));
        let g: HttpGrant = "HTTPS://[::1]:8443/".parse().unwrap();
        assert_eq!(g.host, "::1");
        assert_eq!(g.to_string(), "https://[::1]:8443");
        assert!(g.allows(HttpScheme::Https, "[::1]", 8443));
        let g: HttpGrant = "Example.COM.".parse().unwrap();
        assert!(g.allows(HttpScheme::Https, "example.com", 443));
        assert!(!g.allows(HttpScheme::Https, "api.example.com", 443));
        for bad in [
            "ftp://x",
            "x:0",
            "x:99999",
            "https://x/path",
            "user@x",
            "",
            "*.example.com",
            "[::1",
            "a b",
        ] {
            assert!(bad.parse::<HttpGrant>().is_err(), "{bad:?} must be refused");
        }
    }

    #[test]
    fn dir_grants_are_absolute_and_read_only_unless_asked() {
        let d: DirGrant = "/srv/data".parse().unwrap();
        assert_eq!(d.access, Access::ReadOnly);
        let d: DirGrant = "/srv/data:rw".parse().unwrap();
        assert_eq!((d.path.as_path(), d.access), (Path::new("/srv/data"), Access::ReadWrite));
        assert_eq!(d.to_string(), "/srv/data:rw");
        for bad in ["relative/dir", "/", "/srv/../etc", "/:rw"] {
            assert!(bad.parse::<DirGrant>().is_err(), "{bad:?} must be refused");
        }
        // A path with a ':' inside a component keeps it; a mode must be ro or rw.
        let d: DirGrant = "/srv/a:b/c".parse().unwrap();
        assert_eq!((d.path.as_path(), d.access), (Path::new("/srv/a:b/c"), Access::ReadOnly));
        let d: DirGrant = "/srv/a:b:rw".parse().unwrap();
        assert_eq!((d.path.as_path(), d.access), (Path::new("/srv/a:b"), Access::ReadWrite));
    }

    #[test]
    fn an_unknown_directory_mode_is_refused_with_the_modes_there_are() {
        for typo in ["/data:rx", "/data:RW", "/data:", "/data:wr", "/data:readonly"] {
            let err = typo.parse::<DirGrant>().unwrap_err().to_string();
            assert!(err.contains("unknown access mode"), "{typo}: {err}");
            assert!(err.contains("use ro (read-only) or rw (read-write)"), "{typo}: {err}");
        }
    }

    #[test]
    fn sizes_and_durations_round_trip() {
        assert_eq!("256MiB".parse::<ByteSize>().unwrap(), ByteSize(256 << 20));
        assert_eq!("1g".parse::<ByteSize>().unwrap().to_string(), "1GiB");
        assert_eq!("1000".parse::<ByteSize>().unwrap().to_string(), "1000B");
        assert!("12 parsecs".parse::<ByteSize>().is_err());
        assert!("99999999999999999999G".parse::<ByteSize>().is_err());
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("1500ms").unwrap(), Duration::from_millis(1500));
        assert_eq!(format_duration(Duration::from_secs(120)), "2m");
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn the_rendered_file_parses_back_to_the_same_grants() {
        let grants = Grants {
            http: vec![
                "http://127.0.0.1:2379".parse().unwrap(),
                "api.example.com".parse().unwrap(),
            ],
            dirs: vec!["/srv/a \"quoted\":rw".parse().unwrap()],
            env: vec!["TOKEN".into()],
            limits: Limits {
                memory: Some(ByteSize(64 << 20)),
                timeout: Some(Duration::from_secs(5)),
                http_response: None,
                total_memory: Some(ByteSize(1 << 30)),
            },
        };
        let text = grants.render("example.com/acme/widgets 1.0.0");
        assert!(text.contains("# Terrarium grants for example.com/acme/widgets 1.0.0."));
        let mut expected = grants.clone();
        expected.http.sort();
        assert_eq!(Grants::parse(&text).unwrap(), expected);
        // No grants at all: every list empty, every limit commented out.
        let empty = Grants::default().render("x");
        assert_eq!(Grants::parse(&empty).unwrap(), Grants::default());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        assert!(Grants::parse("allow-http = [\"x\"]").is_err());
        assert!(Grants::parse("allow_http = [\"ftp://x\"]").is_err());
        assert!(Grants::parse("[limits]\nmemory = \"1KiB\"").is_err());
        assert!(Grants::parse("[limits]\ntimeout = \"0s\"").is_err());
        assert!(Grants::parse("allow_env = [\"1BAD\"]").is_err());
        assert!(Grants::parse("allow_env = [\"GOOD_1\"]").is_ok());
        let err =
            Grants::parse("[limits]\nmemory = \"1GiB\"\ntotal_memory = \"512MiB\"").unwrap_err();
        assert!(err.to_string().contains("less than the memory of one instance"), "{err}");
    }

    #[test]
    fn total_memory_defaults_to_two_gib_and_never_below_one_instance() {
        let with = |text: &str| Grants::parse(text).unwrap().total_memory();
        assert_eq!(with(""), DEFAULT_TOTAL_MEMORY);
        assert_eq!(with("[limits]\ntotal_memory = \"4GiB\""), 4 << 30);
        assert_eq!(with("[limits]\nmemory = \"4GiB\""), 4 << 30);
    }

    #[test]
    fn a_missing_file_grants_nothing_and_an_unreadable_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Grants::load(&dir.path().join("none.toml")).unwrap(), Grants::default());
        let bad = dir.path().join(GRANTS_FILE_NAME);
        std::fs::write(&bad, "allow_http = 3").unwrap();
        let err = Grants::load(&bad).unwrap_err().to_string();
        assert!(err.contains(&bad.display().to_string()), "{err}");
    }
}

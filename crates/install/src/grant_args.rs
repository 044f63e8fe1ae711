//! The grant flags `terrarium install` and `terrarium dev` share: what a provider may do, in the
//! syntax of the grants file (see `sandbox::grants`).

// Doc comments on the clap arguments are `--help` text, where brackets mean optional parts.
#![allow(rustdoc::broken_intra_doc_links)]

use terrarium_runtime::sandbox::{ByteSize, DirGrant, GrantError, Grants, HttpGrant, Limits};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct GrantArgs {
    /// Let the provider send HTTP requests to this origin, [http://|https://]HOST[:PORT]
    /// (HTTPS when no scheme is given). Repeatable.
    #[arg(long = "allow-http", value_name = "ORIGIN")]
    pub allow_http: Vec<HttpGrant>,

    /// Let the provider see this existing directory (at the same path), read-only unless `:rw`
    /// is added: PATH[:ro|rw]. Repeatable; granted directories must not nest.
    #[arg(long = "allow-dir", value_name = "PATH[:ro|rw]")]
    pub allow_dir: Vec<DirGrant>,

    /// Let the provider see this environment variable of the process Terraform starts.
    /// Repeatable.
    #[arg(long = "allow-env", value_name = "NAME", value_parser = parse_env_arg)]
    pub allow_env: Vec<String>,

    /// Linear memory per provider instance, e.g. 256MiB [default: 512MiB].
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<ByteSize>,

    /// Wall-clock time per provider call, e.g. 30s or 5m [default: 5m].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_arg)]
    pub timeout: Option<std::time::Duration>,

    /// Largest HTTP response body the provider may receive, e.g. 16MiB [default: 64MiB].
    #[arg(long = "http-response", value_name = "SIZE")]
    pub http_response: Option<ByteSize>,

    /// Linear memory of all the provider's instances together, at least --memory, e.g. 4GiB
    /// [default: 2GiB].
    #[arg(long = "total-memory", value_name = "SIZE")]
    pub total_memory: Option<ByteSize>,
}

/// The argument ids of [`GrantArgs`], for flags that conflict with all of them.
pub const GRANT_ARG_IDS: [&str; 7] =
    ["allow_http", "allow_dir", "allow_env", "memory", "timeout", "http_response", "total_memory"];

fn parse_env_arg(s: &str) -> Result<String, String> {
    terrarium_runtime::sandbox::parse_env_name(s).map_err(|e| e.to_string())
}

fn parse_duration_arg(s: &str) -> Result<std::time::Duration, String> {
    terrarium_runtime::sandbox::parse_duration(s).map_err(|e| e.to_string())
}

impl GrantArgs {
    /// The grants these flags describe (directories are checked against the file system by
    /// `sandbox::dirs`, not here).
    pub fn grants(&self) -> Result<Grants, GrantError> {
        let mut http = self.allow_http.clone();
        http.sort();
        http.dedup();
        let mut env = self.allow_env.clone();
        env.sort();
        env.dedup();
        let grants = Grants {
            http,
            dirs: self.allow_dir.clone(),
            env,
            limits: Limits {
                memory: self.memory,
                timeout: self.timeout,
                http_response: self.http_response,
                total_memory: self.total_memory,
            },
        };
        grants.limits.validate()?;
        Ok(grants)
    }
}

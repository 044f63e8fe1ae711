//! The sandbox: what a user allows a provider component (its grants, kept in the grants file
//! beside the installed provider) and the checks that hold it to them at run time.
//!
//! Deny by default. A component gets clocks, random numbers and its own memory. Everything
//! else is a grant: outbound HTTP to listed origins ([`http`]), listed directories ([`dirs`]),
//! listed environment variables, and limits on memory and time. Grants are read from a file
//! when the provider starts and nothing the provider or its configuration says at run time can
//! change them: the guest has no interface that reaches them.

pub mod code_files;
pub mod dirs;
pub mod grants;
pub mod http;

pub use dirs::{DirGrantError, GrantedDir, ProtectedPath, Refuse};
pub use grants::{
    Access, ByteSize, DirGrant, GRANTS_FILE_NAME, GrantError, Grants, HttpGrant, HttpScheme,
    Limits, format_duration, parse_duration, parse_env_name,
};

/// The grants of one provider process, resolved once, at start: granted environment variables
/// are read from the host environment and granted directories are opened (see [`dirs`]).
#[derive(Debug, Default)]
pub struct Sandbox {
    grants: Grants,
    env: Vec<(String, String)>,
    dirs: Vec<GrantedDir>,
}

impl Sandbox {
    /// Resolves grants against this process's environment and file system. Fails when the
    /// directory grants break a rule of [`dirs`] (`protected` are the paths no grant may
    /// cover) or a granted directory cannot be opened.
    pub fn new(grants: Grants, protected: &[ProtectedPath]) -> Result<Sandbox, GrantError> {
        let dirs = dirs::open_dir_grants(&grants.dirs, protected)?;
        let env = grants
            .env
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|value| (name.clone(), value)))
            .collect();
        Ok(Sandbox { grants, env, dirs })
    }

    /// Sets an environment variable the guest sees, whatever the host's environment holds:
    /// for what the host itself tells a guest (`terrarium dev` tells its Python development
    /// runtime where the author's module is). Never from provider configuration.
    pub fn set_env(&mut self, name: &str, value: &str) {
        self.env.retain(|(n, _)| n != name);
        self.env.push((name.to_string(), value.to_string()));
    }

    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// The environment variables the guest sees: granted and set.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// The granted directories, open since the start.
    pub fn dirs(&self) -> &[GrantedDir] {
        &self.dirs
    }

    /// The largest HTTP response body the guest may receive.
    pub fn max_http_response(&self) -> u64 {
        self.grants.limits.http_response.map_or(grants::DEFAULT_HTTP_RESPONSE, |s| s.0)
    }
}

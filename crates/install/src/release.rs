//! A published provider run under the user's own host: `install` takes the component out of a
//! release (a zip `terrarium package` wrote, from a file or fetched from a registry) and leaves
//! everything else the publisher shipped behind: the executable (native code the user would
//! otherwise run) and the grants file (only shown, as a request; the user's flags decide).
//!
//! Reading zips, checking signatures and speaking HTTPS are `terrarium-registry`'s
//! (`terrarium_registry::fetch`), which the served-only executable does not link: the command
//! hands `install` a [`Releases`] to use.

use std::path::Path;

use crate::{Platform, ProviderSource, ProviderVersion};

/// What a release holds that a user's own host serves.
#[derive(Debug)]
pub struct Release {
    pub component: Vec<u8>,
    /// The publisher's grants file, a request.
    pub requested_grants: Option<String>,
    /// Where it came from, for the summary (`signed with key ID ...`).
    pub origin: String,
}

/// Where `install` gets releases from.
pub trait Releases {
    /// The component and request of a release zip's bytes; `what` names it in errors.
    fn read_zip(&self, bytes: &[u8], what: &str) -> anyhow::Result<Release>;
    /// `source` at `version` for `platform`, fetched from its registry with its signature and
    /// checksums checked.
    fn fetch(
        &self,
        source: &ProviderSource,
        version: &ProviderVersion,
        platform: &Platform,
    ) -> anyhow::Result<Release>;
}

/// Whether `given` names a release zip rather than a component.
pub fn is_release_zip(given: &Path) -> bool {
    given.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

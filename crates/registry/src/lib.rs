//! Publishing a provider: `terrarium package` writes a signed registry release (a zip per
//! platform, `SHA256SUMS` and its detached OpenPGP signature), and `terrarium registry` serves
//! packaged releases to Terraform over HTTPS as a provider registry and a network mirror;
//! [`fetch`] is the other side, reading and fetching releases for `terrarium install`.
//!
//! Everything here is for authors and publishers; nothing of it is linked into the executable
//! Terraform starts, so the served host carries no pgp, zip or HTTPS server.

pub mod fetch;
pub mod package;
pub mod registry;

//! The commands that serve and inspect a component, one file each. `install`, `package`,
//! `registry` and `new` live in their own crates (`terrarium-install`, `terrarium-registry`,
//! `terrarium-scaffold`). `serve` and `pulumi` are the served-only executable's; every other
//! command is behind the cargo feature of its name.

#[cfg(feature = "dev")]
pub mod dev;
#[cfg(feature = "docs")]
pub mod docs;
#[cfg(feature = "grants")]
pub mod grants;
#[cfg(feature = "harness")]
pub mod harness;
#[cfg(feature = "inspect")]
pub mod inspect;
pub mod pulumi;
pub mod serve;

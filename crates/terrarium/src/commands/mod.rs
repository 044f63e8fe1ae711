//! The commands that serve and inspect a component, one file each. `install`, `package`,
//! `registry` and `new` live in their own crates (`terrarium-install`, `terrarium-registry`,
//! `terrarium-scaffold`).

pub mod dev;
pub mod docs;
pub mod grants;
pub mod harness;
pub mod inspect;
pub mod pulumi;
pub mod serve;

//! (being written)

pub mod install;

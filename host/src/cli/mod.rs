//! The `terrarium` command line (serve and inspect are wired in once the codec lands).

pub mod install;

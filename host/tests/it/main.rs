//! The `terrarium` crate's integration tests, as one test binary.
//!
//! Each module covers one concern; add new ones here.

mod handshake;
mod guest_faults;
mod hot_reload;
mod instance_pool;
mod hostile;
mod served;
mod streams;
mod identity;
mod rpc_coverage;

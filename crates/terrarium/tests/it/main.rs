//! The `terrarium` crate's integration tests, as one test binary.
//!
//! Each module covers one concern; add new ones here.

// Test code: a failed unwrap is a failed test with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod computed_blocks;
mod declared_behaviour;
mod guest_faults;
mod guest_limits;
mod handshake;
mod hostile;
mod hot_reload;
mod identity;
mod instance_pool;
mod long_lived;
mod old_terraform;
mod proto_facts;
mod rpc_coverage;
mod served;
mod stop;
mod streams;

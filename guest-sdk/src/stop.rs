//! Terraform's request to stop, as a running call sees it.
//!
//! On the first Ctrl-C Terraform sends StopProvider and waits for the calls it made to
//! return. A call that has already done something real (a create that made its object and is
//! now waiting for it to become ready) should return the state it reached, so that Terraform
//! records the object instead of losing track of it. Terrarium tells the running call
//! ([`stopping`]), lets it go on for a grace period (5 s by default) and then interrupts it;
//! whatever it had not returned by then is lost.
//!
//! [`sleep`] wakes early when a stop arrives, and [`http::Client`](crate::http::Client) sends
//! no new request once one has (its requests fail with
//! [`http::Error::Stopped`](crate::http::Error::Stopped)), so a method that waits with them
//! learns of the stop where it waits:
//!
//! ```
//! use std::time::Duration;
//! # #[derive(Clone)] struct Server { id: String, ready: bool }
//! # fn start_server() -> Server { Server { id: "s-1".into(), ready: false } }
//! # fn is_ready(_: &Server) -> bool { false }
//!
//! fn create(/* ... */) -> terrarium_sdk::Result<Server> {
//!     let mut server = start_server(); // the object exists from here on
//!     while !is_ready(&server) {
//!         if terrarium_sdk::stop::sleep(Duration::from_secs(2)).is_err() {
//!             // Terraform is stopping: hand back what exists, so that it is recorded.
//!             return Ok(server);
//!         }
//!     }
//!     server.ready = true;
//!     Ok(server)
//! }
//! # terrarium_sdk::testing::set_stopping(true);
//! # assert!(!create().unwrap().ready);
//! # terrarium_sdk::testing::set_stopping(false);
//! ```
//!
//! Outside a component (native tests), nothing stops a call unless the test says so with
//! [`testing::set_stopping`](crate::testing::set_stopping).

use std::time::{Duration, Instant};

use crate::{Diagnostic, Diagnostics};

/// How often [`sleep`] looks for a stop.
const SLICE: Duration = Duration::from_millis(100);

/// Whether Terraform has asked the provider to stop since the call running now began.
pub fn stopping() -> bool {
    imp::stopping()
}

/// Sleeps for `duration`, or until Terraform asks the provider to stop: then (and if it
/// already had) returns [`Stopped`] at once.
pub fn sleep(duration: Duration) -> Result<(), Stopped> {
    let until = Instant::now() + duration;
    loop {
        if stopping() {
            return Err(Stopped);
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        imp::sleep(left.min(SLICE));
    }
}

/// Terraform asked the provider to stop. As an error it says so; a method that has made
/// something should return its state instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Terraform asked the provider to stop (Ctrl-C), so the operation was not finished")]
pub struct Stopped;

impl From<Stopped> for Diagnostic {
    fn from(e: Stopped) -> Diagnostic {
        Diagnostic::error("Operation interrupted", e.to_string())
    }
}

impl From<Stopped> for Diagnostics {
    fn from(e: Stopped) -> Diagnostics {
        Diagnostics::from(Diagnostic::from(e))
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::time::Duration;

    pub(super) fn stopping() -> bool {
        crate::__private::bindings::terrarium::provider::lifecycle::stopping()
    }

    pub(super) fn sleep(duration: Duration) {
        let nanos = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        wasip2::clocks::monotonic_clock::subscribe_duration(nanos).block();
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::cell::Cell;
    use std::time::Duration;

    thread_local! {
        static STOPPING: Cell<bool> = const { Cell::new(false) };
    }

    pub(super) fn stopping() -> bool {
        STOPPING.with(Cell::get)
    }

    pub(super) fn set_stopping(stopping: bool) {
        STOPPING.with(|s| s.set(stopping));
    }

    pub(super) fn sleep(duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// Native tests: makes [`stopping`] answer `stopping` on this thread.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn set_stopping(stopping: bool) {
    imp::set_stopping(stopping);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_returns_at_once_when_stopping() {
        set_stopping(true);
        assert_eq!(sleep(Duration::from_secs(3600)), Err(Stopped));
        set_stopping(false);
        assert_eq!(sleep(Duration::from_millis(1)), Ok(()));
    }
}

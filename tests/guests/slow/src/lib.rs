//! A provider whose create takes long, for the graceful-stop tests, written with
//! terrarium-sdk as an author would.
//!
//! `slow_server` stands for a cloud server: create "starts" it at once (its `id` exists from
//! then on) and then waits `boot_seconds` for it to boot, with [`terrarium_sdk::stop::sleep`].
//! When Terraform is stopped (the first Ctrl-C) during the wait, create returns the server
//! as it is, `ready = false`, so that Terraform records it instead of losing track of it.
//! With `fail_boot = true` the server never comes up: create fails, and keeps the started
//! server with the error (`Diagnostics::with_state`), so Terraform records it as tainted.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use terrarium_sdk::{AnyResource, Attr, Diagnostics, Model, Provider, Resource, Result, log, stop};

#[derive(Default)]
pub struct SlowProvider;

impl Provider for SlowProvider {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(ServerResource)]
    }
}

struct ServerResource;

/// A server that takes `boot_seconds` to boot.
#[derive(Serialize, Deserialize, Model)]
struct Server {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    /// How long the server takes to boot.
    #[tf(requires_replace)]
    boot_seconds: i64,
    /// Makes the server fail to boot.
    #[tf(optional, requires_replace)]
    fail_boot: Option<bool>,
    /// Whether it finished booting before create returned.
    #[tf(computed)]
    ready: Attr<bool>,
}

impl Resource for ServerResource {
    const TYPE_NAME: &'static str = "slow_server";
    type State = Server;

    fn create(&self, planned: Server) -> Result<Server> {
        // The server exists from here on.
        let id = format!("server-{}", planned.boot_seconds);
        log::info!("slow_server started", id = id);
        if planned.fail_boot == Some(true) {
            let started = Server { id: Attr::Known(id), ready: Attr::Known(false), ..planned };
            return Err(Diagnostics::error(
                "Server failed to boot",
                "The server was started but never answered; it is kept so that the next apply replaces it",
            )
            .with_state(&started));
        }
        let boot = Duration::from_secs(planned.boot_seconds.max(0).unsigned_abs());
        let ready = stop::sleep(boot).is_ok();
        if !ready {
            log::info!(
                "slow_server: Terraform is stopping; returning the server as it is",
                id = id
            );
        }
        Ok(Server { id: Attr::Known(id), ready: Attr::Known(ready), ..planned })
    }

    fn delete(&self, _prior: Server) -> Result<()> {
        // The server is imaginary: nothing to delete.
        Ok(())
    }

    fn read(&self, current: Server) -> Result<Option<Server>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }
}

terrarium_sdk::export!(SlowProvider);

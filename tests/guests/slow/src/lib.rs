//! A provider whose create takes long, for the graceful-stop tests, written with
//! terrarium-sdk as an author would.
//!
//! `slow_server` stands for a cloud server: create "starts" it at once (its `id` exists from
//! then on) and then waits `boot_seconds` for it to boot, with [`terrarium_sdk::stop::sleep`].
//! When Terraform is stopped (the first Ctrl-C) during the wait, create returns the server
//! as it is, `ready = false`, so that Terraform records it instead of losing track of it.
//! With `fail_boot = true` the server never comes up: create fails, and keeps the started
//! server with the error (`Diagnostics::with_state`), so Terraform records it as tainted.
//! Its schema is at version 1: version 0 called `boot_seconds` `boot` (the state-upgrade
//! tests). A server with `protect = true` refuses to be destroyed at plan time (the
//! provider plans destroys). The ephemeral `slow_lease` is a token on a lease of `seconds`,
//! renewed while Terraform uses it and closed when it is done; both are logged. The data
//! source `slow_page` fetches a URL through the sandbox's HTTP grants. `slow_vm` is what
//! servers were before `slow_server`: a `moved` block turns one into a server
//! (`MOVES_FROM`, `move_state`), and it counts its creates and reads in its private state.
//! A server's identity is its `id` (import by identity builds the server as import by ID
//! does; identity schema version 0 called it `server`); the list resource `slow_server` lists `server-1` to `server-<count>`
//! (`terraform query`; their display names start with `prefix`, the server `broken` does not
//! answer, and the write-only `admin_password` the listing code returns is dropped); the
//! action `slow_reboot` reboots a server in `steps`, reporting each step; and `slow_vm`
//! defers its plan while its `label` is unknown.
//! tests/guests/slow/python and tests/guests/slow/typescript
//! are the same provider in the other SDKs.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use terrarium_sdk::action::{Action, AnyAction, Progress};
use terrarium_sdk::ephemeral::{EphemeralResource, Lease};
use terrarium_sdk::http::Client;
use terrarium_sdk::identity::{AnyIdentity, ResourceIdentity};
use terrarium_sdk::list::{AnyListResource, ListResource, ListResults};
use terrarium_sdk::resource::Plan;
use terrarium_sdk::rpc::{DeferredReason, MoveRequest};
use terrarium_sdk::{
    AnyDataSource, AnyEphemeralResource, AnyResource, Attr, DataSource, Diagnostics, Model,
    PrivateState, Provider, Resource, Result, Set, Value, from_value, log, stop, to_value,
};

#[derive(Default)]
pub struct SlowProvider;

impl Provider for SlowProvider {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(ServerResource), Box::new(VmResource), Box::new(NetworkResource)]
    }

    fn data_sources(&self) -> Vec<Box<dyn AnyDataSource + '_>> {
        vec![Box::new(PageData)]
    }

    fn ephemeral_resources(&self) -> Vec<Box<dyn AnyEphemeralResource + '_>> {
        vec![Box::new(LeaseResource)]
    }

    fn list_resources(&self) -> Vec<Box<dyn AnyListResource + '_>> {
        vec![Box::new(ServerResource)]
    }

    fn actions(&self) -> Vec<Box<dyn AnyAction + '_>> {
        vec![Box::new(RebootAction)]
    }
}

struct ServerResource;

/// A server that takes `boot_seconds` to boot.
#[derive(Serialize, Deserialize, Model)]
#[tf(version = 1)]
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
    /// Refuses to be destroyed while true.
    #[tf(optional)]
    protect: Option<bool>,
    /// Where create reports, with a GET, once it stops waiting for the boot.
    #[tf(optional)]
    report_url: Option<String>,
    /// The administrator's password, given to create, never stored.
    #[tf(optional, write_only)]
    admin_password: Option<String>,
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
        if let Some(url) = &planned.report_url {
            // After a stop the SDK's client sends nothing: this fails at once.
            if let Err(e) = Client::new().get(url) {
                log::info!("slow_server: no report", error = e.to_string());
            }
        }
        Ok(Server { id: Attr::Known(id), ready: Attr::Known(ready), ..planned })
    }

    /// The server is imaginary: a change (`protect = false`, as the refusal below advises) is
    /// the planned state, still as ready as it was.
    fn update(&self, prior: Server, planned: Server) -> Result<Server> {
        Ok(Server { ready: prior.ready, ..planned })
    }

    const PLAN_DESTROY: bool = true;

    fn plan_destroy(&self, prior: Server) -> Result<()> {
        if prior.protect == Some(true) {
            return Err(Diagnostics::error(
                "Server is protected",
                "Set protect = false and apply before destroying it.",
            ));
        }
        Ok(())
    }

    fn delete(&self, _prior: Server) -> Result<()> {
        // The server is imaginary: nothing to delete.
        Ok(())
    }

    fn import(&self, id: &str) -> Result<Server> {
        // `server-N` boots in N seconds and is up.
        let Some(boot_seconds) = id.strip_prefix("server-").and_then(|n| n.parse().ok()) else {
            return Err(Diagnostics::error(
                "Cannot import",
                format!("{id:?} is not a server id (server-N)"),
            ));
        };
        Ok(server_up(boot_seconds))
    }

    fn identity(&self) -> Option<&dyn AnyIdentity<Server>> {
        Some(self)
    }

    fn upgrade(&self, _version: i64, raw: Value) -> Result<Value> {
        // Version 0 called `boot_seconds` `boot`.
        let Value::Object(mut fields) = raw else {
            return Err(Diagnostics::error(
                "Cannot upgrade state",
                "The stored state is not an object.",
            ));
        };
        let boot = fields.remove("boot").unwrap_or(Value::Null);
        fields.insert("boot_seconds".to_owned(), boot);
        Ok(Value::Object(fields))
    }

    // A `slow_vm` becomes a server that is up: `vm-N` is `server-N`.
    const MOVES_FROM: &'static [&'static str] = &["slow_vm"];

    fn move_state(&self, source: MoveRequest) -> Result<Value> {
        let Value::Object(fields) = &source.source_state else {
            return Err(Diagnostics::error(
                "Cannot move state",
                "The stored state is not an object.",
            ));
        };
        let seconds: i64 = from_value(fields.get("seconds").unwrap_or(&Value::Null))?;
        Ok(to_value(&server_up(seconds))?)
    }

    fn read(&self, current: Server) -> Result<Option<Server>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }
}

struct NetworkResource;

/// A network whose addresses the provider assigns: `address` is a computed nested block
/// (protocol 6.11), which a Terraform older than 1.16 sees as a computed attribute.
#[derive(Serialize, Deserialize, Model)]
struct Network {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    /// How many addresses the network gets.
    size: i64,
    /// A note; changing it updates the network in place.
    #[tf(optional)]
    note: Option<String>,
    /// The addresses the provider assigned.
    #[tf(block, computed)]
    address: Attr<Vec<Address>>,
}

#[derive(Serialize, Deserialize, Model)]
struct Address {
    #[tf(computed)]
    ip: String,
    #[tf(computed)]
    port: i64,
}

impl NetworkResource {
    /// The addresses of a network of `size` (changed by the note, so that an update shows a
    /// new value).
    fn assign(network: Network) -> Network {
        let port = if network.note.is_some() { 8443 } else { 443 };
        let address =
            (1..=network.size).map(|i| Address { ip: format!("10.0.0.{i}"), port }).collect();
        Network {
            id: Attr::Known(format!("net-{}", network.size)),
            address: Attr::Known(address),
            ..network
        }
    }
}

impl Resource for NetworkResource {
    const TYPE_NAME: &'static str = "slow_network";
    type State = Network;

    fn create(&self, planned: Network) -> Result<Network> {
        Ok(Self::assign(planned))
    }

    fn update(&self, _prior: Network, planned: Network) -> Result<Network> {
        Ok(Self::assign(planned))
    }

    fn read(&self, current: Network) -> Result<Option<Network>> {
        Ok(Some(current))
    }

    fn delete(&self, _prior: Network) -> Result<()> {
        Ok(())
    }
}

/// The server `server-<boot_seconds>`, up.
fn server_up(boot_seconds: i64) -> Server {
    Server {
        id: Attr::Known(format!("server-{boot_seconds}")),
        boot_seconds,
        fail_boot: None,
        ready: Attr::Known(true),
        protect: None,
        report_url: None,
        admin_password: None,
    }
}

/// The identity of a server. At identity schema version 1: version 0 called `id` `server`.
#[derive(Serialize, Deserialize, Model)]
#[tf(version = 1)]
struct ServerIdentity {
    /// The server's ID, `server-N`.
    #[tf(required_for_import)]
    id: String,
}

/// The state attribute the identity is made of.
#[derive(Deserialize)]
struct ServerIdentitySource {
    id: Attr<String>,
}

impl ResourceIdentity for ServerResource {
    type Identity = ServerIdentity;
    type Source = ServerIdentitySource;

    fn identity_of(&self, source: ServerIdentitySource) -> Option<ServerIdentity> {
        match source.id {
            Attr::Known(id) => Some(ServerIdentity { id }),
            _ => None,
        }
    }

    fn import_by_identity(&self, identity: ServerIdentity) -> Result<Server> {
        self.import(&identity.id)
    }

    fn upgrade_identity(&self, _version: i64, raw: Value) -> Result<Value> {
        // Version 0 called `id` `server`.
        let server = raw.attr("server").cloned().unwrap_or(Value::Null);
        Ok(Value::Object([("id".to_owned(), server)].into_iter().collect()))
    }
}

/// Which servers to list.
#[derive(Deserialize, Model)]
struct ServerFilter {
    /// Lists `server-1` to `server-<count>`.
    count: i64,
    /// What each listed server's display name starts with. Defaults to `server-`.
    #[tf(default = "server-", validate = terrarium_sdk::validate::pattern("^[a-z]+-$"))]
    prefix: String,
    /// A server that does not answer when listed: its item carries the error.
    #[tf(optional)]
    broken: Option<i64>,
}

impl ListResource for ServerResource {
    type Config = ServerFilter;

    fn validate_list(&self, config: &Value) -> Result<()> {
        // Attributes may be unknown here: check only what is known.
        let number = |name| match config.attr(name) {
            Some(Value::Number(n)) => n.as_i64(),
            _ => None,
        };
        if let (Some(broken), Some(count)) = (number("broken"), number("count"))
            && !(1..=count).contains(&broken)
        {
            return Err(Diagnostics::error(
                "Invalid list configuration",
                format!("broken = {broken} is not one of the {count} servers listed."),
            ));
        }
        Ok(())
    }

    fn list(&self, filter: ServerFilter, results: &mut ListResults<'_, Self>) -> Result<()> {
        for n in 1..=filter.count {
            let id = format!("server-{n}");
            let name = format!("{}{n}", filter.prefix);
            let broken = filter.broken == Some(n);
            let more = results.push(ServerIdentity { id: id.clone() }, name, || {
                if broken {
                    return Err(Diagnostics::error(
                        "Server did not answer",
                        format!("{id} did not answer."),
                    ));
                }
                // The API hands the password back; the SDK drops it (write-only).
                Ok(Server { admin_password: Some("listed-secret".to_owned()), ..server_up(n) })
            });
            if !more {
                break;
            }
        }
        Ok(())
    }
}

struct RebootAction;

/// Reboots a server in steps.
#[derive(Deserialize, Model)]
struct Reboot {
    /// The server to reboot.
    server_id: String,
    /// How many steps the reboot takes, 1 to 10. Defaults to `3`.
    #[tf(default = 3, validate = terrarium_sdk::validate::range(1, 10))]
    steps: i64,
}

impl Action for RebootAction {
    const TYPE_NAME: &'static str = "slow_reboot";
    type Config = Reboot;

    fn invoke(&self, config: Reboot, progress: &Progress) -> Result<()> {
        for step in 1..=config.steps {
            progress
                .report(format!("rebooting {}: step {step}/{}", config.server_id, config.steps));
        }
        Ok(())
    }
}

struct VmResource;

/// What servers were before `slow_server`.
#[derive(Serialize, Deserialize, Model)]
struct Vm {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    /// How long the VM takes to boot.
    #[tf(requires_replace)]
    seconds: i64,
    /// A name in lower case letters, digits and dashes.
    #[tf(optional, validate = terrarium_sdk::validate::pattern("^[a-z][a-z0-9-]*$"))]
    label: Option<String>,
    /// How many CPUs. Defaults to `2`.
    #[tf(default = 2)]
    cpus: i64,
    /// The console password, hidden in plans and output.
    #[tf(optional, sensitive)]
    password: Option<String>,
    /// A token the VM is given at create, never stored.
    #[tf(optional, write_only)]
    token: Option<String>,
    /// How many characters the token had.
    #[tf(computed)]
    token_length: Attr<i64>,
    /// A serial number (any integer, also beyond 2^53).
    #[tf(optional)]
    serial: Option<i64>,
    /// The serial number after `serial`.
    #[tf(computed)]
    next_serial: Attr<i64>,
    /// The VM's disks.
    #[tf(nested)]
    disks: Option<Set<Disk>>,
    /// Its network interface.
    #[tf(block, max_items = 1)]
    nic: Vec<Nic>,
}

/// `nic { ... }`: a nested block.
#[derive(Serialize, Deserialize, Model)]
struct Nic {
    /// The network it is on; another network replaces the VM (requires-replace at depth).
    #[tf(requires_replace)]
    network: String,
    /// Given when the VM is made, kept while it lives.
    #[tf(computed, use_state_for_unknown)]
    mac: Attr<String>,
    /// Anything, of the type the configuration gives it, kept as given (a dynamic attribute
    /// inside a block).
    #[tf(optional)]
    meta: Option<terrarium_sdk::Dynamic>,
}

/// `disks = [{ ... }]`: a nested attribute holding a set of objects.
#[derive(Serialize, Deserialize, Model)]
struct Disk {
    /// Its size in GB.
    size: i64,
    /// Its kind. Defaults to `"ssd"`.
    #[tf(default = "ssd")]
    kind: String,
    /// Given when the disk is made; a disk keeps its id (unknown in a plan only for a new
    /// disk, matched in the set by what is configured).
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
}

/// The VM `planned` describes, made: what the provider computes set, and an id for each new
/// disk.
fn vm_made(planned: Vm) -> Vm {
    let token_length = planned.token.as_ref().map_or(0, |t| t.chars().count());
    let mut disks = planned.disks;
    for disk in disks.iter_mut().flat_map(|d| d.0.iter_mut()) {
        if disk.id.is_unknown() {
            disk.id = Attr::Known(format!("disk-{}-{}", disk.size, disk.kind));
        }
    }
    let mut nic = planned.nic;
    for n in &mut nic {
        if n.mac.is_unknown() {
            n.mac = Attr::Known(format!("mac-{}", n.network));
        }
    }
    Vm {
        id: Attr::Known(format!("vm-{}", planned.seconds)),
        nic,
        token_length: Attr::Known(i64::try_from(token_length).unwrap_or(i64::MAX)),
        next_serial: planned.serial.map_or(Attr::Null, |s| Attr::Known(s + 1)),
        disks,
        ..planned
    }
}

impl Resource for VmResource {
    const TYPE_NAME: &'static str = "slow_vm";
    type State = Vm;

    fn create(&self, planned: Vm) -> Result<Vm> {
        Ok(vm_made(planned))
    }

    fn update(&self, _prior: Vm, planned: Vm) -> Result<Vm> {
        Ok(vm_made(planned))
    }

    // A VM cannot be planned before its label is known: the plan is deferred.
    fn plan(&self, plan: &mut Plan) -> Result<()> {
        if matches!(plan.attribute("label"), Value::Unknown(_)) {
            return Err(Diagnostics::deferred(DeferredReason::ResourceConfigUnknown));
        }
        Ok(())
    }

    // The private state counts what happened to the VM: created once, read N times.
    fn create_with_private(&self, planned: Vm, private: &mut PrivateState) -> Result<Vm> {
        private.set("created", &1)?;
        self.create(planned)
    }

    fn read(&self, current: Vm) -> Result<Option<Vm>> {
        Ok(Some(current))
    }

    fn read_with_private(&self, current: Vm, private: &mut PrivateState) -> Result<Option<Vm>> {
        let reads = private.get::<i64>("reads").unwrap_or(0);
        private.set("reads", &(reads + 1))?;
        self.read(current)
    }

    fn delete(&self, _prior: Vm) -> Result<()> {
        Ok(())
    }
}

struct LeaseResource;

/// A token on a lease of `seconds`, renewed while Terraform uses it.
#[derive(Serialize, Deserialize, Model)]
struct LeaseData {
    /// How long each lease lasts.
    seconds: i64,
    /// The leased token.
    #[tf(computed)]
    token: Attr<String>,
}

/// Where the lease keeps its length.
const SECONDS: &str = "seconds";

impl EphemeralResource for LeaseResource {
    const TYPE_NAME: &'static str = "slow_lease";
    type Data = LeaseData;

    fn open(&self, config: LeaseData, lease: &mut Lease) -> Result<LeaseData> {
        lease.set(SECONDS, &config.seconds)?;
        lease.renew_after(Duration::from_secs(config.seconds.max(1).unsigned_abs()));
        log::info!("slow_lease opened", seconds = config.seconds);
        Ok(LeaseData { token: Attr::Known(format!("token-{}", config.seconds)), ..config })
    }

    fn renew(&self, lease: &mut Lease) -> Result<()> {
        let seconds = lease.get::<i64>(SECONDS).unwrap_or(1);
        log::info!("slow_lease renewed", seconds = seconds);
        lease.renew_after(Duration::from_secs(seconds.max(1).unsigned_abs()));
        Ok(())
    }

    fn close(&self, lease: &Lease) -> Result<()> {
        log::info!("slow_lease closed", seconds = lease.get::<i64>(SECONDS).unwrap_or(1));
        Ok(())
    }
}

struct PageData;

/// A URL's status and text, fetched through the sandbox's HTTP grants.
#[derive(Serialize, Deserialize, Model)]
struct Page {
    /// What to fetch.
    url: String,
    /// The HTTP status.
    #[tf(computed)]
    status: Attr<i64>,
    /// The body, as text.
    #[tf(computed)]
    text: Attr<String>,
}

impl DataSource for PageData {
    const TYPE_NAME: &'static str = "slow_page";
    type State = Page;

    fn read(&self, config: Page) -> Result<Page> {
        // A refused origin is an error diagnostic that says how to grant it.
        let response = Client::new().get(&config.url)?;
        Ok(Page {
            status: Attr::Known(i64::from(response.status)),
            text: Attr::Known(response.text()),
            ..config
        })
    }
}

terrarium_sdk::export!(SlowProvider);

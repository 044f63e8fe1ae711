"""`terrarium/slow` in Python: the same provider as tests/guests/slow (Rust), for the
tests that compare what each SDK does when a call fails or is stopped part of the way.

``slow_server`` stands for a cloud server: create "starts" it at once (its ``id`` exists from
then on) and then waits ``boot_seconds`` for it to boot (``terrarium.stop.sleep``). When
Terraform is stopped (the first Ctrl-C) during the wait, create returns the server as it is,
``ready = false``, so that Terraform records it instead of losing track of it. With
``fail_boot = true`` the server never comes up: create fails, and keeps the started server
with the error (``TerraformError.with_state``), so Terraform records it as tainted. Its
schema is at version 1: version 0 called ``boot_seconds`` ``boot`` (the state-upgrade
tests). A server with ``protect = true`` refuses to be destroyed at plan time
(``plan_destroy``). The ephemeral ``slow_lease`` is a token on a lease of ``seconds``, renewed
while Terraform uses it and closed when it is done; both are logged. The data source
``slow_page`` fetches a URL through the sandbox's HTTP grants. ``slow_vm`` is what servers
were before ``slow_server``: a ``moved`` block turns one into a server (``move_state``),
and it counts its creates and reads in its private state. A server's identity is its ``id``
(import by identity builds the server as import by ID does; identity schema version 0 called
it ``server``); the list resource
``slow_server`` lists ``server-1`` to ``server-<count>`` (``terraform query``; their display
names start with ``prefix``, the server ``broken`` does not answer, and the write-only
``admin_password`` the listing code returns is dropped); the action ``slow_reboot`` reboots a server in ``steps``, reporting each step; and ``slow_vm`` defers its
plan while its ``label`` is unknown. ``slow_network``'s ``address`` blocks are the provider's
to set (a computed block, ``block(computed=True)``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import terrarium
from terrarium import DeferredReason, TerraformError, attribute, block, http, is_unknown, log, stop, validators


@dataclass(kw_only=True)
class Server:
    """A server that takes `boot_seconds` to boot."""

    # Version 0 called `boot_seconds` `boot`.
    __terraform_version__ = 1

    id: str | None = attribute(computed=True, use_state_for_unknown=True)
    boot_seconds: int = attribute(requires_replace=True, description="How long the server takes to boot.")
    fail_boot: bool | None = attribute(requires_replace=True, description="Makes the server fail to boot.")
    ready: bool | None = attribute(computed=True, description="Whether it finished booting before create returned.")
    protect: bool | None = attribute(description="Refuses to be destroyed while true.")
    report_url: str | None = attribute(description="Where create reports, with a GET, once it stops waiting for the boot.")
    admin_password: str | None = attribute(write_only=True, description="The administrator's password, given to create, never stored.")


@dataclass(kw_only=True)
class ServerIdentity:
    """The identity of a server."""

    # Version 0 called `id` `server`.
    __terraform_version__ = 1

    id: str = attribute(description="The server's ID, `server-N`.")


@dataclass(kw_only=True)
class ServerFilter:
    """Which servers to list."""

    count: int = attribute(description="Lists `server-1` to `server-<count>`.")
    prefix: str | None = attribute(
        default="server-",
        validators=[validators.pattern("^[a-z]+-$")],
        description="What each listed server's display name starts with. Defaults to `server-`.",
    )
    broken: int | None = attribute(description="A server that does not answer when listed: its item carries the error.")


def server_up(boot_seconds: int) -> Server:
    """The server `server-<boot_seconds>`, up."""
    return Server(id=f"server-{boot_seconds}", boot_seconds=boot_seconds, ready=True)


class ServerResource(terrarium.Resource[Server]):
    type_name = "slow_server"
    state = Server
    # Its identity is its `id`, the state attribute of the same name.
    identity = ServerIdentity
    list_config = ServerFilter

    def create(self, planned: Server) -> Server:
        # The server exists from here on.
        id = f"server-{planned.boot_seconds}"
        log.info("slow_server started", id=id)
        if planned.fail_boot:
            started = replace(planned, id=id, ready=False)
            raise TerraformError(
                "Server failed to boot",
                "The server was started but never answered; it is kept so that the next apply replaces it",
            ).with_state(started)
        try:
            stop.sleep(planned.boot_seconds)
            ready = True
        except stop.Stopped:
            log.info("slow_server: Terraform is stopping; returning the server as it is", id=id)
            ready = False
        if planned.report_url is not None:
            # After a stop the SDK sends nothing: this fails at once.
            try:
                http.get(planned.report_url, timeout=10)
            except http.HttpError as e:
                log.info("slow_server: no report", error=str(e))
        return replace(planned, id=id, ready=ready)

    def import_state(self, id: str) -> Server:
        # `server-N` boots in N seconds and is up.
        number = id.removeprefix("server-")
        if not id.startswith("server-") or not number.isdigit():
            raise TerraformError("Cannot import", f"{id!r} is not a server id (server-N)")
        return server_up(int(number))

    def import_by_identity(self, identity: ServerIdentity) -> Server:
        return self.import_state(identity.id)

    def upgrade_identity(self, version: int, raw: dict) -> dict:
        # Version 0 called `id` `server`.
        return {"id": raw.get("server")}

    def validate_list(self, config: ServerFilter) -> None:
        # Attributes may be unknown here: check only what is known.
        broken, count = config.broken, config.count
        if isinstance(broken, int) and isinstance(count, int) and not 1 <= broken <= count:
            raise TerraformError(
                "Invalid list configuration", f"broken = {broken} is not one of the {count} servers listed."
            )

    def list(self, config: ServerFilter, results: terrarium.ListResults) -> None:
        for n in range(1, config.count + 1):

            def state(n: int = n) -> Server:
                if n == config.broken:
                    raise TerraformError("Server did not answer", f"server-{n} did not answer.")
                # The API hands the password back; the SDK drops it (write-only).
                return replace(server_up(n), admin_password="listed-secret")

            if not results.push(ServerIdentity(id=f"server-{n}"), f"{config.prefix}{n}", state):
                break

    def upgrade(self, version: int, raw: dict) -> dict:
        # Version 0 called `boot_seconds` `boot`.
        upgraded = dict(raw)
        upgraded["boot_seconds"] = upgraded.pop("boot", None)
        return upgraded

    # A `slow_vm` becomes a server that is up: `vm-N` is `server-N`.
    moves_from = ("slow_vm",)

    def move_state(self, source: terrarium.MovedState) -> dict:
        seconds = source.state["seconds"]
        return {"id": f"server-{seconds}", "boot_seconds": seconds, "ready": True}

    def plan_destroy(self, prior: Server) -> None:
        if prior.protect:
            raise TerraformError("Server is protected", "Set protect = false and apply before destroying it.")

    def read(self, current: Server) -> Server:
        # Nothing outside Terraform's state to look at: keep the state as it is.
        return current

    def delete(self, prior: Server) -> None:
        # The server is imaginary: nothing to delete.
        pass


@dataclass(kw_only=True)
class Disk:
    """A disk of a VM."""

    size: int = attribute(description="Its size in GB.")
    kind: str | None = attribute(default="ssd", description='Its kind. Defaults to `"ssd"`.')
    id: str | None = attribute(
        computed=True,
        use_state_for_unknown=True,
        description="Given when the disk is made; a disk keeps its id (unknown in a plan only for a new disk, matched "
        "in the set by what is configured).",
    )


@dataclass(kw_only=True)
class Nic:
    """A network interface."""

    network: str = attribute(
        requires_replace=True,
        description="The network it is on; another network replaces the VM (requires-replace at depth).",
    )
    mac: str | None = attribute(
        computed=True, use_state_for_unknown=True, description="Given when the VM is made, kept while it lives."
    )
    meta: Any = attribute(
        description="Anything, of the type the configuration gives it, kept as given (a dynamic attribute inside a "
        "block)."
    )


@dataclass(kw_only=True)
class Vm:
    """What servers were before `slow_server`."""

    id: str | None = attribute(computed=True, use_state_for_unknown=True)
    seconds: int = attribute(requires_replace=True, description="How long the VM takes to boot.")
    label: str | None = attribute(
        validators=[validators.pattern("^[a-z][a-z0-9-]*$")],
        description="A name in lower case letters, digits and dashes.",
    )
    cpus: int | None = attribute(default=2, description="How many CPUs. Defaults to `2`.")
    password: str | None = attribute(sensitive=True, description="The console password, hidden in plans and output.")
    token: str | None = attribute(write_only=True, description="A token the VM is given at create, never stored.")
    token_length: int | None = attribute(computed=True, description="How many characters the token had.")
    serial: int | None = attribute(description="A serial number (any integer, also beyond 2^53).")
    next_serial: int | None = attribute(computed=True, description="The serial number after `serial`.")
    disks: set[Disk] | None = attribute(description="The VM's disks.")
    nic: list[Nic] = block(max_items=1, description="Its network interface.")


def vm_made(planned: Vm) -> Vm:
    """The VM `planned` describes, made: what the provider computes set, and an id for each new
    disk."""
    disks = planned.disks and [
        d if isinstance(d.id, str) else replace(d, id=f"disk-{d.size}-{d.kind}") for d in planned.disks
    ]
    nic = [n if isinstance(n.mac, str) else replace(n, mac=f"mac-{n.network}") for n in planned.nic or []]
    return replace(
        planned,
        nic=nic,
        id=f"vm-{planned.seconds}",
        token_length=len(planned.token or ""),
        next_serial=None if planned.serial is None else planned.serial + 1,
        disks=disks,
    )


class VmResource(terrarium.Resource[Vm]):
    type_name = "slow_vm"
    state = Vm

    def create(self, planned: Vm) -> Vm:
        return vm_made(planned)

    def update(self, prior: Vm, planned: Vm) -> Vm:
        return vm_made(planned)

    # A VM cannot be planned before its label is known: the plan is deferred.
    def plan(self, prior: Vm | None, planned: Vm, config: Vm) -> Vm:
        if is_unknown(config.label):
            raise TerraformError.deferred(DeferredReason.RESOURCE_CONFIG_UNKNOWN)
        return planned

    # The private state counts what happened to the VM: created once, read N times.
    def create_with_private(self, planned: Vm, private: terrarium.PrivateState) -> Vm:
        private["created"] = 1
        return self.create(planned)

    def read(self, current: Vm) -> Vm:
        return current

    def read_with_private(self, current: Vm, private: terrarium.PrivateState) -> Vm:
        private["reads"] = private.get("reads", 0) + 1
        return self.read(current)

    def delete(self, prior: Vm) -> None:
        pass


@dataclass(kw_only=True)
class Address:
    """An address the provider assigned."""

    ip: str | None = attribute(computed=True)
    port: int | None = attribute(computed=True)


@dataclass(kw_only=True)
class Network:
    """A network whose addresses the provider assigns: `address` is a computed nested block
    (protocol 6.11), which a Terraform older than 1.16 sees as a computed attribute."""

    id: str | None = attribute(computed=True, use_state_for_unknown=True)
    size: int = attribute(description="How many addresses the network gets.")
    note: str | None = attribute(description="A note; changing it updates the network in place.")
    address: list[Address] = block(computed=True, description="The addresses the provider assigned.")


def network_assigned(network: Network) -> Network:
    """The addresses of a network of `size` (changed by the note, so that an update shows a new
    value)."""
    port = 8443 if network.note is not None else 443
    address = [Address(ip=f"10.0.0.{i}", port=port) for i in range(1, network.size + 1)]
    return replace(network, id=f"net-{network.size}", address=address)


class NetworkResource(terrarium.Resource[Network]):
    type_name = "slow_network"
    state = Network

    def create(self, planned: Network) -> Network:
        return network_assigned(planned)

    def update(self, prior: Network, planned: Network) -> Network:
        return network_assigned(planned)

    def read(self, current: Network) -> Network:
        return current

    def delete(self, prior: Network) -> None:
        pass


@dataclass(kw_only=True)
class LeaseData:
    """A token on a lease of `seconds`, renewed while Terraform uses it."""

    seconds: int = attribute(description="How long each lease lasts.")
    token: str | None = attribute(computed=True, description="The leased token.")


def renew_after(seconds: int) -> datetime:
    return datetime.now(timezone.utc) + timedelta(seconds=max(seconds, 1))


class LeaseResource(terrarium.EphemeralResource[LeaseData]):
    type_name = "slow_lease"
    state = LeaseData

    def open(self, config: LeaseData) -> terrarium.Opened[LeaseData]:
        log.info("slow_lease opened", seconds=config.seconds)
        opened = replace(config, token=f"token-{config.seconds}")
        return terrarium.Opened(opened, str(config.seconds).encode(), renew_after(config.seconds))

    def renew(self, private: bytes | None) -> terrarium.Renewed:
        seconds = int(private or b"1")
        log.info("slow_lease renewed", seconds=seconds)
        return terrarium.Renewed(private, renew_after(seconds))

    def close(self, private: bytes | None) -> None:
        log.info("slow_lease closed", seconds=int(private or b"1"))


@dataclass(kw_only=True)
class Page:
    """A URL's status and text, fetched through the sandbox's HTTP grants."""

    url: str = attribute(description="What to fetch.")
    status: int | None = attribute(computed=True, description="The HTTP status.")
    text: str | None = attribute(computed=True, description="The body, as text.")


class PageData(terrarium.DataSource[Page]):
    type_name = "slow_page"
    state = Page

    def read(self, config: Page) -> Page:
        # A refused origin raises http.HttpDenied: a diagnostic that says how to grant it.
        response = http.get(config.url, timeout=10)
        return replace(config, status=response.status, text=response.text)


@dataclass(kw_only=True)
class Reboot:
    """Reboots a server in steps."""

    server_id: str = attribute(description="The server to reboot.")
    steps: int | None = attribute(
        default=3,
        validators=[validators.between(1, 10)],
        description="How many steps the reboot takes, 1 to 10. Defaults to `3`.",
    )


class RebootAction(terrarium.Action[Reboot]):
    type_name = "slow_reboot"
    config = Reboot

    def invoke(self, config: Reboot, progress: terrarium.Progress) -> None:
        for step in range(1, config.steps + 1):
            progress.report(f"rebooting {config.server_id}: step {step}/{config.steps}")


class Slow(terrarium.Provider):
    resources = [ServerResource, VmResource, NetworkResource]
    data_sources = [PageData]
    ephemeral_resources = [LeaseResource]
    list_resources = [ServerResource]
    actions = [RebootAction]


Provider, Behaviour = terrarium.export(Slow)

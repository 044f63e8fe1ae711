"""Terraform's request to stop (Ctrl-C), as a running call sees it.

On the first Ctrl-C Terraform sends StopProvider and waits for the calls it made to return. A
call that has already done something real (a create that made its object and is now waiting
for it to become ready) should return the state it reached, so that Terraform records the
object instead of losing track of it. Terrarium tells the running call (:func:`stopping`),
lets it go on for a grace period (5 s by default) and then interrupts it; whatever it had not
returned by then is lost.

:func:`sleep` wakes early when a stop arrives, raising :class:`Stopped`, so a method that
waits learns of the stop where it waits::

    server = start_server()  # the object exists from here on
    try:
        while not is_ready(server):
            stop.sleep(2)
    except stop.Stopped:
        return server  # Terraform is stopping: hand back what exists, so that it is recorded

Outside a component (plain Python tests) nothing stops a call.
"""

from __future__ import annotations

import time

from .diagnostics import TerraformError

# At import, not in a call: componentize-py keeps in the component only the modules imported
# while it builds it (a stop.sleep that imported them itself never saw the stop). None natively.
try:
    from wit_world.imports import lifecycle as _lifecycle
except ImportError:
    _lifecycle = None
try:  # only in the world with wasi:http, which brings the clock's WIT along
    from wit_world.imports import monotonic_clock as _monotonic_clock
except ImportError:
    _monotonic_clock = None

#: How often :func:`sleep` looks for a stop, in seconds.
_SLICE = 0.1


class Stopped(TerraformError):
    """Terraform asked the provider to stop. Raised it is an error diagnostic that says so; a
    method that has made something should return its state instead (or raise
    ``TerraformError.with_state``)."""

    def __init__(self) -> None:
        super().__init__(
            "Operation interrupted",
            "Terraform asked the provider to stop (Ctrl-C), so the operation was not finished",
        )


def stopping() -> bool:
    """Whether Terraform has asked the provider to stop since the running call began."""
    return _lifecycle is not None and bool(_lifecycle.stopping())


def sleep(seconds: float) -> None:
    """Sleeps for ``seconds``, or until Terraform asks the provider to stop: then (and if it
    already had) raises :class:`Stopped` at once."""
    until = time.monotonic() + seconds
    while True:
        if stopping():
            raise Stopped()
        left = until - time.monotonic()
        if left <= 0:
            return
        _wait(min(left, _SLICE))


def _wait(seconds: float) -> None:
    """Blocks for ``seconds`` on the WASI monotonic clock, as the Rust SDK does."""
    if _monotonic_clock is None:  # not inside a component
        time.sleep(seconds)
        return
    with _monotonic_clock.subscribe_duration(int(seconds * 1e9)) as ready:
        ready.block()

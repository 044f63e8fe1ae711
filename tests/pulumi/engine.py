"""Plays Pulumi's engine towards a resource-provider plugin, as the engine does it.

The engine serves `pulumirpc.Engine` (the plugin's logs go there), starts the plugin executable
with the engine's address as its one argument, reads exactly one line from the plugin's stdout
(the port; everything after it is log output), dials 127.0.0.1:PORT in plaintext and calls
`pulumirpc.ResourceProvider` through the generated stubs the PyPI `pulumi` package ships. To
stop a plugin it sends SIGINT, then kills it after 5 s.
"""

import os
import select
import signal
import subprocess
import time
from concurrent import futures

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import engine_pb2_grpc, provider_pb2, provider_pb2_grpc

SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

# How long a plugin gets to print its port, and the engine to connect (dialPlugin's 10 s, with
# room for a cold component compile on a loaded machine).
START_TIMEOUT = 120.0


class Engine(engine_pb2_grpc.EngineServicer):
    """The engine's own gRPC service: records what plugins log."""

    def __init__(self):
        self.logs = []
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        engine_pb2_grpc.add_EngineServicer_to_server(self, self.server)
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.address = f"127.0.0.1:{port}"

    def Log(self, request, context):
        self.logs.append(request)
        return empty_pb2.Empty()

    def stop(self):
        self.server.stop(grace=None)


class Plugin:
    """A started plugin: its process, the port line it printed and a provider stub."""

    def __init__(self, argv, engine, env=None, stderr_path=None):
        self.engine = engine
        self.stderr = open(stderr_path or os.devnull, "wb")
        self.process = subprocess.Popen(
            list(argv) + ([engine.address] if engine else []),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env={**os.environ, **(env or {})},
        )
        self.port_line = self._read_port_line()
        self.port = int(self.port_line.strip())
        self.channel = grpc.insecure_channel(
            f"127.0.0.1:{self.port}",
            options=[("grpc.max_receive_message_length", 400 * 1024 * 1024)],
        )
        grpc.channel_ready_future(self.channel).result(timeout=START_TIMEOUT)
        self.provider = provider_pb2_grpc.ResourceProviderStub(self.channel)

    def _read_port_line(self):
        # One byte at a time up to the newline, as the engine reads it.
        line = b""
        deadline = time.monotonic() + START_TIMEOUT
        fd = self.process.stdout.fileno()
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise TimeoutError(f"no port line within {START_TIMEOUT} s")
            byte = os.read(fd, 1)
            if not byte:
                raise RuntimeError(f"the plugin exited before printing its port: {self.process.wait()}")
            line += byte
        return line.decode()

    def health(self):
        """grpc.health.v1.Health/Check for the whole server: the status, as a name."""
        check = self.channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=lambda _: b"",
            response_deserializer=lambda b: b,
        )
        try:
            answer = check(None, timeout=30)
        except grpc.RpcError as e:
            return e.code().name
        # HealthCheckResponse{status = 1 (SERVING)} is the two bytes 08 01.
        return "SERVING" if answer == b"\x08\x01" else f"status bytes {answer!r}"

    def stop(self):
        """SIGINT, then kill after 5 s; returns the exit status."""
        self.channel.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.stderr.close()
        return self.process.returncode


def struct(value):
    """A dict as the google.protobuf.Struct the engine sends."""
    s = struct_pb2.Struct()
    s.update(value)
    return s


def plain(s):
    """A Struct as a dict (numbers are floats, as on the wire)."""
    return json_format.MessageToDict(s, preserving_proto_field_name=True)


def secret(value):
    return {SIG_KEY: SECRET_SIG, "value": value}


def is_secret(value):
    return isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG


def reveal(value):
    return value["value"] if is_secret(value) else value


def urn(token, name, stack="dev", project="harness"):
    return f"urn:pulumi:{stack}::{project}::{token}::{name}"


__all__ = [
    "Engine", "Plugin", "struct", "plain", "secret", "is_secret", "reveal", "urn", "UNKNOWN",
    "provider_pb2", "empty_pb2",
]

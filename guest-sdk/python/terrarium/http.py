"""HTTP requests from a provider, over ``wasi:http``: small, blocking, and sandboxed::

    from terrarium import http

    pet = http.get("https://pets.example.com/v1/pets/rex").raise_for_status().json()
    http.post("https://pets.example.com/v1/pets", json={"name": "rex"}, headers={"Authorization": token})

Terrarium runs a provider deny-by-default: a request reaches the network only when the user
granted its origin (scheme, host and port), with ``terrarium install --allow-http
https://pets.example.com`` or ``allow_http`` in the provider's ``grants.toml``. A refused
request raises :class:`HttpDenied`, a :class:`~terrarium.TerraformError` whose diagnostic
names the origin and the grant that allows it: provider code need not catch it, Terraform
shows the user what to do. Every other failure raises :class:`HttpError`, also a
``TerraformError``.

Redirects are followed (five at most unless told), each as a new request that the host checks
against the grants like the first: a granted server cannot send the provider anywhere the
user did not grant. Outside a component (natively, in unit tests) there is no ``wasi:http``,
and every request raises :class:`HttpError`.
"""

from __future__ import annotations

import json as jsonlib
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import urljoin, urlsplit

from .diagnostics import TerraformError
from .stop import stopping

# At import, not in `request`: componentize-py keeps in the component only the modules
# imported while it builds it.
try:
    from componentize_py_types import Err, Ok
    from wit_world.imports import outgoing_handler
    from wit_world.imports import wasi_http_types as h
    from wit_world.imports import wasi_io_streams as s
except ImportError:  # natively, or a world without wasi:http
    Err = Ok = outgoing_handler = h = s = None

__all__ = ["HttpDenied", "HttpError", "Response", "delete", "get", "patch", "post", "put", "request"]

#: Request bodies go out in writes of at most this many bytes (what wasi:io accepts at once).
_WRITE_CHUNK = 4096
_READ_CHUNK = 64 * 1024


class HttpError(TerraformError):
    """A request that failed: the URL could not be used, the connection failed, or (from
    :meth:`Response.raise_for_status`) the server answered with an error status."""

    def __init__(self, detail: str, summary: str = "HTTP request failed"):
        super().__init__(summary, detail)


def denial_remedy(origin: str) -> str:
    """What a person does to let the provider reach ``origin`` (the Rust and TypeScript SDKs
    say the same): grants are the person's, and Terraform's lock file hashes the package."""
    return (
        "Terrarium runs providers deny-by-default, and only you grant them more. If you installed "
        f"the provider with `terrarium install`, run that command again with `--force --allow-http {origin}` "
        "added (the new install replaces its grants: keep its other grant flags), then delete the "
        "provider's entry from .terraform.lock.hcl and run `terraform init` (the package changed, so the "
        "checksum Terraform locked for it did too). If `terraform init` installed it from a release, add "
        f'"{origin}" to allow_http in the grants file that `terrarium grants show PACKAGE_DIR` says the '
        "provider runs with; nothing else needs to change. Under `terrarium dev`, add "
        f"`--allow-http {origin}` to its command."
    )


class HttpDenied(HttpError):
    """The sandbox refused the request: its origin is not granted to the provider."""

    def __init__(self, url: str, origin: str):
        self.url, self.origin = url, origin
        super().__init__(
            f"the request to {url} was refused by Terrarium's sandbox: the provider has no grant for {origin}. "
            + denial_remedy(origin),
            "HTTP request denied by the sandbox",
        )


@dataclass
class Response:
    """What the server answered."""

    url: str
    status: int
    #: Header names (lower case, as wasi:http gives them) and values, in order.
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        """The first value of the header ``name`` (any case), or None."""
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), None)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body as JSON; a body that is not JSON raises :class:`HttpError`."""
        try:
            return jsonlib.loads(self.body)
        except ValueError as e:
            raise HttpError(f"{self.url} answered with a body that is not JSON: {e}") from None

    def raise_for_status(self) -> Response:
        """This response, unless its status is not 2xx: then :class:`HttpError` with the body."""
        if not 200 <= self.status < 300:
            raise HttpError(f"{self.url} answered with HTTP status {self.status}: {self.text[:500]}")
        return self


@dataclass
class _Target:
    https: bool
    authority: str
    origin: str
    path_and_query: str

    @staticmethod
    def parse(url: str) -> _Target:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as e:
            raise HttpError(f"invalid URL {url!r}: {e}") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise HttpError(f"invalid URL {url!r}: only absolute http:// and https:// URLs are supported")
        if not parts.hostname:
            raise HttpError(f"invalid URL {url!r}: it has no host")
        if parts.username is not None:
            raise HttpError(f"invalid URL {url!r}: give credentials in a header, not in the URL")
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        default = 443 if scheme == "https" else 80
        origin = f"{scheme}://{host}" + (f":{port}" if port not in (None, default) else "")
        authority = host + (f":{port}" if port is not None else "")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return _Target(scheme == "https", authority, origin, path)


def request(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    body: bytes | str | None = None,
    json: Any = None,
    timeout: float | None = None,
    max_redirects: int = 5,
) -> Response:
    """Sends a request and reads the whole response; once Terraform has asked the provider to
    stop (:func:`terrarium.stopping`) it sends nothing and raises. ``json`` sends a value as a JSON body
    (with ``Content-Type: application/json``); ``timeout`` (seconds) bounds connecting and
    each wait for response bytes. Up to ``max_redirects`` redirects are followed, each a new
    request that the host checks against the grants like the first (303, and 301/302 after a
    POST, continue with a GET; ``Authorization`` is not sent to another origin)."""
    headers = dict(headers or {})
    if json is not None:
        body = jsonlib.dumps(json).encode()
        if not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = "application/json"
    if isinstance(body, str):
        body = body.encode()
    target = _Target.parse(url)
    for _ in range(max_redirects + 1):
        if stopping():
            # Terraform asked the provider to stop (Ctrl-C): no new request goes out, as with
            # the Rust SDK's client, so a call winding down does not start more work.
            raise HttpError(
                f"the request to {url} was not sent: Terraform asked the provider to stop (Ctrl-C)",
                "Operation interrupted",
            )
        response = _send_once(method, url, target, headers, body or b"", timeout)
        location = response.header("location") if response.status in (301, 302, 303, 307, 308) else None
        if location is None:
            return response
        next_url = urljoin(url, location)
        next_target = _Target.parse(next_url)
        if response.status == 303 or (response.status in (301, 302) and method.upper() == "POST"):
            method, body = "GET", b""
            headers = {k: v for k, v in headers.items() if k.lower() not in ("content-type", "content-length")}
        if next_target.origin != target.origin:
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        url, target = next_url, next_target
    raise HttpError(f"more than {max_redirects} redirects, the last to {url}")


def _send_once(
    method: str, url: str, target: _Target, headers: dict[str, str], body: bytes, timeout: float | None
) -> Response:
    """One request, no redirects followed."""
    if body and not any(k.lower() == "content-length" for k in headers):
        # Known up front: the server need not read a chunked body.
        headers = {**headers, "Content-Length": str(len(body))}
    try:
        fields = h.Fields()
    except (AttributeError, NotImplementedError):  # no bindings, or their native stubs
        raise HttpError(f"HTTP is only available inside a Terrarium component (request to {url})") from None

    def failure(code: Any) -> HttpError:
        if isinstance(code, h.ErrorCode_HttpRequestDenied):
            return HttpDenied(url, target.origin)
        if isinstance(code, h.ErrorCode_HttpResponseBodySize):
            return HttpError(
                f"the response from {url} is larger than the provider's HTTP response limit. Raise it with "
                '`[limits] http_response = "SIZE"` in the provider\'s grants file, or reinstall with '
                "`terrarium install --http-response SIZE`.",
                "HTTP response too large",
            )
        return HttpError(f"the request to {url} failed: {type(code).__name__.removeprefix('ErrorCode_')}")

    for name, value in headers.items():
        try:
            fields.append(name, str(value).encode())
        except Err as e:
            raise HttpError(f"the header {name!r} cannot be sent: {type(e.value).__name__}") from None
    outgoing = h.OutgoingRequest(fields)
    outgoing.set_method(_method(method))
    outgoing.set_scheme(h.Scheme_Https() if target.https else h.Scheme_Http())
    outgoing.set_authority(target.authority)
    outgoing.set_path_with_query(target.path_and_query)
    outgoing_body = outgoing.body()
    options = None
    if timeout is not None:
        options = h.RequestOptions()
        nanos = int(timeout * 1_000_000_000)
        for set_timeout in (options.set_connect_timeout, options.set_between_bytes_timeout):
            try:
                set_timeout(nanos)
            except Err:
                pass  # a host without the option sends the request without it
    try:
        future = outgoing_handler.handle(outgoing, options)
    except Err as e:
        raise failure(e.value) from None
    # The body goes out after the request: the host consumes it as it is written. A refused
    # request closes the stream at once; the refusal itself arrives on the response.
    send_error = None
    if body:
        with outgoing_body.write() as stream:
            try:
                for start in range(0, len(body), _WRITE_CHUNK):
                    stream.blocking_write_and_flush(body[start : start + _WRITE_CHUNK])
            except Err:
                send_error = HttpError(f"the request to {url} failed while sending its body")
    try:
        h.OutgoingBody.finish(outgoing_body, None)
    except Err as e:
        send_error = send_error or failure(e.value)

    with future:
        with future.subscribe() as ready:
            ready.block()
        answer = future.get()
    if isinstance(answer, Ok) and isinstance(answer.value, Err):
        raise failure(answer.value.value)
    if not (isinstance(answer, Ok) and isinstance(answer.value, Ok)):
        raise send_error or HttpError(f"the request to {url} got no response")
    if send_error:
        raise send_error
    with answer.value.value as incoming:
        status = incoming.status()
        with incoming.headers() as fields:
            received = [(k, v.decode("latin-1")) for k, v in fields.entries()]
        content = _read_body(incoming.consume(), url, failure)
    return Response(url, status, received, content)


def _read_body(incoming_body: Any, url: str, failure: Any) -> bytes:
    chunks = []
    with incoming_body.stream() as stream:
        while True:
            try:
                chunks.append(stream.blocking_read(_READ_CHUNK))
            except Err as e:
                if isinstance(e.value, s.StreamError_Closed):
                    break
                code = h.http_error_code(e.value.value)
                raise (failure(code) if code is not None else HttpError(f"reading the response from {url} failed"))
    h.IncomingBody.finish(incoming_body).__exit__(None, None, None)
    return b"".join(chunks)


def _method(method: str) -> Any:
    known = {
        "GET": h.Method_Get, "HEAD": h.Method_Head, "POST": h.Method_Post, "PUT": h.Method_Put,
        "DELETE": h.Method_Delete, "PATCH": h.Method_Patch, "OPTIONS": h.Method_Options,
    }  # fmt: skip
    name = method.upper()
    return known[name]() if name in known else h.Method_Other(method)


def get(url: str, **kw: Any) -> Response:
    """``request("GET", url, ...)``."""
    return request("GET", url, **kw)


def post(url: str, **kw: Any) -> Response:
    """``request("POST", url, ...)``."""
    return request("POST", url, **kw)


def put(url: str, **kw: Any) -> Response:
    """``request("PUT", url, ...)``."""
    return request("PUT", url, **kw)


def patch(url: str, **kw: Any) -> Response:
    """``request("PATCH", url, ...)``."""
    return request("PATCH", url, **kw)


def delete(url: str, **kw: Any) -> Response:
    """``request("DELETE", url, ...)``."""
    return request("DELETE", url, **kw)

"""terrarium.http in a built component (tests/web/web.py, the README's HTTP example) through
`terrarium harness`: a granted origin is reached, an ungranted one is refused by the host's
sandbox with a diagnostic that names the grant. Real HTTP servers on 127.0.0.1, started here.

Needs the built component (``make build-guests``) and the terrarium binary: the end-to-end
suite runs it with TERRARIUM_BIN and TERRARIUM_COMPONENTS_DIR set.
"""

import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

import pytest

from terrarium import TerraformError, http
from terrarium.testing import Failure, Harness

HERE = Path(__file__).resolve().parent
COMPONENT = Path(os.environ.get("TERRARIUM_COMPONENTS_DIR", ".")) / "web_py.wasm"


class Server:
    """An HTTP server on a free port of 127.0.0.1 that answers GET with a greeting (or, for
    ``/redirect?to=URL``, a 302 to URL), POST with what it was sent (or, for ``/see-other``, a
    303 to ``/posted``), and remembers every request."""

    def __init__(self):
        self.requests: list[tuple[str, str, bytes]] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(("GET", self.path, b""))
                if self.path.startswith("/redirect?to="):
                    self.answer(302, b"", location=unquote(self.path.removeprefix("/redirect?to=")))
                else:
                    self.answer(200, f"hello from {self.path}".encode())

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                seen.append(("POST", self.path, body))
                if self.path == "/see-other":
                    self.answer(303, b"", location="/posted")
                else:
                    self.answer(201, b"got " + body)

            def answer(self, status, body, location=None):
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers():
    granted, other = Server(), Server()
    yield granted, other
    granted.close()
    other.close()


def test_a_granted_origin_is_reached_and_an_ungranted_one_refused(servers):
    granted, other = servers
    with Harness(COMPONENT, allow_http=[granted.origin]) as h:
        page = h.read_data("web_page", {"url": f"{granted.origin}/rex"}).state
        assert (page["status"], page["text"]) == (200, "hello from /rex")

        # A body goes out too (sent in chunks of 4 KiB: this one takes three).
        long = "x" * 10_000
        posted = h.read_data("web_page", {"url": f"{granted.origin}/pets", "message": long}).state
        assert posted["status"] == 201
        assert json.loads(posted["text"].removeprefix("got ")) == {"message": long}
        assert granted.requests[-1][:2] == ("POST", "/pets")

        with pytest.raises(Failure) as refused:
            h.read_data("web_page", {"url": f"{other.origin}/rex"})
    d = refused.value.diagnostics[0]
    assert d.summary == "HTTP request denied by the sandbox"
    assert f"no grant for {other.origin}" in d.detail
    assert f"`--force --allow-http {other.origin}`" in d.detail
    assert other.requests == [], "the sandbox let an ungranted request through"


def test_redirects_are_followed_and_each_hop_is_checked_against_the_grants(servers):
    granted, other = servers
    with Harness(COMPONENT, allow_http=[granted.origin]) as h:
        moved = h.read_data("web_page", {"url": f"{granted.origin}/redirect?to=/rex"}).state
        assert (moved["status"], moved["text"]) == (200, "hello from /rex")
        # A 303 after a POST continues with a GET, without the body.
        posted = h.read_data("web_page", {"url": f"{granted.origin}/see-other", "message": "hi"}).state
        assert (posted["status"], posted["text"]) == (200, "hello from /posted")
        assert [r[:2] for r in granted.requests[-2:]] == [("POST", "/see-other"), ("GET", "/posted")]

        away = f"{granted.origin}/redirect?to={quote(other.origin + '/rex', safe='')}"
        with pytest.raises(Failure) as refused:
            h.read_data("web_page", {"url": away})
    d = refused.value.diagnostics[0]
    assert d.summary == "HTTP request denied by the sandbox"
    assert f"`--force --allow-http {other.origin}`" in d.detail
    assert other.requests == [], "a granted server redirected the provider past the sandbox"


def test_the_readme_shows_this_provider_as_it_is_built():
    readme = (HERE.parent / "README.md").read_text()
    shown = re.search(r"```python\n(# file: web\.py\n.*?)```", readme, re.S)
    assert shown, "guest-sdk/python/README.md has no `# file: web.py` block"
    assert shown.group(1) == (HERE / "web" / "web.py").read_text()


def test_urls_give_the_origin_a_grant_names():
    parse = http._Target.parse
    assert parse("http://127.0.0.1:2379/v3/kv?x=1").origin == "http://127.0.0.1:2379"
    assert parse("http://127.0.0.1:2379/v3/kv?x=1").path_and_query == "/v3/kv?x=1"
    assert parse("HTTPS://API.example.com").origin == "https://api.example.com"
    assert parse("https://api.example.com:443/").origin == "https://api.example.com"
    assert parse("https://[::1]:8443?q").origin == "https://[::1]:8443"
    for bad in ["ftp://x/", "no-scheme", "http:///path", "http://user:pw@host/", "http://h:99999/"]:
        with pytest.raises(http.HttpError):
            parse(bad)


def test_outside_a_component_a_request_is_a_terraform_error():
    with pytest.raises(TerraformError) as e:
        http.get("http://127.0.0.1:1/")
    assert "only available inside a Terrarium component" in e.value.diagnostics[0].detail

"""The playground's HTTP server: the standard library's, on 127.0.0.1 at a free port.

What it lets through, in the order it is checked:
- the Host and Origin headers that `http_endpoint` (the runtime's one rule of who may reach a
  local server, also the MCP server's) lets through for a loopback bind: a page of another site
  that renames itself to 127.0.0.1 (DNS rebinding), or that posts from its own origin, is refused;
- the page and its assets, by their fixed names only: no path reaches a file;
- the page itself and every question (`/api/...`) only with the token made at start (in the
  page's address, and in the `X-Playground-Token` header the page's script sends), compared in
  constant time;
- a question's body only as JSON (which a form of another site cannot send without asking
  first), of a bounded size; a client that sends nothing for `READ_TIMEOUT` is disconnected.
"""

from __future__ import annotations

import hmac
import json
import secrets
import sys
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from codegen.build import UsageError
from codegen.playground.catalog import READINGS, Playground
from codegen.runtime._mcp import http_endpoint

HOST = "127.0.0.1"
TOKEN_HEADER = "X-Playground-Token"
# A model's reply, or a call's arguments, is far below this; a bigger body is refused unread.
MAX_BODY = 1 << 20
# Seconds a client may stay silent while it sends a request before its connection is closed.
READ_TIMEOUT = 10.0

# The page's own files (assets/), the only ones served, by the path the page asks them under.
ASSETS = {
    "/": ("page.html", "text/html; charset=utf-8"),
    "/page.js": ("page.js", "text/javascript; charset=utf-8"),
    "/page.css": ("page.css", "text/css; charset=utf-8"),
}
# Everything the page loads comes from here; nothing may frame it or be sent elsewhere.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
        " img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class PlaygroundServer(ThreadingHTTPServer):
    """The server for one playground; `url` (with the token) is what the user opens."""

    daemon_threads = True

    def __init__(self, playground: Playground, port: int = 0) -> None:
        super().__init__((HOST, port), _Handler)
        self.playground = playground
        self.token = secrets.token_urlsafe(24)
        endpoint = http_endpoint(HOST, self.server_port)
        self.allowed_hosts = endpoint.allowed_hosts
        # Only the page's own origin asks questions: another local app's page (any port of
        # localhost, which http_endpoint admits for the MCP server's clients) is refused.
        self.allowed_origins = tuple(
            f"{origin[:-1]}{self.server_port}"
            for origin in endpoint.allowed_origins
            if origin.endswith(":*")
        )
        folder = resources.files("codegen.playground").joinpath("assets")
        self.assets = {
            path: (folder.joinpath(name).read_bytes(), kind)
            for path, (name, kind) in ASSETS.items()
        }
        self.catalog = _json_bytes(playground.catalog())

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_port}/?token={self.token}"


def admitted(value: str, allowed: tuple[str, ...]) -> bool:
    """Whether a Host or Origin header value is one of `http_endpoint`'s entries: exactly, or as
    `name:*` with a port of digits (the entries' meaning, as the MCP SDK reads them)."""
    for entry in allowed:
        if value == entry:
            return True
        if entry.endswith(":*"):
            base = entry[:-1]
            if value.startswith(base) and value[len(base) :].isdigit():
                return True
    return False


class _Handler(BaseHTTPRequestHandler):
    server: PlaygroundServer
    timeout = READ_TIMEOUT
    server_version = "codegen-playground"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.headers.get("Content-Length", "0") not in ("", "0"):
            # A body no GET reads would be taken for the next request on this connection.
            self.close_connection = True
        if not self._reachable():
            return
        url = urlsplit(self.path)
        if url.path == "/api/catalog":
            if self._has_token(self.headers.get(TOKEN_HEADER)):
                self._send(HTTPStatus.OK, self.server.catalog, "application/json")
            return
        asset = self.server.assets.get(url.path)
        if asset is None:
            self._refuse(HTTPStatus.NOT_FOUND, "no such page")
            return
        if url.path == "/" and not self._has_token(_query_token(url.query)):
            return
        self._send(HTTPStatus.OK, *asset)

    def do_POST(self) -> None:
        if not self._reachable() or not self._has_token(self.headers.get(TOKEN_HEADER)):
            return
        path = urlsplit(self.path).path
        if path not in ("/api/parse", "/api/run"):
            self._refuse(HTTPStatus.NOT_FOUND, "no such question")
            return
        body = self._body()
        if body is None:
            return
        try:
            answer = self._answer(path, body)
        except (UsageError, ValueError, TypeError) as exc:
            self._refuse(HTTPStatus.BAD_REQUEST, str(exc))
            return
        except RecursionError:
            self._refuse(HTTPStatus.BAD_REQUEST, "the text is nested too deeply to show")
            return
        self._send(HTTPStatus.OK, _json_bytes(answer), "application/json")

    def _answer(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        playground = self.server.playground
        if path == "/api/parse":
            reading = body.get("reading")
            if reading not in READINGS:
                raise ValueError(f"reading must be one of {', '.join(READINGS)}")
            return playground.parse(_text(body, "text"), reading, _text(body, "tool"))
        return playground.run(_text(body, "tool"), _text(body, "arguments"), _text(body, "id"))

    def _reachable(self) -> bool:
        """Host and Origin let through (421 and 403 otherwise, as the MCP server answers); one
        Host header and one Origin at most, and no Transfer-Encoding, whose body a reader of
        Content-Length would take for the next request."""
        if len(self.headers.get_all("Host", [])) > 1 or len(self.headers.get_all("Origin", [])) > 1:
            self.close_connection = True
            self._refuse(HTTPStatus.BAD_REQUEST, "one Host and one Origin header at most")
            return False
        if "Transfer-Encoding" in self.headers:
            self.close_connection = True
            self._refuse(
                HTTPStatus.NOT_IMPLEMENTED, "send a Content-Length, not a Transfer-Encoding"
            )
            return False
        if not admitted(self.headers.get("Host", ""), self.server.allowed_hosts):
            self._refuse(HTTPStatus.MISDIRECTED_REQUEST, "this Host is not served here")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and not admitted(origin, self.server.allowed_origins):
            self._refuse(HTTPStatus.FORBIDDEN, "requests from this Origin are refused")
            return False
        return True

    def _has_token(self, given: str | None) -> bool:
        if given is not None and hmac.compare_digest(given.encode(), self.server.token.encode()):
            return True
        self._refuse(HTTPStatus.FORBIDDEN, "the token is missing or wrong: open the printed URL")
        return False

    def _body(self) -> Mapping[str, Any] | None:
        """The request's JSON object, or None when it was refused (and the answer sent)."""
        if self.headers.get_content_type() != "application/json":
            self._refuse(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
            return None
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "send a Content-Length")
            return None
        if int(length) > MAX_BODY:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY} bytes")
            return None
        try:
            body = json.loads(self.rfile.read(int(length)))
        except (ValueError, RecursionError):  # not JSON, or nested past what json reads
            body = None
        if not isinstance(body, dict):
            self._refuse(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
            return None
        return body

    def _refuse(self, status: HTTPStatus, why: str) -> None:
        # The connection closes: what is left of a refused body is never read.
        self.close_connection = True
        self._send(status, _json_bytes({"error": why}), "application/json")

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: the page's address holds the token."""

    def log_error(self, format: str, *args: Any) -> None:
        print(f"codegen playground: {format % args}", file=sys.stderr)


def _query_token(query: str) -> str | None:
    values = parse_qs(query).get("token")
    return values[0] if values else None


def _text(body: Mapping[str, Any], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise TypeError(f"{key} must be a string")
    return value


def _json_bytes(value: object) -> bytes:
    # ASCII: a lone surrogate a model sent is escaped, never an encoding error.
    return json.dumps(value).encode("ascii")

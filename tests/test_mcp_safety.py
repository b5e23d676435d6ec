"""The generated MCP server safe by default (issue 32, items 17 and 18, and "What to build" 5).

- HTTP: `_mcp.http_endpoint` alone decides which Host and Origin headers reach the server. The
  SDK's DNS-rebinding protection is on for every bind, a bind beyond loopback is refused unless
  asked for by name, and `--allowed-host` / `--allowed-origin` (`allowed_hosts` /
  `allowed_origins`) add to what loopback allows. Proved against real servers on 127.0.0.1, one
  per bind address, with raw requests whose Host and Origin headers are whatever the case says.
- stdio: stdout carries JSON-RPC alone while the command runs, whatever the handlers print.
- `tools/list` with a cursor is JSON-RPC's invalid params (-32602): the list is never paged.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.client.stdio
import mcp.types as mt
import pytest
import uvicorn
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters

from generated import memory_tools
from generated.memory_tools import _mcp
from generated.memory_tools import mcp as package_mcp
from tests import mcp_handlers

ROOT = Path(__file__).resolve().parent.parent
PROG = "python -m generated.memory_tools.mcp"

# Every bind address the issue names and their kin, and the name a client gives it in a Host
# header (None: every address of the machine, no one name).
LOOPBACK = {
    "127.0.0.1": "127.0.0.1",
    "LOCALHOST": "localhost",
    "127.0.0.2": "127.0.0.2",
    "::1": "[::1]",
    "0:0:0:0:0:0:0:1": "[::1]",
}
NON_LOOPBACK: dict[str, str | None] = {
    "": None,
    "0.0.0.0": None,
    "::": None,
    "192.168.1.20": "192.168.1.20",
    "fd00::20": "[fd00::20]",
    "mcp-box.lan": "mcp-box.lan",
}
BINDS: dict[str, str | None] = {**LOOPBACK, **NON_LOOPBACK}
EXTRA = {"allowed_hosts": ["mcp.example.com"], "allowed_origins": ["https://app.example.com"]}

# (case, Host header, Origin header, the status): 200 served, 421 a Host refused, 403 an Origin
# refused. `{port}` is the server's port; a Host of None is a request without one (HTTP/1.0).
REQUESTS: list[tuple[str, str | None, str | None, int]] = [
    ("loopback by number", "127.0.0.1:{port}", None, 200),
    ("localhost", "localhost:{port}", None, 200),
    ("ipv6 loopback", "[::1]:{port}", None, 200),
    ("localhost on port 80", "localhost", None, 200),
    ("a page of the server itself", "localhost:{port}", "http://localhost:{port}", 200),
    ("a page on another local port", "127.0.0.1:{port}", "http://127.0.0.1:3000", 200),
    ("an allowed host", "mcp.example.com:{port}", None, 200),
    ("an allowed host without a port", "mcp.example.com", None, 200),
    ("an allowed origin", "mcp.example.com", "https://app.example.com", 200),
    ("an allowed origin on any port", "127.0.0.1:{port}", "https://app.example.com:8443", 200),
    ("dns rebinding", "evil.com:{port}", None, 421),
    ("dns rebinding on port 80", "evil.com", None, 421),
    ("a name that starts like loopback", "127.0.0.1.evil.com:{port}", None, 421),
    ("a name under localhost", "evil.localhost:{port}", None, 421),
    ("another loopback address", "127.0.0.3:{port}", None, 421),
    ("no Host", None, None, 421),
    ("a foreign page", "127.0.0.1:{port}", "http://evil.com", 403),
    ("a foreign page named like localhost", "localhost:{port}", "http://localhost.evil.com", 403),
    ("a sandboxed page", "127.0.0.1:{port}", "null", 403),
]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


class Servers:
    """One real server per bind address, made as `serve` makes it but listening on 127.0.0.1
    (a test cannot bind a LAN address or every address), started when a case first needs it."""

    def __init__(self) -> None:
        self.running: dict[str, tuple[uvicorn.Server, threading.Thread, int]] = {}

    def port(self, bind: str) -> int:
        if bind not in self.running:
            endpoint = _mcp.http_endpoint(bind, allow_non_loopback=bind in NON_LOOPBACK, **EXTRA)
            app = _mcp.http_app(package_mcp.mcp_server(mcp_handlers.HANDLERS), endpoint)
            listening = socket.socket()
            listening.bind(("127.0.0.1", 0))
            server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
            thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]})
            thread.start()
            while not server.started:
                assert thread.is_alive(), f"the server for {bind!r} did not start"
                thread.join(0.02)
            self.running[bind] = (server, thread, listening.getsockname()[1])
        return self.running[bind][2]

    def stop(self) -> None:
        for server, thread, _ in self.running.values():
            server.should_exit = True
            thread.join(timeout=30)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    running = Servers()
    try:
        yield running
    finally:
        running.stop()


def status(port: int, host: str | None, origin: str | None) -> int:
    """The status of an `initialize` POST with exactly these Host and Origin headers."""
    body = json.dumps(INITIALIZE).encode()
    lines = ["POST /mcp HTTP/1.1" if host is not None else "POST /mcp HTTP/1.0"]
    lines += [f"Host: {host}"] if host is not None else []
    lines += [f"Origin: {origin}"] if origin is not None else []
    lines += [
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + body)
        head = b""
        while b"\r\n" not in head:
            chunk = connection.recv(4096)
            assert chunk, head
            head += chunk
    return int(head.split(b" ")[1])


def _cases() -> Iterator[Any]:
    for bind, spelling in BINDS.items():
        for case, host, origin, expected in REQUESTS:
            yield pytest.param(bind, host, origin, expected, id=f"{bind or 'empty'}-{case}")
        if spelling is not None:
            host = f"{spelling}:{{port}}"
            yield pytest.param(bind, host, None, 200, id=f"{bind or 'empty'}-the bind address")


@pytest.mark.parametrize(("bind", "host", "origin", "expected"), list(_cases()))
def test_every_bind_has_dns_rebinding_protection(
    servers: Servers, bind: str, host: str | None, origin: str | None, expected: int
) -> None:
    """Item 17: protection was off for LOCALHOST, 127.0.0.2, "" and 0.0.0.0 (the SDK turns it
    on only for 127.0.0.1, localhost and ::1 as spelled), and no one could add a host."""
    port = servers.port(bind)
    fill = {"port": port}
    assert (
        status(
            port,
            host.format_map(fill) if host else None,
            origin.format_map(fill) if origin else None,
        )
        == expected
    )


def _refusal(bind: str) -> str:
    return (
        f"the host {bind!r} would serve beyond this machine: bind a loopback address"
        " (127.0.0.1, ::1, localhost), or ask for it by name with --allow-non-loopback"
        " (allow_non_loopback=True)"
    )


def _listen(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"served beyond loopback: {kwargs}")


@pytest.mark.parametrize("bind", list(NON_LOOPBACK))
def test_a_bind_beyond_loopback_is_refused_unless_asked_for(
    bind: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What to build 5: `serve_mcp` and the command refuse to serve beyond this machine (before,
    they served, unprotected), before anything listens."""
    monkeypatch.setattr(uvicorn, "run", _listen)
    with pytest.raises(ValueError) as raised:
        package_mcp.serve_mcp(mcp_handlers.HANDLERS, transport="streamable-http", host=bind)
    assert str(raised.value) == _refusal(bind)
    with pytest.raises(SystemExit) as exited:
        package_mcp.main(
            ["tests.mcp_handlers:HANDLERS", "--transport", "streamable-http", "--host", bind]
        )
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"{PROG}: error: {_refusal(bind)}\n"


@given(st.ip_addresses())
def test_only_a_loopback_address_binds_without_asking(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    """What to build 5, over every address: 127.0.0.0/8 and ::1 bind as they are, any other is
    refused without `allow_non_loopback`, and is protected with it."""
    bind = str(address)
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    if (mapped or address).is_loopback:
        endpoint = _mcp.http_endpoint(bind)
    else:
        with pytest.raises(ValueError) as raised:
            _mcp.http_endpoint(bind)
        assert str(raised.value) == _refusal(bind)
        endpoint = _mcp.http_endpoint(bind, allow_non_loopback=True)
    named = f"[{address.compressed}]" if address.version == 6 else address.compressed
    loopback = {"127.0.0.1:*", "localhost:*", "[::1]:*"}
    itself = set() if address.is_unspecified else {f"{named}:*"}
    assert {host for host in endpoint.allowed_hosts if host.endswith(":*")} == loopback | itself


def test_the_command_passes_its_hosts_and_origins_to_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What to build 5: `--allowed-host` and `--allowed-origin` (repeatable) and
    `--allow-non-loopback` reach the endpoint; a name without a port is allowed on any port."""
    served: list[tuple[object, ...]] = []
    monkeypatch.setattr(package_mcp, "serve", lambda *args: served.append(args[1:]))
    package_mcp.main(
        [
            "tests.mcp_handlers:HANDLERS",
            "--transport=streamable-http",
            "--host=0.0.0.0",
            "--port=9100",
            "--path=/tools",
            "--allow-non-loopback",
            "--allowed-host=MCP.example.com",
            "--allowed-host=gateway.example.com:443",
            "--allowed-origin=https://app.example.com",
            "--allowed-origin=http://[fd00::1]:*",
        ]
    )
    loopback_hosts = ("127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*")
    assert served == [
        (
            "streamable-http",
            _mcp.HttpEndpoint(
                host="0.0.0.0",
                port=9100,
                path="/tools",
                allowed_hosts=(
                    *loopback_hosts,
                    "mcp.example.com",
                    "mcp.example.com:*",
                    "gateway.example.com:443",
                ),
                allowed_origins=(
                    *(f"http://{host}" for host in loopback_hosts),
                    "https://app.example.com",
                    "https://app.example.com:*",
                    "http://[fd00::1]:*",
                ),
            ),
        )
    ]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--allowed-host", "*", "allowed host '*' is not name, name:port or name:*"),
        ("--allowed-host", "", "allowed host '' is not name, name:port or name:*"),
        (
            "--allowed-host",
            "http://example.com",
            "allowed host 'http://example.com' is not name, name:port or name:*",
        ),
        (
            "--allowed-host",
            "example.com/mcp",
            "allowed host 'example.com/mcp' is not name, name:port or name:*",
        ),
        ("--allowed-origin", "*", "allowed origin '*' is not scheme://name[:port]"),
        ("--allowed-origin", "null", "allowed origin 'null' is not scheme://name[:port]"),
        (
            "--allowed-origin",
            "example.com",
            "allowed origin 'example.com' is not scheme://name[:port]",
        ),
        (
            "--allowed-origin",
            "https://example.com/",
            "allowed origin 'https://example.com/' is not scheme://name[:port]",
        ),
    ],
)
def test_an_allowed_host_or_origin_that_would_open_more_is_refused(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """What to build 5: protection stays on; a wildcard or a malformed entry is not a way to
    turn it off."""
    with pytest.raises(SystemExit) as exited:
        package_mcp.main(["tests.mcp_handlers:HANDLERS", f"{option}={value}"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"{PROG}: error: {message}\n"


def _request(id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


STDIO_REQUESTS = [
    INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    _request(2, "tools/call", {"name": "memory.search", "arguments": {"query": "x"}}),
    _request(
        3,
        "tools/call",
        {
            "name": "update_config",
            "arguments": {"settings": {"timeout": 5, "mode": "safe"}, "dryRun": True},
        },
    ),
    _request(4, "tools/call", {"name": "memory.search", "arguments": {"query": "y"}}),
]


def test_over_stdio_stdout_carries_json_rpc_alone() -> None:
    """Item 18: whatever the handlers print — while imported (flushed), from an async handler
    (print, sys.stdout.write, a thread's print, os.write to descriptor 1) and from a sync one
    run in a thread (buffered and flushed) — every line of the server's stdout is a JSON-RPC
    response, to the end of the process; the text goes to stderr. On the code before, the
    import's `{` came before the first response and the buffered ones after the last."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "generated.memory_tools.mcp",
            "tests.mcp_printing_handlers:HANDLERS",
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin and process.stdout
    process.stdin.write("".join(json.dumps(message) + "\n" for message in STDIO_REQUESTS))
    process.stdin.flush()
    # Each response is read before stdin is closed: at its end the server stops, calls and all.
    lines = [process.stdout.readline() for _ in range(4)]
    rest, stderr = process.communicate(timeout=60)
    lines += rest.splitlines()
    assert process.returncode == 0, stderr
    responses = sorted((json.loads(line) for line in lines), key=lambda response: response["id"])
    assert [(response["id"], response["result"].get("content")) for response in responses] == [
        (1, None),
        (2, [{"type": "text", "text": '["x"]'}]),
        (3, [{"type": "text", "text": '{"applied": false}'}]),
        (4, [{"type": "text", "text": '["y"]'}]),
    ]
    # Every `{` reached stderr; a print from a thread may land between another's `{` and its
    # line end (`{{\n`), so the braces are counted on the lines that hold braces alone.
    strays = [line for line in stderr.splitlines() if line and set(line) == {"{"}]
    assert sum(len(line) for line in strays) == 1 + 4 + 2 + 4


@pytest.mark.parametrize("cursor", ["", "0", "1", "next", "null", "eyJwYWdlIjogMn0="])
def test_tools_list_with_a_cursor_is_invalid_params(cursor: str) -> None:
    """Item 18: the tool list is never paged, so every cursor is unknown: JSON-RPC's -32602,
    not the whole list again (which a client paging would take for page two)."""

    async def listing() -> tuple[int, MCPError | None]:
        async with Client(package_mcp.mcp_server(mcp_handlers.HANDLERS)) as client:
            listed = len((await client.list_tools()).tools)
            try:
                await client.list_tools(cursor=cursor)
            except MCPError as error:
                return listed, error
            return listed, None

    listed, error = asyncio.run(listing())
    assert listed == 4
    assert error is not None
    assert (error.code, error.message) == (
        mt.INVALID_PARAMS,
        f"unknown cursor {cursor!r}: the tool list is not paginated",
    )


def _desktop_config() -> dict[str, Any]:
    """The one server of the `mcpServers` example in docs/executor.md, for this checkout."""
    page = (ROOT / "docs" / "executor.md").read_text(encoding="utf-8")
    blocks = [block.partition("```")[0] for block in page.split("```json\n")[1:]]
    (config,) = [json.loads(block) for block in blocks if '"mcpServers"' in block]
    (server,) = config["mcpServers"].values()
    text = json.dumps(server)
    text = text.replace("/path/to/project/.venv/bin/python", sys.executable)
    text = text.replace("/path/to/project", str(ROOT))
    text = text.replace("my_app.tools:HANDLERS", "tests.mcp_handlers:HANDLERS")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def test_the_documented_desktop_config_serves_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP "Also" item: a desktop client starts the server from its own directory with a bare
    environment. The docs' `mcpServers` entry, run as written (its command, args and env and
    nothing else: the SDK client's own inherited variables are taken away) from an empty
    directory, serves the catalog to the SDK's client."""
    config = _desktop_config()
    assert set(config) == {"command", "args", "env"}
    monkeypatch.setattr(mcp.client.stdio, "get_default_environment", dict)
    params = StdioServerParameters(
        command=config["command"], args=config["args"], env=config["env"], cwd=tmp_path
    )

    async def session() -> tuple[list[dict[str, Any]], mt.CallToolResult]:
        async with Client(params, read_timeout_seconds=30) as client:
            listed = await client.list_tools()
            called = await client.call_tool("memory.search", {"query": "desk", "limit": 1})
            tools = [
                tool.model_dump(by_alias=True, exclude_none=True, mode="json")
                for tool in listed.tools
            ]
            return tools, called

    tools, called = asyncio.run(session())
    assert tools == memory_tools.MCP_TOOLS
    assert [content.text for content in called.content if content.type == "text"] == ['["desk 0"]']

"""An MCP server for a catalog: its `MCP_TOOLS` listed as they are, and each `tools/call` run
through its executor.

The `mcp` SDK is imported only when a server is made, so the package still imports with the
standard library alone; without the SDK, making one is an ImportError that says how to get it.
Its imports are typed where it is installed and `Any` where it is not, so the package passes
`mypy --strict` either way. A refused or failed call is an `isError` result holding the words
the executor wrote, so the model on the other side can correct it.

Over HTTP, `http_endpoint` alone decides which Host and Origin headers may reach the server
(the SDK's DNS-rebinding protection, always on) and refuses a bind beyond this machine unless
asked for by name; over stdio, stdout carries JSON-RPC alone while the server runs.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from ._executor import ToolExecutor
from ._results import ToolCallResult, content_json
from ._runtime import LazyTools, RawArguments, ToolCallRequest

Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]
Transport: TypeAlias = Literal["stdio", "streamable-http"]

TRANSPORTS: tuple[Transport, ...] = ("stdio", "streamable-http")


def check_handlers(handlers: Mapping[str, object], tools: LazyTools) -> None:
    """Refuse a handler map that does not cover the catalog exactly, naming every tool at fault:
    a server lists every tool, so each must have a handler (given by wire name or alias)."""
    unknown = [name for name in handlers if tools.wire_name(name) is None]
    covered = {tools.wire_name(name) for name in handlers}
    missing = [name for name in tools if name not in covered]
    problems = []
    if unknown:
        problems.append(f"handlers for tools the catalog does not have: {_names(unknown)}")
    if missing:
        problems.append(f"no handler for the tools {_names(missing)}")
    if problems:
        raise ValueError("; ".join(problems))


def _names(names: Sequence[str]) -> str:
    return ", ".join(repr(name) for name in names)


def _sdk() -> Any:
    try:
        import mcp.types  # type: ignore[import-not-found, unused-ignore]
        from mcp.server import Server  # type: ignore[import-not-found, unused-ignore]
        from mcp.shared.exceptions import MCPError  # type: ignore[import-not-found, unused-ignore]
    except ImportError as exc:
        raise ImportError(
            "serving a catalog over MCP needs the `mcp` package (pip install mcp)"
            f" and could not import it: {exc}"
        ) from exc
    return mcp.types, Server, MCPError


def call_result(result: ToolCallResult) -> dict[str, Any]:
    """A `tools/call` result: the text the model reads, `isError` unless the call succeeded, and
    `structuredContent`: for a tool that declares `returns`, the value checked against it (the
    tool's outputSchema, which MCP clients check it against); for another, a mapping or a
    dataclass the handler returned (MCP's structured form is an object), by wire name."""
    reply: dict[str, Any] = {
        "content": [{"type": "text", "text": result.text}],
        "isError": not result.ok,
    }
    if result.structured is not None:
        reply["structuredContent"] = result.structured
    elif result.ok and (isinstance(result.content, Mapping) or _is_dataclass(result.content)):
        structured = content_json(result.content)
        if isinstance(structured, dict):
            reply["structuredContent"] = structured
    return reply


def _is_dataclass(value: object) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def make_server(
    executor: ToolExecutor,
    mcp_tools: Sequence[Mapping[str, object]],
    parse: Parse,
    name: str,
    version: str = "",
) -> Any:
    """The SDK's low-level `Server` for the catalog (an `mcp.server.Server`)."""
    types, server_class, mcp_error = _sdk()
    listed = types.ListToolsResult.model_validate({"tools": [dict(tool) for tool in mcp_tools]})

    async def list_tools(ctx: object, params: Any) -> Any:
        # The list comes whole, with no nextCursor, so no cursor was ever handed out: a client
        # that sends one is confused, and paging from the start would hide that.
        if params is not None and params.cursor is not None:
            raise mcp_error(
                types.INVALID_PARAMS,
                f"unknown cursor {params.cursor!r}: the tool list is not paginated",
            )
        return listed

    async def call_tool(ctx: object, params: Any) -> Any:
        arguments = params.arguments if params.arguments is not None else {}
        result = await executor.aexecute(parse(params.name, arguments, ""))
        return types.CallToolResult.model_validate(call_result(result))

    return server_class(name, version=version, on_list_tools=list_tools, on_call_tool=call_tool)


@dataclass(frozen=True)
class HttpEndpoint:
    """Where the streamable HTTP transport listens, and the Host and Origin header values the
    SDK's DNS-rebinding protection lets through (exact, or `name:*` for any port)."""

    host: str
    port: int
    path: str
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]


# What a client on this machine may call a loopback server, whatever address it is bound to.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# A Host header value (or an Origin's authority) as given: a name or a bracketed IPv6 address,
# and a port, `*` for any, or none for any.
_AUTHORITY = r"(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(?P<port>[0-9]{1,5}|\*))?"
_HOST = re.compile(_AUTHORITY)
_ORIGIN = re.compile(r"([a-z][a-z0-9+.-]*://)" + _AUTHORITY)


def http_endpoint(
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    *,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    allow_non_loopback: bool = False,
) -> HttpEndpoint:
    """The endpoint for `host`, the one place that decides who may reach an HTTP server.

    A loopback bind (127.0.0.0/8, ::1, `localhost` in any case) lets through the names a client on
    this machine uses. Any other bind (`0.0.0.0`, `""`, `::`, a LAN address, a host name) is a
    ValueError unless `allow_non_loopback` asks for it, and is then protected the same way. Each
    of `allowed_hosts` (`name`, `name:port`, `name:*`) and `allowed_origins`
    (`scheme://name[:port|:*]`) is let through as well; a name without a port on any port.
    """
    spelling = _host_spelling(host)
    if not allow_non_loopback and not _is_loopback(spelling):
        raise ValueError(
            f"the host {host!r} would serve beyond this machine: bind a loopback address"
            " (127.0.0.1, ::1, localhost), or ask for it by name with --allow-non-loopback"
            " (allow_non_loopback=True)"
        )
    names = [*_LOOPBACK_NAMES]
    if spelling not in names and not _is_unspecified(spelling):
        names.append(spelling)
    hosts = [entry for name in names for entry in (name, f"{name}:*")]
    origins = [entry for name in names for entry in (f"http://{name}", f"http://{name}:*")]
    hosts += [entry for given in allowed_hosts for entry in _allowed(given, _HOST, "host")]
    origins += [entry for given in allowed_origins for entry in _allowed(given, _ORIGIN, "origin")]
    return HttpEndpoint(
        host, port, path, tuple(dict.fromkeys(hosts)), tuple(dict.fromkeys(origins))
    )


def _host_spelling(host: str) -> str:
    """`host` as a Host header spells it: lower case, an IPv6 address compressed in brackets."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host.lower()
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def _address(spelling: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(spelling.strip("[]"))
    except ValueError:
        return None


def _is_loopback(spelling: str) -> bool:
    address = _address(spelling)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return spelling == "localhost" if address is None else address.is_loopback


def _is_unspecified(spelling: str) -> bool:
    """Every address of the machine (`0.0.0.0`, `::`, `""`): no one name a client would use."""
    address = _address(spelling)
    return spelling == "" or (address is not None and address.is_unspecified)


def _allowed(given: str, form: re.Pattern[str], what: str) -> tuple[str, ...]:
    entry = given.strip().lower()
    match = form.fullmatch(entry)
    if match is None:
        example = "name, name:port or name:*" if what == "host" else "scheme://name[:port]"
        raise ValueError(f"allowed {what} {given!r} is not {example}")
    return (entry,) if match["port"] else (entry, f"{entry}:*")


def http_app(server: Any, endpoint: HttpEndpoint) -> Any:
    """The server's streamable HTTP app (Starlette), with DNS-rebinding protection for
    `endpoint`'s hosts and origins: a request with another Host is refused with 421, with
    another Origin with 403."""
    from mcp.server.transport_security import (  # type: ignore[import-not-found, unused-ignore]
        TransportSecuritySettings,
    )

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(endpoint.allowed_hosts),
        allowed_origins=list(endpoint.allowed_origins),
    )
    return server.streamable_http_app(
        streamable_http_path=endpoint.path, host=endpoint.host, transport_security=security
    )


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send what Python writes to `sys.stdout` (a `print` in a handler, sync, async or in a
    thread) to stderr, while the real stdout is the JSON-RPC wire.

    Inside the SDK's `stdio_server`, which has moved descriptor 1 to stderr and writes the wire
    through a duplicate of it, text still buffered in the old `sys.stdout` is flushed on the way
    in and out, while descriptor 1 leads to stderr, never later onto the wire. The command also
    imports the handlers under it, before the server starts and with nothing buffered yet.
    """
    wire_stdout = sys.stdout
    wire_stdout.flush()
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = wire_stdout
        wire_stdout.flush()


def serve(
    server: Any, transport: Transport = "stdio", endpoint: HttpEndpoint | None = None
) -> None:
    """Serve until stopped: over stdin and stdout, or streamable HTTP at `endpoint` (by
    default `http_endpoint()`, http://127.0.0.1:8000/mcp)."""
    import anyio  # type: ignore[import-not-found, unused-ignore]

    if transport == "stdio":
        from mcp.server.stdio import stdio_server  # type: ignore[import-not-found, unused-ignore]

        async def run_stdio() -> None:
            async with stdio_server() as (read_stream, write_stream):
                with stdout_to_stderr():
                    options = server.create_initialization_options()
                    await server.run(read_stream, write_stream, options)

        anyio.run(run_stdio)
    elif transport == "streamable-http":
        import uvicorn  # type: ignore[import-not-found, unused-ignore]

        endpoint = endpoint or http_endpoint()
        app = http_app(server, endpoint)
        uvicorn.run(app, host=endpoint.host, port=endpoint.port, log_level="warning")
    else:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")

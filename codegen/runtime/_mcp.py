"""An MCP server for a catalog: its `MCP_TOOLS` listed as they are, and each `tools/call` run
through its executor.

The `mcp` SDK is imported only when a server is made, so the package still imports with the
standard library alone; without the SDK, making one is an ImportError that says how to get it.
A refused or failed call is an `isError` result holding the words the executor wrote, so the
model on the other side can correct it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from ._executor import ToolExecutor
from ._results import ToolCallResult, content_json
from ._runtime import RawArguments, ToolCallRequest

Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]
Transport: TypeAlias = Literal["stdio", "streamable-http"]

TRANSPORTS: tuple[Transport, ...] = ("stdio", "streamable-http")


def check_handlers(handlers: Mapping[str, object], tools: Mapping[str, object]) -> None:
    """Refuse a handler map that does not cover the catalog exactly, naming every tool at fault:
    a server lists every tool, so each must have a handler."""
    unknown = [name for name in handlers if name not in tools]
    missing = [name for name in tools if name not in handlers]
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
        import mcp.types
        from mcp.server import Server
    except ImportError as exc:
        raise ImportError(
            "serving a catalog over MCP needs the `mcp` package (pip install mcp)"
            f" and could not import it: {exc}"
        ) from exc
    return mcp.types, Server


def call_result(result: ToolCallResult) -> dict[str, Any]:
    """A `tools/call` result: the text the model reads, `isError` unless the call succeeded, and
    `structuredContent`: for a tool that declares `returns`, the value checked against it (the
    tool's outputSchema, which MCP clients check it against); for another, a mapping the handler
    returned (MCP's structured form is an object)."""
    reply: dict[str, Any] = {
        "content": [{"type": "text", "text": result.text}],
        "isError": not result.ok,
    }
    if result.structured is not None:
        reply["structuredContent"] = result.structured
    elif result.ok and isinstance(result.content, Mapping):
        structured = content_json(result.content)
        if isinstance(structured, dict):
            reply["structuredContent"] = structured
    return reply


def make_server(
    executor: ToolExecutor,
    mcp_tools: Sequence[Mapping[str, object]],
    parse: Parse,
    name: str,
    version: str = "",
) -> Any:
    """The SDK's low-level `Server` for the catalog (an `mcp.server.Server`)."""
    types, server_class = _sdk()
    listed = types.ListToolsResult.model_validate({"tools": [dict(tool) for tool in mcp_tools]})

    async def list_tools(ctx: object, params: object) -> Any:
        return listed

    async def call_tool(ctx: object, params: Any) -> Any:
        arguments = params.arguments if params.arguments is not None else {}
        result = await executor.aexecute(parse(params.name, arguments, ""))
        return types.CallToolResult.model_validate(call_result(result))

    return server_class(name, version=version, on_list_tools=list_tools, on_call_tool=call_tool)


def serve(
    server: Any,
    transport: Transport = "stdio",
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
) -> None:
    """Serve until stopped: over stdin and stdout, or streamable HTTP at `http://host:port/path`."""
    import anyio

    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async def run_stdio() -> None:
            async with stdio_server() as (read_stream, write_stream):
                options = server.create_initialization_options()
                await server.run(read_stream, write_stream, options)

        anyio.run(run_stdio)
    elif transport == "streamable-http":
        import uvicorn

        app = server.streamable_http_app(streamable_http_path=path, host=host)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    else:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")

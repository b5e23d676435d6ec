"""A real MCP round trip from one catalog: a server built with the mcp SDK lists the catalog's
tools and dispatches `tools/call` through the Executor; the SDK's own client drives it over its
in-memory transport (the README's MCP section shows the same server)."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp.types as mt
from mcp import Client
from mcp.server import Server

from generated import memory_tools
from generated.memory_tools import Executor, parse


def mcp_tools() -> list[dict[str, Any]]:
    """The catalog's `tools/list` entries, as the package has them."""
    tools: list[dict[str, Any]] = memory_tools.MCP_TOOLS
    return tools


def make_server(executor: Executor) -> Server[Any]:
    async def list_tools(ctx: Any, params: mt.PaginatedRequestParams | None) -> mt.ListToolsResult:
        return mt.ListToolsResult(tools=[mt.Tool.model_validate(tool) for tool in mcp_tools()])

    async def call_tool(ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
        result = await executor.aexecute(parse(params.name, params.arguments or {}))
        return mt.CallToolResult(
            content=[mt.TextContent(type="text", text=result.text)], is_error=not result.ok
        )

    return Server("memory_tools", on_list_tools=list_tools, on_call_tool=call_tool)


async def search(query: str, limit: int = 3) -> list[str]:
    return [f"{query} {n}" for n in range(limit)]


def test_an_mcp_client_lists_the_catalog_and_calls_its_tools_through_the_executor() -> None:
    def read(args: object) -> str:
        raise FileNotFoundError("notes.md")

    server = make_server(Executor({"memory.search": search, "read_file": read}))

    async def session() -> tuple[mt.ListToolsResult, list[mt.CallToolResult]]:
        async with Client(server) as client:
            listed = await client.list_tools()
            calls = [
                await client.call_tool("memory.search", {"query": "agent", "limit": "2"}),
                await client.call_tool("memory.search", {"limit": 500}),
                await client.call_tool("read_file", {"filePath": "notes.md"}),
                await client.call_tool("search_files", {"pattern": "*.py"}),
            ]
            return listed, calls

    listed, calls = asyncio.run(session())
    assert [tool.name for tool in listed.tools] == list(memory_tools.TOOLS)
    first = listed.tools[0]
    assert first.input_schema == memory_tools.TOOLS["memory.search"].schema
    assert first.description == memory_tools.TOOLS["memory.search"].description
    outcomes = [
        (call.is_error, [c.text for c in call.content if c.type == "text"]) for call in calls
    ]
    assert outcomes == [
        (False, ['["agent 0", "agent 1"]']),
        (
            True,
            [
                (
                    "Error: the call was not run: `query` is missing; `limit` must be at most 50."
                    " Correct the call and send it again."
                )
            ],
        ),
        (True, ["Error: the tool failed: FileNotFoundError: notes.md"]),
        (True, ["Error: the call was not run: the tool `search_files` is not available."]),
    ]


def test_the_mcp_tool_list_is_valid_for_the_sdk() -> None:
    tools = [mt.Tool.model_validate(tool) for tool in mcp_tools()]
    assert [
        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools
    ] == mcp_tools()

"""The generated MCP server (`<package>.mcp`), driven by the mcp SDK's own client: over stdio, as
a subprocess started by `python -m generated.memory_tools.mcp tests.mcp_handlers:HANDLERS`, and
over streamable HTTP on 127.0.0.1. The catalog's `MCP_TOOLS` are listed as they are, and every
call runs through the package's Executor."""

from __future__ import annotations

import asyncio
import copy
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as mt
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from generated import memory_tools
from generated.memory_tools import _mcp
from generated.memory_tools import mcp as package_mcp
from tests import mcp_handlers

ROOT = Path(__file__).resolve().parent.parent
SERVE = [sys.executable, "-m", "generated.memory_tools.mcp", "tests.mcp_handlers:HANDLERS"]

# (tool, arguments) and what the client gets back: (isError, texts, structuredContent).
CALLS: list[tuple[str, dict[str, Any], tuple[bool, list[str], object]]] = [
    # A correction the model need not hear about; a list is text only.
    (
        "memory.search",
        {"query": "agent", "limit": "2"},
        (False, ['["agent 0", "agent 1"]'], None),
    ),
    # A mapping is also structured content, the same JSON as the text.
    (
        "update_config",
        {"settings": {"timeout": 30, "mode": "SAFE"}, "dryRun": "true"},
        (
            False,
            ['{"mode": "safe", "timeout": 30, "applied": false}'],
            {"mode": "safe", "timeout": 30, "applied": False},
        ),
    ),
    # A tool with `returns`: its typed result is the structured content, which the SDK's client
    # checks against the outputSchema it listed; the text is the same JSON.
    (
        "search_files",
        {"pattern": "src/*.py"},
        (
            False,
            [
                '{"paths": ["src/*.py"], "truncated": false, "modified": "2026-11-24T08:00:00+00:00"}'
            ],
            {"paths": ["src/*.py"], "truncated": False, "modified": "2026-11-24T08:00:00+00:00"},
        ),
    ),
    # A value that does not match `returns` is the tool's failure, in words, with no structure.
    (
        "search_files",
        {"pattern": "broken"},
        (
            True,
            [
                (
                    "Error: the tool failed: the result does not match the tool's `returns`"
                    " schema: missing_required:truncated"
                )
            ],
            None,
        ),
    ),
    (
        "memory.search",
        {"limit": 500},
        (
            True,
            [
                (
                    "Error: the call was not run: `query` is missing; `limit` must be at most 50."
                    " Correct the call and send it again."
                )
            ],
            None,
        ),
    ),
    (
        "read_file",
        {"filePath": "notes.md"},
        (True, ["Error: the tool failed: FileNotFoundError: notes.md"], None),
    ),
    (
        "delete_everything",
        {"really": True},
        (True, ["Error: the call was not run: there is no tool `delete_everything`."], None),
    ),
]


async def session(server: Any) -> tuple[mt.ListToolsResult, list[mt.CallToolResult]]:
    async with Client(server, read_timeout_seconds=30) as client:
        listed = await client.list_tools()
        calls = [await client.call_tool(name, arguments) for name, arguments, _ in CALLS]
        return listed, calls


def check(listed: mt.ListToolsResult, calls: list[mt.CallToolResult]) -> None:
    assert [
        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed.tools
    ] == memory_tools.MCP_TOOLS
    outcomes = [
        (call.is_error, [c.text for c in call.content if c.type == "text"], call.structured_content)
        for call in calls
    ]
    assert outcomes == [outcome for _, _, outcome in CALLS]


def test_over_stdio_a_subprocess_serves_the_catalog() -> None:
    params = StdioServerParameters(command=SERVE[0], args=SERVE[1:], cwd=ROOT)
    check(*asyncio.run(session(params)))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_server() -> Iterator[str]:
    port = free_port()
    args = ["--transport", "streamable-http", "--port", str(port)]
    process = subprocess.Popen([*SERVE, *args], cwd=ROOT, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else b""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr:
            process.stderr.close()


def test_over_streamable_http_on_127_0_0_1(http_server: str) -> None:
    check(*asyncio.run(session(http_server)))


def test_in_process_the_server_is_the_sdks_own() -> None:
    check(*asyncio.run(session(package_mcp.mcp_server(mcp_handlers.HANDLERS))))


def test_the_handler_map_must_cover_the_catalog_exactly() -> None:
    handlers: Any = {
        "memory.search": mcp_handlers.search,
        "read_file": mcp_handlers.read,
        "delete_everything": mcp_handlers.read,
    }
    with pytest.raises(ValueError) as raised:
        package_mcp.mcp_server(handlers)
    assert str(raised.value) == (
        "handlers for tools the catalog does not have: 'delete_everything';"
        " no handler for the tools 'search_files', 'update_config'"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "tests.mcp_handlers",
            "handlers must be given as module:attribute, not 'tests.mcp_handlers'",
        ),
        ("tests.mcp_handlers:NOPE", "the module tests.mcp_handlers has no attribute 'NOPE'"),
        ("tests.no_such_module:HANDLERS", "No module named 'tests.no_such_module'"),
        (
            "tests.mcp_handlers:NOT_A_MAP",
            "tests.mcp_handlers:NOT_A_MAP is not a mapping of tool names to handlers: ['memory.search']",
        ),
    ],
)
def test_the_command_says_what_is_wrong_with_its_handlers(
    spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        package_mcp.main([spec])
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"python -m generated.memory_tools.mcp: error: {message}\n"


def test_without_the_sdk_serving_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(ImportError) as raised:
        package_mcp.mcp_server(mcp_handlers.HANDLERS)
    assert str(raised.value).startswith(
        "serving a catalog over MCP needs the `mcp` package (pip install mcp) and could not import it:"
    )


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def test_the_sdks_client_checks_structured_content_against_the_output_schema() -> None:
    """The control for the calls above: the same result under an outputSchema it does not
    match (one more required key) is refused by the SDK's client, so their passing proves the
    structured content matches the outputSchema that MCP_TOOLS lists."""
    tools = copy.deepcopy(memory_tools.MCP_TOOLS)
    (entry,) = [tool for tool in tools if tool["name"] == "search_files"]
    entry["outputSchema"]["required"].append("owner")
    executor = memory_tools.Executor(mcp_handlers.HANDLERS)
    server = _mcp.make_server(executor, tools, memory_tools.parse, "memory_tools")

    async def call() -> None:
        async with Client(server, read_timeout_seconds=30) as client:
            await client.list_tools()
            await client.call_tool("search_files", {"pattern": "src/*.py"})

    with pytest.raises(BaseException) as raised:
        asyncio.run(call())
    refusals = [leaf for leaf in _leaves(raised.value) if isinstance(leaf, RuntimeError)]
    assert [str(leaf).partition("\n")[0] for leaf in refusals] == [
        "Invalid structured content returned by tool search_files: 'owner' is a required property"
    ]

"""Handlers bound by the names the catalog declares, and a tool reached by any of its names.

Issue 33 item 2: a parameter named `date` (also `list`, `datetime`, `Any`, a Python keyword, a
name the generated code binds, a name Python cannot spell) becomes another Python attribute, and
a keyword handler written `def f(date)` was handed the whole arguments object. Here a handler
takes every parameter of `tests/fixtures/wire_names.yaml` by its keyword name (the wire name
where Python can spell it, else the attribute: `class_`, `content_type`), sync and async,
through every way a call is run: `execute`, `aexecute`, `aexecute_all` and MCP `tools/call`
with the real SDK.

Issue 33 item 5: the provider alias `parse` accepts is accepted everywhere a tool's name is:
`parse`, `codegen parse`, the executor (handlers given by alias, a request named by alias) and
MCP `tools/call` (and a server whose handlers are given by alias).
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import inspect
import json
from collections.abc import Callable
from datetime import UTC
from datetime import date as Date
from datetime import datetime as DateTime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client

from tests.conftest import FIXTURES, run_cli

CATALOG = FIXTURES / "wire_names.yaml"
TOOL = "odd.names"

# A value for every parameter, by wire name, as the model sends it.
SENT: dict[str, object] = {
    "date": "2026-01-02",
    "list": ["x", "y"],
    "datetime": "2026-01-02T03:04:05Z",
    "Any": "any",
    "dict": {"k": 1},
    "str": "s",
    "class": "c",
    "def": 1,
    "lambda": True,
    "match": "m",
    "type": "t",
    "self": "me",
    "Final": "f",
    "v": 2,
    "src": "source",
    "errors": 3,
    "raw": "r",
    "Content-Type": "text/plain",
    "2fa": "123456",
    "a.b": 4,
    "a_b": 5,
    "retryPolicy": {"maxDelay": 7, "class": "x"},
    "headerItems": [{"headerName": "H", "headerValue": "v"}],
    "dryRun": True,
}

# What a keywords handler receives, by its keyword name: the wire name where Python can spell a
# parameter so, the attribute for a keyword (`class_`) or a name that is no identifier.
PLAIN_EXPECTED: dict[str, object] = {
    "date": Date(2026, 1, 2),
    "list": ["x", "y"],
    "datetime": DateTime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    "Any": "any",
    "dict": {"k": 1},
    "str": "s",
    "class_": "c",
    "def_": 1,
    "lambda_": True,
    "match": "m",
    "type": "t",
    "self": "me",
    "Final": "f",
    "v": 2,
    "src": "source",
    "errors": 3,
    "raw": "r",
    "content_type": "text/plain",
    "a_b": 5,
    "dryRun": True,
}


@pytest.fixture(scope="module")
def package(fixture_package: Callable[[str], ModuleType]) -> ModuleType:
    return fixture_package("wire_names.yaml")


def attribute_of(package: ModuleType, wire: str) -> str:
    """The Args attribute of a parameter, by its place among the schema's properties (the
    dataclass keeps the catalog's order): independent of the executor's table."""
    args_type = package.TOOLS[TOOL].args_type
    place = list(SENT).index(wire)
    return [field.name for field in dataclasses.fields(args_type)][place]


def seen_by(received: list[dict[str, Any]]) -> tuple[Callable[..., object], Callable[..., object]]:
    """A sync and an async handler that take every parameter by its keyword name; the two that
    Python cannot spell (`2fa`, `a.b`) come under `**rest`, by the attribute the build gave."""

    def sync(
        *,
        date: Any,
        list: Any,
        datetime: Any,
        Any: Any,
        dict: Any,
        str: Any,
        class_: Any,
        def_: Any,
        lambda_: Any,
        match: Any,
        type: Any,
        self: Any,
        Final: Any,
        v: Any,
        src: Any,
        errors: Any,
        raw: Any,
        content_type: Any,
        a_b: Any,
        retryPolicy: Any,
        headerItems: Any,
        dryRun: Any,
        **rest: Any,
    ) -> object:
        # The closure's `received` is among locals(), as a free variable.
        got = {key: value for key, value in locals().items() if key not in ("rest", "received")}
        received.append({**got, **rest})
        return "ok"

    async def asynchronous(**values: Any) -> object:
        await asyncio.sleep(0)
        return sync(**values)

    return sync, asynchronous


def run_everywhere(package: ModuleType, handler: object, entry: str) -> str:
    """Run the call of SENT through `entry`; the text the model reads back."""
    request = package.parse(TOOL, json.dumps(SENT), "call_1")
    assert request.ok, request.errors
    if entry == "mcp":

        async def session() -> str:
            server = package.mcp_server({TOOL: handler})
            async with Client(server) as client:
                result = await client.call_tool(TOOL, SENT)
            assert not result.is_error, result.content
            text: str = result.content[0].text
            return text

        return asyncio.run(session())
    executor = package.Executor({TOOL: handler})
    if entry == "execute":
        result = executor.execute(request)
    elif entry == "aexecute":
        result = asyncio.run(executor.aexecute(request))
    else:
        (result,) = asyncio.run(executor.aexecute_all([request]))
    assert result.status == "success", result.error
    text = result.text
    return text


ENTRIES = ["execute", "aexecute", "aexecute_all", "mcp"]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_keywords_handler_gets_every_parameter_by_its_wire_name(
    package: ModuleType, entry: str, kind: str
) -> None:
    """Issue 33 item 2: `def f(date)` gets the date (it was handed the arguments object), and so
    for every renamed name, through every entry point."""
    received: list[dict[str, Any]] = []
    sync, asynchronous = seen_by(received)
    assert run_everywhere(package, sync if kind == "sync" else asynchronous, entry) == "ok"
    (got,) = received
    assert {key: got[key] for key in PLAIN_EXPECTED} == PLAIN_EXPECTED
    assert got[attribute_of(package, "2fa")] == "123456"
    assert got[attribute_of(package, "a.b")] == 4
    assert len(got) == len(SENT)
    # Nested values are the tool's own dataclasses, which leave by wire name.
    content_json = importlib.import_module(f"{package.__name__}._results").content_json
    assert content_json(got["retryPolicy"]) == {"maxDelay": 7, "class": "x"}
    assert content_json(got["headerItems"]) == [{"headerName": "H", "headerValue": "v"}]


def test_the_keywords_protocol_names_the_keywords_the_executor_binds(package: ModuleType) -> None:
    """Issue 33 item 2: mypy checks a keywords handler against `<Tool>Keywords`, so its
    `__call__` must take, by keyword, the names the executor passes (and its own first
    parameter must be none of them: the tool has a parameter `self`)."""
    module = importlib.import_module(package.TOOLS[TOOL].args_type.__module__)
    protocol = inspect.signature(module.OddNamesKeywords.__call__)
    first, *taken = protocol.parameters.values()
    assert first.name == "self_"
    assert all(parameter.kind is inspect.Parameter.KEYWORD_ONLY for parameter in taken)
    keywords = [parameter.name for parameter in taken]
    assert keywords == [keyword.name for keyword in package.TOOLS[TOOL].keywords()]
    assert [name for name in keywords if name in PLAIN_EXPECTED] == [
        name for name in PLAIN_EXPECTED
    ]


def by_python_attribute(package: ModuleType) -> Callable[..., object]:
    date_ = attribute_of(package, "date")
    namespace: dict[str, Any] = {}
    exec(f"def handler({date_}, **rest):\n    return {date_}", namespace)  # noqa: S102
    handler: Callable[..., object] = namespace["handler"]
    return handler


def test_a_handler_naming_a_parameter_by_its_python_attribute_is_refused(
    package: ModuleType,
) -> None:
    """Issue 33 item 2: `def f(date_)` would take the whole arguments object (its name is no
    parameter's keyword name); refused at `Executor(...)`, never guessed."""
    with pytest.raises(TypeError) as refused:
        package.Executor({TOOL: by_python_attribute(package)})
    assert str(refused.value).startswith(
        f"the handler for {TOOL!r} takes `{attribute_of(package, 'date')}`, the Python attribute"
        " of the tool's parameter `date`, which a handler takes as `date`; a handler takes the"
        " tool's parameters as keywords (date, list, datetime, Any, dict, str, class_, def_,"
    )


def test_a_single_parameter_named_as_a_tool_parameter_takes_keywords(package: ModuleType) -> None:
    """Issue 33 item 2, the reported form: `def f(date)` on a tool whose other parameters are
    optional, not required, except `class`."""
    executor = package.Executor({TOOL: lambda date, class_, **_: (date, class_)})
    result = executor.execute(package.parse(TOOL, '{"date": "2026-03-04", "class": "k"}'))
    assert (result.status, result.content) == ("success", (Date(2026, 3, 4), "k"))


# ---------------------------------------------------------------------------------------------
# Issue 33 item 5: every name a tool goes by, at every entry point.


def names_of(package: ModuleType, wire: str) -> list[str]:
    """The wire name and every distinct name a provider was sent instead."""
    sent = {names[wire] for names in package.PROVIDER_NAMES.values()}
    return [wire, *sorted(sent - {wire})]


def test_the_fixture_tool_has_an_alias(package: ModuleType) -> None:
    assert names_of(package, TOOL) == [TOOL, "odd_names"]


def echo(date: Date, **rest: Any) -> str:
    return date.isoformat()


NAMES = [TOOL, "odd_names"]
CALL = '{"date": "2026-01-02", "class": "c"}'


@pytest.mark.parametrize("name", NAMES)
def test_parse_takes_every_name(package: ModuleType, name: str) -> None:
    """Issue 33 item 5: `parse` by wire name or alias; the request names the wire name."""
    request = package.parse(name, CALL)
    assert (request.ok, request.tool_name, request.errors) == (True, TOOL, ())


@pytest.mark.parametrize("name", NAMES)
def test_codegen_parse_takes_every_name(name: str) -> None:
    """Issue 33 item 5: `codegen parse CATALOG ALIAS` refused the alias `parse` accepts."""
    done = run_cli("parse", str(CATALOG), name, CALL)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert (printed["tool_name"], printed["ok"], printed["errors"]) == (TOOL, True, [])
    assert printed["values"]["date"] == "2026-01-02"


def test_codegen_parse_refuses_a_name_no_tool_has() -> None:
    done = run_cli("parse", str(CATALOG), "odd-names", CALL)
    assert done.returncode == 2
    assert f"has no tool named 'odd-names' (its tools: {TOOL})" in done.stderr


@pytest.mark.parametrize("request_name", NAMES)
@pytest.mark.parametrize("handler_name", NAMES)
@pytest.mark.parametrize("entry", ["execute", "aexecute", "aexecute_all"])
def test_the_executor_takes_every_name(
    package: ModuleType, entry: str, handler_name: str, request_name: str
) -> None:
    """Issue 33 item 5: handlers given by wire name or alias; a request named by either (one
    made by hand keeps the name it was given)."""
    executor = package.Executor({handler_name: echo})
    request = package.parse(TOOL, CALL, "call_1")._replace(tool_name=request_name)
    if entry == "execute":
        result = executor.execute(request)
    elif entry == "aexecute":
        result = asyncio.run(executor.aexecute(request))
    else:
        (result,) = asyncio.run(executor.aexecute_all([request]))
    assert (result.status, result.content, result.error) == ("success", "2026-01-02", None)


def test_two_handlers_for_one_tool_under_two_names_are_refused(package: ModuleType) -> None:
    with pytest.raises(ValueError, match="^two handlers for the tool 'odd.names': under"):
        package.Executor({TOOL: echo, "odd_names": echo})


@pytest.mark.parametrize("call_name", NAMES)
@pytest.mark.parametrize("handler_name", NAMES)
def test_mcp_tools_call_takes_every_name(
    package: ModuleType, handler_name: str, call_name: str
) -> None:
    """Issue 33 item 5: MCP `tools/call` by alias, and a server whose handlers are given by
    alias (the server's check of its handlers refused them)."""

    async def session() -> Any:
        server = package.mcp_server({handler_name: echo})
        async with Client(server) as client:
            return await client.call_tool(call_name, json.loads(CALL))

    result = asyncio.run(session())
    assert (result.is_error, result.content[0].text) == (False, "2026-01-02")


def test_memory_tools_alias_at_every_entry(tmp_path: Path) -> None:
    """Issue 33 item 5, the reported case: `codegen parse CATALOG memory_search`."""
    done = run_cli("parse", "schemas/memory_tools.yaml", "memory_search", '{"query": "q"}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tool_name"] == "memory.search"

"""Wire names wherever a value leaves the package (issue 33 item 6).

A handler that returned its nested arguments value gave MCP `structuredContent` Python field
names (`retry_policy`) with nulls for the fields the model left out, where the model sent and the
schema says `retryPolicy`. Here, for generated calls of `tests/fixtures/wire_names.yaml` (every
renamed name, a nested object, an array of objects, some parameters left out), a handler
returns its arguments object, or its nested values in a mapping, and every form the value
leaves in (the result's text, each `to_*` form, MCP's `structuredContent`, the history of the
call) carries exactly the wire keys of what the model sent, defaults filled: the parser's own
`values`, never a Python name and never a null for what was not sent.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

TOOL = "odd.names"

words = st.text(max_size=8)
integers = st.integers(min_value=-(2**40), max_value=2**40)
OPTIONAL: dict[str, st.SearchStrategy[object]] = {
    "list": st.lists(words, max_size=3),
    "datetime": st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat()),
    "Any": words,
    "dict": st.dictionaries(words, integers, max_size=3),
    "str": words,
    "def": integers,
    "lambda": st.booleans(),
    "match": words,
    "type": words,
    "self": words,
    "Final": words,
    "v": integers,
    "src": words,
    "errors": integers,
    "raw": words,
    "Content-Type": words,
    "2fa": words,
    "a.b": integers,
    "a_b": integers,
    "retryPolicy": st.fixed_dictionaries(
        {"maxDelay": integers},
        optional={
            "backoffFactor": st.floats(allow_nan=False, allow_infinity=False, width=32),
            "class": words,
        },
    ),
    "headerItems": st.lists(
        st.fixed_dictionaries({"headerName": words}, optional={"headerValue": words}),
        max_size=3,
    ),
    "dryRun": st.booleans(),
}
calls = st.fixed_dictionaries(
    {"date": st.dates().map(lambda d: d.isoformat()), "class": words}, optional=OPTIONAL
)


@pytest.fixture(scope="module")
def package(fixture_package: Callable[[str], ModuleType]) -> ModuleType:
    return fixture_package("wire_names.yaml")


def nested(retryPolicy: object = None, headerItems: object = None, **rest: object) -> object:
    return {"policy": retryPolicy, "items": headerItems, "first": (headerItems or [None])[0]}


HANDLERS: dict[str, Callable[..., object]] = {
    "the-arguments-object": lambda args: args,
    "its-nested-values-in-a-mapping": nested,
}


def expected_of(shape: str, values: dict[str, Any]) -> object:
    if shape == "the-arguments-object":
        return values
    items = values.get("headerItems")
    return {
        "policy": values.get("retryPolicy"),
        "items": items,
        "first": (items or [None])[0],
    }


def keys_in(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from keys_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys_in(item)


def sent_forms(package: ModuleType, result: Any) -> dict[str, object]:
    """The handler's value in every form the package sends it back in, as JSON values."""
    mcp = importlib.import_module(f"{package.__name__}._mcp")
    forms: dict[str, object] = {
        "text": json.loads(result.text),
        "to_openai_chat": json.loads(package.to_openai_chat([result])[0]["content"]),
        "to_openai_responses": json.loads(package.to_openai_responses([result])[0]["output"]),
        "to_anthropic": json.loads(package.to_anthropic([result])[0]["content"]),
        "to_gemini": package.to_gemini([result])[0]["functionResponse"]["response"]["output"],
        "mcp structuredContent": mcp.call_result(result)["structuredContent"],
    }
    return forms


@pytest.mark.parametrize("shape", list(HANDLERS))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sent=calls)
def test_every_form_of_a_returned_value_carries_the_wire_keys_sent(
    package: ModuleType, shape: str, sent: dict[str, object]
) -> None:
    """Issue 33 item 6: results text, each `to_*` form and MCP's structured content."""
    request = package.parse(TOOL, json.dumps(sent), "call_1")
    assert request.ok, request.errors
    assert set(request.values) == {*sent, "dryRun"}  # what was sent, and the one default
    result = package.Executor({TOOL: HANDLERS[shape]}).execute(request)
    assert result.status == "success", result.error
    content_json = importlib.import_module(f"{package.__name__}._results").content_json
    expected = content_json(expected_of(shape, request.values))
    wire = set(keys_in(json.loads(json.dumps(sent)))) | {"dryRun", "policy", "items", "first"}
    for form, value in sent_forms(package, result).items():
        assert value == expected, form
        assert set(keys_in(value)) <= wire, form


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sent=calls)
def test_the_history_of_a_call_carries_the_wire_keys_sent(
    package: ModuleType, sent: dict[str, object]
) -> None:
    """Issue 33 item 6: the history turn holds the arguments as the model sent them."""
    text = json.dumps(sent)
    chat = package.history_openai_chat(
        {
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": TOOL, "arguments": text}}
            ]
        }
    )
    assert json.loads(chat["tool_calls"][0]["function"]["arguments"]) == sent
    anthropic = package.history_anthropic(
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c", "name": TOOL, "input": sent}],
        }
    )
    assert anthropic["content"][0]["input"] == sent
    gemini = package.history_gemini({"parts": [{"functionCall": {"name": TOOL, "args": sent}}]})
    assert gemini["parts"][0]["functionCall"]["args"] == sent


def test_the_reported_case_over_mcp(package: ModuleType) -> None:
    """Issue 33 item 6, as reported: a handler returning its nested arguments value, called with
    the real MCP SDK, gives `structuredContent` by wire name, with no null for what was not sent."""

    def policy(retryPolicy: object = None, **rest: object) -> object:
        return retryPolicy

    async def session() -> Any:
        async with Client(package.mcp_server({TOOL: policy})) as client:
            arguments = {"date": "2026-01-02", "class": "c", "retryPolicy": {"maxDelay": 5}}
            return await client.call_tool(TOOL, arguments)

    result = asyncio.run(session())
    assert result.structured_content == {"maxDelay": 5}
    assert json.loads(result.content[0].text) == {"maxDelay": 5}

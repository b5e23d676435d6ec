"""Typed tool results (issue 22.1): a tool's `returns` (or an MCP `outputSchema`) becomes its
`<Tool>Result` dataclass; the executor checks what a handler returns against it (a mismatch is a
`failed` result naming the code and JSON path, the value kept), every result form sends the
checked value, and the payloads carry the schema where a provider takes one.

The catalog is tests/fixtures/results.yaml (its generated text is in tests/snapshots/results/).
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from datetime import date
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from google.genai import types as genai_types

from codegen.build import build
from codegen.diagnostics import CatalogError


@pytest.fixture(scope="module")
def results(fixture_package: Any) -> ModuleType:
    package: ModuleType = fixture_package("results.yaml")
    return package


def run(package: ModuleType, tool: str, handler: Any, arguments: Any = None) -> Any:
    request = package.parse(tool, arguments or {"id": "u1"}, "call_1")
    return package.Executor({tool: handler}).execute(request)


def typed_user(package: ModuleType) -> Any:
    module = import_module(f"{package.__name__}.tools.lookup")
    money = module.LookupResultMoney(amount=12.5, currency="EUR")
    order = module.LookupResultOrdersItem(order_id=7, total=money)
    return package.LookupResult(
        id="u1",
        display_name=None,
        joined=date(2024, 2, 29),
        orders=[order],
        labels={"team": "red"},
        profile=module.LookupResultProfile(email="u1@example.com", extra={"nick": "ann"}),
    )


# The JSON form of `typed_user`: wire names, the default filled, the date as ISO text, the open
# objects' keys as they were (the profile's own in its `extra` field).
USER = {
    "id": "u1",
    "Display-Name": None,
    "tier": "free",
    "joined": "2024-02-29",
    "orders": [{"orderId": 7, "total": {"amount": 12.5, "currency": "EUR"}}],
    "labels": {"team": "red"},
    "profile": {"email": "u1@example.com", "nick": "ann"},
}


def test_a_handler_may_return_the_result_dataclass(results: ModuleType) -> None:
    value = typed_user(results)
    result = run(results, "lookup", lambda args: value)
    assert (result.status, result.error, result.errors) == ("success", None, ())
    assert result.content is value  # what the handler returned, as it is
    assert result.structured == USER
    assert json.loads(result.text) == USER


def test_a_handler_may_return_plain_values_by_wire_name(results: ModuleType) -> None:
    plain = {
        "id": "u1",
        "Display-Name": None,
        "joined": "2024-02-29",
        "orders": [{"orderId": 7, "total": {"amount": 12.5, "currency": "EUR"}}],
        "labels": {"team": "red"},
        "profile": {"email": "u1@example.com", "nick": "ann"},
    }
    result = run(results, "lookup", lambda args: plain)
    assert (result.status, result.structured) == ("success", USER)
    assert "tier" not in plain  # the handler's own dict is not changed


def test_none_in_an_optional_field_is_absent(results: ModuleType) -> None:
    value = {"id": "u1", "Display-Name": "Ann", "orders": [], "joined": None}
    result = run(results, "lookup", lambda args: value)
    assert result.structured == {"id": "u1", "Display-Name": "Ann", "orders": [], "tier": "free"}


@pytest.mark.parametrize(
    ("value", "codes"),
    [
        # Errors, each with the JSON path inside the result.
        (
            {"id": "u1", "orders": [{"orderId": 0, "total": {"amount": 1, "currency": "eur"}}]},
            (
                "missing_required:Display-Name",
                "out_of_range:orders[0].orderId",
                "pattern_mismatch:orders[0].total.currency",
            ),
        ),
        (
            {"id": "u1", "Display-Name": None, "orders": [], "tier": "gold"},
            ("enum_out_of_range:tier",),
        ),
        # What the arguments' parser would correct is a mismatch in a result.
        ({"id": 5, "Display-Name": None, "orders": []}, ("non_string_literal_retained:id",)),
        (
            {"id": "u1", "Display-Name": None, "orders": [], "tier": "PRO"},
            ("enum_case_normalized:tier",),
        ),
        (
            {"id": "u1", "Display-Name": None, "orders": [], "nickname": "x"},
            ("unknown_parameter:nickname",),
        ),
        # Not an object at all (a value JSON cannot carry: tests/test_outbound_encoding.py).
        (["u1"], ("result_not_object:list",)),
        ("u1", ("result_not_object:str",)),
    ],
)
def test_a_value_that_does_not_match_returns_is_failed_and_kept(
    results: ModuleType, value: object, codes: tuple[str, ...]
) -> None:
    result = run(results, "lookup", lambda args: value)
    assert result.status == "failed"
    assert result.errors == codes
    assert result.error == (
        "the result does not match the tool's `returns` schema: " + "; ".join(codes)
    )
    assert result.content is value
    assert result.structured is None
    assert result.text == f"Error: the tool failed: {result.error}"


def test_async_handlers_and_batches_are_checked_too(results: ModuleType) -> None:
    async def good(args: Any) -> Any:
        return typed_user(results)

    async def bad(args: Any) -> Any:
        return {"id": "u1"}

    requests = [results.parse("lookup", {"id": "u1"}, f"c{n}") for n in range(2)]

    async def both() -> list[Any]:
        first = await results.Executor({"lookup": good}).aexecute(requests[0])
        second = await results.Executor({"lookup": bad}).aexecute_all(requests[1:])
        return [first, *second]

    first, second = asyncio.run(both())
    assert (first.status, first.structured) == ("success", USER)
    assert (second.status, second.errors) == (
        "failed",
        ("missing_required:Display-Name", "missing_required:orders"),
    )


def test_every_result_form_sends_the_checked_value(results: ModuleType) -> None:
    ok = run(results, "lookup", lambda args: typed_user(results))
    text = json.dumps(USER, ensure_ascii=False)
    assert results.to_openai_chat([ok]) == [
        {"role": "tool", "tool_call_id": "call_1", "content": text}
    ]
    assert results.to_openai_responses([ok]) == [
        {"type": "function_call_output", "call_id": "call_1", "output": text}
    ]
    assert results.to_anthropic([ok]) == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": text, "is_error": False}
    ]
    assert results.to_gemini([ok]) == [
        {"functionResponse": {"id": "call_1", "name": "lookup", "response": {"output": USER}}}
    ]
    call_result = import_module(f"{results.__name__}._mcp").call_result
    assert call_result(ok) == {
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "structuredContent": USER,
    }
    bad = run(results, "lookup", lambda args: {"id": "u1", "Display-Name": None})
    assert call_result(bad) == {
        "content": [
            {
                "type": "text",
                "text": (
                    "Error: the tool failed: the result does not match the tool's `returns`"
                    " schema: missing_required:orders"
                ),
            }
        ],
        "isError": True,
    }


def test_an_mcp_output_schema_types_the_result_and_is_given_back(results: ModuleType) -> None:
    spec = results.TOOLS["fetch_page"].returns
    assert spec.result_type is results.FetchPageResult
    ok = run(results, "fetch_page", lambda args: {"status": 200}, {"url": "https://a.example"})
    assert (ok.status, ok.structured) == ("success", {"status": 200})
    bad = run(results, "fetch_page", lambda args: {"status": "200"}, {"url": "https://a.example"})
    assert bad.errors == ("string_literal_converted_to_integer:status",)
    (entry,) = [tool for tool in results.MCP_TOOLS if tool["name"] == "fetch_page"]
    assert entry["outputSchema"] == {
        "type": "object",
        "properties": {"status": {"type": "integer"}, "body": {"type": "string"}},
        "required": ["status"],
    }


def test_the_payloads_carry_the_schema_where_a_provider_takes_one(results: ModuleType) -> None:
    schema = results.TOOLS["lookup"].returns.schema
    assert schema["properties"]["Display-Name"] == {
        "type": ["string", "null"],
        "description": "Null when the user has not set one.",
    }
    (mcp_entry, _) = results.MCP_TOOLS
    assert mcp_entry["outputSchema"] == schema
    declarations = {d["name"]: d for d in results.GEMINI_TOOLS}
    assert declarations["lookup"]["responseJsonSchema"] == schema
    # google-genai's own type takes it (FunctionDeclaration.response_json_schema).
    parsed = genai_types.FunctionDeclaration.model_validate(declarations["lookup"])
    assert parsed.response_json_schema == schema
    # The legacy Gemini form gets the result in its OpenAPI subset, as its parameters are, and
    # google-genai's type takes it (FunctionDeclaration.response, a Schema).
    legacy = {d["name"]: d for d in results.GEMINI_LEGACY_TOOLS}
    assert legacy["fetch_page"]["response"] == {
        "type": "OBJECT",
        "properties": {"status": {"type": "INTEGER"}, "body": {"type": "STRING"}},
        "required": ["status"],
    }
    assert legacy["lookup"]["response"]["properties"]["Display-Name"] == {
        "type": "STRING",
        "description": "Null when the user has not set one.",
        "nullable": True,
    }
    declared = genai_types.FunctionDeclaration.model_validate(legacy["lookup"])
    assert declared.response is not None and declared.response.required == [
        "id",
        "Display-Name",
        "orders",
    ]
    # OpenAI and Anthropic take no result schema.
    for payload in (
        results.OPENAI_TOOLS,
        results.OPENAI_STRICT_TOOLS,
        results.OPENAI_RESPONSES_TOOLS,
        results.ANTHROPIC_TOOLS,
        results.ANTHROPIC_STRICT_TOOLS,
    ):
        assert all(
            set(entry) & {"response", "output_schema", "outputSchema"} == set() for entry in payload
        )
        assert "Display-Name" not in json.dumps(payload)


def write(tmp_path: Path, text: str) -> Path:
    source = tmp_path / "typed.yaml"
    source.write_text(textwrap.dedent(text), encoding="utf-8")
    return source


TOOL = """\
name: typed
tools:
  - name: get
    description: Get a thing by its id.
    parameters: {type: object, properties: {id: {type: string}}}
"""


def test_both_returns_and_output_schema_is_a_finding(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        TOOL
        + "    returns: {type: object, properties: {n: {type: integer}}}\n"
        + "    outputSchema: {type: object, properties: {m: {type: string}}}\n",
    )
    result = build([source], tmp_path)
    assert [str(d) for d in result.warnings if d.level != "note"] == [
        (
            "typed.yaml:7: warning CG103: tools[0].outputSchema: a tool with both `returns` and"
            " `outputSchema`: `returns` is its result schema, `outputSchema` is ignored (MCP_TOOLS"
            " sends `returns` as the outputSchema)"
        )
    ]
    (entry,) = json.loads(result.files["typed/payloads/mcp.json"])
    assert entry["outputSchema"] == {"type": "object", "properties": {"n": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("output", "why"),
    [
        ("{type: array}", "it is not `type: object`"),
        (
            "{type: object, properties: {n: {$ref: '#/$defs/Nope'}}}",
            "$ref '#/$defs/Nope' does not resolve",
        ),
    ],
)
def test_an_output_schema_that_cannot_be_typed_builds_untyped(
    tmp_path: Path, output: str, why: str
) -> None:
    source = write(tmp_path, TOOL + f"    outputSchema: {output}\n")
    result = build([source], tmp_path)
    (finding,) = [d for d in result.warnings if d.level != "note"]
    assert (finding.code, finding.path) == ("CG111", "tools[0].outputSchema")
    assert finding.message.startswith(f"the outputSchema cannot be typed ({why}")
    module = result.files["typed/tools/get.py"]
    assert "Result" not in module
    (entry,) = json.loads(result.files["typed/payloads/mcp.json"])
    assert entry["outputSchema"] == yaml.safe_load(output)  # as written


@pytest.mark.parametrize(
    ("returns", "message"),
    [
        (
            "{type: array}",
            (
                "typed.yaml:6: tools[0].returns.type: a tool's returns must be `type: object` (MCP's"
                " structured result is an object)"
            ),
        ),
        (
            "{type: object, properties: {n: {$ref: '#/$defs/Nope'}}}",
            (
                "typed.yaml:6: tools[0].returns.properties.n.$ref: $ref '#/$defs/Nope' does not"
                " resolve"
            ),
        ),
    ],
)
def test_a_returns_the_build_cannot_type_is_an_error(
    tmp_path: Path, returns: str, message: str
) -> None:
    source = write(tmp_path, TOOL + f"    returns: {returns}\n")
    with pytest.raises(CatalogError) as raised:
        build([source], tmp_path)
    assert [str(d) for d in raised.value.diagnostics] == [message]


def test_a_fastmcp_output_schema_types_its_wrapped_result(fixture_package: Any) -> None:
    """A FastMCP server wraps a list result as `{"result": [...]}` and says so in its
    outputSchema: a catalog read from its `tools/list` types and checks that form."""
    server: ModuleType = fixture_package("mcp/python_server.json")
    assert server.TOOLS["search_notes"].returns.result_type is server.SearchNotesResult
    request = server.parse("search_notes", {"query": "agents"}, "c1")
    executor = server.Executor({"search_notes": lambda args: {"result": ["a", "b"]}})
    assert executor.execute(request).structured == {"result": ["a", "b"]}
    wrong = server.Executor({"search_notes": lambda args: ["a", "b"]}).execute(request)
    assert (wrong.status, wrong.errors) == ("failed", ("result_not_object:list",))


def test_a_returns_without_type_is_read_as_an_object_said(tmp_path: Path) -> None:
    """The wild reader's rules for the parameters hold for `returns` too."""
    source = write(
        tmp_path,
        TOOL + "    returns: {properties: {n: {type: integer}}, required: true}\n",
    )
    result = build([source], tmp_path)
    assert [str(d) for d in result.warnings if d.level != "note"] == [
        (
            "typed.yaml:6: warning CG107: tools[0].returns: the `returns` schema has no `type`:"
            " read as `type: object` (write it to say so)"
        ),
        (
            "typed.yaml:6: warning CG103: tools[0].returns.required: `required: true` is not beside"
            " a property here: ignored"
        ),
    ]
    assert "class GetResult:" in result.files["typed/tools/get.py"]

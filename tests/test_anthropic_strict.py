"""Anthropic strict tool use (`ANTHROPIC_STRICT_TOOLS`): every tool schema of the bundled and
fixture catalogs equals what the anthropic SDK's own `transform_schema` makes of it, then what the
SDK's transform cannot take (`prepare`), one rule at a time, each change with its finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic import transform_schema

from codegen.catalog.ir import Tool
from codegen.payloads.anthropic_strict import prepared, to_anthropic_strict
from codegen.payloads.schema import Finding, public
from tests.test_json_schema_suite import GROUPS, _moved
from tests.test_strict_mode import TOOLS

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
STILL = "the parser still enforces it"


def strict(properties: dict[str, Any], **root: Any) -> tuple[dict[str, Any], list[Finding]]:
    return to_anthropic_strict({"type": "object", "properties": properties, **root})


def prop(schema: dict[str, Any]) -> dict[str, Any]:
    """The strict form of one property `p`."""
    out, _ = strict({"p": schema})
    return dict(out["properties"]["p"])


# -- the SDK is the judge -----------------------------------------------------------------


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.wire_name)
def test_every_tool_schema_is_what_the_sdks_transform_makes_of_it(tool: Tool) -> None:
    ours, _ = to_anthropic_strict(tool.schema)
    assert ours == transform_schema(prepared(tool.schema))


def test_most_tools_need_no_preparing_so_the_sdk_judges_the_catalog_as_written() -> None:
    as_written = [t.wire_name for t in TOOLS if prepared(t.schema) == public(t.schema)]
    assert {"memory.search", "search_files", "update_config", "invite_attendees"} <= set(as_written)
    for tool in TOOLS:
        if tool.wire_name in as_written:
            assert to_anthropic_strict(tool.schema)[0] == transform_schema(public(tool.schema))


def test_every_schema_of_the_json_schema_test_suite_is_what_the_sdks_transform_makes_of_it() -> (
    None
):
    """The SDK's transform takes what `prepare` makes of every keyword there is, and agrees."""
    for group in GROUPS:
        schema = {"type": "object", "properties": {"x": _moved(group.schema, "/properties/x")}}
        ours, _ = to_anthropic_strict(schema)
        assert ours == transform_schema(prepared(schema)), group.key
    assert len(GROUPS) > 150


@pytest.mark.parametrize("catalog", ["memory_tools", "calendar_tools", "http_tools"])
def test_the_constant_is_the_plain_one_with_strict_and_the_strict_schema(catalog: str) -> None:
    # test_payloads.py checks every entry against the SDK's ToolParam, every key kept.
    path = GENERATED / catalog / "payloads"
    plain = json.loads((path / "anthropic.json").read_text(encoding="utf-8"))
    entries = json.loads((path / "anthropic_strict.json").read_text(encoding="utf-8"))
    assert [e["name"] for e in entries] == [e["name"] for e in plain]
    for entry, same in zip(entries, plain, strict=True):
        assert entry == {**same, "input_schema": entry["input_schema"], "strict": True}
        assert list(entry)[-1] == "strict"


# -- what the SDK's transform does, with its findings ---------------------------------------


def test_constraints_move_into_the_description_as_the_sdk_writes_them() -> None:
    schema = {"type": "integer", "description": "How many.", "minimum": 1, "maximum": 50}
    out, found = strict({"limit": schema})
    assert out["properties"]["limit"] == {
        "type": "integer",
        "description": "How many.\n\n{minimum: 1, maximum: 50}",
    }
    assert found == [
        Finding(
            ("properties", "limit", "maximum"),
            f"keyword 'maximum' moved into the description (strict tool use does not take it); {STILL}",
        ),
        Finding(
            ("properties", "limit", "minimum"),
            f"keyword 'minimum' moved into the description (strict tool use does not take it); {STILL}",
        ),
    ]


def test_default_is_said_with_a_note_and_examples_without_one() -> None:
    out, found = strict({"n": {"type": "boolean", "default": True, "examples": [False]}})
    assert out["properties"]["n"] == {
        "type": "boolean",
        "description": "{default: True, examples: [False]}",
    }
    assert found == [
        Finding(
            ("properties", "n", "default"),
            "default moved into the description (strict tool use does not take it): the parser fills it",
        )
    ]


def test_objects_are_closed_and_optional_properties_stay_optional() -> None:
    out, found = strict({"a": {"type": "string"}, "b": {"type": "string"}}, required=["a"])
    assert out == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "additionalProperties": False,
        "required": ["a"],
    }
    assert found == []


def test_enum_and_const_are_sent_without_the_type_beside_them() -> None:
    assert prop({"type": "string", "enum": ["a", "b"]}) == {"enum": ["a", "b"]}
    assert prop({"type": ["string", "null"], "enum": ["a", None]}) == {"enum": ["a", None]}
    assert prop({"type": "integer", "const": 2}) == {"const": 2}


def test_formats_strict_tool_use_lists_are_kept_and_others_described() -> None:
    assert prop({"type": "string", "format": "uri"}) == {"type": "string", "format": "uri"}
    out, found = strict({"p": {"type": "string", "format": "x-attachment"}})
    assert out["properties"]["p"] == {"type": "string", "description": "{format: x-attachment}"}
    assert [f.path for f in found] == [("properties", "p", "format")]


def test_min_items_of_zero_or_one_is_kept_and_other_bounds_described() -> None:
    array = {"type": "array", "items": {"type": "string"}}
    assert prop({**array, "minItems": 1}) == {**array, "minItems": 1}
    assert prop({**array, "minItems": 2, "maxItems": 5}) == {
        **array,
        "description": "{maxItems: 5, minItems: 2}",
    }


# -- what the SDK's transform cannot take, said in a form it takes --------------------------


def test_a_type_list_becomes_an_any_of_with_each_types_keywords() -> None:
    schema = {"type": ["integer", "null"], "minimum": 1, "description": "From here."}
    with pytest.raises(AssertionError):  # the SDK's transform takes one type per node
        transform_schema({"type": "object", "properties": {"p": schema}})
    out, found = strict({"p": schema})
    assert out["properties"]["p"] == {
        "anyOf": [{"type": "integer", "description": "{minimum: 1}"}, {"type": "null"}],
        "description": "From here.",
    }
    # Placed where the catalog wrote the keyword, not in a branch it never wrote.
    assert [f.path for f in found] == [("properties", "p", "minimum")]


def test_what_stands_beside_a_ref_is_kept() -> None:
    defs = {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}}
    schema = {"$ref": "#/$defs/Point", "description": "Where."}
    sdk = transform_schema({"type": "object", "properties": {"p": schema}, "$defs": defs})
    assert sdk["properties"]["p"] == {"$ref": "#/$defs/Point"}  # the description is lost there
    out, found = strict({"p": schema}, **{"$defs": defs})
    assert out["properties"]["p"] == {
        "type": "object",
        "description": "Where.",
        "properties": {"x": {"type": "number"}},
        "additionalProperties": False,
    }
    assert out["$defs"]["Point"]["additionalProperties"] is False
    assert found == []


def test_a_value_of_any_type_is_a_scalar() -> None:
    with pytest.raises(ValueError, match="must have a 'type'"):
        transform_schema({"type": "object", "properties": {"p": {}}})
    out, found = strict({"p": {"description": "Anything."}})
    assert out["properties"]["p"] == {
        "anyOf": [{"type": t} for t in ("string", "number", "boolean", "null")],
        "description": "Anything.",
    }
    assert found == [
        Finding(
            ("properties", "p"),
            "any value: strict mode can only say a string, number, boolean or null",
        )
    ]


def test_an_object_of_any_names_is_sent_as_json_text() -> None:
    # The SDK's transform closes it with no properties: the model could only ever send {}.
    sdk = transform_schema({"type": "object", "properties": {"p": {"type": "object"}}})
    assert sdk["properties"]["p"] == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    out, found = strict({"p": {"type": "object", "additionalProperties": {"type": "string"}}})
    assert out["properties"]["p"] == {"type": "string", "description": "A JSON object, as text."}
    assert [(f.path, f.code) for f in found] == [(("properties", "p"), "CG201")]
    assert "string_parsed_as_json" in found[0].message


def test_names_beyond_properties_are_a_warning() -> None:
    _, found = strict({"a": {"type": "string"}}, additionalProperties=True)
    assert [(f.path, f.code) for f in found] == [(("additionalProperties",), "CG202")]


def test_one_of_and_all_of() -> None:
    one = prop({"oneOf": [{"type": "string"}, {"type": "integer"}]})
    assert one == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    out, found = strict(
        {"p": {"allOf": [{"type": "integer"}, {"type": "integer", "description": "Merged."}]}}
    )
    assert out["properties"]["p"] == {"type": "integer", "description": "Merged."}
    assert [f.path for f in found] == [("properties", "p")]
    assert "allOf merged" in found[0].message


def test_items_that_are_no_schema_are_removed_with_a_note() -> None:
    out, found = strict({"p": {"type": "array", "items": False}})
    assert out["properties"]["p"] == {"type": "array"}
    assert found == [
        Finding(
            ("properties", "p", "items"),
            f"items false removed: strict tool use takes a schema there; {STILL}",
        )
    ]
    assert prop({"type": ["string"]}) == {"type": "string"}


def test_codegens_own_keywords_are_never_sent() -> None:
    assert prop({"type": "string", "enum": ["A"], "x-case-sensitive": True}) == {"enum": ["A"]}

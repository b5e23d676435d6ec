"""OpenAI strict mode (SPEC §4), one rule at a time, then a node-by-node check of every strict
schema the bundled and fixture catalogs emit, and the comparison with the openai SDK's own
`pydantic_function_tool` on an equivalent pydantic model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codegen.build import check_catalogs, find_sources
from codegen.catalog.ir import Tool
from codegen.payloads.schema import Finding
from codegen.payloads.strict import KEPT, limits, to_strict

ROOT = Path(__file__).resolve().parent.parent
KEPT_ANYWHERE = "the parser still enforces it"


def strict(properties: dict[str, Any], **root: Any) -> tuple[dict[str, Any], list[Finding]]:
    return to_strict({"type": "object", "properties": properties, **root})


def test_every_property_is_required_and_an_optional_one_takes_null() -> None:
    schema, findings = strict(
        {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": ["string", "null"]}},
        required=["a"],
    )
    assert schema == {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": ["integer", "null"]},
            "c": {"type": ["string", "null"]},
        },
        "required": ["a", "b", "c"],
        "additionalProperties": False,
    }
    assert findings == []


def test_an_optional_enum_takes_null_in_its_values_too() -> None:
    schema, _ = strict({"mode": {"type": "string", "enum": ["a", "b"]}})
    assert schema["properties"]["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None]}


def test_an_optional_ref_becomes_a_union_with_null() -> None:
    schema, _ = strict(
        {"at": {"$ref": "#/$defs/T"}}, **{"$defs": {"T": {"type": "object", "properties": {}}}}
    )
    assert schema["properties"]["at"] == {"anyOf": [{"$ref": "#/$defs/T"}, {"type": "null"}]}
    assert schema["$defs"] == {
        "T": {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    }


def test_a_ref_with_siblings_is_written_out() -> None:
    schema, findings = strict(
        {"at": {"$ref": "#/$defs/T", "description": "When."}},
        required=["at"],
        **{"$defs": {"T": {"type": "string", "description": "A time.", "format": "date-time"}}},
    )
    assert schema["properties"]["at"] == {
        "type": "string",
        "description": "When.",
        "format": "date-time",
    }
    assert findings == []


def test_default_is_removed_and_said_in_the_description() -> None:
    schema, findings = strict(
        {"n": {"type": "integer", "default": 3, "description": "How many."}}, required=["n"]
    )
    assert schema["properties"]["n"] == {"type": "integer", "description": "How many. Default: 3."}
    assert findings == [
        Finding(
            ("properties", "n", "default"),
            "default removed (strict mode does not take it): said in the description, and the parser fills it",
        )
    ]
    schema, _ = strict({"s": {"type": "string", "default": "utf-8"}}, required=["s"])
    assert schema["properties"]["s"] == {"type": "string", "description": 'Default: "utf-8".'}


def test_a_null_default_is_dropped_without_a_word() -> None:
    schema, findings = strict({"s": {"type": ["string", "null"], "default": None}})
    assert schema["properties"]["s"] == {"type": ["string", "null"]}
    assert findings == []


@pytest.mark.parametrize(
    ("word", "value", "why"),
    [
        ("minLength", 1, "strict mode does not take string lengths"),
        ("maxLength", 9, "strict mode does not take string lengths"),
        ("not", {"const": "x"}, "strict mode has no `not`"),
        ("if", {"const": "x"}, "strict mode has no conditionals"),
        ("then", {"const": "x"}, "strict mode has no conditionals"),
        ("else", {"const": "x"}, "strict mode has no conditionals"),
        ("uniqueItems", True, "strict mode does not take it"),
    ],
)
def test_a_keyword_strict_mode_refuses_is_removed_with_a_warning(
    word: str, value: Any, why: str
) -> None:
    schema, findings = strict({"s": {"type": "string", word: value}}, required=["s"])
    assert schema["properties"]["s"] == {"type": "string"}
    # Only what the parser checks is said to be checked (the front end warns of the rest).
    checked = f"; {KEPT_ANYWHERE}" if word in ("minLength", "maxLength") else ""
    assert findings == [
        Finding(("properties", "s", word), f"keyword {word!r} removed: {why}{checked}")
    ]


def test_what_strict_mode_keeps_is_kept() -> None:
    kept = {
        "n": {"type": "number", "minimum": 0, "exclusiveMaximum": 9, "multipleOf": 0.5},
        "s": {"type": "string", "pattern": "^a", "format": "date-time", "title": "S"},
        "l": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "e": {"type": "string", "enum": ["x", "y"], "description": "E.", "examples": ["x"]},
    }
    schema, findings = strict(kept, required=list(kept))
    assert schema["properties"] == kept
    assert findings == []


def test_a_format_strict_mode_lacks_is_removed() -> None:
    schema, findings = strict({"u": {"type": "string", "format": "uri"}}, required=["u"])
    assert schema["properties"]["u"] == {"type": "string"}
    assert findings == [
        Finding(
            ("properties", "u", "format"),
            f"format 'uri' removed: strict mode does not take it; {KEPT_ANYWHERE}",
        )
    ]


def test_one_of_becomes_any_of() -> None:
    disjoint = {"oneOf": [{"type": "integer"}, {"type": "string"}]}
    schema, findings = strict({"c": disjoint}, required=["c"])
    assert schema["properties"]["c"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert findings == [
        Finding(
            ("properties", "c", "oneOf"),
            "oneOf sent as anyOf, which is the same here: its branches take different types",
        )
    ]
    overlapping = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    _, findings = strict({"c": overlapping}, required=["c"])
    assert findings == [
        Finding(
            ("properties", "c", "oneOf"),
            "oneOf sent as anyOf (strict mode has no oneOf): a value that two branches take is refused by the parser",
        )
    ]


def test_all_of_is_merged() -> None:
    schema, findings = strict(
        {"n": {"allOf": [{"type": "integer", "minimum": 1}, {"maximum": 5}]}}, required=["n"]
    )
    assert schema["properties"]["n"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert findings == [
        Finding(
            ("properties", "n"),
            f"allOf merged into one schema (strict mode has no allOf); {KEPT_ANYWHERE}",
        )
    ]


def test_const_is_an_enum_of_one() -> None:
    schema, findings = strict({"v": {"type": "integer", "const": 2}}, required=["v"])
    assert schema["properties"]["v"] == {"type": "integer", "enum": [2]}
    assert findings == []


def test_an_object_of_any_names_is_sent_as_json_text() -> None:
    schema, findings = strict(
        {"h": {"type": "object", "additionalProperties": {"type": "string"}, "description": "H."}},
        required=["h"],
    )
    assert schema["properties"]["h"] == {
        "type": "string",
        "description": "H. A JSON object, as text.",
    }
    assert findings == [
        Finding(
            ("properties", "h"),
            "an object of any names is sent as a string holding JSON (strict mode needs every name"
            " declared): the parser decodes it, with the warning string_parsed_as_json",
        )
    ]


def test_any_value_and_items_of_any_value_are_scalars() -> None:
    schema, findings = strict({"v": {}, "l": {"type": "array"}}, required=["v", "l"])
    scalars = ["string", "number", "boolean", "null"]
    assert schema["properties"] == {
        "v": {"type": scalars},
        "l": {"type": "array", "items": {"type": scalars}},
    }
    assert findings == [
        Finding(
            ("properties", "l", "items"),
            "items of any value: strict mode can only say a string, number, boolean or null",
        ),
        Finding(
            ("properties", "v"),
            "any value: strict mode can only say a string, number, boolean or null",
        ),
    ]


def test_x_keywords_are_codegens_own_and_never_sent() -> None:
    schema, findings = strict(
        {"m": {"type": "string", "enum": ["A"], "x-case-sensitive": True, "x-python-name": "m2"}},
        required=["m"],
    )
    assert schema["properties"]["m"] == {"type": "string", "enum": ["A"]}
    assert findings == []


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5001)}},
            "5001 properties, over strict mode's 5000: OpenAI will refuse the strict tool",
        ),
        (
            {"type": "object", "properties": {"e": {"enum": [str(i) for i in range(1001)]}}},
            "1001 enum values, over strict mode's 1000: OpenAI will refuse the strict tool",
        ),
        (
            {"type": "object", "properties": {"e": {"enum": ["x" * 60_000, "y" * 60_001]}}},
            (
                "120002 characters of property names and enum values, over strict mode's 120000:"
                " OpenAI will refuse the strict tool"
            ),
        ),
    ],
)
def test_limits(schema: dict[str, Any], message: str) -> None:
    assert limits(schema) == [Finding((), message, "CG008")]


def test_nesting_deeper_than_ten_levels() -> None:
    node: dict[str, Any] = {"type": "object", "properties": {}}
    for _ in range(10):
        node = {"type": "object", "properties": {"x": node}}
    assert limits(node) == [
        Finding(
            (),
            "11 levels of objects, over strict mode's 10: OpenAI will refuse the strict tool",
            "CG008",
        )
    ]
    assert limits(node["properties"]["x"]) == []


# -- every emitted strict schema, node by node ----------------------------------------------


def catalog_tools() -> list[Tool]:
    sources = find_sources([ROOT / "schemas", ROOT / "tests" / "fixtures"])
    catalogs, _ = check_catalogs(sources, ROOT)
    return [tool for catalog in catalogs for tool in catalog.tools]


TOOLS = catalog_tools()


def strict_problems(node: Any, root: dict[str, Any], path: str = "") -> list[str]:
    """What breaks a strict-mode rule at `node` and below."""
    if not isinstance(node, dict):
        return [f"{path}: not a schema object"]
    found = [f"{path}: keyword {w!r}" for w in node if w not in KEPT]
    if "$ref" in node:
        return found + ([f"{path}: keywords beside $ref"] if len(node) > 1 else [])
    if "anyOf" in node:
        for i, branch in enumerate(node["anyOf"]):
            found += strict_problems(branch, root, f"{path}.anyOf[{i}]")
        return found
    types = node.get("type")
    if types is None and "enum" not in node:
        found.append(f"{path}: no type")
    kinds = [types] if isinstance(types, str) else list(types or [])
    if "object" in kinds:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            found.append(f"{path}: an object without properties")
        else:
            if node.get("required") != list(properties):
                found.append(f"{path}: not every property required")
            for name, prop in properties.items():
                found += strict_problems(prop, root, f"{path}.{name}")
        if node.get("additionalProperties") is not False:
            found.append(f"{path}: additionalProperties is not false")
    if "array" in kinds:
        found += strict_problems(node.get("items"), root, f"{path}[]")
    if "enum" in node and "null" in kinds and None not in node["enum"]:
        found.append(f"{path}: nullable enum without null")
    return found


@pytest.mark.parametrize("tool", TOOLS, ids=[t.wire_name for t in TOOLS])
def test_every_emitted_strict_schema_keeps_every_rule(tool: Tool) -> None:
    schema, _ = to_strict(tool.schema)
    problems = strict_problems(schema, schema)
    for name, target in schema.get("$defs", {}).items():
        problems += strict_problems(target, schema, f"$defs.{name}")
    assert problems == []
    assert limits(schema) == []


# -- against the openai SDK's own strict schemas --------------------------------------------


def pydantic_model(tool: Tool) -> type[Any]:
    """The pydantic model a person would write for the tool (the parameters' own schema)."""
    import datetime
    from typing import Literal, Optional, Union

    from pydantic import ConfigDict, Field, create_model

    root = tool.schema

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in node:
            target = root["$defs"][node["$ref"].split("/")[-1]]
            return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def annotation(node: Any, name: str) -> Any:
        node = resolve(node if isinstance(node, dict) else {})
        if "const" in node:
            return Literal[node["const"]]
        if "enum" in node:
            return Literal[tuple(node["enum"])]
        branches = node.get("anyOf") or node.get("oneOf")
        if branches:
            return Union[tuple(annotation(b, name) for b in branches)]  # noqa: UP007
        types = node.get("type")
        if isinstance(types, list):
            return Union[tuple(annotation({**node, "type": t}, name) for t in types)]  # noqa: UP007
        if types == "null":
            return type(None)
        if types == "string":
            fmt = node.get("format")
            return {"date-time": datetime.datetime, "date": datetime.date}.get(fmt, str)
        if types in ("integer", "number", "boolean"):
            return {"integer": int, "number": float, "boolean": bool}[types]
        if types == "array":
            return list[annotation(node["items"], name)] if "items" in node else list[Any]
        if types == "object" and "properties" in node:
            return model(node, name)
        if types == "object":
            extra = node.get("additionalProperties")
            return dict[str, annotation(extra, name) if isinstance(extra, dict) else Any]
        return Any

    def model(node: dict[str, Any], name: str) -> type[Any]:
        fields: dict[str, Any] = {}
        required = set(node.get("required", ()))
        for prop, schema in node["properties"].items():
            schema = resolve(schema if isinstance(schema, dict) else {})
            constraints = {
                word: schema[key]
                for word, key in (
                    ("ge", "minimum"),
                    ("le", "maximum"),
                    ("gt", "exclusiveMinimum"),
                    ("lt", "exclusiveMaximum"),
                    ("min_length", "minLength"),
                    ("max_length", "maxLength"),
                    ("pattern", "pattern"),
                )
                if key in schema and "type" in schema and schema["type"] != "array"
            }
            if schema.get("type") == "array":
                constraints |= {
                    w: schema[k]
                    for w, k in (("min_length", "minItems"), ("max_length", "maxItems"))
                    if k in schema
                }
            kind = annotation(schema, name + prop.title().replace("-", ""))
            if prop in required:
                default: Any = ...
            else:
                kind = Optional[kind]  # noqa: UP045
                default = schema.get("default")
            fields[prop.replace("-", "_")] = (
                kind,
                Field(default, alias=prop, description=schema.get("description"), **constraints),
            )
        return create_model(name, __config__=ConfigDict(extra="forbid"), **fields)

    return model(root, "Args")


def sdk_strict(tool: Tool) -> dict[str, Any]:
    import openai

    return openai.pydantic_function_tool(pydantic_model(tool), name="t")["function"]["parameters"]


def inline(node: Any, root: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            target = root["$defs"][node["$ref"].split("/")[-1]]
            return inline({**target, **{k: v for k, v in node.items() if k != "$ref"}}, root)
        return {k: inline(v, root) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [inline(v, root) for v in node]
    return node


def keywords(node: Any) -> set[str]:
    """Every keyword used in a schema (property names excluded)."""
    if isinstance(node, list):
        return set().union(*(keywords(v) for v in node))
    if not isinstance(node, dict):
        return set()
    found = set(node) - {"properties"}
    for word, value in node.items():
        if word == "properties":
            found |= set().union(*(keywords(v) for v in value.values()))
        elif word not in ("enum", "default", "examples", "required", "description", "title"):
            found |= keywords(value)
    return found


# Keywords the SDK's schema has and ours never sends, and why (README, "Provider payloads"):
# pydantic writes a `title` on every node; we send `default` in the description instead, and
# drop string lengths, `allOf` and formats strict mode does not take; the SDK leaves all of these
# for the API to refuse or ignore.
SDK_ONLY = {"title", "default", "minLength", "maxLength", "allOf", "format"}
# Said another way: pydantic writes Optional[X] as anyOf [X, null] (we: a type list) and a
# Literal of one value as const (we: an enum of one).
SPELLED = {"anyOf", "const"}
BUNDLED_TOOLS = [
    tool
    for catalog in check_catalogs(find_sources([ROOT / "schemas"]), ROOT)[0]
    for tool in catalog.tools
]


@pytest.mark.parametrize("tool", BUNDLED_TOOLS, ids=[t.wire_name for t in BUNDLED_TOOLS])
def test_against_pydantic_function_tool(tool: Tool) -> None:
    sdk = inline(sdk_strict(tool), sdk_strict(tool))
    ours = inline(to_strict(tool.schema)[0], to_strict(tool.schema)[0])
    # The same parameters, all required, no other names: the rules both follow.
    assert list(ours["properties"]) == list(sdk["properties"])
    assert ours["required"] == sdk["required"] == list(sdk["properties"])
    assert ours["additionalProperties"] is sdk["additionalProperties"] is False
    assert keywords(sdk) - keywords(ours) <= SDK_ONLY | SPELLED


def test_parameters_of_any_names_stay_an_object() -> None:
    assert to_strict({"type": "object"}) == (
        {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
        [
            Finding(
                (),
                "parameters of any names: strict mode needs every name declared, so the model can send none",
            )
        ],
    )

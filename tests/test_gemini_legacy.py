"""Gemini's legacy OpenAPI-subset `parameters`, one rule at a time."""

from __future__ import annotations

from typing import Any

from codegen.payloads.legacy import to_legacy
from codegen.payloads.schema import Finding

ENFORCED = "the parser still enforces it"


def legacy(prop: dict[str, Any], **root: Any) -> tuple[dict[str, Any], list[Finding]]:
    schema, findings = to_legacy({"type": "object", "properties": {"p": prop}, **root})
    return schema["properties"]["p"], findings


def test_types_are_upper_case_and_the_root_is_an_object() -> None:
    schema, findings = to_legacy(
        {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}},
            "required": ["n"],
            "additionalProperties": False,
        }
    )
    assert schema == {
        "type": "OBJECT",
        "properties": {"n": {"type": "INTEGER"}, "b": {"type": "BOOLEAN"}},
        "required": ["n"],
    }
    assert findings == []


def test_a_type_list_with_null_is_nullable() -> None:
    assert legacy({"type": ["integer", "null"], "minimum": 1}) == (
        {"type": "INTEGER", "nullable": True, "minimum": 1},
        [],
    )


def test_an_any_of_with_a_null_branch_is_the_other_branch_nullable() -> None:
    node = {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}], "description": "D."}
    assert legacy(node) == (
        {"type": "STRING", "description": "D.", "nullable": True, "maxLength": 5},
        [],
    )


def test_several_types_are_an_any_of_each_with_its_own_keywords() -> None:
    node, findings = legacy({"type": ["string", "integer"], "maxLength": 3, "minimum": 0})
    assert node == {
        "anyOf": [{"type": "STRING", "maxLength": 3}, {"type": "INTEGER", "minimum": 0}]
    }
    assert findings == []


def test_string_enums_stay_and_other_enums_go_to_the_description() -> None:
    assert legacy({"type": "string", "enum": ["a", "b"]}) == (
        {"type": "STRING", "enum": ["a", "b"]},
        [],
    )
    assert legacy({"type": "integer", "enum": [1, 5], "description": "P."}) == (
        {"type": "INTEGER", "description": "P. One of: 1, 5."},
        [
            Finding(
                ("properties", "p", "enum"),
                f"enum of non-strings removed (the subset takes strings only): said in the description; {ENFORCED}",
            )
        ],
    )
    assert legacy({"type": ["string", "null"], "enum": ["a", None]})[0] == {
        "type": "STRING",
        "nullable": True,
        "enum": ["a"],
    }


def test_const_is_an_enum_of_one() -> None:
    assert legacy({"type": "string", "const": "v2"}) == ({"type": "STRING", "enum": ["v2"]}, [])


def test_refs_are_written_out() -> None:
    node, findings = legacy(
        {"$ref": "#/$defs/T", "description": "Use."},
        **{"$defs": {"T": {"type": "object", "properties": {"x": {"type": "string"}}}}},
    )
    assert node == {
        "type": "OBJECT",
        "description": "Use.",
        "properties": {"x": {"type": "STRING"}},
    }
    assert findings == []


def test_one_of_is_any_of_with_a_warning() -> None:
    node, findings = legacy({"oneOf": [{"type": "integer"}, {"type": "string"}]})
    assert node == {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]}
    assert findings == [
        Finding(
            ("properties", "p", "oneOf"),
            f"oneOf sent as anyOf (the subset has no oneOf); {ENFORCED}",
        )
    ]


def test_exclusive_bounds() -> None:
    assert legacy({"type": "integer", "exclusiveMinimum": 0}) == (
        {"type": "INTEGER", "minimum": 1},
        [],
    )
    assert legacy({"type": "number", "exclusiveMaximum": 300}) == (
        {"type": "NUMBER", "description": "Less than 300."},
        [
            Finding(
                ("properties", "p", "exclusiveMaximum"),
                f"exclusiveMaximum removed (the subset has none): said in the description; {ENFORCED}",
            )
        ],
    )


def test_an_array_needs_items() -> None:
    assert legacy({"type": "array"}) == (
        {"type": "ARRAY", "items": {"type": "STRING"}},
        [
            Finding(
                ("properties", "p", "items"),
                "items of any value cannot be said in the subset: sent as a list of strings; the parser takes any items",
            )
        ],
    )


def test_a_map_loses_its_value_schema() -> None:
    assert legacy({"type": "object", "additionalProperties": {"type": "string"}}) == (
        {"type": "OBJECT"},
        [
            Finding(
                ("properties", "p", "additionalProperties"),
                "a schema for other names cannot be said in the subset: removed; the parser still checks them",
            )
        ],
    )


def test_defaults_stay_and_examples_become_one_example() -> None:
    assert legacy({"type": "string", "default": "x", "examples": ["a", "b"]}) == (
        {"type": "STRING", "default": "x", "example": "a"},
        [],
    )


def test_what_the_subset_lacks_is_removed_with_a_warning() -> None:
    assert legacy({"type": "number", "multipleOf": 0.5}) == (
        {"type": "NUMBER"},
        [
            Finding(
                ("properties", "p", "multipleOf"),
                "keyword 'multipleOf' removed (the subset has no multipleOf)",
            )
        ],
    )


def test_any_value_has_no_type() -> None:
    assert legacy({"description": "Anything."}) == (
        {"description": "Anything."},
        [
            Finding(
                ("properties", "p"),
                "any value: the subset has no schema for it, sent without a type",
            )
        ],
    )


def test_a_property_name_the_subset_does_not_document() -> None:
    _, findings = to_legacy({"type": "object", "properties": {"Content-Type": {"type": "string"}}})
    assert findings == [
        Finding(
            ("properties", "Content-Type"),
            "property name 'Content-Type' is not one the legacy `parameters` documents (a letter or"
            " _, then letters, digits, _; up to 64): an endpoint that checks it refuses the tool"
            " (GEMINI_TOOLS has no such rule)",
            "CG203",
        )
    ]

"""Execution tests of the generated parsers: every coercion rule of SPEC §3, end to end.

The catalog tests/fixtures/coercion.yaml is built once into a package (`fixture_package`) and each
row below parses one call with it, both as the JSON text a provider sends and as an already
decoded dict. Every row states the exact `values`, the exact `warnings` and `errors` tuples and,
when there is no error, fields of the typed `arguments` (compared with their types, so 1 is not
1.0); a row with errors must have `arguments is None`.

Sections: harness · exact input · booleans · integers · numbers · strings · enums and consts ·
timestamps and URIs · null · unions · arrays · maps and free-form objects · nested objects and
$ref · defaults · required · unknown names · request fields · unknown tools · TOOLS.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import typing
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import pytest
import yaml

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "coercion.yaml"
PLUS_2 = timezone(timedelta(hours=2))

# ---------------------------------------------------------------------------------------------
# Harness


@pytest.fixture(scope="module")
def pkg(fixture_package: Any) -> ModuleType:
    return fixture_package("coercion.yaml")


@pytest.fixture(params=["json", "dict"])
def form(request: pytest.FixtureRequest) -> str:
    """Every row runs twice: as JSON text and as an already decoded dict."""
    return str(request.param)


def same(actual: object, expected: object) -> bool:
    """Equal, with the same types all the way down (1 is not 1.0, True is not 1)."""
    if type(actual) is not type(expected):
        return False
    if dataclasses.is_dataclass(expected):
        return all(
            same(getattr(actual, f.name), getattr(expected, f.name))
            for f in dataclasses.fields(expected)
        )
    if isinstance(expected, Mapping):
        assert isinstance(actual, Mapping)
        return set(actual) == set(expected) and all(same(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list):
        assert isinstance(actual, list)
        return len(actual) == len(expected) and all(map(same, actual, expected))
    return actual == expected


def agrees(typed: object, plain: object) -> bool:
    """Whether typed arguments hold the same data as the plain `values`: a field absent from
    `values` is None, nested dataclasses match nested dicts. (Every field name of the fixture
    catalog is already a Python identifier, so field names are the wire names.)"""
    if dataclasses.is_dataclass(typed):
        return isinstance(plain, dict) and all(
            (
                agrees(getattr(typed, f.name), plain[f.name])
                if f.name in plain
                else getattr(typed, f.name) is None
            )
            for f in dataclasses.fields(typed)
        )
    if isinstance(typed, list):
        return (
            isinstance(plain, list) and len(typed) == len(plain) and all(map(agrees, typed, plain))
        )
    if isinstance(typed, dict):
        return (
            isinstance(plain, dict)
            and set(typed) == set(plain)
            and all(agrees(typed[k], plain[k]) for k in typed)
        )
    return same(typed, plain)


@dataclasses.dataclass(frozen=True)
class Row:
    """One call: `args` sent to `tool` gives these values and codes; `typed` maps dataclass
    attributes to their expected values (only for calls without errors)."""

    tool: str
    args: dict[str, object]
    values: dict[str, object]
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    typed: dict[str, object] = dataclasses.field(default_factory=dict)


def case(
    tool: str,
    args: dict[str, object],
    values: dict[str, object],
    warnings: tuple[str, ...] = (),
    errors: tuple[str, ...] = (),
    typed: dict[str, object] | None = None,
    *,
    id: str,
) -> Any:
    assert not (errors and typed), f"{id}: a call with errors has no typed arguments"
    return pytest.param(Row(tool, args, values, warnings, errors, typed or {}), id=id)


def check(
    pkg: ModuleType,
    tool: str,
    raw: object,
    values: dict[str, object],
    warnings: tuple[str, ...] = (),
    errors: tuple[str, ...] = (),
    typed: dict[str, object] | None = None,
) -> Any:
    """Parse `raw` with `tool` and assert values, codes and typed arguments; return the request."""
    req = pkg.parse(tool, raw, tool_call_id="call_1")
    assert req.tool_name == tool
    assert req.tool_call_id == "call_1"
    assert same(req.values, values), f"values: {req.values!r} != {values!r}"
    assert req.warnings == warnings
    assert req.errors == errors
    assert req.parse_warning == ("; ".join(warnings) or None)
    assert req.parse_error == ("; ".join(errors) or None)
    if errors:
        assert req.arguments is None
    else:
        assert type(req.arguments) is pkg.TOOLS[tool].args_type
        assert agrees(req.arguments, req.values), (
            f"arguments {req.arguments!r} disagree with values"
        )
        for attr, expected in (typed or {}).items():
            actual = getattr(req.arguments, attr)
            assert same(actual, expected), f"arguments.{attr}: {actual!r} != {expected!r}"
    return req


def run(pkg: ModuleType, form: str, row: Row) -> None:
    """Check a row, sent as JSON text (kept verbatim as `raw_arguments`) or as a dict."""
    raw = json.dumps(row.args) if form == "json" else row.args
    req = check(pkg, row.tool, raw, row.values, row.warnings, row.errors, row.typed)
    if form == "json":
        assert req.raw_arguments == raw


# ---------------------------------------------------------------------------------------------
# Input that already matches the schema exactly: zero warnings, zero errors

EXACT = [
    case(
        "scalars",
        {
            "flag": True,
            "count": -3,
            "bounded": 10,
            "exclusive": 9,
            "ratio": 2.5,
            "score": 1.0,
            "text": "null",
            "code": "abcd",
            "slug": "a-b",
        },
        {
            "flag": True,
            "count": -3,
            "bounded": 10,
            "exclusive": 9,
            "ratio": 2.5,
            "score": 1.0,
            "text": "null",
            "code": "abcd",
            "slug": "a-b",
        },
        typed={
            "flag": True,
            "count": -3,
            "bounded": 10,
            "exclusive": 9,
            "ratio": 2.5,
            "score": 1.0,
            "text": "null",
            "code": "abcd",
            "slug": "a-b",
        },
        id="scalars",
    ),
    case(
        "scalars",
        {"bounded": 1, "exclusive": 1, "score": 0.0, "code": "ab"},
        {"bounded": 1, "exclusive": 1, "score": 0.0, "code": "ab"},
        typed={"bounded": 1, "exclusive": 1, "score": 0.0, "code": "ab", "flag": None},
        id="scalars-lower-bounds",
    ),
    case(
        "choices",
        {"color": "green", "mode": "SLOW", "level": 3, "version": 2, "kind": "fixed"},
        {"color": "green", "mode": "SLOW", "level": 3, "version": 2, "kind": "fixed"},
        typed={"color": "green", "mode": "SLOW", "level": 3, "version": 2, "kind": "fixed"},
        id="choices",
    ),
    case(
        "formats",
        {
            "when": "2024-05-01T10:30:00+02:00",
            "day": "2024-05-01",
            "link": "https://example.com/a?b=c",
        },
        {
            "when": datetime(2024, 5, 1, 10, 30, tzinfo=PLUS_2),
            "day": date(2024, 5, 1),
            "link": "https://example.com/a?b=c",
        },
        typed={
            "when": datetime(2024, 5, 1, 10, 30, tzinfo=PLUS_2),
            "day": date(2024, 5, 1),
            "link": "https://example.com/a?b=c",
        },
        id="formats",
    ),
    case(
        "nullables",
        {"maybe_count": None, "maybe_text": None, "maybe_day": None, "id": "x-1"},
        {"maybe_count": None, "maybe_text": None, "maybe_day": None, "id": "x-1"},
        typed={"maybe_count": None, "maybe_text": None, "maybe_day": None, "id": "x-1"},
        id="nullables-null",
    ),
    case(
        "nullables",
        {"maybe_count": 4, "maybe_text": "t", "maybe_day": "2024-02-29", "id": 7},
        {"maybe_count": 4, "maybe_text": "t", "maybe_day": date(2024, 2, 29), "id": 7},
        typed={"maybe_count": 4, "maybe_text": "t", "maybe_day": date(2024, 2, 29), "id": 7},
        id="nullables-values",
    ),
    case(
        "collections",
        {
            "tags": ["a", "b"],
            "limited": [1, 2, 3],
            "people": [{"name": "Ann", "role": "admin", "age": 40}],
            "counts": {"a": 1},
            "extra": {"k": [1, None, {"z": "w"}]},
        },
        {
            "tags": ["a", "b"],
            "limited": [1, 2, 3],
            "people": [{"name": "Ann", "role": "admin", "age": 40}],
            "counts": {"a": 1},
            "extra": {"k": [1, None, {"z": "w"}]},
        },
        typed={
            "tags": ["a", "b"],
            "limited": [1, 2, 3],
            "counts": {"a": 1},
            "extra": {"k": [1, None, {"z": "w"}]},
        },
        id="collections",
    ),
    case(
        "nested",
        {
            "settings": {"timeout": 0, "retry": {"attempts": 5, "backoff": 1.5}},
            "origin": {"x": 0.5, "y": -1.5},
            "route": [{"x": 1.0, "y": 2.0}],
        },
        {
            "settings": {"timeout": 0, "retry": {"attempts": 5, "backoff": 1.5}},
            "origin": {"x": 0.5, "y": -1.5},
            "route": [{"x": 1.0, "y": 2.0}],
        },
        id="nested",
    ),
    case(
        "defaults",
        {
            "limit": 1,
            "labels": [],
            "options": {"verbose": False, "depth": 3},
            "since": "2025-01-02T03:04:05+02:00",
            "note": "n",
        },
        {
            "limit": 1,
            "labels": [],
            "options": {"verbose": False, "depth": 3},
            "since": datetime(2025, 1, 2, 3, 4, 5, tzinfo=PLUS_2),
            "note": "n",
        },
        typed={
            "limit": 1,
            "labels": [],
            "note": "n",
            "since": datetime(2025, 1, 2, 3, 4, 5, tzinfo=PLUS_2),
        },
        id="defaults",
    ),
    case(
        "required_params",
        {"name": "n", "count": 0, "maybe": None, "flag": False},
        {"name": "n", "count": 0, "maybe": None, "flag": False},
        typed={"name": "n", "count": 0, "maybe": None, "flag": False},
        id="required",
    ),
]


@pytest.mark.parametrize("row", EXACT)
def test_exact_input(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Booleans

BOOLEANS = [
    *(
        case(
            "scalars",
            {"flag": text},
            {"flag": result},
            ("string_literal_converted_to_boolean:flag",),
            typed={"flag": result},
            id=f"text-{text.strip()}",
        )
        for text, result in [
            ("true", True),
            ("false", False),
            ("TRUE", True),
            (" False ", False),
            ("Yes", True),
            ("no", False),
            ("ON", True),
            ("off", False),
            ("1", True),
            ("0", False),
        ]
    ),
    case(
        "scalars",
        {"flag": 1},
        {"flag": True},
        ("number_coerced_to_boolean:flag",),
        typed={"flag": True},
        id="number-1",
    ),
    case(
        "scalars",
        {"flag": 0},
        {"flag": False},
        ("number_coerced_to_boolean:flag",),
        typed={"flag": False},
        id="number-0",
    ),
    case(
        "scalars",
        {"flag": 1.0},
        {"flag": True},
        ("number_coerced_to_boolean:flag",),
        typed={"flag": True},
        id="number-1.0",
    ),
    case("scalars", {"flag": 2}, {}, errors=("unsupported_boolean_literal:flag",), id="number-2"),
    case(
        "scalars",
        {"flag": -1},
        {},
        errors=("unsupported_boolean_literal:flag",),
        id="number-minus-1",
    ),
    case(
        "scalars", {"flag": 0.5}, {}, errors=("unsupported_boolean_literal:flag",), id="number-0.5"
    ),
    case(
        "scalars",
        {"flag": "maybe"},
        {},
        errors=("unsupported_boolean_literal:flag",),
        id="text-maybe",
    ),
    case(
        "scalars", {"flag": ""}, {}, errors=("unsupported_boolean_literal:flag",), id="text-empty"
    ),
    case("scalars", {"flag": [True]}, {}, errors=("unsupported_boolean_literal:flag",), id="array"),
    case("scalars", {"flag": {}}, {}, errors=("unsupported_boolean_literal:flag",), id="object"),
]


@pytest.mark.parametrize("row", BOOLEANS)
def test_boolean(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Integers

INTEGERS = [
    case(
        "scalars",
        {"count": "42"},
        {"count": 42},
        ("string_literal_converted_to_integer:count",),
        typed={"count": 42},
        id="text",
    ),
    case(
        "scalars",
        {"count": " -7 "},
        {"count": -7},
        ("string_literal_converted_to_integer:count",),
        typed={"count": -7},
        id="text-signed-trimmed",
    ),
    case(
        "scalars",
        {"count": "+5"},
        {"count": 5},
        ("string_literal_converted_to_integer:count",),
        typed={"count": 5},
        id="text-plus",
    ),
    case(
        "scalars",
        {"count": 3.0},
        {"count": 3},
        ("number_coerced_to_integer:count",),
        typed={"count": 3},
        id="whole-float",
    ),
    case(
        "scalars",
        {"count": 3.7},
        {"count": 3},
        ("fractional_number_truncated_to_integer:count",),
        typed={"count": 3},
        id="fraction",
    ),
    case(
        "scalars",
        {"count": -3.7},
        {"count": -3},
        ("fractional_number_truncated_to_integer:count",),
        typed={"count": -3},
        id="negative-fraction",
    ),
    case("scalars", {"count": True}, {}, errors=("unsupported_integer_literal:count",), id="bool"),
    case(
        "scalars",
        {"count": "abc"},
        {},
        errors=("unsupported_integer_literal:count",),
        id="text-not-numeric",
    ),
    case(
        "scalars", {"count": ""}, {}, errors=("unsupported_integer_literal:count",), id="text-empty"
    ),
    case(
        "scalars",
        {"count": {"n": 1}},
        {},
        errors=("unsupported_integer_literal:count",),
        id="object",
    ),
    case("scalars", {"count": [1]}, {}, errors=("unsupported_integer_literal:count",), id="array"),
    # minimum 1, maximum 10
    case("scalars", {"bounded": 0}, {}, errors=("out_of_range:bounded",), id="below-minimum"),
    case("scalars", {"bounded": 11}, {}, errors=("out_of_range:bounded",), id="above-maximum"),
    case(
        "scalars",
        {"bounded": "11"},
        {},
        ("string_literal_converted_to_integer:bounded",),
        ("out_of_range:bounded",),
        id="text-above-maximum",
    ),
    case(
        "scalars",
        {"bounded": 10.5},
        {"bounded": 10},
        ("fractional_number_truncated_to_integer:bounded",),
        typed={"bounded": 10},
        id="truncated-into-range",
    ),
    case(
        "scalars",
        {"bounded": 0.5},
        {},
        ("fractional_number_truncated_to_integer:bounded",),
        ("out_of_range:bounded",),
        id="truncated-out-of-range",
    ),
    # exclusiveMinimum 0, exclusiveMaximum 10
    case(
        "scalars", {"exclusive": 0}, {}, errors=("out_of_range:exclusive",), id="exclusive-minimum"
    ),
    case(
        "scalars", {"exclusive": 10}, {}, errors=("out_of_range:exclusive",), id="exclusive-maximum"
    ),
    case(
        "scalars",
        {"exclusive": "9"},
        {"exclusive": 9},
        ("string_literal_converted_to_integer:exclusive",),
        typed={"exclusive": 9},
        id="exclusive-inside",
    ),
]


@pytest.mark.parametrize("row", INTEGERS)
def test_integer(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Numbers

NUMBERS = [
    case(
        "scalars", {"ratio": 3}, {"ratio": 3.0}, typed={"ratio": 3.0}, id="integer-silently-float"
    ),
    case(
        "scalars",
        {"ratio": "2.5"},
        {"ratio": 2.5},
        ("string_literal_converted_to_number:ratio",),
        typed={"ratio": 2.5},
        id="text",
    ),
    case(
        "scalars",
        {"ratio": " -1e3 "},
        {"ratio": -1000.0},
        ("string_literal_converted_to_number:ratio",),
        typed={"ratio": -1000.0},
        id="text-exponent-trimmed",
    ),
    case(
        "scalars",
        {"ratio": "7"},
        {"ratio": 7.0},
        ("string_literal_converted_to_number:ratio",),
        typed={"ratio": 7.0},
        id="text-integer",
    ),
    case("scalars", {"ratio": True}, {}, errors=("unsupported_number_literal:ratio",), id="bool"),
    case(
        "scalars",
        {"ratio": "abc"},
        {},
        errors=("unsupported_number_literal:ratio",),
        id="text-not-numeric",
    ),
    case("scalars", {"ratio": {}}, {}, errors=("unsupported_number_literal:ratio",), id="object"),
    # minimum 0, maximum 1
    case("scalars", {"score": 0}, {"score": 0.0}, typed={"score": 0.0}, id="integer-at-minimum"),
    case("scalars", {"score": -0.1}, {}, errors=("out_of_range:score",), id="below-minimum"),
    case("scalars", {"score": 1.5}, {}, errors=("out_of_range:score",), id="above-maximum"),
    case(
        "scalars",
        {"score": "2"},
        {},
        ("string_literal_converted_to_number:score",),
        ("out_of_range:score",),
        id="text-above-maximum",
    ),
]


@pytest.mark.parametrize("row", NUMBERS)
def test_number(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


@pytest.mark.parametrize(
    "args, errors",
    [
        ({"count": math.nan}, ("value_not_json:count",)),
        ({"count": math.inf}, ("value_not_json:count",)),
        ({"ratio": math.nan}, ("value_not_json:ratio",)),
        ({"ratio": -math.inf}, ("value_not_json:ratio",)),
    ],
    ids=["integer-nan", "integer-inf", "number-nan", "number-minus-inf"],
)
def test_non_finite_numbers_are_rejected(
    pkg: ModuleType, args: dict[str, object], errors: tuple[str, ...]
) -> None:
    # JSON text cannot hold NaN or Infinity (the decoder rejects them), but a decoded dict can:
    # such a value is no JSON value, refused before any coercion (issue 32 item 8).
    check(pkg, "scalars", args, {}, (), errors)


# ---------------------------------------------------------------------------------------------
# Strings

STRINGS = [
    case(
        "scalars",
        {"text": True},
        {"text": "true"},
        ("non_string_literal_retained:text",),
        typed={"text": "true"},
        id="true",
    ),
    case(
        "scalars",
        {"text": False},
        {"text": "false"},
        ("non_string_literal_retained:text",),
        typed={"text": "false"},
        id="false",
    ),
    case(
        "scalars",
        {"text": 42},
        {"text": "42"},
        ("non_string_literal_retained:text",),
        typed={"text": "42"},
        id="integer",
    ),
    case(
        "scalars",
        {"text": 1.5},
        {"text": "1.5"},
        ("non_string_literal_retained:text",),
        typed={"text": "1.5"},
        id="number",
    ),
    case(
        "scalars", {"text": {"a": 1}}, {}, errors=("unsupported_string_literal:text",), id="object"
    ),
    case("scalars", {"text": ["a"]}, {}, errors=("unsupported_string_literal:text",), id="array"),
    case(
        "scalars",
        {"text": "null"},
        {"text": "null"},
        typed={"text": "null"},
        id="text-null-is-a-string",
    ),
    case("scalars", {"text": ""}, {"text": ""}, typed={"text": ""}, id="empty"),
    # minLength 2, maxLength 4
    case("scalars", {"code": "a"}, {}, errors=("length_out_of_range:code",), id="too-short"),
    case("scalars", {"code": "abcde"}, {}, errors=("length_out_of_range:code",), id="too-long"),
    case(
        "scalars",
        {"code": 12},
        {"code": "12"},
        ("non_string_literal_retained:code",),
        typed={"code": "12"},
        id="integer-in-length",
    ),
    case(
        "scalars",
        {"code": 12345},
        {},
        ("non_string_literal_retained:code",),
        ("length_out_of_range:code",),
        id="integer-too-long",
    ),
    # pattern ^[a-z-]+$
    case(
        "scalars", {"slug": "Hello"}, {}, errors=("pattern_mismatch:slug",), id="pattern-mismatch"
    ),
    case("scalars", {"slug": ""}, {}, errors=("pattern_mismatch:slug",), id="pattern-empty"),
]


@pytest.mark.parametrize("row", STRINGS)
def test_string(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Enums and consts

ENUMS = [
    case(
        "choices",
        {"color": "RED"},
        {"color": "red"},
        ("enum_case_normalized:color",),
        typed={"color": "red"},
        id="case-variant",
    ),
    case(
        "choices",
        {"color": " Blue "},
        {"color": "blue"},
        ("enum_case_normalized:color",),
        typed={"color": "blue"},
        id="case-variant-trimmed",
    ),
    case("choices", {"color": "purple"}, {}, errors=("enum_out_of_range:color",), id="no-match"),
    case(
        "choices", {"color": 1}, {}, errors=("enum_out_of_range:color",), id="number-for-text-enum"
    ),
    # x-case-sensitive: true
    case(
        "choices",
        {"mode": "Fast"},
        {"mode": "Fast"},
        typed={"mode": "Fast"},
        id="case-sensitive-exact",
    ),
    case(
        "choices",
        {"mode": "fast"},
        {},
        errors=("enum_out_of_range:mode",),
        id="case-sensitive-variant",
    ),
    case(
        "choices",
        {"mode": "slow"},
        {},
        errors=("enum_out_of_range:mode",),
        id="case-sensitive-variant-2",
    ),
    # integer enum [1, 2, 3]
    case(
        "choices",
        {"level": "2"},
        {"level": 2},
        ("string_literal_converted_to_integer:level",),
        typed={"level": 2},
        id="integer-enum-text",
    ),
    case(
        "choices",
        {"level": 2.0},
        {"level": 2},
        ("number_coerced_to_integer:level",),
        typed={"level": 2},
        id="integer-enum-whole-float",
    ),
    case(
        "choices", {"level": 4}, {}, errors=("enum_out_of_range:level",), id="integer-enum-no-match"
    ),
    case(
        "choices", {"level": True}, {}, errors=("enum_out_of_range:level",), id="integer-enum-bool"
    ),
    case(
        "choices",
        {"level": "one"},
        {},
        errors=("enum_out_of_range:level",),
        id="integer-enum-text-no-match",
    ),
    # const 2 and const "fixed"
    case(
        "choices",
        {"version": "2"},
        {"version": 2},
        ("string_literal_converted_to_integer:version",),
        typed={"version": 2},
        id="const-integer-text",
    ),
    case(
        "choices",
        {"version": 3},
        {},
        errors=("enum_out_of_range:version",),
        id="const-integer-other",
    ),
    case(
        "choices",
        {"kind": "FIXED"},
        {"kind": "fixed"},
        ("enum_case_normalized:kind",),
        typed={"kind": "fixed"},
        id="const-text-case-variant",
    ),
    case(
        "choices", {"kind": "loose"}, {}, errors=("enum_out_of_range:kind",), id="const-text-other"
    ),
]


@pytest.mark.parametrize("row", ENUMS)
def test_enum(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


def test_enum_fields_are_literals_of_the_canonical_values(pkg: ModuleType) -> None:
    hints = typing.get_type_hints(pkg.ChoicesArgs)
    assert hints["color"] == Literal["red", "green", "blue"] | None
    assert hints["mode"] == Literal["Fast", "SLOW"] | None
    assert hints["level"] == Literal[1, 2, 3] | None
    assert hints["version"] == Literal[2] | None
    assert hints["kind"] == Literal["fixed"] | None


# ---------------------------------------------------------------------------------------------
# Timestamps, dates and URIs

FORMATS = [
    case(
        "formats",
        {"when": "2024-05-01T10:30:00Z"},
        {"when": datetime(2024, 5, 1, 10, 30, tzinfo=UTC)},
        typed={"when": datetime(2024, 5, 1, 10, 30, tzinfo=UTC)},
        id="date-time-utc",
    ),
    case(
        "formats",
        {"when": "2024-05-01T10:30:00.250+02:00"},
        {"when": datetime(2024, 5, 1, 10, 30, 0, 250000, tzinfo=PLUS_2)},
        typed={"when": datetime(2024, 5, 1, 10, 30, 0, 250000, tzinfo=PLUS_2)},
        id="date-time-fraction-offset",
    ),
    case(
        "formats",
        {"when": "2024-05-01 09:30"},
        {"when": datetime(2024, 5, 1, 9, 30, tzinfo=UTC)},
        ("timestamp_without_offset:when",),
        typed={"when": datetime(2024, 5, 1, 9, 30, tzinfo=UTC)},
        id="date-time-without-offset-read-as-utc",
    ),
    case(
        "formats",
        {"when": "2024-05-01"},
        {"when": datetime(2024, 5, 1, tzinfo=UTC)},
        ("timestamp_without_offset:when",),
        typed={"when": datetime(2024, 5, 1, tzinfo=UTC)},
        id="date-time-as-a-date-alone-read-as-utc-midnight",
    ),
    case(
        "formats",
        {"when": "yesterday"},
        {},
        errors=("unsupported_timestamp_literal:when",),
        id="date-time-text",
    ),
    case(
        "formats",
        {"when": ""},
        {},
        errors=("unsupported_timestamp_literal:when",),
        id="date-time-empty",
    ),
    case(
        "formats",
        {"when": 1714559400},
        {},
        errors=("unsupported_timestamp_literal:when",),
        id="date-time-epoch-number",
    ),
    case(
        "formats",
        {"when": "2024-13-01T00:00:00Z"},
        {},
        errors=("unsupported_timestamp_literal:when",),
        id="date-time-bad-month",
    ),
    case(
        "formats",
        {"day": "2024-05-01"},
        {"day": date(2024, 5, 1)},
        typed={"day": date(2024, 5, 1)},
        id="date",
    ),
    case(
        "formats",
        {"day": "2024-02-30"},
        {},
        errors=("unsupported_timestamp_literal:day",),
        id="date-impossible",
    ),
    case(
        "formats",
        {"day": "May 1st"},
        {},
        errors=("unsupported_timestamp_literal:day",),
        id="date-text",
    ),
    case(
        "formats", {"day": True}, {}, errors=("unsupported_timestamp_literal:day",), id="date-bool"
    ),
    case(
        "formats",
        {"link": "mailto:ada@example.com"},
        {"link": "mailto:ada@example.com"},
        typed={"link": "mailto:ada@example.com"},
        id="uri-absolute",
    ),
    case(
        "formats",
        {"link": "example.com/x"},
        {"link": "example.com/x"},
        ("uri_not_absolute:link",),
        typed={"link": "example.com/x"},
        id="uri-no-scheme",
    ),
    case(
        "formats",
        {"link": "/relative/path"},
        {"link": "/relative/path"},
        ("uri_not_absolute:link",),
        typed={"link": "/relative/path"},
        id="uri-relative",
    ),
    case(
        "formats",
        {"link": 42},
        {"link": "42"},
        ("non_string_literal_retained:link", "uri_not_absolute:link"),
        typed={"link": "42"},
        id="uri-number",
    ),
    case("formats", {"link": {}}, {}, errors=("unsupported_string_literal:link",), id="uri-object"),
]


@pytest.mark.parametrize("row", FORMATS)
def test_format(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Null: optional (treated as absent), nullable (None), required (missing)

NULL = "string_literal_converted_to_null"
ABSENT = "null_treated_as_absent"
DEFAULTS = {
    "limit": 10,
    "labels": ["a", "b"],
    "options": {"verbose": True, "depth": 1},
    "since": datetime(2024, 1, 1, tzinfo=UTC),
}

NULLS = [
    # optional, not nullable, no default: absent, the dataclass field is None
    case(
        "scalars",
        {"flag": None},
        {},
        (f"{ABSENT}:flag",),
        typed={"flag": None},
        id="optional-boolean-null",
    ),
    case(
        "scalars",
        {"flag": "null"},
        {},
        (f"{NULL}:flag", f"{ABSENT}:flag"),
        typed={"flag": None},
        id="optional-boolean-text-null",
    ),
    case(
        "scalars",
        {"count": " NULL "},
        {},
        (f"{NULL}:count", f"{ABSENT}:count"),
        typed={"count": None},
        id="optional-integer-text-null-any-case",
    ),
    case(
        "scalars",
        {"ratio": None},
        {},
        (f"{ABSENT}:ratio",),
        typed={"ratio": None},
        id="optional-number-null",
    ),
    case(
        "scalars",
        {"text": None},
        {},
        (f"{ABSENT}:text",),
        typed={"text": None},
        id="optional-string-null",
    ),
    case(
        "choices",
        {"color": "null"},
        {},
        (f"{NULL}:color", f"{ABSENT}:color"),
        typed={"color": None},
        id="optional-enum-text-null",
    ),
    case(
        "formats",
        {"when": None},
        {},
        (f"{ABSENT}:when",),
        typed={"when": None},
        id="optional-date-time-null",
    ),
    case(
        "formats",
        {"link": "null"},
        {},
        (f"{NULL}:link", f"{ABSENT}:link"),
        typed={"link": None},
        id="optional-uri-text-null",
    ),
    case(
        "collections",
        {"tags": None},
        {},
        (f"{ABSENT}:tags",),
        typed={"tags": None},
        id="optional-array-null",
    ),
    case(
        "collections",
        {"extra": "null"},
        {},
        (f"{NULL}:extra", f"{ABSENT}:extra"),
        typed={"extra": None},
        id="optional-object-text-null",
    ),
    case(
        "nullables",
        {"id": None},
        {},
        (f"{ABSENT}:id",),
        typed={"id": None},
        id="optional-union-null",
    ),
    # optional with a default: the default applies
    case(
        "defaults",
        {"limit": None},
        DEFAULTS,
        (f"{ABSENT}:limit",),
        typed={"limit": 10},
        id="default-integer-null",
    ),
    case(
        "defaults",
        {"limit": "null"},
        DEFAULTS,
        (f"{NULL}:limit", f"{ABSENT}:limit"),
        typed={"limit": 10},
        id="default-integer-text-null",
    ),
    case(
        "defaults",
        {"labels": None},
        DEFAULTS,
        (f"{ABSENT}:labels",),
        typed={"labels": ["a", "b"]},
        id="default-array-null",
    ),
    case("defaults", {"options": None}, DEFAULTS, (f"{ABSENT}:options",), id="default-object-null"),
    case(
        "defaults",
        {"since": "null"},
        DEFAULTS,
        (f"{NULL}:since", f"{ABSENT}:since"),
        typed={"since": datetime(2024, 1, 1, tzinfo=UTC)},
        id="default-date-time-text-null",
    ),
    # nullable: None is the value
    case(
        "nullables",
        {"maybe_count": "null"},
        {"maybe_count": None},
        (f"{NULL}:maybe_count",),
        typed={"maybe_count": None},
        id="nullable-type-list-text-null",
    ),
    case(
        "nullables",
        {"maybe_count": "5"},
        {"maybe_count": 5},
        ("string_literal_converted_to_integer:maybe_count",),
        typed={"maybe_count": 5},
        id="nullable-type-list-coerced",
    ),
    case(
        "nullables",
        {"maybe_count": "x"},
        {},
        errors=("unsupported_integer_literal:maybe_count",),
        id="nullable-type-list-invalid",
    ),
    case(
        "nullables",
        {"maybe_day": "null"},
        {"maybe_day": None},
        (f"{NULL}:maybe_day",),
        typed={"maybe_day": None},
        id="nullable-any-of-text-null",
    ),
    case(
        "nullables",
        {"maybe_day": "2024-01-31"},
        {"maybe_day": date(2024, 1, 31)},
        typed={"maybe_day": date(2024, 1, 31)},
        id="nullable-any-of-date",
    ),
    case(
        "nullables",
        {"maybe_day": "soon"},
        {},
        errors=("unsupported_timestamp_literal:maybe_day",),
        id="nullable-any-of-invalid",
    ),
    case(
        "nullables",
        {"maybe_text": 5},
        {"maybe_text": "5"},
        ("non_string_literal_retained:maybe_text",),
        typed={"maybe_text": "5"},
        id="nullable-string-number",
    ),
    # required: null is missing
    case(
        "required_params",
        {"name": None, "count": 1, "maybe": None},
        {"count": 1, "maybe": None},
        errors=("missing_required:name",),
        id="required-string-null",
    ),
    case(
        "required_params",
        {"name": "n", "count": "null", "maybe": None},
        {"name": "n", "maybe": None},
        (f"{NULL}:count",),
        ("missing_required:count",),
        id="required-integer-text-null",
    ),
    case(
        "nested",
        {"settings": None},
        {},
        errors=("missing_required:settings",),
        id="required-object-null",
    ),
    case(
        "nested",
        {"settings": "null"},
        {},
        (f"{NULL}:settings",),
        ("missing_required:settings",),
        id="required-object-text-null",
    ),
]


@pytest.mark.parametrize("row", NULLS)
def test_null(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Unions (integer | string): the first member that fits wins

UNIONS = [
    case("nullables", {"id": 5}, {"id": 5}, typed={"id": 5}, id="integer"),
    case("nullables", {"id": "5"}, {"id": "5"}, typed={"id": "5"}, id="numeric-text-stays-text"),
    case("nullables", {"id": "abc"}, {"id": "abc"}, typed={"id": "abc"}, id="text"),
    case(
        "nullables",
        {"id": 5.0},
        {"id": 5},
        ("number_coerced_to_integer:id",),
        typed={"id": 5},
        id="whole-float",
    ),
    case(
        "nullables",
        {"id": True},
        {"id": "true"},
        ("non_string_literal_retained:id",),
        typed={"id": "true"},
        id="bool-as-text",
    ),
    case("nullables", {"id": {"n": 1}}, {}, errors=("unsupported_union_literal:id",), id="object"),
    case("nullables", {"id": [1]}, {}, errors=("unsupported_union_literal:id",), id="array"),
]


@pytest.mark.parametrize("row", UNIONS)
def test_union(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# A union of two objects (`nested.target`): the first takes an integer count and the unit "items",
# the second any text for both. A member checks and corrects its own copy, so one that fails
# half-way leaves the value as it was sent for the next.
SETTINGS = {"settings": {"timeout": 1}}
UNION_OF_OBJECTS = [
    case(
        "nested",
        {**SETTINGS, "target": {"count": "5", "unit": "boxes"}},
        {**SETTINGS, "target": {"count": "5", "unit": "boxes"}},
        id="second-member-sees-what-was-sent",
    ),
    case(
        "nested",
        {**SETTINGS, "target": {"count": "5", "unit": "ITEMS"}},
        {**SETTINGS, "target": {"count": 5, "unit": "items"}},
        (
            "string_literal_converted_to_integer:target.count",
            "enum_case_normalized:target.unit",
        ),
        id="first-member-corrects",
    ),
    case(
        "nested",
        {**SETTINGS, "target": {"count": 5, "unit": "boxes"}},
        {**SETTINGS, "target": {"count": "5", "unit": "boxes"}},
        ("non_string_literal_retained:target.count",),
        id="second-member-corrects",
    ),
    case(
        "nested",
        {**SETTINGS, "target": '{"count": "5", "unit": "boxes"}'},
        {**SETTINGS, "target": {"count": "5", "unit": "boxes"}},
        ("string_parsed_as_json:target",),
        id="text-of-an-object",
    ),
    case(
        "nested",
        {**SETTINGS, "target": {"count": "5"}},
        SETTINGS,
        errors=("unsupported_union_literal:target",),
        id="no-member-fits",
    ),
]


@pytest.mark.parametrize("row", UNION_OF_OBJECTS)
def test_union_of_objects(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Arrays

ARRAYS = [
    # of strings
    case(
        "collections",
        {"tags": "solo"},
        {"tags": ["solo"]},
        ("scalar_coerced_to_list:tags",),
        typed={"tags": ["solo"]},
        id="scalar",
    ),
    case(
        "collections",
        {"tags": '["a", "b"]'},
        {"tags": ["a", "b"]},
        ("string_parsed_as_json:tags",),
        typed={"tags": ["a", "b"]},
        id="json-text",
    ),
    case(
        "collections",
        {"tags": 7},
        {"tags": ["7"]},
        ("scalar_coerced_to_list:tags", "non_string_literal_retained:tags[0]"),
        typed={"tags": ["7"]},
        id="scalar-then-item-coerced",
    ),
    case(
        "collections",
        {"tags": [1, "b", {}]},
        {"tags": ["1", "b"]},
        ("non_string_literal_retained:tags[0]",),
        ("unsupported_string_literal:tags[2]",),
        id="item-invalid",
    ),
    # minItems 1, maxItems 3, of integers
    case(
        "collections",
        {"limited": 2},
        {"limited": [2]},
        ("scalar_coerced_to_list:limited",),
        typed={"limited": [2]},
        id="scalar-integer",
    ),
    case(
        "collections",
        {"limited": '[1, "2"]'},
        {"limited": [1, 2]},
        ("string_parsed_as_json:limited", "string_literal_converted_to_integer:limited[1]"),
        typed={"limited": [1, 2]},
        id="json-text-items-coerced",
    ),
    case(
        "collections",
        {"limited": []},
        {},
        errors=("length_out_of_range:limited",),
        id="too-few-items",
    ),
    case(
        "collections",
        {"limited": [1, 2, 3, 4]},
        {},
        errors=("length_out_of_range:limited",),
        id="too-many-items",
    ),
    case(
        "collections",
        {"limited": ["x", 2]},
        {"limited": [2]},
        errors=("unsupported_integer_literal:limited[0]",),
        id="integer-item-invalid",
    ),
    # of objects
    case(
        "collections",
        {"people": {"name": "Ann"}},
        {"people": [{"name": "Ann"}]},
        ("scalar_coerced_to_list:people",),
        id="single-object",
    ),
    case(
        "collections",
        {"people": '[{"name": "Ann"}]'},
        {"people": [{"name": "Ann"}]},
        ("string_parsed_as_json:people",),
        id="objects-json-text",
    ),
    case(
        "collections",
        {"people": ['{"name": "Ann"}']},
        {"people": [{"name": "Ann"}]},
        ("string_parsed_as_json:people[0]",),
        id="item-json-text",
    ),
    case(
        "collections",
        {"people": [{"name": "Ann", "role": "ADMIN", "age": "30"}]},
        {"people": [{"name": "Ann", "role": "admin", "age": 30}]},
        (
            "enum_case_normalized:people[0].role",
            "string_literal_converted_to_integer:people[0].age",
        ),
        id="item-fields-coerced",
    ),
    case(
        "collections",
        {"people": [{"name": "A"}, {"name": "B"}, {"name": "C", "role": "boss"}]},
        {"people": [{"name": "A"}, {"name": "B"}, {"name": "C"}]},
        errors=("enum_out_of_range:people[2].role",),
        id="item-enum-out-of-range",
    ),
    case(
        "collections",
        {"people": [{"name": "A", "age": -1}]},
        {"people": [{"name": "A"}]},
        errors=("out_of_range:people[0].age",),
        id="item-out-of-range",
    ),
    case(
        "collections",
        {"people": [{"role": "user"}]},
        {"people": [{"role": "user"}]},
        errors=("missing_required:people[0].name",),
        id="item-missing-required",
    ),
    case(
        "collections",
        {"people": ["Ann"]},
        {"people": []},
        errors=("unsupported_object_literal:people[0]",),
        id="item-not-object",
    ),
]


@pytest.mark.parametrize("row", ARRAYS)
def test_array(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


def test_array_of_objects_is_a_list_of_dataclasses(pkg: ModuleType) -> None:
    item = pkg.tools.collections.CollectionsPeopleItem
    req = check(
        pkg,
        "collections",
        {"people": [{"name": "Ann", "role": "Admin", "age": 30.0}, {"name": "Bo"}]},
        {"people": [{"name": "Ann", "role": "admin", "age": 30}, {"name": "Bo"}]},
        ("enum_case_normalized:people[0].role", "number_coerced_to_integer:people[0].age"),
    )
    assert same(
        req.arguments.people,
        [item(name="Ann", role="admin", age=30), item(name="Bo", role=None, age=None)],
    )


# ---------------------------------------------------------------------------------------------
# Maps (additionalProperties: integer) and free-form objects

MAPS = [
    case("collections", {"counts": {}}, {"counts": {}}, typed={"counts": {}}, id="map-empty"),
    case(
        "collections",
        {"counts": {"a": 1, "b": "2"}},
        {"counts": {"a": 1, "b": 2}},
        ("string_literal_converted_to_integer:counts.b",),
        typed={"counts": {"a": 1, "b": 2}},
        id="map-value-coerced",
    ),
    case(
        "collections",
        {"counts": {"a": "x", "b": 2}},
        {"counts": {"b": 2}},
        errors=("unsupported_integer_literal:counts.a",),
        id="map-value-invalid",
    ),
    case(
        "collections",
        {"counts": '{"a": 1}'},
        {"counts": {"a": 1}},
        ("string_parsed_as_json:counts",),
        typed={"counts": {"a": 1}},
        id="map-json-text",
    ),
    case(
        "collections",
        {"counts": "abc"},
        {},
        errors=("unsupported_object_literal:counts",),
        id="map-text",
    ),
    case(
        "collections",
        {"counts": [1]},
        {},
        errors=("unsupported_object_literal:counts",),
        id="map-array",
    ),
    case(
        "collections",
        {"extra": {"k": {"deep": ["x", 1.5, True]}}},
        {"extra": {"k": {"deep": ["x", 1.5, True]}}},
        typed={"extra": {"k": {"deep": ["x", 1.5, True]}}},
        id="free-form-kept-as-sent",
    ),
    case(
        "collections",
        {"extra": '{"k": "true"}'},
        {"extra": {"k": "true"}},
        ("string_parsed_as_json:extra",),
        typed={"extra": {"k": "true"}},
        id="free-form-json-text",
    ),
    case(
        "collections",
        {"extra": "nope"},
        {},
        errors=("unsupported_object_literal:extra",),
        id="free-form-text",
    ),
    case(
        "collections",
        {"extra": "[1, 2]"},
        {},
        errors=("unsupported_object_literal:extra",),
        id="free-form-json-array-text",
    ),
    case(
        "collections",
        {"extra": 5},
        {},
        errors=("unsupported_object_literal:extra",),
        id="free-form-number",
    ),
    case(
        "collections",
        {"extra": [1]},
        {},
        errors=("unsupported_object_literal:extra",),
        id="free-form-array",
    ),
]


@pytest.mark.parametrize("row", MAPS)
def test_map_and_free_form_object(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Nested objects (two levels) and $defs/$ref

S = {"timeout": 1}  # the smallest valid `settings`

NESTED = [
    case("nested", {"settings": {"timeout": 30}}, {"settings": {"timeout": 30}}, id="one-level"),
    case(
        "nested",
        {"settings": {"timeout": 30, "retry": {"attempts": 3}}},
        {"settings": {"timeout": 30, "retry": {"attempts": 3, "backoff": 2.0}}},
        id="two-levels-default-filled",
    ),
    case(
        "nested",
        {"settings": '{"timeout": 5}'},
        {"settings": {"timeout": 5}},
        ("string_parsed_as_json:settings",),
        id="object-json-text",
    ),
    case(
        "nested",
        {"settings": {"timeout": "5", "retry": '{"attempts": "2"}'}},
        {"settings": {"timeout": 5, "retry": {"attempts": 2, "backoff": 2.0}}},
        (
            "string_literal_converted_to_integer:settings.timeout",
            "string_parsed_as_json:settings.retry",
            "string_literal_converted_to_integer:settings.retry.attempts",
        ),
        id="paths-at-every-level",
    ),
    case(
        "nested",
        {"settings": {"timeout": -1}},
        {"settings": {}},
        errors=("out_of_range:settings.timeout",),
        id="nested-out-of-range",
    ),
    case(
        "nested",
        {"settings": {"timeout": 1, "retry": {"attempts": 6}}},
        {"settings": {"timeout": 1, "retry": {"backoff": 2.0}}},
        errors=("out_of_range:settings.retry.attempts",),
        id="deep-out-of-range",
    ),
    case(
        "nested",
        {"settings": {"timeout": 1, "retry": {"attempts": 1, "backoff": "null"}}},
        {"settings": {"timeout": 1, "retry": {"attempts": 1, "backoff": 2.0}}},
        (f"{NULL}:settings.retry.backoff", f"{ABSENT}:settings.retry.backoff"),
        id="deep-null-default",
    ),
    case(
        "nested",
        {"settings": {}},
        {"settings": {}},
        errors=("missing_required:settings.timeout",),
        id="nested-missing-required",
    ),
    case(
        "nested",
        {"settings": {"timeout": 1, "retry": {}}},
        {"settings": {"timeout": 1, "retry": {"backoff": 2.0}}},
        errors=("missing_required:settings.retry.attempts",),
        id="deep-missing-required",
    ),
    case(
        "nested",
        {"settings": "abc"},
        {},
        errors=("unsupported_object_literal:settings",),
        id="object-text",
    ),
    case(
        "nested",
        {"settings": 5},
        {},
        errors=("unsupported_object_literal:settings",),
        id="object-number",
    ),
    case(
        "nested",
        {"settings": S, "origin": {"x": 1, "y": 2}},
        {"settings": S, "origin": {"x": 1.0, "y": 2.0}},
        id="ref",
    ),
    case(
        "nested",
        {"settings": S, "origin": {"x": "1.5", "y": 0}},
        {"settings": S, "origin": {"x": 1.5, "y": 0.0}},
        ("string_literal_converted_to_number:origin.x",),
        id="ref-coerced",
    ),
    case(
        "nested",
        {"settings": S, "origin": {"x": 1}},
        {"settings": S, "origin": {"x": 1.0}},
        errors=("missing_required:origin.y",),
        id="ref-missing-required",
    ),
    case(
        "nested",
        {"settings": S, "route": [{"x": 0, "y": 0}, {"x": "1", "y": 2}]},
        {"settings": S, "route": [{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 2.0}]},
        ("string_literal_converted_to_number:route[1].x",),
        id="array-of-ref",
    ),
    case(
        "nested",
        {"settings": S, "route": [{"x": 0, "y": 0}, {"x": 1}]},
        {"settings": S, "route": [{"x": 0.0, "y": 0.0}, {"x": 1.0}]},
        errors=("missing_required:route[1].y",),
        id="array-of-ref-missing-required",
    ),
    case(
        "nested",
        {"settings": S, "route": {"x": 1, "y": 2}},
        {"settings": S, "route": [{"x": 1.0, "y": 2.0}]},
        ("scalar_coerced_to_list:route",),
        id="array-of-ref-single-object",
    ),
]


@pytest.mark.parametrize("row", NESTED)
def test_nested(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


def test_nested_objects_are_nested_dataclasses(pkg: ModuleType) -> None:
    nested = pkg.tools.nested
    req = check(
        pkg,
        "nested",
        {
            "settings": {"timeout": 3, "retry": {"attempts": 2}},
            "origin": {"x": 1, "y": 2},
            "route": [{"x": 3, "y": 4.5}],
        },
        {
            "settings": {"timeout": 3, "retry": {"attempts": 2, "backoff": 2.0}},
            "origin": {"x": 1.0, "y": 2.0},
            "route": [{"x": 3.0, "y": 4.5}],
        },
    )
    args = req.arguments
    retry = nested.NestedSettingsRetry(attempts=2, backoff=2.0)
    assert same(args.settings, nested.NestedSettings(timeout=3, retry=retry))
    assert type(args.settings.retry.backoff) is float
    # One $defs entry is one class, whether used directly or as array items.
    assert type(args.origin) is type(args.route[0])
    assert same(args.origin, type(args.origin)(x=1.0, y=2.0))
    assert same(args.route, [type(args.origin)(x=3.0, y=4.5)])


def test_dataclasses_are_frozen(pkg: ModuleType) -> None:
    args = pkg.parse_scalars({"flag": True}).arguments
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.flag = False


# ---------------------------------------------------------------------------------------------
# Defaults

DEFAULT_ROWS = [
    case(
        "defaults",
        {},
        DEFAULTS,
        typed={
            "limit": 10,
            "labels": ["a", "b"],
            "since": datetime(2024, 1, 1, tzinfo=UTC),
            "note": None,
        },
        id="all-absent",
    ),
    case(
        "defaults",
        {"options": {}},
        {**DEFAULTS, "options": {"depth": 1}},
        id="nested-default-in-given-object",
    ),
    case(
        "defaults",
        {"limit": "5"},
        {**DEFAULTS, "limit": 5},
        ("string_literal_converted_to_integer:limit",),
        typed={"limit": 5},
        id="given-value-replaces-default",
    ),
    case(
        "defaults",
        {"note": None},
        DEFAULTS,
        (f"{ABSENT}:note",),
        typed={"note": None},
        id="optional-without-default-null",
    ),
    case(
        "defaults",
        {"note": "null"},
        {**DEFAULTS, "note": "null"},
        typed={"note": "null"},
        id="string-text-null-is-a-string",
    ),
]


@pytest.mark.parametrize("row", DEFAULT_ROWS)
def test_defaults(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


def test_object_and_date_time_defaults_are_typed(pkg: ModuleType) -> None:
    options = pkg.tools.defaults.DefaultsOptions
    args = check(pkg, "defaults", {}, DEFAULTS).arguments
    assert same(args.options, options(verbose=True, depth=1))
    assert same(args.since, datetime(2024, 1, 1, tzinfo=UTC))
    args = check(pkg, "defaults", {"options": {}}, {**DEFAULTS, "options": {"depth": 1}}).arguments
    assert same(args.options, options(verbose=None, depth=1))


def test_defaults_are_not_shared_between_calls(pkg: ModuleType) -> None:
    first = pkg.parse_defaults("{}")
    first.values["labels"].append("mutated")
    first.values["options"]["depth"] = 99
    second = pkg.parse_defaults("{}")
    assert same(second.values, DEFAULTS)
    assert same(second.arguments.labels, ["a", "b"])


# ---------------------------------------------------------------------------------------------
# Required parameters

REQUIRED = [
    case(
        "required_params",
        {"name": "n", "count": 1, "maybe": None},
        {"name": "n", "count": 1, "maybe": None},
        typed={"flag": None},
        id="optional-absent-is-none-and-not-in-values",
    ),
    case(
        "required_params",
        {"count": 1, "maybe": "m"},
        {"count": 1, "maybe": "m"},
        errors=("missing_required:name",),
        id="missing-one",
    ),
    case(
        "required_params",
        {"name": "n", "count": 1},
        {"name": "n", "count": 1},
        errors=("missing_required:maybe",),
        id="nullable-still-required",
    ),
    case(
        "required_params",
        {},
        {},
        errors=("missing_required:name", "missing_required:count", "missing_required:maybe"),
        id="missing-all",
    ),
    case(
        "required_params",
        {"name": 5, "count": "x", "maybe": "m"},
        {"name": "5", "maybe": "m"},
        ("non_string_literal_retained:name",),
        ("unsupported_integer_literal:count",),
        id="partial-values-with-errors",
    ),
    case("nested", {}, {}, errors=("missing_required:settings",), id="required-object-missing"),
]


@pytest.mark.parametrize("row", REQUIRED)
def test_required(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


# ---------------------------------------------------------------------------------------------
# Names the schema does not declare: kept in values, not in the dataclass

UNKNOWN = [
    case(
        "scalars",
        {"flag": True, "colour": "red"},
        {"flag": True, "colour": "red"},
        ("unknown_parameter:colour",),
        typed={"flag": True},
        id="top-level",
    ),
    case(
        "scalars",
        {"x": "true", "y": [1]},
        {"x": "true", "y": [1]},
        ("unknown_parameter:x", "unknown_parameter:y"),
        id="kept-as-sent-in-order",
    ),
    case(
        "nested",
        {"settings": {"timeout": 1, "colour": "red"}},
        {"settings": {"timeout": 1, "colour": "red"}},
        ("unknown_parameter:settings.colour",),
        id="nested",
    ),
    case(
        "nested",
        {"settings": {"timeout": 1, "retry": {"attempts": 1, "jitter": 0.1}}},
        {"settings": {"timeout": 1, "retry": {"attempts": 1, "backoff": 2.0, "jitter": 0.1}}},
        ("unknown_parameter:settings.retry.jitter",),
        id="two-levels",
    ),
    case(
        "nested",
        {"settings": S, "origin": {"x": 1, "y": 2, "z": 3}},
        {"settings": S, "origin": {"x": 1.0, "y": 2.0, "z": 3}},
        ("unknown_parameter:origin.z",),
        id="ref",
    ),
    case(
        "collections",
        {"people": [{"name": "A", "nick": "a"}]},
        {"people": [{"name": "A", "nick": "a"}]},
        ("unknown_parameter:people[0].nick",),
        id="array-item",
    ),
]


@pytest.mark.parametrize("row", UNKNOWN)
def test_unknown_parameter(pkg: ModuleType, form: str, row: Row) -> None:
    run(pkg, form, row)


def test_unknown_parameter_is_not_a_field(pkg: ModuleType) -> None:
    args = pkg.parse_scalars({"flag": True, "colour": "red"}).arguments
    assert "colour" not in {f.name for f in dataclasses.fields(args)}
    assert not hasattr(args, "colour")


# ---------------------------------------------------------------------------------------------
# The request: raw text, call id, joined codes, every entry point


def test_raw_arguments_keep_the_original_text(pkg: ModuleType) -> None:
    raw = '{ "count" :"42",\n  "flag": "yes" }'
    req = check(
        pkg,
        "scalars",
        raw,
        {"count": 42, "flag": True},
        ("string_literal_converted_to_boolean:flag", "string_literal_converted_to_integer:count"),
    )
    assert req.raw_arguments == raw


def test_raw_arguments_of_bytes_are_the_decoded_text(pkg: ModuleType) -> None:
    raw = '{"text": "café"}'
    req = check(pkg, "scalars", raw.encode("utf-8"), {"text": "café"})
    assert req.raw_arguments == raw


def test_raw_arguments_of_a_dict_are_its_json_text(pkg: ModuleType) -> None:
    args = {"text": "café", "count": "3", "extra_name": [1, None]}
    req = check(
        pkg,
        "scalars",
        args,
        {"text": "café", "count": 3, "extra_name": [1, None]},
        ("string_literal_converted_to_integer:count", "unknown_parameter:extra_name"),
    )
    assert json.loads(req.raw_arguments) == args
    assert args == {
        "text": "café",
        "count": "3",
        "extra_name": [1, None],
    }  # the input is not changed


def test_codes_are_joined_with_semicolons(pkg: ModuleType) -> None:
    req = check(
        pkg,
        "scalars",
        {"flag": "on", "count": 2.5, "bounded": 0, "code": "x"},
        {"flag": True, "count": 2},
        (
            "string_literal_converted_to_boolean:flag",
            "fractional_number_truncated_to_integer:count",
        ),
        ("out_of_range:bounded", "length_out_of_range:code"),
    )
    assert req.parse_warning == (
        "string_literal_converted_to_boolean:flag; fractional_number_truncated_to_integer:count"
    )
    assert req.parse_error == "out_of_range:bounded; length_out_of_range:code"
    clean = check(pkg, "scalars", {"flag": True}, {"flag": True})
    assert clean.parse_warning is None and clean.parse_error is None


@pytest.mark.parametrize("call_id", ["", "call_abc", "toolu_01A09q90qw90lq917835lq9"])
def test_tool_call_id_passes_through(pkg: ModuleType, call_id: str) -> None:
    assert pkg.parse("scalars", "{}", tool_call_id=call_id).tool_call_id == call_id
    assert pkg.parse_scalars("{}", call_id).tool_call_id == call_id
    assert pkg.parse("no_such_tool", "{}", call_id).tool_call_id == call_id


def test_tool_call_id_defaults_to_empty(pkg: ModuleType) -> None:
    assert pkg.parse("scalars", "{}").tool_call_id == ""
    assert pkg.parse_scalars("{}").tool_call_id == ""


def test_the_request_is_a_named_tuple(pkg: ModuleType) -> None:
    req = pkg.parse_scalars('{"count": "3"}', "call_1")
    assert isinstance(req, tuple) and type(req) is pkg.ReadyRequest
    fields = (
        "tool_name",
        "tool_call_id",
        "raw_arguments",
        "arguments",
        "values",
        "warnings",
        "errors",
        "ok",
    )
    assert pkg.ReadyRequest._fields == pkg.RefusedRequest._fields == fields
    assert req == (
        "scalars",
        "call_1",
        '{"count": "3"}',
        req.arguments,
        {"count": 3},
        ("string_literal_converted_to_integer:count",),
        (),
        True,
    )
    assert req._asdict()["values"] == {"count": 3}
    renamed = req._replace(tool_call_id="call_2")
    assert (renamed.tool_call_id, renamed.values, req.tool_call_id) == (
        "call_2",
        {"count": 3},
        "call_1",
    )
    assert (req.ok, req.parse_warning, req.parse_error) == (
        True,
        "string_literal_converted_to_integer:count",
        None,
    )
    with pytest.raises(AttributeError):
        req.tool_name = "other"  # type: ignore[misc]


def test_ok_says_whether_the_typed_arguments_are_there(pkg: ModuleType) -> None:
    """`ok` is a field: True on a ReadyRequest (arguments set, no errors), False on a
    RefusedRequest (arguments None): a call with errors, or of a tool the catalog does not know."""
    ready = pkg.parse_scalars('{"count": 3}')
    with_errors = pkg.parse_scalars('{"count": "many"}')
    unknown = pkg.parse("no_such_tool", '{"a": "true"}')
    assert (type(ready), ready.ok, ready.arguments is not None) == (pkg.ReadyRequest, True, True)
    assert (type(with_errors), with_errors.ok, with_errors.arguments) == (
        pkg.RefusedRequest,
        False,
        None,
    )
    # The generic parse keeps its values and its warning, and has no error; it cannot run.
    assert (type(unknown), unknown.ok, unknown.arguments, unknown.errors) == (
        pkg.RefusedRequest,
        False,
        None,
        (),
    )
    assert unknown.values == {"a": True}
    assert unknown.warnings == ("tool_definition_missing", "string_literal_converted_to_boolean:a")


def test_arguments_are_frozen_dataclasses_like_any_other(pkg: ModuleType) -> None:
    # The parser builds them on a writable twin and then assigns __class__ (equal __slots__).
    req = pkg.parse_nested('{"settings": {"timeout": 3, "retry": {"attempts": 2}}}')
    args = req.arguments
    by_hand = pkg.NestedArgs(
        settings=pkg.tools.nested.NestedSettings(
            timeout=3, retry=pkg.tools.nested.NestedSettingsRetry(attempts=2, backoff=2.0)
        )
    )
    assert type(args) is pkg.NestedArgs and type(args.settings.retry) is type(
        by_hand.settings.retry
    )
    assert args == by_hand and hash(args) == hash(by_hand)
    assert pickle.loads(pickle.dumps(args)) == args
    assert dataclasses.replace(args, origin=None) == args
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.settings.timeout = 4  # type: ignore[misc]
    assert not hasattr(args, "__dict__")


def test_values_keep_the_order_sent_and_defaults_follow(pkg: ModuleType, form: str) -> None:
    args = {"note": "n", "extra": 1, "limit": "4"}
    req = pkg.parse("defaults", json.dumps(args) if form == "json" else args)
    assert list(req.values) == ["note", "extra", "limit", "labels", "options", "since"]
    assert req.values["limit"] == 4


def test_a_dict_passed_in_is_never_changed(pkg: ModuleType) -> None:
    args: dict[str, Any] = {
        "settings": {"timeout": "7", "retry": {"attempts": "2", "other": None}},
        "origin": '{"x": 1, "y": 2}',
        "route": [{"x": "1", "y": 2}, {"x": 3, "y": "4"}],
        "target": {"count": "5", "unit": "ITEMS"},
    }
    before = json.loads(json.dumps(args))
    req = pkg.parse("nested", args)
    assert args == before
    assert req.values["settings"] == {
        "timeout": 7,
        "retry": {"attempts": 2, "other": None, "backoff": 2.0},
    }
    assert req.values["route"] == [{"x": 1.0, "y": 2.0}, {"x": 3.0, "y": 4.0}]
    assert req.values["settings"] is not args["settings"]
    assert req.values["route"][0] is not args["route"][0]
    assert req.errors == ()
    assert req.warnings == (
        "string_literal_converted_to_integer:settings.timeout",
        "string_literal_converted_to_integer:settings.retry.attempts",
        "unknown_parameter:settings.retry.other",
        "string_parsed_as_json:origin",
        "string_literal_converted_to_number:route[0].x",
        "string_literal_converted_to_number:route[1].y",
        "string_literal_converted_to_integer:target.count",
        "enum_case_normalized:target.unit",
    )


def test_values_are_the_callers_own_after_a_text_parse(pkg: ModuleType) -> None:
    raw = '{"settings": {"timeout": 1}, "route": [{"x": 1.5, "y": 2.5}]}'
    first, second = pkg.parse_nested(raw), pkg.parse_nested(raw)
    first.values["route"].append("changed")
    assert second.values["route"] == [{"x": 1.5, "y": 2.5}]


def test_every_entry_point_gives_the_same_request(pkg: ModuleType) -> None:
    raw = '{"settings": {"timeout": "7"}}'
    via_catalog = pkg.parse("nested", raw, "c1")
    assert pkg.parse_nested(raw, "c1") == via_catalog
    assert pkg.tools.nested.parse_nested(raw, "c1") == via_catalog
    assert pkg.TOOLS["nested"].parse(raw, "c1") == via_catalog
    assert via_catalog.warnings == ("string_literal_converted_to_integer:settings.timeout",)


# ---------------------------------------------------------------------------------------------
# A tool the catalog does not know: the generic lenient parse


def test_unknown_tool_gets_the_generic_parse(pkg: ModuleType) -> None:
    raw = json.dumps(
        {
            "a": "true",
            "b": "false",
            "c": "null",
            "d": 5,
            "e": 1.5,
            "f": "text",
            "g": "5",
            "h": {"x": "true"},
            "i": ["null", 1],
        }
    )
    req = pkg.parse("no_such_tool", raw, tool_call_id="c9")
    assert req.tool_name == "no_such_tool"
    assert req.tool_call_id == "c9"
    assert req.raw_arguments == raw
    assert req.arguments is None
    assert same(
        req.values,
        {
            "a": True,
            "b": False,
            "c": None,
            "d": 5,
            "e": 1.5,
            "f": "text",
            "g": "5",
            "h": {"x": True},
            "i": [None, 1],
        },
    )
    assert req.warnings == (
        "tool_definition_missing",
        "string_literal_converted_to_boolean:a",
        "string_literal_converted_to_boolean:b",
        "string_literal_converted_to_null:c",
        "string_literal_converted_to_boolean:h.x",
        "string_literal_converted_to_null:i[0]",
    )
    assert req.errors == ()
    assert req.parse_error is None


def test_unknown_tool_accepts_a_dict(pkg: ModuleType) -> None:
    # A tool of another catalog is unknown here: nothing to promote, values kept as sent.
    req = pkg.parse("memory.search", {"query": "q", "limit": 3})
    assert same(req.values, {"query": "q", "limit": 3})
    assert req.warnings == ("tool_definition_missing",)
    assert req.errors == ()
    assert req.arguments is None


# ---------------------------------------------------------------------------------------------
# The TOOLS index


def test_tools_index(pkg: ModuleType) -> None:
    catalog = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    assert list(pkg.TOOLS) == [tool["name"] for tool in catalog["tools"]]
    for tool in catalog["tools"]:
        spec = pkg.TOOLS[tool["name"]]
        pascal = "".join(part.capitalize() for part in tool["name"].split("_"))
        assert spec.name == tool["name"]
        assert spec.description == tool["description"]
        assert spec.args_type is getattr(pkg, f"{pascal}Args")
        assert spec.parse is getattr(pkg, f"parse_{tool['name']}")
        assert spec.schema == tool["parameters"]
        assert dataclasses.is_dataclass(spec.args_type)


def test_field_annotations(pkg: ModuleType) -> None:
    classes = (
        pkg.ScalarsArgs,
        pkg.FormatsArgs,
        pkg.NullablesArgs,
        pkg.CollectionsArgs,
        pkg.NestedArgs,
        pkg.DefaultsArgs,
        pkg.RequiredParamsArgs,
    )
    hints = {cls.__name__: typing.get_type_hints(cls) for cls in classes}
    tools = pkg.tools
    assert hints["ScalarsArgs"]["flag"] == bool | None
    assert hints["ScalarsArgs"]["ratio"] == float | None
    assert hints["FormatsArgs"]["when"] == datetime | None
    assert hints["FormatsArgs"]["day"] == date | None
    assert hints["NullablesArgs"]["maybe_count"] == int | None
    assert hints["NullablesArgs"]["id"] == int | str | None
    assert (
        hints["CollectionsArgs"]["people"] == list[tools.collections.CollectionsPeopleItem] | None
    )
    assert hints["CollectionsArgs"]["counts"] == dict[str, int] | None
    assert hints["NestedArgs"]["settings"] is tools.nested.NestedSettings
    assert hints["DefaultsArgs"]["limit"] is int
    assert hints["DefaultsArgs"]["since"] is datetime
    assert hints["RequiredParamsArgs"]["name"] is str
    assert hints["RequiredParamsArgs"]["maybe"] == str | None


def test_enums_coerce_like_plain_parameters(catalog_from_yaml: Any) -> None:
    pkg = catalog_from_yaml("""
        name: enums
        tools:
          - name: pick
            description: Pick one.
            parameters:
              type: object
              properties:
                ratio: {type: number, enum: [1.0, 2.5], description: A number enum.}
                level: {type: integer, enum: [1, 10], description: An integer enum.}
    """)
    request = pkg.parse("pick", {"ratio": 1, "level": "10"})
    assert request.values == {"ratio": 1.0, "level": 10}
    assert request.warnings == ("string_literal_converted_to_integer:level",)
    # Text an integer parameter would refuse is refused by an integer enum too.
    request = pkg.parse("pick", {"level": "1_0"})
    assert request.errors == ("enum_out_of_range:level",)


def test_a_boolean_enum_coerces_like_a_boolean(catalog_from_yaml: Any) -> None:
    pkg = catalog_from_yaml("""
        name: flags
        tools:
          - name: pick
            description: Pick one.
            parameters:
              type: object
              properties:
                strict: {type: boolean, enum: [true], description: Only true.}
                flag: {enum: [true, false, "auto"], description: A flag or auto.}
    """)
    request = pkg.parse("pick", {"strict": "TRUE", "flag": 0})
    assert request.values == {"strict": True, "flag": False}
    assert request.warnings == (
        "string_literal_converted_to_boolean:strict",
        "number_coerced_to_boolean:flag",
    )
    # An allowed value as written wins over a coercion; what a boolean refuses is refused.
    assert pkg.parse("pick", {"flag": "auto"}).values == {"flag": "auto"}
    assert pkg.parse("pick", {"strict": "false"}).errors == ("enum_out_of_range:strict",)
    assert pkg.parse("pick", {"strict": 2}).errors == ("enum_out_of_range:strict",)

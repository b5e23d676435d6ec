"""The official JSON-Schema-Test-Suite (draft 2020-12) through generated parsers: strict out, proven.

The suite's files for the keywords SPEC §2 supports are vendored in tests/json_schema_suite/ (its
README says from where). As fastjsonschema runs it, each group's schema becomes one tool, whose
one required parameter `x` has that schema (its `#` pointers moved to `#/properties/x`), and each
test sends `{"x": instance}`:

- an instance the suite calls valid parses with no error and no warning but the two SPEC documents
  for valid input (`unknown_parameter`: a name the schema does not declare reaches `values` but not
  the dataclass; `number_coerced_to_integer`: 1.0 for an integer becomes 1), and `values` hold it;
- an instance the suite calls invalid never parses silently: it has an error, or warnings after
  which the corrected value (undeclared names left out, as the dataclass leaves them) satisfies the
  schema.

A schema without `type` is read as the kind its keywords name, with a build warning (SPEC §2): an
instance that only the missing `type` made valid (jsonschema, the oracle, says so of the schema with
the inferred types written in) may be corrected or refused, but never passes silently.

Groups the build refuses, or warns about for any other reason, are listed in LISTED with the reason;
a test checks that the list is exactly what the build says, so it cannot go stale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import build_package
from jsonschema import Draft202012Validator

from codegen.build import check_catalog
from codegen.catalog.typeless import inferred_types

SUITE = Path(__file__).resolve().parent / "json_schema_suite" / "draft2020-12"
TYPELESS = "no `type`"
# Warnings that SPEC documents for input that is valid JSON Schema (see the module docstring).
VALID_INPUT_WARNINGS = frozenset({"unknown_parameter", "number_coerced_to_integer"})

# The groups the build refuses (an error: nothing is generated) or warns about for a reason other
# than a missing `type`, by reason: (verdict, text of the build's message, why, groups).
REASONS: list[tuple[str, str, str, list[str]]] = [
    (
        "refused",
        "is not a local reference",
        "only local references (`#/...`) are supported (SPEC §2): no $id, $anchor or URIs",
        [
            "defs: validate definition against metaschema",
            "ref: remote ref, containing refs itself",
            "ref: Recursive references between schemas",
            "ref: refs with relative uris and defs",
            "ref: relative refs with absolute uris and defs",
            "ref: $id must be resolved against nearest parent, not just immediate parent",
            "ref: order of evaluation: $id and $ref",
            "ref: order of evaluation: $id and $anchor and $ref",
            "ref: simple URN base URI with $ref via the URN",
            "ref: URN base URI with URN and JSON pointer ref",
            "ref: URN base URI with URN and anchor ref",
            "ref: URN ref with nested pointer ref",
            "ref: ref to if",
            "ref: ref to then",
            "ref: ref to else",
            "ref: ref with absolute-path-reference",
        ],
    ),
    (
        "refused",
        "recursive schemas are not supported",
        "a recursive schema has no dataclass of finite depth",
        ["ref: root pointer ref"],
    ),
    (
        "refused",
        "accepts no value",
        (
            "a schema that accepts no value where a value is required (`false`, an allOf with "
            "`false`, every branch `false`) is a mistake in a tool catalog"
        ),
        [
            "allOf: allOf with boolean schemas, some false",
            "allOf: allOf with boolean schemas, all false",
            "anyOf: anyOf with boolean schemas, all false",
            "oneOf: oneOf with boolean schemas, all false",
            "properties: properties with boolean schema",
            "ref: $ref to boolean schema false",
        ],
    ),
    (
        "warned",
        "does not match the parameter's schema",
        (
            "a default that breaks its own schema is corrected as a call's value would be, or "
            "left out, with a build warning (SPEC §2: catalogs from the wild build)"
        ),
        [
            "default: invalid type for default",
            "default: invalid string value for default",
            "default: the default keyword does not do anything if the property is missing",
        ],
    ),
    (
        "warned",
        "becomes Python name",
        (
            "names that become the same Python name are told apart with a suffix, with a build "
            "warning (pin one with x-python-name)"
        ),
        ["properties: properties with escaped characters"],
    ),
    (
        "warned",
        "is not enforced by the generated parser",
        (
            "a keyword SPEC §2 does not support (prefixItems, patternProperties, propertyNames, "
            "dependentSchemas, unevaluatedProperties) is a build warning, and not enforced"
        ),
        [
            "additionalProperties: additionalProperties being false does not allow other properties",
            "additionalProperties: non-ASCII pattern with additionalProperties",
            "additionalProperties: additionalProperties with propertyNames",
            "additionalProperties: dependentSchemas with additionalProperties",
            "items: items and subitems",
            "items: prefixItems with no additional items allowed",
            "items: items does not look in applicators, valid case",
            "items: prefixItems validation adjusts the starting index for items",
            "items: items with heterogeneous array",
            "properties: properties, patternProperties, additionalProperties interaction",
            "ref: relative pointer ref to array",
            "ref: ref creates new scope when adjacent to keywords",
        ],
    ),
    (
        "warned",
        "'multipleOf'",
        "multipleOf is not supported (SPEC §2): a build warning, and not enforced",
        ["allOf: allOf combined with anyOf, oneOf"],
    ),
]
LISTED = {group: (verdict, text, why) for verdict, text, why, groups in REASONS for group in groups}


@dataclass(frozen=True)
class Group:
    key: str  # "<file>: <description>", the suite's own words
    tool: str
    schema: Any
    tests: list[dict[str, Any]]


def _groups() -> list[Group]:
    found: list[Group] = []
    for path in sorted(SUITE.glob("*.json")):
        for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            key = f"{path.stem}: {group['description']}"
            found.append(Group(key, f"{path.stem}_{index}", group["schema"], group["tests"]))
    return found


GROUPS = _groups()


def _moved(node: Any, prefix: str) -> Any:
    """`node` with every local `$ref` pointing where the schema now sits (values left alone)."""
    if isinstance(node, list):
        return [_moved(item, prefix) for item in node]
    if not isinstance(node, dict):
        return node
    moved: dict[str, Any] = {}
    for word, value in node.items():
        if word == "$ref" and isinstance(value, str) and (value == "#" or value.startswith("#/")):
            moved[word] = "#" + prefix + value[1:]
        elif word in ("enum", "const", "default", "examples"):
            moved[word] = value
        else:
            moved[word] = _moved(value, prefix)
    return moved


def _with_types(node: Any) -> Any:
    """The schema as the generator reads it: each schema without `type` gets the kinds its
    keywords name (what codegen.typeless infers)."""
    if isinstance(node, list):
        return [_with_types(item) for item in node]
    if not isinstance(node, dict):
        return node
    typed: dict[str, Any] = {}
    for word, value in node.items():
        if word in ("enum", "const", "default", "examples"):
            typed[word] = value
        elif word in ("properties", "$defs", "patternProperties", "dependentSchemas"):
            typed[word] = (
                {name: _with_types(s) for name, s in value.items()}
                if isinstance(value, dict)
                else value
            )
        else:
            typed[word] = _with_types(value)
    combined = {"type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf"}
    if not combined & typed.keys():
        types, _ = inferred_types(typed)
        if types:
            typed["type"] = types
    return typed


@dataclass
class Built:
    package: ModuleType
    errors: dict[str, list[str]]  # group key → the build's errors
    warnings: dict[str, list[str]]  # group key → its warnings other than the typeless ones


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("suite")
    errors: dict[str, list[str]] = {}
    warnings: dict[str, list[str]] = {}
    tools: list[dict[str, Any]] = []
    for group in GROUPS:
        tool = {
            "name": group.tool,
            "description": group.key,
            "parameters": {
                "type": "object",
                "properties": {"x": _moved(group.schema, "/properties/x")},
                "required": ["x"],
            },
        }
        # Each group alone first, so that one refused group does not stop the others.
        source = folder / f"{group.tool}.json"
        source.write_text(json.dumps({"name": "group", "tools": [tool]}), encoding="utf-8")
        _, diagnostics = check_catalog(source, folder)
        errors[group.key] = [d.message for d in diagnostics if d.level == "error"]
        warnings[group.key] = [
            d.message
            for d in diagnostics
            if d.level == "warning" and not d.message.startswith(TYPELESS)
        ]
        if not errors[group.key]:
            tools.append(tool)
    source = folder / "suite.json"
    source.write_text(json.dumps({"name": "suite", "tools": tools}), encoding="utf-8")
    return Built(build_package(source, folder / "out"), errors, warnings)


@pytest.mark.parametrize("group", GROUPS, ids=[g.key for g in GROUPS])
def test_the_build_refuses_or_warns_about_exactly_the_listed_groups(
    group: Group, built: Built
) -> None:
    errors, warnings = built.errors[group.key], built.warnings[group.key]
    listed = LISTED.get(group.key)
    if listed is None:
        assert (errors, warnings) == ([], []), "not in LISTED, yet the build says so"
        return
    verdict, text, _ = listed
    if verdict == "refused":
        assert any(text in e for e in errors), errors
    else:
        assert errors == [] and any(text in w for w in warnings), (errors, warnings)


CASES = [
    pytest.param(group, test, id=f"{group.key} / {test['description']}")
    for group in GROUPS
    if group.key not in LISTED
    for test in group.tests
]


@pytest.mark.parametrize(("group", "test"), CASES)
def test_each_instance_parses_as_the_suite_says(
    group: Group, test: dict[str, Any], built: Built
) -> None:
    instance = test["data"]
    request = built.package.parse(group.tool, {"x": instance})
    schema = _with_types(group.schema)
    codes = {code.split(":", 1)[0] for code in request.warnings}
    if test["valid"] and Draft202012Validator(schema).is_valid(instance):
        assert request.errors == ()
        assert codes <= VALID_INPUT_WARNINGS, request.warnings
        assert request.values == {"x": instance}
        assert request.arguments is not None
    elif test["valid"]:
        # Valid only because the schema has no `type`: the build warned that it is read as a
        # kind, so the instance may be corrected or refused, but not passed on unsaid.
        assert request.errors or request.warnings, request.values
    elif not request.errors:
        assert request.warnings, f"an invalid instance parsed silently: {request.values}"
        unknown = {
            code.removeprefix("unknown_parameter:x.")
            for code in request.warnings
            if code.startswith("unknown_parameter:x.")
        }
        corrected = request.values["x"]
        if isinstance(corrected, dict):
            corrected = {k: v for k, v in corrected.items() if k not in unknown}
        assert Draft202012Validator(schema).is_valid(corrected), (
            f"warnings {request.warnings}, but {corrected!r} still breaks the schema"
        )
    else:
        assert request.arguments is None


@pytest.mark.parametrize(
    ("group", "test"),
    [
        pytest.param(group, test, id=f"{group.key} / {test['description']}")
        for group in GROUPS
        if LISTED.get(group.key, ("",))[0] == "warned"
        for test in group.tests
    ],
)
def test_a_listed_group_still_parses_without_raising(
    group: Group, test: dict[str, Any], built: Built
) -> None:
    raw = json.dumps({"x": test["data"]})
    request = built.package.parse(group.tool, raw)
    assert request.raw_arguments == raw
    assert (request.arguments is None) == bool(request.errors)


def test_the_suite_is_all_there() -> None:
    # The figures the README states: files, groups and tests vendored.
    assert len(list(SUITE.glob("*.json"))) == 22
    assert len(GROUPS) == 156
    assert sum(len(g.tests) for g in GROUPS) == 492

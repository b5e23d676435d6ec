"""Schema-driven property tests over every tool of every bundled and fixture catalog.

hypothesis-jsonschema draws instances that are valid for a tool's own JSON Schema; for each:

- it parses with zero warnings and zero errors, and `values` hold it, with defaults filled;
- each SPEC §3 slip applied to it (a number sent as text, a boolean as "yes", an object as a JSON
  string, a list as its one element, a case variant of an enum value, the whole call in a Markdown
  fence or JSON-encoded again, ...) gives exactly that slip's warning and the same `values`.

Instances are drawn without undeclared names (`additionalProperties: false` is added where a
schema leaves it open): a name the schema does not declare is valid JSON Schema, but SPEC §3 reports
it (`unknown_parameter`). Arbitrary text, bytes and JSON for every tool are in test_robustness.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, build_package
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from codegen.catalog.load import load_catalog
from codegen.catalog.refs import ref_target

CATALOGS = sorted(
    p
    for p in [*(ROOT / "schemas").iterdir(), *(ROOT / "tests" / "fixtures").iterdir()]
    if p.suffix in (".yaml", ".json") and p.name != "catalog.schema.json"
)
TOOLS = [
    (source, spec["name"])
    for source in CATALOGS
    for spec in load_catalog(source, ROOT).data["tools"]
]
# Formats the catalogs use that hypothesis-jsonschema does not know.
FORMATS = {"x-attachment": st.text(max_size=20)}

# Each tool is one test: a handful of instances each keeps the whole run to seconds.
PROPERTY = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.fixture(scope="module")
def package_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], ModuleType]:
    built: dict[Path, ModuleType] = {}

    def get(source: Path) -> ModuleType:
        if source not in built:
            built[source] = build_package(source, tmp_path_factory.mktemp("catalog"))
        return built[source]

    return get


_strategies: dict[tuple[Path, str], st.SearchStrategy[Any]] = {}


def instances(package: ModuleType, source: Path, tool: str) -> st.SearchStrategy[Any]:
    key = (source, tool)
    if key not in _strategies:
        schema = closed(package.TOOLS[tool].schema)
        _strategies[key] = from_schema(schema, custom_formats=FORMATS)
    return _strategies[key]


def closed(node: Any) -> Any:
    """The schema with `additionalProperties: false` wherever properties are declared and other
    names left open, so that drawn instances hold declared names only."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: v if k in ("enum", "const", "default", "examples") else closed(v)
        for k, v in node.items()
    }
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: closed(s) for name, s in node["properties"].items()}
        if out.get("additionalProperties", True) is True:
            out["additionalProperties"] = False
    return out


def agrees(value: object, sent: object) -> bool:
    """Whether a parsed value is what was sent: timestamps as the objects their text names, a
    number as the float it is, and objects may hold more (the defaults filled in)."""
    if isinstance(value, datetime):
        return isinstance(sent, str) and datetime.fromisoformat(sent) == value
    if isinstance(value, date):
        return isinstance(sent, str) and date.fromisoformat(sent) == value
    if isinstance(value, dict):
        return isinstance(sent, dict) and all(
            k in value and agrees(value[k], item) for k, item in sent.items()
        )
    if isinstance(value, list):
        return isinstance(sent, list) and len(value) == len(sent) and all(map(agrees, value, sent))
    if isinstance(value, bool) or isinstance(sent, bool):
        return type(value) is type(sent) and value == sent
    return value == sent


# Two properties over one drawn instance: it parses clean with defaults filled, and each slip
# applied to it gives that slip's warning and the same values. Drawing an instance from the
# tool's schema (hypothesis-jsonschema) is most of an example's time, so one draw serves both:
# each still sees 15 instances per tool (the same ones for the two).


@pytest.mark.parametrize(("source", "tool"), TOOLS, ids=[f"{s.stem}:{t}" for s, t in TOOLS])
@PROPERTY
@given(data=st.data())
def test_a_valid_instance_parses_clean_and_each_slip_gives_its_warning(
    package_of: Callable[[Path], ModuleType], source: Path, tool: str, data: st.DataObject
) -> None:
    package = package_of(source)
    instance = data.draw(instances(package, source, tool))
    clean = parses_clean_with_defaults_filled(package, tool, instance)
    slip_gives_its_warning_and_the_same_values(package, tool, instance, clean, data)


def parses_clean_with_defaults_filled(package: ModuleType, tool: str, instance: Any) -> Any:
    """A valid instance parses with zero warnings and errors, defaults filled; its request."""
    request = package.parse(tool, json.dumps(instance))
    assert (request.warnings, request.errors) == ((), ()), instance
    assert request.arguments is not None
    assert agrees(request.values, instance), (request.values, instance)
    properties = package.TOOLS[tool].schema.get("properties", {})
    for name, prop in properties.items():
        if name not in instance and isinstance(prop, dict) and "default" in prop:
            assert agrees(request.values[name], prop["default"]), name
    return request


# ---------------------------------------------------------------------------------------------
# Slips


def kind_of(root: dict[str, Any], prop: Any) -> dict[str, Any] | None:
    """The schema of a parameter with one plain type (its $ref followed), else None."""
    while isinstance(prop, dict) and "$ref" in prop:
        prop = ref_target(root, prop["$ref"], ())[1]
    if not isinstance(prop, dict) or not isinstance(prop.get("type"), str):
        return None
    if {"anyOf", "oneOf", "allOf", "const", "format"} & prop.keys():
        return None
    return prop


_TRUE = ["true", "True", " TRUE ", "yes", "on", "1"]
_FALSE = ["false", "False", "no", "OFF", "0"]
_DIGITS = re.compile(r"-?(?:0|[1-9][0-9]{0,15})")


def slips(
    root: dict[str, Any], instance: dict[str, Any]
) -> Iterator[tuple[str, Callable[[st.DataObject], object]]]:
    """(the warning code, a function drawing the slipped arguments) for each slip that applies."""
    for name, sent in instance.items():
        prop = kind_of(root, root.get("properties", {}).get(name))
        if prop is None:
            continue
        kind = prop["type"]
        with_value = _replacing(instance, name)

        if "enum" in prop:
            choices = prop["enum"]
            variant = sent.swapcase() if isinstance(sent, str) else sent
            if (
                isinstance(sent, str)
                and not prop.get("x-case-sensitive")
                and variant != sent
                and variant not in choices
            ):
                yield f"enum_case_normalized:{name}", lambda d, v=variant, w=with_value: w(v)
            continue
        if kind == "boolean":
            texts = _TRUE if sent else _FALSE
            yield (
                f"string_literal_converted_to_boolean:{name}",
                lambda d, t=texts, w=with_value: w(d.draw(st.sampled_from(t))),
            )
            yield f"number_coerced_to_boolean:{name}", lambda d, b=sent, w=with_value: w(int(b))
        elif kind == "integer":
            yield (
                f"string_literal_converted_to_integer:{name}",
                lambda d, n=sent, w=with_value: w(f" {n}"),
            )
            if abs(sent) <= 2**53:
                yield (
                    f"number_coerced_to_integer:{name}",
                    lambda d, n=sent, w=with_value: w(float(n)),
                )
        elif kind == "number":
            yield (
                f"string_literal_converted_to_number:{name}",
                lambda d, x=sent, w=with_value: w(repr(x)),
            )
        elif kind == "string":
            if sent in ("true", "false") or _DIGITS.fullmatch(sent):
                value = json.loads(sent)
                yield f"non_string_literal_retained:{name}", lambda d, v=value, w=with_value: w(v)
        elif kind in ("array", "object"):
            yield f"string_parsed_as_json:{name}", lambda d, v=sent, w=with_value: w(json.dumps(v))
            one = sent[0] if kind == "array" and len(sent) == 1 else None
            if one is not None and not isinstance(one, (list, dict, str)):
                yield f"scalar_coerced_to_list:{name}", lambda d, v=sent[0], w=with_value: w(v)


def _replacing(instance: dict[str, Any], name: str) -> Callable[[object], dict[str, Any]]:
    """The arguments with `name` sent as another value."""
    return lambda value: {**instance, name: value}


def whole_input_slips(instance: dict[str, Any]) -> list[tuple[str, Callable[[str], str]]]:
    text_slips: list[tuple[str, Callable[[str], str]]] = [
        ("markdown_fence_stripped", lambda t: f"```json\n{t}\n```"),
        ("json_extracted_from_text", lambda t: f"Here are the arguments: {t} Thanks."),
        ("arguments_unquoted", json.dumps),
    ]
    if instance:
        text_slips.append(("trailing_comma_removed", lambda t: t[:-1] + ",}"))
    return text_slips


def slip_gives_its_warning_and_the_same_values(
    package: ModuleType, tool: str, instance: Any, clean: Any, data: st.DataObject
) -> None:
    """One slip that applies to the instance, drawn: exactly its warning, the clean values."""
    root = package.TOOLS[tool].schema
    choices: list[tuple[str, Callable[[], str]]] = [
        (code, lambda draw=draw: json.dumps(draw(data))) for code, draw in slips(root, instance)
    ]
    choices += [
        (code, lambda change=change: change(json.dumps(instance)))
        for code, change in whole_input_slips(instance)
    ]
    code, slipped = data.draw(st.sampled_from(choices))
    raw = slipped()
    request = package.parse(tool, raw)
    assert (request.warnings, request.errors) == ((code,), ()), raw
    assert request.values == clean.values
    assert request.arguments == clean.arguments
    assert request.raw_arguments == raw

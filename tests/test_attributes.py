"""The names inside a generated dataclass and its parse function (issue 33 item 1, "one namespace
owner ... locals in generated code"): `python.attributes` names the fields, `coerce.jinja` makes
each field's locals from its attribute and `LOCAL_SUFFIXES`. These tests read the locals back
from generated code, so no list of them is kept by hand: a parameter named like each local of the
parse functions, and like each with each suffix, keeps its value and meets no other name."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import build_package

from codegen.build import check_catalogs
from codegen.catalog.ir import Tool
from codegen.catalog.kinds import ObjectKind
from codegen.python.attributes import LOCAL_SUFFIXES, attributes
from codegen.python.module_names import module_names
from codegen.python.namespace import package_names
from codegen.python.render import package_bound

LEVEL = {"type": "object", "properties": {"level": {"type": "integer"}}}

# A parameter of each kind of value whose parse code differs (fast path, slow path, container,
# nested object, union, open object with typed other keys), so the parse functions hold every
# local the templates make.
KINDS: list[dict[str, Any]] = [
    {"type": "integer", "minimum": 0},
    {"type": "string"},
    {"type": "array", "items": {"type": "integer"}},
    {**LEVEL, "additionalProperties": {"type": "integer"}},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"type": "string", "format": "date"},
    {"type": "object", "additionalProperties": {"type": "integer"}},
]


def _value(kind: dict[str, Any], n: int) -> Any:
    """A valid value of `kind`, told apart from the others' by `n`."""
    if kind.get("format") == "date":
        return f"2024-01-{n % 28 + 1:02d}"
    by_type = {
        "integer": n,
        "string": f"s{n}",
        "array": [n],
        "object": {"level": n} if "properties" in kind else {"k": n},
    }
    return by_type[kind.get("type", "integer")]


def _build(tmp: Path, name: str, properties: dict[str, Any]) -> tuple[ModuleType, Tool, str, Path]:
    """The package built of a catalog of one tool with `properties`, the tool, the stem of its
    classes and its module's file."""
    catalog = {
        "name": name,
        "tools": [
            {
                "name": "tool",
                "description": "d",
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "additionalProperties": True,
                },
            }
        ],
    }
    source = tmp / f"{name}.json"
    source.write_text(json.dumps(catalog), encoding="utf-8")
    package = build_package(source, tmp / "out")
    (ir,), _ = check_catalogs([source], tmp)
    (tool,) = ir.tools
    names = package_names(ir, package_bound())[tool]
    module = Path(package.__file__ or "").parent / "tools" / f"{names.module}.py"
    return package, tool, names.stem, module


def _functions(module: Path) -> dict[str, tuple[set[str], set[str]]]:
    """The names each of the module's functions binds (locals, parameters) and reads (the
    parse functions: those of the module, not a Protocol's `__call__`)."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            bound, read = found.setdefault(node.name, (set(), set()))
            for inner in ast.walk(node):
                if isinstance(inner, ast.arg):
                    bound.add(inner.arg)
                elif isinstance(inner, ast.Name):
                    (bound if isinstance(inner.ctx, ast.Store) else read).add(inner.id)
    return found


def _owned(kind: ObjectKind) -> dict[str, set[str]]:
    """The locals each attribute of `kind` owns in its parse function: it plus each suffix."""
    given = attributes(kind)
    names = (*given.fields.values(), *([given.extra] if given.extra else []))
    return {name: {name + suffix for suffix in LOCAL_SUFFIXES} for name in names}


def _by_function(
    tool: Tool, stem: str, module: Path
) -> list[tuple[set[str], set[str], dict[str, set[str]]]]:
    """Each function of the tool's module: what it binds, what it reads, and the locals each
    attribute owns there (those of the class it parses; none for other helpers)."""
    names = module_names(tool, stem)
    classes = {names[kind.helper_slot]: kind for kind in tool.classes}
    return [
        (bound, read, _owned(classes[name]) if name in classes else {})
        for name, (bound, read) in _functions(module).items()
    ]


def _fixed_locals(tmp: Path) -> set[str]:
    """The locals of the parse functions that belong to no attribute, read from generated code."""
    properties = {f"p{i}": kind for i, kind in enumerate(KINDS)}
    _, tool, stem, module = _build(tmp, "baseline", properties)
    fixed: set[str] = set()
    for bound, _, owned in _by_function(tool, stem, module):
        fixed |= bound - set().union(*owned.values())
    return fixed


def test_locals_are_apart(tmp_path: Path) -> None:
    """Issue 33 item 1: a parameter named like each fixed local of the parse functions, like each
    of them with each suffix the template adds, and like an attribute plus a suffix, keeps its own
    value; in each parse function no local of one attribute is another's, a fixed local, or a
    global the function reads, and every local is a fixed one or an attribute's."""
    fixed = _fixed_locals(tmp_path)
    assert {"v", "src", "warnings", "errors", "draft"} <= fixed  # what the templates bind
    names = sorted({*fixed, *(f + s for f in fixed for s in LOCAL_SUFFIXES), "p", "p_c", "p_"})
    properties = {name: KINDS[i % len(KINDS)] for i, name in enumerate(names)}
    package, tool, stem, module = _build(tmp_path, "locals", properties)
    for bound, read, owned in _by_function(tool, stem, module):
        every: dict[str, str] = {}
        for attribute, locals_ in owned.items():
            for name in locals_:
                assert name not in every, (name, attribute, every.get(name))
                every[name] = attribute
        assert not set(every) & fixed
        assert not set(every) & (read - bound)  # no attribute's local hides a global it reads
        assert bound <= fixed | set(every)
    assert len(attributes(tool.args).fields) == len(names)
    values = {name: _value(kind, i) for i, (name, kind) in enumerate(properties.items())}
    request = package.parse("tool", values)
    assert (request.ok, request.errors, request.warnings) == (True, (), ())
    given = attributes(tool.args).fields
    for wire, value in values.items():
        held = getattr(request.arguments, given[wire])
        if isinstance(value, dict) and "level" in value:
            held = {"level": held.level}
        elif isinstance(value, str) and value.startswith("2024-"):
            held = held.isoformat()
        elif isinstance(value, dict):
            held = dict(held)
        assert held == value, wire


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({"class": {}, "date": {}}, {"class": "class_", "date": "date_"}),
        ({"a.b": {}, "a_b": {}}, {"a_b": "a_b", "a.b": "a_b_2"}),
        ({"x": {"x-python-name": "y"}, "y": {}}, {"x": "y", "y": "y_2"}),
        ({"extra": {}}, {"extra": "extra"}),
        ({"self": {}}, {"self": "self"}),
    ],
)
def test_attributes_by_the_one_rule(
    tmp_path: Path, properties: dict[str, Any], expected: dict[str, str]
) -> None:
    """Issue 33 item 1: the back end names the fields by `names.resolve` (pins first, then wire
    names that are the identifier, keywords and the class's own names take `_`), the open
    object's field of other keys apart from them, the handler's `self` apart from them."""
    properties = {wire: {"type": "string", **p} for wire, p in properties.items()}
    _, tool, _, _ = _build(tmp_path, "rule", properties)
    given = attributes(tool.args)
    assert given.fields == expected
    assert given.extra == ("extra_" if "extra" in expected.values() else "extra")

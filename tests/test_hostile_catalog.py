"""A hostile catalog (tests/fixtures/hostile.yaml) never produces broken or injectable code.

Catalog text holds quotes, triple quotes, backslashes, every kind of line break, NUL, template
syntax, comment starters and Python meant to run; parameter names are keywords, builtins and the
names the generated code itself uses. The generated package must parse, import without running any
of it, keep every string exactly, parse calls that use every hostile name, and pass `mypy --strict`
and `ruff`.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import io
import json
import keyword
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import Mypy, build_package

from codegen.build import BuildResult, build
from codegen.catalog.load import load_catalog
from codegen.diagnostics import CatalogError

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HOSTILE = FIXTURES / "hostile.yaml"
BIN = Path(sys.executable).parent

# What the payloads in hostile.yaml would leave behind if any of them ever ran.
MARK = "HOSTILE_PWNED"

TOOL_ONE = "hostile.tool-one"
TOOL_TWO = "hostile-tool.two"

# Names catalog text must never turn into code.
FORBIDDEN_NAMES = frozenset(
    {
        "__import__",
        "eval",
        "exec",
        "open",
        "system",
        "popen",
        "os",
        "builtins",
        "subprocess",
        "getattr",
        "setattr",
        "globals",
        "locals",
        "vars",
        "breakpoint",
        "input",
        "__setitem__",
        "__dict__",
        MARK,
    }
)
# Builtins a tool module or the package __init__ may call or name; anything else must be defined
# by the module itself (import, def, class, assignment, parameter).
ALLOWED_BUILTINS = frozenset(
    {
        "bool",
        "dict",
        "enumerate",
        "float",
        "frozenset",
        "int",
        "isinstance",
        "len",
        "list",
        "object",
        "str",
        "tuple",
        "type",
        "range",
        "repr",
        "sorted",
        "set",
        "ValueError",
        "TypeError",
        "KeyError",
    }
)
# Substrings of catalog text that would show up outside string literals if text were pasted as code.
MARKERS = ("__import__", MARK, "{{", "{%", "${", '"""', "'''", "system(")


# ---------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    """The catalog as the generator reads it (YAML 1.2 scalars)."""
    loaded: dict[str, Any] = load_catalog(HOSTILE, Path.cwd()).data
    return loaded


@pytest.fixture(scope="module")
def result() -> BuildResult:
    return build([HOSTILE])


@pytest.fixture(scope="module")
def hostile(fixture_package: Any) -> ModuleType:
    package: ModuleType = fixture_package("hostile.yaml")
    return package


def tool_data(data: dict[str, Any], name: str) -> dict[str, Any]:
    (tool,) = [t for t in data["tools"] if t["name"] == name]
    return tool


def first_line(text: str) -> str:
    """The first non-blank line of a description, as a docstring shows it."""
    return text.strip().splitlines()[0].strip()


def strings(value: object) -> Iterator[str]:
    """Every string in catalog data: keys and values, recursively."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def strict(value: object) -> object:
    """A form of JSON data where 1, 1.0 and True differ, and -0.0 differs from 0.0."""
    if isinstance(value, dict):
        return ("dict", [(k, strict(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return ("list", [strict(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def python_files(result: BuildResult) -> dict[str, str]:
    return {path: text for path, text in result.files.items() if path.endswith(".py")}


def catalog_dependent(path: str) -> bool:
    """Modules whose code is rendered from the catalog (the runtime and repair modules are fixed text)."""
    return "/tools/" in path or path.endswith("/__init__.py")


# ---------------------------------------------------------------------------------------------
# The source text


def test_the_fixture_is_a_valid_catalog_with_the_expected_tools(
    result: BuildResult, data: dict[str, Any]
) -> None:
    assert result.packages == ["hostile"]
    assert [t["name"] for t in data["tools"]] == [
        TOOL_ONE,
        TOOL_TWO,
        "ns:tool_3",
        "import",
        "_runtime",
    ]
    # The fixture really is hostile: the texts the tests rely on made it through YAML.
    description = tool_data(data, TOOL_ONE)["description"]
    for piece in (
        '"""',
        "'''",
        "\\\n",
        "\r\n",
        "\r",
        "\u2028",
        "\u2029",
        "\x00",
        "\t",
        "{{ x }}",
        "{% raw %}",
        "${x}",
        "#",
    ):
        assert piece in description, piece
    assert description.endswith("\\")


def test_every_generated_module_parses_and_compiles(result: BuildResult) -> None:
    files = python_files(result)
    assert files
    for path, text in files.items():
        tree = ast.parse(text, filename=path)
        compile(tree, path, "exec")


def test_comments_are_only_the_header(result: BuildResult) -> None:
    for path, text in python_files(result).items():
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT:
                continue
            line = token.start[0]
            allowed = line <= 2 or token.string.startswith(("# type: ignore", "# noqa"))
            if not catalog_dependent(path) and line > 2:
                continue  # fixed text of the runtime: its comments are codegen's own
            assert allowed, f"{path}:{line}: unexpected comment {token.string!r}"
        header = text.splitlines()[:2]
        assert header[0].startswith("# generated by codegen"), path
        # The runtime is the same for every catalog, so only catalog modules name their source.
        assert header[1].startswith("# source:") or not catalog_dependent(path), path


def test_catalog_text_appears_only_inside_string_literals(result: BuildResult) -> None:
    for path, text in python_files(result).items():
        if not catalog_dependent(path):
            continue
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.STRING, tokenize.COMMENT):
                continue
            for marker in MARKERS:
                assert marker not in token.string, (
                    f"{path}:{token.start[0]}: {marker!r} outside a string: {token.line!r}"
                )
            if token.type == tokenize.NAME:
                assert token.string not in FORBIDDEN_NAMES, (
                    f"{path}:{token.start[0]}: name {token.string!r}"
                )


def _defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def test_top_level_statements_are_only_the_expected_kinds(result: BuildResult) -> None:
    for path, text in python_files(result).items():
        if not catalog_dependent(path):
            continue
        tree = ast.parse(text)
        for index, node in enumerate(tree.body):
            where = f"{path}:{node.lineno}"
            if isinstance(node, ast.If) and ast.unparse(node.test) == "not TYPE_CHECKING":
                # The package's lazy `__getattr__`, for the running program only (issue 33 item 3).
                (getter,) = node.body
                assert isinstance(getter, ast.Assign) and not node.orelse, where
                assert ast.unparse(getter.targets[0]) == "__getattr__", where
                assert ast.unparse(getter.value).startswith("lazy_payloads(__name__, ("), where
            elif isinstance(node, ast.If):
                # `if TYPE_CHECKING:` with the tools' imports, the executor's, the payloads', the glue
                # types', the MCP server's and Callable, for type checkers only.
                assert ast.unparse(node.test) == "TYPE_CHECKING" and not node.orelse, where
                assert all(
                    isinstance(item, ast.ImportFrom)
                    and (
                        (item.level == 1 and (item.module or "").startswith("tools."))
                        or (
                            item.level == 1
                            and item.module
                            in {
                                "_handlers",
                                "_results",
                                "_payloads",
                                "_prompts",
                                "_streams",
                                "_types",
                                "mcp",
                            }
                        )
                        or (item.level == 0 and item.module == "collections.abc")
                    )
                    for item in node.body
                ), where
            elif isinstance(node, ast.Expr):
                # Only the module docstring is an expression statement.
                assert (
                    index == 0
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                ), where
            elif isinstance(node, ast.ImportFrom):
                assert node.module in {
                    "__future__",
                    "dataclasses",
                    "datetime",
                    "math",
                    "re",
                    "typing",
                    "collections.abc",
                    "types",
                    "_runtime",
                    "_payloads",
                } or (node.level > 0), where
                assert node.module is None or not any(
                    part in FORBIDDEN_NAMES for part in node.module.split(".")
                ), where
            elif isinstance(node, ast.Import):
                assert all(
                    alias.name in {"dataclasses", "re", "datetime", "math", "typing"}
                    for alias in node.names
                ), where
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                assert all(isinstance(t, ast.Name) for t in targets), where
            elif isinstance(node, ast.ClassDef):
                for decorator in node.decorator_list:
                    assert (
                        isinstance(decorator, ast.Call)
                        and ast.unparse(decorator.func) == "dataclass"
                    ), where
                    assert not decorator.args and all(
                        isinstance(k.value, ast.Constant) for k in decorator.keywords
                    ), where
                first, *rest = node.body
                assert (
                    isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)
                ), where
                if [ast.unparse(base) for base in node.bases] == ["Protocol"]:
                    # A handler's keywords: one `__call__` that does nothing, its parameters
                    # the fields' Python names.
                    (call,) = rest
                    assert isinstance(call, ast.FunctionDef) and call.name == "__call__", where
                    assert not call.decorator_list and ast.unparse(call.body[0]) == "...", where
                    assert len(call.body) == 1, where
                    continue
                for statement in rest:
                    assert isinstance(statement, ast.AnnAssign) and isinstance(
                        statement.target, ast.Name
                    ), f"{where}: a class body holds only fields, not {ast.unparse(statement)!r}"
            elif isinstance(node, ast.FunctionDef):
                # Only the stream readers' overloads (a sync and an async stream) are decorated.
                assert all(ast.unparse(d) == "overload" for d in node.decorator_list), where
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Expr) and inner is not node.body[0]:
                        # Inside functions, expression statements are calls like `errors.append(...)`.
                        assert isinstance(inner.value, ast.Call), f"{where}: {ast.unparse(inner)!r}"
            else:
                pytest.fail(f"{where}: unexpected top-level statement {ast.unparse(node)!r}")


def test_no_call_or_name_comes_from_catalog_text(result: BuildResult) -> None:
    for path, text in python_files(result).items():
        if not catalog_dependent(path):
            continue
        tree = ast.parse(text)
        defined = _defined_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                if _is_slot_setter(func, defined):
                    continue
                called = (
                    func.id
                    if isinstance(func, ast.Name)
                    else func.attr
                    if isinstance(func, ast.Attribute)
                    else None
                )
                assert called is not None, f"{path}:{node.lineno}: call of {ast.unparse(func)!r}"
                assert called not in FORBIDDEN_NAMES, f"{path}:{node.lineno}: {ast.unparse(node)!r}"
            if isinstance(node, ast.Attribute):
                assert node.attr not in FORBIDDEN_NAMES, (
                    f"{path}:{node.lineno}: {ast.unparse(node)!r}"
                )
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                assert node.id in defined or node.id in ALLOWED_BUILTINS | {"__name__"}, (
                    f"{path}:{node.lineno}: name {node.id!r} is neither defined nor an allowed builtin"
                )


def _is_slot_setter(func: ast.expr, defined: set[str]) -> bool:
    """`_X_SLOTS[2](...)`: a module's own table of slot setters, at a constant index."""
    return (
        isinstance(func, ast.Subscript)
        and isinstance(func.value, ast.Name)
        and func.value.id in defined
        and func.value.id.endswith("_SLOTS")
        and isinstance(func.slice, ast.Constant)
        and type(func.slice.value) is int
    )


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def test_every_catalog_string_is_a_string_constant_of_its_module(
    result: BuildResult, data: dict[str, Any]
) -> None:
    modules = {
        path: ast.parse(text) for path, text in python_files(result).items() if "/tools/" in path
    }
    for tool in data["tools"]:
        constants: set[str] = set()
        for tree in modules.values():
            module_name = next(
                (
                    n.value
                    for n in tree.body
                    if isinstance(n, ast.AnnAssign | ast.Assign) and "NAME" in _targets(n)
                ),
                None,
            )
            if isinstance(module_name, ast.Constant) and module_name.value == tool["name"]:
                constants = {
                    n.value
                    for n in ast.walk(tree)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                }
        assert constants, f"no module for {tool['name']!r}"
        missing = [
            s
            for s in [tool["name"], tool["description"], *strings(tool["parameters"])]
            if s not in constants
        ]
        assert not missing, missing


# ---------------------------------------------------------------------------------------------
# The imported package


def test_importing_runs_nothing_from_the_catalog(hostile: ModuleType) -> None:
    assert MARK not in builtins.__dict__
    assert hostile.CATALOG == "hostile"


def test_tools_round_trip_every_hostile_string(hostile: ModuleType, data: dict[str, Any]) -> None:
    assert list(hostile.TOOLS) == [t["name"] for t in data["tools"]]
    for tool in data["tools"]:
        spec = hostile.TOOLS[tool["name"]]
        assert spec.name == tool["name"]
        assert spec.description == tool["description"]
        assert strict(spec.schema) == strict(tool["parameters"]), tool["name"]
        assert json.dumps(spec.schema, ensure_ascii=False) == json.dumps(
            tool["parameters"], ensure_ascii=False
        )
    assert hostile.VERSION == data["version"]
    assert hostile.__doc__ is not None and hostile.__doc__.startswith(data["title"])


def test_dataclass_docstrings_are_the_first_line_of_descriptions(
    hostile: ModuleType, data: dict[str, Any]
) -> None:
    for tool in data["tools"]:
        spec = hostile.TOOLS[tool["name"]]
        assert spec.args_type.__doc__ == first_line(tool["description"]), tool["name"]
    one = hostile.TOOLS[TOOL_ONE].args_type
    assert one.__doc__ == (
        "First line: \"double\" 'single' \"\"\" ''' back\\slash {{ x }} {% raw %}{% endraw %} ${x} # not a comment"
        "\t__import__('os').system('x') \x00 end\\"
    )
    assert (
        hostile.TOOLS[TOOL_TWO].args_type.__doc__
        == '"""Starts after blank lines\\ and ends with a quote"'
    )
    assert (
        hostile.TOOLS["ns:tool_3"].args_type.__doc__
        == 'Leading whitespace, then "quotes" at the end"""'
    )
    # Nested objects: their own descriptions.
    two = sys.modules[hostile.TOOLS[TOOL_TWO].args_type.__module__]
    docs = {
        cls.__doc__
        for cls in vars(two).values()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    }
    schema = tool_data(data, TOOL_TWO)["parameters"]
    assert first_line(schema["properties"]["outer"]["description"]) in docs
    assert first_line(schema["$defs"]["We\"ird'Def\\"]["description"]) in docs


# Wire name → the Python names that are acceptable. Keywords must get `_`; builtins and names the
# generated code uses may keep their name or get `_`, as long as the code works.
def _maybe(name: str) -> set[str]:
    return {name, name + "_"}


TOOL_ONE_PY_NAMES: dict[str, set[str]] = {
    **{
        n: _maybe(n)
        for n in (
            "str",
            "int",
            "float",
            "bool",
            "list",
            "dict",
            "object",
            "dataclasses",
            "dataclass",
            "field",
            "datetime",
            "date",
            "re",
            "len",
            "values",
            "v",
            "src",
            "errors",
            "warnings",
            "path",
            "c",
            "key",
            "item",
            "items",
            "failed",
            "arguments",
            "tags",
            "when",
            "day",
            "name",
            "count",
            "ratio",
            "flag",
            "names",
            "scores",
            "mode",
        )
    },
    "名前": {"namae"},
    "class": {"class_"},
    "from": {"from_"},
    "lambda": {"lambda_"},
    "match": {"match", "match_"},  # soft keywords are ordinary names; either way, on every version
    "type": {"type", "type_"},  # see test_python_names_do_not_depend_on_the_interpreter
    "Final": {"final"},
    "Literal": {"literal"},
    "INVALID": {"invalid"},
    "ABSENT": {"absent"},
    "Content-Type": {"content_type"},
    "2fa": {"field_2fa"},
    "größe": {"grosse"},
}

WHEN = "2024-01-02T03:04:05+00:00"
DAY = "2024-01-02"

TOOL_ONE_CALL: dict[str, object] = {
    "str": "s",
    "int": 5,
    "float": 1.5,
    "bool": False,
    "list": ["a", "b"],
    "dict": {"k": 1},
    "object": {"any": [1, None]},
    "dataclasses": 2,
    "dataclass": "d",
    "field": "f",
    "名前": "n",
    "datetime": WHEN,
    "date": DAY,
    "re": "plain",
    "class": "k",
    "from": 1,
    "lambda": True,
    "match": '"""',
    "type": "t",
    "len": 3,
    "values": {"x": 1},
    "v": 4,
    "src": "s",
    "errors": [1, 2],
    "warnings": ["w"],
    "path": "p",
    "c": 2.5,
    "key": "k",
    "item": {"key": "k", "items": [1, 2]},
    "items": [{"item": 1}, {"item": 2}],
    "failed": False,
    "Final": 1,
    "Literal": "l",
    "INVALID": "i",
    "ABSENT": "a",
    "arguments": 0,
    "Content-Type": "text/plain",
    "2fa": True,
    "größe": 180,
    "tags": ["t"],
    "when": WHEN,
    "day": DAY,
    "name": "n",
    "count": 1,
    "ratio": 0.5,
    "flag": True,
    "names": ["n"],
    "scores": {"a": 1},
    "mode": "safe",
}
TIMESTAMPS = {"datetime", "date", "when", "day"}


def _py_names(args_type: type) -> dict[str, str]:
    """Wire name → Python field name, checked against the acceptable names."""
    fields = [f.name for f in dataclasses.fields(args_type)]
    chosen: dict[str, str] = {}
    for wire, acceptable in TOOL_ONE_PY_NAMES.items():
        found = [name for name in fields if name in acceptable]
        assert len(found) == 1, (
            f"{wire!r}: expected one of {sorted(acceptable)}, fields are {fields}"
        )
        chosen[wire] = found[0]
    assert sorted(chosen.values()) == sorted(fields)
    for name in fields:
        assert name.isidentifier() and not keyword.iskeyword(name)
    return chosen


def test_every_hostile_parameter_name_parses(hostile: ModuleType) -> None:
    spec = hostile.TOOLS[TOOL_ONE]
    assert set(TOOL_ONE_CALL) == set(TOOL_ONE_PY_NAMES)
    names = _py_names(spec.args_type)
    for raw in (TOOL_ONE_CALL, json.dumps(TOOL_ONE_CALL), json.dumps(TOOL_ONE_CALL).encode()):
        request = hostile.parse(TOOL_ONE, raw, "call-1")
        assert request.errors == () and request.warnings == (), (request.errors, request.warnings)
        assert request.tool_name == TOOL_ONE and request.tool_call_id == "call-1"
        # values: keyed by wire name, exactly what was sent (timestamps may be kept parsed).
        assert set(request.values) == set(TOOL_ONE_CALL)
        for wire, sent in TOOL_ONE_CALL.items():
            if wire not in TIMESTAMPS:
                assert strict(request.values[wire]) == strict(sent), wire
        # the dataclass: by Python name.
        args = request.arguments
        assert isinstance(args, spec.args_type)
        for wire, sent in TOOL_ONE_CALL.items():
            got = getattr(args, names[wire])
            if wire in ("datetime", "when"):
                assert got == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), wire
            elif wire in ("date", "day"):
                assert got == date(2024, 1, 2), wire
            elif wire == "item":
                assert (got.key, got.items) == ("k", [1, 2])
            elif wire == "items":
                assert [element.item for element in got] == [1, 2]
            else:
                assert strict(got) == strict(sent), wire


def test_every_hostile_name_is_reported_by_its_wire_name(hostile: ModuleType) -> None:
    call = {
        "class": "k",
        "str": "s",
        "from": "7",
        "arguments": "3",
        "2fa": "yes",
        "größe": 1.0,
        "Content-Type": 5,
        "v": 101,
        "src": "",
        "item": {"key": "k", "items": ["1"]},
        "match": "CASE",
    }
    request = hostile.parse(TOOL_ONE, call)
    assert set(request.warnings) == {
        "string_literal_converted_to_integer:from",
        "string_literal_converted_to_integer:arguments",
        "string_literal_converted_to_boolean:2fa",
        "number_coerced_to_integer:größe",
        "non_string_literal_retained:Content-Type",
        "string_literal_converted_to_integer:item.items[0]",
        "enum_case_normalized:match",
    }
    assert set(request.errors) == {"out_of_range:v", "length_out_of_range:src"}
    assert request.arguments is None
    assert (
        request.values["from"] == 7
        and request.values["arguments"] == 3
        and request.values["match"] == "case"
    )


def test_required_hostile_names(hostile: ModuleType) -> None:
    request = hostile.parse(TOOL_ONE, "{}")
    assert set(request.errors) == {"missing_required:class", "missing_required:str"}
    request = hostile.parse(TOOL_ONE, {"class": None, "str": "null"})
    # `str` is a plain string: the text "null" is a value; `class` given null is missing.
    assert request.errors == ("missing_required:class",)
    assert request.values["str"] == "null"


def test_defaults_are_filled_with_hostile_text(hostile: ModuleType, data: dict[str, Any]) -> None:
    one = tool_data(data, TOOL_ONE)["parameters"]["properties"]
    request = hostile.parse(TOOL_ONE, {"class": "k", "str": "s"})
    assert request.errors == () and request.warnings == ()
    for wire in ("int", "float", "bool", "dataclasses", "lambda", "warnings", "tags"):
        assert strict(request.values[wire]) == strict(one[wire]["default"]), wire
    names = _py_names(hostile.TOOLS[TOOL_ONE].args_type)
    assert request.arguments is not None
    assert getattr(request.arguments, names["tags"]) == ["'''", "\\", '"""']
    # A default list is never shared between calls.
    again = hostile.parse(TOOL_ONE, {"class": "k", "str": "s"})
    assert again.arguments is not None
    assert getattr(again.arguments, names["tags"]) is not getattr(request.arguments, names["tags"])
    # The dataclass defaults, for callers who build arguments by hand, are the catalog's too.
    built = hostile.TOOLS[TOOL_ONE].args_type(**{names["class"]: "k", names["str"]: "s"})
    assert getattr(built, names["tags"]) == ["'''", "\\", '"""']
    assert getattr(built, names["str"]) == "s"
    assert getattr(built, names["dataclasses"]) == 1

    two = tool_data(data, TOOL_TWO)["parameters"]["properties"]
    request = hostile.parse(TOOL_TWO, {"outer": {"it's": 1}})
    assert request.errors == () and request.warnings == ()
    assert request.values["choice"] == two["choice"]["default"] == "'''"
    assert request.values["note"] == two["note"]["default"]
    assert request.values["config"] == two["config"]["default"]
    assert request.values["outer"] == {"it's": 1, "a.b-c d": 7}
    assert request.arguments is not None
    assert request.arguments.note == two["note"]["default"]
    assert request.arguments.config == two["config"]["default"]


OUTER_CALL: dict[str, object] = {
    "\"\"\"; __import__('builtins').__dict__.__setitem__('HOSTILE_PWNED', 'name') #": "n",
    "it's": 1,
    "back\\slash\\": "b",
    "line\nbreak\r\u2028\u2029": True,
    "tab\there": 0.5,
    "{path}": "p",
    "{{ x }}": "j",
    "{% raw %}": "r",
    "${x}": "s",
    "# comment": "c",
    "a.b-c d": 8,
    "\x00": "nul",
    "\u2028": "ls",
    "%s %(x)s {0}": "fmt",
    "shared": {"\"\"\"; __import__('os').system('x') #": "x"},
}


def test_hostile_property_names_nested(hostile: ModuleType) -> None:
    call = {
        "outer": OUTER_CALL,
        "choice": "\x00",
        "mixed": True,
        "note": "n",
        "pattern": "'''\\a\"\"\"",
        "config": {"'": '"'},
    }
    request = hostile.parse(TOOL_TWO, json.dumps(call))
    assert request.errors == () and request.warnings == (), (request.errors, request.warnings)
    assert request.values == call
    args = request.arguments
    assert args is not None
    outer = args.outer
    plain = sorted(
        repr(getattr(outer, f.name)) for f in dataclasses.fields(outer) if f.name != "shared"
    )
    assert plain == sorted(repr(v) for k, v in OUTER_CALL.items() if k != "shared")
    assert (
        outer.brace_path,
        outer.jinja_x,
        outer.jinja_raw,
        outer.nul,
        outer.line_separator,
        outer.format_directives,
    ) == ("p", "j", "r", "nul", "ls", "fmt")
    assert [getattr(outer.shared, f.name) for f in dataclasses.fields(outer.shared)] == ["x"]
    assert MARK not in builtins.__dict__


def test_hostile_names_in_codes_keep_their_wire_form(hostile: ModuleType) -> None:
    call = {
        "outer": {
            "it's": "2",
            "tab\there": "0.5",
            "{path}": 1,
            "\x00": False,
            "shared": {"\"\"\"; __import__('os').system('x') #": 3, "extra\n": 1},
        }
    }
    request = hostile.parse(TOOL_TWO, call)
    assert request.errors == ()
    assert set(request.warnings) == {
        "string_literal_converted_to_integer:outer.it's",
        "string_literal_converted_to_number:outer.tab\there",
        "non_string_literal_retained:outer.{path}",
        "non_string_literal_retained:outer.\x00",
        "non_string_literal_retained:outer.shared.\"\"\"; __import__('os').system('x') #",
        "unknown_parameter:outer.shared.extra\n",
    }
    request = hostile.parse(TOOL_TWO, {"outer": {}})
    assert request.errors == ("missing_required:outer.it's",)


@pytest.mark.parametrize(
    "value",
    [
        '"',
        "'",
        '"""',
        "'''",
        "back\\",
        "\\",
        "new\nline",
        "cr\rlf",
        "\u2028",
        "\u2029",
        "\x00",
        "\t",
        "{{ x }}",
        "{% raw %}",
        "${x}",
        "# c",
        "__import__('os').system('x')",
        "Größe",
    ],
)
def test_hostile_enum_values_round_trip(hostile: ModuleType, value: str) -> None:
    request = hostile.parse(TOOL_TWO, {"outer": {"it's": 1}, "choice": value})
    assert request.errors == () and request.warnings == ()
    assert request.values["choice"] == value
    assert request.arguments is not None and request.arguments.choice == value


def test_hostile_enum_case_and_pattern(hostile: ModuleType) -> None:
    request = hostile.parse(TOOL_TWO, {"outer": {"it's": 1}, "choice": "GRÖSSE"})
    assert request.values["choice"] == "Größe" and request.warnings == (
        "enum_case_normalized:choice",
    )
    request = hostile.parse(TOOL_TWO, {"outer": {"it's": 1}, "choice": "nope"})
    assert request.errors == ("enum_out_of_range:choice",)
    request = hostile.parse(TOOL_TWO, {"outer": {"it's": 1}, "pattern": "ABC"})
    assert request.errors == ("pattern_mismatch:pattern",)
    request = hostile.parse(TOOL_ONE, {"class": "k", "str": "s", "re": "a'b"})
    assert request.errors == ("pattern_mismatch:re",)
    for sent, kept in ((1, 1), ("1", "1"), (True, True), ("true", "true"), (2.5, 2.5)):
        request = hostile.parse(TOOL_TWO, {"outer": {"it's": 1}, "mixed": sent})
        assert request.errors == () and request.warnings == (), sent
        assert strict(request.values["mixed"]) == strict(kept)


def test_tools_named_like_keywords_and_modules(hostile: ModuleType) -> None:
    request = hostile.parse("import", {"lambda": "x"})
    assert request.ok and request.values == {"lambda": "x"}
    assert [f.name for f in dataclasses.fields(hostile.TOOLS["import"].args_type)] == ["lambda_"]
    request = hostile.parse("_runtime", '{"None": "a", "True": "b"}')
    assert request.ok and request.values == {"None": "a", "True": "b"}
    request = hostile.parse("ns:tool_3", {"x": "\\"})
    assert request.ok and request.arguments is not None and request.arguments.x == "\\"


# ---------------------------------------------------------------------------------------------
# Type checking and linting


@pytest.fixture(scope="module")
def written(result: BuildResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile_build")
    for path, text in result.files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return out


def test_generated_hostile_package_passes_mypy_strict(written: Path, mypy: Mypy) -> None:
    run = mypy("hostile", cwd=written)
    assert run.returncode == 0, run.stdout + run.stderr


def test_generated_hostile_package_passes_ruff(written: Path) -> None:
    run = subprocess.run(
        [
            str(BIN / "ruff"),
            "check",
            "--isolated",
            "--no-cache",
            "--target-version",
            "py311",
            "--output-format",
            "concise",
            "hostile",
        ],
        check=False,
        cwd=written,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


# ---------------------------------------------------------------------------------------------
# Names: collisions, Python names from x-python-name, determinism


def test_python_name_collisions_are_told_apart(tmp_path: Path) -> None:
    # A name with no ASCII spelling falls back to `field`, which the other parameter already is.
    source = tmp_path / "collide.yaml"
    source.write_text(
        "name: collide\ntools:\n  - name: t\n    description: d\n    parameters:\n      type: object\n"
        '      properties:\n        field: {type: string}\n        "名前": {type: string}\n',
        encoding="utf-8",
    )
    result = build([source], tmp_path)
    # (Beside the payloads' own warnings about the name, for Gemini's legacy form.)
    assert [str(w) for w in result.warnings if "Python name" in w.message] == [
        (
            "collide.yaml:9: warning CG106: tools[0].parameters.properties.名前: parameter '名前' becomes "
            "Python name 'field_2', since parameter 'field' has 'field' (set x-python-name on either "
            "to choose)"
        )
    ]
    package = build_package(source, tmp_path / "out")
    request = package.parse("t", {"field": "a", "名前": "b"})
    assert (request.arguments.field, request.arguments.field_2) == ("a", "b")


@pytest.mark.parametrize(
    ("where", "python_name"),
    [
        ("property", "class"),
        ("property", "lambda"),
        ("property", "match"),
        ("property", "__slots__"),
        ("property", "__class__"),
        ("tool", "import"),
        ("tool", "class"),
    ],
)
def test_x_python_name_is_rejected_or_works(
    tmp_path: Path, catalog_from_yaml: Any, where: str, python_name: str
) -> None:
    """An x-python-name that is a keyword or a special name is a catalog error, ignored with a
    warning, or generated code that works."""
    tool_name = f"\n    x-python-name: {python_name}" if where == "tool" else ""
    prop_name = f"\n          x-python-name: {python_name}" if where == "property" else ""
    text = f"""\
name: pyname
tools:
  - name: t{tool_name}
    description: d
    parameters:
      type: object
      properties:
        p:
          type: string{prop_name}
"""
    source = tmp_path / "pyname.yaml"
    source.write_text(text, encoding="utf-8")
    try:
        build([source])
    except CatalogError as exc:
        assert any(python_name in str(d) for d in exc.diagnostics)
        return
    package = catalog_from_yaml(text)
    request = package.parse("t", {"p": "v"})
    assert request.ok and request.values == {"p": "v"}
    assert request.arguments is not None


def test_python_names_do_not_depend_on_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """`type` is a soft keyword from Python 3.12 on: the output must be the same on every version."""
    ours = build([HOSTILE]).files
    other = {"_", "case", "match", "type"} ^ set(
        keyword.softkwlist
    )  # the list of the other versions
    softkw = set(keyword.softkwlist) | other
    monkeypatch.setattr(keyword, "softkwlist", sorted(softkw))
    monkeypatch.setattr(keyword, "issoftkeyword", frozenset(softkw).__contains__)
    theirs = build([HOSTILE]).files
    changed = [path for path in ours if ours[path] != theirs.get(path)]
    assert not changed, f"output depends on the interpreter's soft keywords: {changed}"


def test_source_file_name_cannot_inject_code(tmp_path: Path) -> None:
    """The header names the source file; a file name is text too."""
    evil = tmp_path / f"x\n{MARK} = 1\n#.yaml"
    evil.write_text(
        "name: evil\ntools:\n  - name: t\n    description: d\n    parameters: {type: object}\n",
        encoding="utf-8",
    )
    files = build([evil]).files
    for path, text in files.items():
        if not path.endswith(".py"):
            continue
        tree = ast.parse(text)
        assigned = {
            t.id
            for n in tree.body
            if isinstance(n, ast.Assign)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        assert MARK not in assigned, f"{path}: the file name became code:\n{text[:300]}"
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                assert token.string != MARK, path


@pytest.mark.parametrize(
    ("first", "second"),
    [(("foo", None), ("bar", "Foo")), (("one", "foo_bar"), ("two", "fooBar"))],
    ids=["case", "camel"],
)
def test_tools_whose_python_names_collide(
    tmp_path: Path,
    catalog_from_yaml: Any,
    first: tuple[str, str | None],
    second: tuple[str, str | None],
) -> None:
    """Two tools whose generated names (module, class, import alias) coincide: an error, or two working tools."""

    def tool(name: str, python_name: str | None, parameter: str) -> str:
        extra = f"\n    x-python-name: {python_name}" if python_name else ""
        return (
            f"  - name: {name}{extra}\n    description: d\n    parameters:\n      type: object\n"
            f"      properties:\n        {parameter}: {{type: integer}}\n      additionalProperties: false\n"
        )

    text = "name: clash\ntools:\n" + tool(*first, "a") + tool(*second, "b")
    source = tmp_path / "clash.yaml"
    source.write_text(text, encoding="utf-8")
    try:
        files = build([source]).files
    except CatalogError:
        return
    lowered = [path.lower() for path in files]
    assert len(set(lowered)) == len(lowered), f"files differ only in case: {sorted(files)}"
    package = catalog_from_yaml(text)
    for name, parameter in ((first[0], "a"), (second[0], "b")):
        request = package.parse(name, {parameter: "1"})
        assert request.ok and request.warnings == (
            f"string_literal_converted_to_integer:{parameter}",
        ), (name, request)
        spec = package.TOOLS[name]
        assert getattr(package, spec.args_type.__name__) is spec.args_type, (
            f"{spec.args_type.__name__} is another tool's class"
        )


def test_names_like_the_ones_generated_code_imports(tmp_path: Path) -> None:
    """Parameters named like imported names, and a tool named like a runtime function."""
    source = tmp_path / "names.yaml"
    names = ["re", "isfinite", "Literal", "to_uri", "run_parser", "key_text", "Final", "dataclass"]
    properties = "".join(f"        {n}: {{type: string, description: x}}\n" for n in names)
    source.write_text(
        "name: names\ntools:\n"
        "  - name: unknown_tool\n    description: d\n    parameters:\n      type: object\n"
        "      properties:\n"
        + properties.replace("        ", "        ", 1)
        + "  - name: other\n    description: d\n    parameters: {type: object, properties: {p: {type: string, pattern: '^a', description: x}}}\n",
        encoding="utf-8",
    )
    files = build([source], tmp_path).files
    for path, text in files.items():
        (tmp_path / "out" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "out" / path).write_text(text, encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    ruff = subprocess.run(
        [
            str(bin_dir / "ruff"),
            "check",
            "--isolated",
            "--no-cache",
            "--target-version",
            "py311",
            "names",
        ],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
        check=False,
    )
    assert ruff.returncode == 0, ruff.stdout
    sys.path.insert(0, str(tmp_path / "out"))
    try:
        import names  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path / "out"))
    request = names.parse("unknown_tool", {"re": "x", "run_parser": "y"})
    assert request.ok and request.values == {"re": "x", "run_parser": "y"}
    request = names.parse("no-such-tool", "{}")
    assert request.warnings == ("tool_definition_missing",)

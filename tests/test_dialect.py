"""Issue 34 item 2: one reader of the loose dialect (`codegen/catalog/dialect.py`), so that a tool
list in the benchmarks' dialect builds as it is and imports with the same findings.

`tests/dialect/bfcl_dialect.json`: its first two entries are BFCL's own, as the Berkeley Function
Calling Leaderboard publishes them (ShishirPatil/gorilla, berkeley-function-call-leaderboard/
bfcl_eval/data/multi_turn_func_doc/math_api.json: `add` and `round_number`, `response` and all);
the others are written in the same dialect for the forms those two lack (`tuple`, `any`, a
capitalised `String`, `int`, an `optional: true` flag, a tool with no parameters, a tool with no
description).
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, build_package, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.build import build
from codegen.catalog.dialect import (
    JSON_TYPES,
    TYPE_NAMES,
    annotation_schema,
    enum_schema,
    lift_cardinality,
    read_type,
)
from codegen.diagnostics import format_path, quoted
from codegen.importers import import_tools
from codegen.importers.dialect import Notes
from codegen.importers.python import _schema as annotation_of_function

FIXTURE = ROOT / "tests" / "dialect" / "bfcl_dialect.json"
# The codes of what the loose dialect's reader says: read (CG102), ignored (CG103), did you mean
# (CG104), no description (CG113), no parameters (CG114).
DIALECT_CODES = {"CG102", "CG103", "CG104", "CG113", "CG114"}


def _catalog_file(tools: list[Any], folder: Path, name: str = "bfcl_dialect") -> Path:
    """The tool list as a catalog: the list itself under `tools`, nothing else changed."""
    source = folder / f"{name}.json"
    source.write_text(json.dumps({"name": name, "tools": tools}, indent=1), encoding="utf-8")
    return source


def _build_findings(source: Path) -> list[tuple[str, str]]:
    """(code, path) of each of the dialect's findings of a build."""
    found = build([source]).warnings
    return sorted((d.code, d.path) for d in found if d.code in DIALECT_CODES)


def _import_findings(tools: list[Any]) -> list[tuple[str, str]]:
    _, _, notes = import_tools(tools, "loose", "bfcl_dialect")
    return sorted((note.code, format_path(note.path)) for note in notes)


EXPECTED = [
    ("CG102", "tools[0].parameters.properties.a.type"),
    ("CG102", "tools[0].parameters.properties.b.type"),
    ("CG102", "tools[0].parameters.type"),
    ("CG102", "tools[0].response"),
    ("CG102", "tools[0].returns.properties.result.type"),
    ("CG102", "tools[0].returns.type"),
    ("CG102", "tools[1].parameters.properties.number.type"),
    ("CG102", "tools[1].parameters.type"),
    ("CG102", "tools[1].response"),
    ("CG102", "tools[1].returns.properties.result.type"),
    ("CG102", "tools[1].returns.type"),
    ("CG102", "tools[2].parameters.properties.color.optional"),
    ("CG102", "tools[2].parameters.properties.color.type"),
    ("CG102", "tools[2].parameters.properties.label.type"),
    ("CG102", "tools[2].parameters.properties.point.items.type"),
    ("CG102", "tools[2].parameters.properties.point.type"),
    ("CG102", "tools[2].parameters.type"),
    ("CG102", "tools[4].parameters.properties.start.type"),
    ("CG102", "tools[4].parameters.type"),
    ("CG113", "tools[4].description"),
    ("CG114", "tools[3].parameters"),
]


def test_the_benchmark_dialect_builds_as_it_is_with_a_finding_per_form(tmp_path: Path) -> None:
    """Issue 34 item 2: root `dict`, `float`, `tuple`, `any`, `String`, `int`, `optional: true`,
    no parameters, no description: the build reads each by its plain meaning, says so at its
    place, and the package parses a call."""
    tools = json.loads(FIXTURE.read_text(encoding="utf-8"))
    source = _catalog_file(tools, tmp_path)
    assert _build_findings(source) == EXPECTED
    messages = {(d.path, d.message) for d in build([source]).warnings}
    assert ("tools[0].parameters.type", "type 'dict' read as 'object'") in messages
    assert ("tools[2].parameters.properties.label.type",
            "type 'any' means any value: read with no type") in messages  # fmt: skip
    no_parameters = (
        "no `parameters`: read as a tool that takes none (write `parameters: {type: object}`)"
    )
    assert ("tools[3].parameters", no_parameters) in messages

    package = build_package(source, tmp_path / "out")
    added = package.parse("add", '{"a": 1.5, "b": 2}')
    assert (added.errors, added.arguments.a, added.arguments.b) == ((), 1.5, 2)
    plotted = package.parse("plot_point", '{"point": [1, 2.5], "label": {"any": "thing"}}')
    assert plotted.errors == ()
    assert (plotted.arguments.point, plotted.arguments.label) == ([1, 2.5], {"any": "thing"})
    assert plotted.arguments.color is None  # optional: true
    # BFCL's `response` types the result: a number, as `float` says.
    assert package.TOOLS["add"].schema["type"] == "object"
    assert package.AddResult(result=3.5).result == 3.5
    timed = package.parse("get_time", "{}")
    assert (timed.errors, timed.warnings) == ((), ())
    extra = package.parse("get_time", '{"at": 1}')
    assert (extra.warnings, extra.errors) == (("unknown_parameter:at",), ())
    assert package.TOOLS["reset_counter"].description == ""
    wrong = package.parse("add", '{"a": "x", "b": 2}')
    assert wrong.arguments is None and wrong.errors


def test_import_of_the_same_list_gives_the_same_findings(tmp_path: Path) -> None:
    """Issue 34 item 2: `codegen import` of the list says what the build says (codes, paths),
    and what it writes builds with no dialect finding left."""
    tools = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert _import_findings(tools) == EXPECTED
    done = run_cli("import", str(FIXTURE), "-o", str(tmp_path / "imported.yaml"))
    assert done.returncode == 0, done.stderr
    assert "warning: tools[0].parameters.type: type 'dict' read as 'object'" in done.stderr
    # Only the missing description stays to be written.
    assert _build_findings(tmp_path / "imported.yaml") == [("CG113", "tools[4].description")]


def test_strict_refuses_what_the_dialect_reader_read(tmp_path: Path) -> None:
    """Issue 34 item 2: `--strict` makes the dialect's warnings errors."""
    tools = json.loads(FIXTURE.read_text(encoding="utf-8"))
    _catalog_file(tools, tmp_path)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    done = run_cli("build", "bfcl_dialect.json", "--out", "out", "--strict", cwd=tmp_path)
    assert done.returncode == 1
    assert ": error CG114: tools[3].parameters: no `parameters`: read as a tool" in done.stderr
    assert done.stderr.endswith("codegen: 21 errors in 1 file; nothing was written\n")
    assert run_cli("build", "bfcl_dialect.json", "--out", "out", cwd=tmp_path).returncode == 0


# Every spelling the reader knows, in the case written and in others, beside JSON's own names.
SPELLINGS = sorted(
    {*TYPE_NAMES, *(n.upper() for n in TYPE_NAMES), *(n.title() for n in TYPE_NAMES)}
)


def _agree(type_value: Any, tmp_path: Path) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """Build and import of one property of `type_value` agree: the same findings, and the
    built schema is the imported one."""
    tools = [
        {
            "name": "probe",
            "description": "A tool with one property of the type under test.",
            "parameters": {"type": "object", "properties": {"value": {"type": type_value}}},
        }
    ]
    source = _catalog_file(tools, tmp_path, "probe")
    found = _build_findings(source)
    assert found == _import_findings(tools)
    catalog, _, _ = import_tools(tools, "loose", "probe")
    imported = catalog["tools"][0]["parameters"]["properties"]["value"]
    return found, imported


@pytest.mark.parametrize("name", SPELLINGS)
def test_every_loose_spelling_is_read_alike_by_build_and_import(name: str, tmp_path: Path) -> None:
    """Issue 34 item 2, generated cases: each type name of the table, in each case, is read by
    build and import to the same JSON Schema with the same finding."""
    found, imported = _agree(name, tmp_path)
    meant = TYPE_NAMES[name.lower()]
    assert imported == ({"type": meant} if meant is not None else {})
    where = "tools[0].parameters.properties.value.type"
    assert found == ([] if name == meant else [("CG102", where)])


@pytest.mark.parametrize(
    ("written", "meant"),
    [("integr", "integer"), ("strng", "string"), ("flaot", "float"), ("Boolen", "boolean"),
     ("numbr", "number"), ("arrray", "array")],
)  # fmt: skip
def test_an_unknown_type_name_near_a_known_one_says_did_you_mean(
    written: str, meant: str, tmp_path: Path
) -> None:
    """Issue 34 item 2: `integr` → "did you mean `integer`?", the type left out (any value) in
    build and import alike; a name near nothing is ignored (CG103)."""
    found, imported = _agree(written, tmp_path)
    assert found == [("CG104", "tools[0].parameters.properties.value.type")]
    assert imported == {}
    _, (finding,) = read_type({"type": written}, ())
    assert f"did you mean `{meant}`" in finding.message
    found, imported = _agree("quaternion", tmp_path)
    assert (found, imported) == ([("CG103", "tools[0].parameters.properties.value.type")], {})


@pytest.mark.parametrize("item", ["number", "int", "String", "boolean"])
def test_a_typescript_array_is_an_array_of_its_item(item: str, tmp_path: Path) -> None:
    """Issue 34 item 2: TypeScript's `number[]` is an array of numbers, in build and import."""
    _, imported = _agree(f"{item}[]", tmp_path)
    assert imported == {"type": "array", "items": {"type": TYPE_NAMES[item.lower()]}}


@pytest.mark.parametrize(
    ("written", "items", "codes"),
    [
        ("Array<string>", {"type": "string"}, ["CG102"]),
        ("Array<Array<number>>", {"type": "array", "items": {"type": "number"}}, ["CG102"] * 2),
        ("Array<int[]>", {"type": "array", "items": {"type": "integer"}}, ["CG102"] * 3),
    ],
)
def test_a_typescript_generic_array_is_an_array_of_its_item(
    written: str, items: dict[str, Any], codes: list[str], tmp_path: Path
) -> None:
    """TypeScript's `Array<T>` is `T[]` (a leftover of issue 34 item 2: it was an unknown type
    name, CG103, in build and import alike), nested too, in build and import alike."""
    found, imported = _agree(written, tmp_path)
    assert imported == {"type": "array", "items": items}
    assert [code for code, _ in found] == codes


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("List[int]", {"type": "array", "items": {"type": "integer"}}),
        ("Literal['read', 'write']", {"type": "string", "enum": ["read", "write"]}),
        ("Optional[Literal[1, -2]]", {"type": ["integer", "null"], "enum": [1, -2]}),
        ('List[Literal["a, b", "]"]]',
         {"type": "array", "items": {"type": "string", "enum": ["a, b", "]"]}}),
        ("Literal[True, None, 1.5]", {"enum": [True, None, 1.5]}),
        ("str | None", {"type": ["string", "null"]}),
        ("string | null", {"type": ["string", "null"]}),
        ("int|float", {"anyOf": [{"type": "integer"}, {"type": "number"}]}),
        ("Dict[str, int | List[str]]",
         {"type": "object", "additionalProperties":
          {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}]}}),
        ("Dict[str, float]", {"type": "object", "additionalProperties": {"type": "number"}}),
        ("Optional[str]", {"type": ["string", "null"]}),
        ("list[Dict[str, Any]]", {"type": "array", "items": {"type": "object"}}),
        ("Tuple[int, ...]", {"type": "array", "items": {"type": "integer"}}),
        ("Union[int, List[str], None]",
         {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}},
                    {"type": "null"}]}),
        ("Optional[Any]", {"anyOf": [{}, {"type": "null"}]}),
    ],
)  # fmt: skip
def test_a_python_annotation_is_read_alike_by_build_and_import(
    written: str, meant: dict[str, Any], tmp_path: Path
) -> None:
    """Issue 34 item 2: `List[int]`, as xLAM's and other datasets write a type, was read by
    `codegen import` alone (the build said "no type name"); now build and import read it as one
    reader does, with one finding."""
    found, imported = _agree(written, tmp_path)
    assert imported == meant
    assert found == [("CG102", "tools[0].parameters.properties.value.type")]
    _, (finding,) = read_type({"type": written}, ())
    assert finding.message == f"type {quoted(written)} read as {json.dumps(meant)}"


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ('"read" | "write"', {"type": "string", "enum": ["read", "write"]}),
        ("'read' | 'write' | null", {"type": ["string", "null"], "enum": ["read", "write"]}),
        ("1 | 2 | 3", {"type": "integer", "enum": [1, 2, 3]}),
        ("'a, b' | \"it's\" | 'a, b'", {"type": "string", "enum": ["a, b", "it's"]}),
        ("'auto' | number", {"anyOf": [{"type": "string", "enum": ["auto"]}, {"type": "number"}]}),
        ("number | 'auto' | 'none'",
         {"anyOf": [{"type": "number"}, {"type": "string", "enum": ["auto", "none"]}]}),
        ("\"\\ud83d\\ude00\" | \"it\\'s\" | 'say \"hi\"'",
         {"type": "string", "enum": ["\U0001f600", "it's", 'say "hi"']}),
        ("'only'", {"type": "string", "enum": ["only"]}),
    ],
)  # fmt: skip
def test_a_typescript_literal_type_is_an_enum_in_build_and_import(
    written: str, meant: dict[str, Any], tmp_path: Path
) -> None:
    """TypeScript's literal types (`"read" | "write"`, `1 | 2 | 3`), as tool lists written from
    TypeScript spell an enum, are one enum of their values where the first is written, with
    `null` and other types beside it, in build and import alike (a leftover of issue 34 item 2:
    they were an unknown type name, CG103, and the property took any value). Their escapes are
    JSON's, as TypeScript reads them: an escaped surrogate pair is one character."""
    found, imported = _agree(written, tmp_path)
    assert imported == meant
    assert found == [("CG102", "tools[0].parameters.properties.value.type")]


@pytest.mark.parametrize("written", ['"\\ud83d" | "b"', 'Literal["\\ud83d\\ude00"]'])
def test_a_lone_surrogate_in_a_spelled_type_is_no_value_and_no_crash(
    written: str, tmp_path: Path
) -> None:
    """A literal's escape that gives a lone surrogate (TypeScript's half a pair; Python's two
    halves, which Python does not join) is no value: the property takes any value with CG103 in
    build and import alike. The build stopped with "a bug in codegen" when it wrote it."""
    found, imported = _agree(written, tmp_path)
    assert (found, imported) == ([("CG103", "tools[0].parameters.properties.value.type")], {})


_LITERAL_VALUES = st.lists(
    st.text(max_size=6) | st.integers(-99, 99) | st.floats(allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=5,
)


@given(values=_LITERAL_VALUES, null=st.booleans())
def test_any_union_of_literal_types_is_the_enum_of_its_values(
    values: list[Any], null: bool
) -> None:
    """Generated cases of the TypeScript literal types above: any texts (quoted as JSON quotes
    them: `|`, commas and quotes inside) and numbers, each once (1 and 1.0 are two values, as
    `Literal` keeps them), in the order written, and `null` beside them the enum's type with
    null."""
    written = " | ".join([json.dumps(value) for value in values] + (["null"] if null else []))
    if all(isinstance(value, str) and value.strip().lower() in TYPE_NAMES for value in values):
        assert annotation_schema(written) is None  # `"string" | "null"`: quoted once too often
        return
    enum = enum_schema(list({(type(value), value): value for value in values}.values()))
    assert annotation_schema(written) == (_nullable(enum) if null else enum)


@pytest.mark.parametrize("values", [["int"], ["String", "NULL"], [" integer "]])
def test_a_union_of_quoted_type_names_alone_is_no_enum(values: list[str]) -> None:
    """The rule the generated cases above keep apart: only type names, quoted, are a slip."""
    written = " | ".join(json.dumps(value) for value in values)
    assert annotation_schema(written) is None
    assert annotation_schema(f"{written} | 'auto'") == {
        "type": "string",
        "enum": [*values, "auto"],
    }


def _nullable(enum: dict[str, Any]) -> dict[str, Any]:
    if "type" in enum:
        return {**enum, "type": [enum["type"], "null"]}
    return {"anyOf": [enum, {"type": "null"}]}


def test_text_that_is_no_annotation_is_an_unknown_type_name() -> None:
    """Issue 34 item 2: brackets around nothing a type means are not read as an annotation."""
    for written in (
        "List[ ]",
        "Frob[int]",
        "Optional[int, str]",
        "Dict[str, Frob]",
        "[int]",
        "Literal[ ]",
        "Literal[__import__('os').system('x')]",
        "Literal[1e999]",
        "Literal[-'a']",
        "Literal[b'bytes']",
        "Literal[x]",
        "x | None",
        "int |",
        "| str",
        "'a' | Frob",
        "true | false",
        '"a", "b"',
        "'a' |",
        "'unclosed",
        # Quoted text inside a generic is Python's forward reference, no TypeScript literal type.
        'List["int"]',
        "Optional['str']",
        "List[3]",
        # A type name quoted twice is a slip (did you mean, CG104), no enum of its name.
        "'string'",
        "'string' | 'null'",
        # Python's spellings and escapes TypeScript reads otherwise, and text no file could hold.
        '"a" "b"',
        "u'a'",
        "'\\q'",
        '"\\x41"',
        "('a')",
        "0x10 | 2",
        '"\\ud83d" | "b"',
        'Literal["\\ud83d\\ude00"]',
    ):
        assert annotation_schema(written) is None, written
        _, findings = read_type({"type": written}, ())
        assert [f.code for f in findings] in (["CG103"], ["CG104"]), written
    deep = "List[" * 200 + "int" + "]" * 200
    assert annotation_schema(deep) is None


_LEAVES = st.sampled_from(
    [
        str, int, float, bool, type(None), Any, dict, list,
        typing.Literal["read", "write"], typing.Literal[1, -2], typing.Literal[True, None],  # noqa: PYI061
        typing.Literal["a, b", "]", 'quote "this"'],
    ]
)  # fmt: skip


def _hints(leaf: Any) -> Any:
    # typing's own spellings, as the datasets' texts name them (`List`, `Optional`).
    return st.one_of(
        leaf.map(lambda h: typing.List[h]),  # noqa: UP006
        leaf.map(lambda h: typing.Dict[str, h]),  # noqa: UP006
        leaf.map(lambda h: typing.Optional[h]),  # noqa: UP045
        leaf.map(lambda h: typing.Set[h]),  # noqa: UP006
        leaf.map(lambda h: typing.Tuple[h, ...]),  # noqa: UP006
        st.tuples(leaf, leaf).map(lambda p: typing.Tuple[p[0], p[1]]),  # noqa: UP006
        st.tuples(leaf, leaf).map(lambda p: typing.Union[p[0], p[1]]),  # noqa: UP007
        st.tuples(leaf, leaf).map(lambda p: _pep604(p[0], p[1])),
    )


def _pep604(first: Any, second: Any) -> Any:
    """`first | second`, as Python 3.10 writes a union (`typing.Union` where `|` is not defined
    on one of them, as on `Any`)."""
    try:
        return first | second
    except TypeError:
        return typing.Union[first, second]  # noqa: UP007


def _text(hint: Any) -> str:
    """`hint` written as a dataset writes it (`List[int]`)."""
    names = {str: "str", int: "int", float: "float", bool: "bool", type(None): "None",
             Any: "Any", dict: "dict", list: "list"}  # fmt: skip
    if hint in names:
        return names[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if origin is typing.Union:
        return f"Union[{', '.join(_text(a) for a in args)}]"
    if origin is types.UnionType:
        return " | ".join(_text(a) for a in args)
    outer = {list: "List", dict: "Dict", set: "Set", tuple: "Tuple"}[origin]
    return f"{outer}[{', '.join('...' if a is Ellipsis else _text(a) for a in args)}]"


def _said_once(schema: Any) -> Any:
    """`schema` with each union's members once: `typing` keeps `dict` and `Dict[str, Any]`
    apart, which read alike."""
    if isinstance(schema, dict):
        out = {k: _said_once(v) for k, v in schema.items()}
        if "anyOf" in out:
            out["anyOf"] = list({json.dumps(m, sort_keys=True): m for m in out["anyOf"]}.values())
            if len(out["anyOf"]) == 1:
                return out["anyOf"][0]
        return out
    return schema


@settings(max_examples=150, deadline=None)
@given(st.recursive(_LEAVES, _hints, max_leaves=6))
def test_an_annotation_as_text_reads_as_the_annotation_itself(hint: Any) -> None:
    """Issue 34 item 2: the dialect reader's reading of `List[Optional[int]]` as text is what
    `codegen import` makes of the real annotation of a Python function, whatever the nesting."""
    expected = _said_once(annotation_of_function(hint, (), Notes()))
    assert annotation_schema(_text(hint)) == expected


def test_a_type_list_of_loose_names_is_read_name_by_name(tmp_path: Path) -> None:
    """Issue 34 item 2: `["int", "None"]` is an integer or null."""
    found, imported = _agree(["int", "None"], tmp_path)
    assert imported == {"type": ["integer", "null"]}
    assert found == [("CG102", "tools[0].parameters.properties.value.type")] * 2


def test_a_required_name_near_a_property_says_did_you_mean(tmp_path: Path) -> None:
    """Issue 34 item 2: `required: [idd]` beside a property `id`: "did you mean `id`?"."""
    tools = [
        {
            "name": "fetch",
            "description": "Fetch a record by its id.",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["idd"],
            },
        }
    ]
    source = _catalog_file(tools, tmp_path, "fetch")
    found = [d for d in build([source]).warnings if d.code == "CG104"]
    assert [(d.path, d.message) for d in found] == [
        ("tools[0].parameters.required[0]",
         "'idd' in `required` is no property: did you mean `id`?"),
    ]  # fmt: skip
    assert _build_findings(source) == _import_findings(tools)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.text(max_size=12), st.lists(st.text(max_size=8), max_size=3)))
def test_the_reader_never_raises_and_reads_to_json_types(written: Any) -> None:
    """Issue 34 item 2: any type value at all is read without raising, to JSON's own names."""
    schema, findings = read_type({"type": written}, ())
    kept = schema.get("type")
    if kept is not None and isinstance(written, str) and not written.strip().endswith("[]"):
        assert kept in JSON_TYPES or kept == written
    assert all(f.code in DIALECT_CODES for f in findings)


# Each way the wild writes a property's cardinality beside it: (the property's schema, whether it
# says the property is required). Bare flags, flags as text, and xLAM's `"T, optional"` type.
CARDINALITY_FORMS: list[tuple[dict[str, Any], bool]] = [
    *(({"type": "integer", word: value}, value if word == "required" else not value)
      for word in ("required", "optional") for value in (True, False)),
    *(({"type": "integer", word: text}, meant if word == "required" else not meant)
      for word in ("required", "optional")
      for text, meant in (("True", True), ("false", False), ("yes", True), ("no", False))),
    ({"type": "int, optional"}, False),
    ({"type": "Integer , OPTIONAL"}, False),
    ({"type": "List[int], optional"}, False),
    ({"type": "int, optional", "required": True}, True),  # the flag, read after, says required
]  # fmt: skip
# Whether the object's own `required` list names the property (None: the object has no list).
LISTINGS: list[list[str] | None] = [None, ["value"], ["other"], ["value", "other"]]
CARDINALITY_CASES = [
    (form, says, listed) for form, says in CARDINALITY_FORMS for listed in LISTINGS
]


def _cardinality_tool(index: int, form: dict[str, Any], listed: list[str] | None) -> Any:
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"value": form, "other": {"type": "string"}},
    }
    if listed is not None:
        parameters["required"] = listed
    return {"name": f"probe_{index}", "description": "A probe.", "parameters": parameters}


def _properties_alone_tools() -> list[Any]:
    """xLAM's parameters: a map of properties alone, one of them optional by its type."""
    return [
        {
            "name": "search",
            "description": "Search the web.",
            "parameters": {
                "query": {"type": "str", "description": "What to look for"},
                "limit": {"type": "int, optional", "description": "How many", "default": 5},
                "type": {"type": "str", "description": "A parameter named `type`"},
            },
        }
    ]


@pytest.fixture(scope="module")
def cardinality(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[Any], Any, list[tuple[str, str]], dict[str, Any]]:
    """Every cardinality form × every listing as one tool each, plus xLAM's map of properties:
    the tool list, its built package, the build's findings, and the import's catalog."""
    folder = tmp_path_factory.mktemp("cardinality")
    tools = [
        _cardinality_tool(i, form, listed) for i, (form, _, listed) in enumerate(CARDINALITY_CASES)
    ]
    tools += _properties_alone_tools()
    source = _catalog_file(tools, folder, "cardinality")
    catalog, _, _ = import_tools(tools, "loose", "cardinality")
    return tools, build_package(source, folder / "out"), _build_findings(source), catalog


def test_build_and_import_read_cardinality_alike(
    cardinality: tuple[list[Any], Any, list[tuple[str, str]], dict[str, Any]],
) -> None:
    """Issue 34 item 2: `required: true`, `optional: "True"`, `"type": "int, optional"` beside a
    property and xLAM's map of properties alone give the same findings (codes and paths) in
    `codegen build` and `codegen import` (one reader, `dialect.lift_cardinality`)."""
    tools, _, built, _ = cardinality
    assert built == _import_findings(tools)
    at = f"tools[{len(CARDINALITY_CASES)}].parameters"
    assert ("CG102", at) in built  # the map of properties, read as an object
    assert ("CG102", f"{at}.properties.limit.type") in built  # `int, optional`, then `int`


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(CARDINALITY_CASES)), ids=lambda v: json.dumps(v)
)
def test_each_cardinality_form_means_the_same_in_build_and_import(
    index: int,
    case: tuple[dict[str, Any], bool, list[str] | None],
    cardinality: tuple[list[Any], Any, list[tuple[str, str]], dict[str, Any]],
) -> None:
    """Issue 34 item 2, generated cases: each form read in build and import to one `required`
    list; the built parser takes a call without the property when the form says optional and
    refuses it with `missing_required` when it says required, whatever the object listed."""
    form, says, listed = case
    _, package, built, catalog = cardinality
    name = f"probe_{index}"
    wanted = [n for n in (listed or []) if n != "value"]
    if says:
        wanted.append("value")
    imported = catalog["tools"][index]["parameters"]
    assert sorted(imported.get("required", [])) == sorted(wanted)
    assert sorted(package.TOOLS[name].schema.get("required", [])) == sorted(wanted)
    assert not {"required", "optional"} & set(imported["properties"]["value"])
    without = package.parse(name, {"other": "x"} if "other" in wanted else {})
    assert without.errors == (("missing_required:value",) if says else ())
    sent = [3] if "List" in str(form["type"]) else 3
    assert package.parse(name, {"value": sent, "other": "x"}).errors == ()
    where = f"tools[{index}].parameters.properties.value"
    lifted = {w for w in ("required", "optional") if w in form}
    expected_paths = {f"{where}.{w}" for w in lifted} | (
        {f"{where}.type"} if "optional" in str(form.get("type", "")).lower() else set()
    )
    assert expected_paths <= {path for _, path in built if path.startswith(where)}


def test_a_map_of_properties_alone_builds_as_it_imports(
    cardinality: tuple[list[Any], Any, list[tuple[str, str]], dict[str, Any]],
) -> None:
    """Issue 34 item 2: xLAM's `{"query": {"type": "str"}, "limit": {"type": "int, optional"}}`
    was read by `codegen import` alone (the build found no properties in it); now both read
    it as an object of those properties, `limit` optional, with the same schema."""
    _, package, _, catalog = cardinality
    imported = catalog["tools"][-1]["parameters"]
    assert imported == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "description": "How many", "default": 5},
            "type": {"type": "string", "description": "A parameter named `type`"},
        },
        "required": ["query", "type"],
    }
    assert package.TOOLS["search"].schema["required"] == ["query", "type"]
    refused = package.parse("search", {"type": "news"})
    assert (refused.arguments, refused.errors) == (None, ("missing_required:query",))
    ready = package.parse("search", {"query": "codegen", "type": "news"})
    assert (ready.errors, ready.arguments.query, ready.arguments.limit) == ((), "codegen", 5)


def test_the_lifter_says_each_form_in_one_finding() -> None:
    """Issue 34 item 2: the texts of the one reader (the build printed two findings for a flag
    written as text, the import none)."""
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "int, optional"},
            "b": {"type": "string", "optional": "True"},
            "c": {"type": "string", "required": True},
        },
        "required": ["a"],
    }
    read, findings = lift_cardinality(schema, ("p",))
    assert read == {
        "type": "object",
        "properties": {"a": {"type": "int"}, "b": {"type": "string"}, "c": {"type": "string"}},
        "required": ["c"],
    }
    said = "beside a property is not JSON Schema: read as {} (list the name in the object's `required` to say so)"
    assert [(f.code, format_path(f.path), f.message) for f in findings] == [
        (
            "CG102",
            "p.properties.a.type",
            "type 'int, optional' read as 'int', the property optional",
        ),
        ("CG102", "p.properties.b.optional", "`optional: 'True'` " + said.format("optional")),
        ("CG102", "p.properties.c.required", "`required: true` " + said.format("required")),
    ]
    assert schema["properties"]["a"] == {"type": "int, optional"}  # the input is left as it was
    assert lift_cardinality({"type": "object", "properties": {"x": {}}}, ()) == (
        {"type": "object", "properties": {"x": {}}},
        [],
    )


_WILD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=12),
    st.sampled_from(["True", "no", "int, optional", ", optional", "optional"]),
    st.lists(st.text(max_size=4), max_size=2),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=6),
        st.one_of(
            _WILD_VALUES,
            st.dictionaries(st.sampled_from(["type", "required", "optional"]), _WILD_VALUES),
        ),
        max_size=4,
    ),
    _WILD_VALUES,
)
def test_the_lifter_never_raises_and_lifts_every_flag(properties: Any, listed: Any) -> None:
    """Issue 34 item 2: any properties and any `required` at all are read without raising; no
    property keeps a flag the reader read, and each finding names a place in the schema."""
    schema = {"type": "object", "properties": properties, "required": listed}
    read, findings = lift_cardinality(schema, ())
    for prop in read["properties"].values():
        if isinstance(prop, dict):
            assert not any(isinstance(prop.get(w), bool) for w in ("required", "optional"))
    if findings and isinstance(read.get("required"), list) and isinstance(listed, list):
        assert all(name in properties or name in listed for name in read["required"])
    assert all(f.code == "CG102" for f in findings)


@pytest.mark.parametrize("value", [True, False, "True", "no"])
@pytest.mark.parametrize("word", ["required", "optional"])
def test_a_flag_not_beside_a_property_is_ignored_alike(
    word: str, value: Any, tmp_path: Path
) -> None:
    """Issue 34 item 2: a `required`/`optional` flag where no property is (the parameters
    themselves, an array's `items`, a map's values) is left out with CG103 by one reader
    (`dialect.stray_cardinality`) in build and import alike; the import said nothing and kept
    it, and the build read a flag as text once as a flag (CG102) and then ignored it."""
    tools = [
        {
            "name": "tag",
            "description": "Tag things.",
            "parameters": {
                "type": "object",
                word: value,
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string", word: value}},
                    "labels": {"type": "object", "additionalProperties": {word: value}},
                },
            },
        }
    ]
    source = _catalog_file(tools, tmp_path, "tag")
    at = "tools[0].parameters"
    expected = sorted(
        ("CG103", f"{at}{where}.{word}")
        for where in ("", ".properties.tags.items", ".properties.labels.additionalProperties")
    )
    assert _build_findings(source) == expected
    assert _import_findings(tools) == expected
    catalog, _, _ = import_tools(tools, "loose", "tag")
    assert word not in json.dumps(catalog)
    shown = str(value).lower() if isinstance(value, bool) else f"'{value}'"
    messages = {(d.path, d.message) for d in build([source]).warnings}
    assert (f"{at}.{word}", f"`{word}: {shown}` is not beside a property here: ignored") in messages


def test_a_tool_schema_without_a_type_is_an_object_alike(tmp_path: Path) -> None:
    """Issue 34 item 2: parameters or `returns` with no `type` are read as `type: object` with
    one finding (CG107, `dialect.object_typed`) in build and import alike; the import said it
    with CG102 for the parameters and nothing for `returns`."""
    tools = [
        {
            "name": "lookup",
            "description": "Look a word up.",
            "parameters": {"properties": {"word": {"type": "string"}}},
            "returns": {"properties": {"meaning": {"type": "string"}}},
        }
    ]
    source = _catalog_file(tools, tmp_path, "lookup")
    built = sorted((d.code, d.path) for d in build([source]).warnings if d.code == "CG107")
    _, _, notes = import_tools(tools, "loose", "lookup")
    imported = sorted((n.code, format_path(n.path)) for n in notes)
    expected = [("CG107", "tools[0].parameters"), ("CG107", "tools[0].returns")]
    assert built == imported == expected
    said = "no `type`: read as `type: object` (write it to say so)"
    assert [str(n) for n in notes] == [
        f"tools[0].parameters: the parameters have {said}",
        f"tools[0].returns: the `returns` schema has {said}",
    ]

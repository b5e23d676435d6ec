"""The prompt keeps every fact it gave: each tool's heading and example call, and each parameter
line (name, type, required, enum values, default, bounds, pattern, examples, description; nested
parameters by their indentation, shared ones through `like`) are read back and compared with the
catalog's IR, for every tool of every bundled and fixture catalog, of a corpus catalog and of a
catalog with shared definitions in every place; and a pattern is read back whole whatever it holds
and whatever follows it.

An example a line leaves out must be found where the prompt says it instead: in the parameter's
description after `e.g.`, `for example`, `for instance` or `such as`, or (the first one) as the
value the tool's example call shown in the prompt gives the parameter."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.corpus import catalog as corpus_catalog
from codegen.build import check_catalogs
from codegen.catalog.ir import Catalog
from codegen.catalog.kinds import (
    AnyKind,
    ArrayKind,
    BooleanKind,
    DateKind,
    DateTimeKind,
    EnumKind,
    IntegerKind,
    JsonChoiceKind,
    Kind,
    MapKind,
    NullKind,
    NumberKind,
    ObjectKind,
    StringKind,
    TextFormatKind,
    UnionKind,
)
from codegen.text.prompts import pattern_text, render_prompts

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    *sorted(p for p in (ROOT / "schemas").glob("*_tools.*")),
    *sorted((ROOT / "tests" / "fixtures").glob("*.yaml")),
]
_DECODER = json.JSONDecoder()


# --- What the catalog says, from the IR -----------------------------------------------------


def type_tree(kind: Kind) -> Any:
    """A kind as a comparable tree: ("enum", values) | ("array", item) | ("map", values) |
    ("union", members) | a name; wrapped in ("nullable", ...) when null is allowed."""
    tree = _base_tree(kind)
    if kind.nullable and not isinstance(kind, (NullKind, AnyKind)):
        return ("union", (tree, "null"))
    return tree


def _base_tree(kind: Kind) -> Any:
    if isinstance(kind, (EnumKind, JsonChoiceKind)):
        return ("union", tuple(("value", json.dumps(c)) for c in kind.choices))
    if isinstance(kind, ArrayKind):
        return ("array", type_tree(kind.items) if kind.items else "any")
    if isinstance(kind, MapKind):
        return ("map", type_tree(kind.values)) if kind.values else "object"
    if isinstance(kind, UnionKind):
        members: list[Any] = []
        for m in kind.members:
            t = type_tree(m)
            for part in t[1] if isinstance(t, tuple) and t[0] == "union" else (t,):
                if part not in members:
                    members.append(part)
        return ("union", tuple(members)) if len(members) > 1 else members[0]
    if isinstance(kind, TextFormatKind):
        return kind.checked_format
    names = [
        (NullKind, "null"), (AnyKind, "any"), (BooleanKind, "boolean"),
        (DateKind, "date"), (DateTimeKind, "date-time"), (StringKind, "string"),
        (IntegerKind, "integer"), (NumberKind, "number"), (ObjectKind, "object"),
    ]  # fmt: skip
    return next(name for cls, name in names if isinstance(kind, cls))


def bounds(kind: Kind) -> dict[str, Any]:
    """The bounds a prompt states: inclusive ones win over exclusive ones on the same side."""
    found: dict[str, Any] = {}
    if isinstance(kind, (IntegerKind, NumberKind)):
        found["low"] = (
            ("incl", kind.minimum)
            if kind.minimum is not None
            else (("excl", kind.exclusive_minimum) if kind.exclusive_minimum is not None else None)
        )
        found["high"] = (
            ("incl", kind.maximum)
            if kind.maximum is not None
            else (("excl", kind.exclusive_maximum) if kind.exclusive_maximum is not None else None)
        )
    if isinstance(kind, StringKind):
        found["length"] = (kind.min_length, kind.max_length)
        found["pattern"] = kind.pattern
    if isinstance(kind, ArrayKind):
        found["items"] = (kind.min_items, kind.max_items)
    if isinstance(kind, MapKind):
        found["keys"] = list(kind.required)
    return {k: v for k, v in found.items() if v not in (None, (None, None), [])}


def expected(obj: ObjectKind, prefix: str = "") -> list[dict[str, Any]]:
    rows = []
    for f in obj.fields:
        path = prefix + f.wire_name
        row = {
            "path": path,
            "required": f.required,
            "type": type_tree(f.kind),
            "bounds": bounds(f.kind),
            "default": json.dumps(f.default) if f.has_default else None,
            "examples": [json.dumps(e) for e in f.examples],
            "description": _prose(f.description),
        }
        rows.append(row)
        rows += _nested(f.kind, path)
    return rows


def _prose(text: str) -> str:
    """Text as a line says it: whitespace runs as one space, no character that is not printable."""
    return "".join(c for c in " ".join(text.split()) if c.isprintable())


def description_lines(text: str) -> list[str]:
    """A tool's description as its heading and comment lines say it: each non-blank line."""
    return [line for line in map(_prose, text.splitlines()) if line]


def _nested(kind: Kind, path: str) -> list[dict[str, Any]]:
    if isinstance(kind, ObjectKind):
        return expected(kind, f"{path}.")
    if isinstance(kind, ArrayKind) and kind.items is not None:
        return _nested(kind.items, f"{path}[]")
    if isinstance(kind, MapKind) and kind.values is not None:
        return _nested(kind.values, f"{path}.*")
    return []


# --- What the prompt says, read back --------------------------------------------------------


class Reader:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def take(self, literal: str) -> bool:
        if self.text.startswith(literal, self.at):
            self.at += len(literal)
            return True
        return False

    def json(self) -> str:
        value, end = _DECODER.raw_decode(self.text, self.at)
        self.at = end
        return json.dumps(value)

    def word(self) -> str:
        match = re.compile(r"[a-z-]+").match(self.text, self.at)
        assert match, self.text[self.at :]
        self.at = match.end()
        return match.group()

    def number(self) -> float:
        return json.loads(self.json())

    def word_until(self, end: str) -> str:
        stop = self.text.find(end, self.at)
        stop = len(self.text) if stop < 0 else stop
        word, self.at = self.text[self.at : stop], stop
        return word


def read_type(r: Reader) -> Any:
    members = [_postfix(r)]
    while r.take("|"):
        members.append(_postfix(r))
    flat: list[Any] = []
    for m in members:
        flat += m[1] if isinstance(m, tuple) and m[0] == "union" else [m]
    return flat[0] if len(flat) == 1 and flat[0][0] != "value" else ("union", tuple(flat))


def _postfix(r: Reader) -> Any:
    if r.take("("):
        tree = read_type(r)
        assert r.take(")")
    elif (
        r.text[r.at] in '"-0123456789[{tfn'
        and not r.text.startswith("null", r.at)
        and not (r.text.startswith("number", r.at))
    ):
        tree = ("value", r.json())
    else:
        word = r.word()
        if word == "object" and r.take(" of "):
            tree = ("map", _postfix(r))
        else:
            tree = word
    while r.take("[]"):
        tree = ("array", tree)
    return tree


def read_range(r: Reader) -> Any:
    """`1..5`, `>=1`, `>0`, `<=5`, `<5`, or a lower bound and an upper one: `>0 <=1`."""
    low = high = None
    if r.take(">="):
        low = ("incl", r.number())
    elif r.take(">"):
        low = ("excl", r.number())
    elif r.take("<="):
        high = ("incl", r.number())
    elif r.take("<"):
        high = ("excl", r.number())
    else:
        low = ("incl", r.number())
        assert r.take(".."), r.text
        high = ("incl", r.number())
    if high is None and r.text.startswith((" <", " <="), r.at):
        r.take(" ")
        high = read_range(r)[1]
    return low, high


def read_size(r: Reader) -> tuple[float | None, float | None]:
    """A length or a count: `6` (exact) or a range, inclusive."""
    if r.text[r.at] not in "<>":
        start = r.at
        exact = r.number()
        if not r.text.startswith("..", r.at):
            return exact, exact
        r.at = start
    low, high = read_range(r)
    return low and low[1], high and high[1]


def read_pattern(r: Reader) -> str:
    if r.take("pattern "):
        return json.loads(r.json())
    assert r.take("/")
    for at in range(r.at, len(r.text)):
        after = r.text[at + 1 :]
        if r.text[at] == "/" and (
            after == "" or after.startswith((" =", " example ", " examples ", " // "))
        ):
            pattern = r.text[r.at : at]
            r.at = at + 1
            return pattern
    raise AssertionError(r.text)


def read_line(line: str) -> dict[str, Any]:
    """`name?: type constraint ... like path =default example(s) ... // description`, read as
    written: the name (not yet its path), the rest as facts."""
    r = Reader(line)
    if line.startswith('"'):
        name = json.loads(r.json())
    else:
        name = re.compile(r"[^?:]+").match(line).group()  # type: ignore[union-attr]
        r.at = len(name)
    required = not r.take("?")
    assert r.take(": "), line
    tree = read_type(r)
    found: dict[str, Any] = {}
    like = None
    while r.take(" "):
        if r.text.startswith(("/", "pattern "), r.at) and not r.text.startswith("//", r.at):
            found["pattern"] = read_pattern(r)
        elif r.take("keys "):
            found["keys"] = json.loads(r.json())
        elif r.take("like "):
            like = json.loads(r.json()) if r.text[r.at] == '"' else r.word_until(" ")
        elif r.text[r.at] in "<>-0123456789":
            start = r.at
            size = read_size(r)
            if r.take(" chars"):
                found["length"] = size
            elif r.take(" items"):
                found["items"] = size
            else:
                r.at = start
                found["low"], found["high"] = read_range(r)
        else:
            r.at -= 1
            break
    # `=` right after a type name, ` =` after a constraint or a literal.
    glued = r.text[r.at - 1].isalpha()
    default = r.json() if r.take("=" if glued else " =") else None
    examples = []
    if r.take(" example "):
        examples.append(r.json())
    elif r.take(" examples "):
        examples.append(r.json())
        while r.take(", "):
            examples.append(r.json())
        assert len(examples) > 1, line
    description = line[r.at :] if r.take(" // ") else ""
    assert description or r.at == len(line), line
    return {
        "path": name,
        "required": required,
        "type": tree,
        "bounds": {k: v for k, v in found.items() if v is not None},
        "default": default,
        "examples": examples,
        "description": description,
        "like": like,
    }


def steps(tree: Any) -> str:
    """The steps from a parameter to the object whose fields are listed under it: `[]` for an
    array's items, `.*` for a map's values; a nullable one is the same."""
    if isinstance(tree, tuple) and tree[0] == "union":
        members = [m for m in tree[1] if m != "null"]
        return steps(members[0]) if len(members) == 1 else ""
    if isinstance(tree, tuple) and tree[0] == "array":
        return "[]" + steps(tree[1])
    if isinstance(tree, tuple) and tree[0] == "map":
        return ".*" + steps(tree[1])
    return ""


_NO_VALUE = object()


def read_tool(lines: list[str], call: Any = _NO_VALUE) -> list[dict[str, Any]]:
    """A tool's parameter lines read back with their paths: a line one space deeper than the one
    above is nested in it; a `like` line has the fields of the parameter it names. Each row also
    gets the value the tool's example call gives the parameter (`in_call`), followed through
    objects only."""
    rows: list[dict[str, Any]] = []
    parents: list[tuple[str, Any]] = []  # the path prefix and the call's value at each depth
    for line in lines:
        depth = len(line) - len(line.lstrip(" "))
        assert depth <= len(parents), line
        del parents[depth:]
        row = read_line(line[depth:])
        prefix, values = parents[-1] if parents else ("", call)
        name = row["path"]
        row["path"] = prefix + name
        row["in_call"] = values.get(name, _NO_VALUE) if isinstance(values, dict) else _NO_VALUE
        like = row["like"]
        rows.append(row)
        inner = steps(row["type"])
        parents.append((row["path"] + inner + ".", row["in_call"] if inner == "" else _NO_VALUE))
        if like is not None:
            shared = [dict(r) for r in rows if r["path"].startswith(like + ".")]
            assert shared, line
            for copy in shared:
                copy["path"] = parents[-1][0] + copy["path"].removeprefix(like + ".")
                copy["like"] = None
            rows += shared
    return rows


def read_prompt(text: str) -> dict[str, dict[str, Any]]:
    """{tool name: {"description": its heading's lines, "call": the example call shown for it (its
    section's `Example parameters:`, else the instructions' first example when it is this tool's),
    "rows": its parameter lines read back}}."""
    instructions, listing = text.split("\nTools:\n", 1)
    first_call = None
    if "\nFor example:\n" in instructions:
        first_call = json.loads(instructions.split("\nFor example:\n", 1)[1].splitlines()[0])
    tools: dict[str, dict[str, Any]] = {}
    for line in listing.splitlines():
        if line.startswith("## "):
            name, _, said = line[3:].partition(" // ")
            current = tools[name] = {"description": [said] if said else [], "lines": []}
            current["call"] = None
        elif line.startswith("// "):
            current["description"].append(line[3:])
        elif line.startswith("Example parameters: "):
            current["call"] = json.loads(line.removeprefix("Example parameters: "))
        elif line == "No parameters.":
            assert not current["lines"]
        elif line:
            current["lines"].append(line)
    if first_call is not None and tools[first_call["name"]]["call"] is None:
        tools[first_call["name"]]["call"] = first_call["parameters"]
    for tool in tools.values():
        call = _NO_VALUE if tool["call"] is None else tool["call"]
        tool["rows"] = read_tool(tool.pop("lines"), call)
    return tools


# How a description gives an example, and what may follow the example's text there.
_EXAMPLE_MARK = re.compile(r"(?:e\.g\.|for example|for instance|such as),? ", re.IGNORECASE)
_EXAMPLE_END = re.compile(r"$|[\s,;)]|[.:!?](?:$|\s)")


def said_elsewhere(example: str, first: bool, row: dict[str, Any]) -> bool:
    """Whether the prompt says this example (JSON text) of a row outside its line: as the value the
    tool's example call gives the parameter (the first example only), or in the description after
    `e.g.` and the like, as JSON or, for a string that reads as no other JSON, as its characters."""
    value = json.loads(example)
    if first and row["in_call"] is not _NO_VALUE and json.dumps(row["in_call"]) == example:
        return True
    texts = {example, json.dumps(value, ensure_ascii=False, separators=(",", ":"))}
    texts.add(json.dumps(value, ensure_ascii=False))
    if isinstance(value, str) and value:
        try:
            json.loads(value)
        except ValueError:
            texts.add(value)
    description = row["description"]
    return any(
        description.startswith(text, mark.end())
        and _EXAMPLE_END.match(description, mark.end() + len(text)) is not None
        for mark in _EXAMPLE_MARK.finditer(description)
        for text in texts
    )


def _examples_found(read: list[dict[str, Any]], wanted: list[dict[str, Any]]) -> None:
    """Each row's examples: those its line lists must be exactly the catalog's ones not said
    elsewhere; then the row holds them all, as read back from the whole prompt."""
    assert [r["path"] for r in read] == [w["path"] for w in wanted]
    for row, want in zip(read, wanted, strict=True):
        examples = [json.dumps(json.loads(e)) for e in want["examples"]]
        unsaid = [e for at, e in enumerate(examples) if not said_elsewhere(e, at == 0, row)]
        assert [json.dumps(json.loads(e)) for e in row["examples"]] == unsaid, row["path"]
        row["examples"] = want["examples"]


def _normalize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        row.pop("like", None)  # how the prompt said it, not a fact of the parameter
        row.pop("in_call", None)
        for key in ("low", "high"):
            if key in row["bounds"] and row["bounds"][key] is not None:
                kind, value = row["bounds"][key]
                row["bounds"][key] = (kind, float(value))
            elif key in row["bounds"]:
                del row["bounds"][key]
        for key in ("length", "items"):
            if key in row["bounds"]:
                row["bounds"][key] = tuple(
                    None if v is None else float(v) for v in row["bounds"][key]
                )
        row["default"] = row["default"] and json.dumps(json.loads(row["default"]))
        row["examples"] = [json.dumps(json.loads(e)) for e in row["examples"]]
    return rows


_POINT = {
    "type": "object",
    "properties": {
        "x": {"type": "number", "description": "Across."},
        "y": {"type": "integer", "minimum": -5, "exclusiveMaximum": 9, "examples": [0, -5]},
        "label": {"type": "string", "pattern": "^/ x", "minLength": 2, "maxLength": 2},
    },
    "required": ["x"],
}
# Shared definitions in every place a parameter's fields are listed (first in an array, then
# plain, nullable, a map's values, deeper in arrays of arrays), and patterns and sizes that a
# naive reader would end early or take for a comment.
SHAPES = {
    "name": "shapes",
    "tools": [
        {
            "name": "shared_shapes",
            "description": "Shared definitions everywhere.",
            "parameters": {
                "type": "object",
                "$defs": {"Point": _POINT},
                "properties": {
                    "route": {"type": "array", "items": {"$ref": "#/$defs/Point"}, "minItems": 2},
                    "origin": {"$ref": "#/$defs/Point", "description": "Where to start."},
                    "maybe": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]},
                    "named": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Point"}},
                    "deep": {
                        "type": "object",
                        "properties": {
                            "grid": {
                                "type": "array",
                                "items": {"type": "array", "items": {"$ref": "#/$defs/Point"}},
                            },
                            "a.b c": {"type": "string", "pattern": "a/ = b/ // c"},
                        },
                    },
                    "empty": {"type": "string", "pattern": ""},
                    "assign": {"type": "string", "pattern": "^x/ = y", "default": "x/ = y"},
                    "said": {"type": "string", "pattern": "^x/ example y", "examples": ["x/"]},
                    "code": {
                        "type": "string",
                        "minLength": 6,
                        "maxLength": 6,
                        "pattern": "^[0-9]+$",
                        "examples": ["123456", "654321"],
                    },
                    "pair": {
                        "type": "array",
                        "items": {"type": "integer"},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    # Examples the description gives: 4 and "4" (so not on the line), not 45.
                    "hint": {
                        "type": ["string", "integer"],
                        "description": 'A hint, e.g. 4; or such as "4", unlike e.g. 456.',
                        "examples": ["4", 4, 45],
                    },
                },
                "required": ["route"],
            },
            # The first example of `code` is the call's: the line lists only the second.
            "examples": [{"route": [{"x": 1.5}, {"x": 2.5}], "code": "123456"}],
        },
        {
            "name": "second",
            "description": "Shows its example call itself.",
            "parameters": {
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "examples": [3, 4]},
                    # The call gives `box` null: `w` has no value in it, its null is said.
                    "box": {
                        "type": ["object", "null"],
                        "properties": {"w": {"type": ["integer", "null"], "examples": [None, 2]}},
                    },
                },
            },
            "examples": [{"n": 3, "box": None}],
        },
    ],
}


def _catalogs(tmp_path_factory: pytest.TempPathFactory) -> list[Catalog]:
    folder = tmp_path_factory.mktemp("corpus")
    corpus = folder / "corpus.json"
    corpus.write_text(json.dumps(corpus_catalog(40)), encoding="utf-8")
    shapes = folder / "shapes.json"
    shapes.write_text(json.dumps(SHAPES), encoding="utf-8")
    return [check_catalogs([source], ROOT)[0][0] for source in SOURCES] + check_catalogs(
        [corpus, shapes], folder
    )[0]


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory: pytest.TempPathFactory) -> list[Catalog]:
    return _catalogs(tmp_path_factory)


def test_every_fact_of_every_tool_is_read_back_from_the_prompt(
    catalogs: list[Catalog],
) -> None:
    assert len(catalogs) == len(SOURCES) + 2
    legends, elsewhere = set(), 0
    for catalog in catalogs:
        prompts = render_prompts(catalog)
        for name in ("jsonl", "single_json"):
            read = read_prompt(prompts[name])
            # The legend explains `like` exactly when a line says it.
            said = any(row["like"] for tool in read.values() for row in tool["rows"])
            legend = "`like p` means" in prompts[name].split("\nTools:\n")[0]
            assert legend == said, catalog.name
            legends.add(legend)
            assert list(read) == [t.wire_name for t in catalog.tools], catalog.name
            for tool in catalog.tools:
                where = (catalog.name, tool.wire_name)
                got = read[tool.wire_name]
                assert got["description"] == description_lines(tool.description), where
                if tool.examples:
                    assert got["call"] == tool.examples[0], where
                rows, wanted = got["rows"], expected(tool.args)
                lists = sum(len(r["examples"]) for r in rows)
                _examples_found(rows, wanted)
                elsewhere += sum(len(r["examples"]) for r in rows) - lists
                assert _normalize(rows) == _normalize(wanted), where
    assert legends == {True, False}
    # Both ways of saying an example elsewhere occur (calendar: `e.g.` and the example call).
    assert elsewhere > 0


# Pieces that make a pattern's `/regex/` literal hard to end: slashes, what may follow it, quotes,
# backslashes, line breaks.
_PATTERN_PIECES = st.sampled_from(
    ["/", " // ", "=", " =", " example ", " examples ", " ", "a", "^", "$", '"', "\\", "\n"]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_PATTERN_PIECES, max_size=6).map("".join),
    st.sampled_from(["", " =1", ' example "x"', " examples 1, 2", " // a / b"]),
)
@example("a/ // b", "")
@example("a/=b", "")
@example("a/ =b", "")
@example("a/ example b", "")
@example("/ x", " // a / b")
@example("", " // a / b")
@example("a\nb", "")
def test_a_pattern_is_read_back_whole_whatever_follows_it(pattern: str, after: str) -> None:
    line = f"p?: string {pattern_text(pattern)}{after}"
    assert line.isprintable()
    row = read_line(line)
    assert row["bounds"]["pattern"] == pattern
    assert (row["default"], row["examples"], row["description"]) == {
        "": (None, [], ""),
        " =1": ("1", [], ""),
        ' example "x"': (None, ['"x"'], ""),
        " examples 1, 2": (None, ["1", "2"], ""),
        " // a / b": (None, [], "a / b"),
    }[after]

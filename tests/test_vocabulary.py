"""Issue 34 item 1: one keyword registry (`codegen/vocabulary.py`). Every module that walks a
schema finds its subschemas where the registry says they sit, and every table of keywords a
module keeps is read from the registry's rows."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from codegen.catalog.load import load_catalog
from codegen.catalog.wild import read_wild
from codegen.importers.dialect import Notes, standard
from codegen.importers.yaml_out import to_yaml
from codegen.payloads import legacy, strict
from codegen.payloads.schema import public
from codegen.vocabulary import KEYWORDS, enforced_on, in_payload, subschemas_mapped

LOCATIONS = sorted(word for word, row in KEYWORDS.items() if row.holds != "data")


def _placed(word: str, sub: dict[str, Any]) -> tuple[dict[str, Any], tuple[str | int, ...]]:
    """A schema holding `sub` at `word`, in the shape the registry gives `word`, and the path
    of `sub` from it."""
    holds = KEYWORDS[word].holds
    if holds == "schema":
        return {word: sub}, (word,)
    if holds == "schemas":
        return {word: [{}, sub]}, (word, 1)
    return {word: {"a": {}, "b": sub}}, (word, "b")


def _at(node: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def _wild(tmp_path: Path, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """The tool's parameters as the build's wild reader leaves them, and its findings' texts."""
    catalog = {"name": "c", "tools": [{"name": "t", "description": "d", "parameters": schema}]}
    (tmp_path / "c.json").write_text(json.dumps(catalog), encoding="utf-8")
    loaded, found = read_wild(load_catalog(tmp_path / "c.json", tmp_path))
    return loaded.data["tools"][0]["parameters"], [d.message for d in found]


def _dialect(schema: dict[str, Any]) -> tuple[Any, list[str]]:
    notes = Notes()
    return standard(schema, (), notes), list(notes)


# Each walker, with an odd form it rewrites and how to see that it reached it.
WALKERS: dict[str, Callable[[Path, str], None]] = {}


def _walker(function: Callable[[Path, str], None]) -> Callable[[Path, str], None]:
    WALKERS[function.__name__] = function
    return function


@_walker
def wild_reader(tmp_path: Path, word: str) -> None:
    schema, path = _placed(word, {"type": "string", "descriptoin": "slip"})
    out, found = _wild(tmp_path, {"type": "object", **schema})
    assert _at(out, path) == {"type": "string"}
    said = "unknown key 'descriptoin' in a schema: did you mean `description`? (ignored)"
    assert found == [said]


@_walker
def payload_public(tmp_path: Path, word: str) -> None:
    schema, path = _placed(word, {"type": "string", "x-python-name": "kept_out"})
    assert _at(public(schema), path) == {"type": "string"}


@_walker
def importer_dialect(tmp_path: Path, word: str) -> None:
    schema, path = _placed(word, {"type": "string", "nullable": True})
    out, notes = _dialect(schema)
    assert _at(out, path) == {"type": ["string", "null"]}
    assert len(notes) == 1 and "`nullable: true` written as a type list with null" in notes[0]


@_walker
def importer_yaml_out(tmp_path: Path, word: str) -> None:
    schema, _ = _placed(word, {"description": "below", "type": "string"})
    tool = {"name": "t", "parameters": {"type": "object", **schema}}
    text = to_yaml({"name": "c", "tools": [tool]})
    # A person reads a schema's type before its description, at every depth.
    assert text.index("type: string") < text.index("description: below"), text


@pytest.mark.parametrize("word", LOCATIONS)
@pytest.mark.parametrize("walker", sorted(WALKERS))
def test_every_walker_reaches_every_subschema_location(
    tmp_path: Path, walker: str, word: str
) -> None:
    """Issue 34 item 1: the five tables of where subschemas sit were one each, and the importers'
    lacked `if`/`then`/`else`, `contains`, `patternProperties` and more; now each walker asks the
    registry, and reaches a subschema at every place it names."""
    WALKERS[walker](tmp_path, word)


def test_data_is_never_walked() -> None:
    """An `enum`, `default` or `examples` value that looks like a schema is data: left whole."""
    for word in ("enum", "default", "examples", "const", "required"):
        value = [{"x-python-name": "n", "nullable": True}]
        assert subschemas_mapped(word, value, lambda where, sub: "walked") == value
        assert public({word: value}) == {word: value}
        assert _dialect({word: value})[0] == {word: value}


def test_the_payload_tables_are_the_registry_rows() -> None:
    """The providers' subsets are read from the registry's rows: strict mode keeps exactly the
    keywords whose row names it, and Gemini's subset writes each type's keywords in row order."""
    assert strict.KEPT == frozenset(in_payload("openai-strict"))
    assert legacy._BY_TYPE["string"] == ("enum", "minLength", "maxLength", "pattern")
    assert legacy._BY_TYPE["integer"] == legacy._BY_TYPE["number"] == ("enum", "minimum", "maximum")
    assert legacy._BY_TYPE["object"][1:] == (
        "properties",
        "required",
        "minProperties",
        "maxProperties",
    )


@pytest.mark.parametrize("json_type", ["string", "integer", "number", "array", "object", "boolean"])
def test_what_the_parser_enforces_is_a_row_flag(json_type: str) -> None:
    """Lint, the normalizer and the payloads' "the parser still enforces it" read one flag."""
    from codegen.catalog.keywords import unenforced
    from codegen.payloads.schema import still_checked

    for word in sorted(KEYWORDS):
        if KEYWORDS[word].structure or KEYWORDS[word].annotation or word.startswith("x-"):
            continue
        said = dict(unenforced({word: 1}, [json_type]))
        assert (word not in said) == (word in enforced_on(json_type)), word
        if word != "format":
            assert bool(still_checked(word)) == KEYWORDS[word].enforced, word


LOOSE = {
    "count": ("5", 5),
    "number": ("-2.5", -2.5),
    "positive": ("2.5", 2.5),
    "flag": ("True", True),
}


@pytest.mark.parametrize(
    "word", sorted(w for w, row in KEYWORDS.items() if row.value in LOOSE), ids=str
)
def test_every_keyword_of_a_count_number_or_flag_is_read_by_its_value(
    tmp_path: Path, word: str
) -> None:
    """The wild reader reads a keyword's value as what the registry says it is: text that spells
    a count, a number or a flag is read so, said (CG102)."""
    written, meant = LOOSE[str(KEYWORDS[word].value)]
    out, found = _wild(tmp_path, {"type": "object", "properties": {"p": {word: written}}})
    assert out["properties"]["p"][word] == meant
    shown = str(meant).lower() if isinstance(meant, bool) else meant
    assert found == [f"`{word}: '{written}'` read as {shown}"]


@pytest.mark.parametrize(
    "word", sorted(w for w, row in KEYWORDS.items() if row.value == "text"), ids=str
)
def test_every_keyword_of_a_text_leaves_out_what_is_not_text(tmp_path: Path, word: str) -> None:
    out, found = _wild(tmp_path, {"type": "object", "properties": {"p": {word: 12}}})
    assert word not in out["properties"]["p"]
    assert found == [f"`{word}` is not text: 12 ignored"]


BOUNDS = sorted(w for w, row in KEYWORDS.items() if row.limit is not None)


@pytest.mark.parametrize("word", BOUNDS, ids=str)
def test_two_bounds_of_one_side_merge_to_the_tighter(word: str) -> None:
    """`allOf` of two bounds on one side is the tighter one, for every bound the registry names
    (`minProperties` and `maxProperties` were left unmerged)."""
    from codegen.catalog.refs import conjoin

    merged, notes = conjoin({word: 2}, {word: 3})
    assert merged == {word: 3 if KEYWORDS[word].limit == "lower" else 2}
    assert notes == []


def test_every_crossing_pair_of_bounds_is_an_empty_range() -> None:
    """A lower bound above an upper one of the same measure takes no value: said for each pair
    the registry makes (`minProperties` above `maxProperties` was not)."""
    from codegen.catalog.keywords import empty_ranges

    pairs = [
        (low, high)
        for high in BOUNDS
        for low in BOUNDS
        if KEYWORDS[high].limit == "upper"
        and KEYWORDS[low].limit == "lower"
        and KEYWORDS[low].measure == KEYWORDS[high].measure
    ]
    assert len(pairs) == 7
    for low, high in pairs:
        assert list(empty_ranges({low: 3, high: 2})) == [
            (high, f"{high} 2 is below {low} 3: no value would be accepted")
        ]
        assert list(empty_ranges({low: 2, high: 3})) == []


# -- the places of a new thing, as docs/development.md lists them ---------------------------------

CHECKOUT = Path(__file__).resolve().parent.parent
# Keywords the parser does not enforce that still have a rule of their own where it applies:
# older drafts' spellings (the wild reader), `prefixItems` beside `items` (the array rule), strict
# mode's reason for dropping one, the dialect's telling of a schema from a map of properties,
# Gemini's subset writing the object's bounds.
RULES_OF_THEIR_OWN = {
    "not": {"codegen/catalog/dialect.py", "codegen/payloads/strict.py"},
    "if": {"codegen/catalog/dialect.py", "codegen/payloads/strict.py"},
    "then": {"codegen/catalog/dialect.py", "codegen/payloads/strict.py"},
    "else": {"codegen/catalog/dialect.py", "codegen/payloads/strict.py"},
    "prefixItems": {"codegen/catalog/typed.py", "codegen/catalog/wild.py"},
    "additionalItems": {"codegen/catalog/wild.py"},
    "minProperties": {"codegen/catalog/dialect.py", "codegen/payloads/legacy.py"},
    "maxProperties": {"codegen/catalog/dialect.py", "codegen/payloads/legacy.py"},
    "patternProperties": {"codegen/catalog/dialect.py"},
}


def _naming(word: str) -> set[str]:
    """The modules of codegen that name `word`: as a string in code (not a docstring), as a
    provider's adapter (`from_<word>`, `to_<word>`), or quoted or so in a template."""
    adapters = {f"from_{word}", f"to_{word}"}
    found = {
        path
        for path, (strings, names) in _modules_words().items()
        if word in strings or not adapters.isdisjoint(names)
    }
    adapter = rf"(from|to)_{re.escape(word)}"
    for path, text in _templates().items():
        if re.search(rf"\b{adapter}\b|[\"']{re.escape(word)}[\"']", text):
            found.add(path)
    return found


@cache
def _modules_words() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each module of codegen, parsed once for every word the tests ask about: the strings in its
    code (not its docstrings), and the names it defines or reads (a node's `name` or `id`)."""
    words = {}
    for path in sorted((CHECKOUT / "codegen").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and ast.get_docstring(node, clean=False) is not None
        }
        strings, names = set(), set()
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                strings.add(node.value)
            for name in (getattr(node, "name", None), getattr(node, "id", None)):
                if isinstance(name, str):
                    names.add(name)
        words[path.relative_to(CHECKOUT).as_posix()] = (frozenset(strings), frozenset(names))
    return words


@cache
def _templates() -> dict[str, str]:
    """Each template's text, read once."""
    return {
        path.relative_to(CHECKOUT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((CHECKOUT / "templates").rglob("*.jinja"))
    }


def _documented(thing: str) -> set[str]:
    """The modules docs/development.md lists for adding `thing` (its bullet's `codegen/…` and
    `templates/…` paths)."""
    page = (CHECKOUT / "docs" / "development.md").read_text(encoding="utf-8")
    section = page[page.index("## Adding a keyword, a format, a kind, a provider") :]
    section = section[: section.index("\n## ")]
    bullet = re.search(rf"^- \*\*{thing}\*\*.*?(?=^- \*\*|\Z)", section, re.DOTALL | re.MULTILINE)
    assert bullet is not None, thing
    return set(re.findall(r"`((?:codegen|templates)/[\w/.]+\.(?:py|jinja))`", bullet.group()))


def test_the_documented_places_of_a_format_are_all_that_name_one() -> None:
    """Issue 34 item 4: `format: date-time` was named in 17 places; a format whose value stays
    text is named where docs/development.md says, and nowhere else, for every such format."""
    from codegen.runtime import _runtime as rt

    assert rt.TEXT_FORMATS  # `uri` at least
    for name in rt.TEXT_FORMATS:
        assert _naming(name) == _documented("A format"), name


def test_the_documented_places_of_a_keyword_are_all_that_name_one() -> None:
    """Issue 34 item 4: a keyword the parser does not enforce is its registry row, and a rule of
    its own where it has one (`RULES_OF_THEIR_OWN`, which may only shrink)."""
    plain = [
        word
        for word, row in KEYWORDS.items()
        if not (row.enforced or row.structure or row.annotation)
        and not word.startswith("x-")
        and word not in ("optional", "example")  # the catalog format's and OpenAPI's words
    ]
    assert len(plain) > 20
    for word in plain:
        assert _naming(word) == _documented("A keyword") | RULES_OF_THEIR_OWN.get(word, set()), word


def test_the_documented_places_of_a_provider_are_all_that_name_one() -> None:
    """Issue 34 item 4: a provider with no schema subset of its own (Anthropic) is named in the
    places docs/development.md lists, and its payload modules."""
    assert _naming("anthropic") == _documented("A provider")


def test_the_place_reader_sees_each_form() -> None:
    """The checks above would pass on a reader that saw nothing."""
    assert "codegen/runtime/_runtime.py" in _naming("uri")  # a string in code
    assert "templates/package_init.py.jinja" in _naming("anthropic")  # an adapter's name
    assert "codegen/vocabulary.py" in _documented("A keyword")

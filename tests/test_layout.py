"""Generated code is laid out as black lays it out, and black runs only where the layout cannot be.

`layout.py` and the templates write black's line breaks themselves; `format.py` gives black only the
top-level statements that still have a line over the limit. These tests prove the output is what
black would make of it, on every catalog the tests know and on one made of long text, that the
layout functions agree with black on arbitrary input, and that black is skipped where it should be.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import string
import subprocess
import sys
from pathlib import Path

import black
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import codegen.python.format
from codegen.build import build
from codegen.python import layout
from codegen.python.format import black_mode, format_python
from codegen.python.literals import literal

ROOT = Path(__file__).resolve().parent.parent


def bench_catalog(tools: int) -> dict[str, object]:
    """The benchmark's corpus catalog (bench/corpus.py), which is not a package."""
    spec = importlib.util.spec_from_file_location("_bench_corpus", ROOT / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    corpus = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(corpus)
    catalog: dict[str, object] = corpus.catalog(tools)
    return catalog


# The benchmark's catalog at 12 tools: its tools take four shapes in turn (flat, enums, nested,
# arrays), so each shape comes three times, with its own draws of kinds, constraints and defaults,
# and its package's lists (the tools, `__all__`, the payloads) run over many lines as at 40. Its 40
# tools were a quarter of the text black read here, for the same shapes again, and were made in
# worker processes (`tool_outputs.PARALLEL_FROM` tools a core), where the spies of the tests below
# saw nothing: at 12 they are made in this process.
BENCH_TOOLS = 12

LONG = "a_parameter_name_long_enough_to_push_every_line_it_is_on_past_the_limit"[:64]
WIDE_TEXT = "全角の説明文は一文字が二桁の幅を取るので行の長さの計算を試します" * 2


def wide_catalog() -> dict[str, object]:
    """A catalog whose names, enum values, defaults, patterns and descriptions are as long as the
    format allows, so that many statements overflow a line and black must run on them."""
    many = {f"field_number_{i}_{LONG[:20]}": {"type": "integer"} for i in range(12)}
    return {
        "name": "wide_tools",
        "description": WIDE_TEXT,
        "tools": [
            {
                "name": LONG,
                "description": f"{WIDE_TEXT} {'and a very long description, ' * 6}",
                "parameters": {
                    "type": "object",
                    "properties": {
                        LONG: {
                            "type": "string",
                            "description": "x" * 300,
                            "enum": [f"{LONG}_{i}" for i in range(4)] + [WIDE_TEXT],
                        },
                        f"{LONG[:50]}_pattern": {
                            "type": "string",
                            "pattern": (
                                "^(?:(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)+[a-z]{2,63}"
                                "|[a-z]{1,10}\\.local|[0-9]{1,3}(?:\\.[0-9]{1,3}){3})$"
                            ),
                            "default": "example.org",
                        },
                        f"{LONG[:50]}_default": {
                            "type": "string",
                            "default": "a default value that is long " * 5,
                        },
                        f"{LONG[:50]}_list": {
                            "type": "array",
                            "items": {"type": "string", "minLength": 1, "maxLength": 1_000_000},
                            "default": [f"item {i} of a long default list" for i in range(6)],
                            "minItems": 1,
                            "maxItems": 1_000_000,
                        },
                        f"{LONG[:50]}_range": {
                            "type": "number",
                            "minimum": -123456789.125,
                            "exclusiveMaximum": 987654321.5,
                        },
                        f"{LONG[:50]}_nested": {
                            "type": "object",
                            "properties": many,
                            "required": list(many)[:6],
                        },
                        f"{LONG[:50]}_rows": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {LONG: {"type": ["string", "null"]}},
                            },
                        },
                        f"{LONG[:50]}_union": {
                            "anyOf": [
                                {"type": "integer"},
                                {"type": "string", "format": "date-time"},
                            ],
                        },
                        f"{LONG[:50]}_map": {
                            "type": "object",
                            "additionalProperties": {"type": "number"},
                        },
                    },
                    "required": [LONG],
                },
            },
            {"name": "short", "description": "Short.", "parameters": {"type": "object"}},
        ],
    }


def catalogs(tmp: Path) -> list[Path]:
    wide = tmp / "wide_tools.json"
    wide.write_text(json.dumps(wide_catalog(), ensure_ascii=False), encoding="utf-8")
    bench = tmp / "bench_tools.json"
    bench.write_text(json.dumps(bench_catalog(BENCH_TOOLS)), encoding="utf-8")
    return [
        *sorted((ROOT / "schemas").glob("*_tools.*")),
        *sorted((ROOT / "tests" / "fixtures").glob("*.yaml")),
        wide,
        bench,
    ]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return catalogs(tmp_path_factory.mktemp("layout"))


@pytest.fixture(scope="module")
def laid_out(sources: list[Path]) -> dict[str, str]:
    """The files of every catalog, built once for the tests of this module that only read them."""
    return build(sources, root=sources[-1].parent).files


def test_every_module_is_what_black_makes_of_it(laid_out: dict[str, str]) -> None:
    files = laid_out
    assert len(files) > 90
    # The runtime modules are the same text in every package: black reads each text once.
    modules = {text: path for path, text in files.items() if path.endswith(".py")}
    changed = [
        path for text, path in modules.items() if black.format_str(text, mode=black_mode()) != text
    ]
    assert changed == []
    # Tool modules are split into statements without a syntax tree: the same statements.
    scanned = 0
    for text in modules:
        lines = text.splitlines(keepends=True)
        found = codegen.python.format.scanned(lines)
        if found is not None:
            scanned += 1
            assert found == codegen.python.format._statements(ast.parse(text), lines)
    assert scanned > 50


@pytest.mark.parametrize(
    ("source", "statements"),
    [
        ("import re\nX = 1\n", [(0, 1, "import"), (1, 2, "other")]),
        # A decorator goes with its definition; a comment after a body is not part of it.
        (
            "@dataclass\n\nclass A:\n    x: int\n    # done\n\n\ndef f(\n    a: int,\n) -> None:\n    pass\n",
            [(0, 4, "block"), (7, 11, "block")],
        ),
        (
            '"""Doc."""\n\nfrom a import (\n    b,\n)\nY = [\n    1,\n]\n',
            [(0, 1, "other"), (2, 5, "import"), (5, 8, "other")],
        ),
    ],
)
def test_statements_are_found_without_a_syntax_tree(
    source: str, statements: list[tuple[int, int, str]]
) -> None:
    lines = source.splitlines(keepends=True)
    assert codegen.python.format.scanned(lines) == statements
    assert codegen.python.format._statements(ast.parse(source), lines) == statements


@pytest.mark.parametrize(
    "source",
    [
        'X = """two\nlines"""\n',  # a string that spans lines
        "if X:\n    pass\nelse:\n    pass\n",  # a clause at the margin
        "X = (\n1)\n",  # a bracket's contents at the margin
        "@decorator\nX = 1\n",  # not Python: the syntax check says so
    ],
)
def test_code_not_shaped_like_the_templates_is_left_to_the_syntax_tree(source: str) -> None:
    assert codegen.python.format.scanned(source.splitlines(keepends=True)) is None


def test_the_layout_is_what_black_makes_of_one_line_layouts(
    sources: list[Path], laid_out: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Black keeps a list it finds open with a trailing comma open, so "black leaves the output
    # alone" alone would miss a list opened that black would have kept on one line. With every
    # layout on one line, black formats each statement the layout would have broken.
    formatted: list[str] = []
    real = black.format_str

    def spy(text: str, *, mode: black.Mode) -> str:
        formatted.append(text)
        return real(text, mode=mode)

    monkeypatch.setattr(black, "format_str", spy)
    monkeypatch.setattr(layout, "fits", lambda line: True)
    assert build(sources, root=sources[-1].parent).files == laid_out
    assert sum(text.startswith("SCHEMA: ") for text in formatted) > 20


def test_black_runs_only_on_statements_with_lines_too_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    formatted: list[str] = []
    real = black.format_str

    def spy(text: str, *, mode: black.Mode) -> str:
        formatted.append(text)
        return real(text, mode=mode)

    monkeypatch.setattr(black, "format_str", spy)
    bench, wide = tmp_path / "bench.json", tmp_path / "wide.json"
    bench.write_text(json.dumps(bench_catalog(BENCH_TOOLS)), encoding="utf-8")
    build([bench], root=tmp_path)
    assert formatted == []
    wide.write_text(json.dumps(wide_catalog(), ensure_ascii=False), encoding="utf-8")
    build([wide], root=tmp_path)
    # Names of 64 characters overflow signatures, class lines and the code that names them. Long
    # strings alone on their lines do not: black cannot split them, so the schema (300-character
    # description), the tool's spec and the docstrings are left alone.
    assert 10 < len(formatted) < 30
    assert all(any(not layout.fits(line) for line in text.splitlines()) for text in formatted)
    assert not [text for text in formatted if text.startswith(("SCHEMA", "TOOL", "NAME"))]


def test_a_build_that_formats_nothing_does_not_import_black(tmp_path: Path) -> None:
    # Every module's header has a dash, which is short; a tool's description is long, with accents
    # but no wide character (none comes before U+1100): each line is known to fit without black's
    # table of wide characters.
    catalog = bench_catalog(5)
    catalog["tools"][0]["description"] = "Crée un rendez-vous à l'heure dite, même en Été."  # type: ignore[index]
    source = tmp_path / "catalog.json"
    source.write_text(json.dumps(catalog, ensure_ascii=False), encoding="utf-8")
    script = (
        "import sys; from pathlib import Path; from codegen.build import build; "
        f"files = build([Path({str(source)!r})], root=Path({str(tmp_path)!r})).files; "
        "print(len(files), 'black' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(shown[0]) > 10 and shown[1] == "False"


@settings(max_examples=300, deadline=None)
@given(
    line=st.text(
        alphabet=st.sampled_from(list("ab (),=") + ["é", "中", "\u0301", "\u200b", "😀"]),
        min_size=30,
        max_size=110,
    )
)
def test_a_line_fits_as_black_measures_it(line: str) -> None:
    assert layout.fits(line) == (black.strings.str_width(line) <= layout.LINE_LENGTH)


def test_a_statement_with_a_long_line_is_formatted_alone() -> None:
    source = f"X = 1\n\n\ndef f() -> None:\n    y = [{', '.join(['1000000'] * 20)}]\n\n\nY = 2\n"
    assert format_python("m.py", source) == black.format_str(source, mode=black_mode())
    assert format_python("m.py", source).startswith("X = 1\n\n\ndef f() -> None:\n    y = [\n")


def test_blank_lines_between_statements_are_blacks() -> None:
    source = "import re\nX = 1\n\n\n\nY = 2\ndef f() -> None:\n    pass\nZ = 3\n"
    assert format_python("m.py", source) == black.format_str(source, mode=black_mode())


# Text with the characters that matter to layout: quotes, backslashes, wide characters, spaces.
_TEXT = st.text(
    alphabet=st.sampled_from(list(string.ascii_letters[:6] + " '\"\\é中") + ["\n"]), max_size=40
)
_KEYS = st.text(alphabet="abcdefgh_", min_size=1, max_size=30)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_KEYS, inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON, name=_KEYS)
def test_data_is_laid_out_as_black_lays_it_out(value: object, name: str) -> None:
    head = f"{name.upper()}: Final[dict[str, object]] = "
    assert layout.data(value, head) + "\n" == black.format_str(
        head + literal(value), mode=black_mode()
    )


_NAMES = st.text(alphabet="abcxyz_", min_size=1, max_size=45)


@settings(max_examples=300, deadline=None)
# Where the split's first line is still too long, black parenthesises the value (found by hypothesis).
@example(name="_" * 45, arguments=['"_"'], returns="_")
@example(name="x" * 45, arguments=["y" * 45] * 3, returns="_")
@given(
    name=_NAMES,
    arguments=st.lists(_NAMES.map(literal) | _NAMES, min_size=1, max_size=8),
    returns=_NAMES,
)
def test_calls_signatures_sets_and_imports_are_laid_out_as_black_lays_them_out(
    name: str, arguments: list[str], returns: str
) -> None:
    def black_of(text: str) -> str:
        return black.format_str(text, mode=black_mode())

    call = layout.call(f"{name.upper()}: Final = {name}", arguments)
    assert call + "\n" == black_of(call)
    subscript = layout.call(f"{name} = Literal", arguments, brackets="[]")
    assert subscript + "\n" == black_of(subscript)
    parameters = [f"{argument.strip(chr(34))}: int" for argument in arguments]
    signature = layout.signature(name, parameters, f"tuple[object, {returns}]")
    assert signature + "\n    pass\n" == black_of(signature + "\n    pass\n")
    keys = layout.frozen_set(f"{name.upper()}: Final = ", [literal(a) for a in arguments])
    assert keys + "\n" == black_of(keys)
    names = sorted({a.strip('"') for a in arguments})
    imports = layout.imports(f".tools.{name}", names)
    assert imports + "\n" == black_of(imports)

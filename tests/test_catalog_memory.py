"""A catalog's build takes memory a small multiple of the catalog's size (issue 32, item 16: a
10 MB description cost 1.3 GB, and 30 MB under a 3 GB limit ended in MemoryError).

The multiplier came from `re`: a plain repeated group (`(?:[^"\\]|\\.)*`) keeps a backtracking
point for every round, 60 to 270 bytes, so a pattern run over a catalog's text cost over a hundred
times that text; and the file was read with `read(64 MiB)`, which sets the 64 MiB aside first.
The tests measure with tracemalloc (never time), on catalogs of the shapes that were costly, and
hold the class by reading every pattern codegen runs over catalog text or its own output.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import tracemalloc
from pathlib import Path
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

import pytest

import codegen
from codegen.build import build

# The patterns fixed took 60 to 270 bytes per character; a build takes about 28 per catalog byte
# and a megabyte whatever the catalog (after the warm-up below), so at 1 MiB the ratio is 29, as
# at 2 MiB (measured; 32 at 256 KiB), in half the time.
SIZE = 2**20
# A package says a tool's description 13 times (its docstring, eight payload files, two prompts,
# two docs pages), each kept as text while the build runs; rendering a page makes a few passing
# copies more (escaping, the template's pieces). Measured: 29 times the catalog at 1 and 2 MB.
PEAK_PER_BYTE = 36


def _description_yaml(size: int) -> str:
    text = "word " * (size // 5)
    return (
        "name: big\ntools:\n  - name: get_x\n    description: "
        + json.dumps(text)
        + "\n    parameters:\n      type: object\n      properties:\n"
        "        n: {type: string, description: the n}\n"
    )


def _description_json(size: int) -> str:
    tool = {
        "name": "get_x",
        "description": "word " * (size // 5),
        "parameters": {"type": "object", "properties": {"n": {"type": "string"}}},
    }
    return json.dumps({"name": "big", "tools": [tool]}, indent=2)


def _blank_lines(size: int) -> str:
    # Blank lines and comments before, between and after the tools: what the item-by-item reader skips
    # with `re`.
    tool = (
        "  - name: get_x\n    description: Gets the x of a thing.\n    parameters: {type: object}\n"
    )
    gap = "\n" * (size // 2) + "  # a note\n" * (size // 20)
    return "name: big\ntools:\n" + gap + tool + gap + tool.replace("get_x", "get_y") + gap


SHAPES = {
    "one long description (YAML)": (".yaml", _description_yaml),
    "one long description (JSON)": (".json", _description_json),
    "blank lines and comments around the tools": (".yaml", _blank_lines),
}


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A build of a small catalog first, so that what every build makes once (imports, compiled
    templates) is not counted against the large one. Its description is long enough for lines
    black must split, so black is imported here too (4 MB, against the first large build)."""
    small = tmp_path_factory.mktemp("warm") / "small.yaml"
    small.write_text(_description_yaml(10_000), encoding="utf-8")
    build([small], small.parent)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_build_takes_memory_a_small_multiple_of_the_catalog(
    shape: str, tmp_path: Path, warm: None
) -> None:
    """Issue 32 item 16: the peak of a whole build in memory (load, check, render, format, every
    file of the package) stays within PEAK_PER_BYTE times the catalog's size; it was over 120."""
    suffix, make = SHAPES[shape]
    source = tmp_path / f"big{suffix}"
    source.write_text(make(SIZE), encoding="utf-8")
    size = source.stat().st_size
    tracemalloc.start()
    try:
        result = build([source], tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.packages == ["big"]
    assert peak <= PEAK_PER_BYTE * size, f"{peak / size:.0f} bytes of memory per catalog byte"


# -- the class: every pattern codegen runs over catalog text or its output ---------------------

# Patterns whose repeated group runs a bounded number of rounds, or over text that is not the
# catalog's, each with the reason.
BOUNDED = {
    # A parameter's path inside its tool: one round a level, and nesting stops at 100 levels.
    "codegen.text.prompts._PLAIN_PATH",
    # The runtime's patterns run over model output in the generated package: the stream and
    # reply readers' own bounds hold them (docs/reliability.md), not a catalog's size.
    "codegen.runtime._jsonl._COMMENTS",
    "codegen.runtime._reply._THINK",
}


def _patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    for module in pkgutil.walk_packages(codegen.__path__, "codegen."):
        if module.name.endswith("__main__"):
            continue
        for name, value in vars(importlib.import_module(module.name)).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                found[f"{module.name}.{name}"] = value
    return found


def _groups_repeated_without_bound(items: list[Any]) -> list[str]:
    """The plain (not possessive) repeats without an upper bound of more than one character
    each round: `re` keeps a backtracking point for each of their rounds."""
    found: list[str] = []
    for op, av in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            _, high, body = av
            body = list(body)
            one_character = len(body) == 1 and body[0][0] in (
                c.LITERAL,
                c.NOT_LITERAL,
                c.ANY,
                c.IN,
                c.CATEGORY,
            )
            if high == c.MAXREPEAT and not one_character:
                found.append(str(op))
            found += _groups_repeated_without_bound(body)
        elif op == c.POSSESSIVE_REPEAT:
            found += _groups_repeated_without_bound(list(av[2]))
        elif op == c.SUBPATTERN:
            found += _groups_repeated_without_bound(list(av[3]))
        elif op == c.BRANCH:
            for alternative in av[1]:
                found += _groups_repeated_without_bound(list(alternative))
        elif op == c.ATOMIC_GROUP:
            found += _groups_repeated_without_bound(list(av))
        elif op in (c.ASSERT, c.ASSERT_NOT):
            found += _groups_repeated_without_bound(list(av[1]))
    return found


PATTERNS = _patterns()


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_no_pattern_of_codegen_repeats_a_group_without_bound_unless_possessive(name: str) -> None:
    """Issue 32 item 16, the class: a group repeated without bound over catalog text costs memory
    in proportion to the text (the description's 120 bytes a character came from one)."""
    pattern = PATTERNS[name]
    plain = _groups_repeated_without_bound(list(_parser.parse(pattern.pattern, pattern.flags)))
    assert not plain or name in BOUNDED, f"{pattern.pattern!r}: make the repeat possessive (*+)"


def test_the_bounded_list_names_only_patterns_that_exist_and_need_it() -> None:
    for name in BOUNDED:
        pattern = PATTERNS[name]
        assert _groups_repeated_without_bound(list(_parser.parse(pattern.pattern, pattern.flags)))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("codegen.catalog.items._FIRST_CONTENT", "\n" * 200_000 + "- x"),
        ("codegen.catalog.items._NOTHING_AFTER_YAML", "  # note\n" * 30_000),
        ("codegen.catalog.load._JSON_STRING", '"' + "word " * 50_000 + '"'),
        ("codegen.python.format._UNSPLITTABLE", '    "' + "word " * 50_000 + '",\n'),
    ],
)
def test_the_patterns_over_catalog_text_take_memory_independent_of_its_length(
    name: str, text: str
) -> None:
    """Issue 32 item 16: each of these took 60 to 270 bytes per character matched."""
    pattern = PATTERNS[name]
    tracemalloc.start()
    try:
        assert pattern.match(text) is not None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000

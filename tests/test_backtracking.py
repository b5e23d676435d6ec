"""The build's check of `pattern` for backtracking (CG110, `codegen/catalog/backtracking.py`), held
on generated families (issue 32, item 15: it missed `^(.*a){20}$`, `^(a|aa)+$`,
`^(([a-z])+.)+[A-Z]([a-z])+$` and `^(a?){25}a{25}$`).

Every pattern of the dangerous families, each shape of the rule over many character classes and
in several settings, must be reported; every pattern of the real catalogs and suites the tests
use, and a family of everyday safe patterns, must not be. No pattern is run: the danger of the
dangerous shapes is the ReDoS literature's (OWASP's examples, the textbook nested quantifier).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT

from codegen.build import check_catalog
from codegen.catalog.backtracking import POWER, ROUNDS, exponential_shape
from codegen.diagnostics import quoted

# The issue's four, and the literature's classics (OWASP's "evil regex" list among them).
NAMED = [
    r"^(.*a){20}$",
    r"^(a|aa)+$",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"^(a?){25}a{25}$",
    r"^(a+)+$",
    r"([a-zA-Z]+)*",
    r"(a|a?)+",
    r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
    r"^(\w+\s?)*$",
    r"(a|a)*",
    r"((ab)+)+",
]
# Character classes the shapes are built of: each matches "a" or overlaps another one below.
ATOMS = ["a", r"\w", r"\d", "[a-z]", ".", r"\s", "[^>]", "[0-9a-f]", r"\S"]
# Each shape of the rule, with X an atom (the rule's number in the module's docstring).
SHAPES = [
    "(X+)+",  # 3: a varying part whose next round starts with its character
    "(X*)*",  # 1 and 3
    "(X+)*",
    "(X*)+",
    "(X{1,})*",
    "(X|X)*",  # 2: alternatives that start alike
    "(X|XX)+",  # 3: alternatives of different lengths, after a common start
    "(X|X?)+",  # 1 and 2
    "(XX?)*",  # 3
    "(X?X?)*",  # 1
    "(X+X?)*",
    "(.*X){20}",  # 3, many rounds of a part without bound
    f"(X*b){{{POWER}}}".replace("b", "X"),
    "(X?){25}X{25}",  # 1, many rounds of bounded choices
    f"(X?){{{ROUNDS}}}",
    "((X)+.)+",
    "(X|X+)*",
    "(?:bX+)*".replace("b", "X"),
    "((X+)?)+",
]
SETTINGS = ["{}", "^{}$", "^{}b", "{}$", "x(?:{})y", "(?=x)(?:{})|z", "(?:{}){{1,2}}"]

DANGEROUS = sorted(
    {
        setting.format(shape.replace("X", atom))
        for shape in SHAPES
        for atom in ATOMS
        for setting in SETTINGS
    }
    | set(NAMED)
)


@pytest.mark.parametrize("pattern", DANGEROUS)
def test_every_pattern_of_the_dangerous_families_is_reported(pattern: str) -> None:
    """Issue 32 item 15: nested quantifiers, alternatives that overlap, a repeat of a star
    followed by what it matches, a bounded repeat of many overlapping rounds."""
    assert exponential_shape(pattern)


def _catalog_patterns() -> list[str]:
    """Every `pattern` in the catalogs, fixtures and suites under tests/ and schemas/."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "pattern" and isinstance(item, str):
                    found.add(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for folder in ("schemas", "tests"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".json", ".yaml", ".yml") or "snapshots" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            try:
                walk(json.loads(text) if path.suffix == ".json" else yaml.safe_load(text))
            except (ValueError, yaml.YAMLError):
                continue  # the invalid catalogs the tests read on purpose
    return sorted(found)


EVERYDAY = [
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    r"^\d{4}-\d{2}-\d{2}$",
    r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
    r"^(?:[a-z]+\.)+[a-z]{2,}$",
    r"^\d{1,3}(\.\d{1,3}){3}$",
    r"^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$",
    r"^#(?:[0-9a-fA-F]{3}){1,2}$",
    r"^\+?[0-9 ()-]{7,20}$",
    r"^[A-Z]{3}$",
    r"^(a|b)*$",
    r"^([01]?\d|2[0-3]):[0-5]\d$",
    r"^[\w.+-]+@[\w-]+\.[\w.-]+$",
    r"(?>a+)+",
    r"(a++)+",
    r"^(\d{1,3}\.?){4}$",
    r"^(?:\w+,)*\w+$",
    r"^/(?:[a-z0-9_-]+/)*[a-z0-9_-]+$",
    r"^(ab|cd)+$",
    r"^([a-z]+\d)+$",
    r'^("""|x)+$',
]


@pytest.mark.parametrize("pattern", [*_catalog_patterns(), *EVERYDAY])
def test_no_pattern_of_the_real_catalogs_or_an_everyday_one_is_reported(pattern: str) -> None:
    assert not exponential_shape(pattern)


def test_the_real_catalogs_hold_patterns_to_check() -> None:
    assert len(_catalog_patterns()) >= 10


def test_the_issues_four_get_the_build_warning_naming_each(tmp_path: Path) -> None:
    """Issue 32 item 15: the finding at each pattern's path, the pattern as `quoted` shows it."""
    patterns = NAMED[:4]
    properties = {f"p{i}": {"type": "string", "pattern": p} for i, p in enumerate(patterns)}
    source = tmp_path / "c.json"
    source.write_text(
        json.dumps(
            {
                "name": "patterns",
                "tools": [
                    {
                        "name": "f",
                        "description": "Does f.",
                        "parameters": {"type": "object", "properties": properties},
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    catalog, diagnostics = check_catalog(source, tmp_path)
    assert catalog is not None
    assert [(d.path, d.code, d.level, d.message) for d in diagnostics if d.code == "CG110"] == [
        (
            f"tools[0].parameters.properties.p{i}.pattern",
            "CG110",
            "warning",
            (
                f"pattern {quoted(pattern)} repeats a part that can divide a value in more than one "
                "way (like `(a+)+`, `(a|aa)*` or `(.*a){20}`): Python's `re`, which the parser runs, "
                "can take exponential time on a value that almost matches; write it so that each "
                "character has one place, or with a possessive quantifier (`a++`) or an atomic group "
                "(`(?>...)`)"
            ),
        )
        for i, pattern in enumerate(patterns)
    ]

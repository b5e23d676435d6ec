"""Issue 34 item 1: whether a catalog's default is a value of its format has one owner, the
runtime's reader of that format (`_runtime.FORMATS`), which the build asks as the parser does.
Before, the build checked with `fromisoformat` of its own: a `format: date` default `" 2024-05-01"`
was dropped (CG105) though the parser reads that text, while the same space on a `date-time`
default was corrected."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from codegen.build import build
from codegen.runtime import _runtime as rt
from tests.conftest import build_package

# Defaults of each checked format: valid, with space around, without an offset, not of it at all.
SAMPLES = {
    "date-time": (
        "2024-05-01T09:30:00+02:00",
        " 2024-05-01T09:30:00+02:00 ",
        "2024-05-01 09:30",
        "2024-05-01T09:30:00Z",
        "next tuesday",
    ),
    "date": ("2024-05-01", " 2024-05-01", "2024-05-01\t", "May 1st", "2024-13-01"),
    "uri": ("https://example.com/a", "docs/readme.md", " https://example.com "),
}
CASES = [(fmt, text) for fmt, texts in SAMPLES.items() for text in texts]


def _read(fmt: str, text: str) -> tuple[object, list[str], list[str]]:
    warnings: list[str] = []
    errors: list[str] = []
    return rt.FORMATS[fmt](text, "default", warnings, errors), warnings, errors


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, list[str]]:
    tmp_path = tmp_path_factory.mktemp("format_defaults")
    properties = {
        f"p{i}": {"type": "string", "format": fmt, "default": text}
        for i, (fmt, text) in enumerate(CASES)
    }
    catalog = {
        "name": "format_defaults",
        "tools": [
            {
                "name": "t",
                "description": "d",
                "parameters": {"type": "object", "properties": properties},
            }
        ],
    }
    source = tmp_path / "format_defaults.json"
    source.write_text(json.dumps(catalog), encoding="utf-8")
    warnings = [str(w) for w in build([source]).warnings]
    return build_package(source, tmp_path / "out"), warnings


def test_every_checked_format_has_samples() -> None:
    assert set(SAMPLES) == set(rt.FORMATS)


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[repr(c) for c in CASES])
def test_a_default_is_what_the_parser_reads_it_as(
    built: tuple[ModuleType, list[str]], index: int, case: tuple[str, str]
) -> None:
    """A default the runtime refuses is left out, said; any other is the value the runtime reads
    it as, written as the runtime reads it back without a word when the text was tidied."""
    pkg, warnings = built
    fmt, text = case
    read, read_warnings, errors = _read(fmt, text)
    said = [
        w.split(".default: ", 1)[1]
        for w in warnings
        if f"CG105: tools[0].parameters.properties.p{index}.default:" in w
    ]
    schema = pkg.TOOLS["t"].schema["properties"][f"p{index}"]
    value = getattr(pkg.parse("t", {}).arguments, f"p{index}")
    if errors:
        assert said == [f"default {text!r} is not of format {fmt}: the parameter has no default"]
        assert "default" not in schema and value is None
        return
    assert value == read
    written = schema["default"]
    again, again_warnings, _ = _read(fmt, written)
    assert again == read
    if written != text:
        how = ", ".join(w.split(":")[0] for w in read_warnings) or "as the parser reads it"
        assert said == [
            f"default {text!r} is of format {fmt} only as the parser corrects it: read as {written!r} ({how})"
        ]
        assert again_warnings == [] and written == written.strip()
    else:
        assert said == []

"""`codegen import` never writes a number the build refuses (issue 32, item 10: `1e400`, NaN and
±Infinity were written as `.inf`/`.nan` "with 0 changes", and the build then refused the catalog).

Each is left out of its object or list with a note naming its path (`importers.finite_only`), so
the catalog written builds; the tests put each spelling at each kind of place, and any number
anywhere in a tool (hypothesis).
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.catalog.load import load_catalog
from codegen.importers import import_tools
from codegen.importers.yaml_out import to_yaml

SPELLINGS = {"NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity", "1e400": "1e400",
             "-1e400": "-1e400", "1e99999": "1e99999"}  # fmt: skip
NAN = "NaN is not a JSON number: left out"
INFINITE = (
    "an infinite number (Infinity, or one beyond a float's range like 1e400) is not a JSON "
    "number: left out"
)
# Where a number can be in an OpenAI tool list: (the property's schema with NUMBER in it, the
# path of the value left out, below the property).
PLACES = {
    "default": ('{"type": "number", "default": NUMBER}', "default"),
    "maximum": ('{"type": "number", "maximum": NUMBER}', "maximum"),
    "minimum": ('{"type": "number", "minimum": NUMBER}', "minimum"),
    "enum item": ('{"type": "number", "enum": [1, NUMBER]}', "enum[1]"),
    "examples item": ('{"type": "number", "examples": [NUMBER]}', "examples[0]"),
    "inside an object default": (
        '{"type": "object", "default": {"a": NUMBER}}',
        "default.a",
    ),
    "const": ('{"type": "number", "const": NUMBER}', "const"),
}


def tool_list(schema: str) -> str:
    return json.dumps(
        [
            {
                "type": "function",
                "function": {
                    "name": "get_x",
                    "description": "Gets the x of a thing, with care.",
                    "parameters": {"type": "object", "properties": {"n": "SCHEMA"}},
                },
            }
        ]
    ).replace('"SCHEMA"', schema)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_number_json_cannot_hold_is_left_out_with_a_note_and_the_catalog_builds(
    tmp_path: Path, spelling: str, place: str
) -> None:
    """Issue 32 item 10: the import says so, and what it wrote is a catalog the build takes."""
    schema, where = PLACES[place]
    (tmp_path / "tools.json").write_text(tool_list(schema.replace("NUMBER", spelling)))
    done = run_cli("import", "tools.json", "-o", "catalog.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = NAN if spelling == "NaN" else INFINITE
    assert (
        f"tools.json: warning: tools[0].parameters.properties.n.{where}: {said}"
        in done.stderr.splitlines()
    )
    assert "with 0 changes" not in done.stderr
    written = (tmp_path / "catalog.yaml").read_text()
    assert ".inf" not in written and ".nan" not in written
    checked = run_cli("validate", "catalog.yaml", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_a_python_default_that_is_infinite_is_left_out_with_a_note(tmp_path: Path) -> None:
    """Issue 32 item 10, the other importer: `float("inf")` as a function's default."""
    (tmp_path / "infinite_tools.py").write_text(
        textwrap.dedent(
            '''\
            def get_x(limit: float = float("inf")) -> str:
                """Gets the x of a thing, up to a limit."""
                return ""
            '''
        )
    )
    done = run_cli("import", "--from", "python", "infinite_tools", "-o", "c.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        f"infinite_tools: warning: tools[0].parameters.properties.limit.default: {INFINITE}"
        in done.stderr.splitlines()
    )
    assert run_cli("validate", "c.yaml", cwd=tmp_path).returncode == 0


NUMBERS = st.floats() | st.integers(-(2**70), 2**70)
VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(min_size=1, max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


def _non_finite(value: Any) -> int:
    if isinstance(value, float):
        return 0 if math.isfinite(value) else 1
    if isinstance(value, list):
        return sum(map(_non_finite, value))
    if isinstance(value, dict):
        return sum(map(_non_finite, value.values()))
    return 0


@settings(max_examples=150, deadline=None)
@given(default=VALUES, examples=st.lists(VALUES, max_size=3), bound=NUMBERS)
def test_whatever_numbers_a_tool_holds_the_catalog_written_loads_without_a_problem(
    tmp_path_factory: pytest.TempPathFactory, default: Any, examples: list[Any], bound: float
) -> None:
    """Issue 32 item 10, the class: NaN or an infinity at any depth of any value is left out with
    one note each, and the loader finds no value in the written catalog that is not JSON."""
    parameters = {
        "type": "object",
        "properties": {"x": {"default": default, "examples": examples, "maximum": bound}},
    }
    document = [{"name": "f", "description": "Does f, with care.", "parameters": parameters}]
    catalog, _, notes = import_tools(document)
    dropped = [note for note in notes if note.endswith("is not a JSON number: left out")]
    assert len(dropped) == _non_finite(parameters)
    source = tmp_path_factory.mktemp("import") / "c.yaml"
    source.write_text(to_yaml(catalog), encoding="utf-8")
    assert load_catalog(source, source.parent).problems == ()

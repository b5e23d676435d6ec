"""`codegen import` writes every value so that it reads back the same, and says clearly what it
cannot take (issue 17, items 8 and 10)."""

from __future__ import annotations

import json
import math
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_invalid_catalogs import run_codegen

from codegen.catalog.load import load_catalog
from codegen.importers.yaml_out import to_yaml

# Text that a YAML 1.2 core reader, or a YAML 1.1 one, would read as something else written plain.
TRICKY = [
    "1e3", "0o17", ".5e1", "0x1F", "1_000", "inf", "-inf", ".inf", "-.Inf", ".nan", ".NaN", "nan",
    "~", "null", "Null", "NULL", "", "yes", "No", "ON", "off", "y", "N", "true", "False",
    "2024-01-01", "2024-01-01 09:30:00", "1:30", "1:30.5", "010", "0b101", "+1", "-.5", "1.",
    "+.5e-3", "0.", "1e-3", "=", "<<", "-", "?", ":", "#x", "@x", "`x", "| x", "> x", "%x", "!x",
    "&x", "*x", "[x]", "{x}", "x: y", "x #y", " lead", "trail ", "\t", "'", '"', "\\",
    "\x85", "a\x85b", "\u2028", "a\u2029b", "a\rb", "\r\n", "\ufeffx", "\x00", "\x1b[0m", "\x7f",
    "\U0001f600", "é\u0301", "\u200b",
]  # fmt: skip


def catalog_with(value: Any) -> dict[str, Any]:
    return {
        "name": "values",
        "tools": [
            {
                "name": "f",
                "description": value if isinstance(value, str) else "Does f.",
                "parameters": {
                    "type": "object",
                    "properties": {"x": {"default": value, "examples": [value], "enum": [value]}},
                },
            }
        ],
    }


def same(a: Any, b: Any) -> bool:
    """Equal as JSON: 1, 1.0 and True differ."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def read_back(text: str) -> tuple[Any, Any]:
    """The YAML read by codegen's loader (YAML 1.2 core) and by PyYAML's (YAML 1.1)."""
    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "c.yaml"
        source.write_text(text, encoding="utf-8")
        return load_catalog(source, Path(directory)).data, yaml.safe_load(text)


@pytest.mark.parametrize("value", TRICKY)
def test_tricky_text_reads_back_as_the_same_text(value: str) -> None:
    catalog = catalog_with(value)
    text = to_yaml(catalog)
    codegen_reads, yaml_1_1_reads = read_back(text)
    assert same(codegen_reads, catalog), text
    assert same(yaml_1_1_reads, catalog), text


@pytest.mark.parametrize("value", ["a\x85b", "a\u2028b", "a\u2029b", "a\rb"])
def test_line_breaks_other_than_newline_are_written_escaped(value: str) -> None:
    long = value * 60  # a description this long would be a block scalar, which cannot escape
    text = to_yaml(catalog_with(long))
    assert value[1] not in text
    codegen_reads, _ = read_back(text)
    assert same(codegen_reads, catalog_with(long))


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(TRICKY),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(JSON)
@example("1e3")
@example({"k": ["a\x85b", ".5e1"]})
def test_any_json_value_round_trips_through_the_writer_and_the_loader(value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        return
    catalog = catalog_with(value)
    codegen_reads, yaml_1_1_reads = read_back(to_yaml(catalog))
    assert same(codegen_reads, catalog)
    assert same(yaml_1_1_reads, catalog)


# -- through the command -----------------------------------------------------------------------


def tool_list(description: str) -> str:
    return (
        '[{"name": "f", "description": "' + description + '", '
        '"parameters": {"type": "object", "properties": {"x": {"type": "string", '
        '"enum": ["1e3", "0o17", ".5e1", "yes"]}}}}]'
    )


def test_an_escaped_emoji_in_json_input_is_the_emoji(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(tool_list("Smile \\ud83d\\ude00."), encoding="utf-8")
    done = run_codegen("import", "tools.json", "-o", "c.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = load_catalog(tmp_path / "c.yaml", tmp_path).data
    assert data["tools"][0]["description"] == "Smile \U0001f600."
    assert data["tools"][0]["parameters"]["properties"]["x"]["enum"] == [
        "1e3",
        "0o17",
        ".5e1",
        "yes",
    ]
    built = run_codegen("build", "c.yaml", cwd=tmp_path)
    assert built.returncode == 0, built.stderr


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_lone_surrogate_in_the_input_is_a_clear_error(tmp_path: Path, suffix: str) -> None:
    (tmp_path / f"tools{suffix}").write_text(tool_list("Half \\ud83d."), encoding="utf-8")
    done = run_codegen("import", f"tools{suffix}", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"codegen: tools{suffix}: [0].description: lone surrogate '\\ud83d' is not Unicode text\n"
    )


def test_an_integer_too_long_for_python_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(
        tool_list("f").replace('"type": "string"', '"default": 1' + "0" * 5000), encoding="utf-8"
    )
    done = run_codegen("import", "tools.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "codegen: tools.json: an integer of 5,001 digits: codegen reads at most 4,300 "
        "(Python's limit for integer text)\n"
    )


# -- import --from python runs the module ------------------------------------------------------


def module(tmp_path: Path, body: str) -> Path:
    (tmp_path / "mod.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return tmp_path


def test_an_error_raised_by_the_module_is_reported_as_the_modules(tmp_path: Path) -> None:
    module(
        tmp_path,
        """\
        def helper():
            raise ValueError("no config file")

        helper()
        """,
    )
    done = run_codegen("import", "mod", "--from", "python", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "codegen: mod: importing 'mod' raised ValueError: no config file\n"
        "  mod.py:4 in <module>\n"
        "  mod.py:2 in helper\n"
    )


def test_a_module_calling_sys_exit_does_not_make_import_succeed(tmp_path: Path) -> None:
    module(tmp_path, "import sys\n\nsys.exit(0)\n")
    done = run_codegen("import", "mod", "--from", "python", "-o", "c.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "codegen: mod: importing 'mod' called sys.exit(0)\n"
    assert not (tmp_path / "c.yaml").exists()


def test_the_help_says_that_import_from_python_runs_the_module() -> None:
    done = run_codegen("import", "--help")
    assert "runs the module's code" in " ".join(done.stdout.split())

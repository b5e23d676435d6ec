"""Catalog files made to hurt the build, and odd ones: a clear error naming file and line, in
bounded time and memory, never a crash (issue 17, items 9 and 10)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codegen.build import check_catalog
from codegen.catalog.load import MAX_CATALOG_BYTES, MAX_NESTING, load_catalog
from codegen.diagnostics import CatalogError
from codegen.importers.document import read_document
from tests.test_cli import ROOT

CATALOG = textwrap.dedent(
    """\
    name: odd
    description: A catalog.
    tools:
      - name: f
        description: Does f.
        parameters:
          type: object
          properties:
            x:
              type: integer
              default: DEFAULT
    """
)


def codegen(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def errors_of(source: Path) -> list[str]:
    catalog, diagnostics = check_catalog(source, source.parent)
    assert catalog is None
    return [str(d) for d in diagnostics if d.level == "error"]


# -- nesting -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("flow.yaml", "name: deep\nx: " + "[" * 50_000 + "]" * 50_000 + "\n"),
        ("maps.yaml", "name: deep\nx: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n"),
        ("deep.json", '{"name": "deep",\n"x": ' + "[" * 50_000 + "]" * 50_000 + "}\n"),
        # Past libyaml's own limit (1,000 since libyaml 0.2.6) and under the depth that makes
        # codegen measure first: the fallback to the Python composer must not recurse.
        ("mid.yaml", "name: deep\nx: " + "[" * 5_000 + "]" * 5_000 + "\n"),
    ],
)
def test_a_file_nested_50000_deep_is_an_error_not_a_crash(
    tmp_path: Path, file: str, text: str
) -> None:
    (tmp_path / file).write_text(text, encoding="utf-8")
    for command in ("validate", "build"):
        result = codegen(tmp_path, command, file)
        assert result.returncode == 1, result.stderr
        assert result.stderr.splitlines()[0] == (
            f"{file}:2: (file): nested deeper than {MAX_NESTING} levels"
        ), result.stderr
    assert not (tmp_path / "generated").exists()


def test_nesting_up_to_the_limit_is_read(tmp_path: Path) -> None:
    depth = MAX_NESTING - 1  # the document's own mapping is the first level
    source = tmp_path / "c.yaml"
    source.write_text("x: " + "[" * depth + "]" * depth + "\n", encoding="utf-8")
    value = load_catalog(source, tmp_path).data["x"]
    for _ in range(depth - 1):
        (value,) = value
    assert value == []
    source.write_text("x: " + "[" * (depth + 1) + "]" * (depth + 1) + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as failure:
        load_catalog(source, tmp_path)
    assert [str(d) for d in failure.value.diagnostics] == [
        f"c.yaml:1: (file): nested deeper than {MAX_NESTING} levels"
    ]


def test_block_nesting_is_limited_too(tmp_path: Path) -> None:
    lines = ["x:"] + [" " * i + "a:" for i in range(1, 2 * MAX_NESTING)]
    lines.append(" " * 2 * MAX_NESTING + "b: 1")
    source = tmp_path / "c.yaml"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert errors_of(source) == [
        f"c.yaml:{MAX_NESTING + 1}: (file): nested deeper than {MAX_NESTING} levels"
    ]


# -- aliases -----------------------------------------------------------------------------------

LAUGHS = textwrap.dedent(
    """\
    name: laughs
    description: A catalog.
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
    tools: [*i]
    """
)


def test_a_billion_laughs_is_refused_by_validate_and_build(tmp_path: Path) -> None:
    (tmp_path / "laughs.yaml").write_text(LAUGHS, encoding="utf-8")
    for command in ("validate", "build"):
        result = codegen(tmp_path, command, "laughs.yaml", timeout=30)
        assert result.returncode == 1
        assert result.stderr.splitlines()[0] == (
            "laughs.yaml:3: (file): aliases repeat more of the document than codegen expands "
            "(over 100,000 nodes): write it out, or share it with $defs and $ref"
        ), result.stderr


def test_a_few_aliases_are_read_as_their_values(tmp_path: Path) -> None:
    source = tmp_path / "c.yaml"
    source.write_text("a: &x {type: string}\nb: [*x, *x]\n", encoding="utf-8")
    assert load_catalog(source, tmp_path).data == {
        "a": {"type": "string"},
        "b": [{"type": "string"}, {"type": "string"}],
    }


def test_an_alias_inside_its_own_anchor_is_an_error(tmp_path: Path) -> None:
    source = tmp_path / "c.yaml"
    source.write_text("name: loop\nx: &x\n  - *x\n", encoding="utf-8")
    with pytest.raises(CatalogError) as failure:
        load_catalog(source, tmp_path)
    assert [str(d) for d in failure.value.diagnostics] == [
        f"c.yaml:2: (file): nested deeper than {MAX_NESTING} levels"
    ]


# -- what is read ------------------------------------------------------------------------------


def test_a_fifo_among_the_sources_is_refused_not_read_forever(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    os.mkfifo(tmp_path / "schemas" / "pipe.yaml")
    for args in (["validate"], ["build"], ["validate", "schemas/pipe.yaml"]):
        result = codegen(tmp_path, *args, timeout=30)
        assert result.returncode in (1, 2), result.stderr
        assert "schemas/pipe.yaml:1: (file): not a regular file (a FIFO)" in result.stderr, (
            result.stderr
        )


def test_a_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "zero.yaml").symlink_to("/dev/zero")
    result = codegen(tmp_path, "build", timeout=30)
    assert result.returncode in (1, 2)
    assert "schemas/zero.yaml:1: (file): not a regular file (a character device)" in result.stderr


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    source = tmp_path / "huge.yaml"
    with source.open("wb") as handle:
        handle.truncate(MAX_CATALOG_BYTES + 1)  # sparse: no disk used, and never read
    with pytest.raises(CatalogError) as failure:
        load_catalog(source, tmp_path)
    assert [str(d) for d in failure.value.diagnostics] == [
        (
            f"huge.yaml:1: (file): {MAX_CATALOG_BYTES + 1:,} bytes: larger than the "
            f"{MAX_CATALOG_BYTES // 2**20} MiB codegen reads"
        )
    ]


# -- values Python cannot take -----------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_an_integer_of_5000_digits_is_an_error_with_its_line(tmp_path: Path, suffix: str) -> None:
    source = tmp_path / f"c{suffix}"
    if suffix == ".json":
        source.write_text('{"name": "c",\n "x": 1' + "0" * 5000 + "}\n", encoding="utf-8")
        line = 2
    else:
        source.write_text(CATALOG.replace("DEFAULT", "1" + "0" * 5000), encoding="utf-8")
        line = 11
    with pytest.raises(CatalogError) as failure:
        load_catalog(source, tmp_path)
    assert [str(d) for d in failure.value.diagnostics] == [
        (
            f"c{suffix}:{line}: (file): an integer of 5,001 digits: codegen reads at most 4,300 "
            "(Python's limit for integer text)"
        )
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            CATALOG.replace("Does f.", '"bad \\ud800 text"'),
            "c.yaml:5: tools[0].description: lone surrogate '\\ud800' is not Unicode text",
        ),
        (
            CATALOG.replace("x:\n", '"\\udfff":\n'),
            (
                "c.yaml:9: tools[0].parameters.properties: key '\\udfff': lone surrogate "
                "'\\udfff' is not Unicode text"
            ),
        ),
    ],
)
def test_lone_surrogates_in_a_catalog_are_errors_with_their_place(
    tmp_path: Path, text: str, expected: str
) -> None:
    source = tmp_path / "c.yaml"
    source.write_text(text.replace("DEFAULT", "1"), encoding="utf-8")
    assert errors_of(source) == [expected]
    result = codegen(tmp_path, "build", "c.yaml")
    assert result.returncode == 1
    assert "internal error" not in result.stderr and "bug in codegen" not in result.stderr
    assert expected in result.stderr.splitlines()


@pytest.mark.parametrize("character", ["\U0001f600", "\U00010000", "\U0010ffff", "\U0002070e"])
def test_an_escaped_surrogate_pair_in_a_yaml_catalog_is_its_character_as_import_reads_it(
    tmp_path: Path, character: str
) -> None:
    """One fact, one owner (`codegen.unicode_text`): JSON writes a character beyond U+FFFF as two
    escaped halves, and YAML 1.2 contains JSON. `codegen import` read such a pair as the
    character and the build said "lone surrogate" of the same text in a catalog; now both read
    the character, in a value, a key and an enum, and a half alone is still an error."""
    pair = json.dumps(character)  # "\\ud83d\\ude00", quotes included
    text = (
        CATALOG.replace("Does f.", f"Smile {pair[1:-1]}".join('""'))
        .replace("x:\n", f"{pair}:\n")
        .replace("default: DEFAULT", f"enum: [{pair}]")
        .replace("integer", "string")
    )
    source = tmp_path / "c.yaml"
    source.write_text(text, encoding="utf-8")
    tool = load_catalog(source, tmp_path).data["tools"][0]
    assert tool["description"] == f"Smile {character}"
    assert tool["parameters"]["properties"] == {character: {"type": "string", "enum": [character]}}
    assert read_document(text)["tools"][0] == tool
    assert check_catalog(source, tmp_path)[1] == []
    source.write_text(text.replace(pair[1:-1], pair[1:7]), encoding="utf-8")
    half = pair[1:7]  # the first half's escape, as the message shows it
    assert errors_of(source)[0] == (
        f"c.yaml:5: tools[0].description: lone surrogate '{half}' is not Unicode text"
    )


# -- a very long enum --------------------------------------------------------------------------


def test_an_enum_of_30000_values_is_checked_in_one_pass(tmp_path: Path) -> None:
    # Each value was compared with a set made again of all before it (45 s for 30,000 values);
    # bench/bench_enum.py measures the time now. Here: every duplicate is still found, once.
    values = [f"v{i}" for i in range(30_000)] + ["v17", "v29999", 1, 1.0, True]
    source = tmp_path / "c.yaml"
    source.write_text(
        CATALOG.replace("type: integer", "enum: " + json.dumps(values)).replace(
            "default: DEFAULT", "description: One value."
        ),
        encoding="utf-8",
    )
    assert errors_of(source) == [
        "c.yaml:10: tools[0].parameters.properties.x.enum[30000]: duplicate enum value 'v17'",
        "c.yaml:10: tools[0].parameters.properties.x.enum[30001]: duplicate enum value 'v29999'",
    ]


# -- patterns that backtrack -------------------------------------------------------------------

NESTED = [r"^(a+)+$", r"(a|a)*", r"(\w+\s?)*", r"((ab)+)+", r"^([a-zA-Z0-9]+\s?)*$"]
LINEAR = [
    r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
    r"^(a|b)*$",
    r"^(?:[a-z]+\.)+[a-z]{2,}$",
    r"^[\w.+-]+@[\w-]+\.[\w.-]+$",
    r"^([01]?\d|2[0-3]):[0-5]\d$",
    r"(?>a+)+",
    r"(a++)+",
]


def test_a_pattern_with_nested_quantifiers_gets_a_warning_naming_it(tmp_path: Path) -> None:
    properties = {
        f"p{i}": {"type": "string", "pattern": pattern} for i, pattern in enumerate(NESTED + LINEAR)
    }
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
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    catalog, diagnostics = check_catalog(source, tmp_path)
    assert catalog is not None
    warned = [(d.path, d.message) for d in diagnostics if d.code == "CG110"]
    assert warned == [
        (
            f"tools[0].parameters.properties.p{i}.pattern",
            (
                f"pattern {pattern!r} repeats a part that can divide a value in more than one way "
                "(like `(a+)+`, `(a|aa)*` or `(.*a){20}`): Python's `re`, which the parser runs, "
                "can take exponential time on a value that almost matches; write it so that each "
                "character has one place, or with a possessive quantifier (`a++`) or an atomic "
                "group (`(?>...)`)"
            ),
        )
        for i, pattern in enumerate(NESTED)
    ]


def test_a_default_beside_a_reference_jsonschema_cannot_follow_builds(tmp_path: Path) -> None:
    """Issue 32 (found by tests/test_catalog_quotes.py's sweep): a `$dynamicRef` beside a default
    made jsonschema raise while the default was checked, reported as a bug in codegen."""
    source = tmp_path / "c.yaml"
    source.write_text(
        CATALOG.replace("type: integer", "type: string\n          $dynamicRef: '#nowhere'").replace(
            "DEFAULT", "x"
        ),
        encoding="utf-8",
    )
    catalog, diagnostics = check_catalog(source, tmp_path)
    assert catalog is not None
    assert [(d.code, d.path) for d in diagnostics if d.level != "note"] == [
        ("CG101", "tools[0].parameters.properties.x.$dynamicRef")
    ]

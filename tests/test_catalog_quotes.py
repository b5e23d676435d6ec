"""A catalog's content is never echoed beyond a short excerpt (issue 32, item 3: a catalog that is a
link to a file holding a key was printed whole by `codegen build --check`, into CI logs).

`codegen.diagnostics.quoted` owns how much of a catalog value a message shows (`excerpt` for text
shown bare, `format_path` for a path's keys): these tests give every command every kind of odd
source, and put a secret under every key at every level of real catalogs, and look for the
secret's tail in everything codegen says.
"""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from codegen.build import check_loaded
from codegen.diagnostics import EXCERPT, QUOTE_LIMIT, CatalogError, excerpt, format_path, quoted
from codegen.lint import lint
from codegen.payloads.files import payloads

sys.path.insert(0, str(ROOT / "fuzz"))

import catalog_oddities as oddities

TAIL = "TAILOFTHESECRET"
SECRET = "sk-live-" + "A1b2C3d4" * 6 + TAIL


# Every run of the secret's characters one longer than a quote may show: a text shows more than
# QUOTE_LIMIT of them in a row exactly when it holds one of these (only the secret's start may be
# shown). 31 searches of a text, where finding the longest run took up to 2,556.
TOO_LONG = [SECRET[start : start + QUOTE_LIMIT + 1] for start in range(len(SECRET) - QUOTE_LIMIT)]


def assert_not_echoed(text: str) -> None:
    assert TAIL not in text, text
    assert not any(run in text for run in TOO_LONG), text


# -- every command, every odd source ------------------------------------------------------------

SOURCES: dict[str, bytes] = {
    "a key file": f"{SECRET}\n".encode(),
    "a quoted token": f'"{SECRET}"\n'.encode(),
    "a number": b"9" * 200 + b"\n",
    "a list": f"- {SECRET}\n- {SECRET}\n".encode(),
    "a JSON string": f'"{SECRET}"'.encode(),
    "binary": b"\x00\x01" + SECRET.encode() + b"\xff\xfe",
    "a secret as the catalog's name": f"name: {SECRET}\ntools: []\n".encode(),
    "a secret as a key": f"name: c\n{SECRET}: 1\ntools: []\n".encode(),
    "a YAML syntax error on the secret's line": f"{SECRET}: [a, b\n".encode(),
    "a JSON syntax error after the secret": f'{{"name": "{SECRET}", }}'.encode(),
}
COMMANDS = {
    "build": ["build"],
    "build --check": ["build", "--check"],
    "validate": ["validate"],
    "lint": ["lint"],
    "import": ["import", "-o", "imported.yaml"],  # the catalog it writes holds the values
}


@pytest.mark.parametrize("linked", [False, True], ids=["file", "link"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("command", COMMANDS)
def test_no_command_echoes_a_source_beyond_an_excerpt(
    tmp_path: Path, command: str, source: str, linked: bool
) -> None:
    """Issue 32 item 3: `build --check` printed "'<the key>' is not of type 'object'"."""
    suffix = ".json" if "JSON" in source else ".yaml"
    secret_file = tmp_path / f"secret{suffix}"
    secret_file.write_bytes(SOURCES[source])
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    catalog = schemas / f"catalog{suffix}"
    if linked:
        catalog.symlink_to(secret_file)
    else:
        catalog.write_bytes(SOURCES[source])
    done = run_cli(
        *COMMANDS[command][:1], f"schemas/{catalog.name}", *COMMANDS[command][1:], cwd=tmp_path
    )
    assert done.returncode != 0 or command in ("import", "lint"), done
    assert_not_echoed(done.stdout + done.stderr)


@pytest.mark.parametrize(
    ("source", "kind"),
    [("a key file", "string"), ("a number", "integer"), ("a quoted token", "string")],
)
def test_a_catalog_that_is_one_value_is_said_by_its_type(
    tmp_path: Path, source: str, kind: str
) -> None:
    """Issue 32 item 3: the value itself is not quoted at all, only what it is."""
    (tmp_path / "c.yaml").write_bytes(SOURCES[source])
    done = run_cli("validate", "c.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == (
        f"c.yaml:1: (root): a catalog is a mapping with 'name' and 'tools'; this file holds one {kind}"
    )


# -- every key at every level of real catalogs --------------------------------------------------

FORMS: dict[str, Any] = {
    "text": SECRET,
    "a list of it": [SECRET],
    "an object holding it": {"k": SECRET},
    "an object keyed by it": {SECRET: 1},
}
BASES = oddities.base_catalogs()


def _places() -> list[tuple[int, str, tuple[Any, ...]]]:
    """One place of each kind and depth in each base catalog (deeper places repeat the rules)."""
    found: dict[tuple[int, str, int], tuple[Any, ...]] = {}
    for index, loaded in enumerate(BASES):
        for kind, path in oddities.places(loaded.data):
            found.setdefault((index, kind, len(path)), path)
    return [(index, kind, path) for (index, kind, _), path in found.items()]


PLACES = _places()
# Every key a place knows, structural ones too (`type`, `enum`, `$ref`, `name`, bounds), a
# misspelt one, and the secret itself as a key.
CASES = [
    (index, kind, path, word)
    for index, kind, path in PLACES
    for word in [*sorted(oddities.known(kind)), "descriptoin", SECRET]
]


def _everything_said(loaded: Any) -> str:
    """Every finding of the build (the catalog's, the payloads') and of lint, as text."""
    try:
        catalog, found = check_loaded(loaded)
    except CatalogError as exc:
        return "\n".join(map(str, exc.diagnostics))
    said = [str(d) for d in found]
    if catalog is not None:
        said += [str(d) for d in payloads(catalog)[1]]
    return "\n".join(said)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("index", "kind", "path", "word"),
    CASES,
    ids=[f"{BASES[i].file}:{format_path(p)}.{excerpt(w)}" for i, _, p, w in CASES],
)
def test_no_finding_quotes_a_catalog_value_beyond_an_excerpt(
    index: int, kind: str, path: tuple[Any, ...], word: str, form: str
) -> None:
    """Issue 32 item 3, the class: whatever key holds a long value (or is one), at whatever level,
    every finding shows at most its start."""
    odd, _ = oddities.with_oddity(BASES[index], path, word, copy.deepcopy(FORMS[form]))
    assert_not_echoed(_everything_said(odd))


def test_lint_quotes_no_catalog_value_beyond_an_excerpt(tmp_path: Path) -> None:
    """Issue 32 item 3: lint's own rules (a description's stated default, an enum's values)."""
    catalog = tmp_path / "c.yaml"
    catalog.write_text(
        "name: c\ntools:\n  - name: get_x\n    description: Gets the x of a thing, with care.\n"
        "    parameters:\n      type: object\n      properties:\n        mode:\n"
        f"          description: 'the mode; defaults to {SECRET}.'\n"
        f"          enum: [x{SECRET}, y{SECRET}]\n          default: c{SECRET}\n",
        encoding="utf-8",
    )
    found = lint([catalog], tmp_path)
    assert {f.code for f in found} >= {"CG004", "CG005"}
    assert_not_echoed("\n".join(str(f) for f in found))


# -- the owner ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("short", "'short'"),
        ("x" * QUOTE_LIMIT, repr("x" * QUOTE_LIMIT)),
        (SECRET, f"{SECRET[:EXCERPT]!r}… ({len(SECRET)} characters)"),
        (10**60, f"{str(10**60)[:EXCERPT]}… (61 digits)"),
        ([SECRET, 1], f"[{SECRET[:EXCERPT]!r}…, 1]"),
        ({SECRET: 1}, f"{{{SECRET[:EXCERPT]!r}…: 1}}"),
        (list(range(100)), "[0, 1, 2, 3, 4, … (100 items)"),
        (True, "True"),
        (None, "None"),
        (1.5, "1.5"),
    ],
)
def test_quoted_shows_a_long_value_by_its_start_and_its_length(value: Any, shown: str) -> None:
    assert quoted(value) == shown


def test_format_path_shows_a_long_key_by_its_start() -> None:
    assert format_path(("tools", 0, SECRET)) == f"tools[0].{SECRET[:EXCERPT]}…"


# Modules whose `!r` is not a message about catalog content.
NOT_MESSAGES = {
    "codegen/diagnostics.py",  # the owner: `quoted` itself
    "codegen/python/literals.py",  # Python literals of generated code
    "codegen/package_files.py",  # its own __repr__
    "codegen/catalog/ir.py",  # `Packed`'s own __repr__
    "codegen/docs_tables.py",  # its own page markers
    "codegen/importers/python.py",  # the module name given on the command line
    "codegen/sandbox.py",  # the tool name given on the command line
}


def test_every_message_quotes_catalog_content_through_quoted() -> None:
    """Issue 32 item 3, one owner: no f-string of codegen writes a value with `!r` (jsonschema's
    messages go through `worded`): a new message cannot quote a catalog value whole."""
    found = []
    for path in sorted((ROOT / "codegen").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in NOT_MESSAGES or name.startswith("codegen/runtime/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FormattedValue) and node.conversion == ord("r"):
                found.append(f"{name}:{node.lineno}")
    assert found == []

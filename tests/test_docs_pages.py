"""The user docs (README.md and docs/*.md): tables rendered from the code are current, the list of
parser codes is the generated packages' own, every relative link resolves, and the entry points
the docs name (`python -m codegen`, the pre-commit hook) run."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from markdown_it import MarkdownIt

from codegen import docs_tables
from codegen.build import build
from codegen.cli import _parser
from codegen.runtime import _codes, _repair

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GENERATED = ROOT / "generated"


def test_the_tables_rendered_from_the_code_are_the_committed_ones(
    request: pytest.FixtureRequest,
) -> None:
    rendered = docs_tables.render()
    if request.config.getoption("--update-snapshots"):
        for path, text in rendered.items():
            path.write_text(text, encoding="utf-8")
    stale = [
        path.name for path, text in rendered.items() if path.read_text(encoding="utf-8") != text
    ]
    assert not stale, (
        f"docs pages {stale} differ from the code's tables: run `.venv/bin/{docs_tables.REFRESH}` "
        "(or pytest --update-snapshots) and read the diff"
    )


def test_every_command_and_option_of_the_parser_is_on_the_cli_page() -> None:
    cli_page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    parser = _parser()
    (commands,) = (a for a in parser._actions if a.dest == "command")
    assert commands.choices
    for name, command in commands.choices.items():
        assert f"### `codegen {name}`" in cli_page
        for action in command._actions:
            for flag in action.option_strings:
                assert flag in cli_page, (name, flag)


# The forms no example catalog has, whose codes only their own code emits.
RARE_FORMS = """\
name: rare_forms
tools:
  - name: forms
    description: A null-only parameter and a oneOf whose branches overlap.
    parameters:
      type: object
      properties:
        nothing: {type: "null"}
        shape: {oneOf: [{type: string}, {type: string, maxLength: 3}]}
"""


@pytest.fixture(scope="module")
def generated_source(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The generated packages' code and that of a catalog of the rare forms, without their
    table of codes (which lists every code); built and read once for the two tests of codes."""
    source = tmp_path_factory.mktemp("rare_forms") / "rare_forms.yaml"
    source.write_text(RARE_FORMS, encoding="utf-8")
    rare = [text for path, text in build([source]).files.items() if path.endswith(".py")]
    paths = sorted(p for p in GENERATED.rglob("*.py") if p.name != "_codes.py")
    return "\n".join([*(p.read_text(encoding="utf-8") for p in paths), *rare])


def test_every_listed_code_is_one_the_generated_packages_emit(generated_source: str) -> None:
    # A code renamed or dropped in the runtime leaves its row behind: the row must go too.
    for code in _codes.CODES:
        assert re.search(rf"""["']{code}[:"']""", generated_source), code


def test_every_code_the_generated_packages_emit_is_listed(generated_source: str) -> None:
    # The generated code writes a code with a path as f"code:{path}" or as a Detail
    # (`detail("code", path, context)`), and the runtime's repairs keep theirs in a table: a new
    # code in any of these needs its row.
    emitted = set(re.findall(r"""\bf["']([a-z]+(?:_[a-z]+)+):\{""", generated_source))
    emitted |= set(re.findall(r"""\bdetail\(\s*["']([a-z]+(?:_[a-z]+)+)["']""", generated_source))
    emitted |= set(_repair.CODES)
    # the scan sees what it should: both forms
    assert {"string_literal_converted_to_integer", "out_of_range"} <= emitted
    assert emitted - set(_codes.CODES) == set()


def test_every_finding_code_of_build_and_lint_is_in_the_one_table() -> None:
    from codegen.lint import RULES

    table = docs_tables.findings_table()
    assert set(RULES) == set(docs_tables.CODES)
    assert all(f"| {code} | {level} | `{name}` |" in table for code, (level, name) in RULES.items())


def _slug(text: str) -> str:
    # GitHub's anchors: lower case, punctuation dropped except - and _, spaces as -.
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache  # a page is read once, however many links point into it
def _anchors_and_links(path: Path) -> tuple[frozenset[str], tuple[str, ...]]:
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    anchors: set[str] = set()
    links: list[str] = []
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[i + 1]
            title = "".join(
                c.content for c in inline.children or [] if c.type in ("text", "code_inline")
            )
            slug = _slug(title)
            anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
        for child in token.children or []:
            if child.type == "link_open":
                links.append(str(child.attrs["href"]))
    return frozenset(anchors), tuple(links)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_to_a_file_and_anchor_that_exist(page: Path) -> None:
    _, links = _anchors_and_links(page)
    for link in links:
        parts = urlsplit(link)
        if parts.scheme or link.startswith("//"):
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        assert target.exists(), f"{page.name}: {link}: no such file"
        if parts.fragment:
            assert target.suffix == ".md", f"{page.name}: {link}: an anchor in a non-Markdown file"
            anchors, _ = _anchors_and_links(target)
            assert parts.fragment in anchors, f"{page.name}: {link}: no such heading"


def _table_rows(text: str) -> list[tuple[int, int, int]]:
    """(line, cells the row's line holds, cells of its table's header) for each table row: GFM
    splits a row at every `|` not escaped, inside a code span too, and the parser keeps only as
    many cells as the header has, silently."""
    lines = text.splitlines()
    found: list[tuple[int, int, int]] = []
    header, in_head = 0, False
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        in_head = token.type == "thead_open" or (in_head and token.type != "thead_close")
        if token.type == "tr_open" and token.map is not None:
            line = lines[token.map[0]].strip()
            cells = len(re.split(r"(?<!\\)\|", line.removeprefix("|").removesuffix("|")))
            header = cells if in_head else header
            found.append((token.map[0] + 1, cells, header))
    return found


@pytest.mark.parametrize(
    "page", [*PAGES, ROOT / "bench" / "README.md"], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_every_table_row_has_the_cells_of_its_header(page: Path) -> None:
    """A `|` in a code span of a table cell (`str | None`) ended the cell, and the reader never
    saw the rest of the row (catalog.md's row of loose type names lost all but its first words)."""
    for line, cells, header in _table_rows(page.read_text(encoding="utf-8")):
        assert cells == header, f"{page.name}:{line}: {cells} cells, its header has {header}"


def test_the_table_checker_sees_a_pipe_in_a_code_span() -> None:
    table = "| a | b |\n| --- | --- |\n| `x \\| y` | z |\n| `x | y` | z |\n"
    assert _table_rows(table) == [(1, 2, 2), (3, 2, 2), (4, 3, 2)]


def test_the_link_checker_sees_links_and_headings() -> None:
    anchors, links = _anchors_and_links(ROOT / "docs" / "README.md")
    assert "codegen-documentation" in anchors
    assert "catalog.md" in links


def test_the_docs_index_links_every_page() -> None:
    _, links = _anchors_and_links(ROOT / "docs" / "README.md")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert pages <= {urlsplit(link).path for link in links}


def test_the_readme_test_command_is_what_ci_runs() -> None:
    # .ci/run runs the first line with pytest inside a ```sh block of the README.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("\n```", 1)[0]
    command = next(line for line in block.splitlines() if "pytest" in line)
    assert command == (
        'python3 -m venv .venv && .venv/bin/pip install ".[test]" && .venv/bin/python -m pytest -q -n auto'
    )


def test_python_dash_m_codegen_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codegen", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: codegen ")
    assert "build" in done.stdout and "lint" in done.stdout


def test_python_dash_m_codegen_checks_the_committed_output() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codegen", "build", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "generated is up to date" in done.stdout


def test_the_pre_commit_hook_runs_codegen_build_check() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert hook["id"] == "codegen-check"
    assert hook["language"] == "python"
    # File names would become SOURCE arguments and narrow the check to them.
    assert hook["pass_filenames"] is False
    command, *argv = shlex.split(hook["entry"])
    assert project["scripts"][command] == "codegen.cli:run"
    args = _parser().parse_args(argv)
    assert (args.command, args.check, args.sources) == ("build", True, [])


def test_the_distribution_has_a_name_of_its_own() -> None:
    # PyPI's `codegen` is another project; the import name and the command stay `codegen`.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "toolcall-codegen"
    assert project["scripts"] == {"codegen": "codegen.cli:run"}


def test_the_emitted_files_table_names_every_file_a_package_holds() -> None:
    """Issue 32: the table of what `codegen build` emits missed eight of a package's modules. Each
    entry of a built package is named in it, as itself or as a path under it (`tools/<tool>.py`)."""
    page = (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8")
    table = page.split("## What `codegen build` emits")[1].split("\n\n")[2]
    named = set(
        re.findall(r"`([^`]+)`", "\n".join(row.split(" | ")[0] for row in table.splitlines()))
    )
    for package in sorted(p for p in GENERATED.iterdir() if p.is_dir()):
        entries = sorted(p.name for p in package.iterdir() if p.name != "__pycache__")
        missing = [e for e in entries if not any(n == e or n.startswith(f"{e}/") for n in named)]
        assert missing == [], (package.name, missing)

"""The Markdown docs: well-formed when a real Markdown parser (markdown-it-py) reads them, whatever
the catalog text holds, with a table row per parameter and the right cells."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from codegen.build import build, check_catalogs
from codegen.python.namespace import package_names
from codegen.python.render import package_bound
from codegen.text.describe import rows
from codegen.text.markdown import block, code, inline, printable

ROOT = Path(__file__).resolve().parent.parent
MD = MarkdownIt("commonmark").enable("table")


def _tables(text: str) -> list[list[list[str]]]:
    """Each table as rows of cell texts (the header row first)."""
    tables: list[list[list[str]]] = []
    tokens = MD.parse(text)
    for i, token in enumerate(tokens):
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            tables[-1].append([])
        elif token.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            tables[-1][-1].append(_text(token))
    return tables


def _text(token: Token) -> str:
    return "".join(
        child.content for child in token.children or [] if child.type in ("text", "code_inline")
    )


def test_hostile_catalog_docs_render_into_whole_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    source = Path("tests/fixtures/hostile.yaml")
    (catalog,), _ = check_catalogs([source])
    files = build([source]).files
    index = _tables(files["hostile/docs/index.md"])
    assert len(index) == 1
    assert [len(row) for row in index[0]] == [2] * (len(catalog.tools) + 1)
    assert [row[0] for row in index[0][1:]] == [t.wire_name for t in catalog.tools]
    python = package_names(catalog, package_bound())
    for tool in catalog.tools:
        page = files[f"hostile/docs/tools/{python.module(tool)}.md"]
        listed = list(rows(tool.args))
        names, *tables = _tables(page)
        # The name each provider is sent: a row per provider, the name as a cell of code.
        assert [row[0] for row in names] == ["provider", "anthropic", "gemini", "mcp", "openai"]
        assert [row[1] for row in names[1:]] == [
            catalog.provider_names[provider].get(tool.wire_name, tool.wire_name)
            for provider in ("anthropic", "gemini", "mcp", "openai")
        ]
        if not listed:
            assert tables == []
            continue
        parameters, coercions = tables
        assert [len(row) for row in parameters] == [7] * (len(listed) + 1)
        assert [len(row) for row in coercions] == [2] * (len(listed) + 1)
        # The name cell shows the wire name exactly (non-printable characters as escapes).
        assert [row[0] for row in parameters[1:]] == [printable(r.path) for r in listed]
        assert [row[6] for row in parameters[1:]] == [
            " ".join(printable(w) for w in r.field.description.split()) for r in listed
        ]
        heading = next(t for t in MD.parse(page) if t.type == "inline")
        assert _text(heading) == " ".join(printable(w) for w in tool.wire_name.split())


HOSTILE = st.lists(
    st.sampled_from([*"ab |`*_[]<>&#!\\-+=.)1~\n\r\t\u2028\x00", "<b>", "&amp;", "```"]),
    max_size=25,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_a_cell_shows_the_text_as_written(text: str) -> None:
    table = f"| a | b |\n| --- | --- |\n| {inline(text)} | {code(text, cell=True)} |\n"
    ((_header, row),) = _tables(table)
    assert row[0] == " ".join(printable(w) for w in text.split())
    # A code span shows the text exactly (spaces at its ends aside: a cell is trimmed).
    assert row[1].strip(" ") == printable(text).strip(" ")


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_a_paragraph_opens_no_block(text: str) -> None:
    tokens = MD.parse(block(text))
    assert {t.type for t in tokens} <= {"paragraph_open", "paragraph_close", "inline"}
    assert all(child.type in ("text", "softbreak") for t in tokens for child in t.children or [])

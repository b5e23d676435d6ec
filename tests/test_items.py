"""A catalog read a tool's item at a time (`catalog/items.py`), YAML or JSON, gives what
reading it whole gives: the same data, line map and problems, whether each item is read now or
taken from the last build's memo; and a text whose lines cannot be cut safely is read whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.corpus import catalog as corpus_catalog
from codegen.cache import BuildCache
from codegen.catalog import load
from codegen.catalog.items import split_json, split_yaml
from codegen.catalog.load import LoadedCatalog, load_catalog
from codegen.catalog.wild import read_wild
from codegen.diagnostics import CatalogError
from codegen.memo import Memo

ROOT = Path(__file__).resolve().parent.parent


def read(loaded: LoadedCatalog) -> tuple[Any, ...]:
    """What a catalog read gives the later stages, but for the tools' keys (only a read by
    items has them)."""
    return loaded.file, loaded.data, loaded.sha256, every_line(loaded), loaded.problems


def every_line(loaded: LoadedCatalog) -> dict[Any, int]:
    """The line of each node by its whole path: a read by items keeps the tools' nodes in each
    tool's own map (`tool_lines`), and every line it gives (`line_of`) is from there."""
    found = dict(loaded.lines)
    for index, own in enumerate(loaded.tool_lines):
        found.update(((*loaded.tools_at, index, *path), line) for path, line in own.items())
    assert all(loaded.line_of(path) == line for path, line in found.items())
    return found


def load_whole(source: Path, root: Path) -> LoadedCatalog:
    """The catalog read whole, as a text that cannot be cut into items is."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(load, "_read_by_items", lambda *_: None)
        return load_catalog(source, root)


def whole(source: Path) -> tuple[Any, ...] | list[str]:
    try:
        loaded = load_whole(source, source.parent)
    except CatalogError as exc:
        return [str(d) for d in exc.diagnostics]
    assert loaded.tool_keys == ()
    return read(loaded)


def by_items(source: Path, cache: BuildCache) -> tuple[Any, ...] | list[str]:
    memo = Memo(cache, source.name)
    try:
        loaded = load_catalog(source, source.parent, memo)
    except CatalogError as exc:
        return [str(d) for d in exc.diagnostics]
    memo.save()
    data = loaded.data if isinstance(loaded.data, dict) else {}
    tools = data.get("tools", data.get("result", {}).get("tools"))  # an MCP reply's under result
    assert loaded.tool_keys == () or len(loaded.tool_keys) == len(tools or ())
    # Each tool's nodes are in its own line map alone, the others in the catalog's.
    prefix: tuple[str, ...] = ("tools",) if "tools" in data else ("result", "tools")
    if loaded.tool_keys:
        assert loaded.tools_at == prefix
        assert not any(p[: len(prefix)] == prefix and len(p) > len(prefix) for p in loaded.lines)
    assert len(loaded.tool_lines) == len(loaded.tool_keys)
    return read(loaded)


def assert_read_alike(source: Path, cache: BuildCache) -> None:
    expected = whole(source)
    assert by_items(source, cache) == expected  # items composed now
    assert by_items(source, cache) == expected  # items from the memo


def items_reused(source: Path, cache: BuildCache) -> bool:
    """Whether the text is read a tool's item at a time, each item from the memo (only the
    header is composed)."""
    composed: list[str] = []
    real = load._clean_piece

    def counted(name: str, text: str, is_json: bool) -> Any:
        composed.append(text)
        return real(name, text, is_json)

    text = source.read_bytes().decode("utf-8")  # its line ends as they are, CRLF too
    is_json = source.suffix == ".json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(load, "_clean_piece", counted)
        read = load._read_by_items(source.name, text, Memo(cache, source.name), is_json)
    return read is not None and len(composed) == 1


BUNDLED = sorted(
    p
    for folder in ("schemas", "tests/fixtures", "tests/fixtures/mcp", "tests/importing")
    for p in (ROOT / folder).glob("*")
    if p.suffix in (".yaml", ".json")
)


@pytest.mark.parametrize("crlf", [False, True], ids=["LF", "CRLF"])
@pytest.mark.parametrize("source", BUNDLED, ids=lambda p: p.name)
def test_bundled_catalogs_read_alike(source: Path, crlf: bool, tmp_path: Path) -> None:
    # Saved on Windows too: every line ending in CRLF.
    copy = tmp_path / source.name
    text = source.read_bytes()
    copy.write_bytes(text.replace(b"\n", b"\r\n") if crlf else text)
    assert_read_alike(copy, BuildCache(tmp_path / "cache"))


def test_the_corpus_is_read_by_items_and_alike(tmp_path: Path) -> None:
    source = tmp_path / "bench_tools.yaml"
    data = corpus_catalog(30, seed=5)
    source.write_text(yaml.safe_dump(data, sort_keys=False, width=100), encoding="utf-8")
    cache = BuildCache(tmp_path / "cache")
    assert_read_alike(source, cache)
    found = load_catalog(source, source.parent, Memo(cache, source.name))
    assert found.data == data and len(set(found.tool_keys)) == 30
    cut = split_yaml(source.read_text(encoding="utf-8"))
    assert cut is not None and len(cut.items) == 30
    as_json = tmp_path / "bench_tools.json"
    as_json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert_read_alike(as_json, cache)
    cut = split_json(as_json.read_text(encoding="utf-8"))
    assert cut is not None and len(cut.items) == 30
    assert items_reused(as_json, cache)
    # Minified, as a program writes it (`json.dumps` without an indent): one line, cut alike.
    minified = tmp_path / "bench_tools.min.json"
    minified.write_text(json.dumps(data), encoding="utf-8")
    assert_read_alike(minified, cache)
    cut = split_json(minified.read_text(encoding="utf-8"))
    assert cut is not None and len(cut.items) == 30
    assert items_reused(minified, cache)
    # The same two files with Windows line ends: read alike, and a tool at a time.
    for saved in (source, as_json):
        saved.write_bytes(saved.read_bytes().replace(b"\n", b"\r\n"))
        assert_read_alike(saved, cache)
        assert items_reused(saved, cache)


@pytest.mark.parametrize(
    ("text", "header"),
    [
        ("name: c\ntools:\n  - name: a\n  - name: b\n\n# the end\n", "name: c\ntools:"),
        ("name: c\ntools:\n  - name: a\n  - name: b\nversion: '1'\n", None),
        (
            '{"name": "c", "tools": [\n  {"name": "a"},\n  {"name": "b"}\n]\n}\n',
            '{"name": "c", "tools": []\n}\n',
        ),
        ('{"name": "c", "tools": [\n  {"name": "a"},\n  {"name": "b"}\n],\n"version": "1"}', None),
    ],
    ids=["yaml last", "yaml key after", "json last", "json key after"],
)
def test_a_header_keeps_the_items_lines_only_for_what_follows_them(
    text: str, header: str | None, tmp_path: Path
) -> None:
    # The items' lines are left empty in the header so that a later node keeps its line (None:
    # the header has every line of the text); with none after them they are left out (reading
    # 70,000 empty lines cost a tenth of a rebuild's reading). Either way the catalog reads as it
    # does whole, lines included.
    suffix = ".json" if text.startswith("{") else ".yaml"
    cut = split_json(text) if suffix == ".json" else split_yaml(text)
    assert cut is not None and len(cut.items) == 2
    if header is None:
        assert cut.header.count("\n") == text.count("\n")
    else:
        assert cut.header == header
    source = tmp_path / f"c{suffix}"
    source.write_text(text, encoding="utf-8")
    cache = BuildCache(tmp_path / "cache")
    assert_read_alike(source, cache)
    assert items_reused(source, cache)


# Each text is a catalog a line-based cut could misread; each must be read as the whole text is,
# and the ones marked False must be read whole (their pieces do not stand alone).
TRICKY = {
    "indented items, comments at the margin, a key after the tools": (
        (
            "name: c\ntools:\n  - name: a\n# a comment at the margin\n    description: A.\n"
            "  - name: b\n    description: B.\nversion: '1'\n"
        ),
        True,
    ),
    "a quoted string whose next line looks like an item": (
        'name: c\ntools:\n- name: a\n  description: "one\n- name: b"\n- name: c\n  description: C.\n',
        False,
    ),
    "a flow sequence across lines": (
        "name: c\ntools:\n- name: a\n  examples: [1,\n- 2]\n- name: b\n",
        False,
    ),
    "a block scalar": (
        "name: c\ntools:\n- name: a\n  description: |\n    - not an item\n    tools:\n- name: b\n",
        True,
    ),
    "an alias to an earlier tool": (
        "name: c\ntools:\n- &first\n  name: a\n- *first\n",
        False,
    ),
    "an anchor and its alias inside one tool": (
        "name: c\ntools:\n- name: a\n  parameters: &p {type: object}\n  returns: *p\n- name: b\n",
        False,
    ),
    "an ampersand in text, no anchor": (
        "name: c\ntools:\n- name: a\n  description: Q&A & more\n",
        True,
    ),
    "a duplicate key in a tool": (
        "name: c\ntools:\n- name: a\n  name: b\n",
        False,
    ),
    "a duplicate key in the header": (
        "name: c\nname: d\ntools:\n- name: a\n",
        False,
    ),
    "a value that is not JSON": (
        "name: c\ntools:\n- name: a\n  default: .inf\n",
        False,
    ),
    "a key that is not a string": (
        "name: c\ntools:\n- name: a\n  1: one\n",
        False,
    ),
    "two documents": ("name: c\ntools:\n- name: a\n---\nname: d\n", False),
    "a directive": ("%YAML 1.2\n---\nname: c\ntools:\n- name: a\n", False),
    "Windows line ends": ("name: c\r\ntools:\r\n- name: a\r\n  description: |\r\n    A.\r\n", True),
    "line ends mixed": ("name: c\ntools:\r\n- name: a\n- name: b\r\n", True),
    "a carriage return alone": ("name: c\rtools:\n- name: a\n", False),
    "a carriage return before a line end": ("name: c\ntools:\n- name: a\r\r\n", False),
    "a line that starts with a tab": ("name: c\ntools:\n- name: a\n  description: x\n\ty\n", False),
    "a tools key in a flow mapping": ("{name: c,\ntools:\n [{name: a}]}\n", False),
    "tools given as a flow list": ("name: c\ntools: [{name: a}]\n", False),
    "tools twice": ("name: c\ntools:\n- name: a\ntools:\n- name: b\n", False),
    "an item whose content starts on the next line": (
        "name: c\ntools:\n-\n  name: a\n- name: b\n",
        True,
    ),
    "a syntax error in a tool": (
        "name: c\ntools:\n- name: a\n  description: [\n- name: b\n",
        False,
    ),
    "no final newline": ("name: c\ntools:\n  - name: a\n  - name: b", True),
    "an empty item": ("name: c\ntools:\n-\n- name: b\n", True),
    "the root is a list": ("- name: c\ntools:\n- name: a\n", False),
    "an integer too long for Python": (
        "name: c\ntools:\n- name: a\n  default: " + "9" * 5000 + "\n",
        False,
    ),
    "an MCP reply: the tools under result, a key after them": (
        (
            "jsonrpc: '2.0'\nid: 1\nresult:\n  tools:\n  - name: a\n    inputSchema: {type: object}\n"
            "  - name: b\n  nextCursor: x\n"
        ),
        True,
    ),
    "an MCP reply: dashes further in, a property named tools in a tool": (
        "result:\n  # listed\n  tools:\n    - name: a\n      p:\n        tools: 1\n    - name: b\n",
        True,
    ),
    "an MCP reply: tools twice under result": (
        "result:\n  tools:\n  - name: a\n  tools:\n  - name: b\n",
        False,
    ),
    "tools one level in, under another key than result": (
        "other:\n  tools:\n  - name: a\n",
        False,
    ),
    "an MCP reply beside a catalog's own name": (
        "name: c\nresult:\n  tools:\n  - name: a\n",
        False,
    ),
    "deep nesting in one tool": (
        "name: c\ntools:\n- name: a\n  p: " + "[" * 99 + "]" * 99 + "\n",
        False,
    ),
}


# The same for JSON, cut by its decoder however it is laid out.
JSON_TRICKY = {
    "items at two spaces, a key after the tools": (
        (
            '{\n  "name": "c",\n  "tools": [\n    {\n      "name": "a"\n    },\n    {\n'
            '      "name": "b"\n    }\n  ],\n  "version": "1"\n}\n'
        ),
        True,
    ),
    "an MCP reply: the tools under result": (
        '{"jsonrpc": "2.0", "id": 1, "result": {\n "tools": [\n  {\n   "name": "a"\n  }\n ]\n}}\n',
        True,
    ),
    "tabs": ('{\n\t"name": "c",\n\t"tools": [\n\t\t{\n\t\t\t"name": "a"\n\t\t}\n\t]\n}', True),
    "blank lines between items": (
        '{"name": "c",\n"tools": [\n  {\n    "name": "a"\n  },\n\n  {\n    "name": "b"\n  }\n]}\n',
        True,
    ),
    "a missing comma between items": (
        '{"name": "c", "tools": [\n  {\n    "name": "a"\n  }\n  {\n    "name": "b"\n  }\n]}\n',
        False,
    ),
    "a comma after the last item": (
        '{"name": "c", "tools": [\n  {\n    "name": "a"\n  },\n]}\n',
        False,
    ),
    "a nested object closed at the items' indentation": (
        '{"name": "c", "tools": [\n  {\n  "p": {\n  },\n  "name": "a"\n  }\n]}\n',
        True,
    ),
    "minified": ('{"name": "c", "tools": [{"name": "a"}]}', True),
    "a minified MCP reply": (
        '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"b"}]}}',
        True,
    ),
    "items several to a line": (
        '{"name": "c", "tools": [{"name": "a"}, {"name": "b"},\n  {"name": "c",\n "x": 1}]}\n',
        True,
    ),
    "strings holding brackets, quotes and commas": (
        '{"name": "c", "tools": [{"name": "a", "d": "}],[{\\"\\\\"}, {"name": "b"}]}',
        True,
    ),
    "a key after the tools on their last line": (
        '{"tools": [{"name": "a"}], "name": "c"}',
        True,
    ),
    "the root is a list": ('[{"name": "c", "tools": [{"name": "a"}]}]', False),
    "text after the root": ('{"name": "c", "tools": [{"name": "a"}]} {}', False),
    "an integer too long for Python in the header": (
        '{"name": "c", "v": ' + "9" * 5000 + ', "tools": [{"name": "a"}]}',
        False,
    ),
    "tools both at the top and under result": (
        '{"tools": [{"name": "a"}], "result": {"tools": [{"name": "b"}]}}',
        False,
    ),
    "a tool nested deeper than the limit": (
        '{"name": "c", "tools": [{"name": "a", "p": ' + "[" * 99 + "]" * 99 + "}]}",
        False,
    ),
    "a duplicate key in a tool": (
        '{"name": "c", "tools": [\n  {\n    "name": "a",\n    "name": "b"\n  }\n]}\n',
        False,
    ),
    "a lone surrogate": (
        '{"name": "c", "tools": [\n  {\n    "name": "\\ud800"\n  }\n]}\n',
        False,
    ),
    "a surrogate pair": (
        '{"name": "c",\n"tools": [\n  {\n    "name": "\\ud83d\\ude00"\n  }\n]}\n',
        True,
    ),
    "NaN": ('{"name": "c", "tools": [\n  {\n    "default": NaN\n  }\n]}\n', False),
    "a tools key inside another value": (
        '{"tools": [\n  {\n    "name": "a"\n  }\n],\n"x": {"tools": [\n  {\n  }\n]}}\n',
        True,
    ),
    "tools twice": ('{"tools": [{"name": "a"}], "tools": [{"name": "b"}]}', False),
    "a syntax error in a tool": (
        '{"name": "c", "tools": [\n  {\n    "name": \n  }\n]}\n',
        False,
    ),
}


CASES = [(".yaml", case, *TRICKY[case]) for case in TRICKY]
CASES += [(".json", case, *JSON_TRICKY[case]) for case in JSON_TRICKY]


@pytest.mark.parametrize(
    ("suffix", "case", "text", "cut_safely"), CASES, ids=[f"{s}: {c}" for s, c, *_ in CASES]
)
def test_tricky_texts_read_alike(
    suffix: str, case: str, text: str, cut_safely: bool, tmp_path: Path
) -> None:
    source = tmp_path / f"c{suffix}"
    source.write_text(text, encoding="utf-8", newline="")
    cache = BuildCache(tmp_path / "cache")
    assert_read_alike(source, cache)
    assert items_reused(source, cache) is cut_safely


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30
    ),  # quotes, newlines, dashes, colons, hashes
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("ab-: #\n'\"", min_size=1, max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
TOOLS = st.lists(
    st.fixed_dictionaries(
        {"name": st.text("abc_-", min_size=1, max_size=5)}, optional={"x": VALUES}
    ),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    TOOLS,
    st.sampled_from([None, False, True]),
    st.sampled_from([2, 4]),
    st.sampled_from([12, 80]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_dumped_catalogs_read_alike(
    tmp_path: Path,
    tools: list[Any],
    flow: bool | None,
    indent: int,
    width: int,
    unicode: bool,
    crlf: bool,
    mcp: bool,
) -> None:
    data: dict[str, Any] = {"name": "c", "tools": tools, "after": {"k": "v"}}
    if mcp:
        data = {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools, "nextCursor": None}}
    text = yaml.safe_dump(
        data,
        sort_keys=False,
        default_flow_style=flow,
        indent=indent,
        width=width,
        allow_unicode=unicode,
    )
    source = tmp_path / "c.yaml"
    source.write_text(text, encoding="utf-8", newline="\r\n" if crlf else "\n")
    cache = BuildCache(tmp_path / "cache")
    assert_read_alike(source, cache)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    TOOLS,
    st.sampled_from([None, 1, 2, 4, "\t"]),
    st.sampled_from([None, (",", ":"), (" ,\n ", " : ")]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_dumped_json_catalogs_read_alike(
    tmp_path: Path,
    tools: list[Any],
    indent: int | str | None,
    separators: tuple[str, str] | None,
    ascii_only: bool,
    mcp: bool,
    crlf: bool,
) -> None:
    data: dict[str, Any] = {"name": "c", "tools": tools, "after": {"k": "v"}}
    if mcp:
        data = {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}
    source = tmp_path / "c.json"
    text = json.dumps(data, indent=indent, separators=separators, ensure_ascii=ascii_only)
    source.write_text(text, encoding="utf-8", newline="\r\n" if crlf else "\n")
    cache = BuildCache(tmp_path / "cache")
    assert_read_alike(source, cache)
    # However it is indented, minified too: cut into items, unless it holds characters YAML
    # refuses raw (DEL, C1 controls: YAML gives no line map either way) or reads as line breaks.
    if load._compose_quietly(source.name, text.replace("\t", " ")) is not None and not any(
        b in text for b in ("\x85", "\u2028", "\u2029")
    ):
        assert items_reused(source, cache)


def test_an_mcp_reply_read_by_items_keeps_its_tools_keys(tmp_path: Path) -> None:
    # Read as a catalog, the reply's `inputSchema` is `parameters`: each tool's line map follows,
    # so the checks still key each tool by its item (and find its lines where they are).
    source = tmp_path / "reply.json"
    source.write_bytes((ROOT / "tests" / "fixtures" / "mcp" / "python_server.json").read_bytes())
    cache = BuildCache(tmp_path / "cache")
    by_items(source, cache)
    loaded = load_catalog(source, tmp_path, Memo(cache, source.name))
    read, _ = read_wild(loaded)
    assert read.by_items() and len(read.tool_keys) == 2
    assert read.tools_at == ("tools",)
    assert not any(p[:1] == ("tools",) and len(p) > 1 for p in read.lines)
    assert ("parameters",) in read.tool_lines[0] and ("inputSchema",) not in read.tool_lines[0]
    whole, _ = read_wild(load_whole(source, tmp_path))
    assert every_line(read) == whole.lines

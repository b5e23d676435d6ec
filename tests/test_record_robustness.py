"""The catalog's memo (items, each stage's results, cached package) under odd catalogs and planted
values: a cached build gives what a build without the cache gives, whatever the catalog's text and
whatever the cache holds (each case found by a review that tried to break it, and failing before
its fix)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from codegen.build import build
from codegen.cache import BuildCache
from codegen.diagnostics import CatalogError
from codegen.memo import Memo
from tests.test_cache_integrity import plant_memo

ROOT = Path(__file__).resolve().parent.parent


def _outcome(source: Path, root: Path, cache: BuildCache) -> tuple[Any, list[str]]:
    try:
        result = build([source], root, cache)
    except CatalogError as exc:
        return "failed", [str(d) for d in exc.diagnostics]
    return result.files, [str(d) for d in result.warnings]


def _tool(description: str) -> dict[str, Any]:
    return {
        "name": "lookup",
        "description": description,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


def _nested_tools_catalog(description: str, key: str = "x-meta") -> str:
    # The catalog's own tools on one line; an unknown key (read with a CG103 warning and left
    # out) holds another `"tools": [` laid out an item a line: the only one the cut finds.
    tools = json.dumps({"name": "cat", "tools": [_tool(description)]})
    nested = (
        '{\n  "' + key + '": {\n    "tools": [\n      {\n        "a": 1\n      }\n    ]\n  },\n'
    )
    return nested + tools[1:] + "\n"


@pytest.mark.parametrize("key", ["x-meta", "result"])
def test_a_tools_array_that_is_not_the_catalogs_does_not_key_its_tools(
    tmp_path: Path, key: str
) -> None:
    # The cut takes the items of `x-meta.tools`; their digests become the keys of the catalog's
    # own `tools` (validation, normalization, output), so an edited tool came back as it was.
    # `result.tools` is an MCP reply's, but this file has a `name`: it is a catalog, not a reply.
    source = tmp_path / "cat.json"
    cache = BuildCache(tmp_path / ".cache")
    source.write_text(_nested_tools_catalog("The first description of it.", key), encoding="utf-8")
    assert _outcome(source, tmp_path, cache) == _outcome(source, tmp_path, BuildCache(None))
    source.write_text(_nested_tools_catalog("The second one, edited.", key), encoding="utf-8")
    cached = _outcome(source, tmp_path, cache)
    fresh = _outcome(source, tmp_path, BuildCache(None))
    assert any("The second one, edited." in text for text in fresh[0].values())
    assert cached == fresh


@pytest.mark.parametrize("key", ["x-meta", "result"])
def test_a_nested_tools_array_shorter_than_the_catalogs_does_not_crash(
    tmp_path: Path, key: str
) -> None:
    # One item in `x-meta.tools`, two catalog tools: validation asks for `tool_keys[1]`.
    source = tmp_path / "cat.json"
    second = {**_tool("Another tool, with its own name."), "name": "other"}
    text = _nested_tools_catalog("The first description of it.", key).replace(
        "]}\n", ", " + json.dumps(second) + "]}\n"
    )
    source.write_text(text, encoding="utf-8")
    fresh = _outcome(source, tmp_path, BuildCache(None))
    assert fresh[0] != "failed" and "cat/tools/other.py" in fresh[0]
    assert _outcome(source, tmp_path, BuildCache(tmp_path / ".cache")) == fresh


def test_a_memo_that_could_not_be_written_leaves_the_last_one_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38 item 1: a catalog's memo is one entry, written whole or not at all (a full disk, a
    kill): the last build's stays as it was, and the next build reads it as it is."""
    source = tmp_path / "memory_tools.yaml"
    a = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    b = a.replace("name: memory_tools\n", "name: memory_tools\ntitle: Version B\n", 1)
    cache = BuildCache(tmp_path / ".cache")
    source.write_text(a, encoding="utf-8")
    build([source], tmp_path, cache)
    before = Memo(cache, source.name).stored
    skipped = []
    monkeypatch.setattr(BuildCache, "put_bytes", lambda self, entry, *parts: skipped.append(entry))
    source.write_text(b, encoding="utf-8")
    build([source], tmp_path, cache)
    monkeypatch.undo()
    assert len(skipped) == 1 and Memo(cache, source.name).stored == before
    assert _outcome(source, tmp_path, cache) == _outcome(source, tmp_path, BuildCache(None))
    source.write_text(a, encoding="utf-8")
    assert _outcome(source, tmp_path, cache) == _outcome(source, tmp_path, BuildCache(None))


MERGE_OVERRIDE = (
    "name: cat\ntools:\n- <<: {description: Shared text for the tools here.}\n  name: lookup\n"
    "  description: Looks things up in the index.\n  parameters:\n    type: object\n"
)
MERGE_LINES = (
    "name: cat\ntools:\n- name: lookup\n  parameters:\n    <<:\n      type: object\n\n"
    "      description: d\n"
)


@pytest.mark.parametrize("text", [MERGE_OVERRIDE, MERGE_LINES], ids=["override", "lines"])
def test_a_merge_key_reads_by_items_as_whole(tmp_path: Path, text: str) -> None:
    # Read whole, the line map is made after constructing, which flattens `<<` into the mapping
    # (a key it overrides is then a duplicate, an error); a piece's line map is made before, so
    # it has `<<` paths, no line for the merged keys, and no duplicate.
    from tests.test_items import assert_read_alike

    source = tmp_path / "cat.yaml"
    source.write_text(text, encoding="utf-8")
    assert_read_alike(source, BuildCache(tmp_path / ".cache"))


def test_a_catalog_builds_alike_with_either_line_break(tmp_path: Path) -> None:
    # CRLF is read whole (items.py's unsafe breaks), LF by items: a merge key that overrides a
    # key fails one and builds the other.
    crlf, lf = tmp_path / "crlf", tmp_path / "lf"
    for folder, newline in ((crlf, "\r\n"), (lf, "\n")):
        folder.mkdir()
        (folder / "cat.yaml").write_bytes(MERGE_OVERRIDE.replace("\n", newline).encode())
    # The files' headers hold the file's digest, which differs: the findings must not.
    assert (
        _outcome(crlf / "cat.yaml", crlf, BuildCache(None))[1]
        == (_outcome(lf / "cat.yaml", lf, BuildCache(None))[1])
    )


@pytest.mark.parametrize("separator", ["\x85", "\u2028"], ids=["NEL", "LS"])
def test_an_indented_json_catalog_with_a_raw_yaml_line_break_reads_by_items_as_whole(
    tmp_path: Path, separator: str
) -> None:
    # JSON takes NEL and U+2028 raw in a string; YAML, which gives a JSON file its line map,
    # breaks lines there. split_yaml refuses such text (items._UNSAFE_BREAKS), split_json does
    # not: read whole, every later line is one off; by items, only the lines of that item are.
    from tests.test_items import assert_read_alike

    tools = [
        {"name": f"a{separator}b", "parameters": {"type": "object"}},
        {"name": "c", "parameters": {"type": "object"}},
    ]
    source = tmp_path / "cat.json"
    source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2, ensure_ascii=False))
    assert_read_alike(source, BuildCache(tmp_path / ".cache"))


def test_an_mcp_reply_s_line_map_does_not_depend_on_how_it_was_read(tmp_path: Path) -> None:
    # read_wild's _mcp_paths keeps the first line it meets for each path, so it depends on the
    # line map's order: read whole, the order is the document's; by items, the header's paths
    # come first and the items' after. A reply with `result.tools` (its tools) and a top-level
    # `tools` gives its tool's parameters the line of `result.tools[0].inputSchema` (7) read
    # whole, and that of the top-level `tools[0].inputSchema` (13) by items.
    from codegen.catalog.load import load_catalog
    from codegen.catalog.wild import read_wild
    from tests.test_items import load_whole

    inner = json.dumps(
        {"tools": [{"name": "a", "description": "x", "inputSchema": {"type": "object"}}]},
        indent=2,
    ).replace("\n", "\n  ")
    top = json.dumps([{"name": "b", "description": "y", "inputSchema": {"type": "object"}}])
    source = tmp_path / "reply.json"
    source.write_text('{\n  "result": ' + inner + ',\n  "tools": ' + top + "\n}\n")
    by_items = read_wild(load_catalog(source, tmp_path))[0]
    whole = read_wild(load_whole(source, tmp_path))[0]
    path = ("tools", 0, "parameters")
    assert by_items.line_of(path) == whole.line_of(path) == whole.lines[path]


def test_a_planted_text_of_the_right_shape_does_not_reach_the_output(tmp_path: Path) -> None:
    # A memo committed into .codegen_cache/ (as a pull request could) with a module body of its
    # own under every key a build asks for: its digest is of its own bytes, as anyone can compute
    # it, but entries are sealed with the user's key (cache.seal), so it is not read.
    source = tmp_path / "memory_tools.yaml"
    text = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    cache = BuildCache(tmp_path / ".cache")
    source.write_text(text, encoding="utf-8")
    build([source], tmp_path, cache)
    memo = Memo(cache, source.name)
    keys = [k for k in memo.stored if isinstance(memo.get(k), str)]  # formatted module bodies
    assert keys
    planted = "import os\nos.system('echo planted')\n"
    plant_memo(cache, memo.entry, {k: pickle.dumps(planted) for k in memo.stored})
    source.write_text(text.replace("name: memory_tools\n", "name: memory_tools\ntitle: T\n", 1))
    cached = _outcome(source, tmp_path, cache)
    assert not any("planted" in text for text in cached[0].values())
    assert cached == _outcome(source, tmp_path, BuildCache(None))

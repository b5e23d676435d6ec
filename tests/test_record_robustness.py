"""The catalog's record (items, reuse, cached package) under odd catalogs and planted values: a
cached build gives what a build without the cache gives, whatever the catalog's text and whatever
the cache holds (found by a review that tried to break it)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from codegen.build import build
from codegen.cache import BuildCache
from codegen.catalog.reuse import ToolResults
from codegen.diagnostics import CatalogError

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


def _nested_tools_catalog(description: str) -> str:
    # The catalog's own tools on one line; an unknown key (read with a CG103 warning and left
    # out) holds another `"tools": [` laid out an item a line: the only one the cut finds.
    tools = json.dumps({"name": "cat", "tools": [_tool(description)]})
    nested = '{\n  "x-meta": {\n    "tools": [\n      {\n        "a": 1\n      }\n    ]\n  },\n'
    return nested + tools[1:] + "\n"


def test_a_tools_array_that_is_not_the_catalogs_does_not_key_its_tools(tmp_path: Path) -> None:
    # The cut takes the items of `x-meta.tools`; their digests become the keys of the catalog's
    # own `tools` (validation, normalization, output), so an edited tool came back as it was.
    source = tmp_path / "cat.json"
    cache = BuildCache(tmp_path / ".cache")
    source.write_text(_nested_tools_catalog("The first description of it."), encoding="utf-8")
    assert _outcome(source, tmp_path, cache) == _outcome(source, tmp_path, BuildCache(None))
    source.write_text(_nested_tools_catalog("The second one, edited."), encoding="utf-8")
    cached = _outcome(source, tmp_path, cache)
    fresh = _outcome(source, tmp_path, BuildCache(None))
    assert any("The second one, edited." in text for text in fresh[0].values())
    assert cached == fresh


def test_a_nested_tools_array_shorter_than_the_catalogs_does_not_crash(tmp_path: Path) -> None:
    # One item in `x-meta.tools`, two catalog tools: validation asks for `tool_keys[1]`.
    source = tmp_path / "cat.json"
    second = {**_tool("Another tool, with its own name."), "name": "other"}
    text = _nested_tools_catalog("The first description of it.").replace(
        "]}\n", ", " + json.dumps(second) + "]}\n"
    )
    source.write_text(text, encoding="utf-8")
    fresh = _outcome(source, tmp_path, BuildCache(None))
    assert fresh[0] != "failed" and len([p for p in fresh[0] if p.startswith("cat/tools/")]) == 3
    assert _outcome(source, tmp_path, BuildCache(tmp_path / ".cache")) == fresh


def test_a_package_whose_files_entry_could_not_be_written_is_not_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The package's record is two entries written one after the other (head, then files), each
    # silently skipped when it cannot be written (a full disk, a kill between the two). A head of
    # version A beside the files of version B gives B's __init__, prompts and docs index for A.
    source = tmp_path / "memory_tools.yaml"
    a = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    b = a.replace("name: memory_tools\n", "name: memory_tools\ntitle: Version B\n", 1)
    assert a != b
    cache = BuildCache(tmp_path / ".cache")
    source.write_text(a, encoding="utf-8")
    build([source], tmp_path, cache)
    source.write_text(b, encoding="utf-8")
    build([source], tmp_path, cache)
    real_put = BuildCache.put

    def disk_full_for_files(self: BuildCache, entry: str, text: str) -> None:
        if not text.startswith('{"texts"'):  # the files entry (pack_texts with an empty head)
            real_put(self, entry, text)

    monkeypatch.setattr(BuildCache, "put", disk_full_for_files)
    source.write_text(a, encoding="utf-8")
    build([source], tmp_path, cache)
    monkeypatch.undo()
    cached = _outcome(source, tmp_path, cache)
    assert cached == _outcome(source, tmp_path, BuildCache(None))


def _plant(cache: BuildCache, source: Path, kind: str, value: Any) -> int:
    """A frame appended to the catalog's record with `value` under each key of `kind`, its
    digest matching (as a pull request could commit it)."""
    record = ToolResults(cache, source.name)
    keys = [k for k in record.old if k.startswith(f"{kind}\0")]
    planted = pickle.dumps({k: pickle.dumps(value, 5) for k in keys}, 5)
    cache.put_frame(record.entry, planted, alone=False)
    return len(keys)


@pytest.mark.parametrize("kind", ["yaml-item", "valid", "tool", "provider-names"])
@pytest.mark.parametrize("value", [42, ("a",), (None, None)])
def test_a_record_value_of_another_shape_is_worked_out_again(
    tmp_path: Path, kind: str, value: Any
) -> None:
    # The record's docstring: whatever it cannot give back is worked out again. Only `output`
    # values are checked for their shape (ToolOutput.from_record); the others are unpacked as
    # they come, and the build raises a TypeError or ValueError with a traceback.
    source = tmp_path / "memory_tools.yaml"
    text = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    cache = BuildCache(tmp_path / ".cache")
    source.write_text(text, encoding="utf-8")
    build([source], tmp_path, cache)
    assert _plant(cache, source, kind, value) > 0
    # The file changes outside the tools: read again, by items, from the record.
    source.write_text(text.replace("name: memory_tools\n", "name: memory_tools\ntitle: T\n", 1))
    assert _outcome(source, tmp_path, cache) == _outcome(source, tmp_path, BuildCache(None))

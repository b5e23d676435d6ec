"""The catalog fuzzer's check, shared by tests/test_catalog_fuzz.py (hypothesis) and
fuzz/fuzz_catalog.py (atheris): any JSON value under a non-structural keyword or an unknown key,
at any level of a real-shaped catalog, builds, and each oddity has a finding at its place (SPEC §2).

The places are every schema node of the catalogs below (properties, items, combinator branches,
definitions), every tool and the catalog itself. Keywords whose value is structure (`type`,
`properties`, `items`, `enum`, `$ref`, combinators) are not fuzzed: a wrong one can leave a tool
with no usable schema, which is an error. Numeric bounds are not fuzzed either: `minimum` above
`maximum` accepts no value, which the build refuses as the author's mistake. `x-` keys are
extensions, kept as written, and annotation keys go to MCP as written: neither is an oddity.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from codegen.build import check_loaded
from codegen.catalog.load import LoadedCatalog, load_catalog
from codegen.catalog.wild import CATALOG_KEYS, KEYWORDS, TOOL_KEYS
from codegen.diagnostics import CatalogError, Diagnostic, JsonPath, format_path
from codegen.payloads.files import payloads
from codegen.python.namespace import package_names
from codegen.python.render import package_bound
from codegen.tool_outputs import output_jobs, tool_outputs

ROOT = Path(__file__).resolve().parent.parent
# Real-shaped catalogs: a bundled one, and an MCP reply in a Python server's style.
BASES = (
    ROOT / "schemas" / "memory_tools.yaml",
    ROOT / "tests" / "fixtures" / "mcp" / "python_server.json",
)

# Keyword → the type a value of it has; any other value is an oddity that must have a finding.
SCHEMA_WORDS: dict[str, type | tuple[type, ...]] = {
    "description": str,
    "title": str,
    "format": str,
    "$comment": str,
    "optional": bool,
    "nullable": bool,
    "x-case-sensitive": bool,
    "deprecated": bool,
    "readOnly": bool,
    "writeOnly": bool,
    "examples": list,
    "default": object,
    "pattern": str,
    "minLength": int,
    "maxItems": int,
    "required": (list, bool),
}
TOOL_WORDS: dict[str, type | tuple[type, ...]] = {"title": str, "examples": list}
CATALOG_WORDS: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "description": str,
    "version": str,
}
_ONE = ("items", "additionalProperties")
_MANY = ("anyOf", "oneOf", "allOf")
_NAMED = ("properties", "$defs", "definitions")


def base_catalogs() -> list[LoadedCatalog]:
    return [load_catalog(path, ROOT) for path in BASES]


def places(data: Any) -> list[tuple[str, JsonPath]]:
    """("catalog" | "tool" | "schema", path) of every place a key can be put, in order."""
    # An MCP reply's envelope (`jsonrpc`, `id`, `nextCursor`) is protocol, not catalog.
    found: list[tuple[str, JsonPath]] = [("catalog", ())] if "name" in data else []
    tools = data.get("tools") or data.get("result", {}).get("tools") or []
    prefix: JsonPath = ("tools",) if "tools" in data else ("result", "tools")
    for i, tool in enumerate(tools):
        found.append(("tool", (*prefix, i)))
        key = "parameters" if "parameters" in tool else "inputSchema"
        found += [("schema", path) for path in _schemas(tool[key], (*prefix, i, key))]
    return found


def _schemas(node: Any, path: JsonPath) -> Iterator[JsonPath]:
    if not isinstance(node, dict):
        return
    yield path
    for word in _ONE:
        yield from _schemas(node.get(word), (*path, word))
    for word in _MANY:
        for i, branch in enumerate(node.get(word) or []):
            yield from _schemas(branch, (*path, word, i))
    for word in _NAMED:
        for name, child in (node.get(word) or {}).items():
            yield from _schemas(child, (*path, word, name))


def known(kind: str) -> frozenset[str]:
    return {"catalog": CATALOG_KEYS, "tool": TOOL_KEYS, "schema": KEYWORDS}[kind]


def words(kind: str) -> dict[str, type | tuple[type, ...]]:
    return {"catalog": CATALOG_WORDS, "tool": TOOL_WORDS, "schema": SCHEMA_WORDS}[kind]


def is_oddity(kind: str, word: str, value: Any) -> bool:
    """Whether putting `value` under `word` there must be reported."""
    wanted = words(kind).get(word)
    if wanted is None:
        return not word.startswith("x-")  # an unknown key
    if isinstance(value, bool) and wanted in (int, list, str):
        return True
    return not isinstance(value, wanted)


def with_oddity(
    loaded: LoadedCatalog, place: JsonPath, word: str, value: Any
) -> tuple[LoadedCatalog, JsonPath]:
    """The catalog with `value` under `word` at `place`, and the path of the catalog node it is
    read as (an MCP reply's `result.tools[0].inputSchema` is `tools[0].parameters`)."""
    data = copy.deepcopy(loaded.data)
    node = data
    for step in place:
        node = node[step]
    node[word] = copy.deepcopy(value)
    read_as: JsonPath = (*place, word)
    if read_as[:1] == ("result",):
        read_as = read_as[1:]
    read_as = tuple("parameters" if p == "inputSchema" else p for p in read_as)
    return LoadedCatalog(loaded.file, data, loaded.sha256, loaded.lines), read_as


def check(loaded: LoadedCatalog, kind: str, place: JsonPath, word: str, value: Any) -> None:
    """Raise AssertionError unless the catalog with the oddity builds and reports it."""
    odd, read_as = with_oddity(loaded, place, word, value)
    catalog, found = check_loaded(odd)
    errors = [d for d in found if d.level == "error"]
    assert catalog is not None and not errors, _say(word, value, read_as, errors)
    payloads(catalog)  # every provider's format takes it
    if len(place) >= 2:
        index = read_as[1]
        tool = next(t for t in catalog.tools if t.path == f"tools[{index}]")
        # Its module, payload entries and docs page, as a build makes them (without a cache).
        try:
            names = package_names(catalog, package_bound())
            tool_outputs(output_jobs(dataclasses.replace(catalog, tools=(tool,)), names))
        except CatalogError as exc:
            raise AssertionError(str(exc.diagnostics[0])) from None
    if is_oddity(kind, word, value):
        where = format_path(read_as)
        assert any(
            d.path == where or d.path.startswith((where + ".", where + "[")) for d in found
        ), _say(word, value, read_as, found)


def _say(word: str, value: Any, path: JsonPath, found: list[Diagnostic]) -> str:
    shown = json.dumps(value)[:200]
    return f"{format_path(path)} = {shown} ({word}): " + "; ".join(str(d) for d in found[:5])

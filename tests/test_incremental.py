"""A rebuild that takes unchanged tools' results from the cache gives what a build without the
cache gives: the same files, byte for byte, and the same findings (file, line, path, message,
level, code).

Two ways in: a run of random edits of a corpus catalog (a tool changed, added, removed, moved or
renamed, a tool made invalid, two tools whose Python names collide, a name given twice, a
catalog-level field changed), and hypothesis's edits of a small JSON catalog whose findings must
also name each tool where it now is (cached findings are kept relative to their tool, so a stale
`tools[2]` would fail here). Issue 38 item 1 moved the cache out of the stages into the build's
memo (`codegen/memo.py`); these tests hold that it changed nothing a build gives."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import codegen.build
import codegen.cache
import codegen.catalog.wild
import codegen.tool_outputs
from bench.corpus import catalog as corpus_catalog
from codegen.build import LISTED, BuildResult, build, check_catalog
from codegen.cache import BuildCache
from codegen.catalog.ir import Tool
from codegen.diagnostics import CODES, CatalogError, Diagnostic
from codegen.memo import MOST_PACKS, Memo, memo_entry
from codegen.memory import BuildMemory
from codegen.python.namespace import ToolNames, package_names
from codegen.python.render import package_bound, render_handlers, render_init
from codegen.text.docs import render_index

ROOT = Path(__file__).resolve().parent.parent


def _start() -> dict[str, Any]:
    data = corpus_catalog(5, seed=3)
    memory = yaml.safe_load((ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8"))
    data["tools"] += memory["tools"][:2]
    # A finding of the normalizer's own (a keyword the parser does not enforce) in every tool.
    for tool in data["tools"]:
        tool["parameters"]["properties"]["tags"] = _unenforced()
    return data


def _unenforced() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "uniqueItems": True}


def _edit(rng: random.Random, data: dict[str, Any], step: int) -> str:
    tools = data["tools"]
    choice = rng.choice(
        ["change", "add", "remove", "move", "rename", "invalid", "collide", "duplicate", "catalog"]
    )
    if choice == "change":
        tool = rng.choice(tools)
        properties = tool["parameters"].setdefault("properties", {})
        properties[f"added{step}"] = {"type": "string", "maxLength": 5, "default": "x"}
        properties[f"more{step}"] = _unenforced()
    elif choice == "add":
        tools.insert(rng.randrange(len(tools) + 1), copy.deepcopy(rng.choice(tools)))
        tools[-1 if rng.random() < 0.5 else 0]["name"] += f"_copy{step}"
    elif choice == "remove" and len(tools) > 2:
        tools.pop(rng.randrange(len(tools)))
    elif choice == "move":
        tools.insert(rng.randrange(len(tools)), tools.pop(rng.randrange(len(tools))))
    elif choice == "invalid":
        rng.choice(tools)["description"] = ""
    elif choice == "collide":
        for name in ("todo.add", "todo_add"):
            parameters = {"type": "object", "properties": {"tags": _unenforced()}}
            tools.insert(
                rng.randrange(len(tools)),
                {"name": name, "description": "Add.", "parameters": parameters},
            )
    elif choice == "rename":
        rng.choice(tools)["name"] += f"_renamed{step}"
    elif choice == "catalog":  # a field of the catalog's own, which every listing file shows
        field = rng.choice(["title", "description", "version"])
        data[field] = f"{field} {step}"
    elif choice == "duplicate":
        tools.append(copy.deepcopy(rng.choice(tools)))
    return choice


def _outcome(
    source: Path, root: Path, cache: BuildCache, memory: BuildMemory | None = None
) -> tuple[str, Any, list[Diagnostic]]:
    try:
        result: BuildResult = build([source], root, cache, memory=memory)
        if memory is not None:
            memory.finish()  # as the watch does between builds
    except CatalogError as exc:
        outcome: tuple[str, Any, list[Diagnostic]] = "failed", None, sorted(exc.diagnostics)
    else:
        outcome = "built", result.files, sorted(result.warnings)
    # Every finding, cached or not, carries its stable code, at that code's level.
    assert [d for d in outcome[2] if CODES.get(d.code, ("",))[0] != d.level] == []
    return outcome


@pytest.mark.parametrize(
    ("seed", "watching"), [(1, False), (2, False), (3, True)], ids=["1", "2", "watch"]
)
def test_a_cached_rebuild_after_each_edit_equals_a_build_without_the_cache(
    seed: int, watching: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Watching, one process builds each time with the memory of its last build: the memo it
    # wrote and the values it read are taken from there (codegen/memory.py), not the disk.
    read_from_disk: list[str] = []
    get_bytes = BuildCache.get_bytes
    memo = memo_entry("catalog/bench_tools.yaml")

    def spy(self: BuildCache, entry: str) -> Any:
        if entry == memo:
            read_from_disk.append(entry)
        return get_bytes(self, entry)

    monkeypatch.setattr(BuildCache, "get_bytes", spy)
    rng = random.Random(seed)
    source = tmp_path / "catalog" / "bench_tools.yaml"
    source.parent.mkdir()
    cache = BuildCache(tmp_path / ".codegen_cache")
    memory = BuildMemory() if watching else None
    data = _start()
    done = []
    for step in range(9):
        if step:
            done.append(_edit(rng, data, step))
        source.write_text(yaml.safe_dump(data, sort_keys=False, width=100), encoding="utf-8")
        cached = _outcome(source, tmp_path, cache, memory)
        assert cached == _outcome(source, tmp_path, BuildCache(None)), done
        if cached[0] == "failed":
            # Undo what broke the catalog, as its author would, and go on editing.
            data = _start() if rng.random() < 0.5 else yaml.safe_load(source.read_text())
            for tool in data["tools"]:
                tool["description"] = tool["description"] or "Fixed."
            names = [t["name"] for t in data["tools"]]
            data["tools"] = [t for i, t in enumerate(data["tools"]) if t["name"] not in names[:i]]
    assert {"change", "move", "rename", "catalog"} & set(done), done
    if watching:
        assert len(read_from_disk) == 1  # by the first build only
    else:
        assert len(read_from_disk) == 9


def small_tool(n: int) -> dict[str, Any]:
    """A tool with a payload note (a default), a front-end warning (`optional: "True"`) and, for
    some, a nested object: findings at several depths."""
    properties: dict[str, Any] = {
        "query": {"type": "string", "description": f"What tool {n} looks for"},
        "limit": {"type": "integer", "default": n, "description": "How many", "optional": "True"},
    }
    if n % 2:
        properties["filter"] = {
            "type": "object",
            "properties": {"tag": {"type": "string", "default": "x", "minLength": 1}},
        }
    return {
        "name": f"tool_{n}",
        "description": f"Tool number {n}, which looks things up.",
        "parameters": {"type": "object", "properties": properties, "required": ["query"]},
    }


EDITS = st.lists(
    st.tuples(st.sampled_from(["move", "add", "remove", "change", "rename"]), st.integers(0, 50)),
    min_size=1,
    max_size=3,
)


def edited(tools: list[dict[str, Any]], edits: list[tuple[str, int]]) -> list[dict[str, Any]]:
    tools = [dict(t) for t in tools]
    added = 0
    for what, k in edits:
        i = k % len(tools)
        if what == "move":
            tools.insert((k // 7) % len(tools), tools.pop(i))
        elif what == "add":
            added += 1
            # A name of its own (k < 100): two tools of one name are an error, not an edit.
            tools.insert(i, small_tool(100 * added + k))
        elif what == "remove" and len(tools) > 1:
            tools.pop(i)
        elif what == "change":
            tools[i] = {**tools[i], "description": tools[i]["description"] + " Changed."}
        elif what == "rename":  # a name of its own: renamed twice, it grows
            tools[i] = {**tools[i], "name": f"{tools[i]['name']}_r{k}"}
    return tools


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("differential")


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(EDITS, st.booleans())
@example([("add", 1), ("add", 0)], False)  # two tools added: each with a name of its own
@example([("rename", 1), ("move", 7)], True)  # renamed, then moved below another
def test_cached_and_uncached_builds_agree_after_edits(
    project: Path, edits: list[tuple[str, int]], indented: bool
) -> None:
    source = project / "cat.json"
    cache = BuildCache(project / ".cache")
    base = [small_tool(n) for n in range(4)]
    source.write_text(json.dumps({"name": "cat", "tools": base}, indent=2), encoding="utf-8")
    build([source], project, cache)  # the cache knows the catalog before the edit
    tools = edited(base, edits)
    text = json.dumps({"name": "cat", "tools": tools}, indent=2 if indented else 1)
    source.write_text(text, encoding="utf-8")
    cached = build([source], project, cache)
    fresh = build([source], project, BuildCache(None))
    assert [str(d) for d in cached.warnings] == [str(d) for d in fresh.warnings]
    assert cached.files == fresh.files
    # The findings name the tools where they are now: each within its tool's lines.
    lines = text.splitlines()
    starts = [
        next(n for n, line in enumerate(lines, 1) if f'"name": "{t["name"]}"' in line) - 1
        for t in tools
    ]
    for d in fresh.warnings:
        index = int(d.path.split("]")[0].removeprefix("tools["))
        end = starts[index + 1] if index + 1 < len(tools) else len(lines)
        assert starts[index] <= d.line < end, str(d)


def test_a_tool_is_made_again_only_when_its_definition_changed(
    tmp_path: Path, tools_made: list[str]
) -> None:
    # The pipeline keeps each tool's module, payload entries and docs page under one key: moving
    # tools (their lines and indexes change) makes none again, changing one makes that one.
    made = tools_made
    source = tmp_path / "cat.json"
    cache = BuildCache(tmp_path / ".cache")
    tools = [small_tool(n) for n in range(4)]
    source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
    build([source], tmp_path, cache)
    assert sorted(made) == ["tool_0", "tool_1", "tool_2", "tool_3"]
    made.clear()
    tools.reverse()
    source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
    moved = build([source], tmp_path, cache)
    assert made == []
    assert moved == build([source], tmp_path, BuildCache(None))
    made.clear()
    tools[1] = {**tools[1], "description": "Changed, and still long enough."}
    source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
    changed = build([source], tmp_path, cache)
    assert made == ["tool_2"]
    assert changed == build([source], tmp_path, BuildCache(None))


def test_a_tool_whose_item_is_unchanged_is_not_read_by_the_wild_reader_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its reading and its findings (each small tool has `optional: "True"`, which the wild
    # reader reads) are kept with its item; moved, its findings name where it is now.
    read: list[str] = []
    real = codegen.catalog.wild.WildReader.tool

    def counted(reader: codegen.catalog.wild.WildReader, tool: Any, path: Any) -> Any:
        read.append(tool["name"])
        return real(reader, tool, path)

    monkeypatch.setattr(codegen.catalog.wild.WildReader, "tool", counted)
    source = tmp_path / "cat.yaml"
    cache = BuildCache(tmp_path / ".cache")
    tools = [small_tool(n) for n in range(4)]
    source.write_text(yaml.safe_dump({"name": "cat", "tools": tools}), encoding="utf-8")
    build([source], tmp_path, cache)
    assert read == ["tool_0", "tool_1", "tool_2", "tool_3"]
    read.clear()
    tools = [tools[3], {**tools[1], "description": "Changed, and still long enough."}, *tools[::2]]
    source.write_text(yaml.safe_dump({"name": "cat", "tools": tools}), encoding="utf-8")
    rebuilt = build([source], tmp_path, cache)
    assert read == ["tool_1"]
    assert any("optional" in d.message for d in rebuilt.warnings)
    assert rebuilt == build([source], tmp_path, BuildCache(None))


class _OnlyListed:
    """A tool of which nothing can be read but `build.LISTED` and what its module's names are
    named from (`build._exported`, which the listing's key holds), and its definition's digest,
    which those names are found again by (`module_names`)."""

    READ = (*LISTED, "wants", "class_slots", "sha256")

    def __init__(self, tool: Tool) -> None:
        self._tool = tool

    def __getattr__(self, name: str) -> Any:
        if name not in self.READ:
            raise AssertionError(f"a file that lists every tool read a tool's {name}")
        return getattr(self._tool, name)


def test_the_files_listing_every_tool_read_only_the_listed_fields() -> None:
    # What `build._listing_inputs` keys them by: a tool of which only those fields can be read
    # lists the same. The bundled catalogs hold results, examples and aliases.
    for source in sorted((ROOT / "schemas").glob("*.yaml")):
        catalog, _ = check_catalog(source, ROOT)
        assert catalog is not None
        listed = tuple(_OnlyListed(tool) for tool in catalog.tools)
        only_listed = dataclasses.replace(catalog, tools=listed)
        names = package_names(catalog, package_bound())
        for render in (render_init, render_handlers, render_index):
            assert render(only_listed, names) == render(catalog, names)


def test_a_tool_edited_below_its_head_leaves_the_files_listing_every_tool_unmade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    for name in ("render_init", "render_handlers", "render_index"):
        real = getattr(codegen.build, name)
        monkeypatch.setattr(
            codegen.build,
            name,
            lambda catalog, names, n=name, r=real: made.append(n) or r(catalog, names),
        )
    source = tmp_path / "cat.json"
    cache = BuildCache(tmp_path / ".cache")
    tools = [small_tool(n) for n in range(4)]
    for step, edit in enumerate(["parameter", "description", "move", "parameter"]):
        if edit == "parameter":
            tools[2]["parameters"]["properties"][f"added{step}"] = {"type": "integer"}
        elif edit == "description":
            tools[1] = {**tools[1], "description": "Changed, and still long enough."}
        else:
            tools.reverse()
        source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
        made.clear()
        rebuilt = build([source], tmp_path, cache)
        # The first build makes them; then a description changed, or the tools' order.
        remade = step == 0 or edit in ("description", "move")
        assert made == (["render_init", "render_handlers", "render_index"] if remade else [])
        assert rebuilt == build([source], tmp_path, BuildCache(None))


def test_the_cache_stays_bounded_over_many_edits(tmp_path: Path) -> None:
    # Each build writes the catalog's memo's index again with what it used, the values it made
    # in a pack beside the others; packs are gathered into one when most of what they hold is no
    # longer used, or when there are more than MOST_PACKS. Nothing else accumulates (the
    # examples' checks are by the tools' definitions, which these edits leave alone).
    source = tmp_path / "memory_tools.yaml"
    text = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    cache = BuildCache(tmp_path / ".cache")

    def sizes() -> dict[str, int]:
        found = (tmp_path / ".cache").rglob("*")
        return {p.name: p.stat().st_size for p in found if p.is_file() and p.name != ".gitignore"}

    memo = memo_entry(source.name)
    first: dict[str, int] = {}
    others: set[str] = set()
    for edit in range(12):
        source.write_text(text.replace("Find passages", f"Find {edit} passages"), encoding="utf-8")
        build([source], tmp_path, cache)
        now = sizes()
        packs = {pack for pack, *_ in Memo(cache, source.name).places.values()}
        first, others = first or now, others or now.keys() - packs
        assert now.keys() == others | packs and memo in others
        assert 1 <= len(packs) <= MOST_PACKS
        assert sum(now.values()) < 3 * sum(first.values())


@pytest.mark.parametrize("reply", sorted((ROOT / "tests" / "fixtures" / "mcp").glob("*.json")))
def test_an_edited_mcp_reply_builds_from_the_cache_as_without_it(
    reply: Path, tmp_path: Path
) -> None:
    # A reply's tools sit under `result` (or at its top) as `inputSchema`: read a tool at a time,
    # their keys and line maps must still be those of the catalog the reply is read as.
    source = tmp_path / reply.name
    source.write_bytes(reply.read_bytes())
    cache = BuildCache(tmp_path / ".cache")
    build([source], tmp_path, cache)
    text = source.read_text(encoding="utf-8")
    source.write_text(
        text.replace('"description": "', '"description": "Edited. ', 1), encoding="utf-8"
    )
    cached, fresh = build([source], tmp_path, cache), build([source], tmp_path, BuildCache(None))
    assert cached.files == fresh.files
    assert [str(d) for d in cached.warnings] == [str(d) for d in fresh.warnings]
    assert any("Edited." in text for text in cached.files.values())


def test_a_new_codegen_leaves_nothing_of_the_last_ones_memo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every key holds the generator's digest, so another codegen never reads the last one's
    # values: its first build writes the catalog's memo again, in the same entry, with its own,
    # and removes the last one's packs (the slots are named by the entry alone).
    source = tmp_path / "memory_tools.yaml"
    source.write_text((ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8"))
    cache = BuildCache(tmp_path / ".cache")

    def files() -> set[str]:
        return {p.name for p in (tmp_path / ".cache").rglob("*") if p.is_file()}

    build([source], tmp_path, cache)
    first = Memo(cache, source.name)
    before = files()
    monkeypatch.setattr(codegen.cache, "generator_digest", lambda: "another codegen")
    build([source], tmp_path, cache)
    second = Memo(cache, source.name)
    assert first.stored and second.stored and not first.stored.keys() & second.stored.keys()
    assert len(first.stored) == len(second.stored)
    first_packs = {pack for pack, *_ in first.places.values()}
    second_packs = {pack for pack, *_ in second.places.values()}
    assert first_packs and not first_packs & files()
    # The examples' check is the other codegen's own entry, as any entry of the cache.
    assert len(files() - before) == 1 + len(second_packs - first_packs)


# A build in a process of its own, with the cache beside the catalog: the items of each function
# a stage maps through the memo are counted when the memo makes them again (`map_in_workers`).
_COUNTED_BUILD = """
import collections, sys
from pathlib import Path
import codegen.memo
from codegen.build import build
from codegen.cache import BuildCache
made = collections.Counter()
real = codegen.memo.map_in_workers
def counted(function, items, **options):
    made[function.__qualname__] += len(items)
    return real(function, items, **options)
codegen.memo.map_in_workers = counted
root = Path(sys.argv[1])
build([root / sys.argv[2]], root, BuildCache(root / ".cache"))
print(dict((name, n) for name, n in made.items() if n))
"""


def test_a_memo_is_read_back_by_another_process(tmp_path: Path) -> None:
    """Issue 38 item 1: a memo's keys are the `repr` of each stage's items, which must be the same
    in every process (no set, whose order follows the process's string hashes; no object's
    address): a rebuild in a new process, with another hash seed, after an edit outside every
    tool (a comment above them, which moves them all a line down), makes nothing again; after a
    tool's edit, that tool's share alone."""
    source = tmp_path / "memory_tools.yaml"
    text = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    source.write_text(text, encoding="utf-8")

    def made(seed: str) -> dict[str, int]:
        done = subprocess.run(
            [sys.executable, "-c", _COUNTED_BUILD, str(tmp_path), source.name],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        )
        counts: dict[str, int] = json.loads(done.stdout.replace("'", '"'))
        return counts

    first = made("1")
    assert first["make_output"] == first["_normalize_alone"] == first["_named"] == 4
    text = "# a comment, outside every tool\n" + text
    source.write_text(text, encoding="utf-8")
    assert made("2") == {}
    source.write_text(text.replace("Find passages", "Find the passages"), encoding="utf-8")
    again = made("3")
    assert again == {
        "_item": 1,
        "_read_alone": 1,
        "_tool_findings": 1,
        "_normalize_alone": 1,
        "make_output": 1,
        "_named": 1,  # its module's names (`module_names.name_modules`)
        "_listing_body": 3,  # the files listing every tool show its description
    }, again


def test_a_tool_codegen_failed_on_is_reported_where_it_is_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38 item 1: a tool's output is kept by what makes it, not by where the tool is; a
    failure kept with it is placed where the tool is now, as a build without the cache says."""
    real = codegen.tool_outputs.render_tool

    def failing(source: str, tool: Tool, names: ToolNames) -> str:
        if tool.wire_name == "tool_2":
            raise RuntimeError("a bug of codegen's")
        return real(source, tool, names)

    monkeypatch.setattr(codegen.tool_outputs, "render_tool", failing)
    source = tmp_path / "cat.json"
    cache = BuildCache(tmp_path / ".cache")

    def failures(tools: list[dict[str, Any]], with_cache: BuildCache) -> list[tuple[int, str]]:
        source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
        with pytest.raises(CatalogError) as raised:
            build([source], tmp_path, with_cache)
        return [(d.line, d.path) for d in raised.value.diagnostics if d.level == "error"]

    tools = [small_tool(n) for n in range(4)]
    first = failures(tools, cache)
    assert [path for _, path in first] == ["tools[2]"]
    moved = [small_tool(9), *tools]
    assert failures(moved, cache) == failures(moved, BuildCache(None)) != first


def test_an_mcp_reply_read_as_a_catalog_and_back_says_its_findings_where_they_are(
    tmp_path: Path,
) -> None:
    """Issue 38 item 1: an MCP `tools/list` reply's line map names `inputSchema` as the catalog's
    `parameters`, which a tool's item text does not say: a `name:` added above the same tools
    must not bring back the findings' lines of the other reading."""
    source = tmp_path / "mcp.yaml"
    cache = BuildCache(tmp_path / ".cache")
    tools = (
        "tools:\n"
        "  - name: get_x\n"
        "    description: Get the x of a thing, by its name.\n"
        "    inputSchema:\n"
        "      type: object\n"
        "      properties:\n"
        "        a:\n"
        "          type: int\n"
    )
    for text in (tools, "name: mcp\n" + tools, tools):
        source.write_text(text, encoding="utf-8")
        cached = build([source], tmp_path, cache)
        assert cached == build([source], tmp_path, BuildCache(None))
        assert [d.code for d in cached.warnings if d.code == "CG102"] == ["CG102"]

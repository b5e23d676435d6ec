"""A rebuild that takes unchanged tools' results from the cache gives what a build without the
cache gives: the same files, byte for byte, and the same findings (file, line, path, message,
level, code).

Two ways in: a run of random edits of a corpus catalog (a tool changed, added, removed or moved, a
tool made invalid, two tools whose Python names collide, a name given twice), and hypothesis's
edits of a small JSON catalog whose findings must also name each tool where it now is (cached
payload findings are kept relative to their tool, so a stale `tools[2]` would fail here)."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random
from itertools import pairwise
from pathlib import Path
from typing import Any

import codegen.catalog.reuse
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import codegen.build
import codegen.cache
import codegen.catalog.wild
import codegen.tool_outputs
from bench.corpus import catalog as corpus_catalog
from codegen.build import BuildResult, build, check_catalog
from codegen.cache import BuildCache
from codegen.catalog.ir import Tool
from codegen.diagnostics import CODES, CatalogError, Diagnostic
from codegen.memory import BuildMemory
from codegen.python.render import render_handlers, render_init, render_tool
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
    choice = rng.choice(["change", "add", "remove", "move", "invalid", "collide", "duplicate"])
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
    # Watching, one process builds each time with the memory of its last build: the record it
    # wrote and the values it read are taken from there (codegen/memory.py), not the disk.
    read_from_disk: list[str] = []
    get_frames = BuildCache.get_frames

    def spy(self: BuildCache, entry: str) -> Any:
        read_from_disk.append(entry)
        return get_frames(self, entry)

    monkeypatch.setattr(BuildCache, "get_frames", spy)
    rng = random.Random(seed)
    source = tmp_path / "catalog" / "bench_tools.yaml"
    source.parent.mkdir()
    cache = BuildCache(tmp_path / ".codegen_cache")
    memory = BuildMemory() if watching else None
    data = _start()
    done = []
    for step in range(7):
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
    assert {"change", "move"} & set(done), done
    if watching:
        assert len(read_from_disk) == 1  # by the first build only
    else:
        assert len(read_from_disk) == 7


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
    st.tuples(st.sampled_from(["move", "add", "remove", "change"]), st.integers(0, 50)),
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
    return tools


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("differential")


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(EDITS, st.booleans())
@example([("add", 1), ("add", 0)], False)  # two tools added: each with a name of its own
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


def test_a_rebuild_reads_the_whole_ir_only_of_the_tools_a_stage_needs_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tool the last build normalized comes back as its head (`StoredTool`); its kinds are
    # unpickled only when a stage reads them. Here the prompts' two example calls, made from the
    # first two tools' parameters, are the only such reads; the changed tool is normalized anew.
    read: list[str] = []
    whole = codegen.catalog.reuse.StoredTool.whole

    def counted(tool: codegen.catalog.reuse.StoredTool) -> Any:
        if "_whole" not in tool.__dict__:
            read.append(tool.wire_name)
        return whole(tool)

    monkeypatch.setattr(codegen.catalog.reuse.StoredTool, "whole", counted)
    source = tmp_path / "cat.json"
    cache = BuildCache(tmp_path / ".cache")
    tools = [small_tool(n) for n in range(8)]
    source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
    build([source], tmp_path, cache)
    assert read == []
    tools[5] = {**tools[5], "description": "Changed, and still long enough."}
    source.write_text(json.dumps({"name": "cat", "tools": tools}, indent=2), encoding="utf-8")
    rebuilt = build([source], tmp_path, cache)
    assert read == ["tool_0", "tool_1"]
    assert rebuilt == build([source], tmp_path, BuildCache(None))


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


def test_a_stored_tool_reads_as_its_whole_ir_and_pickles_as_it(tmp_path: Path) -> None:
    source = tmp_path / "cat.json"
    source.write_text(json.dumps({"name": "cat", "tools": [small_tool(1)]}), encoding="utf-8")
    cache = BuildCache(tmp_path / ".cache")
    made, _ = check_catalog(source, tmp_path, cache=cache)
    again, _ = check_catalog(source, tmp_path, cache=cache)
    assert made is not None and again is not None
    (fresh,), (stored,) = made.tools, again.tools
    assert type(fresh) is Tool and isinstance(stored, codegen.catalog.reuse.StoredTool)
    assert stored.class_names == fresh.class_names == ("Tool1Args", None)
    assert "_whole" not in stored.__dict__
    # Its kinds (read from the record) and its place (where it is now) make the same module.
    assert render_tool("cat.json", stored) == render_tool("cat.json", fresh)
    assert (stored.line, stored.path, stored.lines) == (fresh.line, fresh.path, fresh.lines)
    copied = pickle.loads(pickle.dumps(stored, 5))
    assert type(copied) is Tool
    assert render_tool("cat.json", copied) == render_tool("cat.json", fresh)


def test_the_files_listing_every_tool_read_only_the_tools_heads(tmp_path: Path) -> None:
    # What `build._listing_inputs` keys them by: a tool whose whole IR cannot be read (its
    # loader fails) lists the same. The bundled catalogs hold results, examples and aliases.
    for source in sorted((ROOT / "schemas").glob("*.yaml")):
        catalog, _ = check_catalog(source, ROOT)
        assert catalog is not None
        place = (1, "tools[0]", {})

        def unreadable() -> Tool:
            raise AssertionError("a file that lists every tool read more than a tool's head")

        heads = tuple(
            codegen.catalog.reuse.StoredTool(codegen.catalog.reuse.head(t), place, unreadable)
            for t in catalog.tools
        )
        only_heads = dataclasses.replace(catalog, tools=heads)
        for render in (render_init, render_handlers, render_index):
            assert render(only_heads) == render(catalog)


def test_a_tool_edited_below_its_head_leaves_the_files_listing_every_tool_unmade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    for name in ("render_init", "render_handlers", "render_index"):
        real = getattr(codegen.build, name)
        monkeypatch.setattr(
            codegen.build, name, lambda catalog, n=name, r=real: made.append(n) or r(catalog)
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


def test_the_cache_stays_bounded_over_many_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each build adds a frame to the catalog's record and replaces its package's entries: the
    # record is written again whole once stale values outweigh live ones (no slack here, so that
    # a few edits of a small catalog show it), and nothing else accumulates.
    monkeypatch.setattr(codegen.catalog.reuse, "_SLACK", 0)
    source = tmp_path / "memory_tools.yaml"
    text = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    cache = BuildCache(tmp_path / ".cache")

    def sizes() -> dict[str, int]:
        found = (tmp_path / ".cache").rglob("*")
        return {p.name: p.stat().st_size for p in found if p.is_file() and p.name != ".gitignore"}

    record = codegen.catalog.reuse.ToolResults(cache, source.name).entry
    first: dict[str, int] = {}
    record_sizes: list[int] = []
    for edit in range(12):
        source.write_text(text.replace("Find passages", f"Find {edit} passages"), encoding="utf-8")
        build([source], tmp_path, cache)
        now = sizes()
        first = first or now
        record_sizes.append(now[record])
        # The record added to; the package's two entries named by the catalog's new bytes, the
        # last build's removed: as many entries as the first build left.
        assert record in now and len(now) == len(first)
    assert first[record] < max(record_sizes) <= 3 * first[record]
    # Written again whole at least once: smaller than after the build before (whichever build of
    # the twelve that is, which depends on how large the package's files are).
    assert any(after < before for before, after in pairwise(record_sizes)), record_sizes


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


def test_a_new_codegen_removes_the_records_an_older_one_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every entry's key holds the generator's digest, so another codegen never reads the last
    # one's records: its first build removes them (slots name each catalog's current entries).
    source = tmp_path / "memory_tools.yaml"
    source.write_text((ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8"))
    cache = BuildCache(tmp_path / ".cache")

    def entries() -> set[str]:
        return {p.name for p in (tmp_path / ".cache").glob("??/*")}

    build([source], tmp_path, cache)
    first = entries()
    monkeypatch.setattr(codegen.cache, "generator_digest", lambda: "another codegen")
    build([source], tmp_path, cache)
    second = entries()
    # The catalog's record and its package's two entries are replaced; the examples' check (a
    # few bytes a tool) is made again beside the old one.
    assert len(first - second) == 3 and len(second - first) == 4

"""The cache is a memo around the front end's pure stages, owned by the build (issue 38 item 1):
no module under `codegen/catalog/` imports the cache, and no function there takes one."""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.corpus import catalog
from codegen import runtime
from codegen.build import BuildResult, _package_key, build
from codegen.cache import BuildCache
from codegen.catalog.ir import Body, Packed
from codegen.memo import (
    MOST_PACKS,
    Memo,
    Pickled,
    memo_entry,
    pack_entries,
    read_memo,
    write_memo,
)
from codegen.outputs import ALL_PROVIDERS

ROOT = Path(__file__).resolve().parent.parent
CATALOG = sorted((ROOT / "codegen" / "catalog").glob("*.py"))
# The build's memo and what it keeps between builds.
CACHE_MODULES = {"codegen.cache", "codegen.memo", "codegen.memory"}
# What a stage would take to ask the cache itself.
CACHE_ARGUMENTS = {"cache", "results", "record", "memo", "memory"}


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("path", CATALOG, ids=lambda p: p.name)
def test_no_front_end_module_imports_the_cache(path: Path) -> None:
    """Issue 38 item 1: the front end knows nothing of the cache (`catalog/reuse.py` imported
    `cache` and `memory`, and five stages imported it)."""
    assert _imported(path) & CACHE_MODULES == set()
    assert not any(name.startswith("codegen.catalog.reuse") for name in _imported(path))


@pytest.mark.parametrize("path", CATALOG, ids=lambda p: p.name)
def test_no_front_end_function_takes_a_cache(path: Path) -> None:
    """Issue 38 item 1: the stages (`load_catalog`, `read_wild`, `validate_catalog`, `normalize`,
    `with_provider_names`) took the last build's results; now each takes how to map its pure
    per-tool function (`workers.Mapper`), which the build makes a memo."""
    module = importlib.import_module(f"codegen.catalog.{path.stem}")
    functions = [
        member
        for _, owner in [(None, module), *inspect.getmembers(module, inspect.isclass)]
        for _, member in inspect.getmembers(owner, inspect.isfunction)
        if member.__module__ == module.__name__
    ]
    taking = {
        f"{function.__qualname__}({name})"
        for function in functions
        for name in inspect.signature(function).parameters
        if name in CACHE_ARGUMENTS
    }
    assert taking == set()


values = st.dictionaries(
    st.text(max_size=8), st.binary(max_size=64).map(lambda b: pickle.dumps(b, 5)), max_size=8
)


@settings(deadline=None, max_examples=30)
@given(st.lists(values, min_size=1, max_size=12))
def test_a_memo_written_after_each_build_gives_back_what_that_build_used(
    tmp_path_factory: pytest.TempPathFactory, builds: list[dict[str, bytes]]
) -> None:
    """Issue 38 item 1: after each build's `write_memo` (values kept where they are, the others in
    a new pack), `read_memo` gives back exactly the values that build used, as views of their
    packs; no more than `MOST_PACKS` packs are left, and none the index does not name."""
    cache = BuildCache(tmp_path_factory.mktemp("cache"))
    entry = memo_entry("catalog.yaml")
    stored, places = read_memo(cache, entry)
    for used in builds:
        # A value the last build kept under a key is the same value (a key fixes its value).
        values = {key: stored.get(key, value) for key, value in used.items()}
        written = write_memo(cache, entry, values, places)
        assert written is not None
        stored, places = read_memo(cache, entry)
        assert {key: bytes(view) for key, view in stored.items()} == {
            key: bytes(value) for key, value in values.items()
        }
        assert places == written
        packs = {pack for pack, *_ in places.values()}
        assert len(packs) <= MOST_PACKS
        on_disk = {p.name for p in cache.directory.glob("*/*") if p.name != entry}  # type: ignore[union-attr]
        assert on_disk == packs
        # Never more than twice what is used: packs are gathered before they hold more.
        held = {pack: size for pack, _, size, _, _ in places.values()}
        assert sum(held.values()) <= 2 * sum(len(value) for value in values.values())


def test_a_pack_whose_values_are_dropped_from_its_end_is_gathered(tmp_path: Path) -> None:
    """Issue 38 item 1 (review): a pack is gathered by all it holds, not by the end of its last
    value the index names: values dropped from its end one build at a time were forgotten, and
    a pack holding ten times what was used was read and checked on every build."""
    cache = BuildCache(tmp_path / ".cache")
    entry = memo_entry("catalog.yaml")
    values: dict[str, Pickled] = {f"k{i}": pickle.dumps(b"x" * 1000) for i in range(10)}
    places = write_memo(cache, entry, values, {})
    for last in range(9, 0, -1):
        del values[f"k{last}"]
        stored, places = read_memo(cache, entry)
        assert places
        places = write_memo(cache, entry, {key: stored[key] for key in values}, places)
        assert places is not None
        found = cache.get_sealed(next(iter(places.values()))[0])
        assert found is not None
        assert len(found[1]) <= 2 * sum(length for *_, length in places.values())


def _built(tmp_path: Path, tools: int) -> tuple[Path, dict[str, Any], BuildCache]:
    """A catalog of `tools` from the bench's corpus, built once with a cache: its file, data and
    cache."""
    source = tmp_path / "catalog" / "bench_tools.yaml"
    source.parent.mkdir()
    data = catalog(tools)
    source.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    cache = BuildCache(tmp_path / ".codegen_cache")
    build([source], tmp_path, cache)
    return source, data, cache


def test_a_rebuild_writes_the_values_it_made_and_the_index_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38 item 1: one tool edited in a catalog of 200, the build writes that tool's values
    in a pack of their own and the index; the memo's other values stay in the pack they were
    in (a rebuild at 2,000 tools wrote the whole memo again, 58 MB)."""
    source, data, cache = _built(tmp_path, 200)
    first = Memo(cache, "catalog/bench_tools.yaml")
    written: dict[str, int] = {}
    put_bytes = BuildCache.put_bytes

    def counted(self: BuildCache, entry: str, *parts: bytes | memoryview) -> bool:
        written[entry] = sum(len(part) for part in parts)
        return put_bytes(self, entry, *parts)

    monkeypatch.setattr(BuildCache, "put_bytes", counted)
    data["tools"][7]["parameters"]["properties"]["added"] = {"type": "integer"}
    source.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    build([source], tmp_path, cache)
    assert first.entry in written
    packs = [entry for entry in written if entry != first.entry]
    assert len(packs) == 1
    second = Memo(cache, "catalog/bench_tools.yaml")
    made = second.stored.keys() - first.stored.keys()
    assert 0 < len(made) < 10  # the tool's stages' values and its output, and the package
    assert written[packs[0]] == sum(len(second.stored[key]) for key in made)
    for key in second.stored.keys() - made:
        assert second.places[key] == first.places[key]
    whole = sum(len(value) for value in second.stored.values())
    assert written[packs[0]] + written[first.entry] < whole / 5


def test_a_rebuild_reads_the_bodies_of_the_tools_it_makes_again_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38 item 1: every tool's IR comes back from the memo, and unpickling all of it was
    the largest part of a one-tool rebuild at 2,000 tools. A tool's body (its kinds and schemas,
    `ir.Packed`) is unpickled only where it is read: the two tools whose example calls the
    prompts show (the tool edited is made again, not read); every other tool's stays packed. The
    package made is the one a build without the cache makes."""
    source, data, cache = _built(tmp_path, 40)
    unpacked: list[str] = []
    read = Packed.value.fget
    assert read is not None

    def value(packed: Packed[Body]) -> Body:
        if packed.packed:
            unpacked.append(next(iter(read(packed).schema["properties"])))
        return read(packed)

    monkeypatch.setattr(Packed, "value", property(value))
    data["tools"][23]["parameters"]["properties"]["added"] = {"type": "integer"}
    source.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    rebuilt = build([source], tmp_path, cache)
    first = [next(iter(tool["parameters"]["properties"])) for tool in data["tools"]]
    assert sorted(unpacked) == sorted(first[:2])
    assert rebuilt.files == build([source], tmp_path).files


def test_the_package_kept_refers_to_what_the_memo_holds(tmp_path: Path) -> None:
    """Issue 38 item 1: the package kept for a build of the same bytes held a copy of every file
    not made by one tool: 6 MB written again by each rebuild at 2,000 tools, most of it the
    modules that list every tool, whose bodies the memo holds already, and the runtime's
    modules, which this codegen makes the same for every catalog. It refers to the first and
    makes the second again; a build of the same bytes gives the files of a build without the
    cache, and the findings' few messages are pickled once each."""
    source, _, cache = _built(tmp_path, 60)
    memo = Memo(cache, "catalog/bench_tools.yaml")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    kept = memo.get(_package_key(ALL_PROVIDERS, digest))
    package = "bench_tools"
    referred = {f"{package}/{name}" for name in ("__init__.py", "_handlers.py", "docs/index.md")}
    assert referred <= kept["kept"].keys()
    runtime_files = {f"{package}/_{name}.py" for name in runtime.MODULES}
    assert not (referred | runtime_files | kept["kept"].keys()) & kept["files"].keys()
    assert kept["files"].keys() == {
        f"{package}/prompts/jsonl.txt",
        f"{package}/prompts/single_json.txt",
        f"{package}/payloads/provider_names.json",
        f"{package}/py.typed",
    }
    messages = {d.message for d in kept["warnings"]}
    assert len(pickle.dumps(kept["warnings"], 5)) < 200 * len(kept["warnings"])
    assert len(messages) < 10 < len(kept["warnings"])
    again, fresh = build([source], tmp_path, cache), build([source], tmp_path)
    assert (again.files, again.warnings) == (fresh.files, fresh.warnings)


def _indexes(pack: str, sealed: bytes) -> list[bytes]:
    """Indexes that are not of this codegen's form, or name what their pack does not hold."""
    return [
        pickle.dumps({"key": pickle.dumps("value")}, 5),  # the form before packs: a pickled dict
        b"",
        b"junk!",
        pickle.dumps([(pack, sealed, [("key", 0, 10**9)])], 5),  # a value past its pack's end
        pickle.dumps([(pack, sealed, [(7, 0, 1)])], 5),  # a key that is no key
        pickle.dumps([(pack, sealed, [("key", -1, 1)])], 5),  # before its pack's start
    ]


@pytest.fixture(scope="module")
def memory_tools_memo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildResult]:
    """memory_tools.yaml in a project whose cache holds the memo of one build, and a build of it
    without a cache; made once for the module, as neither depends on the form a test damages
    (each test copies the project; nothing in the cache holds the project's path)."""
    project = tmp_path_factory.mktemp("memory_tools_memo")
    source = project / "memory_tools.yaml"
    source.write_text((ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8"))
    fresh = build([source], project, BuildCache(None))
    build([source], project, BuildCache(project / ".cache"))
    return project, fresh


@pytest.mark.parametrize("form", range(6))
def test_a_sealed_index_of_another_form_is_an_empty_memo(
    tmp_path: Path, form: int, memory_tools_memo: tuple[Path, BuildResult]
) -> None:
    """Issue 38 item 1: a memo sealed with the user's key but written in another form (by another
    version of codegen) holds nothing for this one, and a build then is a build from scratch."""
    built, fresh = memory_tools_memo
    shutil.copytree(built, tmp_path, dirs_exist_ok=True)
    source = tmp_path / "memory_tools.yaml"
    cache = BuildCache(tmp_path / ".cache")
    memo = Memo(cache, source.name)
    assert memo.stored
    pack = pack_entries(memo.entry)[0]
    sealed = cache.put_bytes(pack, b"x" * 16)
    assert sealed is not None
    cache.put_bytes(memo.entry, _indexes(pack, sealed)[form])
    assert read_memo(cache, memo.entry) == ({}, {})
    again = build([source], tmp_path, cache)
    assert (again.files, again.warnings) == (fresh.files, fresh.warnings)


def test_a_pack_another_build_wrote_in_its_place_is_not_read(tmp_path: Path) -> None:
    """Issue 38 item 1: two builds side by side may write a pack to the same place; the index
    names each pack with its seal, so an index never reads a pack it did not write, and the
    values it held are made again."""
    cache = BuildCache(tmp_path / ".cache")
    entry = memo_entry("catalog.yaml")
    first = write_memo(cache, entry, {"a": pickle.dumps(1), "b": pickle.dumps(2)}, {})
    assert first is not None
    index = cache.get_bytes(entry)
    assert index is not None
    second = write_memo(cache, entry, {"c": pickle.dumps(3)}, {})
    assert second is not None and second["c"][0] == first["a"][0]  # the same place, other bytes
    cache.put_bytes(entry, index)  # the first build's index, written last
    assert read_memo(cache, entry) == ({}, {})

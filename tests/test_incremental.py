"""A rebuild that takes unchanged tools' checks from the cache gives what a build without the cache
gives: the same files, byte for byte, and the same findings (file, line, path, message, level),
after each of a run of random edits: a tool changed, added, removed or moved, a tool made invalid,
two tools whose Python names collide, and a name given twice."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.corpus import catalog as corpus_catalog
from codegen.build import BuildResult, build
from codegen.cache import BuildCache
from codegen.diagnostics import CatalogError, Diagnostic

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


def _outcome(source: Path, root: Path, cache: BuildCache) -> tuple[str, Any, list[Diagnostic]]:
    try:
        result: BuildResult = build([source], root, cache)
    except CatalogError as exc:
        return "failed", None, sorted(exc.diagnostics)
    return "built", result.files, sorted(result.warnings)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_cached_rebuild_after_each_edit_equals_a_build_without_the_cache(
    seed: int, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    source = tmp_path / "catalog" / "bench_tools.yaml"
    source.parent.mkdir()
    cache = BuildCache(tmp_path / ".codegen_cache")
    data = _start()
    done = []
    for step in range(7):
        if step:
            done.append(_edit(rng, data, step))
        source.write_text(yaml.safe_dump(data, sort_keys=False, width=100), encoding="utf-8")
        cached = _outcome(source, tmp_path, cache)
        assert cached == _outcome(source, tmp_path, BuildCache(None)), done
        if cached[0] == "failed":
            # Undo what broke the catalog, as its author would, and go on editing.
            data = _start() if rng.random() < 0.5 else yaml.safe_load(source.read_text())
            for tool in data["tools"]:
                tool["description"] = tool["description"] or "Fixed."
            names = [t["name"] for t in data["tools"]]
            data["tools"] = [t for i, t in enumerate(data["tools"]) if t["name"] not in names[:i]]
    assert {"change", "move"} & set(done), done

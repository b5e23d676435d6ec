"""Reading, checking and rendering a large catalog's tools in worker processes (`codegen/workers.py`)
gives what doing it in one process gives: the same results in the same order, the same files and the
same findings."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

import codegen.catalog.load
import codegen.catalog.validate
import codegen.memo
import codegen.tool_outputs
from bench.corpus import catalog as corpus_catalog
from codegen.build import build
from codegen.cache import BuildCache
from codegen.diagnostics import CatalogError
from codegen.workers import map_in_workers


def _pid_and_square(n: int) -> tuple[int, int]:
    return os.getpid(), n * n


def test_results_come_back_in_order_from_more_than_one_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    found = map_in_workers(_pid_and_square, range(100), least=10)
    assert [square for _, square in found] == [n * n for n in range(100)]
    assert os.getpid() not in {pid for pid, _ in found}  # each chunk goes to whichever is free


def test_too_few_items_for_two_workers_stay_in_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    found = map_in_workers(_pid_and_square, range(19), least=10)
    assert {pid for pid, _ in found} == {os.getpid()}


def test_without_fork_only_what_can_be_pickled_goes_to_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Windows has no fork: the items and the function are pickled to spawned workers when the
    # caller says they can be; else the map runs here.
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    here = map_in_workers(_pid_and_square, range(40), least=10)
    assert {pid for pid, _ in here} == {os.getpid()}
    spawned = map_in_workers(_pid_and_square, range(40), least=10, pickled=True)
    assert [square for _, square in spawned] == [n * n for n in range(40)]
    assert os.getpid() not in {pid for pid, _ in spawned}


def test_a_build_in_workers_equals_a_build_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Catalogs too small for workers, made to use them at every stage that can: their items read,
    # their tools checked against the meta-schema, their tools' outputs made. In one, a tool is
    # invalid, so that what a worker found reaches the error.
    broken = corpus_catalog(40, seed=11)
    broken["tools"][7]["parameters"] = {"type": "array"}  # not an object: an error
    for name, data in (("broken", broken), ("valid", corpus_catalog(40, seed=11))):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    def outcome(name: str, cache: str) -> object:
        source = tmp_path / f"{name}.yaml"
        try:
            result = build([source], tmp_path, BuildCache(tmp_path / cache))
        except CatalogError as exc:
            return sorted(exc.diagnostics)
        return result.files, sorted(result.warnings)

    serial = {name: outcome(name, "serial") for name in ("broken", "valid")}
    used: list[str] = []

    def counted(function: Any, items: Any, *, least: int, pickled: bool = False) -> Any:
        if len(items) // least >= 2:
            used.append(function.__name__)
        return map_in_workers(function, items, least=least, pickled=pickled)

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for module in (codegen.catalog.load, codegen.catalog.validate, codegen.tool_outputs):
        monkeypatch.setattr(module, "PARALLEL_FROM", 1)
    monkeypatch.setattr(codegen.memo, "map_in_workers", counted)
    parallel = {name: outcome(name, "parallel") for name in ("broken", "valid")}
    assert parallel == serial
    assert sorted(set(used)) == ["_item", "_tool_findings", "make_output"]
    assert isinstance(serial["broken"], list)
    assert any(d.path == "tools[7].parameters.type" for d in serial["broken"])

"""A function mapped over many items in worker processes, one per core, when there are enough
items to pay for starting them: a tool at a time, reading, checking and rendering are pure Python,
and a large catalog's tools keep every core busy.

Workers are forked where the system can (Linux, macOS's `fork` start method): they start with
what this process has, codegen imported, its templates compiled, the items themselves, which are
then not pickled to them (only their indexes are). Elsewhere the items and the function are
pickled to them, when `pickled` says they can be; else the map runs here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def map_in_workers(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    least: int,
    pickled: bool = False,
) -> list[Result]:
    """`function` of each item, in order: in worker processes when there are at least `least`
    items for each of two or more, here otherwise. Each result crosses processes: a value."""
    workers = min(os.cpu_count() or 1, len(items) // least)
    if workers <= 1:
        return [function(item) for item in items]
    # Imported here: a rebuild of a few tools maps in this process, and never pays for them.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = max(1, len(items) // (workers * 8))
    if "fork" not in multiprocessing.get_all_start_methods():
        if not pickled:
            return [function(item) for item in items]
        with ProcessPoolExecutor(workers) as pool:
            return list(pool.map(function, items, chunksize=chunks))
    global _FORKED
    _FORKED = (function, items)
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_forked, range(len(items)), chunksize=chunks))
    finally:
        _FORKED = None


class Mapper(Protocol):
    """How a stage applies a pure function to each of its items (a tool at a time): `map_in_workers`,
    or the build's memo of what the function made of the same items before (`codegen.memo`), which
    knows an item by its `repr`: an item's repr says all the function reads of it."""

    def __call__(
        self,
        function: Callable[[Item], Result],
        items: Sequence[Item],
        *,
        least: int,
        pickled: bool = False,
    ) -> list[Result]: ...


# The function and items of the pool being forked, which its workers inherit.
_FORKED: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _forked(index: int) -> Any:
    assert _FORKED is not None
    function, items = _FORKED
    return function(items[index])

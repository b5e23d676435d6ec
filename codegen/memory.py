"""What a process that builds again and again (`codegen build --watch`) keeps from one build for
the next, so that a rebuild neither reads back nor unpickles what this process wrote and made.

Nothing here is trusted beyond what it was checked against: a catalog's memo is taken from
memory only while its file on disk is the one this process left (same inode, size and
modification time), and an output file counts as unchanged without being read only while it is
the file the last build found (the same), with the bytes the build makes now.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# A file's inode, size and modification time: any write through a path changes one of them.
Stamp = tuple[int, int, int]


def stamp(found: os.stat_result) -> Stamp:
    return found.st_ino, found.st_size, found.st_mtime_ns


# A value as kept: its pickle, made by this build or a view of its pack's bytes as read.
Pickled = bytes | memoryview

# Where a value is kept: its pack (a cache entry), the pack's seal, which names its bytes
# (`BuildCache.get_sealed`), and its size; the value's offset and length there.
Place = tuple[str, bytes, int, int, int]


@dataclass
class Record:
    """A catalog's memo as this process last left it on disk (`codegen.memo`): its values by key,
    pickled, where each is kept, and those unpickled or made by the build that left it."""

    stamp: Stamp
    values: dict[str, Pickled]
    places: dict[str, Place]
    objects: dict[str, Any]


@dataclass
class BuildMemory:
    """Per catalog memo (by cache entry), and per output directory each file's bytes and stamp
    as the last build found or wrote it, when that was settled (see `emit.plan`); and what the
    last build left to do once its output is written (`finish`)."""

    records: dict[str, Record] = field(default_factory=dict)
    written: dict[str, dict[str, tuple[bytes, Stamp]]] = field(default_factory=dict)
    later: list[Callable[[], None]] = field(default_factory=list)

    def finish(self) -> None:
        """Do what the last build left for after its output: storing each catalog's package in the
        cache (read by the next build while the catalog's bytes stay the same). Whoever passes a
        memory to `build` calls this after each build, or no package is stored."""
        # Taken first: after a failure, what is left is not done later over a newer build's.
        pending, self.later = self.later, []
        for task in pending:
            task()

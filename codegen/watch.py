"""`codegen build --watch`: build again each time a catalog changes, until interrupted.

Polls the sources' sizes and modification times (standard library only: no file-system event
library to install, and the same on every platform). A build that fails is reported and the
previous output stays as it is, as in any build; the watch goes on, so fixing the catalog is
enough to see the next build.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path

from codegen.build import UsageError, find_sources

Snapshot = dict[Path, tuple[int, int]]


def snapshot(sources: list[Path]) -> Snapshot:
    """Each catalog file's size and modification time; a directory's files as they are now (a
    catalog added to it is seen); an unreadable source counts as changed, not as a crash."""
    seen: Snapshot = {}
    try:
        files = find_sources(sources)
    except UsageError:
        return seen
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        seen[path] = (stat.st_mtime_ns, stat.st_size)
    return seen


def watch(
    sources: list[Path],
    build_once: Callable[[], int],
    *,
    interval: float = 0.5,
    stop: Callable[[], bool] = lambda: False,
    after: Callable[[], None] = lambda: None,
) -> int:
    """Build now, then again after each change of the sources, until `stop()` or Ctrl-C (during
    a build too: the output is then the old tree or the new one, as after any interrupted build).
    `after` each build, what it left for later is done, before the watch waits again."""
    try:
        last = snapshot(sources)
        build_once()
        _between_builds(after)
        while not stop():
            time.sleep(interval)
            now = snapshot(sources)
            if now != last:
                last = now
                build_once()
                _between_builds(after)
    except KeyboardInterrupt:
        pass
    return 0


def _between_builds(after: Callable[[], None]) -> None:
    after()
    # What a build keeps for the next (`codegen.memory`) is millions of objects that live on: every
    # pass of the cyclic collector during the next build would walk them all. Collected once now,
    # between builds, they are then left out of its passes (a build puts them back when it ends).
    gc.collect()
    gc.freeze()

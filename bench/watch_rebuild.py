"""One `codegen build --watch` process, run by `bench_build.py` in a project it made: after the
first build, each catalog text named on the command line is written in turn, and the watch's build
of it is timed (wall and CPU seconds of this process), and apart from it what the watch does after
the build's output is written and reported, before it waits again (`after`, in codegen versions that
have it): as JSON on stdout.

    python bench/watch_rebuild.py CATALOG TEXT...

It runs whichever codegen `PYTHONPATH` names, through its own `main(["build", "--watch"])`: only
the watch's polling is made quicker, and its end comes after the last text's build.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import codegen.cli
import codegen.watch


def main() -> None:
    source = Path(sys.argv[1])
    texts = [Path(p).read_text(encoding="utf-8") for p in sys.argv[2:]]
    builds = len(texts) + 1
    timings: list[tuple[float, float]] = []
    afterwards: list[tuple[float, float]] = []
    watch = codegen.watch.watch

    def timed(sources: list[Path], build_once: Callable[[], int], **options: Any) -> int:
        def once() -> int:
            start, cpu = time.perf_counter(), time.process_time()
            code = build_once()
            timings.append((time.perf_counter() - start, time.process_time() - cpu))
            if texts:
                source.write_text(texts.pop(0), encoding="utf-8")
            return code

        if "after" in options:
            after = options["after"]

            def timed_after() -> None:
                start, cpu = time.perf_counter(), time.process_time()
                after()
                afterwards.append((time.perf_counter() - start, time.process_time() - cpu))

            options["after"] = timed_after
        options.update(interval=0.01, stop=lambda: len(timings) == builds)
        return watch(sources, once, **options)

    codegen.cli.watch = timed  # type: ignore[assignment]
    codegen.cli.main(["build", "--watch"])
    print(json.dumps({"builds": timings[1:], "after": afterwards[1:]}))


if __name__ == "__main__":
    main()

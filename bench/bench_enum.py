"""Build time of one tool whose parameter has a very long enum (issue 17: 30,000 values took 45 s).

    .venv/bin/python bench/bench_enum.py [--values 10000 30000 100000]

Each size runs `codegen build --no-cache` in a new process in a fresh project, and reports the
wall time and the CPU time of the build (the CPU time is what other work on the machine does not
stretch), and the CPU time per value: linear handling keeps it flat.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CATALOG = """\
name: enum_bench
description: One tool with a long enum.
tools:
  - name: pick
    description: Picks one value.
    parameters:
      type: object
      properties:
        value:
          type: string
          description: One of the values.
          enum: [{values}]
      required: [value]
"""


def build(values: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "schemas").mkdir()
        listed = ", ".join(f"v{i}" for i in range(values))
        (project / "schemas" / "enum_bench.yaml").write_text(CATALOG.format(values=listed))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "codegen", "build", "--no-cache"],
            cwd=project,
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--values", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    args = options.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores\n")
    print("| enum values | wall time | CPU time | CPU per 1,000 values |")
    print("| --- | --- | --- | --- |")
    for values in args.values:
        wall, cpu = build(values)
        print(f"| {values:,} | {wall:.1f} s | {cpu:.1f} s | {cpu / values * 1000:.3f} s |")


if __name__ == "__main__":
    main()

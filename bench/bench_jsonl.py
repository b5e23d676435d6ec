"""JSONL replies at scale: lines per second, and memory flat however long the stream runs.

    python bench/bench_jsonl.py             # from the repository root; --gb 1 by default

A generator makes the stream as it is read (nothing is written to disk): a block of lines shaped
like what models send (clean calls, calls with slips, prose, a fence, a reported error, a cut
line), repeated, and handed over in 64 KiB chunks that split lines, escapes and characters
anywhere. `iter_jsonl` reads it; each item is counted and dropped, as a service that runs each
call and moves on would. At each checkpoint the rate so far and the process's resident memory
(now, and its peak so far) are printed: flat memory is the point.
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated.memory_tools import Problem, iter_jsonl

CHUNK = 64 * 1024
LINES = [
    '{"name": "memory.search", "parameters": {"query": "agent state consistency", "limit": 5}, "call_id": "c1"}',
    '{"name": "memory.search", "parameters": {"query": "caf\u00e9 \u6f22\u5b57 \\"quoted\\"", "limit": "7"}}',
    '{"name": "search_files", "parameters": {"pattern": "src/**/*.py", "caseSensitive": "no", "maxResults": 20}}',
    '{"name": "read_file", "parameters": {"filePath": "README.md", "startLine": null, "encoding": "UTF-8"}}',
    '{"name": "update_config", "parameters": {"settings": {"timeout": 30, "mode": "safe", "retryPolicy": {"backoff": 1.5}}, "dryRun": true}}',
    '{"name": "read_file", "parameters": {}, "error": "no file was named"}',
    "Now I will look at the configuration.",
    "```jsonl",
    '{"name": "memory.search", "parameters": {"query": "cut',
    "",
]


def stream(total: int, fed: list[int]) -> Iterator[str]:
    """`total` characters of the repeated block, in chunks; `fed[0]` counts what was handed over."""
    block = "\n".join(LINES * 50) + "\n"
    ring = block + block[:CHUNK]
    offset = 0
    while fed[0] < total:
        chunk = ring[offset : offset + CHUNK]
        offset = (offset + CHUNK) % len(block)
        fed[0] += len(chunk)
        yield chunk


def rss_mb() -> tuple[float, float]:
    """Resident memory now and its peak so far, in MiB (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    now = pages * resource.getpagesize() / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return now, peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gb", type=float, default=1.0)
    args = parser.parse_args()
    total = int(args.gb * 2**30)
    checkpoints = [c for c in (10 * 2**20, 100 * 2**20, 2**30, 4 * 2**30) if c < total] + [total]
    print(f"Python {platform.python_version()}, {platform.machine()}, {platform.system()}")
    print(f"{'read':>10} {'lines':>12} {'lines/s':>10} {'MB/s':>7} {'RSS MiB':>8} {'peak MiB':>9}")
    fed = [0]
    lines = calls = problems = 0
    start = time.perf_counter()
    next_check = 0
    for item in iter_jsonl(stream(total, fed)):
        if isinstance(item, Problem):
            problems += 1
        else:
            calls += 1
        if fed[0] >= checkpoints[next_check]:
            lines = fed[0] // (len("\n".join(LINES)) + 1) * len(LINES)  # lines handed over
            elapsed = time.perf_counter() - start
            now, peak = rss_mb()
            print(
                f"{fed[0] / 2**20:>8.0f}Mi {lines:>12,} {lines / elapsed:>10,.0f} "
                f"{fed[0] / 2**20 / elapsed:>7.1f} {now:>8.1f} {peak:>9.1f}"
            )
            next_check += 1
            if next_check == len(checkpoints):
                break
    print(f"items: {calls:,} calls, {problems:,} problems")


if __name__ == "__main__":
    main()

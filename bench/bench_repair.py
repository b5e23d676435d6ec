"""Repair cost: linear in input size on adversarial text, and nothing at all for valid input.

    python bench/bench_repair.py            # from the repository root, after `codegen build`

Times are medians of repeated rounds in one process; what matters is how time per character
changes as inputs grow tenfold (linear: it stays about flat), not the absolute figures.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated.memory_tools import _repair, _runtime, parse_memory_search

SIZES = (1_000, 10_000, 100_000, 1_000_000)

# Each makes a text of about n characters that strict decoding rejects.
ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "many strings, the last one open": lambda n: '{"a": [' + '"x", ' * (n // 5) + '"cut',
    "open single-quoted string of escaped quotes": lambda n: "{'a': '" + "\\'" * (n // 2),
    "open block comment": lambda n: '{"a": 1 /*' + "*" * n,
    "thousands of unmatched closers": lambda n: '{"a": 1}' + "]" * n,
    "braces in prose, never closed": lambda n: "see {" * (n // 5),
    "prose without an object": lambda n: "no json here " * (n // 13),
    "trailing commas everywhere": lambda n: '{"a": [' + "1," * (n // 2) + "]}",
    "single-quoted strings": lambda n: "{'a': [" + "'x'," * (n // 4) + "]}",
    "cut off after many keys": lambda n: "{" + '"k": 1, ' * (n // 8) + '"last": "cu',
}
VALID = '{"query": "agent state consistency", "limit": 5}'


def median_seconds(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    print(
        f"Python {sys.version.split()[0]}, msgspec decoder {'on' if _runtime._fast_loads else 'off'}\n"
    )
    print("| adversarial input | " + " | ".join(f"{n:,} chars" for n in SIZES) + " |")
    print("| --- | " + " | ".join("---" for _ in SIZES) + " |")
    for name, make in ADVERSARIAL.items():
        texts = [make(n) for n in SIZES]
        times = [
            median_seconds(lambda t=t: parse_memory_search(t), 5 if len(t) < 500_000 else 3)
            for t in texts
        ]
        # Time per character: about flat across sizes means linear.
        cells = " | ".join(
            f"{s * 1e6:,.0f} µs ({s / len(t) * 1e9:.0f} ns/char)" for s, t in zip(times, texts)
        )
        print(f"| {name} | {cells} |")

    calls = []
    original = _repair.repair_json

    def counting(text: str) -> object:
        calls.append(text)
        return original(text)

    _runtime.repair_json = counting  # type: ignore[assignment]
    per_call = (
        median_seconds(lambda: [parse_memory_search(VALID) for _ in range(10_000)], 7) / 10_000
    )
    _runtime.repair_json = original
    print(
        f"\nvalid call: {per_call * 1e6:.2f} µs per parse; repair ran {len(calls)} times in {7 * 10_000:,} parses"
    )


if __name__ == "__main__":
    main()

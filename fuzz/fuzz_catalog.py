"""Fuzz target for the build's reading of catalogs from the wild (atheris, libFuzzer).

Each input chooses a place in a real-shaped catalog (the first two bytes), a key (a non-structural
keyword or the input's own text) and a JSON value (the rest, decoded as JSON, else as text); the
catalog with that value there must build and report it (fuzz/catalog_oddities.py says exactly
what holds). Run it with: bash fuzz/run.sh SECONDS fuzz/fuzz_catalog.py
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

try:
    import atheris
except ImportError:
    atheris = None

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "fuzz"))

with atheris.instrument_imports() if atheris else __import__("contextlib").nullcontext():
    import catalog_oddities as oddities

BASES = oddities.base_catalogs()
PLACES = [(i, kind, path) for i, b in enumerate(BASES) for kind, path in oddities.places(b.data)]


def one_input(data: bytes) -> None:
    if len(data) < 3:
        return
    index, kind, path = PLACES[int.from_bytes(data[:2], "big") % len(PLACES)]
    rest = data[3:].decode("utf-8", "replace")
    words = sorted(oddities.words(kind))
    if data[2] < 200:
        word = words[data[2] % len(words)]
    else:
        word, _, rest = rest.partition("=")
        if not word or word in oddities.known(kind) or word.startswith("x-"):
            return
    try:
        value = json.loads(rest)
    except ValueError:
        value = rest
    if isinstance(value, float) and not math.isfinite(value):
        return  # not JSON: the loader's own error
    oddities.check(BASES[index], kind, path, word, value)


if __name__ == "__main__" and atheris is not None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()

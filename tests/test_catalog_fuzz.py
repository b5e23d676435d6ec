"""The catalog fuzzer (SPEC §2): any JSON value under a non-structural keyword or an unknown key,
at any level of real-shaped catalogs, builds, and each oddity has a finding at its place.

The check is fuzz/catalog_oddities.py's, which fuzz/fuzz_catalog.py runs for longer with atheris.
"""

from __future__ import annotations

import sys
from typing import Any

from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(ROOT / "fuzz"))

import catalog_oddities as oddities

BASES = oddities.base_catalogs()
PLACES = [
    (index, kind, path)
    for index, loaded in enumerate(BASES)
    for kind, path in oddities.places(loaded.data)
]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def oddity(draw: st.DrawFn) -> tuple[int, str, tuple[Any, ...], str, Any]:
    index, kind, path = draw(st.sampled_from(PLACES))
    unknown = st.text(min_size=1, max_size=12).filter(
        lambda w: w not in oddities.known(kind) and not w.startswith("x-")
    )
    word = draw(st.sampled_from(sorted(oddities.words(kind))) | unknown)
    return index, kind, path, word, draw(JSON)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(oddity())
def test_any_value_under_any_non_structural_key_builds_with_a_finding(
    case: tuple[int, str, tuple[Any, ...], str, Any],
) -> None:
    index, kind, path, word, value = case
    oddities.check(BASES[index], kind, path, word, value)


def test_the_fuzzer_reaches_every_level() -> None:
    kinds = {kind for _, kind, _ in PLACES}
    assert kinds == {"catalog", "tool", "schema"}
    deepest = max(len(path) for _, kind, path in PLACES if kind == "schema")
    assert deepest >= 7  # inside a nested object's property, not only the top level

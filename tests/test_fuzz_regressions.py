"""Replays fuzz/seeds/ through the fuzz target's own checks (fuzz/fuzz_parse.py), without atheris.

The seeds start the fuzzer off, and every input that ever crashed it is added there, so each crash
found stays a regression test. The first two bytes of a seed choose the catalog and the tool.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT

SEEDS = sorted((ROOT / "fuzz" / "seeds").iterdir())


@pytest.fixture(scope="module")
def target() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_parse", ROOT / "fuzz" / "fuzz_parse.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_parse"] = module
    spec.loader.exec_module(module)
    return module


def test_the_target_reaches_every_catalog(target: ModuleType) -> None:
    names = sorted(package.__name__ for package, _, _ in target.PACKAGES)
    assert names == [
        "calendar_tools",
        "coercion",
        "hostile",
        "http_tools",
        "memory_tools",
        "results",
        "wire_names",
    ]


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_a_seed_passes_the_fuzz_checks(target: ModuleType, seed: Path) -> None:
    data = seed.read_bytes()
    assert len(data) > 2
    target.test_one_input(data)

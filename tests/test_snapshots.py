"""Exact generated text for the fixture catalogs in tests/fixtures, one snapshot tree each.

Refresh after an intended change with `python -m pytest tests/test_snapshots.py --update-snapshots`
and read the diff before committing it.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from codegen import runtime
from codegen.build import build

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SNAPSHOTS = ROOT / "tests" / "snapshots"
SHARED = (*(f"_{name}.py" for name in runtime.MODULES), "_payloads.py")
CATALOGS = sorted(p.name for p in FIXTURES.glob("*.yaml"))


@pytest.mark.parametrize("fixture", CATALOGS)
def test_snapshot(
    fixture: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # headers name the source relative to the repository
    result = build([Path("tests/fixtures") / fixture])
    # The runtime is the same in every package and generated/ already holds it: compare it there.
    files = {p: t for p, t in result.files.items() if Path(p).name not in SHARED}
    for path, text in result.files.items():
        if Path(path).name in SHARED:
            assert text == (ROOT / "generated" / "memory_tools" / Path(path).name).read_text(
                encoding="utf-8"
            )
    tree = SNAPSHOTS / result.packages[0]  # the files' paths start with the package name
    if request.config.getoption("--update-snapshots"):
        shutil.rmtree(tree, ignore_errors=True)
        for path, text in files.items():
            (SNAPSHOTS / path).parent.mkdir(parents=True, exist_ok=True)
            (SNAPSHOTS / path).write_text(text, encoding="utf-8")
    stored = {
        p.relative_to(SNAPSHOTS).as_posix(): p.read_text(encoding="utf-8")
        for p in tree.rglob("*")
        if p.is_file()
    }
    assert sorted(stored) == sorted(files), (
        "files differ; run with --update-snapshots after checking why"
    )
    for path, text in files.items():
        if stored[path] != text:
            diff = difflib.unified_diff(
                stored[path].splitlines(True),
                text.splitlines(True),
                f"snapshot/{path}",
                f"built/{path}",
            )
            pytest.fail(f"{path} differs from its snapshot:\n{''.join(diff)}")

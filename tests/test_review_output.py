"""Review of the output's manifest: an entry that names a directory of the output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import BUNDLED, output, run, tree

MANIFEST = ".codegen-manifest.json"


@pytest.mark.parametrize(
    ("claimed", "owner"),
    [
        ("memory_tools", "schemas/gone.yaml"),
        ("memory_tools/tools", "schemas/gone.yaml"),
        ("memory_tools/docs", "schemas/memory_tools.yaml"),
    ],
)
def test_a_manifest_entry_naming_a_directory_removes_nothing_the_build_makes(
    tmp_path: Path, claimed: str, owner: str
) -> None:
    # The manifest is a committed file (test_output_safety: an entry that is not a path inside
    # the output is not trusted). An entry naming one of the output's directories is inside
    # it: the build leaves that whole directory out of the new tree, the files it makes there
    # with it, and a user's own file in it; and it exits 0. Also so before 2a2a2f5.
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "memory_tools.yaml").write_bytes(
        (BUNDLED / "memory_tools.yaml").read_bytes()
    )
    assert run(tmp_path, "build").returncode == 0
    out = tmp_path / "generated"
    before = {p: b for p, b in tree(out).items() if p != MANIFEST}
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    manifest["files"][claimed] = owner
    (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    mine = out / "memory_tools" / "tools" / "mine.txt"
    mine.write_text("a user's file", encoding="utf-8")
    result = run(tmp_path, "build")
    assert result.returncode == 0, output(result)
    assert mine.read_text(encoding="utf-8") == "a user's file"
    after = {
        p: b for p, b in tree(out).items() if p != MANIFEST and p != "memory_tools/tools/mine.txt"
    }
    assert after == before

"""codegen's own code passes the checks it asks of the code it generates: ruff's lint, and mypy
(with the stubs of PyYAML and jsonschema, in the test extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def test_codegen_passes_mypy(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "mypy"), "--cache-dir", str(tmp_path), "codegen"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout


def test_the_source_tree_passes_ruff() -> None:
    done = subprocess.run(
        [str(BIN / "ruff"), "check", "codegen", "tests", "bench", "fuzz"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr

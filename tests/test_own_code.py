"""codegen's own code passes the checks it asks of the code it generates: ruff's lint, and mypy
(with the stubs of PyYAML and jsonschema, in the test extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def test_codegen_passes_mypy() -> None:
    # The command a developer runs, with the cache it keeps in the checkout's `.mypy_cache`: a run
    # without it analyses the standard library and the stubs again (11 CPU-s instead of 1); mypy
    # checks each cached module against its source, its own version and its options.
    done = subprocess.run(
        [str(BIN / "mypy"), "codegen"],
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

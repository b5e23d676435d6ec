"""`codegen build --watch` builds again after each change of a catalog, and survives a bad one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codegen.cli import main
from codegen.watch import watch

CATALOG = """\
name: watched
tools:
  - name: ping
    description: {description}
    parameters: {{type: object}}
"""


def test_each_change_is_built_and_a_broken_catalog_does_not_end_the_watch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "watched.yaml"
    out = tmp_path / "out"
    source.write_text(CATALOG.format(description="First."), encoding="utf-8")
    broken = "name: watched\ntools:\n  - name: ping\n"  # no description, no parameters
    edits = [broken, CATALOG.format(description="Second, longer.")]
    builds: list[int] = []

    def build_once() -> int:
        builds.append(main(["build", str(source), "--out", str(out), "--no-cache"]))
        if edits:  # the next edit, made after this build
            source.write_text(edits.pop(0), encoding="utf-8")
        return builds[-1]

    deadline = time.monotonic() + 30
    watch(
        [source],
        build_once,
        interval=0.01,
        stop=lambda: len(builds) == 3 or time.monotonic() > deadline,
    )
    assert builds == [0, 1, 0]
    assert "Second, longer." in (out / "watched" / "docs" / "tools" / "ping.md").read_text(encoding="utf-8")
    assert "nothing was written" in capsys.readouterr().err


def test_the_watch_ends_on_ctrl_c_with_exit_0(tmp_path: Path) -> None:
    source = tmp_path / "watched.yaml"
    source.write_text(CATALOG.format(description="First."), encoding="utf-8")
    out = tmp_path / "out"
    process = subprocess.Popen(
        # faulthandler: should the watch ever fail to end, SIGABRT prints where it is stuck.
        [sys.executable, "-X", "faulthandler", "-m", "codegen", "build", str(source)]
        + ["--out", str(out), "--watch"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Ctrl-C once the first build has said it is done (the files appear a moment before).
    said: list[str] = []
    stdout_pipe = process.stdout
    assert stdout_pipe is not None
    reader = threading.Thread(target=lambda: said.append(stdout_pipe.readline()), daemon=True)
    reader.start()
    reader.join(60)
    if not said:
        process.send_signal(signal.SIGABRT)
        pytest.fail(f"the first build did not end: {process.communicate()[1]}")
    assert "built 1 catalog into" in said[0], said
    assert (out / "watched" / "__init__.py").exists()
    os.kill(process.pid, signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        pytest.fail(f"the watch did not end on Ctrl-C: {process.communicate()[1]}")
    assert process.returncode == 0, stderr
    assert "built" not in stdout  # no second build


def test_watch_refuses_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", str(tmp_path), "--watch", "--check"]) == 2
    assert "--watch writes; it cannot go with --check" in capsys.readouterr().err

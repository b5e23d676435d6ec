"""`codegen build --watch` builds again after each change of a catalog, and survives a bad one."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from interruptible import codegen_command

from codegen import cli, emit
from codegen.build import _cached_package, build
from codegen.cache import BuildCache
from codegen.cli import main
from codegen.emit import write
from codegen.memo import Memo
from codegen.memory import BuildMemory
from codegen.outputs import ALL_PROVIDERS
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
    broken = (
        "name: watched\ntools:\n  - name: ping\n    parameters: {type: array}\n"  # not an object
    )
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
    assert "Second, longer." in (out / "watched" / "docs" / "tools" / "ping.md").read_text(
        encoding="utf-8"
    )
    assert "nothing was written" in capsys.readouterr().err


def test_the_watch_ends_on_ctrl_c_with_exit_0(tmp_path: Path) -> None:
    source = tmp_path / "watched.yaml"
    source.write_text(CATALOG.format(description="First."), encoding="utf-8")
    out = tmp_path / "out"
    process = subprocess.Popen(
        codegen_command("build", str(source), "--out", str(out), "--watch"),
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


def _watched(source: Path, out: Path, cache: BuildCache, memory: BuildMemory) -> emit.Plan:
    """One build of a watch, in the project that holds `source`, and what it does after."""
    outcome = write(
        build([source], source.parent, cache, memory=memory), out, source.parent, memory
    )
    memory.finish()
    return outcome


def _written(out: Path) -> dict[str, str]:
    return {
        p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def _age(out: Path) -> None:
    # As if the last write were a minute ago: a file written within the last two seconds is read
    # by the next build whatever memory says (emit.plan), since its stamp may not show a change.
    past = time.time() - 60
    for path in out.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))


def test_a_watched_rebuild_reads_no_unchanged_file_and_sees_every_hand_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The memory of a watch (codegen/memory.py) holds each output file's text and stamp (inode,
    # size, modification time): a file still as the last build left it is not read again, and
    # one changed by hand since, even to text of the same length, is found and written again.
    source = tmp_path / "watched.yaml"
    source.write_text(CATALOG.format(description="First."), encoding="utf-8")
    out, cache = tmp_path / "out", BuildCache(tmp_path / ".codegen_cache")
    memory = BuildMemory()
    _watched(source, out, cache, memory)
    _age(out)
    fresh = _written(out)
    read: list[str] = []
    same_bytes = emit._same_bytes
    monkeypatch.setattr(
        emit,
        "_same_bytes",
        lambda o, path, text, size: read.append(path) or same_bytes(o, path, text, size),
    )

    # The files the first build wrote are read once (each settled), then no more.
    for reads in (sorted(fresh), []):
        outcome = _watched(source, out, cache, memory)
        assert outcome.clean
        assert sorted(read) == reads
        assert len(outcome.unchanged) == len(fresh)
        read.clear()

    doc = out / "watched" / "docs" / "tools" / "ping.md"
    edited = doc.read_text(encoding="utf-8").replace("First.", "Fir5t.")
    doc.write_text(edited, encoding="utf-8")  # the same size, a new modification time
    replaced = out / "watched" / "tools" / "ping.py"
    replaced.unlink()
    replaced.write_text(fresh["watched/tools/ping.py"], encoding="utf-8")  # the same text anew
    outcome = _watched(source, out, cache, memory)
    assert outcome.stale == ["watched/docs/tools/ping.md"]
    assert sorted(read) == ["watched/docs/tools/ping.md", "watched/tools/ping.py"]
    assert _written(out) == fresh

    # Written a moment ago (the page by the last build, the module by hand), both are read again.
    read.clear()
    outcome = _watched(source, out, cache, memory)
    assert outcome.clean
    assert sorted(read) == ["watched/docs/tools/ping.md", "watched/tools/ping.py"]


def test_a_watched_rebuild_after_each_edit_writes_what_a_fresh_build_writes(
    tmp_path: Path,
) -> None:
    source = tmp_path / "watched.yaml"
    out, cache = tmp_path / "out", BuildCache(tmp_path / ".codegen_cache")
    memory = BuildMemory()
    for step, description in enumerate(["First.", "Second.", "Third, longer.", "First."]):
        source.write_text(CATALOG.format(description=description), encoding="utf-8")
        if step == 2:
            source.write_text(CATALOG.format(description=description) + EXTRA, encoding="utf-8")
        _watched(source, out, cache, memory)
        _age(out)
        reference = tmp_path / f"reference{step}"
        write(build([source], tmp_path), reference, tmp_path)
        assert _written(out) == _written(reference), step


EXTRA = """\
  - name: pong
    description: Answers.
    parameters: {type: object, properties: {loud: {type: boolean}}}
"""


def test_a_watch_stores_each_package_after_the_build_for_the_next_build_to_read(
    tmp_path: Path,
) -> None:
    # Storing a catalog's package in the cache (megabytes at 2,000 tools) is left for after the
    # build's output is written and reported (`BuildMemory.later`), then done before the watch
    # waits again: a build in a new process finds it as if it had been stored at once.
    source = tmp_path / "watched.yaml"
    source.write_text(CATALOG.format(description="First."), encoding="utf-8")
    cache, memory = BuildCache(tmp_path / ".codegen_cache"), BuildMemory()
    result = build([source], tmp_path, cache, memory=memory)
    assert len(memory.later) == 1
    assert _cached_package(Memo(cache, source.name), source, ALL_PROVIDERS) is None
    memory.finish()
    assert memory.later == []
    package = _cached_package(Memo(cache, source.name), source, ALL_PROVIDERS)
    assert package is not None
    assert package.files == result.files
    assert list(package.warnings) == result.warnings


def test_a_failure_while_storing_a_package_is_said_and_the_watch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Storing the package comes after the watch's build is written and reported (memory.later):
    # an error there is said, as an unwritable cache is in any build, and the watch goes on.
    source = tmp_path / "watched.yaml"
    source.write_text(CATALOG.format(description="First."), encoding="utf-8")
    edits = [CATALOG.format(description="Second.")]
    builds: list[int] = []

    def put_bytes(self: BuildCache, entry: str, *parts: bytes) -> None:
        raise PermissionError(13, "Permission denied", str(self.directory))

    def watch_twice(sources: list[Path], build_once: Any, **options: Any) -> int:
        def once() -> int:
            builds.append(build_once())
            if edits:
                source.write_text(edits.pop(0), encoding="utf-8")
            return builds[-1]

        return watch(
            sources, once, interval=0.01, after=options["after"], stop=lambda: len(builds) == 2
        )

    monkeypatch.setattr(BuildCache, "put_bytes", put_bytes)
    monkeypatch.setattr(cli, "watch", watch_twice)
    monkeypatch.chdir(tmp_path)
    assert main(["build", str(source), "--out", "out", "--watch"]) == 0
    assert builds == [0, 0]
    said = capsys.readouterr().err
    assert said.count("Permission denied (EACCES) (while storing the build in the cache)") == 2
    assert "Second." in (tmp_path / "out" / "watched" / "docs" / "tools" / "ping.md").read_text(
        encoding="utf-8"
    )

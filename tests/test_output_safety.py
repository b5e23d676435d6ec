"""What `codegen build` writes, and where: never through a symbolic link or outside the output
directory, never a mixed tree, whatever kills it or races it (issue 17, items 1 and 2)."""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import codegen.emit
from codegen.cli import main
from codegen.emit import output_lock
from codegen.guarded_fs import Folder, holder
from tests.test_cli import BUNDLED, ROOT, output, run, tree

MANIFEST = ".codegen-manifest.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "memory_tools.yaml").write_bytes(
        (BUNDLED / "memory_tools.yaml").read_bytes()
    )
    return tmp_path


@pytest.fixture
def built(project: Path, memory_tools_built: Path) -> Path:
    """`project` after `codegen build`: a copy of the one build of the session."""
    shutil.copytree(memory_tools_built, project, dirs_exist_ok=True)
    return project


def outputs(out: Path) -> dict[str, bytes]:
    """The output tree as a build leaves it (bytecode that imports add is not the build's)."""
    return {p: b for p, b in tree(out).items() if "__pycache__" not in p}


def own(out: Path, path: str) -> None:
    """Make the manifest claim `path`, for a catalog that no longer exists: the next build removes it."""
    manifest = out / MANIFEST
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["files"][path] = "schemas/gone.yaml"
    manifest.write_text(json.dumps(data), encoding="utf-8")


# -- symbolic links ----------------------------------------------------------------------------


def test_a_planted_link_never_leads_a_build_to_delete_outside(built: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "important.txt").write_text("keep me", encoding="utf-8")
    out = built / "generated"
    (out / "evil").symlink_to(victim)
    own(out, "evil/important.txt")
    before = outputs(out)
    result = run(built, "build")
    assert result.returncode == 1
    assert (
        "codegen: generated/evil is a symbolic link: codegen follows no link in its output or its "
        "cache (remove it and build again); nothing was written"
    ) in result.stderr.splitlines()
    assert (victim / "important.txt").read_text(encoding="utf-8") == "keep me"
    assert outputs(out) == before
    check = run(built, "build", "--check")
    assert check.returncode == 1
    assert "generated/evil is a symbolic link" in check.stderr


@pytest.mark.parametrize(
    "claimed",
    ["../outside.txt", "/tmp/outside.txt", "a/../../outside.txt", ".", "", "a//b", "a\\b"],
)
def test_a_manifest_entry_outside_the_output_is_not_trusted(
    built: Path, tmp_path: Path, claimed: str
) -> None:
    # The manifest is a committed file: an entry that is not a path inside the output is not
    # trusted, not even kept for a source that still exists (this one is not built).
    outside = built / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    (built / "notes.txt").write_text("a source that is not a catalog", encoding="utf-8")
    out = built / "generated"
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    manifest["files"][claimed] = "notes.txt"
    (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert out.is_dir() and (out / "memory_tools" / "__init__.py").is_file()
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert claimed not in manifest["files"]


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
    # The manifest is a committed file. An entry naming one of the output's directories is
    # inside it: the build left that whole directory out of the new tree, the files it makes
    # there with it, and a user's own file in it (found by a review; so since issue 17). A build
    # drops only files it made.
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


def test_a_users_link_beside_the_generated_files_is_kept_as_a_link(built: Path) -> None:
    out = built / "generated"
    (out / "notes").symlink_to(built / "schemas")
    (built / "schemas" / "memory_tools.yaml").write_text(
        (BUNDLED / "memory_tools.yaml").read_text(encoding="utf-8").replace("Search", "Find"),
        encoding="utf-8",
    )
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert os.readlink(out / "notes") == str(built / "schemas")


# -- interrupted and concurrent builds ---------------------------------------------------------


def edited(text: str, round_: int) -> str:
    # The catalog's digest is in every module's header: each round changes every file.
    assert "\n  Seed tools" in text
    return text.replace("\n  Seed tools", f"\n  Round {round_}. Seed tools", 1)


def beside(project: Path) -> list[str]:
    """What is in the project besides the catalog, the output and the cache."""
    return sorted(
        p.name
        for p in project.iterdir()
        if p.name not in {"schemas", "generated", ".codegen_cache"}
    )


def ignored_by_git(directory: Path) -> bool:
    marker = directory / ".gitignore"
    return marker.is_file() and "*" in marker.read_text(encoding="utf-8").splitlines()


def names_in(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*")} if out.exists() else set()


def test_a_build_killed_while_it_marks_its_work_directory_leaves_nothing_git_shows(
    tmp_path: Path,
) -> None:
    # The kill at the one moment a random one seldom hits: after the marker's file is made, before
    # its text is in it. A process allowed to write no byte to any file is killed (SIGXFSZ) by
    # the first write: an empty `.gitignore` left there is a file git shows, an empty folder not.
    work = tmp_path / ".generated.codegen-build"
    script = (
        "import resource, signal, sys; from pathlib import Path; import codegen.emit as e; "
        "signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
        "from codegen.guarded_fs import holder; held = holder(Path(sys.argv[1]), Path(sys.argv[2])); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)); e._start(*held)"
    )
    done = subprocess.run([sys.executable, "-c", script, str(work), str(tmp_path)], check=False)
    assert done.returncode == -signal.SIGXFSZ  # killed at the write, as meant
    assert work.is_dir() and list(work.iterdir()) == []
    held = holder(tmp_path / "again", tmp_path)
    assert held is not None
    codegen.emit._start(*held).close()  # unhindered, the marker is there whole
    assert ignored_by_git(tmp_path / "again")


def test_a_build_killed_at_any_moment_leaves_the_old_tree_or_the_new(project: Path) -> None:
    # Two versions of the catalog, each changing every file, both in the cache: a build is then
    # mostly writing. Half the kills land at a random moment of the whole build, half a few
    # milliseconds after the writing is seen to start (a file appears in the output, or the
    # work directory beside it), where an interrupted write would leave a mix or debris.
    source = project / "schemas" / "memory_tools.yaml"
    original = source.read_text(encoding="utf-8")
    out = project / "generated"
    work = project / ".generated.codegen-build"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    trees: list[dict[str, bytes]] = []
    for version in (1, 2):
        source.write_text(edited(original, version), encoding="utf-8")
        started = time.monotonic()
        assert run(project, "build").returncode == 0
        longest = time.monotonic() - started
        trees.append(outputs(out))
    rng = random.Random(17)
    for round_ in range(6):
        old = outputs(out)
        target = 0 if old == trees[1] else 1
        source.write_text(edited(original, target + 1), encoding="utf-8")
        before = names_in(out)
        build = subprocess.Popen(
            [sys.executable, "-m", "codegen", "build"],
            cwd=project,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if round_ % 2:
            time.sleep(rng.uniform(0.0, longest))
        else:
            while build.poll() is None and not work.exists() and names_in(out) == before:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0.0, 0.004))
        build.send_signal(signal.SIGKILL)
        build.wait()
        now = outputs(out)
        assert now in (old, trees[target]), f"round {round_}: a mixed tree, or debris in it"
        for name in beside(project):  # what git would not ignore: nothing
            assert ignored_by_git(project / name) or not any((project / name).rglob("*"))
        finished = run(project, "build")
        assert finished.returncode == 0, output(finished)
        assert outputs(out) == trees[target]
        assert beside(project) == []
        check = run(project, "build", "--check")
        assert check.returncode == 0, output(check)


def test_an_interrupted_builds_leftovers_are_ignored_by_git_and_reported_by_check(
    built: Path,
) -> None:
    # What a kill during staging leaves: the work directory beside the output, which says
    # git ignores it; `--check` names it and the next build removes it.
    work = built / ".generated.codegen-build"
    (work / "next" / "memory_tools").mkdir(parents=True)
    (work / ".gitignore").write_text("*\n", encoding="utf-8")
    assert ignored_by_git(work)
    check = run(built, "build", "--check")
    assert check.returncode == 1
    assert "debris: .generated.codegen-build (left by an interrupted build)" in check.stdout
    assert run(built, "build").returncode == 0
    assert beside(built) == []
    assert run(built, "build", "--check").returncode == 0


def test_temporary_files_of_earlier_versions_are_swept_and_reported(built: Path) -> None:
    out = built / "generated"
    debris = out / "memory_tools" / ".__init__.py.k2j3h4g5.tmp"
    debris.write_text("half a module", encoding="utf-8")
    check = run(built, "build", "--check")
    assert check.returncode == 1
    assert f"debris: {debris.relative_to(built)}" in check.stdout
    assert run(built, "build").returncode == 0
    assert not debris.exists()
    assert run(built, "build", "--check").returncode == 0


def test_a_second_build_into_the_same_directory_waits_for_the_first(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with output_lock(project / "generated", project):
        second = subprocess.Popen(
            [sys.executable, "-m", "codegen", "build"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert second.stderr is not None
        # The catalog's warnings come first: the build is made, and waits to be written.
        line = second.stderr.readline()
        while line.startswith("schemas/") or " notes: what a provider format" in line:
            line = second.stderr.readline()
        assert line == "codegen: waiting for another build into generated to finish\n"
        assert not (project / "generated").exists()
    stdout, _ = second.communicate(timeout=120)
    assert second.returncode == 0
    assert "codegen: built 1 catalog into generated" in stdout


def test_builds_racing_into_one_directory_leave_one_whole_tree(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    references = tmp_path_factory.mktemp("references")
    source = project / "schemas" / "memory_tools.yaml"
    (project / "other").mkdir()
    other = project / "other" / "memory_tools.yaml"
    other.write_text(edited(source.read_text(encoding="utf-8"), 1), encoding="utf-8")
    trees = {}
    for name in ("schemas", "other"):
        result = run(project, "build", name, "--out", str(references / name))
        assert result.returncode == 0, output(result)
        trees[name] = outputs(references / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        racing = [
            subprocess.Popen(
                [sys.executable, "-m", "codegen", "build", name, "--no-cache"],
                cwd=project,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for name in ("schemas", "other")
        ]
        assert [build.wait(timeout=120) for build in racing] == [0, 0]
        final = outputs(project / "generated")
        winner = next(name for name in trees if trees[name] == final)
        assert run(project, "build", "--check", winner).returncode == 0


# -- a failed write changes nothing ------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (errno.ENOSPC, "No space left on device (ENOSPC)"),
        (errno.EROFS, "Read-only file system (EROFS)"),
        (errno.EACCES, "Permission denied (EACCES)"),
    ],
)
def test_a_write_that_fails_midway_leaves_the_previous_output(
    built: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    code: int,
    words: str,
) -> None:
    # Tests run as root here, which no permission stops, and on a disk with room: the failure
    # is made where the build writes a file, after its first one.

    out = built / "generated"
    before = outputs(out)
    (built / "schemas" / "memory_tools.yaml").write_text(
        edited((BUNDLED / "memory_tools.yaml").read_text(encoding="utf-8"), 1), encoding="utf-8"
    )
    real = Folder.write_new
    written: list[str] = []

    def fill_the_disk(folder: Folder, name: str, data: bytes, mode: int = 0o666) -> None:
        if written:
            raise OSError(code, os.strerror(code), f"{folder.path}/{name}")
        written.append(name)
        real(folder, name, data, mode)

    monkeypatch.setattr(Folder, "write_new", fill_the_disk)
    monkeypatch.chdir(built)
    assert main(["build", "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err
    last = err.splitlines()[-1]
    assert last.startswith("codegen: .generated.codegen-build/next/memory_tools/"), err
    assert last.endswith(f": {words}; the previous output is unchanged"), err
    assert outputs(out) == before
    assert beside(built) == []


def test_a_name_too_long_for_the_file_system_is_said_so(project: Path) -> None:
    name = "a" * 300
    result = run(project, "build", "--out", name)
    assert (result.returncode, result.stderr.splitlines()[-1]) == (
        1,
        f"codegen: {name}: File name too long (ENAMETOOLONG)",
    )
    result = run(project, "import", "schemas/memory_tools.yaml", "-o", name)
    assert (result.returncode, result.stderr) == (
        1,
        f"codegen: {name}: File name too long (ENAMETOOLONG)\n",
    )


def test_a_catalog_name_too_long_for_a_directory_is_a_catalog_error(project: Path) -> None:
    source = project / "schemas" / "memory_tools.yaml"
    long = "m" * 101
    source.write_text(
        source.read_text(encoding="utf-8").replace("name: memory_tools", f"name: {long}", 1),
        encoding="utf-8",
    )
    result = run(project, "build")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        # The name as every message shows a long catalog value (issue 32 item 3).
        "schemas/memory_tools.yaml:1: name: catalog name 'mmmmmmmmmmmmmmmm'… (101 characters) "
        "must be a lowercase Python "
        "identifier of at most 100 characters (it names the generated package and its directory)"
    )

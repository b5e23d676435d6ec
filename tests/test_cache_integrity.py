"""The build cache is trusted only where its bytes are what this user's codegen stored (issue 17,
items 3 and 12; issue 38 item 1: its seal and whole writes are all the protection it keeps)."""

from __future__ import annotations

import hashlib
import os
import pathlib
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import codegen.cache
from codegen.cache import DIRECTORY, BuildCache, seal
from codegen.memo import memo_entry, read_memo, write_memo
from tests.test_cli import BUNDLED, _edit_memory_search, output, run, tree


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


def entries(project: Path) -> list[Path]:
    return [p for p in (project / DIRECTORY).rglob("*") if p.is_file() and p.name != ".gitignore"]


def fresh_tree(project: Path, tmp_path: Path) -> dict[str, bytes]:
    result = run(project, "build", "--no-cache", "--out", str(tmp_path / "reference"))
    assert result.returncode == 0, output(result)
    return tree(tmp_path / "reference")


def import_every_module(project: Path) -> None:
    script = (
        "import importlib, pathlib\n"
        "for p in sorted(pathlib.Path('generated').rglob('*.py')):\n"
        "    importlib.import_module('.'.join(p.with_suffix('').parts).removesuffix('.__init__'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("damage", ["truncated", "code appended"])
def test_a_damaged_cache_entry_is_never_used(built: Path, tmp_path: Path, damage: str) -> None:
    reference = fresh_tree(built, tmp_path)
    sentinel = tmp_path / "appended_code_ran"
    damaged = entries(built)
    # The catalog's memo (its index and its pack), and the examples' check.
    assert len(damaged) == 3
    assert memo_entry("schemas/memory_tools.yaml") in {e.name for e in damaged}
    for entry in damaged:
        stored = entry.read_bytes()  # text, or a catalog's pickled memo
        if damage == "truncated":
            entry.write_bytes(stored[: len(stored) // 2])
        else:
            code = f"\nimport pathlib\npathlib.Path({str(sentinel)!r}).write_text('ran')\n"
            entry.write_bytes(stored + code.encode())
    (built / "generated").rename(tmp_path / "first_output")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert tree(built / "generated") == reference
    check = run(built, "build", "--check")
    assert check.returncode == 0, output(check)
    import_every_module(built)
    assert not sentinel.exists()


def test_a_damaged_entry_is_replaced_by_a_sound_one(built: Path) -> None:
    for entry in entries(built):
        entry.write_bytes(b"damaged")
    assert run(built, "build").returncode == 0
    assert all(e.read_bytes() != b"damaged" for e in entries(built))


def test_check_writes_nothing_not_even_the_cache(project: Path) -> None:
    result = run(project, "build", "--check")
    assert result.returncode == 1
    assert sorted(p.name for p in project.iterdir()) == ["schemas"]
    assert run(project, "build", "--no-cache").returncode == 0
    result = run(project, "build", "--check")
    assert result.returncode == 0, output(result)
    assert sorted(p.name for p in project.iterdir()) == ["generated", "schemas"]


def plant_memo(cache: BuildCache, entry: str, values: dict[str, bytes]) -> None:
    """Write a memo of `values` as a pull request could commit one: its index and pack are
    written as codegen writes them, each behind the digest of its bytes that anyone can compute
    in place of the seal only this user's key makes."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            codegen.cache,
            "seal",
            lambda *parts: hashlib.sha256(b"".join(parts)).hexdigest().encode(),
        )
        assert write_memo(cache, entry, values, {}) is not None


class _Planted:
    """What a planted pickle would do: write a file when it is read back."""

    def __init__(self, sentinel: str) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (pathlib.Path.write_text, (pathlib.Path(self.sentinel), "ran"))


def test_a_planted_memo_with_a_matching_digest_runs_no_code(built: Path, tmp_path: Path) -> None:
    # A pull request can commit files into .codegen_cache/ with digests that match: a memo is a
    # pickle, which would call what it names, so only one sealed under this user's key is read.
    # One tool is edited, so the build looks for the others in the memo.
    _edit_memory_search(built)
    reference = fresh_tree(built, tmp_path)
    sentinel = tmp_path / "planted_code_ran"
    entry = built / DIRECTORY / (name := memo_entry("schemas/memory_tools.yaml"))[:2] / name
    cache = BuildCache(built / DIRECTORY)
    stored, _ = read_memo(cache, name)
    assert stored  # the keys the build looks up, each value planted
    plant_memo(cache, name, {k: pickle.dumps(_Planted(str(sentinel))) for k in stored})
    digest, _, index = entry.read_bytes().partition(b"\n")
    assert digest == hashlib.sha256(index).hexdigest().encode()  # as anyone could plant it
    (built / "generated").rename(tmp_path / "first_output")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert not sentinel.exists()
    assert tree(built / "generated") == reference


def test_an_entry_made_elsewhere_is_not_read(built: Path, tmp_path: Path) -> None:
    # What a pull request can commit: entries whose digests are of their own bytes, which anyone
    # can compute. Entries are sealed with the user's key (cache.seal), so none is read: the
    # build makes what it would make without them.
    reference = fresh_tree(built, tmp_path)
    for entry in entries(built):
        sealed, _, body = entry.read_bytes().partition(b"\n")
        assert sealed == seal(body) != hashlib.sha256(body).hexdigest().encode()
        body = body.replace(b"memory_tools", b"memory_toolz")  # the same length: still whole
        entry.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    result = run(built, "build", "--check")
    assert result.returncode == 0, output(result)
    (built / "generated").rename(tmp_path / "first_output")
    assert run(built, "build").returncode == 0
    assert tree(built / "generated") == reference


def test_the_key_that_seals_entries_is_the_users_own(tmp_path: Path) -> None:
    # Made once, readable by its owner only, and the same for every build of this user; where
    # none can be made (a read-only cache home), a key of the process alone, so that nothing a
    # build reads was sealed by another.
    script = "from codegen.cache import user_key\nimport sys\nsys.stdout.write(user_key().hex())\n"

    def key_with(home: Path) -> str:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "XDG_CACHE_HOME": str(home)},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    home = tmp_path / "home"
    first = key_with(home)
    made = home / "codegen" / "cache-key"
    assert made.read_bytes().hex() == first == key_with(home)
    assert made.stat().st_mode & 0o777 == 0o600
    made.chmod(0o644)  # readable by others: not a secret any more, so not used
    assert key_with(home) not in (first, key_with(home))
    made.chmod(0o600)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache home should be", encoding="utf-8")
    assert key_with(blocked) != key_with(blocked)  # no home for a key: one a process

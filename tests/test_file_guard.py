"""The filesystem guard (issue 32: files items 1, 2 and 4, and "What to build" 1): every read,
write, rename and removal in the output directory, its work directory and the cache goes through
`codegen/guarded_fs.py`, which follows no symbolic link and refuses an output directory that is
or holds the project, the working directory, the cache or a source.

The cases are generated: a link (to a directory outside holding canary files, and to a file) is
planted at every path component of a real build's output directory, of its work directory and of
its cache, and `build --check`, a build after an edit of every catalog and a build after a catalog
is removed are run. Whatever the outcome, nothing outside changes and the link is still there;
where a build passes the link it is refused with an error naming it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from codegen.cli import main
from tests.test_cli import BUNDLED, output, run

OUT = "build/gen"
WORK = "build/.gen.codegen-build"
CACHE = ".codegen_cache"
REFUSED = "is a symbolic link: codegen follows no link in its output or its cache (remove it and build again)"
NOTHING_WRITTEN = "; nothing was written"
UNCHANGED = "; the previous output is unchanged"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of two catalogs built into `build/gen`, its cache filled."""
    project = tmp_path_factory.mktemp("template") / "project"
    (project / "schemas").mkdir(parents=True)
    for name in ("memory_tools.yaml", "http_tools.json"):
        shutil.copyfile(BUNDLED / name, project / "schemas" / name)
    (project / "pyproject.toml").write_text(f'[tool.codegen]\nout = "{OUT}"\n', encoding="utf-8")
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    return project


def snapshot(top: Path) -> dict[str, object]:
    """Every name below `top` with its bytes, or where it links to, or that it is a directory."""
    found: dict[str, object] = {}
    for path in sorted(top.rglob("*")):
        name = path.relative_to(top).as_posix()
        if path.is_symlink():
            found[name] = ("link", os.readlink(path))
        elif path.is_dir():
            found[name] = "directory"
        else:
            found[name] = path.read_bytes()
    return found


def places(template: Path) -> dict[str, str]:
    """Each path component a build reads, writes or removes, by its kind: the output's parent,
    the output, every directory in it and a file of each, the manifest; the work directory and
    what it holds; a `__pycache__` beside generated modules; the cache, its entries' directories
    and entries, its slots, its marker."""
    found = {"build": "output", OUT: "output"}
    out = template / OUT
    for directory in sorted(p for p in out.rglob("*") if p.is_dir()):
        name = directory.relative_to(template).as_posix()
        found[name] = "output"
        # The removed catalog's directories go with their bytecode; the others are kept.
        removed = name.startswith(f"{OUT}/http_tools")
        found[f"{name}/__pycache__"] = "bytecode" if removed else "kept"
        first = min(p for p in directory.iterdir() if p.is_file())
        found[first.relative_to(template).as_posix()] = "output"
    found[f"{OUT}/.codegen-manifest.json"] = "output"
    found[WORK] = "work"
    for inside in ("next", "previous", ".gitignore"):
        found[f"{WORK}/{inside}"] = "work inside"
    for path in sorted((template / CACHE).rglob("*")):
        found[path.relative_to(template).as_posix()] = "cache"
    found[CACHE] = "cache"
    return found


def _plant(project: Path, place: str, outside: Path, target: str) -> Path:
    """Put a link at `place`, to a directory outside (a copy of what was there, and canaries)
    or to a file outside; a work directory is made first where the link goes inside one."""
    path = project / place
    if place.startswith(f"{WORK}/"):
        (project / WORK).mkdir(exist_ok=True)
        (project / WORK / ".gitignore").write_text("*\n", encoding="utf-8")
    directory = outside / "directory"
    if path.is_dir() and not path.is_symlink():
        shutil.copytree(path, directory, symlinks=True)
    directory.mkdir(exist_ok=True)
    (directory / "canary.txt").write_text("keep me", encoding="utf-8")
    # What a sweep would move into the output (issue 32, item 2).
    (directory / "previous").mkdir(exist_ok=True)
    (directory / "previous" / "canary.txt").write_text("keep me too", encoding="utf-8")
    (outside / "file.txt").write_text("keep this file", encoding="utf-8")
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    path.symlink_to(directory if target == "directory" else outside / "file.txt")
    return path


def _build(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["build", *args])
    return code, capsys.readouterr().err.splitlines()[-1] if code else ""


# The scenarios, in order: `build --check`, a build, a build after a catalog is removed. For the
# cache, the build follows an edit of every catalog, so that each of its entries is passed.
SCENARIOS = ("check", "build", "remove a catalog")
# What each scenario says of a link of each kind: the refusal's ending, or None for a link the
# scenario never passes (it is left as it is, as a person's own).
EXPECTED: dict[str, tuple[str | None, ...]] = {
    "output": ("", NOTHING_WRITTEN, NOTHING_WRITTEN),
    "work": ("", NOTHING_WRITTEN, NOTHING_WRITTEN),
    # `--check` names the work directory as debris (exit 1) without entering it.
    "work inside": (None, UNCHANGED, UNCHANGED),
    # Bytecode is passed only when its directory goes, with a removed catalog's files; a link
    # anywhere else beside the generated files is a person's own, kept as a link.
    "bytecode": (None, None, NOTHING_WRITTEN),
    "kept": (None, None, None),
    # The cache ends a build where it meets the link, before anything is written. A build after
    # an edit of every catalog passes every entry; the others only those of the catalogs built.
    "cache": ("?", "", "?"),
}


def _scenario(project: Path, scenario: str, kind: str) -> list[str]:
    schemas = project / "schemas"
    if scenario == "check":
        return ["--check"]
    if scenario == "remove a catalog":
        (schemas / "http_tools.json").unlink()
    elif kind == "cache":
        for name, old, new in (
            ("memory_tools.yaml", "Search", "Find"),
            ("http_tools.json", "HTTP", "Web"),
        ):
            text = (schemas / name).read_text(encoding="utf-8")
            assert old in text
            (schemas / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return []


@pytest.mark.parametrize("target", ["directory", "file"])
@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_link_planted_anywhere_is_never_followed(
    template: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    target: str,
) -> None:
    chosen = [place for place, its in places(template).items() if its == kind]
    assert chosen
    for number, place in enumerate(chosen):
        project = tmp_path / f"project{number}"
        shutil.copytree(template, project, symlinks=True)
        outside = tmp_path / f"outside{number}"
        outside.mkdir()
        link = _plant(project, place, outside, target)
        pointed = os.readlink(link)
        before = snapshot(outside)
        monkeypatch.chdir(project)
        for scenario, ending in zip(SCENARIOS, EXPECTED[kind], strict=True):
            code, said = _build(capsys, *_scenario(project, scenario, kind))
            where = (place, scenario, said)
            if ending is None:
                assert code == (1 if kind == "work inside" and scenario == "check" else 0), where
            elif ending == "?":
                assert code == 0 or said == f"codegen: {place} {REFUSED}", where
            else:
                assert (code, said) == (1, f"codegen: {place} {REFUSED}{ending}"), where
            assert snapshot(outside) == before, where
            assert os.readlink(link) == pointed, where  # refused, never removed


# -- the issue's own cases ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two catalogs built into `generated/`, made once for the module: `project` copies it (the
    build was most of each test's time; nothing a build leaves holds the project's path)."""
    project = tmp_path_factory.mktemp("built_once") / "project"
    (project / "schemas").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.codegen]\n", encoding="utf-8")
    for name in ("memory_tools.yaml", "http_tools.json"):
        shutil.copyfile(BUNDLED / name, project / "schemas" / name)
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    return project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built_once: Path) -> Path:
    """Two catalogs built into `generated/`, the working directory."""
    project = tmp_path / "project"
    shutil.copytree(built_once, project, symlinks=True)
    monkeypatch.chdir(project)
    return project


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "previous").mkdir(parents=True)
    (outside / "canary.txt").write_text("keep me", encoding="utf-8")
    (outside / "previous" / "canary.txt").write_text("keep me too", encoding="utf-8")
    return outside


def test_a_linked_pycache_never_leads_a_rebuild_to_empty_its_target(
    project: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 32, item 1: `emit._remove_empty_parents` walked into a `__pycache__` that is a link
    # and unlinked the files it points to, once the catalog of the modules beside it was removed.
    pycache = project / "generated" / "http_tools" / "tools" / "__pycache__"
    # Absolute: the staged copy of a relative link resolves from one directory deeper.
    pycache.symlink_to(outside)
    before = snapshot(outside)
    (project / "schemas" / "http_tools.json").unlink()
    assert _build(capsys) == (
        1,
        f"codegen: generated/http_tools/tools/__pycache__ {REFUSED}{NOTHING_WRITTEN}",
    )
    assert snapshot(outside) == before
    assert (project / "generated" / "http_tools" / "tools" / "__init__.py").is_file()


def test_a_planted_work_directory_moves_nothing_into_a_missing_output(
    project: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 32, item 2: with no `generated/`, a planted `.generated.codegen-build` link made the
    # sweep rename `<target>/previous` into the output (exit 0, the outside directory emptied).
    shutil.rmtree(project / "generated")
    (project / ".generated.codegen-build").symlink_to(outside)
    before = snapshot(outside)
    assert _build(capsys) == (1, f"codegen: .generated.codegen-build {REFUSED}{NOTHING_WRITTEN}")
    assert snapshot(outside) == before
    assert not (project / "generated").exists()


def test_a_linked_cache_is_never_written_through(
    project: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 32, item 4: writes into `.codegen_cache` followed a link planted there.
    shutil.rmtree(project / CACHE)
    (project / CACHE).symlink_to(outside)
    before = snapshot(outside)
    assert _build(capsys) == (1, f"codegen: {CACHE} {REFUSED}")
    assert _build(capsys, "--check") == (1, f"codegen: {CACHE} {REFUSED}")
    assert snapshot(outside) == before
    assert _build(capsys, "--no-cache") == (0, "")  # a build that does not use it goes on
    assert snapshot(outside) == before


@pytest.mark.parametrize(
    ("where", "out", "what"),
    [
        (".", ".", "is the project"),
        (".", "..", "holds the project"),
        (".", "schemas", "is the source schemas"),
        (".", "schemas/memory_tools.yaml", "is the source schemas/memory_tools.yaml"),
        (".", CACHE, "is the build cache"),
        (".", "/", "holds the project"),
        ("sub", ".", "is the working directory"),
        ("sub", "..", "is the project"),
        ("sub", "../..", "holds the project"),
    ],
)
def test_an_output_that_is_or_holds_what_a_build_must_keep_is_refused(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
    out: str,
    what: str,
) -> None:
    # Issue 32, item 4: `--out .` and `--out ..` copied the work directory into itself until
    # ENAMETOOLONG, then reported "unchanged". A build replaces its whole output directory: one
    # that is or holds the project, the working directory, the cache or a source is refused as
    # a usage error (exit 2), before anything is built or written.
    (project / "sub").mkdir()
    before = snapshot(project.parent)
    monkeypatch.chdir(project / where)
    sources = ["../schemas"] if where == "sub" else []
    assert _build(capsys, *sources, "--out", out) == (
        2,
        (
            f"codegen: the output directory {out} {what}: a build replaces its whole output "
            "directory (choose a directory of its own, such as generated/)"
        ),
    )
    assert snapshot(project.parent) == before


def test_a_link_met_while_a_watch_stores_its_build_is_said_and_the_watch_goes_on(
    tmp_path: Path,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A watch stores each catalog's package after the build's output is written
    # (`BuildMemory.finish`): a link planted in the cache meanwhile is refused there too, said,
    # and the watch goes on (`cli._finish`), as for any cache that cannot be written.
    from codegen.build import build
    from codegen.cache import BuildCache
    from codegen.cli import _finish
    from codegen.memo import memo_entry
    from codegen.memory import BuildMemory

    monkeypatch.chdir(tmp_path)
    shutil.copyfile(BUNDLED / "memory_tools.yaml", tmp_path / "memory_tools.yaml")
    memory = BuildMemory()
    build([tmp_path / "memory_tools.yaml"], tmp_path, BuildCache(tmp_path / CACHE), memory=memory)
    assert memory.later
    folder = memo_entry("memory_tools.yaml")[:2]  # where the catalog's memo is written
    shutil.rmtree(tmp_path / CACHE / folder, ignore_errors=True)
    (tmp_path / CACHE / folder).symlink_to(outside)
    before = snapshot(outside)
    _finish(memory)
    assert capsys.readouterr().err == (
        f"codegen: {CACHE}/{folder} {REFUSED} (while storing the build in the cache)\n"
    )
    assert snapshot(outside) == before


def test_a_build_where_no_call_works_from_an_opened_directory_is_refused_in_words(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Windows has no `dir_fd`: rather than fail midway with the system's words, a build is
    refused before anything is read or written, and says where it runs."""
    before = snapshot(project.parent)
    monkeypatch.chdir(project)
    monkeypatch.setattr(os, "supports_dir_fd", frozenset())
    assert _build(capsys) == (
        2,
        (
            "codegen: a build writes only through directories it has opened, following no "
            "link, which this system cannot do: build on Linux or macOS (on Windows, under WSL)"
        ),
    )
    assert snapshot(project.parent) == before


@pytest.mark.parametrize("through", ["the project", "a directory above it"])
def test_a_project_named_through_a_link_still_walks_its_inside_following_no_link(
    project: Path, outside: Path, capsys: pytest.CaptureFixture[str], through: str
) -> None:
    """The review of issue 32: `--out` spelled through a link to the project (or to a directory
    above it: `$PWD`, macOS's `/tmp`) was taken for a path outside the project, so its parent was
    opened following links, a committed `sub -> /victim` among them, and the build wrote there.
    The first leading part of the path that resolves to the project counts as the project."""
    (project / "sub").symlink_to(outside)
    alias = project.parent / "alias"
    if through == "the project":
        alias.symlink_to(project)
        out = alias / "sub" / "gen"
    else:
        alias.symlink_to(project.parent)
        out = alias / project.name / "sub" / "gen"
    before = snapshot(outside)
    assert _build(capsys, "--out", str(out), "--no-cache") == (
        1,
        f"codegen: sub {REFUSED}{NOTHING_WRITTEN}",
    )
    assert snapshot(outside) == before


@pytest.mark.parametrize("command", [["build"], ["build", "--check"]])
def test_a_file_where_the_output_goes_is_never_replaced(
    project: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """The review of issue 32: a file at the output's path was swapped aside with the new tree
    in one step and swept away with the old one (rc 0). It is the user's: refused, kept."""
    (project / "notes").write_text("precious notes", encoding="utf-8")
    code = main([*command, "--out", "notes"])
    assert (code, capsys.readouterr().err.splitlines()[-1]) == (
        1,
        "codegen: notes is a file: the output must be a directory of its own"
        + (NOTHING_WRITTEN if command == ["build"] else ""),
    )
    assert (project / "notes").read_text(encoding="utf-8") == "precious notes"


def test_a_tree_copy_that_fails_midway_holds_no_descriptor(tmp_path: Path) -> None:
    """The review of issue 32: `copy_tree` left the directories it had opened and not yet copied
    open when a copy failed (a watch builds again and again in one process)."""
    from codegen.guarded_fs import open_directory

    for branch in ("a", "b", "c"):
        (tmp_path / "origin" / branch / "deeper").mkdir(parents=True)
        (tmp_path / "origin" / branch / "deeper" / "file.txt").write_text(branch, encoding="utf-8")
    (tmp_path / "copy" / "b").mkdir(parents=True)
    (tmp_path / "copy" / "b" / "deeper").write_text("a file", encoding="utf-8")
    before = len(os.listdir("/dev/fd"))
    origin, copy = open_directory(tmp_path / "origin"), open_directory(tmp_path / "copy")
    assert origin is not None and copy is not None
    with origin, copy, pytest.raises(NotADirectoryError):
        origin.copy_tree(copy, set())
    assert len(os.listdir("/dev/fd")) == before

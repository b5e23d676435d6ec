"""Shared fixtures: build a catalog into a temporary package and import it."""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import io
import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from codegen.build import BuildResult, build, check_catalogs
from codegen.catalog.ir import Catalog
from codegen.cli import main
from codegen.diagnostics import Diagnostic

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

_counter = itertools.count()


def pytest_configure(config: pytest.Config) -> None:
    # At exit the interpreter collects the objects the session made over and over as it clears
    # each module: seconds for a process that ran thousands of tests, with nothing left to find
    # (pytest's own last collection, which reports an unraisable exception, has run by then).
    # Frozen objects are skipped by those collections; atexit runs before them.
    atexit.register(gc.freeze)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-snapshots", action="store_true", help="rewrite tests/snapshots from a fresh build"
    )


def build_package(source: Path, out: Path) -> ModuleType:
    """Build one catalog file into `out` and import its package under a unique name."""
    result = build([source])
    (package,) = result.packages
    alias = f"{package}_{next(_counter)}"
    for path, text in result.files.items():
        target = out / alias / Path(path).relative_to(package)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module(alias)
    finally:
        sys.path.remove(str(out))


@pytest.fixture
def catalog_from_yaml(tmp_path: Path) -> Iterator[Callable[[str], ModuleType]]:
    """`catalog_from_yaml(text)` → the imported generated package of that catalog text."""

    def make(text: str) -> ModuleType:
        source = tmp_path / f"catalog_{next(_counter)}.yaml"
        source.write_text(textwrap.dedent(text), encoding="utf-8")
        return build_package(source, tmp_path / "out")

    yield make


@pytest.fixture(scope="session")
def fixture_package(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], ModuleType]:
    """`fixture_package("coercion.yaml")` → the imported package of a catalog in tests/fixtures (built once)."""
    cache: dict[str, ModuleType] = {}

    def get(name: str) -> ModuleType:
        if name not in cache:
            cache[name] = build_package(FIXTURES / name, tmp_path_factory.mktemp("pkg"))
        return cache[name]

    return get


@dataclass(frozen=True)
class Built:
    """A catalog built into a directory of its own: the directory, its package imported, the
    catalog's IR and the build's findings."""

    out: Path
    package: ModuleType
    catalog: Catalog
    warnings: list[Diagnostic]


@pytest.fixture(scope="session")
def names_everywhere(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The catalog of `tests/every_name.py` built into `out/names_everywhere` (for mypy and
    ruff) and imported (issue 33)."""
    import every_name as catalog

    out = tmp_path_factory.mktemp("names_everywhere")
    source = catalog.write(out)
    result = build([source], out)
    for path, text in result.files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")
    (ir,), _ = check_catalogs([source], out)
    sys.path.insert(0, str(out))
    try:
        package = importlib.import_module("names_everywhere")
    finally:
        sys.path.remove(str(out))
    return Built(out, package, ir, result.warnings)


@pytest.fixture(scope="session")
def schemas_built() -> BuildResult:
    """`codegen build` of the bundled schemas/ in this process, made once for the tests that only
    read it (tests/test_generated.py compares it with generated/ and with a build in a child,
    tests/test_payloads.py with a second build)."""
    with contextlib.chdir(ROOT):
        return build([Path("schemas")])


@pytest.fixture(scope="session")
def memory_tools_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of the bundled schemas/memory_tools.yaml after `codegen build` (its output, its
    manifest and its cache, none of which holds the project's path), made once: each test that
    starts from a built project copies it (a build of its own was most of such a test's time)."""
    project = tmp_path_factory.mktemp("memory_tools_built")
    (project / "schemas").mkdir()
    shutil.copy(ROOT / "schemas" / "memory_tools.yaml", project / "schemas")
    done = run_cli("build", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def run_cli(*args: str, cwd: Path = ROOT, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`codegen ARGS` run in this process (no interpreter start-up: a tenth of the time), with
    its exit code and output as a subprocess would give them; for tests of what the command
    does, not of the process (tests/test_cli.py runs the real one for that)."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        _stdin(stdin),
    ):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's --help and usage errors end the process
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return subprocess.CompletedProcess(["codegen", *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


Mypy = Callable[..., "subprocess.CompletedProcess[str]"]


# Where every `mypy --strict` run of the tests keeps its cache: inside the checkout's `.mypy_cache`
# (ignored by git), kept from one session to the next.
MYPY_CACHE = ROOT / ".mypy_cache" / "tests-strict"


@pytest.fixture(scope="session")
def mypy() -> Mypy:
    """`mypy(*targets, cwd=ROOT, path=None)`: `mypy --strict` for Python 3.11, with `path` as
    MYPYPATH. Every run, in every xdist worker and every session, shares one cache: almost all of a
    run's time is mypy analysing the standard library and the SDKs (openai, anthropic, google-genai,
    mcp: 27 CPU-s cold for the docs' blocks, 1 s with the cache), which change only when they are
    reinstalled, and mypy checks each cached module against its source (and its own version and
    options) before it uses it. The runs take turns (a lock file): two at once on a cold cache
    would each analyse the same SDKs. The cache is files, not mypy's default SQLite database,
    which a run elsewhere could hold locked."""
    import fcntl  # POSIX's: imported where used, as codegen does, so the suite imports anywhere

    MYPY_CACHE.mkdir(parents=True, exist_ok=True)

    def run(
        *targets: str, cwd: Path = ROOT, path: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "MYPYPATH": str(path)} if path else None
        command = [
            "--strict",
            "--python-version",
            "3.11",
            "--no-sqlite-cache",
            "--cache-dir",
            str(MYPY_CACHE),
            *targets,
        ]
        with (MYPY_CACHE / "lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            written = _written_targets([cwd / t for t in targets if not t.startswith("-")])
            done = subprocess.run(
                [str(Path(sys.executable).parent / "mypy"), *command],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            _record_written_targets(written, done.stdout, cwd)
            return done

    return run


# The modules the tests wrote outside the checkout, as mypy last checked them: {module: [its path,
# whether mypy said anything about it]}. The runs take turns, so the record is theirs.
WRITTEN = MYPY_CACHE / "written.json"


def _written_targets(targets: list[Path]) -> dict[str, str]:
    """The modules of `targets` a test wrote outside the checkout, by name, with their paths; the
    cache of each dropped where mypy would report what it said of it under an old path. (Mypy
    takes a cached module whose text is unchanged at another path as fresh, and repeats the
    errors and notes it found there with the old path: a block written into this session's
    temporary directory would show errors in the last session's.) A module mypy said nothing
    about keeps its cache: a package built for a test is not analysed again each session."""
    from mypy.find_sources import create_source_list
    from mypy.options import Options

    last = json.loads(WRITTEN.read_text(encoding="utf-8")) if WRITTEN.exists() else {}
    written = {}
    for source in create_source_list([str(t) for t in targets], Options()):
        if source.path is None or Path(source.path).resolve().is_relative_to(ROOT):
            continue
        written[source.module] = str(Path(source.path).resolve())
        path, said = last.get(source.module, (None, True))
        if path != written[source.module] and said:
            cached = MYPY_CACHE / "3.11" / Path(*source.module.split("."))
            for stale in [*cached.parent.glob(f"{cached.name}.*"), *cached.glob("__init__.*")]:
                stale.unlink()
    return written


def _record_written_targets(written: dict[str, str], report: str, cwd: Path) -> None:
    """Keep the path of each module of `written` and whether mypy's `report` said anything of it
    (its paths are as the targets were given, relative to `cwd` or not)."""
    said = {
        str((cwd / line.split(":", 1)[0]).resolve()) for line in report.splitlines() if ": " in line
    }
    last = json.loads(WRITTEN.read_text(encoding="utf-8")) if WRITTEN.exists() else {}
    last.update({module: [path, path in said] for module, path in written.items()})
    WRITTEN.write_text(json.dumps(last), encoding="utf-8")


@pytest.fixture
def tools_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The wire names of the tools whose output a build makes (not from the catalog's memo), in
    order, for the rest of the test."""
    import functools

    import codegen.tool_outputs

    made: list[str] = []
    real = codegen.tool_outputs.make_output

    @functools.wraps(real)  # its name, which the memo's keys hold
    def counted(job: Any) -> Any:
        made.append(job.tool.wire_name)
        return real(job)

    monkeypatch.setattr(codegen.tool_outputs, "make_output", counted)
    return made

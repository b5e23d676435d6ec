"""The `codegen` command end to end, in a throwaway project directory.

Each test gets a project in tmp_path with the bundled catalog in schemas/ and runs `codegen ...`
there (cwd = the project), the way a user's build step or CI would: in this process, with its
exit code and output as the process gives them, and as the real `python -m codegen` process for
what only a process shows (a first build, a failed build's exit, stdin, usage errors).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

import codegen.build
from codegen import runtime
from codegen.build import build
from codegen.cache import DIRECTORY, BuildCache
from codegen.catalog.load import LoadedCatalog
from codegen.diagnostics import CatalogError
from codegen.memo import Memo, memo_entry, write_memo
from codegen.python.render import INTEGRATIONS
from codegen.tool_outputs import ToolOutput
from codegen.workers import Mapper

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "schemas"

MEMORY_FILES = [
    "memory_tools/__init__.py",
    "memory_tools/_runtime.py",
    "memory_tools/tools/__init__.py",
    "memory_tools/tools/memory_search.py",
    "memory_tools/tools/read_file.py",
    "memory_tools/tools/search_files.py",
    "memory_tools/tools/update_config.py",
]
MANIFEST = ".codegen-manifest.json"
OLD = 1_000_000_000  # a fixed mtime (2001), so "not rewritten" does not depend on clock resolution


def run(project: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command's work and report, run in this process (the interpreter's start-up was most of
    this file's time); `run_process` for what only the real process shows."""
    return run_cli(*args, cwd=project, stdin=stdin)


def run_process(
    project: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        check=False,
        cwd=project,
        env=env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def output(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def tree(directory: Path) -> dict[str, bytes]:
    if not directory.exists():
        return {}
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def age(directory: Path) -> None:
    for path in directory.rglob("*"):
        if path.is_file():
            os.utime(path, (OLD, OLD))


def mtimes(directory: Path) -> dict[str, int]:
    return {
        p.relative_to(directory).as_posix(): p.stat().st_mtime_ns
        for p in directory.rglob("*")
        if p.is_file()
    }


def remove_tool(catalog: Path, tool: str) -> None:
    """Cut one tool's block (from its `  - name:` line to the next tool) out of a bundled YAML catalog."""
    lines = catalog.read_text(encoding="utf-8").splitlines(keepends=True)
    start = lines.index(f"  - name: {tool}\n")
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("  - name: ")), len(lines)
    )
    catalog.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")


def break_catalog(catalog: Path) -> None:
    text = catalog.read_text(encoding="utf-8")
    assert "          type: integer\n          description: Maximum number of passages" in text
    catalog.write_text(
        text.replace(
            "          type: integer\n          description: Maximum number of passages",
            "          $ref: '#/nowhere'\n          description: Maximum number of passages",
        ),
        encoding="utf-8",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with schemas/memory_tools.yaml and no pyproject.toml."""
    (tmp_path / "schemas").mkdir()
    shutil.copy(BUNDLED / "memory_tools.yaml", tmp_path / "schemas" / "memory_tools.yaml")
    return tmp_path


def front_end_warnings(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if ": OpenAI strict: " not in line
        and ": Anthropic strict: " not in line
        and ": Gemini legacy: " not in line
        and not line.startswith("codegen: ")
    ]


def only_payload_warnings(stderr: str) -> bool:
    """What a clean catalog still gets: notes of what the provider formats cannot carry and the
    parser enforces anyway (SPEC §4: a default in strict mode, a non-string enum in Gemini's
    legacy subset, ...), listed by `validate` and counted by `build`."""
    lines = stderr.splitlines()
    return bool(lines) and all(
        (
            ": note CG201: " in line
            and any(
                f": {fmt}: " in line
                for fmt in ("OpenAI strict", "Anthropic strict", "Gemini legacy")
            )
        )
        or (line.startswith("codegen: ") and " notes: what a provider format cannot say" in line)
        for line in lines
    )


@pytest.fixture
def built(project: Path, memory_tools_built: Path) -> Path:
    """`project` after `codegen build`: a copy of the one build of the session."""
    shutil.copytree(memory_tools_built, project, dirs_exist_ok=True)
    return project


# -- build -------------------------------------------------------------------------------------


def test_build_writes_the_package_and_the_manifest(project: Path) -> None:
    result = run_process(project, "build")
    assert result.returncode == 0, output(result)
    out = project / "generated"
    for path in MEMORY_FILES:
        assert (out / path).is_file(), f"{path} was not written"
    assert (out / MANIFEST).is_file()
    assert only_payload_warnings(result.stderr)

    # The manifest lists every file the build wrote (other than itself), each with its source.
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    files = manifest["files"]
    assert set(MEMORY_FILES) <= set(files)
    assert set(files.values()) == {"schemas/memory_tools.yaml"}
    assert sorted(files) == sorted(p for p in tree(out) if p != MANIFEST)
    assert f"{len(files) + 1} written" in result.stdout, result.stdout

    for path in files:
        text = (out / path).read_text(encoding="utf-8")
        assert str(project) not in text, f"{path}: absolute paths leak into the output"
        if path.endswith(".py"):
            head = text.splitlines()[:2]
            assert "generated by codegen" in head[0] and "do not edit" in head[0], (path, head)
            if path.endswith(
                (
                    *(f"/_{name}.py" for name in runtime.MODULES),
                    *(f"/{name}.py" for name in INTEGRATIONS),
                    "/_payloads.py",
                    "/mcp.py",
                )
            ):
                assert "The same in every catalog's package" in head[0], (path, head)
            else:
                assert "schemas/memory_tools.yaml" in head[1], (path, head)


def test_built_package_imports_and_parses(built: Path) -> None:
    code = textwrap.dedent("""
        import json
        from generated.memory_tools import parse, parse_memory_search, MemorySearchArgs, TOOLS
        request = parse("memory.search", '{"query": "agent state", "limit": "5"}')
        direct = parse_memory_search({"query": "x"})
        print(json.dumps([request.values, list(request.warnings), isinstance(direct.arguments, MemorySearchArgs),
                          direct.values, sorted(TOOLS)]))
        """)
    # The generated code needs no generator: run it without codegen on the path.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=built,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    values, warnings, typed, direct, names = json.loads(result.stdout)
    assert values == {"query": "agent state", "limit": 5}
    assert warnings == ["string_literal_converted_to_integer:limit"]
    assert typed is True
    assert direct == {"query": "x", "limit": 3}
    assert names == ["memory.search", "read_file", "search_files", "update_config"]


def test_second_build_writes_nothing(built: Path) -> None:
    out = built / "generated"
    age(out)
    before_bytes, before_times = tree(out), mtimes(out)
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert "0 written" in result.stdout and "0 removed" in result.stdout, result.stdout
    assert tree(out) == before_bytes
    assert mtimes(out) == before_times, "unchanged files were rewritten"
    assert not [p for p in out.rglob("*.tmp")], "temporary files left behind"


def test_build_is_deterministic_across_directories(
    built: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("elsewhere")
    shutil.copytree(built / "schemas", other / "schemas")
    assert run(other, "build").returncode == 0
    assert tree(other / "generated") == tree(built / "generated")


def test_build_rewrites_only_the_file_that_was_edited(built: Path) -> None:
    out = built / "generated"
    target = out / "memory_tools/tools/read_file.py"
    pristine = target.read_bytes()
    target.write_text("# edited by hand\n", encoding="utf-8")
    age(out)
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert "1 written" in result.stdout, result.stdout
    assert target.read_bytes() == pristine
    changed = [path for path, ns in mtimes(out).items() if ns != OLD * 1_000_000_000]
    assert changed == ["memory_tools/tools/read_file.py"]


# -- build --check -----------------------------------------------------------------------------


def test_check_is_clean_after_a_build(built: Path) -> None:
    before = tree(built / "generated")
    result = run(built, "build", "--check")
    assert result.returncode == 0, output(result)
    assert "up to date" in output(result)
    for label in ("stale:", "missing:", "orphaned:"):
        assert label not in output(result)
    assert tree(built / "generated") == before


def test_check_before_any_build_lists_missing_files_and_writes_nothing(project: Path) -> None:
    result = run(project, "build", "--check")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith("missing: generated/") for line in lines), result.stdout
    assert {f"missing: generated/{p}" for p in [*MEMORY_FILES, MANIFEST]} <= set(lines)
    assert "out of date" in result.stderr
    assert not (project / "generated").exists()


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text + "# local tweak\n",  # another size: not read
        lambda text: text.replace("import", "IMPORT", 1),  # the same size: read and compared
    ],
    ids=["longer", "same size"],
)
def test_check_reports_an_edited_file_as_stale(built: Path, edit: Callable[[str], str]) -> None:
    target = built / "generated/memory_tools/tools/read_file.py"
    target.write_text(edit(target.read_text(encoding="utf-8")), encoding="utf-8")
    before = tree(built / "generated")
    result = run(built, "build", "--check")
    assert result.returncode == 1
    assert "stale: generated/memory_tools/tools/read_file.py" in result.stdout.splitlines()
    assert [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("stale:", "missing:", "orphaned:"))
    ] == ["stale: generated/memory_tools/tools/read_file.py"]
    assert tree(built / "generated") == before, "--check wrote something"


def test_check_reports_a_deleted_file_as_missing(built: Path) -> None:
    (built / "generated/memory_tools/_runtime.py").unlink()
    result = run(built, "build", "--check")
    assert result.returncode == 1
    assert "missing: generated/memory_tools/_runtime.py" in result.stdout.splitlines()
    assert not (built / "generated/memory_tools/_runtime.py").exists()


def test_check_reports_a_removed_tool_as_orphaned(built: Path) -> None:
    remove_tool(built / "schemas/memory_tools.yaml", "read_file")
    before = tree(built / "generated")
    result = run(built, "build", "--check")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "orphaned: generated/memory_tools/tools/read_file.py" in lines
    assert "stale: generated/memory_tools/__init__.py" in lines  # it no longer imports the tool
    assert tree(built / "generated") == before, "--check removed or wrote something"


def test_check_on_a_catalog_change_lists_the_changed_tool_as_stale(built: Path) -> None:
    catalog = built / "schemas/memory_tools.yaml"
    catalog.write_text(
        catalog.read_text(encoding="utf-8").replace(
            "Maximum number of passages to return.",
            "Maximum number of passages to return (at most 50).",
        ),
        encoding="utf-8",
    )
    result = run(built, "build", "--check")
    assert result.returncode == 1
    assert "stale: generated/memory_tools/tools/memory_search.py" in result.stdout.splitlines()


# -- ownership: orphans are removed, nothing else is -------------------------------------------


def test_rebuild_removes_the_module_of_a_removed_tool_but_never_a_user_file(built: Path) -> None:
    out = built / "generated"
    user_files = {
        "README.md": "my notes\n",
        "memory_tools/extras.py": "HELPER = 1\n",
        "memory_tools/tools/handwritten.py": "def handler(): ...\n",
    }
    for path, text in user_files.items():
        (out / path).write_text(text, encoding="utf-8")

    remove_tool(built / "schemas/memory_tools.yaml", "read_file")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    # The tool's module and its docs page.
    assert "2 removed" in result.stdout, result.stdout
    assert not (out / "memory_tools/tools/read_file.py").exists()
    assert not (out / "memory_tools/docs/tools/read_file.md").exists()
    for path, text in user_files.items():
        assert (out / path).read_text(encoding="utf-8") == text, f"{path} was touched"
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert "memory_tools/tools/read_file.py" not in manifest["files"]
    assert "memory_tools/tools/handwritten.py" not in manifest["files"]
    assert "read_file" not in (out / "memory_tools/__init__.py").read_text(encoding="utf-8")
    assert run(built, "build", "--check").returncode == 0


def test_rebuild_never_removes_a_file_the_manifest_does_not_list(built: Path) -> None:
    out = built / "generated"
    (out / MANIFEST).unlink()
    remove_tool(built / "schemas/memory_tools.yaml", "read_file")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert (out / "memory_tools/tools/read_file.py").exists(), (
        "removed a file no manifest said was ours"
    )


def test_building_one_catalog_keeps_the_files_of_another(project: Path) -> None:
    shutil.copy(BUNDLED / "calendar_tools.yaml", project / "schemas" / "calendar_tools.yaml")
    assert run(project, "build").returncode == 0
    out = project / "generated"
    calendar = {p: b for p, b in tree(out).items() if p.startswith("calendar_tools/")}
    assert calendar

    result = run(project, "build", "schemas/memory_tools.yaml")
    assert result.returncode == 0, output(result)
    assert "0 removed" in result.stdout, result.stdout
    assert {p: b for p, b in tree(out).items() if p.startswith("calendar_tools/")} == calendar
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert set(manifest["files"].values()) == {
        "schemas/memory_tools.yaml",
        "schemas/calendar_tools.yaml",
    }
    assert run(project, "build", "--check").returncode == 0


def test_removing_a_catalog_file_removes_its_package(project: Path) -> None:
    shutil.copy(BUNDLED / "calendar_tools.yaml", project / "schemas" / "calendar_tools.yaml")
    assert run(project, "build").returncode == 0
    (project / "schemas" / "calendar_tools.yaml").unlink()

    check = run(project, "build", "--check")
    assert check.returncode == 1
    assert "orphaned: generated/calendar_tools/__init__.py" in check.stdout.splitlines()

    result = run(project, "build")
    assert result.returncode == 0, output(result)
    assert not (project / "generated" / "calendar_tools").exists()
    assert (project / "generated" / "memory_tools" / "__init__.py").is_file()


# -- a failed build changes nothing ------------------------------------------------------------


def test_failed_build_leaves_previous_output_byte_identical(built: Path) -> None:
    out = built / "generated"
    age(out)
    before_bytes, before_times = tree(out), mtimes(out)
    break_catalog(built / "schemas/memory_tools.yaml")

    result = run_process(built, "build")
    assert result.returncode == 1
    assert (
        "schemas/memory_tools.yaml:22: tools[0].parameters.properties.limit.$ref: $ref '#/nowhere' "
        "does not resolve" in result.stderr.splitlines()
    )
    assert "nothing was written" in result.stderr
    assert tree(out) == before_bytes
    assert mtimes(out) == before_times


def test_failed_build_does_not_remove_orphans_either(built: Path) -> None:
    out = built / "generated"
    before = tree(out)
    remove_tool(built / "schemas/memory_tools.yaml", "read_file")
    break_catalog(built / "schemas/memory_tools.yaml")
    result = run(built, "build")
    assert result.returncode == 1
    assert tree(out) == before


def test_failed_build_of_one_catalog_writes_no_other_catalog(project: Path) -> None:
    shutil.copy(BUNDLED / "calendar_tools.yaml", project / "schemas" / "calendar_tools.yaml")
    break_catalog(project / "schemas/memory_tools.yaml")
    result = run(project, "build")
    assert result.returncode == 1
    assert not (project / "generated").exists()


# -- configuration -----------------------------------------------------------------------------


def write_pyproject(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text(textwrap.dedent(body), encoding="utf-8")


def test_tool_codegen_sources_and_out_are_honoured(project: Path) -> None:
    (project / "catalogs").mkdir()
    shutil.move(
        project / "schemas" / "memory_tools.yaml", project / "catalogs" / "memory_tools.yaml"
    )
    # Something broken where the defaults would look: the config must be what is read.
    (project / "schemas" / "broken.yaml").write_text("name: [\n", encoding="utf-8")
    write_pyproject(
        project,
        """
        [project]
        name = "demo"

        [tool.codegen]
        sources = ["catalogs"]
        out = "src/demo/tools_gen"
        """,
    )
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    out = project / "src/demo/tools_gen"
    for path in MEMORY_FILES:
        assert (out / path).is_file()
    assert not (project / "generated").exists()
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert set(manifest["files"].values()) == {"catalogs/memory_tools.yaml"}

    assert run(project, "validate").returncode == 0
    check = run(project, "build", "--check")
    assert check.returncode == 0, output(check)


def test_command_line_overrides_the_config(project: Path) -> None:
    write_pyproject(
        project,
        """
        [tool.codegen]
        sources = ["nowhere"]
        out = "configured_out"
        """,
    )
    result = run(project, "build", "schemas", "--out", "cli_out")
    assert result.returncode == 0, output(result)
    assert (project / "cli_out/memory_tools/__init__.py").is_file()
    assert not (project / "configured_out").exists()

    result = run(project, "build", "schemas/memory_tools.yaml")
    assert result.returncode == 0, output(result)
    assert (project / "configured_out/memory_tools/__init__.py").is_file()


def test_defaults_without_config_are_schemas_to_generated(project: Path) -> None:
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    assert (project / "generated/memory_tools/__init__.py").is_file()


def test_pyproject_without_a_codegen_table_uses_the_defaults(project: Path) -> None:
    write_pyproject(project, '[project]\nname = "demo"\n')
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    assert (project / "generated/memory_tools/__init__.py").is_file()


@pytest.mark.parametrize(
    "body",
    [
        '[tool.codegen]\nsources = "schemas"\n',
        "[tool.codegen]\nout = 3\n",
        "[tool.codegen\n",
    ],
    ids=["sources-not-a-list", "out-not-a-path", "toml-syntax"],
)
def test_a_bad_config_is_a_usage_error(project: Path, body: str) -> None:
    write_pyproject(project, body)
    result = run(project, "build")
    assert result.returncode == 2, output(result)
    assert "pyproject.toml" in result.stderr
    assert not (project / "generated").exists()


# -- usage errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, mentions",
    [
        (["frobnicate"], "frobnicate"),
        ([], "COMMAND"),
        (["build", "--no-such-flag"], "--no-such-flag"),
        (["build", "--out"], "--out"),
        (["build", "missing.yaml"], "missing.yaml"),
        (["build", "nowhere/"], "nowhere"),
        (["validate", "missing.yaml"], "missing.yaml"),
        (["build", "--check", "missing.yaml"], "missing.yaml"),
        (["build", "notes.txt"], "notes.txt"),
        (["validate", "notes.txt"], "notes.txt"),
        (["parse", "schemas/memory_tools.yaml"], "TOOL"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_usage_errors_exit_2(project: Path, args: list[str], mentions: str) -> None:
    (project / "notes.txt").write_text("name: not_a_catalog\n", encoding="utf-8")
    result = run(project, *args)
    assert result.returncode == 2, output(result)
    assert mentions in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "generated").exists()


@pytest.mark.parametrize(
    "args, mentions",
    [(["frobnicate"], "frobnicate"), (["build", "missing.yaml"], "missing.yaml")],
    ids=["argparse's own", "codegen's"],
)
def test_a_usage_error_is_the_exit_code_of_the_process(
    project: Path, args: list[str], mentions: str
) -> None:
    """The two ways a usage error leaves the real process (argparse's SystemExit through
    `cli.run`, and codegen's own code through its `os._exit`); test_usage_errors_exit_2 checks
    every usage error in this process (issue 38 item 2: one process each was most of its time)."""
    result = run_process(project, *args)
    assert result.returncode == 2, output(result)
    assert mentions in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "generated").exists()


def test_a_report_nobody_reads_ends_the_command_with_a_failure_and_no_traceback(
    project: Path,
) -> None:
    # The process leaves by os._exit once its streams are flushed (`cli.run`): the build's one
    # line of report is still in its buffer then, and a flush into a pipe whose reader has gone
    # is a failure of the command, said by its code alone.
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "codegen", "build"],
            cwd=project,
            # Buffered, as a pipe is by default (the report is held until the flush).
            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
            | {"PYTHONPATH": str(ROOT)},
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


def test_a_build_imports_only_what_building_needs(project: Path) -> None:
    # The other commands' modules, and the worker pool a few tools never use, are imported where
    # they run: a build's start does not pay for them.
    others = ["codegen.lint", "codegen.sandbox", "codegen.importers.python", "docstring_parser"]
    others += ["codegen.importers.document", "codegen.importers.yaml_out", "multiprocessing"]
    script = (
        "import sys; from codegen.cli import main; code = main(['build']); "
        f"print(code, [name for name in {others!r} if name in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "0 []", output(done)


def test_missing_default_source_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = run(tmp_path, "build")
    assert result.returncode == 2, output(result)
    assert "schemas" in result.stderr


def test_a_source_directory_without_catalogs_is_a_usage_error(project: Path) -> None:
    """`--check` against a directory with no catalog in it must not report "up to date" and pass CI."""
    (project / "empty").mkdir()
    for args in (["build", "empty"], ["build", "--check", "empty"], ["validate", "empty"]):
        result = run(project, *args)
        assert result.returncode == 2, (args, output(result))
        assert "empty" in result.stderr and "no catalog" in result.stderr, (args, result.stderr)
    assert not (project / "generated").exists()


def test_help_and_version(project: Path) -> None:
    from codegen import __version__

    result = run(project, "--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"codegen {__version__}"
    result = run(project, "--help")
    assert result.returncode == 0
    for command in ("build", "validate", "parse"):
        assert command in result.stdout


# -- validate ----------------------------------------------------------------------------------

WARNINGS_CATALOG = """\
name: contacts
tools:
  - name: add_contact
    description: Add a contact to the address book.
    parameters:
      type: object
      properties:
        email:
          type: string
          format: email
        tags:
          type: array
          items:
            type: string
          uniqueItems: true
      required: [email]
"""


def test_validate_of_a_clean_catalog_is_quiet_and_writes_nothing(project: Path) -> None:
    result = run(project, "validate")
    assert result.returncode == 0, output(result)
    assert only_payload_warnings(result.stderr)
    assert "1 catalog valid" in result.stdout and "4 tools" in result.stdout, result.stdout
    assert not (project / "generated").exists()


def test_validate_prints_build_warnings_with_file_line_and_path(project: Path) -> None:
    (project / "schemas" / "contacts.yaml").write_text(WARNINGS_CATALOG, encoding="utf-8")
    result = run(project, "validate", "schemas/contacts.yaml")
    assert result.returncode == 0, output(result)
    lines = front_end_warnings(result.stderr)
    assert len(lines) == 2, result.stderr
    email, unique = lines
    assert email.startswith(
        "schemas/contacts.yaml:10: warning CG101: tools[0].parameters.properties.email.format: "
    ), email
    assert "email" in email.split(": ", 3)[-1]
    assert unique.startswith(
        "schemas/contacts.yaml:15: warning CG101: tools[0].parameters.properties.tags.uniqueItems: "
    ), unique
    assert "uniqueItems" in unique.split(": ", 3)[-1]
    # The formats' own: a uniqueItems neither strict mode nor Gemini's subset can carry.
    assert [line for line in result.stderr.splitlines() if line not in lines] == [
        (
            "schemas/contacts.yaml:15: note CG201: tools[0].parameters.properties.tags.uniqueItems:"
            " Anthropic strict: keyword 'uniqueItems' moved into the description (strict tool use"
            " does not take it)"
        ),
        (
            "schemas/contacts.yaml:15: note CG201: tools[0].parameters.properties.tags.uniqueItems:"
            " Gemini legacy: keyword 'uniqueItems' removed (the subset has no uniqueItems)"
        ),
        (
            "schemas/contacts.yaml:15: note CG201: tools[0].parameters.properties.tags.uniqueItems:"
            " OpenAI strict: keyword 'uniqueItems' removed: strict mode does not take it"
        ),
    ]
    assert "2 warnings, 3 notes" in result.stdout
    assert not (project / "generated").exists()


def test_build_prints_the_same_warnings_and_succeeds(project: Path) -> None:
    (project / "schemas" / "contacts.yaml").write_text(WARNINGS_CATALOG, encoding="utf-8")
    validate = run(project, "validate")
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    # The build prints the warnings `validate` lists, and counts the notes.
    assert [line for line in validate.stderr.splitlines() if " note " not in line] == [
        line for line in result.stderr.splitlines() if not line.startswith("codegen: ")
    ]
    assert result.stderr.splitlines()[-1].startswith("codegen: 25 notes: ")  # every catalog's
    assert len(front_end_warnings(result.stderr)) == 2
    assert (project / "generated/contacts/tools/add_contact.py").is_file()


def test_validate_reports_errors_with_exit_1(project: Path) -> None:
    break_catalog(project / "schemas/memory_tools.yaml")
    result = run(project, "validate")
    assert result.returncode == 1
    assert (
        "schemas/memory_tools.yaml:22: tools[0].parameters.properties.limit.$ref: $ref '#/nowhere' "
        "does not resolve" in result.stderr.splitlines()
    )


# -- parse -------------------------------------------------------------------------------------


def parsed(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_parse_a_clean_call(project: Path) -> None:
    result = run(
        project,
        "parse",
        "schemas/memory_tools.yaml",
        "memory.search",
        '{"query": "agent state", "limit": 5}',
    )
    assert result.returncode == 0, output(result)
    data = parsed(result)
    assert data["tool_name"] == "memory.search"
    assert data["values"] == {"query": "agent state", "limit": 5}
    assert data["warnings"] == []
    assert data["errors"] == []
    assert not (project / "generated").exists(), "parse must not write into the project"


def test_parse_a_corrected_call_has_warnings_and_exit_0(project: Path) -> None:
    raw = '```json\n{"filePath": "README.md", "startLine": "null", "encoding": "UTF-8",}\n```'
    result = run(project, "parse", "schemas/memory_tools.yaml", "read_file", raw)
    assert result.returncode == 0, output(result)
    data = parsed(result)
    assert data["values"] == {"filePath": "README.md", "startLine": None, "encoding": "utf-8"}
    assert set(data["warnings"]) >= {
        "markdown_fence_stripped",
        "trailing_comma_removed",
        "string_literal_converted_to_null:startLine",
        "enum_case_normalized:encoding",
    }
    assert data["errors"] == []


def test_parse_a_call_with_errors_exits_1(project: Path) -> None:
    result = run(
        project, "parse", "schemas/memory_tools.yaml", "memory.search", '{"limit": "many"}'
    )
    assert result.returncode == 1, output(result)
    data = parsed(result)
    assert set(data["errors"]) == {"missing_required:query", "unsupported_integer_literal:limit"}


def test_parse_reads_stdin_for_dash(project: Path) -> None:
    result = run_process(
        project,
        "parse",
        "schemas/memory_tools.yaml",
        "memory.search",
        "-",
        stdin='{"query": "from stdin"}\n',
    )
    assert result.returncode == 0, output(result)
    assert parsed(result)["values"] == {"query": "from stdin", "limit": 3}


def test_parse_reads_stdin_when_raw_is_omitted(project: Path) -> None:
    result = run(
        project,
        "parse",
        "schemas/memory_tools.yaml",
        "search_files",
        stdin='{"pattern": "*.py", "caseSensitive": "no"}',
    )
    assert result.returncode == 0, output(result)
    data = parsed(result)
    assert data["values"] == {"pattern": "*.py", "caseSensitive": False, "maxResults": 100}
    assert data["warnings"] == ["string_literal_converted_to_boolean:caseSensitive"]


def test_parse_output_is_valid_json_for_non_ascii_and_dates(project: Path) -> None:
    shutil.copy(BUNDLED / "calendar_tools.yaml", project / "schemas" / "calendar_tools.yaml")
    raw = '{"startDate": "2025-03-01", "endDate": "2025-03-31", "query": "café ☕"}'
    result = run(project, "parse", "schemas/calendar_tools.yaml", "list_events", raw)
    assert result.returncode == 0, output(result)
    data = parsed(result)
    values = data["values"]
    assert isinstance(values, dict)
    assert values["startDate"] == "2025-03-01"
    assert values["endDate"] == "2025-03-31"
    assert values["query"] == "café ☕"
    assert data["errors"] == [] and data["warnings"] == []


def test_parse_an_unknown_tool_is_a_usage_error_naming_the_tools(project: Path) -> None:
    result = run(project, "parse", "schemas/memory_tools.yaml", "memory.serch", "{}")
    assert result.returncode == 2, output(result)
    assert "memory.serch" in result.stderr
    assert "memory.search" in result.stderr  # what the user could have meant
    assert "nothing was written" not in result.stderr
    assert result.stdout == ""


def test_parse_with_a_missing_catalog_is_a_usage_error(project: Path) -> None:
    result = run(project, "parse", "schemas/nope.yaml", "memory.search", "{}")
    assert result.returncode == 2, output(result)
    assert "schemas/nope.yaml" in result.stderr
    assert "Traceback" not in result.stderr


def test_parse_with_an_invalid_catalog_reports_its_errors(project: Path) -> None:
    break_catalog(project / "schemas/memory_tools.yaml")
    result = run(project, "parse", "schemas/memory_tools.yaml", "memory.search", "{}")
    assert result.returncode == 1
    assert (
        "schemas/memory_tools.yaml:22: tools[0].parameters.properties.limit.$ref:" in result.stderr
    )
    assert result.stdout == ""


# -- the project root, the manifest's reach, file modes ----------------------------------------


def test_building_from_another_directory_keeps_other_catalogs(built: Path, tmp_path: Path) -> None:
    (built / "pyproject.toml").write_text("[tool.codegen]\n", encoding="utf-8")
    shutil.copy(BUNDLED / "http_tools.json", built / "schemas" / "http_tools.json")
    assert run(built, "build").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    source = built / "schemas" / "memory_tools.yaml"
    result = run(built / "schemas", "build", str(source), "--out", str(built / "generated"))
    assert result.returncode == 0, output(result)
    assert "0 removed" in result.stdout
    assert (built / "generated" / "http_tools" / "__init__.py").exists()
    # Paths in output are relative to the project root, wherever the command ran.
    header = (built / "generated" / "memory_tools" / "__init__.py").read_text(encoding="utf-8")
    assert "# source: schemas/memory_tools.yaml " in header
    assert run(built, "build", "--check").returncode == 0


def test_manifest_entries_outside_the_output_directory_are_ignored(built: Path) -> None:
    precious = built / "precious.txt"
    precious.write_text("keep me", encoding="utf-8")
    manifest = built / "generated" / ".codegen-manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["files"]["../precious.txt"] = "schemas/gone.yaml"
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert run(built, "build").returncode == 0
    assert precious.read_text(encoding="utf-8") == "keep me"


def test_generated_files_get_the_usual_permissions(built: Path) -> None:
    mode = (built / "generated" / "memory_tools" / "__init__.py").stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_parse_with_a_catalog_named_like_a_loaded_module(project: Path) -> None:
    catalog = (project / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    (project / "schemas" / "json.yaml").write_text(
        catalog.replace("name: memory_tools", "name: json"), encoding="utf-8"
    )
    result = run(project, "parse", "schemas/json.yaml", "memory.search", '{"query": "x"}')
    assert result.returncode == 0, output(result)
    assert json.loads(result.stdout)["values"] == {"query": "x", "limit": 3}


def test_parse_refuses_a_directory(project: Path) -> None:
    result = run(project, "parse", "schemas", "memory.search", "{}")
    assert result.returncode == 2
    assert "takes one catalog file" in result.stderr


# -- the format cache: a rebuild renders and formats only the tools that changed ----------------


def _edit_memory_search(project: Path) -> None:
    catalog = project / "schemas/memory_tools.yaml"
    catalog.write_text(
        catalog.read_text(encoding="utf-8").replace(
            "Maximum number of passages to return.", "At most this many passages."
        ),
        encoding="utf-8",
    )


def test_editing_one_tool_changes_its_module_alone(built: Path) -> None:
    before = tree(built / "generated")
    _edit_memory_search(built)
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    after = tree(built / "generated")
    changed = sorted(path for path in after if after[path] != before.get(path))
    # The package's __init__ (and _handlers) is headed with the catalog's digest; a tool's module
    # with its own; every payload file but the provider names holds the tool's description; the
    # prompts hold every tool's text (the module that reads them is the same in every package),
    # and the docs' index is headed with the catalog's digest.
    assert changed == [
        "memory_tools/__init__.py",
        "memory_tools/_handlers.py",
        "memory_tools/docs/index.md",
        "memory_tools/docs/tools/memory_search.md",
        *(
            f"memory_tools/payloads/{name}.json"
            for name in (
                "anthropic",
                "anthropic_strict",
                "gemini",
                "gemini_legacy",
                "mcp",
                "openai_chat",
                "openai_chat_strict",
                "openai_responses",
            )
        ),
        "memory_tools/prompts/jsonl.txt",
        "memory_tools/prompts/single_json.txt",
        "memory_tools/tools/__init__.py",
        "memory_tools/tools/memory_search.py",
    ]
    header = after["memory_tools/tools/memory_search.py"].decode().splitlines()[1]
    assert header.startswith("# source: schemas/memory_tools.yaml, tool memory.search (sha256 ")


def test_the_cache_gives_the_same_bytes_as_a_build_without_it(built: Path, tmp_path: Path) -> None:
    cache = built / ".codegen_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    entries = {p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"}
    # The catalog's memo (written again by the next build): its tools' items as read, their
    # validation and normalization results, each tool's output (its module, payload entries and
    # docs page), the formatted bodies of the modules made from the whole catalog and its
    # package (the other files' bytes, the tools' by their outputs' keys), in a pack, and its
    # index; and the check of update_config's examples.
    assert len(entries) == 3
    entry = memo_entry("schemas/memory_tools.yaml")
    memo = cache / entry[:2] / entry
    size = memo.stat().st_size
    before = Memo(BuildCache(cache), "schemas/memory_tools.yaml")
    packs_before = {pack for pack, *_ in before.places.values()}
    assert len(packs_before) == 1
    _edit_memory_search(built)
    assert run(built, "build").returncode == 0
    now = {p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"}
    # The index, the examples' check (memory.search has none to check again) and the packs the
    # index names: what the edit made beside the rest, or (when most of the first was no longer
    # used) all in one; the index names what this build used, the edited tool's in place of
    # what it was.
    packs = {
        pack for pack, *_ in Memo(BuildCache(cache), "schemas/memory_tools.yaml").places.values()
    }
    assert {p.name for p in now} == {p.name for p in entries if p.name not in packs_before} | packs
    assert size / 2 < memo.stat().st_size < 2 * size
    with_cache = tree(built / "generated")

    fresh = tmp_path / "fresh"
    shutil.copytree(built / "schemas", fresh / "schemas")
    result = run(fresh, "build", "--no-cache")
    assert result.returncode == 0, output(result)
    assert not (fresh / ".codegen_cache").exists()
    assert tree(fresh / "generated") == with_cache


def test_an_unchanged_catalog_is_not_read_again_and_keeps_its_warnings(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "schemas" / "contacts.yaml").write_text(WARNINGS_CATALOG, encoding="utf-8")
    cache = BuildCache(project / DIRECTORY)
    first = build([project / "schemas"], project, cache)
    assert len(front_end_warnings("\n".join(str(w) for w in first.warnings))) == 2

    def unread(path: Path, root: Path, each: object) -> None:
        raise AssertionError(f"{path} was read again")

    monkeypatch.setattr(codegen.build, "load_catalog", unread)
    again = build([project / "schemas"], project, cache)
    assert again == first
    # A changed byte is a changed catalog.
    source = project / "schemas" / "contacts.yaml"
    source.write_text(source.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="contacts.yaml was read again"):
        build([project / "schemas"], project, cache)


def test_a_catalog_saved_while_it_is_read_is_cached_under_what_was_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = project / "schemas" / "memory_tools.yaml"
    before = source.read_text(encoding="utf-8")
    after = before.replace("Maximum number of passages to return.", "At most this many.")
    cache = BuildCache(project / DIRECTORY)
    real = codegen.build.load_catalog

    def saved_meanwhile(path: Path, root: Path, each: Mapper) -> LoadedCatalog:
        # An editor saves between the cache lookup and the read that builds.
        path.write_text(after, encoding="utf-8")
        return real(path, root, each)

    monkeypatch.setattr(codegen.build, "load_catalog", saved_meanwhile)
    edited = build([source], project, cache)
    monkeypatch.setattr(codegen.build, "load_catalog", real)
    source.write_text(before, encoding="utf-8")
    assert build([source], project, cache) == build([source], project, BuildCache(None))
    assert build([source], project, cache) != edited
    source.write_text(after, encoding="utf-8")
    assert build([source], project, cache) == edited


@pytest.mark.parametrize("damage", ["outputs gone", "truncated", "not sealed"])
def test_a_damaged_cache_is_built_again(project: Path, damage: str) -> None:
    (project / "schemas" / "contacts.yaml").write_text(WARNINGS_CATALOG, encoding="utf-8")
    cache = BuildCache(project / DIRECTORY)
    first = build([project / "schemas"], project, cache)
    for source in ("schemas/contacts.yaml", "schemas/memory_tools.yaml"):
        memo = Memo(cache, source)
        assert memo.stored  # one memo a catalog
        if damage == "outputs gone":  # the tools' outputs its package refers to
            outputs = [k for k in memo.stored if isinstance(memo.get(k), ToolOutput)]
            assert outputs
            kept = {k: v for k, v in memo.stored.items() if k not in outputs}
            write_memo(cache, memo.entry, kept, memo.places)
        else:
            stored = project / DIRECTORY / memo.entry[:2] / memo.entry
            sealed, _, body = stored.read_bytes().partition(b"\n")
            if damage == "truncated":
                stored.write_bytes(sealed + b"\n" + body[: len(body) // 2])
            else:  # sealed by a digest anyone can compute, not the user's key
                stored.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    assert build([project / "schemas"], project, cache) == first


def test_a_failed_build_reports_the_warnings_of_the_catalog_that_failed(project: Path) -> None:
    broken = WARNINGS_CATALOG.replace("format: email", "format: email\n          $ref: '#/nowhere'")
    (project / "schemas" / "contacts.yaml").write_text(broken, encoding="utf-8")
    with pytest.raises(CatalogError) as failure:
        build([project / "schemas"], project)
    levels = [d.level for d in failure.value.diagnostics if d.file == "schemas/contacts.yaml"]
    assert sorted(levels) == ["error", "warning"], failure.value


# -- lazy loading: importing one tool does not load the others ---------------------------------


def test_importing_one_tool_loads_only_its_module(built: Path) -> None:
    script = textwrap.dedent("""
        import sys
        from generated.memory_tools import MemorySearchArgs, parse_memory_search, TOOLS
        import generated.memory_tools as package

        def loaded():
            return sorted(m.rsplit(".", 1)[-1] for m in sys.modules if ".tools." in m)

        print(loaded(), sorted(TOOLS), len(TOOLS), "read_file" in TOOLS)
        print(parse_memory_search('{"query": "q"}').arguments == MemorySearchArgs(query="q"))
        print(package.parse("read_file", "{}").errors, loaded())
        print(package.ReadFileArgs.__name__, package.TOOLS["search_files"].name, loaded())
        try:
            package.NoSuchName
        except AttributeError as exc:
            print(exc)
        """)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=built, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "['memory_search'] ['memory.search', 'read_file', 'search_files', 'update_config'] 4 True",
        "True",
        "('missing_required:filePath',) ['memory_search', 'read_file']",
        "ReadFileArgs search_files ['memory_search', 'read_file', 'search_files']",
        "module 'generated.memory_tools' has no attribute 'NoSuchName'",
    ]

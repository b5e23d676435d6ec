"""Broken catalogs: `codegen validate` names file, line, JSON path and the problem; `build` writes nothing.

Each case is `tests/invalid/<case>.yaml|.yml|.json` with `tests/invalid/<case>.expected` beside it:
the exact diagnostic lines `codegen validate` must print on stderr (the final `codegen: ...` summary
line is not part of them), with the file shown relative to the repository root.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.diagnostics import Diagnostic, in_order

ROOT = Path(__file__).resolve().parent.parent
INVALID = ROOT / "tests" / "invalid"
SUFFIXES = (".yaml", ".yml", ".json")
CASES = sorted(p for p in INVALID.iterdir() if p.suffix in SUFFIXES)


def run_codegen(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`codegen ARGS` in this process: these tests are of what the command reports, and the
    interpreter's start-up took most of their time (tests/test_cli.py runs the real process)."""
    return run_cli(*args, cwd=cwd)


def diagnostic_lines(stderr: str) -> list[str]:
    """What was reported, without the closing `codegen: N errors in M files; ...` summary."""
    return [
        line for line in stderr.splitlines() if line.strip() and not line.startswith("codegen: ")
    ]


def summary_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("codegen: ")]


def assert_lines(actual: list[str], expected: list[str], what: str) -> None:
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(expected, actual, "expected", "actual", lineterm=""))
        pytest.fail(f"{what}: diagnostics differ\n{diff}", pytrace=False)


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under `directory` with its bytes (empty when the directory does not exist)."""
    if not directory.exists():
        return {}
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def test_every_case_has_an_expected_file() -> None:
    assert len(CASES) >= 20
    for case in CASES:
        assert case.with_suffix(".expected").is_file(), f"{case.name} has no .expected file"
    for expected in INVALID.glob("*.expected"):
        assert any(expected.with_suffix(s).is_file() for s in SUFFIXES), (
            f"{expected.name} has no catalog beside it"
        )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_validate_reports_exactly_the_expected_diagnostics(case: Path) -> None:
    relative = case.relative_to(ROOT).as_posix()
    expected = case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    result = run_codegen("validate", relative)

    assert_lines(diagnostic_lines(result.stderr), expected, relative)
    assert result.returncode == 1, f"exit code {result.returncode}, expected 1\n{result.stderr}"
    # The closing summary counts the errors reported (the warnings beside them are not errors).
    summary = summary_lines(result.stderr)
    assert summary, f"no `codegen:` summary line on stderr\n{result.stderr}"
    count = len([line for line in expected if not re.search(r": (warning|note) CG\d+: ", line)])
    assert f"{count} error{'' if count == 1 else 's'}" in summary[-1], summary[-1]
    # Every line has the promised shape: file:line: path: message, the file relative to the repository.
    for line in expected:
        file, line_number, rest = line.split(":", 2)
        assert file == relative
        assert line_number.isdigit() and int(line_number) >= 1
        path, _, message = rest.strip().partition(": ")
        assert path and message, line
    # Sorted by line.
    numbers = [int(line.split(":", 2)[1]) for line in expected]
    assert numbers == sorted(numbers)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_build_of_an_invalid_catalog_writes_nothing(case: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_codegen("build", case.relative_to(ROOT).as_posix(), "--out", str(out))
    assert result.returncode == 1, (
        f"exit code {result.returncode}, expected 1\n{result.stdout}{result.stderr}"
    )
    assert not out.exists(), f"build created {sorted(tree(out)) or 'the empty directory'}"
    assert "nothing was written" in result.stderr


@pytest.mark.parametrize(
    "case", ["parameters_not_object.yaml", "yaml_syntax_error.yaml", "duplicate_tool_names.yaml"]
)
def test_build_of_an_invalid_catalog_leaves_an_existing_out_dir_alone(
    case: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    (out / "memory_tools").mkdir(parents=True)
    (out / "memory_tools" / "__init__.py").write_text("# previous output\n", encoding="utf-8")
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = tree(out)
    result = run_codegen("build", f"tests/invalid/{case}", "--out", str(out))
    assert result.returncode == 1
    assert tree(out) == before


def test_check_of_an_invalid_catalog_fails_with_the_same_diagnostics(tmp_path: Path) -> None:
    case = INVALID / "parameters_not_object.yaml"
    result = run_codegen(
        "build", "--check", case.relative_to(ROOT).as_posix(), "--out", str(tmp_path / "out")
    )
    assert result.returncode == 1
    expected = case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    assert_lines(diagnostic_lines(result.stderr), expected, "build --check")
    assert not (tmp_path / "out").exists()


def test_errors_of_several_files_are_all_reported_sorted_by_file_then_line() -> None:
    cases = [INVALID / "parameters_not_object.yaml", INVALID / "ref_unresolved.yaml"]
    expected: list[str] = []
    for case in sorted(cases):
        expected += case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    result = run_codegen("validate", *(c.relative_to(ROOT).as_posix() for c in cases))
    assert result.returncode == 1
    assert_lines(diagnostic_lines(result.stderr), expected, "two files")
    assert "2 errors in 2 files" in summary_lines(result.stderr)[-1]


def test_a_valid_and_an_invalid_file_together_build_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_codegen(
        "build",
        "schemas/memory_tools.yaml",
        "tests/invalid/parameters_not_object.yaml",
        "--out",
        str(out),
    )
    assert result.returncode == 1
    assert not out.exists()


def test_two_catalogs_with_the_same_name_are_an_error(tmp_path: Path) -> None:
    original = (ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(original, encoding="utf-8")
    # A header comment moves `name:` to line 3: the diagnostic must point at it, not at line 1.
    (tmp_path / "b.yaml").write_text(
        "# A copy of the memory tools.\n\n" + original, encoding="utf-8"
    )

    result = run_codegen("validate", "a.yaml", "b.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert_lines(
        diagnostic_lines(result.stderr),
        ["b.yaml:3: name: catalog name 'memory_tools' is also used by a.yaml"],
        "same catalog name",
    )

    out = tmp_path / "out"
    built = run_codegen("build", "a.yaml", "b.yaml", "--out", str(out), cwd=tmp_path)
    assert built.returncode == 1
    assert not out.exists()


def test_two_catalogs_with_the_same_name_in_one_directory_are_an_error(tmp_path: Path) -> None:
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    shutil.copy(ROOT / "schemas" / "memory_tools.yaml", schemas / "memory_tools.yaml")
    shutil.copy(ROOT / "schemas" / "memory_tools.yaml", schemas / "more_memory_tools.yml")
    result = run_codegen("build", cwd=tmp_path)
    assert result.returncode == 1
    assert diagnostic_lines(result.stderr) == [
        "schemas/more_memory_tools.yml:1: name: catalog name 'memory_tools' is also used by schemas/memory_tools.yaml"
    ]
    assert not (tmp_path / "generated").exists()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.builds(
            Diagnostic,
            st.sampled_from(["a.yaml", "b.yaml"]),
            st.integers(1, 4),
            st.sampled_from(["tools[0]", "tools[1].name", "(file)"]),
            st.sampled_from(["m", "n"]),
            st.sampled_from(["error", "warning", "note"]),
            st.sampled_from(["CG000", "CG102", "CG201"]),
        ),
        max_size=30,
    )
)
def test_findings_are_put_in_order_as_diagnostics_compare(found: list[Diagnostic]) -> None:
    # `in_order` sorts by a key per finding: the order must stay the one the class defines.
    assert in_order(found) == sorted(found)

"""Catalogs from the wild build (SPEC §2): what the build can fix it fixes, and says so.

Each case is `tests/dirty/<case>.yaml` with `<case>.expected` beside it: the exact warnings
`codegen validate` prints. The same catalog builds; `--strict` (or `[tool.codegen] strict = true`)
refuses it with the same lines as errors and writes nothing. The package built from `wild.yaml`
shows what each fix means to a call.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT, build_package
from test_invalid_catalogs import assert_lines, diagnostic_lines, run_codegen, summary_lines, tree

DIRTY = ROOT / "tests" / "dirty"
CASES = sorted(DIRTY.glob("*.yaml"))


def expected(case: Path) -> list[str]:
    return case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_dirty_catalog_is_valid_with_a_warning_for_each_fix(case: Path) -> None:
    done = run_codegen("validate", case.relative_to(ROOT).as_posix())
    assert done.returncode == 0, done.stderr
    assert_lines(diagnostic_lines(done.stderr), expected(case), case.name)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_dirty_catalog_builds_and_strict_refuses_it(case: Path, tmp_path: Path) -> None:
    source = case.relative_to(ROOT).as_posix()
    built = run_codegen("build", source, "--out", str(tmp_path / "out"), "--no-cache")
    assert built.returncode == 0, built.stderr
    assert tree(tmp_path / "out")
    for command in (["build", "--out", str(tmp_path / "strict")], ["validate"]):
        done = run_codegen(*command, source, "--strict")
        assert done.returncode == 1
        # Warnings become errors, with their codes; notes are not refused.
        as_errors = [
            re.sub(r": warning (CG\d+): ", r": error \1: ", line, count=1)
            for line in expected(case)
            if ": note CG" not in line
        ]
        assert_lines(diagnostic_lines(done.stderr), as_errors, case.name)
    assert not (tmp_path / "strict").exists()


def test_strict_in_the_project_settings_refuses_warnings(tmp_path: Path) -> None:
    shutil.copy(DIRTY / "wild.yaml", tmp_path / "wild.yaml")
    settings = '[tool.codegen]\nsources = ["wild.yaml"]\nstrict = true\n'
    (tmp_path / "pyproject.toml").write_text(settings, encoding="utf-8")
    done = run_codegen("build", cwd=tmp_path)
    assert done.returncode == 1
    assert summary_lines(done.stderr) == ["codegen: 14 errors in 1 file; nothing was written"]
    assert not (tmp_path / "generated").exists()
    (tmp_path / "pyproject.toml").write_text(settings.replace("true", '"yes"'), encoding="utf-8")
    done = run_codegen("build", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "codegen: pyproject.toml: [tool.codegen] strict must be true or false\n"


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(DIRTY / "wild.yaml", tmp_path_factory.mktemp("wild"))


def test_defaults_are_corrected_as_a_call_would_be_or_left_out(wild: ModuleType) -> None:
    request = wild.parse("calculate_BMI", {"weight": 70, "height": 1.8})
    assert request.errors == () and request.warnings == ()
    assert request.values == {
        "weight": 70.0,
        "height": 1.8,
        "metric": False,
        "rounds": 2,
        "mode": "fast",
        "note": "5",
    }
    arguments = request.arguments
    assert (arguments.unit, arguments.count) == (None, None)  # no default survived for these


def test_property_level_required_and_optional_are_honoured(wild: ModuleType) -> None:
    assert wild.parse("calculate_BMI", {}).errors == (
        "missing_required:weight",
        "missing_required:height",
    )
    assert wild.parse("calculate_bmi", {}).errors == ()  # `optional: true`


def test_colliding_names_are_told_apart_and_the_wire_names_kept(wild: ModuleType) -> None:
    # A wire name that already is the identifier keeps it; the other takes a suffix.
    assert wild.TOOLS["calculate_bmi"].args_type.__name__ == "CalculateBmiArgs"
    assert wild.TOOLS["calculate_BMI"].args_type.__name__ == "CalculateBmi2Args"
    assert wild.parse_calculate_bmi_2 is wild.TOOLS["calculate_BMI"].parse
    assert wild.TOOLS["todo.add"].parse.__name__ == "parse_todo_add_2"
    request = wild.parse(
        "calculate_BMI",
        {"weight": 1, "height": 2, "Content-Type": "text/plain", "content_type": "json"},
    )
    assert (request.arguments.content_type_2, request.arguments.content_type) == (
        "text/plain",
        "json",
    )
    assert request.values["Content-Type"] == "text/plain"
    assert wild.parse("todo.add", '{"text": "x"}').tool_name == "todo.add"


def test_many_warnings_are_summarized_by_kind(tmp_path: Path) -> None:
    tools = "".join(
        textwrap.dedent(f"""\
              - name: t{i}
                description: Tool {i}.
                parameters:
                  type: object
                  properties:
                    flag: {{type: boolean, description: A flag., default: "off"}}
                    size: {{type: integer, description: A size., default: big}}
            """)
        for i in range(12)
    )
    (tmp_path / "many.yaml").write_text(f"name: many\ntools:\n{tools}", encoding="utf-8")
    done = run_codegen("build", "many.yaml", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    assert len([line for line in lines if ": warning CG105: " in line]) == 10
    assert lines[10:] == [
        "codegen: 24 warnings, by kind:",
        (
            "      12  default … does not match the parameter's schema: … is not of type …: read "
            "as … (string_literal_converted_to_boolean)"
        ),
        (
            "      12  default … does not match the parameter's schema: … is not of type …: the "
            "parameter has no default"
        ),
        "codegen: `codegen validate` lists every one of them",
        (
            "codegen: 24 notes: what a provider format cannot say and the parser enforces anyway "
            "(`codegen validate` lists them)"
        ),
    ]
    listed = run_codegen("validate", "many.yaml", cwd=tmp_path)
    shown = listed.stderr.splitlines()
    assert len([line for line in shown if ": warning CG105: " in line]) == 24
    assert len([line for line in shown if ": note CG201: " in line]) == 24


def test_older_drafts_bounds_and_tuples_mean_what_they_meant(tmp_path: Path) -> None:
    drafts = build_package(DIRTY / "older_drafts.yaml", tmp_path)
    # `minimum: 0, exclusiveMinimum: true` is `exclusiveMinimum: 0`; `exclusiveMinimum: false`
    # leaves `minimum` inclusive; `maximum: 4, exclusiveMaximum: true` is `exclusiveMaximum: 4`.
    assert drafts.parse("read_pdf", {"pages": [0]}).errors == ("out_of_range:pages[0]",)
    assert drafts.parse("read_pdf", {"pages": [1], "scale": 0}).errors == ()
    assert drafts.parse("read_pdf", {"pages": [1], "scale": 4}).errors == ("out_of_range:scale",)
    # A tuple of two numbers, nothing after them: two items pass, a third is one too many.
    assert drafts.parse("read_pdf", {"pages": [1], "size": [612, 792]}).errors == ()
    assert drafts.parse("read_pdf", {"pages": [1], "size": [1, 2, 3]}).errors == (
        "length_out_of_range:size",
    )
    # The payloads say it in 2020-12's words.
    (tool,) = drafts.MCP_TOOLS
    properties = tool["inputSchema"]["properties"]
    assert properties["pages"]["items"] == {"type": "integer", "exclusiveMinimum": 0}
    assert properties["size"]["prefixItems"] == [{"type": "number"}, {"type": "number"}]
    assert properties["size"]["items"] is False


def test_enum_values_written_as_text_are_read_as_a_calls_would_be(tmp_path: Path) -> None:
    listed = build_package(DIRTY / "enum_values_as_text.yaml", tmp_path)
    # `["1", "2", "3", 3]` beside `type: integer` is 1, 2, 3: a call sends any of them either way.
    request = listed.parse("buy_tickets", {"number_of_tickets": "2", "is_unisex": "true"})
    assert request.values == {"number_of_tickets": 2, "is_unisex": True}
    assert listed.parse("buy_tickets", {"number_of_tickets": 4}).errors == (
        "enum_out_of_range:number_of_tickets",
    )
    # An enum none of whose values can be a list is left out: the list of strings stays.
    request = listed.parse("buy_tickets", {"number_of_tickets": 1, "metrics": ["trust", "x"]})
    assert request.errors == ()
    # The payloads send what the parser enforces.
    properties = listed.OPENAI_TOOLS[0]["function"]["parameters"]["properties"]
    assert properties["number_of_tickets"]["enum"] == [1, 2, 3]
    assert properties["is_unisex"]["enum"] == [True, False]
    assert "enum" not in properties["metrics"]

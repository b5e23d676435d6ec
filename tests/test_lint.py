"""`codegen lint`: each rule on a catalog that has it and on one that does not; codes, levels, exit.

`tests/lint/findings.yaml` holds exactly one finding of each rule and `findings.expected` the exact
lines; `tests/lint/clean.yaml` passes every rule.
"""

from __future__ import annotations

import json

from conftest import ROOT
from test_invalid_catalogs import run_codegen

from codegen.lint import RULES, _same_text

LINT = ROOT / "tests" / "lint"


def test_each_rule_finds_its_case_and_nothing_else() -> None:
    done = run_codegen("lint", "tests/lint/findings.yaml")
    assert done.returncode == 1  # CG005 is an error
    expected = (LINT / "findings.expected").read_text(encoding="utf-8")
    assert done.stdout == expected
    assert done.stderr == "codegen: 8 findings (1 error, 4 warnings, 3 info)\n"
    found = [line.split(": ")[1].split()[0] for line in expected.splitlines()]
    lint_rules = {code for code in RULES if code < "CG100"}  # CG1xx, CG2xx: the build's own
    # CG008 is in deep.yaml; the build finding CG105 shows build findings keep their codes.
    assert sorted(found) == sorted(lint_rules - {"CG000", "CG008"} | {"CG105"})


def test_strict_mode_limits_are_their_own_rule() -> None:
    done = run_codegen("lint", "tests/lint/deep.yaml")
    assert done.returncode == 0  # a warning, and the info the short descriptions get
    assert done.stdout == (LINT / "deep.expected").read_text(encoding="utf-8")
    assert "CG008 warning: tools[0].parameters: 12 levels of objects, over strict mode's 10" in (
        done.stdout
    )


def test_a_clean_catalog_has_no_findings() -> None:
    done = run_codegen("lint", "tests/lint/clean.yaml")
    assert done.returncode == 0
    assert (done.stdout, done.stderr) == (
        "",
        "codegen: 0 findings (0 errors, 0 warnings, 0 info)\n",
    )


def test_json_output_has_codes_levels_and_places() -> None:
    done = run_codegen("lint", "tests/lint/findings.yaml", "--format", "json")
    assert done.returncode == 1 and done.stderr == ""
    findings = json.loads(done.stdout)
    assert findings[5] == {
        "file": "tests/lint/findings.yaml",
        "line": 27,
        "code": "CG005",
        "path": "tools[1].parameters.properties.quantity.default",
        "message": (
            "the description of 'quantity' says 'defaults to 2', read as the default '2'; the "
            "schema says 1: the model is told one thing and the parser does another"
        ),
        "level": "error",
        "rule": "default-contradicts-description",
    }
    assert sorted((f["code"], f["level"]) for f in findings) == [
        ("CG001", "warning"),
        ("CG002", "warning"),
        ("CG003", "info"),
        ("CG004", "info"),
        ("CG005", "error"),
        ("CG006", "warning"),
        ("CG007", "info"),
        ("CG105", "warning"),
    ]


def test_catalog_errors_are_error_findings() -> None:
    done = run_codegen("lint", "tests/invalid/empty_tools.yaml")
    assert done.returncode == 1
    expected = (ROOT / "tests" / "invalid" / "empty_tools.expected").read_text(encoding="utf-8")
    first = expected.splitlines()[0]
    where, message = first.split(": ", 1)
    assert done.stdout.splitlines()[0] == f"{where}: CG000 error: {message}"


def test_what_a_description_says_of_the_default_is_compared_as_its_type() -> None:
    assert _same_text("1", 1) and _same_text("1.0", 1) and _same_text("true", True)
    assert _same_text("fast", "fast") and not _same_text("2", 1)
    assert not _same_text("yes", True) and not _same_text("many", 3)

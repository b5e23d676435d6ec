"""Keywords with JSON Schema's own meaning (SPEC §2), or a build warning: each rule end to end,
from a catalog to the imported parser, values and codes asserted.

The official JSON-Schema-Test-Suite runs in test_json_schema_suite.py; these are the rules one at a
time, with the warnings' exact text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from conftest import build_package

from codegen import tool_outputs as tool_outputs_module
from codegen.build import check_catalog
from codegen.catalog import normalize as normalize_module
from codegen.cli import main

CATALOG = """\
name: semantics
tools:
  - name: t
    description: One parameter per rule.
    parameters:
      type: object
      properties:
        nothing: {type: "null"}
        constnull: {const: null}
        low: {minimum: 1.5}
        short: {maxLength: 2}
        several: {minimum: 1, maxLength: 2}
        needs: {type: object, required: [a, "b.c"]}
        one:
          oneOf:
            - {type: integer}
            - {type: number, minimum: 2}
        shapes:
          oneOf:
            - {type: object, properties: {a: {type: integer}}, required: [a], additionalProperties: false}
            - {type: object, properties: {b: {type: string}}, required: [b], additionalProperties: false}
        anything:
          oneOf: [{type: integer}, true]
        sometimes:
          anyOf: [false, {type: string}]
        tags: {$ref: "#/$defs/tags", maxItems: 2}
        capped: {$ref: "#/$defs/small", maximum: 50}
        lower: {anyOf: [{$ref: "#/$defs/small"}, {type: "null"}], maximum: 5}
        between: {allOf: [{type: integer, maximum: 30}, {minimum: 20}]}
        none: {type: array, items: false}
        shape: {const: {kind: box, size: [1, 2]}}
        mixed: {enum: [6, "foo", [], true, {"foo": 12}]}
      $defs:
        tags: {type: array, items: {type: string}}
        small: {type: integer, maximum: 10}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, list[str]]:
    folder = tmp_path_factory.mktemp("semantics")
    source = folder / "semantics.yaml"
    source.write_text(CATALOG, encoding="utf-8")
    _, diagnostics = check_catalog(source, folder)
    return build_package(source, folder / "out"), [str(d) for d in diagnostics]


def parse(built: tuple[ModuleType, list[str]], name: str, value: object) -> tuple[object, ...]:
    request = built[0].parse("t", {name: value})
    return request.values.get(name, "<absent>"), request.warnings, request.errors


def test_a_schema_without_type_is_read_as_the_kind_its_keywords_name_with_a_warning(
    built: tuple[ModuleType, list[str]],
) -> None:
    low, short, several = built[1]
    assert low == (
        "semantics.yaml:10: warning CG107: tools[0].parameters.properties.low: no `type`: read as "
        "number, the kind its keywords (minimum) apply to, so other values are corrected or "
        "refused (write `type: number` to say so)"
    )
    assert short == (
        "semantics.yaml:11: warning CG107: tools[0].parameters.properties.short: no `type`: read as "
        "string, the kind its keywords (maxLength) apply to, so other values are corrected or "
        "refused (write `type: string` to say so)"
    )
    assert several == (
        "semantics.yaml:12: warning CG107: tools[0].parameters.properties.several: no `type`, and keywords "
        "of several kinds (number: minimum; string: maxLength): read as number or string, so "
        "other values are corrected or refused (write the `type` list to say so)"
    )
    assert parse(built, "low", 0.6) == ("<absent>", (), ("out_of_range:low",))
    assert parse(built, "low", 2) == (2.0, (), ())
    assert parse(built, "low", "3") == (3.0, ("string_literal_converted_to_number:low",), ())
    assert parse(built, "short", "foo") == ("<absent>", (), ("length_out_of_range:short",))
    assert parse(built, "several", "ab") == ("ab", (), ())
    assert parse(built, "several", 3) == (3.0, (), ())
    # Below the minimum as a number, but short enough as text: corrected, and said.
    assert parse(built, "several", 0) == ("0", ("non_string_literal_retained:several",), ())
    assert parse(built, "several", [1]) == ("<absent>", (), ("unsupported_union_literal:several",))


def test_null_type_and_null_const_take_null_alone(built: tuple[ModuleType, list[str]]) -> None:
    assert parse(built, "nothing", None) == (None, (), ())
    assert parse(built, "nothing", 0) == ("<absent>", (), ("unsupported_null_literal:nothing",))
    assert parse(built, "nothing", False) == (
        "<absent>",
        (),
        ("unsupported_null_literal:nothing",),
    )
    assert parse(built, "nothing", "null") == (
        None,
        ("string_literal_converted_to_null:nothing",),
        (),
    )
    assert parse(built, "constnull", 0) == ("<absent>", (), ("enum_out_of_range:constnull",))
    assert parse(built, "constnull", None) == (None, (), ())


def test_required_without_properties_needs_the_keys(built: tuple[ModuleType, list[str]]) -> None:
    assert parse(built, "needs", {"a": None, "b.c": 1}) == ({"a": None, "b.c": 1}, (), ())
    assert parse(built, "needs", {"a": 1}) == ({"a": 1}, (), ("missing_required:needs.b.c",))


def test_one_of_takes_a_value_exactly_one_branch_matches(
    built: tuple[ModuleType, list[str]],
) -> None:
    assert parse(built, "one", 1) == (1, (), ())
    assert parse(built, "one", 2.5) == (2.5, (), ())
    # 3 is an integer and a number of at least 2: both branches, so not exactly one.
    assert parse(built, "one", 3) == ("<absent>", (), ("ambiguous_union_literal:one",))
    # Nothing matches as sent: the first branch that takes a correction wins, with its warning.
    assert parse(built, "one", 1.5) == (1, ("fractional_number_truncated_to_integer:one",), ())
    assert parse(built, "shapes", {"a": 1}) == ({"a": 1}, (), ())
    assert parse(built, "shapes", {"b": "x"}) == ({"b": "x"}, (), ())
    # The first branch fails on `a` (and would drop it); the second sees the object as it was sent.
    assert parse(built, "shapes", {"a": "x", "b": "y"}) == (
        {"a": "x", "b": "y"},
        ("unknown_parameter:shapes.a",),
        (),
    )
    assert parse(built, "anything", "text") == ("text", (), ())
    assert parse(built, "anything", 7) == ("<absent>", (), ("ambiguous_union_literal:anything",))


def test_a_false_branch_never_matches(built: tuple[ModuleType, list[str]]) -> None:
    assert parse(built, "sometimes", "x") == ("x", (), ())
    assert parse(built, "sometimes", [1]) == (
        "<absent>",
        (),
        ("unsupported_string_literal:sometimes",),
    )


def test_ref_siblings_apply_beside_the_target(built: tuple[ModuleType, list[str]]) -> None:
    assert parse(built, "tags", ["a", "b"]) == (["a", "b"], (), ())
    assert parse(built, "tags", ["a", "b", "c"]) == (
        "<absent>",
        (),
        ("length_out_of_range:tags",),
    )
    # The target's maximum of 10 still holds beside a looser sibling.
    assert parse(built, "capped", 20) == ("<absent>", (), ("out_of_range:capped",))
    assert parse(built, "capped", 10) == (10, (), ())
    # Beside anyOf, a keyword holds for every branch, a $ref one too.
    assert parse(built, "lower", 7) == ("<absent>", (), ("out_of_range:lower",))
    assert parse(built, "lower", 5) == (5, (), ())
    assert parse(built, "lower", None) == (None, (), ())


def test_all_of_bounds_both_hold(built: tuple[ModuleType, list[str]]) -> None:
    assert parse(built, "between", 25) == (25, (), ())
    assert parse(built, "between", 35) == ("<absent>", (), ("out_of_range:between",))
    assert parse(built, "between", 15) == ("<absent>", (), ("out_of_range:between",))


def test_items_false_takes_the_empty_list_alone(built: tuple[ModuleType, list[str]]) -> None:
    assert parse(built, "none", []) == ([], (), ())
    assert parse(built, "none", [1]) == ("<absent>", (), ("length_out_of_range:none",))


def test_an_enum_of_objects_and_arrays_compares_as_json(
    built: tuple[ModuleType, list[str]],
) -> None:
    assert parse(built, "shape", {"size": [1, 2.0], "kind": "box"}) == (
        {"size": [1, 2.0], "kind": "box"},
        (),
        (),
    )
    assert parse(built, "shape", {"kind": "box"}) == ("<absent>", (), ("enum_out_of_range:shape",))
    assert parse(built, "mixed", []) == ([], (), ())
    assert parse(built, "mixed", {"foo": 12}) == ({"foo": 12}, (), ())
    # true is not 1, and nothing is coerced: "6" is not 6.
    assert parse(built, "mixed", 1) == ("<absent>", (), ("enum_out_of_range:mixed",))
    assert parse(built, "mixed", "6") == ("<absent>", (), ("enum_out_of_range:mixed",))


def test_a_one_of_of_disjoint_types_is_written_as_any_of(tmp_path: Path) -> None:
    # Members that share no JSON type can never both match: no count is needed.
    source = tmp_path / "disjoint.yaml"
    source.write_text(
        textwrap.dedent("""\
            name: disjoint
            tools:
              - name: t
                description: d
                parameters:
                  type: object
                  properties:
                    x: {oneOf: [{type: string}, {type: integer}]}
            """),
        encoding="utf-8",
    )
    package = build_package(source, tmp_path / "out")
    text = Path(package.__file__).parent.joinpath("tools", "t.py").read_text(encoding="utf-8")
    assert "matches" not in text and "ambiguous_union_literal" not in text
    assert package.parse("t", {"x": 3}).values == {"x": 3}


@pytest.mark.parametrize("stage", ["normalize", "render"])
def test_a_failure_of_codegen_itself_is_reported_with_the_tool_not_as_a_traceback(
    stage: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise KeyError("boom")

    if stage == "normalize":
        monkeypatch.setattr(normalize_module, "tool_ir", broken)
    else:
        monkeypatch.setattr(tool_outputs_module, "render_tool", broken)
    source = tmp_path / "ok.yaml"
    source.write_text(
        "name: ok\ntools:\n  - name: t\n    description: d\n"
        "    parameters: {type: object, properties: {}}\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert main(["build", "ok.yaml", "--out", "out", "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        "ok.yaml:3: tools[0]: codegen failed on this tool, which is a bug in codegen "
        "(please report it with this tool): KeyError: 'boom'"
    )
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_zero_parameter_tool_parses_an_empty_call(
    fixture_package: Callable[[str], ModuleType],
) -> None:
    from generated.calendar_tools import parse_list_calendars

    request = parse_list_calendars("{}")
    assert (request.values, request.warnings, request.errors) == ({}, (), ())
    assert request.arguments is not None
    extra = parse_list_calendars('{"all": true}')
    assert extra.values == {"all": True} and extra.warnings == ("unknown_parameter:all",)

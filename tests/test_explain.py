"""A refused call says what to fix, in words, for every error code of the parser (docs/executor.md,
"What a refused call says"); the words come from the table of codes and each error's context,
recorded where the parser found it (tests/test_details.py holds the details themselves)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from generated.memory_tools._explain import explain_errors, explain_warnings
from tests.conftest import build_package
from tests.test_details import CATALOG


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    # The catalog whose details tests/test_details.py holds: one parameter of each constraint.
    source = tmp_path_factory.mktemp("catalog") / "explained.yaml"
    source.write_text(CATALOG, encoding="utf-8")
    return build_package(source, tmp_path_factory.mktemp("out"))


def refusal(package: ModuleType, raw: str) -> tuple[tuple[str, ...], str | None]:
    """The request's error codes, and what the refusal says."""
    executor = package.Executor({"check": lambda args: "ran"})
    result = executor.execute(package.parse("check", raw, "call_1"))
    assert result.status == "rejected"
    return result.errors, result.error


@pytest.mark.parametrize(
    ("raw", "code", "words"),
    [
        ('{"flag": "maybe"}', "unsupported_boolean_literal:flag", "`flag` must be true or false"),
        ('{"count": "many"}', "unsupported_integer_literal:count", "`count` must be an integer"),
        ('{"ratio": true}', "unsupported_number_literal:ratio", "`ratio` must be a number"),
        ('{"text": [1]}', "unsupported_string_literal:text", "`text` must be a string"),
        (
            '{"settings": 3}',
            "unsupported_object_literal:settings",
            "`settings` must be a JSON object",
        ),
        ('{"count": 500}', "out_of_range:count", "`count` must be at most 50"),
        ('{"count": "0"}', "out_of_range:count", "`count` must be at least 1"),
        ('{"ratio": 1}', "out_of_range:ratio", "`ratio` must be less than 1"),
        ('{"ratio": 0}', "out_of_range:ratio", "`ratio` must be greater than 0"),
        (
            '{"nullable_count": 6}',
            "out_of_range:nullable_count",
            "`nullable_count` must be at most 5",
        ),
        (
            '{"settings": {"timeout": -1}}',
            "out_of_range:settings.timeout",
            "`settings.timeout` must be at least 0",
        ),
        (
            '{"route": [{"x": 1}, {"x": 11}]}',
            "out_of_range:route[1].x",
            "`route[1].x` must be at most 10",
        ),
        ('{"route": [{"x": 1}, {}]}', "missing_required:route[1].x", "`route[1].x` is missing"),
        ('{"a.b": 4}', "out_of_range:a.b", "`a.b` must be at most 3"),
        (
            '{"text": "abcde"}',
            "length_out_of_range:text",
            "`text` must be at most 4 characters long",
        ),
        ('{"text": "a"}', "length_out_of_range:text", "`text` must be at least 2 characters long"),
        ('{"tags": []}', "length_out_of_range:tags", "`tags` must have at least 1 item"),
        (
            '{"tags": ["a", "b", "c"]}',
            "length_out_of_range:tags",
            "`tags` must have at most 2 items",
        ),
        ('{"slug": "A B"}', "pattern_mismatch:slug", "`slug` must match the pattern `^[a-z-]+$`"),
        ('{"color": "blue"}', "enum_out_of_range:color", '`color` must be one of "red", "green"'),
        ('{"level": 3}', "enum_out_of_range:level", "`level` must be 2"),
        (
            '{"when": "yesterday"}',
            "unsupported_timestamp_literal:when",
            "`when` must be a date and time in ISO 8601 form, such as 2024-05-01T09:30:00Z",
        ),
        (
            '{"day": "1 May"}',
            "unsupported_timestamp_literal:day",
            "`day` must be a date in ISO 8601 form, such as 2024-05-01",
        ),
        (
            '{"id": [1]}',
            "unsupported_union_literal:id",
            "`id` must be one of these types: integer, boolean",
        ),
        (
            '{"shape": "ab"}',
            "ambiguous_union_literal:shape",
            "`shape` matches more than one of its allowed forms; send a value that matches exactly one",
        ),
        ('{"nothing": 1}', "unsupported_null_literal:nothing", "`nothing` must be null"),
        ('{"count": 3', "truncated_arguments", "the arguments were cut off before their end"),
        (
            "[1]",
            "arguments_not_object",
            "the arguments must be one JSON object of named parameters",
        ),
        (
            '{"a": ' * 200 + "1" + "}" * 200,
            "arguments_too_deep",
            "the arguments are nested too deeply",
        ),
    ],
)
def test_each_error_code_says_what_to_fix(
    explained: ModuleType, raw: str, code: str, words: str
) -> None:
    assert refusal(explained, raw) == ((code,), words)


def test_invalid_json_says_why() -> None:
    assert (
        explain_errors(["json_parse_error:Expecting value at line 1 column 1 (original: hello)"])
        == "the arguments are not valid JSON (Expecting value at line 1 column 1); they must be one JSON object"
    )


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("arguments_too_large", "the arguments are too large"),
        ("unreadable_arguments:ValueError", "the arguments could not be read"),
        ("unsupported_array_literal:tags", "`tags` must be an array"),
        ("model_reported_error:no such file", "the call reported an error: no such file"),
        (
            "ambiguous_tool_name:get.file|get_file",
            "the tool name matches more than one tool (`get.file`, `get_file`): send one exact name",
        ),
        ("something_new:x", "`x` has the error `something_new`"),
        ("out_of_range:n", "`n` must be within its allowed range"),
        ("key_not_json", "the arguments must be a JSON object whose keys are text, each once"),
        ("something_new", "the call has the error `something_new`"),
    ],
)
def test_codes_read_from_their_text_alone(code: str, words: str) -> None:
    assert explain_errors([code]) == words


def test_several_errors_are_said_in_the_order_of_the_codes(explained: ModuleType) -> None:
    codes, error = refusal(explained, '{"count": 0, "flag": 2, "color": "x", "ratio": 5}')
    assert codes == (
        "unsupported_boolean_literal:flag",
        "out_of_range:count",
        "out_of_range:ratio",
        "enum_out_of_range:color",
    )
    assert error == (
        "`flag` must be true or false; `count` must be at least 1;"
        ' `ratio` must be less than 1; `color` must be one of "red", "green"'
    )


def test_the_same_words_are_said_once() -> None:
    assert explain_errors(["missing_required:a", "missing_required:a"]) == "`a` is missing"


def test_warnings_that_changed_what_was_sent_are_noted_and_no_others() -> None:
    assert explain_warnings(
        [
            "string_literal_converted_to_integer:limit",
            "unknown_parameter:lmit",
            "fractional_number_truncated_to_integer:limit",
            "null_treated_as_absent:mode",
            "enum_case_normalized:mode",
            "markdown_fence_stripped",
        ]
    ) == (
        "`lmit` is not a parameter of this tool and was ignored;"
        " `limit` must be an integer and was truncated to one;"
        " `mode` was null and was treated as not given"
    )
    assert explain_warnings(["scalar_coerced_to_list:tags"]) is None


def test_the_docs_say_every_error_code_in_words() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "executor.md").read_text(
        encoding="utf-8"
    )
    section = page.split("### What a refused call says", 1)[1].split("\n## ", 1)[0]
    for code in (
        "missing_required",
        "out_of_range",
        "length_out_of_range",
        "pattern_mismatch",
        "enum_out_of_range",
        "unsupported_boolean_literal",
        "unsupported_integer_literal",
        "unsupported_number_literal",
        "unsupported_string_literal",
        "unsupported_object_literal",
        "unsupported_array_literal",
        "unsupported_timestamp_literal",
        "unsupported_union_literal",
        "ambiguous_union_literal",
        "unsupported_null_literal",
        "truncated_arguments",
        "json_parse_error",
        "arguments_not_object",
        "arguments_too_deep",
        "arguments_too_large",
        "unreadable_arguments",
    ):
        assert f"`{code}" in section, code

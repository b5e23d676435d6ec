"""Issue 34 item 3: each warning and error is a value (`Detail`: its code, path and context) made
where the parser finds it, and one table of codes in the runtime (`_codes.CODES`) gives each its
level, meaning and words, so that a problem is explained without reading the schema again
(docs/parsing.md, "Each warning and error as a value")."""

from __future__ import annotations

import copy
import json
import pickle
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from codegen.runtime import _codes, _explain
from codegen.runtime._runtime import Detail, detail
from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent

CATALOG = """\
name: detailed
tools:
  - name: check
    description: One parameter of each constraint and each kind.
    parameters:
      type: object
      $defs:
        Point:
          type: object
          properties: {x: {type: number, maximum: 10}}
          required: [x]
      properties:
        flag: {type: boolean}
        count: {type: integer, minimum: 1, maximum: 50}
        ratio: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
        text: {type: string, minLength: 2, maxLength: 4}
        slug: {type: string, pattern: "^[a-z-]+$"}
        tags: {type: array, items: {type: string}, minItems: 1, maxItems: 2}
        grid: {type: array, items: {type: array, items: {type: integer}}}
        color: {type: string, enum: [red, green]}
        level: {type: integer, const: 2}
        settings:
          type: object
          properties:
            timeout: {type: integer, minimum: 0}
        route: {type: array, items: {$ref: "#/$defs/Point"}}
        when: {type: string, format: date-time}
        day: {anyOf: [{type: string, format: date}, {type: "null"}]}
        id: {anyOf: [{type: integer}, {type: boolean}]}
        mixed: {anyOf: [{type: integer}, {enum: [a, b]}]}
        shape: {oneOf: [{type: string}, {type: string, maxLength: 3}]}
        nothing: {type: "null"}
        none: {const: null}
        point: {enum: [{x: 1}, [1, 2]]}
        a.b: {type: integer, maximum: 3}
        nullable_count: {type: [integer, "null"], maximum: 5}
        link: {type: string, format: uri}
        name: {type: string}
        meta: {type: object}
"""


@pytest.fixture(scope="module")
def detailed(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    source = tmp_path_factory.mktemp("catalog") / "detailed.yaml"
    source.write_text(CATALOG, encoding="utf-8")
    return build_package(source, tmp_path_factory.mktemp("out"))


class _Raising(Mapping[str, object]):
    """A mapping whose reading raises, as an SDK object may."""

    def __getitem__(self, key: str) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        raise ValueError("no reading")

    def __len__(self) -> int:
        return 1


# (what the model sent, the text in `warnings`/`errors`, the context, the words): one case for
# each code the parser emits about one parameter, about the whole call, and for each text repair.
CASES = [
    (
        '{"flag": "yes"}',
        "string_literal_converted_to_boolean:flag",
        {},
        "`flag` was sent as text and read as a boolean",
    ),
    (
        '{"flag": 1}',
        "number_coerced_to_boolean:flag",
        {},
        "`flag` was sent as a number and read as a boolean",
    ),
    (
        '{"count": "5"}',
        "string_literal_converted_to_integer:count",
        {},
        "`count` was sent as text and read as an integer",
    ),
    (
        '{"count": 5.0}',
        "number_coerced_to_integer:count",
        {},
        "`count` was sent as a whole float and read as an integer",
    ),
    (
        '{"count": 5.5}',
        "fractional_number_truncated_to_integer:count",
        {},
        "`count` must be an integer and was truncated to one",
    ),
    (
        '{"ratio": "0.5"}',
        "string_literal_converted_to_number:ratio",
        {},
        "`ratio` was sent as text and read as a number",
    ),
    (
        '{"name": 3}',
        "non_string_literal_retained:name",
        {},
        "`name` must be a string and was sent as another value: its text was kept",
    ),
    (
        '{"settings": "{\\"timeout\\": 1}"}',
        "string_parsed_as_json:settings",
        {},
        "`settings` was sent as a string holding JSON, which was read",
    ),
    (
        '{"tags": "[\'a\']"}',
        "list_text_repaired:tags",
        {},
        "`tags` was sent as the text of a list, which was read",
    ),
    (
        '{"tags": "a"}',
        "scalar_coerced_to_list:tags",
        {},
        "`tags` must be an array and was sent as one value, put in a list",
    ),
    (
        '{"color": "RED"}',
        "enum_case_normalized:color",
        {},
        "`color` was sent in another case than its allowed value",
    ),
    (
        '{"link": "example.com"}',
        "uri_not_absolute:link",
        {},
        "`link` is not an absolute URI: it has no scheme",
    ),
    (
        '{"when": "2024-05-01 09:30"}',
        "timestamp_without_offset:when",
        {},
        "`when` had no UTC offset and was read as UTC",
    ),
    (
        '{"nullable_count": "null"}',
        "string_literal_converted_to_null:nullable_count",
        {},
        '`nullable_count` was sent as the text "null" and read as null',
    ),
    (
        '{"count": null}',
        "null_treated_as_absent:count",
        {},
        "`count` was null and was treated as not given",
    ),
    (
        '{"name": "\\ud800"}',
        "lone_surrogate_replaced:name",
        {},
        "`name` held a lone surrogate, which is not text, replaced by U+FFFD",
    ),
    (
        '{"bogus": 1}',
        "unknown_parameter:bogus",
        {},
        "`bogus` is not a parameter of this tool and was ignored",
    ),
    (
        {"meta": {1: "a"}},
        "key_converted_to_text:meta.1",
        {},
        "`meta.1` was under a key that is not text, written as its JSON text",
    ),
    ('{"route": [{}]}', "missing_required:route[0].x", {}, "`route[0].x` is missing"),
    ('{"flag": "maybe"}', "unsupported_boolean_literal:flag", {}, "`flag` must be true or false"),
    ('{"count": "many"}', "unsupported_integer_literal:count", {}, "`count` must be an integer"),
    ('{"ratio": true}', "unsupported_number_literal:ratio", {}, "`ratio` must be a number"),
    ('{"name": [1]}', "unsupported_string_literal:name", {}, "`name` must be a string"),
    (
        '{"settings": 3}',
        "unsupported_object_literal:settings",
        {},
        "`settings` must be a JSON object",
    ),
    ('{"grid": [null]}', "unsupported_array_literal:grid[0]", {}, "`grid[0]` must be an array"),
    ('{"nothing": 1}', "unsupported_null_literal:nothing", {}, "`nothing` must be null"),
    (
        '{"when": "x"}',
        "unsupported_timestamp_literal:when",
        {"format": "date-time"},
        "`when` must be a date and time in ISO 8601 form, such as 2024-05-01T09:30:00Z",
    ),
    (
        '{"day": "1 May"}',
        "unsupported_timestamp_literal:day",
        {"format": "date"},
        "`day` must be a date in ISO 8601 form, such as 2024-05-01",
    ),
    (
        '{"id": [1]}',
        "unsupported_union_literal:id",
        {"types": ["integer", "boolean"]},
        "`id` must be one of these types: integer, boolean",
    ),
    (
        '{"mixed": [1]}',
        "unsupported_union_literal:mixed",
        {},
        "`mixed` matches none of its allowed forms",
    ),
    (
        '{"shape": "ab"}',
        "ambiguous_union_literal:shape",
        {},
        "`shape` matches more than one of its allowed forms; send a value that matches exactly one",
    ),
    (
        '{"color": "blue"}',
        "enum_out_of_range:color",
        {"allowed": ["red", "green"]},
        '`color` must be one of "red", "green"',
    ),
    ('{"level": 3}', "enum_out_of_range:level", {"allowed": [2]}, "`level` must be 2"),
    ('{"none": 1}', "enum_out_of_range:none", {"allowed": [None]}, "`none` must be null"),
    (
        '{"point": {"x": 2}}',
        "enum_out_of_range:point",
        {"allowed": [{"x": 1}, [1, 2]]},
        '`point` must be one of {"x": 1}, [1, 2]',
    ),
    ('{"count": 0}', "out_of_range:count", {"minimum": 1}, "`count` must be at least 1"),
    ('{"count": 51}', "out_of_range:count", {"maximum": 50}, "`count` must be at most 50"),
    (
        '{"ratio": 0}',
        "out_of_range:ratio",
        {"exclusiveMinimum": 0},
        "`ratio` must be greater than 0",
    ),
    ('{"ratio": 1}', "out_of_range:ratio", {"exclusiveMaximum": 1}, "`ratio` must be less than 1"),
    (
        '{"text": "a"}',
        "length_out_of_range:text",
        {"minLength": 2},
        "`text` must be at least 2 characters long",
    ),
    (
        '{"text": "abcde"}',
        "length_out_of_range:text",
        {"maxLength": 4},
        "`text` must be at most 4 characters long",
    ),
    (
        '{"tags": []}',
        "length_out_of_range:tags",
        {"minItems": 1},
        "`tags` must have at least 1 item",
    ),
    (
        '{"tags": ["a", "b", "c"]}',
        "length_out_of_range:tags",
        {"maxItems": 2},
        "`tags` must have at most 2 items",
    ),
    (
        '{"slug": "A B"}',
        "pattern_mismatch:slug",
        {"pattern": "^[a-z-]+$"},
        "`slug` must match the pattern `^[a-z-]+$`",
    ),
    ('{"a.b": 4}', "out_of_range:a.b", {"maximum": 3}, "`a.b` must be at most 3"),
    (
        '{"nullable_count": 6}',
        "out_of_range:nullable_count",
        {"maximum": 5},
        "`nullable_count` must be at most 5",
    ),
    (
        '{"route": [{"x": 11}]}',
        "out_of_range:route[0].x",
        {"maximum": 10},
        "`route[0].x` must be at most 10",
    ),
    (
        {"meta": {"a": {1, 2}}},
        "value_not_json:meta.a",
        {},
        "`meta.a` must be text, a number, a boolean, null, an array or an object",
    ),
    (
        {(1, 2): 1},
        "key_not_json",
        {},
        "the arguments must be a JSON object whose keys are text, each once",
    ),
    (
        {"meta": {(1,): 1}},
        "key_not_json:meta",
        {},
        "`meta` must be a JSON object whose keys are text, each once",
    ),
    (
        '"{\\"count\\": 5}"',
        "arguments_unquoted",
        {},
        "the arguments were sent JSON-encoded as a string, and unwrapped",
    ),
    (
        "hello",
        "json_parse_error:Expecting value at line 1 column 1 (original: hello)",
        {"reason": "Expecting value at line 1 column 1", "original": "hello"},
        "the arguments are not valid JSON (Expecting value at line 1 column 1); they must be one JSON object",
    ),
    (
        "[1]",
        "arguments_not_object",
        {},
        "the arguments must be one JSON object of named parameters",
    ),
    (
        '{"a": ' * 200 + "1" + "}" * 200,
        "arguments_too_deep",
        {},
        "the arguments are nested too deeply",
    ),
    (
        {"meta": {"x": list(range(1_000_001))}},
        "arguments_too_large",
        {},
        "the arguments are too large",
    ),
    ('{"count": 3', "truncated_arguments", {}, "the arguments were cut off before their end"),
    (
        '```json\n{"count": 5}\n```',
        "markdown_fence_stripped",
        {},
        "the arguments were inside a Markdown code fence",
    ),
    (
        'Here: {"count": 5} ok',
        "json_extracted_from_text",
        {},
        "the arguments were inside other text",
    ),
    (
        "{\u201ccount\u201d: 5}",
        "smart_quote_replaced",
        {},
        "the arguments had strings in typographic quotes",
    ),
    ("{'count': 5}", "single_quotes_converted", {}, "the arguments had single-quoted strings"),
    (
        '{"flag": True}',
        "python_literal_converted",
        {},
        "the arguments had Python's True, False or None",
    ),
    ("{count: 5}", "unquoted_key_quoted", {}, "the arguments had a key without quotes"),
    (
        '{"name": "a\nb"}',
        "control_character_escaped",
        {},
        "the arguments had a raw control character inside a string",
    ),
    ('{"count": 5 // c\n}', "comment_removed", {}, "the arguments had comments"),
    (
        '{"count": 5 "flag": true}',
        "missing_comma_inserted",
        {},
        "the arguments lacked a comma between two members or items",
    ),
    ('{"count": 5,}', "trailing_comma_removed", {}, "the arguments had a trailing comma"),
]
UNKNOWN_TOOL = "the tool is not one of the catalog's"
UNREADABLE = "the arguments could not be read"


@pytest.mark.parametrize(("raw", "text", "context", "words"), CASES)
def test_each_code_is_a_detail_with_its_context_and_words(
    detailed: ModuleType, raw: object, text: str, context: dict[str, object], words: str
) -> None:
    """The one problem of each call is a Detail: its text unchanged in `warnings`/`errors`, its
    code and path, the context recorded where it was found, and words naming that context."""
    request = detailed.parse("check", raw)
    assert (*request.warnings, *request.errors) == (text,)
    (found,) = request.details
    code, _, path = text.partition(":")
    entry = _codes.CODES[code]
    if entry.suffix != "path":
        path = ""
    assert (type(found), found, found.code, found.path, found.context) == (
        detailed.Detail,
        text,
        code,
        path,
        context,
    )
    assert found.level == entry.level == ("error" if request.errors else "warning")
    assert found.message == words


def test_the_cases_cover_every_code_of_a_parameter_the_call_and_the_repairs() -> None:
    """Every code of these sections of the table has its case above (the other sections' codes
    come from the reply readers, adapters, executor and streams, held by their own tests)."""
    covered = {text.partition(":")[0] for _, text, _, _ in CASES}
    covered |= {"tool_definition_missing", "unreadable_arguments"}
    listed = {
        code
        for code, entry in _codes.CODES.items()
        if entry.section in ("parameter", "call", "repair")
    }
    assert covered == listed


def test_an_unknown_tool_and_an_unreadable_input_are_details(detailed: ModuleType) -> None:
    (found,) = detailed.parse("nope", "{}").details
    assert (found, found.code, found.path, found.context) == (
        "tool_definition_missing",
        "tool_definition_missing",
        "",
        {},
    )
    assert found.message == UNKNOWN_TOOL
    (found,) = detailed.parse("check", _Raising()).details
    assert (found, found.code, found.path, found.context) == (
        "unreadable_arguments:ValueError",
        "unreadable_arguments",
        "",
        {"error": "ValueError"},
    )
    assert (found.level, found.message) == ("error", UNREADABLE)


def test_a_call_without_problems_has_no_details_and_loads_no_table(detailed: ModuleType) -> None:
    """The happy path makes no Detail and does not load the table of codes."""
    assert detailed.parse("check", '{"count": 5, "name": "x"}').details == ()
    script = (
        "import sys\n"
        "from generated.memory_tools import parse_memory_search as parse\n"
        'assert parse(\'{"query": "q"}\').details == ()\n'
        'assert parse(\'{"query": "q", "limit": 500}\').errors == (\'out_of_range:limit\',)\n'
        "print('generated.memory_tools._codes' in sys.modules)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert shown.stdout == "False\n"


def test_the_executor_says_each_error_in_the_words_of_its_detail(detailed: ModuleType) -> None:
    """A refused call's words come from the details alone: the bound of a `$ref`'d item, the
    allowed values, the format; each once, in the order of the errors."""
    executor = detailed.Executor({"check": lambda args: "ran"})
    raw = '{"count": 0, "route": [{"x": 11}], "color": "x", "when": "soon", "tags": []}'
    result = executor.execute(detailed.parse("check", raw, "call_1"))
    assert result.status == "rejected"
    assert result.errors == (
        "out_of_range:count",
        "length_out_of_range:tags",
        "enum_out_of_range:color",
        "out_of_range:route[0].x",
        "unsupported_timestamp_literal:when",
    )
    assert result.error == (
        '`count` must be at least 1; `tags` must have at least 1 item; `color` must be one of "red",'
        ' "green"; `route[0].x` must be at most 10; `when` must be a date and time in ISO 8601'
        " form, such as 2024-05-01T09:30:00Z"
    )


def test_the_explanation_reads_no_schema() -> None:
    """The schema walk is gone: the words take the codes alone, and a Detail's context decides
    them (the same code and path with another bound says that bound)."""
    assert not hasattr(_explain, "_schema_at")
    assert _explain.explain_errors([detail("out_of_range", "n", {"maximum": 7})]) == (
        "`n` must be at most 7"
    )
    assert _explain.explain_errors([detail("out_of_range", "n", {"exclusiveMinimum": 0.5})]) == (
        "`n` must be greater than 0.5"
    )
    # Read from its text alone, a code has no context: its words say so, naming no bound.
    assert _explain.explain_errors(["out_of_range:n"]) == "`n` must be within its allowed range"


def test_a_long_list_of_allowed_values_is_cut_short() -> None:
    many = detail("enum_out_of_range", "n", {"allowed": list(range(30))})
    assert many.message == (
        "`n` must be one of " + ", ".join(map(str, range(20))) + ", … (30 values in all)"
    )


@pytest.mark.parametrize("code", sorted(_codes.CODES))
def test_every_code_of_the_table_reads_back_from_its_text(code: str) -> None:
    """Any code's text, from whichever module wrote it, is a Detail by the table: a path for the
    codes about a parameter (or inside a result), the context key of a detail for the others, and
    words that never fail."""
    entry = _codes.CODES[code]
    for text in (code, f"{code}:a.b[0]|c"):
        found = _codes.read(text)
        rest = text.partition(":")[2]
        assert (found, found.code, found.level) == (text, code, entry.level)
        if entry.suffix == "path" or not rest:
            assert (found.path, found.context) == (rest, {})
        elif not entry.suffix:  # a code written with no suffix: what follows is kept as said
            assert (found.path, found.context) == ("", {"detail": rest})
        elif "{" in entry.suffix:  # of several parts: see the json_parse_error test below
            assert (found.path, found.context) == ("", {"reason": rest})
        elif entry.suffix.endswith("|"):
            assert (found.path, found.context) == ("", {entry.suffix[:-1]: ["a.b[0]", "c"]})
        else:
            assert (found.path, found.context) == ("", {entry.suffix: rest})
        assert isinstance(found.message, str) and found.message


def test_a_reply_reader_code_is_read_as_a_detail(detailed: ModuleType) -> None:
    """Codes a reader writes as text (`native_format:hermes`) are read back by the table: what
    follows the colon is the detail its entry names, not a path."""
    reply = '<tool_call>{"name": "Check", "arguments": {"count": 5}}</tool_call>'
    (request,) = detailed.parse_reply(reply)
    assert [(d, d.code, d.path, d.context) for d in request.details] == [
        ("native_format:hermes", "native_format", "", {"format": "hermes"}),
        ("arguments_envelope:arguments", "arguments_envelope", "", {"key": "arguments"}),
        ("tool_name_normalized:Check", "tool_name_normalized", "", {"name": "Check"}),
    ]


@given(st.text(max_size=120))
def test_a_parse_error_read_from_its_text_has_the_context_it_was_made_with(text: str) -> None:
    """The runtime writes `json_parse_error:<reason> (original: <text>)`; the table reads the
    same parts back, whatever the text sent (one holding "(original: " too)."""
    from generated.memory_tools import parse

    errors = parse("memory.search", "x" + text).errors
    assume(bool(errors) and errors[0].startswith("json_parse_error:"))  # else repairs read it
    (made,) = errors
    assert made.context["original"] == ("x" + text)[:100]
    assert _codes.read(str(made)).context == made.context


@given(st.text(max_size=40))
def test_any_text_reads_as_a_detail_equal_to_it(text: str) -> None:
    found = _codes.read(text)
    assert found == text and type(found) is Detail
    assert isinstance(found.message, str)
    assert isinstance(_explain.explain_errors([text]), str)
    assert _explain.explain_warnings([text]) in (None, found.message)


@given(
    st.sampled_from(sorted(_codes.CODES)),
    st.text(max_size=20),
    st.dictionaries(
        st.text(max_size=20),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=6,
        ),
        max_size=3,
    ),
)
def test_words_never_fail_whatever_the_context(
    code: str, path: str, context: dict[str, object]
) -> None:
    """A Detail made by hand with a context its words cannot use is still said."""
    assert isinstance(detail(code, path, context).message, str)


def test_a_detail_pickles_copies_and_writes_as_its_text(detailed: ModuleType) -> None:
    (found,) = detailed.parse("check", '{"count": 500}').errors
    for same in (pickle.loads(pickle.dumps(found)), copy.deepcopy(found), copy.copy(found)):
        assert (same, same.code, same.path, same.context) == (
            "out_of_range:count",
            "out_of_range",
            "count",
            {"maximum": 50},
        )
    assert json.dumps(detailed.parse("check", '{"count": 500}').errors) == (
        '["out_of_range:count"]'
    )
    assert repr(found) == "'out_of_range:count'"


def test_catalog_text_in_a_context_is_a_literal_not_code(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A pattern and enum values reach the generated code as literals: quotes, newlines and
    template syntax in them are data, and the context gives them back exactly."""
    hostile = "\"'); import os  # {{x}}\n\\u2028"
    pattern = "^\"'\\)\\\\n; import os  # {{x}}\n$"  # a valid pattern, as hostile
    source = tmp_path_factory.mktemp("hostile") / "hostile.yaml"
    source.write_text(
        "name: hostile\ntools:\n  - name: t\n    description: d\n    parameters:\n"
        "      type: object\n      properties:\n"
        f"        p: {{type: string, pattern: {json.dumps(pattern)}}}\n"
        f"        e: {{enum: [{json.dumps(hostile)}, 1]}}\n",
        encoding="utf-8",
    )
    package = build_package(source, tmp_path_factory.mktemp("out"))
    request = package.parse("t", {"p": "x", "e": "y"})
    mismatch, choice = request.details
    assert mismatch.context == {"pattern": pattern}
    assert choice.context == {"allowed": [hostile, 1]}


def test_the_playground_places_a_code_by_the_table(detailed: ModuleType) -> None:
    """What follows a code's colon (a path, or a detail of the whole call) is the table's one
    fact: the playground places each code on a field or on the call by it."""
    from codegen.playground.catalog import Playground

    playground = Playground(detailed)
    assert playground.split("out_of_range:a.b") == ("out_of_range", "a.b", "")
    assert playground.split("key_case_normalized:count") == ("key_case_normalized", None, "count")
    assert playground.split("native_format:hermes") == ("native_format", None, "hermes")
    for code, entry in _codes.CODES.items():
        _, path, _ = playground.split(f"{code}:x")
        assert (path == "x") == (entry.suffix == "path"), code


def test_every_code_text_the_suite_asserts_has_the_suffix_the_table_says() -> None:
    """The readers, adapters and streams write their codes as text: every such text the suite
    holds them to (its tests and model-text corpus) is read by the table as it was written, so a
    code the table takes as bare is never written with a suffix the table would misread."""
    names = "|".join(sorted(_codes.CODES, key=len, reverse=True))
    quoted = re.compile(rf"""["']({names})(?::([^"'\n]*))?["']""")
    sources = [*(ROOT / "tests").glob("*.py"), ROOT / "tests" / "model_text.yaml"]
    seen = 0
    for path in sources:
        for found in quoted.finditer(path.read_text(encoding="utf-8")):
            code, rest = found[1], found[2]
            seen += 1
            assert not rest or _codes.CODES[code].suffix, (path.name, found[0])
    assert seen > 500  # the scan sees the suite's codes

"""Execution tests of the text-repair step of the generated parsers (SPEC §3, "Text repair").

The bundled catalog schemas/memory_tools.yaml is built once into a package. Each row parses what a
model really sends instead of strict JSON and states the exact `values`, `warnings` and `errors`.

The rules under test:

1. Repair runs only when strict decoding fails; one warning per kind of repair, each reported once,
   in the fixed order of `CODES`. A double-encoded string whose content is broken is itself repaired.
2. Truncated input is closed: the complete values are recovered (the value being written at the
   cut is dropped), with the error `truncated_arguments`, so `arguments` stays None. Defaults fill.
3. Repairs compose and never guess: text with no recoverable object stays a `json_parse_error`;
   characters inside strings are never touched.
4. Valid input never runs the repair.

Sections: harness · each repair alone · reported once, in order · composition · double encoding ·
strings kept intact · must not repair · truncation (exact rows) · truncation at every cut ·
valid input never repairs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, build_package

CODES = (
    "markdown_fence_stripped",
    "json_extracted_from_text",
    "single_quotes_converted",
    "python_literal_converted",
    "comment_removed",
    "trailing_comma_removed",
)

# Defaults of the catalog, as nested dicts of wire names (filled for absent optional parameters).
DEFAULTS: dict[str, dict[str, Any]] = {
    "memory.search": {"limit": 3},
    "search_files": {"caseSensitive": True, "maxResults": 100},
    "read_file": {"encoding": "utf-8"},
    "update_config": {"dryRun": False, "settings": {"retries": 3}},
}

# ---------------------------------------------------------------------------------------------
# Harness


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("repair"))


def same(actual: object, expected: object) -> bool:
    """Equal, with the same types all the way down (1 is not 1.0, True is not 1)."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, Mapping):
        assert isinstance(actual, Mapping)
        return set(actual) == set(expected) and all(same(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list):
        assert isinstance(actual, list)
        return len(actual) == len(expected) and all(map(same, actual, expected))
    return actual == expected


def check(
    result: Any,
    raw: str,
    values: dict[str, Any],
    warnings: tuple[str, ...] = (),
    errors: tuple[str, ...] = (),
) -> None:
    """The exact outcome of one parse, plus the invariants every result keeps."""
    assert same(result.values, values), f"values {result.values!r} != {values!r}"
    assert result.warnings == warnings
    assert result.errors == errors
    assert result.raw_arguments == raw
    if errors:
        assert result.arguments is None
    else:
        assert result.arguments is not None
    assert_repair_codes_ordered(result.warnings)


def assert_repair_codes_ordered(warnings: tuple[str, ...]) -> None:
    """Repair codes appear at most once each, in the order of CODES."""
    repairs = [code for code in warnings if code in CODES]
    assert len(repairs) == len(set(repairs)), f"repeated repair code in {warnings}"
    assert repairs == sorted(repairs, key=CODES.index), f"repair codes out of order in {warnings}"


def fill(template: str, text: str, quote: Callable[[str], str] = json.dumps) -> str:
    """`template` with its `@` replaced by `text` written as a string literal."""
    return template.replace("@", quote(text))


def single_quoted(text: str) -> str:
    """`text` as a Python-style single-quoted literal (what models write)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


# ---------------------------------------------------------------------------------------------
# Each repair alone

ALONE = [
    pytest.param(
        "memory.search",
        '```json\n{"query": "agent state", "limit": 7}\n```',
        {"query": "agent state", "limit": 7},
        ("markdown_fence_stripped",),
        id="fence-json",
    ),
    pytest.param(
        "memory.search",
        '```\n{"query": "agent state"}\n```',
        {"query": "agent state", "limit": 3},
        ("markdown_fence_stripped",),
        id="fence-no-language",
    ),
    pytest.param(
        "memory.search",
        '  ```JSON\n{"query": "agent state"}\n```  \n',
        {"query": "agent state", "limit": 3},
        ("markdown_fence_stripped",),
        id="fence-uppercase-language-padded",
    ),
    pytest.param(
        "memory.search",
        '```json\n{"query": "agent state"}',
        {"query": "agent state", "limit": 3},
        ("markdown_fence_stripped",),
        id="fence-never-closed-object-complete",
    ),
    pytest.param(
        "memory.search",
        'Sure! Here are the arguments: {"query": "agent state", "limit": 7}',
        {"query": "agent state", "limit": 7},
        ("json_extracted_from_text",),
        id="prose-before",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 7}\nLet me know if you need more.',
        {"query": "agent state", "limit": 7},
        ("json_extracted_from_text",),
        id="prose-after",
    ),
    pytest.param(
        "memory.search",
        'Calling: {"query": "a {b} c", "limit": 2} -- done }',
        {"query": "a {b} c", "limit": 2},
        ("json_extracted_from_text",),
        id="prose-around-braces-in-string",
    ),
    pytest.param(
        "memory.search",
        "{'query': 'agent state', 'limit': 7}",
        {"query": "agent state", "limit": 7},
        ("single_quotes_converted",),
        id="single-quotes",
    ),
    pytest.param(
        "memory.search",
        """{'query': 'say "hi" it\\'s \\\\ done\\n'}""",
        {"query": 'say "hi" it\'s \\ done\n', "limit": 3},
        ("single_quotes_converted",),
        id="single-quotes-escapes",
    ),
    pytest.param(
        "memory.search",
        """{"query": 'caf\u00e9 \u2615'}""",
        {"query": "caf\u00e9 \u2615", "limit": 3},
        ("single_quotes_converted",),
        id="single-quotes-value-only-unicode",
    ),
    pytest.param(
        "search_files",
        '{"pattern": "*.py", "caseSensitive": False}',
        {"pattern": "*.py", "caseSensitive": False, "maxResults": 100},
        ("python_literal_converted",),
        id="python-False",
    ),
    pytest.param(
        "search_files",
        '{"pattern": "*.py", "caseSensitive": True}',
        {"pattern": "*.py", "caseSensitive": True, "maxResults": 100},
        ("python_literal_converted",),
        id="python-True",
    ),
    pytest.param(
        "read_file",
        '{"filePath": "README.md", "startLine": None}',
        {"filePath": "README.md", "startLine": None, "encoding": "utf-8"},
        ("python_literal_converted",),
        id="python-None-nullable",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "limit": None}',
        {"query": "x", "limit": 3},
        ("python_literal_converted", "null_treated_as_absent:limit"),
        id="python-None-optional",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", // what to look for\n "limit": 7}',
        {"query": "agent state", "limit": 7},
        ("comment_removed",),
        id="line-comment",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 7} // trailing note',
        {"query": "agent state", "limit": 7},
        ("comment_removed",),
        id="line-comment-after-object",
    ),
    pytest.param(
        "memory.search",
        '{/* args */ "query": /* the text */ "agent state", "limit": 7}',
        {"query": "agent state", "limit": 7},
        ("comment_removed",),
        id="block-comments",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", /* multi\n line\n comment */ "limit": 7}',
        {"query": "agent state", "limit": 7},
        ("comment_removed",),
        id="block-comment-multiline",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 7,}',
        {"query": "agent state", "limit": 7},
        ("trailing_comma_removed",),
        id="trailing-comma-object",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 7 , \n }',
        {"query": "agent state", "limit": 7},
        ("trailing_comma_removed",),
        id="trailing-comma-spaced",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "tags": ["a", "b",]}',
        {"query": "x", "limit": 3, "tags": ["a", "b"]},
        ("trailing_comma_removed", "unknown_parameter:tags"),
        id="trailing-comma-array",
    ),
    pytest.param(
        "update_config",
        '{"settings": {"timeout": 5,}}',
        {"settings": {"timeout": 5, "retries": 3}, "dryRun": False},
        ("trailing_comma_removed",),
        id="trailing-comma-nested",
    ),
]


@pytest.mark.parametrize(("tool", "raw", "values", "warnings"), ALONE)
def test_each_repair_alone(
    pkg: ModuleType, tool: str, raw: str, values: dict[str, Any], warnings: tuple[str, ...]
) -> None:
    check(pkg.parse(tool, raw), raw, values, warnings)


def test_repaired_result_has_typed_arguments(pkg: ModuleType) -> None:
    raw = "{'query': 'agent state', 'limit': 7,}"
    result = pkg.parse_memory_search(raw, "call_1")
    assert result.arguments == pkg.MemorySearchArgs(query="agent state", limit=7)
    assert result.tool_call_id == "call_1"
    assert result.parse_warning == "single_quotes_converted; trailing_comma_removed"
    assert result.parse_error is None


def test_bytes_input_is_repaired(pkg: ModuleType) -> None:
    raw = "{'query': 'caf\u00e9',}"
    result = pkg.parse_memory_search(raw.encode("utf-8"))
    check(
        result,
        raw,
        {"query": "caf\u00e9", "limit": 3},
        ("single_quotes_converted", "trailing_comma_removed"),
    )


# ---------------------------------------------------------------------------------------------
# Reported once, in order

ONCE = [
    pytest.param(
        "update_config",
        '{"settings": {"timeout": 5, "retryPolicy": {"maxDelay": 10,},}, "dryRun": true,}',
        {"settings": {"timeout": 5, "retries": 3, "retryPolicy": {"maxDelay": 10}}, "dryRun": True},
        ("trailing_comma_removed",),
        id="three-trailing-commas",
    ),
    pytest.param(
        "memory.search",
        '{// a\n"query": /* b */ "x", // c\n"limit": 2 /* d */}',
        {"query": "x", "limit": 2},
        ("comment_removed",),
        id="four-comments",
    ),
    pytest.param(
        "update_config",
        "{'settings': {'timeout': 5, 'mode': 'safe'}, 'dryRun': true}",
        {"settings": {"timeout": 5, "retries": 3, "mode": "safe"}, "dryRun": True},
        ("single_quotes_converted",),
        id="many-single-quoted",
    ),
    pytest.param(
        "update_config",
        '{"settings": {"timeout": 5, "verbose": False}, "dryRun": True, "x": None}',
        {"settings": {"timeout": 5, "retries": 3, "verbose": False}, "dryRun": True, "x": None},
        ("python_literal_converted", "unknown_parameter:x"),
        id="three-python-literals",
    ),
    pytest.param(
        "search_files",
        "```json\nCall: {'pattern': '*.py', /* c */ 'caseSensitive': False, 'maxResults': 5,} ok\n```",
        {"pattern": "*.py", "caseSensitive": False, "maxResults": 5},
        CODES,
        id="all-six-in-text-order",
    ),
    pytest.param(
        "update_config",
        '```\nok: {"settings": {"retryPolicy": {"backoff": 2.5,}, /* c */ "verbose": False,'
        " 'timeout': 5}, \"dryRun\": true} done\n```",
        {
            "settings": {
                "timeout": 5,
                "retries": 3,
                "verbose": False,
                "retryPolicy": {"backoff": 2.5},
            },
            "dryRun": True,
        },
        CODES,
        id="all-six-in-reverse-text-order",
    ),
]


@pytest.mark.parametrize(("tool", "raw", "values", "warnings"), ONCE)
def test_each_kind_reported_once_in_fixed_order(
    pkg: ModuleType, tool: str, raw: str, values: dict[str, Any], warnings: tuple[str, ...]
) -> None:
    check(pkg.parse(tool, raw), raw, values, warnings)


# ---------------------------------------------------------------------------------------------
# Composition

COMPOSED = [
    pytest.param(
        "memory.search",
        "```json\n{'query': 'agent state', // the text\n 'limit': 7,}\n```",
        {"query": "agent state", "limit": 7},
        (
            "markdown_fence_stripped",
            "single_quotes_converted",
            "comment_removed",
            "trailing_comma_removed",
        ),
        (),
        id="fence-quotes-comment-comma",
    ),
    pytest.param(
        "search_files",
        "Here you go:\n{'pattern': 'src/**/*.py', 'caseSensitive': True,} Anything else?",
        {"pattern": "src/**/*.py", "caseSensitive": True, "maxResults": 100},
        (
            "json_extracted_from_text",
            "single_quotes_converted",
            "python_literal_converted",
            "trailing_comma_removed",
        ),
        (),
        id="prose-quotes-literal-comma",
    ),
    pytest.param(
        "memory.search",
        "{'query': 'x', 'limit': '5'}",
        {"query": "x", "limit": 5},
        ("single_quotes_converted", "string_literal_converted_to_integer:limit"),
        (),
        id="repair-then-coercion",
    ),
    pytest.param(
        "memory.search",
        "{'query': 'x', 'limit': 99,}",
        {"query": "x"},
        ("single_quotes_converted", "trailing_comma_removed"),
        ("out_of_range:limit",),
        id="repair-then-schema-error",
    ),
    pytest.param(
        "update_config",
        "```python\n{'settings': {'timeout': 30, 'mode': 'SAFE', 'verbose': True,},"
        " /* note */ 'dryRun': False}\n```",
        {
            "settings": {"timeout": 30, "retries": 3, "mode": "safe", "verbose": True},
            "dryRun": False,
        },
        (
            "markdown_fence_stripped",
            "single_quotes_converted",
            "python_literal_converted",
            "comment_removed",
            "trailing_comma_removed",
            "enum_case_normalized:settings.mode",
        ),
        (),
        id="python-fence-nested",
    ),
]


@pytest.mark.parametrize(("tool", "raw", "values", "warnings", "errors"), COMPOSED)
def test_repairs_compose(
    pkg: ModuleType,
    tool: str,
    raw: str,
    values: dict[str, Any],
    warnings: tuple[str, ...],
    errors: tuple[str, ...],
) -> None:
    check(pkg.parse(tool, raw), raw, values, warnings, errors)


# ---------------------------------------------------------------------------------------------
# Double encoding: a JSON string holding broken JSON is unquoted, then repaired

DOUBLE = [
    pytest.param(
        json.dumps("{'query': 'x', 'limit': 4,}"),
        {"query": "x", "limit": 4},
        ("arguments_unquoted", "single_quotes_converted", "trailing_comma_removed"),
        (),
        id="quotes-and-comma",
    ),
    pytest.param(
        json.dumps(json.dumps('{"query": "x", "limit": 4,}')),
        {"query": "x", "limit": 4},
        ("arguments_unquoted", "trailing_comma_removed"),
        (),
        id="twice-encoded",
    ),
    pytest.param(
        json.dumps('```json\n{"query": "x"}\n```'),
        {"query": "x", "limit": 3},
        ("arguments_unquoted", "markdown_fence_stripped"),
        (),
        id="fence",
    ),
    pytest.param(
        json.dumps('Sure: {"query": "x", "limit": None}'),
        {"query": "x", "limit": 3},
        (
            "arguments_unquoted",
            "json_extracted_from_text",
            "python_literal_converted",
            "null_treated_as_absent:limit",
        ),
        (),
        id="prose-and-literal",
    ),
    pytest.param(
        json.dumps('{"query": "x", "limit": 4,'),
        {"query": "x", "limit": 4},
        ("arguments_unquoted",),
        ("truncated_arguments",),
        id="content-truncated",
    ),
]


@pytest.mark.parametrize(("raw", "values", "warnings", "errors"), DOUBLE)
def test_double_encoded_broken_content_is_repaired(
    pkg: ModuleType,
    raw: str,
    values: dict[str, Any],
    warnings: tuple[str, ...],
    errors: tuple[str, ...],
) -> None:
    check(pkg.parse_memory_search(raw), raw, values, warnings, errors)


# ---------------------------------------------------------------------------------------------
# Strings kept intact: repair-looking text inside a string is content, in valid JSON and in JSON
# that needs another repair elsewhere

TRICKY = {
    "line-comment": "a // b",
    "url": "see http://example.com/x?y=1",
    "block-comment": "/* not a comment */",
    "glob": "src/**/*.py",
    "apostrophe": "it's 'quoted'",
    "python-words": "True False None",
    "fence": "```json\n{}\n```",
    "trailing-comma-brace": "x,}",
    "trailing-comma-bracket": "[1, 2,]",
    "json-in-string": '{"nested": 1,}',
    "prose-object": 'Answer: {"query": "q"} ok',
    "backslashes": "C:\\dir\\ end\\",
    "quotes": 'say "hi"',
    "unicode": "caf\u00e9 \u2615 \u00e9t\u00e9",
}

# How the call is written: (text of search_files {pattern: s, caseSensitive: false}, warnings)
CONTEXTS = {
    "valid": (lambda s: json.dumps({"pattern": s, "caseSensitive": False}), ()),
    "trailing-comma": (
        lambda s: fill('{"pattern": @, "caseSensitive": false,}', s),
        ("trailing_comma_removed",),
    ),
    "comment": (
        lambda s: fill('{"pattern": @, /* c */ "caseSensitive": false // end\n}', s),
        ("comment_removed",),
    ),
    "python-literal": (
        lambda s: fill('{"pattern": @, "caseSensitive": False}', s),
        ("python_literal_converted",),
    ),
    "single-quoted-value": (
        lambda s: fill('{"pattern": @, "caseSensitive": false}', s, single_quoted),
        ("single_quotes_converted",),
    ),
    "prose": (
        lambda s: fill('Here: {"pattern": @, "caseSensitive": false} -- ok?', s),
        ("json_extracted_from_text",),
    ),
    "fenced": (
        lambda s: fill('```json\n{"pattern": @, "caseSensitive": false}\n```', s),
        ("markdown_fence_stripped",),
    ),
    "double-encoded-trailing-comma": (
        lambda s: json.dumps(fill('{"pattern": @, "caseSensitive": false,}', s)),
        ("arguments_unquoted", "trailing_comma_removed"),
    ),
}


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("content", list(TRICKY.values()), ids=list(TRICKY))
def test_strings_keep_every_character(pkg: ModuleType, content: str, context: str) -> None:
    write, warnings = CONTEXTS[context]
    raw = write(content)
    expected = {"pattern": content, "caseSensitive": False, "maxResults": 100}
    check(pkg.parse_search_files(raw), raw, expected, warnings)


@pytest.mark.parametrize("content", list(TRICKY.values()), ids=list(TRICKY))
def test_strings_keep_every_character_in_keys(pkg: ModuleType, content: str) -> None:
    """An unknown name is kept verbatim too, also when its object needed a repair."""
    raw = fill('{"query": "x", @: 1,}', content)
    check(
        pkg.parse_memory_search(raw),
        raw,
        {"query": "x", "limit": 3, content: 1},
        ("trailing_comma_removed", f"unknown_parameter:{content}"),
    )


# ---------------------------------------------------------------------------------------------
# Must not repair: no recoverable object stays a json_parse_error

NOT_REPAIRED = {
    "empty-prose": "just some words",
    "no-brace": 'query: "agent state"',
    "bare-key-without-colon": "{query 1}",
    # Two objects where one is expected: which was meant is not guessed (json_repair gives both).
    "two-objects-in-prose": 'First {"query": "one"} and then {"query": "two"}',
    "members-after-the-end": '{"query": "one"}, "limit": 2}',
    "array-before": '[]{"query": "one"}',
    "bare-word-value": '{"query": agent}',
    "bare-word-value-end": '{"query": "x", "flag": maybe',
    "uppercase-TRUE": '{"query": "x", "flag": TRUE}',
    "lowercase-none": '{"query": "x", "limit": none}',
    "undefined": '{"query": "x", "limit": undefined}',
    "NaN-root": "NaN",
    "NaN-value": '{"query": "x", "limit": NaN}',
    "Infinity-value": '{"query": "x", "limit": Infinity}',
    "negative-Infinity": '{"query": "x", "limit": -Infinity}',
    "hex-number": '{"query": "x", "limit": 0x10}',
    "leading-zero": '{"query": "x", "limit": 07}',
    "leading-plus": '{"query": "x", "limit": +7}',
    "leading-dot": '{"query": "x", "limit": .5}',
    "mismatched-array-closed-by-brace": '{"a": [1}',
    "mismatched-object-closed-by-bracket": '{"query": "x"]',
    "mismatched-nested": '{"a": {"b": [1, 2}]}',
    "missing-colon": '{"query" "x"}',
    "double-comma": '{"query": "x",, "limit": 3}',
    "two-trailing-commas": '{"query": "x",,}',
    "lone-comma-object": "{,}",
    "lone-comma-array": '{"query": "x", "tags": [,]}',
    "comma-only-before-key": '{, "query": "x"}',
    "stray-slash": '{"query": "x" / "limit": 3}',
    "backtick-string": '{"query": `x`}',
    "root-array-broken": "[1, 2,]",
    "object-inside-a-broken-array": '[{"query": "x"},]',
    "stray-closing-brace-after": '{"query": "x"}}',
    "stray-closing-bracket-after": '{"query": "x"}]',
}


@pytest.mark.parametrize("raw", list(NOT_REPAIRED.values()), ids=list(NOT_REPAIRED))
def test_no_recoverable_object_stays_parse_error(pkg: ModuleType, raw: str) -> None:
    result = pkg.parse_memory_search(raw)
    assert result.arguments is None
    assert len(result.errors) == 1, result.errors
    (error,) = result.errors
    assert error.startswith("json_parse_error:"), error
    assert error.endswith(f" (original: {raw[:100]})"), error
    assert not any(code in CODES for code in result.warnings), result.warnings
    assert "truncated_arguments" not in result.errors


def test_parse_error_shows_first_100_characters(pkg: ModuleType) -> None:
    raw = '{query "' + "x" * 200 + '"}'
    (error,) = pkg.parse_memory_search(raw).errors
    assert error.startswith("json_parse_error:")
    assert error.endswith(f" (original: {raw[:100]})")
    assert raw[:101] not in error


# ---------------------------------------------------------------------------------------------
# Truncation: exact rows

TRUNCATED = [
    pytest.param(
        "memory.search",
        "{",
        {"limit": 3},
        (),
        ("truncated_arguments", "missing_required:query"),
        id="just-open-brace",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent st',
        {"limit": 3},
        (),
        ("truncated_arguments", "missing_required:query"),
        id="inside-string",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent \\',
        {"limit": 3},
        (),
        ("truncated_arguments", "missing_required:query"),
        id="inside-escape",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "lim',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="inside-key",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit"',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="dangling-key",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": ',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="dangling-colon",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 4',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="number-at-end-may-be-cut",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": -',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="minus-sign-at-end",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 1e',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="exponent-at-end",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 4,',
        {"query": "agent state", "limit": 4},
        (),
        ("truncated_arguments",),
        id="number-ended-by-comma",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": 4 ',
        {"query": "agent state", "limit": 4},
        (),
        ("truncated_arguments",),
        id="number-ended-by-space",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state"',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="string-value-complete",
    ),
    pytest.param(
        "memory.search",
        '{"query": "agent state", "limit": nul',
        {"query": "agent state", "limit": 3},
        (),
        ("truncated_arguments",),
        id="cut-literal",
    ),
    pytest.param(
        "update_config",
        '{"settings": {"timeout": 5}, "dryRun": Tru',
        {"settings": {"timeout": 5, "retries": 3}, "dryRun": False},
        (),
        ("truncated_arguments",),
        id="cut-python-literal",
    ),
    pytest.param(
        "update_config",
        '{"settings": {"timeout": 5, "verbose": true',
        {"dryRun": False},
        (),
        ("truncated_arguments", "missing_required:settings"),
        id="open-object-dropped-whole",
    ),
    pytest.param(
        "update_config",
        '{"dryRun": true, "settings": {"timeout": 5, "retryPolicy": {"backoff": 1.5, "maxD',
        {"dryRun": True},
        (),
        ("truncated_arguments", "missing_required:settings"),
        id="nested-open-objects-dropped",
    ),
    pytest.param(
        "update_config",
        '{"settings": {"retries": 1, "timeout"',
        {"dryRun": False},
        (),
        ("truncated_arguments", "missing_required:settings"),
        id="nested-dangling-key",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "tags": ["a", "b',
        {"query": "x", "limit": 3},
        (),
        ("truncated_arguments",),
        id="inside-array-string",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "tags": [1, 2',
        {"query": "x", "limit": 3},
        (),
        ("truncated_arguments",),
        id="inside-array-number",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "tags": [{"k": "v"}, {"k": "w", "j',
        {"query": "x", "limit": 3},
        (),
        ("truncated_arguments",),
        id="objects-in-array",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "tags": ["a"]',
        {"query": "x", "limit": 3, "tags": ["a"]},
        ("unknown_parameter:tags",),
        ("truncated_arguments",),
        id="array-complete-object-open",
    ),
    pytest.param(
        "memory.search",
        "{'query': 'agent state', 'limit': 4, 'note': 'ab",
        {"query": "agent state", "limit": 4},
        ("single_quotes_converted",),
        ("truncated_arguments",),
        id="inside-single-quoted",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", // a note',
        {"query": "x", "limit": 3},
        ("comment_removed",),
        ("truncated_arguments",),
        id="inside-line-comment",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", /* a note',
        {"query": "x", "limit": 3},
        ("comment_removed",),
        ("truncated_arguments",),
        id="inside-block-comment",
    ),
    pytest.param(
        "memory.search",
        '```json\n{"query": "x", "limit": 4,',
        {"query": "x", "limit": 4},
        ("markdown_fence_stripped",),
        ("truncated_arguments",),
        id="inside-fence",
    ),
    pytest.param(
        "memory.search",
        'Sure! {"query": "x", "li',
        {"query": "x", "limit": 3},
        ("json_extracted_from_text",),
        ("truncated_arguments",),
        id="after-prose",
    ),
    pytest.param(
        "memory.search",
        '{"query": "x", "limit": 4, "query": "y", "tags": ["a",',
        {"query": "y", "limit": 4},
        (),
        ("truncated_arguments",),
        id="duplicate-key-last-wins",
    ),
]


@pytest.mark.parametrize(("tool", "raw", "values", "warnings", "errors"), TRUNCATED)
def test_truncated_input_recovers_complete_values(
    pkg: ModuleType,
    tool: str,
    raw: str,
    values: dict[str, Any],
    warnings: tuple[str, ...],
    errors: tuple[str, ...],
) -> None:
    result = pkg.parse(tool, raw)
    check(result, raw, values, warnings, errors)
    assert result.parse_error is not None and result.parse_error.startswith("truncated_arguments")


def test_truncated_call_with_all_values_complete_still_does_not_run(pkg: ModuleType) -> None:
    raw = '{"query": "agent state", "limit": 7,'
    result = pkg.parse_memory_search(raw)
    check(result, raw, {"query": "agent state", "limit": 7}, (), ("truncated_arguments",))


# ---------------------------------------------------------------------------------------------
# Truncation at every cut of a few sample calls

SAMPLES: dict[str, tuple[str, str]] = {
    "search": ("memory.search", '{"query": "agent state", "limit": 7}'),
    "config": (
        "update_config",
        (
            "{'settings': {'timeout': 30, 'mode': 'safe', 'verbose': True, // be loud\n"
            "  'retryPolicy': {'backoff': 1.5, 'maxDelay': 2000}}, /* ids */"
            " 'tags': ['a', \"b's\", {'k': [1, -2.5e3]}], 'dryRun': False}"
        ),
    ),
    "fenced-files": (
        "search_files",
        (
            'Here you go:\n```json\n{"pattern": "src/**/*.py", "caseSensitive": false,'
            ' "maxResults": 20,}\n```\nDone.'
        ),
    ),
    "read": (
        "read_file",
        "{'filePath': 'docs/it\\'s \"new\".md', 'startLine': None, 'encoding': 'latin-1'}",
    ),
}

CUTS = [
    pytest.param(name, cut, id=f"{name}[:{cut}]")
    for name, (_, text) in SAMPLES.items()
    for cut in range(len(text))
]


def consistent(part: object, full: object, defaults: object, path: str = "") -> list[str]:
    """Why `part` (values of a cut call) is not a prefix of `full` (values of the whole call)."""
    if isinstance(part, dict) and isinstance(full, dict):
        nested = defaults if isinstance(defaults, dict) else {}
        problems: list[str] = []
        for key, value in part.items():
            where = f"{path}.{key}" if path else key
            if key in full and same(value, full[key]):
                continue
            default = nested.get(key, _ABSENT)
            if not isinstance(default, dict) and default is not _ABSENT and same(value, default):
                continue  # a default filled for a parameter cut off (or not reached yet)
            if key not in full:
                problems.append(f"{where}: {value!r} is not in the full call")
            else:
                problems.extend(consistent(value, full[key], default, where))
        return problems
    if isinstance(part, list) and isinstance(full, list):
        if len(part) > len(full):
            return [f"{path}: {part!r} is longer than {full!r}"]
        problems = [
            f"{path}[{i}]: {a!r} != {b!r}"
            for i, (a, b) in enumerate(zip(part[:-1], full))
            if not same(a, b)
        ]
        if part and not same(part[-1], full[len(part) - 1]):
            problems.extend(
                consistent(part[-1], full[len(part) - 1], None, f"{path}[{len(part) - 1}]")
            )
        return problems
    if same(part, full):
        return []
    return [f"{path}: {part!r} != {full!r}"]


_ABSENT = object()


def test_consistency_helper_rejects_what_the_full_call_does_not_hold() -> None:
    full = {"query": "agent state", "limit": 7, "tags": ["a", {"k": [1, 2]}]}
    defaults = {"limit": 3}
    assert consistent({"limit": 3, "tags": ["a", {"k": [1]}]}, full, defaults) == []
    assert consistent({"query": "agent st"}, full, defaults) != []  # a cut string
    assert consistent({"limit": 4}, full, defaults) != []  # neither the value nor the default
    assert consistent({"tags": ["b"]}, full, defaults) != []
    assert consistent({"tags": ["a", {"k": [1, 2]}, 3]}, full, defaults) != []
    assert consistent({"tags": [{"k": []}]}, full, defaults) != []  # only the last may be partial
    assert consistent({"extra": 1}, full, defaults) != []


@pytest.mark.parametrize(("name", "cut"), CUTS)
def test_truncation_at_every_cut(pkg: ModuleType, name: str, cut: int) -> None:
    tool, text = SAMPLES[name]
    full = pkg.parse(tool, text)
    assert full.errors == (), "the sample itself must parse cleanly"
    prefix = text[:cut]

    result = pkg.parse(tool, prefix)  # never raises

    assert result.raw_arguments == prefix
    assert_repair_codes_ordered(result.warnings)
    if not prefix.strip():
        # An empty text is an empty object: only schema errors, nothing was repaired.
        assert all(e.startswith("missing_required:") for e in result.errors), result.errors
        assert not any(code in CODES for code in result.warnings)
        return
    if result.errors and result.errors[0] == "truncated_arguments":
        # (a) recovered: a cut call never runs, and what was recovered belongs to the full call.
        assert result.arguments is None
        rest = result.errors[1:]
        assert all(e.startswith("missing_required:") for e in rest), rest
        assert consistent(result.values, full.values, DEFAULTS[tool]) == []
        return
    if result.errors and result.errors[0].startswith("json_parse_error:"):
        # (b) nothing recoverable: only before the object opens, or on a lone `/` that might
        # become a comment.
        assert len(result.errors) == 1
        assert "{" not in prefix or prefix.endswith("/"), result.errors
        return
    # (b) the object was already complete (only text after it was cut): the full call's result.
    assert result.errors == (), result.errors
    assert same(result.values, full.values)
    assert result.arguments == full.arguments


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_cut_inside_the_object_is_truncated(pkg: ModuleType, name: str) -> None:
    """Every cut between the object's `{` and its `}` reports truncated_arguments (bar a lone `/`)."""
    tool, text = SAMPLES[name]
    start, end = text.index("{"), text.rindex("}")
    missed = [
        (cut, pkg.parse(tool, text[:cut]).errors)
        for cut in range(start + 1, end + 1)
        if not text[:cut].endswith("/")
        and pkg.parse(tool, text[:cut]).errors[:1] != ("truncated_arguments",)
    ]
    assert missed == []


# ---------------------------------------------------------------------------------------------
# Valid input never repairs

VALID = {
    "exact": '{"query": "agent state", "limit": 7}',
    "default-filled": '{"query": "agent state"}',
    "padded": '  \n {"query": "agent state"}\t\n',
    "bom": '\ufeff{"query": "agent state"}',
    "coercion": '{"query": 42, "limit": "7"}',
    "schema-error": '{"query": "x", "limit": 99}',
    "missing-required": "{}",
    "empty": "",
    "unknown-name": '{"query": "x", "other": [1, {"a": null}]}',
    "double-encoded": json.dumps('{"query": "agent state", "limit": 7}'),
    "tricky-strings": json.dumps({"query": " // /* */ ' True None ``` ,} ,] ", "x": "{'a': 1,}"}),
    "not-an-object": "[1, 2]",
    "number-root": "42",
}


class RepairCalled(AssertionError):
    pass


def _refuse(text: str, *_: object) -> None:
    raise RepairCalled(f"repair_json ran on valid input: {text!r}")


@pytest.mark.parametrize("raw", list(VALID.values()), ids=list(VALID))
def test_valid_input_never_runs_the_repair(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    expected = pkg.parse_memory_search(raw)
    monkeypatch.setattr(pkg._repair, "repair_json", _refuse)
    monkeypatch.setattr(pkg._runtime, "repair_json", _refuse)
    for given in (raw, raw.encode("utf-8")):
        result = pkg.parse_memory_search(given)
        assert result.values == expected.values
        assert result.warnings == expected.warnings
        assert result.errors == expected.errors
        assert not any(code in CODES for code in result.warnings)


def test_dict_input_never_runs_the_repair(pkg: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pkg._repair, "repair_json", _refuse)
    monkeypatch.setattr(pkg._runtime, "repair_json", _refuse)
    result = pkg.parse_memory_search({"query": "it's // True,}", "limit": 2})
    check(
        result,
        json.dumps({"query": "it's // True,}", "limit": 2}),
        {"query": "it's // True,}", "limit": 2},
    )


def test_refusing_stub_is_wired(pkg: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stub above really sits on the repair path: broken input reaches it (and what it raises
    is caught by the parser's last-resort guard, which reports it instead)."""
    monkeypatch.setattr(pkg._repair, "repair_json", _refuse)
    monkeypatch.setattr(pkg._runtime, "repair_json", _refuse)
    request = pkg.parse_memory_search('{"query": "x",}')
    assert request.errors == ("unreadable_arguments:RepairCalled",)

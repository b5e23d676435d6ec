"""Whole-input rules and the never-raise contract of generated parsers (SPEC section 3).

Hand-picked inputs for every whole-input rule, then property tests: whatever text, JSON, dict or
bytes a provider hands over, `parse` returns a request and never raises; and neither the optional
msgspec decoder nor the shortcut for plain JSON objects ever changes a result.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import json
import re
import subprocess
import sys
from collections import OrderedDict, UserDict
from collections.abc import Callable, Iterator
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any
from unittest import mock

import pytest
from conftest import ROOT, build_package
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.runtime import _runtime

MEMORY = ROOT / "schemas" / "memory_tools.yaml"
CODE = re.compile(r"[a-z_]+(:.*)?", re.DOTALL)
# Every bundled catalog (schemas/) and every fixture catalog (tests/fixtures/).
BUNDLED = ("memory_tools", "calendar_tools", "http_tools")
PACKAGES = (*BUNDLED, "coercion", "hostile")
UNKNOWN_TOOL = "no.such-tool"

SMALL = """\
name: small
tools:
  - name: opt
    description: Only optional parameters.
    parameters:
      type: object
      properties:
        n: {type: integer, default: 5}
        flag: {type: boolean}
  - name: req
    description: One required parameter.
    parameters:
      type: object
      properties:
        q: {type: string}
      required: [q]
"""

# Five catalogs, each property a test per catalog: 120 examples each keeps the file to seconds.
PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------------------------
# Packages


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """memory_tools freshly built from schemas/, so the tests see the generator as it is now."""
    return build_package(MEMORY, tmp_path_factory.mktemp("memory"))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    folder = tmp_path_factory.mktemp("small")
    source = folder / "small.yaml"
    source.write_text(SMALL, encoding="utf-8")
    return build_package(source, folder / "out")


@pytest.fixture(scope="module")
def packages(
    memory: ModuleType,
    fixture_package: Callable[[str], ModuleType],
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str], ModuleType]:
    failures: dict[str, BaseException] = {}
    bundled: dict[str, ModuleType] = {"memory_tools": memory}

    def get(name: str) -> ModuleType:
        # A package that fails to build or import fails every test that uses it, once each.
        if name in failures:
            raise failures[name]
        try:
            if name not in BUNDLED:
                return fixture_package(f"{name}.yaml")
            if name not in bundled:
                (source,) = (ROOT / "schemas").glob(f"{name}.*")
                bundled[name] = build_package(source, tmp_path_factory.mktemp(name))
            return bundled[name]
        except Exception as exc:
            failures[name] = exc
            raise

    return get


def runtime_of(package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{package.__name__}._runtime")


@contextlib.contextmanager
def standard_decoding(runtime: ModuleType) -> Iterator[None]:
    """The runtime as it runs without msgspec: `json` decodes every text, on every path."""
    assert runtime._fast_loads is not None and runtime._decode is runtime._fast_loads, (
        "msgspec is installed in the test environment: the fast decoder must be on"
    )
    with (
        mock.patch.object(runtime, "_fast_loads", None),
        mock.patch.object(runtime, "_decode", runtime._json_first),
    ):
        yield


def check_request(request: Any, tool: str, call_id: str = "") -> None:
    """What holds for every result of every parse."""
    assert request.tool_name == tool
    assert request.tool_call_id == call_id
    assert isinstance(request.raw_arguments, str)
    assert isinstance(request.values, dict)
    assert isinstance(request.warnings, tuple) and isinstance(request.errors, tuple)
    for code in (*request.warnings, *request.errors):
        assert isinstance(code, str) and CODE.fullmatch(code), code
    if tool == UNKNOWN_TOOL:
        assert request.arguments is None
        assert request.warnings[:1] == ("tool_definition_missing",)
    else:
        assert (request.arguments is None) == bool(request.errors), (
            request.arguments,
            request.errors,
        )
    assert request.parse_error == ("; ".join(request.errors) or None)
    assert request.parse_warning == ("; ".join(request.warnings) or None)


def search(memory: ModuleType, raw: Any) -> Any:
    request = memory.parse("memory.search", raw, "id-1")
    check_request(request, "memory.search", "id-1")
    return request


def calls_made(work: Callable[[], object]) -> int:
    """How many calls `work` makes, of Python functions and built-ins (a profile hook counts
    them): the same on every run, as a time is not. A parse of an input twice as large makes at
    most about twice as many when no step of it runs again for each part of the input; the work
    inside one built-in call (json's decoder) is not counted."""
    calls = 0

    def hook(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(hook)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls


# ---------------------------------------------------------------------------------------------
# Whole-input rules


def quoted(value: object, levels: int) -> str:
    text = json.dumps(value)
    for _ in range(levels):
        text = json.dumps(text)
    return text


@pytest.mark.parametrize("levels", [1, 2, 10])
def test_arguments_encoded_as_a_string_are_unquoted(memory: ModuleType, levels: int) -> None:
    raw = quoted({"query": "x", "limit": 4}, levels)
    request = search(memory, raw)
    assert request.errors == ()
    assert request.warnings == ("arguments_unquoted",)
    assert request.values == {"query": "x", "limit": 4}
    assert request.raw_arguments == raw
    assert request.arguments is not None and request.arguments.query == "x"


def test_more_than_ten_levels_of_quoting_is_not_an_object(memory: ModuleType) -> None:
    raw = quoted({"query": "x"}, 11)
    request = search(memory, raw)
    assert request.errors == ("arguments_not_object",)
    assert request.arguments is None
    assert request.raw_arguments == raw


@pytest.mark.parametrize(
    "raw", ["", " ", "   \n\t \r\n ", "{}", " {} ", "\n{}\n", "\ufeff", "\ufeff{}"]
)
def test_empty_input_is_an_empty_object(small: ModuleType, raw: str) -> None:
    request = small.parse("opt", raw)
    check_request(request, "opt")
    assert request.errors == () and request.warnings == ()
    assert request.values == {"n": 5}
    assert request.arguments is not None and (request.arguments.n, request.arguments.flag) == (
        5,
        None,
    )
    assert request.raw_arguments == raw
    request = small.parse("req", raw)
    check_request(request, "req")
    assert request.errors == ("missing_required:q",)
    assert request.arguments is None


def test_none_is_an_empty_object(small: ModuleType) -> None:
    request = small.parse("opt", None)
    check_request(request, "opt")
    assert request.ok and request.values == {"n": 5}
    assert request.raw_arguments == ""
    request = small.parse("req", None)
    assert request.errors == ("missing_required:q",)


def parse_error_parts(code: str) -> tuple[str, str]:
    """(reason, original) of a `json_parse_error:<reason> (original: <text>)` code."""
    assert code.startswith("json_parse_error:"), code
    body = code[len("json_parse_error:") :]
    reason, marker, original = body.partition(" (original: ")
    assert marker and original.endswith(")"), code
    return reason, original[:-1]


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "@",
        '{"query" "x"}',
        "{]",
        "x" * 300,
        '{"query": "x", "limit": ' + "@" * 250 + "}",
        "line one\nline two\n" + "z" * 200,
    ],
)
def test_invalid_json_is_a_parse_error_showing_the_first_100_characters(
    memory: ModuleType, raw: str
) -> None:
    request = search(memory, raw)
    assert len(request.errors) == 1, request.errors
    reason, original = parse_error_parts(request.errors[0])
    assert reason.strip()
    assert original == raw[:100]
    assert request.errors[0] == f"json_parse_error:{reason} (original: {raw[:100]})"
    assert request.raw_arguments == raw  # the whole text, never cut
    assert request.arguments is None and request.values == {}


@pytest.mark.parametrize(
    "raw",
    ["[]", "[1, 2]", '[{"query": "x"}]', "1", "-2.5", '"x"', '"\\"x\\""', "null", "true", "false"],
)
def test_a_root_that_is_not_an_object(memory: ModuleType, raw: str) -> None:
    request = search(memory, raw)
    assert request.errors == ("arguments_not_object",)
    assert request.arguments is None and request.values == {}
    assert request.raw_arguments == raw


def test_dict_input(memory: ModuleType) -> None:
    raw = {"query": "déjà vu", "limit": 2}
    request = search(memory, raw)
    assert request.ok and request.warnings == ()
    assert request.values == raw
    assert json.loads(request.raw_arguments) == raw
    assert raw == {"query": "déjà vu", "limit": 2}  # the input is not changed


@pytest.mark.parametrize("kind", [OrderedDict, MappingProxyType, UserDict])
def test_other_mappings(memory: ModuleType, kind: Callable[[dict[str, object]], Any]) -> None:
    request = search(memory, kind({"query": "x"}))
    assert request.ok and request.values == {"query": "x", "limit": 3}
    assert json.loads(request.raw_arguments) == {"query": "x"}


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_input(memory: ModuleType, kind: Callable[[bytes], Any]) -> None:
    text = '{"query": "größe 名前"}'
    request = search(memory, kind(text.encode()))
    assert request.ok and request.values == {"query": "größe 名前", "limit": 3}
    assert request.raw_arguments == text


def test_invalid_utf8_is_a_parse_error(memory: ModuleType) -> None:
    raw = b'{"query": "\xff\xfe bad"}'
    request = search(memory, raw)
    assert len(request.errors) == 1
    reason, _ = parse_error_parts(request.errors[0])
    assert "UTF-8" in reason or "utf-8" in reason
    assert request.arguments is None


@pytest.mark.parametrize(
    "raw",
    [
        '\ufeff{"query": "x"}',
        '\ufeff {"query": "x"}',
        ' \ufeff{"query": "x"}',
        '\ufeff{"query": "x"}'.encode(),
    ],
)
def test_leading_byte_order_mark(memory: ModuleType, raw: str | bytes) -> None:
    request = search(memory, raw)
    assert request.ok and request.warnings == ()
    assert request.values == {"query": "x", "limit": 3}


def _deep_texts(n: int) -> dict[str, str]:
    return {
        "open brackets": "[" * n,
        "balanced brackets": "[" * n + "]" * n,
        "open objects": '{"a":' * n,
        "balanced objects": '{"a":' * n + "1" + "}" * n,
        "mixed": '{"a":[' * (n // 2) + "]}" * (n // 2),
        "inside a value": '{"query": "x", "deep": ' + "[" * n + "]" * n + "}",
        "inside a quoted root": json.dumps('{"query": "x", "deep": ' + "[" * n + "]" * n + "}"),
    }


@pytest.mark.parametrize("case", list(_deep_texts(1)))
def test_very_deep_nesting_is_an_error_not_a_crash(memory: ModuleType, case: str) -> None:
    raw = _deep_texts(100_000)[case]
    request = search(memory, raw)
    half = calls_made(lambda: search(memory, _deep_texts(50_000)[case]))
    assert calls_made(lambda: search(memory, raw)) <= 2.2 * half + 100
    assert request.errors == ("arguments_too_deep",), request.errors[:1]
    assert request.arguments is None
    assert request.raw_arguments == raw


def _nested(levels: int) -> tuple[object, object]:
    """A dict and a list nested `levels` deep."""
    deep: object = 1
    for _ in range(levels):
        deep = {"a": deep}
    listed: object = 1
    for _ in range(levels):
        listed = [listed]
    return deep, listed


def test_very_deep_dict_input(memory: ModuleType) -> None:
    deep, listed = _nested(100_000)
    for raw in (
        {"query": "x", "deep": deep},
        {"query": "x", "deep": listed},
        {"query": "x", "deep": (((),),) * 2},
    ):
        request = search(memory, raw)
        if raw["deep"] is deep or raw["deep"] is listed:
            assert request.errors == ("arguments_too_deep",)
    for half, whole in zip(_nested(50_000), (deep, listed), strict=True):
        smaller = calls_made(lambda half=half: search(memory, {"query": "x", "deep": half}))
        larger = calls_made(lambda whole=whole: search(memory, {"query": "x", "deep": whole}))
        assert larger <= 2.2 * smaller + 100


@pytest.mark.parametrize("depth", range(120, 136))
def test_text_and_dict_input_agree_on_depth(memory: ModuleType, depth: int) -> None:
    """Wherever the depth limit is, a call is too deep as text exactly when it is as a dict."""
    nested: object = 1
    for _ in range(depth - 1):  # the root object counts as one level
        nested = {"a": nested}
    raw = {"query": "x", "deep": nested}
    as_text = search(memory, json.dumps(raw))
    as_dict = search(memory, raw)
    assert as_text.errors == as_dict.errors
    assert as_text.errors in ((), ("arguments_too_deep",))


def test_depth_limit_is_generous_and_enforced(memory: ModuleType) -> None:
    limit = runtime_of(memory).MAX_DEPTH
    assert limit >= 32
    for depth, expected in ((limit, ()), (limit + 1, ("arguments_too_deep",))):
        nested: object = 1
        for _ in range(depth - 1):
            nested = {"a": nested}
        for raw in ({"query": "x", "deep": nested}, json.dumps({"query": "x", "deep": nested})):
            assert search(memory, raw).errors == expected, (depth, type(raw))


def test_short_texts_skip_the_bracket_count_only_where_they_cannot_be_too_deep(
    memory: ModuleType,
) -> None:
    # The shortest text of each depth: one past the limit is never shorter than the shortcut's bound.
    runtime = runtime_of(memory)
    limit = runtime.MAX_DEPTH
    for depth, expected in (
        (limit, ("missing_required:query",)),
        (limit + 1, ("arguments_too_deep",)),
    ):
        raw = '{"":' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
        assert (len(raw) >= runtime._SHALLOW_TEXT) or depth <= limit
        assert search(memory, raw).errors == expected
    unclosed = '{"a":' + "[" * limit  # short, but not JSON: the slow path judges it
    assert search(memory, unclosed).errors == ("truncated_arguments", "missing_required:query")


def test_integer_text_is_what_the_regex_took() -> None:
    # to_int tests digits with str.isdecimal, not with [+-]?\d+: the two agree on every character.
    # Every package carries this very module (tests/test_runtime_modules.py), so once is enough.
    # Each form of every character, both sides mapped in C over a list (5.5 million texts: a loop
    # of asserts took twice as long).
    is_integer_text = _runtime._is_integer_text
    pattern = re.compile(r"[+-]?\d+")
    chars = [chr(code) for code in range(sys.maxunicode + 1)]
    for head, tail in (("", ""), ("+", ""), ("-", ""), ("", "7"), ("1", "")):
        texts = [head + char + tail for char in chars]
        said = list(map(is_integer_text, texts))
        took = list(map(bool, map(pattern.fullmatch, texts)))
        if said != took:
            wrong = [text for text, s, r in zip(texts, said, took, strict=True) if s != r]
            pytest.fail(f"_is_integer_text and the regex disagree on {wrong[:10]!r}")
    for text in ("", "+", "-", "+-1", "--1", "1-", " 1", "1_000", "١٢٣", "-٣"):
        assert is_integer_text(text) == bool(pattern.fullmatch(text)), text


def test_cyclic_dict_input(memory: ModuleType) -> None:
    cyclic: dict[str, object] = {"query": "x"}
    cyclic["self"] = cyclic
    looped: list[object] = []
    looped.append(looped)
    for raw in (cyclic, {"query": "x", "loop": looped}):
        request = search(memory, raw)
        assert request.errors == ("arguments_too_deep",)


def test_shared_subtrees_in_dict_input_do_not_explode(memory: ModuleType) -> None:
    """A dict whose values share subtrees is small in memory but huge as a tree: still no hang.
    In a process of its own, for its memory limit; it imports the package the module built."""
    assert memory.__file__ is not None
    script = f"""
import importlib, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))
sys.path.insert(0, {str(Path(memory.__file__).parent.parent)!r})
package = importlib.import_module({memory.__name__!r})
node = [1]
for _ in range(60):
    node = [node, node]
request = package.parse("memory.search", {{"query": "x", "wide": node}})
print(request.errors, request.warnings)
"""
    try:
        run = subprocess.run(
            [sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=15
        )
    except subprocess.TimeoutExpired:
        pytest.fail(
            "parse did not return within 15 s for a 2**60-leaf tree of shared lists", pytrace=False
        )
    assert run.returncode == 0, run.stderr[-2000:]


def test_a_multi_megabyte_string_value(memory: ModuleType) -> None:
    value = "é" * 3_000_000 + "x" * 3_000_000
    raw = json.dumps({"query": value}, ensure_ascii=False)
    request = search(memory, raw)
    half = json.dumps({"query": value[1_500_000:-1_500_000]}, ensure_ascii=False)
    assert (
        calls_made(lambda: search(memory, raw))
        <= 2.2 * calls_made(lambda: search(memory, half)) + 100
    )
    assert request.ok and request.values["query"] == value
    assert search(memory, raw.encode()).values["query"] == value
    assert search(memory, {"query": value}).values["query"] == value


def test_input_over_the_size_limit_is_an_error(memory: ModuleType) -> None:
    runtime = runtime_of(memory)
    with mock.patch.object(runtime, "MAX_CHARS", 1000):
        request = search(memory, json.dumps({"query": "x" * 2000}))
    assert request.errors == ("arguments_too_large",)
    assert request.arguments is None


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "nan", "inf"])
def test_nan_and_infinity_literals_are_parse_errors(memory: ModuleType, literal: str) -> None:
    for raw in (
        f'{{"query": "x", "limit": {literal}}}',
        f'{{"query": "x", "extra": [{literal}]}}',
        literal,
    ):
        request = search(memory, raw)
        assert len(request.errors) == 1 and request.errors[0].startswith("json_parse_error:"), (
            raw,
            request.errors,
        )


def test_huge_numbers(memory: ModuleType) -> None:
    request = search(memory, '{"query": "x", "limit": 123456789012345678901234567890}')
    assert "out_of_range:limit" in request.errors
    request = search(memory, '{"query": "x", "limit": 1e400}')
    assert request.errors and all(code.endswith(":limit") for code in request.errors)
    request = search(memory, '{"query": "x", "limit": -1e400}')
    assert request.errors
    request = search(memory, '{"query": "x", "limit": ' + "9" * 5000 + "}")
    assert request.errors
    # Issue 32 item 8: a number no float holds is an infinity, which JSON cannot carry: refused
    # at its path, wherever it is (it used to reach `values`, and so a handler, as inf).
    request = search(memory, '{"query": "x", "extra": 1e400}')
    assert request.errors == ("value_not_json:extra",)
    assert request.values == {"query": "x", "limit": 3}  # the rest is read, without it
    request = search(memory, '{"query": "x", "limit": 1e400}')
    assert request.errors == ("value_not_json:limit",)


@pytest.mark.parametrize(
    "value", [10**5000, -(10**5000), 10**400, 2**64], ids=["1e5000", "-1e5000", "1e400", "2**64"]
)
def test_huge_integers_in_dict_input(memory: ModuleType, value: int) -> None:
    """Python ints in a dict have no size limit, and 10**5000 has no str() by default."""
    search(memory, {"query": "x", "limit": value})
    search(memory, {"query": value})  # a string parameter given a number
    request = memory.parse("read_file", {"filePath": "f", "encoding": value})  # an enum
    check_request(request, "read_file")
    request = memory.parse(
        "update_config", {"settings": {"timeout": 1, "retryPolicy": {"backoff": value}}}
    )
    check_request(request, "update_config")
    request = memory.parse(UNKNOWN_TOOL, {"a": value})
    check_request(request, UNKNOWN_TOOL)


def test_lone_surrogates(memory: ModuleType) -> None:
    # Issue 32: each is replaced by U+FFFD, with a warning (tests/test_outbound_encoding.py).
    request = search(memory, '{"query": "\\ud800"}')
    assert request.ok and request.values["query"] == "\ufffd"
    assert request.warnings == ("lone_surrogate_replaced:query",)
    request = search(memory, '{"query": "a\ud800b", "\udfff": 1}')
    assert request.values == {"query": "a\ufffdb", "\ufffd": 1, "limit": 3}
    assert request.warnings == (
        "lone_surrogate_replaced:query",
        "lone_surrogate_replaced:\ufffd",
        "unknown_parameter:\ufffd",
    )
    request = search(memory, {"query": "\udc80"})
    assert request.ok and request.values["query"] == "\ufffd"
    request = search(
        memory, b'{"query": "\xed\xa0\x80"}'
    )  # a surrogate encoded in UTF-8 is invalid UTF-8
    assert request.errors and request.errors[0].startswith("json_parse_error:")


class Odd:
    def __repr__(self) -> str:
        return "Odd()"


@pytest.mark.parametrize(
    "value",
    [
        ("a",),
        {"a"},
        frozenset(),
        b"x",
        bytearray(b"x"),
        Odd(),
        object(),
        float("nan"),
        float("inf"),
        -0.0,
        1j,
        range(3),
        Ellipsis,
        type,
        len,
        [1, (2, {3})],
        {"k": Odd()},
        {1: 2},
    ],
    ids=lambda value: (
        "object()" if type(value) is object else repr(value)
    ),  # the same in every worker
)
def test_odd_values_in_dict_input(memory: ModuleType, value: object) -> None:
    for tool, raw in (
        ("memory.search", {"query": value}),
        ("memory.search", {"query": "x", "limit": value}),
        ("memory.search", {"query": "x", "extra": value}),
        ("search_files", {"pattern": "*", "caseSensitive": value, "maxResults": value}),
        ("read_file", {"filePath": "f", "startLine": value, "encoding": value}),
        ("update_config", {"settings": value}),
        ("update_config", {"settings": {"timeout": value, "mode": value, "retryPolicy": value}}),
        (UNKNOWN_TOOL, {"a": value}),
    ):
        check_request(memory.parse(tool, raw), tool)


def test_non_string_keys_in_dict_input(memory: ModuleType) -> None:
    """Issue 32 item 8: a key JSON writes (a number, a boolean, null) becomes its JSON text with a
    warning; one it cannot write (a tuple, an object) refuses the call, never its repr as a key."""
    raw = {"query": "x", 1: "a", None: "b", 2.5: "d", False: "e"}
    request = search(memory, raw)
    assert request.errors == () and request.arguments is not None
    assert request.warnings == (
        "key_converted_to_text:1",
        "key_converted_to_text:null",
        "key_converted_to_text:2.5",
        "key_converted_to_text:false",
        "unknown_parameter:1",
        "unknown_parameter:null",
        "unknown_parameter:2.5",
        "unknown_parameter:false",
    )
    assert request.values == {
        "query": "x",
        "1": "a",
        "null": "b",
        "2.5": "d",
        "false": "e",
        "limit": 3,
    }
    request = search(memory, {"query": "x", ("t",): "c", Odd(): "f"})
    assert request.errors == ("key_not_json", "key_not_json")
    assert request.values == {"query": "x", "limit": 3}
    request = memory.parse("update_config", {"settings": {"timeout": 1, 7: "x"}})
    check_request(request, "update_config")
    assert request.warnings == ("key_converted_to_text:settings.7", "unknown_parameter:settings.7")
    request = memory.parse(UNKNOWN_TOOL, {1: "true", None: {2: "null"}})
    check_request(request, UNKNOWN_TOOL)
    assert request.values == {"1": True, "null": {"2": None}}


# ---------------------------------------------------------------------------------------------
# Property tests: never raise


def tools_of(package: ModuleType) -> list[str]:
    return [*package.TOOLS, UNKNOWN_TOOL]


def wire_names(schema: object) -> Iterator[str]:
    """Every property name in a schema, at any depth."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            yield from wire_names(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from wire_names(value)


@functools.cache
def names_of(package: ModuleType) -> list[str]:
    found = {name for spec in package.TOOLS.values() for name in wire_names(spec.schema)}
    return sorted(found)


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)


def json_values(keys: st.SearchStrategy[str]) -> st.SearchStrategy[object]:
    return st.recursive(
        json_scalars,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4)
        ),
        max_leaves=12,
    )


# Each strategy below is made once (per package where it reads the package's names), not at each
# draw: making and validating a strategy anew at each draw (an alphabet's character set, a recursive
# strategy, the source of each lambda a strategy maps with) cost more than drawing from it, for the
# same examples.


@functools.cache
def tools(package: ModuleType) -> st.SearchStrategy[str]:
    return st.sampled_from(tools_of(package))


@functools.cache
def calls(package: ModuleType) -> st.SearchStrategy[tuple[str, dict[object, object]]]:
    """A tool and an arguments dict that mostly uses the catalog's own names."""
    keys = st.sampled_from(names_of(package)) | st.text(max_size=6)
    return st.tuples(tools(package), st.dictionaries(keys, json_values(keys), max_size=6))


@functools.cache
def any_texts(package: ModuleType) -> st.SearchStrategy[str]:
    """Any text, text of JSON's own characters, or an object of the catalog's names."""
    return (
        st.text()
        | st.text(alphabet="{}[]\":,0123456789.eE+-truefalsn \\'\n`/*\u00a0\x0b", max_size=60)
        | st.lists(st.sampled_from(names_of(package)), max_size=3).map(
            lambda names: "{" + ", ".join(f'"{n}": "1"' for n in names) + "}"
        )
    )


@pytest.mark.parametrize("name", PACKAGES)
@PROPERTY
@given(data=st.data())
def test_parse_never_raises_on_any_text(
    packages: Callable[[str], ModuleType], name: str, data: st.DataObject
) -> None:
    package = packages(name)
    tool = data.draw(tools(package))
    raw = data.draw(any_texts(package))
    request = package.parse(tool, raw, "c")
    check_request(request, tool, "c")
    assert request.raw_arguments == raw
    if tool != UNKNOWN_TOOL and not request.warnings and not request.errors:
        assert_strict_json_object(raw)


def assert_strict_json_object(raw: str) -> None:
    """A text parsed without a warning was a JSON object already: no repair is ever silent."""
    stripped = raw.strip().lstrip("\ufeff")
    if stripped:
        value = json.loads(stripped, parse_constant=lambda name: pytest.fail(f"{name} accepted"))
        assert type(value) is dict, raw


@pytest.mark.parametrize("space", ["\u00a0", "\x0b", "\x0c", "\x1c", "\u2028", "\u3000"], ids=repr)
def test_whitespace_that_json_does_not_allow_is_never_repaired_silently(
    memory: ModuleType, space: str
) -> None:
    """JSON whitespace is space, tab, newline and carriage return; anything else is a repair, with a warning."""
    raw = '{"query":' + space + '"x"}'
    request = search(memory, raw)
    assert request.warnings or request.errors, f"{raw!r} parsed without a warning"


# Three properties over one drawn call (a tool and an arguments dict): the dict itself, JSON text
# of it or of any value, and bytes. Drawing the call is nearly all of an example's time (parsing
# is 2% of it), so one draw serves the three: each still sees 120 calls per catalog (the same
# calls for the three), in 37% of the time three draws took.


@pytest.mark.parametrize("name", PACKAGES)
@PROPERTY
@given(data=st.data())
def test_parse_never_raises_on_any_dict_its_json_text_or_bytes(
    packages: Callable[[str], ModuleType], name: str, data: st.DataObject
) -> None:
    package = packages(name)
    tool, arguments = data.draw(calls(package))
    # Each property on a copy of its own: one that changed the arguments would not pass them on.
    never_raises_on_the_dict(package, tool, copy.deepcopy(arguments))
    never_raises_on_json_text(package, tool, copy.deepcopy(arguments), data)
    never_raises_on_bytes(package, tool, copy.deepcopy(arguments), data)


def never_raises_on_the_dict(
    package: ModuleType, tool: str, arguments: dict[object, object]
) -> None:
    request = package.parse(tool, arguments)
    check_request(request, tool)
    assert json.loads(request.raw_arguments) == arguments
    assert not any(
        code.startswith(("json_parse_error", "arguments_not_object")) for code in request.errors
    )


TEXT_FORMS = st.sampled_from(["object", "any", "quoted"])
ANY_JSON = json_values(st.text(max_size=4))
BYTES_FORMS = (
    st.binary()
    | st.none()  # the arguments' JSON as bytes, made from the arguments drawn
    | st.text().map(lambda s: s.encode("utf-8", "surrogatepass"))
)


def never_raises_on_json_text(
    package: ModuleType, tool: str, arguments: dict[object, object], data: st.DataObject
) -> None:
    """The arguments as JSON text, any JSON value as text, or the arguments' text quoted."""
    value = data.draw(TEXT_FORMS)
    payload: object = (
        arguments
        if value == "object"
        else (data.draw(ANY_JSON) if value == "any" else json.dumps(arguments))
    )
    raw = json.dumps(payload, ensure_ascii=data.draw(st.booleans()))
    request = package.parse(tool, raw)
    check_request(request, tool)
    assert request.raw_arguments == raw
    if value == "object" and tool != UNKNOWN_TOOL:
        assert not any(
            code.startswith(("json_parse_error", "arguments_not_object")) for code in request.errors
        )


def never_raises_on_bytes(
    package: ModuleType, tool: str, arguments: dict[object, object], data: st.DataObject
) -> None:
    """Any bytes, the arguments' JSON as bytes, or any text encoded (lone surrogates too)."""
    drawn = data.draw(BYTES_FORMS)
    raw = json.dumps(arguments).encode() if drawn is None else drawn
    request = package.parse(tool, raw)
    check_request(request, tool)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        assert request.errors and request.errors[0].startswith("json_parse_error:")
    else:
        assert request.raw_arguments == text


# ---------------------------------------------------------------------------------------------
# Differential: msgspec and the standard decoder give identical results, and so do the shortcut
# for the text of one plain object and the whole-input rules it skips

EDGE_NUMBERS = [
    "0",
    "-0",
    "-0.0",
    "0.0",
    "-0e0",
    "1",
    "3.0",
    "2.5",
    "1e2",
    "1E5",
    "1e-7",
    "5e-324",
    "1e-400",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "1e400",
    "-1e400",
    "1E400",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1" * 400,
    "1" * 5000,
    "0.1000000000000000055511151231257827",
]
EDGE_STRINGS = [
    r'"\ud800"',
    r'"\udc00x"',
    r'"\ud83d\ude00"',
    r'"\u0000"',
    r'"\"\\\/\b\f\n\r\t"',
    r'"\u00e9"',
    '"é"',
    '"true"',
    '"null"',
    '"42"',
    '" 7 "',
    '"2.5"',
    r'"{\"a\": 1}"',
    '"[1, 2]"',
    '"2024-01-02T03:04:05Z"',
    '"\u2028"',
]


def _number_texts() -> st.SearchStrategy[str]:
    return (
        st.sampled_from(EDGE_NUMBERS)
        | st.integers().map(str)
        | st.integers(min_value=-(10**40), max_value=10**40).map(str)
        | st.floats(allow_nan=False, allow_infinity=False).map(json.dumps)
    )


def _string_texts(words: list[str]) -> st.SearchStrategy[str]:
    return (
        st.sampled_from(EDGE_STRINGS)
        | st.text(max_size=8).map(json.dumps)
        | st.text(max_size=8).map(lambda s: json.dumps(s, ensure_ascii=False))
        | st.sampled_from(words).map(json.dumps)
    )


@functools.cache
def texts_of(package: ModuleType) -> st.SearchStrategy[str]:
    """`json_texts` of a package's names, made once per package."""
    return json_texts(names_of(package))


def json_texts(words: list[str]) -> st.SearchStrategy[str]:
    keys = (
        st.sampled_from(words).map(json.dumps)
        | st.sampled_from(EDGE_STRINGS)
        | st.text(max_size=4).map(json.dumps)
    )
    scalars = _number_texts() | _string_texts(words) | st.sampled_from(["true", "false", "null"])

    def containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        arrays = st.lists(children, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
        # Pairs, not a dict: duplicate keys stay in the text.
        objects = st.lists(st.tuples(keys, children), max_size=5).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
        )
        return arrays | objects

    values = st.recursive(scalars, containers, max_leaves=10)

    depths = st.integers(min_value=118, max_value=140)
    openers = st.sampled_from(['{"a": ', "[", '{"a": ['])

    @st.composite
    def deep(draw: st.DrawFn) -> str:
        depth = draw(depths)
        opener = draw(openers)
        closer = {'{"a": ': "}", "[": "]", '{"a": [': "]}"}[opener]
        inner = draw(scalars)
        return opener * depth + inner + closer * depth

    field_values = values | deep()
    roots = st.lists(st.tuples(keys, field_values), max_size=6).map(
        lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    )
    return st.one_of(
        roots,
        roots.map(json.dumps),  # quoted once
        roots.map(
            lambda text: text[:-1] + ",}" if len(text) > 2 else text
        ),  # through the repair path
        values,
    )


@pytest.mark.parametrize("name", PACKAGES)
@PROPERTY
@given(data=st.data())
def test_msgspec_and_json_give_identical_results(
    packages: Callable[[str], ModuleType], name: str, data: st.DataObject
) -> None:
    package = packages(name)
    tool = data.draw(tools(package))
    raw = data.draw(texts_of(package))
    fast = package.parse(tool, raw)
    with standard_decoding(runtime_of(package)):
        slow = package.parse(tool, raw)
    check_request(fast, tool)
    check_request(slow, tool)
    _assert_same(fast, slow)
    # Bytes always take every whole-input rule, where a str of one plain object skips them.
    with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate has no UTF-8
        _assert_same(fast, package.parse(tool, raw.encode("utf-8")))


def _assert_same(one: Any, other: Any) -> None:
    # repr tells 1 from 1.0 and True, and -0.0 from 0.0.
    assert repr(one.values) == repr(other.values)
    assert one.warnings == other.warnings
    assert one.errors == other.errors
    assert repr(one.arguments) == repr(other.arguments)
    assert one.raw_arguments == other.raw_arguments


@pytest.mark.parametrize(
    "raw",
    [
        '{"query": "x", "limit": 18446744073709551616}',
        '{"query": "x", "limit": 123456789012345678901234567890}',
        '{"query": "x", "extra": 9223372036854775808}',
        '{"query": "x", "extra": -9223372036854775809}',
        '{"query": "x", "extra": ' + "1" * 400 + "}",
        '{"query": "x", "extra": 1e400}',
        '{"query": "\\ud800"}',
        '{"query": "x", "query": "y"}',
        '{"query": "x", "extra": -0}',
        '{"query": "x", "extra": -0.0}',
    ],
)
def test_msgspec_and_json_agree_on_edge_cases(memory: ModuleType, raw: str) -> None:
    fast = search(memory, raw)
    with standard_decoding(runtime_of(memory)):
        slow = search(memory, raw)
    assert (repr(fast.values), fast.warnings, fast.errors) == (
        repr(slow.values),
        slow.warnings,
        slow.errors,
    )


class _Treacherous(str):
    """A str whose own methods raise: only a dict input can carry one."""

    def strip(self, chars: str | None = None) -> str:
        raise RuntimeError("no")


def test_a_str_subclass_is_read_as_its_text_and_none_of_its_methods_runs(
    memory: ModuleType,
) -> None:
    """Issue 32 item 8: a value reaches the parser as JSON would carry it, so a str subclass is
    its plain text (objects whose methods raise are tests/test_hostile_inputs.py's)."""
    request = memory.parse("memory.search", {"query": "x", "limit": _Treacherous("3")})
    assert request.ok and request.values == {"query": "x", "limit": 3}
    assert request.warnings == ("string_literal_converted_to_integer:limit",)


def test_a_cut_call_of_an_unknown_tool_keeps_its_error(memory: ModuleType) -> None:
    request = memory.parse(UNKNOWN_TOOL, '{"a": 1, "b": "x')
    assert request.errors == ("truncated_arguments",)
    assert request.warnings == ("tool_definition_missing",)
    assert request.values == {"a": 1} and not request.ok

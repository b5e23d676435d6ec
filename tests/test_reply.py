"""Model text in every shape (SPEC §3): `parse_reply` of a generated package reads each shape
models write, each recognition and repair with its code, and refuses what it cannot read with a
line and a reason. Values AND codes in every row.

Sections: each shape · each repair · names and keys · what is refused · several calls on one
JSONL line · the same values as the plain parse, in every shape (property) · never raises (fuzz).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = {"limit": 3}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("reply"))


def calls(batch: Any) -> list[tuple[str, str, dict[str, object], tuple[str, ...], tuple[str, ...]]]:
    return [(c.tool_name, c.tool_call_id, c.values, c.warnings, c.errors) for c in batch]


def one(batch: Any) -> tuple[dict[str, object], tuple[str, ...], tuple[str, ...]]:
    assert batch.problems == (), batch.problems
    (call,) = batch
    assert call.tool_name == "memory.search"
    return call.values, call.warnings, call.errors


# ---------------------------------------------------------------------------------------------
# Each shape: the reply, the values, the warnings

X = {"query": "x", "limit": 3}
SHAPES = {
    "prompt-form": ('{"name": "memory.search", "parameters": {"query": "x"}}', X, ()),
    "flat": (
        '{"function_name": "memory.search", "query": "x"}',
        X,
        ("name_envelope:function_name", "flat_call_object"),
    ),
    "flat-name": ('{"name": "memory.search", "query": "x"}', X, ("flat_call_object",)),
    "arguments": (
        '{"name": "memory.search", "arguments": {"query": "x"}}',
        X,
        ("arguments_envelope:arguments",),
    ),
    "arguments-as-string": (
        '{"name": "memory.search", "arguments": "{\\"query\\": \\"x\\"}"}',
        X,
        ("arguments_envelope:arguments",),
    ),
    "tool-and-input": (
        '{"tool": "memory.search", "input": {"query": "x"}}',
        X,
        ("name_envelope:tool", "arguments_envelope:input"),
    ),
    "tool_name-and-args": (
        '{"tool_name": "memory.search", "args": {"query": "x"}}',
        X,
        ("name_envelope:tool_name", "arguments_envelope:args"),
    ),
    "openai-tool-call": (
        '{"id": "c", "type": "function", "function": {"name": "memory.search", "arguments": "{\\"query\\": \\"x\\"}"}}',
        X,
        ("call_envelope:function", "arguments_envelope:arguments"),
    ),
    "function_call": (
        '{"function_call": {"name": "memory.search", "arguments": {"query": "x"}}}',
        X,
        ("call_envelope:function_call", "arguments_envelope:arguments"),
    ),
    "in-prose": (
        'I will search now: {"name": "memory.search", "parameters": {"query": "x"}} Done.',
        X,
        ("json_extracted_from_text",),
    ),
    "fenced": (
        '```json\n{"name": "memory.search", "parameters": {"query": "x"}}\n```',
        X,
        (),
    ),
    "pythonic": ('memory.search(query="x")', X, ("pythonic_call",)),
    "pythonic-list": (
        '[memory.search(query="x", limit=2)]',
        {"query": "x", "limit": 2},
        ("pythonic_call",),
    ),
    "hermes": (
        '<tool_call>\n{"name": "memory.search", "arguments": {"query": "x"}}\n</tool_call>',
        X,
        ("native_format:hermes", "arguments_envelope:arguments"),
    ),
    "hermes-unclosed": (
        '<tool_call>\n{"name": "memory.search", "arguments": {"query": "x"}}',
        X,
        ("native_format:hermes", "arguments_envelope:arguments"),
    ),
    "qwen3-coder": (
        (
            "<tool_call>\n<function=memory.search>\n<parameter=query>\nx\n</parameter>\n"
            "<parameter=limit>\n4\n</parameter>\n</function>\n</tool_call>"
        ),
        {"query": "x", "limit": 4},
        ("native_format:qwen3_coder",),
    ),
    "mistral": (
        '[TOOL_CALLS][{"name": "memory.search", "arguments": {"query": "x"}}]',
        X,
        ("native_format:mistral", "arguments_envelope:arguments"),
    ),
    "mistral-args": (
        '[TOOL_CALLS]memory.search[ARGS]{"query": "x"}',
        X,
        ("native_format:mistral",),
    ),
    "llama-python-tag": (
        '<|python_tag|>{"name": "memory.search", "parameters": {"query": "x"}}<|eom_id|>',
        X,
        ("native_format:llama",),
    ),
    "deepseek-v3": (
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>memory.search\n"
            '```json\n{"query": "x"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
        ),
        X,
        ("native_format:deepseek",),
    ),
    "deepseek-v3.1": (
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>memory.search<｜tool▁sep｜>"
            '{"query": "x"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
        ),
        X,
        ("native_format:deepseek",),
    ),
    "harmony": (
        (
            "<|start|>assistant<|channel|>commentary to=functions.memory.search "
            '<|constrain|>json<|message|>{"query": "x"}<|call|>'
        ),
        X,
        ("native_format:harmony",),
    ),
    "think-then-call": (
        '<think>maybe {"name": "read_file"}?</think>\n{"name": "memory.search", "parameters": {"query": "x"}}',
        X,
        ("think_block_removed",),
    ),
    "think-closed-only": (
        'the user wants x</think>\n\n{"name": "memory.search", "parameters": {"query": "x"}}',
        X,
        ("think_block_removed",),
    ),
}


@pytest.mark.parametrize(("reply", "values", "warnings"), list(SHAPES.values()), ids=list(SHAPES))
def test_each_shape_gives_the_call_with_its_codes(
    pkg: ModuleType, reply: str, values: dict[str, object], warnings: tuple[str, ...]
) -> None:
    assert one(pkg.parse_reply(reply)) == (values, warnings, ())


def test_openai_tool_call_keeps_its_id(pkg: ModuleType) -> None:
    reply = '{"id": "call_9", "type": "function", "function": {"name": "memory.search", "arguments": "{}"}}'
    (call,) = pkg.parse_reply(reply)
    assert call.tool_call_id == "call_9" and call.errors == ("missing_required:query",)


def test_several_calls_in_each_multi_shape(pkg: ModuleType) -> None:
    two = {"query": "a", "limit": 3}, {"query": "b", "limit": 3}
    replies = [
        '{"name": "memory.search", "parameters": {"query": "a"}} {"name": "memory.search", "parameters": {"query": "b"}}',
        '{"name": "memory.search", "parameters": {"query": "a"}}{"name": "memory.search", "parameters": {"query": "b"}}',
        '[memory.search(query="a"), memory.search(query="b")]',
        (
            '<tool_call>{"name": "memory.search", "arguments": {"query": "a"}}</tool_call>\n'
            '<tool_call>{"name": "memory.search", "arguments": {"query": "b"}}</tool_call>'
        ),
        '[TOOL_CALLS]memory.search[ARGS]{"query": "a"}[TOOL_CALLS]memory.search[ARGS]{"query": "b"}',
        '<|python_tag|>{"name": "memory.search", "parameters": {"query": "a"}}; {"name": "memory.search", "parameters": {"query": "b"}}',
    ]
    for reply in replies:
        batch = pkg.parse_reply(reply)
        assert batch.problems == (), reply
        assert tuple(c.values for c in batch) == two, reply
        assert [c.tool_call_id for c in batch] == ["call_0", "call_1"], reply


def test_mistral_call_id_is_kept(pkg: ModuleType) -> None:
    (call,) = pkg.parse_reply('[TOOL_CALLS]memory.search[CALL_ID]abc123XYZ[ARGS]{"query": "x"}')
    assert call.tool_call_id == "abc123XYZ" and call.values == X


def test_qwen3_coder_values_follow_the_declared_types(pkg: ModuleType) -> None:
    # A string parameter keeps its text even when it looks like JSON; others are decoded.
    reply = "<function=memory.search><parameter=query>42</parameter><parameter=limit>7</parameter></function>"
    (call,) = pkg.parse_reply(reply)
    assert call.values == {"query": "42", "limit": 7}
    assert call.warnings == ("native_format:qwen3_coder",)


def test_lines_of_calls_in_a_reply_are_its_own(pkg: ModuleType) -> None:
    reply = 'First:\n\n{"name": "memory.search", "parameters": {"query": "a"}} and\n{"name": "nope"'
    batch = pkg.parse_reply(reply)
    assert [c.values for c in batch] == [{"query": "a", "limit": 3}]
    assert [(p.line, p.reason) for p in batch.problems] == [(4, "truncated_reply")]


# ---------------------------------------------------------------------------------------------
# Each repair, in a reply and in a tool's own parser


REPAIRS = {
    "unquoted_key_quoted": ('{query: "x"}', X),
    "single_quotes_converted": ("{'query': 'x'}", X),
    "python_literal_converted": ('{"query": "x", "limit": None}', X),
    "trailing_comma_removed": ('{"query": "x", "limit": 4,}', {"query": "x", "limit": 4}),
    "comment_removed": ('{"query": "x" /* why */}', X),
    "control_character_escaped": ('{"query": "a\tb\nc"}', {"query": "a\tb\nc", "limit": 3}),
    "missing_comma_inserted": ('{"query": "x" "limit": 4}', {"query": "x", "limit": 4}),
    "smart_quote_replaced": ("{\u201cquery\u201d: \u201cx\u201d}", X),
}


@pytest.mark.parametrize(("raw", "values"), list(REPAIRS.values()), ids=list(REPAIRS))
def test_each_repair_in_the_tools_own_parser(
    pkg: ModuleType, raw: str, values: dict[str, object], request: pytest.FixtureRequest
) -> None:
    code = request.node.callspec.id
    result = pkg.parse_memory_search(raw)
    extra = ("null_treated_as_absent:limit",) if code == "python_literal_converted" else ()
    assert (result.values, result.warnings, result.errors) == (values, (code, *extra), ())


@pytest.mark.parametrize(("raw", "values"), list(REPAIRS.values()), ids=list(REPAIRS))
def test_each_repair_in_a_reply(
    pkg: ModuleType, raw: str, values: dict[str, object], request: pytest.FixtureRequest
) -> None:
    code = request.node.callspec.id
    reply = "{name: 'memory.search', parameters: " + raw + "}"
    codes = {"unquoted_key_quoted", "single_quotes_converted", code}
    batch = pkg.parse_reply(reply)
    (call,) = batch
    assert call.values == values
    expected = tuple(c for c in pkg._repair.CODES if c in codes)
    assert call.warnings[: len(expected)] == expected


def test_repairs_compose_in_the_fixed_order(pkg: ModuleType) -> None:
    raw = "{query: \u201cx\u201d, 'limit': 4 // four\n,}"
    result = pkg.parse_memory_search(raw)
    assert result.values == {"query": "x", "limit": 4}
    assert result.warnings == (
        "smart_quote_replaced",
        "single_quotes_converted",
        "unquoted_key_quoted",
        "comment_removed",
        "trailing_comma_removed",
    )


def test_many_faults_past_the_fast_path_give_the_same_result(pkg: ModuleType) -> None:
    # More faults than the decoder-guided pass mends: the linear scan gives the same repair.
    members = ", ".join(f'"k{i}": [{i},]' for i in range(20))
    few = pkg._repair.repair_json("{" + members.replace(",]", "]", 12) + "}")
    many = pkg._repair.repair_json("{" + members + "}")
    assert few is not None and many is not None
    assert few.value == many.value and few.warnings == many.warnings == ("trailing_comma_removed",)


# ---------------------------------------------------------------------------------------------
# Names and keys


def test_tool_names_match_with_case_and_punctuation_aside(pkg: ModuleType) -> None:
    for sent in ("Memory-Search", "MEMORY SEARCH", "memorySearch"):
        (call,) = pkg.parse_reply(json.dumps({"name": sent, "parameters": {"query": "x"}}))
        assert (call.tool_name, call.values) == ("memory.search", X)
        assert call.warnings == (f"tool_name_normalized:{sent}",)


def test_an_alias_is_the_tool_without_a_warning(pkg: ModuleType) -> None:
    (call,) = pkg.parse_reply('{"name": "memory_search", "parameters": {"query": "x"}}')
    assert (call.tool_name, call.values, call.warnings) == ("memory.search", X, ())


def test_an_ambiguous_name_is_not_guessed(catalog_from_yaml: Any) -> None:
    pkg = catalog_from_yaml(
        """
        name: twins
        version: "1"
        tools:
          - name: get.file
            description: One.
            parameters: {type: object, properties: {path: {type: string}}}
          - name: get-file
            description: Two.
            parameters: {type: object, properties: {path: {type: string}}}
        """
    )
    (call,) = pkg.parse_reply('{"name": "GetFile", "parameters": {"path": "a"}}')
    assert call.tool_name == "GetFile" and call.arguments is None
    assert call.errors == ("ambiguous_tool_name:get-file|get.file",)


def test_keys_in_the_wrong_case_are_the_tools_parameters(pkg: ModuleType) -> None:
    (call,) = pkg.parse_reply('{"name": "memory.search", "parameters": {"Query": "x", "LIMIT": 2}}')
    assert call.values == {"query": "x", "limit": 2}
    assert call.warnings == ("key_case_normalized:query", "key_case_normalized:limit")
    # A key the tool has exactly is never renamed, and one matching nothing stays unknown.
    (call,) = pkg.parse_reply(
        '{"name": "memory.search", "parameters": {"query": "x", "Query": "y", "other": 1}}'
    )
    assert call.values["query"] == "x"
    assert "unknown_parameter:Query" in call.warnings and "unknown_parameter:other" in call.warnings


# ---------------------------------------------------------------------------------------------
# What is refused: a problem with a line and a reason, never a guess


def problems(batch: Any) -> list[tuple[int, str]]:
    return [(p.line, p.reason) for p in batch.problems]


def test_pythonic_values_are_literals_only_and_nothing_runs(pkg: ModuleType) -> None:
    batch = pkg.parse_reply("[memory.search(query=__import__('os').system('echo pwned'))]")
    assert batch.calls == () and problems(batch) == [(1, "not_a_literal")]
    batch = pkg.parse_reply('memory.search("x")')
    assert batch.calls == () and problems(batch) == [(1, "positional_arguments")]
    batch = pkg.parse_reply('[memory.search(query="x"), (lambda: 1)()]')
    assert [c.values for c in batch] == [X] and problems(batch) == [(1, "invalid_call")]


def test_unreadable_replies_are_problems(pkg: ModuleType) -> None:
    assert problems(pkg.parse_reply("no calls here")) == [(1, "invalid_json")]
    assert problems(pkg.parse_reply("\n\n")) == [(1, "no_calls")]
    assert problems(pkg.parse_reply('line\n{"name": "memory.search", "parameters": {"qu')) == [
        (2, "truncated_reply")
    ]
    assert problems(pkg.parse_reply("[TOOL_CALLS]memory.search[ARGS]not json")) == [
        (1, "invalid_json")
    ]
    assert problems(pkg.parse_reply('{"parameters": {"query": "x"}}')) == [(1, "missing_name")]


# ---------------------------------------------------------------------------------------------
# Several calls on one JSONL line (issue 17, item 7)


def test_a_jsonl_line_with_several_calls_yields_each(pkg: ModuleType) -> None:
    a = '{"name": "memory.search", "parameters": {"query": "a"}}'
    b = '{"name": "memory.search", "parameters": {"query": "b"}}'
    for line in (f"{a} {b}", f"{a}{b}", f"{a}\r{b}"):
        batch = pkg.parse_jsonl(f"{a}\n{line}")
        assert [c.values["query"] for c in batch] == ["a", "a", "b"], line
        assert [c.tool_call_id for c in batch] == ["call_0", "call_1", "call_2"], line
        assert [c.warnings for c in batch] == [(), (), ()] and batch.problems == ()
    # One of them unreadable: the other still runs, and the line has its problem.
    batch = pkg.parse_jsonl(f"{a} {{bad bad}}")
    assert [c.values["query"] for c in batch] == ["a"]
    assert problems(batch) == [(1, "invalid_json")]


# ---------------------------------------------------------------------------------------------
# A valid call in any shape gives exactly the values of the plain parse

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
ARGS = st.fixed_dictionaries({"query": TEXT}, optional={"limit": st.integers(-5, 60)})


def _in_shape(shape: str, args: dict[str, object]) -> str:
    j = json.dumps(args, ensure_ascii=False)
    return {
        "prompt": json.dumps({"name": "memory.search", "parameters": args}),
        "jsonl": json.dumps({"name": "memory.search", "parameters": args}) + "\n",
        "array": json.dumps([{"name": "memory.search", "parameters": args}]),
        "openai": json.dumps(
            {"type": "function", "function": {"name": "memory.search", "arguments": j}}
        ),
        "flat": json.dumps({"function_name": "memory.search", **args}),
        "prose": "Calling it: " + json.dumps({"name": "memory.search", "arguments": args}) + " ok",
        "hermes": f'<tool_call>{{"name": "memory.search", "arguments": {j}}}</tool_call>',
        "mistral": f"[TOOL_CALLS]memory.search[ARGS]{j}",
        "llama": f'<|python_tag|>{{"name": "memory.search", "parameters": {j}}}',
        "deepseek": f"<｜tool▁call▁begin｜>memory.search<｜tool▁sep｜>{j}<｜tool▁call▁end｜>",
        "harmony": f"to=functions.memory.search<|channel|>commentary json<|message|>{j}<|call|>",
        "pythonic": "[memory.search(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")]",
        "think": f"<think>{{}}</think>{json.dumps({'name': 'memory.search', 'parameters': args})}",
    }[shape]


SHAPE_NAMES = ["prompt", "jsonl", "array", "openai", "flat", "prose", "hermes", "mistral"]
SHAPE_NAMES += ["llama", "deepseek", "harmony", "pythonic", "think"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(args=ARGS, shape=st.sampled_from(SHAPE_NAMES))
def test_a_valid_call_in_any_shape_has_the_plain_parse_values(
    pkg: ModuleType, args: dict[str, object], shape: str
) -> None:
    plain = pkg.parse_memory_search(json.dumps(args))
    batch = pkg.parse_reply(_in_shape(shape, args))
    assert batch.problems == ()
    (call,) = batch
    assert call.values == plain.values and call.errors == plain.errors


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.sampled_from(
            list("{}[]():,\"'`\n\t\\ =;.")
            + [
                "<tool_call>",
                "</tool_call>",
                "[TOOL_CALLS]",
                "[ARGS]",
                "<|python_tag|>",
                "<function=f>",
                "<parameter=p>",
                "</function>",
                "to=functions.f",
                "<|message|>",
                "<|call|>",
                "<think>",
                "</think>",
                "<｜tool▁call▁begin｜>",
                "<｜tool▁sep｜>",
                "name",
                "memory.search",
                "query",
                "True",
                "1e5",
                "-",
                "“",
                "’",
                "//",
                "/*",
                "\x00",
            ]
        ),
        max_size=40,
    ).map("".join)
)
def test_parse_reply_never_raises(pkg: ModuleType, reply: str) -> None:
    batch = pkg.parse_reply(reply)
    for call in batch:
        assert isinstance(call.warnings, tuple) and isinstance(call.errors, tuple)
    for problem in batch.problems:
        assert problem.line >= 1 and problem.reason


# ---------------------------------------------------------------------------------------------
# The fast paths of repair give exactly what the plain scan gives

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


def _with_faults(value: object, faults: list[int], counter: list[int]) -> str:
    """JSON text of `value` where the containers whose number is in `faults` get a trailing comma
    (before their end) or lose the comma after their first member."""
    counter[0] += 1
    number = counter[0]
    if isinstance(value, dict):
        members = [f"{json.dumps(k)}: {_with_faults(v, faults, counter)}" for k, v in value.items()]
        open_, close = "{", "}"
    elif isinstance(value, list):
        members = [_with_faults(v, faults, counter) for v in value]
        open_, close = "[", "]"
    else:
        return json.dumps(value)
    if number in faults and members:
        return open_ + ", ".join(members) + "," + close
    if -number in faults and len(members) > 1:
        return open_ + members[0] + " " + ", ".join(members[1:]) + close
    return open_ + ", ".join(members) + close


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    value=st.dictionaries(st.text(max_size=4), JSON_VALUES, min_size=1, max_size=5),
    faults=st.lists(st.integers(-30, 30), max_size=12),
)
def test_repair_fast_paths_equal_the_plain_scan(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch, value: dict[str, object], faults: list[int]
) -> None:
    text = _with_faults(value, faults, [0])
    fast = pkg._repair.repair_json(text)
    with monkeypatch.context() as patch:
        patch.setattr(pkg._repair, "_QUICK_FIXES", 0)
        patch.setattr(pkg._repair, "_WHOLE_VALUE_DEPTH", 0)
        plain = pkg._repair.repair_json(text)
    assert fast is not None and plain is not None
    assert canon(fast.value) == canon(plain.value) == canon(value)
    assert fast.warnings == plain.warnings and fast.truncated == plain.truncated is False


def canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)

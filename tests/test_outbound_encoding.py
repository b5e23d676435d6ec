"""Issue 32, items 5, 6 and 7, and "What to build" 2: one encoder for everything sent out
(`codegen/runtime/_outbound.py`). Every JSON-unfriendly value, at every place, through every
outbound path: each provider's result form, MCP's text and structured content, each provider's
history turn. What is sent is strict JSON (no NaN, no Infinity) in well-formed UTF-8, and the
text and the structure of one value are the same value. A handler's value JSON cannot carry is
a failed call whose error names each path; a lone surrogate the model sent is U+FFFD with the
warning `lone_surrogate_replaced`, a non-finite number it sent is refused at its path (`value_not_json`).
Then the real clients: openai and anthropic against a stub on 127.0.0.1 send the next request,
and the MCP server over stdio answers the call after one whose result held a lone surrogate."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import anthropic
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from codegen.build import check_catalog
from generated import memory_tools
from generated.memory_tools import Executor, _mcp, _outbound, _runtime
from generated.memory_tools._results import ToolCallResult, content_json

ROOT = Path(__file__).resolve().parent.parent


def _reject(constant: str) -> object:
    raise ValueError(f"{constant} is not JSON")


def strict(text: str) -> object:
    """The value of a text as a strict client reads it: UTF-8 (no lone surrogate), JSON with no
    NaN or Infinity."""
    text.encode("utf-8")
    return json.loads(text, parse_constant=_reject)


def reader(content: object) -> Callable[[str], object]:
    """How a client reads the text of a result: text as it is (UTF-8), anything else as JSON."""
    return (lambda text: text.encode("utf-8") and text) if isinstance(content, str) else strict


def sendable(payload: object) -> object:
    """What an SDK does with what it sends: the whole payload as strict JSON in UTF-8."""
    return strict(json.dumps(payload, ensure_ascii=False, allow_nan=False))


def call(raw: object, tool: str = "memory.search") -> Any:
    return memory_tools.parse(tool, raw, "call_1")


def forms(result: ToolCallResult) -> list[object]:
    """Every form a result is sent in."""
    return [
        memory_tools.to_openai_chat([result]),
        memory_tools.to_openai_responses([result]),
        memory_tools.to_anthropic([result]),
        memory_tools.to_gemini([result], memory_tools.PROVIDER_NAMES["gemini"]),
        _mcp.call_result(result),
    ]


# ---------------------------------------------------------------------------------------------
# What JSON cannot carry: each case is the value, the path inside it of what is wrong (joined to
# the place it is put), the code, what the error shows, and what the value is when written all
# the same (a result made by hand, not by the executor)


def _cycle() -> list[object]:
    value: list[object] = []
    value.append(value)
    return value


def _dict_cycle() -> dict[str, object]:
    value: dict[str, object] = {"n": 1}
    value["self"] = value
    return value


class Raises:
    def model_dump(self, mode: str) -> object:
        raise RuntimeError("no dump")


def _deep(levels: int) -> list[object]:
    return _nested([], levels)  # type: ignore[return-value]


def _nested(value: object, levels: int) -> object:
    for _ in range(levels):
        value = [value]
    return value


@dataclasses.dataclass
class Bad:
    """What a handler returns, by name."""

    name: str
    make: Callable[[], object]
    inner: str  # the path inside the value of what is wrong
    code: str
    found: str
    written: object  # the value as sent when it is written all the same


SURROGATE_TEXTS = [
    ("high_alone", "\ud800", "U+D800", "\ufffd"),
    ("low_alone", "\udc00", "U+DC00", "\ufffd"),
    ("at_start", "\udfffabc", "U+DFFF", "\ufffdabc"),
    ("in_middle", "ab\ud800c", "U+D800", "ab\ufffdc"),
    ("at_end", "abc\udbff", "U+DBFF", "abc\ufffd"),
    ("pair_reversed", "\udc00\ud800", "U+DC00", "\ufffd\ufffd"),
    ("pair_as_two_code_points", "\ud83d\ude00", "U+D83D", "\ufffd\ufffd"),
    ("fsdecoded_file_name", os.fsdecode(b"caf\xe9.txt"), "U+DCE9", "caf\ufffd.txt"),
]

BAD: list[Bad] = [
    *(
        Bad(f"text_{name}", lambda t=text: t, "", "result_lone_surrogate", found, written)
        for name, text, found, written in SURROGATE_TEXTS
    ),
    *(
        Bad(
            f"key_{name}",
            lambda t=text: {t: 1},
            written,
            "result_lone_surrogate",
            found,
            {written: 1},
        )
        for name, text, found, written in SURROGATE_TEXTS[:4]
    ),
    Bad("nan", lambda: float("nan"), "", "result_non_finite_number", "nan", None),
    Bad("inf", lambda: float("inf"), "", "result_non_finite_number", "inf", None),
    Bad("minus_inf", lambda: float("-inf"), "", "result_non_finite_number", "-inf", None),
    Bad("1e400", lambda: float("1e400"), "", "result_non_finite_number", "inf", None),
    Bad(
        "nan_key",
        lambda: {float("nan"): 1},
        "nan",
        "result_non_finite_number",
        "a key, nan",
        {"nan": 1},
    ),
    Bad(
        "huge_int",
        lambda: 10**5000,
        "",
        "result_integer_too_long",
        "more than 4300 digits",
        None,
    ),
    Bad("cycle", _cycle, "[0]", "result_circular_reference", "list", [None]),
    Bad(
        "dict_cycle",
        _dict_cycle,
        "self",
        "result_circular_reference",
        "dict",
        {"n": 1, "self": None},
    ),
    Bad(
        "tuple_key",
        lambda: {(1, 2): "x"},
        "(1, 2)",
        "result_key_not_text",
        "tuple",
        {"(1, 2)": "x"},
    ),
    Bad("dump_raises", Raises, "", "result_unreadable_value", "RuntimeError", None),
    # Deeper than json writes (its recursion limit): cut where `_outbound` stops following.
    Bad(
        "too_deep",
        lambda: _deep(2000),
        "[0]" * _outbound.MAX_DEPTH,
        "result_too_deep",
        "list",
        _nested(None, _outbound.MAX_DEPTH),
    ),
]


@dataclasses.dataclass
class Box:
    v: object


@dataclasses.dataclass
class Place:
    """Where the bad value is put in what the handler returns, and the path of that place."""

    name: str
    put: Callable[[object], object]
    path: str
    take: Callable[[object], object]  # the written value back out of the written whole


PLACES = [
    Place("whole", lambda v: v, "", lambda w: w),
    Place("in_an_object", lambda v: {"v": v, "ok": 1}, "v", lambda w: w["v"]),
    Place("in_an_array", lambda v: ["ok", v], "[1]", lambda w: w[1]),
    Place("in_a_tuple", lambda v: ("ok", v), "[1]", lambda w: w[1]),
    Place(
        "nested",
        lambda v: {"a": [1, {"b": v}]},
        "a[1].b",
        lambda w: w["a"][1]["b"],
    ),
    Place("in_a_dataclass", lambda v: Box(v), "v", lambda w: w["v"]),
]


def _join(place: str, inner: str) -> str:
    if not place or not inner:
        return place or inner
    return place + inner if inner.startswith("[") else f"{place}.{inner}"


def _words(path: str, bad: Bad) -> str:
    where = "result" if not path else "result" + ("" if path.startswith("[") else ".") + path
    return f"{where}: {_outbound.WORDS[bad.code]} ({bad.found})"


CASES = [
    pytest.param(bad, place, id=f"{bad.name}-{place.name}")
    for bad in BAD
    for place in PLACES
    # A value at the deepest level JSON writes, put one level deeper, is too deep one level up.
    if not (bad.name == "too_deep" and place.path)
]


@pytest.mark.parametrize(("bad", "place"), CASES)
def test_a_handlers_value_json_cannot_carry_fails_naming_its_path(bad: Bad, place: Place) -> None:
    """Items 5 and 7: a lone surrogate (an ordinary non-UTF-8 file name) or a NaN in a handler's
    result was sent as it was (the MCP server died of it; the text said `NaN`). Now the call is
    failed, its error names the path, and every form of it is strict, well-formed JSON."""
    content = place.put(bad.make())
    path = _join(place.path, bad.inner)
    executor = Executor({"memory.search": lambda args: content})
    for result in (
        executor.execute(call('{"query": "q"}')),
        asyncio.run(executor.aexecute(call('{"query": "q"}'))),
    ):
        assert result.status == "failed"
        assert result.content is content
        assert result.errors == (f"{bad.code}:{path}" if path else bad.code,)
        assert result.error == f"the result cannot be sent as JSON: {_words(path, bad)}"
        assert result.text == f"Error: the tool failed: {result.error}"
        for form in forms(result):
            sendable(form)
        assert "structuredContent" not in _mcp.call_result(result)


@pytest.mark.parametrize(("bad", "place"), CASES)
def test_a_result_made_by_hand_is_written_with_each_problem_replaced(
    bad: Bad, place: Place
) -> None:
    """The forms never raise and never send what JSON cannot carry, whoever made the result:
    each problem is replaced the one way `_outbound` documents, the same in text and structure."""
    content = place.put(bad.make())
    result = ToolCallResult("memory.search", "call_1", "success", content)
    read = reader(content)
    written = read(result.text)
    assert place.take(written) == bad.written
    assert content_json(content) == written
    chat, responses, anthropic_form, gemini, mcp_result = forms(result)
    for form in (chat, responses, anthropic_form, gemini, mcp_result):
        sendable(form)
    assert [read(m["content"]) for m in chat] == [written]  # type: ignore[index]
    assert [read(m["output"]) for m in responses] == [written]  # type: ignore[index]
    assert [read(b["content"]) for b in anthropic_form] == [written]  # type: ignore[index]
    assert [p["functionResponse"]["response"] for p in gemini] == [{"output": written}]  # type: ignore[index]
    assert mcp_result["content"] == [{"type": "text", "text": result.text}]
    if isinstance(content, dict):  # MCP's structured form: a mapping the handler returned
        assert mcp_result["structuredContent"] == written


def test_problems_past_the_first_twenty_are_replaced_but_not_listed() -> None:
    content = {f"v{n}": float("nan") for n in range(30)}
    result = Executor({"memory.search": lambda args: content}).execute(call('{"query": "q"}'))
    assert result.errors == tuple(f"result_non_finite_number:v{n}" for n in range(20))
    assert strict(ToolCallResult("t", "", "success", content).text) == dict.fromkeys(content)


# -- any value: a property ---------------------------------------------------------------------

TEXT = st.text(st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=8)
ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=ANY_VALUE)
def test_any_value_is_sent_as_strict_text_and_fails_exactly_when_json_cannot_carry_it(
    value: object,
) -> None:
    encoded = _outbound.encode(value)
    written = strict(encoded.text)
    carried = _outbound.strict_text(value) is not None
    assert (encoded.problems == ()) is carried
    if carried:
        assert encoded.text == json.dumps(value, ensure_ascii=False)
    result = Executor({"memory.search": lambda args: value}).execute(call('{"query": "q"}'))
    assert result.status == ("success" if carried else "failed")
    assert result.errors == tuple(problem.error for problem in encoded.problems)
    for form in forms(result):
        sendable(form)
    if not isinstance(value, str):
        assert content_json(value) == written


# -- a tool with `returns`: the same rule, with the result's wire names in the path -----------


@pytest.mark.parametrize("bad", [b for b in BAD if b.name != "too_deep"], ids=lambda b: b.name)
def test_a_typed_result_json_cannot_carry_fails_naming_its_wire_path(bad: Bad) -> None:
    content = memory_tools.SearchFilesResult(paths=["a", bad.make()], truncated=False)  # type: ignore[list-item]
    executor = Executor({"search_files": lambda args: content})
    result = executor.execute(call('{"pattern": "*"}', "search_files"))
    path = _join("paths[1]", bad.inner)
    assert (result.status, result.errors, result.structured) == (
        "failed",
        (f"{bad.code}:{path}",),
        None,
    )
    assert result.error == f"the result cannot be sent as JSON: {_words(path, bad)}"
    for form in forms(result):
        sendable(form)


# -- what json does not know, converted: a success, the same value in text and structure ------


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Hit:
    path: Path
    score: Decimal
    seen: date


CONVERTED: list[tuple[str, object, object]] = [
    ("datetime", datetime(2024, 5, 1, 9, 30, tzinfo=UTC), "2024-05-01T09:30:00+00:00"),
    ("date", date(2024, 5, 1), "2024-05-01"),
    ("time", time(9, 30), "09:30:00"),
    ("enum", Color.RED, "red"),
    ("set", {"b", "a"}, ["a", "b"]),
    ("frozenset", frozenset({2, 1}), [1, 2]),
    ("unsortable_set", {1, "a"}, None),  # its order is the set's own: checked by membership
    ("tuple", (1, "a"), [1, "a"]),
    ("bytes", b"caf\xc3\xa9", "café"),
    ("invalid_utf8_bytes", b"caf\xe9", "caf\ufffd"),
    ("bytearray", bytearray(b"x"), "x"),
    ("dataclass", Hit(Path("a.md"), Decimal("0.5"), date(2024, 5, 1)), None),
    ("uuid", uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    ("decimal", Decimal("1e400"), "1E+400"),
    ("big_int", 10**300, 10**300),
    (
        "keys_json_writes",
        {True: 1, None: 2, 3: 4, 1.5: 5},
        {"true": 1, "null": 2, "3": 4, "1.5": 5},
    ),
    ("astral_text", "\U0001f600", "\U0001f600"),
]


@pytest.mark.parametrize(("value", "expected"), [pytest.param(v, e, id=n) for n, v, e in CONVERTED])
@pytest.mark.parametrize("place", PLACES, ids=lambda p: p.name)
def test_a_value_json_writes_by_conversion_is_a_success_the_same_in_every_form(
    value: object, expected: object, place: Place
) -> None:
    content = place.put(value)
    result = Executor({"memory.search": lambda args: content}).execute(call('{"query": "q"}'))
    assert (result.status, result.errors) == ("success", ())
    written = reader(content)(result.text)
    if expected is not None:
        assert place.take(written) == expected
    elif isinstance(value, set):
        assert sorted(map(str, place.take(written))) == sorted(map(str, value))  # type: ignore[arg-type]
    else:
        assert place.take(written) == {"path": "a.md", "score": "0.5", "seen": "2024-05-01"}
    _, _, _, gemini, mcp_result = forms(result)
    for form in forms(result):
        sendable(form)
    assert gemini[0]["functionResponse"]["response"] == {"output": written}  # type: ignore[index]
    if isinstance(content, dict):  # MCP's structured form: a mapping the handler returned
        assert mcp_result["structuredContent"] == written


def test_the_words_of_a_failure_are_text_whatever_the_exception_wrote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The words of a failure quote what an exception or a model wrote: they are made text."""

    def handler(args: object) -> str:
        raise FileNotFoundError(os.fsdecode(b"caf\xe9.txt"))

    # The executor logs the exception's own text, which pytest-xdist cannot carry between its
    # processes (a lone surrogate): not logged here.
    monkeypatch.setattr(logging.getLogger(memory_tools.__name__), "disabled", True)
    result = Executor({"memory.search": handler}).execute(call('{"query": "q"}'))
    assert result.error == "FileNotFoundError: caf\udce9.txt"  # the program's, as raised
    assert result.text == "Error: the tool failed: FileNotFoundError: caf\ufffd.txt"
    for form in forms(result):
        sendable(form)


# ---------------------------------------------------------------------------------------------
# From the model: a lone surrogate is replaced by U+FFFD with a warning, at every entry point,
# and every history turn and result form is then sendable


@contextlib.contextmanager
def standard_decoding() -> Iterator[None]:
    """The runtime as it runs without msgspec."""
    with (
        mock.patch.object(_runtime, "_fast_loads", None),
        mock.patch.object(_runtime, "_decode", _runtime._json_first),
    ):
        yield


@dataclasses.dataclass
class Sent:
    """Arguments as a model wrote them: as text (`raw`) and as a provider hands them decoded
    (`decoded`, Anthropic's `input`, Gemini's `args`); the values the parser gives, and its
    warnings for each (those of the text alone, `text_only`, are not the decoded input's)."""

    name: str
    raw: str
    decoded: dict[str, object]
    values: dict[str, object]
    warnings: tuple[str, ...]
    text_only: tuple[str, ...] = ()


SENT: list[Sent] = [
    *(
        Sent(
            f"value_{name}",
            json.dumps({"query": text}),
            {"query": text},
            {"query": written, "limit": 3},
            ("lone_surrogate_replaced:query",),
        )
        for name, text, _, written in SURROGATE_TEXTS
        if name != "pair_as_two_code_points"  # in JSON text, the escapes of a pair are one
    ),
    Sent(
        "issue_example",
        '{"query": "\\ud800 abc"}',
        {"query": "\ud800 abc"},
        {"query": "\ufffd abc", "limit": 3},
        ("lone_surrogate_replaced:query",),
    ),
    Sent(
        "raw_in_the_text",
        '{"query": "a\ud800"}',
        {"query": "a\ud800"},
        {"query": "a\ufffd", "limit": 3},
        ("lone_surrogate_replaced:query",),
    ),
    Sent(
        "key",
        '{"query": "q", "\\udc00x": 1}',
        {"query": "q", "\udc00x": 1},
        {"query": "q", "\ufffdx": 1, "limit": 3},
        ("lone_surrogate_replaced:\ufffdx", "unknown_parameter:\ufffdx"),
    ),
    Sent(
        "nested",
        '{"query": "q", "extra": {"a": ["x", "\\ud800"]}}',
        {"query": "q", "extra": {"a": ["x", "\ud800"]}},
        {"query": "q", "extra": {"a": ["x", "\ufffd"]}, "limit": 3},
        ("lone_surrogate_replaced:extra.a[1]", "unknown_parameter:extra"),
    ),
    Sent(
        "encoded_twice",
        json.dumps(json.dumps({"query": "\ud800"})),
        {"query": "\ud800"},
        {"query": "\ufffd", "limit": 3},
        ("lone_surrogate_replaced:query",),
        ("arguments_unquoted",),
    ),
    Sent(
        "repaired",
        "{'query': '\\ud800',}",
        {"query": "\ud800"},
        {"query": "\ufffd", "limit": 3},
        ("lone_surrogate_replaced:query",),
        ("single_quotes_converted", "trailing_comma_removed"),
    ),
    Sent(
        "a_valid_pair_is_text",
        '{"query": "\\ud83d\\ude00"}',
        {"query": "\U0001f600"},
        {"query": "\U0001f600", "limit": 3},
        (),
    ),
]


def _entry_points(sent: Sent) -> Iterator[tuple[str, Any, tuple[str, ...]]]:
    """The request each entry point makes of the same arguments, and the warnings it must have."""
    with_text = (*sent.text_only, *sent.warnings)
    yield "text", call(sent.raw), with_text
    with contextlib.suppress(UnicodeEncodeError):  # a raw lone surrogate has no UTF-8
        yield "bytes", call(sent.raw.encode("utf-8")), with_text
    chat = {
        "tool_calls": [{"id": "c", "function": {"name": "memory_search", "arguments": sent.raw}}]
    }
    yield "openai_chat", memory_tools.from_openai_chat(chat)[0], with_text
    item = {"type": "function_call", "call_id": "c", "name": "memory_search", "arguments": sent.raw}
    yield "openai_responses", memory_tools.from_openai_responses({"output": [item]})[0], with_text
    if not sent.text_only:  # a line of prompt mode holds the object itself
        line = '{"name": "memory.search", "parameters": ' + sent.raw + "}"
        yield "jsonl", memory_tools.parse_jsonl(line).calls[0], sent.warnings
    yield "dict", call(sent.decoded), sent.warnings
    block = {"type": "tool_use", "id": "c", "name": "memory_search", "input": sent.decoded}
    yield "anthropic", memory_tools.from_anthropic({"content": [block]})[0], sent.warnings
    part = {"functionCall": {"id": "c", "name": "memory.search", "args": sent.decoded}}
    gemini = {"candidates": [{"content": {"parts": [part]}}]}
    yield "gemini", memory_tools.from_gemini(gemini)[0], sent.warnings


SENT_CASES = [pytest.param(sent, id=sent.name) for sent in SENT]


@pytest.mark.parametrize("sent", SENT_CASES)
def test_what_the_model_sent_is_mended_with_a_warning_at_every_entry_point(sent: Sent) -> None:
    """Item 6: `{"query": "\\ud800 abc"}` parsed `ok` with the surrogate in its values, so
    the handler, the history and the results all carried it. The same with msgspec and without."""
    for decoding in (contextlib.nullcontext, standard_decoding):
        with decoding():
            for entry, request, warnings in _entry_points(sent):
                assert (entry, request.values, request.warnings, request.ok) == (
                    entry,
                    sent.values,
                    warnings,
                    True,
                )


def test_a_string_parsed_as_json_is_mended_under_its_path() -> None:
    raw = '{"settings": "{\\"mode\\": \\"safe\\", \\"note\\": \\"\\\\ud800\\"}"}'
    request = call(raw, "update_config")
    assert request.values["settings"] == {"mode": "safe", "note": "\ufffd", "retries": 3}
    assert request.warnings == (
        "string_parsed_as_json:settings",
        "lone_surrogate_replaced:settings.note",
        "unknown_parameter:settings.note",
    )


def test_non_finite_numbers_the_model_sent_are_refused_at_their_paths() -> None:
    """One rule with values coming in (`_values`): no JSON number stands for NaN or an infinity,
    so a call holding one does not run; a lone surrogate, one broken character, is mended."""
    request = call({"query": "q", "a": float("nan"), "b": [float("-inf")]})
    assert (request.ok, request.errors) == (False, ("value_not_json:a", "value_not_json:b[0]"))
    assert request.warnings == ("unknown_parameter:b",)


def _replaced(text: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=TEXT, key=TEXT.filter(lambda k: _replaced(k) not in ("query", "limit")))
def test_any_text_the_model_sends_reaches_the_handler_and_the_history_as_text(
    query: str, key: str
) -> None:
    decoded = {"query": query, key: [query]}
    request = call(decoded)
    assert request.values == {
        "query": _replaced(query),
        _replaced(key): [_replaced(query)],
        "limit": 3,
    }
    replaced = [
        path
        for path, text in (("query", query), (_replaced(key), key), (f"{_replaced(key)}[0]", query))
        if text != _replaced(text)
    ]
    assert request.warnings == (
        *(f"lone_surrogate_replaced:{path}" for path in replaced),
        f"unknown_parameter:{_replaced(key)}",
    )
    text = json.dumps(decoded)  # a pair of surrogates side by side is one character here
    for raw in (decoded, text):
        request = call(raw)
        assert request.ok
        sendable(request.values)
        chat_call = {"id": "c", "function": {"name": "memory_search", "arguments": text}}
        sendable(memory_tools.history_openai_chat({"tool_calls": [chat_call]}))
        block = {"type": "tool_use", "id": "c", "name": "memory_search", "input": decoded}
        sendable(memory_tools.history_anthropic({"content": [block]}))
        for form in forms(ECHO.execute(call(raw))):
            sendable(form)


def _echo(query: str, limit: int = 3) -> dict[str, object]:
    return {"query": query, "limit": limit}


ECHO = Executor({"memory.search": _echo})


@pytest.mark.parametrize("sent", SENT_CASES)
def test_every_history_turn_and_result_form_of_what_the_model_sent_is_sendable(
    sent: Sent,
) -> None:
    """Item 6: the history turn and the results of such a call raised UnicodeEncodeError in the
    real clients. Arguments go back as sent when they can be, else as the corrected values (a
    number out of range as null); text the model wrote beside them is made text too."""
    values = {k: (None if v == float("inf") else v) for k, v in sent.values.items()}
    text = (
        sent.raw
        if isinstance(_outbound.strict_loads(sent.raw), dict)
        else json.dumps(values, ensure_ascii=False)
    )
    decoded = sent.decoded if _outbound.strict_text(sent.decoded) is not None else values
    chat_call = {
        "id": "c",
        "type": "function",
        "function": {"name": "memory_search", "arguments": sent.raw},
    }
    reply = {"choices": [{"message": {"content": "x\ud800", "tool_calls": [chat_call]}}]}
    assert sendable(memory_tools.history_openai_chat(reply)) == {
        "role": "assistant",
        "content": "x\ufffd",
        "tool_calls": [{**chat_call, "function": {"name": "memory_search", "arguments": text}}],
    }
    item = {"type": "function_call", "call_id": "c", "name": "memory_search", "arguments": sent.raw}
    assert sendable(memory_tools.history_openai_responses({"output": [item]})) == [
        {**item, "arguments": text}
    ]
    block = {"type": "tool_use", "id": "c", "name": "memory_search", "input": sent.decoded}
    assert sendable(memory_tools.history_anthropic({"content": [block]})) == {
        "role": "assistant",
        "content": [{**block, "input": decoded}],
    }
    part = {"functionCall": {"id": "c", "name": "memory.search", "args": sent.decoded}}
    turn = memory_tools.history_gemini({"candidates": [{"content": {"parts": [part]}}]})
    assert sendable(turn) == {
        "role": "model",
        "parts": [{"functionCall": {**part["functionCall"], "args": decoded}}],
    }
    result = ECHO.execute(call(sent.raw, "memory.search"))
    assert result.ok
    for form in forms(result):
        sendable(form)


# ---------------------------------------------------------------------------------------------
# The real clients against a stub on 127.0.0.1: the next request is sent


@dataclasses.dataclass
class Stub:
    replies: list[bytes]
    received: list[object] = dataclasses.field(default_factory=list)
    url: str = ""


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Stub], Stub]]:
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    servers: list[ThreadingHTTPServer] = []

    def start(stub: Stub) -> Stub:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                try:
                    stub.received.append(strict(body.decode("utf-8")))
                    status, data = 200, stub.replies.pop(0)
                except ValueError as exc:  # not UTF-8, or not strict JSON: a provider's 400
                    status, data = 400, json.dumps({"error": {"message": str(exc)}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        stub.url = f"http://127.0.0.1:{server.server_address[1]}"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return stub

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


# The model's arguments: the issue's, as the provider's JSON carries them (an escape in the
# arguments text), and as its client decodes them once more (a lone surrogate in the text).
ESCAPED = '{"query": "\\ud800 abc"}'
RAW = '{"query": "\ud800 abc"}'
# What the handler's echo sends back, and the note saying what was replaced.
ECHOED = (
    '{"query": "\ufffd abc", "limit": 3}\n\nNote: `query` held a lone surrogate, which is not'
    " text, replaced by U+FFFD."
)


def _chat(message: dict[str, object]) -> bytes:
    reply = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }
    return json.dumps(reply).encode()  # json writes a lone surrogate as its escape


@pytest.mark.parametrize("arguments", [ESCAPED, RAW], ids=["escaped", "raw"])
def test_the_openai_client_sends_the_next_request(
    serve: Callable[[Stub], Stub], arguments: str
) -> None:
    """Item 6, with the real openai client."""
    tool_call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "memory_search", "arguments": arguments},
    }
    stub = serve(
        Stub(
            [
                _chat({"role": "assistant", "content": None, "tool_calls": [tool_call]}),
                _chat({"role": "assistant", "content": "done"}),
            ]
        )
    )
    client = openai.OpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "search"}]
    completion = client.chat.completions.create(model="gpt-test", messages=messages)
    requests = memory_tools.from_openai_chat(completion)
    messages.append(memory_tools.history_openai_chat(completion))
    messages.extend(memory_tools.to_openai_chat(ECHO.execute(r) for r in requests))
    completion = client.chat.completions.create(model="gpt-test", messages=messages)
    assert completion.choices[0].message.content == "done"
    assert requests[0].warnings == ("lone_surrogate_replaced:query",)
    sent = stub.received[1]["messages"]  # type: ignore[index]
    assert (
        sent[1]["tool_calls"][0]["function"]["arguments"] == '{"query": "\ufffd abc", "limit": 3}'
    )
    assert sent[2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": ECHOED,
    }


def _message(content: list[dict[str, object]], stop: str) -> bytes:
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": content,
    }
    return json.dumps(reply).encode()


def test_the_anthropic_client_sends_the_next_request(serve: Callable[[Stub], Stub]) -> None:
    """Item 6, with the real anthropic client: its `input` arrives decoded, the surrogate in it."""
    block = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "memory_search",
        "input": {"query": "\ud800 abc"},
    }
    stub = serve(
        Stub(
            [
                _message([block], "tool_use"),
                _message([{"type": "text", "text": "done"}], "end_turn"),
            ]
        )
    )
    client = anthropic.Anthropic(base_url=stub.url, api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "search"}]
    message = client.messages.create(model="claude-test", max_tokens=10, messages=messages)
    requests = memory_tools.from_anthropic(message)
    messages.append(memory_tools.history_anthropic(message))
    messages.append(
        {"role": "user", "content": memory_tools.to_anthropic(ECHO.execute(r) for r in requests)}
    )
    message = client.messages.create(model="claude-test", max_tokens=10, messages=messages)
    assert message.content[0].type == "text"
    sent = stub.received[1]["messages"]  # type: ignore[index]
    assert sent[1]["content"][0]["input"] == {"query": "\ufffd abc", "limit": 3}
    assert sent[2]["content"][0]["content"] == ECHOED


# ---------------------------------------------------------------------------------------------
# The MCP server, over stdio and streamable HTTP, survives a result holding a lone surrogate

SERVE = [sys.executable, "-m", "generated.memory_tools.mcp", "tests.outbound_handlers:HANDLERS"]


@pytest.fixture(params=["stdio", "streamable-http"])
def mcp_server(request: pytest.FixtureRequest) -> Iterator[Any]:
    """What the SDK's client connects to: the server as a subprocess, over each transport."""
    if request.param == "stdio":
        yield StdioServerParameters(command=SERVE[0], args=SERVE[1:], cwd=ROOT)
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["--transport", "streamable-http", "--port", str(port)]
    process = subprocess.Popen([*SERVE, *args], cwd=ROOT, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            assert process.poll() is None, "the server exited"
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            threading.Event().wait(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_mcp_server_answers_the_call_after_a_result_with_a_lone_surrogate(
    mcp_server: Any,
) -> None:
    """Item 5: over stdio the SDK's writer raised on the result, the server died, and every
    later call got "Connection closed"; over HTTP the client's session failed."""

    async def session() -> list[Any]:
        async with Client(mcp_server, read_timeout_seconds=30) as client:
            return [
                await client.call_tool("read_file", {"filePath": "."}),
                await client.call_tool("update_config", {"settings": {"timeout": 1}}),
                await client.call_tool("memory.search", {"query": "agent", "limit": 1}),
            ]

    calls = asyncio.run(session())
    assert [(c.is_error, [t.text for t in c.content], c.structured_content) for c in calls] == [
        (
            True,
            [
                (
                    "Error: the tool failed: the result cannot be sent as JSON:"
                    " result: text holding a lone surrogate, which is not Unicode (U+DCE9)"
                )
            ],
            None,
        ),
        (
            True,
            [
                (
                    "Error: the tool failed: the result cannot be sent as JSON:"
                    " result.ratio: not a finite number (nan)"
                )
            ],
            None,
        ),
        (False, ['["agent 0"]'], None),
    ]


# ---------------------------------------------------------------------------------------------
# The build: what it writes out (payloads, prompts, docs) comes from the catalog, which is
# refused at load when it holds a lone surrogate or a non-finite number, at the place it is


# (where, the catalog with `VALUE` there)
CATALOG_PLACES: dict[str, tuple[str, dict[str, object]]] = {
    "description": ("tools[0].description", {"description": "VALUE"}),
    "enum": ("tools[0].parameters.properties.q.enum[1]", {"enum": ["a", "VALUE"]}),
    "default": ("tools[0].parameters.properties.q.default", {"default": "VALUE"}),
    "example": ("tools[0].examples[0].q", {"examples": [{"q": "VALUE"}]}),
    "maximum": ("tools[0].parameters.properties.n.maximum", {"maximum": "VALUE"}),
}
SURROGATES_IN_A_CATALOG = [
    ('"\\ud800"', "lone surrogate '\\ud800' is not Unicode text"),
    ('"a\\udfffb"', "lone surrogate '\\udfff' is not Unicode text"),
]
NON_FINITE_IN_A_CATALOG = [
    ("1e400", ".inf is not a JSON number"),
    ("-1e400", "-.inf is not a JSON number"),
]


def _catalog(place: str) -> str:
    tool: dict[str, Any] = {
        "name": "t",
        "description": "d",
        "parameters": {
            "type": "object",
            "properties": {"q": {"type": "string"}, "n": {"type": "number"}},
        },
    }
    spec = CATALOG_PLACES[place][1]
    if place in ("description", "example"):
        tool.update(spec)
    elif place == "maximum":
        tool["parameters"]["properties"]["n"].update(spec)
    else:
        tool["parameters"]["properties"]["q"].update(spec)
    return json.dumps({"name": "c", "tools": [tool]})


@pytest.mark.parametrize(
    ("place", "value", "problem"),
    [
        *(
            (place, value, problem)
            for place in CATALOG_PLACES
            for value, problem in SURROGATES_IN_A_CATALOG
            if place != "maximum"
        ),
        *(
            (place, value, problem)
            for place in CATALOG_PLACES
            for value, problem in NON_FINITE_IN_A_CATALOG
            if place != "description"
        ),
    ],
)
def test_a_catalog_value_that_cannot_be_sent_out_is_refused_at_its_place(
    tmp_path: Path, place: str, value: str, problem: str
) -> None:
    """The build's side of the one rule: no payload, prompt or doc can carry such a value,
    since the catalog holding it is refused at load (codegen/catalog/load.py), naming where."""
    source = tmp_path / "c.json"
    source.write_text(_catalog(place).replace('"VALUE"', value), encoding="utf-8")
    catalog, diagnostics = check_catalog(source, tmp_path)
    assert catalog is None
    assert [str(d) for d in diagnostics if d.level == "error"] == [
        f"c.json:1: {CATALOG_PLACES[place][0]}: {problem}"
    ]


@pytest.mark.parametrize(
    "given",
    [{1: "a", "1": "b"}, {True: 1}, {"query": "q", "tags": ("a", "b")}, {(1, 2): "x"}],
    ids=["two keys one text", "a bool key", "a tuple", "a tuple key"],
)
def test_a_history_turn_sends_arguments_as_they_are_only_when_they_are_exactly_json(
    given: dict[object, object],
) -> None:
    """The review of issue 32: history asked json.dumps whether arguments were JSON (tuples, int
    keys and two keys of one text passed) while the parser asked `is_json`: `{1: "a", "1": "b"}`
    was refused by the parser and sent on as given. One test now, `_outbound.is_json`."""
    block = {"type": "tool_use", "id": "c", "name": "memory_search", "input": given}
    (sent,) = memory_tools.history_anthropic({"content": [block]})["content"]
    assert _outbound.is_json(sent["input"])
    assert sent["input"] == memory_tools.parse("memory.search", given).values

"""One assembly of a reply's calls (issue 33 item 4): `from_*`, `history_*` and the stream readers
read the same calls from a reply, so the results of the requests answer exactly the calls the
history holds, and a stream gives the requests its whole reply gives, field for field.

Replies are generated per provider, as dicts and (where the SDK's types take them) as the SDKs'
own objects: any number of choices or candidates, calls with and without ids, names and
arguments, replayed ids, and odd items (None, text, numbers, blocks without `type`, custom and
built-in tools' calls, LangChain's tool-call dicts, text and thinking blocks)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest
from anthropic.types import Message
from google.genai import types as gemini
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tests import stream_events as ev
from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROVIDERS = ["openai_chat", "openai_responses", "anthropic", "gemini"]
ABSENT = object()  # a field left out of the record


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("pkg"))


def search(query: str, limit: int = 3) -> list[str]:
    return [f"{query} {n}" for n in range(limit)]


def read(filePath: str, startLine: int | None, encoding: str) -> str:
    return f"{filePath} from line {startLine}"


def field(node: object, name: str) -> object:
    if isinstance(node, dict):
        return node.get(name)
    return getattr(node, name, None)


def record(**fields: object) -> dict[str, object]:
    return {key: value for key, value in fields.items() if value is not ABSENT}


# ---------------------------------------------------------------------------------------------
# Generated replies

IDS = st.sampled_from([ABSENT, "", "c1", "c2", "c1", "call_0", "call_1"])
NAMES = st.sampled_from([ABSENT, "", 7, "memory.search", "memory_search", "read_file", "nope"])
TEXTS = st.sampled_from(
    [ABSENT, "", "{", "not json", "[1]", '{"query": "q"}', '{"query": "q", "limit": "2"}']
    + ['{"filePath": "a", "startLine": 3}', '{"query": "q"}']
)
OBJECTS = st.sampled_from([ABSENT, None, {}, {"query": "q"}, {"filePath": "a"}, ["x"], "text"])
JUNK = st.sampled_from([None, "text", 4, 2.5, {"unexpected": True}])


@st.composite
def chat_message(draw: st.DrawFn) -> dict[str, object]:
    calls: list[object] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["call", "call", "call", "custom", "langchain", "junk"]))
        if kind == "call":
            function = record(name=draw(NAMES), arguments=draw(TEXTS))
            calls.append(
                record(
                    id=draw(IDS),
                    type=draw(st.sampled_from(["function", ABSENT])),
                    function=draw(st.sampled_from([function, function, ABSENT])),
                )
            )
        elif kind == "custom":
            calls.append({"id": "cu", "type": "custom", "custom": {"name": "sh", "input": "ls"}})
        elif kind == "langchain":
            calls.append({"name": "read_file", "args": {}, "id": "lc", "type": "tool_call"})
        else:
            calls.append(draw(JUNK))
    message: dict[str, object] = {
        "role": "assistant",
        "content": draw(st.sampled_from([None, "Hi"])),
    }
    message["tool_calls"] = calls or draw(st.sampled_from([None, ABSENT]))
    if draw(st.booleans()):  # the legacy field: a call cut off, or none
        message["function_call"] = draw(
            st.sampled_from([None, {"name": "memory.search", "arguments": '{"query": "a'}])
        )
    return {key: value for key, value in message.items() if value is not ABSENT}


@st.composite
def chat_reply(draw: st.DrawFn) -> object:
    choices = [
        {"index": i, "finish_reason": "tool_calls", "message": draw(chat_message())}
        for i in range(draw(st.integers(1, 3)))
    ]
    completion = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    completion["choices"] = choices
    level = draw(st.sampled_from(["completion", "choices", "choice", "message", "calls"]))
    found: object = {
        "completion": completion,
        "choices": choices,
        "choice": choices[0],
        "message": choices[0]["message"],
        "calls": choices[0]["message"].get("tool_calls"),
    }[level]
    return sdk(draw, ChatCompletion, found) if level == "completion" else found


@st.composite
def responses_reply(draw: st.DrawFn) -> object:
    items: list[object] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["call", "call", "call", "message", "reasoning", "junk"]))
        if kind == "call":
            fields = record(call_id=draw(IDS), name=draw(NAMES), arguments=draw(TEXTS))
            items.append({"type": "function_call", "id": f"fc_{len(items)}", **fields})
        elif kind == "message":
            text = {"type": "output_text", "text": "Hi", "annotations": []}
            items.append(
                {
                    "type": "message",
                    "id": "m",
                    "role": "assistant",
                    "status": "completed",
                    "content": [text],
                }
            )
        elif kind == "reasoning":
            items.append({"type": "reasoning", "id": "rs", "summary": []})
        else:
            items.append(
                draw(
                    st.sampled_from(
                        [None, 3, {"no": "type"}, {"call_id": "c9", "name": "read_file"}]
                    )
                )
            )
    response = ev.response(items)
    return sdk(draw, Response, response) if draw(st.booleans()) else items


@st.composite
def anthropic_reply(draw: st.DrawFn) -> object:
    blocks: list[object] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["call", "call", "call", "text", "thinking", "server", "junk"]))
        if kind == "call":
            blocks.append(
                {"type": "tool_use", **record(id=draw(IDS), name=draw(NAMES), input=draw(OBJECTS))}
            )
        elif kind == "text":
            blocks.append({"type": "text", "text": "Hi"})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "thinking": "t", "signature": "s"})
        elif kind == "server":
            blocks.append(
                {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
            )
        else:
            typeless = {"id": "toolu_t", "name": "memory.search", "input": {"query": "q"}}
            blocks.append(draw(st.sampled_from([None, "text", 4, typeless])))
    message = ev.anthropic_message(blocks, "tool_use")
    return sdk(draw, Message, message) if draw(st.booleans()) else blocks


@st.composite
def gemini_content(draw: st.DrawFn) -> dict[str, object]:
    parts: list[object] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["call", "call", "call", "text", "thought", "junk"]))
        if kind == "call":
            call = record(id=draw(IDS), name=draw(NAMES), args=draw(OBJECTS))
            part: dict[str, object] = {"functionCall": call}
            if draw(st.booleans()):
                part["thoughtSignature"] = "c2ln"
            parts.append(part)
        elif kind == "text":
            parts.append({"text": "Hi"})
        elif kind == "thought":
            parts.append({"text": "t", "thought": True})
        else:
            parts.append(draw(st.sampled_from([None, 7, "text", {"functionCall": None}])))
    return {"role": "model", "parts": parts}


@st.composite
def gemini_reply(draw: st.DrawFn) -> object:
    candidates = [
        {"index": i, "content": draw(gemini_content())} for i in range(draw(st.integers(1, 3)))
    ]
    response = {"candidates": candidates, "modelVersion": "m"}
    level = draw(st.sampled_from(["response", "candidate", "content", "parts"]))
    if level == "response":
        return sdk(draw, gemini.GenerateContentResponse, response)
    if level == "candidate":
        return candidates[0]
    content = candidates[0]["content"]
    return content if level == "content" else content["parts"]  # type: ignore[index]


def sdk(draw: st.DrawFn, model: Any, reply: object) -> object:
    """The reply as the SDK's object when its types take it (and hypothesis chooses so)."""
    if draw(st.booleans()):
        try:
            return model.model_validate(reply)
        except ValueError:
            pass
    return reply


REPLIES = {
    "openai_chat": chat_reply(),
    "openai_responses": responses_reply(),
    "anthropic": anthropic_reply(),
    "gemini": gemini_reply(),
}


# ---------------------------------------------------------------------------------------------
# (a) every result answers exactly one call of the history, and every call is answered


def history_calls(provider: str, turn: Any) -> list[tuple[object, object]]:
    """The catalog-kind calls the history holds, in order: (id, name); a Gemini call without an
    id has id None."""
    if provider == "openai_chat":
        calls = turn.get("tool_calls", [])
        return [(c["id"], c["function"]["name"]) for c in calls if field(c, "type") == "function"]
    if provider == "openai_responses":
        return [(i["call_id"], i["name"]) for i in turn if field(i, "type") == "function_call"]
    if provider == "anthropic":
        return [(b["id"], b["name"]) for b in turn["content"] if field(b, "type") == "tool_use"]
    found = []
    for part in turn["parts"]:
        call = field(part, "functionCall") or field(part, "function_call")
        if isinstance(part, dict) and isinstance(call, dict):
            found.append((call.get("id"), call["name"]))
    return found


def answers(provider: str, pkg: ModuleType, results: list[Any]) -> list[tuple[object, object]]:
    """What the results answer, in order: (id, name)."""
    if provider == "openai_chat":
        return [(m["tool_call_id"], None) for m in pkg.to_openai_chat(results)]
    if provider == "openai_responses":
        return [(o["call_id"], None) for o in pkg.to_openai_responses(results)]
    if provider == "anthropic":
        return [(b["tool_use_id"], None) for b in pkg.to_anthropic(results)]
    parts = pkg.to_gemini(results, pkg.PROVIDER_NAMES["gemini"])
    return [(p["functionResponse"].get("id"), p["functionResponse"]["name"]) for p in parts]


@PROPERTY
@given(data=st.data())
@pytest.mark.parametrize("provider", PROVIDERS)
def test_results_answer_exactly_the_calls_of_the_history(
    pkg: ModuleType, provider: str, data: st.DataObject
) -> None:
    """Issue 33 item 4: for any reply, `to_*` of the requests' results answers each call of
    `history_*` once, and nothing else (OpenAI and Anthropic pair by id; Gemini by position, name
    and the id where the call has one)."""
    reply = data.draw(REPLIES[provider])
    requests = getattr(pkg, f"from_{provider}")(reply)
    executor = pkg.Executor({"memory.search": search, "read_file": read})
    results = [executor.execute(request) for request in requests]
    turn = getattr(pkg, f"history_{provider}")(reply)
    calls = history_calls(provider, turn)
    answered = answers(provider, pkg, results)
    if provider != "gemini":
        ids = [call_id for call_id, _ in calls]
        assert Counter(ids) == Counter(call_id for call_id, _ in answered)
        assert len(set(ids)) == len(ids)
        return
    assert len(calls) == len(answered)
    for (call_id, name), (answer_id, answer_name) in zip(calls, answered, strict=True):
        assert call_id is None or call_id == answer_id
        # The response names the tool as Gemini was sent it, which is the call's name unless
        # the model wrote another provider's alias of it (`memory_search`): the same tool.
        assert wire(pkg, name) == wire(pkg, answer_name)


def wire(pkg: ModuleType, name: object) -> object:
    """The tool a name stands for (its wire name), as the package's parse reads it."""
    return pkg.parse(name, "{}", "").tool_name if isinstance(name, str) and name else name


# ---------------------------------------------------------------------------------------------
# The cases the issue names, one by one.


def test_a_second_choice_is_neither_read_nor_written(pkg: ModuleType) -> None:
    """Issue 33 item 4: a reply with two choices: the first is the turn, in the requests and in
    the history alike."""
    first = {"role": "assistant", "tool_calls": [chat_call("c1", "read_file", '{"filePath": "a"}')]}
    second = {"role": "assistant", "tool_calls": [chat_call("c2", "memory.search", "{}")]}
    completion = {"choices": [{"index": 0, "message": first}, {"index": 1, "message": second}]}
    assert [r.tool_call_id for r in pkg.from_openai_chat(completion)] == ["c1"]
    assert [c["id"] for c in pkg.history_openai_chat(completion)["tool_calls"]] == ["c1"]
    # Another choice is read when it is passed itself.
    assert [r.tool_call_id for r in pkg.from_openai_chat(completion["choices"][1])] == ["c2"]


def chat_call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_legacy_function_call_goes_back_as_the_call_its_result_answers(pkg: ModuleType) -> None:
    """Issue 33 item 4: a legacy `function_call` (cut off) is a request and a history call with
    the same id; the history writes it as a tool call, which the `tool` message answers."""
    cut = {"name": "memory.search", "arguments": '{"query": "a'}
    message = {"role": "assistant", "content": None, "function_call": cut}
    (request,) = pkg.from_openai_chat(message)
    assert (request.tool_call_id, request.errors) == (
        "call_0",
        ("truncated_arguments", "missing_required:query"),
    )
    assert pkg.history_openai_chat(message) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [chat_call("call_0", "memory.search", '{"limit": 3}')],
    }


def test_none_among_tool_calls_is_nothing(pkg: ModuleType) -> None:
    """Issue 33 item 4: a `None` item is no call, in the requests and in the history alike."""
    message = {"role": "assistant", "tool_calls": [None, chat_call("c1", "read_file", "{}")]}
    assert [r.tool_call_id for r in pkg.from_openai_chat(message)] == ["c1"]
    assert [c["id"] for c in pkg.history_openai_chat(message)["tool_calls"]] == ["c1"]


@pytest.mark.parametrize(
    ("block", "code"),
    [
        ("text", "malformed_response:str"),
        (4, "malformed_response:int"),
        (
            {"id": "toolu_t", "name": "memory.search", "input": {"query": "q"}},
            "malformed_response:dict",
        ),
    ],
    ids=["string", "number", "typeless"],
)
def test_an_anthropic_block_that_is_no_block_is_refused_and_answered(
    pkg: ModuleType, block: object, code: str
) -> None:
    """Issue 33 item 4: a string, a number or a block without `type` is not run (a typeless
    block was run as a call); its refusal has its call in the history."""
    use = {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"filePath": "a"}}
    content = [{"type": "text", "text": "Hi"}, block, use]
    requests = pkg.from_anthropic(content)
    assert [(r.tool_call_id, r.errors) for r in requests] == [("call_0", (code,)), ("toolu_a", ())]
    assert pkg.history_anthropic(content)["content"] == [
        {"type": "text", "text": "Hi"},
        {"type": "tool_use", "id": "call_0", "name": "", "input": {}},
        use,
    ]


def test_a_gemini_call_without_args_streams_as_it_reads_whole(pkg: ModuleType) -> None:
    """Issue 33 item 4: a `functionCall` without `args` has no arguments (`""`) in the stream
    as in the whole reply (the stream said `{}`)."""
    call = ("", "memory.search", "")
    (whole,) = pkg.from_gemini(ev.gemini_final([call]))
    (streamed,) = list(pkg.from_gemini_stream(ev.gemini_events([call])))
    assert whole == streamed
    assert (whole.raw_arguments, whole.errors) == ("", ("missing_required:query",))


class AIMessage:
    """What LangChain's `AIMessage` holds, by attribute: no shape of any provider's reply."""

    type = "ai"
    content = ""
    tool_calls: ClassVar = [
        {"name": "read_file", "args": {"filePath": "a"}, "id": "lc1", "type": "tool_call"}
    ]
    invalid_tool_calls: ClassVar = [{"name": "read_file", "args": "{", "id": "lc2", "error": "bad"}]
    additional_kwargs: ClassVar[dict[str, object]] = {}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_unknown_shape_is_reported_not_passed_through(pkg: ModuleType, provider: str) -> None:
    """Issue 35 item 5: an `AIMessage` given to an adapter is a refused request naming its type
    (it gave `[]`), and the history holds the refused call, not LangChain's own tool-call dicts
    (`history_openai_chat` passed them through)."""
    refusal = pkg.RefusedRequest("", "call_0", "", None, {}, (), ("malformed_response:AIMessage",))
    assert getattr(pkg, f"from_{provider}")(AIMessage()) == [refusal]
    assert history_calls(provider, getattr(pkg, f"history_{provider}")(AIMessage())) == [
        (None if provider == "gemini" else "call_0", "")
    ]


def test_langchain_tool_calls_in_a_chat_message_are_no_tool_calls(pkg: ModuleType) -> None:
    """Issue 35 item 5: LangChain's tool-call dicts are reported where a chat tool call belongs,
    and the history holds their refused calls, not the dicts."""
    assert pkg.history_openai_chat(AIMessage()) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [chat_call("call_0", "", "{}")],
    }
    # Its tool calls in a message are no chat tool calls either.
    message = {"role": "assistant", "tool_calls": AIMessage.tool_calls}
    assert [r.errors for r in pkg.from_openai_chat(message)] == [("malformed_response:dict",)]
    assert pkg.history_openai_chat(message)["tool_calls"] == [chat_call("call_0", "", "{}")]


# ---------------------------------------------------------------------------------------------
# (b) a stream gives the requests of its whole reply

CALL_NAMES = st.sampled_from(["memory.search", "memory_search", "read_file", "nope"])
OBJECT_TEXTS = [
    '{"query": "q"}',
    '{"query": "q", "limit": "2"}',
    '{"filePath": "a", "startLine": 3}',
]
ANY_TEXTS = [*OBJECT_TEXTS, "", "{", "not json", "[1]", '{"query": "q",}']


@st.composite
def calls(draw: st.DrawFn, texts: list[str]) -> list[ev.Call]:
    count = draw(st.integers(0, 4))
    ids = draw(
        st.lists(st.sampled_from(["c1", "c2", "c3", "c4", ""]), min_size=count, max_size=count)
    )
    ids = [call_id if call_id not in ids[:i] else "" for i, call_id in enumerate(ids)]
    return [(call_id, draw(CALL_NAMES), draw(st.sampled_from(texts))) for call_id in ids]


def on_choice(events: list[ev.Event], index: int) -> list[ev.Event]:
    """Chat chunks or Gemini chunks of another choice (candidate)."""
    moved = json.loads(json.dumps(events))
    for event in moved:
        for choice in event.get("choices") or event.get("candidates") or []:
            choice["index"] = index
    return moved


def chat_completion(choices: list[dict[str, Any]]) -> dict[str, Any]:
    listed = [
        {"index": i, "finish_reason": "tool_calls", "message": m} for i, m in enumerate(choices)
    ]
    return {"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": listed}


def interleave(first: list[ev.Event], second: list[ev.Event]) -> Iterator[ev.Event]:
    for at in range(max(len(first), len(second))):
        yield from first[at : at + 1]
        yield from second[at : at + 1]


@st.composite
def stream_and_reply(draw: st.DrawFn) -> tuple[str, list[ev.Event], object]:
    provider = draw(st.sampled_from(PROVIDERS))
    size = draw(st.integers(1, 9))
    texts = ANY_TEXTS if provider.startswith("openai") else [*OBJECT_TEXTS, ""]
    made = draw(calls(texts))
    if provider == "openai_chat":
        events = ev.chat_events(made, size)
        messages = [ev.chat_message(made)]
        if not made and draw(st.booleans()):  # the legacy form: one call, no tool_calls
            legacy = {"name": draw(CALL_NAMES), "arguments": draw(st.sampled_from(texts))}
            events = [ev.chat_chunk({"role": "assistant"})]
            events += [
                ev.chat_chunk({"function_call": {"name": legacy["name"], "arguments": piece}})
                if at == 0
                else ev.chat_chunk({"function_call": {"arguments": piece}})
                for at, piece in enumerate(ev.pieces(legacy["arguments"], size))
            ]
            events.append(ev.chat_chunk({}, "function_call"))
            messages = [{"role": "assistant", "content": None, "function_call": legacy}]
        if draw(st.booleans()):  # a second choice, streamed alongside
            other = draw(calls(texts))
            events = list(interleave(events, on_choice(ev.chat_events(other, size), 1)))
            messages.append(ev.chat_message(other))
        whole: object = chat_completion(messages)
        model: Any = ChatCompletion
    elif provider == "openai_responses":
        events, whole, model = ev.responses_events(made, size), ev.responses_final(made), Response
    elif provider == "anthropic":
        events, whole, model = ev.anthropic_events(made, size), ev.anthropic_final(made), Message
    else:
        events, whole = ev.gemini_events(made), ev.gemini_final(made)
        if draw(st.booleans()):  # a second candidate
            other = draw(calls(texts))
            events = list(interleave(events, on_choice(ev.gemini_events(other), 1)))
            second = ev.gemini_final(other)["candidates"][0]
            whole["candidates"].append({**second, "index": 1})
        model = gemini.GenerateContentResponse
    return provider, events, sdk(draw, model, whole)


async def agen(events: list[ev.Event]) -> AsyncIterator[ev.Event]:
    for event in events:
        yield event


async def alist(stream: Any) -> list[Any]:
    return [item async for item in stream]


@PROPERTY
@given(stream_and_reply())
def test_a_stream_gives_the_requests_of_its_whole_reply(
    pkg: ModuleType, case: tuple[str, list[ev.Event], object]
) -> None:
    """Issue 33 item 4: for a valid reply (calls with and without ids and arguments, arguments
    that are no JSON, a legacy `function_call`, a second choice or candidate), the stream made
    of it gives the requests `from_*` gives on the whole reply, field for field."""
    provider, events, whole = case
    expected = getattr(pkg, f"from_{provider}")(whole)
    reader = getattr(pkg, f"from_{provider}_stream")(events)
    assert list(reader) == expected
    assert reader.problems == []
    assert asyncio.run(alist(getattr(pkg, f"from_{provider}_stream")(agen(events)))) == expected


# ---------------------------------------------------------------------------------------------
# Issue 35 item 4: a stream iterable both ways (LiteLLM's `CustomStreamWrapper`)


class BothWays:
    """A stream that is iterable and async iterable, as LiteLLM's is."""

    def __init__(self, events: list[ev.Event]) -> None:
        self.events = events

    def __iter__(self) -> Iterator[ev.Event]:
        return iter(self.events)

    def __aiter__(self) -> AsyncIterator[ev.Event]:
        return agen(self.events)


CALLS = [("c1", "read_file", '{"filePath": "a"}'), ("c2", "memory.search", '{"query": "q"}')]


def test_a_stream_iterable_both_ways_is_read_as_it_is_used(pkg: ModuleType) -> None:
    """Issue 35 item 4: `for` reads it (it failed: 'AsyncCallStream' object is not iterable),
    and so does `async for`; once one way has begun, the other yields nothing and says so."""
    expected = pkg.from_openai_chat(ev.chat_message(CALLS))
    assert list(pkg.from_openai_chat_stream(BothWays(ev.chat_events(CALLS)))) == expected
    stream = pkg.from_openai_chat_stream(BothWays(ev.chat_events(CALLS)))
    assert asyncio.run(alist(stream)) == expected and stream.problems == []
    stream = pkg.from_openai_chat_stream(BothWays(ev.chat_events(CALLS)))
    assert next(stream) == expected[0]
    assert asyncio.run(alist(stream)) == []
    assert [p.reason for p in stream.problems] == ["malformed_stream"]
    assert list(stream) == expected[1:]

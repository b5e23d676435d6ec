"""End to end, streaming: the real `openai`, `anthropic` and `google-genai` clients read server-sent
events from the stub server on 127.0.0.1 (each provider's documented event sequence, and the
shapes of known SDK and gateway bugs); the stream readers give each call as it completes, equal
to what the whole-message adapters give on the message the SDK accumulated."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import openai
from google import genai
from google.genai import types as gemini

from tests import stream_events as ev
from tests import test_provider_clients as clients
from tests.test_provider_clients import READ, UPDATE, USER, Stub, expected, tools_for

# The stub server and the built package, as the whole-reply tests have them.
pkg = clients.pkg
stub_server = clients.stub_server
stub = clients.stub

READ_TEXT, UPDATE_TEXT = json.dumps(READ), json.dumps(UPDATE)


def calls(first: str, second: str) -> list[ev.Call]:
    return [(first, "read_file", READ_TEXT), (second, "update_config", UPDATE_TEXT)]


def chat_sse(events: list[ev.Event]) -> list[tuple[str | None, object]]:
    return [*((None, event) for event in events), (None, "[DONE]")]


def named_sse(events: list[ev.Event]) -> list[tuple[str | None, object]]:
    return [(event["type"], event) for event in events]


def openai_client(stub: Stub) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def test_openai_chat_stream(pkg: Any, stub: Stub) -> None:
    stub.streams["/v1/chat/completions"] = chat_sse(
        ev.chat_events(calls("call_read", "call_update"))
    )
    client = openai_client(stub)
    tools = tools_for(pkg, "openai_chat")
    messages: Any = [{"role": "user", "content": USER}]
    raw = client.chat.completions.create(
        model="gpt-test", messages=messages, tools=tools, stream=True
    )
    stream = pkg.from_openai_chat_stream(raw)
    assert list(stream) == expected(pkg, "call_read", "call_update")
    assert stream.problems == []
    # The SDK's own accumulator over the same events: its message, read whole, is the same.
    with client.chat.completions.stream(model="gpt-test", messages=messages, tools=tools) as sdk:
        streamed = list(pkg.from_openai_chat_stream(sdk))
        final = sdk.get_final_completion()
    assert streamed == pkg.from_openai_chat(final) == expected(pkg, "call_read", "call_update")
    assert [body["stream"] for _, body in stub.received] == [True, True]


def test_openai_chat_stream_bug_shapes(pkg: Any, stub: Stub) -> None:
    client = openai_client(stub)
    messages: Any = [{"role": "user", "content": USER}]
    tools = tools_for(pkg, "openai_chat")
    both = calls("call_read", "call_update")
    shapes = {
        # openai-python #2806: no `index` (Gemini's OpenAI-compatible endpoint)
        "missing index": (ev.chat_events_without_index(both), "stream_index_missing", True),
        # openai-python #3201: entries sharing an index in one chunk
        "duplicate index": (ev.chat_events_duplicate_index(both), "", False),
        # gateways flattening parallel calls onto index 0
        "index reused": (ev.chat_events_index_reused(both), "stream_index_reused", False),
        # the whole arguments sent twice
        "repeated": (
            ev.chat_events_arguments_repeated(both),
            "stream_duplicate_arguments_ignored",
            True,
        ),
    }
    for name, (events, code, on_first) in shapes.items():
        stub.streams["/v1/chat/completions"] = chat_sse(events)
        raw = client.chat.completions.create(
            model="gpt-test", messages=messages, tools=tools, stream=True
        )
        read, update = pkg.from_openai_chat_stream(raw)
        want_read, want_update = expected(pkg, "call_read", "call_update")
        extra = (code,) if code else ()
        assert read == want_read._replace(
            warnings=(extra if on_first else ()) + want_read.warnings
        ), name
        assert update == want_update._replace(warnings=extra + want_update.warnings), name


def test_openai_chat_stream_cut_off_by_the_server(pkg: Any, stub: Stub) -> None:
    events = ev.chat_events(calls("call_read", "call_update"))
    stub.streams["/v1/chat/completions"] = [(None, e) for e in events[:-6]]  # no [DONE] either
    raw = openai_client(stub).chat.completions.create(
        model="gpt-test",
        messages=[{"role": "user", "content": USER}],
        tools=tools_for(pkg, "openai_chat"),
        stream=True,
    )
    read, update = pkg.from_openai_chat_stream(raw)
    assert read == expected(pkg, "call_read", "call_update")[0]
    assert update.tool_call_id == "call_update" and not update.ok
    assert "truncated_arguments" in update.errors


def test_async_openai_chat_stream_runs_each_call_as_it_completes(pkg: Any, stub: Stub) -> None:
    stub.streams["/v1/chat/completions"] = chat_sse(
        ev.chat_events(calls("call_read", "call_update"))
    )

    async def run() -> list[Any]:
        client = openai.AsyncOpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)
        raw = await client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": USER}],
            tools=tools_for(pkg, "openai_chat"),
            stream=True,
        )
        executor = pkg.Executor(
            {
                "read_file": lambda args: f"{args.file_path}:{args.start_line}",
                "update_config": lambda args: args.settings.mode,
            }
        )
        results = [r async for r in executor.aexecute_stream(pkg.from_openai_chat_stream(raw))]
        await client.close()
        return results

    results = asyncio.run(run())
    assert [(r.tool_call_id, r.status, r.content) for r in results] == [
        ("call_read", "success", "README.md:3"),
        ("call_update", "success", "safe"),
    ]
    assert pkg.to_openai_chat(results)[0]["tool_call_id"] == "call_read"


# ---------------------------------------------------------------------------------------------
# OpenAI Responses


def test_openai_responses_stream(pkg: Any, stub: Stub) -> None:
    events = ev.responses_events(calls("call_read", "call_update"))
    stub.streams["/v1/responses"] = named_sse(events)
    client = openai_client(stub)
    tools = tools_for(pkg, "openai_responses")
    raw = client.responses.create(model="gpt-test", input=USER, tools=tools, stream=True)
    stream = pkg.from_openai_responses_stream(raw)
    assert list(stream) == expected(pkg, "call_read", "call_update")
    assert stream.problems == []
    with client.responses.stream(model="gpt-test", input=USER, tools=tools) as sdk:
        streamed = list(pkg.from_openai_responses_stream(sdk))
        final = sdk.get_final_response()
    assert streamed == pkg.from_openai_responses(final)
    assert streamed == expected(pkg, "call_read", "call_update")


def test_openai_responses_stream_with_duplicated_events(pkg: Any, stub: Stub) -> None:
    events = ev.responses_events(calls("call_read", "call_update"))
    stub.streams["/v1/responses"] = named_sse([e for event in events for e in (event, event)])
    raw = openai_client(stub).responses.create(
        model="gpt-test", input=USER, tools=tools_for(pkg, "openai_responses"), stream=True
    )
    stream = pkg.from_openai_responses_stream(raw)
    assert list(stream) == expected(pkg, "call_read", "call_update")
    assert {p.reason for p in stream.problems} == {"duplicate_event"}


# ---------------------------------------------------------------------------------------------
# Anthropic


def anthropic_client(stub: Stub) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=stub.url, api_key="test", max_retries=0)


def test_anthropic_stream(pkg: Any, stub: Stub) -> None:
    stub.streams["/v1/messages"] = named_sse(
        ev.anthropic_events(calls("toolu_read", "toolu_update"))
    )
    client = anthropic_client(stub)
    tools = tools_for(pkg, "anthropic")
    request: Any = {
        "model": "claude-test",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": USER}],
        "tools": tools,
    }
    raw = client.messages.create(**request, stream=True)
    stream = pkg.from_anthropic_stream(raw)
    assert list(stream) == expected(pkg, "toolu_read", "toolu_update")
    assert stream.problems == []
    # The SDK's MessageStream (its own events beside the raw ones), and its accumulated message.
    with client.messages.stream(**request) as sdk:
        streamed = list(pkg.from_anthropic_stream(sdk))
        final = sdk.get_final_message()
    assert streamed == pkg.from_anthropic(final) == expected(pkg, "toolu_read", "toolu_update")


def test_anthropic_fine_grained_stream_cut_off(pkg: Any, stub: Stub) -> None:
    # Fine-grained tool streaming: JSON as the model writes it (here with a trailing comma), and
    # the connection drops inside the second block.
    sloppy = READ_TEXT[:-1] + ",}"
    events = ev.anthropic_events(
        [("toolu_read", "read_file", sloppy), ("toolu_update", "update_config", UPDATE_TEXT)],
        size=5,
    )
    second = next(
        i for i, e in enumerate(events) if e.get("content_block", {}).get("id") == "toolu_update"
    )
    stub.streams["/v1/messages"] = named_sse(events[: second + 3])
    raw = anthropic_client(stub).messages.create(
        model="claude-test",
        max_tokens=1024,
        messages=[{"role": "user", "content": USER}],
        tools=tools_for(pkg, "anthropic"),
        stream=True,
    )
    read, update = pkg.from_anthropic_stream(raw)
    want = expected(pkg, "toolu_read", "toolu_update")[0]
    assert read.values == want.values and read.ok
    assert read.warnings == ("trailing_comma_removed", *want.warnings)
    assert update.tool_call_id == "toolu_update" and "truncated_arguments" in update.errors
    assert update.raw_arguments == UPDATE_TEXT[:10]


def test_async_anthropic_stream(pkg: Any, stub: Stub) -> None:
    stub.streams["/v1/messages"] = named_sse(
        ev.anthropic_events(calls("toolu_read", "toolu_update"))
    )

    async def run() -> list[Any]:
        client = anthropic.AsyncAnthropic(base_url=stub.url, api_key="test", max_retries=0)
        raw = await client.messages.create(
            model="claude-test",
            max_tokens=1024,
            messages=[{"role": "user", "content": USER}],
            tools=tools_for(pkg, "anthropic"),
            stream=True,
        )
        requests = [r async for r in pkg.from_anthropic_stream(raw)]
        await client.close()
        return requests

    assert asyncio.run(run()) == expected(pkg, "toolu_read", "toolu_update")


def test_async_anthropic_agent_loop_streams(pkg: Any, stub: Stub) -> None:
    """The streaming agent loop of docs/executor.md as written, against two turns of the stub."""
    answer = "README.md line 3 is read; safe mode is on."
    stub.turns["/v1/messages"] = [
        named_sse(ev.anthropic_events(calls("toolu_read", "toolu_update"))),
        named_sse(ev.anthropic_events([], text=answer)),
    ]
    read = lambda args: f"{args.file_path}:{args.start_line}"
    search = lambda args: []

    async def agent(question: str) -> str:
        client = anthropic.AsyncAnthropic(base_url=stub.url, api_key="test", max_retries=0)
        executor = pkg.Executor({"memory.search": search, "read_file": read})
        ANTHROPIC_TOOLS = pkg.ANTHROPIC_TOOLS
        from_anthropic_stream, to_anthropic = pkg.from_anthropic_stream, pkg.to_anthropic
        history_anthropic = pkg.history_anthropic
        messages: list[Any] = [{"role": "user", "content": question}]
        while True:
            async with client.messages.stream(
                model="claude-sonnet-5-5", max_tokens=2048, messages=messages, tools=ANTHROPIC_TOOLS
            ) as stream:
                calls = from_anthropic_stream(stream)
                results = [result async for result in executor.aexecute_stream(calls)]
                reply = await stream.get_final_message()
            messages.append(history_anthropic(reply))
            if not results:
                return str(reply.content[-1].text)
            messages.append({"role": "user", "content": to_anthropic(results)})

    assert asyncio.run(agent(USER)) == answer
    (_, first), (_, second) = stub.received
    assert first["messages"] == [{"role": "user", "content": USER}]
    # The second turn sent the results back: the read ran, the update had no handler.
    assert [
        (block["id"], type(block["input"]))
        for block in second["messages"][1]["content"]
        if block["type"] == "tool_use"
    ] == [("toolu_read", dict), ("toolu_update", dict)]
    results = second["messages"][2]["content"]
    assert [(r["tool_use_id"], r.get("is_error", False)) for r in results] == [
        ("toolu_read", False),
        ("toolu_update", True),
    ]
    assert results[0]["content"] == "README.md:3"


# ---------------------------------------------------------------------------------------------
# Gemini


def test_gemini_stream(pkg: Any, stub: Stub) -> None:
    events = ev.gemini_events(calls("", "fc-update"))
    stub.streams["/v1beta/models/gemini-test:streamGenerateContent"] = [(None, e) for e in events]
    options = gemini.HttpOptions(base_url=stub.url, api_version="v1beta")
    client = genai.Client(api_key="test", http_options=options)
    config = gemini.GenerateContentConfig(
        tools=[gemini.Tool(function_declarations=tools_for(pkg, "gemini"))]
    )
    chunks = list(
        client.models.generate_content_stream(model="gemini-test", contents=USER, config=config)
    )
    stream = pkg.from_gemini_stream(iter(chunks))
    # The first call came without an id: it gets its position, as in the whole reply.
    assert list(stream) == pkg.from_gemini(chunks) == expected(pkg, "call_0", "fc-update")
    assert stream.problems == []

    async def run() -> list[Any]:
        source = await client.aio.models.generate_content_stream(
            model="gemini-test", contents=USER, config=config
        )
        return [r async for r in pkg.from_gemini_stream(source)]

    assert asyncio.run(run()) == expected(pkg, "call_0", "fc-update")


def test_gemini_stream_of_streamed_function_call_arguments(pkg: Any, stub: Stub) -> None:
    # Vertex AI's streamFunctionCallArguments shape, parsed by the SDK's own types on the way.
    values: list[tuple[str, object, bool]] = [
        ("$.settings.timeout", 30, False),
        ("$.settings.mode", "SA", True),
        ("$.settings.mode", "FE", False),
        ("$.dryRun", "true", False),
    ]
    events = ev.vertex_streamed_call("update_config", values, "fc-update")
    stub.streams["/v1beta/models/gemini-test:streamGenerateContent"] = [(None, e) for e in events]
    options = gemini.HttpOptions(base_url=stub.url, api_version="v1beta")
    client = genai.Client(api_key="test", http_options=options)
    chunks = client.models.generate_content_stream(model="gemini-test", contents=USER)
    (request,) = pkg.from_gemini_stream(chunks)
    assert request == expected(pkg, "call_read", "fc-update")[1]

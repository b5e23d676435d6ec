"""The stream readers (`from_*_stream`): each call yielded as soon as it is complete, parsed by its
tool's parser, equal to what the whole-message adapter gives; cut calls are errors; odd streams
(the shapes of known SDK and gateway bugs) keep every call apart, with a code saying what was odd;
and `Executor.aexecute_stream` starts each call as it arrives."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import stream_events as ev
from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent

READ = json.dumps({"filePath": "README.md", "startLine": "3"})
UPDATE = json.dumps({"settings": {"timeout": 30, "mode": "SAFE"}, "dryRun": "true"})
CALLS: list[ev.Call] = [("call_read", "read_file", READ), ("call_update", "update_config", UPDATE)]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("pkg"))


# provider → (its events for calls, the whole message they add up to, the reader, the adapter)
PROVIDERS: dict[str, tuple[Callable[[list[ev.Call]], list[ev.Event]], Callable[..., Any], str]] = {
    "openai_chat": (ev.chat_events, ev.chat_message, "openai_chat"),
    "openai_responses": (ev.responses_events, ev.responses_final, "openai_responses"),
    "anthropic": (ev.anthropic_events, ev.anthropic_final, "anthropic"),
    "gemini": (ev.gemini_events, lambda calls: ev.gemini_events(calls), "gemini"),
}


def read(pkg: ModuleType, provider: str, events: Iterable[object], **options: Any) -> Any:
    return getattr(pkg, f"from_{provider}_stream")(events, **options)


def whole(pkg: ModuleType, provider: str, message: object) -> list[Any]:
    return list(getattr(pkg, f"from_{provider}")(message))


async def agen(events: Iterable[object]) -> AsyncIterator[object]:
    for event in events:
        await asyncio.sleep(0)
        yield event


async def alist(stream: Any) -> list[Any]:
    return [item async for item in stream]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_valid_stream_gives_what_the_whole_message_gives(pkg: ModuleType, provider: str) -> None:
    events_for, message_for, name = PROVIDERS[provider]
    calls = CALLS if provider != "gemini" else [("", "read_file", READ), *CALLS[1:]]
    expected = whole(pkg, name, message_for(calls))
    assert [r.tool_name for r in expected] == ["read_file", "update_config"]
    assert all(r.ok for r in expected)
    stream = read(pkg, name, events_for(calls))
    assert list(stream) == expected
    assert stream.problems == []
    astream = read(pkg, name, agen(events_for(calls)))
    assert isinstance(astream, pkg.AsyncCallStream)
    assert asyncio.run(alist(astream)) == expected
    assert astream.problems == []


@pytest.mark.parametrize(
    ("provider", "completes_at"),
    [
        # chat: the first call is whole once the second call's first chunk arrives
        ("openai_chat", lambda events: 2 + len(ev.pieces(READ, 7)) + 1),
        # responses: at `response.function_call_arguments.done` of the first item
        ("openai_responses", lambda events: 2 + 1 + len(ev.pieces(READ, 7)) + 1),
        # anthropic: at the first tool_use block's content_block_stop
        ("anthropic", lambda events: 5 + 1 + len(ev.pieces(READ, 7)) + 1),
        # gemini: the chunk holding the call
        ("gemini", lambda events: 2),
    ],
)
def test_the_first_call_comes_before_the_rest_of_the_stream_is_read(
    pkg: ModuleType, provider: str, completes_at: Callable[[list[ev.Event]], int]
) -> None:
    events = PROVIDERS[provider][0](CALLS)
    consumed: list[int] = []

    def source() -> Iterator[ev.Event]:
        for event in events:
            consumed.append(1)
            yield event

    stream = read(pkg, provider, source())
    first = next(stream)
    assert first.tool_name == "read_file" and first.ok
    assert len(consumed) == completes_at(events) < len(events)
    assert [r.tool_name for r in stream] == ["update_config"]


@pytest.mark.parametrize("provider", ["openai_chat", "openai_responses", "anthropic"])
def test_a_stream_cut_inside_a_call_yields_it_as_truncated(pkg: ModuleType, provider: str) -> None:
    events = PROVIDERS[provider][0](CALLS)
    # Cut two pieces into the second call's arguments.
    second_start = next(i for i, e in enumerate(events) if "call_update" in json.dumps(e))
    requests = list(read(pkg, provider, events[: second_start + 3]))
    assert [r.tool_name for r in requests] == ["read_file", "update_config"]
    assert requests[0].ok
    cut = requests[1]
    assert cut.tool_call_id == "call_update"
    assert "truncated_arguments" in cut.errors and cut.arguments is None and not cut.ok
    assert cut.raw_arguments == UPDATE[:14]


def test_a_stream_cut_before_any_arguments_is_truncated_too(pkg: ModuleType) -> None:
    events = ev.chat_events(CALLS)[:2]  # the first call's start, nothing more
    (request,) = read(pkg, "openai_chat", events)
    assert request.errors == ("truncated_arguments",) or "truncated_arguments" in request.errors
    assert not request.ok


def test_whole_arguments_without_a_finish_still_run_with_a_warning(pkg: ModuleType) -> None:
    events = ev.chat_events(CALLS)[:-2]  # no finish_reason chunk
    first, second = read(pkg, "openai_chat", events)
    assert first.ok and first.warnings == ("string_literal_converted_to_integer:startLine",)
    assert second.ok and second.warnings[0] == "stream_ended_early"


# ---------------------------------------------------------------------------------------------
# OpenAI chat: the shapes of known bugs


def expected_calls(pkg: ModuleType, *warnings: tuple[str, ...]) -> list[Any]:
    out = []
    for (call_id, name, arguments), extra in zip(CALLS, warnings, strict=True):
        request = pkg.parse(name, arguments, call_id)
        out.append(request._replace(warnings=extra + request.warnings))
    return out


def test_chat_calls_without_an_index_stay_apart(pkg: ModuleType) -> None:
    stream = read(pkg, "openai_chat", ev.chat_events_without_index(CALLS))
    missing = ("stream_index_missing",)
    assert list(stream) == expected_calls(pkg, missing, missing)


def test_chat_entries_sharing_an_index_in_one_chunk_are_one_call(pkg: ModuleType) -> None:
    stream = read(pkg, "openai_chat", ev.chat_events_duplicate_index(CALLS))
    assert list(stream) == expected_calls(pkg, (), ())
    assert stream.problems == []


def test_chat_calls_reusing_an_index_with_their_own_ids_stay_apart(pkg: ModuleType) -> None:
    stream = read(pkg, "openai_chat", ev.chat_events_index_reused(CALLS))
    assert list(stream) == expected_calls(pkg, (), ("stream_index_reused",))


def test_chat_calls_on_one_index_without_ids_stay_apart(pkg: ModuleType) -> None:
    # The same tool twice, flattened onto index 0 with no ids: after whole arguments, a new
    # value is another call; the same arguments again would be a duplicate.
    other = json.dumps({"filePath": "NOTES.md", "startLine": 1})
    calls = [("", "read_file", READ), ("", "read_file", other)]
    first, second = read(pkg, "openai_chat", ev.chat_events_index_reused(calls))
    assert first == pkg.parse("read_file", READ, "call_0")._replace(
        warnings=("tool_call_id_generated", "string_literal_converted_to_integer:startLine")
    )
    assert second == pkg.parse("read_file", other, "call_1")._replace(
        warnings=("tool_call_id_generated", "stream_index_reused")
    )


def test_chat_arguments_sent_twice_are_read_once(pkg: ModuleType) -> None:
    stream = read(pkg, "openai_chat", ev.chat_events_arguments_repeated(CALLS))
    twice = ("stream_duplicate_arguments_ignored",)
    assert list(stream) == expected_calls(pkg, twice, twice)


def test_chat_interleaved_calls_are_kept_apart(pkg: ModuleType) -> None:
    events = ev.chat_events(CALLS, size=5)
    starts = [e for e in events if "id" in json.dumps(e) and "call_" in json.dumps(e)]
    deltas = [e for e in events[1:-2] if e not in starts]
    first = [e for e in deltas if e["choices"][0]["delta"]["tool_calls"][0]["index"] == 0]
    second = [e for e in deltas if e["choices"][0]["delta"]["tool_calls"][0]["index"] == 1]
    mixed: list[ev.Event] = [events[0], *starts]
    for pair in zip(first, second, strict=False):
        mixed += pair
    longer = first if len(first) > len(second) else second
    mixed += longer[min(len(first), len(second)) :] + events[-2:]
    assert list(read(pkg, "openai_chat", mixed)) == expected_calls(pkg, (), ())


def test_chat_skips_text_usage_and_custom_tool_calls(pkg: ModuleType) -> None:
    custom = {"index": 2, "id": "c", "type": "custom", "custom": {"name": "x", "input": "y"}}
    events = [
        ev.chat_chunk({"content": "Sure."}),
        ev.chat_chunk({"tool_calls": [custom]}),
        ev.chat_chunk({}),
        *ev.chat_events(CALLS),
    ]
    stream = read(pkg, "openai_chat", events)
    assert list(stream) == expected_calls(pkg, (), ())
    assert stream.problems == []


def test_chat_legacy_function_call_streams(pkg: ModuleType) -> None:
    events = [
        ev.chat_chunk({"function_call": {"name": "read_file", "arguments": ""}}),
        *[ev.chat_chunk({"function_call": {"arguments": p}}) for p in ev.pieces(READ, 4)],
        ev.chat_chunk({}, "function_call"),
    ]
    legacy = {"role": "assistant", "function_call": {"name": "read_file", "arguments": READ}}
    assert list(read(pkg, "openai_chat", events)) == whole(pkg, "openai_chat", legacy)


def test_chat_sdk_stream_helper_events_are_read_by_their_chunk(pkg: ModuleType) -> None:
    events = [{"type": "chunk", "chunk": chunk, "snapshot": {}} for chunk in ev.chat_events(CALLS)]
    events.insert(3, {"type": "tool_calls.function.arguments.delta", "index": 0})
    assert list(read(pkg, "openai_chat", events)) == expected_calls(pkg, (), ())


# ---------------------------------------------------------------------------------------------
# OpenAI Responses


def test_responses_duplicate_events_are_dropped_by_sequence_number(pkg: ModuleType) -> None:
    events = ev.responses_events(CALLS)
    doubled = [e for event in events for e in (event, event)]
    stream = read(pkg, "openai_responses", doubled)
    assert list(stream) == expected_calls(pkg, (), ())
    assert [p.reason for p in stream.problems] == ["duplicate_event"] * len(events)
    assert stream.problems[0] == (2, "duplicate_event", "sequence_number 0 (response.created)")


def test_responses_a_call_whose_start_was_lost_keeps_its_deltas(pkg: ModuleType) -> None:
    events = [e for e in ev.responses_events(CALLS) if e["type"] != "response.output_item.added"]
    first, second = read(pkg, "openai_responses", events)
    # Its name and call_id come with the done events; the start's absence is said.
    assert first == expected_calls(pkg, ("stream_call_start_missing",), ())[0]
    assert second.warnings[0] == "stream_call_start_missing" and second.ok


def test_responses_a_call_only_in_the_final_response_is_recovered(pkg: ModuleType) -> None:
    events = ev.responses_events(CALLS)
    kept = [e for e in events if e.get("output_index") != 1]
    first, second = read(pkg, "openai_responses", kept)
    assert first == expected_calls(pkg, (), ())[0]
    assert second == expected_calls(pkg, (), ("stream_call_recovered",))[1]


def test_responses_done_arguments_win_over_missing_deltas(pkg: ModuleType) -> None:
    events = ev.responses_events(CALLS)
    kept = [e for i, e in enumerate(events) if not (e["type"].endswith(".delta") and i % 2)]
    requests = list(read(pkg, "openai_responses", kept))
    assert [r.values for r in requests] == [r.values for r in expected_calls(pkg, (), ())]
    assert all(r.warnings[0] == "stream_arguments_replaced" for r in requests)


def test_responses_an_incomplete_response_cuts_the_open_call(pkg: ModuleType) -> None:
    events = ev.responses_events(CALLS)
    cut = [*events[:-8], {"type": "response.incomplete", "response": ev.response([], "incomplete")}]
    requests = list(read(pkg, "openai_responses", cut))
    assert requests[0].ok
    assert "truncated_arguments" in requests[1].errors


# ---------------------------------------------------------------------------------------------
# Anthropic


def test_anthropic_fine_grained_streaming_invalid_json_is_the_parsers_to_report(
    pkg: ModuleType,
) -> None:
    sloppy = '{"filePath": "README.md", "startLine": 3,}'
    events = ev.anthropic_events([("toolu_1", "read_file", sloppy)], size=4)
    (request,) = read(pkg, "anthropic", events)
    assert request.values == {"filePath": "README.md", "startLine": 3, "encoding": "utf-8"}
    assert request.warnings == ("trailing_comma_removed",)
    assert request.raw_arguments == sloppy and request.ok


def test_anthropic_a_tool_use_without_input_is_an_empty_object(pkg: ModuleType) -> None:
    events = ev.anthropic_events([("toolu_1", "memory.search", "")])
    events = [e for e in events if e.get("delta", {}).get("type") != "input_json_delta"]
    (request,) = read(pkg, "anthropic", events)
    assert request == pkg.parse("memory.search", {}, "toolu_1")


def test_anthropic_odd_blocks(pkg: ModuleType) -> None:
    events = ev.anthropic_events(CALLS)
    start = next(i for i, e in enumerate(events) if e.get("content_block", {}).get("id"))
    events.insert(start + 1, events[start])  # the start sent twice
    server = {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
    events[1:1] = [
        {"type": "content_block_start", "index": 9, "content_block": server},
        {
            "type": "content_block_delta",
            "index": 9,
            "delta": {"type": "input_json_delta", "partial_json": '{"q"'},
        },
        {"type": "content_block_stop", "index": 9},
        {"type": "input_json", "partial_json": "{", "snapshot": {}},  # the SDK's own event
    ]
    stream = read(pkg, "anthropic", events)
    assert list(stream) == expected_calls(pkg, ("stream_duplicate_start_ignored",), ())


def test_anthropic_deltas_without_a_start_are_kept_but_never_run(pkg: ModuleType) -> None:
    calls = [("toolu_1", "read_file", READ), ("toolu_2", "update_config", UPDATE)]
    events = [
        e for e in ev.anthropic_events(calls) if e.get("content_block", {}).get("id") != "toolu_1"
    ]
    lost, second = read(pkg, "anthropic", events)
    assert lost.errors == ("malformed_tool_call:name",)
    assert lost.raw_arguments == READ and lost.tool_call_id == "call_0"
    assert lost.warnings == ("tool_call_id_generated", "stream_call_start_missing")
    assert second.ok and second.tool_call_id == "toolu_2"


def test_anthropic_a_start_after_its_deltas_is_still_one_call(pkg: ModuleType) -> None:
    events = ev.anthropic_events(CALLS)
    start = next(i for i, e in enumerate(events) if e.get("content_block", {}).get("id"))
    events.insert(start + 3, events.pop(start))  # two deltas before their block's start
    stream = read(pkg, "anthropic", events)
    assert list(stream) == expected_calls(pkg, ("stream_call_start_late",), ())


def test_responses_whole_items_complete_calls_the_events_left_open(pkg: ModuleType) -> None:
    events = ev.responses_events(CALLS)
    kept = [e for e in events if not e["type"].endswith((".done", ".added"))]
    stream = read(pkg, "openai_responses", kept)
    # Only deltas (keyed by item id), then `response.completed`: its items give name and call_id.
    assert list(stream) == expected_calls(
        pkg, ("stream_call_start_missing",), ("stream_call_start_missing",)
    )


# ---------------------------------------------------------------------------------------------
# Gemini


def test_gemini_ids_and_duplicates(pkg: ModuleType) -> None:
    events = ev.gemini_events([("", "read_file", READ), ("fc-2", "update_config", UPDATE)])
    events.insert(3, events[2])  # the chunk with fc-2 again
    stream = read(pkg, "gemini", events)
    first, second = stream
    assert first.tool_call_id == "call_0" and first.warnings == (
        "string_literal_converted_to_integer:startLine",
    )
    assert second.tool_call_id == "fc-2" and second.ok
    # Found when the stream ends (event 5): the first call has no id, so it and every call after
    # it wait for the end, when every id the model gave is known (issue 33, call ids).
    assert stream.problems == [(5, "duplicate_call", "the call 'fc-2' came again")]


VERTEX_UPDATE: list[tuple[str, object, bool]] = [
    ("$.settings.timeout", 30, False),
    ("$.settings.mode", "SA", True),
    ("$.settings.mode", "FE", False),
    ("$.dryRun", "true", False),
]


def test_vertex_streamed_function_call_arguments(pkg: ModuleType) -> None:
    from google.genai import types

    events = ev.vertex_streamed_call("update_config", VERTEX_UPDATE)
    want = pkg.parse("update_config", UPDATE, "call_0")
    seen: list[Any] = []
    assert list(read(pkg, "gemini", events, on_partial=seen.append)) == [want]
    # "SA" is no mode yet (the parser keeps no invalid value); the raw text shows it.
    assert [p.values.get("settings", {}).get("mode") for p in seen] == [None, None, "safe", "safe"]
    assert '"mode": "SA"' in seen[1].raw_arguments
    # The SDK's own objects, as `generate_content_stream` gives them (snake_case fields).
    sdk = [types.GenerateContentResponse.model_validate(event) for event in events]
    (request,) = read(pkg, "gemini", sdk)
    assert request.values == want.values and request.ok
    # Cut before the last part: never runs.
    (cut,) = read(pkg, "gemini", events[:-1])
    assert "truncated_arguments" in cut.errors and not cut.ok
    assert cut.values == want.values


def test_vertex_a_path_that_cannot_be_placed_stops_the_call(pkg: ModuleType) -> None:
    events = ev.vertex_streamed_call("update_config", [("$..settings", "x", False)])
    (request,) = read(pkg, "gemini", events)
    assert request.warnings[0] == "stream_partial_arg_unreadable:$..settings"
    assert "truncated_arguments" in request.errors and not request.ok


# ---------------------------------------------------------------------------------------------
# Anything at all


class Hostile:
    @property
    def choices(self) -> object:
        raise RuntimeError("boom")

    type = property(lambda self: 1 / 0)


def broken_source(events: list[object]) -> Iterator[object]:
    yield from events
    raise ConnectionError("peer closed")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_stream_makes_a_reader_raise(pkg: ModuleType, provider: str) -> None:
    events = PROVIDERS[provider][0](CALLS)
    junk: list[object] = [None, 3, "data: [DONE]", b"x", [], {}, {"type": 5}, Hostile(), object()]
    stream = read(pkg, provider, [*junk, *events])
    assert [r.tool_name for r in stream] == ["read_file", "update_config"]
    assert [p.event for p in stream.problems][:4] == [1, 2, 3, 4]
    assert stream.problems[0].reason == "malformed_event"
    # a source that fails part way: what came is kept, the open call is cut, the error reported
    second = next(i for i, e in enumerate(events) if "update_config" in json.dumps(e))
    cut = read(pkg, provider, broken_source(events[: second + 3]))
    requests = list(cut)
    assert [r.tool_name for r in requests] == ["read_file", "update_config"]
    assert requests[0].ok and (provider == "gemini") == requests[1].ok
    assert cut.problems[-1].reason == "stream_error:ConnectionError"
    assert cut.problems[-1].detail == "peer closed"
    # not a stream at all
    nothing = read(pkg, provider, 42)
    assert list(nothing) == []
    assert nothing.problems[0].reason == "malformed_stream"


# ---------------------------------------------------------------------------------------------
# Partial views


def test_partial_views_show_each_call_as_it_streams(pkg: ModuleType) -> None:
    seen: list[Any] = []
    requests = list(
        read(pkg, "anthropic", ev.anthropic_events(CALLS, size=6), on_partial=seen.append)
    )
    assert requests == expected_calls(pkg, (), ())
    reads = [p for p in seen if p.position == 0]
    assert all(isinstance(p, pkg.PartialCall) for p in seen)
    assert [p.raw_arguments for p in reads] == [READ[: i + 6] for i in range(0, len(READ), 6)]
    assert reads[2].raw_arguments == '{"filePath": "READ'
    # A string still being written shows as far as it came; the call's own parse would drop it.
    assert reads[2].values == {"filePath": "READ", "encoding": "utf-8"}
    assert reads[-1].values == requests[0].values
    assert {p.tool_call_id for p in seen} == {"call_read", "call_update"}
    assert {p.tool_name for p in seen} == {"read_file", "update_config"}


# ---------------------------------------------------------------------------------------------
# Executor.aexecute_stream


def test_execute_stream_starts_a_call_before_the_stream_ends(pkg: ModuleType) -> None:
    started = asyncio.Event()
    events = ev.anthropic_events(CALLS)
    first_stop = next(
        i for i, e in enumerate(events) if e == {"type": "content_block_stop", "index": 1}
    )

    async def source() -> AsyncIterator[object]:
        for number, event in enumerate(events):
            if number == first_stop + 1:
                await started.wait()  # the rest comes only once the first call runs
            yield event

    async def read_file(filePath: str, startLine: int, encoding: str) -> str:
        started.set()
        return f"{filePath}:{startLine}"

    executor = pkg.Executor({"read_file": read_file, "update_config": lambda args: "ok"})

    async def run() -> list[Any]:
        return [r async for r in executor.aexecute_stream(pkg.from_anthropic_stream(source()))]

    results = asyncio.run(asyncio.wait_for(run(), 10))
    assert [(r.tool_call_id, r.status, r.content) for r in results] == [
        ("call_read", "success", "README.md:3"),
        ("call_update", "success", "ok"),
    ]


@pytest.mark.parametrize(
    ("ordered", "order"),
    [(True, ["call_read", "call_update"]), (False, ["call_update", "call_read"])],
)
def test_execute_stream_results_in_call_order_or_as_they_finish(
    pkg: ModuleType, ordered: bool, order: list[str]
) -> None:
    async def run() -> list[str]:
        second_done = asyncio.Event()

        async def read_file(args: Any) -> str:
            await second_done.wait()  # the first call finishes after the second
            return "read"

        async def update_config(args: Any) -> str:
            second_done.set()
            return "updated"

        executor = pkg.Executor({"read_file": read_file, "update_config": update_config})
        stream = pkg.from_openai_chat_stream(agen(ev.chat_events(CALLS)))
        return [r.tool_call_id async for r in executor.aexecute_stream(stream, ordered=ordered)]

    assert asyncio.run(asyncio.wait_for(run(), 10)) == order


def test_execute_stream_reads_a_sync_stream_and_refuses_cut_calls(pkg: ModuleType) -> None:
    executor = pkg.Executor({"read_file": lambda args: "read", "update_config": lambda a: "x"})
    events = ev.chat_events(CALLS)[:-6]  # cut inside the second call

    async def run() -> list[Any]:
        stream = pkg.from_openai_chat_stream(iter(events))
        return [r async for r in executor.aexecute_stream(stream)]

    first, second = asyncio.run(run())
    assert first.status == "success" and first.content == "read"
    assert second.status == "rejected" and second.errors[0] == "truncated_arguments"


def test_execute_stream_reports_started_calls_then_the_stream_failure(pkg: ModuleType) -> None:
    executor = pkg.Executor({"read_file": lambda args: "read"})
    requests = [pkg.parse("read_file", READ, "a"), pkg.parse("read_file", READ, "b")]

    async def calls() -> AsyncIterator[Any]:
        for request in requests:
            yield request
        raise ConnectionError("peer closed")

    async def run() -> list[Any]:
        got = []
        with pytest.raises(ConnectionError, match="peer closed"):
            async for result in executor.aexecute_stream(calls()):
                got.append(result)
        return got

    assert [(r.tool_call_id, r.content) for r in asyncio.run(run())] == [
        ("a", "read"),
        ("b", "read"),
    ]


def test_leaving_execute_stream_early_cancels_the_calls_running(pkg: ModuleType) -> None:
    cancelled = []

    async def slow(args: Any) -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(args.file_path)
            raise
        return "never"

    async def run() -> None:
        executor = pkg.Executor({"read_file": slow, "update_config": lambda a: "quick"})
        stream = pkg.from_openai_chat_stream(agen(ev.chat_events(CALLS)))
        results = executor.aexecute_stream(stream, ordered=False)
        first = await anext(results)
        assert first.tool_call_id == "call_update"
        await results.aclose()
        await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(run(), 10))
    assert cancelled == ["README.md"]

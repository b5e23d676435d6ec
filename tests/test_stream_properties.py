"""Hostile streams, generated: every provider's documented sequence for a few calls, cut in pieces
of any size, then mangled (events dropped, duplicated, swapped, cut off, junk inserted, chat
indices removed). Whatever comes, a reader never raises, sync and async agree, no request holds
two calls' arguments, no call whose id reached the reader is lost, and where nothing was lost or
corrupted in the middle (a cut, junk, a missing index, Responses events sent twice) every request
that may run is exactly the call that was sent."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import stream_events as ev
from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BUILDERS = {
    "openai_chat": ev.chat_events,
    "openai_responses": ev.responses_events,
    "anthropic": ev.anthropic_events,
    "gemini": lambda calls, size: ev.gemini_events(calls),
    "gemini vertex": ev.vertex_events,
}
JUNK: list[object] = [
    None,
    7,
    "data: [DONE]",
    {},
    {"type": "ping"},
    {"type": "error", "error": {"type": "overloaded_error"}},
    {"choices": None},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": None}]},
    {"candidates": [{"content": {"parts": [{"text": "hm"}]}}]},
    {"type": "response.output_text.delta", "delta": "hm", "sequence_number": 10_000},
]
MARKER = re.compile(r"M(\d)x")


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("pkg"))


def make_calls(count: int) -> list[ev.Call]:
    return [
        (f"call_{i}", "read_file", json.dumps({"filePath": f"M{i}x.md", "startLine": i}))
        for i in range(count)
    ]


def without_index(event: Any) -> Any:
    if not isinstance(event, dict) or "choices" not in event:
        return event
    text = json.loads(json.dumps(event))
    for choice in text["choices"] or []:
        for call in (choice.get("delta") or {}).get("tool_calls") or []:
            call.pop("index", None)
    return text


@st.composite
def streams(draw: st.DrawFn) -> tuple[str, list[ev.Call], list[object], bool, bool, bool]:
    provider = draw(st.sampled_from(sorted(BUILDERS)))
    calls = make_calls(draw(st.integers(1, 3)))
    events: list[object] = list(BUILDERS[provider](calls, draw(st.integers(1, 12))))
    exact = True  # nothing lost or corrupted in the middle
    unindexed = lost = False
    changes = draw(st.integers(0, 4))
    for _ in range(changes):
        op = draw(st.sampled_from(["cut", "junk", "drop", "duplicate", "swap", "unindex"]))
        at = draw(st.integers(0, max(len(events) - 1, 0)))
        if op == "cut":
            events = events[:at]
        elif op == "junk":
            events.insert(at, draw(st.sampled_from(JUNK)))
        elif op == "unindex":
            events = [without_index(event) for event in events]
            unindexed = provider == "openai_chat"
        elif not events:
            continue
        elif op == "drop":
            del events[at]
            exact, lost = False, True
        elif op == "duplicate":
            events.insert(at, events[at])
            exact = exact and provider == "openai_responses"  # sequence numbers tell
        elif op == "swap" and at + 1 < len(events):
            events[at], events[at + 1] = events[at + 1], events[at]
            exact, lost = False, True
    # Chat deltas with neither an index nor an id, out of order or without their call's start,
    # say nothing of which call they belong to: there, and only there, calls may run together.
    apart = not (unindexed and lost)
    return provider, calls, events, exact, apart, changes == 0


async def agen(events: list[object]) -> AsyncIterator[object]:
    for event in events:
        yield event


async def alist(stream: Any) -> list[Any]:
    return [item async for item in stream]


@PROPERTY
@given(streams())
def test_no_stream_breaks_a_reader(
    pkg: ModuleType, stream: tuple[str, list[ev.Call], list[object], bool, bool, bool]
) -> None:
    provider, calls, events, exact, apart, pristine = stream
    read = getattr(pkg, f"from_{provider.split()[0]}_stream")
    partials: list[Any] = []
    reader = read(events, on_partial=partials.append)
    requests = list(reader)
    areader = read(agen(events))
    assert asyncio.run(alist(areader)) == requests
    assert areader.problems == reader.problems
    assert all(isinstance(r, pkg.ReadyRequest | pkg.RefusedRequest) for r in requests)
    assert all(isinstance(p, pkg.StreamProblem) for p in reader.problems)
    assert all(isinstance(p, pkg.PartialCall) for p in partials)
    # Never two calls in one request.
    for request in requests:
        assert not apart or len(set(MARKER.findall(request.raw_arguments))) <= 1, request
    # Every call whose id reached the reader is a request, or a problem that names it.
    sent = {call_id for call_id, _, _ in calls if call_id in json.dumps(events, default=str)}
    said = " ".join(p.detail for p in reader.problems)
    assert {i for i in sent if i not in said} <= {r.tool_call_id for r in requests}
    expected = {call_id: pkg.parse(name, text, call_id) for call_id, name, text in calls}
    if exact:
        for request in requests:
            if request.ok:
                assert request.values == expected[request.tool_call_id].values
    if pristine:
        assert requests == list(expected.values()) and reader.problems == []
    for request in requests:
        if "truncated_arguments" in request.errors:
            assert not request.ok and request.arguments is None

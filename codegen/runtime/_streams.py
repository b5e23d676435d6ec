"""Streamed provider replies: each tool call parsed the moment it is complete.

A reader takes the events a provider's SDK streams (OpenAI chat chunks, Responses events,
Anthropic message events, Gemini response chunks), as SDK objects or plain dicts, from a sync or
an async iterable, and yields each call's request, in the order the calls began, as soon as that
call and every call before it is complete: with parallel tool calls, the first can run long
before the message ends.

Nothing here raises on any stream. What was odd about one call is a warning code on it (a missing
index, a duplicated start, arguments sent twice); a call cut off is the error
`truncated_arguments`, so it never runs; what concerns no call that can still be yielded (an
event that is not a record, a fragment for a call already yielded, the source failing) is a
`StreamProblem` in the reader's `problems`. Calls are never merged: a new id, a new name or a new
start on an index in use begins another call.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator

from ._assembly import OnPartial, PartialCall, StreamProblem, _Assembler, _text
from ._providers import Parse
from ._runtime import ToolCallRequest
from ._stream_readers import _ASSEMBLERS

__all__ = [
    "AsyncCallStream",
    "CallStream",
    "OnPartial",
    "PartialCall",
    "StreamProblem",
    "read_stream",
]


class CallStream(Iterator[ToolCallRequest[object]]):
    """The calls of a sync stream, each as soon as it is complete; `problems` holds what was
    found that is not a call (read it as it grows, or at the end)."""

    __slots__ = ("_calls", "problems")

    def __init__(self, events: object, assembler: _Assembler) -> None:
        self.problems = assembler.problems
        self._calls = _run(events, assembler)

    def __next__(self) -> ToolCallRequest[object]:
        return next(self._calls)


class AsyncCallStream(AsyncIterator[ToolCallRequest[object]]):
    """The calls of an async stream, each as soon as it is complete; see CallStream."""

    __slots__ = ("_calls", "problems")

    def __init__(self, events: AsyncIterable[object], assembler: _Assembler) -> None:
        self.problems = assembler.problems
        self._calls = _arun(events, assembler)

    async def __anext__(self) -> ToolCallRequest[object]:
        return await anext(self._calls)


def read_stream(
    provider: str,
    events: Iterable[object] | AsyncIterable[object],
    parse: Parse,
    on_partial: OnPartial | None = None,
) -> CallStream | AsyncCallStream:
    """A reader of `provider`'s stream: an async one for an async iterable."""
    assembler = _ASSEMBLERS[provider](parse, on_partial)
    if isinstance(events, AsyncIterable):
        return AsyncCallStream(events, assembler)
    return CallStream(events, assembler)


def _run(events: object, assembler: _Assembler) -> Iterator[ToolCallRequest[object]]:
    try:
        source = iter(events)  # type: ignore[call-overload]
    except Exception as exc:  # noqa: BLE001 - not a stream: reported, nothing to yield
        assembler.problem("malformed_stream", f"{type(exc).__name__}: {_text(exc)}")
        return
    while True:
        try:
            event = next(source)
        except StopIteration:
            break
        except Exception as exc:  # noqa: BLE001 - the connection failed: what came is kept
            assembler.failed(exc)
            break
        yield from assembler.feed(event)
    yield from assembler.finish()


async def _arun(
    events: AsyncIterable[object], assembler: _Assembler
) -> AsyncIterator[ToolCallRequest[object]]:
    try:
        source = aiter(events)
    except Exception as exc:  # noqa: BLE001 - not a stream: reported, nothing to yield
        assembler.problem("malformed_stream", f"{type(exc).__name__}: {_text(exc)}")
        return
    while True:
        try:
            event = await anext(source)
        except StopAsyncIteration:
            break
        except Exception as exc:  # noqa: BLE001 - the connection failed: what came is kept
            assembler.failed(exc)
            break
        for request in assembler.feed(event):
            yield request
    for request in assembler.finish():
        yield request

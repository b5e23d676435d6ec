"""Streamed provider replies: each tool call parsed the moment it is complete.

A reader takes the events a provider's SDK streams (OpenAI chat chunks, Responses events,
Anthropic message events, Gemini response chunks), as SDK objects or plain dicts, from a sync or
an async iterable (or one that is both, read the way it is used), and yields each call's
request, in the order the calls began, as soon as that call and every call before it is
complete: with parallel tool calls, the first can run long before the message ends. The
requests are made as a whole reply's are (`_providers.call_request`), of its first choice.

Nothing here raises on any stream. What was odd about one call is a warning code on it (a missing
index, a duplicated start, arguments sent twice); a call cut off is the error
`truncated_arguments`, so it never runs; what concerns no call that can still be yielded (an
event that is not a record, a fragment for a call already yielded, the source failing) is a
`StreamProblem` in the reader's `problems`. Calls are never merged: a new id, a new name or a new
start on an index in use begins another call.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Protocol, cast

from ._assembly import OnPartial, PartialCall, StreamProblem, _Assembler, _text
from ._providers import Parse
from ._runtime import ToolCallRequest
from ._stream_readers import _ASSEMBLERS

__all__ = [
    "AsyncCallStream",
    "CallStream",
    "EitherCallStream",
    "OnPartial",
    "PartialCall",
    "StreamProblem",
    "read_stream",
]


class _Reader:
    """The calls of one stream, read once: by `for` or by `async for`, whichever comes first."""

    __slots__ = ("_acalls", "_assembler", "_calls", "_events", "problems")

    def __init__(self, events: object, assembler: _Assembler) -> None:
        self.problems = assembler.problems
        self._events = events
        self._assembler = assembler
        self._calls: Iterator[ToolCallRequest[object]] | None = None
        self._acalls: AsyncIterator[ToolCallRequest[object]] | None = None

    def _sync(self) -> Iterator[ToolCallRequest[object]]:
        if self._calls is None:
            self._calls = _run(self._events, self._assembler, self._acalls is None)
        return self._calls

    def _async(self) -> AsyncIterator[ToolCallRequest[object]]:
        if self._acalls is None:
            events = cast(AsyncIterable[object], self._events)
            self._acalls = _arun(events, self._assembler, self._calls is None)
        return self._acalls


class CallStream(_Reader, Iterator[ToolCallRequest[object]]):
    """The calls of a sync stream, each as soon as it is complete; `problems` holds what was
    found that is not a call (read it as it grows, or at the end)."""

    __slots__ = ()

    def __next__(self) -> ToolCallRequest[object]:
        return next(self._sync())


class AsyncCallStream(_Reader, AsyncIterator[ToolCallRequest[object]]):
    """The calls of an async stream, each as soon as it is complete; see CallStream."""

    __slots__ = ()

    async def __anext__(self) -> ToolCallRequest[object]:
        return await anext(self._async())


class IterableBothWays(Protocol):
    """A stream that is iterable both ways (LiteLLM's `CustomStreamWrapper`): what the readers
    give an `EitherCallStream` for, so a type checker accepts `for` and `async for` over it."""

    def __iter__(self) -> Iterator[object]: ...

    def __aiter__(self) -> AsyncIterator[object]: ...


class EitherCallStream(CallStream, AsyncCallStream):
    """The calls of a stream that is iterable both ways (LiteLLM's `CustomStreamWrapper`), read
    the way it is used: `for` reads it as a sync stream, `async for` as an async one. A stream is
    read once: after one way has begun, the other yields nothing (a `malformed_stream` problem)."""

    __slots__ = ()


def read_stream(
    provider: str,
    events: Iterable[object] | AsyncIterable[object],
    parse: Parse,
    on_partial: OnPartial | None = None,
) -> CallStream | AsyncCallStream:
    """A reader of `provider`'s stream: sync for an iterable, async for an async iterable, and
    either, as it is used, for one that is both."""
    assembler = _ASSEMBLERS[provider](parse, on_partial)
    if isinstance(events, AsyncIterable):
        if isinstance(events, Iterable):
            return EitherCallStream(events, assembler)
        return AsyncCallStream(events, assembler)
    return CallStream(events, assembler)


def _run(events: object, assembler: _Assembler, first: bool) -> Iterator[ToolCallRequest[object]]:
    if not first:
        assembler.problem("malformed_stream", "read with `for` after `async for` began")
        return
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
    events: AsyncIterable[object], assembler: _Assembler, first: bool
) -> AsyncIterator[ToolCallRequest[object]]:
    if not first:
        assembler.problem("malformed_stream", "read with `async for` after `for` began")
        return
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

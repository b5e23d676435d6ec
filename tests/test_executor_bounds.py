"""Bounded work in the executor (issue 32 items 12 and 13, "What to build" 4), held by the one
owner of a handler run, `_runs`:

- every odd handler (sync ones past their timeout, raising `BaseException`s, returning a
  coroutine or a generator; async ones cancelling their own task, raising or swallowing
  `CancelledError`, waiting past their timeout) through every entry point (`execute`, `aexecute`,
  `aexecute_all`, `aexecute_stream` in call order and as finished, the MCP server) gives one result
  per call, in order, with its status and words, and returns on time;
- a sync handler's thread counts against `max_threads` from its start until it truly ends, so a
  flood of calls that time out starts no more threads than that, and the calls past the limit
  are refused in words;
- the caller's own cancellation still cancels, and a handler it cannot stop counts until it ends.
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from generated import memory_tools
from generated.memory_tools import Executor, MemorySearchArgs, ToolCallResult, _mcp, parse
from tests import mcp_handlers

ROOT = Path(__file__).resolve().parent.parent

# Long enough that a handler that returns at once is never late on a loaded machine.
TIMEOUT = 0.2
TIMED_OUT = "TimeoutError: the tool did not finish within 0.2 s"


def refused(running: int, limit: int) -> str:
    return (
        "too many handlers still run after their calls timed out or were cancelled"
        f" ({running}; max_threads={limit}); try again later"
    )


def call(query: str) -> Any:
    return parse("memory.search", {"query": query}, f"call_{query}")


# -- the odd handlers ----------------------------------------------------------------------------
# Each behaviour runs inside a handler of its family; `release` ends whatever waits, at the end of
# each test (a handler waited for to the end would show as "late", not as the timeout).

Outcome = tuple[str, object, str | None]  # status, content, error


@dataclass(frozen=True)
class Odd:
    family: Literal["sync", "async"]
    behave: Callable[[threading.Event], Any]
    expected: Outcome  # through aexecute and everything that goes through it, with TIMEOUT
    in_execute: Outcome | None  # through execute (no timeout; release set first); None: n/a


def _raise(exc: BaseException) -> Callable[[threading.Event], Any]:
    def behave(release: threading.Event) -> Any:
        raise exc

    return behave


def _sleep(release: threading.Event) -> str:
    release.wait(timeout=10)
    return "late"


async def _wait(release: threading.Event) -> str:
    for _ in range(2000):  # ten seconds at most, so that a test of a broken executor ends
        if release.is_set():
            break
        await asyncio.sleep(0.005)
    return "late"


async def _swallow(release: threading.Event) -> str:
    for _ in range(2000):
        if release.is_set():
            break
        try:
            await asyncio.sleep(0.005)
        except asyncio.CancelledError:
            pass  # the handler that defeated the timeout before
    return "late"


async def _awaited(release: threading.Event) -> str:
    return "awaited"


async def _cancel_own_task(release: threading.Event) -> str:
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    await asyncio.sleep(0)
    return "never"


async def _cancel_own_task_and_return(release: threading.Event) -> str:
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    return "never"


async def _raise_cancelled(release: threading.Event) -> str:
    raise asyncio.CancelledError("mine")


async def _raise_system_exit(release: threading.Event) -> str:
    raise SystemExit(3)


async def _async_generator(release: threading.Event) -> AsyncIterator[int]:
    yield 1


async def _async_returns(release: threading.Event) -> str:
    return "ok"


def _generator(release: threading.Event) -> Iterator[int]:
    yield 1


def _failed(error: str) -> Outcome:
    return ("failed", None, error)


OK: Outcome = ("success", "ok", None)
LATE: Outcome = ("success", "late", None)

ODD: dict[str, Odd] = {
    # sync handlers, each on a thread
    "sync returns": Odd("sync", lambda release: "ok", OK, OK),
    "sync raises": Odd("sync", _raise(ValueError("no")), *[_failed("ValueError: no")] * 2),
    "sync raises SystemExit": Odd("sync", _raise(SystemExit(3)), *[_failed("SystemExit: 3")] * 2),
    "sync raises KeyboardInterrupt": Odd(
        # in execute, in the caller's thread, it is Ctrl-C: it propagates (test_executor_reliability)
        "sync",
        _raise(KeyboardInterrupt()),
        _failed("KeyboardInterrupt"),
        None,
    ),
    "sync raises GeneratorExit": Odd(
        "sync", _raise(GeneratorExit()), *[_failed("GeneratorExit")] * 2
    ),
    "sync raises CancelledError": Odd(
        "sync", _raise(asyncio.CancelledError()), *[_failed("CancelledError")] * 2
    ),
    "sync sleeps past its timeout": Odd("sync", _sleep, _failed(TIMED_OUT), LATE),
    "sync returns a coroutine": Odd(
        "sync", lambda release: _awaited(release), *[("success", "awaited", None)] * 2
    ),
    "sync returns a coroutine that waits past its timeout": Odd(
        "sync", lambda release: _wait(release), _failed(TIMED_OUT), LATE
    ),
    "sync returns a generator": Odd("sync", _generator, *[("success", "<generator>", None)] * 2),
    "sync returns an async generator": Odd(
        "sync", _async_generator, *[("success", "<async generator>", None)] * 2
    ),
    # async handlers, each in a task of its own
    "async returns": Odd("async", _async_returns, OK, OK),
    "async cancels its own task": Odd("async", _cancel_own_task, *[_failed("CancelledError")] * 2),
    "async cancels its own task and returns": Odd(
        "async", _cancel_own_task_and_return, *[_failed("CancelledError")] * 2
    ),
    "async raises CancelledError": Odd(
        "async", _raise_cancelled, *[_failed("CancelledError: mine")] * 2
    ),
    "async raises SystemExit": Odd("async", _raise_system_exit, *[_failed("SystemExit: 3")] * 2),
    "async waits past its timeout": Odd("async", _wait, _failed(TIMED_OUT), LATE),
    "async swallows CancelledError": Odd("async", _swallow, _failed(TIMED_OUT), LATE),
}

FAMILY_KINDS = {
    family: [name for name, odd in ODD.items() if odd.family == family]
    for family in ("sync", "async")
}


def handler_for(family: str, release: threading.Event) -> Callable[[MemorySearchArgs], object]:
    """A handler of the family that behaves as the kind named after the call's `:`."""

    def kind(args: MemorySearchArgs) -> Odd:
        return ODD[args.query.partition(":")[2]]

    if family == "sync":

        def sync_handler(args: MemorySearchArgs) -> object:
            return kind(args).behave(release)

        return sync_handler

    async def async_handler(args: MemorySearchArgs) -> object:
        return await kind(args).behave(release)

    return async_handler


def outcome(result: ToolCallResult) -> Outcome:
    content = result.content
    if inspect.isgenerator(content):
        content = "<generator>"
    elif inspect.isasyncgen(content):
        content = "<async generator>"
    return (result.status, content, result.error)


# -- the entry points ----------------------------------------------------------------------------

Requests = list[Any]
EntryPoint = Callable[[Executor, Requests], Awaitable[list[ToolCallResult]]]


async def one_by_one(executor: Executor, requests: Requests) -> list[ToolCallResult]:
    return [await executor.aexecute(request) for request in requests]


async def as_a_batch(executor: Executor, requests: Requests) -> list[ToolCallResult]:
    return await executor.aexecute_all(requests)


async def as_a_stream(executor: Executor, requests: Requests) -> list[ToolCallResult]:
    return [result async for result in executor.aexecute_stream(requests)]


async def as_an_async_stream_as_finished(
    executor: Executor, requests: Requests
) -> list[ToolCallResult]:
    async def source() -> AsyncIterator[Any]:
        for request in requests:
            yield request

    order = [request.tool_call_id for request in requests]
    results = [result async for result in executor.aexecute_stream(source(), ordered=False)]
    return sorted(results, key=lambda result: order.index(result.tool_call_id))


ENTRY_POINTS: dict[str, EntryPoint] = {
    "aexecute": one_by_one,
    "aexecute_all": as_a_batch,
    "aexecute_stream": as_a_stream,
    "aexecute_stream(ordered=False)": as_an_async_stream_as_finished,
}


def run_with_release(
    entry: EntryPoint, executor: Executor, requests: Requests, release: threading.Event
) -> list[ToolCallResult]:
    async def main() -> list[ToolCallResult]:
        try:
            return await entry(executor, requests)
        finally:
            release.set()  # only now: whatever was still waited for has come back late

    return asyncio.run(main())


def batch_of(kinds: list[str]) -> Requests:
    return [call(f"{n}:{kind}") for n, kind in enumerate(kinds)]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("kind", ODD)
def test_every_odd_handler_gives_one_result_per_call_in_order_through_every_entry_point(
    kind: str, entry: str
) -> None:
    """Items 12 and 13: each odd call is its own result, on time, and its neighbours succeed."""
    odd = ODD[kind]
    release = threading.Event()
    executor = Executor({"memory.search": handler_for(odd.family, release)}, timeout=TIMEOUT)
    good = f"{odd.family} returns"
    requests = batch_of([good, kind, good])
    results = run_with_release(ENTRY_POINTS[entry], executor, requests, release)
    assert [r.tool_call_id for r in results] == [r.tool_call_id for r in requests]
    assert [outcome(r) for r in results] == [OK, odd.expected, OK]


@pytest.mark.parametrize("kind", [kind for kind, odd in ODD.items() if odd.in_execute])
def test_every_odd_handler_gives_its_result_through_execute(kind: str) -> None:
    """`execute` runs in the caller's thread, with no timeout: what waits is released first."""
    odd = ODD[kind]
    release = threading.Event()
    release.set()
    executor = Executor({"memory.search": handler_for(odd.family, release)}, timeout=TIMEOUT)
    good = f"{odd.family} returns"
    results = [executor.execute(request) for request in batch_of([good, kind, good])]
    assert [outcome(r) for r in results] == [OK, odd.in_execute, OK]


@settings(max_examples=15, deadline=None)
@given(
    family=st.sampled_from(["sync", "async"]),
    entry=st.sampled_from(list(ENTRY_POINTS)),
    data=st.data(),
)
def test_any_batch_of_odd_handlers_keeps_each_calls_own_result(
    family: str, entry: str, data: st.DataObject
) -> None:
    """Items 12 and 13, generated: odd calls side by side in one batch do not change each
    other's results."""
    kinds = data.draw(st.lists(st.sampled_from(FAMILY_KINDS[family]), min_size=1, max_size=6))
    release = threading.Event()
    executor = Executor({"memory.search": handler_for(family, release)}, timeout=TIMEOUT)
    requests = batch_of(kinds)
    results = run_with_release(ENTRY_POINTS[entry], executor, requests, release)
    assert [r.tool_call_id for r in results] == [r.tool_call_id for r in requests]
    assert [outcome(r) for r in results] == [ODD[kind].expected for kind in kinds]


# -- threads: counted until they end, and the calls past the limit refused ----------------------


class Hung:
    """A sync handler that waits for its release, counting how many run at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._running = 0
        self.peak = 0

    async def all_started(self, count: int) -> None:
        """Wait until `count` handlers run at once (a loaded machine may start a thread late)."""
        for _ in range(2000):
            if self.peak >= count:
                return
            await asyncio.sleep(0.005)

    def __call__(self, args: MemorySearchArgs) -> str:
        with self._lock:
            self._running += 1
            self.peak = max(self.peak, self._running)
        try:
            self.release.wait(timeout=10)
        finally:
            with self._lock:
                self._running -= 1
        return "late"


def handler_threads() -> set[int | None]:
    return {thread.ident for thread in threading.enumerate() if thread.name == "codegen-handler"}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_timed_out_sync_handlers_hold_their_threads_and_calls_past_the_limit_are_refused(
    entry: str,
) -> None:
    """Item 12: 40 calls to a handler that outlives a 0.05 s timeout, at max_threads=4, run 4
    handlers and start at most 4 threads; the other 36 calls are refused in words. (Before:
    40 threads, and 40 handlers running at once.)"""
    hung = Hung()
    before = handler_threads()
    executor = Executor({"memory.search": hung}, timeout=0.05, max_threads=4)

    async def main() -> tuple[list[ToolCallResult], set[int | None]]:
        try:
            results = await ENTRY_POINTS[entry](executor, [call(str(n)) for n in range(40)])
            await hung.all_started(4)
            return results, handler_threads() - before
        finally:
            hung.release.set()

    results, started = asyncio.run(main())
    assert len(results) == 40
    assert collections.Counter((r.status, r.error) for r in results) == {
        ("failed", "TimeoutError: the tool did not finish within 0.05 s"): 4,
        ("rejected", refused(4, 4)): 36,
    }
    assert hung.peak == 4
    assert len(started) <= 4
    refusal = next(r for r in results if r.status == "rejected")
    assert refusal.text == f"Error: the call was not run: {refused(4, 4)}."


def test_calls_waiting_for_a_thread_held_by_calls_in_their_time_run_when_it_frees() -> None:
    """The bound does not refuse a batch larger than the limit: its calls wait for the threads
    of the calls still within their time, and all run."""
    gate = threading.Barrier(2, timeout=10)

    def handler(args: MemorySearchArgs) -> str:
        gate.wait()  # two at a time, each pair meeting: both threads held at once
        return f"ok {args.query}"

    executor = Executor({"memory.search": handler}, timeout=5, max_threads=2)
    results = asyncio.run(executor.aexecute_all([call(str(n)) for n in range(10)]))
    assert [(r.status, r.content) for r in results] == [("success", f"ok {n}") for n in range(10)]


def test_a_sync_handler_keeps_its_thread_counted_until_it_returns_then_gives_it_back() -> None:
    """Item 12: at max_threads=1, once the hung call timed out every call is refused, until its
    thread ends; then calls run again."""
    hung = Hung()

    def handler(args: MemorySearchArgs) -> str:
        return hung(args) if args.query == "hung" else f"ok {args.query}"

    executor = Executor({"memory.search": handler}, timeout=0.05, max_threads=1)

    async def main() -> list[ToolCallResult]:
        first = [await executor.aexecute(call(q)) for q in ("hung", "refused")]
        hung.release.set()
        for _ in range(1000):  # the thread gives its place back as soon as the handler returns
            after = await executor.aexecute(call("after"))
            if after.ok:
                return [*first, after]
            await asyncio.sleep(0.005)
        return [*first, after]

    results = asyncio.run(main())
    assert [outcome(r) for r in results] == [
        _failed("TimeoutError: the tool did not finish within 0.05 s"),
        ("rejected", None, refused(1, 1)),
        ("success", "ok after", None),
    ]


def test_a_call_is_refused_in_words_when_no_thread_can_be_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 12's flood at the system's own limit: a thread that cannot be started is a refusal in
    words (before: `aexecute` raised), the call never runs later, and its place is given back."""
    ran: list[str] = []

    def handler(args: MemorySearchArgs) -> str:
        ran.append(args.query)
        return f"ok {args.query}"

    monkeypatch.setattr(memory_tools._runs, "WORKERS", memory_tools._runs.Workers())  # none idle
    start = threading.Thread.start

    def cannot_start(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    executor = Executor({"memory.search": handler}, max_threads=1)
    monkeypatch.setattr(threading.Thread, "start", cannot_start)
    first = asyncio.run(executor.aexecute(call("a")))
    monkeypatch.setattr(threading.Thread, "start", start)
    second = asyncio.run(executor.aexecute(call("b")))
    assert outcome(first) == (
        "rejected",
        None,
        "no thread could be started to run it (can't start new thread)",
    )
    assert outcome(second) == ("success", "ok b", None)
    assert ran == ["b"]


# -- the caller's cancellation still cancels -----------------------------------------------------


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("kind", ["async waits", "async swallows CancelledError", "sync sleeps"])
def test_the_callers_cancellation_cancels_the_call_and_propagates(kind: str, entry: str) -> None:
    """Item 13: cancelling the task that awaits an entry point raises CancelledError there;
    a handler that stops when cancelled is done with, and one that cannot be stopped (it swallows
    the cancellation, or runs on a thread) counts against max_threads until it ends."""
    started = threading.Event()
    release = threading.Event()
    stopped: list[str] = []

    async def async_handler(args: MemorySearchArgs) -> str:
        if args.query != "x":
            return f"ok {args.query}"
        started.set()
        if kind == "async waits":
            try:
                await _wait(release)
            except asyncio.CancelledError:
                stopped.append("cancelled")
                raise
        return await _swallow(release)

    def sync_handler(args: MemorySearchArgs) -> str:
        if args.query != "x":
            return f"ok {args.query}"
        started.set()
        return _sleep(release)

    handler = sync_handler if kind == "sync sleeps" else async_handler
    executor = Executor({"memory.search": handler}, max_threads=1)

    async def main() -> list[ToolCallResult]:
        running = asyncio.ensure_future(ENTRY_POINTS[entry](executor, [call("x")]))
        while not started.is_set():
            await asyncio.sleep(0.005)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        during = await executor.aexecute(call("during"))
        release.set()
        for _ in range(1000):  # the abandoned run ends soon after its release
            after = await executor.aexecute(call("after"))
            if after.ok:
                break
            await asyncio.sleep(0.005)
        return [during, after]

    during, after = asyncio.run(main())
    if kind == "async waits":
        assert stopped == ["cancelled"]
        assert outcome(during) == ("success", "ok during", None)
    else:
        assert outcome(during) == ("rejected", None, refused(1, 1))
    assert outcome(after) == ("success", "ok after", None)


# -- the MCP server ------------------------------------------------------------------------------


def test_over_stdio_a_handler_that_cancels_its_own_task_fails_alone() -> None:
    """Item 13: the stdio server used to crash on it; now that call is an error in words and the
    next call is served."""
    serve = ["-m", "generated.memory_tools.mcp", "tests.mcp_odd_handlers:HANDLERS"]
    params = StdioServerParameters(command=sys.executable, args=serve, cwd=ROOT)

    async def session() -> list[tuple[bool, list[str]]]:
        async with Client(params, read_timeout_seconds=30) as client:
            replies = [
                await client.call_tool("memory.search", {"query": query})
                for query in ("cancel", "next")
            ]
        return [(r.is_error, [c.text for c in r.content if c.type == "text"]) for r in replies]

    assert asyncio.run(session()) == [
        (True, ["Error: the tool failed: CancelledError"]),
        (False, ['["next"]']),
    ]


def test_the_mcp_server_bounds_its_threads_and_refuses_in_words() -> None:
    """Item 12 as reported, in process: the server's calls to a sync handler that outlives its
    timeout hold at most max_threads threads, and the calls past it are refused in words."""
    hung = Hung()
    executor = Executor(
        {**mcp_handlers.HANDLERS, "memory.search": hung}, timeout=0.05, max_threads=2
    )
    server = _mcp.make_server(executor, memory_tools.MCP_TOOLS, parse, "memory_tools")

    async def session() -> list[tuple[bool, list[str]]]:
        try:
            async with Client(server, read_timeout_seconds=30) as client:
                replies = [
                    await client.call_tool("memory.search", {"query": str(n)}) for n in range(6)
                ]
                await hung.all_started(2)
        finally:
            hung.release.set()
        return [(r.is_error, [c.text for c in r.content if c.type == "text"]) for r in replies]

    timed_out = (
        True,
        ["Error: the tool failed: TimeoutError: the tool did not finish within 0.05 s"],
    )
    refusal = (True, [f"Error: the call was not run: {refused(2, 2)}."])
    assert asyncio.run(session()) == [timed_out] * 2 + [refusal] * 4
    assert hung.peak == 2

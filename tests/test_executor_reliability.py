"""The executor loses no result: whatever a handler raises is that call's outcome, a cancellation
of the caller cancels the calls and propagates, and a timeout counts only a handler's own running
time, never the time spent waiting for a free thread. A failed result keeps the traceback (never
in the text the model reads), and the failure is logged under the package's logger."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from generated.memory_tools import Executor, MemorySearchArgs, ToolCallResult, parse


def call(query: str) -> Any:
    return parse("memory.search", {"query": query}, f"call_{query}")


def ok(args: MemorySearchArgs) -> str:
    return f"ok {args.query}"


# -- what a handler raises is that call's result -----------------------------------------------


class Raised(Exception):
    pass


RAISERS: dict[str, BaseException] = {
    "CancelledError": asyncio.CancelledError(),
    "KeyboardInterrupt": KeyboardInterrupt(),
    "SystemExit": SystemExit(3),
    "GeneratorExit": GeneratorExit(),
}


@pytest.mark.parametrize("name", RAISERS)
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_batch_keeps_every_result_when_one_handler_raises_a_base_exception(
    name: str, kind: str
) -> None:
    def sync_raise(args: MemorySearchArgs) -> str:
        if args.query == "bad":
            raise RAISERS[name]
        return f"ok {args.query}"

    async def async_raise(args: MemorySearchArgs) -> str:
        await asyncio.sleep(0)
        return sync_raise(args)

    handler = sync_raise if kind == "sync" else async_raise
    executor = Executor({"memory.search": handler})
    requests = [call("a"), call("bad"), call("b")]
    results = asyncio.run(executor.aexecute_all(requests))
    expected_error = "SystemExit: 3" if name == "SystemExit" else name
    assert [(r.tool_call_id, r.status, r.content, r.error) for r in results] == [
        ("call_a", "success", "ok a", None),
        ("call_bad", "failed", None, expected_error),
        ("call_b", "success", "ok b", None),
    ]
    assert type(results[1].exception) is type(RAISERS[name])


@pytest.mark.parametrize("name", ["CancelledError", "SystemExit", "GeneratorExit"])
def test_execute_reports_a_handlers_base_exception_as_its_failure(name: str) -> None:
    def raiser(args: MemorySearchArgs) -> str:
        raise RAISERS[name]

    async def async_raiser(args: MemorySearchArgs) -> str:
        raise RAISERS[name]

    for handler in (raiser, async_raiser):
        result = Executor({"memory.search": handler}).execute(call("q"))
        assert (result.status, result.error) == (
            "failed",
            "SystemExit: 3" if name == "SystemExit" else name,
        )


def test_execute_lets_keyboard_interrupt_through_since_it_runs_in_the_callers_thread() -> None:
    def interrupted(args: MemorySearchArgs) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Executor({"memory.search": interrupted}).execute(call("q"))


def test_a_handler_that_cancels_its_own_task_fails_alone() -> None:
    async def cancels_itself(args: MemorySearchArgs) -> str:
        if args.query == "bad":
            task = asyncio.current_task()
            assert task is not None
            task.cancel()
        await asyncio.sleep(0)
        return f"ok {args.query}"

    executor = Executor({"memory.search": cancels_itself})
    results = asyncio.run(executor.aexecute_all([call("a"), call("bad"), call("b")]))
    assert [(r.status, r.error) for r in results] == [
        ("success", None),
        ("failed", "CancelledError"),
        ("success", None),
    ]


def test_cancelling_the_batch_cancels_its_calls_and_propagates() -> None:
    cancelled: list[str] = []
    started = asyncio.Event

    async def main() -> None:
        running = started()

        async def slow(args: MemorySearchArgs) -> str:
            running.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.append(args.query)
                raise
            return "never"

        executor = Executor({"memory.search": slow})
        batch = asyncio.create_task(executor.aexecute_all([call("a"), call("b")]))
        await running.wait()
        await asyncio.sleep(0)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch

    asyncio.run(main())
    assert sorted(cancelled) == ["a", "b"]


# -- the timeout counts the handler's own running time ---------------------------------------------


def test_an_instant_handler_beside_slow_sync_ones_runs_and_succeeds() -> None:
    # The reported case: six slow sync calls took every worker thread, and an instant call timed
    # out waiting for one, never run.
    release = threading.Event()
    ran: list[str] = []

    def handler(args: MemorySearchArgs) -> str:
        ran.append(args.query)
        if args.query.startswith("slow"):
            release.wait(timeout=5)
        return f"ok {args.query}"

    async def main() -> list[ToolCallResult]:
        executor = Executor({"memory.search": handler}, timeout=0.1)
        try:
            return await executor.aexecute_all([call(f"slow{n}") for n in range(6)] + [call("now")])
        finally:
            release.set()

    results = asyncio.run(main())
    assert (results[-1].status, results[-1].content) == ("success", "ok now")
    assert "now" in ran
    assert [r.error for r in results[:6]] == [
        "TimeoutError: the tool did not finish within 0.1 s"
    ] * 6


def test_waiting_for_a_free_thread_does_not_count_against_the_timeout() -> None:
    # One thread, eight calls of 30 ms each before the last: it waits 240 ms, longer than the
    # 150 ms timeout, and still runs, since its own running time is what the timeout limits.
    def handler(args: MemorySearchArgs) -> str:
        if args.query.startswith("slow"):
            threading.Event().wait(0.03)
        return f"ok {args.query}"

    executor = Executor({"memory.search": handler}, timeout=0.15, max_threads=1)
    batch = [call(f"slow{n}") for n in range(8)] + [call("last")]
    results = asyncio.run(executor.aexecute_all(batch))
    assert [(r.status, r.content) for r in results] == [
        ("success", f"ok slow{n}") for n in range(8)
    ] + [("success", "ok last")]


def test_a_timed_out_sync_handler_holds_its_thread_until_it_ends() -> None:
    """Issue 32 item 12: a timed-out handler's thread runs on, so it counts against `max_threads`
    until it ends; the call after it is refused in words, and once the thread ends the next call
    runs on it. (Before, the timed-out call gave its place back at once and every call started one
    more thread.)"""
    release = threading.Event()

    def handler(args: MemorySearchArgs) -> str:
        if args.query == "hung":
            release.wait(timeout=5)
        return f"ok {args.query}"

    async def main() -> list[ToolCallResult]:
        executor = Executor({"memory.search": handler}, timeout=0.05, max_threads=1)
        try:
            results = await executor.aexecute_all([call("hung"), call("next")])
        finally:
            release.set()
        for _ in range(500):  # the thread hands its place back as soon as the handler returns
            last = await executor.aexecute(call("after"))
            if last.ok:
                break
            await asyncio.sleep(0.01)
        return [*results, last]

    results = asyncio.run(main())
    assert [(r.status, r.content, r.error) for r in results] == [
        ("failed", None, "TimeoutError: the tool did not finish within 0.05 s"),
        (
            "rejected",
            None,
            (
                "too many handlers still run after their calls timed out or were cancelled"
                " (1; max_threads=1); try again later"
            ),
        ),
        ("success", "ok after", None),
    ]


def test_max_threads_must_be_a_positive_integer() -> None:
    with pytest.raises(ValueError, match="^max_threads must be a positive integer, not 0$"):
        Executor({}, max_threads=0)


# -- the traceback is kept and logged ------------------------------------------------------------


def test_a_failed_result_keeps_the_traceback_and_the_failure_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def lookup(args: MemorySearchArgs) -> str:
        return {"a": "b"}[args.query]

    executor = Executor({"memory.search": lookup})
    with caplog.at_level(logging.ERROR, logger="generated.memory_tools"):
        sync_result = executor.execute(call("q"))
        async_result = asyncio.run(executor.aexecute(call("q")))
    for result in (sync_result, async_result):
        assert (result.status, result.error) == ("failed", "KeyError: 'q'")
        assert isinstance(result.exception, KeyError)
        assert result.traceback is not None
        assert result.traceback.startswith("Traceback (most recent call last):\n")
        assert "in lookup\n" in result.traceback
        assert result.traceback.endswith("KeyError: 'q'\n")
        assert result.text == "Error: the tool failed: KeyError: 'q'"  # no traceback for the model
    records = [r for r in caplog.records if r.name == "generated.memory_tools"]
    assert [r.getMessage() for r in records] == [
        "the handler of memory.search failed on call call_q: KeyError: 'q'"
    ] * 2
    assert all(r.levelno == logging.ERROR and r.exc_info for r in records)


def test_results_other_than_a_failure_carry_no_traceback() -> None:
    executor = Executor({"memory.search": ok})
    assert executor.execute(call("q")).traceback is None
    assert executor.execute(parse("memory.search", "{}")).traceback is None


def test_sync_handlers_reuse_idle_threads() -> None:
    # Starting a thread costs more than handing a job to one that waits: calls one after the
    # other run on the threads already there (at most one new one).
    seen: set[int] = set()

    def handler(args: MemorySearchArgs) -> str:
        seen.add(threading.get_ident())
        return args.query

    before = {t.ident for t in threading.enumerate() if t.name == "codegen-handler"}
    executor = Executor({"memory.search": handler})

    async def one_by_one() -> list[ToolCallResult]:
        return [await executor.aexecute(call(str(n))) for n in range(30)]

    results = asyncio.run(one_by_one())
    assert [r.content for r in results] == [str(n) for n in range(30)]
    assert len(seen - before) <= 1

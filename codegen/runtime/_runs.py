"""A handler run: the one place that decides how the executor runs a handler, for every entry point
(`execute`; `aexecute`, which `aexecute_all`, `aexecute_stream` and the MCP server go through), and
what the run ends as: the handler's value, what it raised, or why it was not started.

Standard library only. What it guarantees:

- `execute` runs the handler in the caller's thread (an async one to completion), with no timeout:
  a call like any other function call, where a real Ctrl-C lands.
- `aexecute` runs an async handler in a task of its own, and a sync one on a worker thread. So a
  handler that cancels its own task, or raises `CancelledError`, fails alone, and the cancellation
  of the caller is told apart from the handler's: the caller's cancels the handler and propagates.
- The timeout holds whatever the handler does. When it passes, an async handler is cancelled and
  given `CANCEL_GRACE` seconds to end; one that does not (it swallows the cancellation) is
  abandoned, and the call's result is the timeout's all the same. A thread cannot be stopped:
  a sync handler past its timeout is abandoned at once.
- Bounded work. At most `max_threads` sync handlers of an executor run on threads at once, each
  counted from its start until it truly ends, an abandoned one too. A call that finds them all
  busy waits for one (a wait its timeout does not count) while some thread is held by a call still
  within its time. While `max_threads` abandoned handlers still run, no call starts: each is
  refused, in words, until one of them ends.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import dataclasses
import inspect
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Final

logger: Final = logging.getLogger(__package__ or __name__)

# Seconds a cancelled async handler has to end (its `finally` blocks, say) before it is abandoned.
CANCEL_GRACE: Final = 0.1


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What a run ended as: the handler's value, what it raised (a `TimeoutError` when its time
    passed), or, when it was not started, why not."""

    content: object = None
    exception: BaseException | None = None
    refusal: str | None = None


class HandlerRuns:
    """The runs of one executor's handlers: its timeout, its threads, the runs it abandoned."""

    __slots__ = ("_abandoned_tasks", "_limits", "_timeout")

    def __init__(self, timeout: float | None, max_threads: int) -> None:
        self._timeout = timeout
        self._limits = _Limits(max_threads)
        # asyncio keeps only weak references to tasks: an abandoned one is kept here until it ends.
        self._abandoned_tasks: set[asyncio.Task[Outcome]] = set()

    def here(self, call: Callable[[Any], object], arguments: object) -> Outcome:
        """Run the handler in this thread (an async one to completion), for `execute`."""
        try:
            content = call(arguments)
            if inspect.isawaitable(content):
                content = run_to_completion(content)
        except KeyboardInterrupt:
            raise  # Ctrl-C in the caller's thread: the user stops the program, not the tool
        except BaseException as exc:  # noqa: BLE001 - the handler's failure is the outcome
            return Outcome(exception=exc)
        return Outcome(content)

    async def run(
        self, call: Callable[[Any], object], is_async: bool, arguments: object, name: str
    ) -> Outcome:
        """Run the handler without blocking the event loop: an async one in a task of its own, a
        sync one on a thread; within the timeout, or refused while the limit is reached."""
        if is_async:
            refusal = self._limits.refusal()
            if refusal is not None:
                return Outcome(refusal=refusal)
            return await self._in_task(lambda: call(arguments), self._deadline(), name)
        run = await self._limits.thread()
        if isinstance(run, str):
            return Outcome(refusal=run)
        # Waiting for a free thread is not the call's running time: the timeout starts here.
        deadline = self._deadline()
        outcome = await self._on_thread(run, call, arguments, deadline, name)
        if outcome.exception is None and inspect.isawaitable(outcome.content):
            made = outcome.content  # a sync callable made a coroutine: it runs on the loop
            return await self._in_task(lambda: made, deadline, name)
        return outcome

    async def _on_thread(
        self,
        run: _Run,
        call: Callable[[Any], object],
        arguments: object,
        deadline: float | None,
        name: str,
    ) -> Outcome:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()
        # The caller's context variables, as a direct call would see them.
        context = contextvars.copy_context()
        limits = self._limits

        def settle(outcome: Outcome) -> None:
            if not future.done():  # a timed-out or cancelled call no longer waits for it
                future.set_result(outcome)

        def work() -> Callable[[], None]:
            try:
                outcome = Outcome(context.run(call, arguments))
            except BaseException as exc:  # noqa: BLE001 - handed to the loop as the outcome
                outcome = Outcome(exception=exc)

            def hand_back() -> None:
                limits.end(run)  # the handler has returned: its thread is free, and idle
                try:
                    loop.call_soon_threadsafe(settle, outcome)
                except RuntimeError:
                    pass  # the loop has closed since: no one waits for this call any more

            return hand_back

        try:
            WORKERS.run(work)
        except RuntimeError as exc:  # the system's limit of threads: the handler did not run
            limits.end(run)
            return Outcome(refusal=f"no thread could be started to run it ({exc})")
        try:
            done, _ = await asyncio.wait({future}, timeout=_left(deadline))
        except asyncio.CancelledError:
            self._abandon_thread(run, name)  # the caller is cancelled; the thread runs on
            raise
        if not done:
            self._abandon_thread(run, name)
            return self._timed_out()
        return future.result()

    async def _in_task(
        self, start: Callable[[], object], deadline: float | None, name: str
    ) -> Outcome:
        task = asyncio.ensure_future(_outcome_of(start))
        try:
            done, _ = await asyncio.wait({task}, timeout=_left(deadline))
        except asyncio.CancelledError:
            await self._stop(task, name)  # the caller's cancellation reaches the handler
            raise
        if not done:
            await self._stop(task, name)
            return self._timed_out()
        try:
            return task.result()
        except asyncio.CancelledError as exc:
            # Only the handler cancels its task before the run stops it: its own failure.
            return Outcome(exception=exc)

    async def _stop(self, task: asyncio.Task[Outcome], name: str) -> None:
        """Cancel a handler's task and give it `CANCEL_GRACE` to end; one still running then (it
        swallows the cancellation) is abandoned: kept and counted until it ends."""
        task.cancel()
        try:
            await asyncio.wait({task}, timeout=CANCEL_GRACE)
        finally:
            if not task.done():
                run = _Run(on_thread=False)
                self._limits.abandon(run)
                self._abandoned_tasks.add(task)
                task.add_done_callback(lambda ended: self._task_ended(run, ended))
                logger.warning(
                    "the handler of %s did not stop when cancelled; it runs on, abandoned", name
                )

    def _task_ended(self, run: _Run, task: asyncio.Task[Outcome]) -> None:
        self._limits.end(run)
        self._abandoned_tasks.discard(task)

    def _abandon_thread(self, run: _Run, name: str) -> None:
        if self._limits.abandon(run):
            logger.warning("the handler of %s runs on in its thread, abandoned", name)

    def _deadline(self) -> float | None:
        if self._timeout is None:
            return None
        return asyncio.get_running_loop().time() + self._timeout

    def _timed_out(self) -> Outcome:
        return Outcome(
            exception=TimeoutError(f"the tool did not finish within {self._timeout:g} s")
        )


def _left(deadline: float | None) -> float | None:
    """The seconds until the deadline (none left: 0), or None for no deadline."""
    if deadline is None:
        return None
    return max(0.0, deadline - asyncio.get_running_loop().time())


async def _outcome_of(start: Callable[[], object]) -> Outcome:
    """An async handler's outcome, in its task: whatever it raises, `CancelledError` included (the
    run knows when it cancelled the task itself, and then reads no outcome)."""
    try:
        content = start()
        if inspect.isawaitable(content):
            content = await content
    except BaseException as exc:  # noqa: BLE001 - the handler's failure is the outcome
        # Not raised on: a KeyboardInterrupt or SystemExit would leave the event loop itself.
        return Outcome(exception=exc)
    return Outcome(content)


class _Run:
    """A handler run that may outlive its call, as `_Limits` counts it."""

    __slots__ = ("abandoned", "ended", "on_thread")

    def __init__(self, *, on_thread: bool) -> None:
        self.on_thread = on_thread
        self.abandoned = False
        self.ended = False


# A call waiting for a thread: its loop, and the future that gets None for a thread granted, or
# the words of its refusal.
_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[str | None]"]


class _Limits:
    """The threads an executor's sync handlers hold, and its abandoned runs still going.

    Counted under a lock, since threads end in their own time and an executor may serve several
    event loops; a thread is handed to a waiting call through that call's loop."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._threads = 0  # sync handlers on a thread, from their start until they end
        self._abandoned = 0  # runs whose call no longer waits for them, until they end
        self._waiting: collections.deque[_Waiter] = collections.deque()

    def refusal(self) -> str | None:
        """Why no call may start now, or None."""
        with self._lock:
            return self._refusal()

    def _refusal(self) -> str | None:
        if self._abandoned < self._limit:
            return None
        return (
            "too many handlers still run after their calls timed out or were cancelled"
            f" ({self._abandoned}; max_threads={self._limit}); try again later"
        )

    async def thread(self) -> _Run | str:
        """A thread for a sync handler, held until its run ends; or why the call is refused."""
        with self._lock:
            refusal = self._refusal()
            if refusal is not None:
                return refusal
            if self._threads < self._limit:
                self._threads += 1
                return _Run(on_thread=True)
            loop = asyncio.get_running_loop()
            granted: asyncio.Future[str | None] = loop.create_future()
            waiter = (loop, granted)
            self._waiting.append(waiter)
        try:
            refused = await granted
        except asyncio.CancelledError:
            with self._lock:
                queued = waiter in self._waiting
                if queued:
                    self._waiting.remove(waiter)
            if not queued:
                if granted.done() and not granted.cancelled() and granted.result() is None:
                    self._release_thread()  # granted just before the cancellation arrived
                else:
                    granted.cancel()  # a grant on its way passes the thread on
            raise
        return _Run(on_thread=True) if refused is None else refused

    def abandon(self, run: _Run) -> bool:
        """Count a run its call no longer waits for, until it ends; at the limit, refuse the calls
        waiting for a thread. False when it had already ended."""
        with self._lock:
            if run.ended or run.abandoned:
                return False
            run.abandoned = True
            self._abandoned += 1
            refusal = self._refusal()
            if refusal is None:
                return True
            waiting = list(self._waiting)
            self._waiting.clear()
        for loop, granted in waiting:
            try:
                loop.call_soon_threadsafe(_settle, granted, refusal)
            except RuntimeError:
                pass  # its loop has closed: no one waits there any more
        return True

    def end(self, run: _Run) -> None:
        """A run has ended: it is no longer counted, and its thread goes to a call waiting."""
        with self._lock:
            run.ended = True
            if run.abandoned:
                self._abandoned -= 1
        if run.on_thread:
            self._release_thread()

    def _release_thread(self) -> None:
        with self._lock:
            while self._waiting:
                loop, granted = self._waiting.popleft()
                try:
                    loop.call_soon_threadsafe(self._grant, granted)
                    return  # the thread is that call's now
                except RuntimeError:
                    continue  # its loop has closed: no one waits there any more
            self._threads -= 1

    def _grant(self, granted: asyncio.Future[str | None]) -> None:
        """In the waiting call's loop: the thread is its own, or, when it has stopped waiting, the
        next call's."""
        if granted.done():
            self._release_thread()
        else:
            granted.set_result(None)


def _settle(granted: asyncio.Future[str | None], refusal: str) -> None:
    if not granted.done():
        granted.set_result(refusal)


class Workers:
    """Threads that run sync handlers, each job at once on an idle thread or a new one (each
    executor's `_Limits` bounds its own). Idle threads are reused, which costs a fraction of
    starting one, and end after a while without work."""

    IDLE_SECONDS: Final = 30.0

    def __init__(self) -> None:
        # A job runs the handler and gives back what hands its outcome to the caller.
        self._jobs: queue.SimpleQueue[Callable[[], Callable[[], None]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a job, less the jobs queued for them

    def run(self, job: Callable[[], Callable[[], None]]) -> None:
        """Run the job on a thread; raises RuntimeError, with nothing queued, when no thread
        could be started."""
        with self._lock:
            if self._idle:
                self._idle -= 1  # that thread's next job is this one
                self._jobs.put(job)
                return
        # A daemon: a handler that never returns must not keep the process from exiting.
        worker = threading.Thread(target=self._work, args=(job,), name="codegen-handler")
        worker.daemon = True
        worker.start()

    def _work(self, job: Callable[[], Callable[[], None]]) -> None:
        # Started for its first job; then counted in `_idle` whenever it waits.
        while True:
            hand_back = job()
            # Idle before the caller hears of the outcome, so the call it makes next finds this
            # thread waiting rather than starting another.
            with self._lock:
                self._idle += 1
            hand_back()
            while True:
                try:
                    job = self._jobs.get(timeout=self.IDLE_SECONDS)
                    break
                except queue.Empty:
                    with self._lock:
                        if self._jobs.empty():  # else a job queued meanwhile is this thread's
                            self._idle -= 1
                            return


WORKERS: Final = Workers()


def run_to_completion(awaitable: Any) -> object:
    """An async handler's result, for the sync `execute`: in a new event loop in this thread, or,
    when this thread already runs one (which cannot be re-entered), in a thread of its own."""

    async def wait() -> object:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    outcome: list[object] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(wait()))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=run, name="codegen-execute")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]

"""How a handler runs: sync handlers on worker threads, async ones to completion for a sync caller.

Standard library only.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, Final


class Workers:
    """Threads that run sync handlers, each job at once on an idle thread or a new one: unlike a
    pool of fixed size, a handler that outlives its timeout holds its thread without keeping
    any other call waiting (`ToolExecutor` limits the calls running). Idle threads are reused,
    which costs a fraction of starting one, and end after a while without work."""

    IDLE_SECONDS: Final = 30.0

    def __init__(self) -> None:
        # A job runs the handler and gives back what hands its outcome to the caller.
        self._jobs: queue.SimpleQueue[Callable[[], Callable[[], None]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a job, less the jobs queued for them

    def run(self, job: Callable[[], Callable[[], None]]) -> None:
        with self._lock:
            self._jobs.put(job)
            if self._idle:
                self._idle -= 1  # that thread's next job is this one
                return
        # A daemon: a handler that never returns must not keep the process from exiting.
        threading.Thread(target=self._work, name="codegen-handler", daemon=True).start()

    def _work(self) -> None:
        # Counted in `_idle` whenever it waits, less the job it was started for.
        while True:
            try:
                job = self._jobs.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():  # else a job queued meanwhile counts on this thread
                        self._idle -= 1
                        return
                continue
            hand_back = job()
            # Idle before the caller hears of the outcome, so the call it makes next finds this
            # thread waiting rather than starting another.
            with self._lock:
                self._idle += 1
            hand_back()


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

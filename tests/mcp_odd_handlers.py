"""Handlers for `memory_tools` whose `memory.search` cancels its own task on the query "cancel",
served over stdio by tests/test_executor_bounds.py (issue 32 item 13)."""

from __future__ import annotations

import asyncio

from generated.memory_tools import Handlers
from tests import mcp_handlers


async def cancels_itself(query: str, limit: int = 3) -> list[str]:
    if query == "cancel":
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
    await asyncio.sleep(0)
    return [query]


HANDLERS: Handlers = {**mcp_handlers.HANDLERS, "memory.search": cancels_itself}

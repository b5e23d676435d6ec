"""Handlers that write to stdout every way Python code does, for
tests/test_mcp_safety.py: the stdio server's stdout must carry JSON-RPC alone (issue 32, item 18).
A `{` is the worst stray text: a client reading JSON lines takes it for the start of a message."""

from __future__ import annotations

import os
import sys
import threading

from generated.memory_tools import Handlers
from generated.memory_tools.tools.update_config import UpdateConfigSettings
from tests.mcp_handlers import HANDLERS as EVERY_TOOL

# While the command imports the handlers, before the first JSON-RPC message.
print("{", flush=True)


async def search(query: str, limit: int = 3) -> list[str]:
    """An async handler: a buffered print, a write, a print from a thread, and descriptor 1."""
    print("{")
    sys.stdout.write("{\n")
    thread = threading.Thread(target=print, args=("{",), kwargs={"flush": True})
    thread.start()
    thread.join()
    os.write(1, b"{\n")
    return [query]


def update(settings: UpdateConfigSettings, dryRun: bool) -> dict[str, object]:
    """A sync handler, run in the executor's thread: a buffered print and a flushed one."""
    print("{")
    print("{", flush=True)
    return {"applied": not dryRun}


HANDLERS: Handlers = {**EVERY_TOOL, "memory.search": search, "update_config": update}

"""Handlers for every tool of `memory_tools` whose results JSON cannot carry, served by `python -m
generated.memory_tools.mcp tests.outbound_handlers:HANDLERS` in tests/test_outbound_encoding.py."""

from __future__ import annotations

import os

from generated.memory_tools import Handlers, ReadFileArgs, UpdateConfigArgs
from tests.mcp_handlers import search, search_files


def read(args: ReadFileArgs) -> str:
    # The name of a file as a directory listing gives it: its bytes are not UTF-8.
    return os.fsdecode(b"caf\xe9.txt")


def update(args: UpdateConfigArgs) -> dict[str, object]:
    return {"ratio": float("nan")}


HANDLERS: Handlers = {
    "memory.search": search,
    "search_files": search_files,
    "read_file": read,
    "update_config": update,
}

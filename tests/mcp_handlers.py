"""Handlers for every tool of `memory_tools`, served by `python -m generated.memory_tools.mcp
tests.mcp_handlers:HANDLERS` in tests/test_mcp_server.py."""

from __future__ import annotations

from datetime import UTC, datetime

from generated.memory_tools import Handlers, ReadFileArgs, SearchFilesResult
from generated.memory_tools.tools.update_config import UpdateConfigSettings


async def search(query: str, limit: int = 3) -> list[str]:
    return [f"{query} {n}" for n in range(limit)]


def search_files(
    pattern: str, caseSensitive: bool, maxResults: int
) -> SearchFilesResult | dict[str, object]:
    if pattern == "broken":
        return {"paths": [pattern]}  # `truncated` is required by the tool's `returns`
    modified = datetime(2026, 11, 24, 8, tzinfo=UTC)
    return SearchFilesResult(paths=[pattern][:maxResults], truncated=False, modified=modified)


def read(args: ReadFileArgs) -> str:
    raise FileNotFoundError(args.file_path)


def update(settings: UpdateConfigSettings, dryRun: bool) -> dict[str, object]:
    return {"mode": settings.mode, "timeout": settings.timeout, "applied": not dryRun}


HANDLERS: Handlers = {
    "memory.search": search,
    "search_files": search_files,
    "read_file": read,
    "update_config": update,
}

NOT_A_MAP = ["memory.search"]

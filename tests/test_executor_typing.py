"""mypy holds handlers to their tools: a handler of `memory.search` takes `MemorySearchArgs`, or
the tool's parameters as keywords, sync or async; anything else is a type error in the map. The
stream readers' overloads give a sync or an async stream by what they are given."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import Mypy

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

USER_CODE = """\
from collections.abc import AsyncIterator

from generated.memory_tools import (
    AsyncCallStream, CallStream, Executor, Handlers, MemorySearchArgs, PartialCall,
    ReadFileArgs, SearchFilesArgs, SearchFilesResult, ToolCallRequest, ToolCallResult,
    from_anthropic_stream, from_openai_chat_stream, parse, to_anthropic,
)


def search(args: MemorySearchArgs) -> list[str]:
    return [args.query] * args.limit


async def asearch(args: MemorySearchArgs) -> str:
    return args.query


def by_keywords(query: str, limit: int = 3) -> str:
    return query * limit


async def by_keywords_async(*, query: str, limit: int) -> str:
    return query


def read(args: ReadFileArgs) -> str:
    return args.file_path


def wrong_type(query: int, limit: int = 3) -> str:
    return ""


def missing_limit(query: str) -> str:
    return query


# search_files declares `returns`: its handler returns a SearchFilesResult or plain values.
def files(pattern: str, caseSensitive: bool, maxResults: int) -> SearchFilesResult:
    return SearchFilesResult(paths=[pattern], truncated=False)


# Issue 33 item 2: by Python attribute in place of wire name, the executor refuses it, and so
# does mypy, as the `SearchFilesKeywords` Protocol names the same keywords.
def files_by_attribute(pattern: str, case_sensitive: bool, max_results: int) -> SearchFilesResult:
    return SearchFilesResult(paths=[pattern], truncated=False)


async def files_plain(args: SearchFilesArgs) -> dict[str, object]:
    return {"paths": [args.pattern], "truncated": False}


def files_list(args: SearchFilesArgs) -> list[str]:
    return [args.pattern]


good: Handlers = {"memory.search": search, "read_file": read}
typed_good: Handlers = {"search_files": files}
typed_plain: Handlers = {"search_files": files_plain}
also_good: Handlers = {"memory.search": by_keywords}
async_good: Handlers = {"memory.search": asearch}
async_keywords: Handlers = {"memory.search": by_keywords_async}
executor = Executor(good, timeout=5)
result: ToolCallResult = executor.execute(parse("memory.search", "{}"))
blocks = to_anthropic([result])


async def events() -> AsyncIterator[object]:
    yield {}


def show(partial: PartialCall) -> None:
    print(partial.values)


# A sync stream reads as a sync iterator, an async one as an async iterator: no union to narrow.
sync_calls: CallStream = from_openai_chat_stream([{}], on_partial=show)
first: ToolCallRequest[object] = next(sync_calls)
async_calls: AsyncCallStream = from_anthropic_stream(events())


async def run() -> list[ToolCallResult]:
    return [r async for r in executor.aexecute_stream(async_calls, ordered=False)]
Executor({"memory.search": read})
Executor({"memory.search": wrong_type})
Executor({"memory.search": missing_limit})
Executor({"memory.serch": search})
Executor({"search_files": files_list})
Executor({"search_files": files_by_attribute})
"""

ITEM = 'TypedDict item "memory.search" has type "Callable\\[\\[MemorySearchArgs\\], object\\] \\| MemorySearchKeywords"'
EXPECTED = [
    rf'error: Incompatible types \(expression has type "Callable\[\[ReadFileArgs\], str\]", {ITEM}\)  \[typeddict-item\]',
    rf'error: Incompatible types \(expression has type "Callable\[\[int, int\], str\]", {ITEM}\)  \[typeddict-item\]',
    rf'error: Incompatible types \(expression has type "Callable\[\[str\], str\]", {ITEM}\)  \[typeddict-item\]',
    r'error: Extra key "memory.serch" for TypedDict "Handlers"  \[typeddict-unknown-key\]',
    (
        r'error: Incompatible types \(expression has type "Callable\[\[SearchFilesArgs\], list\[str\]\]",'
        r' TypedDict item "search_files" has type "Callable\[\[SearchFilesArgs\], SearchFilesResult \|'
        r" Mapping\[str, object\] \| Awaitable\[SearchFilesResult \| Mapping\[str, object\]\]\] \|"
        r' SearchFilesKeywords"\)  \[typeddict-item\]'
    ),
    (
        r'error: Incompatible types \(expression has type "Callable\[\[str, bool, int\], SearchFilesResult\]",'
        r' TypedDict item "search_files" has type "Callable\[\[SearchFilesArgs\], SearchFilesResult \|'
        r" Mapping\[str, object\] \| Awaitable\[SearchFilesResult \| Mapping\[str, object\]\]\] \|"
        r' SearchFilesKeywords"\)  \[typeddict-item\]'
    ),
]


def test_mypy_accepts_right_handlers_and_rejects_wrong_ones(tmp_path: Path, mypy: Mypy) -> None:
    user = tmp_path / "user_code.py"
    user.write_text(USER_CODE, encoding="utf-8")
    done = mypy(str(user), path=ROOT)
    found = [
        (int(line.split(":")[1]), line.split(": ", 1)[1])
        for line in done.stdout.splitlines()
        if line.startswith(str(user))
    ]
    # The lines of the six wrong maps, and nothing on the lines of the right ones.
    wrong_lines = [
        n for n, text in enumerate(USER_CODE.splitlines(), 1) if text.startswith("Executor({")
    ]
    assert [n for n, _ in found] == wrong_lines, done.stdout
    for (_, message), pattern in zip(found, EXPECTED, strict=True):
        assert re.fullmatch(pattern, message), (message, pattern)

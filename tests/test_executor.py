"""The executor of a generated package: statuses, sync and async handlers, keyword handlers,
concurrency, the timeout, and content the json module cannot write."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from generated import memory_tools as tools
from generated.memory_tools import Executor, MemorySearchArgs, ToolCallResult, parse

ROOT = Path(__file__).resolve().parent.parent


def search(args: MemorySearchArgs) -> list[str]:
    return [f"{args.query} {n}" for n in range(args.limit)]


def call(raw: str, tool: str = "memory.search", call_id: str = "call_1") -> Any:
    return parse(tool, raw, call_id)


# -- statuses ----------------------------------------------------------------------------------


def test_success_carries_the_content_the_call_id_and_the_requests_warnings() -> None:
    result = Executor({"memory.search": search}).execute(call('{"query": "q", "limit": "2"}'))
    assert result == ToolCallResult(
        "memory.search",
        "call_1",
        "success",
        ["q 0", "q 1"],
        None,
        ("string_literal_converted_to_integer:limit",),
        (),
    )
    assert result.ok


def test_a_handler_that_raises_is_failed_with_its_exceptions_type_and_text_only() -> None:
    def broken(args: MemorySearchArgs) -> str:
        raise KeyError("index")

    result = Executor({"memory.search": broken}).execute(call('{"query": "q"}'))
    assert (result.status, result.content, result.error) == ("failed", None, "KeyError: 'index'")
    assert result.text == "Error: the tool failed: KeyError: 'index'"


def test_an_exception_without_text_is_named_by_its_type() -> None:
    def broken(args: MemorySearchArgs) -> str:
        raise RuntimeError

    assert Executor({"memory.search": broken}).execute(call('{"query": "q"}')).error == (
        "RuntimeError"
    )


def test_a_request_with_errors_is_rejected_and_its_handler_not_called() -> None:
    called: list[object] = []
    executor = Executor({"memory.search": called.append})
    result = executor.execute(call('{"limit": 500}'))
    assert called == []
    assert result == ToolCallResult(
        "memory.search",
        "call_1",
        "rejected",
        None,
        "`query` is missing; `limit` must be at most 50",
        (),
        ("missing_required:query", "out_of_range:limit"),
    )
    assert result.text == (
        "Error: the call was not run: `query` is missing; `limit` must be at most 50."
        " Correct the call and send it again."
    )


def test_a_tool_without_a_handler_is_rejected() -> None:
    result = Executor({"memory.search": search}).execute(call('{"pattern": "*"}', "search_files"))
    assert (result.status, result.error, result.errors) == (
        "rejected",
        "the tool `search_files` is not available",
        (),
    )
    assert result.text == "Error: the call was not run: the tool `search_files` is not available."


def test_a_tool_the_catalog_does_not_know_is_rejected() -> None:
    result = Executor({"memory.search": search}).execute(call("{}", "memory.forget"))
    assert (result.status, result.error, result.warnings) == (
        "rejected",
        "there is no tool `memory.forget`",
        ("tool_definition_missing",),
    )


# -- sync and async, by arguments object or by keywords ------------------------------------------


async def asearch(args: MemorySearchArgs) -> str:
    await asyncio.sleep(0)
    return f"async {args.query}"


def keyword_search(query: str, limit: int = 3) -> str:
    return f"{query}/{limit}"


async def keyword_asearch(query: str, limit: int = 3) -> str:
    await asyncio.sleep(0)
    return f"async {query}/{limit}"


class Searcher:
    async def __call__(self, args: MemorySearchArgs) -> str:
        return f"object {args.query}"

    def method(self, *, query: str, limit: int) -> str:
        return f"method {query}/{limit}"


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (search, ["q 0", "q 1"]),
        (asearch, "async q"),
        (keyword_search, "q/2"),
        (keyword_asearch, "async q/2"),
        (Searcher(), "object q"),
        (Searcher().method, "method q/2"),
        (lambda args: args.limit * 10, 20),
        (lambda **values: sorted(values), ["limit", "query"]),
    ],
    ids=[
        "sync",
        "async",
        "keywords",
        "async-keywords",
        "async-object",
        "method",
        "lambda",
        "kwargs",
    ],
)
def test_every_kind_of_handler_runs_with_execute_and_aexecute(
    handler: Callable[..., object], expected: object
) -> None:
    executor = Executor({"memory.search": handler})
    request = call('{"query": "q", "limit": 2}')
    assert executor.execute(request).content == expected
    assert asyncio.run(executor.aexecute(request)).content == expected


def test_keyword_handlers_get_the_typed_values_by_wire_name() -> None:
    seen: list[dict[str, object]] = []

    def update(settings: object, dryRun: bool) -> str:
        seen.append({"settings": settings, "dry_run": dryRun})
        return "ok"

    executor = Executor({"update_config": update})
    result = executor.execute(
        call('{"settings": {"timeout": "5"}, "dryRun": "yes"}', "update_config")
    )
    assert result.status == "success"
    (values,) = seen
    assert values["dry_run"] is True
    assert type(values["settings"]).__name__ == "UpdateConfigSettings"
    assert values["settings"].timeout == 5  # type: ignore[attr-defined]


def test_execute_runs_an_async_handler_inside_a_running_event_loop_too() -> None:
    executor = Executor({"memory.search": asearch})

    async def inside() -> ToolCallResult:
        return executor.execute(call('{"query": "q"}'))  # a loop runs here: a thread of its own

    assert asyncio.run(inside()).content == "async q"


def test_aexecute_runs_a_sync_handler_in_a_worker_thread_and_leaves_the_loop_free() -> None:
    released = threading.Event()
    threads: list[int] = []

    def blocking(args: MemorySearchArgs) -> bool:
        threads.append(threading.get_ident())
        return released.wait(timeout=30)  # True only if the loop ran `release` meanwhile

    async def release() -> None:
        await asyncio.sleep(0)
        released.set()

    async def main() -> ToolCallResult:
        result, _ = await asyncio.gather(
            Executor({"memory.search": blocking}).aexecute(call('{"query": "q"}')), release()
        )
        return result

    assert asyncio.run(main()).content is True
    assert threads != [threading.get_ident()]


# -- batches and the timeout -----------------------------------------------------------------------


def test_two_slow_async_handlers_overlap() -> None:
    async def main() -> list[ToolCallResult]:
        # Each waits for the other at the barrier: run one after the other, both would time out.
        barrier = asyncio.Barrier(2)

        async def meet(args: MemorySearchArgs) -> str:
            await barrier.wait()
            return args.query

        executor = Executor({"memory.search": meet}, timeout=30)
        return await executor.aexecute_all([call('{"query": "a"}'), call('{"query": "b"}')])

    results = asyncio.run(main())
    assert [(r.status, r.content) for r in results] == [("success", "a"), ("success", "b")]


def test_two_slow_sync_handlers_overlap_in_worker_threads() -> None:
    barrier = threading.Barrier(2, timeout=30)

    def meet(args: MemorySearchArgs) -> str:
        barrier.wait()  # BrokenBarrierError, a failed result, unless both run at once
        return args.query

    executor = Executor({"memory.search": meet})
    results = asyncio.run(executor.aexecute_all([call('{"query": "a"}'), call('{"query": "b"}')]))
    assert [(r.status, r.content) for r in results] == [("success", "a"), ("success", "b")]


def test_a_batch_returns_results_in_the_order_of_the_requests() -> None:
    async def late(args: MemorySearchArgs) -> str:
        await asyncio.sleep(0.01)
        return "late"

    executor = Executor({"memory.search": late, "read_file": lambda args: "early"})
    requests = [
        call('{"query": "q"}', call_id="1"),
        call('{"filePath": "a"}', "read_file", "2"),
        call("{}", call_id="3"),
        call("{}", "search_files", "4"),
    ]
    results = asyncio.run(executor.aexecute_all(requests))
    assert [(r.tool_call_id, r.status, r.content) for r in results] == [
        ("1", "success", "late"),
        ("2", "success", "early"),
        ("3", "rejected", None),
        ("4", "rejected", None),
    ]


def test_a_hung_async_handler_is_failed_after_the_timeout() -> None:
    async def hung(args: MemorySearchArgs) -> str:
        await asyncio.Event().wait()
        return "never"

    result = asyncio.run(
        Executor({"memory.search": hung}, timeout=0.05).aexecute(call('{"query": "q"}'))
    )
    assert (result.status, result.error) == (
        "failed",
        "TimeoutError: the tool did not finish within 0.05 s",
    )


def test_a_hung_sync_handler_is_failed_after_the_timeout() -> None:
    released = threading.Event()

    def hung(args: MemorySearchArgs) -> str:
        released.wait(timeout=30)
        return "late"

    async def main() -> ToolCallResult:
        try:
            return await Executor({"memory.search": hung}, timeout=0.05).aexecute(
                call('{"query": "q"}')
            )
        finally:
            released.set()  # its thread cannot be stopped: let it end, so the loop can close

    result = asyncio.run(main())
    assert (result.status, result.error) == (
        "failed",
        "TimeoutError: the tool did not finish within 0.05 s",
    )


def test_a_handlers_own_timeout_error_is_its_failure_not_the_deadline() -> None:
    async def upstream(args: MemorySearchArgs) -> str:
        raise TimeoutError("the index did not answer")

    result = asyncio.run(
        Executor({"memory.search": upstream}, timeout=30).aexecute(call('{"query": "q"}'))
    )
    assert result.error == "TimeoutError: the index did not answer"


# -- content -------------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Hit:
    path: Path
    score: Decimal
    seen: date


def test_content_the_json_module_cannot_write_is_sent_as_json_all_the_same() -> None:
    content = {
        "at": datetime(2024, 5, 1, 9, 30, tzinfo=UTC),
        "color": Color.RED,
        "tags": {"b", "a"},
        "hit": Hit(Path("docs/a.md"), Decimal("0.5"), date(2024, 5, 1)),
        "id": uuid.UUID(int=1),
        "raw": b"caf\xc3\xa9",
    }
    result = Executor({"memory.search": lambda args: content}).execute(call('{"query": "q"}'))
    assert result.content is content  # the handler's own object, for the program
    assert result.text == (
        '{"at": "2024-05-01T09:30:00+00:00", "color": "red", "tags": ["a", "b"], "hit": '
        '{"path": "docs/a.md", "score": "0.5", "seen": "2024-05-01"}, "id": '
        '"00000000-0000-0000-0000-000000000001", "raw": "café"}'
    )


def test_content_that_cannot_be_json_at_all_fails_naming_where() -> None:
    # Issue 32: one encoder for everything sent out (the rest in tests/test_outbound_encoding.py).
    cycle: list[object] = []
    cycle.append(cycle)
    result = Executor({"memory.search": lambda args: cycle}).execute(call('{"query": "q"}'))
    assert (result.status, result.errors, result.content) == (
        "failed",
        ("result_circular_reference:[0]",),
        cycle,
    )
    assert result.text == (
        "Error: the tool failed: the result cannot be sent as JSON:"
        " result[0]: a container that holds itself (list)"
    )


def test_none_is_null_and_text_is_sent_as_it_is() -> None:
    executor = Executor({"memory.search": lambda args: None, "read_file": lambda args: '"as is"'})
    assert executor.execute(call('{"query": "q"}')).text == "null"
    assert executor.execute(call('{"filePath": "a"}', "read_file")).text == '"as is"'


def test_a_note_follows_when_the_parser_changed_what_the_model_sent() -> None:
    result = Executor({"memory.search": lambda args: "done"}).execute(
        call('{"query": "q", "limit": 2.5, "lmit": 4}')
    )
    assert result.warnings == (
        "fractional_number_truncated_to_integer:limit",
        "unknown_parameter:lmit",
    )
    assert result.text == (
        "done\n\nNote: `limit` must be an integer and was truncated to one;"
        " `lmit` is not a parameter of this tool and was ignored."
    )


def test_corrections_that_keep_the_meaning_are_not_mentioned() -> None:
    result = Executor({"memory.search": lambda args: "done"}).execute(
        call('```json\n{"query": 42, "limit": "2"}\n```')
    )
    assert len(result.warnings) == 3
    assert result.text == "done"


# -- binding -------------------------------------------------------------------------------------


def test_handlers_that_fit_no_form_are_refused_when_the_executor_is_made() -> None:
    with pytest.raises(ValueError, match=r"^'memory\.serch' is not a tool of this catalog$"):
        Executor({"memory.serch": search})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(TypeError, match=r"^the handler for 'memory\.search' is not callable: 3$"):
        Executor({"memory.search": 3})  # type: ignore[typeddict-item]
    with pytest.raises(
        TypeError,
        match=r"^the handler for 'memory\.search' takes its MemorySearchArgs as `a`, but its"
        r" parameter `b` has no default; a handler takes one MemorySearchArgs, or the tool's"
        r" parameters as keywords \(query, limit\)$",
    ):
        Executor({"memory.search": lambda a, b, c: None})  # type: ignore[typeddict-item]
    with pytest.raises(ValueError, match="^timeout must be a positive number of seconds, not 0$"):
        Executor({}, timeout=0)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    from tests.conftest import build_package

    source = tmp_path_factory.mktemp("catalog") / "small.yaml"
    source.write_text(
        "name: small\ntools:\n"
        "  - name: ping\n    description: No parameters.\n    parameters: {type: object}\n"
        "  - name: echo\n    description: One parameter.\n"
        "    parameters: {type: object, properties: {text: {type: string}}, required: [text]}\n",
        encoding="utf-8",
    )
    return build_package(source, tmp_path_factory.mktemp("out"))


def test_a_handler_of_one_parameter_named_as_the_tools_only_field_takes_it_by_keyword(
    small: ModuleType,
) -> None:
    def by_keyword(text: str) -> str:
        return f"keyword {text}"

    def by_args(text: small.EchoArgs) -> str:  # type: ignore[name-defined]
        return f"args {text.text}"

    request = small.parse("echo", '{"text": "hi"}')
    assert small.Executor({"echo": by_keyword}).execute(request).content == "keyword hi"
    assert small.Executor({"echo": by_args}).execute(request).content == "args hi"


def test_a_tool_without_parameters_takes_a_function_of_nothing_or_of_its_arguments(
    small: ModuleType,
) -> None:
    request = small.parse("ping", "{}")
    assert small.Executor({"ping": lambda: "pong"}).execute(request).content == "pong"
    assert small.Executor({"ping": lambda args: type(args).__name__}).execute(request).content == (
        "PingArgs"
    )


# -- loading -------------------------------------------------------------------------------------


def test_the_executor_loads_only_when_used_and_only_the_tools_given_handlers() -> None:
    script = (
        "import sys; sys.path.insert(0, '.');"
        "import generated.memory_tools as pkg;"
        "loaded = lambda: sorted(m for m in sys.modules if m.startswith('generated.'));"
        "print(loaded(), 'asyncio' in sys.modules);"
        "executor = pkg.Executor({'read_file': lambda args: args.file_path});"
        "print(loaded());"
        "print(executor.execute(pkg.parse('read_file', '{\"filePath\": \"a\"}')).content)"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    # The package's own loaders (_payloads reads payload constants on first use), the reply
    # parser of prompt mode (with the call envelopes it reads and the reply's ids) and the runtime
    # (with the rule of what can be sent on, by which the parser mends what a model sent).
    shared = [
        "generated.memory_tools",
        "generated.memory_tools._calls",
        "generated.memory_tools._ids",
        "generated.memory_tools._jsonl",
        "generated.memory_tools._outbound",
        "generated.memory_tools._payloads",
        "generated.memory_tools._repair",
        "generated.memory_tools._runtime",
        "generated.memory_tools._values",
    ]
    assert done.stdout.splitlines() == [
        f"{shared} False",
        str(
            sorted(
                [
                    *shared,
                    "generated.memory_tools._codes",
                    "generated.memory_tools._executor",
                    "generated.memory_tools._explain",
                    "generated.memory_tools._handlers",
                    "generated.memory_tools._results",
                    "generated.memory_tools._runs",
                    "generated.memory_tools.tools",
                    "generated.memory_tools.tools.read_file",
                ]
            )
        ),
        "a",
    ]


def test_the_package_exports_the_executor_and_the_results_forms() -> None:
    for name in (
        "Executor",
        "Handlers",
        "ToolCallResult",
        "to_openai_chat",
        "to_openai_responses",
        "to_anthropic",
        "to_gemini",
    ):
        assert name in tools.__all__
        assert getattr(tools, name).__module__.startswith("generated.memory_tools._")

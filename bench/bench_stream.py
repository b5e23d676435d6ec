"""Time to the first call started: streaming (`from_*_stream` + `Executor.aexecute_stream`) versus
accumulating the whole message first (the SDK's accumulator, then `from_*` + `aexecute_all`).

A stub server on 127.0.0.1 sends each provider's documented server-sent events for N parallel tool
calls, one event every PACE seconds (a model writing ~100 tokens/s); the real async clients read
them. Each handler records when it starts and then takes TOOL seconds (a tool doing I/O). Figures
are medians of repeated rounds. Also: the readers' own cost per event, with no network.

    .venv/bin/codegen build && .venv/bin/python bench/bench_stream.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import anthropic
import openai

from generated import memory_tools as pkg
from tests import stream_events as ev

PACE = 0.01  # seconds between events
TOOL = 0.2  # seconds a tool takes


def calls_of(count: int) -> list[ev.Call]:
    return [
        (
            f"call_{i}",
            "read_file",
            json.dumps({"filePath": f"docs/file_{i}.md", "startLine": i + 1}),
        )
        for i in range(count)
    ]


class Server:
    """Serves `self.body` (a list of SSE frames) to any POST, one frame every PACE seconds."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for frame in server.frames:
                    time.sleep(PACE)
                    self.wfile.write(frame)
                    self.wfile.flush()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def serve(self, frames: list[tuple[str | None, object]]) -> None:
        self.frames = []
        for name, data in frames:
            text = data if isinstance(data, str) else json.dumps(data)
            self.frames.append(
                ((f"event: {name}\n" if name else "") + f"data: {text}\n\n").encode()
            )


class Clock:
    def __init__(self) -> None:
        self.start = 0.0
        self.first = 0.0
        self.done = 0.0

    def handler(self) -> Callable[[Any], Any]:
        async def read_file(args: Any) -> str:
            if not self.first:
                self.first = time.perf_counter() - self.start
            await asyncio.sleep(TOOL)
            return args.file_path

        return read_file


async def openai_round(server: Server, count: int, streaming: bool) -> Clock:
    clock = Clock()
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key="x", max_retries=0)
    executor = pkg.Executor({"read_file": clock.handler()})
    request: Any = {
        "model": "m",
        "messages": [{"role": "user", "content": "go"}],
        "tools": pkg.OPENAI_TOOLS,
    }
    clock.start = time.perf_counter()
    if streaming:
        raw = await client.chat.completions.create(**request, stream=True)
        results = [r async for r in executor.aexecute_stream(pkg.from_openai_chat_stream(raw))]
    else:
        async with client.chat.completions.stream(**request) as stream:
            final = await stream.get_final_completion()
        results = await executor.aexecute_all(pkg.from_openai_chat(final))
    clock.done = time.perf_counter() - clock.start
    assert [r.status for r in results] == ["success"] * count, results
    await client.close()
    return clock


async def anthropic_round(server: Server, count: int, streaming: bool) -> Clock:
    clock = Clock()
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="x", max_retries=0)
    executor = pkg.Executor({"read_file": clock.handler()})
    request: Any = {
        "model": "m",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "go"}],
        "tools": pkg.ANTHROPIC_TOOLS,
    }
    clock.start = time.perf_counter()
    if streaming:
        raw = await client.messages.create(**request, stream=True)
        results = [r async for r in executor.aexecute_stream(pkg.from_anthropic_stream(raw))]
    else:
        async with client.messages.stream(**request) as stream:
            final = await stream.get_final_message()
        results = await executor.aexecute_all(pkg.from_anthropic(final))
    clock.done = time.perf_counter() - clock.start
    assert [r.status for r in results] == ["success"] * count, results
    await client.close()
    return clock


def frames_for(provider: str, calls: list[ev.Call]) -> list[tuple[str | None, object]]:
    if provider == "openai_chat":
        return [*((None, e) for e in ev.chat_events(calls, size=4)), (None, "[DONE]")]
    return [(e["type"], e) for e in ev.anthropic_events(calls, size=4)]


def network(rounds: int) -> None:
    server = Server()
    print(
        "| provider | calls | events | first call started: streaming | accumulating"
        " | all results: streaming | accumulating |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for provider, run in (("openai_chat", openai_round), ("anthropic", anthropic_round)):
        for count in (1, 2, 4, 8):
            calls = calls_of(count)
            frames = frames_for(provider, calls)
            server.serve(frames)
            figures: dict[bool, list[Clock]] = {True: [], False: []}
            for streaming in (True, False):
                asyncio.run(run(server, count, streaming))  # warm up: connections, imports
            for _ in range(rounds):
                for streaming in (True, False):
                    figures[streaming].append(asyncio.run(run(server, count, streaming)))
            streamed, accumulated = figures[True], figures[False]
            print(
                f"| {provider} | {count} | {len(frames)} | {median(streamed, 'first')} |"
                f" {median(accumulated, 'first')} | {median(streamed, 'done')} |"
                f" {median(accumulated, 'done')} |"
            )
    server.http.shutdown()


def median(clocks: list[Clock], field: str) -> str:
    return f"{statistics.median(getattr(clock, field) for clock in clocks) * 1000:,.0f} ms"


def reader_cost(repeat: int) -> None:
    """µs per event for each reader on dict events (no network), 8 calls in pieces of 4."""
    calls = calls_of(8)
    sources = {
        "openai_chat": ev.chat_events(calls, 4),
        "openai_responses": ev.responses_events(calls, 4),
        "anthropic": ev.anthropic_events(calls, 4),
        "gemini": ev.gemini_events(calls),
    }
    print("\n| reader | events | µs per event | µs per event with on_partial |")
    print("| --- | --- | --- | --- |")
    for provider, events in sources.items():
        read = getattr(pkg, f"from_{provider}_stream")
        timings = []
        for options in ({}, {"on_partial": lambda partial: None}):
            best = []
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(repeat):
                    assert len(list(read(events, **options))) == 8
                best.append((time.perf_counter() - start) / repeat / len(events) * 1e6)
            timings.append(statistics.median(best))
        print(f"| {provider} | {len(events)} | {timings[0]:.1f} | {timings[1]:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=200)
    options = parser.parse_args()
    pace, tool = PACE * 1000, TOOL * 1000
    print(f"Python {platform.python_version()}, pace {pace:.0f} ms per event, tool {tool:.0f} ms\n")
    network(options.rounds)
    reader_cost(options.repeat)


if __name__ == "__main__":
    main()

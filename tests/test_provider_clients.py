"""End to end with the real clients: `openai`, `anthropic` and `google-genai` send a catalog's tools
to a stub HTTP server on 127.0.0.1, which records what it received and replays a reply holding tool
calls; the adapters parse the reply the client returns."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import anthropic
import openai
import pytest
from google import genai
from google.genai import types as gemini

from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("pkg"))


def tools_for(pkg: ModuleType, provider: str) -> list[dict[str, object]]:
    """The tools list each provider takes: the package's own payload constants."""
    constant = {
        "openai_chat": "OPENAI_TOOLS",
        "openai_responses": "OPENAI_RESPONSES_TOOLS",
        "anthropic": "ANTHROPIC_TOOLS",
        "gemini": "GEMINI_TOOLS",
    }[provider]
    tools: list[dict[str, object]] = json.loads(json.dumps(getattr(pkg, constant)))
    return tools


@dataclass
class Stub:
    """A provider's API on 127.0.0.1: each POST to a path in `replies` gets that JSON reply; one
    to a path in `streams` gets those server-sent events, `(event name or None, data)` each, and
    the connection closes after the last (a stream cut off is a shorter list)."""

    replies: dict[str, dict[str, object]]
    received: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    url: str = ""
    streams: dict[str, list[tuple[str | None, object]]] = field(default_factory=dict)
    # Streams for successive requests to a path (an agent loop's turns), before `streams`.
    turns: dict[str, list[list[tuple[str | None, object]]]] = field(default_factory=dict)


class _StubServer(ThreadingHTTPServer):
    """The server of the module's tests: it answers from the `Stub` of the test running now."""

    state: Stub


@pytest.fixture(scope="module")
def stub_server() -> Iterator[_StubServer]:
    """One server for the module: one per test spent half a second of each test's teardown on
    `shutdown` (the poll interval of `serve_forever`); `stub` gives each test a fresh state."""

    class Handler(BaseHTTPRequestHandler):
        server: _StubServer

        def do_POST(self) -> None:
            state = self.server.state
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            path = self.path.split("?")[0]
            state.received.append((path, body))
            frames = state.turns.get(path, []).pop(0) if state.turns.get(path) else None
            if frames is None and path in state.streams:
                frames = state.streams[path]
            if frames is not None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for name, data in frames:
                    text = data if isinstance(data, str) else json.dumps(data)
                    line = f"event: {name}\n" if name else ""
                    self.wfile.write(f"{line}data: {text}\n\n".encode())
                    self.wfile.flush()
                return
            reply = state.replies.get(path)
            data = json.dumps(reply if reply is not None else {"error": path}).encode()
            self.send_response(200 if reply is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep the test output clean

    server = _StubServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def stub(stub_server: _StubServer, monkeypatch: pytest.MonkeyPatch) -> Stub:
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(proxy, raising=False)  # the clients must reach 127.0.0.1 directly
    stub_server.state = Stub({}, url=f"http://127.0.0.1:{stub_server.server_address[1]}")
    return stub_server.state


# The calls every reply holds: one clean, one with the slips models make. The tool names need no
# provider alias, so these replies hold for every provider.
READ = {"filePath": "README.md", "startLine": "3"}
UPDATE = {"settings": {"timeout": 30, "mode": "SAFE"}, "dryRun": "true"}


def expected(pkg: ModuleType, read_id: str, update_id: str) -> list[object]:
    """The requests the two calls make, checked: what each adapter must return for them."""
    read = pkg.parse("read_file", json.dumps(READ), read_id)
    assert read.values == {"filePath": "README.md", "startLine": 3, "encoding": "utf-8"}
    assert read.warnings == ("string_literal_converted_to_integer:startLine",)
    update = pkg.parse("update_config", json.dumps(UPDATE), update_id)
    assert update.values == {
        "settings": {"timeout": 30, "mode": "safe", "retries": 3},
        "dryRun": True,
    }
    assert update.warnings == (
        "enum_case_normalized:settings.mode",
        "string_literal_converted_to_boolean:dryRun",
    )
    assert read.arguments is not None and update.arguments is not None
    return [read, update]


def snake_keys(record: dict[str, object]) -> dict[str, object]:
    """The record with its own keys (not its values') in snake_case."""
    return {re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower(): value for key, value in record.items()}


USER = "Read the README, then switch to safe mode."

CHAT_REPLY: dict[str, object] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-test",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_read",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps(READ)},
                    },
                    {
                        "id": "call_update",
                        "type": "function",
                        "function": {"name": "update_config", "arguments": json.dumps(UPDATE)},
                    },
                ],
            },
        }
    ],
}


RESPONSES_REPLY: dict[str, object] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-test",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_read",
            "name": "read_file",
            "arguments": json.dumps(READ),
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_update",
            "name": "update_config",
            "arguments": json.dumps(UPDATE),
            "status": "completed",
        },
    ],
}


ANTHROPIC_REPLY: dict[str, object] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 20},
    "content": [
        {"type": "text", "text": "Reading it, then switching."},
        {"type": "tool_use", "id": "toolu_read", "name": "read_file", "input": READ},
        {"type": "tool_use", "id": "toolu_update", "name": "update_config", "input": UPDATE},
    ],
}


GEMINI_REPLY: dict[str, object] = {
    "candidates": [
        {
            "index": 0,
            "finishReason": "STOP",
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Reading it, then switching."},
                    {"functionCall": {"name": "read_file", "args": READ}},
                    {
                        "functionCall": {
                            "id": "fc-update",
                            "name": "update_config",
                            "args": UPDATE,
                        }
                    },
                ],
            },
        }
    ],
    "modelVersion": "gemini-test",
}


def test_openai_chat_client(pkg: ModuleType, stub: Stub) -> None:
    stub.replies["/v1/chat/completions"] = CHAT_REPLY
    client = openai.OpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)
    tools = tools_for(pkg, "openai_chat")
    completion = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": USER}], tools=tools
    )
    assert [(path, body["tools"]) for path, body in stub.received] == [
        ("/v1/chat/completions", tools)
    ]
    assert pkg.from_openai_chat(completion) == expected(pkg, "call_read", "call_update")


def test_openai_responses_client(pkg: ModuleType, stub: Stub) -> None:
    stub.replies["/v1/responses"] = RESPONSES_REPLY
    client = openai.OpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)
    tools = tools_for(pkg, "openai_responses")
    response = client.responses.create(model="gpt-test", input=USER, tools=tools)
    assert [(path, body["tools"]) for path, body in stub.received] == [("/v1/responses", tools)]
    assert pkg.from_openai_responses(response) == expected(pkg, "call_read", "call_update")


def test_anthropic_client(pkg: ModuleType, stub: Stub) -> None:
    stub.replies["/v1/messages"] = ANTHROPIC_REPLY
    client = anthropic.Anthropic(base_url=stub.url, api_key="test", max_retries=0)
    tools = tools_for(pkg, "anthropic")
    message = client.messages.create(
        model="claude-test",
        max_tokens=1024,
        messages=[{"role": "user", "content": USER}],
        tools=tools,
    )
    assert [(path, body["tools"]) for path, body in stub.received] == [("/v1/messages", tools)]
    assert pkg.from_anthropic(message) == expected(pkg, "toolu_read", "toolu_update")


def test_gemini_client(pkg: ModuleType, stub: Stub) -> None:
    path = "/v1beta/models/gemini-test:generateContent"
    stub.replies[path] = GEMINI_REPLY
    options = gemini.HttpOptions(base_url=stub.url, api_version="v1beta")
    client = genai.Client(api_key="test", http_options=options)
    declarations = tools_for(pkg, "gemini")
    response = client.models.generate_content(
        model="gemini-test",
        contents=USER,
        config=gemini.GenerateContentConfig(
            tools=[gemini.Tool(function_declarations=declarations)]
        ),
    )
    # The SDK sends a declaration's fields as it spells them (parameters_json_schema), which the
    # API's proto JSON reads as it reads camelCase: compare the fields whatever their spelling.
    assert [
        (path, [snake_keys(d) for tool in body["tools"] for d in tool["functionDeclarations"]])
        for path, body in stub.received
    ] == [(path, [snake_keys(d) for d in declarations])]
    # The first call came without an id: it gets its position among the requests returned.
    assert pkg.from_gemini(response) == expected(pkg, "call_0", "fc-update")


def provider_snippets() -> list[str]:
    """The per-provider Python blocks of docs/providers.md, as a reader copies them."""
    page = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    section = page.split("Per provider, the few lines that send the tools and parse the reply:")[1]
    return re.findall(r"```python\n(.*?)```", section.split("Then run what parsed")[0], re.DOTALL)


def test_the_docs_provider_snippets_run_as_written(
    stub: Stub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: the Gemini snippet made its client in the call (`genai.Client().models…`), so the
    client was closed before the request was sent. Each snippet runs here unchanged, its client
    pointed at the stub by the SDKs' own environment variables, and parses the stub's calls."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"{stub.url}/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", stub.url)
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(variable, "test")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    stub.replies["/v1/chat/completions"] = CHAT_REPLY
    stub.replies["/v1/responses"] = RESPONSES_REPLY
    stub.replies["/v1/messages"] = ANTHROPIC_REPLY
    for version in ("v1", "v1beta"):  # the SDK's default API version, whichever it is
        stub.replies[f"/{version}/models/gemini-2.5-flash:generateContent"] = GEMINI_REPLY
    snippets = provider_snippets()
    assert len(snippets) == 3
    for snippet in snippets:
        scope: dict[str, object] = {"messages": [{"role": "user", "content": USER}], "prompt": USER}
        exec(compile(snippet, "docs/providers.md", "exec"), scope)  # noqa: S102 - the docs page's own code
        requests = scope["requests"]
        assert isinstance(requests, list)
        assert [(r.tool_name, r.ok) for r in requests] == [
            ("read_file", True),
            ("update_config", True),
        ]
    assert [path.split("/")[-1] for path, _ in stub.received] == [
        "completions",
        "responses",
        "messages",
        "gemini-2.5-flash:generateContent",
    ]

"""Issue 35: the catalog inside the agent frameworks users already run (docs/frameworks.md).

Each framework's example on the docs page runs here as written, with the real framework and its
own model client pointed at a stub Chat Completions server on 127.0.0.1 (`OPENAI_BASE_URL`). The
stub's model first sends four calls, each with a slip: a number as text, a fenced object, a call
cut off and text that is not JSON; once the conversation holds the tools' answers it replies
with text. Like the provider, the stub refuses (400) any request whose history holds arguments
that are not a JSON object, and each test asserts that none was refused, that the handlers ran
with typed values, that the model read the executor's words for the two calls it could not
run, and that the tools each framework sent are the package's own payload constants.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated.memory_tools import OPENAI_STRICT_TOOLS, OPENAI_TOOLS, MemorySearchArgs, ReadFileArgs

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "frameworks.md"

# The first turn: each call with a slip models make, by call id.
SLIPPED = [
    ("call_0", "read_file", '{"filePath": "README.md", "startLine": "3"}'),  # a number as text
    ("call_1", "memory_search", '```json\n{"query": "agent state"}\n```'),  # a fenced object
    ("call_2", "memory_search", '{"query": "agent state", "limit": 2'),  # cut off
    ("call_3", "read_file", "read README.md please"),  # not JSON
]
# What the handlers are given: typed values, each slip corrected.
TYPED = [
    ReadFileArgs(file_path="README.md", start_line=3, encoding="utf-8"),
    MemorySearchArgs(query="agent state", limit=3),
]
# What the model reads for each call, in the executor's words.
ANSWERS = {
    "call_0": "text of README.md",
    "call_1": '["agent state is kept per run"]',
    "call_2": "Error: the call was not run: the arguments were cut off before their end."
    " Correct the call and send it again.",
    "call_3": "Error: the call was not run: the arguments are not valid JSON (Expecting value at"
    " line 1 column 1); they must be one JSON object. Correct the call and send it again.",
}
# The arguments of each call in the history sent back: as sent when they were a JSON object,
# otherwise the parser's corrected values (`{}` when nothing could be read).
HISTORY = {
    "call_0": {"filePath": "README.md", "startLine": "3"},
    "call_1": {"query": "agent state", "limit": 3},
    "call_2": {"query": "agent state", "limit": 3},  # the `2` may have gone on: not kept
    "call_3": {},
}
FINAL = "Your notes say agent state is kept per run."
# The tools each example gives its framework: the two with handlers, in the catalog's order.
HANDLED = ("memory_search", "read_file")


def handled(payload: list[Any]) -> list[Any]:
    return [tool for tool in payload if tool["function"]["name"] in HANDLED]


@dataclass
class Stub:
    """A Chat Completions API on 127.0.0.1. `calls` is the model's first turn; `repeat` sends it
    again on every turn (a model that keeps its slip)."""

    url: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    repeat: bool = False
    received: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        messages = body.get("messages", [])
        for message in messages:
            for call in message.get("tool_calls") or ():
                arguments = call["function"]["arguments"]
                try:
                    is_object = isinstance(json.loads(arguments), dict)
                except ValueError:
                    is_object = False
                if not is_object:
                    # What OpenAI answers such a history (openai-agents-python #2061).
                    self.refused.append(arguments)
                    return 400, {"error": {"message": "Invalid 'arguments': not a JSON object"}}
        # As the provider, every call of the history must have its answer.
        asked = {c["id"] for m in messages for c in m.get("tool_calls") or ()}
        answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
        if asked != answered:
            self.refused.append(f"unanswered {sorted(asked - answered)}")
            return 400, {"error": {"message": "tool_call_ids did not have response messages"}}
        if self.calls and (
            self.repeat or not any(message.get("role") == "tool" for message in messages)
        ):
            calls = [
                {"id": id_, "type": "function", "function": {"name": name, "arguments": text}}
                for id_, name, text in self.calls
            ]
            message, finish = {
                "role": "assistant",
                "content": None,
                "tool_calls": calls,
            }, "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": FINAL}, "stop"
        return 200, {
            "id": f"chatcmpl-{len(self.received)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def requests(self) -> list[dict[str, Any]]:
        return [body for _, body in self.received]


def chunks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """A whole Chat Completions reply as the chunks a stream of it is: each call's name and id
    first, then its arguments in two pieces; then the finish reason."""
    choice = reply["choices"][0]
    message = choice["message"]
    head = {k: reply[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": message.get("content")}]
    for index, call in enumerate(message.get("tool_calls") or ()):
        text = call["function"]["arguments"]
        deltas.append(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": call["function"]["name"], "arguments": ""},
                    }
                ]
            }
        )
        for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    finish = [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]
    return [
        *(head | {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas),
        head | {"choices": finish},
    ]


@pytest.fixture(scope="module")
def server() -> Iterator[Stub]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.received.append((self.path, body))
            status, reply = state.reply(body)
            if body.get("stream") and status == 200:
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks(reply):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                return
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def stub(server: Stub, monkeypatch: pytest.MonkeyPatch) -> Stub:
    """The server, reset, and every client pointed at it, with no telemetry and no network."""
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    for variable in ("OPENAI_API_BASE", "LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    server.calls, server.repeat = list(SLIPPED), False
    server.received.clear()
    server.refused.clear()
    return server


def example(heading: str) -> str:
    """The Python block under `heading` on docs/frameworks.md, as a reader copies it."""
    section = PAGE.read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, heading
    return found.group(1)


def run_example(heading: str) -> tuple[dict[str, Any], list[object]]:
    """Run the example with handlers that record what they are given; its scope and that."""
    given: list[object] = []

    def search(args: MemorySearchArgs) -> list[str]:
        given.append(args)
        return ["agent state is kept per run"]

    def read(args: ReadFileArgs) -> str:
        given.append(args)
        return f"text of {args.file_path}"

    scope: dict[str, Any] = {"search": search, "read": read}
    exec(compile(example(heading), str(PAGE), "exec"), scope)  # noqa: S102 - the page's own code
    return scope, given


def answers(request: dict[str, Any]) -> dict[str, str]:
    """What the model read for each call, from the tool messages of a request."""
    return {m["tool_call_id"]: m["content"] for m in request["messages"] if m["role"] == "tool"}


def history(request: dict[str, Any]) -> dict[str, object]:
    """The arguments of each call in a request's history, decoded, by call id."""
    return {
        call["id"]: json.loads(call["function"]["arguments"])
        for message in request["messages"]
        for call in message.get("tool_calls") or ()
    }


def assert_two_turns(stub: Stub, given: list[object], tools: list[Any]) -> list[dict[str, Any]]:
    """The run took two requests, none refused, each sending `tools`; the handlers ran once each
    with typed values."""
    assert stub.refused == []
    assert [path for path, _ in stub.received] == ["/v1/chat/completions"] * 2
    requests = stub.requests()
    assert [request["tools"] for request in requests] == [tools, tools]
    assert sorted(given, key=repr) == sorted(TYPED, key=repr)
    assert history(requests[1]) == HISTORY
    return requests


def test_openai_agents_sdk(stub: Stub) -> None:
    """Issue 35 item 1: `function_tools` run the parser and the executor (the model read
    "An error occurred while running the tool" before), strict as `OPENAI_STRICT_TOOLS`, and
    `run_config`'s input filter keeps the history's arguments JSON objects (the SDK re-sent the
    raw text, which the provider refuses)."""
    import agents

    agents.set_tracing_disabled(True)
    scope, given = run_example("## OpenAI Agents SDK")
    requests = assert_two_turns(stub, given, handled(OPENAI_STRICT_TOOLS))
    assert answers(requests[1]) == ANSWERS
    assert scope["result"].final_output == FINAL


def test_pydantic_ai(stub: Stub) -> None:
    """Issue 35 item 2: the toolset's arguments go through the parser, not pydantic's validator;
    a refused call goes back as a retry in the executor's words (pydantic-ai's rule wraps a
    retry's text as `{"error": ...}`), and the history processor sends every call's arguments as
    the history rule writes them (pydantic-ai sent `{"INVALID_JSON": text}`, for the fenced call
    that ran too)."""
    scope, given = run_example("## pydantic-ai")
    requests = assert_two_turns(stub, given, handled(OPENAI_TOOLS))
    read = answers(requests[1])
    assert {id_: read[id_] for id_ in ("call_0", "call_1")} == {
        id_: ANSWERS[id_] for id_ in ("call_0", "call_1")
    }
    assert {id_: json.loads(read[id_]) for id_ in ("call_2", "call_3")} == {
        id_: {"error": ANSWERS[id_]} for id_ in ("call_2", "call_3")
    }
    assert scope["result"].output == FINAL


@pytest.mark.parametrize("max_retries", [1, 2])
def test_pydantic_ai_counts_the_retries(stub: Stub, max_retries: int) -> None:
    """Issue 35 item 2: a refused call is a retry pydantic-ai counts: a model that repeats its
    slip is asked again `max_retries` times, then the run ends as any exhausted retry does."""
    from pydantic_ai import Agent, UnexpectedModelBehavior

    from generated.memory_tools import pydantic_ai_tools

    stub.calls, stub.repeat = [SLIPPED[3]], True
    capability = pydantic_ai_tools.capability(
        {"read_file": lambda args: ""}, max_retries=max_retries
    )
    agent = Agent("openai-chat:gpt-5", capabilities=[capability])
    with pytest.raises(
        UnexpectedModelBehavior, match=f"exceeded max retries count of {max_retries}"
    ):
        agent.run_sync("Read the README.")
    assert len(stub.received) == max_retries + 1
    assert stub.refused == []


def test_langchain_loop(stub: Stub) -> None:
    """Issue 35 item 3: `from_langchain` reads the invalid calls too (a loop over `tool_calls`
    saw one call of four), `to_langchain` answers each, and `history_langchain` keeps every call
    with JSON-object arguments (langchain-openai re-sends an invalid call's text)."""
    scope, given = run_example("## LangChain")
    requests = assert_two_turns(stub, given, OPENAI_TOOLS)
    assert answers(requests[1]) == ANSWERS
    assert scope["reply"].content == FINAL


def test_langgraph(stub: Stub) -> None:
    """Issue 35 item 3: `route` sends a reply with invalid calls to the tools node (LangGraph's
    `tools_condition` went to END), which answers every call and replaces the model's message
    with the history message."""
    scope, given = run_example("## LangGraph")
    requests = assert_two_turns(stub, given, OPENAI_TOOLS)
    assert answers(requests[1]) == ANSWERS
    messages = scope["state"]["messages"]
    assert [type(m).__name__ for m in messages] == [
        "HumanMessage",
        "AIMessage",
        *["ToolMessage"] * 4,
        "AIMessage",
    ]
    assert messages[1].invalid_tool_calls == []
    assert [call["id"] for call in messages[1].tool_calls] == [
        "call_0",
        "call_1",
        "call_2",
        "call_3",
    ]
    assert [m.status for m in messages[2:6]] == ["success", "success", "error", "error"]
    assert messages[-1].content == FINAL


def test_langchain_prebuilt_agent(stub: Stub) -> None:
    """Issue 35 item 3: `structured_tools` in LangChain's own agent cover the slips inside valid
    JSON (a number as text), and a call the executor refuses is an error `ToolMessage` in its
    words; the agent is sent `OPENAI_TOOLS` as they are."""
    stub.calls = [SLIPPED[0], ("call_1", "memory_search", '{"query": "agent state", "limit": 0}')]
    scope, given = run_example("### Prebuilt agents")
    assert stub.refused == []
    assert [request["tools"] for request in stub.requests()] == [handled(OPENAI_TOOLS)] * 2
    assert given == [TYPED[0]]
    assert answers(stub.requests()[1]) == {
        "call_0": ANSWERS["call_0"],
        "call_1": "Error: the call was not run: `limit` must be at least 1."
        " Correct the call and send it again.",
    }
    messages = scope["state"]["messages"]
    assert [m.status for m in messages if type(m).__name__ == "ToolMessage"] == ["success", "error"]


def test_langchain_openai_crashes_on_arguments_encoded_twice(stub: Stub) -> None:
    """Issue 35 item 3, the documented limit: langchain-openai raises inside `invoke` on
    arguments encoded twice, before the reply reaches any code of ours; the parser reads them.
    This fails the day langchain-openai stops crashing, and the page must then change."""
    from langchain_openai import ChatOpenAI
    from pydantic import ValidationError

    from generated.memory_tools import parse

    twice = json.dumps(json.dumps({"query": "agent state"}))
    stub.calls = [("call_0", "memory_search", twice)]
    with pytest.raises(ValidationError, match="tool_calls.0.args"):
        ChatOpenAI(model="gpt-5").bind_tools(OPENAI_TOOLS).invoke("What do my notes say?")
    request = parse("memory_search", twice)
    assert (request.arguments, request.warnings) == (TYPED[1], ("arguments_unquoted",))


def test_litellm(stub: Stub) -> None:
    """Issue 35 item 4: the README's loop works with `litellm.completion` as it is."""
    import litellm

    assert litellm.callbacks == [] and litellm.success_callback == []
    scope, given = run_example("## LiteLLM")
    requests = assert_two_turns(stub, given, OPENAI_TOOLS)
    assert answers(requests[1]) == ANSWERS
    assert scope["reply"].choices[0].message.content == FINAL


@pytest.mark.parametrize("way", ["for", "async for"])
def test_litellm_stream_is_read_the_way_it_is_used(stub: Stub, way: str) -> None:
    """Issue 35 item 4: LiteLLM's stream is iterable both ways; `from_openai_chat_stream` reads
    it as it is used, and gives the requests `from_openai_chat` gives for the whole reply."""
    import litellm

    from generated.memory_tools import OPENAI_TOOLS, from_openai_chat, from_openai_chat_stream

    asked: dict[str, Any] = {
        "model": "openai/gpt-5",
        "messages": [{"role": "user", "content": "notes?"}],
        "tools": OPENAI_TOOLS,
    }
    whole = from_openai_chat(litellm.completion(**asked))
    if way == "for":
        stream = from_openai_chat_stream(litellm.completion(**asked, stream=True))
        streamed, problems = list(stream), stream.problems
    else:

        async def read() -> tuple[list[Any], list[Any]]:
            stream = from_openai_chat_stream(await litellm.acompletion(**asked, stream=True))
            return [request async for request in stream], stream.problems

        streamed, problems = asyncio.run(read())
    assert len(whole) == len(SLIPPED)
    assert streamed == whole
    assert problems == []


def test_pydantic_ai_history_keeps_the_calls_the_history_holds_by_id() -> None:
    """Review of issue 35 item 2: a reply that repeats a call id made the history processor
    raise StopIteration (it paired arguments by position, and the history drops the repeat): the
    parts are matched by id, the repeat dropped as its request is, the rest corrected."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart

    from generated.memory_tools import _pydantic_ai, history_openai_chat

    response = ModelResponse(
        parts=[
            TextPart("reading"),
            ToolCallPart("read_file", '{"filePath": "a"}', "x"),
            ToolCallPart("read_file", "not json", "x"),
            ToolCallPart("read_file", '```json\n{"filePath": "b", "startLine": "3"}\n```', "y"),
        ]
    )
    corrected = _pydantic_ai._corrected(response, ToolCallPart, history_openai_chat)
    assert [
        (p.tool_call_id, p.args) if isinstance(p, ToolCallPart) else p.content
        for p in corrected.parts
    ] == [
        "reading",
        ("x", '{"filePath": "a"}'),
        ("y", '{"filePath": "b", "startLine": 3, "encoding": "utf-8"}'),
    ]


@pytest.mark.parametrize("key", ["memory.search", "memory_search"])
def test_a_handler_given_under_an_alias_is_offered_to_every_framework(key: str) -> None:
    """Review of issue 35 (issue 33 item 5): the executor takes a handler under a provider's
    alias, so the frameworks offer its tool too (they asked the handlers' keys, and dropped it
    in silence); which tools have a handler is the executor's `handles`."""
    from generated.memory_tools import Executor, agents_sdk, langchain_tools

    handlers = {key: lambda args: []}
    assert Executor(handlers).handles("memory.search")
    assert Executor(handlers).handles("memory_search")
    assert not Executor(handlers).handles("read_file")
    assert [tool.name for tool in agents_sdk.function_tools(handlers)] == ["memory_search"]
    assert [tool.name for tool in langchain_tools.structured_tools(handlers)] == ["memory_search"]


HANDLERS = "{'read_file': lambda args: ''}"


@pytest.mark.parametrize(
    ("use", "framework", "package"),
    [
        (f"agents_sdk.function_tools({HANDLERS})", "agents", "openai-agents"),
        ("agents_sdk.run_config()", "agents", "openai-agents"),
        (f"pydantic_ai_tools.capability({HANDLERS})", "pydantic_ai", "pydantic-ai-slim"),
        ("langchain_tools.to_langchain([])", "langchain_core", "langchain-core"),
        (f"langchain_tools.tools_node({HANDLERS})", "langchain_core", "langchain-core"),
        (f"langchain_tools.structured_tools({HANDLERS})", "langchain_core", "langchain-core"),
    ],
)
def test_a_missing_framework_says_what_to_install(
    use: str,
    framework: str,
    package: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 35: each integration is optional; without its framework, using it is an
    ImportError that names the package to install."""
    # As if not installed: the framework, and each of its modules this process has loaded, is
    # gone from it for the test (monkeypatch puts them back after).
    for name in [n for n in sys.modules if n == framework or n.startswith(f"{framework}.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, framework, None)
    module = use.split(".")[0]
    integration = importlib.import_module(f"generated.memory_tools.{module}")
    with pytest.raises(ImportError) as raised:
        eval(use, {module: integration})
    assert f"needs the `{package}` package (pip install {package}) and could not import it" in (
        str(raised.value)
    )
    assert capsys.readouterr() == ("", "")


def test_the_package_imports_no_framework_until_one_is_used() -> None:
    """Issue 35: the package, and each framework's module, import none of the frameworks."""
    script = (
        "import sys\n"
        "import generated.memory_tools as pkg\n"
        "from generated.memory_tools import agents_sdk, langchain_tools, pydantic_ai_tools\n"
        "pkg.parse('read_file', '{}')\n"
        "print(sorted(m for m in ('agents', 'pydantic_ai', 'langchain_core', 'langgraph',"
        " 'litellm', 'openai', 'pydantic') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


# Calls as LangChain holds them: ids that may repeat or be missing, names of the catalog or not,
# valid calls' arguments as JSON objects, invalid calls' as any text.
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
IDS = st.sampled_from(["call_0", "call_1", "a", ""]) | st.none()
NAMES = st.sampled_from(["read_file", "memory_search", "memory.search", "nope", ""])
VALID = st.fixed_dictionaries(
    {"id": IDS, "name": NAMES, "args": st.dictionaries(st.text(max_size=8), JSON, max_size=3)}
)
INVALID = st.fixed_dictionaries(
    {"id": IDS, "name": NAMES, "args": st.text(max_size=30) | st.none(), "error": st.none()}
)


@given(valid=st.lists(VALID, max_size=4), invalid=st.lists(INVALID, max_size=4))
@settings(max_examples=60, deadline=None)
def test_every_call_of_an_ai_message_is_read_and_kept_valid(
    valid: list[dict[str, Any]], invalid: list[dict[str, Any]]
) -> None:
    """Issue 35 item 3: `from_langchain` reads `tool_calls` then `invalid_tool_calls`, as
    `from_openai_chat` reads a message (each id once, `call_<n>` for none), and
    `history_langchain` keeps every call in `tool_calls` with arguments that are a JSON object,
    whatever LangChain holds; neither raises."""
    from langchain_core.messages import AIMessage

    from generated.memory_tools import TOOLS, from_openai_chat, langchain_tools

    message = AIMessage(content="", tool_calls=valid, invalid_tool_calls=invalid)
    chat = [(c["id"], c["name"], c["args"]) for c in [*message.tool_calls, *invalid]]
    expected = from_openai_chat(
        {
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                for i, n, a in chat
            ]
        }
    )
    assert langchain_tools.from_langchain(message) == expected
    kept = langchain_tools.history_langchain(message)
    assert kept.invalid_tool_calls == []
    # Every request answers exactly one call of the history (a call whose id another holds is
    # dropped from both), by id and tool (the history keeps the name as sent: an alias, say).
    assert [
        (call["id"], TOOLS.wire_name(call["name"]) or call["name"]) for call in kept.tool_calls
    ] == [(request.tool_call_id, request.tool_name) for request in expected]
    assert all(isinstance(call["args"], dict) for call in kept.tool_calls)
    json.dumps([call["args"] for call in kept.tool_calls], allow_nan=False)
    # A call sent as a JSON object is kept as sent (its request's raw text is that object's).
    for call, request in zip(kept.tool_calls, expected, strict=True):
        try:
            sent = json.loads(request.raw_arguments)
        except ValueError:
            continue
        if isinstance(sent, dict):
            assert call["args"] == sent


class Unreadable:
    @property
    def tool_calls(self) -> list[object]:
        raise RuntimeError("no")


@pytest.mark.parametrize(
    "odd",
    [None, 42, "text", {"tool_calls": []}, [], Unreadable()],
    ids=["None", "int", "str", "dict", "list", "raising"],
)
def test_what_is_no_ai_message_has_no_calls(odd: object) -> None:
    """Issue 35 item 3: the LangChain reader never raises: what is no message has no calls,
    and is its own history message."""
    from generated.memory_tools import langchain_tools

    assert langchain_tools.from_langchain(odd) == []
    assert langchain_tools.history_langchain(odd) is odd


CATALOGS = ["coercion.yaml", "hostile.yaml", "results.yaml"]


@pytest.mark.parametrize("catalog", CATALOGS)
def test_every_frameworks_tools_are_the_packages_payloads(
    catalog: str, fixture_package: Callable[[str], ModuleType], stub: Stub
) -> None:
    """Issue 35: for every tool of the test catalogs (hostile text, every kind, results), what
    each framework sends is the package's payload: the Agents SDK `OPENAI_STRICT_TOOLS` as they
    are (its own strict rewrite leaves them alone), pydantic-ai and LangChain `OPENAI_TOOLS`
    through each one's own rewrite of a schema (`pydantic_ai_rule`, `langchain_rule`), which
    leaves the bundled catalog's tools as they are (the end-to-end tests above)."""
    import agents
    from langchain.agents import create_agent
    from langchain_openai import ChatOpenAI
    from openai import AsyncOpenAI
    from pydantic_ai import Agent

    agents.set_tracing_disabled(True)
    stub.calls = []  # the model answers in text
    pkg = fixture_package(catalog)
    handlers = {name: (lambda args: None) for name in pkg.TOOLS}
    tools = {
        name: importlib.import_module(f"{pkg.__name__}.{name}")
        for name in ("agents_sdk", "pydantic_ai_tools", "langchain_tools")
    }
    model = agents.OpenAIChatCompletionsModel(model="gpt-5", openai_client=AsyncOpenAI())
    agent = agents.Agent(name="a", model=model, tools=tools["agents_sdk"].function_tools(handlers))
    agents.Runner.run_sync(agent, "hi", run_config=tools["agents_sdk"].run_config())
    capability = tools["pydantic_ai_tools"].capability(handlers)
    Agent("openai-chat:gpt-5", capabilities=[capability]).run_sync("hi")
    structured = tools["langchain_tools"].structured_tools(handlers)
    create_agent(ChatOpenAI(model="gpt-5"), tools=structured).invoke({"messages": ["hi"]})
    assert [request["tools"] for request in stub.requests()] == [
        pkg.OPENAI_STRICT_TOOLS,
        [pydantic_ai_rule(tool) for tool in pkg.OPENAI_TOOLS],
        [langchain_rule(tool) for tool in pkg.OPENAI_TOOLS],
    ]


def langchain_rule(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool as LangChain sends a tool whose schema is JSON Schema
    (`convert_to_openai_function`): each `$ref` written out in place (its public
    `dereference_refs`), `$defs`, `title`s and the root's `description` removed."""
    from langchain_core.utils.json_schema import dereference_refs

    function = tool["function"]
    parameters = dereference_refs(copy.deepcopy(function["parameters"]))
    parameters.pop("$defs", None)
    parameters.pop("description", None)
    return {**tool, "function": {**function, "parameters": without_titles(parameters)}}


def without_titles(node: object, names: bool = False) -> object:
    """`node` without the keyword `title` (a property named `title` stays)."""
    if isinstance(node, list):
        return [without_titles(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: without_titles(value, key == "properties" and not names)
        for key, value in node.items()
        if names or key != "title"
    }


def pydantic_ai_rule(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool as pydantic-ai's OpenAI models send any tool: its schema through the profile's
    `OpenAIJsonSchemaTransformer`, not strict (no `title`; `properties` on every object; a `$ref`
    with keywords beside it moved into `anyOf`: the same schema, spelt otherwise)."""
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    function = tool["function"]
    parameters = OpenAIJsonSchemaTransformer(copy.deepcopy(function["parameters"]), strict=False)
    return {**tool, "function": {**function, "parameters": parameters.walk()}}

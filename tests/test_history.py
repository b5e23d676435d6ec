"""History that stays valid: three turns of an agent loop through the real `openai`, `anthropic`
and `google-genai` clients against a stub API on 127.0.0.1. The first turn's calls have malformed
arguments; the loop appends `history_*` (the assistant turn) and `to_*` (the results), and the
stub, like the providers that do, refuses any request whose history holds call arguments that are
not a valid JSON object. What each request carried is then compared whole."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types as gemini

from generated import memory_tools
from generated.memory_tools import Executor

# The first turn: a call cut off (repaired: its corrected values go back), a call already valid
# but for a number sent as text (kept byte for byte, spacing and all), and a call that cannot be
# read at all (`{}` goes back, and the result says why it was not run).
CUT_OFF = '{"query": "agent", "limit": 2'
VALID = '{"filePath":"README.md",  "startLine": "3"}'
UNREADABLE = "query=agent"
# What the history holds for them.
CUT_OFF_FIXED = {"query": "agent", "limit": 3}
# The second turn: the model corrects its call.
AGAIN = '{"query": "agent", "limit": 2}'

USER = "Find what the notes say about agents."
ANSWER = "The notes say: agent 0, agent 1."


def search(query: str, limit: int = 3) -> list[str]:
    return [f"{query} {n}" for n in range(limit)]


def read(filePath: str, startLine: int | None, encoding: str) -> str:
    return f"{filePath} from line {startLine}"


EXECUTOR = Executor({"memory.search": search, "read_file": read})

CUT_OFF_RESULT = (
    "Error: the call was not run: the arguments were cut off before their end."
    " Correct the call and send it again."
)
UNREADABLE_RESULT = (
    "Error: the call was not run: the arguments are not valid JSON (Expecting value at line 1"
    " column 1); they must be one JSON object. Correct the call and send it again."
)


def is_json_object(arguments: object) -> bool:
    """Whether call arguments are a JSON object: as text (strict JSON, no NaN) or as an object."""
    if isinstance(arguments, str):

        def reject(constant: str) -> object:
            raise ValueError(constant)

        try:
            arguments = json.loads(arguments, parse_constant=reject)
        except ValueError:
            return False
    return isinstance(arguments, dict)


@dataclass
class Stub:
    """A provider's API: each POST to `path` gets the next of `replies`, unless some call in the
    request's history has arguments that are not a JSON object (`arguments_in` finds them)."""

    path: str
    replies: list[dict[str, Any]]
    arguments_in: Callable[[dict[str, Any]], list[object]]
    received: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Stub], Stub]]:
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(proxy, raising=False)  # the clients must reach 127.0.0.1 directly
    servers: list[tuple[ThreadingHTTPServer, threading.Thread]] = []

    def start(state: Stub) -> Stub:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                state.received.append(body)
                bad = [a for a in state.arguments_in(body) if not is_json_object(a)]
                if self.path.split("?")[0] != state.path:
                    status, reply = 404, {"error": {"message": self.path}}
                elif bad:
                    status, reply = 400, {"error": {"message": f"invalid arguments: {bad}"}}
                else:
                    status, reply = 200, state.replies.pop(0)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep the test output clean

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        state.url = f"http://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return state

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_stub_refuses_the_raw_malformed_arguments_the_loop_no_longer_resends() -> None:
    assert [is_json_object(a) for a in (CUT_OFF, UNREADABLE, "NaN", '"{}"', VALID, {})] == [
        False,
        False,
        False,
        False,
        True,
        True,
    ]


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def chat_arguments(body: dict[str, Any]) -> list[object]:
    return [
        call["function"]["arguments"]
        for message in body["messages"]
        for call in message.get("tool_calls") or []
    ]


def chat_reply(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }


def chat_call(call_id: str, name: str, arguments: object) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_openai_chat_three_turns(serve: Callable[[Stub], Stub]) -> None:
    first = [
        chat_call("call_a", "memory_search", CUT_OFF),
        chat_call("call_b", "read_file", VALID),
        chat_call("call_c", "memory_search", UNREADABLE),
        # Arguments encoded as JSON twice: valid JSON, but a string; the object goes back.
        chat_call("call_d", "memory_search", json.dumps(AGAIN)),
    ]
    stub = serve(
        Stub(
            "/v1/chat/completions",
            [
                chat_reply({"role": "assistant", "content": "Looking.", "tool_calls": first}),
                chat_reply(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [chat_call("call_e", "memory_search", AGAIN)],
                    }
                ),
                chat_reply({"role": "assistant", "content": ANSWER}),
            ],
            chat_arguments,
        )
    )
    client = openai.OpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": USER}]
    for _ in range(3):
        completion = client.chat.completions.create(
            model="gpt-test", messages=messages, tools=memory_tools.OPENAI_TOOLS
        )
        requests = memory_tools.from_openai_chat(completion)
        if not requests:
            break
        messages.append(memory_tools.history_openai_chat(completion))
        messages.extend(memory_tools.to_openai_chat(EXECUTOR.execute(r) for r in requests))
    assert completion.choices[0].message.content == ANSWER
    assert len(stub.received) == 3
    assert stub.received[2]["messages"] == [
        {"role": "user", "content": USER},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                chat_call("call_a", "memory_search", json.dumps(CUT_OFF_FIXED)),
                chat_call("call_b", "read_file", VALID),
                chat_call("call_c", "memory_search", "{}"),
                chat_call("call_d", "memory_search", json.dumps({"query": "agent", "limit": 2})),
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": CUT_OFF_RESULT},
        {"role": "tool", "tool_call_id": "call_b", "content": "README.md from line 3"},
        {"role": "tool", "tool_call_id": "call_c", "content": UNREADABLE_RESULT},
        {"role": "tool", "tool_call_id": "call_d", "content": '["agent 0", "agent 1"]'},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [chat_call("call_e", "memory_search", AGAIN)],
        },
        {"role": "tool", "tool_call_id": "call_e", "content": '["agent 0", "agent 1"]'},
    ]


# ---------------------------------------------------------------------------------------------
# OpenAI Responses


def responses_arguments(body: dict[str, Any]) -> list[object]:
    items = body["input"] if isinstance(body["input"], list) else []
    return [item["arguments"] for item in items if item.get("type") == "function_call"]


def responses_reply(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": output,
    }


def responses_call(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def test_openai_responses_three_turns(serve: Callable[[Stub], Stub]) -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    stub = serve(
        Stub(
            "/v1/responses",
            [
                responses_reply(
                    [
                        reasoning,
                        responses_call("fc_a", "call_a", "memory_search", CUT_OFF),
                        responses_call("fc_b", "call_b", "read_file", VALID),
                        responses_call("fc_c", "call_c", "memory_search", UNREADABLE),
                    ]
                ),
                responses_reply([responses_call("fc_e", "call_e", "memory_search", AGAIN)]),
                responses_reply(
                    [
                        {
                            "type": "message",
                            "id": "msg_1",
                            "role": "assistant",
                            "status": "completed",
                            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
                        }
                    ]
                ),
            ],
            responses_arguments,
        )
    )
    client = openai.OpenAI(base_url=f"{stub.url}/v1", api_key="test", max_retries=0)
    items: list[Any] = [{"role": "user", "content": USER}]
    for _ in range(3):
        response = client.responses.create(
            model="gpt-test", input=items, tools=memory_tools.OPENAI_RESPONSES_TOOLS
        )
        requests = memory_tools.from_openai_responses(response)
        if not requests:
            break
        items += memory_tools.history_openai_responses(response)
        items += memory_tools.to_openai_responses(EXECUTOR.execute(r) for r in requests)
    assert response.output_text == ANSWER
    assert len(stub.received) == 3

    def sent_call(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
        call = responses_call(item_id, call_id, name, arguments)
        del call["status"]
        return call

    def output(call_id: str, text: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": call_id, "output": text}

    assert stub.received[2]["input"] == [
        {"role": "user", "content": USER},
        reasoning,
        sent_call("fc_a", "call_a", "memory_search", json.dumps(CUT_OFF_FIXED)),
        sent_call("fc_b", "call_b", "read_file", VALID),
        sent_call("fc_c", "call_c", "memory_search", "{}"),
        output("call_a", CUT_OFF_RESULT),
        output("call_b", "README.md from line 3"),
        output("call_c", UNREADABLE_RESULT),
        sent_call("fc_e", "call_e", "memory_search", AGAIN),
        output("call_e", '["agent 0", "agent 1"]'),
    ]


# ---------------------------------------------------------------------------------------------
# Anthropic Messages: `input` is an object; some gateways hand the model's text over as it is.


def anthropic_arguments(body: dict[str, Any]) -> list[object]:
    return [
        block["input"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]


def anthropic_reply(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
        "content": content,
    }


def tool_use(call_id: str, name: str, arguments: object) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def test_anthropic_three_turns(serve: Callable[[Stub], Stub]) -> None:
    thinking = {"type": "thinking", "thinking": "Search first.", "signature": "sig-1"}
    stub = serve(
        Stub(
            "/v1/messages",
            [
                anthropic_reply(
                    [
                        thinking,
                        tool_use("toolu_a", "memory_search", CUT_OFF),
                        tool_use("toolu_b", "read_file", json.loads(VALID)),
                        tool_use("toolu_c", "memory_search", UNREADABLE),
                    ],
                    "tool_use",
                ),
                anthropic_reply(
                    [tool_use("toolu_e", "memory_search", json.loads(AGAIN))], "tool_use"
                ),
                anthropic_reply([{"type": "text", "text": ANSWER}], "end_turn"),
            ],
            anthropic_arguments,
        )
    )
    client = anthropic.Anthropic(base_url=stub.url, api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": USER}]
    for _ in range(3):
        message = client.messages.create(
            model="claude-test",
            max_tokens=1024,
            messages=messages,
            tools=memory_tools.ANTHROPIC_TOOLS,
        )
        requests = memory_tools.from_anthropic(message)
        if not requests:
            break
        messages.append(memory_tools.history_anthropic(message))
        results = [EXECUTOR.execute(r) for r in requests]
        messages.append({"role": "user", "content": memory_tools.to_anthropic(results)})
    assert [block.type for block in message.content] == ["text"]
    assert len(stub.received) == 3

    def result(call_id: str, text: str, error: bool) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}

    assert stub.received[2]["messages"] == [
        {"role": "user", "content": USER},
        {
            "role": "assistant",
            "content": [
                thinking,
                tool_use("toolu_a", "memory_search", CUT_OFF_FIXED),
                tool_use("toolu_b", "read_file", json.loads(VALID)),
                tool_use("toolu_c", "memory_search", {}),
            ],
        },
        {
            "role": "user",
            "content": [
                result("toolu_a", CUT_OFF_RESULT, True),
                result("toolu_b", "README.md from line 3", False),
                result("toolu_c", UNREADABLE_RESULT, True),
            ],
        },
        {"role": "assistant", "content": [tool_use("toolu_e", "memory_search", json.loads(AGAIN))]},
        {"role": "user", "content": [result("toolu_e", '["agent 0", "agent 1"]', False)]},
    ]


# ---------------------------------------------------------------------------------------------
# Gemini: `args` is an object; the part's thought signature must go back with its call.


def gemini_arguments(body: dict[str, Any]) -> list[object]:
    return [
        part["functionCall"].get("args")
        for content in body["contents"]
        for part in content["parts"]
        if "functionCall" in part
    ]


def gemini_reply(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"index": 0, "finishReason": "STOP", "content": {"role": "model", "parts": parts}}
        ],
        "modelVersion": "gemini-test",
    }


def gemini_call(name: str, arguments: object, signature: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": arguments}}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def test_gemini_three_turns(serve: Callable[[Stub], Stub]) -> None:
    signature = "c2lnbmF0dXJl"  # base64, as the API sends bytes
    path = "/v1beta/models/gemini-test:generateContent"
    stub = serve(
        Stub(
            path,
            [
                gemini_reply(
                    [
                        gemini_call(
                            "memory.search", {"query": "agent", "limit": "many"}, signature
                        ),
                        gemini_call("read_file", json.loads(VALID)),
                    ]
                ),
                gemini_reply([gemini_call("memory.search", json.loads(AGAIN))]),
                gemini_reply([{"text": ANSWER}]),
            ],
            gemini_arguments,
        )
    )
    options = gemini.HttpOptions(base_url=stub.url, api_version="v1beta")
    client = genai.Client(api_key="test", http_options=options)
    config = gemini.GenerateContentConfig(
        tools=[gemini.Tool(function_declarations=memory_tools.GEMINI_TOOLS)]
    )
    names = memory_tools.PROVIDER_NAMES["gemini"]
    contents: list[Any] = [{"role": "user", "parts": [{"text": USER}]}]
    for _ in range(3):
        response = client.models.generate_content(
            model="gemini-test", contents=contents, config=config
        )
        requests = memory_tools.from_gemini(response)
        if not requests:
            break
        contents.append(memory_tools.history_gemini(response))
        results = [EXECUTOR.execute(r) for r in requests]
        contents.append({"role": "user", "parts": memory_tools.to_gemini(results, names)})
    assert response.text == ANSWER
    assert len(stub.received) == 3
    sent = stub.received[2]["contents"]
    assert [content["role"] for content in sent] == ["user", "model", "user", "model", "user"]
    # Gemini's args are objects already: they go back as the model sent them, `limit` and all
    # (the result says what to fix), and the thought signature stays on its part.
    assert sent[1]["parts"] == [
        gemini_call("memory.search", {"query": "agent", "limit": "many"}, signature),
        gemini_call("read_file", json.loads(VALID)),
    ]
    assert [part["functionResponse"]["name"] for part in sent[2]["parts"]] == [
        "memory.search",
        "read_file",
    ]
    assert sent[3]["parts"] == [gemini_call("memory.search", json.loads(AGAIN))]


# ---------------------------------------------------------------------------------------------
# The same rules on plain dicts (REST JSON, or what a gateway hands over), at every level.


@pytest.mark.parametrize(
    ("raw", "sent_back"),
    [
        (VALID, VALID),  # one JSON object already: the same text
        ('{"query": "agent", "limit": NaN}', "{}"),  # NaN is not JSON, and nothing else is read
        ('"{\\"query\\": \\"x\\"}"', '{"query": "x", "limit": 3}'),  # encoded twice
        # No arguments: the parser reads an empty object, and fills the defaults.
        ("", '{"limit": 3}'),
        (None, '{"limit": 3}'),
    ],
)
def test_openai_arguments_are_sent_back_as_json_object_text(raw: object, sent_back: str) -> None:
    message = {"role": "assistant", "tool_calls": [chat_call("c1", "memory_search", raw)]}
    turn = memory_tools.history_openai_chat(message)
    assert turn == {
        "role": "assistant",
        "content": None,
        "tool_calls": [chat_call("c1", "memory_search", sent_back)],
    }
    items = memory_tools.history_openai_responses(
        [{"type": "function_call", "call_id": "c1", "name": "memory_search", "arguments": raw}]
    )
    assert items == [
        {"type": "function_call", "call_id": "c1", "name": "memory_search", "arguments": sent_back}
    ]


def test_a_call_without_an_id_gets_the_one_its_result_answers() -> None:
    message = {
        "role": "assistant",
        "tool_calls": [
            {"type": "function", "function": {"name": "read_file", "arguments": VALID}},
            {"type": "custom", "custom": {"name": "shell", "input": "ls"}},
            {"function": {"name": "memory_search", "arguments": AGAIN}},
        ],
    }
    requests = memory_tools.from_openai_chat(message)
    turn = memory_tools.history_openai_chat({"choices": [{"message": message}]})
    assert [r.tool_call_id for r in requests] == ["call_0", "call_1"]
    assert turn["tool_calls"] == [
        chat_call("call_0", "read_file", VALID),
        {"type": "custom", "custom": {"name": "shell", "input": "ls"}},
        chat_call("call_1", "memory_search", AGAIN),
    ]


def test_object_arguments_that_are_not_json_objects_go_back_corrected() -> None:
    blocks = [
        {"type": "text", "text": "Looking."},
        tool_use("t1", "memory_search", CUT_OFF),
        tool_use("t2", "memory_search", {"query": "agent", "limit": float("nan")}),
        tool_use("t3", "memory_search", ["agent"]),
    ]
    assert memory_tools.history_anthropic(blocks) == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking."},
            tool_use("t1", "memory_search", CUT_OFF_FIXED),
            # NaN is no JSON: the parser's values, without the value it refused (left out as
            # it is decoded, so its default applies, as in a truncated call: issue 32 item 8).
            tool_use("t2", "memory_search", {"query": "agent", "limit": 3}),
            tool_use("t3", "memory_search", {}),
        ],
    }
    content = {
        "role": "model",
        "parts": [{"text": "Looking."}, gemini_call("memory.search", CUT_OFF, "sig")],
    }
    assert memory_tools.history_gemini({"content": content}) == {
        "role": "model",
        "parts": [{"text": "Looking."}, gemini_call("memory.search", CUT_OFF_FIXED, "sig")],
    }


class Raising:
    """An object every attribute of which raises, as a broken proxy's might."""

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(name)


class RaisingMapping(dict[str, object]):
    def get(self, key: str, default: object = None) -> object:
        raise RuntimeError(key)


class RaisingItems(Mapping[str, object]):
    """Arguments whose items cannot be read."""

    def __getitem__(self, key: str) -> object:
        raise RuntimeError(key)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        return 1


def test_nothing_gives_a_turn_without_calls() -> None:
    assert memory_tools.history_openai_chat(None) == {"role": "assistant", "content": None}
    assert memory_tools.history_openai_responses(None) == []
    assert memory_tools.history_anthropic(None) == {"role": "assistant", "content": []}
    assert memory_tools.history_gemini(None) == {"role": "model", "parts": []}


@pytest.mark.parametrize(
    ("hostile", "code"),
    [
        (Raising(), "unreadable_response:RuntimeError"),
        (RaisingMapping(), "unreadable_response:RuntimeError"),
        (42, "malformed_response:int"),
        ("text", "malformed_response:str"),
    ],
    ids=["raising", "raising-mapping", "number", "text"],
)
def test_a_reply_that_cannot_be_read_gives_the_call_its_refusal_answers(
    hostile: object, code: str
) -> None:
    """Issue 33 item 4: the adapter's refused request has its call in the history (no name, no
    arguments), so its result, which says what went wrong, answers a call."""
    for provider in ("openai_chat", "openai_responses", "anthropic", "gemini"):
        (refusal,) = getattr(memory_tools, f"from_{provider}")(hostile)
        assert (refusal.tool_call_id, refusal.errors) == ("call_0", (code,))
    assert memory_tools.history_openai_chat(hostile) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [chat_call("call_0", "", "{}")],
    }
    assert memory_tools.history_openai_responses(hostile) == [
        {"type": "function_call", "call_id": "call_0", "name": "", "arguments": "{}"}
    ]
    assert memory_tools.history_anthropic(hostile) == {
        "role": "assistant",
        "content": [tool_use("call_0", "", {})],
    }
    assert memory_tools.history_gemini(hostile) == {
        "role": "model",
        "parts": [{"functionCall": {"name": "", "args": {}}}],
    }


def test_calls_whose_fields_cannot_be_read_still_go_back_as_json_objects() -> None:
    message = {"tool_calls": [{"id": "c1", "type": "function", "function": Raising()}]}
    assert memory_tools.history_openai_chat(message)["tool_calls"] == [chat_call("c1", "", "{}")]
    part = {"functionCall": {"name": "memory.search", "args": RaisingItems()}}
    other = Raising()  # a part that cannot be read: the refused call its result answers
    turn = memory_tools.history_gemini({"parts": [part, other]})
    assert turn["parts"] == [
        gemini_call("memory.search", {}),
        {"functionCall": {"name": "", "args": {}}},
    ]

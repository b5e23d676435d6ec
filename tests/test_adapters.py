"""The adapters: provider responses, as SDK objects or plain dicts at every level, into requests.

Responses are built with the SDKs' own types (`ChatCompletion`, `Response`, `Message`,
`GenerateContentResponse`), and as the REST JSON and `model_dump()` of them; each case asserts
the exact requests. Malformed responses and calls give requests with errors, never an exception.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from anthropic.types import Message
from google.genai import types as gemini
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent
Level = Callable[[object], object]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("pkg"))


def get(node: object, *path: str | int) -> object:
    """A field of an SDK object or a dict, by attribute or key; an int indexes a list."""
    for step in path:
        if isinstance(step, int):
            node = node[step]  # type: ignore[index]
        elif isinstance(node, dict):
            node = node[step]
        else:
            node = getattr(node, step)
    return node


def request(
    pkg: ModuleType,
    name: str,
    call_id: str,
    raw: str,
    values: dict[str, object],
    warnings: tuple[str, ...] = (),
    errors: tuple[str, ...] = (),
    *,
    id_generated: bool = False,
) -> object:
    """The request the parser makes of `raw`, checked against the fields the test expects; with
    the adapter's warning for a call that came without the id its provider's form has."""
    parsed = pkg.parse(name, raw, call_id)
    assert (parsed.values, parsed.warnings, parsed.errors) == (values, warnings, errors)
    if id_generated:
        return parsed._replace(warnings=("tool_call_id_generated", *parsed.warnings))
    return parsed


def failed(pkg: ModuleType, code: str, call_id: str, raw: str = "", *warnings: str) -> object:
    return pkg.RefusedRequest("", call_id, raw, None, {}, warnings, (code,))


def forms(sdk_object: object, rest: dict[str, object]) -> list[object]:
    """The same response as the SDK's object, its model_dump(), and the REST JSON."""
    return [sdk_object, sdk_object.model_dump(), rest]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions

SEARCH_ARGS = json.dumps({"query": "agent state", "limit": "5"})
READ_ARGS = '{"filePath": "README.md", "startLine": 3,}'

CHAT_REST: dict[str, object] = {
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
                "content": "Let me look.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "memory.search", "arguments": SEARCH_ARGS},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        # Double-encoded: the arguments object as a JSON string inside the string.
                        "function": {"name": "read_file", "arguments": json.dumps(READ_ARGS)},
                    },
                ],
            },
        }
    ],
}


def chat_expected(pkg: ModuleType) -> list[object]:
    return [
        request(
            pkg,
            "memory.search",
            "call_a",
            SEARCH_ARGS,
            {"query": "agent state", "limit": 5},
            ("string_literal_converted_to_integer:limit",),
        ),
        request(
            pkg,
            "read_file",
            "call_b",
            json.dumps(READ_ARGS),
            {"filePath": "README.md", "startLine": 3, "encoding": "utf-8"},
            ("arguments_unquoted", "trailing_comma_removed"),
        ),
    ]


CHAT_LEVELS: dict[str, Level] = {
    "completion": lambda r: r,
    "choice": lambda r: get(r, "choices", 0),
    "message": lambda r: get(r, "choices", 0, "message"),
    "tool calls": lambda r: get(r, "choices", 0, "message", "tool_calls"),
    "choices": lambda r: get(r, "choices"),
}


@pytest.mark.parametrize("form", ["sdk", "model_dump", "rest"])
@pytest.mark.parametrize("level", sorted(CHAT_LEVELS))
def test_openai_chat_at_every_level(pkg: ModuleType, form: str, level: str) -> None:
    response = forms(ChatCompletion.model_validate(CHAT_REST), CHAT_REST)[
        ["sdk", "model_dump", "rest"].index(form)
    ]
    assert pkg.from_openai_chat(CHAT_LEVELS[level](response)) == chat_expected(pkg)


@pytest.mark.parametrize("form", ["sdk", "rest"])
def test_openai_chat_one_tool_call(pkg: ModuleType, form: str) -> None:
    response = ChatCompletion.model_validate(CHAT_REST) if form == "sdk" else CHAT_REST
    second = get(response, "choices", 0, "message", "tool_calls", 1)
    assert pkg.from_openai_chat(second) == chat_expected(pkg)[1:]


def test_openai_chat_text_reply_has_no_calls(pkg: ModuleType) -> None:
    text = {"role": "assistant", "content": "Hello."}
    completion = {**CHAT_REST, "choices": [{"index": 0, "finish_reason": "stop", "message": text}]}
    assert pkg.from_openai_chat(ChatCompletion.model_validate(completion)) == []
    assert pkg.from_openai_chat(completion) == []
    assert pkg.from_openai_chat({**text, "tool_calls": None}) == []
    # `message.tool_calls` of a text reply is None: passing it on is no error.
    assert pkg.from_openai_chat(None) == []
    assert pkg.from_openai_chat([]) == []


def test_openai_chat_legacy_function_call(pkg: ModuleType) -> None:
    message = {"role": "assistant", "function_call": {"name": "memory.search", "arguments": "{}"}}
    # The legacy form has no id: the generated one is its ordinary form, not a correction.
    expected = request(
        pkg, "memory.search", "call_0", "{}", {"limit": 3}, (), ("missing_required:query",)
    )
    assert pkg.from_openai_chat(message) == [expected]


def test_openai_chat_arguments_sent_as_an_object(pkg: ModuleType) -> None:
    # Some OpenAI-compatible servers send the arguments decoded: the parser takes them as they are.
    call = {"id": "call_a", "function": {"name": "memory.search", "arguments": {"query": "q"}}}
    assert pkg.from_openai_chat(call) == [
        request(pkg, "memory.search", "call_a", '{"query": "q"}', {"query": "q", "limit": 3})
    ]


def test_openai_chat_skips_custom_tool_calls(pkg: ModuleType) -> None:
    custom = {"id": "call_c", "type": "custom", "custom": {"name": "grammar", "input": "x"}}
    calls = [custom, get(CHAT_REST, "choices", 0, "message", "tool_calls", 0)]
    assert pkg.from_openai_chat(calls) == chat_expected(pkg)[:1]


def test_openai_chat_malformed_calls(pkg: ModuleType) -> None:
    calls = [
        {"id": "call_a", "type": "function"},
        {"id": "call_b", "type": "function", "function": {"arguments": '{"query": "x"}'}},
        {"id": "call_c", "type": "function", "function": {"name": 7, "arguments": {"a": 1}}},
        {"type": "function", "function": {"name": "memory.search", "arguments": '{"query": "x"}'}},
        {"id": "call_e", "function": {"name": "memory.search", "arguments": [1, 2]}},
        {"id": "call_f", "function": {"name": "memory.search"}},
        "call_g",
        {"unexpected": True},
        {"id": 8, "function": {"name": "nope", "arguments": "{}"}},
    ]
    assert pkg.from_openai_chat(calls) == [
        failed(pkg, "malformed_tool_call:function", "call_a"),
        failed(pkg, "malformed_tool_call:function.name", "call_b", '{"query": "x"}'),
        failed(pkg, "malformed_tool_call:function.name", "call_c", '{"a": 1}'),
        request(
            pkg,
            "memory.search",
            "call_3",
            '{"query": "x"}',
            {"query": "x", "limit": 3},
            id_generated=True,
        ),
        request(pkg, "memory.search", "call_e", "[1, 2]", {}, (), ("arguments_not_object",)),
        request(pkg, "memory.search", "call_f", "", {"limit": 3}, (), ("missing_required:query",)),
        failed(pkg, "malformed_response:str", "call_6"),
        failed(pkg, "malformed_response:dict", "call_7"),
        request(pkg, "nope", "call_8", "{}", {}, ("tool_definition_missing",), id_generated=True),
    ]


# ---------------------------------------------------------------------------------------------
# OpenAI Responses

RESPONSES_REST: dict[str, object] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-test",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Searching.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_a",
            "name": "memory.search",
            "arguments": SEARCH_ARGS,
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_b",
            "name": "read_file",
            "arguments": json.dumps(READ_ARGS),
        },
    ],
}

RESPONSES_LEVELS: dict[str, Level] = {
    "response": lambda r: r,
    "output": lambda r: get(r, "output"),
}


@pytest.mark.parametrize("form", ["sdk", "model_dump", "rest"])
@pytest.mark.parametrize("level", sorted(RESPONSES_LEVELS))
def test_openai_responses_at_every_level(pkg: ModuleType, form: str, level: str) -> None:
    response = forms(Response.model_validate(RESPONSES_REST), RESPONSES_REST)[
        ["sdk", "model_dump", "rest"].index(form)
    ]
    assert pkg.from_openai_responses(RESPONSES_LEVELS[level](response)) == chat_expected(pkg)


@pytest.mark.parametrize("form", ["sdk", "rest"])
def test_openai_responses_one_item(pkg: ModuleType, form: str) -> None:
    response = Response.model_validate(RESPONSES_REST) if form == "sdk" else RESPONSES_REST
    assert pkg.from_openai_responses(get(response, "output", 3)) == chat_expected(pkg)[1:]
    assert pkg.from_openai_responses(get(response, "output", 1)) == []


def test_openai_responses_malformed_items(pkg: ModuleType) -> None:
    items = [
        {"type": "function_call", "call_id": "call_a", "arguments": "{"},
        {"type": "function_call", "name": "memory.search", "arguments": '{"query": "x"}'},
        {"call_id": "call_c", "name": "memory.search", "arguments": '{"query": "y"}'},
        {"type": "function_call", "call_id": "call_d", "name": "memory.search", "arguments": 5},
        None,
        {"no": "type"},
        3.5,
    ]
    assert pkg.from_openai_responses(items) == [
        failed(pkg, "malformed_tool_call:name", "call_a", "{"),
        request(
            pkg,
            "memory.search",
            "call_1",
            '{"query": "x"}',
            {"query": "x", "limit": 3},
            id_generated=True,
        ),
        # No output item comes without `type`: this one is not run as a call.
        failed(pkg, "malformed_response:dict", "call_2"),
        request(pkg, "memory.search", "call_d", "5", {}, (), ("arguments_not_object",)),
        failed(pkg, "malformed_response:dict", "call_4"),
        failed(pkg, "malformed_response:float", "call_5"),
    ]


# ---------------------------------------------------------------------------------------------
# Anthropic Messages

SETTINGS = {"settings": {"timeout": "30", "mode": "FAST"}, "dryRun": "yes"}

ANTHROPIC_REST: dict[str, object] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 20},
    "content": [
        {"type": "thinking", "thinking": "The user wants...", "signature": "sig"},
        {"type": "text", "text": "I'll search."},
        {
            "type": "tool_use",
            "id": "toolu_a",
            "name": "memory.search",
            "input": {"query": "agent state", "limit": "5"},
        },
        {"type": "tool_use", "id": "toolu_b", "name": "update_config", "input": SETTINGS},
    ],
}


def anthropic_expected(pkg: ModuleType) -> list[object]:
    return [
        request(
            pkg,
            "memory.search",
            "toolu_a",
            json.dumps({"query": "agent state", "limit": "5"}),
            {"query": "agent state", "limit": 5},
            ("string_literal_converted_to_integer:limit",),
        ),
        request(
            pkg,
            "update_config",
            "toolu_b",
            json.dumps(SETTINGS),
            {"settings": {"timeout": 30, "mode": "fast", "retries": 3}, "dryRun": True},
            (
                "string_literal_converted_to_integer:settings.timeout",
                "enum_case_normalized:settings.mode",
                "string_literal_converted_to_boolean:dryRun",
            ),
        ),
    ]


ANTHROPIC_LEVELS: dict[str, Level] = {
    "message": lambda r: r,
    "content": lambda r: get(r, "content"),
    "last blocks": lambda r: get(r, "content")[2:],  # type: ignore[index]
}


@pytest.mark.parametrize("form", ["sdk", "model_dump", "rest"])
@pytest.mark.parametrize("level", sorted(ANTHROPIC_LEVELS))
def test_anthropic_at_every_level(pkg: ModuleType, form: str, level: str) -> None:
    response = forms(Message.model_validate(ANTHROPIC_REST), ANTHROPIC_REST)[
        ["sdk", "model_dump", "rest"].index(form)
    ]
    assert pkg.from_anthropic(ANTHROPIC_LEVELS[level](response)) == anthropic_expected(pkg)


@pytest.mark.parametrize("form", ["sdk", "rest"])
def test_anthropic_one_block(pkg: ModuleType, form: str) -> None:
    message = Message.model_validate(ANTHROPIC_REST) if form == "sdk" else ANTHROPIC_REST
    assert pkg.from_anthropic(get(message, "content", 3)) == anthropic_expected(pkg)[1:]
    assert pkg.from_anthropic(get(message, "content", 1)) == []


def test_anthropic_message_params_and_text(pkg: ModuleType) -> None:
    # A message as sent back in a conversation: content is a string, or a list of blocks.
    assert pkg.from_anthropic({"role": "assistant", "content": "Hello."}) == []
    block = {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": '{"filePath": "a"}'}
    assert pkg.from_anthropic({"role": "assistant", "content": [block]}) == [
        request(
            pkg, "read_file", "toolu_a", '{"filePath": "a"}', {"filePath": "a", "encoding": "utf-8"}
        )
    ]


def test_anthropic_malformed_blocks(pkg: ModuleType) -> None:
    blocks = [
        {"type": "tool_use", "id": "toolu_a", "input": {"query": "x"}},
        {"type": "tool_use", "name": "", "input": {}},
        {"type": "tool_use", "id": "toolu_c", "name": "memory.search", "input": ["x"]},
        {"type": "tool_use", "name": "memory.search", "input": {"query": "x"}},
        {"type": "server_tool_use", "id": "srvtoolu_e", "name": "web_search", "input": {}},
        {"id": "toolu_f", "name": "memory.search", "input": {"query": "z"}},
        {"text": "no type"},
        b"bytes",
    ]
    assert pkg.from_anthropic(blocks) == [
        failed(pkg, "malformed_tool_call:name", "toolu_a", '{"query": "x"}'),
        failed(pkg, "malformed_tool_call:name", "call_1", "{}", "tool_call_id_generated"),
        request(pkg, "memory.search", "toolu_c", '["x"]', {}, (), ("arguments_not_object",)),
        request(
            pkg,
            "memory.search",
            "call_3",
            '{"query": "x"}',
            {"query": "x", "limit": 3},
            id_generated=True,
        ),
        # A block without `type` is no `tool_use`: not run (issue 33, "calls").
        failed(pkg, "malformed_response:dict", "call_4"),
        failed(pkg, "malformed_response:dict", "call_5"),
        failed(pkg, "malformed_response:bytes", "call_6"),
    ]


# ---------------------------------------------------------------------------------------------
# Gemini

GEMINI_REST: dict[str, object] = {
    "candidates": [
        {
            "index": 0,
            "finishReason": "STOP",
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Let me look.", "thought": True},
                    {
                        "functionCall": {
                            "name": "memory.search",
                            "args": {"query": "q", "limit": 2.0},
                        }
                    },
                    {
                        "functionCall": {
                            "id": "fc-b",
                            "name": "read_file",
                            "args": {"filePath": "a"},
                        },
                        "thoughtSignature": "c2ln",
                    },
                ],
            },
        }
    ],
    "modelVersion": "gemini-test",
}


def gemini_expected(pkg: ModuleType) -> list[object]:
    return [
        request(
            pkg,
            "memory.search",
            "call_0",
            json.dumps({"query": "q", "limit": 2.0}),
            {"query": "q", "limit": 2},
            ("number_coerced_to_integer:limit",),
        ),
        request(
            pkg,
            "read_file",
            "fc-b",
            json.dumps({"filePath": "a"}),
            {"filePath": "a", "encoding": "utf-8"},
        ),
    ]


GEMINI_LEVELS: dict[str, Level] = {
    "response": lambda r: r,
    "candidates": lambda r: get(r, "candidates"),
    "candidate": lambda r: get(r, "candidates", 0),
    "content": lambda r: get(r, "candidates", 0, "content"),
    "parts": lambda r: get(r, "candidates", 0, "content", "parts"),
}


@pytest.mark.parametrize("form", ["sdk", "model_dump", "rest"])
@pytest.mark.parametrize("level", sorted(GEMINI_LEVELS))
def test_gemini_at_every_level(pkg: ModuleType, form: str, level: str) -> None:
    sdk = gemini.GenerateContentResponse.model_validate(GEMINI_REST)
    # model_dump() spells fields as the SDK does (function_call), the REST JSON as the API does.
    response = [sdk, sdk.model_dump(), GEMINI_REST][["sdk", "model_dump", "rest"].index(form)]
    assert pkg.from_gemini(GEMINI_LEVELS[level](response)) == gemini_expected(pkg)


@pytest.mark.parametrize("form", ["sdk", "rest"])
def test_gemini_one_part_and_one_call(pkg: ModuleType, form: str) -> None:
    response = (
        gemini.GenerateContentResponse.model_validate(GEMINI_REST) if form == "sdk" else GEMINI_REST
    )
    parts = get(response, "candidates", 0, "content", "parts")
    call = get(parts, 1, "function_call" if form == "sdk" else "functionCall")
    # Alone, each call is the first of the list returned: an id-less one is call_0.
    assert pkg.from_gemini(get(parts, 1)) == gemini_expected(pkg)[:1]
    assert pkg.from_gemini(call) == gemini_expected(pkg)[:1]
    assert pkg.from_gemini(get(parts, 2)) == gemini_expected(pkg)[1:]
    assert pkg.from_gemini(get(parts, 0)) == []


def test_gemini_reads_the_first_candidate(pkg: ModuleType) -> None:
    """Issue 33 item 4: the first candidate is the turn; another is read when passed itself."""
    part = {"functionCall": {"name": "memory.search", "args": {"query": "q"}}}
    other = {"functionCall": {"name": "read_file", "args": {"filePath": "a"}}}
    candidate = {"content": {"role": "model", "parts": [{"text": "x"}, part]}}
    second = {"content": {"role": "model", "parts": [other]}}
    for reply in ({"candidates": [candidate, second]}, [candidate, second]):
        found = pkg.from_gemini(reply)
        assert [(r.tool_name, r.tool_call_id) for r in found] == [("memory.search", "call_0")]
    assert [r.tool_name for r in pkg.from_gemini(second)] == ["read_file"]
    # A call without arguments is a call with none: the parser fills defaults and says what is missing.
    assert pkg.from_gemini(gemini.FunctionCall(name="memory.search")) == [
        request(pkg, "memory.search", "call_0", "", {"limit": 3}, (), ("missing_required:query",))
    ]


def test_gemini_malformed_parts(pkg: ModuleType) -> None:
    parts = [
        {"functionCall": {"args": {"query": "x"}}},
        {"functionCall": "memory.search"},
        {"function_call": {"name": "memory.search", "args": "not json"}},
        {"functionCall": None, "text": "x"},
        {"inlineData": {"mimeType": "image/png", "data": ""}},
        7,
    ]
    assert pkg.from_gemini(parts) == [
        failed(pkg, "malformed_tool_call:name", "call_0", '{"query": "x"}'),
        failed(pkg, "malformed_tool_call:name", "call_1"),
        request(
            pkg,
            "memory.search",
            "call_2",
            "not json",
            {},
            (),
            ("json_parse_error:Expecting value at line 1 column 1 (original: not json)",),
        ),
        failed(pkg, "malformed_response:int", "call_3"),
    ]


# ---------------------------------------------------------------------------------------------
# What no provider sends, but a caller may hold: the adapters still never raise.


class Raising:
    """An SDK-like object whose every field read fails."""

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(name)


class RaisingFunction:
    type = "function"
    id = "call_r"

    @property
    def function(self) -> object:
        raise ValueError("broken")


ADAPTERS = ["from_openai_chat", "from_openai_responses", "from_anthropic", "from_gemini"]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_unreadable_objects_become_errors(pkg: ModuleType, adapter: str) -> None:
    assert getattr(pkg, adapter)([Raising()]) == [
        failed(pkg, "unreadable_response:RuntimeError", "call_0")
    ]


def test_unreadable_call_keeps_the_others(pkg: ModuleType) -> None:
    """A call whose id can be read keeps it (issue 33 item 4: the history holds it so)."""
    good = get(CHAT_REST, "choices", 0, "message", "tool_calls", 0)
    assert pkg.from_openai_chat([RaisingFunction(), good]) == [
        failed(pkg, "unreadable_tool_call:ValueError", "call_r"),
        *chat_expected(pkg)[:1],
    ]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_response_that_holds_itself_ends(pkg: ModuleType, adapter: str) -> None:
    looped: list[object] = []
    looped.append(looped)
    node: dict[str, object] = {"role": "assistant"}
    # The field of the adapter's provider that holds items (another provider's is no shape of it).
    own = dict(zip(ADAPTERS, ["tool_calls", "output", "content", "parts"], strict=True))
    node[own[adapter]] = [node]
    assert getattr(pkg, adapter)(looped) == []
    assert getattr(pkg, adapter)(node) == []


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("junk", ["text", b"\xff", 0, 1.5, True, {}, {"x": None}, ((),)])
def test_junk_is_a_malformed_response(pkg: ModuleType, adapter: str, junk: object) -> None:
    found = getattr(pkg, adapter)(junk)
    # A tuple of empty tuples holds no call; and Gemini parts have no `type`, so a record with
    # no field of a call is a part of another kind.
    skipped = isinstance(junk, tuple) or (adapter == "from_gemini" and isinstance(junk, dict))
    code = f"malformed_response:{type(junk).__name__}"
    assert found == ([] if skipped else [failed(pkg, code, "call_0")])


# Dicts keyed by the fields the adapters look for, holding anything: every shape, half-formed.
FIELDS = [
    *("choices", "message", "tool_calls", "function_call", "role", "function", "id", "type"),
    *("name", "arguments", "output", "call_id", "content", "input", "candidates", "parts"),
    *("functionCall", "function_call", "args", "text"),
]
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.sampled_from(["function", "function_call", "tool_use", "message", "memory.search"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS), inner),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_adapters_never_raise(pkg: ModuleType, value: object) -> None:
    for adapter in ADAPTERS:
        found = getattr(pkg, adapter)(value)
        for request_ in found:
            assert type(request_) in (pkg.ReadyRequest, pkg.RefusedRequest)
            assert isinstance(request_.tool_call_id, str) and request_.tool_call_id
            assert isinstance(request_.raw_arguments, str)
            # A request without a tool name is an error; a request with an error has no arguments.
            assert request_.tool_name or request_.errors
            assert request_.arguments is None or not request_.errors


def test_adapters_load_lazily_and_need_no_sdk() -> None:
    # python -S: no site-packages, so no SDK; and the package does not load the adapters' module
    # until an adapter is called.
    script = (
        "import sys; sys.path.insert(0, '.');"
        "import generated.memory_tools as pkg;"
        "assert 'generated.memory_tools._providers' not in sys.modules;"
        "found = pkg.from_anthropic({'content': [{'type': 'tool_use', 'id': 't', "
        "'name': 'memory.search', 'input': {'query': 'q'}}]});"
        "assert 'generated.memory_tools._providers' in sys.modules;"
        "print(found[0].tool_call_id, found[0].values)"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "t {'query': 'q', 'limit': 3}"


def test_a_response_too_large_to_walk_ends_with_an_error(pkg: ModuleType) -> None:
    node: object = [{"type": "custom", "id": "call_c", "custom": {"name": "grammar"}}]
    for _ in range(40):  # 2**40 items, each reached by a different path
        node = [node, node]
    # Each item is walked at each place it appears, until the budget of a million is spent.
    assert pkg.from_openai_chat(node) == [failed(pkg, "response_too_large", "call_0")]

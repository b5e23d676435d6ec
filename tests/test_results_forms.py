"""Results back to each provider, in the form its API takes, checked with the provider's own SDK
types. A pydantic TypeAdapter over a TypedDict drops keys it does not know without a word, so the
keys sent are compared with the keys it kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from anthropic.types import ToolResultBlockParam
from google.genai import types as gemini
from openai.types.chat import ChatCompletionToolMessageParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

from generated.memory_tools import (
    Executor,
    MemorySearchArgs,
    ToolCallResult,
    parse,
    to_anthropic,
    to_gemini,
    to_openai_chat,
    to_openai_responses,
)


def results() -> list[ToolCallResult]:
    """One call of each status, and a success with a note."""

    def search(args: MemorySearchArgs) -> dict[str, object]:
        return {"hits": [args.query] * args.limit}

    def read(args: object) -> str:
        raise FileNotFoundError("a.md")

    executor = Executor({"memory.search": search, "read_file": read})
    return [
        executor.execute(parse("memory.search", '{"query": "q", "limit": 2}', "call_ok")),
        executor.execute(parse("read_file", '{"filePath": "a.md"}', "call_failed")),
        executor.execute(parse("memory.search", '{"limit": 500}', "call_rejected")),
        executor.execute(
            parse("memory.search", '{"query": "q", "limit": 1, "x": 1}', "call_noted")
        ),
    ]


TEXTS = [
    '{"hits": ["q", "q"]}',
    "Error: the tool failed: FileNotFoundError: a.md",
    (
        "Error: the call was not run: `query` is missing; `limit` must be at most 50."
        " Correct the call and send it again."
    ),
    '{"hits": ["q"]}\n\nNote: `x` is not a parameter of this tool and was ignored.',
]
IDS = ["call_ok", "call_failed", "call_rejected", "call_noted"]


def kept(adapter: TypeAdapter[Any], item: Mapping[str, Any]) -> Mapping[str, Any]:
    validated = adapter.validate_python(item)
    assert set(validated) == set(item), "keys the SDK type does not know were dropped"
    return validated


def test_openai_chat_gets_a_tool_message_per_call() -> None:
    messages = to_openai_chat(results())
    assert messages == [
        {"role": "tool", "tool_call_id": call_id, "content": text}
        for call_id, text in zip(IDS, TEXTS, strict=True)
    ]
    adapter = TypeAdapter(ChatCompletionToolMessageParam)
    assert [kept(adapter, message) for message in messages] == messages


def test_openai_responses_gets_a_function_call_output_item_per_call() -> None:
    items = to_openai_responses(results())
    assert items == [
        {"type": "function_call_output", "call_id": call_id, "output": text}
        for call_id, text in zip(IDS, TEXTS, strict=True)
    ]
    adapter = TypeAdapter(FunctionCallOutput)
    assert [kept(adapter, item) for item in items] == items


def test_anthropic_gets_a_tool_result_block_per_call_flagged_when_it_is_an_error() -> None:
    blocks = to_anthropic(results())
    assert blocks == [
        {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
        for call_id, text, error in zip(IDS, TEXTS, [False, True, True, False], strict=True)
    ]
    adapter = TypeAdapter(ToolResultBlockParam)
    assert [kept(adapter, block) for block in blocks] == blocks


def test_gemini_gets_a_function_response_part_per_call() -> None:
    parts = to_gemini(results())
    assert parts == [
        {
            "functionResponse": {
                "id": "call_ok",
                "name": "memory.search",
                "response": {"output": {"hits": ["q", "q"]}},
            }
        },
        {
            "functionResponse": {
                "id": "call_failed",
                "name": "read_file",
                "response": {"error": TEXTS[1]},
            }
        },
        {
            "functionResponse": {
                "id": "call_rejected",
                "name": "memory.search",
                "response": {"error": TEXTS[2]},
            }
        },
        {
            "functionResponse": {
                "id": "call_noted",
                "name": "memory.search",
                "response": {
                    "output": {"hits": ["q"]},
                    "note": "`x` is not a parameter of this tool and was ignored",
                },
            }
        },
    ]
    for part in parts:
        # Part forbids keys it does not know; dumped back, it must be what was sent.
        model = gemini.Part.model_validate(part)
        assert model.model_dump(by_alias=True, exclude_none=True, mode="json") == part
    content = gemini.Content(role="user", parts=[gemini.Part.model_validate(p) for p in parts])
    assert content.parts is not None and content.parts[0].function_response is not None


def test_gemini_leaves_out_an_empty_call_id() -> None:
    result = ToolCallResult("memory.search", "", "success", "found")
    assert to_gemini([result]) == [
        {"functionResponse": {"name": "memory.search", "response": {"output": "found"}}}
    ]


def test_gemini_answers_under_the_name_it_was_sent() -> None:
    # A wire name Gemini does not take (a digit first) was sent as its alias (PROVIDER_NAMES).
    result = ToolCallResult("2fa.check", "c1", "success", "ok")
    names = {"2fa.check": "_2fa.check", "memory.search": "memory.search"}
    assert to_gemini([result], names) == [
        {
            "functionResponse": {
                "id": "c1",
                "name": "_2fa.check",
                "response": {"output": "ok"},
            }
        }
    ]
    assert to_gemini([result])[0]["functionResponse"]["name"] == "2fa.check"


@pytest.mark.parametrize("form", [to_openai_chat, to_openai_responses, to_anthropic, to_gemini])
def test_each_form_takes_any_iterable_and_an_empty_batch(form: Any) -> None:
    assert form(iter([])) == []
    assert len(form(result for result in results())) == 4

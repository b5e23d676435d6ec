"""The event sequences each provider documents for a streamed reply holding tool calls, as the
JSON its API sends (what SDKs parse each SSE `data:` line into), with the arguments cut into
pieces of `size` characters. A call is (id, name, arguments text). Tests, the stub server and the
benchmark share them; the shapes of known SDK bugs are written out beside the valid ones."""

from __future__ import annotations

import json
from typing import Any

Call = tuple[str, str, str]
Event = dict[str, Any]


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def chat_chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


def chat_events(calls: list[Call], size: int = 7) -> list[Event]:
    """One call after another: its id and name first, then its arguments in pieces."""
    events = [chat_chunk({"role": "assistant", "content": None})]
    for index, (call_id, name, arguments) in enumerate(calls):
        start = {"index": index, "id": call_id, "type": "function"}
        start["function"] = {"name": name, "arguments": ""}
        events.append(chat_chunk({"tool_calls": [start]}))
        for piece in pieces(arguments, size):
            delta = {"index": index, "function": {"arguments": piece}}
            events.append(chat_chunk({"tool_calls": [delta]}))
    events.append(chat_chunk({}, "tool_calls"))
    events.append({**chat_chunk({}), "choices": [], "usage": {"total_tokens": 9}})
    return events


def chat_message(calls: list[Call]) -> Event:
    """The whole message the chunks add up to: what `from_openai_chat` reads."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ],
    }


def chat_events_without_index(calls: list[Call]) -> list[Event]:
    """openai-python #2806 (Gemini's OpenAI-compatible endpoint and others): each call whole in
    one chunk, with no `index`."""
    events = [chat_chunk({"role": "assistant"})]
    for call_id, name, arguments in calls:
        call = {"id": call_id, "type": "function"}
        call["function"] = {"name": name, "arguments": arguments}
        events.append(chat_chunk({"tool_calls": [call]}))
    events.append(chat_chunk({}, "tool_calls"))
    return events


def chat_events_duplicate_index(calls: list[Call], size: int = 7) -> list[Event]:
    """openai-python #3201: a chunk holding several entries with one `index` (the start and the
    first piece of the arguments)."""
    events = [chat_chunk({"role": "assistant"})]
    for index, (call_id, name, arguments) in enumerate(calls):
        first, *rest = pieces(arguments, size)
        start = {"index": index, "id": call_id, "type": "function"}
        start["function"] = {"name": name, "arguments": ""}
        more = {"index": index, "function": {"arguments": first}}
        events.append(chat_chunk({"tool_calls": [start, more]}))
        for piece in rest:
            events.append(
                chat_chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    events.append(chat_chunk({}, "tool_calls"))
    return events


def chat_events_index_reused(calls: list[Call]) -> list[Event]:
    """Gateways that flatten parallel calls: every call on `index` 0, each with its own id."""
    events = [chat_chunk({"role": "assistant"})]
    for call_id, name, arguments in calls:
        call = {"index": 0, "id": call_id, "type": "function"} if call_id else {"index": 0}
        call["function"] = {"name": name, "arguments": arguments}
        events.append(chat_chunk({"tool_calls": [call]}))
    events.append(chat_chunk({}, "tool_calls"))
    return events


def chat_events_arguments_repeated(calls: list[Call]) -> list[Event]:
    """Mistral through some clients: the whole call in its first chunk, then the same again."""
    events = [chat_chunk({"role": "assistant"})]
    for index, (call_id, name, arguments) in enumerate(calls):
        call = {"index": index, "id": call_id, "type": "function"}
        call["function"] = {"name": name, "arguments": arguments}
        events += [chat_chunk({"tool_calls": [call]}), chat_chunk({"tool_calls": [call]})]
    events.append(chat_chunk({}, "tool_calls"))
    return events


# ---------------------------------------------------------------------------------------------
# OpenAI Responses


def response(output: list[Event], status: str = "completed") -> Event:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": status,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": output,
    }


def function_call_item(index: int, call: Call, arguments: str, status: str) -> Event:
    call_id, name, _ = call
    return {
        "type": "function_call",
        "id": f"fc_{index}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def responses_events(calls: list[Call], size: int = 7) -> list[Event]:
    events: list[Event] = [
        {"type": "response.created", "response": response([], "in_progress")},
        {"type": "response.in_progress", "response": response([], "in_progress")},
    ]
    items = []
    for index, call in enumerate(calls):
        item_id, arguments = f"fc_{index}", call[2]
        added = function_call_item(index, call, "", "in_progress")
        events.append({"type": "response.output_item.added", "output_index": index, "item": added})
        for piece in pieces(arguments, size):
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item_id,
                    "output_index": index,
                    "delta": piece,
                }
            )
        events.append(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": index,
                "arguments": arguments,
            }
        )
        item = function_call_item(index, call, arguments, "completed")
        items.append(item)
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response(items)})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def responses_final(calls: list[Call]) -> Event:
    return response([function_call_item(i, c, c[2], "completed") for i, c in enumerate(calls)])


# ---------------------------------------------------------------------------------------------
# Anthropic Messages


def anthropic_message(content: list[Event], stop: str | None = None) -> Event:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }


def anthropic_events(calls: list[Call], size: int = 7, text: str = "On it.") -> list[Event]:
    events: list[Event] = [
        {"type": "message_start", "message": anthropic_message([])},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
    ]
    for index, (call_id, name, arguments) in enumerate(calls, start=1):
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        for piece in pieces(arguments, size):
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 20},
        }
    )
    events.append({"type": "message_stop"})
    return events


def anthropic_final(calls: list[Call], text: str = "On it.") -> Event:
    blocks: list[Event] = [{"type": "text", "text": text}]
    blocks += [
        {"type": "tool_use", "id": i, "name": n, "input": json.loads(a) if a.strip() else {}}
        for i, n, a in calls
    ]
    return anthropic_message(blocks, "tool_use")


# ---------------------------------------------------------------------------------------------
# Gemini: each chunk a GenerateContentResponse; a function call comes whole in its part.


def gemini_chunk(parts: list[Event], finish: str | None = None) -> Event:
    candidate: Event = {"index": 0, "content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-test"}


def gemini_call(call: Call) -> Event:
    """A call's part; arguments `""` are a call without `args` (a tool without parameters)."""
    call_id, name, arguments = call
    function_call: Event = {"name": name}
    if arguments.strip():
        function_call["args"] = json.loads(arguments)
    if call_id:
        function_call["id"] = call_id
    return {"functionCall": function_call}


def gemini_final(calls: list[Call], text: str = "On it.") -> Event:
    """The whole response the chunks of `gemini_events` add up to."""
    return gemini_chunk([{"text": text}, *map(gemini_call, calls)], "STOP")


def gemini_events(calls: list[Call], text: str = "On it.") -> list[Event]:
    events = [gemini_chunk([{"text": text}])]
    events += [gemini_chunk([gemini_call(call)]) for call in calls]
    events.append(gemini_chunk([{"text": ""}], "STOP"))
    return events


def vertex_streamed_call(
    name: str, values: list[tuple[str, object, bool]], call_id: str = ""
) -> list[Event]:
    """Vertex AI's `streamFunctionCallArguments`: the call's name, then its values by JSON path
    (`(path, value, will_continue)`, one part each), then a last part without `willContinue`."""
    first: Event = {"name": name, "willContinue": True}
    if call_id:
        first["id"] = call_id
    events = [gemini_chunk([{"functionCall": first}])]
    for path, value, more in values:
        kind = {str: "stringValue", bool: "boolValue", int: "numberValue", float: "numberValue"}
        partial: Event = {"jsonPath": path, kind[type(value)]: value}
        if more:
            partial["willContinue"] = True
        call = {"partialArgs": [partial], "willContinue": True}
        events.append(gemini_chunk([{"functionCall": call}]))
    events.append(gemini_chunk([{"functionCall": {}}], "STOP"))
    return events


def vertex_events(calls: list[Call], size: int = 7) -> list[Event]:
    """Several calls streamed as Vertex AI does, each top-level string in pieces of `size`."""
    events: list[Event] = []
    for call_id, name, arguments in calls:
        values: list[tuple[str, object, bool]] = []
        for key, value in json.loads(arguments).items():
            if isinstance(value, str):
                parts = pieces(value, size)
                values += [(f"$.{key}", p, i < len(parts) - 1) for i, p in enumerate(parts)]
            else:
                values.append((f"$.{key}", value, False))
        events += vertex_streamed_call(name, values, call_id)
    return events

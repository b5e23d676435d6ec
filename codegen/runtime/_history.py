"""History: the assistant turn to append to the conversation after a model's tool calls, with
every call's arguments as valid JSON objects.

Standard library only. Some providers refuse a whole conversation whose history holds arguments
that are not a JSON object (OpenAI, vLLM), so re-sending what the model wrote can break every
later request. Each call keeps its name and id as the model sent them, so the results (`to_*`)
still answer it; its arguments are kept as sent when they were already one JSON object that can
be sent on (the same text, byte for byte), and are otherwise the parser's corrected `values` as
strict JSON: `{}` when nothing could be read, whose refusal the call's result carries. Every other
part of the turn (reasoning, thinking, signatures) is kept as it is. What is text here (a chat
message's content, names, ids, arguments) is well-formed UTF-8, by `_outbound`'s one rule: a
lone surrogate is U+FFFD, the same in the results' forms.

The turn is written from the calls the adapters read (`_providers.read_reply`): it holds one call
for each request `from_*` returns, with its id, and no other call of the catalog's, so the
results answer exactly its calls; a value that was no call (`malformed_response:<type>`) is a call
with no name and `{}`, which its refused result answers. Nothing here raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._outbound import encode, strict_loads, strict_text, well_formed
from ._providers import _MISSING, CallSlot, Parse, read_reply

if TYPE_CHECKING:
    from ._types import AnthropicAssistantMessage, GeminiContent, OpenAIAssistantMessage


def openai_chat(obj: object, parse: Parse) -> OpenAIAssistantMessage:
    """The assistant message of a `ChatCompletion` (its first choice), a choice, or a message,
    for `messages`: its text and its `tool_calls` (none when it made none). A legacy
    `function_call` is written as the tool call its result (a `tool` message) answers."""
    turn: OpenAIAssistantMessage = {"role": "assistant", "content": None}
    calls: list[Any] = []
    for entry in read_reply(obj, "openai_chat", parse):
        if isinstance(entry, CallSlot):
            arguments = _text(entry.arguments, entry)
            function = {"name": entry.name, "arguments": arguments}
            calls.append({"id": _id(entry), "type": "function", "function": function})
        elif entry.kind == "item":
            calls.append(entry.node)  # a custom tool's call: no catalog tool, kept as it is
        elif turn["content"] is None:
            content = _get(entry.node, "content")
            if isinstance(content, str):
                turn["content"] = well_formed(content)
    if calls:
        turn["tool_calls"] = calls
    return turn


def openai_responses(obj: object, parse: Parse) -> list[Any]:
    """The output items of a `Response`, or a list of them, for the next `input`: reasoning and
    messages as they are, each `function_call` with valid arguments."""
    items: list[Any] = []
    for entry in read_reply(obj, "openai_responses", parse):
        if not isinstance(entry, CallSlot):
            items.append(entry.node)
            continue
        call: dict[str, Any] = {
            "type": "function_call",
            "call_id": _id(entry),
            "name": entry.name,
            "arguments": _text(entry.arguments, entry),
        }
        item_id = _get(entry.node, "id")
        if isinstance(item_id, str) and item_id:
            call["id"] = well_formed(item_id)
        items.append(call)
    return items


def anthropic(obj: object, parse: Parse) -> AnthropicAssistantMessage:
    """The assistant message of a `Message`, or of a list of its content blocks, for `messages`:
    text and thinking blocks as they are, each `tool_use` with a valid `input` object."""
    blocks: list[Any] = []
    for entry in read_reply(obj, "anthropic", parse):
        if isinstance(entry, CallSlot):
            block = {"type": "tool_use", "id": _id(entry), "name": entry.name}
            blocks.append({**block, "input": _object(entry.arguments, entry)})
        elif entry.kind == "item":
            blocks.append(entry.node)
    return {"role": "assistant", "content": blocks}


def gemini(obj: object, parse: Parse) -> GeminiContent:
    """The model turn of a `GenerateContentResponse` (its first candidate), a candidate, or a
    `Content`, for `contents`: every part as it is (a thought signature stays on its part), each
    function call with valid `args`. A call keeps its id, or has none, as Gemini sent it."""
    role: object = _MISSING
    parts: list[Any] = []
    for entry in read_reply(obj, "gemini", parse):
        if not isinstance(entry, CallSlot):
            if entry.kind == "item":
                parts.append(entry.node)
            elif role is _MISSING:
                role = _get(entry.node, "role")
            continue
        function_call: dict[str, Any] = {}
        call_id = _get(entry.node, "id")
        if isinstance(call_id, str) and call_id:
            function_call["id"] = well_formed(call_id)
        function_call["name"] = entry.name
        function_call["args"] = _object(entry.arguments, entry)
        part = entry.holder
        # The part's own spelling: a dict's key as it came, an SDK part's dump in snake case.
        camel = part is _MISSING or (
            isinstance(part, Mapping) and _get(part, "functionCall") is not _MISSING
        )
        rebuilt = _as_dict(part)
        rebuilt.pop("functionCall", None)
        rebuilt.pop("function_call", None)
        rebuilt["functionCall" if camel else "function_call"] = function_call
        parts.append(rebuilt)
    return {"role": role if isinstance(role, str) and role else "model", "parts": parts}


def _id(slot: CallSlot) -> str:
    """The call's id as its request has it (the provider's, or the one generated for a call
    without one), which its result answers (`to_*` makes it well-formed text the same way)."""
    return well_formed(slot.request.tool_call_id)


# ---------------------------------------------------------------------------------------------
# Arguments


def _text(raw: object, slot: CallSlot) -> str:
    """The call's arguments as JSON object text: as sent when they are one already, and one
    that can be sent on (`_outbound.strict_loads`: no lone surrogate, no number out of range);
    an object given as a record rather than text (LangChain's `args`) is its strict text, as
    `_object` keeps it."""
    if isinstance(raw, str) and isinstance(strict_loads(raw), dict):
        return raw
    if isinstance(raw, Mapping) and (text := strict_text(raw)) is not None:
        return text
    return _values_text(slot)


def _object(raw: object, slot: CallSlot) -> object:
    """The call's arguments as a JSON object: as sent when they are one already."""
    if isinstance(raw, Mapping):
        if strict_text(raw) is not None:
            return raw
    elif isinstance(raw, str):
        decoded = strict_loads(raw)
        if isinstance(decoded, dict):
            return decoded
    return json.loads(_values_text(slot))


def _values_text(slot: CallSlot) -> str:
    """The parser's corrected values as strict JSON (`{}` when nothing could be read): a lone
    surrogate the model sent is U+FFFD there, with the parse's warning, and a number out of a
    float's range is null, as `_outbound.encode` writes it."""
    return encode(slot.request.values).text


# ---------------------------------------------------------------------------------------------
# Reading a provider's records: a dict by key, an SDK object by attribute.


def _get(node: object, *names: str) -> object:
    """A record's field by the first of `names` it has; _MISSING when none can be read."""
    if node is None or isinstance(node, (str, bytes, int, float, list, tuple)):
        return _MISSING
    for name in names:
        try:
            if isinstance(node, Mapping):
                value = node.get(name, _MISSING)
            else:
                value = getattr(node, name, _MISSING)
        except Exception:  # noqa: BLE001 - an object whose attributes raise
            value = _MISSING
        if value is not _MISSING:
            return value
    return _MISSING


def _as_dict(part: object) -> dict[str, Any]:
    """A part's fields as a dict: the SDK object's own dump, which keeps its thought signature."""
    try:
        if isinstance(part, Mapping):
            return dict(part)
        dump = getattr(part, "model_dump", None)
        if callable(dump):
            dumped = dump(exclude_none=True)
            if isinstance(dumped, dict):
                return dumped
    except Exception:  # noqa: BLE001 - a part whose own methods raise: its call alone goes back
        return {}
    return {}

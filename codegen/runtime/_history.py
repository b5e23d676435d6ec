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
lone surrogate is U+FFFD, the same in the results' forms. Nothing here raises: a field that
cannot be read is taken as absent, as the adapters take it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from ._outbound import encode, strict_loads, strict_text, well_formed
from ._runtime import RawArguments, ToolCallRequest

if TYPE_CHECKING:
    from ._types import AnthropicAssistantMessage, GeminiContent, OpenAIAssistantMessage

# A catalog's `parse(tool_name, raw, tool_call_id)`.
Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]

_MISSING: Final = object()


def openai_chat(obj: object, parse: Parse) -> OpenAIAssistantMessage:
    """The assistant message of a `ChatCompletion` (its first choice), a choice, or a message,
    for `messages`: its text and its `tool_calls` (none when it made none)."""
    message = _get(obj, "choices")
    message = _first(message) if message is not _MISSING else obj
    inner = _get(message, "message")
    message = message if inner is _MISSING else inner
    content = _get(message, "content")
    turn: OpenAIAssistantMessage = {
        "role": "assistant",
        "content": well_formed(content) if isinstance(content, str) else None,
    }
    calls = []
    position = 0
    for call in _list(_get(message, "tool_calls")):
        kind = _get(call, "type")
        if kind not in ("function", _MISSING, None):
            calls.append(call)  # a custom tool's call: no catalog tool, kept as it is
            continue
        function = _get(call, "function")
        name = _name(_get(function, "name"))
        arguments = _text(_get(function, "arguments"), name, parse)
        calls.append(
            {
                "id": _id(_get(call, "id"), position),
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        )
        position += 1
    if calls:
        turn["tool_calls"] = calls
    return turn


def openai_responses(obj: object, parse: Parse) -> list[Any]:
    """The output items of a `Response`, or a list of them, for the next `input`: reasoning and
    messages as they are, each `function_call` with valid arguments."""
    output = _get(obj, "output")
    items = []
    position = 0
    for item in _list(obj if output is _MISSING else output):
        if _get(item, "type") != "function_call":
            items.append(item)
            continue
        name = _name(_get(item, "name"))
        call: dict[str, Any] = {
            "type": "function_call",
            "call_id": _id(_get(item, "call_id"), position),
            "name": name,
            "arguments": _text(_get(item, "arguments"), name, parse),
        }
        item_id = _get(item, "id")
        if isinstance(item_id, str) and item_id:
            call["id"] = well_formed(item_id)
        items.append(call)
        position += 1
    return items


def anthropic(obj: object, parse: Parse) -> AnthropicAssistantMessage:
    """The assistant message of a `Message`, or of a list of its content blocks, for `messages`:
    text and thinking blocks as they are, each `tool_use` with a valid `input` object."""
    content = _get(obj, "content")
    blocks = []
    position = 0
    for block in _list(obj if content is _MISSING else content):
        if _get(block, "type") != "tool_use":
            blocks.append(block)
            continue
        name = _name(_get(block, "name"))
        blocks.append(
            {
                "type": "tool_use",
                "id": _id(_get(block, "id"), position),
                "name": name,
                "input": _object(_get(block, "input"), name, parse),
            }
        )
        position += 1
    return {"role": "assistant", "content": blocks}


def gemini(obj: object, parse: Parse) -> GeminiContent:
    """The model turn of a `GenerateContentResponse` (its first candidate), a candidate, or a
    `Content`, for `contents`: every part as it is (a thought signature stays on its part), each
    function call with valid `args`. A call keeps its id, or has none, as Gemini sent it."""
    content = obj
    candidates = _get(content, "candidates")
    if candidates is not _MISSING:
        content = _first(candidates)
    inner = _get(content, "content")
    if inner is not _MISSING:
        content = inner
    role = _get(content, "role")
    parts = []
    for part in _list(_get(content, "parts")):
        camel = isinstance(part, Mapping) and _get(part, "functionCall") is not _MISSING
        call = _get(part, "function_call", "functionCall")
        if call in (_MISSING, None):
            parts.append(part)
            continue
        name = _name(_get(call, "name"))
        function_call: dict[str, Any] = {}
        call_id = _get(call, "id")
        if isinstance(call_id, str) and call_id:
            function_call["id"] = well_formed(call_id)
        function_call["name"] = name
        function_call["args"] = _object(_get(call, "args"), name, parse)
        rebuilt = _as_dict(part)
        rebuilt.pop("functionCall", None)
        rebuilt.pop("function_call", None)
        rebuilt["functionCall" if camel else "function_call"] = function_call
        parts.append(rebuilt)
    return {"role": role if isinstance(role, str) and role else "model", "parts": parts}


# ---------------------------------------------------------------------------------------------
# Arguments


def _text(raw: object, name: str, parse: Parse) -> str:
    """The call's arguments as JSON object text: as sent when they are one already, and one
    that can be sent on (`_outbound.strict_loads`: no lone surrogate, no number out of range)."""
    if isinstance(raw, str) and isinstance(strict_loads(raw), dict):
        return raw
    return _values_text(raw, name, parse)


def _object(raw: object, name: str, parse: Parse) -> object:
    """The call's arguments as a JSON object: as sent when they are one already."""
    if isinstance(raw, Mapping):
        if strict_text(raw) is not None:
            return raw
    elif isinstance(raw, str):
        decoded = strict_loads(raw)
        if isinstance(decoded, dict):
            return decoded
    return json.loads(_values_text(raw, name, parse))


def _values_text(raw: object, name: str, parse: Parse) -> str:
    """The parser's corrected values as strict JSON (`{}` when nothing could be read): a lone
    surrogate the model sent is U+FFFD there, with the parse's warning, and a number out of a
    float's range is null, as `_outbound.encode` writes it."""
    return encode(parse(name, raw, "").values).text  # type: ignore[arg-type]  # takes any input


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


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _first(value: object) -> object:
    items = _list(value)
    return items[0] if items else _MISSING


def _name(value: object) -> str:
    return well_formed(value) if isinstance(value, str) else ""


def _id(value: object, position: int) -> str:
    """The call's id, or the one the adapter gave a call without one, so its result answers it
    (whose `to_*` form makes the id well-formed text the same way)."""
    return well_formed(value) if isinstance(value, str) and value else f"call_{position}"


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

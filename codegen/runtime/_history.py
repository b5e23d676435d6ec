"""History: the assistant turn to append to the conversation after a model's tool calls, with
every call's arguments as valid JSON objects.

Standard library only. Some providers refuse a whole conversation whose history holds arguments
that are not a JSON object (OpenAI, vLLM), so re-sending what the model wrote can break every
later request. Each call keeps its name and id as the model sent them, so the results (`to_*`)
still answer it; its arguments are kept as sent when they were already one JSON object (the same
text, byte for byte), and are otherwise the parser's corrected `values` as JSON: `{}` when nothing
could be read, whose refusal the call's result carries. Every other part of the turn (text,
reasoning, thinking, signatures) is kept as it is. Nothing here raises: a field that cannot be
read is taken as absent, as the adapters take it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

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
        "content": content if isinstance(content, str) else None,
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
            call["id"] = item_id
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
            function_call["id"] = call_id
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
    """The call's arguments as JSON object text: as sent when they are one already."""
    if isinstance(raw, str) and isinstance(_strict_loads(raw), dict):
        return raw
    return _values_text(raw, name, parse)


def _object(raw: object, name: str, parse: Parse) -> object:
    """The call's arguments as a JSON object: as sent when they are one already."""
    if isinstance(raw, Mapping):
        if _is_json(raw):
            return raw
    elif isinstance(raw, str):
        decoded = _strict_loads(raw)
        if isinstance(decoded, dict):
            return decoded
    return json.loads(_values_text(raw, name, parse))


def _values_text(raw: object, name: str, parse: Parse) -> str:
    """The parser's corrected values as JSON: `{}` when nothing could be read."""
    values = parse(name, raw, "").values  # type: ignore[arg-type]  # parse takes any input
    try:
        return json.dumps(values, ensure_ascii=False, allow_nan=False)
    except Exception:  # noqa: BLE001 - a value JSON cannot hold: nothing usable to send back
        return "{}"


def _is_json(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except Exception:  # noqa: BLE001 - not JSON, or a mapping whose own methods raise
        return False
    return True


def _strict_loads(text: str) -> object:
    """The JSON value of the text, or None when it is not valid JSON (NaN and Infinity are not)."""
    try:
        return json.loads(text, parse_constant=_reject)
    except (ValueError, RecursionError):
        return None


def _reject(constant: str) -> object:
    raise ValueError(f"{constant} is not JSON")


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
    return value if isinstance(value, str) else ""


def _id(value: object, position: int) -> str:
    """The call's id, or the one the adapter gave a call without one, so its result answers it."""
    return value if isinstance(value, str) and value else f"call_{position}"


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

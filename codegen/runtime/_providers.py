"""Adapters: the tool calls in a provider's response, parsed by the catalog's parsers.

Each adapter takes what the provider's SDK returns, or the same thing as plain dicts (REST JSON
or `model_dump()`), at any level a caller holds it: a whole response, a message or candidate, a
list of calls, output items, content blocks or parts, or one call. Objects are read by attribute
and dicts by key, so no SDK is imported. Text, reasoning and every other item that is not a
function call are skipped. Nothing here raises: what cannot be read becomes a request with an
error code, and the calls around it are still parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, NamedTuple, TypeAlias, cast

from ._ids import ReplyIds
from ._runtime import (
    MAX_NODES,
    RawArguments,
    RefusedRequest,
    ToolCallRequest,
    decode_arguments,
)

# A catalog's `parse(tool_name, raw, tool_call_id)`.
Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]

# What a field lookup returns for a field that is not there (None is a value: "no tool calls").
_MISSING: Final = object()
# Values that hold no fields: a record (a dict or an SDK object) was expected instead.
_SCALARS: Final = (str, bytes, bytearray, memoryview, int, float, complex)


class _Call(NamedTuple):
    """One function call's fields, as found (_MISSING where absent), and where its name is."""

    name: object
    call_id: object
    arguments: object
    name_field: str  # the name's path in the call, for the error code
    id_expected: bool  # the provider's form carries an id, so a missing one is worth a warning


class _CallAt(NamedTuple):
    """A node that is a function call, and the reader of its fields."""

    node: object
    read: Callable[[object], _Call]


class _Leave:
    """Marks the end of a node's children in the walk."""

    __slots__ = ("node",)

    def __init__(self, node: object) -> None:
        self.node = node


# A node's kind: the nodes it holds (a call is a _CallAt; [] for an item that is no function
# call), or None when it has no shape this provider's responses have.
Classify: TypeAlias = Callable[[object], list[object] | None]


def from_openai_chat(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The calls in a `ChatCompletion`, a choice, a message (`tool_calls`, or the legacy
    `function_call`), a list of tool calls, or one tool call; `arguments` is the JSON text."""
    return _requests(obj, _chat_node, parse)


def from_openai_responses(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The `function_call` items of a `Response`, of a list of output items, or one item."""
    return _requests(obj, _responses_node, parse)


def from_anthropic(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The `tool_use` blocks of a `Message`, of a list of content blocks, or one block."""
    return _requests(obj, _anthropic_node, parse)


def from_gemini(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The function calls of a `GenerateContentResponse`, a candidate, a `Content`, a list of
    parts, one part, or one `FunctionCall`; a call without an id gets `call_<position>`."""
    return _requests(obj, _gemini_node, parse)


def _requests(obj: object, classify: Classify, parse: Parse) -> list[ToolCallRequest[object]]:
    """Walk `obj` depth first, in order, and parse each call found."""
    requests: list[ToolCallRequest[object]] = []
    ids = ReplyIds()

    def add(request: ToolCallRequest[object]) -> None:
        # A call whose id an earlier one holds is dropped, and said on the one that holds it.
        dropped = ids.claim(request, len(requests))
        if dropped is None:
            requests.append(request)
            return
        holder = requests[dropped.holder]
        if dropped.code not in holder.warnings:
            requests[dropped.holder] = holder._replace(warnings=(*holder.warnings, dropped.code))

    def failed(code: str) -> None:
        add(_failed(code, ids.unused(f"call_{len(requests)}")))

    pending: list[object] = [obj]
    # The records and lists being walked, by id: one found inside itself is skipped. Holding
    # them keeps their ids from being reused by an object a property makes on the fly.
    inside: dict[int, object] = {}
    budget = MAX_NODES  # a list that holds another twice, nested, doubles at each level
    while pending:
        node = pending.pop()
        if node is None:
            continue
        if type(node) is _Leave:
            del inside[id(node.node)]
            continue
        if type(node) is _CallAt:
            add(_request(node, ids.unused(f"call_{len(requests)}"), parse))
            continue
        try:
            # Even isinstance runs an object's code (a `__class__` property), so all of this may
            # raise: a node that cannot be read is a problem, and the walk goes on.
            if isinstance(node, _SCALARS):
                failed("malformed_response")
                continue
            if id(node) in inside:
                continue
            budget -= 1
            if budget < 0:
                failed("response_too_large")
                break
            found = list(node) if isinstance(node, (list, tuple)) else classify(node)
        except Exception as exc:  # noqa: BLE001 - an object whose attributes raise
            failed(f"unreadable_response:{type(exc).__name__}")
            continue
        if found is None:
            failed("malformed_response")
            continue
        inside[id(node)] = node
        pending.append(_Leave(node))
        pending.extend(reversed(found))
    return requests


def _request(at: _CallAt, generated_id: str, parse: Parse) -> ToolCallRequest[object]:
    """The parsed call; a call without an id gets `generated_id` (`call_<its position in the
    list returned>`, unless a call of the reply has that id)."""
    try:
        call = at.read(at.node)
        # The name and id as exact text: no method of a str subclass runs after this.
        name, given_id = _text(call.name), _text(call.call_id)
    except Exception as exc:  # noqa: BLE001 - an object whose attributes raise
        return _failed(f"unreadable_tool_call:{type(exc).__name__}", generated_id)
    call_id = given_id or generated_id
    warnings: tuple[str, ...] = ()
    if not given_id and call.id_expected:
        warnings = ("tool_call_id_generated",)
    arguments = None if call.arguments is _MISSING else call.arguments
    if not name:
        code = f"malformed_tool_call:{call.name_field}"
        return _failed(code, call_id, arguments, warnings)
    # Arguments of a kind no parser takes (a list, a number) are the parser's to report.
    request = parse(name, cast(RawArguments, arguments), call_id)
    return request._replace(warnings=warnings + request.warnings) if warnings else request


def _failed(
    code: str,
    call_id: str,
    arguments: object = None,
    warnings: tuple[str, ...] = (),
) -> RefusedRequest:
    """A request that must not run, keeping the arguments' text when there is any."""
    try:
        raw = "" if arguments is None else decode_arguments(arguments).raw_text
    except Exception:  # noqa: BLE001 - arguments whose own methods raise
        raw = ""
    return RefusedRequest("", call_id, raw, None, {}, warnings, (code,))


def _text(value: object) -> str | None:
    return str.__str__(value) if isinstance(value, str) else None


def _field(node: object, *names: str) -> object:
    """A record's field by the first of `names` it has: a dict's key or an object's attribute."""
    if isinstance(node, Mapping):
        for name in names:
            value = node.get(name, _MISSING)
            if value is not _MISSING:
                return value
        return _MISSING
    if node is None or isinstance(node, (*_SCALARS, list, tuple)):
        return _MISSING
    for name in names:
        value = getattr(node, name, _MISSING)
        if value is not _MISSING:
            return value
    return _MISSING


def _present(node: object, *names: str) -> bool:
    return any(_field(node, name) is not _MISSING for name in names)


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions: choices[*].message.tool_calls[*] = {id, type, function: {name, arguments}}


def _chat_node(node: object) -> list[object] | None:
    kind = _field(node, "type")
    if kind == "function" or (kind in (_MISSING, None) and _present(node, "function")):
        return [_CallAt(node, _chat_tool_call)]
    if isinstance(kind, str):
        return []  # a custom tool's call: no catalog tool
    if _present(node, "choices"):
        return [_field(node, "choices")]
    if _present(node, "message"):
        return [_field(node, "message")]
    if _present(node, "tool_calls", "function_call", "role"):
        legacy = _field(node, "function_call")
        calls = _field(node, "tool_calls")
        return [
            None if calls is _MISSING else calls,
            None if legacy in (_MISSING, None) else _CallAt(legacy, _chat_function),
        ]
    if _present(node, "name") and _present(node, "arguments"):
        return [_CallAt(node, _chat_function)]  # a tool call's `function`, or a legacy call
    return None


def _chat_tool_call(node: object) -> _Call:
    function = _field(node, "function")
    if function in (_MISSING, None):
        return _Call(_MISSING, _field(node, "id"), _MISSING, "function", True)
    name, arguments = _field(function, "name"), _field(function, "arguments")
    return _Call(name, _field(node, "id"), arguments, "function.name", True)


def _chat_function(node: object) -> _Call:
    # The legacy `function_call` never had an id: its generated one is no correction.
    return _Call(_field(node, "name"), _MISSING, _field(node, "arguments"), "name", False)


# ---------------------------------------------------------------------------------------------
# OpenAI Responses: output[*] = {type: "function_call", call_id, name, arguments}


def _responses_node(node: object) -> list[object] | None:
    kind = _field(node, "type")
    if kind == "function_call" or (kind in (_MISSING, None) and _present(node, "call_id")):
        return [_CallAt(node, _responses_call)]
    if isinstance(kind, str):
        return []  # a message, reasoning, a built-in tool's call, ...
    if _present(node, "output"):
        return [_field(node, "output")]
    return None


def _responses_call(node: object) -> _Call:
    name, arguments = _field(node, "name"), _field(node, "arguments")
    return _Call(name, _field(node, "call_id"), arguments, "name", True)


# ---------------------------------------------------------------------------------------------
# Anthropic Messages: content[*] = {type: "tool_use", id, name, input}


def _anthropic_node(node: object) -> list[object] | None:
    kind = _field(node, "type")
    if kind == "tool_use" or (kind in (_MISSING, None) and _present(node, "input")):
        return [_CallAt(node, _anthropic_call)]
    if isinstance(kind, str) and kind != "message":
        return []  # text, thinking, a server tool's use or result, ...
    content = _field(node, "content")
    if content is _MISSING:
        return None
    return [] if isinstance(content, str) else [content]  # a message, or a message param


def _anthropic_call(node: object) -> _Call:
    name, arguments = _field(node, "name"), _field(node, "input")
    return _Call(name, _field(node, "id"), arguments, "name", True)


# ---------------------------------------------------------------------------------------------
# Gemini: candidates[*].content.parts[*].functionCall = {id?, name, args}; the SDK's objects
# spell the part's field `function_call`.


def _gemini_node(node: object) -> list[object] | None:
    for field in ("candidates", "content", "parts"):
        if _present(node, field):
            return [_field(node, field)]
    call = _field(node, "function_call", "functionCall")
    if call is not _MISSING:
        return [] if call is None else [_CallAt(call, _gemini_call)]
    if _present(node, "name", "args"):
        return [_CallAt(node, _gemini_call)]
    return []  # a part of another kind: text, a thought, inline data, ...


def _gemini_call(node: object) -> _Call:
    # The Gemini API often sends no id: a generated one is its ordinary form, not a correction.
    name, arguments = _field(node, "name"), _field(node, "args")
    return _Call(name, _field(node, "id"), arguments, "name", False)

"""The calls of a provider's reply: the one place that decides which choice is read, which items
are calls, and each call's id, name and arguments. The adapters (`from_*`) return the calls'
requests, `_history` writes the assistant turn from the same calls, and the stream readers
(`_assembly`) make each streamed call's request with the same `call_request`, so the results of
the requests answer exactly the calls the history holds, and a stream gives what its whole
reply gives.

Each adapter takes what the provider's SDK returns, or the same thing as plain dicts (REST JSON
or `model_dump()`), at any level a caller holds it: a whole response, a message or candidate, a
list of calls, output items, content blocks or parts, or one call. Objects are read by attribute
and dicts by key, so no SDK is imported.

What a reply holds, item by item:

- a call (the provider's call type; OpenAI chat's legacy `function_call` too): a `CallSlot`,
  whose request is parsed, or refused when the call cannot be used (no name, unreadable);
- an item of another kind the provider has (text, thinking, reasoning, a custom or built-in
  tool's call, any Gemini part): `Kept`, for the history to send back as it is;
- None: nothing;
- anything else (a number, a string, a record of no shape the provider has there, a block
  without `type`, an object whose fields raise): a `CallSlot` refused as `malformed_response:
  <type>` (or `unreadable_response:<Error>`). It is not run, and the history holds a call with
  its id, so that its result (which tells the model what went wrong) answers a call.

Of a reply with several choices (OpenAI's `n`) or candidates (Gemini's `candidateCount`), only
the first is read: each is another continuation of the same conversation, and one of them is
the turn that goes on. To read another, pass that choice or candidate itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, Literal, NamedTuple, TypeAlias, cast

from ._ids import ReplyIds
from ._outbound import well_formed
from ._runtime import (
    MAX_NODES,
    RawArguments,
    RefusedRequest,
    ToolCallRequest,
    decode_arguments,
)

# A catalog's `parse(tool_name, raw, tool_call_id)`.
Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]
Provider: TypeAlias = Literal["openai_chat", "openai_responses", "anthropic", "gemini"]

# What a field lookup returns for a field that is not there (None is a value: "no tool calls").
_MISSING: Final = object()
# Values that hold no fields: a record (a dict or an SDK object) was expected instead.
_SCALARS: Final = (str, bytes, bytearray, memoryview, int, float, complex)
# Fields that carry another provider's calls or choices (`tool_calls`: an OpenAI chat message, or
# LangChain's `AIMessage`): a record holding one is no item of a provider that has none of them,
# even where that provider keeps items of kinds it does not know.
_CALL_FIELDS: Final = ("tool_calls", "choices", "output", "candidates", "parts")


class CallSlot(NamedTuple):
    """One call of a reply: its request (with the id its result answers), and what the history
    writes back: the name as sent (well-formed text, "" when there is none), the arguments as
    sent (None when absent), the call's record and the record holding it (a Gemini part), each
    _MISSING when there is none (a value that is no call)."""

    request: ToolCallRequest[object]
    name: str
    arguments: object
    node: object
    holder: object


class Kept(NamedTuple):
    """An item of the reply that is no call, to send back as it is (`kind` "item"), or the
    record that holds the turn (`kind` "turn": a chat message, a Gemini `Content`)."""

    node: object
    kind: Literal["item", "turn"]


Entry: TypeAlias = CallSlot | Kept


class _Call(NamedTuple):
    """One function call's fields, as found (_MISSING where absent), and where its name is."""

    name: object
    call_id: object
    arguments: object
    name_field: str  # the name's path in the call, for the error code
    id_expected: bool  # the provider's form carries an id, so a missing one is worth a warning


class _CallAt(NamedTuple):
    """A node that is a function call, the reader of its fields, the field of its id (None for a
    form without ids), and the record holding it."""

    node: object
    read: Callable[[object], _Call]
    id_field: str | None = "id"
    holder: object = _MISSING


class _Leave:
    """Marks the end of a node's children in the walk."""

    __slots__ = ("node",)

    def __init__(self, node: object) -> None:
        self.node = node


# A record's kind: the nodes it holds (a call is a _CallAt, an item to keep a Kept), or None when
# it has no shape this provider's replies have.
Classify: TypeAlias = Callable[[object], list[object] | None]
# Of a list, the items that are read (only the first of a list of choices).
Pick: TypeAlias = Callable[[list[object]], list[object]]


def from_openai_chat(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The calls in a `ChatCompletion` (its first choice), a choice, a message (`tool_calls`, and
    the legacy `function_call`), a list of tool calls, or one tool call; `arguments` is the JSON
    text."""
    return requests(read_reply(obj, "openai_chat", parse))


def from_openai_responses(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The `function_call` items of a `Response`, of a list of output items, or one item."""
    return requests(read_reply(obj, "openai_responses", parse))


def from_anthropic(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The `tool_use` blocks of a `Message`, of a list of content blocks, or one block."""
    return requests(read_reply(obj, "anthropic", parse))


def from_gemini(obj: object, parse: Parse) -> list[ToolCallRequest[object]]:
    """The function calls of a `GenerateContentResponse` (its first candidate), a candidate, a
    `Content`, a list of parts, one part, or one `FunctionCall`; a call without an id gets
    `call_<position>` (`_ids`)."""
    return requests(read_reply(obj, "gemini", parse))


def requests(entries: list[Entry]) -> list[ToolCallRequest[object]]:
    """The requests of a reply's calls, in order."""
    return [entry.request for entry in entries if type(entry) is CallSlot]


def read_reply(obj: object, provider: Provider, parse: Parse) -> list[Entry]:
    """The reply's calls and other items, in order: `obj` walked depth first."""
    classify, pick = _READERS[provider]
    entries: list[Entry] = []
    calls: list[int] = []  # where each call is in `entries`
    ids = ReplyIds()

    def add(request: ToolCallRequest[object], slot: CallSlot | None = None) -> None:
        # A call whose id an earlier one holds is dropped, and said on the one that holds it.
        dropped = ids.claim(request, len(calls))
        if dropped is None:
            calls.append(len(entries))
            entries.append(
                CallSlot(request, "", None, _MISSING, _MISSING) if slot is None else slot
            )
            return
        at = calls[dropped.holder]
        holder = cast(CallSlot, entries[at])
        kept = holder.request
        if dropped.code not in kept.warnings:
            kept = kept._replace(warnings=(*kept.warnings, dropped.code))
            entries[at] = holder._replace(request=kept)

    def failed(code: str) -> None:
        add(failed_request(code, ""))

    pending: list[object] = [obj]
    # The records and lists being walked, by id: one found inside itself is skipped. Holding
    # them keeps their ids from being reused by an object a property makes on the fly.
    inside: dict[int, object] = {}
    budget = MAX_NODES  # a list that holds another twice, nested, doubles at each level
    while pending:
        node = pending.pop()
        if node is None:
            continue
        kind = type(node)
        if kind is _Leave:
            del inside[id(cast(_Leave, node).node)]
            continue
        if kind is _CallAt:
            add(*_slot(cast(_CallAt, node), parse))
            continue
        if kind is Kept:
            entries.append(cast(Kept, node))
            continue
        try:
            # Even isinstance runs an object's code (a `__class__` property), so all of this may
            # raise: a node that cannot be read is a problem, and the walk goes on.
            malformed = f"malformed_response:{kind.__name__}"  # (a metaclass may define it)
            if isinstance(node, _SCALARS):
                failed(malformed)
                continue
            if id(node) in inside:
                continue
            budget -= 1
            if budget < 0:
                failed("response_too_large")
                break
            found = pick(list(node)) if isinstance(node, (list, tuple)) else classify(node)
        except Exception as exc:  # noqa: BLE001 - an object whose attributes raise
            failed(f"unreadable_response:{type(exc).__name__}")
            continue
        if found is None:
            failed(malformed)
            continue
        inside[id(node)] = node
        pending.append(_Leave(node))
        pending.extend(reversed(found))
    # Every id the reply gave is claimed: the calls without one get theirs.
    slots = [cast(CallSlot, entries[at]) for at in calls]
    for at, slot, request in zip(calls, slots, ids.mint([slot.request for slot in slots])):
        if request is not slot.request:
            entries[at] = slot._replace(request=request)
    return entries


def _slot(at: _CallAt, parse: Parse) -> tuple[ToolCallRequest[object], CallSlot]:
    try:
        call = at.read(at.node)
        request = call_request(
            call.name,
            call.call_id,
            call.id_expected,
            call.arguments,
            parse,
            name_field=call.name_field,
        )
    except Exception as exc:  # noqa: BLE001 - an object whose attributes raise
        # Its id, when that much can be read: the history holds the call under it.
        call_id = _readable_id(at) or ""
        request = failed_request(f"unreadable_tool_call:{type(exc).__name__}", call_id)
        return request, CallSlot(request, "", None, at.node, at.holder)
    name = well_formed(call.name) if isinstance(call.name, str) else ""
    arguments = None if call.arguments is _MISSING else call.arguments
    return request, CallSlot(request, name, arguments, at.node, at.holder)


def _readable_id(at: _CallAt) -> str | None:
    try:
        return _text(_field(at.node, at.id_field)) if at.id_field else None
    except Exception:  # noqa: BLE001 - an object whose attributes raise
        return None


def call_request(
    name: object,
    given_id: object,
    id_expected: bool,
    arguments: object,
    parse: Parse,
    warnings: tuple[str, ...] = (),
    name_field: str = "name",
) -> ToolCallRequest[object]:
    """A call's request, whether the call came whole or streamed: a call without an id has the
    id "" (the reply's `ReplyIds.mint` gives it one once every id of the reply is known), with
    `tool_call_id_generated` where the provider's form has ids; one without a usable name is
    refused; absent arguments (_MISSING or None) are none, `""`. `warnings` (a stream's codes)
    follow the id's."""
    # The name and id as exact text: no method of a str subclass runs after this.
    name, given = _text(name), _text(given_id)
    call_id = given or ""
    if not given and id_expected:
        warnings = ("tool_call_id_generated", *warnings)
    raw = "" if arguments is _MISSING or arguments is None else arguments
    if not name:
        return failed_request(f"malformed_tool_call:{name_field}", call_id, raw, warnings)
    # Arguments of a kind no parser takes (a list, a number) are the parser's to report.
    request = parse(name, cast(RawArguments, raw), call_id)
    return request._replace(warnings=warnings + request.warnings) if warnings else request


def failed_request(
    code: str,
    call_id: str,
    arguments: object = "",
    warnings: tuple[str, ...] = (),
) -> RefusedRequest:
    """A request that must not run, keeping the arguments' text when there is any."""
    try:
        raw = "" if arguments in ("", None) else decode_arguments(arguments).raw_text
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


def _foreign(*own: str) -> tuple[str, ...]:
    """The fields of `_CALL_FIELDS` a provider's own records do not have."""
    return tuple(name for name in _CALL_FIELDS if name not in own)


def _all(items: list[object]) -> list[object]:
    return items


def _first_of(field: str) -> Pick:
    """Of a list of choices (or candidates: records with `field`), the first only."""

    def pick(items: list[object]) -> list[object]:
        return items[:1] if items and _present(items[0], field) else items

    return pick


def _first(value: object) -> list[object]:
    """Of a reply's `choices` or `candidates`, the first; a value of another kind is walked, so
    that it is reported."""
    if isinstance(value, (list, tuple)):
        return list(value[:1])
    return [value]


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions: choices[*].message.tool_calls[*] = {id, type, function: {name, arguments}}


def _chat_node(node: object) -> list[object] | None:
    kind = _field(node, "type")
    if kind == "function" or (kind in (_MISSING, None) and _present(node, "function")):
        return [_CallAt(node, _chat_tool_call)]
    if kind == "custom":
        return [Kept(node, "item")]  # a custom tool's call: no catalog tool
    if kind not in (_MISSING, None):
        return None  # no record of a chat completion has another `type` (an `AIMessage`: "ai")
    if _present(node, "choices"):
        return _first(_field(node, "choices"))
    if _present(node, "message"):
        return [_field(node, "message")]
    if _present(node, "tool_calls", "function_call", "role"):
        legacy = _field(node, "function_call")
        calls = _field(node, "tool_calls")
        return [
            Kept(node, "turn"),
            None if calls is _MISSING else calls,
            None if legacy in (_MISSING, None) else _CallAt(legacy, _chat_function, None),
        ]
    if _present(node, "name") and _present(node, "arguments"):
        return [_CallAt(node, _chat_function, None)]  # a tool call's `function`, or legacy
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
    if _present(node, *_foreign("output")):
        return None
    kind = _field(node, "type")
    if kind == "function_call":
        return [_CallAt(node, _responses_call, "call_id")]
    if isinstance(kind, str):
        return [Kept(node, "item")]  # a message, reasoning, a built-in tool's call, ...
    if kind not in (_MISSING, None):
        return None
    if _present(node, "output"):
        return [_field(node, "output")]
    if _present(node, "role") and _present(node, "content"):
        return [Kept(node, "item")]  # an input message, which may come without `type`
    return None


def _responses_call(node: object) -> _Call:
    name, arguments = _field(node, "name"), _field(node, "arguments")
    return _Call(name, _field(node, "call_id"), arguments, "name", True)


# ---------------------------------------------------------------------------------------------
# Anthropic Messages: content[*] = {type: "tool_use", id, name, input}


def _anthropic_node(node: object) -> list[object] | None:
    if _present(node, *_foreign("output")):  # (a block may well have an `output` one day)
        return None
    kind = _field(node, "type")
    if kind == "tool_use":
        return [_CallAt(node, _anthropic_call)]
    if isinstance(kind, str) and kind != "message":
        return [Kept(node, "item")]  # text, thinking, a server tool's use or result, ...
    if kind not in (_MISSING, None, "message"):
        return None
    content = _field(node, "content")
    if content is _MISSING:
        return None  # a block without `type` is no block
    if isinstance(content, str):
        # A message param's text: a text block, as the API reads it.
        return [Kept({"type": "text", "text": well_formed(content)}, "item")] if content else []
    return [content]


def _anthropic_call(node: object) -> _Call:
    name, arguments = _field(node, "name"), _field(node, "input")
    return _Call(name, _field(node, "id"), arguments, "name", True)


# ---------------------------------------------------------------------------------------------
# Gemini: candidates[*].content.parts[*].functionCall = {id?, name, args}; the SDK's objects
# spell the part's field `function_call`.


def _gemini_node(node: object) -> list[object] | None:
    # No record of a Gemini response has a `type`: a record with one is another provider's.
    if _present(node, "type", *_foreign("candidates", "parts")):
        return None
    if _present(node, "candidates"):
        return _first(_field(node, "candidates"))
    if _present(node, "content"):
        return [_field(node, "content")]
    if _present(node, "parts"):
        return [Kept(node, "turn"), _field(node, "parts")]
    call = _field(node, "function_call", "functionCall")
    if call is not _MISSING:
        return [Kept(node, "item")] if call is None else [_CallAt(call, _gemini_call, "id", node)]
    if _present(node, "name", "args"):
        return [_CallAt(node, _gemini_call)]
    return [Kept(node, "item")]  # a part of another kind: text, a thought, inline data, ...


def _gemini_call(node: object) -> _Call:
    # The Gemini API often sends no id: a generated one is its ordinary form, not a correction.
    name, arguments = _field(node, "name"), _field(node, "args")
    return _Call(name, _field(node, "id"), arguments, "name", False)


_READERS: Final[Mapping[Provider, tuple[Classify, Pick]]] = {
    "openai_chat": (_chat_node, _first_of("message")),
    "openai_responses": (_responses_node, _all),
    "anthropic": (_anthropic_node, _all),
    "gemini": (_gemini_node, _first_of("content")),
}

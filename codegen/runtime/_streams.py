"""Streamed provider replies: each tool call parsed the moment it is complete.

A reader takes the events a provider's SDK streams (OpenAI chat chunks, Responses events,
Anthropic message events, Gemini response chunks), as SDK objects or plain dicts, from a sync or
an async iterable, and yields each call's request, in the order the calls began, as soon as that
call and every call before it is complete: with parallel tool calls, the first can run long
before the message ends.

Nothing here raises on any stream. What was odd about one call is a warning code on it (a missing
index, a duplicated start, arguments sent twice); a call cut off is the error
`truncated_arguments`, so it never runs; what concerns no call that can still be yielded (an
event that is not a record, a fragment for a call already yielded, the source failing) is a
`StreamProblem` in the reader's `problems`. Calls are never merged: a new id, a new name or a new
start on an index in use begins another call.
"""

from __future__ import annotations

import json
import re
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
)
from typing import Final, NamedTuple

from ._providers import _MISSING, _SCALARS, Parse, _failed, _field
from ._runtime import RawArguments, ToolCallRequest


class StreamProblem(NamedTuple):
    """Something in a stream that is not part of a call still to come: `event` is the 1-based
    position of the event it was found at (0: before the first), `reason` a stable code."""

    event: int
    reason: str
    detail: str


class PartialCall(NamedTuple):
    """A call still streaming, for a UI: the arguments so far and the values they hold (parsed by
    the tool's parser; the last value may still grow). It is never a request: it must not run."""

    position: int  # the call's place among the stream's calls, from 0
    tool_name: str  # "" while the name has not come
    tool_call_id: str
    raw_arguments: str
    values: dict[str, object]


OnPartial = Callable[[PartialCall], object]

# How much of a fragment a problem shows.
_SHOWN: Final = 100


class _Slot:
    """One call being assembled from events."""

    __slots__ = (
        "_whole_at",
        "arguments",
        "call_id",
        "closed",
        "cut",
        "emitted",
        "given",
        "id_expected",
        "name",
        "position",
        "superseded",
        "warnings",
    )

    def __init__(self, position: int, name: object, call_id: object, id_expected: bool) -> None:
        self.position = position
        self.id_expected = id_expected  # the provider's form has an id: a missing one is odd
        self.name = name if isinstance(name, str) else ""
        self.call_id = call_id if isinstance(call_id, str) else ""
        self.arguments: str | None = None  # the streamed text, once any came
        self.given: object = None  # arguments that came whole (an object), until text comes
        self.warnings: list[str] = []
        self.closed = False  # the provider said the call is complete, or the stream ended
        self.cut = False  # it ended before it was complete
        self.superseded = False  # a later call began where only one streams at a time
        self.emitted = False
        self._whole_at = -1  # the length of text last found to be one whole JSON value

    def append(self, fragment: str) -> None:
        self.arguments = fragment if self.arguments is None else self.arguments + fragment

    def warn(self, code: str) -> None:
        if code not in self.warnings:
            self.warnings.append(code)

    def whole(self) -> bool:
        """Whether the text so far is one complete JSON value (nothing came: not yet)."""
        text = self.arguments
        if text is None:
            return self.given is not None
        if self._whole_at == len(text):
            return True
        if not text.rstrip().endswith(("}", "]")):
            return False
        try:
            json.loads(text)
        except ValueError:
            return False
        self._whole_at = len(text)
        return True


class _Assembler:
    """Collects calls from one stream's events; each provider reads its own events."""

    id_expected = True  # the provider's calls carry ids: a missing one is worth a warning

    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        self.parse = parse
        self.on_partial = on_partial
        self.slots: list[_Slot] = []
        self.problems: list[StreamProblem] = []
        self.event = 0
        self._next = 0  # the first slot not yet yielded
        self._changed: dict[int, _Slot] = {}  # slots whose text grew in this event

    # -- driving ------------------------------------------------------------------------------

    def feed(self, event: object) -> list[ToolCallRequest[object]]:
        self.event += 1
        if event is None or isinstance(event, _SCALARS):
            self.problem("malformed_event", f"{type(event).__name__} is not an event")
            return []
        try:
            self.read(event)
        except Exception as exc:  # noqa: BLE001 - an object whose attributes raise
            self.problem(f"unreadable_event:{type(exc).__name__}", _text(exc))
        self._show_partials()
        return self._ready()

    def finish(self) -> list[ToolCallRequest[object]]:
        """The stream ended: every call still open is complete, or cut off."""
        for slot in self.slots:
            if not slot.closed:
                self.end(slot)
        return self._ready()

    def failed(self, exc: BaseException) -> None:
        self.problem(f"stream_error:{type(exc).__name__}", _text(exc))

    def problem(self, reason: str, detail: str) -> None:
        self.problems.append(StreamProblem(self.event, reason, detail))

    # -- for the providers' readers -------------------------------------------------------------

    def read(self, event: object) -> None:
        raise NotImplementedError

    def start(self, name: object, call_id: object, id_expected: bool | None = None) -> _Slot:
        expected = self.id_expected if id_expected is None else id_expected
        slot = _Slot(len(self.slots), name, call_id, expected)
        self.slots.append(slot)
        return slot

    def fragment(self, slot: _Slot, text: object) -> None:
        """Append streamed argument text to a call; an empty or absent one changes nothing."""
        if not isinstance(text, str) or not text:
            return
        if slot.emitted:
            shown = text[:_SHOWN]
            self.problem("late_fragment", f"for {slot.call_id or slot.position!r}: {shown!r}")
            return
        if slot.whole() and slot.arguments is not None and text == slot.arguments:
            # The whole arguments sent again (a duplicated chunk, or a gateway that repeats
            # them): appending would make `{..}{..}`.
            slot.warn("stream_duplicate_arguments_ignored")
            return
        slot.append(text)
        self._changed[id(slot)] = slot

    def close(self, slot: _Slot) -> None:
        slot.closed = True

    def end(self, slot: _Slot) -> None:
        """A call that got no sign of completion: whole arguments run (with a warning), others
        are cut off."""
        slot.closed = True
        if slot.whole():
            slot.warn("stream_ended_early")
        else:
            slot.cut = True

    def ready(self, slot: _Slot) -> bool:
        return slot.closed

    # -- yielding ---------------------------------------------------------------------------

    def _ready(self) -> list[ToolCallRequest[object]]:
        out: list[ToolCallRequest[object]] = []
        while self._next < len(self.slots) and self.ready(self.slots[self._next]):
            slot = self.slots[self._next]
            slot.emitted = True
            self._next += 1
            try:
                out.append(self._request(slot))
            except Exception as exc:  # noqa: BLE001 - arguments whose own methods raise
                code = f"unreadable_tool_call:{type(exc).__name__}"
                out.append(_failed(code, slot.position, slot.call_id))
        return out

    def _request(self, slot: _Slot) -> ToolCallRequest[object]:
        position = slot.position
        call_id = slot.call_id or f"call_{position}"
        warnings = tuple(slot.warnings)
        if not slot.call_id and slot.id_expected:
            warnings = ("tool_call_id_generated", *warnings)
        raw = self.raw_arguments(slot)
        if not slot.name:
            return _failed("malformed_tool_call:name", position, call_id, raw, warnings)
        request = self.parse(slot.name, raw, call_id)
        if slot.cut and "truncated_arguments" not in request.errors:
            errors = (*request.errors, "truncated_arguments")
            request = request._replace(arguments=None, errors=errors)
        return request._replace(warnings=warnings + request.warnings) if warnings else request

    def raw_arguments(self, slot: _Slot) -> RawArguments:
        if slot.arguments is not None:
            return slot.arguments
        given = slot.given
        if given is None:
            return ""  # no arguments came: an empty object, as in the whole message
        if isinstance(given, (str, bytes, Mapping)):
            return given
        return _as_dict(given)

    def _show_partials(self) -> None:
        changed, self._changed = self._changed, {}
        if self.on_partial is None:
            return
        for slot in changed.values():
            if slot.emitted:
                continue
            call_id = slot.call_id or f"call_{slot.position}"
            if slot.arguments is not None:
                text, shown = slot.arguments, _close_string(slot.arguments)
            else:  # arguments that stream as values (Gemini's partial_args)
                text = json.dumps(slot.given, ensure_ascii=False, default=str)
                shown = text
            values = self.parse(slot.name, shown, call_id).values if slot.name else {}
            self.on_partial(PartialCall(slot.position, slot.name, call_id, text, values))


def _close_string(text: str) -> str:
    """The text with a string still being written closed, so a view shows it as far as it came
    (the parser drops a value cut inside a string: a call must never run with one)."""
    inside = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = inside
        elif char == '"':
            inside = not inside
    if not inside:
        return text
    return (text[:-1] if escaped else text) + '"'


def _as_dict(value: object) -> RawArguments:
    """Arguments an SDK gave as an object of its own (a proto map): read as a dict if it is one."""
    try:
        return dict(value)  # type: ignore[call-overload, no-any-return]
    except Exception:  # noqa: BLE001 - not a mapping: the parser reports its kind
        return value  # type: ignore[return-value]


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:_SHOWN]
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails
        return ""


def _starts_another(slot: _Slot, text: object) -> bool:
    """Whether argument text after a call's whole arguments begins a value of its own (not the
    same arguments again, which `fragment` reads as a duplicate)."""
    return (
        isinstance(text, str)
        and text.strip() != ""
        and text != slot.arguments
        and slot.arguments is not None
        and slot.whole()
    )


def _index(node: object, name: str = "index") -> int | None:
    value = _field(node, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions: chunks whose choices[*].delta.tool_calls[*] = {index, id, type,
# function: {name, arguments}}; the first delta of a call has its id and name, the next ones
# pieces of its arguments. Calls stream one after another, so a call is complete once a later
# one began and its arguments are whole JSON, or when its choice has a finish_reason.


class _ChatAssembler(_Assembler):
    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        super().__init__(parse, on_partial)
        self._at: dict[tuple[int, object], _Slot] = {}  # (choice, index) → the call there now
        self._of: dict[int, list[_Slot]] = {}  # choice → its calls, in order

    def read(self, event: object) -> None:
        if _field(event, "type") == "chunk":
            event = _field(event, "chunk")  # the SDK's `stream()` helper wraps each chunk
        for choice in _list(_field(event, "choices")):
            number = _index(choice) or 0
            delta = _field(choice, "delta")
            if delta not in (_MISSING, None):
                for entry in _list(_field(delta, "tool_calls")):
                    self._tool_call(number, entry)
                legacy = _field(delta, "function_call")
                if legacy not in (_MISSING, None):
                    self._legacy(number, legacy)
            if isinstance(_field(choice, "finish_reason"), str):
                for slot in self._of.get(number, ()):
                    self.close(slot)

    def _tool_call(self, choice: int, entry: object) -> None:
        if _field(entry, "type") not in ("function", None, _MISSING):
            return  # a custom tool's call: no catalog tool
        function = _field(entry, "function")
        name = _field(function, "name") if function not in (_MISSING, None) else _MISSING
        arguments = _field(function, "arguments") if function not in (_MISSING, None) else None
        call_id = _str(_field(entry, "id"))
        index = _index(entry)
        warning = ""
        if index is None:
            slot = self._unindexed(choice, call_id, name)
            warning = "stream_index_missing"
            if slot is not None and not call_id and _starts_another(slot, arguments):
                slot = None  # a call whose start was lost: its arguments are not the last one's
                warning = "stream_call_start_missing"
        else:
            slot = self._at.get((choice, index))
            if slot is not None and call_id and slot.call_id and call_id != slot.call_id:
                slot = None  # another call on an index in use: never merged into it
                warning = "stream_index_reused"
        if slot is None:
            slot = self._begin(choice, index, name, call_id)
            if warning == "stream_call_start_missing":
                slot.warn("stream_index_missing")
            if warning:
                slot.warn(warning)
        else:
            self._more(slot, name, call_id)
        self.fragment(slot, arguments)

    def _unindexed(self, choice: int, call_id: str, name: object) -> _Slot | None:
        """The call a delta without an index continues: the one with its id; else the last one,
        unless the delta starts a call (a name, after a call that has a name or arguments)."""
        if call_id:
            for slot in self._of.get(choice, ()):
                if slot.call_id == call_id:
                    return slot
            return None  # another id is another call
        last = self._latest(choice)
        if last is None:
            return None
        if isinstance(name, str) and name and (last.name or last.arguments is not None):
            return None
        return last

    def _latest(self, choice: int) -> _Slot | None:
        calls = self._of.get(choice)
        return calls[-1] if calls else None

    def _begin(self, choice: int, index: int | None, name: object, call_id: str) -> _Slot:
        calls = self._of.setdefault(choice, [])
        if calls:
            calls[-1].superseded = True
        slot = self.start(name, call_id)
        calls.append(slot)
        self._at[(choice, index if index is not None else f"#{slot.position}")] = slot
        return slot

    def _more(self, slot: _Slot, name: object, call_id: str) -> None:
        if call_id and not slot.call_id:
            slot.call_id = call_id
        if isinstance(name, str) and name != slot.name:
            # A name in pieces is joined, as the SDK's accumulator does; the same name again is
            # a repeated start, which changes nothing.
            slot.name += name

    def _legacy(self, choice: int, call: object) -> None:
        slot = self._at.get((choice, "function_call"))
        name = _field(call, "name")
        if slot is None:
            # The legacy `function_call` never had an id: its generated one is no correction.
            slot = self.start(name, "", id_expected=False)
            self._at[(choice, "function_call")] = slot
            self._of.setdefault(choice, []).append(slot)
        elif isinstance(name, str) and name and name != slot.name:
            slot.name += name
        self.fragment(slot, _field(call, "arguments"))

    def ready(self, slot: _Slot) -> bool:
        return slot.closed or (slot.superseded and slot.whole())


# ---------------------------------------------------------------------------------------------
# OpenAI Responses: `response.output_item.added` (a function_call item), then
# `response.function_call_arguments.delta` events and `.done` (the whole text), then
# `response.output_item.done` (the whole item); `response.completed` holds the whole response.
# Each event has a `sequence_number`: one seen before is a duplicate.


class _ResponsesAssembler(_Assembler):
    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        super().__init__(parse, on_partial)
        self._by_item: dict[object, _Slot] = {}  # item id (or output index) → its call
        self._seen: set[int] = set()

    def read(self, event: object) -> None:
        kind = _field(event, "type")
        number = _index(event, "sequence_number")
        if number is not None:
            if number in self._seen:
                self.problem("duplicate_event", f"sequence_number {number} ({kind})")
                return
            self._seen.add(number)
        if kind == "response.output_item.added":
            self._added(event, _field(event, "item"))
        elif kind == "response.function_call_arguments.delta":
            self.fragment(self._slot(event), _field(event, "delta"))
        elif kind == "response.function_call_arguments.done":
            slot = self._slot(event)
            self._whole_text(slot, _field(event, "arguments"))
            if not slot.name:
                slot.name = _str(_field(event, "name"))
            if slot.name and slot.call_id:
                self.close(slot)  # else `response.output_item.done` still has to say them
        elif kind == "response.output_item.done":
            self._done(event, _field(event, "item"))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._final(_field(event, "response"), complete=kind == "response.completed")

    def _keys(self, event: object, item: object) -> list[object]:
        keys: list[object] = []
        for key in (_field(item, "id"), _field(event, "item_id")):
            if isinstance(key, str) and key:
                keys.append(key)
        index = _index(event, "output_index")
        if index is not None:
            keys.append(index)
        return keys

    def _find(self, keys: list[object]) -> _Slot | None:
        for key in keys:
            slot = self._by_item.get(key)
            if slot is not None:
                return slot
        return None

    def _start(self, keys: list[object], item: object) -> _Slot:
        slot = self.start(_field(item, "name"), _field(item, "call_id"))
        for key in keys:
            self._by_item[key] = slot
        return slot

    def _added(self, event: object, item: object) -> None:
        if _field(item, "type") != "function_call":
            return
        keys = self._keys(event, item)
        slot = self._find(keys)
        call_id = _str(_field(item, "call_id"))
        if slot is not None and (not call_id or call_id == slot.call_id):
            slot.warn("stream_duplicate_start_ignored")
            return
        slot = self._start(keys, item)
        self.fragment(slot, _field(item, "arguments"))

    def _slot(self, event: object) -> _Slot:
        keys = self._keys(event, _MISSING)
        slot = self._find(keys)
        if slot is None:
            slot = self._start(keys, _MISSING)
            slot.warn("stream_call_start_missing")
        return slot

    def _whole_text(self, slot: _Slot, text: object) -> None:
        """The whole arguments a `.done` event restates: they win over the deltas."""
        if not isinstance(text, str) or text == (slot.arguments or ""):
            return
        if slot.emitted:
            self.problem("late_fragment", f"for {slot.call_id!r}: {text[:_SHOWN]!r}")
            return
        if slot.arguments:
            slot.warn("stream_arguments_replaced")
        slot.arguments = text
        self._changed[id(slot)] = slot

    def _done(self, event: object, item: object) -> None:
        if _field(item, "type") != "function_call":
            return
        keys = self._keys(event, item)
        slot = self._find(keys)
        if slot is None:
            slot = self._start(keys, item)
            slot.warn("stream_call_start_missing")
        if not slot.name:
            slot.name = _str(_field(item, "name"))
        if not slot.call_id:
            slot.call_id = _str(_field(item, "call_id"))
        self._whole_text(slot, _field(item, "arguments"))
        self.close(slot)

    def _final(self, response: object, complete: bool) -> None:
        """The response's own list of calls: one the events never showed is recovered."""
        for item in _list(_field(response, "output")):
            if _field(item, "type") != "function_call" or self._find(self._keys(_MISSING, item)):
                continue
            call_id = _field(item, "call_id")
            if any(slot.call_id == call_id for slot in self.slots):
                continue
            slot = self._start(self._keys(_MISSING, item), item)
            slot.warn("stream_call_recovered")
            self._whole_text(slot, _field(item, "arguments"))
            self.close(slot)
        if not complete:
            for slot in self.slots:
                if not slot.closed:
                    self.end(slot)


# ---------------------------------------------------------------------------------------------
# Anthropic Messages: `content_block_start` (a tool_use block: id, name, input {}), then
# `content_block_delta` events with `input_json_delta.partial_json`, then `content_block_stop`,
# each naming the block's index. Fine-grained tool streaming may send JSON that is invalid or
# cut: the parser reports it. The SDK's `MessageStream` adds events of its own (`input_json`,
# `text`): they restate the raw ones and are skipped.


class _AnthropicAssembler(_Assembler):
    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        super().__init__(parse, on_partial)
        self._at: dict[int | None, _Slot] = {}  # block index → its call
        self._other: set[int | None] = set()  # indices of blocks that are no tool_use

    def read(self, event: object) -> None:
        kind = _field(event, "type")
        index = _index(event)
        if kind == "content_block_start":
            self._block(index, _field(event, "content_block"))
        elif kind == "content_block_delta":
            delta = _field(event, "delta")
            if _field(delta, "type") != "input_json_delta" or index in self._other:
                return
            slot = self._at.get(index)
            if slot is None or slot.closed:
                slot = self.start(_MISSING, _MISSING)
                slot.warn("stream_call_start_missing")
                self._at[index] = slot
            self.fragment(slot, _field(delta, "partial_json"))
        elif kind == "content_block_stop":
            slot = self._at.get(index)
            if slot is not None:
                self.close(slot)
        elif kind == "message_stop":
            for slot in self.slots:
                if not slot.closed:
                    self.end(slot)

    def _block(self, index: int | None, block: object) -> None:
        if _field(block, "type") != "tool_use":
            self._other.add(index)  # text, thinking, a server tool's use: no catalog tool
            return
        self._other.discard(index)
        slot = self._at.get(index)
        call_id = _str(_field(block, "id"))
        if slot is not None and not slot.closed:
            if call_id == slot.call_id:
                slot.warn("stream_duplicate_start_ignored")
                return
            self.end(slot)  # a new block on this index: the one before it got no stop
        slot = self.start(_field(block, "name"), call_id)
        given = _field(block, "input")
        slot.given = None if given is _MISSING else given
        self._at[index] = slot

    def raw_arguments(self, slot: _Slot) -> RawArguments:
        # The SDK's accumulated message holds the input decoded: strict JSON text is passed the
        # same way, so a streamed call equals the whole message's.
        text = slot.arguments
        if text is None:
            return super().raw_arguments(slot)
        if not text.strip():
            return {}  # as the SDK reads a tool_use whose input streamed no JSON
        try:
            decoded = json.loads(text)
        except ValueError:
            return text
        return decoded if isinstance(decoded, dict) else text


# ---------------------------------------------------------------------------------------------
# Gemini: each chunk is a GenerateContentResponse whose parts hold whole `functionCall`s.


class _GeminiAssembler(_Assembler):
    id_expected = False  # the Gemini API often sends no id: a generated one is its ordinary form

    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        super().__init__(parse, on_partial)
        self._ids: set[str] = set()
        self._open: dict[int, _Slot] = {}  # candidate → a call whose arguments still stream
        self._path_open: dict[int, str] = {}  # candidate → the path whose string continues

    def read(self, event: object) -> None:
        for number, candidate in enumerate(_list(_field(event, "candidates"))):
            content = _field(candidate, "content")
            index = _index(candidate)
            index = number if index is None else index
            if content in (_MISSING, None):
                continue
            for part in _list(_field(content, "parts")):
                call = _field(part, "function_call", "functionCall")
                if call not in (_MISSING, None):
                    self._call(index, call)

    def _call(self, candidate: int, call: object) -> None:
        slot = self._open.get(candidate)
        name, call_id = _field(call, "name"), _str(_field(call, "id"))
        same_name = not isinstance(name, str) or not name or name == slot.name if slot else False
        if slot is not None and same_name and call_id in ("", slot.call_id):
            self._more(candidate, slot, call)  # Vertex AI: the next part of a streamed call
            return
        if slot is not None:
            self.end(slot)  # another call began: the one streaming got no last part
        if call_id and call_id in self._ids:
            self.problem("duplicate_call", f"the call {call_id!r} came again")
            return
        if call_id:
            self._ids.add(call_id)
        slot = self.start(name, call_id)
        args = _field(call, "args")
        # A call of a tool without parameters has no args.
        slot.given = {} if args in (_MISSING, None) else args
        self._more(candidate, slot, call)

    def _more(self, candidate: int, slot: _Slot, call: object) -> None:
        """Vertex AI's `streamFunctionCallArguments`: `partial_args` set values by JSON path (a
        string in pieces while `will_continue`), until a part without `will_continue`."""
        for partial in _list(_field(call, "partial_args", "partialArgs")):
            self._partial(candidate, slot, partial)
        if _field(call, "will_continue", "willContinue") is True:
            self._open[candidate] = slot
            return
        self._open.pop(candidate, None)
        self._path_open.pop(candidate, None)
        self.close(slot)

    def end(self, slot: _Slot) -> None:
        # Only a call still streaming its arguments is open: it never got its last part.
        slot.closed = slot.cut = True

    def _partial(self, candidate: int, slot: _Slot, partial: object) -> None:
        path = _str(_field(partial, "json_path", "jsonPath"))
        value = _partial_value(partial)
        keys = _json_path(path)
        if keys is None or value is _MISSING or not isinstance(slot.given, dict):
            slot.warn(f"stream_partial_arg_unreadable:{path}")
            slot.cut = True  # a value that cannot be placed is lost: the call must not run
            return
        if self._path_open.get(candidate) == path and isinstance(value, str):
            value = _get_path(slot.given, keys) + value  # the same string, continued
        continues = _field(partial, "will_continue", "willContinue") is True
        if continues and isinstance(value, str):
            self._path_open[candidate] = path
        else:
            self._path_open.pop(candidate, None)
        _set_path(slot.given, keys, value)
        self._changed[id(slot)] = slot


def _partial_value(partial: object) -> object:
    for name in ("string_value", "stringValue", "number_value", "numberValue"):
        value = _field(partial, name)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return value
    for name in ("bool_value", "boolValue"):
        value = _field(partial, name)
        if isinstance(value, bool):
            return value
    if _field(partial, "null_value", "nullValue") not in (_MISSING, None):
        return None
    return _MISSING


# `$.a.b[0]['c d']`: names and indices only (a streamed argument's path names one value).
_PATH_STEP: Final = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\[(['\"])(.*?)\3\]")


def _json_path(path: str) -> list[str | int] | None:
    if not path.startswith("$"):
        return None
    keys: list[str | int] = []
    at = 1
    while at < len(path):
        step = _PATH_STEP.match(path, at)
        if step is None:
            return None
        name, number, _, quoted = step.groups()
        keys.append(int(number) if number is not None else name if name is not None else quoted)
        at = step.end()
    return keys or None


def _get_path(root: object, keys: list[str | int]) -> str:
    node = root
    for key in keys:
        if isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return ""
    return node if isinstance(node, str) else ""


def _set_path(root: dict[str, object], keys: list[str | int], value: object) -> None:
    """Set `value` at `keys`, making the objects and lists on the way (a list grows with None
    up to an index that comes first)."""
    node: object = root
    for key, following in zip(keys, [*keys[1:], None], strict=True):
        last = following is None
        made: object = value if last else ([] if isinstance(following, int) else {})
        if isinstance(node, dict) and isinstance(key, str):
            if last or not isinstance(node.get(key), (dict, list)):
                node[key] = made
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int):
            node.extend([None] * (key + 1 - len(node)))
            if last or not isinstance(node[key], (dict, list)):
                node[key] = made
            node = node[key]
        else:
            return  # a path through a value of another kind: the parser reports the shape


# ---------------------------------------------------------------------------------------------
# Driving an assembler over a sync or an async stream.

_ASSEMBLERS: Final[Mapping[str, Callable[[Parse, OnPartial | None], _Assembler]]] = {
    "openai_chat": _ChatAssembler,
    "openai_responses": _ResponsesAssembler,
    "anthropic": _AnthropicAssembler,
    "gemini": _GeminiAssembler,
}


class CallStream(Iterator[ToolCallRequest[object]]):
    """The calls of a sync stream, each as soon as it is complete; `problems` holds what was
    found that is not a call (read it as it grows, or at the end)."""

    __slots__ = ("_calls", "problems")

    def __init__(self, events: object, assembler: _Assembler) -> None:
        self.problems = assembler.problems
        self._calls = _run(events, assembler)

    def __next__(self) -> ToolCallRequest[object]:
        return next(self._calls)


class AsyncCallStream(AsyncIterator[ToolCallRequest[object]]):
    """The calls of an async stream, each as soon as it is complete; see CallStream."""

    __slots__ = ("_calls", "problems")

    def __init__(self, events: AsyncIterable[object], assembler: _Assembler) -> None:
        self.problems = assembler.problems
        self._calls = _arun(events, assembler)

    async def __anext__(self) -> ToolCallRequest[object]:
        return await anext(self._calls)


def read_stream(
    provider: str,
    events: Iterable[object] | AsyncIterable[object],
    parse: Parse,
    on_partial: OnPartial | None = None,
) -> CallStream | AsyncCallStream:
    """A reader of `provider`'s stream: an async one for an async iterable."""
    assembler = _ASSEMBLERS[provider](parse, on_partial)
    if isinstance(events, AsyncIterable):
        return AsyncCallStream(events, assembler)
    return CallStream(events, assembler)


def _run(events: object, assembler: _Assembler) -> Iterator[ToolCallRequest[object]]:
    try:
        source = iter(events)  # type: ignore[call-overload]
    except Exception as exc:  # noqa: BLE001 - not a stream: reported, nothing to yield
        assembler.problem("malformed_stream", f"{type(exc).__name__}: {_text(exc)}")
        return
    while True:
        try:
            event = next(source)
        except StopIteration:
            break
        except Exception as exc:  # noqa: BLE001 - the connection failed: what came is kept
            assembler.failed(exc)
            break
        yield from assembler.feed(event)
    yield from assembler.finish()


async def _arun(
    events: AsyncIterable[object], assembler: _Assembler
) -> AsyncIterator[ToolCallRequest[object]]:
    try:
        source = aiter(events)
    except Exception as exc:  # noqa: BLE001 - not a stream: reported, nothing to yield
        assembler.problem("malformed_stream", f"{type(exc).__name__}: {_text(exc)}")
        return
    while True:
        try:
            event = await anext(source)
        except StopAsyncIteration:
            break
        except Exception as exc:  # noqa: BLE001 - the connection failed: what came is kept
            assembler.failed(exc)
            break
        for request in assembler.feed(event):
            yield request
    for request in assembler.finish():
        yield request

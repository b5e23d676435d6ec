"""Each provider's streamed events, read into calls: which event begins a call, which carries a
piece of its arguments, which says it is complete, and what a known bug's shape means.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from ._assembly import _SHOWN, OnPartial, _Assembler, _index, _list, _Slot, _str
from ._outbound import strict_loads
from ._providers import _MISSING, Parse, _field
from ._runtime import RawArguments

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
        self._open: dict[int, int] = {}  # choice → how many of its calls a finish closed
        self._with_id: dict[tuple[int, str], _Slot] = {}  # (choice, id) → its first call

    def read(self, event: object) -> None:
        if _field(event, "type") == "chunk":
            event = _field(event, "chunk")  # the SDK's `stream()` helper wraps each chunk
        for choice in _list(_field(event, "choices")):
            number = _index(choice) or 0
            if number != 0:
                continue  # another choice (`n` > 1): only the first is read, as in a whole reply
            delta = _field(choice, "delta")
            if delta not in (_MISSING, None):
                for entry in _list(_field(delta, "tool_calls")):
                    if entry is not None:  # nothing, as in a whole message's `tool_calls`
                        self._tool_call(number, entry)
                legacy = _field(delta, "function_call")
                if legacy not in (_MISSING, None):
                    self._legacy(number, legacy)
            if isinstance(_field(choice, "finish_reason"), str):
                calls = self._of.get(number, [])
                for slot in calls[self._open.get(number, 0) :]:
                    self.close(slot)
                self._open[number] = len(calls)

    def _tool_call(self, choice: int, entry: object) -> None:
        if _field(entry, "type") not in ("function", None, _MISSING):
            return  # a custom tool's call: no catalog tool
        function = _field(entry, "function")
        name = _field(function, "name") if function not in (_MISSING, None) else _MISSING
        arguments = _field(function, "arguments") if function not in (_MISSING, None) else None
        call_id = _str(_field(entry, "id"))
        index = _index(entry)
        if index is None:
            slot = self._unindexed(choice, call_id, name)
        else:
            slot = self._at.get((choice, index))
        if slot is not None and not _another_call(slot, call_id, name, arguments):
            self._more(choice, slot, name, call_id)
        else:
            # A new call, or one on an index in use (gateways that flatten parallel calls):
            # never merged into the call there.
            reused = slot is not None and index is not None
            slot = self._begin(choice, index, name, call_id)
            if index is None:
                slot.warn("stream_index_missing")
            elif reused:
                slot.warn("stream_index_reused")
            if not call_id and not (isinstance(name, str) and name):
                slot.warn("stream_call_start_missing")
        self.fragment(slot, arguments)

    def _unindexed(self, choice: int, call_id: str, name: object) -> _Slot | None:
        """The call a delta without an index continues: the one with its id; else the last one,
        unless the delta starts a call (a name, after a call that has a name or arguments)."""
        if call_id:
            return self._with_id.get((choice, call_id))  # another id is another call
        last = self._latest(choice)
        if last is None:
            return None
        if isinstance(name, str) and name and (last.name or last.streamed):
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
        if call_id:
            self._with_id.setdefault((choice, call_id), slot)
        self._at[(choice, index if index is not None else f"#{slot.position}")] = slot
        return slot

    def _more(self, choice: int, slot: _Slot, name: object, call_id: str) -> None:
        if call_id and not slot.call_id:
            slot.call_id = call_id
            self._with_id.setdefault((choice, call_id), slot)
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


def _another_call(slot: _Slot, call_id: str, name: object, text: object) -> bool:
    """Whether a delta at a call's index (or, without an index, after it) belongs to another
    call: it has another id; or the call's arguments are whole JSON already and the delta brings
    another name, or text that is neither blank nor the same arguments again (a duplicate)."""
    if call_id and slot.call_id:
        return call_id != slot.call_id
    if call_id or not slot.streamed or not slot.whole():
        return False
    if isinstance(name, str) and name and slot.name and name != slot.name:
        return True
    if not isinstance(text, str) or text.strip() == "":
        return False
    return len(text) != slot.length or text != slot.arguments


# ---------------------------------------------------------------------------------------------
# OpenAI Responses: `response.output_item.added` (a function_call item), then
# `response.function_call_arguments.delta` events and `.done` (the whole text), then
# `response.output_item.done` (the whole item); `response.completed` holds the whole response.
# Each event has a `sequence_number`: one seen before is a duplicate.


class _ResponsesAssembler(_Assembler):
    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        super().__init__(parse, on_partial)
        self._by_item: dict[object, _Slot] = {}  # item id (or output index) → its call
        self._with_id: dict[str, _Slot] = {}  # call id → its first call
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
        if slot.call_id:
            self._with_id.setdefault(slot.call_id, slot)
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
        if slot.length:
            slot.warn("stream_arguments_replaced")
        slot.replace(text)
        self.grew(slot, len(text))

    def _done(self, event: object, item: object, unseen: str = "stream_call_start_missing") -> None:
        """A whole item: it completes its call, saying what the events did not."""
        if _field(item, "type") != "function_call":
            return
        keys = self._keys(event, item)
        call_id = _str(_field(item, "call_id"))
        slot = self._find(keys) or self._with_id.get(call_id)
        if slot is None:
            slot = self._start(keys, item)
            slot.warn(unseen)
        if not slot.name:
            slot.name = _str(_field(item, "name"))
        if not slot.call_id and call_id:
            slot.call_id = call_id
            self._with_id.setdefault(call_id, slot)
        self._whole_text(slot, _field(item, "arguments"))
        self.close(slot)

    def _final(self, response: object, complete: bool) -> None:
        """The response's own items complete their calls; one the events never showed is
        recovered."""
        for item in _list(_field(response, "output")):
            self._done(_MISSING, item, "stream_call_recovered")
        if not complete:
            self.end_open()


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
            if slot is None:
                slot = self.start(_MISSING, _MISSING)
                slot.warn("stream_call_start_missing")
                self._at[index] = slot
            self.fragment(slot, _field(delta, "partial_json"))  # one yielded: a problem
        elif kind == "content_block_stop":
            slot = self._at.get(index)
            if slot is not None:
                self.close(slot)
        elif kind == "message_stop":
            self.end_open()

    def _block(self, index: int | None, block: object) -> None:
        if _field(block, "type") != "tool_use":
            self._other.add(index)  # text, thinking, a server tool's use: no catalog tool
            return
        self._other.discard(index)
        slot = self._at.get(index)
        call_id = _str(_field(block, "id"))
        if slot is not None and not slot.emitted and not slot.name and not slot.call_id:
            # Its deltas came first: an index names one block of the message.
            slot.name, slot.call_id = _str(_field(block, "name")), call_id
            slot.warnings = [
                "stream_call_start_late" if code == "stream_call_start_missing" else code
                for code in slot.warnings
            ]
            return
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
        # same way, so a streamed call equals the whole message's. Anything else (`NaN`, nesting
        # too deep, a lone surrogate) is the parser's to read, as the other readers leave it.
        text = slot.arguments
        if text is None:
            return super().raw_arguments(slot)
        if not text.strip():
            return {}  # as the SDK reads a tool_use whose input streamed no JSON
        decoded = strict_loads(text)
        return decoded if isinstance(decoded, dict) else text


# ---------------------------------------------------------------------------------------------
# Gemini: each chunk is a GenerateContentResponse whose parts hold whole `functionCall`s.


class _GeminiAssembler(_Assembler):
    id_expected = False  # the Gemini API often sends no id: a generated one is its ordinary form

    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        super().__init__(parse, on_partial)
        self._open: dict[int, _Slot] = {}  # candidate → a call whose arguments still stream
        # a call (by id()) → its string value still streaming: its path, keys, pieces so far
        self._string: dict[int, tuple[str, list[str | int], list[str]]] = {}

    def read(self, event: object) -> None:
        for number, candidate in enumerate(_list(_field(event, "candidates"))):
            content = _field(candidate, "content")
            index = _index(candidate)
            index = number if index is None else index
            if index != 0 or content in (_MISSING, None):
                continue  # only the first candidate is read, as in a whole reply
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
        slot = self.start(name, call_id)
        args = _field(call, "args")
        # A call of a tool without parameters has no args: none, as in a whole reply (`""`),
        # unless values stream into them.
        slot.given = None if args is _MISSING else args
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
        self._flush(slot)
        self.close(slot)

    def end(self, slot: _Slot) -> None:
        # Only a call still streaming its arguments is open: it never got its last part.
        self._flush(slot)
        slot.closed = slot.cut = True

    def _partial(self, candidate: int, slot: _Slot, partial: object) -> None:
        path = _str(_field(partial, "json_path", "jsonPath"))
        value = _partial_value(partial)
        keys = _json_path(path)
        if slot.given is None:
            slot.given = {}  # the call's first streamed value: its arguments are an object
        if keys is None or value is _MISSING or not isinstance(slot.given, dict):
            self._flush(slot)
            slot.warn(f"stream_partial_arg_unreadable:{path}")
            slot.cut = True  # a value that cannot be placed is lost: the call must not run
            return
        size = len(value) if isinstance(value, str) else 1
        streaming = self._string.get(id(slot))
        if streaming is not None and streaming[0] == path and isinstance(value, str):
            streaming[2].append(value)  # the same string, continued: joined when it is read
        else:
            self._flush(slot)
            _set_path(slot.given, keys, value)
            if isinstance(value, str):
                self._string[id(slot)] = (path, keys, [value])
        if _field(partial, "will_continue", "willContinue") is not True:
            self._flush(slot)
        self.grew(slot, size)

    def settle(self, slot: _Slot) -> None:
        """Write the string still streaming into the call's arguments, as far as it came."""
        streaming = self._string.get(id(slot))
        if streaming is not None and isinstance(slot.given, dict):
            pieces = streaming[2]
            pieces[:] = ["".join(pieces)]
            _set_path(slot.given, streaming[1], pieces[0])

    def _flush(self, slot: _Slot) -> None:
        """The string still streaming is whole: written into the call's arguments."""
        self.settle(slot)
        self._string.pop(id(slot), None)


def _partial_value(partial: object) -> object:
    for name in ("string_value", "stringValue"):
        value = _field(partial, name)
        if isinstance(value, str):
            return value
    for name in ("number_value", "numberValue"):
        value = _field(partial, name)
        if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
            # The SDK types the field as a double; the JSON said `30`, as whole args would.
            return int(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
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


# The reader of each provider, by the name `read_stream` takes.
_ASSEMBLERS: Final[Mapping[str, Callable[[Parse, OnPartial | None], _Assembler]]] = {
    "openai_chat": _ChatAssembler,
    "openai_responses": _ResponsesAssembler,
    "anthropic": _AnthropicAssembler,
    "gemini": _GeminiAssembler,
}

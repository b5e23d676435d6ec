"""How a stream's events become calls: a slot per call that collects its name, id and argument
text as they come, and yields each call, in the order the calls began, once it and every call
before it is complete. Each provider's reader (`_stream_readers`) extends `_Assembler` with how its
events say those things; `_streams` drives a reader over a sync or an async stream.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, NamedTuple, cast

from ._providers import _SCALARS, Parse, _failed, _field
from ._runtime import RawArguments, ToolCallRequest, refused


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
        if text == slot.arguments and slot.whole():
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
            request = refused(request, "truncated_arguments")
        return request._replace(warnings=warnings + request.warnings) if warnings else request

    def raw_arguments(self, slot: _Slot) -> RawArguments:
        if slot.arguments is not None:
            return slot.arguments
        if slot.given is None:
            return ""  # no arguments came: an empty object, as in the whole message
        # Arguments of a kind no parser takes (a list, a number) are the parser's to report.
        return cast(RawArguments, slot.given)

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
                try:
                    text = shown = json.dumps(slot.given, ensure_ascii=False, default=str)
                except (TypeError, ValueError, RecursionError):
                    continue  # nothing to show yet; the call itself reports what it holds
            values = self.parse(slot.name, shown, call_id).values if slot.name else {}
            # The callback is the caller's code: what it raises is theirs to see.
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


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:_SHOWN]
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails
        return ""


def _index(node: object, name: str = "index") -> int | None:
    value = _field(node, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""

"""How a stream's events become calls: a slot per call that collects its name, id and argument
text as they come, and yields each call, in the order the calls began, once it and every call
before it is complete. Each provider's reader (`_stream_readers`) extends `_Assembler` with how its
events say those things; `_streams` drives a reader over a sync or an async stream.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, NamedTuple, cast

from ._ids import ReplyIds
from ._json_prefix import JsonPrefix
from ._providers import _SCALARS, Parse, _field, call_request, failed_request
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
    tool_call_id: str  # "" for a call without an id: it gets one when the stream ends (`_ids`)
    raw_arguments: str
    values: dict[str, object]


OnPartial = Callable[[PartialCall], object]

# How much of a fragment a problem shows.
_SHOWN: Final = 100
# Characters of partial views each piece of arguments earns beside its own length: arguments up
# to this long are shown at every piece (see `_Assembler._show_partials`).
_VIEW_ALLOWANCE: Final = 256


class _Slot:
    """One call being assembled from events. Its argument text is kept as the pieces that came,
    joined when it is read whole, and read once as it comes (`JsonPrefix`): a stream costs time
    linear in its length however many pieces it has."""

    __slots__ = (
        "_pieces",
        "_prefix",
        "_valid",
        "call_id",
        "closed",
        "credit",
        "cut",
        "emitted",
        "given",
        "id_expected",
        "length",
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
        self._pieces: list[str] | None = None  # the streamed text, once any came
        self._prefix = JsonPrefix()
        self._valid: bool | None = None  # whether the text, once whole, is JSON json reads
        self.length = 0  # characters of text (of arguments that came as values: their last view)
        self.given: object = None  # arguments that came whole (an object), until text comes
        self.warnings: list[str] = []
        self.closed = False  # the provider said the call is complete, or the stream ended
        self.cut = False  # it ended before it was complete
        self.superseded = False  # a later call began where only one streams at a time
        self.emitted = False
        self.credit = 0  # characters of partial views this call has earned (see _show_partials)

    @property
    def streamed(self) -> bool:
        """Whether any text came (read `arguments` only where its length is paid for: it joins)."""
        return self._pieces is not None

    @property
    def arguments(self) -> str | None:
        """The streamed text so far, or None when none came."""
        pieces = self._pieces
        if pieces is None:
            return None
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]  # joined once, until more comes
        return pieces[0] if pieces else ""

    def append(self, fragment: str) -> None:
        if self._pieces is None:
            self._pieces = []
        self._pieces.append(fragment)
        self.length += len(fragment)
        self._prefix.feed(fragment)

    def replace(self, text: str) -> None:
        """The whole text, instead of what came so far."""
        self._pieces, self._prefix, self._valid, self.length = [], JsonPrefix(), None, 0
        self.append(text)

    def shown(self) -> str | None:
        """The text so far closed into JSON (`JsonPrefix.closed`); None when it is not JSON the
        prefix reader follows."""
        text = self.arguments
        return None if text is None else self._prefix.closed(text)

    def warn(self, code: str) -> None:
        if code not in self.warnings:
            self.warnings.append(code)

    def whole(self) -> bool:
        """Whether the text so far is one complete JSON value (nothing came: not yet). The text is
        decoded once, when its last bracket closes; white space after it changes nothing, and
        anything else makes it no longer whole, for good."""
        if self._pieces is None:
            return self.given is not None
        if not self._prefix.complete:
            return False
        if self._valid is None:
            try:
                json.loads(self.arguments or "")
            except (ValueError, RecursionError):
                self._valid = False
            else:
                self._valid = True
        return self._valid


class _Assembler:
    """Collects calls from one stream's events; each provider reads its own events."""

    id_expected = True  # the provider's calls carry ids: a missing one is worth a warning

    def __init__(self, parse: Parse, on_partial: OnPartial | None) -> None:
        self.parse = parse
        self.on_partial = on_partial
        self.slots: list[_Slot] = []
        self.problems: list[StreamProblem] = []
        self.event = 0
        self.ids = ReplyIds()
        self._next = 0  # the first slot not yet yielded
        self._yielded = 0  # the requests yielded so far
        self._ended = False
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
        self._ended = True
        self.end_open()
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
        if len(text) == slot.length and slot.whole() and text == slot.arguments:
            # The whole arguments sent again (a duplicated chunk, or a gateway that repeats
            # them): appending would make `{..}{..}`.
            slot.warn("stream_duplicate_arguments_ignored")
            return
        slot.append(text)
        self.grew(slot, len(text))

    def grew(self, slot: _Slot, size: int) -> None:
        """A call's arguments grew by `size` characters in this event: a view may show it."""
        slot.credit += size + _VIEW_ALLOWANCE
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

    def end_open(self) -> None:
        """End every call still open (those yielded are closed: only the rest are looked at)."""
        for slot in self.slots[self._next :]:
            if not slot.closed:
                self.end(slot)

    def ready(self, slot: _Slot) -> bool:
        return slot.closed

    def settle(self, slot: _Slot) -> None:
        """Bring arguments that come as values up to date before they are read (a reader that
        keeps some of them aside while they stream writes them in)."""

    # -- yielding ---------------------------------------------------------------------------

    def _ready(self) -> list[ToolCallRequest[object]]:
        """The calls complete now, in the order they began. A call without an id waits for the
        end of the stream, and every call after it with it: its id is minted once every id the
        model gave is known (`ReplyIds.mint`), as in the whole reply."""
        out: list[ToolCallRequest[object]] = []
        while self._next < len(self.slots) and self.ready(self.slots[self._next]):
            slot = self.slots[self._next]
            if not slot.call_id and not self._ended:
                break
            slot.emitted = True
            self._next += 1
            try:
                request = self._request(slot)
            except Exception as exc:  # noqa: BLE001 - arguments whose own methods raise
                request = failed_request(f"unreadable_tool_call:{type(exc).__name__}", slot.call_id)
            dropped = self.ids.claim(request)
            if dropped is None:
                out.append(request)
            else:
                self.problem(dropped.code, dropped.detail)
        out = self.ids.mint(out, self._yielded)
        self._yielded += len(out)
        return out

    def _request(self, slot: _Slot) -> ToolCallRequest[object]:
        """The call's request, made as a whole reply's is (`_providers.call_request`)."""
        raw = self.raw_arguments(slot)
        request = call_request(
            slot.name, slot.call_id, slot.id_expected, raw, self.parse, tuple(slot.warnings)
        )
        if slot.cut and request.tool_name and "truncated_arguments" not in request.errors:
            request = refused(request, "truncated_arguments")
        return request

    def raw_arguments(self, slot: _Slot) -> RawArguments:
        if slot.streamed:
            return slot.arguments
        if slot.given is None:
            return ""  # no arguments came: an empty object, as in the whole message
        # Arguments of a kind no parser takes (a list, a number) are the parser's to report.
        return cast(RawArguments, slot.given)

    def _show_partials(self) -> None:
        """Each call whose arguments grew in this event, as its text so far shows it. A view
        costs the length of the call's text (to close it, and for the parser to read it): it is
        shown once the call has earned that much, each piece earning its length and
        `_VIEW_ALLOWANCE`. Short arguments are shown at every piece; long ones less often, so
        that views cost time linear in the stream, not in its pieces times its length."""
        changed, self._changed = self._changed, {}
        if self.on_partial is None:
            return
        for slot in changed.values():
            if slot.emitted or slot.credit < slot.length:
                continue
            call_id = slot.call_id  # "" until the stream ends, for a call without an id
            text = slot.arguments
            if text is not None:
                shown = slot.shown()
                if shown is None:
                    shown = text  # not JSON the prefix reader follows: the parser's repair
            else:  # arguments that stream as values (Gemini's partial_args)
                self.settle(slot)
                try:
                    text = shown = json.dumps(slot.given, ensure_ascii=False, default=str)
                except (TypeError, ValueError, RecursionError):
                    continue  # nothing to show yet; the call itself reports what it holds
                slot.length = len(text)  # what the next view of it will cost
            slot.credit -= len(text)
            values = self.parse(slot.name, shown, call_id).values if slot.name else {}
            # The callback is the caller's code: what it raises is theirs to see.
            self.on_partial(PartialCall(slot.position, slot.name, call_id, text, values))


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

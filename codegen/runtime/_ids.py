"""The call ids of one reply: every reader asks here, so that no two requests of a reply share
an id, whichever reader made them (the four stream readers, the four whole-reply adapters,
`parse_reply`, the JSONL and single-JSON readers).

A provider matches each result to its call by the id, and refuses a turn that answers one id
twice. So a call whose id an earlier call of the same reply has is never a second request:

- `duplicate_call`: the same id, name and arguments again (a gateway or a retry replaying it):
  the call has its request already, and running it twice would do its work twice;
- `duplicate_call_id`: the same id on another call (another name or other arguments): which of
  the two the model meant is unknown, and a second request would answer the id twice.

Either way the later call is dropped, and the reader says so: a problem where it has problems
(stream readers, `parse_reply`, JSONL), else a warning on the request that keeps the id. A made-up
id (`call_<n>` for a call without one) is never an id the reply used before.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from ._outbound import well_formed
from ._runtime import ToolCallRequest

# Codes of a call dropped because its id was taken (see above).
REPLAYED: Final = "duplicate_call"
ID_REUSED: Final = "duplicate_call_id"


class Dropped(NamedTuple):
    """Why a call is not a request: `code` is `duplicate_call` or `duplicate_call_id`."""

    code: str
    detail: str
    holder: int  # the place given with the request that holds the id


class ReplyIds:
    """The ids the requests of one reply hold so far, each with the call that holds it."""

    __slots__ = ("_calls",)

    def __init__(self) -> None:
        # id → (tool name, raw arguments, the place its caller gave)
        self._calls: dict[str, tuple[str, str, int]] = {}

    def unused(self, candidate: str) -> str:
        """`candidate` for a call that came without an id, or, when a call of this reply holds it,
        `candidate_2`, `candidate_3`, ...: the first one no call holds."""
        if candidate not in self._calls:
            return candidate
        number = 2
        while f"{candidate}_{number}" in self._calls:
            number += 1
        return f"{candidate}_{number}"

    def mark(self) -> int:
        """Where the ids stand now, for `rollback`."""
        return len(self._calls)

    def rollback(self, mark: int) -> None:
        """Forget the ids claimed since `mark`: a reader gave up the calls it had read (a list
        that turned out to hold something that is no call), so their ids are the reply's again."""
        for call_id in list(self._calls)[mark:]:
            del self._calls[call_id]

    def claim(self, request: ToolCallRequest[object], place: int = 0) -> Dropped | None:
        """Record the request's id (`place`: where the caller keeps it); None when the id is new,
        else why the request must be dropped."""
        call = (request.tool_name, request.raw_arguments, place)
        # By the id as it is sent (`_outbound`: a lone surrogate is U+FFFD there), so that two
        # ids the provider would read as one are one here.
        held = self._calls.setdefault(well_formed(request.tool_call_id), call)
        if held is call:
            return None
        shown = repr(request.tool_call_id)
        if held[:2] == call[:2]:
            return Dropped(REPLAYED, f"the call {shown} came again", held[2])
        detail = f"another call with the id {shown}: {request.tool_name or '?'}"
        return Dropped(ID_REUSED, detail, held[2])

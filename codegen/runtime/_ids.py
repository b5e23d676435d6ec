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
(stream readers, `parse_reply`, JSONL), else a warning on the request that keeps the id.

A call that came without an id is made (by its reader) with the id "", and gets its id here once
every id the model gave in the reply is known (`ReplyIds.mint`): `call_<n>`, where n is the call's
position among the reply's requests, from 0 (the position OpenAI's and Anthropic's streams give a
call, `index`, and a stream's `PartialCall.position`); when a call of the reply holds that id,
`call_<n>_2`, `call_<n>_3`, ...: the first no call holds. So an id the model gave is never changed
or refused because of a made-up one, and a stream gives the ids its whole reply gives (a stream
yields a call without an id when it ends, `_assembly`). A stream of JSONL lines is the one reader
that mints at once, as each line ends (see `_jsonl.LineReader`).
"""

from __future__ import annotations

from typing import Final, NamedTuple, TypeVar, cast

from ._outbound import well_formed
from ._runtime import ReadyRequest, RefusedRequest, ToolCallRequest

# Codes of a call dropped because its id was taken (see above).
REPLAYED: Final = "duplicate_call"
ID_REUSED: Final = "duplicate_call_id"

# An item of a reader's list: a request, or what the reader keeps beside them (a problem).
_Item = TypeVar("_Item")


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

    def mark(self) -> int:
        """Where the ids stand now, for `rollback`."""
        return len(self._calls)

    def rollback(self, mark: int) -> None:
        """Forget the ids claimed since `mark`: a reader gave up the calls it had read (a list
        that turned out to hold something that is no call), so their ids are the reply's again."""
        for call_id in list(self._calls)[mark:]:
            del self._calls[call_id]

    def claim(self, request: ToolCallRequest[object], place: int = 0) -> Dropped | None:
        """Record the request's id (`place`: where the caller keeps it); None when the id is new
        or the request has none yet (its id is minted later), else why the request must be
        dropped."""
        if not request.tool_call_id:
            return None
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

    def mint(self, items: list[_Item], first: int = 0) -> list[_Item]:
        """`items`, each request without an id given one, in place, once every id the model gave
        in the reply is claimed: `call_<position>` (see above), the position counted among the
        requests of `items` from `first` (the requests a stream yielded before them)."""
        position = first
        for index, item in enumerate(items):
            if isinstance(item, (ReadyRequest, RefusedRequest)):
                if not item.tool_call_id:
                    request = item._replace(tool_call_id=self._unused(f"call_{position}"))
                    self.claim(request)
                    items[index] = cast(_Item, request)
                position += 1
        return items

    def _unused(self, candidate: str) -> str:
        if candidate not in self._calls:
            return candidate
        number = 2
        while f"{candidate}_{number}" in self._calls:
            number += 1
        return f"{candidate}_{number}"

"""Tool calls written as text by models without native function calling.

A JSONL reply (one `{"name": ..., "parameters": {...}}` per line) is read line by line, in a batch
or while it streams, and each line goes through the package's own `parse`, so one bad line never
loses the others. A single JSON object or an array of them (the single-JSON prompt) is read too.

Standard library only; nothing here raises on any reply. What is not a call is a `Problem` with a
stable `reason` code (the README lists them), a `detail` in words and the line's text.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Final, NamedTuple, Self

from ._calls import Catalog, Parse, Refused, call_parts
from ._ids import ReplyIds
from ._repair import iter_values, repair_json
from ._runtime import RawArguments, ToolCallRequest, refused

Chunk = str | bytes | bytearray | memoryview

# A line longer than this (characters of text, or bytes of a bytes stream; the line break aside)
# is a problem, and is never held whole: memory stays bounded on an endless stream.
MAX_LINE: Final = 1024 * 1024
# How much of a line a problem keeps as its text.
SHOWN: Final = 200


class Problem(NamedTuple):
    """A line (1-based) of a reply that gave no call to run, and why: `reason` is a stable code."""

    line: int
    reason: str
    detail: str
    text: str


class CallBatch(tuple[ToolCallRequest[object], ...]):
    """The calls of a reply, in order (a tuple of requests), and its `problems`."""

    problems: tuple[Problem, ...]

    def __new__(
        cls, calls: Iterable[ToolCallRequest[object]], problems: Iterable[Problem] = ()
    ) -> Self:
        batch = super().__new__(cls, calls)
        batch.problems = tuple(problems)
        return batch

    @property
    def calls(self) -> tuple[ToolCallRequest[object], ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CallBatch):
            return tuple(self) == tuple(other) and self.problems == other.problems
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple(self), self.problems))

    def __repr__(self) -> str:
        return f"CallBatch(calls={tuple(self)!r}, problems={self.problems!r})"


Item = ToolCallRequest[object] | Problem


# ---------------------------------------------------------------------------------------------
# One line


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


# One decoder for every line (json.loads with an option builds a new one each call).
_loads: Final = json.JSONDecoder(parse_constant=_reject_constant).decode


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return str(exc) or type(exc).__name__


def read_line(parse: Parse, text: str, number: int, ids: ReplyIds) -> list[Item]:
    """The calls on one line of a JSONL reply (one, or several side by side), a problem, or
    nothing for a line with nothing on it (blank, a code fence's line, a comment); `ids`: the
    reply's."""
    stripped = text.strip().lstrip("\ufeff").strip()
    if not stripped or stripped.startswith("```"):
        return []
    if stripped.startswith("/") and _COMMENTS.fullmatch(stripped):
        return []  # a comment between the calls (`// then the second`): nothing to read
    if not stripped.startswith("{"):
        try:
            _loads(stripped)
        except (ValueError, RecursionError):
            return [Problem(number, "prose", "not a JSON object", text[:SHOWN])]
        return [
            Problem(number, "not_an_object", "a JSON value that is not an object", text[:SHOWN])
        ]
    try:
        found = _loads(stripped)
    except (ValueError, RecursionError) as exc:
        return _several(parse, stripped, text, number, exc, ids)
    return [call_of(parse, found, number, ids, (), text)]


def _several(
    parse: Parse, stripped: str, text: str, number: int, exc: Exception, ids: ReplyIds
) -> list[Item]:
    """The calls of a line that is not one JSON object: one or more objects side by side (`{…} {…}`,
    `{…}{…}`, an old Mac line break between), each repaired as the rules allow."""
    values = list(iter_values(stripped))
    # What lies between and after the objects: comments, prose, or JSON the rules cannot read.
    outside = [stripped[a.end : b.start] for a, b in itertools.pairwise(values)]
    outside.append(stripped[values[-1].end :] if values else stripped)
    codes = gap_codes(" ".join(outside))
    items: list[Item] = []
    for found in values:
        if found.reason == "truncated":
            items.append(Problem(number, "truncated_line", "the line was cut off", text[:SHOWN]))
        elif found.reason:
            items.append(Problem(number, "invalid_json", _reason(exc), text[:SHOWN]))
        else:
            warnings = (*found.warnings, *codes)
            items.append(call_of(parse, found.value, number, ids, warnings, text))
    if not values or any("{" in gap for gap in outside):
        items.append(Problem(number, "invalid_json", _reason(exc), text[:SHOWN]))
    return items


def gap_codes(text: str) -> tuple[str, ...]:
    """The code for what lies beside a call's JSON: nothing, comments, or other text."""
    text = text.strip()
    if not text:
        return ()
    if _COMMENTS.fullmatch(text):
        return ("comment_removed",)
    return ("json_extracted_from_text",)


_COMMENTS: Final = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)


def call_of(
    parse: Parse,
    found: object,
    number: int,
    ids: ReplyIds,
    warnings: tuple[str, ...] = (),
    text: str = "",
) -> Item:
    """The request for one decoded call object, in any envelope `call_parts` knows, or the
    problem that keeps it from being one: its id one an earlier call of the reply has too
    (`ids` says). A call without an id has the id "" until `ids` mints it (`ReplyIds.mint`)."""
    parts = call_parts(found, parse if isinstance(parse, Catalog) else None)
    if isinstance(parts, Refused):
        return Problem(number, parts.reason, parts.detail, text[:SHOWN] or _shown(found))
    call_id = parts.call_id
    if type(call_id) is int:
        call_id = str(call_id)
    if type(call_id) is not str:
        call_id = ""
    parameters = parts.arguments
    warnings = (*warnings, *parts.warnings)
    raw: RawArguments
    if type(parameters) is dict or parameters is None:
        raw = parameters
    elif type(parameters) is str:
        # The object JSON-encoded once more: the parser decodes it, and says so (OpenAI's
        # `arguments` is a string by design: its envelope code says so already).
        raw = parameters
        if not parts.warnings:
            warnings = (*warnings, "arguments_unquoted")
    else:
        raw = _json_text(parameters)  # the parser's own error for a root that is not an object
    request = parse(parts.name, raw, call_id)
    if warnings:
        request = request._replace(warnings=(*warnings, *request.warnings))
    error = parts.error
    if error is not None and error is not False and error != "":
        reported = error if type(error) is str else _shown(error, None)
        request = refused(request, f"model_reported_error:{reported}")
    dropped = ids.claim(request)
    if dropped is not None:
        return Problem(number, dropped.code, dropped.detail, text[:SHOWN] or _shown(found))
    return request


def _json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        return "<not JSON>"


def _shown(value: object, limit: int | None = SHOWN) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "<not JSON>"
    return text if limit is None else text[:limit]


# ---------------------------------------------------------------------------------------------
# A stream of chunks, split into lines


class LineReader:
    """Splits chunks into lines and reads each as soon as it ends, whatever the chunks' sizes.

    Bytes go through an incremental UTF-8 decoder, which holds a character split between chunks
    until its last byte comes and turns bytes that are not UTF-8 into lone surrogates (the line
    is then a problem), so where a chunk splits a character, an escape or a line never matters.
    A line that grows past `max_line` characters is dropped as it comes (its first characters
    kept for the problem), so nothing longer is ever held.

    A stream yields each call as its line ends, before the later lines' ids are known, so a call
    without an id gets its id (`ReplyIds.mint`) then: a later line that gives itself that id is
    `duplicate_call_id`. A whole reply (`whole`, `parse_jsonl`) mints once every line is read,
    so there an id the model gave is never refused because of a made-up one.
    """

    def __init__(self, parse: Parse, max_line: int = MAX_LINE, whole: bool = False) -> None:
        self._parse = parse
        self._max = max(1, max_line)
        self._pieces: list[str] = []
        self._size = 0
        self._number = 1
        self._overflow: str | None = None  # the start of a line that is too long
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._saw_bytes = False
        self._ids = ReplyIds()
        self._whole = whole
        self._calls = 0  # the requests a stream yielded so far

    def feed(self, chunk: Chunk) -> Iterator[Item]:
        """The items of every line this chunk completes."""
        if isinstance(chunk, str):
            # A character the bytes before left unfinished ends where the text starts.
            text = self._decoder.decode(b"", True) + chunk if self._saw_bytes else chunk
        elif isinstance(chunk, (bytes, bytearray, memoryview)):
            self._saw_bytes = True
            text = self._decoder.decode(bytes(chunk))
        else:
            yield Problem(self._number, "bad_chunk", f"a chunk of {type(chunk).__name__}", "")
            return
        start = 0
        while True:
            end = text.find("\n", start)
            if end < 0:
                self._keep(text, start, len(text))
                return
            self._keep(text, start, end)
            yield from self._line()
            start = end + 1

    def close(self) -> Iterator[Item]:
        """The items of what the last chunks left: the last line has no line break after it."""
        if self._saw_bytes:
            yield from self.feed(self._decoder.decode(b"", True))
        if self._pieces or self._overflow is not None:
            yield from self._line()

    def _keep(self, text: str, start: int, end: int) -> None:
        if self._overflow is not None:
            # The problem shows the line's first characters, however the chunks fell.
            if len(self._overflow) < SHOWN:
                self._overflow += text[start : min(end, start + SHOWN - len(self._overflow))]
            return
        if end == start:
            return
        if self._size + end - start > self._max:
            head = "".join(self._pieces)[:SHOWN] + text[start : min(end, start + SHOWN)]
            self._overflow = head[:SHOWN]
            self._pieces.clear()
            self._size = 0
            return
        self._pieces.append(text[start:end])
        self._size += end - start

    def _line(self) -> list[Item]:
        number = self._number
        self._number += 1
        if self._overflow is not None:
            shown, self._overflow = _readable(self._overflow), None
            return [Problem(number, "line_too_long", f"longer than {self._max} characters", shown)]
        if not self._pieces:
            return []
        text = self._pieces[0] if len(self._pieces) == 1 else "".join(self._pieces)
        self._pieces.clear()
        self._size = 0
        if self._saw_bytes and (bad := _NOT_UTF8.search(text)) is not None:
            detail = f"invalid UTF-8 at character {bad.start() + 1}"
            return [Problem(number, "invalid_utf8", detail, _readable(text[:SHOWN]))]
        items = read_line(self._parse, text, number, self._ids)
        if self._whole:
            return items
        minted = self._ids.mint(items, self._calls)
        self._calls += sum(not isinstance(item, Problem) for item in minted)
        return minted

    def minted(self, items: list[Item]) -> list[Item]:
        """The items of a whole reply (every line read), each call with its id."""
        return self._ids.mint(items)


# What the decoder makes of bytes that are not UTF-8.
_NOT_UTF8: Final = re.compile("[\udc80-\udcff]")


def _readable(text: str) -> str:
    return _NOT_UTF8.sub("\ufffd", text)


def iter_jsonl(parse: Parse, chunks: Iterable[Chunk], max_line: int = MAX_LINE) -> Iterator[Item]:
    reader = LineReader(parse, max_line)
    for chunk in chunks:
        yield from reader.feed(chunk)
    yield from reader.close()


async def aiter_jsonl(
    parse: Parse, chunks: AsyncIterable[Chunk], max_line: int = MAX_LINE
) -> AsyncIterator[Item]:
    reader = LineReader(parse, max_line)
    async for chunk in chunks:
        for item in reader.feed(chunk):
            yield item
    for item in reader.close():
        yield item


def batch(items: Iterable[Item]) -> CallBatch:
    calls: list[ToolCallRequest[object]] = []
    problems: list[Problem] = []
    for item in items:
        if isinstance(item, Problem):
            problems.append(item)
        else:
            calls.append(item)
    return CallBatch(calls, problems)


def parse_jsonl(parse: Parse, reply: Chunk, max_line: int = MAX_LINE) -> CallBatch:
    reader = LineReader(parse, max_line, whole=True)
    return batch(reader.minted([*reader.feed(reply), *reader.close()]))


# ---------------------------------------------------------------------------------------------
# One JSON object, or an array of them; and a reply in any of the three forms


def _as_text(reply: object) -> str | Problem:
    if isinstance(reply, str):
        return reply
    if isinstance(reply, (bytes, bytearray, memoryview)):
        try:
            return bytes(reply).decode("utf-8")
        except UnicodeDecodeError as exc:
            shown = bytes(reply)[:SHOWN].decode("utf-8", "replace")
            return Problem(1, "invalid_utf8", f"invalid UTF-8 at byte {exc.start}", shown)
    return Problem(1, "bad_chunk", f"a reply of {type(reply).__name__}", "")


def _unfenced(text: str) -> tuple[str, int]:
    """The text inside a Markdown code fence that opens the reply (else the text), and the number
    of lines before it."""
    stripped = text.lstrip()
    skipped = text[: len(text) - len(stripped)].count("\n")
    if not stripped.startswith("```"):
        return stripped, skipped
    body_start = stripped.find("\n")
    if body_start < 0:
        return "", skipped
    body = stripped[body_start + 1 :]
    close = body.rfind("```")
    return (body[:close] if close >= 0 else body), skipped + 1


def parse_single_json(parse: Parse, reply: Chunk) -> CallBatch:
    text = _as_text(reply)
    if isinstance(text, Problem):
        return CallBatch((), (text,))
    body, before = _unfenced(text)
    line = before + 1 + body[: len(body) - len(body.lstrip())].count("\n")
    body = body.strip()
    if not body:
        return CallBatch((), (Problem(1, "no_calls", "the reply holds no JSON", text[:SHOWN]),))
    warnings: tuple[str, ...] = ()
    try:
        found = _loads(body)
    except (ValueError, RecursionError) as exc:
        start = min((i for i in (body.find("["), body.find("{")) if i >= 0), default=-1)
        found = _NOTHING
        if start >= 0:
            line += body[:start].count("\n")
            try:
                found, _ = json.JSONDecoder(parse_constant=_reject_constant).raw_decode(body, start)
                warnings = ("json_extracted_from_text",)
            except (ValueError, RecursionError):
                found = _NOTHING
        if found is _NOTHING:
            repaired = repair_json(body)
            if repaired is not None and repaired.truncated:
                problem = Problem(line, "truncated_reply", "the reply was cut off", text[:SHOWN])
                return CallBatch((), (problem,))
            if repaired is None:
                return CallBatch((), (Problem(line, "invalid_json", _reason(exc), text[:SHOWN]),))
            found = repaired.value
            warnings = repaired.warnings
    ids = ReplyIds()
    if type(found) is not list:
        return batch(ids.mint([call_of(parse, found, line, ids, warnings)]))
    return batch(
        ids.mint(
            [_item(parse, item, line, index, ids, warnings) for index, item in enumerate(found, 1)]
        )
    )


def _item(
    parse: Parse,
    found: object,
    line: int,
    index: int,
    ids: ReplyIds,
    warnings: tuple[str, ...],
) -> Item:
    """The call of the `index`th object of an array of calls (a problem says which it was)."""
    item = call_of(parse, found, line, ids, warnings)
    if isinstance(item, Problem):
        return item._replace(detail=f"item {index}: {item.detail}")
    return item


_NOTHING: Final = object()

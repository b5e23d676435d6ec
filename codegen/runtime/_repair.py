"""Repair of what models really send instead of JSON: a bounded set of rules, each reported.

Runs only when strict decoding failed. A text with a few local faults (a trailing or missing comma,
an unquoted key) is mended where the JSON decoder stops, a
bounded number of times, at the decoder's own speed; anything else goes through one linear pass
over the text: regular expressions that cannot backtrack find each token, and nothing is ever
scanned twice. It never guesses beyond its rules: text it cannot turn into JSON stays a parse error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

# One token of JSON-like text (whitespace is JSON's four characters: others are not ours to drop).
# Possessive repeats keep no backtracking state, so a long string costs the same per character as
# a short one. Strings and block comments may be left open by a cut-off reply:
# their open forms only match at the very end, so each is tried once and consumes the rest.
_TOKEN: Final = re.compile(
    r"""
      (?P<space>[ \t\n\r]+)
    | (?P<string>"(?:[^"\\]|\\.)*+")
    | (?P<quoted>'(?:[^'\\]|\\.)*+')
    | (?P<smart>[“”„‟](?:[^“”„‟\\]|\\.)*+[“”„‟])
    | (?P<smart_single>[‘’](?:[^‘’\\]|\\.)*+[‘’])
    | (?P<line_comment>//[^\n\r]*)
    | (?P<block_comment>/\*.*?\*/)
    | (?P<open_string>"(?:[^"\\]|\\.)*+\\?\Z)
    | (?P<open_quoted>'(?:[^'\\]|\\.)*+\\?\Z)
    | (?P<open_comment>/\*.*\Z|/\Z)
    | (?P<punct>[{}\[\]:,])
    | (?P<number>-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.]))
    | (?P<open_number>-(?:\d[\d.eE+-]*)?\Z|\d[\d.eE+-]*\Z)
    | (?P<word>[A-Za-z_$][\w$]*)
    """,
    re.VERBOSE | re.DOTALL,
)
# A fence opens with ``` and an optional language; it closes wherever the object ends.
_FENCE_OPEN: Final = re.compile(r"```[\w+-]*")
_FENCE_CLOSE: Final = re.compile(r"\s*```")
_COLON_AHEAD: Final = re.compile(r"[ \t\n\r]*:")
_CONTROL: Final = re.compile(r"[\x00-\x1f]")
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_OPENER: Final = re.compile(r"[{\[]")
_KEY: Final = re.compile(r"[A-Za-z_$][\w$]*(?=[ \t\n\r]*:)")
_PYTHON_LITERALS: Final = {"True": "true", "False": "false", "None": "null"}
_WORDS: Final = ("true", "false", "null", *_PYTHON_LITERALS)
_JSON_WORDS: Final = frozenset({"true", "false", "null"})
_CLOSERS: Final = {"{": "}", "[": "]"}
_STRING_KINDS: Final = frozenset({"string", "quoted", "smart", "smart_single"})
_COMMENT_KINDS: Final = frozenset({"line_comment", "block_comment", "open_comment"})
_OPEN_KINDS: Final = frozenset({"open_string", "open_quoted", "open_number"})
# After these (or at the start) a value is expected, so none can be missing its comma.
_NO_VALUE_BEFORE: Final = frozenset({"", "{", "[", ",", ":"})
# How many faults the decoder-guided pass mends before the linear scan takes over: each costs a
# decode up to the fault, so the pass stays linear, and a text with more faults is the scan's.
_QUICK_FIXES: Final = 8
# The levels of nesting at which the scan takes a valid object or array whole.
_WHOLE_VALUE_DEPTH: Final = 4

# The order codes are reported in: the order the repairs apply.
CODES: Final = (
    "markdown_fence_stripped",
    "json_extracted_from_text",
    "smart_quote_replaced",
    "single_quotes_converted",
    "python_literal_converted",
    "unquoted_key_quoted",
    "control_character_escaped",
    "comment_removed",
    "missing_comma_inserted",
    "trailing_comma_removed",
)


@dataclass(frozen=True, slots=True)
class Repaired:
    """Text that strict JSON decoding accepts, the repairs that made it, and whether input was cut off."""

    text: str
    warnings: tuple[str, ...]
    truncated: bool
    value: object  # the text, decoded


def repair_json(text: str, error: json.JSONDecodeError | None = None) -> Repaired | None:
    """The JSON object in `text` after the repairs its rules allow, or None when there is none.

    `error` is what strict decoding of `text` raised, when the caller has it: the first fault
    is then found without decoding the text once more.
    """
    start = text.find("{")
    if start < 0:
        return None
    quick = _quick(text, start, error)
    if quick is not None:
        return quick
    found: set[str] = set()
    scan = _scan(text, start, found, _Attempts(text))
    if scan.failed >= 0 or not _surroundings_are_text(text[:start], text[scan.end :], found):
        return None
    return _repaired(scan, found)


def _repaired(scan: _Scan, found: set[str]) -> Repaired | None:
    """The scan's tokens as a decoded value (containers left open closed), or None when the
    repaired text is still not JSON."""
    tokens = scan.tokens
    truncated = bool(scan.open) or scan.cut
    if truncated:
        closer = _CLOSERS[tokens[0]]
        # Only the root's complete members are kept: an object or array left open is itself the
        # value the reply was writing when it was cut, so it goes with everything inside it.
        if len(scan.open) > 1:
            del tokens[scan.open[1] :]
        _drop_dangling(tokens)
        tokens.append(closer)
    text = "".join(tokens)
    try:
        value = _json_decode(text)
    except (ValueError, RecursionError):
        return None
    return Repaired(text, tuple(code for code in CODES if code in found), truncated, value)


@dataclass(frozen=True, slots=True)
class Found:
    """A JSON value found in a text: where it starts and ends, and what it took to read it.

    `value` is the decoded value, or None with `reason` saying why there is none (`truncated`,
    `invalid_json`).
    """

    start: int
    end: int
    value: object
    warnings: tuple[str, ...]
    reason: str


def iter_values(text: str, failures: bool = False) -> Iterator[Found]:
    """Every JSON object or array in `text`, one after another, in prose or not, each repaired as
    the rules allow. Linear: after a value, or a place the rules cannot read, the search goes on
    from where it ended, so no character is scanned twice.

    `failures`: a place the rules cannot read is a `Found` too, with the reason `unreadable`,
    from its opener to the fault, for the caller to judge; and an array broken inside one of its
    items (`[{…}, {"a": [1, 2}, {…}]`) gives the items before it as an array of their own."""
    position = 0
    attempts = _Attempts(text)
    while (opener := _OPENER.search(text, position)) is not None:
        start = opener.start()
        try:
            decoded = attempts.decode(start)
        except RecursionError:
            yield Found(start, len(text), None, (), "too_deep")
            return
        if decoded is not None:
            yield Found(start, decoded[1], decoded[0], (), "")
            position = decoded[1]
            continue
        found: set[str] = set()
        scan = _scan(text, start, found, attempts)
        if scan.failed >= 0:
            # The rules cannot read this opener's value: look for another after the fault.
            position = max(scan.failed, start + 1)
            if failures:
                yield from _broken(text, start, scan, found)
            continue
        repaired = _repaired(scan, found)
        if repaired is None:
            yield Found(start, scan.end, None, (), "invalid_json")
        elif repaired.truncated:
            yield Found(start, len(text), None, repaired.warnings, "truncated")
            return
        else:
            yield Found(start, scan.end, repaired.value, repaired.warnings, "")
        position = scan.end


def _broken(text: str, start: int, scan: _Scan, found: set[str]) -> Iterator[Found]:
    """What a scan that failed read: the items of its array before the one broken, as an array,
    then the span from the broken item to the fault as `unreadable`."""
    end = max(scan.failed, start + 1)
    if scan.commas:
        index, at = scan.commas[-1]
        try:
            value = _json_decode("".join(scan.tokens[:index]) + "]")
        except (ValueError, RecursionError):
            value = None
        if type(value) is list:
            codes = tuple(code for code in CODES if code in found)
            yield Found(start, at, value, codes, "")
            space = _SPACE.match(text, at + 1)
            start = space.end() if space is not None else at + 1
    yield Found(start, end, None, (), "unreadable")


def _surroundings_are_text(before: str, after: str, found: set[str]) -> bool:
    """Name what surrounded the object (a Markdown fence, comments, other text); False when that
    is JSON itself — an array around the object, a stray bracket — which no rule lets us drop."""
    fence = _FENCE_OPEN.search(before)
    if fence is not None:
        found.add("markdown_fence_stripped")
        before = before[: fence.start()] + before[fence.end() :]
        closing = _FENCE_CLOSE.match(after)
        after = after[closing.end() :] if closing else after
    position = 0
    while position < len(after):
        match = _TOKEN.match(after, position)
        if match is None or match.lastgroup not in (
            "space",
            "line_comment",
            "block_comment",
            "open_comment",
        ):
            break
        if match.lastgroup != "space":
            found.add("comment_removed")
        position = match.end()
    before, after = before.strip(), after[position:].strip()
    if (
        before.endswith(("[", "]", "{", "}", ","))
        or after.startswith((",", "]", "}"))
        or _OPENER.search(after) is not None
    ):
        # More JSON beside the object (an array around it, another value before or after it,
        # members after its end): which of it was meant is not ours to choose.
        return False
    if before or after:
        found.add("json_extracted_from_text")
    return True


# ---------------------------------------------------------------------------------------------
# A few faults, mended where the decoder stops


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)
_raw_decode: Final = _DECODER.raw_decode
_json_decode: Final = _DECODER.decode


def _quick(text: str, start: int, error: json.JSONDecodeError | None) -> Repaired | None:
    """The object that starts the text once a few local faults are mended where the decoder
    reports them, or None for the scan to decide (other faults, more of them, text around)."""
    if text[:start].strip():
        return None
    found: set[str] = set()
    current = text
    for _ in range(_QUICK_FIXES):
        try:
            if error is not None:
                raise error
            value, end = _raw_decode(current, start)
        except json.JSONDecodeError as exc:
            error = None
            mended = _mend(current, exc, found)
            if mended is None:
                return None
            current = mended
            continue
        except (ValueError, RecursionError):
            return None
        if current[end:].strip():
            return None
        return Repaired(current, tuple(code for code in CODES if code in found), False, value)
    return None


def _mend(text: str, exc: json.JSONDecodeError, found: set[str]) -> str | None:
    """The text with the fault at the decoder's position mended by the scan's own rule, or None."""
    at = exc.pos
    char = text[at : at + 1]
    if exc.msg.startswith("Illegal trailing comma") and char == ",":  # Python 3.13+
        found.add("trailing_comma_removed")
        return text[:at] + text[at + 1 :]
    if exc.msg == "Expecting ',' delimiter" and char and char in '"{[-0123456789':
        found.add("missing_comma_inserted")
        return text[:at] + "," + text[at:]
    if exc.msg in ("Expecting property name enclosed in double quotes", "Expecting value"):
        if char in ("}", "]"):
            comma = len(text[:at].rstrip(" \t\n\r")) - 1
            if comma >= 0 and text[comma] == ",":
                found.add("trailing_comma_removed")
                return text[:comma] + text[comma + 1 :]
            return None
        key = _KEY.match(text, at) if exc.msg.startswith("Expecting property") else None
        if key is not None and key.group() not in _WORDS:
            found.add("unquoted_key_quoted")
            return f'{text[:at]}"{key.group()}"{text[key.end() :]}'
    return None


class _Attempts:
    """Strict decoding of the values that start at given places of one text, for as long as it
    stays linear: a failure costs json the count of the lines before it (for its message), so
    attempts stop once they have cost a few times the text's length, and the scan does the rest."""

    __slots__ = ("_left", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._left = 4 * len(text) + 65536

    def decode(self, start: int) -> tuple[object, int] | None:
        """The value at `start` and where it ends, or None; RecursionError for one too deep."""
        if self._left <= 0:
            return None
        try:
            value, end = _raw_decode(self._text, start)
        except json.JSONDecodeError as exc:
            self._left -= exc.pos + 1
            return None
        except ValueError:
            self._left -= start + 1
            return None
        except RecursionError:
            self._left -= start + 1
            raise
        self._left -= end - start
        return value, end


# ---------------------------------------------------------------------------------------------
# The linear scan


@dataclass(slots=True)
class _Scan:
    tokens: list[str]
    end: int  # where the value ended in the text
    open: list[int]  # the index in `tokens` of each container still open, outermost first
    cut: bool  # the text ended inside a value
    failed: int  # where the text broke a rule we do not repair, or -1
    # The commas between a root array's items: their index in `tokens` and place in the text.
    commas: list[tuple[int, int]]


def _scan(text: str, start: int, found: set[str], attempts: _Attempts) -> _Scan:
    """JSON tokens from `start` to the end of the first value, repaired as the rules allow.

    `failed` is set where the text breaks a rule we do not repair: a bare word, a comma with
    nothing before it, a closing bracket that does not match.
    """
    size = len(text)
    scan = _Scan([], size, [], False, -1, [])
    tokens, opened = scan.tokens, scan.open
    token_at = _TOKEN.match  # bound once: this loop runs once per token of the text
    position = start
    while position < size:
        match = token_at(text, position)
        if match is None:
            scan.failed = position
            return scan
        kind, value = match.lastgroup, match.group()
        begin, position = position, match.end()
        if kind == "space":
            continue
        if kind in _COMMENT_KINDS:
            found.add("comment_removed")
            continue
        if kind in _OPEN_KINDS or (position == size and kind in ("number", "word")):
            # The text ends inside this value (`"cu`, `12` of `125`, `tru`): it is dropped.
            if kind == "word" and not any(word.startswith(value) for word in _WORDS):
                scan.failed = begin
                return scan
            scan.cut = True
            return scan
        last = tokens[-1] if tokens else ""
        in_object = bool(opened) and tokens[opened[-1]] == "{"
        if value in _CLOSERS and last and len(opened) < _WHOLE_VALUE_DEPTH:
            # A valid object or array inside is taken whole, at the decoder's speed: a few
            # faults in a long text cost their own containers only. Tried at the first levels
            # alone, so no character is decoded more than a few times over.
            try:
                decoded = attempts.decode(begin)
            except RecursionError:
                decoded = None
            if decoded is not None:
                end = decoded[1]
                if last not in _NO_VALUE_BEFORE and _ends_value(tokens, in_object):
                    tokens.append(",")
                    found.add("missing_comma_inserted")
                tokens.append(text[begin:end])
                position = end
                continue
        if kind in _STRING_KINDS:
            if in_object and last in ("{", ",") and _CONTROL.search(value) is not None:
                scan.failed = begin
                return scan  # a line break in a key: dropping it or keeping it is a guess
            value = _as_json_string(kind, value, found)
        elif kind == "word":
            if value in _PYTHON_LITERALS:
                value = _PYTHON_LITERALS[value]
                found.add("python_literal_converted")
            elif in_object and _COLON_AHEAD.match(text, position) and _at_key(tokens):
                value = f'"{value}"'
                found.add("unquoted_key_quoted")
            elif value not in _JSON_WORDS:
                scan.failed = begin
                return scan  # a bare word is not ours to interpret
        elif value == "," and last in ("", "{", "[", ","):
            scan.failed = begin
            return scan  # a comma with nothing before it separates nothing
        elif value == "," and len(opened) == 1 and tokens[0] == "[":
            scan.commas.append((len(tokens), begin))
        elif value in ("}", "]"):
            if not opened or _CLOSERS[tokens[opened[-1]]] != value:
                scan.failed = begin
                return scan
            if last == ",":
                tokens.pop()
                found.add("trailing_comma_removed")
            opened.pop()
        if (
            last not in _NO_VALUE_BEFORE
            and value not in (",", ":", "}", "]")
            and _ends_value(tokens, in_object)
        ):
            tokens.append(",")
            found.add("missing_comma_inserted")
        if value in _CLOSERS:
            opened.append(len(tokens))
        tokens.append(value)
        if not opened:
            scan.end = position
            return scan
    return scan


def _at_key(tokens: list[str]) -> bool:
    """Whether an object's next token is a key: after its opening brace, a comma, or a value
    that a missing comma should have followed."""
    return tokens[-1] in ("{", ",") or _ends_value(tokens, True)


def _ends_value(tokens: list[str], in_object: bool) -> bool:
    """Whether the last token completes a value, so another value may not follow it directly."""
    last = tokens[-1]
    if last in ("{", "[", ",", ":"):
        return False
    if last in ("}", "]"):
        return True
    # A string straight after `{` or `,` in an object is a key, still waiting for its colon.
    return not (in_object and last[0] == '"' and len(tokens) > 1 and tokens[-2] in ("{", ","))


def _as_json_string(kind: str | None, token: str, found: set[str]) -> str:
    """A string token as a JSON string: its quotes made straight, raw control characters escaped."""
    if kind == "quoted":
        token = _double_quoted(token[1:-1])
        found.add("single_quotes_converted")
    elif kind in ("smart", "smart_single"):
        token = _double_quoted(token[1:-1])
        found.add("smart_quote_replaced")
    if _CONTROL.search(token) is not None:
        token = _CONTROL.sub(lambda match: _escaped_control(match.group()), token)
        found.add("control_character_escaped")
    return token


def _escaped_control(char: str) -> str:
    return json.dumps(char)[1:-1]


def _double_quoted(inner: str) -> str:
    """A single-quoted string's content as a JSON string: `\\'` needs no escape, `"` does."""
    out: list[str] = []
    escaped = False
    for ch in inner:
        if escaped:
            out.append(ch if ch == "'" else "\\" + ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            out.append('\\"')
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _drop_dangling(tokens: list[str]) -> None:
    """Remove what a cut-off reply left without its value: a comma, a colon and its key, or a key."""
    while len(tokens) > 1:
        last = tokens[-1]
        if last in (",", ":"):
            tokens.pop()
            if last == ":":
                tokens.pop()  # the key of a value that never came
        elif last.startswith('"') and tokens[-2] in ("{", ","):
            tokens.pop()  # a key without its colon
        else:
            break

"""Repair of what models really send instead of JSON: a bounded set of rules, each reported.

Runs only when strict decoding failed, in one linear pass over the text: regular expressions that
cannot backtrack find each token, and nothing is ever scanned twice. It never guesses beyond its
rules: text it cannot turn into one JSON object stays a parse error.
"""

from __future__ import annotations

import re
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
    | (?P<line_comment>//[^\n\r]*)
    | (?P<block_comment>/\*.*?\*/)
    | (?P<open_string>"(?:[^"\\]|\\.)*+\\?\Z)
    | (?P<open_quoted>'(?:[^'\\]|\\.)*+\\?\Z)
    | (?P<open_comment>/\*.*\Z|/\Z)
    | (?P<punct>[{}\[\]:,])
    | (?P<number>-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.]))
    | (?P<open_number>-(?:\d[\d.eE+-]*)?\Z|\d[\d.eE+-]*\Z)
    | (?P<word>[A-Za-z_]\w*)
    """,
    re.VERBOSE | re.DOTALL,
)
# A fence opens with ``` and an optional language; it closes wherever the object ends.
_FENCE_OPEN: Final = re.compile(r"```[\w+-]*")
_FENCE_CLOSE: Final = re.compile(r"\s*```")
_PYTHON_LITERALS: Final = {"True": "true", "False": "false", "None": "null"}
_WORDS: Final = ("true", "false", "null", *_PYTHON_LITERALS)
_JSON_WORDS: Final = frozenset({"true", "false", "null"})
_CLOSERS: Final = {"{": "}", "[": "]"}

# The order codes are reported in: the order the repairs apply.
CODES: Final = (
    "markdown_fence_stripped",
    "json_extracted_from_text",
    "single_quotes_converted",
    "python_literal_converted",
    "comment_removed",
    "trailing_comma_removed",
)


@dataclass(frozen=True, slots=True)
class Repaired:
    """Text that strict JSON decoding accepts, the repairs that made it, and whether input was cut off."""

    text: str
    warnings: tuple[str, ...]
    truncated: bool


def repair_json(text: str) -> Repaired | None:
    """The JSON object in `text` after the repairs its rules allow, or None when there is none."""
    found: set[str] = set()
    start = text.find("{")
    if start < 0:
        return None
    scan = _scan(text, start, found)
    if scan is None or not _surroundings_are_text(text[:start], text[scan.end :], found):
        return None
    tokens = scan.tokens
    truncated = bool(scan.open) or scan.cut
    if truncated:
        # Only the root's complete members are kept: an object or array left open is itself the
        # value the reply was writing when it was cut, so it goes with everything inside it.
        if len(scan.open) > 1:
            del tokens[scan.open[1] :]
        _drop_dangling(tokens)
        tokens.append("}")
    return Repaired("".join(tokens), tuple(code for code in CODES if code in found), truncated)


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
    if before.endswith("[") or after.startswith(("}", "]")):
        return False
    if before or after:
        found.add("json_extracted_from_text")
    return True


@dataclass(slots=True)
class _Scan:
    tokens: list[str]
    end: int  # where the object ended in the text
    open: list[int]  # the index in `tokens` of each container still open, outermost first
    cut: bool  # the text ended inside a value


def _scan(text: str, start: int, found: set[str]) -> _Scan | None:
    """JSON tokens from `start` to the end of the first object, repaired as the rules allow.

    None when the text breaks a rule we do not repair: a bare word, a comma with nothing before
    it, a closing bracket that does not match.
    """
    scan = _Scan([], len(text), [], False)
    tokens, opened = scan.tokens, scan.open
    position = start
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return None
        kind, value = match.lastgroup, match.group()
        position = match.end()
        if kind == "space":
            continue
        if kind in ("line_comment", "block_comment", "open_comment"):
            found.add("comment_removed")
            continue
        if kind in ("open_string", "open_quoted", "open_number") or (
            kind in ("number", "word") and position == len(text)
        ):
            # The text ends inside this value (`"cu`, `12` of `125`, `tru`): it is dropped.
            if kind == "word" and not any(word.startswith(value) for word in _WORDS):
                return None
            scan.cut = True
            return scan
        if kind == "quoted":
            value = _double_quoted(value[1:-1])
            found.add("single_quotes_converted")
        elif kind == "word":
            if value in _PYTHON_LITERALS:
                value = _PYTHON_LITERALS[value]
                found.add("python_literal_converted")
            elif value not in _JSON_WORDS:
                return None  # a bare word is not ours to interpret
        elif value == "," and (not tokens or tokens[-1] in ("{", "[", ",")):
            return None  # a comma with nothing before it separates nothing
        elif value in ("}", "]"):
            if not opened or _CLOSERS[tokens[opened[-1]]] != value:
                return None
            if tokens[-1] == ",":
                tokens.pop()
                found.add("trailing_comma_removed")
            opened.pop()
        if value in _CLOSERS:
            opened.append(len(tokens))
        tokens.append(value)
        if not opened:
            scan.end = position
            return scan
    return scan


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

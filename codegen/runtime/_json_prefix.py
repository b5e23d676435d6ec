"""A JSON text read as it streams: each piece is read once, and at any moment the reader says
whether the text so far is one whole object or array, and what the text so far holds, closed into
a JSON text a parser reads (`closed`).

What the closed text shows only grows: a string still being written is shown as far as it came
(an escape cut short, `"ab\\u00`, is left out until it is whole, and so is the first half of a
surrogate pair until the second comes); a number shows its digits so far; a key whose value has
not begun, a literal half written (`tru`) and a dangling comma are left out; every container
open is closed. Each key once shown stays shown, each string shown is the start of the string it
becomes.

Text that is not JSON (single quotes, comments: what a model streams without a grammar) ends the
reading: `closed` then says None and the caller hands the text to the parser's repair as it is.
"""

from __future__ import annotations

import re
from typing import Final

_SPACE: Final = re.compile(r"[ \t\n\r]*")
_STRING_RUN: Final = re.compile(r'[^"\\]*')
_TOKEN_RUN: Final = re.compile(r"[0-9A-Za-z+\-.]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS: Final = frozenset(("true", "false", "null"))
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES: Final = frozenset('"\\/bfnrt')
_CLOSING: Final = {"{": "}", "[": "]"}

# Where the reader is: what may come next.
_VALUE: Final = 0  # a value (the text's start, after `:`, after `,` in an array)
_FIRST_VALUE: Final = 1  # a value or `]`: after `[`
_KEY: Final = 2  # a key: after `,` in an object
_FIRST_KEY: Final = 3  # a key or `}`: after `{`
_KEY_STRING: Final = 4  # inside a key
_COLON: Final = 5  # after a key
_STRING: Final = 6  # inside a string value
_TOKEN: Final = 7  # inside a number or a literal
_AFTER: Final = 8  # after a value inside a container: `,` or the closing bracket
_DONE: Final = 9  # the text's value is whole: only white space may follow
_LOST: Final = 10  # not JSON this reader follows


class JsonPrefix:
    """The state of one JSON text read so far; `feed` each piece as it comes."""

    __slots__ = (
        "_escape",
        "_escape_at",
        "_hex",
        "_high_at",
        "_kinds",
        "_length",
        "_mode",
        "_safe",
        "_token",
        "_token_at",
    )

    def __init__(self) -> None:
        self._length = 0  # characters read
        self._mode = _VALUE
        self._kinds: list[str] = []  # the containers open, outermost first: `{` or `[`
        self._safe: list[int] = []  # for each, where its last whole member ends
        self._escape = 0  # characters of an escape still to come (-1: the one after `\`)
        self._escape_at = 0  # where that escape began
        self._hex = ""  # the digits of a `\u` escape so far
        self._high_at = -1  # where a `\uD8xx` escape ends a string so far, still unpaired
        self._token: list[str] = []  # a number or literal so far
        self._token_at = 0

    @property
    def complete(self) -> bool:
        """Whether the text is one object or array, closed, with only white space after it."""
        return self._mode == _DONE

    def feed(self, piece: str) -> None:
        """Read the next piece of the text: each character once, runs of string content and
        white space at the regular expression engine's pace."""
        base, end, at = self._length, len(piece), 0
        self._length = base + end
        while at < end and self._mode != _LOST:
            mode = self._mode
            if mode == _STRING or mode == _KEY_STRING:
                if self._escape:
                    self._escaped(piece[at])
                    at += 1
                    continue
                run = _STRING_RUN.match(piece, at).end()  # type: ignore[union-attr]
                if run > at:
                    self._high_at = -1
                    at = run
                    if at == end:
                        return
                if piece[at] == '"':
                    at += 1
                    if mode == _KEY_STRING:
                        self._mode = _COLON
                    else:
                        self._high_at = -1
                        self._whole_value(base + at)
                else:
                    self._escape, self._escape_at = -1, base + at
                    at += 1
            elif mode == _TOKEN:
                run = _TOKEN_RUN.match(piece, at).end()  # type: ignore[union-attr]
                self._token.append(piece[at:run])
                at = run
                if at < end:
                    self._token_ended(base + at)
            elif piece[at] in " \t\n\r":
                at = _SPACE.match(piece, at).end()  # type: ignore[union-attr]
            else:
                self._structural(piece[at], base + at)
                at += 1

    def closed(self, text: str) -> str | None:
        """`text` (all the pieces fed, joined) closed into JSON showing what it holds so far;
        None when the text is not JSON this reader follows."""
        mode = self._mode
        if mode == _LOST:
            return None
        if mode == _DONE or not self._kinds:
            return text  # whole, or nothing but white space so far
        if mode == _STRING:
            if self._high_at >= 0:
                cut = self._high_at
            elif self._escape:
                cut = self._escape_at
            else:
                cut = len(text)
            head = text[:cut] + '"'
        elif mode == _TOKEN:
            token = text[self._token_at :]
            if token not in _LITERALS:
                token = token.rstrip(".eE+-")  # `1.` and `1e-` are `1` so far
            if token in _LITERALS or _NUMBER.fullmatch(token):
                head = text[: self._token_at] + token
            else:
                head = text[: self._safe[-1]]
        else:
            head = text[: self._safe[-1]]
        return head + "".join(_CLOSING[kind] for kind in reversed(self._kinds))

    # -- reading ----------------------------------------------------------------------------

    def _structural(self, char: str, at: int) -> None:
        """A character outside strings and tokens, at offset `at`."""
        mode = self._mode
        if mode == _VALUE or mode == _FIRST_VALUE:
            if char == "{" or char == "[":
                self._kinds.append(char)
                self._safe.append(at + 1)
                self._mode = _FIRST_KEY if char == "{" else _FIRST_VALUE
            elif not self._kinds:
                self._mode = _LOST  # arguments are an object: any other value is not followed
            elif char == '"':
                self._mode, self._high_at = _STRING, -1
            elif char in "-0123456789tfn":
                self._mode, self._token, self._token_at = _TOKEN, [char], at
            elif char == "]" and mode == _FIRST_VALUE:
                self._close(at)
            else:
                self._mode = _LOST
        elif mode == _KEY or mode == _FIRST_KEY:
            if char == '"':
                self._mode, self._high_at = _KEY_STRING, -1
            elif char == "}" and mode == _FIRST_KEY:
                self._close(at)
            else:
                self._mode = _LOST
        elif mode == _COLON:
            self._mode = _VALUE if char == ":" else _LOST
        elif mode == _AFTER:
            kind = self._kinds[-1]
            if char == ",":
                self._mode = _KEY if kind == "{" else _VALUE
            elif char == _CLOSING[kind]:
                self._close(at)
            else:
                self._mode = _LOST
        else:  # text after the whole value
            self._mode = _LOST

    def _close(self, at: int) -> None:
        self._kinds.pop()
        self._safe.pop()
        self._whole_value(at + 1)

    def _whole_value(self, end: int) -> None:
        """A value ended just before offset `end`."""
        if self._kinds:
            self._safe[-1] = end
            self._mode = _AFTER
        else:
            self._mode = _DONE

    def _token_ended(self, end: int) -> None:
        token = "".join(self._token)
        self._token = []
        if token in _LITERALS or _NUMBER.fullmatch(token):
            self._whole_value(end)
        else:
            self._mode = _LOST

    def _escaped(self, char: str) -> None:
        """The next character of an escape in a string."""
        if self._escape == -1:
            if char == "u":
                self._escape, self._hex = 4, ""
            elif char in _SIMPLE_ESCAPES:
                self._escape, self._high_at = 0, -1
            else:
                self._mode = _LOST
            return
        if char not in _HEX:
            self._mode = _LOST
            return
        self._hex += char
        self._escape -= 1
        if not self._escape:
            # A high surrogate waits for its pair: a string ending in it so far is shown
            # without it, so that the character appears whole or not at all.
            high = 0xD800 <= int(self._hex, 16) <= 0xDBFF
            self._high_at = self._escape_at if high else -1

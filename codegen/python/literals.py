"""Catalog data as Python and JSON source text: the only way catalog text reaches generated code."""

from __future__ import annotations

import math
import re


def literal(value: object) -> str:
    """A Python literal that evaluates to `value` (JSON data: None, bool, int, float, str, list, dict).

    `repr` of a str escapes quotes, backslashes and every non-printable character (newlines,
    U+2028, NUL), so the text is one line that cannot end the literal early.
    """
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        # Catalogs cannot hold non-finite numbers (the loader reports them), but the IR is built
        # before that report stops the build, so this must still be valid Python.
        if not math.isfinite(value):
            return f'float("{value!r}")'
        return repr(value).replace("e+", "e")  # as black writes it: 1e16, not 1e+16

    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(str(k))}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _string(text: str) -> str:
    """`repr(text)` in the quotes black prefers: double, unless they need more escapes than single."""
    quoted = repr(text)
    if "'" not in text and '"' not in text:  # most text: only the quotes around it change
        return f'"{quoted[1:-1]}"'
    if quoted.startswith('"') or text.count('"') > text.count("'"):
        return quoted
    return '"' + _REQUOTE.sub(_requote, quoted[1:-1]) + '"'


# An escape sequence (kept whole, so `\\'` is read right) or a double quote.
_REQUOTE = re.compile(r'\\.|"')


def _requote(match: re.Match[str]) -> str:
    return {"\\'": "'", '"': '\\"'}.get(match[0], match[0])


def docstring(text: str, limit: int = 200) -> str:
    """A one-line docstring literal from a catalog description (its first line, shortened).

    Backslashes, double quotes and every non-printable character are escaped, so the text can
    neither close the literal nor start a new line.
    """
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    if len(first) > limit:
        first = first[: limit - 1].rstrip() + "…"
    body = "".join(_escape(ch) for ch in first)
    if body.endswith('\\"'):
        # black pads a docstring that ends in its own quote character with a space, which would
        # change the text: spell that last quote so the source does not end in one.
        body = body[:-2] + "\\x22"
    return '"""' + body + '"""'


def one_line(text: str) -> str:
    """Text for a comment: every non-printable character escaped, so it cannot end the line."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _escape(ch: str) -> str:
    if ch in ('"', "\\"):
        return "\\" + ch
    return ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")

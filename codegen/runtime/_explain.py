"""The parser's codes in words a model can act on: what to fix in a refused call, and what was
changed in one that ran.

Standard library only. The words are the table of codes' (`_codes.CODES`), filled with the
context the parser recorded where it found each problem (`limit` must be at most 50): the bound
broken, the allowed values, the format expected. Nothing reads the schema again. Nothing here
raises: a code the table does not know, or a context its words cannot use, is still said.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable, Sequence
from typing import Any, Final

from ._codes import CODES, read
from ._runtime import Detail

_ENUM_SHOWN: Final = 20


def explain_errors(codes: Iterable[str]) -> str:
    """Each error as what to fix, joined with "; ", once each, in the order of the codes."""
    phrases = dict.fromkeys(words(read(code)) for code in codes)
    return "; ".join(phrases) or "the arguments are not valid"


def explain_warnings(codes: Iterable[str]) -> str | None:
    """The corrections that changed what the model sent, in words (the table's `said`
    warnings); None when there are none. Corrections that keep its meaning (a number sent as
    text, a case variant) are not said."""
    notes: list[str] = []
    for code in codes:
        found = read(code)
        entry = CODES.get(found.code)
        if entry is not None and entry.said:
            notes.append(words(found))
    return "; ".join(dict.fromkeys(notes)) or None


def words(found: Detail) -> str:
    """The detail in words: its code's first message whose needs its context meets."""
    entry = CODES.get(found.code)
    context = found.context
    for needs, text in () if entry is None else entry.messages:
        key, equals, value = needs.partition("=")
        if key == "path":
            fits = bool(found.path)
        else:
            fits = not key or (key in context and (not equals or context[key] == value))
        if fits:
            try:
                return _FORMATTER.vformat(text, (), {**context, "path": found.path})
            except (KeyError, IndexError, ValueError, TypeError, AttributeError):
                break  # a context made by hand that the words cannot use: said plainly below
    level = "error" if entry is None else entry.level
    if found.path:
        return f"`{found.path}` has the {level} `{found.code}`"
    return f"the call has the {level} `{found.code}`"


class _Words(string.Formatter):
    """`str.format` for the table's words: numbers as a person writes them (50, not 50.0), lists
    with commas; `!j` shows allowed values as JSON (one, or "one of" the first twenty), `!c`
    each item as code; a format spec is a unit, made plural by the number (`{n:item}`)."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "j":
            return _choices(value)
        if conversion == "c":
            return ", ".join(f"`{item}`" for item in _items(value))
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec:
            return format_spec if value == 1 else format_spec + "s"
        if isinstance(value, (list, tuple)):
            return ", ".join(map(_shown, value))
        return _shown(value)


_FORMATTER: Final = _Words()


def _items(value: object) -> Sequence[object]:
    return value if isinstance(value, (list, tuple)) else [value]


def _choices(value: object) -> str:
    values = _items(value)
    if len(values) == 1:
        return _json(values[0])
    shown = ", ".join(_json(item) for item in values[:_ENUM_SHOWN])
    more = f", … ({len(values)} values in all)" if len(values) > _ENUM_SHOWN else ""
    return f"one of {shown}{more}"


def _shown(value: object) -> str:
    # 50.0 is said as 50; a bound as large as 1e308 keeps its exponent, not 309 digits.
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)

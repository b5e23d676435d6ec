"""Whether a string is Unicode text, decided once for what codegen reads (catalogs, tool lists,
the text inside a type's spelling): a lone UTF-16 surrogate, which a `\\ud800` escape in JSON,
YAML or TypeScript gives, is not, and no file could hold it. The generated runtime decides the
same for what a model sends, by itself (`runtime/_outbound.py`: generated code imports nothing of
codegen's)."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in `text`, or None when it is Unicode text."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else found.group()


def joined_pairs(text: str) -> str:
    """`text` with each UTF-16 surrogate pair (the two halves `\\ud83d\\ude00` escapes give in
    YAML and Python) joined into its character; a lone surrogate stays."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


NOT_TEXT = "is not Unicode text"

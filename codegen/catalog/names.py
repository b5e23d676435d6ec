"""Turn wire names into Python identifiers: deterministic, collision-checked, wire name kept."""

from __future__ import annotations

import keyword
import re
import unicodedata

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")

# Names a generated dataclass body uses (annotations, defaults). A field of the same name would be
# bound in the class namespace first and shadow them, so such a field takes a trailing `_` too.
SHADOWING = frozenset(
    {"bool", "dataclasses", "date", "datetime", "dict", "float", "int", "list", "object", "str"}
)


def words(name: str) -> list[str]:
    """`memory.search` → [memory, search]; `caseSensitive` → [case, sensitive]; `HTTPServer` → [http, server].

    Accented letters lose their accents (`größe` → [grosse]); other scripts have no
    ASCII spelling and drop out, leaving the caller's fallback.
    """
    ascii_name = (
        unicodedata.normalize("NFKD", name.replace("ß", "ss")).encode("ascii", "ignore").decode()
    )
    return [w.lower() for w in _WORD.findall(ascii_name)]


def snake(name: str, fallback: str = "field") -> str:
    """A lowercase identifier: `Content-Type` → `content_type`, `class` → `class_`, `2fa` → `field_2fa`."""
    ident = "_".join(words(name)) or fallback
    if ident[0].isdigit():
        ident = f"{fallback}_{ident}"
    if not usable(ident):
        ident += "_"
    return ident


def usable(ident: str) -> bool:
    """Whether a name can be a dataclass field as it is: not a keyword, not a name the class uses.

    Soft keywords (`match`, `type`) are ordinary names, and which words are soft keywords changes
    between Python versions: output must not.
    """
    return not (keyword.iskeyword(ident) or ident in SHADOWING)


def pascal(name: str, fallback: str = "Item") -> str:
    """A class name: `memory.search` → `MemorySearch`, `retry_policy` → `RetryPolicy`."""
    ident = "".join(w.capitalize() for w in words(name)) or fallback
    return f"{fallback}{ident}" if ident[0].isdigit() else ident

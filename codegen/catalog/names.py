"""Turn wire names into Python identifiers: deterministic, collision-checked, wire name kept."""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")

# Names a generated dataclass body uses (annotations, defaults). A field of the same name would be
# bound in the class namespace first and shadow them, so such a field takes a trailing `_` too.
SHADOWING = frozenset(
    {
        "bool",
        "dataclasses",
        "date",
        "datetime",
        "dict",
        "float",
        "int",
        "list",
        "object",
        "str",
    }
)


# A catalog's names recur in every stage that names (a tool's parts, once for each class and
# table named after them): each is split once.
@lru_cache(maxsize=65536)
def words(name: str) -> tuple[str, ...]:
    """`memory.search` → (memory, search); `caseSensitive` → (case, sensitive); `HTTPServer` → (http, server).

    Accented letters lose their accents (`größe` → (grosse,)); other scripts have no
    ASCII spelling and drop out, leaving the caller's fallback.
    """
    ascii_name = (
        unicodedata.normalize("NFKD", name.replace("ß", "ss")).encode("ascii", "ignore").decode()
    )
    return tuple(w.lower() for w in _WORD.findall(ascii_name))


def snake(name: str, fallback: str = "field") -> str:
    """A lowercase identifier: `Content-Type` → `content_type`, `class` → `class_`, `2fa` → `field_2fa`."""
    return identifier(snake_base(name, fallback))


def snake_base(name: str, fallback: str = "field") -> str:
    """`snake`'s name before a keyword takes its `_`: the base that suffixes go on."""
    ident = "_".join(words(name)) or fallback
    return f"{fallback}_{ident}" if ident[0].isdigit() else ident


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


def identifier(base: str, n: int = 1) -> str:
    """The `n`-th identifier a snake_case `base` may take: itself (a keyword or a name the class
    uses takes `_` once: `class_`), then `base_2`, `base_3`; never `class__2`."""
    if n > 1:
        return f"{base}_{n}"
    return base if usable(base) else f"{base}_"


def class_stem(base: str, n: int = 1) -> str:
    """The `n`-th stem a CapWords `base` may take: itself, then `Base2`, `Base3` (CapWords has no
    underscores, and the stem follows its tool's module: `todo_add_2` → `TodoAdd2Args`).
    """
    return base if n == 1 else f"{base}{n}"


Owner = TypeVar("Owner", bound=Hashable)


@dataclass(frozen=True)
class Claim(Generic[Owner]):
    """A name wanted: by whom, the names it holds at each suffix, and how strong its claim is."""

    owner: Owner  # a tool's index, a parameter's wire name, a provider's tool
    variants: Callable[[int], tuple[str, ...]]  # the names held at suffix n (1: as wanted)
    pinned: bool = False  # chosen by the catalog's author (`x-python-name`)
    exact: bool = False  # the wire name already is the identifier


@dataclass(frozen=True)
class Rename(Generic[Owner]):
    """A claim that could not have its name, and what it got instead."""

    owner: Owner
    wanted: str
    given: str
    holder: Owner  # the owner that holds `wanted`
    pinned: bool  # the claim was pinned, so the author must choose another name


def resolve(
    claims: Sequence[Claim[Owner]], held: Mapping[str, Owner] | None = None
) -> tuple[dict[Owner, tuple[str, ...]], list[Rename[Owner]]]:
    """Every claim's names, distinct, deterministic: the one rule for every kind of name.

    Pinned names win, then wire names that already are the identifier, then the rest, each in
    the order given; a claim whose names are held takes suffix 2, 3, … — the first whose names
    are neither held nor wanted as they are by a claim still to come (`t.1` must not take
    `t_12`'s name). `held` names are already owned (a wire name, a name the module binds); an
    owner may hold the same name through several claims (one tool's alias for several providers).
    """
    holder: dict[str, Owner] = dict(held or {})
    order = sorted(range(len(claims)), key=lambda i: (not claims[i].pinned, not claims[i].exact))
    wanted_as_is: dict[str, Owner] = {}
    for claim in claims:
        for name in claim.variants(1):
            wanted_as_is.setdefault(name, claim.owner)
    given: dict[Owner, tuple[str, ...]] = {}
    renames: list[Rename[Owner]] = []

    def free(names: tuple[str, ...], owner: Owner, suffixed: bool) -> bool:
        return all(
            holder.get(name, owner) == owner
            and (not suffixed or wanted_as_is.get(name, owner) == owner)
            for name in names
        )

    for i in order:
        claim = claims[i]
        names = claim.variants(1)
        n = 1
        while not free(names, claim.owner, n > 1):
            n += 1
            names = claim.variants(n)
        if n > 1:
            first = claim.variants(1)
            taken = next(name for name in first if holder.get(name, claim.owner) != claim.owner)
            renames.append(Rename(claim.owner, first[0], names[0], holder[taken], claim.pinned))
        for name in names:
            holder[name] = claim.owner
        given[claim.owner] = names
    return given, renames

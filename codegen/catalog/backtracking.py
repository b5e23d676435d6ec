"""Patterns on which Python's `re` (a backtracking matcher, which the generated parser uses) can
take time exponential in a value's length, or a high power of it: the build's check (CG110).

The rule, read on `re`'s own parse tree. A repeat `X{lo,hi}` is ambiguous when its rounds can
divide one text in more than one way, which a value that almost matches makes the matcher try
all of:
1. a round can match nothing (`(a?){25}`, `(a*)*`);
2. two alternatives of X can start with the same character, or both match nothing (`(a|a)*`,
   `(\\w|\\d)+`);
3. a part of X whose length varies (a repeat with lo < hi, alternatives of different lengths)
   can match a character that what follows it can start with: the rest of the round, or the next
   round when the rest can match nothing (`(a+)+`, `(a|aa)+`, `(.*a){20}`, `(\\w+\\s?)*`,
   `(([a-z])+.)+`).
An ambiguous repeat is reported when its rounds multiply to more than a value can bear: rounds
without bound (time exponential in the length), at least POWER rounds of a part without bound
(the length to that power: `(.*a){20}`), or at least ROUNDS rounds of bounded choices (2 to
that power at least: `(a?){25}`). Repeats at any depth are checked, inside groups, alternatives
and lookarounds. A possessive repeat or an atomic group never gives back what it matched: it
divides nothing and is left alone. The check is conservative: an ambiguity it reports may be one
no text reaches (`(a|ab)*`); a pattern it passes has no repeat of many rounds that divides a
text two ways, though two repeats side by side at the top (`\\d+\\d+`) still cost a power of the
length up to their count.
"""

from __future__ import annotations

import math
import re
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

# Characters each class is tried on: every one of Latin-1, and a few beyond it.
_SAMPLE = [chr(i) for i in range(256)] + ["\u0100", "\u2028", "\u4e2d", "\U0001f600"]
_CATEGORIES = {
    name: re.compile(pattern)
    for name, pattern in (
        (c.CATEGORY_DIGIT, r"\d"),
        (c.CATEGORY_NOT_DIGIT, r"\D"),
        (c.CATEGORY_SPACE, r"\s"),
        (c.CATEGORY_NOT_SPACE, r"\S"),
        (c.CATEGORY_WORD, r"\w"),
        (c.CATEGORY_NOT_WORD, r"\W"),
    )
}
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT)
_ZERO_WIDTH = (c.AT, c.ASSERT, c.ASSERT_NOT)
_NEVER_GIVE_BACK = (c.ATOMIC_GROUP, c.POSSESSIVE_REPEAT)
_ATOMS = (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN, c.CATEGORY)
UNBOUNDED = math.inf

# Rounds of an ambiguous part without bound from which the time is the length to that power.
POWER = 3
# Rounds of an ambiguous part with bounded choices from which the time is 2 to that power.
ROUNDS = 10

Item = tuple[Any, Any]

BACKTRACKING_WARNING = (
    "pattern {pattern} repeats a part that can divide a value in more than one way (like "
    "`(a+)+`, `(a|aa)*` or `(.*a){{20}}`): Python's `re`, which the parser runs, can take "
    "exponential time on a value that almost matches; write it so that each character has one "
    "place, or with a possessive quantifier (`a++`) or an atomic group (`(?>...)`)"
)


def exponential_shape(pattern: str) -> bool:
    """Whether `pattern` (a valid regular expression) has a repeat the rule above reports."""
    try:
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    try:
        return _any_reported(list(parsed))
    except RecursionError:  # nesting too deep to read: reported, since it is not proved bounded
        return True


def _any_reported(items: list[Item]) -> bool:
    for op, av in items:
        if op in _REPEATS:
            _, high, body = av
            if _reported(high, _flat(list(body))) or _any_reported(list(body)):
                return True
        elif any(_any_reported(inner) for inner in _children(op, av)):
            return True
    return False


def _children(op: Any, av: Any) -> list[list[Item]]:
    """The sequences directly inside an item that is not a repeat."""
    if op == c.SUBPATTERN:
        return [list(av[3])]
    if op == c.BRANCH:
        return [list(alternative) for alternative in av[1]]
    if op in (c.ASSERT, c.ASSERT_NOT):
        return [list(av[1])]
    if op == c.ATOMIC_GROUP:
        return [list(av)]
    if op == c.POSSESSIVE_REPEAT:
        return [list(av[2])]
    if op == c.GROUPREF_EXISTS:
        return [list(branch) for branch in av[1:] if branch is not None]
    return []


def _reported(rounds: int, body: list[Item]) -> bool:
    """Whether a repeat of `body` up to `rounds` times is ambiguous and multiplies too far."""
    if rounds < 2:
        return False
    ambiguous = _ambiguity(body)
    if ambiguous is None:
        return False
    if rounds == c.MAXREPEAT:
        return True
    return rounds >= ROUNDS or (ambiguous == UNBOUNDED and rounds >= POWER)


def _ambiguity(body: list[Item]) -> float | None:
    """None when the rounds of `body` divide a text one way only; else the most ways one round's
    part can take (UNBOUNDED when that part has no upper bound on its length)."""
    found = 2 if _sequence_nullable(body) or _ambiguous_branch(body) else None
    shifting = _shifting(body, _first(body))
    return found if shifting is None else max(found or 0, shifting)


def _shifting(items: list[Item], after: frozenset[str]) -> float | None:
    """The most ways a part of `items` whose length varies can end where what follows it (the
    rest of `items`, then `after`) could start instead (rule 3); None when none can."""
    found: float | None = None
    follow = after  # what can start after the item, read from the last item back: one pass
    for item in reversed(items):
        op, av = item
        ways: float | None = None
        if op == c.BRANCH:
            # Alternatives that start apart divide nothing by their lengths; each is read on its
            # own, and one that can match nothing lets the others' text go to what follows.
            alternatives = [_flat(list(alternative)) for alternative in av[1]]
            for alternative in alternatives:
                inner = _shifting(alternative, follow)
                ways = inner if ways is None or (inner is not None and inner > ways) else ways
            if any(map(_sequence_nullable, alternatives)):
                taken = frozenset().union(*map(_sequence_alphabet, alternatives))
                if taken & follow:
                    ways = max(ways or 0, 2)
        elif op not in _NEVER_GIVE_BACK:
            low, high = _width(item)
            if low != high and _alphabet(item) & follow:
                ways = UNBOUNDED if high == UNBOUNDED else high - low + 1
        if ways is not None:
            found = max(found or 0, ways)
        follow = _item_first(item) | (follow if _nullable(item) else frozenset())
    return found


def _ambiguous_branch(body: list[Item]) -> bool:
    for op, av in body:
        if op != c.BRANCH:
            continue
        alternatives = [_flat(list(alternative)) for alternative in av[1]]
        for i, one in enumerate(alternatives):
            for other in alternatives[i + 1 :]:
                if _first(one) & _first(other):
                    return True
                if _sequence_nullable(one) and _sequence_nullable(other):
                    return True
    return False


def _flat(items: list[Item]) -> list[Item]:
    """A sequence with its plain groups opened: `((a+))` is `a+`."""
    out: list[Item] = []
    for op, av in items:
        if op == c.SUBPATTERN:
            out.extend(_flat(list(av[3])))
        else:
            out.append((op, av))
    return out


def _width(item: Item) -> tuple[float, float]:
    """The least and the most characters an item matches (UNBOUNDED for no most)."""
    op, av = item
    if op in _ATOMS:
        return 1, 1
    if op in _ZERO_WIDTH:
        return 0, 0
    if op in _REPEATS or op == c.POSSESSIVE_REPEAT:
        low, high, body = av
        inner_low, inner_high = _sequence_width(list(body))
        most = UNBOUNDED if high == c.MAXREPEAT else high * inner_high
        return low * inner_low, (0 if inner_high == 0 else most)
    if op == c.SUBPATTERN:
        return _sequence_width(list(av[3]))
    if op == c.ATOMIC_GROUP:
        return _sequence_width(list(av))
    if op == c.BRANCH:
        widths = [_sequence_width(list(alternative)) for alternative in av[1]]
        return min(w[0] for w in widths), max(w[1] for w in widths)
    return 0, UNBOUNDED  # a back reference, a conditional: anything, to be safe


def _sequence_width(items: list[Item]) -> tuple[float, float]:
    widths = [_width(item) for item in items]
    return sum(w[0] for w in widths), sum(w[1] for w in widths)


def _first(items: list[Item]) -> frozenset[str]:
    """The sample characters a match of the sequence can start with."""
    found: set[str] = set()
    for item in items:
        found |= _item_first(item)
        if not _nullable(item):
            break
    return frozenset(found)


def _item_first(item: Item) -> frozenset[str]:
    op, av = item
    if op in _REPEATS:
        return _first(_flat(list(av[2])))
    if op == c.SUBPATTERN:
        return _first(_flat(list(av[3])))
    if op == c.BRANCH:
        return frozenset().union(*(_first(_flat(list(a))) for a in av[1]))
    if op in _NEVER_GIVE_BACK:
        return frozenset()  # never backtracks into: it takes no part in an ambiguity
    if op in _ZERO_WIDTH:
        return frozenset()
    return _atom_characters(op, av)


def _alphabet(item: Item) -> frozenset[str]:
    """The sample characters an item can match anywhere in its match."""
    op, av = item
    if op in _ATOMS:
        return _atom_characters(op, av)
    if op in _REPEATS:
        return _sequence_alphabet(list(av[2]))
    if op == c.SUBPATTERN:
        return _sequence_alphabet(list(av[3]))
    if op == c.BRANCH:
        return frozenset().union(*(_sequence_alphabet(list(a)) for a in av[1]))
    if op in _NEVER_GIVE_BACK or op in _ZERO_WIDTH:
        return frozenset()
    return frozenset(_SAMPLE)  # a back reference, a conditional: anything, to be safe


def _sequence_alphabet(items: list[Item]) -> frozenset[str]:
    return frozenset().union(*(_alphabet(item) for item in items))


def _atom_characters(op: Any, av: Any) -> frozenset[str]:
    if op == c.LITERAL:  # the most common atom, said at once
        return frozenset(chr(av))
    # A class is tried on every sample character once: a pattern repeats its classes.
    return _class_characters(op, repr(av), av)


_CLASSES: dict[tuple[Any, str], frozenset[str]] = {}


def _class_characters(op: Any, key: str, av: Any) -> frozenset[str]:
    found = _CLASSES.get((op, key))
    if found is None:
        found = _CLASSES[op, key] = frozenset(ch for ch in _SAMPLE if _matches(op, av, ch))
    return found


def _matches(op: Any, av: Any, ch: str) -> bool:
    if op == c.LITERAL:
        return ord(ch) == av
    if op == c.NOT_LITERAL:
        return ord(ch) != av
    if op == c.ANY:
        return True
    if op == c.CATEGORY:
        return bool(_CATEGORIES.get(av, re.compile(".")).match(ch))
    if op == c.IN:
        negate = bool(av) and av[0][0] == c.NEGATE
        members = av[1:] if negate else av
        inside = any(
            (kind == c.LITERAL and ord(ch) == value)
            or (kind == c.RANGE and value[0] <= ord(ch) <= value[1])
            or (kind == c.CATEGORY and _matches(c.CATEGORY, value, ch))
            for kind, value in members
        )
        return inside != negate
    return True  # a back reference or what else: anything, to be safe


def _nullable(item: Item) -> bool:
    op, av = item
    if op in _REPEATS or op == c.POSSESSIVE_REPEAT:
        return av[0] == 0 or _sequence_nullable(list(av[2]))
    if op == c.SUBPATTERN:
        return _sequence_nullable(list(av[3]))
    if op == c.ATOMIC_GROUP:
        return _sequence_nullable(list(av))
    if op == c.BRANCH:
        return any(_sequence_nullable(list(a)) for a in av[1])
    return op in _ZERO_WIDTH or op == c.GROUPREF_EXISTS


def _sequence_nullable(items: list[Item]) -> bool:
    return all(_nullable(item) for item in items)

"""Patterns on which Python's `re` (a backtracking matcher, which the generated parser uses) can
take exponential time: a heuristic for a build warning, not a proof either way.

Two shapes are found inside a repeat without bound (`*`, `+`, `{n,}`), where a value that almost
matches makes the matcher try every way of cutting it:
- a nested quantifier whose characters can also start the next round of the outer one, with only
  optional items after it (`(a+)+`, `(\\w+\\s?)*`, `((ab)+)+`);
- alternatives that can start with the same character, or that both match nothing (`(a|a)*`,
  `(\\w|\\d)+`).
A possessive repeat or an atomic group never backtracks, and is left alone.
"""

from __future__ import annotations

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
_ZERO_WIDTH = (c.AT, c.ASSERT, c.ASSERT_NOT, c.GROUPREF_EXISTS)

Item = tuple[Any, Any]

BACKTRACKING_WARNING = (
    "pattern {pattern!r} nests quantifiers (like `(a+)+` or `(a|a)*`): Python's `re`, which the "
    "parser runs, can take exponential time on a value that almost matches; write it without "
    "the nesting, or with a possessive quantifier (`a++`) or an atomic group (`(?>...)`)"
)


def exponential_shape(pattern: str) -> bool:
    """Whether `pattern` (a valid regular expression) has one of the shapes above."""
    try:
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return _any_shape(list(parsed))


def _any_shape(items: list[Item]) -> bool:
    for op, av in items:
        if op in _REPEATS:
            _, high, body = av
            body = _flat(list(body))
            if high == c.MAXREPEAT and (_nested(body) or _ambiguous_branch(body)):
                return True
            if _any_shape(body):
                return True
        elif op == c.SUBPATTERN:
            if _any_shape(list(av[3])):
                return True
        elif op == c.BRANCH and any(_any_shape(list(a)) for a in av[1]):
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


def _nested(body: list[Item]) -> bool:
    start = _first(body)
    for index, (op, av) in enumerate(body):
        if op in _REPEATS:
            low, high, inner = av
            varies = high == c.MAXREPEAT or high > low
            rest_optional = all(_nullable(item) for item in body[index + 1 :])
            if varies and rest_optional and _first(_flat(list(inner))) & start:
                return True
    return False


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
    if op in (c.ATOMIC_GROUP, c.POSSESSIVE_REPEAT):
        return frozenset()  # never backtracks into: it takes no part in an ambiguity
    if op in _ZERO_WIDTH:
        return frozenset()
    return frozenset(ch for ch in _SAMPLE if _matches(op, av, ch))


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
    return op in _ZERO_WIDTH


def _sequence_nullable(items: list[Item]) -> bool:
    return all(_nullable(item) for item in items)

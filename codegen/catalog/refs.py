"""Resolve local `$ref`s and merge `allOf` inside one tool's parameters schema."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from codegen.diagnostics import JsonPath, quoted
from codegen.vocabulary import ANNOTATIONS, limits


class RefError(Exception):
    def __init__(self, path: JsonPath, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def ref_target(root: dict[str, Any], ref: str, path: JsonPath) -> tuple[str, dict[str, Any] | bool]:
    """The schema a local reference (`#/$defs/Name`, `#/definitions/Name`) points at, and its name."""
    if ref == "#":
        return "", root
    if not ref.startswith("#/"):
        raise RefError(path, f"$ref {quoted(ref)} is not a local reference (#/$defs/...)")
    node: Any = root
    # A pointer in a URI fragment is percent-encoded first (RFC 6901, section 6).
    parts = [unquote(p).replace("~1", "/").replace("~0", "~") for p in ref[2:].split("/")]
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise RefError(path, f"$ref {quoted(ref)} does not resolve")
    if not isinstance(node, (dict, bool)):
        raise RefError(path, f"$ref {quoted(ref)} does not point at a schema")
    return parts[-1], node


_LOWER = limits("lower")
_UPPER = limits("upper")
# Products of two `anyOf`/`oneOf` lists beyond this many members are not written out.
MAX_PRODUCT = 64

Schema = dict[str, Any] | bool


def merge_all_of(
    schema: dict[str, Any], members: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """One schema that takes exactly what `schema` and all its `allOf` members take, and what
    could not be merged, in words (the caller warns)."""
    merged: dict[str, Any] = {}
    notes: list[str] = []
    for part in [*members, {k: v for k, v in schema.items() if k != "allOf"}]:
        merged, more = conjoin(merged, part)
        notes += [note for note in more if note not in notes]
    return merged, notes


def conjoin(first: dict[str, Any], second: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One schema that a value satisfies when it satisfies both (JSON Schema's `allOf` of two),
    keyword by keyword, and what cannot be written as one schema, in words."""
    merged = dict(first)
    notes = _extra_properties(first, second) + _extra_properties(second, first)
    unmerged: list[str] = []
    for word, value in second.items():
        if word not in merged or word in ANNOTATIONS:
            merged[word] = value  # of annotations, the later one (the schema's own) describes it
            continue
        mine = merged[word]
        if _same(mine, value):
            continue
        if word in _LOWER and _numbers(mine, value):
            merged[word] = max(mine, value)
        elif word in _UPPER and _numbers(mine, value):
            merged[word] = min(mine, value)
        elif word == "type":
            merged[word] = _common_types(mine, value)
        elif word == "required" and isinstance(mine, list) and isinstance(value, list):
            merged[word] = [*mine, *(name for name in value if name not in mine)]
        elif word in ("properties", "$defs", "definitions") and _dicts(mine, value):
            merged[word] = {
                **mine,
                **{k: both(mine[k], v) if k in mine else v for k, v in value.items()},
            }
        elif word in ("items", "additionalProperties"):
            merged[word] = both(mine, value)
        elif word == "enum" and isinstance(mine, list) and isinstance(value, list):
            merged[word] = [a for a in mine if any(_same(a, b) for b in value)]
        elif word == "pattern" and isinstance(mine, str) and isinstance(value, str):
            merged[word] = _both_patterns(mine, value)
        elif (
            word in ("anyOf", "oneOf")
            and _lists(mine, value)
            and len(mine) * len(value) <= MAX_PRODUCT
        ):
            # (a1 or a2) and (b1 or b2) is the union of the pairs; for oneOf, exactly one pair
            # matches when exactly one of each side does.
            merged[word] = [both(a, b) for a in mine for b in value]
        elif word == "allOf" and _lists(mine, value):
            merged[word] = [*mine, *value]
        else:
            unmerged.append(word)
    if notes:
        merged["properties"] = {
            name: _limited(name, schema, first, second)
            for name, schema in merged["properties"].items()
        }
    notes += [
        f"keyword {quoted(word)} differs between the schemas merged here: only the first is enforced"
        for word in unmerged
    ]
    return merged, [note for note in notes if note]


def _extra_properties(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """Whether `first`'s additionalProperties applies to properties that only `second` declares
    (it does: each part of an allOf judges the names it does not declare itself)."""
    extra = first.get("additionalProperties")
    if extra is None or extra is True or not isinstance(second.get("properties"), dict):
        return []
    declared = first.get("properties", {})
    names = [name for name in second["properties"] if name not in declared]
    if extra is False and names:
        listed = ", ".join(quoted(name) for name in names)
        message = (
            f"additionalProperties: false in one part forbids {listed}, which another part "
            "declares: read as declared (JSON Schema would refuse any value there)"
        )
        return [message]
    return [""] if names else []


def _limited(name: str, schema: Any, first: dict[str, Any], second: dict[str, Any]) -> Any:
    """A property's schema with the additionalProperties of a part that does not declare it."""
    for part in (first, second):
        extra = part.get("additionalProperties")
        if isinstance(extra, dict) and name not in part.get("properties", {}):
            schema = both(schema, extra)
    return schema


def both(first: Schema, second: Schema) -> Schema:
    """The schema of values that satisfy both, merged later by whoever reads it."""
    if first is True or first == {}:
        return second
    if second is True or second == {}:
        return first
    if first is False or second is False:
        return False
    return {"allOf": [first, second]}


def _common_types(first: object, second: object) -> list[str]:
    """The types both lists allow, in the first's order (an integer is a number too)."""
    mine = [first] if isinstance(first, str) else list(first) if isinstance(first, list) else []
    theirs = (
        [second] if isinstance(second, str) else list(second) if isinstance(second, list) else []
    )
    common = [t for t in mine if t in theirs or (t == "integer" and "number" in theirs)]
    if "number" in mine and "integer" in theirs and "integer" not in common:
        common.append("integer")
    return common


def _both_patterns(first: str, second: str) -> str:
    # `search` finds each somewhere: two lookaheads from the start find both. `^` inside still
    # means the start, since `.*?` may take nothing.
    combined = f"^(?=[\\s\\S]*?(?:{first}))(?=[\\s\\S]*?(?:{second}))"
    try:
        re.compile(combined)
    except re.error:
        return first  # a pattern with global flags or an error: the first is checked as it is
    return combined


def _same(first: object, second: object) -> bool:
    """JSON equality: 1 equals 1.0, but true is not 1."""
    if isinstance(first, bool) or isinstance(second, bool):
        return type(first) is type(second) and first == second
    if isinstance(first, (int, float)) and isinstance(second, (int, float)):
        return first == second
    if isinstance(first, list) and isinstance(second, list):
        return len(first) == len(second) and all(map(_same, first, second))
    if isinstance(first, dict) and isinstance(second, dict):
        return first.keys() == second.keys() and all(_same(first[k], second[k]) for k in first)
    return type(first) is type(second) and first == second


def _numbers(*values: object) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _dicts(*values: object) -> bool:
    return all(isinstance(v, dict) for v in values)


def _lists(*values: object) -> bool:
    return all(isinstance(v, list) for v in values)

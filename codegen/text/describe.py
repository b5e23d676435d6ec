"""What the text back ends (prompts, docs) say about a parameter, computed from the IR alone.

Types as JSON names, constraints in a few words, the lenient coercions that apply, and a sample
value that the generated parser takes as sent (no warning, no error), so that an example call
written into a prompt or the docs is one the parser accepts without a word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from codegen.catalog.ir import Tool
from codegen.catalog.kinds import (
    AnyKind,
    ArrayKind,
    BooleanKind,
    DateKind,
    DateTimeKind,
    EnumKind,
    Field,
    IntegerKind,
    JsonChoiceKind,
    Kind,
    MapKind,
    NullKind,
    NumberKind,
    ObjectKind,
    StringKind,
    UnionKind,
    UriKind,
)
from codegen.runtime._runtime import is_absolute_uri


def json_text(value: object) -> str:
    """A value as one line of JSON: every character that is not printable written as an escape, so
    no line break of any kind (U+2028 included) can reach the text it goes into."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)


_NAMES = {bool: "boolean", str: "string", int: "integer", float: "number"}


def type_text(kind: Kind, enums: bool = True) -> str:
    """The type as JSON names: `integer`, `array of string`, `"a" | "b"`, `string | null`.

    With `enums=False`, an enum is named by the type of its values (the docs list them apart)."""
    text = _base_type(kind, enums)
    if kind.nullable and not isinstance(kind, (NullKind, AnyKind)):
        return f"{text} | null"
    return text


def _base_type(kind: Kind, enums: bool) -> str:
    if isinstance(kind, (EnumKind, JsonChoiceKind)):
        if enums:
            return " | ".join(json_text(c) for c in kind.choices)
        names = dict.fromkeys(_json_type_name(c) for c in kind.choices)
        return " | ".join(names)
    if isinstance(kind, ArrayKind):
        return f"array of {type_text(kind.items, enums)}" if kind.items else "array"
    if isinstance(kind, MapKind):
        return f"object of {type_text(kind.values, enums)}" if kind.values else "object"
    if isinstance(kind, UnionKind):
        return " | ".join(dict.fromkeys(type_text(m, enums) for m in kind.members))
    for cls, name in _SIMPLE:
        if isinstance(kind, cls):
            return name
    return "any"


_SIMPLE: tuple[tuple[type[Kind], str], ...] = (
    (NullKind, "null"),
    (AnyKind, "any"),
    (BooleanKind, "boolean"),
    (IntegerKind, "integer"),
    (NumberKind, "number"),
    (UriKind, "string (uri)"),
    (DateKind, "string (date)"),
    (DateTimeKind, "string (date-time)"),
    (StringKind, "string"),
    (ObjectKind, "object"),
)


def _json_type_name(value: object) -> str:
    if value is None:
        return "null"
    return _NAMES.get(type(value), "array" if isinstance(value, list) else "object")


def constraints(kind: Kind) -> list[str]:
    """The constraints a value must meet, each in a few words (`1..50`, `length >= 1`)."""
    found: list[str] = []
    if isinstance(kind, (IntegerKind, NumberKind)):
        found += _range(kind.minimum, kind.maximum, kind.exclusive_minimum, kind.exclusive_maximum)
    if isinstance(kind, StringKind):
        found += [f"length {r}" for r in _range(kind.min_length, kind.max_length)]
        if kind.pattern is not None:
            found.append(f"pattern {kind.pattern}")
    if isinstance(kind, ArrayKind):
        found += [f"items {r}" for r in _range(kind.min_items, kind.max_items)]
    if isinstance(kind, MapKind) and kind.required:
        found.append("keys " + ", ".join(kind.required))
    return found


def _range(
    low: float | None,
    high: float | None,
    exclusive_low: float | None = None,
    exclusive_high: float | None = None,
) -> list[str]:
    if low is not None and high is not None:
        return [f"{json_text(low)}..{json_text(high)}"]
    parts = []
    if low is not None:
        parts.append(f">= {json_text(low)}")
    elif exclusive_low is not None:
        parts.append(f"> {json_text(exclusive_low)}")
    if high is not None:
        parts.append(f"<= {json_text(high)}")
    elif exclusive_high is not None:
        parts.append(f"< {json_text(exclusive_high)}")
    return [" and ".join(parts)] if parts else []


def coercions(field: Field) -> list[str]:
    """The warning codes the parser may give a value of this parameter it corrects (SPEC §3)."""
    codes = list(dict.fromkeys(_kind_coercions(field.kind)))
    if field.kind.nullable and field.kind.null_text_is_null and not isinstance(field.kind, AnyKind):
        codes.append("string_literal_converted_to_null")
    if not field.required and not field.kind.nullable:
        codes.append("null_treated_as_absent")
    return codes


def _kind_coercions(kind: Kind) -> Iterator[str]:
    if isinstance(kind, EnumKind):
        types = set(kind.type_names)
        if kind.folded:
            yield "enum_case_normalized"
        if "int" in types:
            yield from ("string_literal_converted_to_integer", "number_coerced_to_integer")
        if "float" in types:
            yield "string_literal_converted_to_number"
        if "str" in types:
            yield "non_string_literal_retained"
    elif isinstance(kind, BooleanKind):
        yield from ("string_literal_converted_to_boolean", "number_coerced_to_boolean")
    elif isinstance(kind, IntegerKind):
        yield from (
            "string_literal_converted_to_integer",
            "number_coerced_to_integer",
            "fractional_number_truncated_to_integer",
        )
    elif isinstance(kind, NumberKind):
        yield "string_literal_converted_to_number"
    elif isinstance(kind, StringKind):
        yield "non_string_literal_retained"
        if isinstance(kind, UriKind):
            yield "uri_not_absolute"
    elif isinstance(kind, ArrayKind):
        yield from ("string_parsed_as_json", "scalar_coerced_to_list")
    elif isinstance(kind, (MapKind, ObjectKind)):
        yield "string_parsed_as_json"
    elif isinstance(kind, UnionKind):
        for member in kind.members:
            yield from _kind_coercions(member)


# ---------------------------------------------------------------------------------------------
# The parameters of a tool, nested ones included, as rows.


@dataclass(frozen=True)
class Row:
    """A parameter as the prompts and docs list it: `path` names nested ones (`files[].path`)."""

    path: str
    field: Field


def rows(obj: ObjectKind, prefix: str = "") -> Iterator[Row]:
    """Every parameter of an object, each followed by the parameters nested in it."""
    for field in obj.fields:
        path = f"{prefix}{field.wire_name}"
        yield Row(path, field)
        yield from _nested(field.kind, path)


def _nested(kind: Kind, path: str) -> Iterator[Row]:
    if isinstance(kind, ObjectKind):
        yield from rows(kind, f"{path}.")
    elif isinstance(kind, ArrayKind) and kind.items is not None:
        yield from _nested(kind.items, f"{path}[]")
    elif isinstance(kind, MapKind) and kind.values is not None:
        yield from _nested(kind.values, f"{path}.*")


# ---------------------------------------------------------------------------------------------
# Sample values: what an example call holds for a parameter.

_NO_SAMPLE = object()


def sample(kind: Kind, field: Field | None = None) -> Any:
    """A value the parser takes as sent for `kind`: the field's first fitting example, else its
    default, else a value made from the kind; `_NO_SAMPLE` when none fits (a pattern, say)."""
    if field is not None:
        for candidate in (*field.examples, *((field.default,) if field.has_default else ())):
            if conforms(kind, candidate):
                return candidate
    made = _made(kind)
    return made if made is not _NO_SAMPLE and conforms(kind, made) else _NO_SAMPLE


def tool_call_sample(tool: Tool) -> dict[str, Any] | None:
    """The arguments of a tool's example call: its first whole-call example, which the build has
    checked parses with no warning, else one made from its parameters' samples (or None)."""
    if tool.examples:
        first: dict[str, Any] = tool.examples[0]
        return first
    return call_sample(tool.args)


def call_sample(obj: ObjectKind) -> dict[str, Any] | None:
    """The arguments of an example call: each required parameter with its sample, or None."""
    values: dict[str, Any] = {}
    for field in obj.fields:
        if field.required:
            value = sample(field.kind, field)
            if value is _NO_SAMPLE:
                return None
            values[field.wire_name] = value
    return values


def _made(kind: Kind) -> Any:
    if isinstance(kind, (EnumKind, JsonChoiceKind)):
        return kind.choices[0] if kind.choices else _NO_SAMPLE
    if isinstance(kind, (NullKind, AnyKind)):
        return None
    if isinstance(kind, BooleanKind):
        return True
    if isinstance(kind, (IntegerKind, NumberKind)):
        return _number(kind)
    if isinstance(kind, UriKind):
        return "https://example.com"
    if isinstance(kind, DateKind):
        return "2025-01-31"
    if isinstance(kind, DateTimeKind):
        return "2025-01-31T09:00:00+00:00"
    if isinstance(kind, StringKind):
        text = "example"
        # Bounds may be written as floats (`maxLength: 2.0`), which JSON Schema allows.
        if kind.min_length is not None and len(text) < kind.min_length:
            text += "x" * (int(kind.min_length) - len(text))
        if kind.max_length is not None:
            text = text[: int(kind.max_length)]
        return text
    if isinstance(kind, ArrayKind):
        if not kind.min_items:
            return []
        item = _NO_SAMPLE if kind.items is None else sample(kind.items)
        return _NO_SAMPLE if item is _NO_SAMPLE else [item] * int(kind.min_items)
    if isinstance(kind, MapKind):
        value = None if kind.values is None else sample(kind.values)
        return _NO_SAMPLE if value is _NO_SAMPLE else {key: value for key in kind.required}
    if isinstance(kind, ObjectKind):
        made = call_sample(kind)
        return _NO_SAMPLE if made is None else made
    if isinstance(kind, UnionKind):
        for member in kind.members:
            value = sample(member)
            if value is not _NO_SAMPLE and conforms(kind, value):
                return value
    return _NO_SAMPLE


def _number(kind: IntegerKind | NumberKind) -> int | float:
    low = kind.minimum
    if low is None and kind.exclusive_minimum is not None:
        low = kind.exclusive_minimum + 1
    high = kind.maximum
    if high is None and kind.exclusive_maximum is not None:
        high = kind.exclusive_maximum - 1
    value = low if low is not None else min(high, 1) if high is not None else 1
    return float(value) if isinstance(kind, NumberKind) else int(value)


def conforms(kind: Kind, value: object) -> bool:
    """Whether the parser takes `value` as sent for `kind`: exactly its type, every constraint met
    (so that no coercion, and hence no warning, applies)."""
    if value is None:
        return kind.nullable or isinstance(kind, (NullKind, AnyKind))
    if isinstance(kind, UnionKind):
        matches = [m for m in kind.members if conforms(m, value)]
        return len(matches) == 1 if kind.exactly_one else bool(matches)
    if isinstance(kind, (EnumKind, JsonChoiceKind)):
        return any(type(c) is type(value) and c == value for c in kind.choices)
    if isinstance(kind, AnyKind):
        return True
    checks = _CHECKS.get(type(kind))
    return checks is not None and checks(kind, value)


def _bounded(kind: IntegerKind | NumberKind, value: object) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    return (
        (kind.minimum is None or value >= kind.minimum)
        and (kind.maximum is None or value <= kind.maximum)
        and (kind.exclusive_minimum is None or value > kind.exclusive_minimum)
        and (kind.exclusive_maximum is None or value < kind.exclusive_maximum)
    )


def _string(kind: StringKind, value: object) -> bool:
    if type(value) is not str:
        return False
    if kind.min_length is not None and len(value) < kind.min_length:
        return False
    if kind.max_length is not None and len(value) > kind.max_length:
        return False
    if kind.pattern is not None:
        try:
            return re.search(kind.pattern, value) is not None
        except re.error:
            return False
    return True


def _iso(parse: Any, value: object) -> bool:
    try:
        parse(value)
    except (TypeError, ValueError):
        return False
    return type(value) is str


def _sized(low: int | None, high: int | None, size: int) -> bool:
    return (low is None or size >= low) and (high is None or size <= high)


def _array(kind: ArrayKind, value: object) -> bool:
    if type(value) is not list or not _sized(kind.min_items, kind.max_items, len(value)):
        return False
    return kind.items is None or all(conforms(kind.items, item) for item in value)


def _map(kind: MapKind, value: object) -> bool:
    if type(value) is not dict or any(key not in value for key in kind.required):
        return False
    return kind.values is None or all(conforms(kind.values, item) for item in value.values())


def _object(kind: ObjectKind, value: object) -> bool:
    if type(value) is not dict:
        return False
    fields = {f.wire_name: f for f in kind.fields}
    if any(f.required and f.wire_name not in value for f in kind.fields):
        return False
    for key, item in value.items():
        field = fields.get(key)
        if field is None:
            if kind.extra is None or not conforms(kind.extra, item):
                return False
        elif not conforms(field.kind, item):
            return False
    return True


_CHECKS: dict[type[Kind], Any] = {
    BooleanKind: lambda kind, value: type(value) is bool,
    IntegerKind: lambda kind, value: type(value) is int and _bounded(kind, value),
    NumberKind: lambda kind, value: type(value) in (int, float) and _bounded(kind, value),
    StringKind: _string,
    UriKind: lambda kind, value: _string(kind, value) and is_absolute_uri(value),
    DateTimeKind: lambda kind, value: _iso(datetime.fromisoformat, value),
    DateKind: lambda kind, value: _iso(date.fromisoformat, value),
    ArrayKind: _array,
    MapKind: _map,
    ObjectKind: _object,
}

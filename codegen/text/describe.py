"""What the text back ends (prompts, docs) say about a parameter, computed from the IR alone.

Types as JSON names, constraints in a few words, the lenient coercions that apply, and a sample
value that the generated parser takes as sent (no warning, no error), so that an example call
written into a prompt or the docs is one the parser accepts without a word.

What is said of each kind is one class here, and `TEXTS` names the class of every kind of the IR
(tests/test_kinds.py fails when one is missing): a new kind is a class and an entry, not a branch
in each function.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

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
    TextFormatKind,
    UnionKind,
)
from codegen.runtime import _runtime as rt
from codegen.vocabulary import FORMATS

K = TypeVar("K", bound=Kind)
C = TypeVar("C", EnumKind, JsonChoiceKind)


def json_text(value: object, compact: bool = False) -> str:
    """A value as one line of JSON: every character that is not printable written as an escape, so
    no line break of any kind (U+2028 included) can reach the text it goes into; `compact` leaves
    out the spaces after `,` and `:` (a prompt pays a token for each)."""
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(value, ensure_ascii=False, default=str, separators=separators)
    if text.isprintable():
        return text  # the common case, tested in C
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)


_NAMES = {bool: "boolean", str: "string", int: "integer", float: "number"}

_NO_SAMPLE = object()


def text_of(kind: Kind) -> KindText[Any]:
    """What the text back ends say about a kind of the IR: its entry in `TEXTS`."""
    return TEXTS[type(kind)]


def type_text(kind: Kind, enums: bool = True) -> str:
    """The type as JSON names: `integer`, `array of string`, `"a" | "b"`, `string | null`.

    With `enums=False`, an enum is named by the type of its values (the docs list them apart)."""
    said = text_of(kind)
    text = said.docs_type(kind, enums)
    if kind.nullable and not said.null_in_name:
        return f"{text} | null"
    return text


# How a prompt joins the members of a union (tokens are paid for: no spaces).
PROMPT_UNION = "|"


def prompt_type(kind: Kind) -> str:
    """The type as a prompt writes it: `string`, `integer[]`, `"a"|"b"`, `object of (string|null)`,
    `uri|null`."""
    said = text_of(kind)
    text = said.prompt_type(kind)
    if kind.nullable and not said.null_in_name:
        return f"{text}{PROMPT_UNION}null"
    return text


def grouped(kind: Kind) -> str:
    """`prompt_type`, in parentheses when it is a union (the element of `T[]`, `object of T`)."""
    text = prompt_type(kind)
    return f"({text})" if PROMPT_UNION in text else text


def _json_type_name(value: object) -> str:
    if value is None:
        return "null"
    return _NAMES.get(type(value), "array" if isinstance(value, list) else "object")


# A constraint as (what it bounds, its values as the catalog wrote them): ("range", (minimum,
# maximum, exclusive minimum, exclusive maximum)), ("length", (min, max)), ("pattern", text),
# ("items", (min, max)), ("keys", names); each text back end writes it its own way.
Limit = tuple[str, Any]


def limits(kind: Kind) -> list[Limit]:
    """The constraints a value must meet, in a fixed order."""
    return text_of(kind).limits(kind)


def constraints(kind: Kind) -> list[str]:
    """The constraints a value must meet, each in a few words (`1..50`, `length >= 1`)."""
    found: list[str] = []
    for word, value in limits(kind):
        if word == "range":
            found += value_range(*value)
        elif word in ("length", "items"):
            found += [f"{word} {r}" for r in value_range(*value)]
        elif word == "pattern":
            found.append(f"pattern {value}")
        else:
            found.append("keys " + ", ".join(value))
    return found


def value_range(
    low: float | None,
    high: float | None,
    exclusive_low: float | None = None,
    exclusive_high: float | None = None,
    *,
    gap: str = " ",
    joiner: str = " and ",
) -> list[str]:
    """`1..5`, or each bound alone (`>= 1 and < 5`); prompts write them tighter (`gap`,
    `joiner`: `>=1 <5`), as each space there is a token."""
    if low is not None and high is not None:
        return [f"{json_text(low)}..{json_text(high)}"]
    parts = []
    if low is not None:
        parts.append(f">={gap}{json_text(low)}")
    elif exclusive_low is not None:
        parts.append(f">{gap}{json_text(exclusive_low)}")
    if high is not None:
        parts.append(f"<={gap}{json_text(high)}")
    elif exclusive_high is not None:
        parts.append(f"<{gap}{json_text(exclusive_high)}")
    return [joiner.join(parts)] if parts else []


def coercions(field: Field) -> list[str]:
    """The warning codes the parser may give a value of this parameter it corrects (SPEC §3)."""
    kind = field.kind
    codes = list(dict.fromkeys(text_of(kind).coercions(kind)))
    if kind.nullable and kind.null_text_is_null and not kind.accepts_anything:
        codes.append("string_literal_converted_to_null")
    if not field.required and not kind.nullable:
        codes.append("null_treated_as_absent")
    return codes


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
    return text_of(kind).nested(kind, path)


def inside(kind: Kind) -> tuple[Kind, str] | None:
    """The kind of the values inside a value of this kind (an array's items, a map's values), and
    the step a path takes to them (`[]`, `.*`); None when there are none of their own."""
    return text_of(kind).inside(kind)


# ---------------------------------------------------------------------------------------------
# Sample values: what an example call holds for a parameter.


def sample(kind: Kind, field: Field | None = None) -> Any:
    """A value the parser takes as sent for `kind`: the field's first fitting example, else its
    default, else a value made from the kind; `_NO_SAMPLE` when none fits (a pattern, say)."""
    if field is not None:
        for candidate in (*field.examples, *((field.default,) if field.has_default else ())):
            if conforms(kind, candidate):
                return candidate
    made = text_of(kind).made(kind)
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


def conforms(kind: Kind, value: object) -> bool:
    """Whether the parser takes `value` as sent for `kind`: exactly its type, every constraint met
    (so that no coercion, and hence no warning, applies)."""
    said = text_of(kind)
    if value is None:
        return kind.nullable or said.null_in_name
    return said.conforms(kind, value)


def _sized(low: int | None, high: int | None, size: int) -> bool:
    return (low is None or size >= low) and (high is None or size <= high)


# ---------------------------------------------------------------------------------------------
# What is said of each kind.


class KindText(Generic[K]):
    """A kind that constrains nothing: the base of the others."""

    # How the docs and a prompt name a kind with no parts (`string (uri)`, `uri`).
    docs_name: ClassVar[str] = "any"
    prompt_name: ClassVar[str] = "any"
    # Whether the name says null already (`null`, `any`), so a nullable one adds no `| null`.
    null_in_name: ClassVar[bool] = False

    def docs_type(self, kind: K, enums: bool) -> str:
        return self.docs_name

    def prompt_type(self, kind: K) -> str:
        return self.prompt_name

    def limits(self, kind: K) -> list[Limit]:
        return []

    def coercions(self, kind: K) -> Iterator[str]:
        """The warning codes the parser may give a value of this kind it corrects."""
        return iter(())

    def inside(self, kind: K) -> tuple[Kind, str] | None:
        """The kind of the values inside a value of this kind, and the step a path takes to them."""
        return None

    def nested(self, kind: K, path: str) -> Iterator[Row]:
        """The parameters nested in a value of this kind, `path` being its own."""
        found = self.inside(kind)
        return iter(()) if found is None else _nested(found[0], path + found[1])

    def made(self, kind: K) -> Any:
        """A sample value made from the kind alone (`sample` checks that it conforms)."""
        return _NO_SAMPLE

    def conforms(self, kind: K, value: object) -> bool:
        """Whether the parser takes `value` (not None) as sent."""
        return False


class AnyText(KindText[AnyKind]):
    null_in_name: ClassVar[bool] = True

    def made(self, kind: AnyKind) -> Any:
        return None

    def conforms(self, kind: AnyKind, value: object) -> bool:
        return True


class NullText(KindText[NullKind]):
    docs_name: ClassVar[str] = "null"
    prompt_name: ClassVar[str] = "null"
    null_in_name: ClassVar[bool] = True

    def made(self, kind: NullKind) -> Any:
        return None


class BooleanText(KindText[BooleanKind]):
    docs_name: ClassVar[str] = "boolean"
    prompt_name: ClassVar[str] = "boolean"

    def coercions(self, kind: BooleanKind) -> Iterator[str]:
        yield from ("string_literal_converted_to_boolean", "number_coerced_to_boolean")

    def made(self, kind: BooleanKind) -> Any:
        return True

    def conforms(self, kind: BooleanKind, value: object) -> bool:
        return type(value) is bool


class _NumberText(KindText[IntegerKind | NumberKind]):
    number_type: ClassVar[type[int | float]] = int

    def limits(self, kind: IntegerKind | NumberKind) -> list[Limit]:
        bounds = (kind.minimum, kind.maximum, kind.exclusive_minimum, kind.exclusive_maximum)
        return [("range", bounds)]

    def made(self, kind: IntegerKind | NumberKind) -> Any:
        low = kind.minimum
        if low is None and kind.exclusive_minimum is not None:
            low = kind.exclusive_minimum + 1
        high = kind.maximum
        if high is None and kind.exclusive_maximum is not None:
            high = kind.exclusive_maximum - 1
        value = low if low is not None else min(high, 1) if high is not None else 1
        return self.number_type(value)

    @staticmethod
    def bounded(kind: IntegerKind | NumberKind, value: object) -> bool:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        return (
            (kind.minimum is None or value >= kind.minimum)
            and (kind.maximum is None or value <= kind.maximum)
            and (kind.exclusive_minimum is None or value > kind.exclusive_minimum)
            and (kind.exclusive_maximum is None or value < kind.exclusive_maximum)
        )


class IntegerText(_NumberText):
    docs_name: ClassVar[str] = "integer"
    prompt_name: ClassVar[str] = "integer"

    def coercions(self, kind: IntegerKind | NumberKind) -> Iterator[str]:
        yield from (
            "string_literal_converted_to_integer",
            "number_coerced_to_integer",
            "fractional_number_truncated_to_integer",
        )

    def conforms(self, kind: IntegerKind | NumberKind, value: object) -> bool:
        return type(value) is int and self.bounded(kind, value)


class NumberText(_NumberText):
    number_type: ClassVar[type[int | float]] = float
    docs_name: ClassVar[str] = "number"
    prompt_name: ClassVar[str] = "number"

    def coercions(self, kind: IntegerKind | NumberKind) -> Iterator[str]:
        yield "string_literal_converted_to_number"

    def conforms(self, kind: IntegerKind | NumberKind, value: object) -> bool:
        return type(value) in (int, float) and self.bounded(kind, value)


class StringText(KindText[StringKind]):
    docs_name: ClassVar[str] = "string"
    prompt_name: ClassVar[str] = "string"

    def limits(self, kind: StringKind) -> list[Limit]:
        found: list[Limit] = [("length", (kind.min_length, kind.max_length))]
        if kind.pattern is not None:
            found.append(("pattern", kind.pattern))
        return found

    def coercions(self, kind: StringKind) -> Iterator[str]:
        yield "non_string_literal_retained"

    def made(self, kind: StringKind) -> Any:
        text = "example"
        # Bounds may be written as floats (`maxLength: 2.0`), which JSON Schema allows.
        if kind.min_length is not None and len(text) < kind.min_length:
            text += "x" * (int(kind.min_length) - len(text))
        if kind.max_length is not None:
            text = text[: int(kind.max_length)]
        return text

    def conforms(self, kind: StringKind, value: object) -> bool:
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


class TextFormatText(StringText):
    """A checked format whose value stays text: named by its format, sampled by its row
    (`vocabulary.FORMATS`), and a value conforms when the runtime's reader of the format takes
    it as sent."""

    def docs_type(self, kind: StringKind, enums: bool) -> str:
        return f"string ({kind.format})"

    def prompt_type(self, kind: StringKind) -> str:
        return str(kind.format)

    def coercions(self, kind: StringKind) -> Iterator[str]:
        yield from super().coercions(kind)
        yield from FORMATS[str(kind.format)].codes

    def made(self, kind: StringKind) -> Any:
        return FORMATS[str(kind.format)].example

    def conforms(self, kind: StringKind, value: object) -> bool:
        return super().conforms(kind, value) and _taken_as_sent(str(kind.format), value)


class DateTimeText(KindText[DateTimeKind]):
    """`date-time` and `date`, as `TextFormatText` says a format, with none of a text's limits."""

    def docs_type(self, kind: DateTimeKind, enums: bool) -> str:
        return f"string ({kind.format})"

    def prompt_type(self, kind: DateTimeKind) -> str:
        return str(kind.format)

    def made(self, kind: DateTimeKind) -> Any:
        return FORMATS[str(kind.format)].example

    def conforms(self, kind: DateTimeKind, value: object) -> bool:
        return type(value) is str and _taken_as_sent(str(kind.format), value)


class DateText(DateTimeText):
    """`format: date`: said as a date-time is (each kind has its own entry in `TEXTS`)."""


def _taken_as_sent(fmt: str, value: object) -> bool:
    """Whether the runtime's reader of format `fmt` (`_runtime.FORMATS`) takes `value` without a
    word."""
    warnings: list[str] = []
    errors: list[str] = []
    rt.FORMATS[fmt](value, "", warnings, errors)
    return not warnings and not errors


class _ChoiceText(KindText[C]):
    def docs_type(self, kind: C, enums: bool) -> str:
        if enums:
            return " | ".join(json_text(c) for c in kind.choices)
        return " | ".join(dict.fromkeys(_json_type_name(c) for c in kind.choices))

    def prompt_type(self, kind: C) -> str:
        return PROMPT_UNION.join(json_text(c, compact=True) for c in kind.choices)

    def made(self, kind: C) -> Any:
        return kind.choices[0] if kind.choices else _NO_SAMPLE

    def conforms(self, kind: C, value: object) -> bool:
        return any(type(c) is type(value) and c == value for c in kind.choices)


class EnumText(_ChoiceText[EnumKind]):
    def coercions(self, kind: EnumKind) -> Iterator[str]:
        types = set(kind.type_names)
        if kind.folded:
            yield "enum_case_normalized"
        if "int" in types:
            yield from ("string_literal_converted_to_integer", "number_coerced_to_integer")
        if "float" in types:
            yield "string_literal_converted_to_number"
        if "str" in types:
            yield "non_string_literal_retained"


class JsonChoiceText(_ChoiceText[JsonChoiceKind]):
    """Nothing is coerced: a value equals a choice as JSON, or it is refused."""


class ArrayText(KindText[ArrayKind]):
    def docs_type(self, kind: ArrayKind, enums: bool) -> str:
        return f"array of {type_text(kind.items, enums)}" if kind.items else "array"

    def prompt_type(self, kind: ArrayKind) -> str:
        return f"{grouped(kind.items)}[]" if kind.items else "any[]"

    def limits(self, kind: ArrayKind) -> list[Limit]:
        return [("items", (kind.min_items, kind.max_items))]

    def coercions(self, kind: ArrayKind) -> Iterator[str]:
        yield from ("string_parsed_as_json", "list_text_repaired", "scalar_coerced_to_list")

    def inside(self, kind: ArrayKind) -> tuple[Kind, str] | None:
        return None if kind.items is None else (kind.items, "[]")

    def made(self, kind: ArrayKind) -> Any:
        if not kind.min_items:
            return []
        item = _NO_SAMPLE if kind.items is None else sample(kind.items)
        return _NO_SAMPLE if item is _NO_SAMPLE else [item] * int(kind.min_items)

    def conforms(self, kind: ArrayKind, value: object) -> bool:
        if type(value) is not list or not _sized(kind.min_items, kind.max_items, len(value)):
            return False
        return kind.items is None or all(conforms(kind.items, item) for item in value)


class MapText(KindText[MapKind]):
    def docs_type(self, kind: MapKind, enums: bool) -> str:
        return f"object of {type_text(kind.values, enums)}" if kind.values else "object"

    def prompt_type(self, kind: MapKind) -> str:
        return f"object of {grouped(kind.values)}" if kind.values else "object"

    def limits(self, kind: MapKind) -> list[Limit]:
        return [("keys", kind.required)] if kind.required else []

    def coercions(self, kind: MapKind) -> Iterator[str]:
        yield "string_parsed_as_json"

    def inside(self, kind: MapKind) -> tuple[Kind, str] | None:
        return None if kind.values is None else (kind.values, ".*")

    def made(self, kind: MapKind) -> Any:
        value = None if kind.values is None else sample(kind.values)
        return _NO_SAMPLE if value is _NO_SAMPLE else {key: value for key in kind.required}

    def conforms(self, kind: MapKind, value: object) -> bool:
        if type(value) is not dict or any(key not in value for key in kind.required):
            return False
        return kind.values is None or all(conforms(kind.values, item) for item in value.values())


class ObjectText(KindText[ObjectKind]):
    docs_name: ClassVar[str] = "object"
    prompt_name: ClassVar[str] = "object"

    def coercions(self, kind: ObjectKind) -> Iterator[str]:
        yield "string_parsed_as_json"

    def nested(self, kind: ObjectKind, path: str) -> Iterator[Row]:
        return rows(kind, f"{path}.")

    def made(self, kind: ObjectKind) -> Any:
        made = call_sample(kind)
        return _NO_SAMPLE if made is None else made

    def conforms(self, kind: ObjectKind, value: object) -> bool:
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


class UnionText(KindText[UnionKind]):
    def docs_type(self, kind: UnionKind, enums: bool) -> str:
        return " | ".join(dict.fromkeys(type_text(m, enums) for m in kind.members))

    def prompt_type(self, kind: UnionKind) -> str:
        return PROMPT_UNION.join(dict.fromkeys(prompt_type(m) for m in kind.members))

    def coercions(self, kind: UnionKind) -> Iterator[str]:
        for member in kind.members:
            yield from text_of(member).coercions(member)

    def made(self, kind: UnionKind) -> Any:
        for member in kind.members:
            value = sample(member)
            if value is not _NO_SAMPLE and conforms(kind, value):
                return value
        return _NO_SAMPLE

    def conforms(self, kind: UnionKind, value: object) -> bool:
        matches = [m for m in kind.members if conforms(m, value)]
        return len(matches) == 1 if kind.exactly_one else bool(matches)


# What is said of each kind of the IR (tests/test_kinds.py holds that every kind has an entry).
TEXTS: dict[type[Kind], KindText[Any]] = {
    AnyKind: AnyText(),
    NullKind: NullText(),
    BooleanKind: BooleanText(),
    IntegerKind: IntegerText(),
    NumberKind: NumberText(),
    StringKind: StringText(),
    TextFormatKind: TextFormatText(),
    DateTimeKind: DateTimeText(),
    DateKind: DateText(),
    EnumKind: EnumText(),
    JsonChoiceKind: JsonChoiceText(),
    ArrayKind: ArrayText(),
    MapKind: MapText(),
    ObjectKind: ObjectText(),
    UnionKind: UnionText(),
}

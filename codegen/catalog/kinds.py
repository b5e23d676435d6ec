"""The IR of parameter types: one class per kind of value, neutral to every back end.

A kind holds what the catalog says a value may be (its constraints, its choices, its members), the
slots of the module-level names it needs (`Want`s, which the code back end names:
`python.module_names`), and what follows from the schema alone (the JSON types it accepts, whether
the text "null" means null). How a back end writes it lives in that back end:
`codegen/python/model.py` for code, `codegen/text/describe.py` for prompts and docs, each with one
entry per kind here (tests/test_kinds.py holds that none is missing).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

ALL_JSON_TYPES: frozenset[str] = frozenset(
    {"null", "boolean", "integer", "number", "string", "array", "object"}
)


# What a module-level name of a tool's module is for (`Want.role`).
HELPER = "helper"  # a node's slow path: `_settings_mode`
CLASS = "class"  # a dataclass or a `Literal` alias users see: `<Tool>SettingsMode`
TABLE = "table"  # an enum's lookup table: `_SETTINGS_MODE`
FOLDED = "folded"  # its case-folded twin: `<table>_FOLDED`
VALUES = "values"  # its set of values: `<table>_VALUES`
CHOICES = "choices"  # a JSON choice's list: `_SETTINGS_MODE_CHOICES`
PATTERN = "pattern"  # a compiled pattern: `_SETTINGS_ID_PATTERN`
KEYS = "keys"  # an object's declared wire names: `_<helper>_KEYS`
DRAFT = "draft"  # an object's writable twin: `_<helper>_DRAFT`
KEYWORDS, ARGS, RESULT = "keywords", "args", "result"  # the tool's own: `<Tool>Keywords`, ...


@dataclass(frozen=True)
class Want:
    """A module-level name a tool's module needs, as the front end met it: what it is for and the
    wire names it comes from, never the name itself. A tool lists its wants in the order met
    (`Tool.wants`); a kind holds its wants' slots (indexes there), and the code back end names
    them all in that order by one rule (`python.module_names`)."""

    role: str
    parts: tuple[str, ...] = ()  # wire names (property names, `item`, `value`, ...)
    # Inside its tool: where a class that cannot have its name is said (CG106).
    path: tuple[str | int, ...] = ()
    # The slot whose name this one extends (a table's `_FOLDED`, a helper's `_KEYS`).
    base: int | None = None
    in_result: bool = False  # a class of the tool's result: named from `<Tool>Result`


@dataclass(frozen=True, kw_only=True, eq=False)
class Kind:
    nullable: bool = False
    # The slot of the generated helper for this node's slow path (a back end that needs no
    # helper ignores it).
    helper_slot: int = -1

    # Whether the text "null" means null here; for plain strings it is a valid value.
    null_text_is_null: ClassVar[bool] = True

    def children(self) -> Iterator[Kind]:
        return iter(())

    @property
    def format(self) -> str | None:
        """The string format a value of this kind is read by (`_runtime.FORMATS`), if any."""
        return None

    # The JSON types of the values this kind accepts as sent (null aside): two kinds that share
    # none can never both match one value, so a `oneOf` of them needs no count.
    json_types: ClassVar[frozenset[str]] = ALL_JSON_TYPES

    @property
    def accepts_anything(self) -> bool:
        return False


@dataclass(frozen=True, kw_only=True, eq=False)
class BooleanKind(Kind):
    json_types: ClassVar[frozenset[str]] = frozenset({"boolean"})


@dataclass(frozen=True, kw_only=True, eq=False)
class _Bounded(Kind):
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None


@dataclass(frozen=True, kw_only=True, eq=False)
class IntegerKind(_Bounded):
    # JSON Schema calls 1.0 an integer too.
    json_types: ClassVar[frozenset[str]] = frozenset({"integer", "number"})


@dataclass(frozen=True, kw_only=True, eq=False)
class NumberKind(_Bounded):
    json_types: ClassVar[frozenset[str]] = frozenset({"integer", "number"})


@dataclass(frozen=True, kw_only=True, eq=False)
class StringKind(Kind):
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    pattern_slot: int = -1  # of the compiled pattern (-1: no pattern)

    null_text_is_null: ClassVar[bool] = False
    json_types: ClassVar[frozenset[str]] = frozenset({"string"})


@dataclass(frozen=True, kw_only=True, eq=False)
class TextFormatKind(StringKind):
    """A checked format whose value stays text (`format: uri`; `_runtime.TEXT_FORMATS`)."""

    checked_format: str

    null_text_is_null: ClassVar[bool] = True

    @property
    def format(self) -> str | None:
        return self.checked_format


@dataclass(frozen=True, kw_only=True, eq=False)
class DateTimeKind(Kind):
    """`format: date-time`: an ISO-8601 moment with its UTC offset."""

    json_types: ClassVar[frozenset[str]] = frozenset({"string"})

    @property
    def format(self) -> str | None:
        return "date-time"


@dataclass(frozen=True, kw_only=True, eq=False)
class DateKind(DateTimeKind):
    """`format: date`."""

    @property
    def format(self) -> str | None:
        return "date"


@dataclass(frozen=True, kw_only=True, eq=False)
class EnumKind(Kind):
    """`enum` or `const`: a closed set of values, matched case-insensitively unless told otherwise."""

    choices: tuple[str | int | float | bool, ...]
    case_sensitive: bool = False
    # Slots of the Literal alias and the lookup tables.
    alias_slot: int = -1
    table_slot: int = -1
    folded_slot: int = -1
    # Of the allowed values as a set, when all are of one type (-1: not all): then, after the type
    # check, membership is exact and costs a third of a lookup in the table keyed by (type, value).
    values_slot: int = -1

    @property
    def null_text_is_null(self) -> bool:  # type: ignore[override]
        return not any(isinstance(c, str) and c.strip().lower() == "null" for c in self.choices)

    @property
    def type_names(self) -> list[str]:
        """The types of the choices (`bool`, `float`, `int`, `str`), sorted."""
        return sorted({type(c).__name__ for c in self.choices})

    @property
    def json_types(self) -> frozenset[str]:  # type: ignore[override]
        names = {"bool": {"boolean"}, "str": {"string"}}
        return frozenset().union(*(names.get(n, {"integer", "number"}) for n in self.type_names))

    @property
    def folded(self) -> dict[str, str | int | float | bool]:
        """Each text choice by its case-folded form (none when matching is case-sensitive)."""
        if self.case_sensitive:
            return {}
        return {c.casefold(): c for c in self.choices if isinstance(c, str)}


@dataclass(frozen=True, kw_only=True, eq=False)
class JsonChoiceKind(Kind):
    """`enum`/`const` with an object or array among its values: a value equal to one of them as
    JSON (1 equals 1.0, true is not 1, objects in any key order). Nothing is coerced."""

    choices: tuple[object, ...]
    table_slot: int = -1  # of the list of choices

    @property
    def json_types(self) -> frozenset[str]:  # type: ignore[override]
        names = {bool: "boolean", str: "string", list: "array", dict: "object"}
        found: set[str] = set()
        for choice in self.choices:
            found |= {names[type(choice)]} if type(choice) in names else {"integer", "number"}
        return frozenset(found)


@dataclass(frozen=True, kw_only=True, eq=False)
class AnyKind(Kind):
    """A schema with no type: any JSON value, kept as it is (null included)."""

    nullable: bool = True

    @property
    def accepts_anything(self) -> bool:
        return True


@dataclass(frozen=True, kw_only=True, eq=False)
class NullKind(Kind):
    """`type: "null"`, `const: null`: null alone (the text "null" becomes null, with its warning)."""

    nullable: bool = True
    # The error for any other value: `enum_out_of_range` when the null came from `enum`/`const`.
    code: str = "unsupported_null_literal"

    json_types: ClassVar[frozenset[str]] = frozenset({"null"})


@dataclass(frozen=True, kw_only=True, eq=False)
class _Collection(Kind):
    """An array or a map: with a schema for its elements, each is checked; without, any JSON is kept."""

    @property
    def element(self) -> Kind | None:
        return None  # every collection names its own element kind

    def children(self) -> Iterator[Kind]:
        if self.element is not None:
            yield self.element


@dataclass(frozen=True, kw_only=True, eq=False)
class ArrayKind(_Collection):
    items: Kind | None = None
    min_items: int | None = None
    max_items: int | None = None

    json_types: ClassVar[frozenset[str]] = frozenset({"array"})

    @property
    def element(self) -> Kind | None:
        return self.items


@dataclass(frozen=True, kw_only=True, eq=False)
class MapKind(_Collection):
    """`type: object` without properties: a free-form object, or a map when values have a schema."""

    values: Kind | None = None
    # Keys that must be present (`required` without `properties`): any value will do.
    required: tuple[str, ...] = ()

    json_types: ClassVar[frozenset[str]] = frozenset({"object"})

    @property
    def element(self) -> Kind | None:
        return self.values


@dataclass(frozen=True, eq=False)
class Field:
    """A property of an object: its wire name, kind and cardinality. Its Python name is the code
    back end's (`python.attributes`), from the wire name and the pin."""

    wire_name: str
    kind: Kind
    required: bool
    description: str
    has_default: bool = False
    default: object = None
    # The schema's `examples`, as written: the prompts and docs show them (checked there).
    examples: tuple[object, ...] = ()
    # The `x-python-name` the catalog pins, as written (None: none).
    pinned: str | None = None
    # Where the property is, by JSON path inside its tool: what a finding on its name points at.
    path: tuple[str | int, ...] = ()


@dataclass(frozen=True, kw_only=True, eq=False)
class ObjectKind(Kind):
    """`type: object` with properties: a record of its own (a frozen dataclass in Python)."""

    class_slot: int
    description: str = ""
    fields: tuple[Field, ...] = ()
    # The kind of undeclared keys when `additionalProperties` has a schema; else they are unknown.
    extra: Kind | None = None
    # Whether undeclared keys are kept (`additionalProperties` true, {} or a schema beside
    # `properties`): the back end gives them a field of their own.
    open: bool = False
    root: bool = False
    keys_slot: int = -1  # of the frozenset of declared wire names
    draft_slot: int = -1  # of the writable twin of the dataclass (runtime.draft_class)

    json_types: ClassVar[frozenset[str]] = frozenset({"object"})

    def children(self) -> Iterator[Kind]:
        for f in self.fields:
            yield f.kind
        if self.extra is not None:
            yield self.extra


@dataclass(frozen=True, kw_only=True, eq=False)
class UnionKind(Kind):
    """`anyOf`/`oneOf` or a type list of several non-null types.

    A value that one member takes as sent is that member's; otherwise the first member that takes
    it with a correction wins, with that member's warnings. For `oneOf` (`exactly_one`) a value
    that several members take as sent is an error, as JSON Schema says.
    """

    members: tuple[Kind, ...] = field(default=())
    exactly_one: bool = False

    @property
    def json_types(self) -> frozenset[str]:  # type: ignore[override]
        return frozenset().union(*(m.json_types for m in self.members))

    @property
    def null_text_is_null(self) -> bool:  # type: ignore[override]
        return all(m.null_text_is_null for m in self.members)

    def children(self) -> Iterator[Kind]:
        yield from self.members


def walk(kind: Kind) -> Iterator[Kind]:
    """Every kind in a tree, children before parents: the order helpers are defined in."""
    for child in kind.children():
        yield from walk(child)
    yield kind

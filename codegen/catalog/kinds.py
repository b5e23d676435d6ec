"""The IR of parameter types: one class per kind of value.

Each kind knows its Python annotation, the expression that recognises a value already exactly of
that kind (the fast path), the runtime coercion or generated helper that handles everything else
(the slow path), and the template macro that writes that helper. Templates only loop and branch
over these; a new kind is a new class and a new macro.

Catalog values reach code only through `literal()`, never pasted as source text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from codegen.python.literals import literal

ALL_JSON_TYPES: frozenset[str] = frozenset(
    {"null", "boolean", "integer", "number", "string", "array", "object"}
)


@dataclass(frozen=True, kw_only=True, eq=False)
class Kind:
    nullable: bool = False
    # The generated helper for this node's slow path ("" when a runtime function suffices).
    helper: str = ""

    macro: ClassVar[str] = "scalar"
    runtime: ClassVar[str] = ""
    # Whether the text "null" means null here; for plain strings it is a valid value.
    null_text_is_null: ClassVar[bool] = True

    # A kind that constrains nothing: the base of the others, and the kind of a schema with no type.
    base_annotation: ClassVar[str] = "object"

    @property
    def annotation(self) -> str:
        return f"{self.base_annotation} | None" if self.nullable else self.base_annotation

    @property
    def container(self) -> bool:
        """Whether the slow path returns a (plain, typed) pair: for arrays, maps, objects and unions of them."""
        return False

    @property
    def plain_is_typed(self) -> bool:
        """Whether a JSON value of this kind is already its typed value (no dataclass, no datetime inside)."""
        return all(child.plain_is_typed for child in self.children())

    def type_check(self, var: str) -> str:
        return "True"

    def fast_value(self, var: str, tmp: str = "c") -> str:
        """What the fast path stores once `fast_check(var, tmp)` held (`tmp` names a walrus target)."""
        return var

    def checks(self, var: str) -> Iterator[tuple[str, str]]:
        """(condition that must hold, error code) for each constraint, in a fixed keyword order."""
        return iter(())

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        """An expression true when `var` is exactly of this kind and meets every constraint."""
        return " and ".join([self.type_check(var), *(cond for cond, _ in self.checks(var))])

    @property
    def needs_helper(self) -> bool:
        return self.nullable or any(True for _ in self.checks("v"))

    @property
    def has_slow_path(self) -> bool:
        """False when the fast path accepts every value that was sent."""
        return True

    def runtime_call(self, var: str) -> str:
        """The runtime coercion a generated helper starts from."""
        return f"{self.runtime}({var}, path, warnings, errors)"

    @property
    def coerce(self) -> str:
        """The function that handles a value on the slow path."""
        return self.helper if self.needs_helper else self.runtime

    def children(self) -> Iterator[Kind]:
        return iter(())

    # The JSON types of the values this kind accepts as sent (null aside): two kinds that share
    # none can never both match one value, so a `oneOf` of them needs no count.
    json_types: ClassVar[frozenset[str]] = ALL_JSON_TYPES

    @property
    def accepts_anything(self) -> bool:
        return False


@dataclass(frozen=True, kw_only=True, eq=False)
class BooleanKind(Kind):
    runtime: ClassVar[str] = "to_bool"
    base_annotation: ClassVar[str] = "bool"
    json_types: ClassVar[frozenset[str]] = frozenset({"boolean"})

    def type_check(self, var: str) -> str:
        return f"type({var}) is bool"


@dataclass(frozen=True, kw_only=True, eq=False)
class _Bounded(Kind):
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None

    def checks(self, var: str) -> Iterator[tuple[str, str]]:
        low = high = ""
        if self.minimum is not None:
            low = f"{literal(self.minimum)} <= "
        elif self.exclusive_minimum is not None:
            low = f"{literal(self.exclusive_minimum)} < "
        if self.maximum is not None:
            high = f" <= {literal(self.maximum)}"
        elif self.exclusive_maximum is not None:
            high = f" < {literal(self.exclusive_maximum)}"
        if low or high:
            yield f"{low}{var}{high}", "out_of_range"


@dataclass(frozen=True, kw_only=True, eq=False)
class IntegerKind(_Bounded):
    runtime: ClassVar[str] = "to_int"
    base_annotation: ClassVar[str] = "int"
    # JSON Schema calls 1.0 an integer too.
    json_types: ClassVar[frozenset[str]] = frozenset({"integer", "number"})

    def type_check(self, var: str) -> str:
        return f"type({var}) is int"


@dataclass(frozen=True, kw_only=True, eq=False)
class NumberKind(_Bounded):
    runtime: ClassVar[str] = "to_float"
    base_annotation: ClassVar[str] = "float"
    json_types: ClassVar[frozenset[str]] = frozenset({"integer", "number"})

    def type_check(self, var: str) -> str:
        # Integers take the slow path, which turns them into floats without a warning.
        return f"type({var}) is float and isfinite({var})"


@dataclass(frozen=True, kw_only=True, eq=False)
class StringKind(Kind):
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    # Module-level name of the compiled pattern, assigned by the normalizer.
    pattern_name: str = ""

    runtime: ClassVar[str] = "to_str"
    null_text_is_null: ClassVar[bool] = False
    base_annotation: ClassVar[str] = "str"
    json_types: ClassVar[frozenset[str]] = frozenset({"string"})

    def type_check(self, var: str) -> str:
        return f"type({var}) is str"

    def checks(self, var: str) -> Iterator[tuple[str, str]]:
        yield from _length_checks(var, self.min_length, self.max_length)
        if self.pattern is not None:
            yield f"{self.pattern_name}.search({var})", "pattern_mismatch"


@dataclass(frozen=True, kw_only=True, eq=False)
class UriKind(StringKind):
    runtime: ClassVar[str] = "to_uri"
    null_text_is_null: ClassVar[bool] = True

    def type_check(self, var: str) -> str:
        return f"type({var}) is str and is_absolute_uri({var})"


@dataclass(frozen=True, kw_only=True, eq=False)
class DateTimeKind(Kind):
    runtime: ClassVar[str] = "to_datetime"
    base_annotation: ClassVar[str] = "datetime"
    json_types: ClassVar[frozenset[str]] = frozenset({"string"})

    @property
    def plain_is_typed(self) -> bool:
        return False  # A default is written as text, but the dataclass holds a datetime.

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None  # Text must be parsed whatever it looks like.


@dataclass(frozen=True, kw_only=True, eq=False)
class DateKind(DateTimeKind):
    runtime: ClassVar[str] = "to_date"
    base_annotation: ClassVar[str] = "date"


@dataclass(frozen=True, kw_only=True, eq=False)
class EnumKind(Kind):
    """`enum` or `const`: a closed set of values, matched case-insensitively unless told otherwise."""

    choices: tuple[str | int | float | bool, ...]
    case_sensitive: bool = False
    # Module-level names assigned by the normalizer: the Literal alias and the lookup tables.
    alias: str = ""
    table: str = ""
    folded_table: str = ""
    # The allowed values as a set, when all are of one type: then, after the type check, membership
    # is exact and costs a third of a lookup in the table keyed by (type, value).
    value_set: str = ""

    macro: ClassVar[str] = "scalar"  # a scalar whose runtime call carries its lookup tables
    runtime: ClassVar[str] = "to_choice"

    @property
    def null_text_is_null(self) -> bool:  # type: ignore[override]
        return not any(isinstance(c, str) and c.strip().lower() == "null" for c in self.choices)

    @property
    def literal_ok(self) -> bool:
        # typing.Literal takes str, int and bool, not float.
        return not any(isinstance(c, float) for c in self.choices)

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        if self.literal_ok:
            return self.alias
        return " | ".join(self.type_names)

    @property
    def type_names(self) -> list[str]:
        return sorted({type(c).__name__ for c in self.choices})

    @property
    def json_types(self) -> frozenset[str]:  # type: ignore[override]
        names = {"bool": {"boolean"}, "str": {"string"}}
        return frozenset().union(*(names.get(n, {"integer", "number"}) for n in self.type_names))

    def type_check(self, var: str) -> str:
        names = self.type_names
        if len(names) == 1:
            return f"type({var}) is {names[0]}"
        return f"type({var}) in ({', '.join(names)})"

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        if self.value_set:
            return f"{self.type_check(var)} and {var} in {self.value_set}"
        # The exact table is keyed by (type, value) so that True never passes for 1, nor 1.0 for 1.
        return f"{self.type_check(var)} and ({tmp} := {self.table}.get((type({var}), {var}), INVALID)) is not INVALID"

    def fast_value(self, var: str, tmp: str = "c") -> str:
        return var if self.value_set else tmp

    def runtime_call(self, var: str) -> str:
        return f"to_choice({var}, {self.table}, {self.folded_table}, path, warnings, errors)"

    @property
    def needs_helper(self) -> bool:
        return True

    @property
    def folded(self) -> dict[str, str | int | float | bool]:
        if self.case_sensitive:
            return {}
        return {c.casefold(): c for c in self.choices if isinstance(c, str)}


@dataclass(frozen=True, kw_only=True, eq=False)
class JsonChoiceKind(Kind):
    """`enum`/`const` with an object or array among its values: a value equal to one of them as
    JSON (1 equals 1.0, true is not 1, objects in any key order). Nothing is coerced."""

    choices: tuple[object, ...]
    table: str = ""  # module-level name of the list of choices, assigned by the normalizer

    runtime: ClassVar[str] = "to_json_choice"

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None

    def runtime_call(self, var: str) -> str:
        return f"to_json_choice({var}, {self.table}, path, errors)"

    @property
    def needs_helper(self) -> bool:
        return True

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
    def annotation(self) -> str:
        return "object"

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return f"{var} is not ABSENT"

    @property
    def needs_helper(self) -> bool:
        return False

    @property
    def has_slow_path(self) -> bool:
        return False

    @property
    def accepts_anything(self) -> bool:
        return True


@dataclass(frozen=True, kw_only=True, eq=False)
class NullKind(Kind):
    """`type: "null"`, `const: null`: null alone (the text "null" becomes null, with its warning)."""

    nullable: bool = True
    # The error for any other value: `enum_out_of_range` when the null came from `enum`/`const`.
    code: str = "unsupported_null_literal"

    base_annotation: ClassVar[str] = "None"
    json_types: ClassVar[frozenset[str]] = frozenset({"null"})

    @property
    def annotation(self) -> str:
        return "None"

    def type_check(self, var: str) -> str:
        return f"{var} is None"

    def runtime_call(self, var: str) -> str:
        return f"not_null({var}, {literal(self.code)}, path, errors)"


@dataclass(frozen=True, kw_only=True, eq=False)
class _Collection(Kind):
    """An array or a map: with a schema for its elements, each is coerced; without, any JSON is kept."""

    @property
    def element(self) -> Kind | None:
        return None  # every collection names its own element kind

    @property
    def macro(self) -> str:  # type: ignore[override]
        # Without per-element work, a collection's helper is a scalar's: coerce, then check.
        return self.collection_macro if self.container else "scalar"

    collection_macro: ClassVar[str] = ""

    @property
    def element_annotation(self) -> str:
        return self.element.annotation if self.element else "object"

    @property
    def container(self) -> bool:
        return self.element is not None

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None if self.container else super().fast_check(var, tmp)

    @property
    def needs_helper(self) -> bool:
        return self.container or super().needs_helper

    def children(self) -> Iterator[Kind]:
        if self.element is not None:
            yield self.element


@dataclass(frozen=True, kw_only=True, eq=False)
class ArrayKind(_Collection):
    items: Kind | None = None
    min_items: int | None = None
    max_items: int | None = None

    collection_macro: ClassVar[str] = "array"
    runtime: ClassVar[str] = "to_list"
    json_types: ClassVar[frozenset[str]] = frozenset({"array"})

    @property
    def element(self) -> Kind | None:
        return self.items

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return f"list[{self.element_annotation}]"

    def type_check(self, var: str) -> str:
        return f"type({var}) is list"

    def checks(self, var: str) -> Iterator[tuple[str, str]]:
        return _length_checks(var, self.min_items, self.max_items)


@dataclass(frozen=True, kw_only=True, eq=False)
class MapKind(_Collection):
    """`type: object` without properties: a free-form object, or a map when values have a schema."""

    values: Kind | None = None
    # Keys that must be present (`required` without `properties`): any value will do.
    required: tuple[str, ...] = ()

    collection_macro: ClassVar[str] = "map"
    runtime: ClassVar[str] = "to_dict"
    json_types: ClassVar[frozenset[str]] = frozenset({"object"})

    @property
    def element(self) -> Kind | None:
        return self.values

    @property
    def container(self) -> bool:
        return self.values is not None or bool(self.required)

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return f"dict[str, {self.element_annotation}]"

    def type_check(self, var: str) -> str:
        return f"type({var}) is dict"


def _length_checks(var: str, low: int | None, high: int | None) -> Iterator[tuple[str, str]]:
    if low is not None and high is not None:
        yield f"{low} <= len({var}) <= {high}", "length_out_of_range"
    elif low is not None:
        yield f"len({var}) >= {low}", "length_out_of_range"
    elif high is not None:
        yield f"len({var}) <= {high}", "length_out_of_range"


@dataclass(frozen=True, eq=False)
class Field:
    """A property of an object: its wire name, Python name, kind and cardinality."""

    wire_name: str
    py_name: str
    kind: Kind
    required: bool
    description: str
    has_default: bool = False
    default: object = None
    # The schema's `examples`, as written: the prompts and docs show them (checked there).
    examples: tuple[object, ...] = ()

    @property
    def default_is_simple(self) -> bool:
        """Whether the default, written as a literal, is both its plain and its typed value."""
        return self.has_default and (self.default is None or self.kind.plain_is_typed)

    @property
    def dataclass_default(self) -> str | None:
        """The default written on the dataclass field, for callers who build arguments by hand."""
        if self.required:
            return None
        if not self.has_default or self.default is None:
            return "None"
        if not self.default_is_simple:
            return None
        if isinstance(self.default, (list, dict)):
            factory = (
                f"lambda: {literal(self.default)}" if self.default else type(self.default).__name__
            )
            return f"dataclasses.field(default_factory={factory})"
        return literal(self.default)

    @property
    def field_annotation(self) -> str:
        if (
            not self.required
            and (not self.has_default or self.default is None)
            and not self.kind.nullable
        ):
            return f"{self.kind.annotation} | None"
        return self.kind.annotation


@dataclass(frozen=True, kw_only=True, eq=False)
class ObjectKind(Kind):
    """`type: object` with properties: a frozen dataclass of its own."""

    class_name: str
    description: str = ""
    fields: tuple[Field, ...] = ()
    # The kind of undeclared keys when `additionalProperties` has a schema; else they are unknown.
    extra: Kind | None = None
    # The Python name of the field that holds the undeclared keys of an open object
    # (`additionalProperties` true, {} or a schema beside `properties`); "" when it is closed.
    extra_field: str = ""
    root: bool = False
    keys_name: str = ""  # the module-level frozenset of declared wire names
    draft_name: str = ""  # the module-level writable twin of the dataclass (runtime.draft_class)

    macro: ClassVar[str] = "object"
    runtime: ClassVar[str] = "to_dict"
    json_types: ClassVar[frozenset[str]] = frozenset({"object"})

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return self.class_name

    @property
    def extra_annotation(self) -> str:
        """The type of the open object's other keys: a read-only mapping of their values."""
        return f"Mapping[str, {self.extra.annotation if self.extra else 'object'}]"

    @property
    def container(self) -> bool:
        return True

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None

    @property
    def needs_helper(self) -> bool:
        return True

    @property
    def plain_is_typed(self) -> bool:
        return False

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

    macro: ClassVar[str] = "union"

    @property
    def json_types(self) -> frozenset[str]:  # type: ignore[override]
        return frozenset().union(*(m.json_types for m in self.members))

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return " | ".join(dict.fromkeys(m.base_annotation for m in self.members))

    @property
    def container(self) -> bool:
        return any(m.container for m in self.members)

    @property
    def null_text_is_null(self) -> bool:  # type: ignore[override]
        return all(m.null_text_is_null for m in self.members)

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None

    @property
    def needs_helper(self) -> bool:
        return True

    def children(self) -> Iterator[Kind]:
        yield from self.members


def walk(kind: Kind) -> Iterator[Kind]:
    """Every kind in a tree, children before parents: the order helpers are defined in."""
    for child in kind.children():
        yield from walk(child)
    yield kind

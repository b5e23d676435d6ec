"""The Python back end's view of the IR: what each kind is as Python code.

The front end's kinds say what a value may be; this model says how the generated module handles
it: its annotation, the expression that recognises a value already exactly of that kind (the fast
path), the runtime coercion or generated helper that handles everything else (the slow path), and
the `coerce.jinja` macro that writes that helper. Templates loop and branch over these; a new kind
is a class here, an entry in `MODELS`, and a macro when no existing one fits (tests/test_kinds.py
fails until `MODELS` names every kind).

A model reads through to the IR for the rest (`kind.choices`, `tool.wire_name`); the names of
the module's helpers, classes and tables are the tool's `module_names`, by the slots the kinds
hold. Catalog values reach code only through `literal()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from codegen.catalog.ir import Tool
from codegen.catalog.kinds import (
    KEYWORDS,
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
    walk,
)
from codegen.python.attributes import attributes
from codegen.python.literals import literal
from codegen.python.module_names import ModuleNames, class_names, module_names, own_name
from codegen.runtime import _runtime as rt
from codegen.runtime._runtime import keyword_names

K = TypeVar("K", bound=Kind)
C = TypeVar("C", ArrayKind, MapKind)


class Check(NamedTuple):
    """One constraint keyword as code: the `condition` that must hold, the error `code` when it
    does not, and the `context` that error records (a literal, `{"maximum": 50}`), so that its
    words name the keyword broken without reading the schema again."""

    condition: str
    code: str
    context: str
    # The value a bound compares (`v`, `len(v)`): a lower bound's condition ends with it, an
    # upper bound's starts with it ("" for other checks).
    subject: str = ""


def _lower(subject: str, operator: str, code: str, keyword: str, bound: float) -> Check:
    condition = f"{literal(bound)} {operator} {subject}"
    return Check(condition, code, literal({keyword: bound}), subject)


def _upper(subject: str, operator: str, code: str, keyword: str, bound: float) -> Check:
    condition = f"{subject} {operator} {literal(bound)}"
    return Check(condition, code, literal({keyword: bound}), subject)


def _conditions(checks: Iterator[Check]) -> list[str]:
    """The checks' conditions, a lower and an upper bound of one subject joined as one chained
    comparison (`1 <= v <= 50`), which reads the subject once on the fast path."""
    conditions: list[str] = []
    lower: Check | None = None
    for check in checks:
        if lower is not None and check.subject == lower.subject:
            conditions[-1] = lower.condition + check.condition[len(check.subject) :]
            lower = None
            continue
        conditions.append(check.condition)
        ends = check.subject and check.condition.endswith(check.subject)
        lower = check if ends else None
    return conditions


@dataclass(frozen=True, eq=False)
class PyKind(Generic[K]):
    """A kind that constrains nothing: the base of the others."""

    kind: K  # the IR's
    names: ModuleNames  # of the tool's module: the kind's slots' names

    macro: ClassVar[str] = "scalar"
    runtime: ClassVar[str] = ""
    base_annotation: ClassVar[str] = "object"
    # The JSON type a value of this kind has, which a union's error names (None: no one type).
    json_type: ClassVar[str | None] = None

    def __getattr__(self, name: str) -> Any:
        # The IR's own fields (nullable, choices, ...), for templates.
        if name in ("kind", "names"):
            raise AttributeError(name)
        return getattr(self.kind, name)

    # The IR's fields the templates read at every turn, as properties: a miss that falls back to
    # __getattr__ costs an exception each time.
    @property
    def helper(self) -> str:
        return self.names[self.kind.helper_slot]

    @property
    def nullable(self) -> bool:
        return self.kind.nullable

    @property
    def annotation(self) -> str:
        return f"{self.base_annotation} | None" if self.kind.nullable else self.base_annotation

    @property
    def container(self) -> bool:
        """Whether the slow path returns a (plain, typed) pair: for arrays, maps, objects and unions of them."""
        return False

    @property
    def plain_is_typed(self) -> bool:
        """Whether a JSON value of this kind is already its typed value (no dataclass, no datetime inside)."""
        return all(model(child, self.names).plain_is_typed for child in self.kind.children())

    def type_check(self, var: str) -> str:
        return "True"

    def fast_value(self, var: str, tmp: str = "c") -> str:
        """What the fast path stores once `fast_check(var, tmp)` held (`tmp` names a walrus target)."""
        return var

    def checks(self, var: str) -> Iterator[Check]:
        """One check for each constraint keyword, in a fixed keyword order."""
        return iter(())

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        """An expression true when `var` is exactly of this kind and meets every constraint."""
        return " and ".join([self.type_check(var), *_conditions(self.checks(var))])

    @property
    def needs_helper(self) -> bool:
        return self.kind.nullable or any(True for _ in self.checks("v"))

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


class PyBoolean(PyKind[BooleanKind]):
    runtime: ClassVar[str] = "to_bool"
    json_type: ClassVar[str | None] = "boolean"
    base_annotation: ClassVar[str] = "bool"

    def type_check(self, var: str) -> str:
        return f"type({var}) is bool"


class _PyBounded(PyKind[IntegerKind | NumberKind]):
    def checks(self, var: str) -> Iterator[Check]:
        kind, code = self.kind, "out_of_range"
        if kind.minimum is not None:
            yield _lower(var, "<=", code, "minimum", kind.minimum)
        elif kind.exclusive_minimum is not None:
            yield _lower(var, "<", code, "exclusiveMinimum", kind.exclusive_minimum)
        if kind.maximum is not None:
            yield _upper(var, "<=", code, "maximum", kind.maximum)
        elif kind.exclusive_maximum is not None:
            yield _upper(var, "<", code, "exclusiveMaximum", kind.exclusive_maximum)


class PyInteger(_PyBounded):
    runtime: ClassVar[str] = "to_int"
    json_type: ClassVar[str | None] = "integer"
    base_annotation: ClassVar[str] = "int"

    def type_check(self, var: str) -> str:
        return f"type({var}) is int"


class PyNumber(_PyBounded):
    runtime: ClassVar[str] = "to_float"
    json_type: ClassVar[str | None] = "number"
    base_annotation: ClassVar[str] = "float"

    def type_check(self, var: str) -> str:
        # Integers take the slow path, which turns them into floats without a warning.
        return f"type({var}) is float and isfinite({var})"


class PyString(PyKind[StringKind]):
    runtime: ClassVar[str] = "to_str"
    json_type: ClassVar[str | None] = "string"
    base_annotation: ClassVar[str] = "str"

    def type_check(self, var: str) -> str:
        return f"type({var}) is str"

    def checks(self, var: str) -> Iterator[Check]:
        kind = self.kind
        yield from _length_checks(var, "Length", kind.min_length, kind.max_length)
        if kind.pattern is not None:
            condition = f"{self.pattern_name}.search({var})"
            yield Check(condition, "pattern_mismatch", literal({"pattern": kind.pattern}))

    @property
    def pattern_name(self) -> str:
        """The module's compiled pattern."""
        return self.names[self.kind.pattern_slot]


class PyTextFormat(PyString):
    """A checked format whose value stays text: the runtime's check of it on the fast path, its
    coercion on the slow one (`_runtime.TEXT_FORMATS`, `_runtime.FORMATS`), each by its name."""

    kind: TextFormatKind

    def type_check(self, var: str) -> str:
        check = rt.TEXT_FORMATS[self.kind.checked_format].__name__
        return f"type({var}) is str and {check}({var})"

    def runtime_call(self, var: str) -> str:
        return f"{self._coercion}({var}, path, warnings, errors)"

    @property
    def coerce(self) -> str:
        return self.helper if self.needs_helper else self._coercion

    @property
    def _coercion(self) -> str:
        return rt.FORMATS[self.kind.checked_format].__name__


class PyDateTime(PyKind[DateTimeKind]):
    runtime: ClassVar[str] = "to_datetime"
    json_type: ClassVar[str | None] = "string"
    base_annotation: ClassVar[str] = "datetime"

    @property
    def plain_is_typed(self) -> bool:
        return False  # A default is written as text, but the dataclass holds a datetime.

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None  # Text must be parsed whatever it looks like.


class PyDate(PyDateTime):
    runtime: ClassVar[str] = "to_date"
    base_annotation: ClassVar[str] = "date"


class PyEnum(PyKind[EnumKind]):
    """A scalar whose runtime call carries its lookup tables."""

    runtime: ClassVar[str] = "to_choice"

    @property
    def literal_ok(self) -> bool:
        # typing.Literal takes str, int and bool, not float.
        return not any(isinstance(c, float) for c in self.kind.choices)

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        if self.literal_ok:
            return self.alias
        return " | ".join(self.kind.type_names)

    @property
    def alias(self) -> str:
        """The `Literal` alias of the choices."""
        return self.names[self.kind.alias_slot]

    @property
    def table(self) -> str:
        return self.names[self.kind.table_slot]

    @property
    def folded_table(self) -> str:
        return self.names[self.kind.folded_slot]

    @property
    def value_set(self) -> str:
        """The set of the choices ("" when they are not all of one type)."""
        slot = self.kind.values_slot
        return "" if slot < 0 else self.names[slot]

    def type_check(self, var: str) -> str:
        names = self.kind.type_names
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
        folded = self.folded_table if self.kind.folded else "NO_FOLDING"
        return f"to_choice({var}, {self.table}, {folded}, path, warnings, errors)"

    @property
    def needs_helper(self) -> bool:
        return True


class PyJsonChoice(PyKind[JsonChoiceKind]):
    runtime: ClassVar[str] = "to_json_choice"

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None

    def runtime_call(self, var: str) -> str:
        return f"to_json_choice({var}, {self.table}, path, errors)"

    @property
    def table(self) -> str:
        """The module's list of the choices."""
        return self.names[self.kind.table_slot]

    @property
    def needs_helper(self) -> bool:
        return True


class PyAny(PyKind[AnyKind]):
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


class PyNull(PyKind[NullKind]):
    base_annotation: ClassVar[str] = "None"
    json_type: ClassVar[str | None] = "null"

    @property
    def annotation(self) -> str:
        return "None"

    def type_check(self, var: str) -> str:
        return f"{var} is None"

    def runtime_call(self, var: str) -> str:
        return f"not_null({var}, {literal(self.kind.code)}, path, errors)"


class _PyCollection(PyKind[C]):
    """An array or a map: with a schema for its elements, each is coerced; without, any JSON is kept."""

    collection_macro: ClassVar[str] = ""

    @cached_property
    def element(self) -> PyKind[Any] | None:
        element = self.kind.element
        return None if element is None else model(element, self.names)

    @property
    def macro(self) -> str:  # type: ignore[override]
        # Without per-element work, a collection's helper is a scalar's: coerce, then check.
        return self.collection_macro if self.container else "scalar"

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


class PyArray(_PyCollection[ArrayKind]):
    collection_macro: ClassVar[str] = "array"
    runtime: ClassVar[str] = "to_list"
    json_type: ClassVar[str | None] = "array"

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return f"list[{self.element_annotation}]"

    def type_check(self, var: str) -> str:
        return f"type({var}) is list"

    def checks(self, var: str) -> Iterator[Check]:
        return _length_checks(var, "Items", self.kind.min_items, self.kind.max_items)


class PyMap(_PyCollection[MapKind]):
    collection_macro: ClassVar[str] = "map"
    runtime: ClassVar[str] = "to_dict"
    json_type: ClassVar[str | None] = "object"

    @property
    def container(self) -> bool:
        return self.kind.values is not None or bool(self.kind.required)

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return f"dict[str, {self.element_annotation}]"

    def type_check(self, var: str) -> str:
        return f"type({var}) is dict"


def _length_checks(var: str, unit: str, low: int | None, high: int | None) -> Iterator[Check]:
    """`minLength`/`maxLength` (`unit` "Length") or `minItems`/`maxItems` ("Items")."""
    size, code = f"len({var})", "length_out_of_range"
    if low is not None:
        yield _lower(size, "<=", code, f"min{unit}", low)
    if high is not None:
        yield _upper(size, "<=", code, f"max{unit}", high)


@dataclass(frozen=True, eq=False)
class PyField:
    """A property of an object as a dataclass field: its annotation and the default it shows."""

    field: Field
    # The IR field's own, read by the templates at every turn (so as plain attributes).
    wire_name: str
    py_name: str
    required: bool
    has_default: bool
    default: object
    kind: PyKind[Any]

    @classmethod
    def of(cls, field: Field, py_name: str, names: ModuleNames) -> PyField:
        return cls(
            field,
            field.wire_name,
            py_name,
            field.required,
            field.has_default,
            field.default,
            model(field.kind, names),
        )

    @property
    def default_is_simple(self) -> bool:
        """Whether the default, written as a literal, is both its plain and its typed value."""
        return self.field.has_default and (self.field.default is None or self.kind.plain_is_typed)

    @property
    def dataclass_default(self) -> str | None:
        """The default written on the dataclass field, for callers who build arguments by hand."""
        field = self.field
        if field.required:
            return None
        if not field.has_default or field.default is None:
            return "None"
        if not self.default_is_simple:
            return None
        if isinstance(field.default, (list, dict)):
            factory = (
                f"lambda: {literal(field.default)}"
                if field.default
                else type(field.default).__name__
            )
            return f"dataclasses.field(default_factory={factory})"
        return literal(field.default)

    @property
    def field_annotation(self) -> str:
        field = self.field
        if (
            not field.required
            and (not field.has_default or field.default is None)
            and not field.kind.nullable
        ):
            return f"{self.kind.annotation} | None"
        return self.kind.annotation


class PyObject(PyKind[ObjectKind]):
    """A frozen dataclass of its own."""

    macro: ClassVar[str] = "object"
    runtime: ClassVar[str] = "to_dict"
    json_type: ClassVar[str | None] = "object"

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return self.class_name

    @property
    def class_name(self) -> str:
        return self.names[self.kind.class_slot]

    @property
    def root(self) -> bool:
        return self.kind.root

    @property
    def extra_field(self) -> str:
        """The field of the open object's other keys ("" when it is closed)."""
        return attributes(self.kind).extra

    @property
    def keys_name(self) -> str:
        return self.names[self.kind.keys_slot]

    @property
    def draft_name(self) -> str:
        return self.names[self.kind.draft_slot]

    @cached_property
    def fields(self) -> tuple[PyField, ...]:
        names = attributes(self.kind).fields
        return tuple(PyField.of(f, names[f.wire_name], self.names) for f in self.kind.fields)

    @cached_property
    def extra(self) -> PyKind[Any] | None:
        return None if self.kind.extra is None else model(self.kind.extra, self.names)

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


class PyUnion(PyKind[UnionKind]):
    macro: ClassVar[str] = "union"

    @cached_property
    def members(self) -> tuple[PyKind[Any], ...]:
        return tuple(model(m, self.names) for m in self.kind.members)

    @property
    def base_annotation(self) -> str:  # type: ignore[override]
        return " | ".join(dict.fromkeys(m.base_annotation for m in self.members))

    @property
    def container(self) -> bool:
        return any(m.container for m in self.members)

    @property
    def error_context(self) -> str:
        """The context of `unsupported_union_literal` (a literal): the JSON types a value may
        have, when each member has one (an enum's values need not share one)."""
        types = [m.json_type for m in self.members]
        if None in types:
            return "{}"
        names = list(dict.fromkeys(types)) + (["null"] if self.kind.nullable else [])
        return literal({"types": names})

    def fast_check(self, var: str, tmp: str = "c") -> str | None:
        return None

    @property
    def needs_helper(self) -> bool:
        return True


# The model of each kind of the IR (tests/test_kinds.py holds that every kind has one).
MODELS: dict[type[Kind], type[PyKind[Any]]] = {
    AnyKind: PyAny,
    BooleanKind: PyBoolean,
    IntegerKind: PyInteger,
    NumberKind: PyNumber,
    StringKind: PyString,
    TextFormatKind: PyTextFormat,
    DateTimeKind: PyDateTime,
    DateKind: PyDate,
    EnumKind: PyEnum,
    JsonChoiceKind: PyJsonChoice,
    NullKind: PyNull,
    ArrayKind: PyArray,
    MapKind: PyMap,
    ObjectKind: PyObject,
    UnionKind: PyUnion,
}


def model(kind: Kind, names: ModuleNames) -> PyKind[Any]:
    """The Python model of an IR kind, in the module whose names are `names`."""
    return MODELS[type(kind)](kind, names)


@dataclass(frozen=True, eq=False)
class PyTool:
    """A tool as its module writes it, its classes named from `stem` (`namespace.ToolNames`):
    its kinds as models, its parser and its keywords Protocol."""

    tool: Tool
    stem: str
    parse_name: str

    def __getattr__(self, name: str) -> Any:
        # The IR's own fields (wire_name, schema, ...), for templates.
        if name == "tool":
            raise AttributeError(name)
        return getattr(self.tool, name)

    @cached_property
    def names(self) -> ModuleNames:
        return module_names(self.tool, self.stem)

    @property
    def keywords_name(self) -> str:
        """The Protocol of a handler that takes the parameters as keywords."""
        return own_name(self.tool, self.stem, KEYWORDS)

    @property
    def result_name(self) -> str | None:
        """Its `<Tool>Result` (None: it declares no result)."""
        return class_names(self.tool, self.stem)[1]

    @cached_property
    def args(self) -> PyObject:
        # The very model among `classes`: the template tells the arguments' class by identity.
        return next(c for c in self.classes if c.kind is self.tool.args)

    @cached_property
    def helpers(self) -> tuple[PyKind[Any], ...]:
        """Kinds with a generated helper, children before parents (a shared definition once),
        the arguments' then the result's."""
        kinds = list(dict.fromkeys(walk(self.tool.args)))
        if self.tool.result is not None:
            kinds += self.tool.result.kinds
        return tuple(m for m in (model(k, self.names) for k in kinds) if m.needs_helper)

    @cached_property
    def classes(self) -> tuple[PyObject, ...]:
        return tuple(PyObject(k, self.names) for k in self.tool.classes)

    @cached_property
    def result_classes(self) -> tuple[PyObject, ...]:
        return tuple(PyObject(k, self.names) for k in self.tool.result_classes)

    @cached_property
    def result_root(self) -> PyObject | None:
        """The result's dataclass (None: the tool declares no typed result)."""
        result = self.tool.result
        return None if result is None else PyObject(result.kind, self.names)

    @property
    def wire_names(self) -> dict[str, list[str]]:
        """The module's `WIRE_NAMES`: each dataclass (arguments and result) by name, with its
        fields' wire names in field order (an open object's field of other keys comes after)."""
        return {
            cls.class_name: [field.wire_name for field in cls.fields]
            for cls in (*self.classes, *self.result_classes)
        }

    @cached_property
    def enums(self) -> tuple[PyEnum, ...]:
        return tuple(PyEnum(k, self.names) for k in self.tool.enums)

    @cached_property
    def patterns(self) -> tuple[PyString, ...]:
        return tuple(PyString(k, self.names) for k in self.tool.patterns)

    @cached_property
    def choice_lists(self) -> tuple[PyJsonChoice, ...]:
        return tuple(PyJsonChoice(k, self.names) for k in self.tool.choice_lists)

    @property
    def keyword_parameters(self) -> list[str]:
        """The parameters of the keywords Protocol's `__call__`: each field, by keyword only, by
        the name the executor binds it by (`keyword_names`, the runtime's one rule)."""
        args = self.args
        annotations = [_numeric_tower(f.field_annotation) for f in args.fields]
        attrs = [f.py_name for f in args.fields]
        if args.extra_field:
            annotations.append(args.extra_annotation)
            attrs.append(args.extra_field)
        names = keyword_names([f.wire_name for f in args.fields], attrs)
        fields = [f"{name}: {annotation}" for name, annotation in zip(names, annotations)]
        # The method's own first parameter, under a name no keyword takes.
        call_self = "self"
        while call_self in names:
            call_self += "_"
        return [call_self, "*", *fields] if fields else [call_self]


def _numeric_tower(annotation: str) -> str:
    """`float` takes an int already (PEP 484), and linters refuse `int | float` in a parameter:
    the same type without `int`, at the top level of a union (where ruff's PYI041 looks)."""
    parts: list[str] = []
    depth = start = 0
    for index, char in enumerate(annotation):
        depth += (char == "[") - (char == "]")
        if depth == 0 and annotation.startswith(" | ", index):
            parts.append(annotation[start:index])
            start = index + 3
    parts.append(annotation[start:])
    if "float" in parts and "int" in parts:
        parts.remove("int")
    return " | ".join(parts)

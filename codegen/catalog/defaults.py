"""Defaults from the wild: one that does not match its schema is corrected as a call's value would be.

Catalogs in the wild hold `"false"` for a boolean default or `"5"` for an integer one. The build
corrects such a default with the generated runtime's own coercions (SPEC §3), so that it means what
the same text would mean sent by a model, and says so; one no coercion can save is dropped, and the
build says that too. The runtime is the very module every package carries (`codegen/runtime/`):
one copy of the rules.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, NamedTuple

from codegen.catalog.kinds import (
    BooleanKind,
    EnumKind,
    IntegerKind,
    Kind,
    NumberKind,
    StringKind,
)
from codegen.diagnostics import quoted
from codegen.runtime import _runtime as rt

# The runtime's coercions (SPEC §3), by the JSON type they read a value as: a catalog's default or
# enum value is corrected by them as a call's value would be.
COERCE_AS = {
    "boolean": rt.to_bool,
    "integer": rt.to_int,
    "number": rt.to_float,
    "string": rt.to_str,
}


class FormatReading(NamedTuple):
    """A value of a string format as the parser reads it (`_runtime.FORMATS`, the one reader of
    each format): written back as a catalog writes it (a date as ISO-8601 text), with the codes."""

    written: Any
    warnings: list[str]
    errors: list[str]

    def problem(self, fmt: str, value: Any) -> str | None:
        """What is wrong with `value` as a default of format `fmt`, if anything: refused, or read
        as another value than written (the parser's rule, not a second one: a default with space
        around it, or without a UTC offset, is written as the parser reads it)."""
        if self.errors:
            return f"default {quoted(value)} is not of format {fmt}"
        tidied = isinstance(value, str) and value != value.strip()
        if self.written != value and (self.warnings or tidied):
            return f"default {quoted(value)} is of format {fmt} only as the parser corrects it"
        return None


def format_reading(fmt: str, value: Any) -> FormatReading:
    warnings: list[str] = []
    errors: list[str] = []
    read = rt.FORMATS[fmt](value, "default", warnings, errors)
    written = read.isoformat() if isinstance(read, (date, datetime)) else read
    return FormatReading(written, warnings, errors)


def corrected(kind: Kind, value: Any) -> tuple[Any, list[str]] | None:
    """`value` as the parser would take it for `kind`, with the warning codes it would give; None
    when the parser would refuse it, or when the kind is not a scalar one this applies to."""
    warnings: list[str] = []
    errors: list[str] = []
    if kind.nullable and rt.is_null_text(value, "default", warnings):
        return None, warnings
    if kind.format is not None:
        read = format_reading(kind.format, value)
        return None if read.errors else (read.written, read.warnings)
    if isinstance(kind, EnumKind):
        exact = {rt.choice_key(c): c for c in kind.choices}
        folded = {} if kind.case_sensitive else kind.folded
        result = rt.to_choice(value, exact, folded, "default", warnings, errors)
    elif isinstance(kind, (BooleanKind, IntegerKind, NumberKind, StringKind)):
        json_type = {BooleanKind: "boolean", IntegerKind: "integer", NumberKind: "number"}
        coerce = COERCE_AS[json_type.get(type(kind), "string")]
        result = coerce(value, "default", warnings, errors)
    else:
        return None
    if errors or result is rt.INVALID:
        return None
    return result, warnings

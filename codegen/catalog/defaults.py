"""Defaults from the wild: one that does not match its schema is corrected as a call's value would be.

Catalogs in the wild hold `"false"` for a boolean default or `"5"` for an integer one. The build
corrects such a default with the generated runtime's own coercions (SPEC §3), so that it means what
the same text would mean sent by a model, and says so; one no coercion can save is dropped, and the
build says that too. The runtime is the very module every package carries (`codegen/runtime/`):
one copy of the rules.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from codegen.catalog.kinds import (
    BooleanKind,
    DateTimeKind,
    EnumKind,
    IntegerKind,
    Kind,
    NumberKind,
    StringKind,
)
from codegen.runtime import _runtime as rt

# The runtime's coercions (SPEC §3), by the JSON type they read a value as: a catalog's default or
# enum value is corrected by them as a call's value would be.
COERCE_AS = {
    "boolean": rt.to_bool,
    "integer": rt.to_int,
    "number": rt.to_float,
    "string": rt.to_str,
}


def corrected(kind: Kind, value: Any) -> tuple[Any, list[str]] | None:
    """`value` as the parser would take it for `kind`, with the warning codes it would give; None
    when the parser would refuse it, or when the kind is not a scalar one this applies to."""
    warnings: list[str] = []
    errors: list[str] = []
    if kind.nullable and rt.is_null_text(value, "default", warnings):
        return None, warnings
    if type(kind) is DateTimeKind:
        # Written back as text, with the offset the parser gives it, as the schema's default.
        moment = rt.to_datetime(value, "default", warnings, errors)
        if isinstance(moment, datetime):
            return moment.isoformat(), warnings
        return None
    if isinstance(kind, EnumKind):
        exact: dict[tuple[type, object], str | int | float | bool] = {
            (type(c), c): c for c in kind.choices
        }
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

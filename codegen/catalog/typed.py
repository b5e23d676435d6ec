"""Rules for schemas by their JSON `type`: booleans, numbers, strings (and the formats checked),
arrays. Objects are `objects`'s; `rules.TYPE_RULES` names the rule of each type."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from codegen.catalog.backtracking import BACKTRACKING_WARNING, exponential_shape
from codegen.catalog.context import GONE, ToolContext
from codegen.catalog.kinds import (
    PATTERN,
    AnyKind,
    ArrayKind,
    BooleanKind,
    DateKind,
    DateTimeKind,
    IntegerKind,
    Kind,
    NumberKind,
    StringKind,
    TextFormatKind,
)
from codegen.diagnostics import JsonPath, quoted
from codegen.runtime import _runtime as rt

# The checked formats whose value is no text, each a kind of its own; every other checked format
# (`_runtime.FORMATS`) is a `TextFormatKind`, codegen's own `x-attachment` is text, and any other
# format is kept as text, said.
MOMENTS: dict[str, type[DateTimeKind]] = {"date-time": DateTimeKind, "date": DateKind}


def boolean_kind(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    return BooleanKind(nullable=nullable, helper_slot=ctx.helper_slot(parts))


def integer_kind(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    return IntegerKind(nullable=nullable, helper_slot=ctx.helper_slot(parts), **_bounds(schema))


def number_kind(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    return NumberKind(nullable=nullable, helper_slot=ctx.helper_slot(parts), **_bounds(schema))


def _bounds(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "minimum": schema.get("minimum"),
        "maximum": schema.get("maximum"),
        "exclusive_minimum": schema.get("exclusiveMinimum"),
        "exclusive_maximum": schema.get("exclusiveMaximum"),
    }


def string_kind(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    fmt = schema.get("format")
    cls: type[StringKind | DateTimeKind] = StringKind
    if fmt is not None:
        if fmt in MOMENTS:
            cls = MOMENTS[fmt]
        elif fmt in rt.TEXT_FORMATS:
            cls = TextFormatKind
        elif fmt != "x-attachment":
            ctx.warn(
                (*path, "format"),
                f"format {quoted(fmt)} is not checked: values are kept as text",
                "CG101",
            )
    helper = ctx.helper_slot(parts)
    if issubclass(cls, DateTimeKind):
        for word in ("minLength", "maxLength", "pattern"):
            if word in schema:
                ctx.warn(
                    (*path, word),
                    f"keyword {quoted(word)} is not enforced on a {fmt} value",
                    "CG101",
                )
        return cls(nullable=nullable, helper_slot=helper)
    pattern = schema.get("pattern")
    pattern_slot = -1
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            # Python's `re` and ECMA-262 differ: what it cannot compile is not checked, said.
            ctx.warn(
                (*path, "pattern"),
                f"pattern {quoted(pattern)} is not a valid regular expression ({exc}): not checked",
                "CG103",
            )
            ctx.fix((*path, "pattern"), GONE)
            pattern = None
        else:
            pattern_slot = ctx.want(PATTERN, parts)
            if exponential_shape(pattern):
                ctx.warn(
                    (*path, "pattern"),
                    BACKTRACKING_WARNING.format(pattern=quoted(pattern)),
                    "CG110",
                )
    made: Callable[..., StringKind] = (
        partial(TextFormatKind, checked_format=str(fmt)) if cls is TextFormatKind else StringKind
    )
    return made(
        nullable=nullable,
        helper_slot=helper,
        min_length=schema.get("minLength"),
        max_length=schema.get("maxLength"),
        pattern=pattern,
        pattern_slot=pattern_slot,
    )


def array_kind(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    items = schema.get("items")
    max_items = schema.get("maxItems")
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        # `items` is then about the items after the prefix, whose own kinds the parser does not
        # check (the keyword's CG101 says so): what it says of the others cannot hold for all.
        if items is False:  # nothing after the prefix: at most its length
            max_items = len(prefix) if max_items is None else min(max_items, len(prefix))
        elif items is not None:
            message = (
                "keyword 'items' (after 'prefixItems') is not enforced by the generated parser"
            )
            ctx.warn((*path, "items"), message, "CG101")
        items = None
    if items is False:  # no item may be there: only the empty list
        items, max_items = None, 0
    item_kind = None if items is None else ctx.kind(items, (*path, "items"), (*parts, "item"))
    if isinstance(item_kind, AnyKind):
        item_kind = None  # a list of anything needs no per-item work
    return ArrayKind(
        items=item_kind,
        min_items=schema.get("minItems"),
        max_items=max_items,
        nullable=nullable,
        helper_slot=ctx.helper_slot(parts),
    )

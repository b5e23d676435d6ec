"""`enum` and `const`: closed sets of scalar values, or of JSON values compared as JSON."""

from __future__ import annotations

import json
from typing import Any

from codegen.catalog.context import GONE, ToolContext
from codegen.catalog.defaults import COERCE_AS
from codegen.catalog.keywords import beside_choices
from codegen.catalog.kinds import (
    CHOICES,
    FOLDED,
    TABLE,
    VALUES,
    AnyKind,
    EnumKind,
    JsonChoiceKind,
    Kind,
    NullKind,
)
from codegen.diagnostics import JsonPath, excerpt, quoted
from codegen.runtime import _runtime as rt


def enum_kind(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    source = "enum" if "enum" in schema else "const"
    raw = schema["enum"] if source == "enum" else [schema["const"]]
    types = schema.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        nullable = True
    listed = raw
    raw = of_type(ctx, raw, types, path, source)
    if len(raw) != len(listed) or any(a is not b for a, b in zip(raw, listed, strict=True)):
        # What the parser enforces, and what the payloads send.
        ctx.fix((*path, source), (raw if source == "enum" else raw[0]) if raw else GONE)
    if not raw:
        # No listed value is of the schema's type, or can be read as one: a set nothing could
        # be in says nothing a model can use, and is left out (said for each value above).
        return ctx.kind({k: v for k, v in schema.items() if k != source}, path, parts)
    if any(isinstance(choice, (dict, list)) for choice in raw):
        return json_choice_kind(ctx, schema, raw, path, parts, nullable)
    choices: list[str | int | float | bool] = []
    seen: set[tuple[type, object]] = set()
    for i, choice in enumerate(raw):
        where = (*path, source, i) if source == "enum" else (*path, source)
        if choice is None:
            nullable = True
        elif isinstance(choice, (dict, list)):
            ctx.error(where, "enum values must be strings, numbers or booleans")
        elif rt.choice_key(choice) in seen:
            ctx.error(where, f"duplicate enum value {quoted(choice)}")
        else:
            seen.add(rt.choice_key(choice))
            choices.append(choice)
    for word, message in beside_choices(schema, source):
        ctx.warn((*path, word), message, "CG101")
    if not choices:
        return (
            NullKind(code="enum_out_of_range", helper_slot=ctx.helper_slot(parts))
            if nullable
            else AnyKind()
        )
    alias = ctx.class_slot(path, parts)
    table = ctx.want(TABLE, parts)
    folded = ctx.want(FOLDED, base=table)
    one_type = len({type(c) for c in choices}) == 1
    return EnumKind(
        choices=tuple(choices),
        case_sensitive=schema.get("x-case-sensitive") is True,
        alias_slot=alias,
        table_slot=table,
        folded_slot=folded,
        values_slot=ctx.want(VALUES, base=table) if one_type else -1,
        nullable=nullable,
        helper_slot=ctx.helper_slot(parts),
    )


def of_type(ctx: ToolContext, raw: list[Any], types: Any, path: JsonPath, source: str) -> list[Any]:
    """The listed values that have the schema's `type` (both must hold). One of another type is
    read as the parser reads a call's value of that type (`"1"` for an integer, `"True"` for a
    boolean, as function-calling datasets list them), and said; one that cannot be is left out,
    and said, since no value can equal it. `null` is read as "nullable", as catalogs mean it."""
    declared = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    if not declared:
        return raw
    scalar = [t for t in declared if t != "null"]
    coerce = COERCE_AS.get(scalar[0]) if len(scalar) == 1 else None
    kept: list[Any] = []
    for i, choice in enumerate(raw):
        if choice is None or _json_types(choice) & set(declared):
            kept.append(choice)
            continue
        where = (*path, source, i) if source == "enum" else (*path, source)
        if coerce is not None:
            warnings: list[str] = []
            errors: list[str] = []
            value = coerce(choice, source, warnings, errors)
            if not errors and value is not rt.INVALID and _json_types(value) & set(declared):
                shown = excerpt(json.dumps(value, ensure_ascii=False))
                said = (
                    f"{source} value {quoted(choice)} is not of type {scalar[0]}: read as {shown}"
                )
                if any(type(k) is type(value) and k == value for k in kept + raw[i + 1 :]):
                    ctx.warn(where, f"{said}, which is listed already: left out", "CG103")
                else:
                    ctx.warn(where, f"{said}, as a call's value would be", "CG102")
                    kept.append(value)
                continue
        hint = ""
        if "array" in declared and not isinstance(choice, (list, dict)):
            hint = " (a list whose items are among these values is `items: {enum: [...]}`)"
        ctx.warn(
            where,
            f"{source} value {quoted(choice)} is not of type {' or '.join(declared)}: no value can "
            f"equal it, so it is left out{hint}",
            "CG103",
        )
    return kept


def json_choice_kind(
    ctx: ToolContext,
    schema: dict[str, Any],
    raw: list[Any],
    path: JsonPath,
    parts: tuple[str, ...],
    nullable: bool,
) -> Kind:
    source = "enum" if "enum" in schema else "const"
    for word, message in beside_choices(schema, source):
        ctx.warn((*path, word), message, "CG101")
    return JsonChoiceKind(
        choices=tuple(choice for choice in raw if choice is not None),
        table_slot=ctx.want(CHOICES, parts),
        nullable=nullable or any(choice is None for choice in raw),
        helper_slot=ctx.helper_slot(parts),
    )


def _json_types(value: Any) -> set[str]:
    """The JSON Schema types a value has (an integral number is both integer and number)."""
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"integer", "number"} if value.is_integer() else {"number"}
    if isinstance(value, str):
        return {"string"}
    if isinstance(value, list):
        return {"array"}
    if isinstance(value, dict):
        return {"object"}
    return {"null"}

"""The kind of a schema: the keywords that decide it, in a fixed order, each handed to its rule.

A rule is a plain function of the tool's context (`context.ToolContext`) and a schema; rules for a
nested schema call `ctx.kind`, which comes back here. A new kind of value is a rule and its entry
in `TYPE_RULES` (or `typed.MOMENTS` for a string format with a Python type of its own), a class in `kinds`, and one entry in each
back end's table (tests/test_kinds.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegen.catalog.choices import enum_kind
from codegen.catalog.combinations import merged_all_of, referenced, union_of
from codegen.catalog.context import MAX_MERGES, ToolContext
from codegen.catalog.kinds import AnyKind, Kind, NullKind, UnionKind
from codegen.catalog.objects import object_type
from codegen.catalog.typed import array_kind, boolean_kind, integer_kind, number_kind, string_kind
from codegen.catalog.typeless import inferred_types
from codegen.diagnostics import JsonPath

# (context, schema, path inside the parameters, the parts that name it, nullable) → its kind.
Rule = Callable[[ToolContext, dict[str, Any], JsonPath, tuple[str, ...], bool], Kind]

# The rule of each JSON type (null aside: it makes the others nullable).
TYPE_RULES: dict[str, Rule] = {
    "boolean": boolean_kind,
    "integer": integer_kind,
    "number": number_kind,
    "string": string_kind,
    "array": array_kind,
    "object": object_type,
}


def kind_of(ctx: ToolContext, schema: Any, path: JsonPath, parts: tuple[str, ...]) -> Kind:
    """The kind of `schema`, at `path` inside the parameters; `parts` name it (`settings`, `mode`)."""
    if schema is True or schema == {}:
        return AnyKind()
    if schema is False:
        ctx.error(path, "a `false` schema accepts no value")
        return AnyKind()
    if "$ref" in schema:
        return referenced(ctx, schema, path, parts)
    for _ in range(MAX_MERGES):
        if "allOf" not in schema:
            break
        schema = merged_all_of(ctx, schema, path)
        if schema is False:
            return AnyKind()
    nullable = schema.get("nullable") is True
    if "enum" in schema or "const" in schema:
        return enum_kind(ctx, schema, path, parts, nullable)
    if "anyOf" in schema or "oneOf" in schema:
        return union_of(ctx, schema, path, parts, nullable)
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    if "type" not in schema:
        types, message = inferred_types(schema)
        if message is not None:
            ctx.warn(path, message, "CG107")
    elif not types:
        # Only a merge leaves no type (the meta-schema refuses `type: []`).
        ctx.error(path, "the types of the schemas merged here (allOf, $ref) share no value")
        return AnyKind()
    if "null" in types:
        nullable = True
        types.remove("null")
        if not types:
            ctx.check_keywords(schema, path, ["null"])
            return NullKind(helper_slot=ctx.helper_slot(parts))
    ctx.check_keywords(schema, path, types)
    if not types:
        return AnyKind()
    if len(types) == 1:
        return typed(ctx, types[0], schema, path, parts, nullable)
    members = tuple(typed(ctx, t, schema, path, (*parts, t), False) for t in types)
    return UnionKind(members=members, nullable=nullable, helper_slot=ctx.helper_slot(parts))


def typed(
    ctx: ToolContext,
    type_name: str,
    schema: dict[str, Any],
    path: JsonPath,
    parts: tuple[str, ...],
    nullable: bool,
) -> Kind:
    """The kind of `schema` read as one JSON type, by that type's rule."""
    ctx.check_bounds(schema, path)
    # The meta-schema allows no other type name, but a `$ref` may point into an extension keyword
    # it does not check: such a schema is read as an object, as it always was.
    rule = TYPE_RULES.get(type_name, object_type)
    return rule(ctx, schema, path, parts, nullable)

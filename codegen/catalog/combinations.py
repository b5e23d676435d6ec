"""Schemas made of others: `allOf` merged, `$ref` followed (siblings beside it), unions."""

from __future__ import annotations

import dataclasses
from typing import Any

from codegen.catalog.context import MAX_MERGES, ToolContext
from codegen.catalog.keywords import unenforced
from codegen.catalog.kinds import AnyKind, Kind, NullKind, UnionKind
from codegen.catalog.refs import ANNOTATIONS, RefError, conjoin, merge_all_of, ref_target
from codegen.diagnostics import JsonPath, quoted


def merged_all_of(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath
) -> dict[str, Any] | bool:
    """`schema` with its `allOf` members merged in (False when one of them accepts nothing)."""
    members: list[dict[str, Any]] = []
    for i, member in enumerate(schema["allOf"]):
        if member is False:
            ctx.error((*path, "allOf", i), "a `false` schema accepts no value")
            return False
        members.append(resolved(ctx, member, (*path, "allOf", i)))
    merged, notes = merge_all_of(schema, members)
    for note in notes:
        ctx.warn((*path, "allOf"), note, "CG108")
    return merged


def resolved(ctx: ToolContext, schema: Any, path: JsonPath, depth: int = 0) -> dict[str, Any]:
    """`schema` with its `$ref` followed (for merging `allOf` members)."""
    if isinstance(schema, dict) and "$ref" in schema and depth < MAX_MERGES:
        try:
            _, target = ref_target(ctx.root, schema["$ref"], (*path, "$ref"))
        except RefError as exc:
            ctx.error(exc.path, exc.message)
            return {}
        if target is False:
            ctx.error(path, "a `false` schema accepts no value")
            return {}
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        merged, notes = conjoin(resolved(ctx, target, path, depth + 1), rest)
        for note in notes:
            ctx.warn((*path, "$ref"), note, "CG108")
        return merged
    return schema if isinstance(schema, dict) else {}


def referenced(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...]
) -> Kind:
    ref = schema["$ref"]
    try:
        name, target = ref_target(ctx.root, ref, (*path, "$ref"))
    except RefError as exc:
        ctx.error(exc.path, exc.message)
        return AnyKind()
    if ref in ctx.resolving:
        ctx.error(
            (*path, "$ref"),
            f"$ref {quoted(ref)} refers to itself: recursive schemas are not supported",
        )
        return AnyKind()
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    shareable = set(siblings) <= ANNOTATIONS
    if shareable and ref in ctx.shared:
        return ctx.shared[ref]
    ctx.resolving.append(ref)
    if shareable:
        # One kind for every use: the definition as written (a use's own description
        # describes the parameter, not the shared class).
        kind = ctx.kind(target, tuple(ref[2:].split("/")), (name,))
    else:
        # The siblings of a $ref apply beside it (2020-12): both must hold.
        kind = ctx.kind(resolved(ctx, schema, path), path, parts)
    ctx.resolving.pop()
    if shareable:
        ctx.shared[ref] = kind
    return kind


def union_of(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    combiner = "anyOf" if "anyOf" in schema else "oneOf"
    members: list[Kind] = []
    # What the schema says beside the combiner holds for every member (a oneOf beside an
    # anyOf among it, so both are enforced).
    outer = {
        k: v
        for k, v in schema.items()
        if k not in (combiner, "description", "title", "default", "examples")
    }
    # A keyword no type has is not enforced: said once, where it is, not in every branch.
    for word, message in unenforced(outer, []):
        ctx.warn((*path, word), message, "CG101")
        del outer[word]
    constraints = [k for k in outer if k not in ANNOTATIONS and not k.startswith("x-")]
    branches = schema[combiner]
    for i, member in enumerate(branches):
        where = (*path, combiner, i)
        if member is False:
            continue  # a branch that takes nothing never matches
        followed = resolved(ctx, member, where) if isinstance(member, dict) else member
        if (
            isinstance(followed, dict)
            and followed.get("type") == "null"
            and set(followed) - {"type"} <= ANNOTATIONS
        ):
            nullable = True
            continue
        if member is True:
            member_schema = outer
        elif not constraints:
            # Only notes beside the combiner: a $ref branch stays the shared definition.
            member_schema = member if "$ref" in member else {**outer, **member}
        else:
            member_schema, notes = conjoin(outer, followed)
            for note in notes:
                ctx.warn(where, note, "CG108")
        kind = ctx.kind(member_schema, where, parts if len(branches) <= 2 else (*parts, str(i)))
        if isinstance(kind, NullKind):
            nullable = True
            continue
        if kind.accepts_anything and combiner == "anyOf":
            return AnyKind()  # one branch takes every value, so the union does
        if kind.nullable and not kind.accepts_anything:
            nullable = True
            kind = dataclasses.replace(
                kind, nullable=False, helper_slot=ctx.helper_slot((*parts, "value"))
            )
        members.append(kind)
    if all(member is False for member in branches):
        ctx.error(
            (*path, combiner),
            f"every branch of this {combiner} is `false`: it accepts no value",
        )
        return AnyKind()
    if not members:
        return NullKind(helper_slot=ctx.helper_slot(parts))
    if len(members) == 1:
        only = members[0]
        if not nullable or only.accepts_anything:
            return only
        # A shared definition keeps its own helper for its other uses; a private one is reused.
        shared = any(only is kind for kind in ctx.shared.values())
        return dataclasses.replace(
            only, nullable=True, helper_slot=ctx.helper_slot(parts) if shared else only.helper_slot
        )
    # Members that take disjoint JSON types never both match: oneOf is then anyOf.
    disjoint = sum(len(m.json_types) for m in members) == len(
        frozenset().union(*(m.json_types for m in members))
    )
    return UnionKind(
        members=tuple(members),
        nullable=nullable,
        helper_slot=ctx.helper_slot(parts),
        exactly_one=combiner == "oneOf" and not disjoint,
    )

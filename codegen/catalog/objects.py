"""Rules for `type: object`: with properties a record (a dataclass) each, with their fields
(wire names and pins: their Python names are the code back end's, `python.attributes`) and checked
defaults; without, a map or a free-form object."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from codegen.catalog.context import GONE, ToolContext
from codegen.catalog.defaults import corrected, format_reading
from codegen.catalog.kinds import (
    DRAFT,
    KEYS,
    AnyKind,
    Field,
    IntegerKind,
    Kind,
    MapKind,
    ObjectKind,
)
from codegen.diagnostics import JsonPath, quoted, worded


def object_type(
    ctx: ToolContext, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
) -> Kind:
    """An object: with properties a record of its own, without them a map or a free-form dict.
    `additionalProperties: false` alone allows no name at all: a record without fields."""
    if "properties" in schema or schema.get("additionalProperties") is False:
        class_slot = ctx.class_slot(path, parts)
        return object_kind(
            ctx, schema, path, parts, class_slot, ctx.helper_slot(parts), nullable=nullable
        )
    extra = schema.get("additionalProperties")
    values = (
        None
        if extra is None
        else ctx.kind(extra, (*path, "additionalProperties"), (*parts, "value"))
    )
    if isinstance(values, AnyKind):
        values = None
    required = schema.get("required", [])
    return MapKind(
        values=values,
        required=tuple(required),
        nullable=nullable,
        helper_slot=ctx.helper_slot(parts),
    )


def object_kind(
    ctx: ToolContext,
    schema: dict[str, Any],
    path: JsonPath,
    parts: tuple[str, ...],
    class_slot: int,
    helper_slot: int,
    root: bool = False,
    nullable: bool = False,
) -> Kind:
    if root:
        ctx.check_keywords(schema, path, ["object"])
    properties: dict[str, Any] = schema.get("properties", {})
    listed = schema.get("required", [])
    required: list[str] = list(listed) if isinstance(listed, list) else []
    for i, name in enumerate(list(required)):
        if name not in properties:
            # JSON Schema would require a key the object declares nothing about.
            ctx.warn(
                (*path, "required", i),
                f"required parameter {quoted(name)} is not in properties: not enforced",
                "CG101",
            )
            required.remove(name)
    if required != listed and (required or isinstance(listed, list)):
        ctx.fix((*path, "required"), list(required))
    fields: list[Field] = []
    for wire, prop in properties.items():
        where = (*path, "properties", wire)
        kind = ctx.kind(prop, where, (*parts, wire))
        fields.append(field(ctx, wire, kind, prop, where, wire in required))
    extra_schema = schema.get("additionalProperties")
    extra = None
    if isinstance(extra_schema, dict) and extra_schema:
        extra = ctx.kind(extra_schema, (*path, "additionalProperties"), (*parts, "extra"))
    return ObjectKind(
        class_slot=class_slot,
        description=schema.get("description", ""),
        fields=tuple(fields),
        extra=extra,
        # Open (other keys allowed, as JSON Schema says): they are kept, in a field of their own.
        open=extra_schema is True or isinstance(extra_schema, dict),
        root=root,
        nullable=nullable,
        helper_slot=helper_slot,
        keys_slot=ctx.want(KEYS, base=helper_slot),
        draft_slot=ctx.want(DRAFT, base=helper_slot),
    )


def field(
    ctx: ToolContext, wire: str, kind: Kind, prop: Any, path: JsonPath, required: bool
) -> Field:
    description = prop.get("description", "") if isinstance(prop, dict) else ""
    examples = prop.get("examples", []) if isinstance(prop, dict) else []
    examples = tuple(examples) if isinstance(examples, list) else ()
    pinned = prop.get("x-python-name") if isinstance(prop, dict) else None
    # The field but its default, which each return below gives or leaves out.
    made = partial(
        Field,
        wire,
        kind,
        required,
        description,
        examples=examples,
        pinned=pinned,
        path=(*ctx.base[2:], *path),
    )
    if not isinstance(prop, dict) or "default" not in prop:
        return made()
    default = prop["default"]
    if default is None and not kind.nullable:
        # `default: null` means "no value"
        return made()
    if isinstance(kind, IntegerKind) and isinstance(default, float) and default.is_integer():
        default = int(default)
    problems = list(default_problems(ctx, prop, kind, default))
    if problems:
        # A default from the wild: corrected as a call's value would be, or left out; said.
        fixed = corrected(kind, default)
        if fixed is None or list(default_problems(ctx, prop, kind, fixed[0])):
            ctx.warn((*path, "default"), f"{problems[0]}: the parameter has no default", "CG105")
            ctx.fix((*path, "default"), GONE)
            return made()
        default, codes = fixed
        how = ", ".join(code.split(":", 1)[0] for code in codes) or "as the parser reads it"
        ctx.warn((*path, "default"), f"{problems[0]}: read as {quoted(default)} ({how})", "CG105")
        ctx.fix((*path, "default"), default)
    return made(has_default=True, default=default)


def default_problems(
    ctx: ToolContext, prop: dict[str, Any], kind: Kind, default: Any
) -> Iterator[str]:
    from jsonschema import Draft202012Validator  # imported when a tool is checked (validate.py)
    from referencing.exceptions import Unresolvable

    context = {key: ctx.root[key] for key in ("$defs", "definitions") if key in ctx.root}
    validator = Draft202012Validator({**context, **prop})
    try:
        found = sorted(validator.iter_errors(default), key=lambda e: list(e.absolute_path))
    except Unresolvable:
        # A reference jsonschema cannot follow (a `$dynamicRef`, which codegen does not enforce
        # and says so): the default is checked by its kind below, as the parser will check it.
        found = []
    for problem in found:
        if problem.validator != "default":
            # The schema is the catalog's too: an `enum` or a `const` in it is written whole.
            said = worded(problem.message, problem.instance, problem.validator_value)
            yield f"default {quoted(default)} does not match the parameter's schema: {said}"
            return
    if kind.format is not None and default is not None:
        wrong = format_reading(kind.format, default).problem(kind.format, default)
        if wrong is not None:
            yield wrong

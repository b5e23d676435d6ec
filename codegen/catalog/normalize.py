"""Turn a validated catalog into the IR: kinds, the names they need, checked defaults.

Problems are collected, not raised, so that one run reports every one of them.
"""

from __future__ import annotations

import hashlib
import json
import keyword
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from codegen.catalog.context import ToolContext
from codegen.catalog.ir import Catalog, Tool, classes_of
from codegen.catalog.kinds import (
    ARGS,
    KEYWORDS,
    RESULT,
    EnumKind,
    JsonChoiceKind,
    ObjectKind,
    StringKind,
    walk,
)
from codegen.catalog.load import LoadedCatalog, tool_line_maps
from codegen.catalog.objects import object_kind
from codegen.catalog.returns import has_result, result_of
from codegen.catalog.reuse import (
    Relative,
    StoredTool,
    ToolResults,
    anchored,
    head,
    is_head,
    is_relative,
    layout,
    relative,
    spec_digest,
)
from codegen.catalog.rules import kind_of
from codegen.diagnostics import Diagnostic, JsonPath, excerpt, format_path, quoted

# MCP `Tool` fields kept as written for MCP_TOOLS, in the order MCP's schema lists them.
MCP_FIELDS = ("outputSchema", "execution", "icons", "_meta")


def normalize(
    loaded: LoadedCatalog,
    skip: set[int] | frozenset[int] = frozenset(),
    results: ToolResults | None = None,
    *,
    modules: Mapping[int, str],
    named: Callable[[Tool], list[Diagnostic]],
) -> tuple[Catalog | None, list[Diagnostic]]:
    """The IR of a catalog whose shape the meta-schema accepted; tools in `skip` failed it and are
    left out. Each tool's module is the code back end's (`modules`, by index:
    `python.namespace.tool_names`); every other name is the back end's, from the tool's `wants`.
    With `results`, a tool the last build normalized with the same definition, module and layout
    is taken from there, its findings anchored where it is now. `named` says what the code back
    end finds in a tool's names (`python.module_names.findings`): kept with the tool's own
    findings, so a rebuild gives them back with the rest."""
    data = loaded.data
    problems: list[Diagnostic] = []
    if keyword.iskeyword(data["name"]):
        message = f"catalog name {quoted(data['name'])} is a Python keyword: the generated package could not be imported"
        problems.append(loaded.diagnostic(("name",), message))
    tools: list[Tool] = []
    lines = _lines_by_tool(loaded)
    seen: set[str] = set()
    # A tool read from its item has a key that fixes its data and layout (`tool_keys`).
    keys = loaded.tool_keys if loaded.by_items() else ()
    for index, spec in enumerate(data["tools"]):
        if index in skip:
            continue
        duplicate = spec["name"] in seen
        seen.add(spec["name"])
        if duplicate:
            problems.append(
                loaded.diagnostic(
                    ("tools", index, "name"), f"duplicate tool name {quoted(spec['name'])}"
                )
            )
            continue
        module = modules[index]
        lines_of_tool = lines.get(index, {})
        line, path = loaded.line_of(("tools", index)), format_path(("tools", index))
        where = (keys[index],) if keys else (spec_digest(spec), layout(lines_of_tool, line))
        parts = (*where, module)
        # The tool's context, but for the list its findings go to.
        context = partial(
            ToolContext,
            loaded,
            index,
            spec,
            lines=lines_of_tool,
            kind_of=kind_of,
        )
        reused = _reused(results, parts, partial(_normalized_again, context, module))
        tool: Tool | None
        if reused is not None:
            stored, found, whole = reused
            problems += anchored(loaded.file, found, line, path)
            place = (line, path, lines_of_tool)
            tool = None if stored is None else StoredTool(stored, place, whole)
        else:
            start = len(problems)
            try:
                tool = tool_ir(context(problems=problems), module)
            except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
                problems.append(loaded.diagnostic(("tools", index), internal_error(exc)))
                continue
            if tool is not None:
                problems += named(tool)
            if results is not None:
                found = relative(problems[start:], line, path)
                results.put("tool", parts, (tool and head(tool), found))
                if tool is not None:
                    results.put("tool-ir", parts, tool)
        if tool is not None:
            tools.append(tool)
    if any(p.level == "error" for p in problems):
        return None, problems
    catalog = Catalog(
        name=data["name"],
        title=data.get("title"),
        version=data.get("version"),
        description=data.get("description", ""),
        source=loaded.file,
        sha256=loaded.sha256,
        tools=tuple(tools),
        name_line=loaded.line_of(("name",)),
    )
    return catalog, problems


def _is_reused(value: Any) -> bool:
    """The shape of a tool normalized before: (its head, or None after an error; its findings).
    Its whole IR is kept under "tool-ir", with the same key."""
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and (value[0] is None or is_head(value[0]))
        and is_relative(value[1])
    )


def _reused(
    results: ToolResults | None, parts: tuple[str, ...], again: Callable[[], Tool]
) -> tuple[dict[str, Any] | None, list[Relative], Callable[[], Tool]] | None:
    """What the last build normalized under this key: the tool's head (None after an error), its
    findings, and the reader of its whole IR (`StoredTool`), which makes it `again` when the
    record cannot give it back; None: normalize it now."""
    if results is None:
        return None
    reused = results.get("tool", *parts, shape=_is_reused)
    if reused is None or (reused[0] is not None and not results.keep("tool-ir", *parts)):
        return None
    return reused[0], reused[1], partial(_stored_ir, results, parts, again)


def _stored_ir(results: ToolResults, parts: tuple[str, ...], again: Callable[[], Tool]) -> Tool:
    """The whole IR of a tool the last build normalized (`StoredTool`), kept in the record beside
    its head; normalized `again` when the record cannot give it back."""
    tool: Tool | None = results.get("tool-ir", *parts, shape=lambda value: isinstance(value, Tool))
    return again() if tool is None else tool


def _normalized_again(context: Callable[..., ToolContext], module: str) -> Tool:
    # The tool's findings are the head's already: the definition is the same, and so are they.
    tool = tool_ir(context(problems=[]), module)
    if tool is None:  # the same definition normalized without an error before
        raise LookupError("a tool normalized before failed to normalize again")
    return tool


def _lines_by_tool(loaded: LoadedCatalog) -> dict[int, dict[JsonPath, int]]:
    """Each tool's line map, by path inside the tool: as read, or one pass over the catalog's lines."""
    return dict(enumerate(loaded.tool_lines)) if loaded.by_items() else tool_line_maps(loaded.lines)


def internal_error(exc: BaseException) -> str:
    """The message for a failure of codegen itself on a tool: a bug, reported where it happened."""
    return f"codegen failed on this tool, which is a bug in codegen (please report it with this tool): {type(exc).__name__}: {excerpt(str(exc))}"


def definition_digest(spec: dict[str, Any]) -> str:
    """The digest of a tool's definition as written (its `$defs` live inside its parameters)."""
    text = json.dumps(spec, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tool_ir(ctx: ToolContext, module: str) -> Tool | None:
    """One tool of the IR, from its context (None when its parameters have an error), its module
    `module` (the code back end's)."""
    # Before any parameter's class can claim one: the tool's own names are the ones the code back
    # end resolved against every other tool's and the package's (`python.namespace`).
    ctx.want(KEYWORDS)
    args_slot = ctx.want(ARGS)
    result_slot = ctx.want(RESULT) if has_result(ctx.spec) else -1
    root = object_kind(ctx, ctx.root, (), (), args_slot, ctx.root_helper, root=True)
    result = result_of(ctx, result_slot)
    if ctx.failed or not isinstance(root, ObjectKind):
        return None
    kinds = list(dict.fromkeys(walk(root)))  # a shared definition appears once
    classes = classes_of(tuple(kinds))
    if result is not None:
        kinds += result.kinds
    return Tool(
        wire_name=ctx.spec["name"],
        description=ctx.spec["description"],
        title=ctx.spec.get("title"),
        module=module,
        pinned=ctx.spec.get("x-python-name"),
        args=root,
        parse_name=f"parse_{module}",
        wants=tuple(ctx.wants),
        schema=ctx.fixed_schema(),
        classes=classes,
        enums=tuple(k for k in kinds if isinstance(k, EnumKind)),
        choice_lists=tuple(k for k in kinds if isinstance(k, JsonChoiceKind)),
        patterns=tuple(k for k in kinds if isinstance(k, StringKind) and k.pattern is not None),
        sha256=definition_digest(ctx.spec),
        line=ctx.loaded.line_of(ctx.base[:2]),
        path=format_path(ctx.base[:2]),
        annotations=dict(ctx.spec.get("annotations", {})),
        examples=tuple(ctx.spec.get("examples", ())),
        lines=ctx.lines,
        mcp_fields={k: ctx.spec[k] for k in MCP_FIELDS if k in ctx.spec},
        result=result,
    )

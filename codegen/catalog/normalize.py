"""Turn a validated catalog into the IR: kinds, the names they need, checked defaults.

Problems are collected, not raised, so that one run reports every one of them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import keyword
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from codegen.catalog.context import ToolContext
from codegen.catalog.ir import Body, Catalog, Packed, Tool, class_slots, classes_of
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
from codegen.catalog.relative import ALONE_PATH, Relative, alone, anchored, relative, tool_key
from codegen.catalog.returns import has_result, result_of
from codegen.catalog.rules import kind_of
from codegen.diagnostics import Diagnostic, JsonPath, excerpt, format_path, quoted
from codegen.workers import Mapper, map_in_workers

# MCP `Tool` fields kept as written for MCP_TOOLS, in the order MCP's schema lists them.
MCP_FIELDS = ("outputSchema", "execution", "icons", "_meta")


def normalize(
    loaded: LoadedCatalog,
    skip: set[int] | frozenset[int] = frozenset(),
    each: Mapper = map_in_workers,
    *,
    named: Mapping[int, Callable[[Tool], list[Diagnostic]]],
) -> tuple[Catalog | None, list[Diagnostic]]:
    """The IR of a catalog whose shape the meta-schema accepted; tools in `skip` failed it and are
    left out. Every Python name is the code back end's, from the tool's `wants`. Each tool is
    normalized alone, by `each` (`_normalize_alone`), its findings anchored where it is.
    `named[index]` says what the code back end finds in that tool's names (`build.NameCheck`,
    whose `repr` names all it reads besides the tool): kept with the tool's own findings, so a
    memo gives them back with the rest."""
    data = loaded.data
    problems: list[Diagnostic] = []
    if keyword.iskeyword(data["name"]):
        message = f"catalog name {quoted(data['name'])} is a Python keyword: the generated package could not be imported"
        problems.append(loaded.diagnostic(("name",), message))
    lines = _lines_by_tool(loaded)
    seen: set[str] = set()
    # A tool read from its item has a key that fixes its data and layout (`tool_keys`).
    keys = loaded.tool_keys if loaded.by_items() else ()
    pieces: list[tuple[int, _Piece]] = []
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
        lines_of_tool = lines.get(index, {})
        key = keys[index] if keys else None
        pieces.append((index, _Piece(loaded.file, key, spec, lines_of_tool, named[index])))
    tools: list[Tool] = []
    made = each(_normalize_alone, [piece for _, piece in pieces], least=_IN_PROCESS)
    for (index, piece), (tool, found) in zip(pieces, made, strict=True):
        line, path = loaded.line_of(("tools", index)), format_path(("tools", index))
        problems += anchored(loaded.file, found, line, path)
        if tool is not None:
            tools.append(dataclasses.replace(tool, line=line, path=path, lines=piece.lines))
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


# Normalizing a tool is quicker than sending it to a worker process and its IR back.
_IN_PROCESS = sys.maxsize


@dataclass(frozen=True)
class _Piece:
    """A tool to normalize alone: its file, its key (`LoadedCatalog.tool_keys`, which fixes its
    data and layout; None: known by both), data, line map and the code back end's check of its
    names (`named`)."""

    file: str
    key: str | None
    spec: dict[str, Any]
    lines: dict[JsonPath, int]
    named: Callable[[Tool], list[Diagnostic]]

    def __repr__(self) -> str:
        # All that `_normalize_alone` reads, for a memo's key (`workers.Mapper`); `named` is a
        # function of the tool and what its repr names (the tool's names at the package's top).
        return repr((self.file, self.key or tool_key(self.spec, self.lines), self.named))


def _normalize_alone(piece: _Piece) -> tuple[Tool | None, list[Relative]]:
    """A tool's IR (None after an error) and its findings relative to it; the IR is where the tool
    alone is (the first of a catalog of one), to be placed where it is, with its line map
    (`normalize`)."""
    catalog = alone(piece.file, piece.spec, piece.lines)
    problems: list[Diagnostic] = []
    context = ToolContext(
        catalog, 0, piece.spec, problems=problems, lines=piece.lines, kind_of=kind_of
    )
    try:
        tool = tool_ir(context)
    except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
        problems.append(catalog.diagnostic(("tools", 0), internal_error(exc)))
        tool = None
    if tool is not None:
        problems += piece.named(tool)
        tool = dataclasses.replace(tool, lines={})  # a quarter of what a memo would keep of it
    return tool, relative(problems, catalog.line_of(("tools", 0)), ALONE_PATH)


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


def tool_ir(ctx: ToolContext) -> Tool | None:
    """One tool of the IR, from its context (None when its parameters have an error)."""
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
    body = Body(
        args=root,
        schema=ctx.fixed_schema(),
        classes=classes,
        enums=tuple(k for k in kinds if isinstance(k, EnumKind)),
        choice_lists=tuple(k for k in kinds if isinstance(k, JsonChoiceKind)),
        patterns=tuple(k for k in kinds if isinstance(k, StringKind) and k.pattern is not None),
        mcp_fields={k: ctx.spec[k] for k in MCP_FIELDS if k in ctx.spec},
        result=result,
    )
    return Tool(
        wire_name=ctx.spec["name"],
        description=ctx.spec["description"],
        title=ctx.spec.get("title"),
        pinned=ctx.spec.get("x-python-name"),
        wants=tuple(ctx.wants),
        sha256=definition_digest(ctx.spec),
        class_slots=class_slots(body),
        body=Packed(body),
        line=ctx.loaded.line_of(ctx.base[:2]),
        path=format_path(ctx.base[:2]),
        annotations=dict(ctx.spec.get("annotations", {})),
        examples=tuple(ctx.spec.get("examples", ())),
        lines=ctx.lines,
    )

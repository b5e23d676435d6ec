"""A tool's result schema (`returns`, or MCP's `outputSchema`) read into kinds, by the same rules
as its parameters: the result's dataclass `<Tool>Result`, and the checker the executor runs on
what a handler returns.

The result is normalized with a twin of the tool's context that shares its module's names (the
result's classes and helpers live in the tool's module beside the arguments') and reads the
result schema in place of the parameters. A catalog author's `returns` is held to the rules of
the parameters; an `outputSchema` from a server's `tools/list` is the server's, so what cannot be
typed in it leaves the tool's results untyped, with a warning, and never fails the build.
"""

from __future__ import annotations

import copy
from typing import Any

from codegen.catalog.context import ToolContext
from codegen.catalog.ir import Result
from codegen.catalog.kinds import ObjectKind, walk
from codegen.catalog.objects import object_kind
from codegen.diagnostics import Diagnostic, JsonPath

# The two keys a tool may give its result schema under; `returns` is the catalog format's own.
RETURNS, OUTPUT_SCHEMA = "returns", "outputSchema"


def has_result(spec: dict[str, Any]) -> bool:
    """Whether a tool declares a result schema (which may still turn out untyped)."""
    return RETURNS in spec or OUTPUT_SCHEMA in spec


def result_of(tool: ToolContext, class_slot: int) -> Result | None:
    """The typed result of the tool `tool` normalizes, its class in slot `class_slot` (taken before its
    arguments' classes), or None when it declares none (or an `outputSchema` that cannot be
    typed, said as a warning)."""
    spec = tool.spec
    source = RETURNS if RETURNS in spec else OUTPUT_SCHEMA if OUTPUT_SCHEMA in spec else None
    if source is None:
        return None
    if source == RETURNS and OUTPUT_SCHEMA in spec:
        tool.problems.append(
            tool.loaded.diagnostic(
                (*tool.base[:2], OUTPUT_SCHEMA),
                "a tool with both `returns` and `outputSchema`: `returns` is its result schema,"
                " `outputSchema` is ignored (MCP_TOOLS sends `returns` as the outputSchema)",
                "CG103",
            )
        )
    schema = spec[source]
    path = (*tool.base[:2], source)
    if source == OUTPUT_SCHEMA and schema.get("type") != "object":
        _untyped(tool, path, "it is not `type: object`")
        return None
    twin = copy.copy(tool)
    twin.root, twin.base, twin.fixes = schema, path, []
    twin.shared, twin.resolving, twin.failed = {}, [], False
    # Its classes are named from `<Tool>Result`: `<Tool>ResultHitsItem`, `<Tool>ResultEventTime`.
    twin.in_result = True
    found: list[Diagnostic] = []
    twin.problems = found
    met = len(tool.wants)  # the twin's wants are the tool's (one module)
    root = object_kind(twin, schema, (), (), class_slot, tool.helper_slot(("result",)), root=True)
    if source == RETURNS or not twin.failed:
        tool.problems.extend(found)
        tool.failed = tool.failed or twin.failed
    else:
        errors = [d for d in found if d.level == "error"]
        _untyped(tool, path, errors[0].message)
        del tool.wants[met:]  # nothing of the result is written: its names are not wanted
        return None
    if twin.failed or not isinstance(root, ObjectKind):
        return None
    return Result(root, tuple(dict.fromkeys(walk(root))), twin.fixed_schema(), source)


def _untyped(tool: ToolContext, path: JsonPath, why: str) -> None:
    message = (
        f"the outputSchema cannot be typed ({why}): the tool's results are sent as the handler"
        " returns them, unchecked, and MCP_TOOLS gives the outputSchema back as written"
    )
    tool.problems.append(tool.loaded.diagnostic(path, message, "CG111"))

"""Run a catalog's generated parser without writing into the project: for `codegen parse`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegen.build import UsageError, check_catalogs, render_catalog
from codegen.examples import imported


def parse_with_catalog(source: Path, tool_name: str, raw: str, root: Path) -> dict[str, Any]:
    """Build `source` into a temporary directory, import it, and parse one call of `tool_name`."""
    catalogs, _ = check_catalogs([source], root)
    catalog = catalogs[0]
    if tool_name not in {tool.wire_name for tool in catalog.tools}:
        known = ", ".join(tool.wire_name for tool in catalog.tools)
        raise UsageError(f"{catalog.source} has no tool named {tool_name!r} (its tools: {known})")
    with imported(catalog.name, render_catalog(catalog)) as module:
        request = module.parse(tool_name, raw)
    return {
        "tool_name": request.tool_name,
        "ok": request.ok,
        "values": request.values,
        "warnings": list(request.warnings),
        "errors": list(request.errors),
    }

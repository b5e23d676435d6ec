"""Run a catalog's generated parser without writing into the project: for `codegen parse`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegen.build import UsageError, check_catalogs, render_catalog
from codegen.examples import imported


def parse_with_catalog(source: Path, tool_name: str, raw: str, root: Path) -> dict[str, Any]:
    """Build `source` into a temporary directory, import it, and parse one call of `tool_name`
    (its wire name or a provider's alias: the package's own `TOOLS.wire_name` decides, as for
    `parse`)."""
    catalogs, _ = check_catalogs([source], root)
    catalog = catalogs[0]
    with imported(catalog.name, render_catalog(catalog)) as module:
        if module.TOOLS.wire_name(tool_name) is None:
            known = ", ".join(module.TOOLS)
            raise UsageError(
                f"{catalog.source} has no tool named {tool_name!r} (its tools: {known})"
            )
        request = module.parse(tool_name, raw)
    return {
        "tool_name": request.tool_name,
        "ok": request.ok,
        "values": request.values,
        "warnings": list(request.warnings),
        "errors": list(request.errors),
    }

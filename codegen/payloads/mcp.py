"""MCP `tools/list` entries: every field the source had, unless the catalog changed it."""

from __future__ import annotations

from typing import Any

from codegen.catalog.ir import Tool
from codegen.payloads.schema import public


def mcp_tool(tool: Tool, name: str) -> dict[str, Any]:
    """`{name, title, description, inputSchema, outputSchema, annotations, execution, icons,
    _meta}`; all but the name, description and input schema only when the catalog gives them,
    annotations with every key as written (MCP allows keys beyond the four hints)."""
    entry: dict[str, Any] = {"name": name}
    if tool.title is not None:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = public(tool.schema)
    fields = dict(tool.mcp_fields)
    if "outputSchema" in fields:
        entry["outputSchema"] = fields.pop("outputSchema")
    if tool.annotations:
        entry["annotations"] = dict(tool.annotations)
    entry.update(fields)
    return entry

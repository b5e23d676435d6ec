"""MCP `tools/list` entries: every field the source had, unless the catalog changed it."""

from __future__ import annotations

from typing import Any

from codegen.catalog.ir import Tool
from codegen.catalog.returns import RETURNS
from codegen.payloads.schema import public


def mcp_tool(tool: Tool, name: str) -> dict[str, Any]:
    """`{name, title, description, inputSchema, outputSchema, annotations, execution, icons,
    _meta}`; all but the name, description and input schema only when the catalog gives them,
    annotations with every key as written (MCP allows keys beyond the four hints). The
    outputSchema is the tool's `returns`, or else its `outputSchema` as written."""
    entry: dict[str, Any] = {"name": name}
    if tool.title is not None:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = public(tool.schema)
    fields = dict(tool.mcp_fields)
    output = fields.pop("outputSchema", None)
    if tool.result is not None and tool.result.source == RETURNS:
        output = public(tool.result.schema)  # what the executor checks results against
    if output is not None:
        entry["outputSchema"] = output
    if tool.annotations:
        entry["annotations"] = dict(tool.annotations)
    entry.update(fields)
    return entry

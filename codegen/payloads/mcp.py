"""MCP `tools/list` entries."""

from __future__ import annotations

from typing import Any

from codegen.catalog.ir import Tool
from codegen.payloads.schema import public

# The order MCP's schema lists the hints in.
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def mcp_tool(tool: Tool, name: str) -> dict[str, Any]:
    """`{name, title, description, inputSchema, annotations}`; `title` and `annotations` only
    when the catalog gives them."""
    entry: dict[str, Any] = {"name": name}
    if tool.title is not None:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = public(tool.schema)
    hints = {hint: tool.annotations[hint] for hint in HINTS if hint in tool.annotations}
    if hints:
        entry["annotations"] = hints
    return entry

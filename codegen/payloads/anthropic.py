"""Anthropic's Messages API tools."""

from __future__ import annotations

from typing import Any

from codegen.catalog.ir import Tool
from codegen.payloads.schema import public


def anthropic_tool(tool: Tool, name: str) -> dict[str, Any]:
    """`{name, description, input_schema}`, and `input_examples` from the tool's whole-call
    examples (each checked at build time to parse cleanly with the tool's own parser)."""
    entry: dict[str, Any] = {
        "name": name,
        "description": tool.description,
        "input_schema": public(tool.schema),
    }
    if tool.examples:
        entry["input_examples"] = list(tool.examples)
    return entry


def anthropic_strict_tool(tool: Tool, name: str, strict_schema: dict[str, Any]) -> dict[str, Any]:
    """The same with `strict: true` and the schema as strict tool use takes it
    (`anthropic_strict.to_anthropic_strict`)."""
    return {**anthropic_tool(tool, name), "input_schema": strict_schema, "strict": True}

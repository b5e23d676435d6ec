"""Gemini's function declarations: `parametersJsonSchema` (current models) and the legacy
OpenAPI-subset `parameters` and `response` (`legacy.to_legacy`)."""

from __future__ import annotations

from typing import Any

from codegen.catalog.ir import Tool
from codegen.payloads.schema import public


def gemini_declaration(tool: Tool, name: str) -> dict[str, Any]:
    """`{name, description, parametersJsonSchema}`, and `responseJsonSchema` (the JSON Schema
    form of the declaration's response, beside `parametersJsonSchema`) for a typed result."""
    declaration = {
        "name": name,
        "description": tool.description,
        "parametersJsonSchema": public(tool.schema),
    }
    if tool.result is not None:
        declaration["responseJsonSchema"] = public(tool.result.schema)
    return declaration


def gemini_legacy_declaration(
    tool: Tool, name: str, parameters: dict[str, Any], response: dict[str, Any] | None
) -> dict[str, Any]:
    """A tool without parameters leaves `parameters` out, as Gemini documents: the subset has no
    OBJECT without properties at the root. A typed result is the declaration's `response`, in
    the same subset."""
    entry: dict[str, Any] = {"name": name, "description": tool.description}
    if parameters.get("properties"):
        entry["parameters"] = parameters
    if response is not None:
        entry["response"] = response
    return entry

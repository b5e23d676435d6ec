"""OpenAI's tool lists: Chat Completions (plain and strict) and Responses."""

from __future__ import annotations

from typing import Any

from codegen.catalog.ir import Tool
from codegen.payloads.schema import public


def chat_tool(tool: Tool, name: str) -> dict[str, Any]:
    """`{"type": "function", "function": {name, description, parameters}}`, the schema as written."""
    function = {"name": name, "description": tool.description, "parameters": public(tool.schema)}
    return {"type": "function", "function": function}


def strict_chat_tool(tool: Tool, name: str, strict_schema: dict[str, Any]) -> dict[str, Any]:
    """The same with `strict: true` and the schema rewritten for strict mode (`strict.to_strict`)."""
    function = {
        "name": name,
        "description": tool.description,
        "parameters": strict_schema,
        "strict": True,
    }
    return {"type": "function", "function": function}


def responses_tool(tool: Tool, name: str, strict_schema: dict[str, Any]) -> dict[str, Any]:
    """The Responses API's flat form. Its `strict` defaults to true there, so the strict schema is
    the one sent, and `strict` is always written out."""
    return {
        "type": "function",
        "name": name,
        "description": tool.description,
        "parameters": strict_schema,
        "strict": True,
    }

"""Prompt text for models without native function calling: the catalog as a JSONL prompt and a
single-JSON prompt, from `templates/prompts/`, reading the IR alone.

Compact on purpose: a prompt is paid for in tokens on every request, so a parameter is one line
(name, type, constraints, default, examples, description) and decoration is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.catalog.ir import Catalog, Tool
from codegen.text.describe import Row, rows, tool_call_sample
from codegen.text.environment import environment

# The files each catalog's package gets under prompts/, and the constants that hold the same text.
PROMPTS = {"jsonl": "JSONL_PROMPT", "single_json": "SINGLE_JSON_PROMPT"}


@dataclass(frozen=True)
class ToolText:
    """What a prompt says about a tool: its parameters as rows, and an example call (or None)."""

    tool: Tool
    rows: tuple[Row, ...]
    example: dict[str, Any] | None


def tool_texts(catalog: Catalog) -> list[ToolText]:
    return [ToolText(tool, tuple(rows(tool.args)), _example(tool)) for tool in catalog.tools]


def _example(tool: Tool) -> dict[str, Any] | None:
    arguments = tool_call_sample(tool)
    return None if arguments is None else {"name": tool.wire_name, "parameters": arguments}


def render_prompts(catalog: Catalog) -> dict[str, str]:
    """{"jsonl": text, "single_json": text} for the catalog."""
    tools = tool_texts(catalog)
    examples = [t.example for t in tools if t.example is not None][:2]
    return {
        name: environment()
        .get_template(f"prompts/{name}.txt.jinja")
        .render(catalog=catalog, tools=tools, examples=examples)
        for name in PROMPTS
    }

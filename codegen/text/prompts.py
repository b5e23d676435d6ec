"""Prompt text for models without native function calling: the catalog as a JSONL prompt and a
single-JSON prompt, from `templates/prompts/`, reading the IR alone.

Compact on purpose: a prompt is paid for in tokens on every request. A parameter is one line in a
TypeScript-like notation that models read well and that costs fewer tokens than harmony's own
(bench/bench_prompt.py), without dropping what harmony drops (bounds, patterns, examples):

    path?: type, constraint, ... = default e.g. example, ... // description

`?` marks an optional parameter; a type is a JSON type name, `date`, `date-time` or `uri` (strings in
that format), JSON values joined by ` | `, `T[]` for an array and `object of T` for a map; a pattern
and every value are JSON. Everything before ` // ` is made of those parts alone, so the line can be
read back whole (tests/test_prompts.py does, for every tool of every bundled and fixture catalog).
A tool's example call is listed when the catalog gives one: one made from its parameters would say
nothing the lines do not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.kinds import Kind
from codegen.text.describe import Row, json_text, limits, prompt_type, rows, tool_call_sample
from codegen.text.environment import environment, one_line

# The files each catalog's package gets under prompts/, and the constants that hold the same text.
PROMPTS = {"jsonl": "JSONL_PROMPT", "single_json": "SINGLE_JSON_PROMPT"}


@dataclass(frozen=True)
class ToolText:
    """What a prompt says about a tool: its parameters as rows, and an example call (or None)."""

    tool: Tool
    lines: tuple[str, ...]
    example: dict[str, Any] | None


def tool_texts(catalog: Catalog) -> list[ToolText]:
    return [
        ToolText(tool, tuple(parameter_line(row) for row in rows(tool.args)), _example(tool))
        for tool in catalog.tools
    ]


# A path written as it is: names of letters, digits and `_$-`, joined by `.`, `[]` and `.*`.
_PLAIN_PATH = re.compile(r"[A-Za-z_$][\w$-]*(?:(?:\.|\[\]\.?|\.\*\.?)[\w$-]+|\[\]|\.\*)*")


def parameter_line(row: Row) -> str:
    """`path?: type, constraint, ... = default e.g. example, ... // description` (one line)."""
    field = row.field
    path = row.path if _PLAIN_PATH.fullmatch(row.path) else json_text(row.path)
    text = f"{path}{'' if field.required else '?'}: {prompt_type(field.kind)}"
    text += "".join(f", {c}" for c in compact_constraints(field.kind))
    if field.has_default:
        text += f" = {json_text(field.default)}"
    if field.examples:
        text += " e.g. " + ", ".join(json_text(e) for e in field.examples)
    description = one_line(field.description)
    return f"{text} // {description}" if description else text


# What may follow a pattern on its line: the end of the line, another part, the description.
_AFTER_PATTERN = ("", ", ", " = ", " e.g. ", " // ")


def pattern_text(pattern: str) -> str:
    """A pattern as a regular expression literal, `/^[a-z]+$/`, which costs fewer tokens than a
    JSON string (no doubled backslashes); as JSON when a reader taking the first `/` followed by
    what may follow a pattern as its end would end it early (or it is not one printable line)."""
    literal = f"/{pattern}/"
    if one_line(pattern) != pattern or any(
        _literal_end(literal + after) != len(literal) - 1 for after in _AFTER_PATTERN
    ):
        return json_text(pattern)
    return literal


def _literal_end(text: str) -> int:
    """Where a reader ends the literal that opens `text`: the first `/` after the opening one that
    ends the line or is followed by what may follow a pattern."""
    for at in range(1, len(text) - 1):
        if text[at] == "/" and text.startswith(_AFTER_PATTERN[1:], at + 1):
            return at
    return len(text) - 1


def compact_constraints(kind: Kind) -> list[str]:
    """`1..50`, `> 0`, `length <= 8`, `items 1..20`, `pattern "^a$"`, `keys ["id"]`."""
    found: list[str] = []
    for word, value in limits(kind):
        if word == "pattern":
            found.append(f"pattern {pattern_text(value)}")
        elif word == "keys":
            found.append(f"keys {json_text(list(value))}")
        else:
            found.append(f"{word} {value}" if word else value)
    return found


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

"""Prompt text for models without native function calling: the catalog as a JSONL prompt and a
single-JSON prompt, from `templates/prompts/`, reading the IR alone.

Compact on purpose: a prompt is paid for in tokens on every request. A tool is a heading
`## name // description`, then a line per parameter in a TypeScript-like notation that models read
well and that costs fewer tokens than harmony's own (bench/bench_prompt.py), without dropping what
harmony drops (bounds, lengths, patterns, examples, nested objects):

    name?: type constraint ... = default example X // description

`?` marks an optional parameter; a type is a JSON type name, `date`, `date-time` or `uri` (strings in
that format), JSON values joined by `|`, `T[]` for an array and `object of T` for a map; constraints
are `1..50`, `>0 <=1`, `<=500 chars`, `6 chars`, `1..20 items`, a pattern as `/regex/` and
`keys [...]`; every value is JSON (`examples X, Y` when there are several). The parameters of an
object (of an array's items, a map's values) follow it one space deeper; an object shared with an
earlier parameter (one `$ref`) is listed once, the later one says `like <path>`. Everything before
` // ` is made of those parts alone, so the line can be read back whole
(tests/test_prompt_lines.py does, for every tool of every bundled and fixture catalog). A tool's
example parameters are listed when the catalog gives them: ones made from its parameters would say
nothing the lines do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.kinds import Field, Kind, ObjectKind
from codegen.text.describe import (
    inside,
    json_text,
    limits,
    prompt_type,
    tool_call_sample,
    value_range,
)
from codegen.text.environment import environment, lines, one_line

# The files each catalog's package gets under prompts/, and the constants that hold the same text.
PROMPTS = {"jsonl": "JSONL_PROMPT", "single_json": "SINGLE_JSON_PROMPT"}


@dataclass(frozen=True)
class ToolText:
    """What a prompt says about a tool: its heading, its parameters as lines, whether one of them
    refers to another's fields (`like <path>`), and an example call (or None)."""

    tool: Tool
    heading: tuple[str, ...]
    lines: tuple[str, ...]
    shares: bool
    example: dict[str, Any] | None


def tool_texts(catalog: Catalog) -> list[ToolText]:
    texts = []
    for tool in catalog.tools:
        lines, shares = parameter_lines(tool.args)
        texts.append(ToolText(tool, heading(tool), lines, shares, _example(tool)))
    return texts


def heading(tool: Tool) -> tuple[str, ...]:
    """`## name // description`, the description's further lines as `// line` (comments, so that
    no line of it reads as a parameter)."""
    first = f"## {one_line(tool.wire_name)}"  # a checked name: no space, so no ` // `
    described = lines(tool.description)
    if not described:
        return (first,)
    return (f"{first} // {described[0]}", *(f"// {line}" for line in described[1:]))


def parameter_lines(args: ObjectKind) -> tuple[tuple[str, ...], bool]:
    """A line per parameter, each nested one under its parent, one space deeper; an object that a
    parameter shares with an earlier one (one `$ref`) is listed once, the other says whose fields
    it has (`like <path>`): the lines, and whether one says so."""
    owners: list[str] = []
    lines = tuple(_lines(args, "", 0, {}, owners))
    return lines, bool(owners)


def _lines(
    obj: ObjectKind, prefix: str, depth: int, listed: dict[str, str], owners: list[str]
) -> Iterator[str]:
    for field in obj.fields:
        path = prefix + field.wire_name
        inner, steps = _inner_object(field.kind)
        owner = listed.get(inner.class_name) if inner is not None and inner.fields else None
        yield " " * depth + parameter_line(field, owner)
        if owner is not None:
            owners.append(owner)
        elif inner is not None:
            # One class is one definition: a nullable use of it is another kind of the same class.
            listed[inner.class_name] = path + steps
            yield from _lines(inner, f"{path}{steps}.", depth + 1, listed, owners)


def _inner_object(kind: Kind) -> tuple[ObjectKind | None, str]:
    """The object whose fields are listed under a parameter of this kind, and the steps from the
    parameter to it (`[]` for an array's items, `.*` for a map's values)."""
    steps = ""
    while not isinstance(kind, ObjectKind):
        found = inside(kind)
        if found is None:
            return None, steps
        kind, steps = found[0], steps + found[1]
    return kind, steps


# A name written as it is: letters, digits and `_$-`, not starting with a digit or `-`.
_PLAIN_NAME = re.compile(r"[A-Za-z_$][\w$-]*")
# A path written as it is: plain names joined by `.`, `[]` and `.*`.
_PLAIN_PATH = re.compile(r"[A-Za-z_$][\w$-]*(?:(?:\.|\[\]\.?|\.\*\.?)[\w$-]+|\[\]|\.\*)*")


def parameter_line(field: Field, owner: str | None = None) -> str:
    """`name?: type constraint ... = default example ... // description` (one line); `owner` is
    the path of the parameter whose fields this one shares."""
    name = field.wire_name if _PLAIN_NAME.fullmatch(field.wire_name) else json_text(field.wire_name)
    text = f"{name}{'' if field.required else '?'}: {prompt_type(field.kind)}"
    text += "".join(f" {c}" for c in compact_constraints(field.kind))
    if owner is not None:
        text += f" like {owner if _PLAIN_PATH.fullmatch(owner) else json_text(owner)}"
    if field.has_default:
        text += f" = {json_text(field.default)}"
    if field.examples:
        text += _EXAMPLE_WORDS[len(field.examples) > 1] + ", ".join(
            json_text(e) for e in field.examples
        )
    description = one_line(field.description)
    return f"{text} // {description}" if description else text


_EXAMPLE_WORDS = (" example ", " examples ")


# What may follow a pattern on its line: its end, a default, examples, the description.
_AFTER_PATTERN = ("", " = ", " example ", " examples ", " // ")


def pattern_text(pattern: str) -> str:
    """A pattern as a regular expression literal, `/^[a-z]+$/`, which costs fewer tokens than a
    JSON string (no doubled backslashes); as JSON when a reader taking the first `/` followed by
    what may follow a pattern as its end would end it early (or it is not one printable line, or
    it starts with `/`)."""
    literal = f"/{pattern}/"
    # `//` would open the description.
    if (
        literal.startswith("//")
        or one_line(pattern) != pattern
        or any(_literal_end(literal + after) != len(literal) - 1 for after in _AFTER_PATTERN)
    ):
        return "pattern " + json_text(pattern)
    return literal


def _literal_end(text: str) -> int:
    """Where a reader ends the literal that opens `text`: the first `/` after the opening one that
    ends the line or is followed by what may follow a pattern."""
    for at in range(1, len(text) - 1):
        if text[at] == "/" and text.startswith(_AFTER_PATTERN[1:], at + 1):
            return at
    return len(text) - 1


def compact_constraints(kind: Kind) -> list[str]:
    """`1..50`, `>0`, `<=8 chars`, `1..20 items`, `/^a$/`, `keys ["id"]`."""
    found: list[str] = []
    for word, value in limits(kind):
        if word == "range":
            found += _range(*value)
        elif word == "length":
            found += [f"{r} chars" for r in _size(*value)]
        elif word == "pattern":
            found.append(pattern_text(value))
        elif word == "items":
            found += [f"{r} items" for r in _size(*value)]
        else:
            found.append(f"keys {json_text(list(value))}")
    return found


def _size(low: float | None, high: float | None) -> list[str]:
    """A length or a count: `6` when it is exact, else a range."""
    return [json_text(low)] if low is not None and low == high else _range(low, high)


def _range(
    low: float | None,
    high: float | None,
    exclusive_low: float | None = None,
    exclusive_high: float | None = None,
) -> list[str]:
    return value_range(low, high, exclusive_low, exclusive_high, gap="", joiner=" ")


def _example(tool: Tool) -> dict[str, Any] | None:
    arguments = tool_call_sample(tool)
    return None if arguments is None else {"name": tool.wire_name, "parameters": arguments}


def render_prompts(catalog: Catalog) -> dict[str, str]:
    """{"jsonl": text, "single_json": text} for the catalog."""
    tools = tool_texts(catalog)
    examples = [t.example for t in tools if t.example is not None][:2]
    shares = any(t.shares for t in tools)
    return {
        name: environment()
        .get_template(f"prompts/{name}.txt.jinja")
        .render(catalog=catalog, tools=tools, examples=examples, shares=shares)
        for name in PROMPTS
    }

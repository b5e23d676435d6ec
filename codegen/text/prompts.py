"""Prompt text for models without native function calling: the catalog as a JSONL prompt and a
single-JSON prompt, from `templates/prompts/`, reading the IR alone.

Compact on purpose: a prompt is paid for in tokens on every request. A tool is a section (one
string, `tool_section`, which depends on the tool alone and on whether the instructions show its
example call): a heading `## name // description`, then
a line per parameter in a TypeScript-like notation that models read well and that costs fewer
tokens than harmony's own (bench/bench_prompt.py), without dropping what harmony drops (bounds,
lengths, patterns, examples, nested objects):

    name?: type constraint ... =default example X // description

`?` marks an optional parameter; a type is a JSON type name, a format the parser checks (`date`,
`date-time`, `uri`: strings in that format, each named in the prompt's legend), JSON values joined by `|`, `T[]` for an array and `object of T` for a map; constraints
are `1..50`, `>0 <=1`, `<=500 chars`, `6 chars`, `1..20 items`, a pattern as `/regex/` and
`keys [...]`; every value is JSON with no space after `,` and `:` (`examples X, Y` when there are
several). The parameters of an object (of an array's items, a map's values) follow it one space
deeper; an object shared with an earlier parameter (one `$ref`) is listed once, the later one says
`like <path>`. Everything before ` // ` is made of those parts alone, so the line can be read back
whole (tests/test_prompt_lines.py does, for every tool of every bundled and fixture catalog).

No fact is said twice: an example is left off its line when the description gives it (`e.g. X`,
`such as X`: `said_as_example`) or, the first one, when the tool's example call shown in the prompt
gives the parameter that value. A tool's example call is listed when the catalog gives one: ones
made from its parameters would say nothing the lines do not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.kinds import Field, Kind, ObjectKind
from codegen.runtime import _prompts
from codegen.runtime import _runtime as rt
from codegen.text.describe import (
    inside,
    json_text,
    limits,
    prompt_type,
    tool_call_sample,
    value_range,
)
from codegen.text.environment import environment, lines, one_line

# The files each catalog's package gets under prompts/, and the constants read from them.
PROMPTS = {file.removesuffix(".txt"): constant for constant, file in _prompts.FILES.items()}

# The lines a tool's section may end with.
NO_PARAMETERS = "No parameters."
EXAMPLE_CALL = "Example parameters: "


def prompt_json(value: object) -> str:
    """A value as a prompt writes it: one line of JSON, no space after `,` and `:`."""
    return json_text(value, compact=True)


def tool_section(tool: Tool, example_above: bool = False) -> str:
    """What a prompt says about one tool, from its heading to its last line: the heading, a line
    per parameter (or `No parameters.`), and the example call the catalog gives, unless
    `example_above` (the instructions show this tool's example call already). The whole tool list
    is these sections, each after a blank line; a section depends on nothing but its arguments,
    so a caller may cache it per tool."""
    call = tool_call_sample(tool) if tool.examples or example_above else None
    listed = [*heading(tool), *parameter_lines(tool.args, call)]
    if not tool.args.fields:
        listed.append(NO_PARAMETERS)
    if tool.examples and not example_above:
        listed.append(EXAMPLE_CALL + prompt_json(call))
    return "".join(line + "\n" for line in listed)


def heading(tool: Tool) -> tuple[str, ...]:
    """`## name // description`, the description's further lines as `// line` (comments, so that
    no line of it reads as a parameter)."""
    first = f"## {one_line(tool.wire_name)}"  # a checked name: no space, so no ` // `
    described = lines(tool.description)
    if not described:
        return (first,)
    return (f"{first} // {described[0]}", *(f"// {line}" for line in described[1:]))


@dataclass(frozen=True)
class Listed:
    """A parameter where a prompt lists it: its depth under the tool, the path of the parameter
    whose fields it shares (`like <path>`) or None, and the value the tool's example call gives
    it (`_NOT_IN_CALL` when the call gives none, or no call is shown)."""

    field: Field
    depth: int
    owner: str | None
    in_call: Any


_NOT_IN_CALL = object()


def listed_parameters(args: ObjectKind, call: dict[str, Any] | None = None) -> Iterator[Listed]:
    """Every parameter, each nested one after its parent, one deeper; an object that a parameter
    shares with an earlier one (one `$ref`) is listed once, the other names whose fields it has."""
    return _listed(args, "", 0, {}, _NOT_IN_CALL if call is None else call)


def _listed(
    obj: ObjectKind, prefix: str, depth: int, owners: dict[int, str], values: Any
) -> Iterator[Listed]:
    for field in obj.fields:
        path = prefix + field.wire_name
        given = isinstance(values, dict)
        value = values.get(field.wire_name, _NOT_IN_CALL) if given else _NOT_IN_CALL
        inner, steps = _inner_object(field.kind)
        owner = owners.get(inner.class_slot) if inner is not None and inner.fields else None
        yield Listed(field, depth, owner, value)
        if owner is None and inner is not None:
            # One class is one definition: a nullable use of it is another kind of the same class.
            owners[inner.class_slot] = path + steps
            # The call's values are followed through objects only: an array's items are many.
            inner_values = value if steps == "" else _NOT_IN_CALL
            yield from _listed(inner, f"{path}{steps}.", depth + 1, owners, inner_values)


def shares_fields(tool: Tool) -> bool:
    """Whether a line of the tool's section says `like <path>` (the legend then explains it): an
    object listed under one parameter is met again, as `listed_parameters` walks them."""
    return _meets_again(tool.args, set())


def _meets_again(obj: ObjectKind, seen: set[int]) -> bool:
    for field in obj.fields:
        inner, _ = _inner_object(field.kind)
        if inner is None or not inner.fields:
            continue
        if inner.class_slot in seen:
            return True
        seen.add(inner.class_slot)
        if _meets_again(inner, seen):
            return True
    return False


def parameter_lines(args: ObjectKind, call: dict[str, Any] | None = None) -> list[str]:
    """A line per parameter, each nested one under its parent, one space deeper; `call` is the
    tool's example call when the prompt shows it (its values need not be said again)."""
    return [
        " " * p.depth + parameter_line(p.field, p.owner, p.in_call)
        for p in listed_parameters(args, call)
    ]


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


# A name written as it is: letters, digits and `_$-`, not starting with `-` (a list's bullet).
_PLAIN_NAME = re.compile(r"[\w$][\w$-]*")
# A path written as it is: plain names joined by `.`, `[]` and `.*`.
_PLAIN_PATH = re.compile(r"[\w$][\w$-]*(?:(?:\.|\[\]\.?|\.\*\.?)[\w$-]+|\[\]|\.\*)*")


def parameter_line(field: Field, owner: str | None = None, in_call: Any = _NOT_IN_CALL) -> str:
    """`name?: type constraint ... =default example ... // description` (one line); `owner` is
    the path of the parameter whose fields this one shares, `in_call` the value the example call
    shown in the prompt gives it."""
    name = field.wire_name if _PLAIN_NAME.fullmatch(field.wire_name) else json_text(field.wire_name)
    text = f"{name}{'' if field.required else '?'}: {prompt_type(field.kind)}"
    text += "".join(f" {c}" for c in compact_constraints(field.kind))
    if owner is not None:
        text += f" like {owner if _PLAIN_PATH.fullmatch(owner) else json_text(owner)}"
    if field.has_default:
        # `string="primary"`; after a bound, a pattern or a literal a space keeps `=` apart from
        # it (`<=500 chars =null`, `1|5|9 =5`, not `chars=null` or `9=5`).
        text += ("=" if text[-1].isalpha() else " =") + prompt_json(field.default)
    description = one_line(field.description)
    examples = unsaid_examples(field.examples, description, in_call)
    if examples:
        text += _EXAMPLE_WORDS[len(examples) > 1] + ", ".join(prompt_json(e) for e in examples)
    return f"{text} // {description}" if description else text


def unsaid_examples(examples: Sequence[object], description: str, in_call: object) -> list[object]:
    """The examples a line lists: all but those the prompt says elsewhere, which are the first
    one when the tool's example call gives the parameter that value, and any one the description
    gives as an example (`said_as_example`)."""
    return [
        e
        for at, e in enumerate(examples)
        if not (at == 0 and in_call is not _NOT_IN_CALL and prompt_json(in_call) == prompt_json(e))
        and not said_as_example(e, description)
    ]


# How a description gives an example: `e.g. X`, `for example X`, `such as X`, ... (a comma may
# follow the words).
_EXAMPLE_MARK = re.compile(r"(?:e\.g\.|for example|for instance|such as),? ", re.IGNORECASE)
# What may follow the example's text: the end, a space, or punctuation that ends it.
_EXAMPLE_END = re.compile(r"$|[\s,;)]|[.:!?](?:$|\s)")


def said_as_example(example: object, description: str) -> bool:
    """Whether the description gives this example, so that the line need not: its JSON text (or,
    for a string that does not read as other JSON, its characters) right after `e.g.`, `for
    example`, `for instance` or `such as`, and ending there."""
    texts = [prompt_json(example), json_text(example)]
    if isinstance(example, str) and example and not _reads_as_json(example):
        texts.append(example)
    for mark in _EXAMPLE_MARK.finditer(description):
        for text in texts:
            end = mark.end() + len(text)
            if description.startswith(text, mark.end()) and _EXAMPLE_END.match(description, end):
                return True
    return False


def _reads_as_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


_EXAMPLE_WORDS = (" example ", " examples ")


# What may follow a pattern on its line: its end, a default, examples, the description.
_AFTER_PATTERN = ("", " =", " example ", " examples ", " // ")


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
            found.append(f"keys {prompt_json(list(value))}")
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


def render_prompts(
    catalog: Catalog,
    section: Callable[[Tool, bool], str] = tool_section,
    shares: Callable[[Tool], bool] = shares_fields,
) -> dict[str, str]:
    """{"jsonl": text, "single_json": text} for the catalog: the instructions, then every tool's
    section (`section` and `shares`, which a caller may give as a cached `tool_section` and
    `shares_fields`)."""
    calls: list[tuple[Tool, dict[str, Any]]] = []
    for tool in catalog.tools:
        arguments = tool_call_sample(tool)
        if arguments is not None:
            calls.append((tool, {"name": tool.wire_name, "parameters": arguments}))
            if len(calls) == 2:
                break
    above = calls[0][0] if calls else None
    sections = [section(tool, tool is above) for tool in catalog.tools]
    legend = any(shares(tool) for tool in catalog.tools)
    examples = [prompt_json(call) for _, call in calls]
    examples_with_ids = [
        prompt_json({**call, "call_id": f"call_{at}"}) for at, (_, call) in enumerate(calls, 1)
    ]
    return {
        name: environment()
        .get_template(f"prompts/{name}.txt.jinja")
        .render(
            examples=examples,
            examples_with_ids=examples_with_ids,
            sections=sections,
            shares=legend,
            formats=_formats_said(),
        )
        for name in PROMPTS
    }


def _formats_said() -> str:
    """The formats the parser checks, as the prompt's legend names them (`date`, `date-time` and
    `uri`): the runtime's table, sorted."""
    names = [f"`{name}`" for name in sorted(rt.FORMATS)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

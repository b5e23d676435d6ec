"""Line breaking as black does it, done while rendering, so that black itself seldom has to run.

Black re-flows a statement only when a line is longer than the limit. The statements whose length
depends on the catalog (signatures, calls with one argument per field, imports, the schema and the
other data literals) are laid out here exactly as black would lay them out; `format.py` then gives
black only the statements that still have a line too long. Tests prove `black(output) == output`
on every catalog they build, and that `data` agrees with black on arbitrary JSON data.
"""

from __future__ import annotations

from codegen.python.literals import literal

LINE_LENGTH = 100
INDENT = "    "


def fits(line: str) -> bool:
    """Whether black would leave `line` (indentation included) on one line."""
    # No character is more than two columns wide: a short line fits whatever it holds, without
    # importing black to measure it (the header's dash is in every module).
    return 2 * len(line) <= LINE_LENGTH or str_width(line) <= LINE_LENGTH


def str_width(line: str) -> int:
    """A line's width as black counts it: wide characters count twice (black is imported only for
    a line that may have one: black's table has none before U+1100, where Hangul starts)."""
    if line.isascii() or max(line) < "\u1100":
        return len(line)
    from black.strings import str_width as width

    return width(line)


def call(
    head: str,
    arguments: list[str],
    tail: str = "",
    brackets: str = "()",
    lone_comma: bool = False,
    indent: str = "",
) -> str:
    """`head(arguments)tail` at `indent`, a call or subscript black splits at its brackets (the last
    pair on the line): one line; or the arguments on a line of their own; or one argument a line,
    each with a comma (a lone argument gets one only when `lone_comma`, as black gives a def's)."""
    opener, closer = brackets[0], brackets[1]
    one = f"{indent}{head}{opener}{', '.join(arguments)}{closer}{tail}"
    if fits(one) or not arguments:
        return one
    inner = indent + INDENT
    if len(arguments) == 1:
        body = inner + arguments[0] + ("," if lone_comma else "")
    else:
        body = inner + ", ".join(arguments)
        if not fits(body):
            body = "\n".join(f"{inner}{argument}," for argument in arguments)
    split = f"{indent}{head}{opener}\n{body}\n{indent}{closer}{tail}"
    target, equals, value = head.rpartition(" = ")
    if fits(indent + head + opener) or not equals:
        return split
    # Black's second opinion: when the split's first line is still too long, it puts the value of an
    # assignment in parentheses, and keeps that if every line then fits.
    value_call = call(value, arguments, tail, brackets, lone_comma, inner)
    opinion = f"{indent}{target} = (\n{value_call}\n{indent})"
    return opinion if all(fits(line) for line in opinion.splitlines()) else split


def signature(name: str, parameters: list[str], returns: str) -> str:
    """A top-level `def` line. Black splits a def at its first bracket, and ends a lone parameter
    it moves to a line of its own with a comma."""
    return call(f"def {name}", parameters, f" -> {returns}:", lone_comma=True)


def frozen_set(head: str, items: list[str]) -> str:
    """`head` + `frozenset({items})`: the set goes on a line of its own, and opens when it must."""
    inner = "{" + ", ".join(items) + "}"
    one = f"{head}frozenset({inner})"
    if fits(one):
        return one
    if fits(INDENT + inner):
        return f"{head}frozenset(\n{INDENT}{inner}\n)"
    comma = "," if len(items) > 1 else ""
    body = "\n".join(f"{INDENT * 2}{item}{comma}" for item in items)
    return f"{head}frozenset(\n{INDENT}{{\n{body}\n{INDENT}}}\n)"


# ruff's import sorting wraps at its own default width, which a user's `ruff check` applies to
# the generated code; black keeps an import split with a trailing comma as it is.
ISORT_LINE_LENGTH = 88


def imports(module: str, names: list[str], indent: str = "") -> str:
    """`from module import names`; one a line when they do not fit on one line for both black
    and ruff's import sorting."""
    one = f"{indent}from {module} import {', '.join(names)}"
    if str_width(one) <= ISORT_LINE_LENGTH:
        return one
    body = "\n".join(f"{indent}{INDENT}{name}," for name in names)
    return f"{indent}from {module} import (\n{body}\n{indent})"


def data(value: object, head: str = "", tail: str = "", indent: str = "") -> str:
    """`head` + the literal of JSON `value` + `tail`: on one line if it fits, else each list or
    dict that does not fit is opened, its items one a line (with a trailing comma when there are
    several), each laid out the same way."""
    return "\n".join(_data_lines(value, head, tail, indent))


def _data_lines(value: object, head: str, tail: str, indent: str) -> list[str]:
    one = f"{indent}{head}{literal(value)}{tail}"
    if fits(one) or not value or not isinstance(value, (list, dict)):
        return [one]
    if isinstance(value, dict):
        items = [(f"{literal(str(key))}: ", item) for key, item in value.items()]
        opener, closer = "{", "}"
    else:
        items = [("", item) for item in value]
        opener, closer = "[", "]"
    comma = "," if len(items) > 1 else ""
    lines = [f"{indent}{head}{opener}"]
    for prefix, item in items:
        lines += _data_lines(item, prefix, comma, indent + INDENT)
    lines.append(f"{indent}{closer}{tail}")
    return lines

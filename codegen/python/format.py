"""Format generated Python: a syntax check, then black on the statements that still need it.

Templates and `layout.py` write the layout black would write, so black (in-process, with a fixed
mode) runs only on a top-level statement that has a line longer than the limit, which the catalog's
own text can cause (a long name, default or pattern). Black takes most of a build when it formats
everything; this way it formats almost nothing. That holds for code shaped like the templates'
(one statement a line, blank lines black's own inside blocks), which tests prove on every catalog
they build: `black(output) == output`, and the same output as black's from one-line layouts.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from typing import TYPE_CHECKING

from codegen.python.layout import LINE_LENGTH, fits

if TYPE_CHECKING:
    import black


@cache
def black_mode() -> black.Mode:
    """Black's mode, fixed here, never read from the user's configuration: the same catalog
    gives the same bytes everywhere. Black is imported only when a statement needs it (most
    builds format nothing with it, and importing it took a tenth of a rebuild)."""
    import black

    return black.Mode(target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH)


def _black(source: str) -> str:
    import black

    return black.format_str(source, mode=black_mode())


# Lines black cannot split, however long: a docstring, or a string (with a string key) alone on
# its line, as an item of a list, dict or call that is already open.
# Possessive (`*+`): a plain repeated group keeps a backtracking point per character (120 bytes
# each: a 10 MB description cost a build over a gigabyte here).
_STRING = r'"(?:[^"\\\n]|\\.)*+"' + "|" + r"'(?:[^'\\\n]|\\.)*+'"
_UNSPLITTABLE = re.compile(rf' *(?:"""[^\n]*"""|(?:(?:{_STRING}): )?(?:{_STRING}),?)\n?')


class GeneratedSyntaxError(Exception):
    """A template produced invalid Python: a bug in codegen, never in the catalog."""


def format_python(path: str, source: str, *, parsed: bool = False) -> str:
    """`source` as black would write it. Unless the caller has `parsed` it already (the renderer's
    symbol tables parse each tool module), a syntax error is a GeneratedSyntaxError first."""
    if not parsed:
        _syntax_tree(path, source)
    lines = source.splitlines(keepends=True)
    statements = scanned(lines)
    if statements is None:
        statements = _statements(_syntax_tree(path, source), lines)
        if statements is None:
            return _black(source)  # statements share a line: not ours
    # Only a line over the limit can need black: a string test first, the width of the rest.
    long = {
        number
        for number, line in enumerate(lines)
        if (len(line) > LINE_LENGTH or not line.isascii())
        and not fits(line.rstrip("\n"))
        and not _UNSPLITTABLE.fullmatch(line)
    }
    out: list[str] = []
    done = 0
    previous: str | None = None
    for first, last, kind in statements:
        gap = lines[done:first]
        if previous is not None and all(line == "\n" for line in gap):
            gap = ["\n"] * _blank_lines(previous, kind, len(gap))
        out += gap
        if long.isdisjoint(range(first, last)):
            out += lines[first:last]
        else:
            out.append(_black("".join(lines[first:last])))
        done = last
        previous = kind
    out += lines[done:]
    return "".join(out)


def _syntax_tree(path: str, source: str) -> ast.Module:
    try:
        return ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise GeneratedSyntaxError(
            f"{path}:{exc.lineno}: generated code does not parse: {exc.msg}"
        ) from exc


# A top-level statement: (its first line, the line after its last, its kind), lines from 0.
Statement = tuple[int, int, str]
BLOCK, IMPORT, OTHER = "block", "import", "other"
_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)


def _statements(tree: ast.Module, lines: list[str]) -> list[Statement] | None:
    """The top-level statements as the syntax tree says; None when two share a line."""
    found: list[Statement] = []
    done = 0
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", [])
        first = (decorators[0] if decorators else statement).lineno - 1
        last = statement.end_lineno or first + 1
        if first < done:
            return None
        kind = (
            BLOCK
            if isinstance(statement, _BLOCKS)
            else IMPORT
            if isinstance(statement, _IMPORTS)
            else OTHER
        )
        found.append((first, last, kind))
        done = last
    return found


# Where a top-level statement of the templates' code starts: a name, a decorator, a docstring.
_START = re.compile(r'[A-Za-z_@]|"""')
# A line at the margin that goes on a compound statement, which the templates write none of.
_CLAUSE = re.compile(r"(?:else|elif|except|finally|case)\b")


def scanned(lines: list[str]) -> list[Statement] | None:
    """The top-level statements of code shaped like the templates' (`_statements` without a syntax
    tree, which costs as much as the rest of rendering a tool): no string spans lines (catalog
    text reaches code only as one-line literals), and every line at the margin starts a statement
    or closes a bracket. None for code that is not so shaped: the syntax tree decides there."""
    if any(
        line.count('"""') % 2 or line.count("'''") % 2
        for line in lines
        if "'''" in line or '"""' in line
    ):
        return None  # a string that spans lines
    # Only the lines at the margin can start a statement.
    margin = [number for number, line in enumerate(lines) if line[0] not in _INSIDE]
    found: list[Statement] = []
    decorating = False  # the statement so far is decorators: their definition goes on it
    for number in margin:
        line = lines[number]
        if not _START.match(line) or _CLAUSE.match(line):
            return None
        if decorating:
            if not line.startswith(("@", "def ", "async def ", "class ")):
                return None
            decorating = line.startswith("@")
            continue
        decorating = line.startswith("@")
        if line.startswith(("@", "def ", "async def ", "class ")):
            kind = BLOCK
        elif line.startswith(("import ", "from ")):
            kind = IMPORT
        else:
            kind = OTHER
        found.append((number, 0, kind))
    if decorating:
        return None  # decorators with nothing to decorate
    if not found:
        return []
    # Each statement ends at its last line of code before the next one starts.
    ends = [first for first, _, _ in found[1:]] + [len(lines)]
    statements: list[Statement] = []
    for (first, _, kind), end in zip(found, ends, strict=True):
        while end > first + 1 and _NOT_CODE.match(lines[end - 1]):
            end -= 1
        statements.append((first, end, kind))
    return statements


# The first character of a line that goes on the statement above it (or is blank or a comment).
_INSIDE = frozenset(" )]}\n#")
_NOT_CODE = re.compile(r"\s*(?:#.*)?$")


def _blank_lines(previous: str, kind: str, written: int) -> int:
    """The blank lines black puts between two top-level statements that no comment separates."""
    if BLOCK in (previous, kind):
        return 2
    if previous == IMPORT and kind != IMPORT:
        return max(1, min(written, 2))
    return min(written, 2)

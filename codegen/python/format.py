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

import black

from codegen.python.layout import LINE_LENGTH, fits

# Fixed here, never read from the user's configuration: the same catalog gives the same bytes everywhere.
MODE = black.Mode(target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH)

# Lines black cannot split, however long: a docstring, or a string (with a string key) alone on
# its line, as an item of a list, dict or call that is already open.
_STRING = r'"(?:[^"\\\n]|\\.)*"' + "|" + r"'(?:[^'\\\n]|\\.)*'"
_UNSPLITTABLE = re.compile(rf' *(?:"""[^\n]*"""|(?:(?:{_STRING}): )?(?:{_STRING}),?)\n?')


class GeneratedSyntaxError(Exception):
    """A template produced invalid Python: a bug in codegen, never in the catalog."""


def format_python(path: str, source: str) -> str:
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise GeneratedSyntaxError(
            f"{path}:{exc.lineno}: generated code does not parse: {exc.msg}"
        ) from exc
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    done = 0
    previous: ast.stmt | None = None
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", [])
        first = (decorators[0] if decorators else statement).lineno - 1
        last = statement.end_lineno or first + 1
        if first < done:
            return black.format_str(source, mode=MODE)  # statements share a line: not ours
        gap = lines[done:first]
        if previous is not None and all(line == "\n" for line in gap):
            gap = ["\n"] * _blank_lines(previous, statement, len(gap))
        out += gap
        chunk = lines[first:last]
        if all(fits(line.rstrip("\n")) or _UNSPLITTABLE.fullmatch(line) for line in chunk):
            out += chunk
        else:
            out.append(black.format_str("".join(chunk), mode=MODE))
        done = last
        previous = statement
    out += lines[done:]
    return "".join(out)


_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)


def _blank_lines(previous: ast.stmt, statement: ast.stmt, written: int) -> int:
    """The blank lines black puts between two top-level statements that no comment separates."""
    if isinstance(previous, _BLOCKS) or isinstance(statement, _BLOCKS):
        return 2
    if isinstance(previous, _IMPORTS) and not isinstance(statement, _IMPORTS):
        return max(1, min(written, 2))
    return min(written, 2)

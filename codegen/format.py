"""Format generated Python with black, in-process and with a fixed mode, after a syntax check."""

from __future__ import annotations

import ast

import black

# Fixed here, never read from the user's configuration: the same catalog gives the same bytes everywhere.
MODE = black.Mode(target_versions={black.TargetVersion.PY311}, line_length=100)


class GeneratedSyntaxError(Exception):
    """A template produced invalid Python: a bug in codegen, never in the catalog."""


def format_python(path: str, source: str) -> str:
    try:
        ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise GeneratedSyntaxError(
            f"{path}:{exc.lineno}: generated code does not parse: {exc.msg}"
        ) from exc
    return black.format_str(source, mode=MODE)

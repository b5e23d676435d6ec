"""Findings relative to their tool: a tool's stage runs on the tool alone, as the first of a
catalog of one at its own lines (`alone`), and its findings are kept by line offset and path after
the tool's own, then anchored where the tool is in its catalog. So what a stage made of a tool
depends on its definition and layout only, and a memo (`codegen.memo`) hands it back for a tool
that only moved."""

from __future__ import annotations

from typing import Any

from codegen.catalog.load import LoadedCatalog
from codegen.diagnostics import Diagnostic, JsonPath

# (line offset from the tool's first line, path after the tool's own, message, level, code)
Relative = tuple[int, str, str, str, str]

# Where a tool alone is: the first of its catalog of one.
ALONE_PATH = "tools[0]"


def alone(file: str, tool: Any, lines: dict[JsonPath, int]) -> LoadedCatalog:
    """A catalog of `tool` alone, with its own line map (by path inside the tool)."""
    return LoadedCatalog(file, {"tools": [tool]}, "", tool_keys=("",), tool_lines=(lines,))


def tool_key(tool: Any, lines: dict[JsonPath, int]) -> str:
    """What fixes a tool's data and layout (where its nodes are, from its first line), for a tool
    not read from an item of its own (whose `LoadedCatalog.tool_keys` entry says both)."""
    line = lines.get((), 1)
    return repr((tool, [(path, at - line) for path, at in lines.items()]))


def relative(findings: list[Diagnostic], line: int, path: str) -> list[Relative]:
    return [
        (d.line - line, d.path.removeprefix(path), d.message, d.level, d.code) for d in findings
    ]


def anchored(source: str, found: list[Relative], line: int, path: str) -> list[Diagnostic]:
    return [
        Diagnostic(source, line + offset, path + suffix, message, level, code)  # type: ignore[arg-type]
        for offset, suffix, message, level, code in found
    ]

"""Run a catalog's generated parser without writing into the project: for `codegen parse`."""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path
from typing import Any

from codegen.build import UsageError, check_catalogs, render_catalog


def parse_with_catalog(source: Path, tool_name: str, raw: str, root: Path) -> dict[str, Any]:
    """Build `source` into a temporary directory, import it, and parse one call of `tool_name`."""
    catalogs, _ = check_catalogs([source], root)
    catalog = catalogs[0]
    if tool_name not in {tool.wire_name for tool in catalog.tools}:
        known = ", ".join(tool.wire_name for tool in catalog.tools)
        raise UsageError(f"{catalog.source} has no tool named {tool_name!r} (its tools: {known})")
    with tempfile.TemporaryDirectory(prefix="codegen-parse-") as tmp:
        # Under a name of its own: a catalog may be called like a module already imported (`json`).
        package = f"_codegen_parse_{catalog.name}"
        for path, text in render_catalog(catalog).items():
            target = Path(tmp) / package / Path(path).relative_to(catalog.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        sys.path.insert(0, tmp)
        try:
            module = importlib.import_module(package)
            request = module.parse(tool_name, raw)
        finally:
            sys.path.remove(tmp)
            for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
                del sys.modules[name]
    return {
        "tool_name": request.tool_name,
        "ok": request.ok,
        "values": request.values,
        "warnings": list(request.warnings),
        "errors": list(request.errors),
    }

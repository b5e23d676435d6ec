"""The cache is a memo around the front end's pure stages, owned by the build (issue 38 item 1):
no module under `codegen/catalog/` imports the cache, and no function there takes one."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CATALOG = sorted((ROOT / "codegen" / "catalog").glob("*.py"))
# The build's memo and what it keeps between builds.
CACHE_MODULES = {"codegen.cache", "codegen.memo", "codegen.memory"}
# What a stage would take to ask the cache itself.
CACHE_ARGUMENTS = {"cache", "results", "record", "memo", "memory"}


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("path", CATALOG, ids=lambda p: p.name)
def test_no_front_end_module_imports_the_cache(path: Path) -> None:
    """Issue 38 item 1: the front end knows nothing of the cache (`catalog/reuse.py` imported
    `cache` and `memory`, and five stages imported it)."""
    assert _imported(path) & CACHE_MODULES == set()
    assert not any(name.startswith("codegen.catalog.reuse") for name in _imported(path))


@pytest.mark.parametrize("path", CATALOG, ids=lambda p: p.name)
def test_no_front_end_function_takes_a_cache(path: Path) -> None:
    """Issue 38 item 1: the stages (`load_catalog`, `read_wild`, `validate_catalog`, `normalize`,
    `with_provider_names`) took the last build's results; now each takes how to map its pure
    per-tool function (`workers.Mapper`), which the build makes a memo."""
    module = importlib.import_module(f"codegen.catalog.{path.stem}")
    functions = [
        member
        for _, owner in [(None, module), *inspect.getmembers(module, inspect.isclass)]
        for _, member in inspect.getmembers(owner, inspect.isfunction)
        if member.__module__ == module.__name__
    ]
    taking = {
        f"{function.__qualname__}({name})"
        for function in functions
        for name in inspect.signature(function).parameters
        if name in CACHE_ARGUMENTS
    }
    assert taking == set()

"""The pipeline: load → validate → normalize → render → format, all in memory, for every catalog."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from codegen.cache import FormatCache, key
from codegen.diagnostics import CatalogError, Diagnostic
from codegen.format import format_python
from codegen.ir import Catalog, Tool
from codegen.load import CATALOG_SUFFIXES, load_catalog
from codegen.normalize import normalize
from codegen.render import (
    render_init,
    render_repair,
    render_runtime,
    render_tool,
    render_tools_init,
)
from codegen.validate import validate_catalog

META_SCHEMA_NAME = "catalog.schema.json"


@dataclass
class BuildResult:
    """The whole output as {relative path: text}, which source owns each file, and the build warnings."""

    files: dict[str, str] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    catalogs: list[Catalog] = field(default_factory=list)


class UsageError(Exception):
    """A source that does not exist or is not a catalog: the command line is wrong, not a catalog."""


def find_sources(paths: list[Path]) -> list[Path]:
    """Catalog files named directly, or found (not recursively) in the directories named."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(
                p
                for p in path.iterdir()
                if p.suffix in CATALOG_SUFFIXES and p.name != META_SCHEMA_NAME
            )
            if not inside:
                raise UsageError(f"{path}: no catalog files (.yaml, .yml, .json) in this directory")
            found.extend(inside)
        elif path.is_file():
            if path.suffix not in CATALOG_SUFFIXES:
                raise UsageError(
                    f"{path}: not a catalog file (expected {', '.join(CATALOG_SUFFIXES)})"
                )
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or directory")
    return list(dict.fromkeys(found))


def check_catalogs(
    sources: list[Path], root: Path | None = None
) -> tuple[list[Catalog], list[Diagnostic]]:
    """Load, validate and normalize every source; raise CatalogError with every error of every file.

    Paths in messages and output are relative to the project `root` (default: the working directory).
    """
    root = root or Path.cwd()
    catalogs: list[Catalog] = []
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for source in sources:
        try:
            loaded = load_catalog(source, root)
        except CatalogError as exc:
            errors.extend(exc.diagnostics)
            continue
        errors.extend(loaded.problems)
        validation = validate_catalog(loaded)
        errors.extend(validation.diagnostics)
        if not validation.tools_readable:
            continue
        # Tools the meta-schema passed are checked further even when others failed: one run, every error.
        catalog, found = normalize(loaded, skip=validation.broken_tools)
        errors.extend(d for d in found if d.level == "error")
        warnings.extend(d for d in found if d.level == "warning")
        if catalog is not None and not loaded.problems and not validation.diagnostics:
            catalogs.append(catalog)
    owners: dict[str, str] = {}
    for catalog in catalogs:
        if catalog.name in owners:
            errors.append(
                Diagnostic(
                    catalog.source,
                    catalog.name_line,
                    "name",
                    f"catalog name {catalog.name!r} is also used by {owners[catalog.name]}",
                )
            )
        owners.setdefault(catalog.name, catalog.source)
    if errors:
        raise CatalogError(errors + warnings)
    return catalogs, sorted(warnings)


# Below this many modules to render, starting worker processes costs more than it saves.
PARALLEL_FROM = 16


def render_catalog(catalog: Catalog, cache: FormatCache | None = None) -> dict[str, str]:
    """Every module of the catalog's package, formatted. With a cache, a tool whose definition is
    unchanged is neither rendered nor formatted again, and the others are rendered in parallel."""
    cache = cache or FormatCache(None)
    package = catalog.name
    files: dict[str, str] = {}
    shared = {
        f"{package}/__init__.py": render_init(catalog),
        f"{package}/_runtime.py": render_runtime(),
        f"{package}/_repair.py": render_repair(),
        f"{package}/tools/__init__.py": render_tools_init(catalog),
    }
    for path, text in shared.items():
        files[path] = _formatted(cache, path, text)
    jobs: list[tuple[str, str, Tool]] = []
    for tool in catalog.tools:
        path = f"{package}/tools/{tool.module}.py"
        entry = key("tool", catalog.source, tool.sha256)
        cached = cache.get(entry)
        if cached is None:
            jobs.append((entry, path, tool))
        else:
            files[path] = cached
    for (entry, path, _), text in zip(jobs, _render_tools(catalog.source, jobs), strict=True):
        cache.put(entry, text)
        files[path] = text
    return dict(sorted(files.items()))


def _formatted(cache: FormatCache, path: str, text: str) -> str:
    # The header's comments hold the catalog's digest, which black leaves as it is: only the body
    # is formatted and cached, so a package's __init__ is formatted again only when it changes.
    header, body = split_header(text)
    entry = key("text", path, body)
    formatted = cache.get(entry)
    if formatted is None:
        formatted = format_python(path, body)
        cache.put(entry, formatted)
    return header + formatted


def split_header(text: str) -> tuple[str, str]:
    """The leading comment lines of a module, and the rest."""
    end = 0
    while text.startswith("#", end):
        end = text.index("\n", end) + 1
    return text[:end], text[end:]


def _render_tools(source: str, jobs: list[tuple[str, str, Tool]]) -> Iterator[str]:
    work = [(source, path, tool) for _, path, tool in jobs]
    workers = min(os.cpu_count() or 1, len(work) // PARALLEL_FROM)
    if workers <= 1:
        return map(_render_tool, work)
    # Black takes most of a build, one module at a time: every core formats its share.
    with ProcessPoolExecutor(workers) as pool:
        return iter(
            list(pool.map(_render_tool, work, chunksize=max(1, len(work) // (workers * 8))))
        )


def _render_tool(job: tuple[str, str, Tool]) -> str:
    source, path, tool = job
    return format_python(path, render_tool(source, tool))


def build(
    paths: list[Path], root: Path | None = None, cache: FormatCache | None = None
) -> BuildResult:
    catalogs, warnings = check_catalogs(find_sources(paths), root)
    result = BuildResult(warnings=warnings, catalogs=catalogs)
    for catalog in catalogs:
        for path, text in render_catalog(catalog, cache).items():
            result.files[path] = text
            result.owners[path] = catalog.source
    return result

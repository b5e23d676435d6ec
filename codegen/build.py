"""The pipeline: load → validate → normalize → render → format, all in memory, for every catalog."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from codegen.diagnostics import CatalogError, Diagnostic
from codegen.format import format_python
from codegen.ir import Catalog
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


def render_catalog(catalog: Catalog) -> dict[str, str]:
    package = catalog.name
    sources = {
        f"{package}/__init__.py": render_init(catalog),
        f"{package}/_runtime.py": render_runtime(),
        f"{package}/_repair.py": render_repair(),
        f"{package}/tools/__init__.py": render_tools_init(catalog),
    }
    for tool in catalog.tools:
        sources[f"{package}/tools/{tool.module}.py"] = render_tool(catalog, tool)
    return {path: format_python(path, text) for path, text in sources.items()}


def build(paths: list[Path], root: Path | None = None) -> BuildResult:
    catalogs, warnings = check_catalogs(find_sources(paths), root)
    result = BuildResult(warnings=warnings, catalogs=catalogs)
    for catalog in catalogs:
        for path, text in render_catalog(catalog).items():
            result.files[path] = text
            result.owners[path] = catalog.source
    return result

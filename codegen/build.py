"""The pipeline: load → validate → normalize → render → format, all in memory, for every catalog."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from codegen import runtime
from codegen.cache import BuildCache, key
from codegen.catalog.aliases import with_provider_names
from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.load import (
    CATALOG_SUFFIXES,
    LoadedCatalog,
    display_name,
    load_catalog,
    read_catalog_bytes,
)
from codegen.catalog.normalize import internal_error, normalize
from codegen.catalog.reuse import ToolResults
from codegen.catalog.validate import validate_catalog
from codegen.catalog.wild import read_wild
from codegen.diagnostics import CatalogError, Diagnostic
from codegen.examples import check_examples
from codegen.outputs import ALL_PROVIDERS
from codegen.payloads.files import payload_files, payloads
from codegen.python.format import format_python
from codegen.python.imports import TAKEN
from codegen.python.render import (
    render_handlers,
    render_init,
    render_mcp,
    render_payloads,
    render_prompts_module,
    render_shared,
    render_tool,
    render_tools_init,
)
from codegen.text.docs import render_docs
from codegen.text.prompts import PROMPTS, render_prompts

META_SCHEMA_NAME = "catalog.schema.json"


@dataclass
class BuildResult:
    """The whole output as {relative path: text}, which source owns each file, the build warnings,
    and the name of each catalog's package."""

    files: dict[str, str] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    packages: list[str] = field(default_factory=list)


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
        elif path.exists() or path.is_symlink():
            # A FIFO or a device is listed too: reading it refuses it, with its kind.
            if path.suffix not in CATALOG_SUFFIXES:
                raise UsageError(
                    f"{path}: not a catalog file (expected {', '.join(CATALOG_SUFFIXES)})"
                )
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or directory")
    return list(dict.fromkeys(found))


def check_catalogs(
    sources: list[Path], root: Path | None = None, providers: tuple[str, ...] = ALL_PROVIDERS
) -> tuple[list[Catalog], list[Diagnostic]]:
    """Load, validate and normalize every source; raise CatalogError with every error of every file.

    Paths in messages and output are relative to the project `root` (default: the working directory).
    """
    found, warnings = _check(sources, root or Path.cwd(), BuildCache(None), providers)
    catalogs = [item.catalog for item in found if isinstance(item, _Checked)]
    for catalog in catalogs:
        warnings += payloads(catalog)[1]  # what a provider's format cannot carry
    return catalogs, sorted(warnings)


def check_catalog(
    source: Path,
    root: Path,
    providers: tuple[str, ...] = ALL_PROVIDERS,
    cache: BuildCache | None = None,
) -> tuple[Catalog | None, list[Diagnostic]]:
    """One source's catalog (None when it has errors), and its errors and warnings. With a cache,
    only the tools whose definitions changed since its last build are validated and normalized."""
    try:
        loaded = load_catalog(source, root)
    except CatalogError as exc:
        return None, exc.diagnostics
    return check_loaded(loaded, providers, cache)


def check_loaded(
    loaded: LoadedCatalog,
    providers: tuple[str, ...] = ALL_PROVIDERS,
    cache: BuildCache | None = None,
) -> tuple[Catalog | None, list[Diagnostic]]:
    """A catalog already read (None when it has errors), and its errors and warnings."""
    results = ToolResults(cache, loaded.file) if cache is not None else None
    found = list(loaded.problems)
    loaded, wild = read_wild(loaded)
    found += wild
    validation = validate_catalog(loaded, results)
    found += validation.diagnostics
    if not validation.tools_readable:
        return None, found
    # Tools the meta-schema passed are checked further even when others failed: one run, every error.
    catalog, more = normalize(loaded, skip=validation.broken_tools, results=results, reserved=TAKEN)
    if results is not None:
        results.save()
    found += more
    if catalog is None or any(d.level == "error" for d in found):
        return None, found
    catalog, collisions = with_provider_names(catalog)
    return dataclasses.replace(catalog, providers=providers), found + collisions


def _shared_names(packages: list[tuple[str, str, int]]) -> list[Diagnostic]:
    """An error for each catalog whose name (its package's) an earlier catalog already took."""
    owners: dict[str, str] = {}
    errors: list[Diagnostic] = []
    for name, source, line in packages:
        if name in owners:
            errors.append(
                Diagnostic(
                    source, line, "name", f"catalog name {name!r} is also used by {owners[name]}"
                )
            )
        owners.setdefault(name, source)
    return errors


# Below this many modules to render, starting worker processes costs more than it saves.
PARALLEL_FROM = 16


def render_catalog(catalog: Catalog, cache: BuildCache | None = None) -> dict[str, str]:
    """Every file of the catalog's package: its modules, formatted, and its payloads."""
    return render_package(catalog, cache)[0]


def render_package(
    catalog: Catalog, cache: BuildCache | None = None
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Every file of the catalog's package, and the payload back end's warnings. With a cache, a
    tool whose definition is unchanged is neither rendered nor formatted again, and the others
    are rendered in parallel."""
    files, warnings = payload_files(catalog, cache)
    return {**_python_files(catalog, cache), **files}, warnings


def _python_files(catalog: Catalog, cache: BuildCache | None) -> dict[str, str]:
    cache = cache or BuildCache(None)
    package = catalog.name
    files: dict[str, str] = {}
    shared = {
        f"{package}/__init__.py": render_init(catalog),
        **{f"{package}/_{name}.py": render_shared(name) for name in runtime.MODULES},
        f"{package}/_handlers.py": render_handlers(catalog),
        f"{package}/_payloads.py": render_payloads(),
        f"{package}/mcp.py": render_mcp(),
        f"{package}/tools/__init__.py": render_tools_init(catalog),
    }
    prompts = render_prompts(catalog)
    shared[f"{package}/_prompts.py"] = render_prompts_module(
        catalog, {PROMPTS[name]: text for name, text in prompts.items()}
    )
    for path, text in shared.items():
        files[path] = _formatted(cache, path, text)
    # The text back ends: the same prompts as files, and the docs.
    for name, text in prompts.items():
        files[f"{package}/prompts/{name}.txt"] = text
    for path, text in render_docs(catalog, cache).items():
        files[f"{package}/docs/{path}"] = text
    # PEP 561: type checkers read an installed package's annotations only when it says it has them.
    files[f"{package}/py.typed"] = ""
    missing: list[tuple[str, Tool]] = []
    for tool in catalog.tools:
        path = f"{package}/tools/{tool.module}.py"
        cached = cache.get(tool_entry(catalog.source, tool))
        if cached is None:
            missing.append((path, tool))
        else:
            files[path] = cached
    failures: list[Diagnostic] = []
    for (path, tool), rendered in zip(missing, _render_tools(catalog.source, missing), strict=True):
        if isinstance(rendered, Diagnostic):
            failures.append(rendered)
            continue
        cache.put(tool_entry(catalog.source, tool), rendered)
        files[path] = rendered
    if failures:
        raise CatalogError(failures)
    return dict(sorted(files.items()))


def tool_entry(source: str, tool: Tool) -> str:
    """The cache key of a tool's module: the catalog's place and the tool's definition."""
    return key("tool", source, tool.sha256)


def _formatted(cache: BuildCache, path: str, text: str) -> str:
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


def _render_tools(source: str, missing: list[tuple[str, Tool]]) -> Iterator[str | Diagnostic]:
    work = [(source, path, tool) for path, tool in missing]
    workers = min(os.cpu_count() or 1, len(work) // PARALLEL_FROM)
    if workers <= 1:
        return map(_render_tool, work)
    # Rendering and the syntax check are pure Python, a module at a time: every core does its share.
    with ProcessPoolExecutor(workers) as pool:
        return iter(
            list(pool.map(_render_tool, work, chunksize=max(1, len(work) // (workers * 8))))
        )


def _render_tool(job: tuple[str, str, Tool]) -> str | Diagnostic:
    """A tool's module, or the report of codegen's own failure on it (a value: it crosses processes)."""
    source, path, tool = job
    try:
        return format_python(path, render_tool(source, tool))
    except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
        return Diagnostic(source, tool.line, tool.path, internal_error(exc))


@dataclass(frozen=True)
class Package:
    """What one catalog builds into: its package's files, its warnings, and where its name is."""

    name: str
    source: str
    name_line: int
    files: dict[str, str]
    warnings: tuple[Diagnostic, ...]


@dataclass(frozen=True)
class _Checked:
    """A catalog read and checked by this build, to be rendered."""

    catalog: Catalog
    warnings: tuple[Diagnostic, ...]

    @property
    def name(self) -> str:
        return self.catalog.name

    @property
    def source(self) -> str:
        return self.catalog.source

    @property
    def name_line(self) -> int:
        return self.catalog.name_line


def build(
    paths: list[Path],
    root: Path | None = None,
    cache: BuildCache | None = None,
    providers: tuple[str, ...] = ALL_PROVIDERS,
) -> BuildResult:
    """Every catalog's package, with the payloads of the `providers` chosen. With a cache, a
    catalog whose file is unchanged since a build is neither read nor checked again: its package,
    findings included, comes from the cache."""
    cache = cache or BuildCache(None)
    found, warnings = _check(find_sources(paths), root or Path.cwd(), cache, providers)
    result = BuildResult(warnings=warnings)
    errors: list[Diagnostic] = []
    for item in found:
        if isinstance(item, _Checked):
            try:
                package = _render_package(item.catalog, item.warnings, cache)
            except CatalogError as exc:
                errors += exc.diagnostics
                continue
            result.warnings += package.warnings[len(item.warnings) :]
        else:
            package = item
        result.packages.append(package.name)
        for path, text in package.files.items():
            result.files[path] = text
            result.owners[path] = package.source
    if errors:
        raise CatalogError(errors + result.warnings)
    result.warnings.sort()
    return result


def _check(
    sources: list[Path], root: Path, cache: BuildCache, providers: tuple[str, ...]
) -> tuple[list[Package | _Checked], list[Diagnostic]]:
    """Each source's package from the cache, or its catalog checked now; raise CatalogError with
    every error and every warning of every file when there is an error."""
    found: list[Package | _Checked] = []
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for source in sources:
        package = _cached_package(cache, source, root, providers)
        if package is not None:
            found.append(package)
            warnings += package.warnings
            continue
        with _collector_paused():
            catalog, diagnostics = check_catalog(source, root, providers, cache)
        errors += [d for d in diagnostics if d.level == "error"]
        mine = tuple(d for d in diagnostics if d.level != "error")
        warnings += mine
        if catalog is not None:
            found.append(_Checked(catalog, mine))
    errors += _shared_names([(item.name, item.source, item.name_line) for item in found])
    if errors:
        raise CatalogError(errors + warnings)
    return found, sorted(warnings)


@contextmanager
def _collector_paused() -> Iterator[None]:
    # Reading a large catalog makes millions of objects that live to the end of the build and
    # form no cycles; each pass of the cyclic collector walked them all, which took half of a
    # rebuild of a 2,000-tool catalog. Rendering (black's trees do have cycles) runs with it on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _render_package(
    catalog: Catalog, warnings: tuple[Diagnostic, ...], cache: BuildCache
) -> Package:
    files, more = render_package(catalog, cache)
    check_examples(catalog, files, cache)
    warnings = (*warnings, *sorted(more))
    package = Package(catalog.name, catalog.source, catalog.name_line, files, warnings)
    # Tool modules are in the cache already, under their tools' entries, and the others are
    # stored by their text: the record refers to both, so it stays small.
    tools = {
        f"{catalog.name}/tools/{tool.module}.py": tool_entry(catalog.source, tool)
        for tool in catalog.tools
    }
    refs: dict[str, str] = {}
    for path, text in files.items():
        refs[path] = tools.get(path) or key("file", text)
        if path not in tools and refs[path] not in cache:
            cache.put(refs[path], text)
    record = {
        "name": package.name,
        "source": package.source,
        "name_line": package.name_line,
        "warnings": [dataclasses.astuple(w) for w in warnings],
        "files": refs,
    }
    # Keyed by the bytes this build read, never by a second read that an editor could race.
    entry = key("package", catalog.source, catalog.sha256, ",".join(catalog.providers))
    cache.put(entry, json.dumps(record))
    return package


def _cached_package(
    cache: BuildCache, source: Path, root: Path, providers: tuple[str, ...]
) -> Package | None:
    try:
        digest = hashlib.sha256(read_catalog_bytes(source, source.name)).hexdigest()
    except CatalogError:
        return None  # reading it again reports why
    record_text = cache.get(key("package", display_name(source, root), digest, ",".join(providers)))
    if record_text is None:
        return None
    try:
        record = json.loads(record_text)
        files: dict[str, str] = {}
        for path, entry in record["files"].items():
            text = cache.get(entry)
            if text is None:
                return None  # an entry was deleted: build the catalog again
            files[path] = text
        warnings = tuple(Diagnostic(*fields) for fields in record["warnings"])
        return Package(record["name"], record["source"], record["name_line"], files, warnings)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # not a record this codegen wrote: build the catalog again

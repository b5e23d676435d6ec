"""The pipeline: load → validate → normalize → render → format, all in memory, for every catalog."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from codegen import runtime
from codegen.cache import BuildCache, key
from codegen.catalog.aliases import with_provider_names
from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.kinds import KEYWORDS
from codegen.catalog.load import (
    CATALOG_SUFFIXES,
    LoadedCatalog,
    display_name,
    load_catalog,
    read_catalog_bytes,
)
from codegen.catalog.normalize import normalize
from codegen.catalog.reuse import (
    ToolResults,
    head,
    pack_values,
    record_entry,
    unpack_values,
    unpickled,
)
from codegen.catalog.validate import validate_catalog
from codegen.catalog.wild import read_wild
from codegen.diagnostics import CatalogError, Diagnostic, in_order, quoted
from codegen.examples import check_examples
from codegen.memory import BuildMemory
from codegen.outputs import ALL_PROVIDERS
from codegen.package_files import Files
from codegen.payloads.files import joined_payload, joined_payloads, payload_files, payloads
from codegen.python.attributes import findings as attribute_findings
from codegen.python.format import format_python
from codegen.python.module_names import class_names, nested_classes, own_name
from codegen.python.module_names import findings as module_findings
from codegen.python.namespace import package_exports, tool_names
from codegen.python.render import (
    INTEGRATIONS,
    INTEGRATIONS_NEED,
    header,
    package_bound,
    render_handlers,
    render_init,
    render_integration,
    render_mcp,
    render_payloads,
    render_shared,
    render_tools_init,
)
from codegen.text.docs import doc_path, render_index
from codegen.text.docs import header as doc_header
from codegen.text.prompts import render_prompts, tool_section
from codegen.tool_outputs import ToolOutput, findings, stored_output, tool_outputs

META_SCHEMA_NAME = "catalog.schema.json"


@dataclass
class BuildResult:
    """The whole output as {relative path: text} (`Files`, which keeps each file's bytes), which
    source owns each file, the build warnings, and the name of each catalog's package."""

    files: Files = field(default_factory=Files)
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
    found, warnings = _check(sources, root or Path.cwd(), BuildCache(None), providers, None)
    catalogs = [item.catalog for item in found if isinstance(item, _Checked)]
    for catalog in catalogs:
        warnings += payloads(catalog)[1]  # what a provider's format cannot carry
    return catalogs, in_order(warnings)


def check_catalog(
    source: Path,
    root: Path,
    providers: tuple[str, ...] = ALL_PROVIDERS,
    cache: BuildCache | None = None,
) -> tuple[Catalog | None, list[Diagnostic]]:
    """One source's catalog (None when it has errors), and its errors and warnings. With a cache,
    only the tools whose definitions changed since its last build are validated and normalized."""
    results = ToolResults(cache, display_name(source, root))
    found = _check_source(source, root, providers, results)
    results.save(keep="output")
    return found


def _check_source(
    source: Path, root: Path, providers: tuple[str, ...], results: ToolResults
) -> tuple[Catalog | None, list[Diagnostic]]:
    try:
        loaded = load_catalog(source, root, results)
    except CatalogError as exc:
        return None, exc.diagnostics
    return check_loaded(loaded, providers, results)


def check_loaded(
    loaded: LoadedCatalog,
    providers: tuple[str, ...] = ALL_PROVIDERS,
    results: ToolResults | None = None,
) -> tuple[Catalog | None, list[Diagnostic]]:
    """A catalog already read (None when it has errors), and its errors and warnings; with the
    `results` of its last build, only the tools whose definitions changed are checked again."""
    found = list(loaded.problems)
    loaded, wild = read_wild(loaded, results)
    found += wild
    validation = validate_catalog(loaded, results)
    found += validation.diagnostics
    if not validation.tools_readable:
        return None, found
    # Tools the meta-schema passed are checked further even when others failed: one run, every error.
    skip = validation.broken_tools
    bound = package_bound()
    python_names, renamed = tool_names(loaded, skip, bound)
    found += renamed
    catalog, more = normalize(
        loaded,
        skip=skip,
        results=results,
        modules={index: module for index, (module, _) in python_names.items()},
        named=partial(name_findings, loaded.file),
    )
    found += more
    if catalog is None or any(d.level == "error" for d in found):
        return None, found
    found += package_exports(catalog, bound)[1]
    catalog, collisions = with_provider_names(catalog, results)
    return dataclasses.replace(catalog, providers=providers), found + collisions


def name_findings(source: str, tool: Tool) -> list[Diagnostic]:
    """What the code back end's names of a tool say (CG106): its module's, its classes' fields'."""
    return module_findings(source, tool) + attribute_findings(source, tool)


def _shared_names(packages: list[tuple[str, str, int]]) -> list[Diagnostic]:
    """An error for each catalog whose name (its package's) an earlier catalog already took."""
    owners: dict[str, str] = {}
    errors: list[Diagnostic] = []
    for name, source, line in packages:
        if name in owners:
            errors.append(
                Diagnostic(
                    source,
                    line,
                    "name",
                    f"catalog name {quoted(name)} is also used by {owners[name]}",
                )
            )
        owners.setdefault(name, source)
    return errors


def render_catalog(catalog: Catalog) -> Files:
    """Every file of the catalog's package: its modules, formatted, and its payloads."""
    return render_package(catalog, ToolResults(None, catalog.source)).files


@dataclass(frozen=True)
class Rendered:
    """A catalog's package: its files, the payload back end's warnings, and what of it the tools'
    outputs hold: for each file that is part of one, the tool's key in the catalog's record and
    the part; the payload files joined from every tool's entries (path → constant), and the
    tools' keys in catalog order."""

    files: Files
    warnings: list[Diagnostic]
    tool_files: dict[str, tuple[str, str]]
    joined: dict[str, str]
    order: list[str]


def render_package(catalog: Catalog, results: ToolResults) -> Rendered:
    """Every file of the catalog's package; a tool whose output is in the `results` of the
    catalog's last build (`tool_outputs`) is not made again."""
    outputs = tool_outputs(catalog, results)
    package = catalog.name
    made = {tool.wire_name: output for tool, (_, output) in zip(catalog.tools, outputs)}

    def section(tool: Tool, example_above: bool) -> str:
        # A section is kept with the tool's output, made without the example call above it.
        return tool_section(tool, True) if example_above else made[tool.wire_name].section

    shared = _shared_files(catalog, results, section, lambda tool: made[tool.wire_name].shares)
    files = Files(shared.items())
    files.update(payload_files(catalog, [output.entries for _, output in outputs]))
    tool_files: dict[str, tuple[str, str]] = {}
    for tool, (entry, output) in zip(catalog.tools, outputs, strict=True):
        module, doc = f"{package}/tools/{tool.module}.py", f"{package}/docs/{doc_path(tool)}"
        files[module], files[doc] = output.module, output.doc
        tool_files[module], tool_files[doc] = (entry, "module"), (entry, "doc")
    warnings = findings(catalog, [output for _, output in outputs])
    order = [entry for entry, _ in outputs]
    return Rendered(files.in_order(), warnings, tool_files, joined_payloads(catalog), order)


def _shared_files(
    catalog: Catalog,
    results: ToolResults,
    section: Callable[[Tool, bool], str],
    shares: Callable[[Tool], bool],
) -> dict[str, str]:
    """The files made from the whole catalog: its modules beside the tools', prompts, docs index."""
    package = catalog.name
    # The runtime's modules are codegen's own Python, copied: its tests hold them black's
    # (tests/test_layout.py), so they are neither parsed nor formatted here.
    files = {f"{package}/_{name}.py": render_shared(name) for name in runtime.MODULES}
    # The modules and the docs page that list every tool, each under a head that names the
    # catalog's digest (which any edit changes).
    module_head = header(catalog.source, catalog.sha256)
    listed = {
        f"{package}/__init__.py": (module_head, render_init),
        f"{package}/_handlers.py": (module_head, render_handlers),
        f"{package}/docs/index.md": (doc_header(catalog.source, catalog.sha256), render_index),
    }
    inputs = _listing_inputs(catalog)
    for path, (heading, render) in listed.items():
        files[path] = _listing(results, path, inputs, heading, partial(render, catalog))
    shared = {
        f"{package}/_payloads.py": render_payloads(),
        f"{package}/mcp.py": render_mcp(),
        f"{package}/tools/__init__.py": render_tools_init(catalog),
    }
    if INTEGRATIONS_NEED in catalog.providers:
        shared.update({f"{package}/{name}.py": render_integration(name) for name in INTEGRATIONS})
    for path, text in shared.items():
        files[path] = _formatted(results, path, text)
    # The prompts of prompt mode, as files: the package's constants are read from them
    # (`runtime/_prompts.py`).
    for name, text in render_prompts(catalog, section, shares).items():
        files[f"{package}/prompts/{name}.txt"] = text
    # PEP 561: type checkers read an installed package's annotations only when it says it has them.
    files[f"{package}/py.typed"] = ""
    return files


def _listing_inputs(catalog: Catalog) -> str:
    """All that the files listing every tool are made of: the catalog's own fields, and each
    tool's head (`reuse.HEAD`: its names, description, examples) but for its definition's digest
    and what its module wants named, in place of which the names they read (`_exported`). They
    read no more of a tool (tests/test_incremental.py holds it), so a tool edited below its head
    (a parameter added, say) leaves them as they are."""
    tools = [
        [v for k, v in head(tool).items() if k not in ("sha256", *_WANTS)] + [_exported(tool)]
        for tool in catalog.tools
    ]
    fields = (catalog.name, catalog.title, catalog.version, catalog.description)
    return repr((fields, catalog.provider_names, catalog.providers, tools))


# What a head holds of a tool's names before the code back end names them: a parameter added
# changes them, though not the names the listing files read (`_exported`).
_WANTS = ("wants", "class_slots")


def _exported(tool: Tool) -> tuple[object, ...]:
    """The names of a tool's module that the files listing every tool read."""
    return class_names(tool), nested_classes(tool), own_name(tool, KEYWORDS)


def _listing(
    results: ToolResults, path: str, inputs: str, heading: str, make: Callable[[], str]
) -> str:
    """A file that lists every tool: its `heading`, then what `make` writes below it, formatted for
    a module, which depends on `inputs` alone (`_listing_inputs`). That is kept in the catalog's
    record under them, so a rebuild that changed no tool's names nor what the file lists of it
    does not make it again (rendering them took 0.07 s at 2,000 tools)."""
    entry = key("listing", path, inputs)
    rest = results.get("text", entry)
    if not isinstance(rest, str):
        text = make()
        assert text.startswith(heading), path
        rest = text[len(heading) :]
        if path.endswith(".py"):
            rest = format_python(path, rest)
        results.put("text", (entry,), rest)
    return heading + rest


def _formatted(results: ToolResults, path: str, text: str) -> str:
    # The header's comments hold the catalog's digest, which black leaves as it is: only the body
    # is formatted and kept, so a package's __init__ is formatted again only when it changes.
    header, body = split_header(text)
    entry = key(path, body)
    formatted = results.get("text", entry)
    if not isinstance(formatted, str):
        formatted = format_python(path, body)
        results.put("text", (entry,), formatted)
    return header + formatted


def split_header(text: str) -> tuple[str, str]:
    """The leading comment lines of a module, and the rest."""
    end = 0
    while text.startswith("#", end):
        end = text.index("\n", end) + 1
    return text[:end], text[end:]


@dataclass(frozen=True)
class Package:
    """What one catalog builds into: its package's files, its warnings, and where its name is."""

    name: str
    source: str
    name_line: int
    files: Files
    warnings: tuple[Diagnostic, ...]


@dataclass(frozen=True)
class _Checked:
    """A catalog read and checked by this build, to be rendered, and its record of per-tool
    results, which rendering adds to."""

    catalog: Catalog
    warnings: tuple[Diagnostic, ...]
    results: ToolResults

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
    memory: BuildMemory | None = None,
) -> BuildResult:
    """Every catalog's package, with the payloads of the `providers` chosen. With a cache, a
    catalog whose file is unchanged since a build is neither read nor checked again: its package,
    findings included, comes from the cache. A process that builds again (`build --watch`) passes
    the same `memory` each time: what it wrote to the cache is not read back."""
    cache = cache or BuildCache(None)
    try:
        return _build(paths, root or Path.cwd(), cache, providers, memory)
    finally:
        gc.unfreeze()


def _build(
    paths: list[Path],
    root: Path,
    cache: BuildCache,
    providers: tuple[str, ...],
    memory: BuildMemory | None,
) -> BuildResult:
    found, warnings = _check(find_sources(paths), root, cache, providers, memory)
    result = BuildResult(warnings=warnings)
    errors: list[Diagnostic] = []
    for item in found:
        if isinstance(item, _Checked):
            try:
                package = _render_package(item.catalog, item.warnings, cache, item.results, memory)
            except CatalogError as exc:
                item.results.save(keep="output")
                errors += exc.diagnostics
                continue
            item.results.save()
            result.warnings += package.warnings[len(item.warnings) :]
        else:
            package = item
        result.packages.append(package.name)
        result.files.update(package.files)
        for path in package.files:
            result.owners[path] = package.source
    if errors:
        raise CatalogError(errors + result.warnings)
    result.warnings = in_order(result.warnings)
    return result


def _check(
    sources: list[Path],
    root: Path,
    cache: BuildCache,
    providers: tuple[str, ...],
    memory: BuildMemory | None,
) -> tuple[list[Package | _Checked], list[Diagnostic]]:
    """Each source's package from the cache, or its catalog checked now; raise CatalogError with
    every error and every warning of every file when there is an error."""
    found: list[Package | _Checked] = []
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for source in sources:
        name = display_name(source, root)
        # A watch's first build of a catalog checks it, though its package is in the cache: its
        # memory then holds every tool's results, and the watch's next builds take them from there.
        fresh = memory is not None and record_entry(name) not in memory.records
        package = None if fresh else _cached_package(cache, source, root, providers, memory)
        if package is not None:
            found.append(package)
            warnings += package.warnings
            continue
        results = ToolResults(cache, name, memory)
        with _collector_paused():
            catalog, diagnostics = _check_source(source, root, providers, results)
        errors += [d for d in diagnostics if d.level == "error"]
        mine = tuple(d for d in diagnostics if d.level != "error")
        warnings += mine
        if catalog is not None:
            found.append(_Checked(catalog, mine, results))
        else:
            results.save(keep="output")
    errors += _shared_names([(item.name, item.source, item.name_line) for item in found])
    if errors:
        for item in found:
            if isinstance(item, _Checked):
                item.results.save(keep="output")
        raise CatalogError(errors + warnings)
    return found, in_order(warnings)


@contextmanager
def _collector_paused() -> Iterator[None]:
    # Reading a large catalog makes millions of objects that live to the end of the build and
    # form no cycles; each pass of the cyclic collector walked them all, which took half of a
    # rebuild of a 2,000-tool catalog. Rendering (black's trees do have cycles) runs with it on,
    # and the objects made so far are set aside from its passes (`build` puts them back).
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def _render_package(
    catalog: Catalog,
    warnings: tuple[Diagnostic, ...],
    cache: BuildCache,
    results: ToolResults,
    memory: BuildMemory | None,
) -> Package:
    rendered = render_package(catalog, results)
    check_examples(catalog, rendered.files, cache)
    warnings = (*warnings, *in_order(rendered.warnings))
    package = Package(catalog.name, catalog.source, catalog.name_line, rendered.files, warnings)
    store = partial(_store_package, cache, catalog.sha256, catalog.providers, package, rendered)
    if memory is None:
        store()
    else:  # a watch stores it once the build is written and reported (`BuildMemory.later`)
        memory.later.append(store)
    return package


def _store_package(
    cache: BuildCache,
    sha256: str,
    providers: tuple[str, ...],
    package: Package,
    rendered: Rendered,
) -> None:
    """Keep a catalog's package in the cache, for a build of the same bytes (`_cached_package`).
    Tool modules, docs pages and payload entries are in the catalog's record already, in their
    tools' outputs: the package's record refers to them. It holds the other files' texts beside,
    and is replaced by each build of the catalog, so the cache holds one package a catalog."""
    files, warnings, tool_files = package.files, package.warnings, rendered.tool_files
    refs = {path: tool_files[path] for path in files if path in tool_files}
    others = {
        path: files.data(path)
        for path in files
        if path not in tool_files and path not in rendered.joined
    }
    head = {
        "name": package.name,
        "source": package.source,
        "name_line": package.name_line,
        "warnings": [(w.file, w.line, w.path, w.message, w.level, w.code) for w in warnings],
        "tools": refs,
        "joined": rendered.joined,
        "order": rendered.order,
    }
    # Two entries, each written whole or not at all: the files say which bytes they were made from
    # too, so that a head is never read beside another build's files.
    # Both are named by the digest of the bytes this build read (never of a second read, which an
    # editor could race): a rebuild of a changed catalog finds none, without reading the head (the
    # findings of thousands of tools, a fortieth of a second to read and check at 2,000); the
    # head's first line says it again. Each slot keeps a catalog's last package only. The head is
    # pickled (the findings of 2,000 tools: a third of the time JSON took, and of the bytes).
    made = sha256.encode()
    entries = {
        "head": made + b"\n" + pickle.dumps(head, 5),
        "files": pack_values({_MADE_FROM: made, **others}),
    }
    for part, body in entries.items():
        entry = _package_entry(package.source, providers, sha256, part)
        cache.put_bytes(entry, body)
        cache.claim(f"package\0{part}\0{package.source}\0{','.join(providers)}", entry)


# The key of a package's files entry that holds the digest they were made from: no file's path.
_MADE_FROM = "\0made from"


def _package_entry(source: str, providers: tuple[str, ...], sha256: str, part: str) -> str:
    return key("package", part, source, ",".join(providers), sha256)


def _cached_package(
    cache: BuildCache,
    source: Path,
    root: Path,
    providers: tuple[str, ...],
    memory: BuildMemory | None,
) -> Package | None:
    try:
        digest = hashlib.sha256(read_catalog_bytes(source, source.name)).hexdigest()
    except CatalogError:
        return None  # reading it again reports why
    name = display_name(source, root)
    made = digest.encode()
    made_from, _, pickled = (
        cache.get_bytes(_package_entry(name, providers, digest, "head")) or b""
    ).partition(b"\n")
    if made_from != made:
        return None  # the catalog changed since its package was made, or there is none
    try:
        head = unpickled(pickled)
    except Exception:  # noqa: BLE001 - not a head this codegen wrote: build the catalog again
        return None
    if not isinstance(head, dict):
        return None
    try:
        stored = cache.get_bytes(_package_entry(name, providers, digest, "files")) or b""
        unpacked = unpack_values(memoryview(stored))
        if unpacked is None or unpacked.pop(_MADE_FROM, None) != made:
            return None  # written by another build than the head, or not at all
        files = Files(unpacked.items())
        results = ToolResults(cache, name, memory)
        tools: dict[str, ToolOutput] = {}
        for entry in head["order"]:
            output = stored_output(results, entry)
            if output is None:
                return None  # no longer in the catalog's record: build the catalog again
            tools[entry] = output
        for path, (entry, part) in head["tools"].items():
            files[path] = {"module": tools[entry].module, "doc": tools[entry].doc}[part]
        entries = [tools[entry].entries for entry in head["order"]]
        for path, constant in head["joined"].items():
            files[path] = joined_payload(entries, constant)
        warnings = tuple(Diagnostic(*fields) for fields in head["warnings"])
        return Package(head["name"], head["source"], head["name_line"], files.in_order(), warnings)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # not a record this codegen wrote: build the catalog again

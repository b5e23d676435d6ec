"""The pipeline: load → validate → normalize → render → format, all in memory, for every catalog."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

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
from codegen.catalog.normalize import normalize
from codegen.catalog.validate import validate_catalog
from codegen.catalog.wild import read_wild
from codegen.diagnostics import CatalogError, Diagnostic, in_order, quoted
from codegen.examples import check_examples
from codegen.memo import ABSENT, Memo, memo_entry
from codegen.memory import BuildMemory
from codegen.outputs import ALL_PROVIDERS
from codegen.package_files import Files
from codegen.payloads.files import joined_payload, joined_payloads, payload_files, payloads
from codegen.python.attributes import findings as attribute_findings
from codegen.python.format import format_python
from codegen.python.module_names import findings as module_findings
from codegen.python.namespace import PackageNames, package_exports, package_names, tool_names
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
from codegen.tool_outputs import (
    ToolOutput,
    findings,
    make_output,
    output_jobs,
    tool_outputs,
)
from codegen.workers import Mapper, map_in_workers

META_SCHEMA_NAME = "catalog.schema.json"

Item = TypeVar("Item")


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
    memo = Memo(cache, display_name(source, root))
    found = _check_source(source, root, providers, memo)
    memo.save(finished=False)
    return found


def _check_source(
    source: Path, root: Path, providers: tuple[str, ...], each: Mapper
) -> tuple[Catalog | None, list[Diagnostic]]:
    try:
        loaded = load_catalog(source, root, each)
    except CatalogError as exc:
        return None, exc.diagnostics
    return check_loaded(loaded, providers, each)


def check_loaded(
    loaded: LoadedCatalog,
    providers: tuple[str, ...] = ALL_PROVIDERS,
    each: Mapper = map_in_workers,
) -> tuple[Catalog | None, list[Diagnostic]]:
    """A catalog already read (None when it has errors), and its errors and warnings; each stage's
    work on a tool done by `each` (a memo's: only the tools whose definitions changed are checked
    again)."""
    found = list(loaded.problems)
    loaded, wild = read_wild(loaded, each)
    found += wild
    validation = validate_catalog(loaded, each)
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
        each=each,
        named={index: NameCheck(loaded.file, names.stem) for index, names in python_names.items()},
    )
    found += more
    if catalog is None or any(d.level == "error" for d in found):
        return None, found
    found += package_exports(catalog, package_names(catalog, bound, each))[1]
    catalog, collisions = with_provider_names(catalog, each)
    return dataclasses.replace(catalog, providers=providers), found + collisions


@dataclass(frozen=True)
class NameCheck:
    """What the code back end's names of a tool in the catalog file `source` say (CG106): its
    module's, its classes named from `stem`, and its classes' fields'. Its `repr` names all it
    reads besides the tool: the normalizing memo's key holds it (`normalize._Piece`)."""

    source: str
    stem: str

    def __call__(self, tool: Tool) -> list[Diagnostic]:
        return module_findings(self.source, tool, self.stem) + attribute_findings(self.source, tool)


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
    return render_package(catalog, Memo(None, catalog.source)).files


@dataclass(frozen=True)
class Rendered:
    """A catalog's package: its files, the payload back end's warnings, and what of it the tools'
    outputs hold: for each file that is part of one, the output's key in the catalog's memo and
    the part; the payload files joined from every tool's entries (path → constant), and the
    outputs' keys in catalog order; the names of the package's top it was made with; and the
    files whose body the memo holds: their heading and the body's key (`_Shared`)."""

    files: Files
    warnings: list[Diagnostic]
    tool_files: dict[str, tuple[str, str]]
    joined: dict[str, str]
    order: list[str]
    names: PackageNames
    kept: dict[str, tuple[str, str]]


def render_package(catalog: Catalog, memo: Memo) -> Rendered:
    """Every file of the catalog's package; what the catalog's `memo` holds is not made again."""
    names = package_names(catalog, package_bound(), memo)
    jobs = output_jobs(catalog, names)
    outputs = list(zip([memo.key(make_output, job) for job in jobs], tool_outputs(jobs, memo)))
    package = catalog.name
    made = {tool.wire_name: output for tool, (_, output) in zip(catalog.tools, outputs)}

    def section(tool: Tool, example_above: bool) -> str:
        # A section is kept with the tool's output, made without the example call above it.
        return tool_section(tool, True) if example_above else made[tool.wire_name].section

    shared = _Shared(memo)
    _shared_files(shared, catalog, names, section, lambda tool: made[tool.wire_name].shares)
    files = Files(shared.files.items())
    files.update(payload_files(catalog, [output.entries for _, output in outputs]))
    tool_files: dict[str, tuple[str, str]] = {}
    for tool, (entry, output) in zip(catalog.tools, outputs, strict=True):
        module = names.module(tool)
        module, doc = f"{package}/tools/{module}.py", f"{package}/docs/{doc_path(module)}"
        files[module], files[doc] = output.module, output.doc
        tool_files[module], tool_files[doc] = (entry, "module"), (entry, "doc")
    warnings = findings(catalog, [output for _, output in outputs])
    order = [entry for entry, _ in outputs]
    joined = joined_payloads(catalog)
    return Rendered(files.in_order(), warnings, tool_files, joined, order, names, shared.kept)


@dataclass
class _Shared:
    """The files made from the whole catalog, as they are made; of those whose body is a value of
    the catalog's `memo`, the heading and the body's key (`kept`): the package kept for a build of
    the same bytes refers to them, and holds no copy (`_keep_package`)."""

    memo: Memo
    files: dict[str, str] = field(default_factory=dict)
    kept: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, path: str, heading: str, body: Callable[[Item], str], item: Item) -> None:
        """The file `path`: `heading`, then the memo's value of `body` of `item`."""
        entry, text = self.memo.one(body, item)
        self.files[path] = heading + text
        self.kept[path] = (heading, entry)


def _shared_files(
    shared: _Shared,
    catalog: Catalog,
    names: PackageNames,
    section: Callable[[Tool, bool], str],
    shares: Callable[[Tool], bool],
) -> None:
    """The files made from the whole catalog: its modules beside the tools', prompts, docs index."""
    package = catalog.name
    shared.files.update(_runtime_files(package))
    # The modules and the docs page that list every tool, each under a head that names the
    # catalog's digest (which any edit changes).
    module_head = header(catalog.source, catalog.sha256)
    listed = {
        f"{package}/__init__.py": (module_head, render_init),
        f"{package}/_handlers.py": (module_head, render_handlers),
        f"{package}/docs/index.md": (doc_header(catalog.source, catalog.sha256), render_index),
    }
    inputs = _listing_inputs(catalog, names)
    for path, (heading, render) in listed.items():
        make = partial(render, catalog, names)
        shared.add(path, heading, _listing_body, _Listing(path, inputs, heading, make))
    modules = {
        f"{package}/_payloads.py": render_payloads(),
        f"{package}/mcp.py": render_mcp(),
        f"{package}/tools/__init__.py": render_tools_init(catalog),
    }
    if INTEGRATIONS_NEED in catalog.providers:
        modules.update({f"{package}/{name}.py": render_integration(name) for name in INTEGRATIONS})
    for path, text in modules.items():
        # The header's comments hold the catalog's digest, which black leaves as it is: only the
        # body is formatted and kept, so a package's __init__ is formatted again only when it
        # changes.
        heading, body = split_header(text)
        shared.add(path, heading, _format_module, (path, body))
    # The prompts of prompt mode, as files: the package's constants are read from them
    # (`runtime/_prompts.py`).
    for name, text in render_prompts(catalog, section, shares).items():
        shared.files[f"{package}/prompts/{name}.txt"] = text
    # PEP 561: type checkers read an installed package's annotations only when it says it has them.
    shared.files[f"{package}/py.typed"] = ""


def _runtime_files(package: str) -> dict[str, str]:
    """The runtime's modules, codegen's own Python, copied: the same for every catalog of one
    codegen. Its tests hold them black's (tests/test_layout.py), so they are neither parsed nor
    formatted here."""
    return {_runtime_path(package, name): render_shared(name) for name in runtime.MODULES}


def _runtime_path(package: str, module: str) -> str:
    return f"{package}/_{module}.py"


def _listing_inputs(catalog: Catalog, names: PackageNames) -> str:
    """All that the files listing every tool are made of: the catalog's own fields, and each
    tool's fields in `LISTED` (its names, description, examples) and the Python names they read
    (`_exported`). They read no more of a tool (tests/test_incremental.py holds it), so a tool
    edited below them (a parameter added, say) leaves them as they are."""
    tools = [
        [*(getattr(tool, name) for name in LISTED), _exported(tool, names)]
        for tool in catalog.tools
    ]
    fields = (catalog.name, catalog.title, catalog.version, catalog.description)
    return repr((fields, catalog.provider_names, catalog.providers, tools))


# What the files listing every tool read of each.
LISTED = (
    "wire_name",
    "description",
    "title",
    "pinned",
    "examples",
)


def _exported(tool: Tool, names: PackageNames) -> tuple[object, ...]:
    """The Python names of a tool that the files listing every tool read: its module and parser,
    and the names of its module they import."""
    return names[tool], names.classes(tool), names.nested(tool), names.keywords(tool)


@dataclass(frozen=True)
class _Listing:
    """A file that lists every tool: its path, what it is made of (`_listing_inputs`), its
    heading, and what writes it (heading first)."""

    path: str
    inputs: str
    heading: str
    make: Callable[[], str]

    def __repr__(self) -> str:
        # All that the file's body is made of, for the memo's key: the heading is not kept.
        return repr((self.path, self.inputs))


def _listing_body(listing: _Listing) -> str:
    """What `make` writes below the heading, formatted for a module: it depends on the listing's
    inputs alone (`_listing_inputs`), so a rebuild that changed no tool's names nor what the file
    lists of it takes it from the memo (rendering them took 0.07 s at 2,000 tools)."""
    text = listing.make()
    assert text.startswith(listing.heading), listing.path
    rest = text[len(listing.heading) :]
    return format_python(listing.path, rest) if listing.path.endswith(".py") else rest


def _format_module(module: tuple[str, str]) -> str:
    return format_python(*module)


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
    """A catalog read and checked by this build, to be rendered, and its memo, which rendering
    adds to."""

    catalog: Catalog
    warnings: tuple[Diagnostic, ...]
    memo: Memo

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
                package = _render_package(item.catalog, item.warnings, cache, item.memo, memory)
            except CatalogError as exc:
                item.memo.save(finished=False)
                errors += exc.diagnostics
                continue
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
        fresh = memory is not None and memo_entry(name) not in memory.records
        memo = Memo(cache, name, memory)
        package = None if fresh else _cached_package(memo, source, providers)
        if package is not None:
            found.append(package)
            warnings += package.warnings
            continue
        with _collector_paused():
            catalog, diagnostics = _check_source(source, root, providers, memo)
        errors += [d for d in diagnostics if d.level == "error"]
        mine = tuple(d for d in diagnostics if d.level != "error")
        warnings += mine
        if catalog is not None:
            found.append(_Checked(catalog, mine, memo))
        else:
            memo.save(finished=False)
    errors += _shared_names([(item.name, item.source, item.name_line) for item in found])
    if errors:
        for item in found:
            if isinstance(item, _Checked):
                item.memo.save(finished=False)
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
    memo: Memo,
    memory: BuildMemory | None,
) -> Package:
    rendered = render_package(catalog, memo)
    check_examples(catalog, rendered.names, rendered.files, cache)
    warnings = (*warnings, *in_order(rendered.warnings))
    package = Package(catalog.name, catalog.source, catalog.name_line, rendered.files, warnings)
    _keep_package(memo, catalog.sha256, catalog.providers, package, rendered)
    if memory is None:
        memo.save()
    else:  # a watch writes it once the build is written and reported (`BuildMemory.later`)
        memory.later.append(memo.save)
    return package


def _keep_package(
    memo: Memo,
    sha256: str,
    providers: tuple[str, ...],
    package: Package,
    rendered: Rendered,
) -> None:
    """Keep a catalog's package in its memo, for a build of the same bytes (`_cached_package`).
    Tool modules, docs pages and payload entries are in the memo already, in their tools'
    outputs, and so are the bodies of the modules that list every tool: the package refers to
    them. The runtime's modules are made again (the same for every catalog of this codegen,
    which the key names). It holds the other files' bytes."""
    files, tool_files = package.files, rendered.tool_files
    elsewhere = tool_files.keys() | rendered.joined.keys() | rendered.kept.keys()
    elsewhere |= {_runtime_path(package.name, name) for name in runtime.MODULES}
    kept = {
        "name": package.name,
        "source": package.source,
        "name_line": package.name_line,
        "warnings": package.warnings,
        "files": {path: files.data(path) for path in files if path not in elsewhere},
        "tools": {path: tool_files[path] for path in files if path in tool_files},
        "joined": rendered.joined,
        "kept": rendered.kept,
        "order": rendered.order,
    }
    memo.put(_package_key(providers, sha256), kept)


def _package_key(providers: tuple[str, ...], sha256: str) -> str:
    """The key of a catalog's package in its memo: the digest of the bytes the build read (never
    of a second read, which an editor could race), and the providers chosen."""
    return key("package", ",".join(providers), sha256)


def _cached_package(memo: Memo, source: Path, providers: tuple[str, ...]) -> Package | None:
    """The package the catalog's `memo` holds for its bytes as they are now, if any. Only a build
    that checks the catalog writes the memo: what it holds of the tools is what the next edit
    asks for."""
    try:
        digest = hashlib.sha256(read_catalog_bytes(source, source.name)).hexdigest()
    except CatalogError:
        return None  # reading it again reports why
    kept = memo.get(_package_key(providers, digest))
    if kept is ABSENT:
        return None  # the catalog changed since its package was made, or there is none
    outputs: dict[str, ToolOutput] = {}
    for entry in kept["order"]:
        output = memo.get(entry)
        if output is ABSENT:
            return None  # not in the catalog's memo: build the catalog again
        outputs[entry] = output
    files = Files(kept["files"].items())
    files.update(_runtime_files(kept["name"]))
    for path, (heading, entry) in kept["kept"].items():
        body = memo.get(entry)
        if body is ABSENT:
            return None
        files[path] = heading + body
    for path, (entry, part) in kept["tools"].items():
        files[path] = {"module": outputs[entry].module, "doc": outputs[entry].doc}[part]
    entries = [outputs[entry].entries for entry in kept["order"]]
    for path, constant in kept["joined"].items():
        files[path] = joined_payload(entries, constant)
    return Package(
        kept["name"], kept["source"], kept["name_line"], files.in_order(), kept["warnings"]
    )

"""The names a generated package defines at its top: the one naming pass of the Python back end.

The package's own names come first (`reserved`: what its shared modules bind, read from their
templates by `render.package_bound`), and no tool takes one. Then each tool claims its module and
its public names (`parse_<tool>`, `<Tool>Args`, `<Tool>Keywords`, `<Tool>Result`) by the one rule
(`catalog.names.resolve`): a tool whose names are held takes suffix 2, 3, … on all of them at once,
with a CG106 finding naming both. Last, the dataclasses inside each tool (`UpdateConfigSettings`)
are exported beside them; one whose name another export holds is exported under a suffixed name,
said the same way. So `__all__` is unique and every export keeps its meaning.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.kinds import KEYWORDS, RESULT
from codegen.catalog.load import LoadedCatalog
from codegen.catalog.names import (
    Claim,
    Rename,
    class_stem,
    identifier,
    pascal,
    resolve,
    snake_base,
)
from codegen.catalog.returns import has_result
from codegen.diagnostics import Diagnostic, quoted, warning
from codegen.python.module_names import class_names, name_modules, nested_classes, own_name
from codegen.workers import Mapper, map_in_workers

# The owner of the names the package binds itself, in `resolve`'s claims of tools (indexes).
PACKAGE = -1


@dataclass(frozen=True)
class ToolNames:
    """A tool's names at the package's top: its module under `tools/` and the stem of its classes
    (`MemorySearch`, from which `python.module_names` names every class of its module)."""

    module: str
    stem: str

    @property
    def parser(self) -> str:
        return f"parse_{self.module}"


@dataclass(frozen=True)
class PackageNames:
    """Every tool's `ToolNames`, by wire name, and the names the package binds itself
    (`reserved`): made once per catalog (`package_names`) and handed to whatever writes a name
    of the package's top. The IR holds none of them: a module's name depends on every tool."""

    tools: Mapping[str, ToolNames]
    reserved: frozenset[str]

    def __getitem__(self, tool: Tool) -> ToolNames:
        return self.tools[tool.wire_name]

    def module(self, tool: Tool) -> str:
        return self[tool].module

    def parser(self, tool: Tool) -> str:
        return self[tool].parser

    def classes(self, tool: Tool) -> tuple[str, str | None]:
        """Its `<Tool>Args` and `<Tool>Result` (None: it declares no result)."""
        return class_names(tool, self[tool].stem)

    def nested(self, tool: Tool) -> tuple[str, ...]:
        return nested_classes(tool, self[tool].stem)

    def keywords(self, tool: Tool) -> str:
        """Its handler's Protocol, `<Tool>Keywords`."""
        return own_name(tool, self[tool].stem, KEYWORDS)


# What claims a tool's names: its index, wire name, `x-python-name` (None: none) and whether it
# declares a result.
_Entry = tuple[int, str, "str | None", bool]


def tool_names(
    loaded: LoadedCatalog, skip: set[int] | frozenset[int], reserved: frozenset[str]
) -> tuple[dict[int, ToolNames], list[Diagnostic]]:
    """Each tool's names, by index, and a finding for each tool that could not have its own: one
    whose public names the package binds (`reply` → `parse_reply`), or another tool holds
    (`todo.add` and `todo_add`), is told apart by a suffix on all of them."""
    specs = loaded.data["tools"]
    entries: list[_Entry] = []
    first: dict[str, int] = {}  # the same wire name twice is an error of its own, not a rename
    for index, spec in enumerate(specs):
        if index not in skip and first.setdefault(spec["name"], index) == index:
            entries.append((index, spec["name"], spec.get("x-python-name"), has_result(spec)))
    given, claims, renames = _resolved(tuple(entries), reserved)
    problems = [_renamed(loaded, claims, rename, reserved) for rename in renames]
    chosen = {
        index: given[first[spec["name"]]] for index, spec in enumerate(specs) if index not in skip
    }
    return chosen, problems


def package_names(
    catalog: Catalog, reserved: frozenset[str], each: Mapper = map_in_workers
) -> PackageNames:
    """The names of a checked catalog's tools (`tool_names` gave the same, and said its renames),
    their modules' named by `each` (`module_names.name_modules`)."""
    entries: list[_Entry] = [
        (index, tool.wire_name, tool.pinned, any(want.role == RESULT for want in tool.wants))
        for index, tool in enumerate(catalog.tools)
    ]
    given = _resolved(tuple(entries), reserved)[0]
    tools = {tool.wire_name: given[index] for index, tool in enumerate(catalog.tools)}
    name_modules(((tool, given[index].stem) for index, tool in enumerate(catalog.tools)), each)
    return PackageNames(tools, reserved)


@lru_cache(maxsize=2)
def _resolved(
    entries: tuple[_Entry, ...], reserved: frozenset[str]
) -> tuple[dict[int, ToolNames], list[Claim[int]], list[Rename[int]]]:
    """Each entry's names by the one rule, its claims and the renames: the same for the check's
    `tool_names` and each `package_names` of a build, so made once (0.03 s at 2,000 tools). What
    it gives is read, never changed."""
    claims: list[Claim[int]] = []
    for index, name, pinned, typed in entries:
        module = snake_base(pinned) if pinned else snake_base(name, fallback="tool")
        stem = pascal(pinned or name, fallback="Tool")

        def variants(
            n: int, module: str = module, stem: str = stem, typed: bool = typed
        ) -> tuple[str, ...]:
            return public_names(identifier(module, n), class_stem(stem, n), typed)

        claims.append(Claim(index, variants, pinned=bool(pinned), exact=name == identifier(module)))
    given, renames = resolve(claims, dict.fromkeys(reserved, PACKAGE))
    names = {
        index: ToolNames(module.removeprefix("tools."), args.removesuffix("Args"))
        for index, (module, _, args, *_) in given.items()
    }
    return names, claims, renames


def public_names(module: str, stem: str, typed: bool) -> tuple[str, ...]:
    """A tool's module, then the names it binds beside other tools' in the package and its
    executor: its parser, its arguments' class, its handler's Protocol and its result's class
    (`typed`: it declares one)."""
    # The module is a name under `tools.`, where no name of the package's own is.
    names = (f"tools.{module}", f"parse_{module}", f"{stem}Args", f"{stem}Keywords")
    return (*names, f"{stem}Result") if typed else names


def _renamed(
    loaded: LoadedCatalog, claims: list[Claim[int]], rename: Rename[int], reserved: frozenset[str]
) -> Diagnostic:
    specs = loaded.data["tools"]
    name = specs[rename.owner]["name"]
    if rename.holder == PACKAGE:
        wanted = next(c for c in claims if c.owner == rename.owner).variants(1)
        clash = next(n for n in wanted if n in reserved)
        message = (
            f"tool {quoted(name)} becomes Python name {quoted(_module(rename.given))}, since the package's"
            f" own {quoted(clash)} would be its {_role(wanted.index(clash))}"
            + (
                " (give it another x-python-name)"
                if rename.pinned
                else " (set x-python-name to choose)"
            )
        )
    elif rename.pinned:
        other = specs[rename.holder]["name"]
        message = (
            f"tool {quoted(name)} and tool {quoted(other)} both pin Python name {quoted(_module(rename.wanted))}:"
            f" {quoted(name)} becomes {quoted(_module(rename.given))} (give it another x-python-name)"
        )
    else:
        other = specs[rename.holder]["name"]
        message = (
            f"tool {quoted(name)} becomes Python name {quoted(_module(rename.given))}, since tool"
            f" {quoted(other)} has {quoted(_module(rename.wanted))} (set x-python-name on either to"
            " choose)"
        )
    return loaded.diagnostic(("tools", rename.owner, "name"), message, "CG106")


def _module(name: str) -> str:
    return name.removeprefix("tools.")


def _role(position: int) -> str:
    """What `public_names`' name at `position` is to the tool."""
    return ("module", "parser", "arguments' class", "handler's Protocol", "result's class")[
        position
    ]


# The owner of the names the package binds itself, among the exports (tool module, class).
_PACKAGE_EXPORT = ("", "")


@dataclass(frozen=True)
class Export:
    """A name the package exports of a tool: the module that defines it, its name there."""

    name: str  # in the package
    module: str  # the tool's module under tools/
    defined: str  # in the module: the same as `name` unless another export held it

    @property
    def imported(self) -> str:
        """What `__init__` imports, for type checkers: `Name`, or `Defined as Name`."""
        return self.name if self.name == self.defined else f"{self.defined} as {self.name}"

    @property
    def source(self) -> str:
        """Where `__init__`'s `__getattr__` finds it (`_runtime.lazy_exports`): the module, and
        the name there after a `:` when it differs."""
        return self.module if self.name == self.defined else f"{self.module}:{self.defined}"


def package_exports(catalog: Catalog, names: PackageNames) -> tuple[list[Export], list[Diagnostic]]:
    """What the package exports of its tools, by module: each tool's parser, `Args` and `Result`
    (distinct already, `tool_names`), then its nested dataclasses, each under its own name or,
    when another export holds it, a suffixed one, with a CG106 finding."""
    tools = sorted(catalog.tools, key=names.module)
    own = {names.module(tool): _own(tool, names) for tool in tools}
    nested = {names.module(tool): names.nested(tool) for tool in tools}
    held = dict.fromkeys(names.reserved, _PACKAGE_EXPORT)
    held.update({name: (module, name) for module, names in own.items() for name in names})
    # Most nested classes meet no other name: they keep theirs, and only the rest go through the
    # rule (the same outcome, for a fraction of a rebuild's time at thousands of tools).
    wanted = Counter(name for classes in nested.values() for name in classes)
    claims = []
    for module, classes in nested.items():
        for name in classes:
            if wanted[name] == 1 and name not in held:
                held[name] = (module, name)
            else:
                claims.append(Claim((module, name), partial(_suffixed, name)))
    given, renames = resolve(claims, held)
    exports = [
        Export(given.get((module, name), (name,))[0], module, name)
        for module in own
        for name in sorted((*own[module], *nested[module]))
    ]
    by_module = {names.module(tool): tool for tool in tools}
    problems = []
    for rename in renames:
        tool = by_module[rename.owner[0]]
        if rename.holder == _PACKAGE_EXPORT:
            whose = "the package's own name"
        else:
            whose = f"a class of tool {quoted(by_module[rename.holder[0]].wire_name)}"
        message = (
            f"class {quoted(rename.wanted)} of tool {quoted(tool.wire_name)} is exported by the"
            f" package as {quoted(rename.given)}, since {whose} is {quoted(rename.wanted)} (set"
            " x-python-name on the tool to choose)"
        )
        problems.append(warning(catalog.source, tool.line, f"{tool.path}.name", message, "CG106"))
    return exports, problems


def _suffixed(name: str, n: int) -> tuple[str, ...]:
    return (class_stem(name, n),)


def _own(tool: Tool, names: PackageNames) -> Sequence[str]:
    args, result = names.classes(tool)
    parser = names.parser(tool)
    return (parser, args) if result is None else (parser, args, result)

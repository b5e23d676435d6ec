"""The module-level names of a tool's module: its classes (`<Tool>Args`, `<Tool>Keywords`,
`<Tool>Result`, nested dataclasses, `Literal` aliases), helpers, pattern constants and tables.
Part of the back end's naming pass (`namespace` names the package's top, `attributes` a class's
fields): the IR says what needs a name (`Tool.wants`: a role and the wire names it comes from, in
the order the front end met them), and this names them all, in that order, by the one rule
(`catalog.names.resolve`, as `Names.take`) over the names every tool module binds itself (`imports.TAKEN`): a name
held takes suffix 2, 3, … A class users see that a name of the module's own or one of the tool's
own classes holds is said (CG106); names of one tool whose parts spell one name (the branches of a
union, `a.b` beside `a_b`, whose parameter names are said) are numbered quietly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass

from codegen.catalog.ir import Tool
from codegen.catalog.kinds import (
    ARGS,
    CHOICES,
    CLASS,
    DRAFT,
    FOLDED,
    HELPER,
    KEYS,
    KEYWORDS,
    PATTERN,
    RESULT,
    TABLE,
    VALUES,
    Want,
)
from codegen.catalog.names import class_stem, identifier, pascal, snake
from codegen.diagnostics import Diagnostic, format_path, quoted, warning
from codegen.python.imports import TAKEN
from codegen.workers import Mapper

# The owner of the names a module binds before any is taken (`Names(bound)`).
BOUND = -1


class Names:
    """Module-level names of one generated module, taken one by one by the one rule: a name held
    takes suffix 2, 3, … (`resolve` for one claim of one name against the names held, which
    tests/test_names.py holds it to; written out, since a module of a large tool takes hundreds
    and `resolve` copies what is held for each)."""

    def __init__(self, bound: Iterable[str]) -> None:
        self.held: dict[str, int] = dict.fromkeys(bound, BOUND)

    def take(self, name: str) -> str:
        style = class_stem if name[:1].isupper() else identifier
        n = 1
        while (chosen := style(name, n)) in self.held:
            n += 1
        self.held[chosen] = len(self.held)  # a new owner each time: never handed out twice
        return chosen


@dataclass(frozen=True)
class ModuleNames:
    """The names of a tool's module, by slot (`Tool.wants`), and what was renamed: (the path
    inside the tool, the message)."""

    names: tuple[str, ...]
    said: tuple[tuple[tuple[str | int, ...], str], ...]

    def __getitem__(self, slot: int) -> str:
        return self.names[slot]


def module_names(tool: Tool, tool_stem: str) -> ModuleNames:
    """The names of `tool`'s module (see the module's docstring), its classes named from
    `tool_stem` (`namespace.ToolNames.stem`): a function of its wants and its stem alone, made
    once for each (the model, the exports and the findings each ask)."""
    found = _MADE.get((tool.sha256, tool_stem))
    if found is None:
        found = _remember(Naming(tool, tool_stem), name_wants(tool.wants, tool_stem))
    return found


def name_modules(tools: Iterable[tuple[Tool, str]], each: Mapper) -> None:
    """Name the modules of `tools` (each with the stem of its classes) by `each`: a build's memo
    hands back what its last build named, so a rebuild in a new process names the tools it
    changed, not all of them (0.1 s at 2,000 tools), and keeps every tool's names for the next."""
    wanted = [Naming(tool, stem) for tool, stem in tools]
    # In this process: naming a tool is a small fraction of what crossing to a worker costs.
    for naming, names in zip(wanted, each(_named, wanted, least=sys.maxsize), strict=True):
        _remember(naming, names)


@dataclass(frozen=True)
class Naming:
    """A tool and the stem of its classes: all that naming its module reads. Its `repr` (a memo's
    key) names the tool by its definition's digest, which fixes its wants."""

    tool: Tool
    stem: str

    def __repr__(self) -> str:
        return repr((self.tool.sha256, self.stem))


def _named(naming: Naming) -> ModuleNames:
    return module_names(naming.tool, naming.stem)  # named already when the tool was checked


def _remember(naming: Naming, names: ModuleNames) -> ModuleNames:
    if len(_MADE) >= _KEPT:
        _MADE.clear()  # a watch's builds of a large catalog: forget the oldest with the rest
    _MADE[naming.tool.sha256, naming.stem] = names
    return names


# Each tool's names by its definition's digest (which fixes its wants) and its stem: found again
# without hashing its wants (as long as naming them, at 2,000 tools). A process that builds again
# keeps those of its last builds (`build --watch`).
_MADE: dict[tuple[str, str], ModuleNames] = {}
_KEPT = 8192


def name_wants(wants: tuple[Want, ...], tool_stem: str) -> ModuleNames:
    """Each want's name, in order, for a tool whose classes are named from `tool_stem`."""
    names = Names(TAKEN)
    own = tuple(f"{tool_stem}{role}" for role in ("Args", "Keywords", "Result"))
    given: list[str] = []
    said: list[tuple[tuple[str | int, ...], str]] = []
    for want in wants:
        wanted = _wanted(want, tool_stem, given)
        held = names.held.get(wanted)
        name = names.take(wanted)
        if want.role == CLASS and name != wanted and (held == BOUND or wanted in own):
            message = (
                f"class {quoted(wanted)} becomes {quoted(name)}, since the tool's module has"
                f" {quoted(wanted)} already (set x-python-name on the tool to choose its stem)"
            )
            said.append((want.path, message))
        given.append(name)
    return ModuleNames(tuple(given), tuple(said))


def _wanted(want: Want, tool_stem: str, given: list[str]) -> str:
    """The name `want` asks for, before the rule suffixes it; `given` holds the names of the
    slots before it (a table's `_FOLDED` extends the table's name as given)."""
    role, parts = want.role, want.parts
    if role in (TABLE, CHOICES, PATTERN):
        constant = "_" + "_".join(snake(p).upper() for p in parts)
        return constant if role == TABLE else f"{constant}_{role.upper()}"
    if role == HELPER:
        return "_" + "_".join(snake(p) for p in parts)
    if role == CLASS:
        prefix = f"{tool_stem}Result" if want.in_result else tool_stem
        return prefix + "".join(pascal(p) for p in parts)
    if role in (KEYWORDS, ARGS, RESULT):
        return f"{tool_stem}{role.capitalize()}"
    assert want.base is not None, want
    base = given[want.base]
    if role in (FOLDED, VALUES):
        return f"{base}_{role.upper()}"
    assert role in (KEYS, DRAFT), want
    return f"_{base.strip('_').upper() or 'ARGUMENTS'}_{role.upper()}"


def own_name(tool: Tool, tool_stem: str, role: str) -> str:
    """The name of one of the tool's own names (`KEYWORDS`, `ARGS`, `RESULT`) in its module."""
    slot = next(i for i, want in enumerate(tool.wants) if want.role == role)
    return module_names(tool, tool_stem)[slot]


def class_names(tool: Tool, tool_stem: str) -> tuple[str, str | None]:
    """Its `<Tool>Args` class and its `<Tool>Result` class (None: it declares no typed result):
    what the catalog's checks and the modules that list every tool read of its names."""
    roles = [tool.wants[slot].role for slot in tool.class_slots]
    args = own_name(tool, tool_stem, ARGS)
    return args, own_name(tool, tool_stem, RESULT) if RESULT in roles else None


def nested_classes(tool: Tool, tool_stem: str) -> tuple[str, ...]:
    """Its dataclasses but `<Tool>Args` and `<Tool>Result` (`UpdateConfigSettings`): the
    package exports them beside those, for its users' annotations."""
    names = module_names(tool, tool_stem)
    return tuple(names[slot] for slot in tool.class_slots if tool.wants[slot].role == CLASS)


def findings(source: str, tool: Tool, tool_stem: str) -> list[Diagnostic]:
    """What the names of `tool`'s module say (CG106), `tool` being in the catalog file `source`
    and its classes named from `tool_stem`."""
    return [
        warning(source, tool.line_of(path), f"{tool.path}.{format_path(path)}", message, "CG106")
        for path, message in module_names(tool, tool_stem).said
    ]

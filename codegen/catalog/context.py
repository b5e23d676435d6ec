"""The context of the rules that normalize one tool: its schema, its module's names, where it is,
and the problems found.

Each rule is a plain function of a context and a schema (`rules.kind_of` dispatches, the rules live
in `scalars`, `containers`, `objects`, `choices` and `combinations`); a rule reaches a nested
schema through `ToolContext.kind`, which is the dispatcher the context was made with, so no rule
module imports another.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from codegen.catalog.keywords import empty_ranges, unenforced
from codegen.catalog.kinds import Kind
from codegen.catalog.load import LoadedCatalog
from codegen.catalog.names import BOUND, Names, snake
from codegen.diagnostics import Diagnostic, JsonPath, quoted

# The value of a fix that takes a keyword out.
GONE: Any = object()

# allOf inside allOf, $ref to $ref: deeper than this is a cycle.
MAX_MERGES = 32


# The kind of `schema` at `path` inside the parameters, `parts` naming it (`settings`, `mode`).
KindOf = Callable[["ToolContext", Any, JsonPath, tuple[str, ...]], Kind]


class ToolContext:
    """One tool being normalized: its schema, its module's names, and the problems found."""

    def __init__(
        self,
        loaded: LoadedCatalog,
        index: int,
        spec: dict[str, Any],
        problems: list[Diagnostic],
        python_name: tuple[str, str],
        lines: dict[JsonPath, int],
        reserved: frozenset[str],
        kind_of: KindOf,
    ) -> None:
        self.kind_of = kind_of
        self.loaded = loaded
        self.lines = lines  # the tool's own line map, by path inside the tool
        # What the build fixed (a wild keyword, a default), by path inside the parameters: the
        # back ends get the schema with the fixes made (`fixed_schema`), never the dirt.
        self.fixes: list[tuple[JsonPath, Any]] = []
        self.spec = spec
        self.root: dict[str, Any] = spec["parameters"]
        self.base: JsonPath = ("tools", index, "parameters")
        self.problems = problems
        # The names the back end binds in every module (its imports): no generated name takes one.
        self.names = Names(reserved)
        self.module, self.pascal = python_name  # the module's name, and the stem of its classes
        self.own_classes = tuple(f"{self.pascal}{role}" for role in ("Args", "Keywords", "Result"))
        self.root_helper = self.names.take("_arguments")  # before any parameter can claim the name
        self.shared: dict[str, Kind] = {}  # $ref target → kind, so one definition is one class
        self.resolving: list[str] = []
        self.failed = False

    # -- reporting ---------------------------------------------------------------------------

    def error(self, path: JsonPath, message: str) -> None:
        self.failed = True
        self.problems.append(self.loaded.diagnostic((*self.base, *path), message))

    def warn(self, path: JsonPath, message: str, code: str) -> None:
        self.problems.append(self.loaded.diagnostic((*self.base, *path), message, code))

    def fix(self, path: JsonPath, value: Any) -> None:
        """Say that the schema at `path` (inside the parameters) is `value` once fixed; `_GONE`
        takes the key out."""
        self.fixes.append((path, value))

    def fixed_schema(self) -> dict[str, Any]:
        """The parameters as written, with every fix made: what the parser enforces."""
        fixed: dict[str, Any] = copy.deepcopy(self.root)
        for (*where, key), value in self.fixes:
            node: Any = fixed
            for step in where:
                node = node.get(step) if isinstance(node, dict) else None
            if not isinstance(node, dict):
                continue  # a fix inside a merged schema ($ref with siblings): no place of its own
            if value is GONE:
                node.pop(key, None)
            else:
                node[key] = value
        return fixed

    # -- shared by the rules -------------------------------------------------------------------

    def kind(self, schema: Any, path: JsonPath, parts: tuple[str, ...]) -> Kind:
        """The kind of a nested `schema` at `path` inside the parameters, by every rule."""
        return self.kind_of(self, schema, path, parts)

    def class_name(self, path: JsonPath, wanted: str) -> str:
        """The name of a class (or type alias) of the tool's module, which users see: `wanted`,
        or a suffixed one when the module binds it already. That is said (CG106) when the holder is
        a name the module binds for itself or one of the tool's own classes (a parameter `result`
        beside the tool's `<Tool>Result`); schemas of one tool whose parts spell one name (the
        branches of a union, `a.b` beside `a_b`, whose parameter names are said) are numbered
        quietly."""
        held = self.names.held.get(wanted)
        given = self.names.take(wanted)
        if given != wanted and (held == BOUND or wanted in self.own_classes):
            message = (
                f"class {quoted(wanted)} becomes {quoted(given)}, since the tool's module has"
                f" {quoted(wanted)} already (set x-python-name on the tool to choose its stem)"
            )
            self.warn(path, message, "CG106")
        return given

    def helper_name(self, parts: tuple[str, ...]) -> str:
        return self.names.take("_" + "_".join(snake(p) for p in parts))

    def check_bounds(self, schema: dict[str, Any], path: JsonPath) -> None:
        for word, message in empty_ranges(schema):
            self.error((*path, word), message)

    def check_keywords(self, schema: dict[str, Any], path: JsonPath, types: list[str]) -> None:
        for word, message in unenforced(schema, types):
            self.warn((*path, word), message, "CG101")

"""The context of the rules that normalize one tool: its schema, the module-level names it needs
(`Want`s: the code back end names them), where it is, and the problems found.

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
from codegen.catalog.kinds import CLASS, HELPER, Kind, Want
from codegen.catalog.load import LoadedCatalog
from codegen.diagnostics import Diagnostic, JsonPath

# The value of a fix that takes a keyword out.
GONE: Any = object()

# allOf inside allOf, $ref to $ref: deeper than this is a cycle.
MAX_MERGES = 32


# The kind of `schema` at `path` inside the parameters, `parts` naming it (`settings`, `mode`).
KindOf = Callable[["ToolContext", Any, JsonPath, tuple[str, ...]], Kind]


class ToolContext:
    """One tool being normalized: its schema, the names its module needs, and the problems found."""

    def __init__(
        self,
        loaded: LoadedCatalog,
        index: int,
        spec: dict[str, Any],
        problems: list[Diagnostic],
        lines: dict[JsonPath, int],
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
        # The module-level names the tool's module needs, in the order met (the back end names
        # them in this order, so which of two that want one name gets it is the catalog's order).
        self.wants: list[Want] = []
        self.in_result = False  # normalizing the result: its classes are named from <Tool>Result
        self.root_helper = self.want(HELPER, ("arguments",))  # before any parameter can claim it
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

    def want(
        self,
        role: str,
        parts: tuple[str, ...] = (),
        base: int | None = None,
        path: JsonPath = (),
    ) -> int:
        """The slot of a module-level name the tool's module needs, for `role` from `parts`."""
        self.wants.append(Want(role, parts, path, base, self.in_result))
        return len(self.wants) - 1

    def class_slot(self, path: JsonPath, parts: tuple[str, ...]) -> int:
        """The slot of a class (or type alias) of the tool's module, which users see: the back end
        says where a class cannot have its name (CG106) at `path` (inside the parameters)."""
        return self.want(CLASS, parts, path=(*self.base[2:], *path))

    def helper_slot(self, parts: tuple[str, ...]) -> int:
        return self.want(HELPER, parts)

    def check_bounds(self, schema: dict[str, Any], path: JsonPath) -> None:
        for word, message in empty_ranges(schema):
            self.error((*path, word), message)

    def check_keywords(self, schema: dict[str, Any], path: JsonPath, types: list[str]) -> None:
        for word, message in unenforced(schema, types):
            self.warn((*path, word), message, "CG101")

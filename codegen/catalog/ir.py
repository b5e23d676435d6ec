"""The IR of a catalog: plain frozen data that templates loop over. It holds wire names and paths,
no Python name: a tool's module, parser and classes are the code back end's (`python.namespace`,
from every tool of the catalog; `python.module_names`, from its `wants`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codegen.catalog.kinds import EnumKind, JsonChoiceKind, Kind, ObjectKind, StringKind, Want
from codegen.outputs import ALL_PROVIDERS


@dataclass(frozen=True)
class Result:
    """A tool's typed result: its root kind, every kind under it, and its schema with the fixes
    the build made (what the checker enforces and the payloads send)."""

    kind: ObjectKind
    kinds: tuple[Kind, ...]  # children before parents, the root last
    schema: dict[str, Any]
    source: str  # RETURNS or OUTPUT_SCHEMA: where the catalog wrote it


@dataclass(frozen=True)
class Tool:
    wire_name: str
    description: str
    title: str | None
    pinned: str | None  # the tool's `x-python-name`, as written (None: none)
    args: ObjectKind  # the root object: <Pascal>Args
    # The module-level names its module needs, in the order met: kinds hold their slots here.
    wants: tuple[Want, ...]
    schema: dict[str, Any]  # the parameters exactly as the catalog wrote them
    classes: tuple[ObjectKind, ...]  # dataclasses, children before parents
    enums: tuple[EnumKind, ...]
    choice_lists: tuple[JsonChoiceKind, ...]  # enums with an object or array among the values
    patterns: tuple[StringKind, ...]
    sha256: (
        str  # of the tool's definition: what its module depends on, for its header and the cache
    )
    # Where the tool is in its catalog, for the report of a failure while rendering it.
    line: int = 1
    path: str = ""
    # MCP's annotations (the four hints, and any other key, as written) and whole-call examples
    # (argument objects).
    annotations: dict[str, Any] = field(default_factory=dict)
    examples: tuple[dict[str, Any], ...] = ()
    # The line of each node of the tool's definition, by JSON path inside the tool
    # (`("parameters", "properties", "limit")`): back ends report their findings with it.
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)
    # MCP `Tool` fields the catalog format has no use for (outputSchema, _meta, execution, icons),
    # as written: MCP_TOOLS gives them back.
    mcp_fields: dict[str, Any] = field(default_factory=dict)
    # The typed result (`returns`, or MCP's `outputSchema`): its kinds are in `enums`, ... beside
    # the arguments', its dataclasses in `result_classes`.
    result: Result | None = None

    @property
    def class_slots(self) -> tuple[int, ...]:
        """The slots of its dataclasses (`Want`s), its arguments' and its result's among them:
        what the package exports of it beside its parser."""
        return tuple(k.class_slot for k in (*self.classes, *self.result_classes))

    @property
    def result_classes(self) -> tuple[ObjectKind, ...]:
        if self.result is None:
            return ()
        return classes_of(self.result.kinds)

    def line_of(self, path: tuple[str | int, ...]) -> int:
        """The line of the nearest node on `path` (inside the tool) that is known."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return self.line


def classes_of(kinds: tuple[Kind, ...]) -> tuple[ObjectKind, ...]:
    """The dataclasses among `kinds`, children before parents; a nullable use of a shared
    definition is a kind of its own with the same class, which is defined once."""
    found = {k.class_slot: k for k in reversed(kinds) if isinstance(k, ObjectKind)}
    return tuple(found.values())[::-1]


@dataclass(frozen=True)
class Catalog:
    name: str
    title: str | None
    version: str | None
    description: str
    source: str  # as shown to people: relative, posix
    sha256: str
    tools: tuple[Tool, ...]
    name_line: int = 1
    # Provider → wire name → the name sent to it (an alias where the provider forbids the wire
    # name): the payloads send it, the package's `parse` maps it back.
    provider_names: dict[str, dict[str, str]] = field(default_factory=dict)
    # Whose payloads are emitted (`[tool.codegen] providers`; outputs.PROVIDERS names them).
    providers: tuple[str, ...] = ALL_PROVIDERS

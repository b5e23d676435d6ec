"""The IR of a catalog: plain frozen data that templates loop over. It holds wire names and paths,
no Python name: a tool's module, parser and classes are the code back end's (`python.namespace`,
from every tool of the catalog; `python.module_names`, from its `wants`). A tool's body (its kinds
and schemas) is held as a pickle until first read (`Packed`): a rebuild reads back every tool and
makes again only those that changed."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

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
class Body:
    """A tool's kinds and schemas: what its own module, docs page and payloads are made of. What
    else reads a tool (the package's names, the files that list every tool, the findings) reads
    its head, so a rebuild leaves the bodies of the tools it does not make again unread (`Packed`)."""

    args: ObjectKind  # the root object: <Pascal>Args
    schema: dict[str, Any]  # the parameters exactly as the catalog wrote them
    classes: tuple[ObjectKind, ...]  # dataclasses, children before parents
    enums: tuple[EnumKind, ...]
    choice_lists: tuple[JsonChoiceKind, ...]  # enums with an object or array among the values
    patterns: tuple[StringKind, ...]
    # MCP `Tool` fields the catalog format has no use for (outputSchema, _meta, execution, icons),
    # as written: MCP_TOOLS gives them back.
    mcp_fields: dict[str, Any] = field(default_factory=dict)
    # The typed result (`returns`, or MCP's `outputSchema`): its kinds are in `enums`, ... beside
    # the arguments', its dataclasses in `result_classes`.
    result: Result | None = None


T = TypeVar("T")


class Packed(Generic[T]):
    """A value kept as its pickle until it is first read. A rebuild takes every tool's IR from
    the build's memo and makes again only the tools that changed: their bodies alone are
    unpickled, where unpickling every tool's was the largest part of a one-tool rebuild at 2,000
    tools (tests/test_memo.py holds that the others stay packed). The value is pickled apart from
    what holds it, so an object both share comes back as two: a tool's head shares none with its
    body (kinds compare by identity)."""

    __slots__ = ("_pickled", "_value")

    def __init__(self, value: T) -> None:
        self._value = value
        self._pickled: bytes | None = None

    @property
    def value(self) -> T:
        if self._pickled is not None:
            self._value = pickle.loads(self._pickled)
            self._pickled = None
        return self._value

    @property
    def packed(self) -> bool:
        """Still a pickle: nothing has read it since it was unpickled."""
        return self._pickled is not None

    def __reduce__(self) -> tuple[Any, ...]:
        pickled = self._pickled if self._pickled is not None else pickle.dumps(self._value, 5)
        return _unpacked, (pickled,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Packed) and self.value == other.value

    __hash__ = None  # type: ignore[assignment]  # as the dataclasses it holds: by value, unhashable

    def __repr__(self) -> str:
        return f"Packed({self.value!r})"


def _unpacked(pickled: bytes) -> Packed[Any]:
    packed: Packed[Any] = Packed.__new__(Packed)
    packed._pickled = pickled
    return packed


@dataclass(frozen=True)
class Tool:
    wire_name: str
    description: str
    title: str | None
    pinned: str | None  # the tool's `x-python-name`, as written (None: none)
    # The module-level names its module needs, in the order met: kinds hold their slots here.
    wants: tuple[Want, ...]
    sha256: (
        str  # of the tool's definition: what its module depends on, for its header and the cache
    )
    # The slots of its dataclasses (`Want`s), its arguments' and its result's among them: what
    # the package exports of it beside its parser.
    class_slots: tuple[int, ...]
    body: Packed[Body]
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

    def __post_init__(self) -> None:
        # `class_slots` is the body's, kept beside it so that reading it leaves the body packed.
        if not self.body.packed:
            assert self.class_slots == class_slots(self.body.value), self.wire_name

    @property
    def args(self) -> ObjectKind:
        return self.body.value.args

    @property
    def schema(self) -> dict[str, Any]:
        return self.body.value.schema

    @property
    def classes(self) -> tuple[ObjectKind, ...]:
        return self.body.value.classes

    @property
    def enums(self) -> tuple[EnumKind, ...]:
        return self.body.value.enums

    @property
    def choice_lists(self) -> tuple[JsonChoiceKind, ...]:
        return self.body.value.choice_lists

    @property
    def patterns(self) -> tuple[StringKind, ...]:
        return self.body.value.patterns

    @property
    def mcp_fields(self) -> dict[str, Any]:
        return self.body.value.mcp_fields

    @property
    def result(self) -> Result | None:
        return self.body.value.result

    @property
    def result_classes(self) -> tuple[ObjectKind, ...]:
        return result_classes(self.body.value)

    def line_of(self, path: tuple[str | int, ...]) -> int:
        """The line of the nearest node on `path` (inside the tool) that is known."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return self.line


def result_classes(body: Body) -> tuple[ObjectKind, ...]:
    if body.result is None:
        return ()
    return classes_of(body.result.kinds)


def class_slots(body: Body) -> tuple[int, ...]:
    """The slots of a tool's dataclasses, its arguments' and its result's among them."""
    return tuple(k.class_slot for k in (*body.classes, *result_classes(body)))


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

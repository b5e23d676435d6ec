"""The catalog format's words: the keys of a catalog and of a tool, and the build's findings
about the keywords the parser does not enforce (which it does is `codegen.vocabulary`'s).

Pure functions of one schema: the normalizer reports what they yield at the schema's path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.diagnostics import quoted
from codegen.vocabulary import ANNOTATIONS, CROSSING_BOUNDS, JSON_TYPES, STRUCTURE, enforced_on


def empty_ranges(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(keyword, message) for each upper bound below its lower bound: no value would be accepted,
    which is a mistake, not a rule."""
    for low, high in CROSSING_BOUNDS:
        if isinstance(schema.get(low), (int, float)) and isinstance(schema.get(high), (int, float)):
            empty = (
                schema[low] >= schema[high]
                if "exclusive" in low + high
                else schema[low] > schema[high]
            )
            if empty:
                message = f"{high} {quoted(schema[high])} is below {low} {quoted(schema[low])}: no value would be accepted"
                yield high, message


def unenforced(schema: dict[str, Any], types: list[str]) -> Iterator[tuple[str, str]]:
    """(keyword, message) for every keyword the parser will not enforce on values of `types`:
    nothing is dropped silently."""
    allowed = frozenset().union(*(enforced_on(t) for t in types))
    for word in sorted(schema):
        if word in STRUCTURE or word in ANNOTATIONS or word.startswith("x-") or word in allowed:
            continue
        applies_to = [t for t in JSON_TYPES if word in enforced_on(t)]
        if applies_to and types:
            yield (
                word,
                f"keyword {quoted(word)} applies to {applies_to[0]} values, not {' or '.join(types)}",
            )
        elif not applies_to:
            yield word, f"keyword {quoted(word)} is not enforced by the generated parser"


def beside_choices(schema: dict[str, Any], source: str) -> Iterator[tuple[str, str]]:
    """(keyword, message) for the constraints beside an `enum` or `const` (`source`), which the
    closed set of values makes moot and the parser does not check."""
    for word in sorted(set(schema) - STRUCTURE - ANNOTATIONS):
        if not word.startswith("x-"):
            yield word, f"keyword {quoted(word)} is not enforced beside {quoted(source)}"


# A tool's keys: the catalog format's, and MCP's `Tool` fields (kept for MCP_TOOLS).
TOOL_KEYS = frozenset(
    {
        "name",
        "title",
        "description",
        "parameters",
        "returns",
        "annotations",
        "examples",
        "x-python-name",
        "outputSchema",
        "_meta",
        "execution",
        "icons",
    }
)
CATALOG_KEYS = frozenset({"$schema", "name", "version", "title", "description", "tools"})

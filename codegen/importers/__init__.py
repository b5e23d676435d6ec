"""`codegen import`: the tool lists teams already have, as a catalog (SPEC §6).

A provider's payload, an MCP `tools/list` result, or a bare list in the loose dialects of
function-calling datasets is read (`formats`), each schema is made standard JSON Schema
(`dialect`), aliases a provider was sent are mapped back to wire names, and the catalog is written
as YAML a person would write (`yaml_out`). Every change is a note; nothing is dropped silently.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from codegen.catalog.dialect import NO_DESCRIPTION, object_typed, properties_alone, tool_gaps
from codegen.catalog.names import snake
from codegen.catalog.tool_lists import (
    FORMATS,
    PROVIDER_OF,
    READERS,
    UnreadableToolList,
    built_in,
    detect,
    items_of,
    left_out,
)
from codegen.diagnostics import JsonPath, quoted
from codegen.importers.dialect import Notes, standard

__all__ = ["FORMATS", "UnreadableToolList", "import_functions", "import_tools"]


def import_functions(
    target: str, root: Path, name: str | None = None
) -> tuple[dict[str, Any], Notes]:
    """The catalog of the type-annotated functions `target` names (`package.module[:function]`)."""
    # Imported here: every build reads the formats (`catalog/wild.py`), only this reads Python.
    from codegen.importers.python import functions_of, tools_of

    notes = Notes()
    tools = tools_of(functions_of(target, root), notes)
    tools = [finite_only(tool, ("tools", index), notes) for index, tool in enumerate(tools)]
    for index, tool in enumerate(tools):
        if not tool["description"]:
            notes.add(
                ("tools", index, "description"),
                "no docstring: the model chooses tools by their descriptions (write one)",
                NO_DESCRIPTION,
            )
    stem = name or target.partition(":")[0].rsplit(".", 1)[-1]
    return {"name": snake(stem, fallback="imported_tools"), "tools": tools}, notes


def import_tools(
    document: Any,
    source_format: str = "auto",
    name: str = "imported_tools",
    provider_names: dict[str, dict[str, str]] | None = None,
) -> tuple[dict[str, Any], str, Notes]:
    """The catalog of a tool list, the format it was read as, and what was changed on the way."""
    fmt = detect(document) if source_format == "auto" else source_format
    if fmt not in READERS:
        raise UnreadableToolList(f"unknown format {quoted(fmt)} (one of {', '.join(FORMATS)})")
    notes = Notes()
    wire_names = {
        alias: wire
        for wire, alias in (provider_names or {}).get(PROVIDER_OF.get(fmt, ""), {}).items()
    }
    tools: list[dict[str, Any]] = []
    for index, item in enumerate(items_of(document)):
        where = ("tools", index)
        if not isinstance(item, dict):
            notes.add(where, "not a tool entry (an object): left out")
            continue
        provided = built_in(item)
        if provided is not None:
            notes.add(
                where,
                f"{provided} is no function with a JSON schema (a tool the provider runs, or "
                "one that takes free text): left out",
            )
            continue
        tool = READERS[fmt](item)
        for key in left_out(fmt, item):
            notes.add((*where, *key), "has no place in a catalog: left out")
        if tool["name"] in wire_names:
            notes.add(
                (*where, "name"),
                f"{quoted(tool['name'])} is the alias of {quoted(wire_names[tool['name']])}",
            )
            tool["name"] = wire_names[tool["name"]]
        tool, found = tool_gaps(tool, where)
        notes.said(found)
        parameters, found = properties_alone(tool["parameters"], (*where, "parameters"))
        notes.said(found)
        tool["parameters"] = parameters
        for word in ("parameters", "returns"):  # Gemini's legacy response is in its subset too
            if isinstance(tool.get(word), dict):
                schema, found = object_typed(tool[word], (*where, word))
                notes.said(found)
                tool[word] = standard(schema, (*where, word), notes)
        tools.append(finite_only(tool, where, notes))
    return {"name": snake(name, fallback="imported_tools"), "tools": tools}, fmt, notes


def finite_only(value: Any, path: JsonPath, notes: Notes) -> Any:
    """`value` without the numbers JSON has no form for: NaN and the infinities (which JSON
    readers make of `Infinity` and of a number beyond a float's range, such as `1e400`), each
    left out of its object or list with a note. The build reads JSON numbers only
    (`catalog/load.py`), so a catalog written with one would be refused."""
    if isinstance(value, dict):
        kept: dict[Any, Any] = {}
        for key, item in value.items():
            if _non_finite(item):
                notes.add((*path, key), f"{_NOT_JSON[math.isnan(item)]}: left out")
            else:
                kept[key] = finite_only(item, (*path, key), notes)
        return kept
    if isinstance(value, list):
        items: list[Any] = []
        for index, item in enumerate(value):
            if _non_finite(item):
                notes.add((*path, index), f"{_NOT_JSON[math.isnan(item)]}: left out")
            else:
                items.append(finite_only(item, (*path, index), notes))
        return items
    return value


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


_NOT_JSON = {
    True: "NaN is not a JSON number",
    False: "an infinite number (Infinity, or one beyond a float's range like 1e400) is not a JSON number",
}

"""What catalogs from the wild write beside the standard, read before the meta-schema looks.

The build refuses only what it cannot generate (SPEC §2): no usable schema for a tool, two tools
with one wire name, a `$ref` it cannot resolve. Everything else of any shape at any place is read
here where its meaning is plain (a string "True", a list of names in an object's `optional`, a
number written as text), or left out and reported; a key one or two letters from a keyword says
which one was probably meant. What is left is what the meta-schema and the normalizer check: the
structure (`type`, `properties`, `items`, combinators, `$ref`, `enum`).

Each finding names the key itself, so the catalog's line map places it.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from codegen.catalog.dialect import (
    Finding,
    lift_cardinality,
    misspelt,
    object_typed,
    properties_alone,
    read_flag,
    read_type,
    required_slips,
    stray_cardinality,
    tool_gaps,
)
from codegen.catalog.keywords import CATALOG_KEYS, TOOL_KEYS
from codegen.catalog.load import LoadedCatalog, tool_line_maps
from codegen.catalog.names import snake
from codegen.catalog.relative import ALONE_PATH, Relative, alone, anchored, relative, tool_key
from codegen.catalog.tool_lists import UnreadableToolList, detect, items_of
from codegen.diagnostics import Diagnostic, JsonPath, format_path, quoted
from codegen.vocabulary import KEYWORDS as VOCABULARY
from codegen.vocabulary import holds_schemas, subschemas_mapped, valued
from codegen.workers import Mapper, map_in_workers

# Every JSON Schema keyword (2020-12 and draft 4-7), OpenAPI's, and codegen's own: a key that is
# none of these and one or two letters from one is probably a slip of the keyboard.
KEYWORDS = frozenset(VOCABULARY)
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        if not math.isfinite(number):
            return None
        return int(number) if number.is_integer() else number
    return None


def mcp_tools(data: dict[str, Any]) -> list[Any] | None:
    """The tools of an MCP `tools/list` result (bare, or in its JSON-RPC envelope), as the
    importer detects one; None for anything else (a catalog has a `name`)."""
    if "name" in data or not isinstance(data.get("result", data), dict):
        return None
    try:
        if detect(data) != "mcp":
            return None
        return items_of(data)
    except UnreadableToolList:
        return None


def _unreadable(value: Any) -> bool:
    """NaN and infinity, which the loader reports as not JSON (an error of the file itself)."""
    return isinstance(value, float) and not math.isfinite(value)


class WildReader:
    """Reads one catalog's data into the form the meta-schema checks, with a finding for each
    thing read or left out."""

    def __init__(self, loaded: LoadedCatalog, each: Mapper = map_in_workers) -> None:
        self.loaded = loaded
        self.found: list[Diagnostic] = []
        self.each = each

    def say(self, path: JsonPath, message: str, code: str) -> None:
        self.found.append(self.loaded.diagnostic(path, message, code))

    def said(self, findings: list[Finding]) -> None:
        """The findings of the loose dialect's reader (`catalog/dialect.py`)."""
        for finding in findings:
            self.say(finding.path, finding.message, finding.code)

    def ignored(self, path: JsonPath, value: Any, why: str) -> None:
        self.say(path, f"{why}: {quoted(value)} ignored", "CG103")

    def unknown(self, path: JsonPath, word: str, known: frozenset[str], where: str) -> bool:
        """Report a key that is not one of `known`; True when it is a misspelling."""
        meant = misspelt(word, known)
        if meant is not None:
            self.say(
                (*path, word),
                f"unknown key {quoted(word)} in {where}: did you mean `{meant}`? (ignored)",
                "CG104",
            )
            return True
        return False

    # -- the catalog and its tools -----------------------------------------------------------

    def catalog(self, data: Any) -> Any:
        if not isinstance(data, dict):
            return data  # the meta-schema says what a catalog is
        tools = mcp_tools(data)
        if tools is not None:
            # An MCP `tools/list` result is a catalog as it is, named after its file.
            data = {"name": snake(PurePosixPath(self.loaded.file).stem), "tools": tools}
        data = dict(data)
        for word in list(data):
            value = data[word]
            if word in ("title", "description") and not isinstance(value, str):
                self.ignored((word,), value, f"the catalog's `{word}` is not text")
                del data[word]
            elif word == "version" and not isinstance(value, str):
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    data[word] = str(value)
                    self.say(
                        (word,),
                        f"version {quoted(value)} read as the text {quoted(str(value))}",
                        "CG102",
                    )
                else:
                    self.ignored((word,), value, "the catalog's `version` is not text")
                    del data[word]
            elif word not in CATALOG_KEYS:
                if not self.unknown((), word, CATALOG_KEYS, "the catalog"):
                    self.say(
                        (word,), f"unknown key {quoted(word)} in the catalog: ignored", "CG103"
                    )
                del data[word]
        if isinstance(data.get("tools"), list):
            data["tools"] = self.tools(data["tools"])
        return data

    def tools(self, tools: list[Any]) -> list[Any]:
        """Each tool as read, a tool alone at a time (`_read_alone`, by `each`), its findings
        anchored where it is."""
        loaded = self.loaded
        by_items = loaded.by_items()
        lines = dict(enumerate(loaded.tool_lines)) if by_items else tool_line_maps(loaded.lines)
        pieces = [
            _Piece(loaded.file, loaded.tool_keys[i] if by_items else None, tool, lines.get(i, {}))
            for i, tool in enumerate(tools)
        ]
        read: list[Any] = []
        for index, (tool, found) in enumerate(self.each(_read_alone, pieces, least=_IN_PROCESS)):
            path = ("tools", index)
            self.found += anchored(loaded.file, found, loaded.line_of(path), format_path(path))
            read.append(pieces[index].tool if tool is None else tool)
        return read

    def tool(self, tool: Any, path: JsonPath) -> Any:
        if not isinstance(tool, dict):
            return tool
        tool = dict(tool)
        if "parameters" not in tool and isinstance(tool.get("inputSchema"), dict):
            # An MCP tool: its input schema is the parameters; MCP_TOOLS gives it back as such.
            tool["parameters"] = tool.pop("inputSchema")
        tool, found = tool_gaps(tool, path)
        self.said(found)
        for word in list(tool):
            value = tool[word]
            if word == "title" and not isinstance(value, str):
                self.ignored((*path, word), value, "a tool's `title` is not text")
                del tool[word]
            elif word in _MCP_SHAPES and not isinstance(value, _MCP_SHAPES[word][0]):
                # `null` among them, as a Python MCP server's tools dumped without
                # `exclude_none` write every field they do not have.
                self.ignored((*path, word), value, f"MCP's `{word}` is not {_MCP_SHAPES[word][1]}")
                del tool[word]
            elif word == "annotations":
                tool[word] = self.annotations(value, (*path, word))
                if tool[word] is None:
                    del tool[word]
            elif word == "examples":
                tool[word] = self.tool_examples(value, (*path, word))
                if tool[word] is None:
                    del tool[word]
            elif word == "x-python-name" and not isinstance(value, str):
                self.ignored((*path, word), value, "x-python-name is not text")
                del tool[word]
            elif word not in TOOL_KEYS:
                if not self.unknown(path, word, TOOL_KEYS, "a tool"):
                    self.say(
                        (*path, word), f"unknown key {quoted(word)} in a tool: ignored", "CG103"
                    )
                del tool[word]
        # The parameters, and the result schema read by the same rules.
        for key in ("parameters", "returns"):
            schema = tool.get(key)
            if key == "parameters":
                schema, found = properties_alone(schema, (*path, key))
                self.said(found)
            if not isinstance(schema, dict):
                continue
            schema, found = object_typed(schema, (*path, key))
            self.said(found)
            tool[key] = self.schema(schema, (*path, key))
        return tool

    def annotations(self, value: Any, path: JsonPath) -> dict[str, Any] | None:
        """MCP's annotations: the four hints read as booleans, every other key kept as it is for
        MCP_TOOLS (MCP allows more, `title` among them)."""
        if not isinstance(value, dict):
            self.ignored(path, value, "`annotations` is not a mapping")
            return None
        out: dict[str, Any] = {}
        for word, hint in value.items():
            if word == "title" and not isinstance(hint, str):
                self.ignored((*path, word), hint, "the annotations' `title` is not text")
                continue
            if word not in HINTS:
                meant = misspelt(str(word), frozenset(HINTS))
                if meant is not None:
                    self.say(
                        (*path, word),
                        f"annotation {quoted(word)}: did you mean `{meant}`? (kept as it is for MCP)",
                        "CG104",
                    )
                out[word] = hint
                continue
            read = read_flag(hint)
            if read is None:
                self.ignored((*path, word), hint, f"`{word}` is not a boolean")
                continue
            if read is not hint:
                self.say(
                    (*path, word), f"`{word}: {quoted(hint)}` read as {str(read).lower()}", "CG102"
                )
            out[word] = read
        return out

    def tool_examples(self, value: Any, path: JsonPath) -> list[Any] | None:
        if not isinstance(value, list):
            self.ignored(path, value, "a tool's `examples` is not a list of argument objects")
            return None
        kept = []
        for i, example in enumerate(value):
            if isinstance(example, dict):
                kept.append(example)
            else:
                self.ignored((*path, i), example, "a tool's example is not an object of arguments")
        return kept

    # -- schemas -----------------------------------------------------------------------------

    def schema(self, node: Any, path: JsonPath) -> Any:
        if not isinstance(node, dict):
            return node  # `true`/`false`, or what the meta-schema refuses
        node, found = read_type(dict(node), path)
        self.said(found)
        # Before the properties are read: their flags belong to this object's `required`.
        node, found = lift_cardinality(node, path)
        self.said(found)
        node, found = stray_cardinality(node, path)
        self.said(found)
        self.older_drafts(node, path)
        for word in list(node):
            value = node[word]
            reader = _READERS.get(word)
            if reader is not None:
                reader(self, node, word, value, path)
            elif holds_schemas(word):
                node[word] = subschemas_mapped(
                    word, value, lambda where, sub: self.schema(sub, (*path, *where))
                )
            elif (
                word not in KEYWORDS
                and not str(word).startswith("x-")
                and self.unknown(path, str(word), KEYWORDS, "a schema")
            ):
                del node[word]
        self.optional_list(node, path)
        self.said(required_slips(node, path))
        return node

    def older_drafts(self, node: dict[str, Any], path: JsonPath) -> None:
        """What drafts 4 to 7 wrote otherwise, in 2020-12's words (JSON Schema's own migration):
        a boolean `exclusiveMinimum` is whether `minimum` is exclusive, and `items` as a list
        (a tuple) is `prefixItems`, `additionalItems` what may follow it."""
        for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = node.get(exclusive)
            if type(flag) is not bool:
                continue
            limit = node.get(bound)
            if not flag:
                del node[exclusive]
                self.say((*path, exclusive), f"`{exclusive}: false` (draft 4) dropped", "CG102")
            elif isinstance(limit, (int, float)) and not isinstance(limit, bool):
                node[exclusive] = node.pop(bound)
                message = (
                    f"`{exclusive}: true` beside `{bound}: {quoted(limit)}` (draft 4) read as "
                )
                self.say((*path, exclusive), f"{message}`{exclusive}: {quoted(limit)}`", "CG102")
        if isinstance(node.get("items"), list) and "prefixItems" not in node:
            node["prefixItems"] = node.pop("items")
            following = "`additionalItems` as `items`" if "additionalItems" in node else ""
            if following:
                node["items"] = node.pop("additionalItems")
            said = "`items` as a list (a tuple, before 2020-12) read as `prefixItems`"
            self.say((*path, "items"), said + (f", {following}" if following else ""), "CG102")

    def text(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        if not isinstance(value, str):
            self.ignored((*path, word), value, f"`{word}` is not text")
            del node[word]

    def count(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        if _unreadable(value):
            return
        number = _number(value)
        if isinstance(value, float) and value.is_integer() and value >= 0:
            node[word] = int(value)  # 2.0 is the count 2 in JSON Schema: nothing to say
            return
        if isinstance(number, int) and number >= 0:
            if number is not value or type(value) is not int:
                self.say((*path, word), f"`{word}: {quoted(value)}` read as {number}", "CG102")
                node[word] = number
            return
        self.ignored((*path, word), value, f"`{word}` is not a count")
        del node[word]

    def bound(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        if _unreadable(value):
            return
        number = _number(value)
        if number is not None and not (word in valued("positive") and number <= 0):
            if number is not value:
                self.say((*path, word), f"`{word}: {quoted(value)}` read as {number}", "CG102")
                node[word] = number
            return
        self.ignored((*path, word), value, f"`{word}` is not a number")
        del node[word]

    def flag(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        flag = read_flag(value)
        if flag is None:
            self.ignored((*path, word), value, f"`{word}` is not a boolean")
            del node[word]
        elif flag is not value:
            self.say(
                (*path, word), f"`{word}: {quoted(value)}` read as {str(flag).lower()}", "CG102"
            )
            node[word] = flag

    def examples(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        if not isinstance(value, list):
            node[word] = [value]
            self.say((*path, word), f"`examples` is not a list: read as [{quoted(value)}]", "CG102")

    def enum(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        if not isinstance(value, list):
            node[word] = [value]
            self.say(
                (*path, word),
                f"`enum: {quoted(value)}` is not a list: read as [{quoted(value)}]",
                "CG102",
            )

    def python_name(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        if not isinstance(value, str) or not value.isidentifier():
            self.ignored((*path, word), value, "x-python-name is not a Python identifier")
            del node[word]

    def cardinality(self, node: dict[str, Any], word: str, value: Any, path: JsonPath) -> None:
        """`required` and `optional` as lists of names (`optional` at the object's level, read by
        `optional_list`); a flag, also as text, is read before (`dialect.lift_cardinality`,
        `dialect.stray_cardinality`)."""
        if isinstance(value, list) and (word == "required" or "properties" in node):
            names = [v for v in value if isinstance(v, str)]
            for i, item in enumerate(value):
                if not isinstance(item, str):
                    self.ignored((*path, word, i), item, f"a name in `{word}` is not text")
            node[word] = list(dict.fromkeys(names))
            if len(node[word]) < len(names):
                self.say((*path, word), f"a name listed twice in `{word}`: read once", "CG102")
            return
        self.ignored((*path, word), value, f"`{word}` is neither a list of names nor a flag")
        del node[word]

    def optional_list(self, node: dict[str, Any], path: JsonPath) -> None:
        """`optional: [names]` beside `properties`: those are optional, and when the object has
        no `required`, every other property is required (what the list says by leaving them out)."""
        names = node.get("optional")
        if not isinstance(names, list):
            return
        found = node.get("properties")
        properties: dict[str, Any] = found if isinstance(found, dict) else {}
        listed = node.get("required")
        if isinstance(listed, list):
            required = [n for n in listed if n not in names]
            how = "taken out of `required`" if required != listed else "already optional"
        else:
            required = [n for n in properties if n not in names]
            how = "every other property is required"
        shown = ", ".join(quoted(n) for n in names) or "none"
        self.say(
            (*path, "optional"),
            f"`optional: {quoted(names)}` beside properties is not JSON Schema: read as optional {shown},"
            f" {how} (list the required names in `required` to say so)",
            "CG102",
        )
        del node["optional"]
        node["required"] = required


_Reader = Callable[[WildReader, dict[str, Any], str, Any, JsonPath], None]
# How each keyword whose value is not a schema is read.
_READERS: dict[str, _Reader] = {
    **{w: WildReader.text for w in valued("text")},
    **{w: WildReader.count for w in valued("count")},
    **{w: WildReader.bound for w in (*valued("number"), *valued("positive"))},
    **{w: WildReader.flag for w in valued("flag")},
    "examples": WildReader.examples,
    "enum": WildReader.enum,
    "x-python-name": WildReader.python_name,
    "required": WildReader.cardinality,
    "optional": WildReader.cardinality,
}


# MCP's fields of a tool beside its schemas, and the shape each has (MCP_TOOLS sends them on).
_MCP_SHAPES: dict[str, tuple[type, str]] = {
    "outputSchema": (dict, "an object"),
    "_meta": (dict, "an object"),
    "icons": (list, "a list"),
}


def read_wild(
    loaded: LoadedCatalog, each: Mapper = map_in_workers
) -> tuple[LoadedCatalog, list[Diagnostic]]:
    """The catalog as the later checks take it, and what was read or left out to get there; each
    tool read alone by `each`."""
    if isinstance(loaded.data, dict) and mcp_tools(loaded.data) is not None:
        # Read as the catalog it is: its tools' line maps by the catalog's paths too.
        # A tool's key fixes its data and layout: its map by the catalog's paths is another one.
        tool_keys = tuple(f"{key} as a catalog's" for key in loaded.tool_keys)
        tool_lines = tuple(_mcp_paths(own, tool=True) for own in loaded.tool_lines)
        loaded = dataclasses.replace(
            loaded,
            lines=_mcp_paths(loaded.lines),
            tool_keys=tool_keys,
            tool_lines=tool_lines,
            tools_at=("tools",),
        )
    reader = WildReader(loaded, each)
    data = reader.catalog(loaded.data)  # copies each node it changes: `loaded` stays as read
    return dataclasses.replace(loaded, data=data), reader.found


# Reading a tool is quicker than sending it to a worker process and its reading back.
_IN_PROCESS = sys.maxsize


@dataclass(frozen=True)
class _Piece:
    """A tool to read alone: its file (findings name it), its key (`LoadedCatalog.tool_keys`,
    which fixes its data and layout; None: known by both), data and line map."""

    file: str
    key: str | None
    tool: Any
    lines: dict[JsonPath, int]

    def __repr__(self) -> str:
        # All that `_read_alone` reads, for a memo's key (`workers.Mapper`).
        return repr((self.file, self.key or tool_key(self.tool, self.lines)))


def _read_alone(piece: _Piece) -> tuple[Any, list[Relative]]:
    """A tool as read (None: as it is), and its findings relative to it."""
    catalog = alone(piece.file, piece.tool, piece.lines)
    reader = WildReader(catalog)
    read = reader.tool(piece.tool, ("tools", 0))
    found = relative(reader.found, catalog.line_of(("tools", 0)), ALONE_PATH)
    return (None if read == piece.tool else read), found


def _mcp_paths(lines: dict[JsonPath, int], *, tool: bool = False) -> dict[JsonPath, int]:
    """A line map of an MCP reply by the paths of the catalog it is read as: `result.tools[0]
    .inputSchema` is `tools[0].parameters`; in a `tool`'s own map, `inputSchema` is `parameters`."""
    found: dict[JsonPath, int] = {}
    at = 0 if tool else 2  # where a tool's `inputSchema` is in a path
    for path, line in lines.items():
        if not tool and path[:1] == ("result",):
            path = path[1:]
        if len(path) > at and path[at] == "inputSchema" and (tool or path[0] == "tools"):
            path = (*path[:at], "parameters", *path[at + 1 :])
        found.setdefault(path, line)
    return found

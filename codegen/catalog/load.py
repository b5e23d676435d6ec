"""Read a catalog file into plain data, remembering the line of every node for messages."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from codegen.catalog import items
from codegen.diagnostics import (
    CatalogError,
    Diagnostic,
    JsonPath,
    format_path,
    quoted,
    warning,
)
from codegen.unicode_text import NOT_TEXT, joined_pairs, lone_surrogate
from codegen.workers import Mapper, map_in_workers

CATALOG_SUFFIXES = (".yaml", ".yml", ".json")


class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars.

    YAML 1.1 reads `yes`, `no`, `on`, `off` as booleans, `2024-01-01` as a date and `010` as 8,
    which silently corrupts enums, defaults and examples in a tool catalog.
    """


_REPLACED = {"bool", "int", "float", "timestamp"}
_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag.rsplit(":", 1)[-1] not in _REPLACED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# The YAML 1.2 core schema: no octal `010`, no sexagesimal `1:30`, no `1_000`; `1e3` is a number.
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)


class _TooLong(Exception):
    """An integer longer than Python reads from text, at a line of the catalog."""

    def __init__(self, line: int, digits: int) -> None:
        super().__init__(line, digits)
        self.line = line
        self.message = long_integer_message(digits)


def long_integer_message(digits: int) -> str:
    return (
        f"an integer of {digits:,} digits: codegen reads at most "
        f"{sys.get_int_max_str_digits():,} (Python's limit for integer text)"
    )


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    base = {"0o": 8, "0x": 16}.get(text[:2], 10)
    digits = text[2:] if base != 10 else text
    try:
        return int(digits, base)
    except ValueError:
        raise _TooLong(node.start_mark.line + 1, len(digits.lstrip("+-"))) from None


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _construct_str(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    # `"\ud83d\ude00"` is one character in JSON, which YAML 1.2 contains, as `codegen import` reads
    # it: PyYAML gives its two halves.
    return joined_pairs(str(loader.construct_scalar(node)))


_Yaml12Loader.add_constructor("tag:yaml.org,2002:str", _construct_str)
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def yaml_1_2_resolvers() -> dict[str | None, list[tuple[str, re.Pattern[str]]]]:
    """The implicit resolvers of the YAML 1.2 core scalars the build reads, by first character:
    what `codegen import` must quote to be read back as text."""
    return {
        first: [(tag, rx) for tag, rx in resolvers if tag.rsplit(":", 1)[-1] in _REPLACED]
        for first, resolvers in _Yaml12Loader.yaml_implicit_resolvers.items()
    }


def _fast_loader() -> type | None:
    """libyaml's parser, ten times faster, with the same resolvers and constructors.

    Text it refuses goes to the Python parser, which reports the syntax error with a more
    detailed message (the tests pin those messages).
    """
    if not getattr(yaml, "__with_libyaml__", False):
        return None
    from yaml._yaml import CParser  # where yaml.cyaml takes it from

    class FastYaml12Loader(CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):  # type: ignore[misc]
        yaml_implicit_resolvers = _Yaml12Loader.yaml_implicit_resolvers
        yaml_constructors = _Yaml12Loader.yaml_constructors

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    return FastYaml12Loader


_FastYaml12Loader = _fast_loader()


@dataclass(frozen=True)
class LoadedCatalog:
    """A catalog file's data, its digest, the line where each JSON path starts, and what was wrong
    with the data itself (duplicate keys, non-JSON values): reported with the later checks' errors."""

    file: str
    data: Any
    sha256: str
    lines: dict[JsonPath, int] = field(default_factory=dict)
    problems: tuple[Diagnostic, ...] = ()
    # For a catalog read a tool's item at a time: each tool's key, the digest of its item's text
    # (and the paths its map is by, `wild`), which fixes its data and where its nodes are from its
    # first line; each tool's line map, by
    # path inside the tool, which `lines` then leaves out (a 2,000-tool catalog has some 75,000
    # nodes, and a map of them by whole path cost a rebuild 0.07 s); and where the tools' list is
    # (an MCP reply's is under `result`). Empty otherwise, and `lines` has every node.
    tool_keys: tuple[str, ...] = ()
    tool_lines: tuple[dict[JsonPath, int], ...] = ()
    tools_at: JsonPath = ("tools",)

    def by_items(self) -> bool:
        """Whether `tool_keys` and `tool_lines` are those of the catalog's tools, one each (read
        a tool's item at a time, and not read since as another list of tools)."""
        tools = self.data.get("tools") if isinstance(self.data, dict) else None
        count = len(tools) if isinstance(tools, list) else 0
        return len(self.tool_keys) == len(self.tool_lines) == count > 0

    def line_of(self, path: JsonPath) -> int:
        """The line of the nearest node on `path` that we know (1 when nothing is known)."""
        at = len(self.tools_at)
        index = path[at] if len(path) > at and path[:at] == self.tools_at else None
        if isinstance(index, int) and 0 <= index < len(self.tool_lines):
            own, inside = self.tool_lines[index], path[at + 1 :]
            for end in range(len(inside), -1, -1):
                line = own.get(inside[:end])
                if line is not None:
                    return line
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return 1

    def diagnostic(self, path: JsonPath, message: str, code: str = "CG000") -> Diagnostic:
        """A finding at `path`, at the level its code has."""
        return warning(self.file, self.line_of(path), format_path(path), message, code)


def tool_line_maps(lines: dict[JsonPath, int]) -> dict[int, dict[JsonPath, int]]:
    """Each tool's line map, by path inside the tool: one pass over a catalog's lines."""
    found: dict[int, dict[JsonPath, int]] = {}
    for path, line in lines.items():
        if len(path) >= 2 and path[0] == "tools" and isinstance(path[1], int):
            found.setdefault(path[1], {})[path[2:]] = line
    return found


def display_name(path: Path, root: Path) -> str:
    """A path for messages, headers and the manifest: relative to the project root, never absolute."""
    # The file as named (a link is not replaced by its target), in its real directory.
    return Path(
        os.path.relpath(path.absolute().parent.resolve() / path.name, root.resolve())
    ).as_posix()


# Far beyond any catalog (a 2,000-tool one is a few MB); a device or a runaway file is not read.
MAX_CATALOG_BYTES = 64 * 2**20
# Levels of YAML or JSON nesting (the document's own mapping is the first). A tool's schema nested
# this deep is unreadable; the check runs before the recursive stages, and before libyaml's
# composer, which crashes the process on a document some 30,000 levels deep.
MAX_NESTING = 100
# What aliases may add to a document, in nodes: beyond it, a "billion laughs" would fill memory.
MAX_ALIAS_NODES = 100_000

_FILE_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def read_catalog_bytes(path: Path, name: str) -> bytes:
    """A catalog file's bytes: a regular file of at most MAX_CATALOG_BYTES, else a CatalogError
    (a FIFO or a device would be read forever)."""

    def refuse(message: str) -> CatalogError:
        return CatalogError([Diagnostic(name, 1, "(file)", message)])

    try:
        found = os.stat(path)
        if not stat.S_ISREG(found.st_mode):
            kind = _FILE_KINDS.get(stat.S_IFMT(found.st_mode), "a special file")
            raise refuse(f"not a regular file ({kind})")
        if found.st_size > MAX_CATALOG_BYTES:
            raise refuse(_too_large(found.st_size))
        # O_NONBLOCK: a file swapped for a FIFO since the check is not waited on.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise refuse("not a regular file")
            # `read(n)` sets aside n bytes first: asking for the limit cost every catalog 64 MiB.
            raw = handle.read(found.st_size + 1)
            if len(raw) > found.st_size:  # it grew since: read on, to one byte past the limit
                raw += handle.read(MAX_CATALOG_BYTES + 1 - len(raw))
    except OSError as exc:
        raise refuse(f"cannot read: {exc.strerror}") from None
    if len(raw) > MAX_CATALOG_BYTES:
        raise refuse(_too_large(len(raw)))
    return raw


def _too_large(size: int) -> str:
    return f"{size:,} bytes: larger than the {MAX_CATALOG_BYTES // 2**20} MiB codegen reads"


def load_catalog(path: Path, root: Path, each: Mapper = map_in_workers) -> LoadedCatalog:
    """A catalog file's data and line map; its tools read an item at a time where the text can be
    cut into items (`items`), each by `each` (a memo's: an item whose text is unchanged is not
    read again)."""
    name = display_name(path, root)
    raw = read_catalog_bytes(path, name)
    try:
        # A byte order mark first (Notepad's and PowerShell 5's UTF-8 writes one) says only the
        # encoding: read past it, as JSON's RFC allows and YAML does.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError(
            [Diagnostic(name, 1, "(file)", f"not UTF-8 text: {exc.reason}")]
        ) from None
    digest = hashlib.sha256(raw).hexdigest()
    is_json = path.suffix == ".json"
    read = _read_by_items(name, text, each, is_json)
    if read is not None:
        data, lines, keys, by_tool, at = read
        return LoadedCatalog(
            name, data, digest, lines, tool_keys=keys, tool_lines=by_tool, tools_at=at
        )
    problems: list[Diagnostic] = []
    if is_json:
        # YAML forbids tabs where JSON allows them; outside strings (the only place valid JSON has
        # them raw) a tab and a space mean the same, so the lines survive the swap. The node tree
        # is read first: it checks the nesting before json's recursive reader sees it.
        node = _compose_quietly(name, text.replace("\t", " "))
        data = _load_json(name, text)
    else:
        node = _compose_yaml(name, text)
        if node is not None and "<<" in text:
            # Duplicates among the keys as written: constructing merges `<<` into its mapping,
            # where a key beside it overrides the merged one (YAML's rule), not a duplicate.
            _lines(name, node, problems)
        data = _construct_yaml(name, node)
    merged = not is_json and "<<" in text
    lines = _lines(name, node, [] if merged else problems) if node is not None else {}
    unchecked = LoadedCatalog(name, data, digest, lines)
    if not _is_json_data(data):
        _check_json_data(unchecked, data, (), problems)
        if any(NOT_TEXT in p.message for p in problems):
            raise CatalogError(problems)  # no later stage could write this text anywhere
    return LoadedCatalog(name, data, digest, lines, tuple(problems))


def _read_by_items(
    name: str, text: str, each: Mapper, is_json: bool
) -> (
    tuple[Any, dict[JsonPath, int], tuple[str, ...], tuple[dict[JsonPath, int], ...], JsonPath]
    | None
):
    """The data and line maps of a catalog read a tool's item at a time (`LoadedCatalog`), each
    item read by `each`; None when the text must be read whole."""
    # A file saved on Windows: each CRLF is one line break to YAML (which reads the breaks inside
    # scalars as LF) and whitespace to JSON (whose strings cannot hold one), so the text with LF
    # reads alike. A CR alone is left, and the cut refuses it.
    text = text.replace("\r\n", "\n")
    cut = items.split_json(text) if is_json else items.split_yaml(text)
    header = _clean_piece(name, cut.header, is_json) if cut is not None else None
    if cut is None or header is None:
        return None
    data, lines = header
    # The `tools` key the cut found, which must be the catalog's own (or an MCP reply's, under
    # `result`), and the list the items go in (empty, or YAML's null).
    where = [p for p, at in lines.items() if p in items.TOOLS_PATHS and at == cut.key_line]
    if where == [("result", "tools")] and ("name" in data or "tools" in data):
        return None  # a catalog, whose tools are its own `tools`, not an MCP reply's
    owner = _at(data, where[0][:-1]) if len(where) == 1 else None
    if not isinstance(owner, dict) or owner.get("tools", 0) != ([] if is_json else None):
        return None
    kind = "json-item" if is_json else "yaml-item"
    digests = [items.item_digest(item) for _, item in cut.items]
    stored = each(_item, [(name, item, is_json) for _, item in cut.items], least=PARALLEL_FROM)
    if any(found is None for found in stored):
        return None
    tools: list[Any] = []
    keys = [f"{kind} {digest}" for digest in digests]
    by_tool: list[dict[JsonPath, int]] = []
    for index, ((start, _), found) in enumerate(zip(cut.items, stored, strict=True)):
        assert found is not None
        value, relative = found
        tools.append(value)
        by_tool.append({path: start + line for path, line in relative})
    owner["tools"] = tools
    return data, lines, tuple(keys), tuple(by_tool), where[0]


# Below this many items to read for each worker process, starting it costs more than it saves.
PARALLEL_FROM = 128


def _item(piece: tuple[str, str, bool]) -> tuple[Any, list[tuple[JsonPath, int]]] | None:
    """A tool's item read alone (`_clean_piece`), with its lines from its first; None when the
    catalog must be read whole (a value: it crosses processes)."""
    name, text, is_json = piece
    found = _clean_piece(name, text, is_json)
    if found is None:
        return None
    value, relative = found
    if not is_json:  # a YAML item alone is a list of one, whose line is not the item's
        if not isinstance(value, list) or len(value) != 1:
            return None
        value, relative = value[0], {p[1:]: at for p, at in relative.items() if p}
    return value, list(relative.items())


def _at(data: Any, path: JsonPath) -> Any:
    for part in path:
        if not isinstance(data, dict) or not isinstance(part, str):
            return None
        data = data.get(part)
    return data


def _clean_piece(name: str, text: str, is_json: bool) -> tuple[Any, dict[JsonPath, int]] | None:
    """A piece of a catalog's text, read alone, when nothing about it needs the whole text to be
    read or reported: no error, alias, duplicate key or non-JSON value, and nesting well inside
    the limit (the piece is a few levels less deep than in the catalog)."""
    depth = _json_depth(text) if is_json else _nesting_bound(text)
    if depth > MAX_NESTING - 4 or "<<" in text:
        # A merge key (`<<`) is flattened when the data is built, after the line map is made
        # from the nodes: only the whole file's reading gives its lines and its duplicates.
        return None
    try:
        node = _compose(name, text.replace("\t", " ") if is_json else text)
        if node is None or ("&" in text and _has_alias(node)):
            return None
        problems: list[Diagnostic] = []
        lines = _lines(name, node, problems)
        # JSON's own reader, as for the whole file (YAML reads some escapes otherwise).
        data = json.loads(text) if is_json else _construct_yaml(name, node)
    except (yaml.YAMLError, CatalogError, ValueError, RecursionError):
        return None
    if problems or not _is_json_data(data):
        return None
    return data, lines


def _has_alias(root: yaml.Node) -> bool:
    """Whether a node tree has a node twice (an alias), without recursion."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return False


def _load_json(name: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            [Diagnostic(name, exc.lineno, "(file)", f"JSON syntax error: {exc.msg}")]
        ) from None
    except RecursionError:
        raise CatalogError([_too_deep(name, 1)]) from None
    except ValueError:  # an integer longer than Python reads from text
        line, digits = longest_integer(text)
        raise CatalogError(
            [Diagnostic(name, line, "(file)", long_integer_message(digits))]
        ) from None


def longest_integer(text: str) -> tuple[int, int]:
    """The line and the length of the first run of digits longer than Python reads."""
    long = _LONG_INTEGER.search(text)
    if long is None:
        return 1, 0
    return text.count("\n", 0, long.start()) + 1, len(long.group())


_LONG_INTEGER = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1},}}")


def _compose_quietly(name: str, text: str) -> yaml.Node | None:
    # JSON is YAML, so YAML's node tree gives the lines of a JSON file too (and its duplicate keys).
    try:
        return _compose(name, text)
    except yaml.YAMLError:
        return None


def _compose(name: str, text: str) -> yaml.Node | None:
    bound = _nesting_bound(text)
    if bound > _SAFE_TO_COMPOSE:
        _check_nesting_before_composing(name, text, _FastYaml12Loader or _Yaml12Loader)
    node: yaml.Node | None = None
    composed = False
    if _FastYaml12Loader is not None:
        try:
            node, composed = yaml.compose(text, Loader=_FastYaml12Loader), True
        except yaml.YAMLError:
            pass  # the Python parser says why
    if not composed:
        if bound > MAX_NESTING and _FastYaml12Loader is not None:
            # libyaml 0.2.6 refuses nesting past 1,000 levels; the Python composer it falls back
            # to recurses, so the nesting is measured first, from the Python parser's events.
            _check_nesting_before_composing(name, text, _Yaml12Loader)
        node = yaml.compose(text, Loader=_Yaml12Loader)
    # Without an anchor there is no alias, and nesting under the bound is within the limit.
    if node is not None and (bound > MAX_NESTING or "&" in text):
        _check_tree(name, node)
    return node


def _compose_yaml(name: str, text: str) -> yaml.Node | None:
    try:
        return _compose(name, text)
    except yaml.MarkedYAMLError as exc:
        raise CatalogError([_syntax_error(name, exc)]) from None
    except yaml.YAMLError as exc:
        raise CatalogError([Diagnostic(name, 1, "(file)", f"YAML syntax error: {exc}")]) from None


# Below this bound on a document's nesting, libyaml's recursive composer is safe (it crashes near
# 30,000 levels); above it, the nesting is measured first from the parser's events, without recursion.
_SAFE_TO_COMPOSE = 10_000
_INDICATORS = re.compile(r"(?m)^ *(?:[-?:] +)*+")


# Possessive (`*+`): a plain repeated group keeps a backtracking point per character, over 100
# bytes each, and a string cannot end anywhere but at its closing quote anyway.
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*+"')
_BRACKETS = re.compile(r"[\[\]{}]")


def _json_depth(text: str) -> int:
    """How deep a JSON text nests, its strings left out (a minified tool's brackets are many,
    its nesting is not)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _nesting_bound(text: str) -> int:
    """More than the document's nesting can be, cheaply: a block collection nested in another
    starts at least one column further right every two levels, and every flow collection opens
    with a bracket."""
    column = max(map(len, _INDICATORS.findall(text)), default=0)
    return 2 * column + 2 + text.count("[") + text.count("{")


def _check_nesting_before_composing(name: str, text: str, loader: type) -> None:
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_NESTING:
                    mark = event.start_mark  # the parser marks every event it makes
                    raise CatalogError([_too_deep(name, mark.line + 1 if mark else 1)])
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        if loader is not _Yaml12Loader:
            # libyaml's own limit on nesting (0.2.6) is an error here: the Python parser, which
            # has none and does not recurse, measures it.
            _check_nesting_before_composing(name, text, _Yaml12Loader)
        # else composing reports it


def _check_tree(name: str, root: yaml.Node) -> None:
    """Refuse a node tree nested deeper than MAX_NESTING, or one whose aliases repeat more than
    MAX_ALIAS_NODES nodes (each walk below visits a repeated node again), without recursion."""
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    seen: set[int] = set()
    visits = 0
    while stack:
        node, depth = stack.pop()
        visits += 1
        seen.add(id(node))
        if visits - len(seen) > MAX_ALIAS_NODES:
            raise CatalogError(
                [
                    Diagnostic(
                        name,
                        node.start_mark.line + 1,
                        "(file)",
                        f"aliases repeat more of the document than codegen expands (over "
                        f"{MAX_ALIAS_NODES:,} nodes): write it out, or share it with $defs and $ref",
                    )
                ]
            )
        if isinstance(node, yaml.CollectionNode):
            if depth > MAX_NESTING:
                raise CatalogError([_too_deep(name, node.start_mark.line + 1)])
            children = (
                [n for pair in node.value for n in pair]
                if isinstance(node, yaml.MappingNode)
                else node.value
            )
            stack.extend((child, depth + 1) for child in reversed(children))


def _too_deep(name: str, line: int) -> Diagnostic:
    return Diagnostic(name, line, "(file)", f"nested deeper than {MAX_NESTING} levels")


def _construct_yaml(name: str, node: yaml.Node | None) -> Any:
    """The data of a composed document: the node tree already read is built, not the text again."""
    if node is None:
        return None
    try:
        return _Yaml12Loader("").construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise CatalogError([_syntax_error(name, exc)]) from None
    except _TooLong as exc:
        raise CatalogError([Diagnostic(name, exc.line, "(file)", exc.message)]) from None


def _syntax_error(name: str, exc: yaml.MarkedYAMLError) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 1
    message = f"YAML syntax error: {exc.problem or exc.context}"
    if exc.context and exc.problem and exc.context_mark is not None:
        where = re.sub(r"^while (?:parsing|scanning) (?:an? )?", "", exc.context)
        message += f" (in the {where} that starts on line {exc.context_mark.line + 1})"
    return Diagnostic(name, line, "(file)", message)


def _lines(name: str, node: yaml.Node, problems: list[Diagnostic]) -> dict[JsonPath, int]:
    """Map each JSON path to its line, and report keys given twice (the last one would silently win)."""
    lines: dict[JsonPath, int] = {}

    def walk(n: yaml.Node, path: JsonPath, line: int) -> None:
        lines[path] = line
        if isinstance(n, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in n.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                if key in seen:
                    problems.append(
                        Diagnostic(
                            name,
                            key_node.start_mark.line + 1,
                            format_path(path),
                            f"duplicate key {quoted(key)}",
                        )
                    )
                seen.add(key)
                # A property is where its key is written, even when its value starts a line below.
                walk(value_node, (*path, key), key_node.start_mark.line + 1)
            if n.flow_style:
                problems.extend(_comma_cuts(name, n, path))
        elif isinstance(n, yaml.SequenceNode):
            for index, item in enumerate(n.value):
                walk(item, (*path, index), item.start_mark.line + 1)

    walk(node, (), node.start_mark.line + 1)
    return lines


def _comma_cuts(name: str, mapping: yaml.MappingNode, path: JsonPath) -> Iterator[Diagnostic]:
    """A plain value in a one-line `{...}` ends at a comma: `{description: The city, e.g. Paris}`
    is a description "The city" and a key "e.g. Paris" with no value. The key's own findings
    (an unknown keyword) would not say why, so the value cut short is named here."""
    for (key_node, value_node), (next_key, next_value) in pairwise(mapping.value):
        if (
            _is_plain_text(value_node)
            and _is_plain_text(next_key)
            and isinstance(next_value, yaml.ScalarNode)
            and next_value.tag == _NULL
            and next_value.value == ""
            and isinstance(key_node, yaml.ScalarNode)
        ):
            yield warning(
                name,
                next_key.start_mark.line + 1,
                format_path((*path, key_node.value)),
                f"a comma in a one-line `{{...}}` ends a plain value: {quoted(key_node.value)} is "
                f"{quoted(value_node.value)}, and {quoted(next_key.value)} became a key of its own "
                f'with no value; quote the value ("...") to keep its comma',
                "CG112",
            )


_NULL = "tag:yaml.org,2002:null"


def _is_plain_text(node: yaml.Node) -> bool:
    # A plain scalar has no style: None from the Python parser, "" from libyaml.
    return isinstance(node, yaml.ScalarNode) and not node.style and node.tag.endswith(":str")


def _is_json_data(value: Any) -> bool:
    """Whether `value` is JSON data throughout: the quick check, with no paths to build."""
    if isinstance(value, dict):
        return all(_is_text(k) and _is_json_data(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json_data(item) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return _is_text(value)
    return isinstance(value, (int, bool, type(None)))


def _is_text(value: object) -> bool:
    """A string that is Unicode text (`codegen.unicode_text`)."""
    return isinstance(value, str) and lone_surrogate(value) is None


def _surrogate_problem(text: str) -> str:
    found = lone_surrogate(text)
    assert found is not None
    return f"lone surrogate {quoted(found)} {NOT_TEXT}"


def _check_json_data(
    loaded: LoadedCatalog, value: Any, path: JsonPath, problems: list[Diagnostic]
) -> None:
    # YAML can say more than JSON: .inf, .nan and non-string keys have no JSON form, so no provider
    # payload could carry them.
    if isinstance(value, float) and not math.isfinite(value):
        written = {"inf": ".inf", "-inf": "-.inf", "nan": ".nan"}[repr(value)]
        problems.append(loaded.diagnostic(path, f"{written} is not a JSON number"))
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(loaded.diagnostic(path, f"key {quoted(key)} is not a string"))
                continue
            if not _is_text(key):
                line = loaded.line_of((*path, key))
                message = f"key {quoted(key)}: {_surrogate_problem(key)}"
                problems.append(Diagnostic(loaded.file, line, format_path(path), message))
                continue
            _check_json_data(loaded, item, (*path, key), problems)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json_data(loaded, item, (*path, index), problems)
    elif isinstance(value, str) and not _is_text(value):
        problems.append(loaded.diagnostic(path, _surrogate_problem(value)))
    elif not isinstance(value, (str, int, float, bool, type(None))):
        problems.append(loaded.diagnostic(path, f"{type(value).__name__} values are not JSON"))

"""Read a catalog a tool at a time, so that a rebuild reads only the tools whose text changed.

Composing a 2,000-tool file (its 70,000 lines) was a fifth of a one-tool rebuild. Here the file is
cut into the tools' items and the rest: in YAML each `- ...` under `tools:` (an MCP reply's, under
`result:`, too), found at its lines; in JSON each element of the `"tools": [...]` array (an MCP
reply's too), found by JSON's own decoder, however the text is laid out (indented, or minified as
a program writes it). Each item's data and line map depend on its text alone, so an item whose
text the last build read comes from the build's memo, and only the others are read, each on its own.

The YAML cut is made from the lines, which is safe only for plain text: the result is used only
when every piece reads on its own without an error, with no alias, no duplicate key, nothing that
is not JSON data, and nesting well inside the limit. A text cut in a wrong place (inside a quoted
string or a flow collection that spans lines) leaves a piece that does not read, so anything
unusual is read whole, which also reports its problems. The JSON pieces are held to the same.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

# Whatever makes a cut at lines unsafe: more than one document, directives, a line that starts with
# a tab (whose column YAML does not count as indentation), and line breaks other than \n (YAML 1.1
# also breaks lines at NEL and at the Unicode separators; the loader makes CRLF an LF first).
_UNSAFE_STARTS = ("---", "...", "%", "\t")
_UNSAFE_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
_TOOLS = "\ntools:"
_RESULT = re.compile(r"\nresult:[ \t]*(?:#[^\n]*)?(?=\n)")
_AT_MARGIN = re.compile(r"\n(?=[^ \n#])")  # a line that starts at the margin, not a comment
# A repeated group is possessive (`*+`): `re` keeps a backtracking point for each round of a plain
# one, some 270 bytes a line, so a catalog of blank lines would cost hundreds of times its size.
_FIRST_KEY = re.compile(r"(?:\n[ \t]*(?:#[^\n]*)?(?=\n))*+\n( +)(?=[^ \n#])")
_REST_OF_KEY_LINE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\n|$)")
_FIRST_CONTENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*+( *)-(?: |\n|$)")
# What may follow a catalog's tools with no node in it: blank lines and comments; in JSON, the
# array's `]` and the objects' `}` that close it.
_NOTHING_AFTER_YAML = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*+[ \t]*(?:#[^\n]*)?")
_NOTHING_AFTER_JSON = re.compile(r"\][ \t\n\r}]*")


@dataclass(frozen=True)
class Split:
    """A catalog cut into its tools' items and the rest (`header`: the file with the items' lines
    left empty, so that its lines keep their numbers; in JSON, the tools' array is then empty).
    When nothing after the items is a node (the tools are last, as catalogs write them), their
    lines are left out: no later line needs its number, and reading a header of 70,000 empty
    lines took a tenth of a one-tool rebuild's reading."""

    header: str
    items: list[tuple[int, str]]  # (the item's first line, 0-based; its text)
    key_line: int  # the line of the `tools` key (1-based, as in line maps)


def split_yaml(text: str) -> Split | None:
    """The tools' items of a block-style catalog, or None when its lines cannot be cut safely."""
    text_ = "\n" + text  # every line starts after a newline, the first one too
    if any(b in text for b in _UNSAFE_BREAKS) or any("\n" + u in text_ for u in _UNSAFE_STARTS):
        return None
    located = _tools_key(text_)
    if located is None:
        return None
    key, key_end = located
    after_key = _REST_OF_KEY_LINE.match(text_, key_end)
    first = _FIRST_CONTENT.match(text_, after_key.end()) if after_key else None
    if after_key is None or first is None:
        return None  # `tools:` is not followed by a block sequence
    indent = len(first.group(1))
    # Each line as far left as the items' dashes (or further), other than a comment: an item's
    # start, or the end of the sequence.
    boundary = re.compile(rf"\n {{0,{indent}}}(?=[^ \n#])")
    starts: list[int] = []  # offsets in text_ of the newline before each item
    end = len(text_)
    for found in boundary.finditer(text_, after_key.end() - 1):
        column = found.end() - found.start() - 1
        after = text_[found.end() : found.end() + 2]
        if column == indent and after[:1] == "-" and after[1:] in (" ", "\n", ""):
            starts.append(found.start())
        else:
            end = found.start()
            break
    items: list[tuple[int, str]] = []
    line = text_.count("\n", 0, starts[0]) if starts else 0
    for here, there in zip(starts, [*starts[1:], end], strict=True):
        items.append((line, text_[here + 1 : there + 1]))
        line += text_.count("\n", here, there)
    if not items:
        return None
    rest = text_[end:]
    blank = "" if _NOTHING_AFTER_YAML.fullmatch(rest) else "\n" * text_.count("\n", starts[0], end)
    return Split(text_[1 : starts[0]] + blank + rest, items, text_.count("\n", 0, key) + 1)


def _tools_key(text_: str) -> tuple[int, int] | None:
    """Where the catalog's one `tools:` key is (the newline before it, the offset after its
    colon): at the margin, or in an MCP reply under `result:`, one level in; None when there is not
    exactly one. The header's line map then says whether the key found is that one."""
    key = text_.find(_TOOLS)
    if key >= 0:
        return (key, key + len(_TOOLS)) if text_.find(_TOOLS, key + 1) < 0 else None
    results = list(_RESULT.finditer(text_))
    first = _FIRST_KEY.match(text_, results[0].end()) if len(results) == 1 else None
    if first is None:
        return None
    # `result`'s own keys are the lines at its first key's indentation, up to the margin.
    margin = _AT_MARGIN.search(text_, first.start())
    end = margin.start() if margin else len(text_)
    own = "\n" + first.group(1) + "tools:"
    key = text_.find(own, first.start(), end)
    if key < 0 or text_.find(own, key + 1, end) >= 0:
        return None
    return key, key + len(own)


# JSON's own decoder finds where each value ends, strings and escapes included: the cut of a JSON
# text is exact however it is laid out (indented, minified, items several to a line).
_DECODER = json.JSONDecoder()
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
# Where a catalog's tools are (an MCP reply's are under `result`), as paths of keys.
TOOLS_PATHS = (("tools",), ("result", "tools"))


def split_json(text: str) -> Split | None:
    """The tools' items of a JSON catalog or MCP reply: each element of its `tools` array, or None
    when the text is not a JSON object with exactly one such array that has an element."""
    # A raw NEL or line separator inside a string breaks a line for YAML, which gives a JSON
    # file's line map: only the whole file's reading counts them where they are.
    if any(b in text for b in _UNSAFE_BREAKS):
        return None
    arrays: list[tuple[int, int, list[tuple[int, int]], int]] = []
    try:
        start = _space(text, 0)
        if not text.startswith("{", start):
            return None
        end = _object(text, start + 1, (), arrays)
    except (ValueError, RecursionError):  # not JSON, an integer too long, nesting too deep
        return None
    if _space(text, end) != len(text) or len(arrays) != 1 or not arrays[0][2]:
        return None
    key, opened, elements, closed = arrays[0]
    items: list[tuple[int, str]] = []
    line, counted = 0, 0  # the lines before offset `counted`, counted once over the whole text
    for first, after in elements:
        line += text.count("\n", counted, first)
        counted = first
        items.append((line, text[first:after]))
    # The array left empty, its lines kept, so that every other line keeps its number.
    rest = text[closed:]
    blank = "" if _NOTHING_AFTER_JSON.fullmatch(rest) else "\n" * text.count("\n", opened, closed)
    header = text[: opened + 1] + blank + rest
    return Split(header, items, text.count("\n", 0, key) + 1)


def _space(text: str, at: int) -> int:
    found = _JSON_SPACE.match(text, at)
    assert found is not None  # it matches the empty string
    return found.end()


def _object(
    text: str,
    at: int,
    path: tuple[str, ...],
    arrays: list[tuple[int, int, list[tuple[int, int]], int]],
) -> int:
    """Read the members of the object whose `{` is just before `at`, to the offset after its `}`;
    each `tools` array where a catalog keeps its tools is added to `arrays` as (its key's offset,
    its `[`, each element's start and end, its `]`), its elements read one by one."""
    at = _space(text, at)
    if text.startswith("}", at):
        return at + 1
    while True:
        if not text.startswith('"', at):
            raise ValueError("a key is a string")
        key, after = _DECODER.raw_decode(text, at)
        colon = _space(text, after)
        if not text.startswith(":", colon):
            raise ValueError("a key is followed by a colon")
        value = _space(text, colon + 1)
        here = (*path, key)
        if here in TOOLS_PATHS and text.startswith("[", value):
            elements, end = _array(text, value + 1)
            arrays.append((at, value, elements, end - 1))
        elif here == ("result",) and text.startswith("{", value):
            end = _object(text, value + 1, here, arrays)
        else:
            end = _DECODER.raw_decode(text, value)[1]
        at = _space(text, end)
        if text.startswith(",", at):
            at = _space(text, at + 1)
        elif text.startswith("}", at):
            return at + 1
        else:
            raise ValueError("members are separated by commas")


def _array(text: str, at: int) -> tuple[list[tuple[int, int]], int]:
    """Each element's start and end in the array whose `[` is just before `at`, and the offset
    after its `]`."""
    elements: list[tuple[int, int]] = []
    at = _space(text, at)
    if text.startswith("]", at):
        return elements, at + 1
    while True:
        end = _DECODER.raw_decode(text, at)[1]
        elements.append((at, end))
        at = _space(text, end)
        if text.startswith(",", at):
            at = _space(text, at + 1)
        elif text.startswith("]", at):
            return elements, at + 1
        else:
            raise ValueError("elements are separated by commas")


def item_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

"""Read a catalog a tool at a time, so that a rebuild reads only the tools whose text changed.

Composing a 2,000-tool file (its 70,000 lines) was a fifth of a one-tool rebuild. Here the file is
cut at its lines into the tools' items and the rest: in YAML each `- ...` under `tools:`, in
indented JSON each `{ ... }` of the `"tools": [...]` array (an MCP reply's too). Each item's data
and line map depend on its text alone, so an item whose text the last build read comes from the
record, and only the others are read, each on its own.

The cut is made from the lines, which is safe only for plain text: the result is used only when
every piece reads on its own without an error, with no alias, no duplicate key, nothing that is
not JSON data, and nesting well inside the limit. A text cut in a wrong place (inside a quoted
string or a flow collection that spans lines, or a JSON object whose braces do not balance in the
piece) leaves a piece that does not read, so anything unusual is read whole, which also reports
its problems.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

# Whatever makes a cut at lines unsafe: more than one document, directives, a line that starts with
# a tab (whose column YAML does not count as indentation), and line breaks other than \n (YAML 1.1
# also breaks lines at NEL and at the Unicode separators; the loader makes CRLF an LF first).
_UNSAFE_STARTS = ("---", "...", "%", "\t")
_UNSAFE_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
_TOOLS = "\ntools:"
_REST_OF_KEY_LINE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\n|$)")
_FIRST_CONTENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*( *)-(?: |\n|$)")


@dataclass(frozen=True)
class Split:
    """A catalog cut into its tools' items and the rest (`header`: the file with the items' lines
    left empty, so that its lines keep their numbers; in JSON, the tools' array is then empty)."""

    header: str
    items: list[tuple[int, str]]  # (the item's first line, 0-based; its text)
    key_line: int  # the line of the `tools` key (1-based, as in line maps)


def split_yaml(text: str) -> Split | None:
    """The tools' items of a block-style catalog, or None when its lines cannot be cut safely."""
    text_ = "\n" + text  # every line starts after a newline, the first one too
    if any(b in text for b in _UNSAFE_BREAKS) or any("\n" + u in text_ for u in _UNSAFE_STARTS):
        return None
    key = text_.find(_TOOLS)
    if key < 0 or text_.find(_TOOLS, key + 1) >= 0:
        return None
    after_key = _REST_OF_KEY_LINE.match(text_, key + len(_TOOLS))
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
    blank = "\n" * text_.count("\n", starts[0], end)
    return Split(text_[1 : starts[0]] + blank + text_[end:], items, text_.count("\n", 0, key) + 1)


_JSON_TOOLS = re.compile(r'\n[ \t]*"tools"[ \t]*:[ \t]*\[[ \t]*(?=\n)')
_JSON_BLANKS = r"(?:\n[ \t]*(?=\n))*"
_JSON_FIRST = re.compile(_JSON_BLANKS + r"\n([ \t]*)\{[ \t]*(?=\n)")
_JSON_CLOSE = re.compile(_JSON_BLANKS + r"\n[ \t]*\]")


def split_json(text: str) -> Split | None:
    """The tools' items of an indented JSON catalog (each `{` and its `}` or `},` alone on a line,
    at one indentation), or None when its lines cannot be cut safely."""
    text_ = "\n" + text
    keys = list(_JSON_TOOLS.finditer(text_))
    # A raw NEL or line separator inside a string breaks a line for YAML, which gives a JSON
    # file's line map: only the whole file's reading counts them where they are.
    if len(keys) != 1 or any(b in text for b in _UNSAFE_BREAKS):
        return None
    key = keys[0]
    first = _JSON_FIRST.match(text_, key.end())
    if first is None:
        return None
    indent = re.escape(first.group(1))
    start = re.compile(_JSON_BLANKS + rf"\n{indent}\{{[ \t]*(?=\n)")
    close = re.compile(rf"\n{indent}\}}[ \t]*(,?)[ \t]*(?=\n)")
    items: list[tuple[int, str]] = []
    # `line` counts the lines of `text` before `at` (text_ has one newline more, in front).
    at, line, comma = key.end(), text_.count("\n", 0, key.end()), ","
    while comma:
        opened = start.match(text_, at)
        ended = close.search(text_, opened.end()) if opened else None
        if opened is None or ended is None:
            return None  # items are separated by commas: one is missing, or one is not there
        begin = text_.rfind("\n", at, opened.end())  # before the `{` line
        line += text_.count("\n", at, begin)
        # From the `{` line to the `}` line, without the comma after it.
        items.append((line, text_[begin + 1 : ended.end()].rstrip(" \t,") + "\n"))
        line += text_.count("\n", begin, ended.end())
        comma, at = ended.group(1), ended.end()
    if _JSON_CLOSE.match(text_, at) is None:
        return None
    first_line = text_.rfind("\n", 0, first.end())
    blank = "\n" * text_.count("\n", first_line, at)
    return Split(
        text_[1:first_line] + blank + text_[at:], items, text_.count("\n", 0, key.start()) + 1
    )


def item_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

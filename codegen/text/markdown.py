"""Catalog text as Markdown that renders as the same text: the only way it reaches the docs.

CommonMark lets a backslash escape any ASCII punctuation, so every character that could start
markup inline (emphasis, code, links, HTML, entities, a table's pipe) is escaped; line breaks of
every kind become spaces in a table cell, and a line of a paragraph that would open a block (a
list, a heading, a quote, a setext underline, an indented code block) loses that meaning.
"""

from __future__ import annotations

import re

# Markup that can start anywhere in a line (`#` only matters first, but costs nothing to escape).
_INLINE = re.compile(r"([\\`*_\[\]<>|&~#!])")
# What opens a block at the start of a line, once inline markup is escaped: `-`, `+`, `=`, or a
# number followed by `.` or `)` (an ordered list).
_BLOCK_START = re.compile(r"^(?:([-+=])|(\d+)([.)]))")


def printable(text: str) -> str:
    """Every character that is not printable written as an escape (`\\n`, `\\x00`, `\\u2028`)."""
    if text.isprintable():
        return text  # the common case, tested in C
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _escaped(line: str) -> str:
    line = _INLINE.sub(r"\\\1", " ".join(printable(word) for word in line.split()))
    return _BLOCK_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", line)


def inline(text: str) -> str:
    """Text for a table cell, a heading or a list item: one line, every markup character escaped."""
    return _escaped(text)


def block(text: str) -> str:
    """Text as paragraphs: its lines kept (blank lines separate paragraphs), none opening a block."""
    lines = [_escaped(line) for line in text.splitlines()]
    paragraphs = "\n".join(lines).split("\n\n")
    return "\n\n".join(p.strip("\n") for p in paragraphs if p.strip("\n"))


def code(text: str, cell: bool = False) -> str:
    """A code span showing `text` exactly (line breaks as escapes); in a table `cell`, the pipes
    are escaped too, since a table splits its rows on them before it reads code spans."""
    text = printable(text)
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text[0] in "` " or text[-1] in "` ":
        text = f" {text} "
    if cell:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def code_block(text: str, language: str = "") -> str:
    """A fenced code block holding `text`: the fence is longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"

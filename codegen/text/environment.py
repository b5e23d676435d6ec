"""The jinja2 environment of the text back ends: catalog text reaches their output only through
the filters named here (JSON text, one line of prose, Markdown escapes)."""

from __future__ import annotations

from functools import cache

import jinja2

from codegen.resources import template_environment
from codegen.text import describe, markdown


def one_line(text: str) -> str:
    """Prose as one line: runs of whitespace (line breaks of every kind) become one space, and
    characters that are not printable are dropped."""
    text = " ".join(text.split())
    return text if text.isprintable() else "".join(ch for ch in text if ch.isprintable())


def lines(text: str) -> list[str]:
    """The non-blank lines of a text, each as one line of prose."""
    return [line for line in (one_line(part) for part in text.splitlines()) if line]


@cache
def environment() -> jinja2.Environment:
    env = template_environment(trim_blocks=True, lstrip_blocks=True)
    env.filters.update(
        json=describe.json_text,
        one_line=one_line,
        lines=lines,
        md=markdown.inline,
        md_block=markdown.block,
        code=markdown.code,
        code_block=markdown.code_block,
        type_text=describe.type_text,
        constraints=describe.constraints,
        coercions=describe.coercions,
    )
    return env

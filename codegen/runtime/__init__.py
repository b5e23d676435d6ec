"""The runtime of every generated package, as real modules: linted, type-checked and tested here.

Each `_<name>.py` is copied into a package as it is, under a header (`python.render.render_shared`),
and the front end imports the same modules where it needs the parser's own rules (a catalog's
dirty defaults are corrected by `_runtime`'s coercions). Standard library only, and relative
imports only among themselves, so a copy works wherever it lands.
"""

from __future__ import annotations

from pathlib import Path

# The modules copied into every package, by the name they have there (without `_` and `.py`).
MODULES = (
    "runtime",
    "repair",
    "providers",
    "ids",
    "json_prefix",
    "assembly",
    "stream_readers",
    "streams",
    "executor",
    "runs",
    "results",
    "explain",
    "codes",
    "calls",
    "jsonl",
    "reply",
    "history",
    "mcp",
    "types",
    "prompts",
    "outbound",
    "values",
    "frameworks",
    "agents",
    "pydantic_ai",
    "langchain",
)


def source(name: str) -> str:
    """The text of the runtime module `_<name>.py`."""
    return (Path(__file__).parent / f"_{name}.py").read_text(encoding="utf-8")

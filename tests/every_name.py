"""A catalog whose tools and parameters are named after every name a generated package binds
(issue 33, "one namespace owner"): the package's own exports and helpers, every Python keyword,
the builtins, typing and runtime names the generated code uses, and after each other (`foo` and
`Foo`, `a.b` and `a_b`, a nested class of one tool that is another tool's class). It is made from
the lists themselves, so it stays complete when they change.
"""

from __future__ import annotations

import json
import keyword
from pathlib import Path
from typing import Any

from codegen.catalog.names import SHADOWING
from codegen.python.imports import MODULE_LEVEL, RUNTIME, STDLIB
from codegen.python.render import package_bound

# The locals and parameters of the generated parse functions (`templates/coerce.jinja`).
LOCALS = ("v", "src", "draft", "warnings", "errors", "raw", "tool_call_id", "self", "extra")


def names() -> list[str]:
    """Every name the catalog is about, in a fixed order."""
    found = [
        *sorted(package_bound()),
        *keyword.kwlist,
        *keyword.softkwlist,
        *sorted(STDLIB),
        *sorted(RUNTIME),
        *sorted(MODULE_LEVEL),
        *sorted(SHADOWING),
        *LOCALS,
    ]
    # A tool whose parser or classes would be one of the package's names (`reply` → `parse_reply`,
    # `tool_call` → `ToolCallResult`).
    for name in sorted(package_bound()):
        if name.startswith("parse_"):
            found.append(name.removeprefix("parse_"))
        for suffix in ("Args", "Keywords", "Result"):
            if name.endswith(suffix) and name != suffix:
                found.append(name.removesuffix(suffix))
    return list(dict.fromkeys(found))


def _tool(name: str, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """A tool called `name`, with a parameter and a result field called so too."""
    properties = parameters or {name: {"type": "string"}}
    return {
        "name": name,
        "description": f"The tool named {name}.",
        "parameters": {"type": "object", "properties": properties},
        "returns": {"type": "object", "properties": {name: {"type": "string"}}},
    }


def _nested(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def catalog() -> dict[str, Any]:
    every = names()
    tools = [_tool(name) for name in every]
    # One tool with a parameter of every name, and each pair that collides in Python.
    everything = {name: {"type": "integer"} for name in every}
    tools.append(_tool("every_parameter", everything))
    tools += [_tool("foo"), _tool("Foo"), _tool("a.b"), _tool("a_b")]
    tools.append(_tool("pair", {"foo": {"type": "string"}, "Foo": {"type": "string"}}))
    tools.append(_tool("dotted", {"a.b": {"type": "string"}, "a_b": {"type": "string"}}))
    # Nested classes that are another tool's class or one of the package's own names.
    settings = _nested({"level": {"type": "integer"}})
    tools.append(_tool("update", {"config_settings": settings}))
    tools.append(_tool("update_config", {"settings": settings}))
    tools.append(_tool("tool_with", {"result": settings}))
    tools.append(_tool("call", {"batch": settings, "stream": settings}))
    tools.append(_tool("lazy", {"tools": settings}))
    # A pinned name wins over a wire name (`TOOL`'s module is `tool` too); its `spec` class would
    # be `ToolSpec`, which its module imports from the runtime.
    tools.append({**_tool("spec_maker", {"spec": settings}), "x-python-name": "tool"})
    # Two nested classes of one tool that are one class name (`PairedAB`).
    tools.append(_tool("paired", {"a.b": settings, "a_b": settings}))
    return {"name": "names_everywhere", "tools": tools}


def write(directory: Path) -> Path:
    """The catalog as a JSON file in `directory`."""
    source = directory / "names_everywhere.json"
    source.write_text(json.dumps(catalog(), indent=1), encoding="utf-8")
    return source

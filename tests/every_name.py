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


CHOICE = {"type": "string", "enum": ["a", "b"]}
SETTINGS = {"type": "object", "properties": {"level": {"type": "integer"}}}

# Parameters whose module-level names (`python.module_names`) meet, in catalog order: the first
# met takes the name, the other a suffix; a class that is one of the tool's own is said (CG106).
MODULE_CLASH: dict[str, Any] = {
    "args": SETTINGS,  # the class <Tool>Args: <Tool>Args2, said
    "keywords": CHOICE,  # the alias <Tool>Keywords: <Tool>Keywords2, said
    "result": CHOICE,  # the alias <Tool>Result: <Tool>Result2, said; the result's helper `_result_2`
    "arguments": SETTINGS,  # the root's helper is `_arguments`: this one's `_arguments_2`
    "mode": CHOICE,  # the alias <Tool>Mode, then the class <Tool>Mode2 of ...
    "Mode": SETTINGS,
    "x": SETTINGS,  # `_X_KEYS` and `_X_DRAFT` (after its fields), then the tables `_X_KEYS_2` ...
    "x_keys": CHOICE,
    "x.draft": CHOICE,  # ... and `_X_DRAFT_2`
    "a.b": CHOICE,  # the table `_A_B` and `_A_B_FOLDED`, then the table `_A_B_FOLDED_2` of ...
    "a_b_folded": CHOICE,
    "a_b": {"type": "string", "minLength": 1},  # `a.b`'s helper is `_a_b`: this one's `_a_b_2`
    "m": CHOICE,  # `_M_VALUES`, then the table `_M_VALUES_2` of ...
    "m_values": CHOICE,
    "p_pattern": CHOICE,  # the table `_P_PATTERN`, then the pattern `_P_PATTERN_2` of ...
    "p": {"type": "string", "pattern": "!$"},
    "c": {
        "enum": [{"k": 1}, [1]]
    },  # the choices `_C_CHOICES`, then the table `_C_CHOICES_2` of ...
    "c_choices": CHOICE,
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
    settings = SETTINGS
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
    # The other classes a tool module imports (`imports.TAKEN`), each a nested class or an enum's
    # `Literal` alias of a tool whose stem begins it: each is said, and suffixed.
    spec_maker = tools[-2]["parameters"]["properties"]
    spec_maker["call.request"] = settings  # ToolCallRequest
    tools.append({**_tool("raw_maker", {"arguments": settings}), "x-python-name": "raw"})
    tools.append({**_tool("result_maker", {"spec": CHOICE}), "x-python-name": "result"})
    tools.append(_tool("module_clash", MODULE_CLASH))
    return {"name": "names_everywhere", "tools": tools}


def write(directory: Path) -> Path:
    """The catalog as a JSON file in `directory`."""
    source = directory / "names_everywhere.json"
    source.write_text(json.dumps(catalog(), indent=1), encoding="utf-8")
    return source

"""The names a generated tool module may import, and where each comes from.

The renderer writes a module's imports from the names its body uses; `module_names` keeps every
name a tool's module defines clear of `TAKEN`.
"""

from __future__ import annotations

from codegen.runtime import _runtime as rt

# name → (module, name in it); None imports the module itself.
STDLIB = {
    "dataclass": ("dataclasses", "dataclass"),
    "dataclasses": ("dataclasses", None),
    "date": ("datetime", "date"),
    "datetime": ("datetime", "datetime"),
    "isfinite": ("math", "isfinite"),
    "Awaitable": ("collections.abc", "Awaitable"),
    "Mapping": ("collections.abc", "Mapping"),
    "re": ("re", None),
    "Any": ("typing", "Any"),
    "Final": ("typing", "Final"),
    "Literal": ("typing", "Literal"),
    "Protocol": ("typing", "Protocol"),
}

# From the package's own _runtime module.
RUNTIME = frozenset(
    {
        "ABSENT", "INVALID", "Invalid", "NO_FOLDING", "RawArguments", "ResultSpec", "ToolCallRequest", "ToolSpec",
        "copy_containers", "detail", "draft_class", "is_null_text", "not_null", "run_parser", "to_bool", "to_choice",
        "to_dict", "to_float", "to_int", "to_json_choice", "to_list", "to_str", "unknown_keys",
        # Each checked format's coercion and check.
        *(function.__name__ for function in (*rt.FORMATS.values(), *rt.TEXT_FORMATS.values())),
    }
)  # fmt: skip

# Every name a tool module may import.
IMPORTABLE = frozenset(STDLIB) | RUNTIME

# Bound by every tool module itself.
MODULE_LEVEL = frozenset(
    {"NAME", "SCHEMA", "TOOL", "RESULT", "RESULT_SCHEMA", "WIRE_NAMES", "annotations"}
)

TAKEN = IMPORTABLE | MODULE_LEVEL

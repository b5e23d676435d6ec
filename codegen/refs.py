"""Resolve local `$ref`s and merge `allOf` inside one tool's parameters schema."""

from __future__ import annotations

from typing import Any

from codegen.diagnostics import JsonPath

# Keywords that only describe a schema; a `$ref` with nothing else beside them can share its target.
ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "examples",
        "default",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)


class RefError(Exception):
    def __init__(self, path: JsonPath, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def ref_target(root: dict[str, Any], ref: str, path: JsonPath) -> tuple[str, dict[str, Any] | bool]:
    """The schema a local reference (`#/$defs/Name`, `#/definitions/Name`) points at, and its name."""
    if not ref.startswith("#/"):
        raise RefError(path, f"$ref {ref!r} is not a local reference (#/$defs/...)")
    node: Any = root
    parts = [p.replace("~1", "/").replace("~0", "~") for p in ref[2:].split("/")]
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise RefError(path, f"$ref {ref!r} does not resolve")
    if not isinstance(node, (dict, bool)):
        raise RefError(path, f"$ref {ref!r} does not point at a schema")
    return parts[-1], node


def merge_all_of(schema: dict[str, Any], members: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema that requires what every `allOf` member requires (properties and `required` unite)."""
    merged: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in [*members, {k: v for k, v in schema.items() if k != "allOf"}]:
        properties.update(part.get("properties", {}))
        required.extend(r for r in part.get("required", []) if r not in required)
        merged.update({k: v for k, v in part.items() if k not in ("properties", "required")})
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged

"""The loose JSON Schema of tool lists in the wild, made standard, with a note for each change.

Function-calling datasets and other languages' tool lists write `dict`, `float`, `long`, `tuple`,
`any`, `String` or `HashMap` for a type, mark a property `required: true` or `optional: true`
beside it, and Gemini's OpenAPI subset writes `STRING`, `nullable: true` and `example`. Each is rewritten to
the JSON Schema it plainly means; nothing else is changed.
"""

from __future__ import annotations

from typing import Any

from codegen.diagnostics import JsonPath, format_path

# Type names found in the wild (compared in lower case) → the JSON Schema type; None: any value.
_TYPES: dict[str, str | None] = {
    "string": "string", "str": "string", "text": "string", "char": "string",
    "integer": "integer", "int": "integer", "long": "integer", "int32": "integer",
    "int64": "integer", "short": "integer", "byte": "integer", "bigint": "integer",
    "number": "number", "float": "number", "double": "number", "decimal": "number",
    "boolean": "boolean", "bool": "boolean",
    "object": "object", "dict": "object", "map": "object", "hashmap": "object",
    "record": "object", "struct": "object",
    "array": "array", "list": "array", "tuple": "array", "arraylist": "array", "set": "array",
    "null": "null", "none": "null",
    "any": None,
}  # fmt: skip
# Keywords of schemas in a position that holds one schema, or a map or list of them.
_ONE = ("items", "additionalProperties", "not")
_MANY = ("properties", "$defs", "definitions")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")


class Notes(list[str]):
    """What was rewritten, each as `path: what`, in the order met."""

    def add(self, path: JsonPath, message: str) -> None:
        self.append(f"{format_path(path)}: {message}")


def standard(schema: Any, path: JsonPath, notes: Notes) -> Any:
    """`schema` in standard JSON Schema (a copy); each rewrite is a note."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(out.get("properties"), dict):
        # Before the properties are read: their flags belong to this object's `required`.
        _lift_cardinality(out, path, notes)
    if "type" in out:
        _standard_type(out, path, notes)
    if out.get("nullable") is True and "type" in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        out["type"] = [*types, "null"] if "null" not in types else types
        del out["nullable"]
        notes.add((*path, "nullable"), "`nullable: true` written as a type list with null")
    elif "nullable" in out and out["nullable"] is False:
        del out["nullable"]
    if out.get("format") == "enum" and "enum" in out:
        del out["format"]  # Gemini's marker for a string enum
    if "example" in out and "examples" not in out:
        out["examples"] = [out.pop("example")]
        notes.add((*path, "example"), "OpenAPI's `example` written as `examples`")
    for word in _ONE:
        if isinstance(out.get(word), dict):
            out[word] = standard(out[word], (*path, word), notes)
    for word in _LIST:
        if isinstance(out.get(word), list):
            out[word] = [standard(s, (*path, word, i), notes) for i, s in enumerate(out[word])]
    for word in _MANY:
        if isinstance(out.get(word), dict):
            out[word] = {k: standard(s, (*path, word, k), notes) for k, s in out[word].items()}
    return out


def _standard_type(out: dict[str, Any], path: JsonPath, notes: Notes) -> None:
    written = out["type"]
    names = written if isinstance(written, list) else [written]
    if not all(isinstance(name, str) for name in names):
        return  # not a type name at all: the build reports it
    types: list[str] = []
    for name in names:
        meant = _TYPES.get(name.lower(), name)
        if meant is None:
            del out["type"]
            notes.add((*path, "type"), f"type {name!r} means any value: the type is left out")
            return
        if meant != name:
            notes.add((*path, "type"), f"type {name!r} written as {meant!r}")
        if meant not in types:
            types.append(meant)
    out["type"] = types if isinstance(written, list) or len(types) > 1 else types[0]


def _lift_cardinality(out: dict[str, Any], path: JsonPath, notes: Notes) -> None:
    """Property-level `required: true/false` and `optional` into the object's `required` list."""
    listed = out.get("required")
    required = list(listed) if isinstance(listed, list) else []
    out["properties"] = properties = {
        name: dict(prop) if isinstance(prop, dict) else prop
        for name, prop in out["properties"].items()
    }
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            continue
        for word in ("required", "optional"):
            value = prop.get(word)
            if not isinstance(value, bool):
                continue
            wanted = value if word == "required" else not value
            if wanted and name not in required:
                required.append(name)
            elif not wanted and name in required:
                required.remove(name)
            del prop[word]
            state = "required" if wanted else "optional"
            notes.add((*path, "properties", name, word), f"`{word}: {str(value).lower()}` "
                      f"beside the property written as the object's `required` ({state})")  # fmt: skip
    if required:
        if isinstance(listed, bool):
            # Both a flag for its own parent and a list for its properties: the parent has read
            # the flag by now (it lifts before it recurses), so the list takes the key.
            notes.add((*path, "required"), "`required` beside a property that has properties")
        out["required"] = required

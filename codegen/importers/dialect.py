"""The loose JSON Schema of tool lists in the wild, made standard, with a note for each change.

Function-calling datasets and other languages' tool lists write `dict`, `float`, `long`, `tuple`,
`any`, `String` or `HashMap` for a type, mark a property `required: true` or `optional: true`
beside it, and Gemini's OpenAPI subset writes `STRING`, `nullable: true` and `example`. Each is rewritten to
the JSON Schema it plainly means; nothing else is changed.
"""

from __future__ import annotations

import re
from typing import Any, Self

from codegen.catalog.dialect import Finding, read_type, required_slips
from codegen.diagnostics import JsonPath, format_path, quoted
from codegen.vocabulary import subschemas_mapped


class Note(str):
    """One thing rewritten, as `path: what`; its path and its build code (the code the build
    gives the same reading) beside."""

    path: JsonPath
    code: str

    def __new__(cls, path: JsonPath, message: str, code: str) -> Self:
        note = super().__new__(cls, f"{format_path(path)}: {message}")
        note.path, note.code = path, code
        return note


class Notes(list[Note]):
    """What was rewritten, in the order met."""

    def add(self, path: JsonPath, message: str, code: str = "CG102") -> None:
        self.append(Note(path, message, code))

    def said(self, findings: list[Finding]) -> None:
        """The findings of the loose dialect's reader (`catalog/dialect.py`), as the build says them."""
        for finding in findings:
            self.add(finding.path, finding.message, finding.code)


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
    for word, value in out.items():
        out[word] = subschemas_mapped(
            word, value, lambda where, sub: standard(sub, (*path, *where), notes)
        )
    notes.said(required_slips(out, path))
    return out


def property_map(parameters: Any) -> bool:
    """Whether a tool's parameters are a map of property names to schemas with no object around
    it (`{"query": {"type": "str", ...}}`, even `{"type": {"type": "str"}}` for a parameter named
    `type`), rather than a schema."""
    if not isinstance(parameters, dict) or not parameters or "properties" in parameters:
        return False
    if any(
        key in _SCHEMA_WORDS and not (key == "type" and isinstance(value, dict))
        for key, value in parameters.items()
    ):
        return False
    return all(
        isinstance(value, dict) and ("type" in value or "description" in value)
        for value in parameters.values()
    )


# The keywords of a schema, by which a schema is told from a map of properties.
_SCHEMA_WORDS = frozenset(
    {
        "type", "properties", "required", "items", "additionalProperties", "enum", "const",
        "anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "definitions", "description",
        "title", "default", "examples", "format", "nullable", "patternProperties",
        "minProperties", "maxProperties", "if", "then", "else", "$schema", "optional",
    }
)  # fmt: skip


def _standard_type(out: dict[str, Any], path: JsonPath, notes: Notes) -> None:
    written = out["type"]
    names = written if isinstance(written, list) else [written]
    if not all(isinstance(name, str) for name in names):
        return  # not a type name at all: the build reports it
    read, found = read_type(out, path)
    if read is not out:
        out.clear()
        out.update(read)
    notes.said(found)


_OPTIONAL_TYPE = re.compile(r"\s*(.*?)\s*,\s*optional\s*", re.IGNORECASE)


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
        marked = (
            _OPTIONAL_TYPE.fullmatch(prop["type"]) if isinstance(prop.get("type"), str) else None
        )
        if marked is not None:  # `"type": "int, optional"`, as xLAM's datasets write it
            prop["type"] = marked.group(1)
            if name in required:
                required.remove(name)
            said = f"type {quoted(marked.group())} written as {quoted(marked.group(1))}, the property optional"
            notes.add((*path, "properties", name, "type"), said)
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

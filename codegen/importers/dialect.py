"""The loose JSON Schema of tool lists in the wild, made standard, with a note for each change.

Function-calling datasets and other languages' tool lists write `dict`, `float`, `long`, `tuple`,
`any`, `String` or `HashMap` for a type, mark a property `required: true` or `optional: true`
beside it (both read by `catalog/dialect.py`, as the build reads them), and Gemini's OpenAPI
subset writes `STRING`, `nullable: true` and `example`. Each is rewritten to the JSON Schema it
plainly means; nothing else is changed.
"""

from __future__ import annotations

from typing import Any, Self

from codegen.catalog.dialect import (
    Finding,
    lift_cardinality,
    read_type,
    required_slips,
    stray_cardinality,
)
from codegen.diagnostics import JsonPath, format_path
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
    # Before the properties are read: their flags belong to this object's `required`.
    out, lifted = lift_cardinality(dict(schema), path)  # a copy, changed in place below
    notes.said(lifted)
    out, stray = stray_cardinality(out, path)
    notes.said(stray)
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

"""Gemini's legacy `parameters`: a JSON Schema rewritten into the OpenAPI 3.0 subset of Gemini's
`Schema` object, with every change that loses something reported (SPEC §4).

Upper-case types, `nullable` instead of type lists and null branches, string-only `enum`, every
`$ref` and `allOf` written out; what the subset cannot say is dropped (and said in the
description where the model needs it). The generated parser still enforces all of it.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from codegen.catalog.refs import conjoin, merge_all_of
from codegen.catalog.typeless import inferred_types
from codegen.diagnostics import excerpt, quoted
from codegen.payloads.schema import (
    Finding,
    Transform,
    inlined,
    json_text,
    public,
    said,
    still_checked,
)
from codegen.vocabulary import constrained_type, in_payload

TYPES = {
    "string": "STRING",
    "integer": "INTEGER",
    "number": "NUMBER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
# The keywords of each type that the subset has (Gemini API `Schema`, checked 2026-11-23, in
# `codegen.vocabulary`), in the order they are written: the annotations first, on every type.
_ANNOTATIONS = ("format", "title", "description")
_BY_TYPE = {
    kind: tuple(
        word
        for word in in_payload("gemini")
        if word not in _ANNOTATIONS
        and constrained_type(word) in (None, "number" if kind == "integer" else kind)
    )
    for kind in TYPES
}
_SILENT = frozenset({"type", "$defs", "definitions", "examples", "default", "$comment"})


def to_legacy(schema: dict[str, Any]) -> tuple[dict[str, Any], list[Finding]]:
    """`schema` (a tool's parameters or its result) in Gemini's OpenAPI subset, and each loss."""
    root = public(schema)
    legacy = _Legacy(root)
    out = legacy.node(copy.deepcopy(root), ())
    return out, sorted(set(legacy.findings))


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_HANDLED = frozenset(
    {
        *_ANNOTATIONS,
        *(word for words in _BY_TYPE.values() for word in words),
        *_SILENT,
        "exclusiveMinimum",
        "exclusiveMaximum",
        "additionalProperties",
        "nullable",
    }
)


class _Legacy(Transform):
    def node(self, node: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
        node = dict(node) if isinstance(node, dict) else {}
        if "$ref" in node:
            node = inlined(self.root, node)
        if "allOf" in node:
            members = [_dict(self.root, m) for m in node["allOf"]]
            node, _ = merge_all_of(node, members)
        if "oneOf" in node:
            branches = node.pop("oneOf")
            node.setdefault("anyOf", branches)
            self.note(
                (*path, "oneOf"),
                f"oneOf sent as anyOf (the subset has no oneOf){still_checked('oneOf')}",
            )
        if "const" in node:
            node["enum"] = [node.pop("const")]
        if "anyOf" in node:
            branches = node.pop("anyOf")
            others = [b for b in branches if not _is_null(b) and b is not False]
            return self.union(node, others, path, len(others) < len(branches))
        kinds = node.get("type")
        kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
        if "type" not in node:
            kinds, _ = inferred_types(node)  # the front end warned already
        nullable = node.get("nullable") is True
        if "null" in kinds:
            kinds.remove("null")
            nullable = True
        if isinstance(node.get("enum"), list) and None in node["enum"]:
            node["enum"] = [v for v in node["enum"] if v is not None]
            nullable = True
        if len(kinds) > 1:
            node.pop("type", None)
            return self.union(node, [{"type": kind} for kind in kinds], path, nullable)
        return self.typed(node, kinds[0] if kinds else None, path, nullable)

    def union(
        self, node: dict[str, Any], branches: list[Any], path: tuple[str | int, ...], nullable: bool
    ) -> dict[str, Any]:
        """A choice among `branches`, each also bound by what `node` says beside them."""
        notes: dict[str, Any] = {
            k: node.pop(k) for k in ("title", "description", "default", "examples") if k in node
        }
        members = [conjoin(node, b if isinstance(b, dict) else {})[0] for b in branches]
        if len(members) == 1:
            return self.node(
                {**members[0], **notes, **({"nullable": True} if nullable else {})}, path
            )
        out: dict[str, Any] = {}
        for word in ("title", "description"):
            if word in notes:
                out[word] = notes[word]
        if nullable:
            out["nullable"] = True
        out["anyOf"] = [self.node(m, (*path, "anyOf", i)) for i, m in enumerate(members)]
        self.values(out, notes)
        return out

    def typed(
        self, node: dict[str, Any], kind: str | None, path: tuple[str | int, ...], nullable: bool
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if kind is None:
            self.note(path, "any value: the subset has no schema for it, sent without a type")
        else:
            out["type"] = TYPES[kind]
        for word in _ANNOTATIONS:
            if word in node:
                out[word] = node[word]
        if nullable:
            out["nullable"] = True
        for word in _BY_TYPE.get(kind or "", ()):
            if word in node:
                out[word] = node[word]
        if "enum" in out and not all(isinstance(v, str) for v in out["enum"]):
            values = out.pop("enum")
            said(out, f"One of: {', '.join(json_text(v) for v in values)}.")
            self.note(
                (*path, "enum"),
                f"enum of non-strings removed (the subset takes strings only): said in the description{still_checked('enum')}",
            )
        if kind in ("integer", "number"):
            self.exclusive(node, out, kind, path)
        if kind == "array":
            self.items(node, out, path)
        if kind == "object":
            self.object(node, out, path)
        self.values(out, node)
        for word in node:
            if word not in _HANDLED:
                self.note(
                    (*path, word),
                    f"keyword {quoted(word)} removed (the subset has no {excerpt(word)}){still_checked(word)}",
                )
        return out

    def values(self, out: dict[str, Any], node: dict[str, Any]) -> None:
        if "default" in node:
            out["default"] = node["default"]
        if isinstance(node.get("examples"), list) and node["examples"]:
            out["example"] = node["examples"][0]  # the subset has one example, not a list

    def exclusive(
        self, node: dict[str, Any], out: dict[str, Any], kind: str, path: tuple[str | int, ...]
    ) -> None:
        for word, plain, step, words in (
            ("exclusiveMinimum", "minimum", 1, "Greater than"),
            ("exclusiveMaximum", "maximum", -1, "Less than"),
        ):
            if word not in node:
                continue
            bound = node[word]
            if kind == "integer" and float(bound).is_integer():
                # The same integers, said with the keyword the subset has.
                tight = int(bound) + step
                out[plain] = (
                    tight if plain not in out else (max if step > 0 else min)(out[plain], tight)
                )
                continue
            said(out, f"{words} {json_text(bound)}.")
            self.note(
                (*path, word),
                f"{word} removed (the subset has none): said in the description{still_checked(word)}",
            )

    def items(self, node: dict[str, Any], out: dict[str, Any], path: tuple[str | int, ...]) -> None:
        items = node.get("items")
        if isinstance(items, dict) and items:
            out["items"] = self.node(items, (*path, "items"))
        else:
            # Gemini refuses an ARRAY without `items` ("items: missing field").
            out["items"] = {"type": "STRING"}
            self.note(
                (*path, "items"),
                "items of any value cannot be said in the subset: sent as a list of strings; the parser takes any items",
            )
        for word in ("minItems", "maxItems"):
            if word in node:
                out[word] = out.pop(word)

    def object(
        self, node: dict[str, Any], out: dict[str, Any], path: tuple[str | int, ...]
    ) -> None:
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            self.note(
                (*path, "additionalProperties"),
                "a schema for other names cannot be said in the subset: removed; the parser still checks them",
            )
        if not properties:
            out.pop("properties", None)
            out.pop("required", None)
            return
        converted = {}
        for name, prop in properties.items():
            where = (*path, "properties", name)
            if not _NAME.fullmatch(name):
                self.note(
                    where,
                    f"property name {quoted(name)} is not one the legacy `parameters` documents (a letter or _, then letters, digits, _; up to 64): an endpoint that checks it refuses the tool (GEMINI_TOOLS has no such rule)",
                    "CG203",
                )
            converted[name] = self.node(prop, where)
        out["properties"] = converted
        if node.get("required"):
            out["required"] = list(node["required"])
        for word in ("minProperties", "maxProperties"):
            if word in node:
                out[word] = out.pop(word)


def _is_null(branch: Any) -> bool:
    return isinstance(branch, dict) and branch.get("type") == "null" and "$ref" not in branch


def _dict(root: dict[str, Any], member: Any) -> dict[str, Any]:
    """An `allOf` member as a schema object: `$ref` followed, `true` as `{}` (a `false` one is
    the front end's error)."""
    if not isinstance(member, dict):
        return {}
    return inlined(root, member) if "$ref" in member else member

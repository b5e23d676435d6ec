"""Anthropic strict tool use (`strict: true`): a tool's JSON Schema as the anthropic SDK's own
`transform_schema` rewrites it for grammar-constrained sampling, with every change reported.

Two steps. `prepare` says what the SDK's transform cannot take in a form it takes (it fails on a
type list and on a schema with no type, drops what stands beside a `$ref`, and lets the model send
only `{}` for an object of any names); the shared strict-mode rules (`strict.StrictTransform`) do
that part as they do for OpenAI. `transform` then does what `transform_schema` does (anthropic
2.12, `lib/_parse/_transform.py`), node for node: every object closed (`additionalProperties:
false`, its `required` as written, since Anthropic's strict mode keeps optional properties),
`anyOf` and `oneOf` as `anyOf`, primitive `enum` and `const` kept (without `type` beside them),
the string formats it lists, `minItems` of 0 or 1; every other keyword moved into the
description as `{keyword: value, ...}`, where the model still reads it. The generated parser
enforces those keywords all the same. `tests/test_anthropic_strict.py` runs the SDK's transform
on every prepared tool schema and compares.
"""

from __future__ import annotations

import copy
from typing import Any

from codegen.catalog.refs import merge_all_of
from codegen.catalog.typeless import inferred_types
from codegen.diagnostics import quoted
from codegen.payloads.schema import Finding, inlined, json_text, public, still_checked
from codegen.payloads.strict import ANY_SCALAR, StrictTransform, member_schema
from codegen.vocabulary import constrained_type, formats_kept

# The string formats `transform_schema` keeps (anthropic 2.12: `SupportedStringFormats`).
FORMATS = formats_kept("anthropic-strict")
_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
# What describes a node rather than a kind of value: stays beside a type list made an anyOf.
_DESCRIBING = ("description", "title", "examples", "default")


def to_anthropic_strict(schema: dict[str, Any]) -> tuple[dict[str, Any], list[Finding]]:
    """`schema` (a tool's parameters) as strict tool use takes it, and each change made."""
    strict = _AnthropicStrict(public(schema))
    out = strict.transform(strict.prepare(copy.deepcopy(strict.root), ()), ())
    return out, sorted(set(strict.findings))


def prepared(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` in the form the SDK's `transform_schema` takes: what `to_anthropic_strict`
    transforms (the tests give the same to the SDK's transform)."""
    strict = _AnthropicStrict(public(schema))
    return strict.prepare(copy.deepcopy(strict.root), ())


class _AnthropicStrict(StrictTransform):
    def __init__(self, root: dict[str, Any]) -> None:
        super().__init__(root)
        # The anyOf branches `prepare` made from a type list: findings inside one are placed at
        # the node the catalog wrote, which has no such branch.
        self.split: set[int] = set()

    # -- prepare: what the SDK cannot take, said in a form it takes --------------------------

    def prepare(self, node: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
        if node is True or not isinstance(node, dict):
            node = {}
        if "$ref" in node and len(node) > 1:
            node = inlined(self.root, node)  # the SDK keeps the `$ref` alone, dropping the rest
        if "allOf" in node:
            members = [member_schema(self.root, m) for m in node["allOf"]]
            node, _ = merge_all_of(node, members)
            self.note(
                path,
                "allOf merged into one schema (strict tool use takes no allOf with a $ref)"
                f"{still_checked('allOf')}",
            )
        if "oneOf" in node:
            self.one_of(node, path)
        if "$defs" in node:
            node["$defs"] = {
                name: self.prepare(target, (*path, "$defs", name))
                for name, target in node["$defs"].items()
            }
        if "$ref" in node or _literals(node):
            return node
        if "anyOf" in node:
            if isinstance(node.get("type"), list):  # the SDK takes one type beside an anyOf
                node = self.beside_any_of(node)
            node["anyOf"] = [
                self.prepare(branch, (*path, "anyOf", i))
                for i, branch in enumerate(node["anyOf"])
                if branch is not False  # takes nothing, so never matches
            ]
            return node
        if "type" not in node:
            types, _ = inferred_types(node)  # the front end warned already
            if not types:
                self.note(
                    path, "any value: strict mode can only say a string, number, boolean or null"
                )
                types = list(ANY_SCALAR)
            node["type"] = types[0] if len(types) == 1 else types
        kinds = _kinds(node)
        if "object" in kinds and self.open_object(node, path, kinds):
            kinds = _kinds(node)
        if len(kinds) > 1:
            return self.split_types(node, kinds, path)
        node["type"] = kinds[0]  # a list of one type is that type
        return self.children(node, path)

    def split_types(
        self, node: dict[str, Any], kinds: list[str], path: tuple[str | int, ...]
    ) -> dict[str, Any]:
        """A type list as an anyOf of one branch per type, each with that type's keywords (the
        SDK's transform takes one type per node)."""
        out = {word: node[word] for word in _DESCRIBING if word in node}
        rest = {w: v for w, v in node.items() if w not in _DESCRIBING and w != "type"}
        branches = []
        for kind in kinds:
            branch: dict[str, Any] = {"type": kind}
            for word, value in rest.items():
                owner = constrained_type(word)
                if owner is None or owner == kind or (owner == "number" and kind == "integer"):
                    branch[word] = value
            branch = self.children(branch, path)
            self.split.add(id(branch))
            branches.append(branch)
        return {"anyOf": branches, **out}

    def children(self, node: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
        if isinstance(node.get("properties"), dict):
            node["properties"] = {
                name: self.prepare(prop, (*path, "properties", name))
                for name, prop in node["properties"].items()
            }
        items = node.get("items")
        if isinstance(items, dict) or items is True:
            node["items"] = self.prepare(items, (*path, "items"))
        elif "items" in node:
            # `false` (no items) or a draft-04 tuple: the SDK's transform takes a schema.
            del node["items"]
            self.note(
                (*path, "items"),
                f"items {json_text(items)} removed: strict tool use takes a schema there"
                f"{still_checked('items')}",
            )
        return node

    # -- transform: what the SDK's `transform_schema` does -----------------------------------

    def transform(self, schema: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        rest = dict(schema)
        defs = rest.pop("$defs", None)
        if defs is not None:
            out["$defs"] = {
                name: self.transform(target, (*path, "$defs", name))
                for name, target in defs.items()
            }
        ref = rest.pop("$ref", None)
        if ref is not None:
            out["$ref"] = ref
            return out
        kind = rest.pop("type", None)
        any_of, one_of, all_of = (
            rest.pop("anyOf", None),
            rest.pop("oneOf", None),
            rest.pop("allOf", None),
        )
        enum = rest.get("enum")
        if isinstance(enum, list) and enum and all(_primitive(v) for v in enum):
            out["enum"] = list(rest.pop("enum"))
        if "const" in rest and _primitive(rest["const"]):
            out["const"] = rest.pop("const")
        if "enum" in out or "const" in out:
            kind = None
        branches = next((b for b in (any_of, one_of) if isinstance(b, list)), None)
        if branches is not None:
            out["anyOf"] = [self.branch(b, path, i) for i, b in enumerate(branches)]
        elif isinstance(all_of, list):
            out["allOf"] = [self.transform(m, (*path, "allOf", i)) for i, m in enumerate(all_of)]
        elif "enum" not in out and "const" not in out:
            out["type"] = kind
        for word in ("description", "title"):
            value = rest.pop(word, None)
            if value is not None:
                out[word] = value
        if kind == "object":
            out["properties"] = {
                name: self.transform(prop, (*path, "properties", name))
                for name, prop in rest.pop("properties", {}).items()
            }
            rest.pop("additionalProperties", None)
            out["additionalProperties"] = False
            required = rest.pop("required", None)
            if required is not None:
                out["required"] = list(required) if isinstance(required, list) else required
        elif kind == "string":
            fmt = rest.pop("format", None)
            if fmt and fmt in FORMATS:
                out["format"] = fmt
            elif fmt:
                rest["format"] = fmt  # described, below
        elif kind == "array":
            items = rest.pop("items", None)
            if items is not None:
                out["items"] = self.transform(items, (*path, "items"))
            min_items = rest.pop("minItems", None)
            if min_items in (0, 1):
                out["minItems"] = min_items
            elif min_items is not None:
                rest["minItems"] = min_items
        if rest:
            self.described(rest, path)
            described = ", ".join(f"{word}: {value}" for word, value in rest.items())
            text = out.get("description")
            out["description"] = (text + "\n\n" if text is not None else "") + "{" + described + "}"
        return out

    def branch(self, branch: dict[str, Any], path: tuple[str | int, ...], i: int) -> dict[str, Any]:
        where = path if id(branch) in self.split else (*path, "anyOf", i)
        return self.transform(branch, where)

    def described(self, rest: dict[str, Any], path: tuple[str | int, ...]) -> None:
        """A note for each keyword moved into the description but `examples`, which the model
        reads there as well as anywhere (OpenAI's strict mode keeps them without a word)."""
        for word in rest:
            if word == "default":
                self.note(
                    (*path, word),
                    "default moved into the description (strict tool use does not take it):"
                    " the parser fills it",
                )
            elif word != "examples":
                self.note(
                    (*path, word),
                    f"keyword {quoted(word)} moved into the description (strict tool use does not take"
                    f" it){still_checked(word)}",
                )


def _kinds(node: dict[str, Any]) -> list[str]:
    types = node["type"]
    return [types] if isinstance(types, str) else list(types)


def _literals(node: dict[str, Any]) -> bool:
    """Whether the SDK's transform sends the node as its `enum` or `const` alone."""
    enum = node.get("enum")
    return (isinstance(enum, list) and bool(enum) and all(_primitive(v) for v in enum)) or (
        "const" in node and _primitive(node["const"])
    )


def _primitive(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))

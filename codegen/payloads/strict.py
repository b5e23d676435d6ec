"""OpenAI strict mode (Structured Outputs for function calling): a JSON Schema rewritten into the
subset strict mode takes, with every change reported (SPEC §4).

Like `to_strict_json_schema` in the openai SDK, but the SDK starts from a pydantic model that is
already in the subset; a catalog is not, so this also removes what strict mode refuses (each a
finding; the generated parser still enforces it) and makes optional properties nullable.
"""

from __future__ import annotations

import copy
from typing import Any

from codegen.catalog.refs import conjoin, merge_all_of
from codegen.catalog.typeless import inferred_types
from codegen.diagnostics import quoted
from codegen.payloads.schema import (
    Finding,
    Transform,
    accepts_null,
    inlined,
    json_text,
    public,
    said,
    still_checked,
)
from codegen.runtime import _runtime as rt
from codegen.vocabulary import formats_kept, in_payload

# What strict mode keeps (OpenAI's "Supported schemas", checked 2026-11-23).
KEPT = frozenset(in_payload("openai-strict"))
FORMATS = formats_kept("openai-strict")
MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000
MAX_TEXT = 120_000
# What a value of any type becomes: strict mode needs a `type` on every schema, and an object
# or array of anything cannot be said in it.
ANY_SCALAR = ["string", "number", "boolean", "null"]

# What describes a schema rather than constrains it: stays beside an anyOf.
_DESCRIBING = ("description", "title", "examples")

_WHY = {
    "minLength": "strict mode does not take string lengths",
    "maxLength": "strict mode does not take string lengths",
    "not": "strict mode has no `not`",
    "if": "strict mode has no conditionals",
    "then": "strict mode has no conditionals",
    "else": "strict mode has no conditionals",
}


def to_strict(schema: dict[str, Any]) -> tuple[dict[str, Any], list[Finding]]:
    """`schema` (a tool's parameters) as strict mode takes it, and each change made."""
    root = public(schema)
    strict = _Strict(root)
    out = strict.node(copy.deepcopy(root), ())
    if "$defs" in root:
        out["$defs"] = {
            name: strict.node(copy.deepcopy(target), ("$defs", name))
            for name, target in root["$defs"].items()
        }
    strict.findings += limits(out)
    return out, sorted(set(strict.findings))


class StrictTransform(Transform):
    """What every provider's strict mode shares (OpenAI's here, Anthropic's in
    `anthropic_strict`): `oneOf` sent as `anyOf`, and objects that take names beyond their
    `properties`, which strict mode cannot say."""

    def one_of(self, node: dict[str, Any], path: tuple[str | int, ...]) -> None:
        branches = node.pop("oneOf")
        if "anyOf" in node:
            self.note(
                (*path, "oneOf"),
                f"oneOf beside anyOf removed (strict mode has no oneOf){still_checked('oneOf')}",
            )
            return
        node["anyOf"] = branches
        if _disjoint(branches):
            self.note(
                (*path, "oneOf"),
                "oneOf sent as anyOf, which is the same here: its branches take different types",
            )
        else:
            self.note(
                (*path, "oneOf"),
                "oneOf sent as anyOf (strict mode has no oneOf): a value that two branches take is refused by the parser",
            )

    def beside_any_of(self, node: dict[str, Any]) -> dict[str, Any]:
        """`node` with what it says beside `anyOf` (`type: object`, `properties`, ...) moved into
        each branch, where it holds too: each branch is then a whole schema that strict mode
        closes (additionalProperties: false), and a null option added to the anyOf is not
        excluded by a `type` beside it."""
        outer = {k: v for k, v in node.items() if k not in ("anyOf", *_DESCRIBING)}
        if not outer:
            return node
        branches = []
        for branch in node["anyOf"]:
            if branch is False:
                continue
            merged, _ = conjoin(
                outer, member_schema(self.root, branch) if branch is not True else {}
            )
            branches.append(merged)
        return {**{k: node[k] for k in _DESCRIBING if k in node}, "anyOf": branches}

    def open_object(
        self, node: dict[str, Any], path: tuple[str | int, ...], kinds: list[str]
    ) -> bool:
        """Say what strict mode cannot about an object that takes other names: an object of any
        names (no `properties`) becomes a string holding JSON, and is done (True); the
        parameters themselves get `properties: {}`; names beyond `properties` are lost."""
        properties = node.get("properties")
        extra = node.get("additionalProperties")
        if properties is None and extra is not False and not path:
            # The parameters themselves must stay an object: one that takes no names.
            self.note(
                path,
                "parameters of any names: strict mode needs every name declared, so the model can send none",
            )
            node["properties"] = {}
            return False
        if properties is None and extra is not False:
            # An object of any names: strict mode needs every name declared, so it is sent as
            # text holding JSON, which the parser decodes.
            node.pop("additionalProperties", None)
            node.pop("required", None)
            node["type"] = ["string" if k == "object" else k for k in kinds]
            node["type"] = node["type"][0] if len(node["type"]) == 1 else node["type"]
            said(node, "A JSON object, as text.")
            self.note(
                path,
                "an object of any names is sent as a string holding JSON (strict mode needs every"
                " name declared): the parser decodes it, with the warning string_parsed_as_json",
            )
            return True
        if extra is True or isinstance(extra, dict):
            self.note(
                (*path, "additionalProperties"),
                "names beyond properties cannot be sent (strict mode needs additionalProperties: false); the parser would take them",
                "CG202",
            )
        return False


class _Strict(StrictTransform):
    def node(self, node: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
        if node is True or node == {}:
            node = {}
        if not isinstance(node, dict):
            return {"type": ANY_SCALAR}
        if "$ref" in node:
            if len(node) == 1:
                return node
            # Strict mode takes no keyword beside a `$ref`: the target is written out here.
            node = inlined(self.root, node)
        if "allOf" in node:
            members = [member_schema(self.root, m) for m in node["allOf"]]
            node, _ = merge_all_of(node, members)
            self.note(
                path,
                f"allOf merged into one schema (strict mode has no allOf){still_checked('allOf')}",
            )
        if "oneOf" in node:
            self.one_of(node, path)
        if "const" in node:
            const = node.pop("const")
            node.setdefault("enum", [const])
        self.drop_default(node, path)
        for word in [w for w in node if w not in KEPT]:
            node.pop(word)
            why = _WHY.get(word, "strict mode does not take it")
            self.note((*path, word), f"keyword {quoted(word)} removed: {why}{still_checked(word)}")
        fmt = node.get("format")
        if fmt is not None and fmt not in FORMATS:
            node.pop("format")
            self.note(
                (*path, "format"),
                f"format {quoted(fmt)} removed: strict mode does not take it{_format_checked(fmt)}",
            )
        if "anyOf" in node:
            node = self.beside_any_of(node)
            node["anyOf"] = [
                self.node(branch, (*path, "anyOf", i))
                for i, branch in enumerate(node["anyOf"])
                if branch is not False  # takes nothing, so never matches
            ]
            return node
        if "type" not in node and "enum" not in node:
            types, _ = inferred_types(node)  # the front end warned already
            if not types:
                self.note(
                    path, "any value: strict mode can only say a string, number, boolean or null"
                )
                node["type"] = list(ANY_SCALAR)
                return node
            node["type"] = types[0] if len(types) == 1 else types
        types = node.get("type")
        kinds = [types] if isinstance(types, str) else list(types or [])
        if "object" in kinds:
            self.object(node, path, kinds)
        if "array" in kinds:
            if isinstance(node.get("items"), dict) and node["items"]:
                node["items"] = self.node(node["items"], (*path, "items"))
            else:
                self.note(
                    (*path, "items"),
                    "items of any value: strict mode can only say a string, number, boolean or null",
                )
                node["items"] = {"type": list(ANY_SCALAR)}
        if isinstance(node.get("enum"), list) and accepts_null(node) and None not in node["enum"]:
            node["enum"] = [*node["enum"], None]
        return node

    def drop_default(self, node: dict[str, Any], path: tuple[str | int, ...]) -> None:
        if "default" not in node:
            return
        default = node.pop("default")
        if default is None:
            return  # "no value": a nullable parameter says it already (the openai SDK does the same)
        said(node, f"Default: {json_text(default)}.")
        self.note(
            (*path, "default"),
            "default removed (strict mode does not take it): said in the description, and the parser fills it",
        )

    def object(self, node: dict[str, Any], path: tuple[str | int, ...], kinds: list[str]) -> None:
        if self.open_object(node, path, kinds):
            return
        properties = node.get("properties") or {}
        required = set(node.get("required", ()))
        out = {}
        for name, prop in properties.items():
            where = (*path, "properties", name)
            converted = self.node(prop, where)
            if name not in required and not accepts_null(converted):
                converted = nullable(converted)
            out[name] = converted
        node["properties"] = out
        node["required"] = list(out)
        node["additionalProperties"] = False


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`node` that also takes null: how strict mode says a property may be left out (every
    property is required there)."""
    if "$ref" in node:
        return {"anyOf": [node, {"type": "null"}]}
    if "anyOf" in node:
        return {**node, "anyOf": [*node["anyOf"], {"type": "null"}]}
    out = dict(node)
    types = out.get("type")
    if isinstance(types, str):
        out["type"] = [types, "null"]
    elif isinstance(types, list):
        out["type"] = [*types, "null"]
    if isinstance(out.get("enum"), list):
        out["enum"] = [*out["enum"], None]
    return out


def _disjoint(branches: list[Any]) -> bool:
    seen: set[str] = set()
    for branch in branches:
        types = branch.get("type") if isinstance(branch, dict) else None
        kinds = {types} if isinstance(types, str) else set(types or ())
        if not kinds or kinds & seen or ({"integer", "number"} <= kinds | seen):
            return False
        seen |= kinds
    return True


def limits(schema: dict[str, Any]) -> list[Finding]:
    """A finding for each of strict mode's limits the schema goes over (they are the API's,
    per request; per tool is what a build can see)."""
    properties = enum_values = text = depth = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, level = stack.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("properties"), dict):
            depth = max(depth, level)
            properties += len(node["properties"])
            text += sum(len(name) for name in node["properties"])
            stack += [(p, level + 1) for p in node["properties"].values()]
        if isinstance(node.get("$defs"), dict):
            text += sum(len(name) for name in node["$defs"])
            stack += [(d, level) for d in node["$defs"].values()]
        if isinstance(node.get("enum"), list):
            enum_values += len(node["enum"])
            text += sum(len(v) for v in node["enum"] if isinstance(v, str))
        if isinstance(node.get("items"), dict):
            stack.append((node["items"], level))
        stack += [(b, level) for b in node.get("anyOf", ())]
    found = []
    if properties > MAX_PROPERTIES:
        found.append(f"{properties} properties, over strict mode's {MAX_PROPERTIES}")
    if depth > MAX_DEPTH:
        found.append(f"{depth} levels of objects, over strict mode's {MAX_DEPTH}")
    if enum_values > MAX_ENUM_VALUES:
        found.append(f"{enum_values} enum values, over strict mode's {MAX_ENUM_VALUES}")
    if text > MAX_TEXT:
        found.append(
            f"{text} characters of property names and enum values, over strict mode's {MAX_TEXT}"
        )
    return [Finding((), f"{what}: OpenAI will refuse the strict tool", "CG008") for what in found]


def member_schema(root: dict[str, Any], member: Any) -> dict[str, Any]:
    """An `allOf` member as a schema object: `$ref` followed, `true` as `{}` (a `false` one is
    the front end's error)."""
    if not isinstance(member, dict):
        return {}
    return inlined(root, member) if "$ref" in member else member


def _format_checked(fmt: str) -> str:
    return "; the parser still enforces it" if fmt in rt.FORMATS else ""

"""What every payload transform shares: where subschemas are, findings, and the catalog's own
schema as sent (codegen's `x-` keywords left out)."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from codegen.catalog.refs import RefError, conjoin, ref_target
from codegen.diagnostics import JsonPath
from codegen.vocabulary import KEYWORDS, subschemas_mapped


class Transform:
    """A schema transform's state: the tool's root schema (for `$ref`) and the findings so far."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.findings: list[Finding] = []

    def note(self, path: tuple[str | int, ...], message: str, code: str = "CG201") -> None:
        self.findings.append(Finding(path, message, code))


class Finding(NamedTuple):
    """A change a transform made that the provider's model will see: where (a JSON path inside
    the schema transformed; `files` puts it under the tool's key for that schema), what, in
    words, and its code: most are notes (CG201: the parser
    enforces what the format cannot say), a loss the parser cannot make up for is a warning."""

    path: JsonPath
    message: str
    code: str = "CG201"


def public(schema: Any) -> Any:
    """A copy of `schema` without codegen's own `x-` keywords, which no provider knows."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for word, value in schema.items():
        if word.startswith("x-"):
            continue
        # Only a subschema is walked: an `enum`, `default` or `examples` value is data.
        out[word] = subschemas_mapped(word, value, lambda _, sub: public(sub))
    return out


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def said(node: dict[str, Any], sentence: str) -> None:
    """Append `sentence` to the node's description, for what its format cannot carry."""
    text = node.get("description", "")
    node["description"] = f"{text.rstrip()} {sentence}" if text.strip() else sentence


def inlined(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """`node` with its `$ref` replaced by the target: constraints beside it apply too (2020-12),
    and its own annotations describe this use."""
    try:
        _, target = ref_target(root, node["$ref"], ())
    except RefError:
        return {k: v for k, v in node.items() if k != "$ref"}  # the front end refused it
    target = target if isinstance(target, dict) else {}
    rest = {k: v for k, v in node.items() if k != "$ref"}
    if "$ref" in target:
        target = inlined(root, target)
    merged, _ = conjoin(target, rest)  # the front end warned of what does not merge
    return merged


def accepts_null(node: dict[str, Any]) -> bool:
    types = node.get("type")
    return (
        types == "null"
        or (isinstance(types, list) and "null" in types)
        or (isinstance(node.get("enum"), list) and None in node["enum"])
        or any(isinstance(b, dict) and accepts_null(b) for b in node.get("anyOf", ()))
    )


# What the generated parser checks, as the front end knows it (it warns of every other keyword):
# a change a format makes to one of these loses nothing at run time.
PARSER_CHECKS = frozenset(
    {"type", "enum", "const", "anyOf", "oneOf", "allOf"}
    | {word for word, row in KEYWORDS.items() if row.enforced}
) - {"format"}


def still_checked(word: str) -> str:
    """The end of a finding about a removed keyword: whether the parser makes up for it."""
    return "; the parser still enforces it" if word in PARSER_CHECKS else ""

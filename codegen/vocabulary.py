"""JSON Schema's vocabulary as codegen reads it: one row per keyword and per string format.

Every module that asks what a keyword is asks this table: where a keyword's subschemas sit (the
catalog's wild reader, the payload transforms, the importers' dialect and YAML writer walk
schemas by it, through `subschemas_mapped`), the JSON type it constrains (what a schema without
`type` is read as, what lint and the normalizer say of a keyword on the wrong type), whether the
generated parser enforces it, and which provider's payload keeps it. A format's row says which
strict mode keeps it; whether the parser checks it, and how, is the runtime's coercion for it
(`runtime/_runtime.FORMATS`, and `TEXT_FORMATS` for the fast path's check), which the build
reads too.

The lowest module of the front end's layers: it imports nothing of codegen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

# Where a keyword's subschemas sit: its value is one schema, a list of them, a map of names to
# them, or data (no schema in it: an `enum`, `default` or `examples` value is never walked).
Holds = Literal["schema", "schemas", "named", "data"]
# The payloads whose schema subset a keyword may be part of (`payloads/strict.py`: OpenAI strict
# mode; `payloads/legacy.py`: Gemini's OpenAPI subset). Anthropic's strict tool use keeps what
# the anthropic SDK's transform keeps (`payloads/anthropic_strict.py`, which mirrors it node for
# node): its keywords are that transform's, its formats are below.
Payload = Literal["openai-strict", "gemini"]


@dataclass(frozen=True)
class Keyword:
    name: str
    holds: Holds = "data"
    # The JSON type whose values it constrains (None: any value, or none: it shapes the kind).
    applies_to: str | None = None
    # Whether the generated parser enforces it on values of `applies_to`.
    enforced: bool = False
    # Whether it shapes the kind of a schema (`type`, `enum`, combinators, `$ref`) rather than
    # constrain a value of it; the normalizer reads these itself.
    structure: bool = False
    # Whether it only describes a schema (merged away by `allOf`, never a constraint).
    annotation: bool = False
    payloads: frozenset[Payload] = frozenset()
    # What its value is, read so where the wild writes it loosely (`"5"` for a count, `"True"`
    # for a flag): a count (a non-negative integer), a number, a positive one, a text or a flag.
    value: Literal["count", "number", "positive", "text", "flag"] | None = None
    # A bound: which side, and of what (a value, its length, its items, its properties). Two
    # bounds on one measure merge by `allOf` to the tighter one, and cross in an empty range.
    limit: Literal["lower", "upper"] | None = None
    measure: Literal["value", "length", "items", "properties"] | None = None


_STRICT: frozenset[Payload] = frozenset({"openai-strict"})
_GEMINI: frozenset[Payload] = frozenset({"gemini"})
_BOTH: frozenset[Payload] = _STRICT | _GEMINI

# Every JSON Schema keyword (2020-12 and drafts 4-7), OpenAPI's, and codegen's own. Within a type,
# in the order Gemini's subset writes them.
KEYWORDS: dict[str, Keyword] = {
    row.name: row
    for row in (
        # -- structure ---------------------------------------------------------------------------
        Keyword("type", structure=True, payloads=_STRICT),
        Keyword("enum", structure=True, payloads=_BOTH),
        Keyword("const", structure=True),
        Keyword("anyOf", "schemas", structure=True, payloads=_STRICT),
        Keyword("oneOf", "schemas", structure=True),
        Keyword("allOf", "schemas", structure=True),
        Keyword("not", "schema"),
        Keyword("if", "schema"),
        Keyword("then", "schema"),
        Keyword("else", "schema"),
        Keyword("$ref", structure=True, payloads=_STRICT),
        Keyword("$defs", "named", structure=True, payloads=_STRICT),
        Keyword("definitions", "named", structure=True),
        Keyword("nullable", structure=True, value="flag"),
        Keyword("$schema", structure=True),
        Keyword("$id", structure=True),
        Keyword("$anchor"),
        Keyword("$dynamicRef"),
        Keyword("$dynamicAnchor"),
        Keyword("$vocabulary"),
        # -- strings -----------------------------------------------------------------------------
        Keyword(
            "minLength",
            applies_to="string",
            enforced=True,
            payloads=_GEMINI,
            value="count",
            limit="lower",
            measure="length",
        ),
        Keyword(
            "maxLength",
            applies_to="string",
            enforced=True,
            payloads=_GEMINI,
            value="count",
            limit="upper",
            measure="length",
        ),
        Keyword("pattern", applies_to="string", enforced=True, payloads=_BOTH, value="text"),
        Keyword("format", applies_to="string", enforced=True, payloads=_BOTH, value="text"),
        Keyword("contentEncoding", applies_to="string"),
        Keyword("contentMediaType", applies_to="string"),
        Keyword("contentSchema", "schema", applies_to="string"),
        # -- numbers -----------------------------------------------------------------------------
        Keyword(
            "minimum",
            applies_to="number",
            enforced=True,
            payloads=_BOTH,
            value="number",
            limit="lower",
            measure="value",
        ),
        Keyword(
            "maximum",
            applies_to="number",
            enforced=True,
            payloads=_BOTH,
            value="number",
            limit="upper",
            measure="value",
        ),
        Keyword(
            "exclusiveMinimum",
            applies_to="number",
            enforced=True,
            payloads=_STRICT,
            value="number",
            limit="lower",
            measure="value",
        ),
        Keyword(
            "exclusiveMaximum",
            applies_to="number",
            enforced=True,
            payloads=_STRICT,
            value="number",
            limit="upper",
            measure="value",
        ),
        Keyword("multipleOf", applies_to="number", payloads=_STRICT, value="positive"),
        # -- arrays ------------------------------------------------------------------------------
        Keyword("items", "schema", applies_to="array", enforced=True, payloads=_BOTH),
        Keyword(
            "minItems",
            applies_to="array",
            enforced=True,
            payloads=_BOTH,
            value="count",
            limit="lower",
            measure="items",
        ),
        Keyword(
            "maxItems",
            applies_to="array",
            enforced=True,
            payloads=_BOTH,
            value="count",
            limit="upper",
            measure="items",
        ),
        Keyword("prefixItems", "schemas", applies_to="array"),
        Keyword("additionalItems", "schema", applies_to="array"),
        Keyword("unevaluatedItems", "schema", applies_to="array"),
        Keyword("contains", "schema", applies_to="array"),
        Keyword("minContains", applies_to="array"),
        Keyword("maxContains", applies_to="array"),
        Keyword("uniqueItems", applies_to="array", value="flag"),
        # -- objects -----------------------------------------------------------------------------
        Keyword("properties", "named", applies_to="object", enforced=True, payloads=_BOTH),
        Keyword("required", applies_to="object", enforced=True, payloads=_BOTH),
        Keyword(
            "minProperties",
            applies_to="object",
            payloads=_GEMINI,
            value="count",
            limit="lower",
            measure="properties",
        ),
        Keyword(
            "maxProperties",
            applies_to="object",
            payloads=_GEMINI,
            value="count",
            limit="upper",
            measure="properties",
        ),
        Keyword(
            "additionalProperties", "schema", applies_to="object", enforced=True, payloads=_STRICT
        ),
        Keyword("patternProperties", "named", applies_to="object"),
        Keyword("propertyNames", "schema", applies_to="object"),
        Keyword("unevaluatedProperties", "schema", applies_to="object"),
        Keyword("dependentRequired", applies_to="object"),
        Keyword("dependentSchemas", "named", applies_to="object"),
        Keyword("dependencies"),
        # -- annotations -------------------------------------------------------------------------
        Keyword("title", annotation=True, payloads=_BOTH, value="text"),
        Keyword("description", annotation=True, payloads=_BOTH, value="text"),
        Keyword("default", annotation=True),
        Keyword("examples", annotation=True, payloads=_STRICT),
        Keyword("$comment", annotation=True, value="text"),
        Keyword("deprecated", annotation=True, value="flag"),
        Keyword("readOnly", annotation=True, value="flag"),
        Keyword("writeOnly", annotation=True, value="flag"),
        # -- OpenAPI's, and codegen's own --------------------------------------------------------
        Keyword("example"),
        Keyword("discriminator"),
        Keyword("optional"),
        Keyword("x-case-sensitive", value="flag"),
        Keyword("x-python-name"),
    )
}

# A schema's keywords in the order a person reads them (the importers write YAML so); others
# follow as they came.
READING_ORDER = (
    "type", "title", "description", "enum", "const", "format", "default", "examples",
    "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "items", "minItems", "maxItems", "uniqueItems",
    "properties", "required", "additionalProperties", "anyOf", "oneOf", "allOf", "$defs",
)  # fmt: skip

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")


def enforced_on(json_type: str) -> frozenset[str]:
    """The keywords the generated parser enforces on values of `json_type` (an integer is a
    number to the keywords of numbers)."""
    constrained = "number" if json_type == "integer" else json_type
    return frozenset(
        row.name for row in KEYWORDS.values() if row.enforced and row.applies_to == constrained
    )


def constrained_type(word: str) -> str | None:
    """The JSON type a keyword constrains, or None (any value, an annotation, structure)."""
    row = KEYWORDS.get(word)
    return None if row is None else row.applies_to


def in_payload(payload: Payload) -> tuple[str, ...]:
    """The keywords a payload's schema subset has, in the table's order."""
    return tuple(row.name for row in KEYWORDS.values() if payload in row.payloads)


def valued(value: str) -> tuple[str, ...]:
    """The keywords whose value is a count, a number, a positive one, a text or a flag, in the
    table's order."""
    return tuple(row.name for row in KEYWORDS.values() if row.value == value)


def limits(side: str) -> frozenset[str]:
    """The lower or the upper bounds."""
    return frozenset(row.name for row in KEYWORDS.values() if row.limit == side)


# (lower, upper) for each two bounds of one measure, by upper bound in the table's order: read
# at every schema the normalizer checks, so made once.
CROSSING_BOUNDS = tuple(
    (low.name, high.name)
    for high in KEYWORDS.values()
    if high.limit == "upper"
    for low in KEYWORDS.values()
    if low.limit == "lower" and low.measure == high.measure
)


STRUCTURE = frozenset(row.name for row in KEYWORDS.values() if row.structure)
ANNOTATIONS = frozenset(row.name for row in KEYWORDS.values() if row.annotation)


def subschemas_mapped(
    word: Any, value: Any, each: Callable[[tuple[str | int, ...], Any], Any]
) -> Any:
    """`value`, the value of keyword `word`, with each subschema in it replaced by `each(where,
    subschema)` (`where`: its path from the schema that holds `word`, `word` first); data, and a
    value not of the keyword's shape, come back as they are."""
    row = KEYWORDS.get(word) if isinstance(word, str) else None
    holds = "data" if row is None else row.holds
    if holds == "schema":
        return each((word,), value)
    if holds == "schemas" and isinstance(value, list):
        return [each((word, i), sub) for i, sub in enumerate(value)]
    if holds == "named" and isinstance(value, dict):
        return {name: each((word, name), sub) for name, sub in value.items()}
    return value


def holds_schemas(word: Any) -> bool:
    row = KEYWORDS.get(word) if isinstance(word, str) else None
    return row is not None and row.holds != "data"


@dataclass(frozen=True)
class Format:
    """A string format: which strict modes keep it in a payload (the others drop it, said), and,
    for one the parser checks (`runtime/_runtime.FORMATS`), a value of it for the docs' and
    prompts' samples and the warning codes its coercion may give beyond the text's own."""

    name: str
    payloads: frozenset[Literal["openai-strict", "anthropic-strict"]] = frozenset()
    example: str = ""
    codes: tuple[str, ...] = ()


_STRICT_MODES: frozenset[Literal["openai-strict", "anthropic-strict"]] = frozenset(
    {"openai-strict", "anthropic-strict"}
)
# The formats a payload may keep (OpenAI's "Supported schemas", checked 2026-11-23; anthropic
# 2.12's `SupportedStringFormats`), and the ones the parser checks.
FORMATS: dict[str, Format] = {
    row.name: row
    for row in (
        Format("date-time", _STRICT_MODES, example="2025-01-31T09:00:00+00:00"),
        Format("date", _STRICT_MODES, example="2025-01-31"),
        Format("time", _STRICT_MODES),
        Format("duration", _STRICT_MODES),
        Format("email", _STRICT_MODES),
        Format("hostname", _STRICT_MODES),
        Format("ipv4", _STRICT_MODES),
        Format("ipv6", _STRICT_MODES),
        Format("uuid", _STRICT_MODES),
        Format(
            "uri",
            frozenset({"anthropic-strict"}),
            example="https://example.com",
            codes=("uri_not_absolute",),
        ),
    )
}


def formats_kept(payload: Literal["openai-strict", "anthropic-strict"]) -> frozenset[str]:
    return frozenset(row.name for row in FORMATS.values() if payload in row.payloads)

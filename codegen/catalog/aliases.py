"""The name each provider gets for each tool: the wire name where the provider allows it, else a
deterministic alias; the package's `parse` maps any alias back, so the whole map is one function
of the catalog's wire names, computed once for every back end."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from dataclasses import dataclass

from codegen.catalog.ir import Catalog
from codegen.catalog.names import Claim, resolve
from codegen.diagnostics import Diagnostic, quoted, warning
from codegen.workers import Mapper, map_in_workers

# SPEC §4, as each provider documents its function names (checked 2026-11-23; README).
PROVIDERS = ("openai", "anthropic", "gemini", "mcp")


@dataclass(frozen=True)
class NameRule:
    allowed: re.Pattern[str]  # one character the provider takes
    first: re.Pattern[str]  # what the first character must be
    limit: int  # characters


_LETTERS = re.compile(r"[A-Za-z0-9_-]")
RULES = {
    "openai": NameRule(_LETTERS, _LETTERS, 64),
    "anthropic": NameRule(_LETTERS, _LETTERS, 64),
    # Gemini documents 128; 64 is what every model it serves is known to take.
    "gemini": NameRule(re.compile(r"[A-Za-z0-9_.:-]"), re.compile(r"[A-Za-z_]"), 64),
    "mcp": NameRule(re.compile(r"[A-Za-z0-9._-]"), re.compile(r"[A-Za-z0-9._-]"), 128),
}
_HASH = 8  # hex digits of the wire name's digest that keep a trimmed alias apart from others


def allowed(name: str, provider: str) -> bool:
    rule = RULES[provider]
    return (
        0 < len(name) <= rule.limit
        and rule.first.fullmatch(name[0]) is not None
        and all(rule.allowed.fullmatch(ch) for ch in name)
    )


def alias(name: str, provider: str) -> str:
    """`name` if the provider takes it; else each forbidden character as `_`, a `_` before a first
    character it forbids, and a name too long trimmed, ending in a digest of the whole name."""
    if allowed(name, provider):
        return name
    rule = RULES[provider]
    out = "".join(ch if rule.allowed.fullmatch(ch) else "_" for ch in name)
    if not rule.first.fullmatch(out[0]):
        out = "_" + out
    if len(out) > rule.limit:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_HASH]
        out = f"{out[: rule.limit - _HASH - 1]}_{digest}"
    return out


def _suffixed(base: str, n: int, limit: int) -> str:
    suffix = f"_{n}"
    return base[: limit - len(suffix)] + suffix


@dataclass(frozen=True)
class Collision:
    """An alias that another tool's name already took, and the name used instead."""

    wire_name: str
    provider: str
    wanted: str
    other: str  # the tool that holds `wanted`
    given: str


def provider_names(wire_names: list[str]) -> tuple[dict[str, dict[str, str]], list[Collision]]:
    """Provider → wire name → the name sent, for every tool, and each collision resolved.

    One alias means one tool across all providers, so `parse` can map any name back: a wire
    name keeps itself where allowed; an alias that a wire name or an earlier alias (catalog
    order, providers in PROVIDERS order) took gets `_2`, `_3`, ... by the one naming rule
    (`names.resolve`) — never a build failure.
    """
    held: dict[str, str] = {name: name for name in wire_names}
    names: dict[str, dict[str, str]] = {}
    collisions: list[Collision] = []
    for provider in PROVIDERS:
        limit = RULES[provider].limit
        claims = []
        for wire in wire_names:
            wanted = alias(wire, provider)

            def variants(n: int, wanted: str = wanted, limit: int = limit) -> tuple[str, ...]:
                return (wanted if n == 1 else _suffixed(wanted, n, limit),)

            claims.append(Claim(wire, variants))
        given, renames = resolve(claims, held)
        collisions += [Collision(r.owner, provider, r.wanted, r.holder, r.given) for r in renames]
        names[provider] = {wire: given[wire][0] for wire in wire_names}
        held.update((sent, wire) for wire, sent in names[provider].items())
    return names, collisions


def with_provider_names(
    catalog: Catalog, each: Mapper = map_in_workers
) -> tuple[Catalog, list[Diagnostic]]:
    """The catalog with its provider names, worked out by `each`, and a warning for each alias
    that had to be suffixed."""
    wire_names = [tool.wire_name for tool in catalog.tools]
    ((names, collisions),) = each(provider_names, [wire_names], least=sys.maxsize)
    tools = {tool.wire_name: tool for tool in catalog.tools}
    providers: dict[tuple[str, str, str, str], list[str]] = {}
    for c in collisions:
        providers.setdefault((c.wire_name, c.wanted, c.other, c.given), []).append(c.provider)
    warnings = []
    for (wire, wanted, other, given), which in providers.items():
        tool = tools[wire]
        message = (
            f"the {', '.join(which)} name of tool {quoted(wire)} would be {quoted(wanted)}, which tool"
            f" {quoted(other)} already has: sent as {quoted(given)} (PROVIDER_NAMES; `parse` takes either)"
        )
        warnings.append(warning(catalog.source, tool.line, f"{tool.path}.name", message, "CG109"))
    return dataclasses.replace(catalog, provider_names=names), warnings

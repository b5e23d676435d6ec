"""What a schema without `type` is read as (SPEC §2).

JSON Schema applies `minimum` to numbers only and lets every other value through, so `{minimum: 1}`
takes "abc" and `{properties: ...}` takes 12. Catalog authors who leave `type` out mean the kind
their keywords name, and the parser needs a kind to coerce to: such a schema is read as that kind,
and the build says so.
"""

from __future__ import annotations

from typing import Any

from codegen.vocabulary import constrained_type


def inferred_types(schema: dict[str, Any]) -> tuple[list[str], str | None]:
    """The types a schema without `type` is read as, and the build warning that says so (None
    when no keyword names a kind: the schema takes any value, as JSON Schema says)."""
    words: dict[str, list[str]] = {}
    for word in schema:
        # A keyword codegen does not enforce still says what the author meant.
        kind = constrained_type(word)
        if kind is not None:
            words.setdefault(kind, []).append(word)
    if not words:
        return [], None
    kinds = sorted(words)
    if len(kinds) == 1:
        (kind,) = kinds
        listed = ", ".join(words[kind])
        return kinds, (
            f"no `type`: read as {kind}, the kind its keywords ({listed}) apply to, so other "
            f"values are corrected or refused (write `type: {kind}` to say so)"
        )
    listed = "; ".join(f"{kind}: {', '.join(words[kind])}" for kind in kinds)
    return kinds, (
        f"no `type`, and keywords of several kinds ({listed}): read as {' or '.join(kinds)}, "
        "so other values are corrected or refused (write the `type` list to say so)"
    )

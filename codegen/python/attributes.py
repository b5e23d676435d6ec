"""The names inside a generated dataclass: each field's attribute, the open object's field of other
keys. Part of the back end's naming pass (`namespace` names the
package's top): the IR holds the properties' wire names and pins only.

Each class's fields claim their attributes by the one rule (`catalog.names.resolve`): a pinned name
(`x-python-name`) first, then wire names that already are the identifier, then the rest; a keyword
or a name the class body uses takes `_` once (`class_`, `date_`), a clash takes `_2`, `_3`. What
is renamed is said (CG106). The parse function's locals are each attribute plus one of
`LOCAL_SUFFIXES`: those end differently, and no fixed local ends like one, so no two meet
(tests/test_attributes.py enumerates them).
"""

from __future__ import annotations

import keyword
import weakref
from dataclasses import dataclass

from codegen.catalog.ir import Tool
from codegen.catalog.kinds import ObjectKind
from codegen.catalog.names import Claim, identifier, resolve, snake_base, usable
from codegen.diagnostics import Diagnostic, format_path, quoted, warning

# The endings `coerce.jinja` puts on an attribute for the locals of a parse function.
LOCAL_SUFFIXES = ("_", "_c", "_plain", "_typed")


@dataclass(frozen=True)
class Attributes:
    """A dataclass's attributes: each field's by wire name, and the field of other keys."""

    fields: dict[str, str]
    extra: str  # "" for a closed object
    # What was renamed (or pinned to a name it cannot have), for the findings:
    # (the field's path inside its tool, the message).
    said: tuple[tuple[tuple[str | int, ...], str], ...]


# Made once per class: the model asks for it at every field, and a class can be shared.
_MADE: weakref.WeakKeyDictionary[ObjectKind, Attributes] = weakref.WeakKeyDictionary()


def attributes(kind: ObjectKind) -> Attributes:
    """The attributes of `kind`'s dataclass (see the module's docstring)."""
    found = _MADE.get(kind)
    if found is None:
        found = _MADE[kind] = _attributes(kind)
    return found


def _attributes(kind: ObjectKind) -> Attributes:
    claims: list[Claim[str]] = []
    said: list[tuple[tuple[str | int, ...], str]] = []
    paths = {f.wire_name: f.path for f in kind.fields}
    for f in kind.fields:
        base = f.pinned if f.pinned is not None else snake_base(f.wire_name)
        if f.pinned is not None and not usable(base):
            message = (
                f"x-python-name {quoted(base)} is a Python keyword or a name the generated"
                f" class uses: the field is {quoted(identifier(base))}"
            )
            said.append(((*f.path, "x-python-name"), message))

        def variants(n: int, base: str = base) -> tuple[str, ...]:
            return (identifier(base, n),)

        claims.append(
            Claim(
                f.wire_name,
                variants,
                pinned=f.pinned is not None,
                exact=f.wire_name == identifier(base),
            )
        )
    given, renames = resolve(claims)
    for rename in renames:
        if rename.pinned:
            message = (
                f"parameters {quoted(rename.owner)} and {quoted(rename.holder)} both pin Python name"
                f" {quoted(rename.wanted)}: {quoted(rename.owner)} becomes {quoted(rename.given)} (give it"
                " another x-python-name)"
            )
        else:
            message = (
                f"parameter {quoted(rename.owner)} becomes Python name {quoted(rename.given)}, since"
                f" parameter {quoted(rename.holder)} has {quoted(rename.wanted)} (set x-python-name on"
                " either to choose)"
            )
        said.append((paths[rename.owner], message))
    renamed = {rename.owner for rename in renames}
    for claim in claims:
        (name,) = given[claim.owner]
        base = snake_base(claim.owner)
        if not claim.pinned and claim.owner not in renamed and not usable(base):
            # `date` would shadow the class's own annotations, `class` cannot be a name at all.
            why = (
                "a Python keyword" if keyword.iskeyword(base) else "a name the generated class uses"
            )
            message = (
                f"parameter {quoted(claim.owner)} becomes Python name {quoted(name)}, since"
                f" {quoted(base)} is {why} (set x-python-name to choose)"
            )
            said.append((paths[claim.owner], message))
    fields = {f.wire_name: given[f.wire_name][0] for f in kind.fields}
    # Open (other keys allowed): they are kept in a field of their own, named apart from the rest.
    extra = ""
    if kind.open:
        extra = "extra"
        while extra in fields.values():
            extra += "_"
    return Attributes(fields, extra, tuple(said))


def findings(source: str, tool: Tool) -> list[Diagnostic]:
    """What the names of `tool`'s dataclasses' fields say (CG106), `tool` being in the catalog
    file `source`."""
    return [
        warning(source, tool.line_of(path), f"{tool.path}.{format_path(path)}", message, "CG106")
        for kind in (*tool.classes, *tool.result_classes)
        for path, message in attributes(kind).said
    ]

"""Defaults from the wild: one that does not match its schema is corrected as a call's value would be.

Catalogs in the wild hold `"false"` for a boolean default or `"5"` for an integer one. The build
corrects such a default with the generated runtime's own coercions (SPEC §3), so that it means what
the same text would mean sent by a model, and says so; one no coercion can save is dropped, and the
build says that too. The runtime is the generated module itself, executed here once: one copy of
the rules.
"""

from __future__ import annotations

import sys
from functools import cache
from types import ModuleType
from typing import Any

from codegen.catalog.kinds import (
    BooleanKind,
    EnumKind,
    IntegerKind,
    Kind,
    NumberKind,
    StringKind,
)


@cache
def runtime() -> ModuleType:
    """The generated `_runtime` module, executed as a private package's module."""
    from codegen.python.render import render_repair, render_runtime  # the back end renders it

    name = "_codegen_defaults"
    package = ModuleType(name)
    package.__path__ = []
    modules = {name: package}
    for module_name, text in (("_repair", render_repair()), ("_runtime", render_runtime())):
        module = ModuleType(f"{name}.{module_name}")
        module.__package__ = name
        modules[module.__name__] = module
        sys.modules.update(modules)
        try:
            exec(compile(text, f"<codegen {module_name}>", "exec"), module.__dict__)  # noqa: S102 - our own template
        finally:
            for key in modules:
                sys.modules.pop(key, None)
    return modules[f"{name}._runtime"]


def corrected(kind: Kind, value: Any) -> tuple[Any, list[str]] | None:
    """`value` as the parser would take it for `kind`, with the warning codes it would give; None
    when the parser would refuse it, or when the kind is not a scalar one this applies to."""
    rt = runtime()
    warnings: list[str] = []
    errors: list[str] = []
    if kind.nullable and rt.is_null_text(value, "default", warnings):
        return None, warnings
    if isinstance(kind, EnumKind):
        exact = {(type(c), c): c for c in kind.choices}
        folded = {} if kind.case_sensitive else kind.folded
        result = rt.to_choice(value, exact, folded, "default", warnings, errors)
    elif isinstance(kind, (BooleanKind, IntegerKind, NumberKind, StringKind)):
        coerce = {
            BooleanKind: rt.to_bool,
            IntegerKind: rt.to_int,
            NumberKind: rt.to_float,
        }.get(type(kind), rt.to_str)
        result = coerce(value, "default", warnings, errors)
    else:
        return None
    if errors or result is rt.INVALID:
        return None
    return result, warnings

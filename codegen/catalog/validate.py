"""Check a loaded catalog against the catalog meta-schema before anything else looks at it."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from codegen.catalog.load import LoadedCatalog
from codegen.diagnostics import Diagnostic
from codegen.resources import catalog_meta_schema

_SHAPE = "a catalog is a mapping with 'name' and 'tools'"


@dataclass
class Validation:
    """The meta-schema's findings, and which tools they leave unfit for further checks."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    broken_tools: set[int] = field(default_factory=set)
    # False when the catalog's own shape is wrong, so no tool can be looked at.
    tools_readable: bool = True


def validate_catalog(catalog: LoadedCatalog) -> Validation:
    """Every meta-schema violation of the catalog, each with its file, line and JSON path."""
    data = catalog.data
    if data is None:
        return Validation(
            [catalog.diagnostic((), f"the file is empty: {_SHAPE}")], tools_readable=False
        )
    if isinstance(data, list):
        message = f"{_SHAPE}, not a list (put the tools under 'tools:')"
        return Validation([catalog.diagnostic((), message)], tools_readable=False)
    result = Validation()
    validator = Draft202012Validator(catalog_meta_schema())
    for error in validator.iter_errors(data):
        specific = _most_specific(error)
        result.diagnostics.extend(_describe(catalog, specific))
        path = list(specific.absolute_path)
        if len(path) >= 2 and path[0] == "tools" and isinstance(path[1], int):
            result.broken_tools.add(path[1])
        else:
            result.tools_readable = False
    result.diagnostics = sorted(set(result.diagnostics))
    return result


def _most_specific(error: ValidationError) -> ValidationError:
    # anyOf/allOf failures carry the real reason in their context; report the branch that got
    # furthest into the instance, which is where the author's mistake is.
    while error.context:
        deepest = max(len(e.absolute_path) for e in error.context)
        error = best_match(e for e in error.context if len(e.absolute_path) == deepest)
    return error


def _describe(catalog: LoadedCatalog, error: ValidationError) -> Iterator[Diagnostic]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        # Point at each unexpected key itself, and say what was probably meant.
        allowed = list(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        for key in error.instance:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = (
                    f" (did you mean {close[0]!r}?)"
                    if close
                    else f" (expected one of: {', '.join(allowed)})"
                )
                yield catalog.diagnostic((*path, key), f"unknown key {key!r}{hint}")
        return
    custom = error.schema.get("x-message") if isinstance(error.schema, dict) else None
    yield catalog.diagnostic(
        path, custom.format(value=repr(error.instance)) if custom else error.message
    )

"""Check a loaded catalog against the catalog meta-schema before anything else looks at it."""

from __future__ import annotations

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from codegen.diagnostics import Diagnostic
from codegen.load import LoadedCatalog
from codegen.resources import catalog_meta_schema


def validate_catalog(catalog: LoadedCatalog) -> list[Diagnostic]:
    """Every meta-schema violation of the catalog, each with its file, line and JSON path."""
    validator = Draft202012Validator(catalog_meta_schema())
    found = [_describe(catalog, _most_specific(error)) for error in validator.iter_errors(catalog.data)]
    return sorted(set(found))


def _most_specific(error: ValidationError) -> ValidationError:
    # anyOf/allOf failures carry the real reason in their context; report the branch that got
    # furthest into the instance, which is where the author's mistake is.
    while error.context:
        deepest = max(len(e.absolute_path) for e in error.context)
        error = best_match(e for e in error.context if len(e.absolute_path) == deepest)
    return error


def _describe(catalog: LoadedCatalog, error: ValidationError) -> Diagnostic:
    custom = error.schema.get("x-message") if isinstance(error.schema, dict) else None
    message = custom.format(value=repr(error.instance)) if custom else error.message
    return catalog.diagnostic(tuple(error.absolute_path), message)

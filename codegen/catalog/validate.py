"""Check a loaded catalog against the catalog meta-schema before anything else looks at it."""

from __future__ import annotations

import copy
import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from codegen.catalog.load import LoadedCatalog
from codegen.diagnostics import Diagnostic, JsonPath, quoted, worded
from codegen.resources import catalog_meta_schema
from codegen.workers import Mapper, map_in_workers

if TYPE_CHECKING:  # jsonschema is imported when a tool is checked: a rebuild may check none
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_SHAPE = "a catalog is a mapping with 'name' and 'tools'"
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass
class Validation:
    """The meta-schema's findings, and which tools they leave unfit for further checks."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    broken_tools: set[int] = field(default_factory=set)
    # False when the catalog's own shape is wrong, so no tool can be looked at.
    tools_readable: bool = True


def validate_catalog(catalog: LoadedCatalog, each: Mapper = map_in_workers) -> Validation:
    """Every meta-schema violation of the catalog, each with its file, line and JSON path.

    The catalog's own keys are checked whole, and each tool on its own (the same rules and the
    same findings as checking the catalog at once), by `each`."""
    data = catalog.data
    if data is None:
        return Validation(
            [catalog.diagnostic((), f"the file is empty: {_SHAPE}")], tools_readable=False
        )
    if isinstance(data, list):
        message = f"{_SHAPE}, not a list (put the tools under 'tools:')"
        return Validation([catalog.diagnostic((), message)], tools_readable=False)
    if not isinstance(data, dict):
        # Said by its type alone: a file of one value may be a key or a token, linked among the
        # sources, and this message goes to CI logs.
        message = f"{_SHAPE}; this file holds one {_JSON_TYPES.get(type(data), 'value')}"
        return Validation([catalog.diagnostic((), message)], tools_readable=False)
    result = Validation()
    # Both made here, before any worker process is forked, so that each has them already.
    validator, _ = _validators()
    for path, message in _findings(validator, data):
        result.diagnostics.append(catalog.diagnostic(path, message))
        result.tools_readable = False
    tools = data.get("tools") if isinstance(data, dict) else None
    tools = tools if isinstance(tools, list) else []
    keys: tuple[str | None, ...] = catalog.tool_keys if catalog.by_items() else (None,) * len(tools)
    specs = [_Spec(key, spec) for key, spec in zip(keys, tools, strict=True)]
    stored = each(_tool_findings, specs, least=PARALLEL_FROM)
    for index, found in enumerate(stored):
        for path, message in found:
            result.diagnostics.append(catalog.diagnostic(("tools", index, *path), message))
            result.broken_tools.add(index)
    result.diagnostics = sorted(set(result.diagnostics))
    return result


# Below this many tools to check for each worker process, starting it costs more than it saves.
PARALLEL_FROM = 128


@dataclass(frozen=True)
class _Spec:
    """A tool's data, and its key (the digest of its item's text; None: known by its data)."""

    key: str | None
    data: Any

    def __repr__(self) -> str:
        # All that `_tool_findings` reads, for a memo's key (`workers.Mapper`).
        return repr(self.key) if self.key is not None else repr(self.data)


def _tool_findings(spec: _Spec) -> list[tuple[JsonPath, str]]:
    """What the meta-schema says of one tool (a value: it crosses processes)."""
    return list(_findings(_validators()[1], spec.data))


@cache
def _validators() -> tuple[Draft202012Validator, Draft202012Validator]:
    """The catalog's keys (each tool only an item of the list), and one tool."""
    from jsonschema import Draft202012Validator

    meta = catalog_meta_schema()
    shape = copy.deepcopy(meta)
    shape["properties"]["tools"]["items"] = True
    tool = {"$id": meta["$id"], "$defs": meta["$defs"], "$ref": "#/$defs/tool"}
    return Draft202012Validator(shape), Draft202012Validator(tool)


def _findings(validator: Draft202012Validator, instance: Any) -> Iterator[tuple[JsonPath, str]]:
    for error in validator.iter_errors(instance):
        yield from _describe(_most_specific(error))


def _most_specific(error: ValidationError) -> ValidationError:
    # anyOf/allOf failures carry the real reason in their context; report the branch that got
    # furthest into the instance, which is where the author's mistake is.
    from jsonschema.exceptions import best_match

    while error.context:
        deepest = max(len(e.absolute_path) for e in error.context)
        error = best_match(e for e in error.context if len(e.absolute_path) == deepest)
    return error


def _describe(error: ValidationError) -> Iterator[tuple[JsonPath, str]]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        # Point at each unexpected key itself, and say what was probably meant.
        allowed = list(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        for key in error.instance:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = (
                    f" (did you mean {quoted(close[0])}?)"
                    if close
                    else f" (expected one of: {', '.join(allowed)})"
                )
                yield (*path, key), f"unknown key {quoted(key)}{hint}"
        return
    custom = error.schema.get("x-message") if isinstance(error.schema, dict) else None
    # jsonschema's own message writes the value whole (and the meta-schema's values, short).
    message = custom.format(value=quoted(error.instance)) if custom else error.message
    yield path, worded(message, error.instance)

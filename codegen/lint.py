"""`codegen lint`: what makes a catalog worse for a model, with stable rule codes.

A catalog can be valid and still hard for a model to use: a tool described in three words, a
parameter with no description, an enum whose values the description never explains, a default the
description contradicts. Each rule has a code that never changes meaning, a level, and the place.
Every catalog error and build warning is a finding too, so one command says everything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from codegen.build import check_catalog
from codegen.catalog.ir import Catalog
from codegen.catalog.load import LoadedCatalog, load_catalog
from codegen.catalog.wild import read_wild
from codegen.diagnostics import (
    CODES,
    CatalogError,
    Diagnostic,
    JsonPath,
    format_path,
    listed,
    quoted,
)
from codegen.payloads.strict import limits, to_strict

Level = Literal["error", "warning", "note", "info"]

# code → (level, short name): the build's codes and lint's own share one table (diagnostics.CODES).
RULES: dict[str, tuple[Level, str]] = {
    code: (level, name)  # type: ignore[misc]
    for code, (level, name, _) in CODES.items()
}

TOOL_DESCRIPTION_MIN = 20  # characters: less cannot say what a tool does and when to use it
PARAMETER_DESCRIPTION_MIN = 10
# "Defaults to 3", "default: `fast`", "(default is true)", "(default 10)": a description that
# states a default. Only these forms: "the default being relaxed" or "by default" state none.
_SAYS_DEFAULT = re.compile(
    r"\b(?:defaults\s+to|default(?:\s+value)?\s+is|default\s*[:=])\s*[`'\"]?([^\s`'\",;)]+)"
    r"|\(default\s+[`'\"]?([^\s`'\",;)]+)",
    re.IGNORECASE,
)


@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int
    code: str
    path: str
    message: str

    @property
    def level(self) -> Level:
        return RULES[self.code][0]

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.code} {self.level}: {self.path}: {self.message}"

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "level": self.level, "rule": RULES[self.code][1]}


def lint(sources: list[Path], root: Path) -> list[Finding]:
    """Every finding of every catalog, in file and line order."""
    findings: list[Finding] = []
    for source in sources:
        try:
            loaded = load_catalog(source, root)
        except CatalogError as exc:
            findings += [_from_diagnostic(d) for d in exc.diagnostics]
            continue
        catalog, diagnostics = check_catalog(source, root)
        findings += [_from_diagnostic(d) for d in diagnostics]
        loaded = read_wild(loaded)[0]  # what the build read, oddities left out
        if catalog is not None:
            findings += _catalog_findings(loaded)
            findings += _alias_findings(loaded, catalog)
    return sorted(findings)


def _from_diagnostic(diagnostic: Diagnostic) -> Finding:
    return Finding(
        diagnostic.file, diagnostic.line, diagnostic.code, diagnostic.path, diagnostic.message
    )


def _alias_findings(loaded: LoadedCatalog, catalog: Catalog) -> Iterator[Finding]:
    """A tool whose wire name some provider forbids: that provider is sent an alias. And a tool
    whose strict form goes over one of OpenAI's limits, as the payload back end counts them."""
    index = {tool["name"]: i for i, tool in enumerate(loaded.data["tools"])}
    for tool in catalog.tools:
        where: JsonPath = ("tools", index[tool.wire_name], "parameters")
        for over in limits(to_strict(tool.schema)[0]):
            path = (*where, *over.path)
            yield Finding(
                loaded.file, loaded.line_of(path), "CG008", format_path(path), over.message
            )
        sent = {
            provider: names[tool.wire_name]
            for provider, names in sorted(catalog.provider_names.items())
            if names.get(tool.wire_name, tool.wire_name) != tool.wire_name
        }
        if sent:
            path = ("tools", index[tool.wire_name], "name")
            aliases = ", ".join(f"{provider} as {quoted(name)}" for provider, name in sent.items())
            yield Finding(
                loaded.file,
                loaded.line_of(path),
                "CG007",
                format_path(path),
                f"tool {quoted(tool.wire_name)} is sent to {aliases}: a name the model sees and the "
                "name in your logs differ (the parsers take either)",
            )


def _catalog_findings(loaded: LoadedCatalog) -> Iterator[Finding]:
    def finding(path: JsonPath, code: str, message: str) -> Finding:
        return Finding(loaded.file, loaded.line_of(path), code, format_path(path), message)

    for index, tool in enumerate(loaded.data["tools"]):
        where: JsonPath = ("tools", index)
        description = tool["description"].strip()
        if len(description) < TOOL_DESCRIPTION_MIN:
            yield finding(
                (*where, "description"),
                "CG001",
                f"tool {quoted(tool['name'])} is described in {len(description)} characters: say what "
                "it does and when to use it, since that is what the model chooses tools by",
            )
        for path, name, prop, required in _properties(tool["parameters"], (*where, "parameters")):
            yield from _property_findings(finding, path, name, prop, required)


def _properties(
    schema: Any, path: JsonPath
) -> Iterator[tuple[JsonPath, str, dict[str, Any], bool]]:
    """Every property of every object in a schema, with its path and whether it is required."""
    if not isinstance(schema, dict):
        return
    required = schema.get("required")
    listed = required if isinstance(required, list) else []
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict):
            yield (*path, "properties", name), name, prop, name in listed
            yield from _properties(prop, (*path, "properties", name))
    for word in ("items", "additionalProperties"):
        yield from _properties(schema.get(word), (*path, word))
    for word in ("anyOf", "oneOf", "allOf"):
        for i, member in enumerate(schema.get(word) or []):
            yield from _properties(member, (*path, word, i))
    for word in ("$defs", "definitions"):
        for name, definition in (schema.get(word) or {}).items():
            yield from _properties(definition, (*path, word, name))


def _property_findings(
    finding: Any, path: JsonPath, name: str, prop: dict[str, Any], required: bool
) -> Iterator[Finding]:
    description = str(prop.get("description", "")).strip()
    if "$ref" in prop and not description:
        return  # the definition it refers to is described where it is defined
    if not description and not str(prop.get("title", "")).strip():
        yield finding(
            path,
            "CG002",
            f"parameter {quoted(name)} has no description or title: the model sees only its name",
        )
    elif description and len(description) < PARAMETER_DESCRIPTION_MIN:
        yield finding(
            (*path, "description"),
            "CG003",
            f"parameter {quoted(name)} is described in {len(description)} characters",
        )
    choices = [c for c in prop.get("enum") or [] if isinstance(c, str)]
    if len(choices) > 1 and not any(c.lower() in description.lower() for c in choices):
        yield finding(
            (*path, "enum"),
            "CG004",
            f"the description of {quoted(name)} explains none of its values ({listed(choices)})",
        )
    if "default" in prop:
        said = _SAYS_DEFAULT.search(description)
        value = (said.group(1) or said.group(2)).rstrip(".") if said is not None else None
        if said is not None and value and not _same_text(value, prop["default"]):
            yield finding(
                (*path, "default"),
                "CG005",
                f"the description of {quoted(name)} says {quoted(said.group(0).strip().rstrip('.'))}, read as the default "
                f"{quoted(value)}; the schema says {quoted(prop['default'])}: the model is told one thing "
                "and the parser does another",
            )
        if required:
            yield finding(
                (*path, "default"),
                "CG006",
                f"parameter {quoted(name)} is required, so its default never applies",
            )


def _same_text(said: str, default: object) -> bool:
    said = said.lower()
    if isinstance(default, bool):
        return said == str(default).lower()
    if isinstance(default, (int, float)):
        try:
            return float(said) == float(default)
        except ValueError:
            return False
    return said == str(default).lower()

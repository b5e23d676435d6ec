"""A catalog's payload files: each format's tool list as JSON, and the build warnings of what a
format could not carry, each at the file, line and path of the catalog node it concerns."""

from __future__ import annotations

import json
import math
from typing import Any

from codegen.cache import BuildCache, key
from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.normalize import internal_error
from codegen.diagnostics import CatalogError, Diagnostic, format_path
from codegen.outputs import PAYLOAD_FILES, PAYLOADS_DIR
from codegen.payloads.anthropic import anthropic_tool
from codegen.payloads.gemini import gemini_declaration, gemini_legacy_declaration
from codegen.payloads.legacy import to_legacy
from codegen.payloads.mcp import mcp_tool
from codegen.payloads.openai import chat_tool, responses_tool, strict_chat_tool
from codegen.payloads.schema import Finding
from codegen.payloads.strict import to_strict


def payloads(catalog: Catalog) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Constant name → its value (SPEC §6), and the warnings."""
    out: dict[str, list[Any]] = {name: [] for name in PAYLOAD_FILES if name != "PROVIDER_NAMES"}
    warnings: list[Diagnostic] = []
    for tool in catalog.tools:
        values, found = _tool_payloads(catalog, tool)
        warnings += found
        for name, value in values.items():
            out[name].append(value)
    return {**out, "PROVIDER_NAMES": catalog.provider_names}, warnings


def _tool_payloads(catalog: Catalog, tool: Tool) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The tool's entry in each format, by constant name, and the warnings of what they lose."""
    names, wire = catalog.provider_names, tool.wire_name
    try:
        strict, strict_findings = to_strict(tool.schema)
        legacy, legacy_findings = to_legacy(tool.schema)
    except Exception as exc:  # a bug of codegen's: report it, with the place
        raise CatalogError(
            [Diagnostic(catalog.source, tool.line, tool.path, internal_error(exc))]
        ) from exc
    warnings = _diagnostics(catalog, tool, "OpenAI strict", strict_findings)
    warnings += _diagnostics(catalog, tool, "Gemini legacy", legacy_findings)
    values = {
        "OPENAI_TOOLS": chat_tool(tool, names["openai"][wire]),
        "OPENAI_STRICT_TOOLS": strict_chat_tool(tool, names["openai"][wire], strict),
        "OPENAI_RESPONSES_TOOLS": responses_tool(tool, names["openai"][wire], strict),
        "ANTHROPIC_TOOLS": anthropic_tool(tool, names["anthropic"][wire]),
        "GEMINI_TOOLS": gemini_declaration(tool, names["gemini"][wire]),
        "GEMINI_LEGACY_TOOLS": gemini_legacy_declaration(tool, names["gemini"][wire], legacy),
        "MCP_TOOLS": mcp_tool(tool, names["mcp"][wire]),
    }
    return values, warnings


def payload_files(
    catalog: Catalog, cache: BuildCache | None = None
) -> tuple[dict[str, str], list[Diagnostic]]:
    """`<package>/payloads/<format>.json` → text (key order as built, so byte-deterministic).

    Each tool's entries are kept in the cache as the text they have inside their files, under what
    they depend on (the tool's definition, the names it is sent under, and the line it starts at,
    since its warnings name lines), so a rebuild after one tool changed transforms that one alone
    and only joins the rest.
    """
    cache = cache or BuildCache(None)
    entries: dict[str, list[str]] = {name: [] for name in PAYLOAD_FILES if name != "PROVIDER_NAMES"}
    warnings: list[Diagnostic] = []
    for tool in catalog.tools:
        texts, found = _cached_entries(catalog, tool, cache)
        warnings += found
        for name, text in texts.items():
            entries[name].append(text)
    files = {
        f"{catalog.name}/{PAYLOADS_DIR}/{file}": (
            json_file(catalog.provider_names) if name == "PROVIDER_NAMES" else _list(entries[name])
        )
        for name, file in PAYLOAD_FILES.items()
    }
    return files, warnings


def _cached_entries(
    catalog: Catalog, tool: Tool, cache: BuildCache
) -> tuple[dict[str, str], list[Diagnostic]]:
    # Warnings are kept relative to the tool (lines from its first, paths after its own) and
    # anchored where it is now: a tool that only moved (an edit above it) is not transformed again.
    sent = {p: names[tool.wire_name] for p, names in sorted(catalog.provider_names.items())}
    layout = json.dumps([[list(path), line - tool.line] for path, line in tool.lines.items()])
    entry = key("payloads", catalog.source, tool.sha256, layout, json.dumps(sent))
    record = cache.get(entry)
    if record is not None:
        try:
            found = json.loads(record)
            return found["entries"], [
                Diagnostic(catalog.source, tool.line + offset, tool.path + suffix, message, level)
                for offset, suffix, message, level in found["warnings"]
            ]
        except (ValueError, KeyError, TypeError):
            pass  # not a record this codegen wrote: make the entries again
    values, warnings = _tool_payloads(catalog, tool)
    texts = {name: _inside_list(value) for name, value in values.items()}
    relative = [
        (w.line - tool.line, w.path.removeprefix(tool.path), w.message, w.level) for w in warnings
    ]
    cache.put(entry, json.dumps({"entries": texts, "warnings": relative}))
    return texts, warnings


def _inside_list(value: Any) -> str:
    """`value` as `json_file` writes it as an item of a list: each line two spaces in."""
    return "  " + indented_json(value, "  ")


# The C string encoder of `json` (ensure_ascii=False), where the interpreter has it.
_STRING = json.encoder.c_encode_basestring or json.encoder.py_encode_basestring  # type: ignore[attr-defined]


def indented_json(value: Any, margin: str = "") -> str:
    """The text of `json.dumps(value, indent=2, ensure_ascii=False)`, every line after the first
    `margin` further in. With `indent`, `json` takes its pure-Python encoder, a generator per
    level: that was a tenth of a 2,000-tool build; this is a third of its time (a property test
    proves the bytes equal)."""
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if kind is dict and value and all(type(k) is str for k in value):
        inner = margin + "  "
        return (
            "{\n"
            + ",\n".join(
                f"{inner}{_STRING(k)}: {indented_json(v, inner)}" for k, v in value.items()
            )
            + f"\n{margin}}}"
        )
    if kind is list and value:
        inner = margin + "  "
        return "[\n" + ",\n".join(inner + indented_json(v, inner) for v in value) + f"\n{margin}]"
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    # Floats (nan and infinity as json writes them), empty containers and anything unusual.
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + margin) if margin else text


def _list(items: list[str]) -> str:
    """What `json_file` writes for the list of these items (a test proves the bytes equal)."""
    return "[\n" + ",\n".join(items) + "\n]\n" if items else "[]\n"


def json_file(value: Any) -> str:
    return indented_json(value) + "\n"


def _diagnostics(
    catalog: Catalog, tool: Tool, fmt: str, findings: list[Finding]
) -> list[Diagnostic]:
    return [
        Diagnostic(
            catalog.source,
            tool.line_of(("parameters", *finding.path)),
            f"{tool.path}.{format_path(('parameters', *finding.path))}",
            f"{fmt}: {finding.message}",
            "warning",
        )
        for finding in findings
    ]

"""A catalog's payload files: each format's tool list as JSON, and the build warnings of what a
format could not carry, each at the file, line and path of the catalog node it concerns."""

from __future__ import annotations

import json
import math
from typing import Any

from codegen.cache import BuildCache, key
from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.normalize import internal_error
from codegen.diagnostics import CatalogError, Diagnostic, format_path, warning
from codegen.outputs import PAYLOAD_FILES, PAYLOADS_DIR, emitted
from codegen.payloads.anthropic import anthropic_strict_tool, anthropic_tool
from codegen.payloads.anthropic_strict import to_anthropic_strict
from codegen.payloads.gemini import gemini_declaration, gemini_legacy_declaration
from codegen.payloads.legacy import to_legacy
from codegen.payloads.mcp import mcp_tool
from codegen.payloads.openai import chat_tool, responses_tool, strict_chat_tool
from codegen.payloads.schema import Finding
from codegen.payloads.strict import to_strict


def payloads(catalog: Catalog) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Constant name → its value (SPEC §6), and the warnings."""
    out: dict[str, list[Any]] = {name: [] for name in emitted(catalog.providers)[:-1]}
    warnings: list[Diagnostic] = []
    for tool in catalog.tools:
        values, found = _tool_payloads(catalog, tool)
        warnings += _diagnostics(catalog, tool, found)
        for name, value in values.items():
            out[name].append(value)
    return {**out, "PROVIDER_NAMES": catalog.provider_names}, warnings


# A transform's finding with the format it is about: kept relative to the tool (a JSON path
# inside its parameters), so a cached one is placed again wherever the tool now is.
Found = tuple[str, Finding]


def _tool_payloads(catalog: Catalog, tool: Tool) -> tuple[dict[str, Any], list[Found]]:
    """The tool's entry in each format, by constant name, and the findings of what they lose."""
    names, wire = catalog.provider_names, tool.wire_name
    chosen = catalog.providers
    values: dict[str, Any] = {}
    warnings: list[Found] = []
    try:
        if "openai" in chosen:
            strict, strict_findings = to_strict(tool.schema)
            warnings += [("OpenAI strict", finding) for finding in strict_findings]
            values["OPENAI_TOOLS"] = chat_tool(tool, names["openai"][wire])
            values["OPENAI_STRICT_TOOLS"] = strict_chat_tool(tool, names["openai"][wire], strict)
            values["OPENAI_RESPONSES_TOOLS"] = responses_tool(tool, names["openai"][wire], strict)
        if "anthropic" in chosen:
            strict, strict_findings = to_anthropic_strict(tool.schema)
            warnings += [("Anthropic strict", finding) for finding in strict_findings]
            values["ANTHROPIC_TOOLS"] = anthropic_tool(tool, names["anthropic"][wire])
            values["ANTHROPIC_STRICT_TOOLS"] = anthropic_strict_tool(
                tool, names["anthropic"][wire], strict
            )
        if "gemini" in chosen:
            values["GEMINI_TOOLS"] = gemini_declaration(tool, names["gemini"][wire])
        if "gemini_legacy" in chosen:
            legacy, legacy_findings = to_legacy(tool.schema)
            warnings += [("Gemini legacy", finding) for finding in legacy_findings]
            values["GEMINI_LEGACY_TOOLS"] = gemini_legacy_declaration(
                tool, names["gemini"][wire], legacy
            )
        if "mcp" in chosen:
            values["MCP_TOOLS"] = mcp_tool(tool, names["mcp"][wire])
    except Exception as exc:  # a bug of codegen's: report it, with the place
        raise CatalogError(
            [Diagnostic(catalog.source, tool.line, tool.path, internal_error(exc))]
        ) from exc
    return {name: values[name] for name in emitted(chosen)[:-1]}, warnings


def payload_files(
    catalog: Catalog, cache: BuildCache | None = None
) -> tuple[dict[str, str], list[Diagnostic]]:
    """`<package>/payloads/<format>.json` → text (key order as built, so byte-deterministic).

    Each tool's entries are kept in the cache as the text they have inside their files, under what
    they depend on (the tool's definition, the names it is sent under, the providers chosen), so a
    rebuild after one tool changed transforms that one alone and only joins the rest. Their
    findings are kept relative to the tool and placed where the tool is now (its index and lines
    change when tools move, its definition does not).
    """
    cache = cache or BuildCache(None)
    entries: dict[str, list[str]] = {name: [] for name in emitted(catalog.providers)[:-1]}
    warnings: list[Diagnostic] = []
    for tool in catalog.tools:
        texts, found = _cached_entries(catalog, tool, cache)
        warnings += found
        for name, text in texts.items():
            entries[name].append(text)
    files = {
        f"{catalog.name}/{PAYLOADS_DIR}/{PAYLOAD_FILES[name]}": (
            json_file(catalog.provider_names) if name == "PROVIDER_NAMES" else _list(entries[name])
        )
        for name in emitted(catalog.providers)
    }
    return files, warnings


def _cached_entries(
    catalog: Catalog, tool: Tool, cache: BuildCache
) -> tuple[dict[str, str], list[Diagnostic]]:
    # Findings are kept relative to the tool (paths inside its parameters) and anchored where it
    # is now: a tool that only moved (an edit above it) is not transformed again.
    sent = {p: names[tool.wire_name] for p, names in sorted(catalog.provider_names.items())}
    entry = key(
        "payloads",
        catalog.source,
        tool.sha256,
        json.dumps(sent),
        ",".join(catalog.providers),
    )
    record = cache.get(entry)
    if record is not None:
        try:
            stored = json.loads(record)
            found = [
                (fmt, Finding(tuple(path), message, code))
                for fmt, path, message, code in stored["findings"]
            ]
            return stored["entries"], _diagnostics(catalog, tool, found)
        except (ValueError, KeyError, TypeError):
            pass  # not a record this codegen wrote: make the entries again
    values, found = _tool_payloads(catalog, tool)
    texts = {name: _inside_list(value) for name, value in values.items()}
    findings = [[fmt, list(f.path), f.message, f.code] for fmt, f in found]
    cache.put(entry, json.dumps({"entries": texts, "findings": findings}))
    return texts, _diagnostics(catalog, tool, found)


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


def _diagnostics(catalog: Catalog, tool: Tool, findings: list[Found]) -> list[Diagnostic]:
    return [
        warning(
            catalog.source,
            tool.line_of(("parameters", *finding.path)),
            f"{tool.path}.{format_path(('parameters', *finding.path))}",
            f"{fmt}: {finding.message}",
            finding.code,
        )
        for fmt, finding in findings
    ]

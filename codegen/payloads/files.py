"""A catalog's payload files: each format's tool list as JSON, and the build warnings of what a
format could not carry, each at the file, line and path of the catalog node it concerns."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.normalize import internal_error
from codegen.diagnostics import CatalogError, Diagnostic, format_path, warning
from codegen.outputs import PAYLOAD_FILES, PAYLOADS_DIR, emitted
from codegen.package_files import Data
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
        values, found = tool_payloads(
            catalog.source, tool, sent_names(catalog, tool), catalog.providers
        )
        warnings += payload_diagnostics(catalog.source, tool, found)
        for name, value in values.items():
            out[name].append(value)
    return {**out, "PROVIDER_NAMES": catalog.provider_names}, warnings


def sent_names(catalog: Catalog, tool: Tool) -> dict[str, str]:
    """The name the tool is sent under, by provider (in provider order): all a tool's payload
    entries need of its catalog besides the providers chosen."""
    return {
        provider: names.get(tool.wire_name, tool.wire_name)
        for provider, names in sorted(catalog.provider_names.items())
    }


# A transform's finding with the format it is about: relative to the tool (a JSON path inside
# its parameters), so that it can be placed wherever the tool is (`payload_diagnostics`).
Found = tuple[str, Finding]


def tool_payloads(
    source: str, tool: Tool, sent: dict[str, str], providers: tuple[str, ...]
) -> tuple[dict[str, Any], list[Found]]:
    """The tool's entry in each format, by constant name, and the findings of what they lose."""
    values: dict[str, Any] = {}
    warnings: list[Found] = []
    try:
        if "openai" in providers:
            strict, strict_findings = to_strict(tool.schema)
            warnings += _under("OpenAI strict", "parameters", strict_findings)
            values["OPENAI_TOOLS"] = chat_tool(tool, sent["openai"])
            values["OPENAI_STRICT_TOOLS"] = strict_chat_tool(tool, sent["openai"], strict)
            values["OPENAI_RESPONSES_TOOLS"] = responses_tool(tool, sent["openai"], strict)
        if "anthropic" in providers:
            strict, strict_findings = to_anthropic_strict(tool.schema)
            warnings += _under("Anthropic strict", "parameters", strict_findings)
            values["ANTHROPIC_TOOLS"] = anthropic_tool(tool, sent["anthropic"])
            values["ANTHROPIC_STRICT_TOOLS"] = anthropic_strict_tool(
                tool, sent["anthropic"], strict
            )
        if "gemini" in providers:
            values["GEMINI_TOOLS"] = gemini_declaration(tool, sent["gemini"])
        if "gemini_legacy" in providers:
            legacy, legacy_findings = to_legacy(tool.schema)
            warnings += _under("Gemini legacy", "parameters", legacy_findings)
            response = None
            if tool.result is not None:
                response, response_findings = to_legacy(tool.result.schema)
                warnings += _under("Gemini legacy", tool.result.source, response_findings)
            values["GEMINI_LEGACY_TOOLS"] = gemini_legacy_declaration(
                tool, sent["gemini"], legacy, response
            )
        if "mcp" in providers:
            values["MCP_TOOLS"] = mcp_tool(tool, sent["mcp"])
    except Exception as exc:  # a bug of codegen's: report it, with the place
        raise CatalogError([Diagnostic(source, tool.line, tool.path, internal_error(exc))]) from exc
    return {name: values[name] for name in emitted(providers)[:-1]}, warnings


def _under(fmt: str, key: str, findings: list[Finding]) -> list[Found]:
    """Findings about the schema under the tool's `key`, with their paths from the tool."""
    return [(fmt, finding._replace(path=(key, *finding.path))) for finding in findings]


def tool_entries(
    source: str, tool: Tool, sent: dict[str, str], providers: tuple[str, ...]
) -> tuple[dict[str, str], list[Found]]:
    """The tool's entry in each format as the text it has inside its file (`payload_files` joins
    them), and the findings of what they lose."""
    values, found = tool_payloads(source, tool, sent, providers)
    return {name: _inside_list(value) for name, value in values.items()}, found


def payload_files(catalog: Catalog, entries: list[Mapping[str, Data]]) -> dict[str, str | bytes]:
    """`<package>/payloads/<format>.json` → its bytes (the one made from the catalog alone: its
    text), from each tool's `tool_entries` as UTF-8 in catalog order (key order as built, so
    byte-deterministic)."""
    files: dict[str, str | bytes] = {
        path: joined_payload(entries, name) for path, name in joined_payloads(catalog).items()
    }
    files[f"{catalog.name}/{PAYLOADS_DIR}/{PAYLOAD_FILES['PROVIDER_NAMES']}"] = json_file(
        catalog.provider_names
    )
    return files


def joined_payloads(catalog: Catalog) -> dict[str, str]:
    """The payload files joined from the tools' entries: path → the constant each holds."""
    return {
        f"{catalog.name}/{PAYLOADS_DIR}/{PAYLOAD_FILES[name]}": name
        for name in emitted(catalog.providers)[:-1]
    }


def joined_payload(entries: list[Mapping[str, Data]], name: str) -> bytes:
    """The file of the payload constant `name`, from each tool's `tool_entries` (as UTF-8) in
    order: what `json_file` writes for the list of them (a test proves the bytes equal)."""
    items = [texts[name] for texts in entries]
    return b"[\n" + b",\n".join(items) + b"\n]\n" if items else b"[]\n"


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


def json_file(value: Any) -> str:
    return indented_json(value) + "\n"


def payload_diagnostics(source: str, tool: Tool, findings: list[Found]) -> list[Diagnostic]:
    """The findings as warnings at the file, line and path of the node each is about, where the
    tool is now."""
    return [
        warning(
            source,
            tool.line_of(finding.path),
            f"{tool.path}.{format_path(finding.path)}",
            # A catalog's thousands of findings say a few messages: one string each, which the
            # package kept in the memo pickles once (2.3 MB → 0.8 MB at 2,000 tools).
            sys.intern(f"{fmt}: {finding.message}"),
            finding.code,
        )
        for fmt, finding in findings
    ]

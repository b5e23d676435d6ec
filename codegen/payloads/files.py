"""A catalog's payload files: each format's tool list as JSON, and the build warnings of what a
format could not carry, each at the file, line and path of the catalog node it concerns."""

from __future__ import annotations

import json
from typing import Any

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
    names = catalog.provider_names
    out: dict[str, list[Any]] = {name: [] for name in PAYLOAD_FILES if name != "PROVIDER_NAMES"}
    warnings: list[Diagnostic] = []
    for tool in catalog.tools:
        wire = tool.wire_name
        try:
            strict, strict_findings = to_strict(tool.schema)
            legacy, legacy_findings = to_legacy(tool.schema)
        except Exception as exc:  # a bug of codegen's: report it, with the place
            raise CatalogError(
                [Diagnostic(catalog.source, tool.line, tool.path, internal_error(exc))]
            ) from exc
        warnings += _diagnostics(catalog, tool, "OpenAI strict", strict_findings)
        warnings += _diagnostics(catalog, tool, "Gemini legacy", legacy_findings)
        out["OPENAI_TOOLS"].append(chat_tool(tool, names["openai"][wire]))
        out["OPENAI_STRICT_TOOLS"].append(strict_chat_tool(tool, names["openai"][wire], strict))
        out["OPENAI_RESPONSES_TOOLS"].append(responses_tool(tool, names["openai"][wire], strict))
        out["ANTHROPIC_TOOLS"].append(anthropic_tool(tool, names["anthropic"][wire]))
        out["GEMINI_TOOLS"].append(gemini_declaration(tool, names["gemini"][wire]))
        out["GEMINI_LEGACY_TOOLS"].append(
            gemini_legacy_declaration(tool, names["gemini"][wire], legacy)
        )
        out["MCP_TOOLS"].append(mcp_tool(tool, names["mcp"][wire]))
    return {**out, "PROVIDER_NAMES": names}, warnings


def payload_files(catalog: Catalog) -> tuple[dict[str, str], list[Diagnostic]]:
    """`<package>/payloads/<format>.json` → text (key order as built, so byte-deterministic)."""
    values, warnings = payloads(catalog)
    files = {
        f"{catalog.name}/{PAYLOADS_DIR}/{file}": json_file(values[name])
        for name, file in PAYLOAD_FILES.items()
    }
    return files, warnings


def json_file(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


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

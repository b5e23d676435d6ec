"""Where each payload file lives in a generated package, and the constant that holds it: shared
by the payload back end, which writes the files, and the Python back end, whose package reads
them on first use."""

from __future__ import annotations

PAYLOADS_DIR = "payloads"
# SPEC §6 constant → its file under payloads/, in the order the package lists them.
PAYLOAD_FILES = {
    "OPENAI_TOOLS": "openai_chat.json",
    "OPENAI_STRICT_TOOLS": "openai_chat_strict.json",
    "OPENAI_RESPONSES_TOOLS": "openai_responses.json",
    "ANTHROPIC_TOOLS": "anthropic.json",
    "GEMINI_TOOLS": "gemini.json",
    "GEMINI_LEGACY_TOOLS": "gemini_legacy.json",
    "MCP_TOOLS": "mcp.json",
    "PROVIDER_NAMES": "provider_names.json",
}
# What `[tool.codegen] providers` can choose: each a group of the payload constants above.
PROVIDERS = {
    "openai": ("OPENAI_TOOLS", "OPENAI_STRICT_TOOLS", "OPENAI_RESPONSES_TOOLS"),
    "anthropic": ("ANTHROPIC_TOOLS",),
    "gemini": ("GEMINI_TOOLS",),
    "gemini_legacy": ("GEMINI_LEGACY_TOOLS",),
    "mcp": ("MCP_TOOLS",),
}
ALL_PROVIDERS = tuple(PROVIDERS)


def emitted(providers: tuple[str, ...]) -> list[str]:
    """The payload constants the chosen providers need, in the package's order."""
    chosen = {name for p in providers for name in PROVIDERS[p]} | {"PROVIDER_NAMES"}
    return [name for name in PAYLOAD_FILES if name in chosen]

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
    "ANTHROPIC_STRICT_TOOLS": "anthropic_strict.json",
    "GEMINI_TOOLS": "gemini.json",
    "GEMINI_LEGACY_TOOLS": "gemini_legacy.json",
    "MCP_TOOLS": "mcp.json",
    "PROVIDER_NAMES": "provider_names.json",
}
# The type of an item of each tool list (`runtime/_types.py`): what the provider's SDK takes.
PAYLOAD_TYPES = {
    "OPENAI_TOOLS": "OpenAIChatTool",
    "OPENAI_STRICT_TOOLS": "OpenAIChatTool",
    "OPENAI_RESPONSES_TOOLS": "OpenAIResponsesTool",
    "ANTHROPIC_TOOLS": "AnthropicTool",
    "ANTHROPIC_STRICT_TOOLS": "AnthropicTool",
    "GEMINI_TOOLS": "GeminiFunctionDeclaration",
    "GEMINI_LEGACY_TOOLS": "GeminiFunctionDeclaration",
    "MCP_TOOLS": "McpTool",
}
# What `[tool.codegen] providers` can choose: each a group of the payload constants above.
PROVIDERS = {
    "openai": ("OPENAI_TOOLS", "OPENAI_STRICT_TOOLS", "OPENAI_RESPONSES_TOOLS"),
    "anthropic": ("ANTHROPIC_TOOLS", "ANTHROPIC_STRICT_TOOLS"),
    "gemini": ("GEMINI_TOOLS",),
    "gemini_legacy": ("GEMINI_LEGACY_TOOLS",),
    "mcp": ("MCP_TOOLS",),
}
ALL_PROVIDERS = tuple(PROVIDERS)


def emitted(providers: tuple[str, ...]) -> list[str]:
    """The payload constants the chosen providers need, in the package's order."""
    chosen = {name for p in providers for name in PROVIDERS[p]} | {"PROVIDER_NAMES"}
    return [name for name in PAYLOAD_FILES if name in chosen]

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

"""Tool lists in each provider's format, and bare ones: which format a document is, and its tools.

Each reader takes one item of the list and returns the tool as a catalog writes it (name, title,
description, annotations, examples, parameters as written there); `detect` names the format of a
whole document by the shape of its items.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegen.catalog.keywords import TOOL_KEYS
from codegen.diagnostics import excerpt

FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "loose")
# The providers whose names `PROVIDER_NAMES` may hold aliases for, by format.
PROVIDER_OF = {
    "openai": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "mcp": "mcp",
}


class UnreadableToolList(ValueError):
    """A document that holds no tool list this reads."""


def items_of(document: Any) -> list[Any]:
    """The list of tool entries in a document: a bare list, or one inside the envelopes found in
    the wild (`{"tools": [...]}` of a request or an MCP `tools/list` result, a JSON-RPC
    `{"result": {...}}`, Gemini's `functionDeclarations`, the `functions` of an OpenAI Chat
    Completions request from before `tools`)."""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document = document["result"]
    if isinstance(document, dict) and isinstance(document.get("tools"), list):
        document = document["tools"]
    elif isinstance(document, dict) and isinstance(document.get("functions"), list):
        document = document["functions"]
    if isinstance(document, dict) and ("name" in document or _declarations(document) is not None):
        document = [document]  # one tool, or one Gemini `Tool`
    if not isinstance(document, list):
        raise UnreadableToolList(
            "no list of tools in it (a list, or an object with `tools` or `functions`)"
        )
    items: list[Any] = []
    for item in document:
        declarations = _declarations(item)
        items.extend(declarations if declarations is not None else [item])
    return items


def _declarations(item: Any) -> list[Any] | None:
    if isinstance(item, dict):
        for key in ("functionDeclarations", "function_declarations"):
            if isinstance(item.get(key), list):
                return list(item[key])
    return None


# Where a tool entry keeps its schema, in each format.
_SCHEMA_KEYS = (
    "parameters",
    "input_schema",
    "inputSchema",
    "parametersJsonSchema",
    "parameters_json_schema",
)


def built_in(item: Any) -> str | None:
    """What a tool entry that is no function with a JSON schema is, so that there is nothing to
    parse: a tool the provider runs (OpenAI's `web_search_preview`, Anthropic's `bash_20250124`,
    Gemini's `googleSearch`) or one that takes free text (OpenAI's `custom`); None for a
    function."""
    if not isinstance(item, dict) or any(key in item for key in _SCHEMA_KEYS):
        return None
    kind = item.get("type")
    if isinstance(kind, str) and kind != "function":
        return f"`type: {excerpt(kind)}`"
    if kind is None and len(item) == 1:
        ((key, value),) = item.items()
        if key not in ("name", "function") and isinstance(value, dict):
            return f"`{excerpt(key)}`"  # a Gemini `Tool` of one built-in, such as `{"googleSearch": {}}`
    return None


def detect(document: Any) -> str:
    """The format of a document, from the shape of its first function entry."""
    raw = (
        document.get("tools", document.get("functions")) if isinstance(document, dict) else document
    )
    wrapped = isinstance(raw, list) and any(_declarations(item) is not None for item in raw)
    items = items_of(document)
    first = next((item for item in items if isinstance(item, dict) and built_in(item) is None), {})
    if wrapped or "parametersJsonSchema" in first or "parameters_json_schema" in first:
        return "gemini"
    if "inputSchema" in first:
        return "mcp"
    if "input_schema" in first:
        return "anthropic"
    if first.get("type") == "function" and isinstance(first.get("function"), dict):
        return "openai"
    if first.get("type") == "function":
        return "openai-responses"
    if _upper_case_types(first.get("parameters")):
        return "gemini"
    return "loose"


def _upper_case_types(schema: Any) -> bool:
    return isinstance(schema, dict) and str(schema.get("type", "")).isupper()


def _openai(item: dict[str, Any]) -> dict[str, Any]:
    function = item.get("function", {})
    return _tool(function.get("name"), function.get("description"), function.get("parameters"))


def _responses(item: dict[str, Any]) -> dict[str, Any]:
    return _tool(item.get("name"), item.get("description"), item.get("parameters"))


def _anthropic(item: dict[str, Any]) -> dict[str, Any]:
    tool = _tool(item.get("name"), item.get("description"), item.get("input_schema"))
    if isinstance(item.get("input_examples"), list):
        tool["examples"] = item["input_examples"]
    return tool


def _gemini(item: dict[str, Any]) -> dict[str, Any]:
    parameters = next(
        (
            item[k]
            for k in ("parametersJsonSchema", "parameters_json_schema", "parameters")
            if k in item
        ),
        None,
    )
    tool = _tool(item.get("name"), item.get("description"), parameters)
    # The declaration's response is the tool's result schema: its JSON Schema form, or the
    # legacy OpenAPI subset, read as `parameters` in that form are.
    response = next(
        (item[k] for k in ("responseJsonSchema", "response_json_schema", "response") if k in item),
        None,
    )
    if isinstance(response, dict):
        tool["returns"] = response
    return tool


def _mcp(item: dict[str, Any]) -> dict[str, Any]:
    """An MCP tool, with every field MCP_TOOLS gives back (annotations as they are: `title`
    stays where the server put it)."""
    tool = _tool(item.get("name"), item.get("description"), item.get("inputSchema"))
    if item.get("title"):
        tool = {
            "name": tool["name"],
            "title": item["title"],
            **{k: v for k, v in tool.items() if k != "name"},
        }
    for key in ("annotations", "outputSchema", "execution", "icons", "_meta"):
        if item.get(key):
            tool[key] = item[key]
    return tool


def _loose(item: dict[str, Any]) -> dict[str, Any]:
    # Datasets write the schema under any of these names.
    parameters = next(
        (item[k] for k in ("parameters", "input_schema", "inputSchema", "arguments") if k in item),
        None,
    )
    tool = _tool(item.get("name"), item.get("description"), parameters)
    # A catalog's own keys, as a catalog (or a list of its tools) has them.
    tool.update({k: v for k, v in item.items() if k in _CATALOG_TOOL_KEYS})
    if "response" in item:  # the Berkeley leaderboard's: read by `catalog/dialect.tool_gaps`
        tool["response"] = item["response"]
    return tool


# What a tool of a catalog has beside its name, description and parameters.
_CATALOG_TOOL_KEYS = TOOL_KEYS - {"name", "description", "parameters"}


def _tool(name: Any, description: Any, parameters: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name}
    if description is not None:
        tool["description"] = description
    if parameters is not None:  # else the tool takes none (`catalog/dialect.tool_gaps`)
        tool["parameters"] = parameters
    return tool


# What each format's reader takes of a tool entry (for OpenAI's Chat form, of its `function`),
# or is no concern of a catalog's (OpenAI's `strict`, chosen per provider at build time): any
# other key is left out, and said.
TAKEN: dict[str, frozenset[str]] = {
    "openai": frozenset({"name", "description", "parameters", "strict"}),
    "openai-responses": frozenset({"type", "name", "description", "parameters", "strict"}),
    "anthropic": frozenset({"type", "name", "description", "input_schema", "input_examples"}),
    "gemini": frozenset(
        {
            "name",
            "description",
            "parameters",
            "parametersJsonSchema",
            "parameters_json_schema",
            "response",
            "responseJsonSchema",
            "response_json_schema",
        }
    ),
    "mcp": frozenset(
        {
            "name",
            "title",
            "description",
            "inputSchema",
            "annotations",
            "outputSchema",
            "execution",
            "icons",
            "_meta",
        }
    ),
    "loose": frozenset(
        {"name", "description", "parameters", "input_schema", "inputSchema", "arguments"}
        | {"response", *_CATALOG_TOOL_KEYS}
    ),
}


def left_out(fmt: str, item: dict[str, Any]) -> list[tuple[str, ...]]:
    """The keys of a tool entry its format's reader does not take, as paths in the entry."""
    if fmt == "openai":
        function = item.get("function")
        keys: list[tuple[str, ...]] = [(k,) for k in item if k not in ("type", "function")]
        if isinstance(function, dict):
            keys += [("function", k) for k in function if k not in TAKEN[fmt]]
        return keys
    return [(k,) for k in item if k not in TAKEN[fmt]]


READERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "openai": _openai,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mcp": _mcp,
    "loose": _loose,
}

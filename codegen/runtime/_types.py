"""The glue's types: the payload constants, the `to_*` results and the `history_*` turns as
`TypedDict`s that the providers' SDKs take where they take a dict, with no SDK imported.

Standard library only. A `TypedDict` is accepted where another is expected when it has every key
of the other, each required or not as there, with the same value type (keys are mutable, so the
types must be equal, not merely compatible). So each type here lists every key of the SDK type it
stands for (named in its docstring, as of openai 3.54, anthropic 2.12, google-genai 3.4): the keys
the package writes with their types, the others typed `Any` (their SDK types are unions of many
SDK classes, which only `Any` equals without importing them). A key an SDK adds breaks the
match: `tests/test_docs_typing.py` type-checks the docs' agent loops against the installed SDKs.

Gemini's constants and results are the REST form, with camelCase keys (`parametersJsonSchema`,
`functionResponse`); google-genai's dict types spell keys in snake_case, so no dict can be typed
as both: its models read the REST form with `model_validate`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, NotRequired, Required, TypedDict

# ---------------------------------------------------------------------------------------------
# Payloads: the tool lists (the constants of the package).


class OpenAIFunction(TypedDict, total=False):
    """openai's `FunctionDefinition`: a Chat Completions tool's function."""

    name: Required[str]
    description: str
    parameters: dict[str, object]
    strict: bool | None


class OpenAIChatTool(TypedDict):
    """openai's `ChatCompletionFunctionToolParam`: an item of `OPENAI_TOOLS` and
    `OPENAI_STRICT_TOOLS`, for `chat.completions.create(tools=...)`."""

    type: Literal["function"]
    function: OpenAIFunction


# `async` is a keyword, so this part of the type can only be written in the functional form.
_OpenAIResponsesToolKeywords = TypedDict(
    "_OpenAIResponsesToolKeywords", {"async": bool}, total=False
)


class OpenAIResponsesTool(_OpenAIResponsesToolKeywords, total=False):
    """openai's `responses.FunctionToolParam`: an item of `OPENAI_RESPONSES_TOOLS`, for
    `responses.create(tools=...)`."""

    type: Required[Literal["function"]]
    name: Required[str]
    description: str | None
    parameters: Required[dict[str, object] | None]
    strict: Required[bool | None]
    allowed_callers: Any
    defer_loading: bool
    output_schema: dict[str, object] | None


class AnthropicTool(TypedDict, total=False):
    """anthropic's `ToolParam`: an item of `ANTHROPIC_TOOLS` and `ANTHROPIC_STRICT_TOOLS`, for
    `messages.create(tools=...)`."""

    name: Required[str]
    description: str
    input_schema: Required[Any]
    input_examples: Iterable[dict[str, object]]
    strict: bool
    eager_input_streaming: bool | None
    allowed_callers: Any
    cache_control: Any
    defer_loading: bool
    type: Literal["custom"] | None


class GeminiFunctionDeclaration(TypedDict, total=False):
    """A Gemini function declaration in the REST form: an item of `GEMINI_TOOLS`
    (`parametersJsonSchema`, and `responseJsonSchema` for a tool that declares `returns`) and
    `GEMINI_LEGACY_TOOLS` (`parameters`, none for a tool without them). Send
    `types.Tool.model_validate({"functionDeclarations": GEMINI_TOOLS})`."""

    name: Required[str]
    description: Required[str]
    parametersJsonSchema: dict[str, Any]
    responseJsonSchema: dict[str, Any]
    parameters: dict[str, Any]


# `_meta` is a key MCP defines; the functional form keeps it as it is written.
_McpToolMeta = TypedDict("_McpToolMeta", {"_meta": dict[str, Any]}, total=False)


class McpTool(_McpToolMeta, total=False):
    """An MCP `tools/list` entry (`mcp.types.Tool` as JSON): an item of `MCP_TOOLS`, with every
    field the catalog gives."""

    name: Required[str]
    title: str
    description: Required[str]
    inputSchema: Required[dict[str, Any]]
    outputSchema: dict[str, Any]
    annotations: dict[str, Any]
    execution: dict[str, Any]
    icons: list[dict[str, Any]]


# ---------------------------------------------------------------------------------------------
# Results: what `to_*` gives back to the model.


class OpenAIToolMessage(TypedDict):
    """openai's `ChatCompletionToolMessageParam`, for `messages`; `content` is the result's text
    (typed as the SDK's, which also takes a list of text parts)."""

    role: Literal["tool"]
    tool_call_id: str
    content: str | Iterable[Any]


class OpenAIFunctionCallOutput(TypedDict, total=False):
    """openai's `ResponseInputItemParam.FunctionCallOutput`, for the next `input`; `call_id` and
    `output` are always written (the SDK types `call_id` as optional)."""

    type: Required[Literal["function_call_output"]]
    call_id: str | None
    output: Required[str | list[Any]]
    id: str | None
    caller: Any
    name: str | None
    namespace: str | None
    status: Literal["in_progress", "completed", "incomplete"] | None


class AnthropicToolResult(TypedDict, total=False):
    """anthropic's `ToolResultBlockParam`, the content of the next user message; `content` (the
    result's text) and `is_error` are always written."""

    type: Required[Literal["tool_result"]]
    tool_use_id: Required[str]
    content: str | Iterable[Any]
    is_error: bool
    cache_control: Any
    toolset_name: str | None


class GeminiFunctionResponse(TypedDict):
    """A Gemini `FunctionResponse` in the REST form: `id` when the call had one, and `response`
    holding `output` (and a `note`) or `error`."""

    id: NotRequired[str]
    name: str
    response: dict[str, Any]


class GeminiFunctionResponsePart(TypedDict):
    """A Gemini `Part` in the REST form, holding a function's response: the parts of the next
    user turn, `types.Content.model_validate({"role": "user", "parts": ...})`."""

    functionResponse: GeminiFunctionResponse


# ---------------------------------------------------------------------------------------------
# History: the model's own turn, to append before the results.


class OpenAIAssistantMessage(TypedDict, total=False):
    """openai's `ChatCompletionAssistantMessageParam`, for `messages`: `content` (text or None)
    always, `tool_calls` when the model made some (function calls as dicts, custom tools' calls
    as they came)."""

    role: Required[Literal["assistant"]]
    content: str | Iterable[Any] | None
    tool_calls: Iterable[Any]
    audio: Any
    function_call: Any
    name: str
    refusal: str | None


class AnthropicAssistantMessage(TypedDict):
    """anthropic's `AssistantMessageParam`, for `messages`: the content blocks, each `tool_use`
    a dict, the others as they came (SDK blocks or dicts)."""

    role: Literal["assistant"]
    content: str | Iterable[Any]


class GeminiContent(TypedDict, total=False):
    """google-genai's `ContentDict`, for `contents`: `role` (`model`) and `parts` always written,
    each part as it came, a function call's part rebuilt as a dict."""

    role: str | None
    parts: list[Any] | None

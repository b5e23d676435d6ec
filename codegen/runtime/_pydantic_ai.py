"""pydantic-ai (`pydantic-ai-slim`): a catalog's tools as one capability, its toolset and the
history processor that keeps the conversation it sends valid.

The toolset's `args_validator` passes the arguments through as the model wrote them (text, or
the object a provider sent), so pydantic's validation never judges them: the catalog's parser
does, in `call_tool`. A slip the parser forgives runs the handler with typed values. A call the
executor refuses raises `ModelRetry` with the executor's words (what to correct), which
pydantic-ai sends back as a retry prompt and counts against the tool's `max_retries`; a handler
that failed raises `ToolFailed` with its words, which the model reads without a retry counted.

pydantic-ai keeps each call of the history as the model wrote it, and sends it so: the
capability's history processor gives every call's arguments as the package's history rule
(`history_openai_chat`) writes them, a JSON object, before every model request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from ._executor import ToolExecutor
from ._frameworks import load, offered
from ._runtime import RawArguments, ToolCallRequest

Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]
# The package's `history_openai_chat`: an assistant message, each call's arguments valid.
History: TypeAlias = Callable[[object], Mapping[str, Any]]

# The one key of what the validator hands `call_tool`: the arguments as the model sent them.
RAW: Final = "raw"


def _sdk() -> Any:
    return load("pydantic_ai", "pydantic-ai-slim", "the pydantic-ai integration")


class RawArgumentsValidator:
    """An `args_validator` that validates nothing: the arguments, as sent, under `RAW`."""

    def validate_json(self, input: str | bytes | bytearray, **options: Any) -> dict[str, object]:
        return {RAW: input}

    def validate_python(self, input: object, **options: Any) -> dict[str, object]:
        return {RAW: input}


def capability(
    executor: ToolExecutor,
    tools: Sequence[Mapping[str, Any]],
    sent_names: Mapping[str, str],
    history: History,
    parse: Parse,
    max_retries: int,
) -> Any:
    """A capability for `Agent(capabilities=[...])`: the toolset of each tool with a handler,
    and the history processor, which runs before every model request."""
    pydantic_ai = _sdk()
    capabilities = load(
        "pydantic_ai.capabilities", "pydantic-ai-slim", "the pydantic-ai integration"
    )
    made = toolset(executor, tools, sent_names, parse, max_retries)

    def keep_arguments_json(messages: list[Any]) -> list[Any]:
        return [
            (
                _corrected(message, pydantic_ai.ToolCallPart, history)
                if isinstance(message, pydantic_ai.ModelResponse)
                else message
            )
            for message in messages
        ]

    base: Any = capabilities.ProcessHistory

    class CatalogTools(base):  # type: ignore[misc]  # the framework's class, loaded lazily
        def get_toolset(self) -> Any:
            return made

    return CatalogTools(processor=keep_arguments_json)


def toolset(
    executor: ToolExecutor,
    tools: Sequence[Mapping[str, Any]],
    sent_names: Mapping[str, str],
    parse: Parse,
    max_retries: int,
) -> Any:
    """The toolset of each tool with a handler: the name, description and schema of `tools`
    (the catalog's `OPENAI_TOOLS`), sent as they are (`strict=False`: pydantic-ai would
    otherwise rewrite a schema it finds strict-compatible)."""
    pydantic_ai = _sdk()
    toolsets = load("pydantic_ai.toolsets", "pydantic-ai-slim", "the pydantic-ai integration")
    definitions = [
        pydantic_ai.ToolDefinition(
            name=tool["function"]["name"],
            description=tool["function"].get("description"),
            parameters_json_schema=dict(tool["function"]["parameters"]),
            strict=False,
        )
        for tool in offered(tools, sent_names, executor)
    ]
    validator = RawArgumentsValidator()
    base: Any = toolsets.AbstractToolset

    class CatalogToolset(base):  # type: ignore[misc]  # the framework's class, loaded lazily
        @property
        def id(self) -> str | None:
            return None

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            return {
                definition.name: toolsets.ToolsetTool(
                    toolset=self,
                    tool_def=definition,
                    max_retries=max_retries,
                    args_validator=validator,
                )
                for definition in definitions
            }

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            call_id = ctx.tool_call_id if isinstance(ctx.tool_call_id, str) else ""
            result = await executor.aexecute(parse(name, tool_args[RAW], call_id))
            if result.status == "rejected":
                raise pydantic_ai.ModelRetry(result.text)
            if result.status == "failed":
                raise pydantic_ai.ToolFailed(result.text)
            return result.text

    return CatalogToolset()


def _corrected(response: Any, call_part: Any, history: History) -> Any:
    calls = [part for part in response.parts if isinstance(part, call_part)]
    if not calls:
        return response
    turn = history(
        {
            "tool_calls": [
                {
                    "id": part.tool_call_id,
                    "type": "function",
                    "function": {"name": part.tool_name, "arguments": part.args},
                }
                for part in calls
            ]
        }
    )
    # By id: the history drops a call whose id an earlier one holds, as the requests do, so its
    # part goes too; a part the history holds gets the history's arguments.
    arguments = {call["id"]: call["function"]["arguments"] for call in turn.get("tool_calls", [])}
    parts = []
    for part in response.parts:
        if not isinstance(part, call_part):
            parts.append(part)
        elif part.tool_call_id in arguments:
            parts.append(dataclasses.replace(part, args=arguments.pop(part.tool_call_id)))
    return dataclasses.replace(response, parts=parts)

"""The OpenAI Agents SDK (`openai-agents`): a catalog's tools as `FunctionTool`s, and the
`RunConfig` that keeps the conversation it sends valid.

Each tool's invocation takes the arguments as the model wrote them (the SDK hands them over as
text, unread), parses them with the catalog's parser and runs the call through the executor: a
slip the parser forgives runs the handler with typed values, a call it refuses is not run and the
model reads why, in the executor's words, as the tool's output. The SDK's own validation never
sees the call. A tool is strict (`strict_json_schema`) as the catalog's `OPENAI_STRICT_TOOLS`
says, with that payload's schema, which the SDK then sends as it is.

The SDK re-sends every call in the history as the model wrote it, and a provider refuses a
history whose arguments are not a JSON object (openai-agents-python #2061): the run config's
`call_model_input_filter` puts each call's arguments through the package's history rule
(`history_openai_responses`) before every model call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from ._executor import ToolExecutor
from ._frameworks import load, offered
from ._runtime import RawArguments, ToolCallRequest

Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]
# The package's `history_openai_responses`: Responses input items, each call's arguments valid.
History: TypeAlias = Callable[[object], list[Any]]


def _sdk() -> Any:
    return load("agents", "openai-agents", "the OpenAI Agents SDK integration")


def function_tools(
    executor: ToolExecutor,
    tools: Sequence[Mapping[str, Any]],
    strict_tools: Sequence[Mapping[str, Any]],
    sent_names: Mapping[str, str],
    parse: Parse,
) -> list[Any]:
    """A `FunctionTool` for each tool with a handler, in the catalog's order: the name and
    description of `tools` (the catalog's `OPENAI_TOOLS`), and the strict schema of
    `strict_tools` where that payload marks the tool strict, else the plain one."""
    agents = _sdk()
    strict_of = {tool["function"]["name"]: tool["function"] for tool in strict_tools}
    made = []
    for tool in offered(tools, sent_names, executor):
        function = tool["function"]
        strict = strict_of.get(function["name"], {})
        is_strict = strict.get("strict") is True
        made.append(
            agents.FunctionTool(
                name=function["name"],
                description=function.get("description", ""),
                params_json_schema=dict(
                    strict["parameters"] if is_strict else function["parameters"]
                ),
                on_invoke_tool=_invoker(executor, function["name"], parse),
                strict_json_schema=is_strict,
            )
        )
    return made


def _invoker(executor: ToolExecutor, name: str, parse: Parse) -> Callable[[Any, str], Any]:
    async def invoke(context: Any, arguments: str) -> str:
        call_id = getattr(context, "tool_call_id", "")
        request = parse(name, arguments, call_id if isinstance(call_id, str) else "")
        result = await executor.aexecute(request)
        return result.text

    return invoke


def run_config(history: History, options: Mapping[str, Any]) -> Any:
    """A `RunConfig` with `options`, whose `call_model_input_filter` sends every call of the
    history with arguments that are a JSON object."""
    agents = _sdk()
    model_input = agents.run_config.ModelInputData

    def keep_arguments_json(data: Any) -> Any:
        given = data.model_data
        return model_input(input=history(given.input), instructions=given.instructions)

    return agents.RunConfig(call_model_input_filter=keep_arguments_json, **options)

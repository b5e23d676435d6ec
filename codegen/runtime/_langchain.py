"""LangChain and LangGraph (`langchain-core`, `langgraph`): a model's calls read from an
`AIMessage`, results back as `ToolMessage`s, the history message, a tools node and route for a
graph, and `StructuredTool`s for prebuilt agents.

LangChain splits a reply's calls in two: `tool_calls`, whose arguments were a JSON object, and
`invalid_tool_calls`, whose text was not, which a loop over `tool_calls` (and LangGraph's
`ToolNode` and `tools_condition`) never sees. Both are read here, `tool_calls` first: LangChain
keeps no order between the two lists. An invalid call is parsed from its text as any other, so
the handler runs when the parser can read it, and the model reads why when it cannot; a result
that is not a success is a `ToolMessage` with `status="error"`.

The history message is the `AIMessage` with the calls its requests answer in `tool_calls`, read
as the same Chat Completions message as the requests and written by the package's
`history_openai_chat` (arguments as sent when they were one JSON object, else the parser's
corrected values; a call whose id another holds dropped, as its request is), and no invalid call
left, which langchain-openai would send on as the model wrote it.

`StructuredTool`s are for agents that run LangChain's own tool loop (`create_agent`): that loop
never sees an invalid call, so they cover the slips inside valid JSON only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from ._executor import ToolExecutor
from ._frameworks import load, offered
from ._results import ToolCallResult, to_openai_chat
from ._runtime import RawArguments, ToolCallRequest

Parse: TypeAlias = Callable[[str, RawArguments, str], ToolCallRequest[object]]
# The package's `from_openai_chat`: the calls of a Chat Completions message, parsed.
Read: TypeAlias = Callable[[object], list[ToolCallRequest[object]]]
# The package's `history_openai_chat`: the turn whose calls the requests of `read` answer.
History: TypeAlias = Callable[[object], Mapping[str, Any]]

# The node `route` sends a graph to when the last message has calls.
TOOLS_NODE: Final = "tools"
# LangGraph's END.
END: Final = "__end__"


def _core() -> Any:
    return load("langchain_core.messages", "langchain-core", "the LangChain integration")


def calls(message: object) -> list[dict[str, object]]:
    """Each call of `message` as LangChain holds it (`id`, `name`, `args`): `tool_calls` (an
    object), then `invalid_tool_calls` (text). What cannot be read is no call: nothing raises."""
    return [*_listed(message, "tool_calls"), *_listed(message, "invalid_tool_calls")]


def _listed(message: object, field: str) -> list[dict[str, object]]:
    try:
        value = getattr(message, field, None)
        listed = value if isinstance(value, list) else []
        return [dict(call) for call in listed if isinstance(call, Mapping)]
    except Exception:  # noqa: BLE001 - an object whose attributes or items raise: no calls
        return []


def _chat_message(message: object) -> dict[str, object]:
    """The Chat Completions message an `AIMessage`'s calls were, valid and invalid: the one
    reading both its requests and its history message come from."""
    return {
        "role": "assistant",
        "tool_calls": [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {"name": call.get("name"), "arguments": call.get("args")},
            }
            for call in calls(message)
        ],
    }


def requests(message: object, read: Read) -> list[ToolCallRequest[object]]:
    """The calls of an `AIMessage`, valid and invalid, read as the Chat Completions message they
    were (`read` is the package's `from_openai_chat`): one reading of a reply's calls, with its
    ids (`call_<n>` for a call without one, a call whose id another holds dropped)."""
    return read(_chat_message(message))


def history_message(message: Any, history: History) -> Any:
    """The `AIMessage` for the history: in `tool_calls`, the calls its requests answer, with
    arguments that are a JSON object (as sent when they were one), and no `invalid_tool_calls`;
    the rest as it was. What is no `AIMessage` is returned as it is."""
    found = calls(message)
    copy = getattr(message, "model_copy", None) if found else None
    if not callable(copy):
        return message
    tool_calls = [
        {
            "name": call["function"]["name"],
            # History writes strict JSON text of one object: read back, it is that object.
            "args": json.loads(call["function"]["arguments"]),
            "id": call["id"],
            "type": "tool_call",
        }
        for call in history(_chat_message(message)).get("tool_calls", [])
    ]
    return copy(update={"tool_calls": tool_calls, "invalid_tool_calls": []})


def tool_messages(results: Iterable[ToolCallResult]) -> list[Any]:
    """A `ToolMessage` for each result, answering its call: the text the model reads
    (`to_openai_chat`'s), with `status="error"` unless the call succeeded."""
    messages = _core()
    batch = list(results)
    return [
        messages.ToolMessage(
            content=sent["content"],
            tool_call_id=sent["tool_call_id"],
            status="success" if result.ok else "error",
        )
        for result, sent in zip(batch, to_openai_chat(batch), strict=True)
    ]


def _last_message(state: object) -> object:
    """The last message of a graph's state: a mapping or object with `messages`, or a list."""
    listed = (
        state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", state)
    )
    return listed[-1] if isinstance(listed, list) and listed else None


def route(state: object) -> str:
    """`TOOLS_NODE` when the state's last message has calls, valid or invalid, else END."""
    return TOOLS_NODE if calls(_last_message(state)) else END


def tools_node(executor: ToolExecutor, read: Read, history: History) -> Any:
    """A LangGraph node (a `Runnable`, sync and async) that runs the last message's calls and
    returns the history message (replacing the model's, by its id) and a `ToolMessage` each.
    """
    runnables = load("langchain_core.runnables", "langchain-core", "the LangGraph tools node")

    def update(message: object, results: list[ToolCallResult]) -> dict[str, list[Any]]:
        return {"messages": [history_message(message, history), *tool_messages(results)]}

    def run(state: object) -> dict[str, list[Any]]:
        message = _last_message(state)
        return update(message, [executor.execute(call) for call in requests(message, read)])

    async def arun(state: object) -> dict[str, list[Any]]:
        message = _last_message(state)
        return update(message, await executor.aexecute_all(requests(message, read)))

    return runnables.RunnableLambda(run, afunc=arun, name=TOOLS_NODE)


def structured_tools(
    executor: ToolExecutor,
    tools: Sequence[Mapping[str, Any]],
    sent_names: Mapping[str, str],
    parse: Parse,
) -> list[Any]:
    """A `StructuredTool` for each tool with a handler: the name, description and schema of
    `tools` (the catalog's `OPENAI_TOOLS`); its arguments go to the catalog's parser as
    LangChain decoded them, and a call that did not succeed is a `ToolException`, which the tool
    turns into an error `ToolMessage` holding the executor's words."""
    structured = load("langchain_core.tools", "langchain-core", "the LangChain integration")
    made = []
    for tool in offered(tools, sent_names, executor):
        function = tool["function"]
        run, arun = _runners(executor, function["name"], parse, structured.ToolException)
        made.append(
            structured.StructuredTool(
                name=function["name"],
                description=function.get("description", ""),
                args_schema=dict(function["parameters"]),
                func=run,
                coroutine=arun,
                handle_tool_error=True,
            )
        )
    return made


def _runners(
    executor: ToolExecutor, name: str, parse: Parse, failure: type[Exception]
) -> tuple[Callable[..., str], Callable[..., Any]]:
    def reported(result: ToolCallResult) -> str:
        if not result.ok:
            raise failure(result.text)
        return result.text

    def run(**arguments: object) -> str:
        return reported(executor.execute(parse(name, arguments, "")))

    async def arun(**arguments: object) -> str:
        return reported(await executor.aexecute(parse(name, arguments, "")))

    return run, arun

"""Results of tool calls, and the forms in which each provider takes them back.

Standard library only. What the model reads of a result is `ToolCallResult.text`: the handler's
content (text as it is, anything else as JSON), or why the call failed or was not run, in words
it can act on; a note follows when the parser changed what the model sent. Every form is
encoded by `_outbound`: strict JSON in well-formed UTF-8, the same value in text and structure.
"""

from __future__ import annotations

import dataclasses
import json
import traceback as tracebacks
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, cast

from ._explain import explain_warnings
from ._outbound import Unsendable, encode, well_formed
from ._runtime import Invalid, ResultSpec

if TYPE_CHECKING:
    from ._types import (
        AnthropicToolResult,
        GeminiFunctionResponse,
        GeminiFunctionResponsePart,
        OpenAIFunctionCallOutput,
        OpenAIToolMessage,
    )

Status: TypeAlias = Literal["success", "failed", "rejected"]


@dataclasses.dataclass(frozen=True, slots=True)
class ToolCallResult:
    """The outcome of one call.

    `status` is "success" (`content` is what the handler returned), "failed" (the handler raised:
    `error` is the exception's type and text, `exception` the exception itself, for the program
    and its logs, never for the model; or it returned what JSON cannot carry, `errors` holding
    each code with its path, `result_non_finite_number:items[0]`) or "rejected" (not run: the
    request had errors, or no handler takes the tool; `error` says what to fix, `errors` holds
    the request's codes). `warnings` are the request's.

    For a tool that declares `returns`, a success also has `structured`: the handler's value as
    JSON, checked against the schema (what every provider form sends); a value that does not
    match is "failed", with `content` kept, `error` saying so and `errors` holding the codes
    (`missing_required:items[0].id`, ...).
    """

    tool_name: str
    tool_call_id: str
    status: Status
    content: object = None
    error: str | None = None
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    exception: BaseException | None = dataclasses.field(default=None, compare=False, repr=False)
    structured: dict[str, object] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "success"

    @property
    def traceback(self) -> str | None:
        """The traceback of the handler's exception, as Python prints it; None unless it raised."""
        if self.exception is None:
            return None
        return "".join(tracebacks.format_exception(self.exception))

    @property
    def text(self) -> str:
        """What the model reads: the content as text, or what went wrong; then any note."""
        if self.status == "success":
            body = content_text(self.content if self.structured is None else self.structured)
        elif self.status == "failed":
            body = f"Error: the tool failed: {self.error}"
        elif self.errors:
            body = f"Error: the call was not run: {self.error}. Correct the call and send it again."
        else:
            body = f"Error: the call was not run: {self.error}."
        note = explain_warnings(self.warnings)
        # The words may quote what a model or an exception wrote: text UTF-8 can encode.
        return well_formed(f"{body}\n\nNote: {note}." if note else body)


def content_text(content: object) -> str:
    """A handler's content as the model reads it: text as it is, anything else as strict JSON
    (`_outbound.encode`: what JSON cannot carry is replaced; the executor has already failed a
    handler's result that holds any)."""
    if isinstance(content, str):
        return well_formed(content)
    return encode(content).text


def content_json(content: object) -> object:
    """A handler's content as JSON values: what `content_text` writes, decoded."""
    if isinstance(content, str):
        return well_formed(content)
    return json.loads(encode(content).text)


def unsendable(content: object) -> tuple[Unsendable, ...]:
    """What in a handler's value JSON cannot carry (a NaN, a lone surrogate, a cycle, ...), each
    with its path."""
    return encode(content).problems


def check_result(
    returns: ResultSpec[object], content: object
) -> tuple[dict[str, object] | None, tuple[str, ...]]:
    """A handler's value checked against its tool's `returns`: its JSON form (as the schema
    describes it, defaults filled) and no codes, or None and the codes of the mismatch.

    The value may be the tool's `<Tool>Result` or plain values (a mapping by wire name; dates,
    enums and dataclasses as `content_text` writes them). A correction the arguments' parser
    would make (`"5"` for an integer, an undeclared key) is a mismatch: the handler is code, and
    what it returns must already be right. Only a None in an optional field is read as absent,
    as Python writes "no value"."""
    encoded = encode(content)
    if encoded.problems:
        return None, tuple(problem.error for problem in encoded.problems)
    plain = json.loads(encoded.text)
    if type(plain) is not dict:
        return None, (f"result_not_object:{type(plain).__name__}",)
    warnings: list[str] = []
    errors: list[str] = []
    typed = returns.check(plain, warnings, errors)
    problems = (*errors, *(w for w in warnings if not w.startswith(_ABSENT_CODE)))
    if problems or isinstance(typed, Invalid):
        return None, problems or ("result_invalid",)
    # The object the checker corrected in place: optional fields left out as None are not
    # there, defaults are; its dates become ISO text again.
    return cast(dict[str, object], json.loads(encode(plain).text)), ()


_ABSENT_CODE: Final = "null_treated_as_absent:"


# ---------------------------------------------------------------------------------------------
# Each provider's form (SPEC §4): what goes back into the conversation after the calls.


def to_openai_chat(results: Iterable[ToolCallResult]) -> list[OpenAIToolMessage]:
    """OpenAI Chat Completions: a `tool` message per call, to append to `messages`."""
    return [
        {"role": "tool", "tool_call_id": well_formed(result.tool_call_id), "content": result.text}
        for result in results
    ]


def to_openai_responses(results: Iterable[ToolCallResult]) -> list[OpenAIFunctionCallOutput]:
    """OpenAI Responses: a `function_call_output` item per call, for the next `input`."""
    return [
        {
            "type": "function_call_output",
            "call_id": well_formed(result.tool_call_id),
            "output": result.text,
        }
        for result in results
    ]


def to_anthropic(results: Iterable[ToolCallResult]) -> list[AnthropicToolResult]:
    """Anthropic Messages: a `tool_result` block per call, the content of the next user message."""
    return [
        {
            "type": "tool_result",
            "tool_use_id": well_formed(result.tool_call_id),
            "content": result.text,
            "is_error": not result.ok,
        }
        for result in results
    ]


def to_gemini(
    results: Iterable[ToolCallResult], names: Mapping[str, str] | None = None
) -> list[GeminiFunctionResponsePart]:
    """Gemini: a `functionResponse` part per call, the parts of the next user turn. The response
    holds `output` (the content as JSON values) or `error` (the text), as Gemini documents them.
    `names` (the package's `PROVIDER_NAMES["gemini"]`) gives the name Gemini was sent for a tool
    whose wire name it does not take, so that the response answers the call it made."""
    sent = names or {}
    parts: list[GeminiFunctionResponsePart] = []
    for result in results:
        response: dict[str, Any]
        if result.ok:
            output = result.content if result.structured is None else result.structured
            response = {"output": content_json(output)}
            note = explain_warnings(result.warnings)
            if note:
                response["note"] = well_formed(note)
        else:
            response = {"error": result.text}
        name = well_formed(sent.get(result.tool_name, result.tool_name))
        function_response: GeminiFunctionResponse = {"name": name, "response": response}
        if result.tool_call_id:
            call_id = well_formed(result.tool_call_id)
            function_response = {"id": call_id, "name": name, "response": response}
        parts.append({"functionResponse": function_response})
    return parts

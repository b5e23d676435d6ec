"""Results of tool calls, and the forms in which each provider takes them back.

Standard library only. What the model reads of a result is `ToolCallResult.text`: the handler's
content (text as it is, anything else as JSON), or why the call failed or was not run, in words
it can act on; a note follows when the parser changed what the model sent.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import traceback as tracebacks
from collections.abc import Iterable, Mapping
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, cast

from ._explain import explain_warnings
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
    and its logs, never for the model) or "rejected" (not run: the request had errors, or no
    handler takes the tool; `error` says what to fix, `errors` holds the request's codes).
    `warnings` are the request's.

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
        return f"{body}\n\nNote: {note}." if note else body


def content_text(content: object) -> str:
    """A handler's content as the model reads it: text as it is, anything else as JSON."""
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, ensure_ascii=False, default=_json_default)
    except Exception:  # noqa: BLE001 - a cycle, or a value whose own conversion raised
        # The model still gets text, and the result is still sent.
        return _plain_text(content)


def content_json(content: object) -> object:
    """A handler's content as JSON values (what `content_text` writes, decoded)."""
    if isinstance(content, str):
        return content
    text = content_text(content)
    try:
        return json.loads(text)
    except ValueError:
        return text


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
    try:
        plain = _wire_json(content, returns.wire_names)
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
        structured = _wire_json(plain, returns.wire_names)
    except Exception as exc:  # noqa: BLE001 - a cycle, NaN, or a value whose conversion raised
        return None, (f"result_not_json:{type(exc).__name__}",)
    return cast(dict[str, object], structured), ()


_ABSENT_CODE: Final = "null_treated_as_absent:"


def _wire_json(value: object, wire_names: Mapping[type, tuple[tuple[str, ...], str]]) -> object:
    """`value` as JSON values, each result dataclass as an object keyed by wire name (an open
    object's other keys among them), anything else as `content_text` writes it."""

    def default(item: object) -> object:
        names = wire_names.get(type(item))
        if names is None:
            return _json_default(item)
        wires, extra = names
        fields = dataclasses.fields(item)  # type: ignore[arg-type]
        out = {wire: getattr(item, field.name) for wire, field in zip(wires, fields)}
        if extra:
            out.update(getattr(item, extra))
        return out

    return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False, default=default))


def _json_default(value: object) -> object:
    """JSON for what the json module does not know: the ISO text of dates and times, an enum's
    value, a dataclass's fields, a set's items, a pydantic model's own JSON form, and the text of
    anything else (UUID, Decimal, Path, ...)."""
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, (set, frozenset)):
        try:
            return sorted(value)  # a set has no order of its own: sorted, when it can be
        except TypeError:
            return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return _plain_text(value)


def _plain_text(value: object) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a value whose __str__ raises is still a value of a type
        return f"<{type(value).__name__}>"


# ---------------------------------------------------------------------------------------------
# Each provider's form (SPEC §4): what goes back into the conversation after the calls.


def to_openai_chat(results: Iterable[ToolCallResult]) -> list[OpenAIToolMessage]:
    """OpenAI Chat Completions: a `tool` message per call, to append to `messages`."""
    return [
        {"role": "tool", "tool_call_id": result.tool_call_id, "content": result.text}
        for result in results
    ]


def to_openai_responses(results: Iterable[ToolCallResult]) -> list[OpenAIFunctionCallOutput]:
    """OpenAI Responses: a `function_call_output` item per call, for the next `input`."""
    return [
        {"type": "function_call_output", "call_id": result.tool_call_id, "output": result.text}
        for result in results
    ]


def to_anthropic(results: Iterable[ToolCallResult]) -> list[AnthropicToolResult]:
    """Anthropic Messages: a `tool_result` block per call, the content of the next user message."""
    return [
        {
            "type": "tool_result",
            "tool_use_id": result.tool_call_id,
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
                response["note"] = note
        else:
            response = {"error": result.text}
        name = sent.get(result.tool_name, result.tool_name)
        function_response: GeminiFunctionResponse = {"name": name, "response": response}
        if result.tool_call_id:
            function_response = {"id": result.tool_call_id, "name": name, "response": response}
        parts.append({"functionResponse": function_response})
    return parts

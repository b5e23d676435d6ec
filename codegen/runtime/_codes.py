"""Every code a package puts in a request's `warnings` and `errors` (and its readers' problems):
the one table of them, and how a code's text is read back into its parts.

Standard library only. Each code has its level, the section of docs/parsing.md it is listed in,
its meaning in one line (that page's "when", rendered from here by `codegen.docs_tables`), and
the words `_explain` says it in, which name the context the parser recorded where it found the
problem (`minimum: 1`, the allowed values): nothing reads the schema again to explain a code.
"""

from __future__ import annotations

import re
from typing import Final, Literal, NamedTuple, TypeAlias

from ._runtime import Detail, detail

Level: TypeAlias = Literal["warning", "error", "problem"]
Section: TypeAlias = Literal["parameter", "call", "repair", "text", "reply", "result", "stream"]


class Code(NamedTuple):
    """One code: where it is listed, its level, when it is given, and its words.

    `messages` are (what the context must hold, words), the first that fits said: `""` always
    fits, `key` when the context has it, `key=value` when it has that value. The words are a
    `str.format` text of `path` and the context (`_explain` renders them). `suffix` says what
    follows the code's colon: nothing (`""`), the path of a parameter (`"path"`: the codes about
    one parameter, and those of a result, with a path inside it), or the context key of a detail
    (`"error"`); one ending in `|` holds a list written with `|` between its items, and one of
    several parts names each in braces (`"{reason} (original: {original})"`).
    """

    section: Section
    level: Level
    meaning: str
    messages: tuple[tuple[str, str], ...] = ()
    suffix: str = ""
    # A warning said to the model with its call's result: the call ran with other values than
    # the ones sent (a number truncated, a parameter ignored), which the model should know.
    said: bool = False


CODES: Final[dict[str, Code]] = {
    "string_literal_converted_to_boolean": Code(
        "parameter",
        "warning",
        'a boolean sent as text: `"true"`/`"false"`, `yes`/`no`, `on`/`off`, `"1"`/`"0"`',
        messages=(("", "`{path}` was sent as text and read as a boolean"),),
        suffix="path",
    ),
    "number_coerced_to_boolean": Code(
        "parameter",
        "warning",
        "a boolean sent as `0` or `1`",
        messages=(("", "`{path}` was sent as a number and read as a boolean"),),
        suffix="path",
    ),
    "string_literal_converted_to_integer": Code(
        "parameter",
        "warning",
        'an integer sent as text (`"42"`)',
        messages=(("", "`{path}` was sent as text and read as an integer"),),
        suffix="path",
    ),
    "number_coerced_to_integer": Code(
        "parameter",
        "warning",
        "an integer sent as a whole float (`3.0`)",
        messages=(("", "`{path}` was sent as a whole float and read as an integer"),),
        suffix="path",
    ),
    "fractional_number_truncated_to_integer": Code(
        "parameter",
        "warning",
        "an integer sent with a fraction (`3.7`): truncated",
        messages=(("", "`{path}` must be an integer and was truncated to one"),),
        said=True,
        suffix="path",
    ),
    "string_literal_converted_to_number": Code(
        "parameter",
        "warning",
        'a number sent as text (`"2.5"`)',
        messages=(("", "`{path}` was sent as text and read as a number"),),
        suffix="path",
    ),
    "non_string_literal_retained": Code(
        "parameter",
        "warning",
        "a string sent as `true`, `42` or `1.5`: kept as its text",
        messages=(
            ("", "`{path}` must be a string and was sent as another value: its text was kept"),
        ),
        suffix="path",
    ),
    "string_parsed_as_json": Code(
        "parameter",
        "warning",
        "an object or array sent as a string holding JSON",
        messages=(("", "`{path}` was sent as a string holding JSON, which was read"),),
        suffix="path",
    ),
    "list_text_repaired": Code(
        "parameter",
        "warning",
        "an array sent as the text of a list that is not JSON (`\"['Friends']\"`): read by the text repairs",
        messages=(("", "`{path}` was sent as the text of a list, which was read"),),
        suffix="path",
    ),
    "scalar_coerced_to_list": Code(
        "parameter",
        "warning",
        "an array sent as one value: wrapped in a list",
        messages=(("", "`{path}` must be an array and was sent as one value, put in a list"),),
        suffix="path",
    ),
    "enum_case_normalized": Code(
        "parameter",
        "warning",
        "an enum value in another case: the canonical one",
        messages=(("", "`{path}` was sent in another case than its allowed value"),),
        suffix="path",
    ),
    "uri_not_absolute": Code(
        "parameter",
        "warning",
        "a `uri` without a scheme: kept",
        messages=(("", "`{path}` is not an absolute URI: it has no scheme"),),
        suffix="path",
    ),
    "timestamp_without_offset": Code(
        "parameter",
        "warning",
        "a `date-time` without a UTC offset (`2024-05-01 09:30`, or a date alone): read as UTC",
        messages=(("", "`{path}` had no UTC offset and was read as UTC"),),
        said=True,
        suffix="path",
    ),
    "string_literal_converted_to_null": Code(
        "parameter",
        "warning",
        'a nullable non-string parameter sent as `"null"`',
        messages=(("", '`{path}` was sent as the text "null" and read as null'),),
        suffix="path",
    ),
    "null_treated_as_absent": Code(
        "parameter",
        "warning",
        "an optional, non-nullable parameter sent as `null`: absent, its default applies",
        messages=(("", "`{path}` was null and was treated as not given"),),
        said=True,
        suffix="path",
    ),
    "lone_surrogate_replaced": Code(
        "parameter",
        "warning",
        'a lone surrogate (`"\\ud800"`) in a string or a key: replaced by U+FFFD',
        messages=(("", "`{path}` held a lone surrogate, which is not text, replaced by U+FFFD"),),
        said=True,
        suffix="path",
    ),
    "unknown_parameter": Code(
        "parameter",
        "warning",
        "a name the tool does not declare: kept in `values`",
        messages=(("", "`{path}` is not a parameter of this tool and was ignored"),),
        said=True,
        suffix="path",
    ),
    "key_converted_to_text": Code(
        "parameter",
        "warning",
        'an object\'s key sent as a number, boolean or null (a dict input, a pythonic call): its JSON text (`1` → `"1"`, `True` → `"true"`); the path is the value\'s under it',
        messages=(("", "`{path}` was under a key that is not text, written as its JSON text"),),
        suffix="path",
    ),
    "missing_required": Code(
        "parameter",
        "error",
        "a required parameter missing or `null`",
        messages=(("", "`{path}` is missing"),),
        suffix="path",
    ),
    "unsupported_boolean_literal": Code(
        "parameter",
        "error",
        "no boolean can be read from the value",
        messages=(("", "`{path}` must be true or false"),),
        suffix="path",
    ),
    "unsupported_integer_literal": Code(
        "parameter",
        "error",
        "no integer can be read from the value",
        messages=(("", "`{path}` must be an integer"),),
        suffix="path",
    ),
    "unsupported_number_literal": Code(
        "parameter",
        "error",
        "no number can be read from the value",
        messages=(("", "`{path}` must be a number"),),
        suffix="path",
    ),
    "unsupported_string_literal": Code(
        "parameter",
        "error",
        "an object or array sent for a string",
        messages=(("", "`{path}` must be a string"),),
        suffix="path",
    ),
    "unsupported_object_literal": Code(
        "parameter",
        "error",
        "no object can be read from the value",
        messages=(("", "`{path}` must be a JSON object"),),
        suffix="path",
    ),
    "unsupported_array_literal": Code(
        "parameter",
        "error",
        "no array can be read from the value, or a list element is `null`",
        messages=(("", "`{path}` must be an array"),),
        suffix="path",
    ),
    "unsupported_null_literal": Code(
        "parameter",
        "error",
        'anything but `null` for `type: "null"`',
        messages=(("", "`{path}` must be null"),),
        suffix="path",
    ),
    "unsupported_timestamp_literal": Code(
        "parameter",
        "error",
        "a `date-time` or `date` that is not ISO 8601",
        messages=(
            ("format=date", "`{path}` must be a date in ISO 8601 form, such as 2024-05-01"),
            (
                "",
                "`{path}` must be a date and time in ISO 8601 form, such as 2024-05-01T09:30:00Z",
            ),
        ),
        suffix="path",
    ),
    "unsupported_union_literal": Code(
        "parameter",
        "error",
        "no member of a union takes the value",
        messages=(
            ("types", "`{path}` must be one of these types: {types}"),
            ("", "`{path}` matches none of its allowed forms"),
        ),
        suffix="path",
    ),
    "ambiguous_union_literal": Code(
        "parameter",
        "error",
        "a `oneOf` value that two branches take as sent",
        messages=(
            (
                "",
                (
                    "`{path}` matches more than one of its allowed forms; send a value that"
                    " matches exactly one"
                ),
            ),
        ),
        suffix="path",
    ),
    "enum_out_of_range": Code(
        "parameter",
        "error",
        "a value outside `enum` or `const`",
        messages=(
            ("allowed", "`{path}` must be {allowed!j}"),
            ("", "`{path}` is not one of its allowed values"),
        ),
        suffix="path",
    ),
    "out_of_range": Code(
        "parameter",
        "error",
        "outside `minimum`/`maximum` (or their exclusive forms)",
        messages=(
            ("minimum", "`{path}` must be at least {minimum}"),
            ("exclusiveMinimum", "`{path}` must be greater than {exclusiveMinimum}"),
            ("maximum", "`{path}` must be at most {maximum}"),
            ("exclusiveMaximum", "`{path}` must be less than {exclusiveMaximum}"),
            ("", "`{path}` must be within its allowed range"),
        ),
        suffix="path",
    ),
    "length_out_of_range": Code(
        "parameter",
        "error",
        "outside a string's lengths or an array's item counts",
        messages=(
            ("minLength", "`{path}` must be at least {minLength} {minLength:character} long"),
            ("maxLength", "`{path}` must be at most {maxLength} {maxLength:character} long"),
            ("minItems", "`{path}` must have at least {minItems} {minItems:item}"),
            ("maxItems", "`{path}` must have at most {maxItems} {maxItems:item}"),
            ("", "`{path}` has a length out of its allowed range"),
        ),
        suffix="path",
    ),
    "pattern_mismatch": Code(
        "parameter",
        "error",
        "a string that does not match `pattern`",
        messages=(
            ("pattern", "`{path}` must match the pattern `{pattern}`"),
            ("", "`{path}` does not match its pattern"),
        ),
        suffix="path",
    ),
    "value_not_json": Code(
        "parameter",
        "error",
        "a value JSON cannot carry (a dict input, an SDK's object, a pythonic call): a set, bytes, a complex number, `...`, NaN or an infinity, any other object",
        messages=(("", "`{path}` must be text, a number, a boolean, null, an array or an object"),),
        suffix="path",
    ),
    "key_not_json": Code(
        "parameter",
        "error",
        "an object's key JSON cannot carry (a tuple, bytes, any other object), or two keys with one JSON text (`{1: …, \"1\": …}`): the object's path, none for the arguments' own keys",
        messages=(
            ("path", "`{path}` must be a JSON object whose keys are text, each once"),
            ("", "the arguments must be a JSON object whose keys are text, each once"),
        ),
        suffix="path",
    ),
    "arguments_unquoted": Code(
        "call",
        "warning",
        "arguments JSON-encoded as a string, again and again (up to 10 levels)",
        messages=(("", "the arguments were sent JSON-encoded as a string, and unwrapped"),),
    ),
    "tool_definition_missing": Code(
        "call",
        "warning",
        "a tool name the catalog does not know: a generic lenient parse, refused (`ok` is False)",
        messages=(("", "the tool is not one of the catalog's"),),
    ),
    "json_parse_error": Code(
        "call",
        "error",
        "the arguments are not JSON, even after the text repairs: `json_parse_error:<reason> (original: …)`",
        suffix="{reason} (original: {original})",
        messages=(
            (
                "reason",
                "the arguments are not valid JSON ({reason}); they must be one JSON object",
            ),
        ),
    ),
    "arguments_not_object": Code(
        "call",
        "error",
        "the arguments are JSON but not an object",
        messages=(("", "the arguments must be one JSON object of named parameters"),),
    ),
    "arguments_too_deep": Code(
        "call",
        "error",
        "nesting deeper than 128",
        messages=(("", "the arguments are nested too deeply"),),
    ),
    "arguments_too_large": Code(
        "call",
        "error",
        "text of more than 64 Mi characters, or a dict of more than 1,000,000 values",
        messages=(("", "the arguments are too large"),),
    ),
    "unreadable_arguments": Code(
        "call",
        "error",
        "an input that raises when read (a released memoryview, a raising mapping): `:<Error>`",
        suffix="error",
        messages=(("", "the arguments could not be read"),),
    ),
    "truncated_arguments": Code(
        "call",
        "error",
        "a reply cut off mid-way: the complete parameters are kept, the call does not run",
        messages=(("", "the arguments were cut off before their end"),),
    ),
    "markdown_fence_stripped": Code(
        "repair",
        "warning",
        "the JSON inside a Markdown code fence",
        messages=(("", "the arguments were inside a Markdown code fence"),),
    ),
    "json_extracted_from_text": Code(
        "repair",
        "warning",
        "the JSON object inside a sentence",
        messages=(("", "the arguments were inside other text"),),
    ),
    "smart_quote_replaced": Code(
        "repair",
        "warning",
        "strings in typographic quotes (`“…”`, `‘…’`)",
        messages=(("", "the arguments had strings in typographic quotes"),),
    ),
    "single_quotes_converted": Code(
        "repair",
        "warning",
        "`'single-quoted'` strings",
        messages=(("", "the arguments had single-quoted strings"),),
    ),
    "python_literal_converted": Code(
        "repair",
        "warning",
        "Python's `True`, `False`, `None` outside strings",
        messages=(("", "the arguments had Python's True, False or None"),),
    ),
    "unquoted_key_quoted": Code(
        "repair",
        "warning",
        'a key without quotes (`{query: "x"}`)',
        messages=(("", "the arguments had a key without quotes"),),
    ),
    "control_character_escaped": Code(
        "repair",
        "warning",
        "a raw line break, tab or other control character inside a string value",
        messages=(("", "the arguments had a raw control character inside a string"),),
    ),
    "comment_removed": Code(
        "repair",
        "warning",
        "`//` and `/* */` comments outside strings",
        messages=(("", "the arguments had comments"),),
    ),
    "missing_comma_inserted": Code(
        "repair",
        "warning",
        'no comma between two members or items (`{"a": 1 "b": 2}`)',
        messages=(("", "the arguments lacked a comma between two members or items"),),
    ),
    "trailing_comma_removed": Code(
        "repair",
        "warning",
        "a trailing comma before `}` or `]`",
        messages=(("", "the arguments had a trailing comma"),),
    ),
    "arguments_envelope": Code(
        "text",
        "warning",
        "the arguments under another key than `parameters`: `:<key>` (`arguments`, `args`, `input`, …)",
        suffix="key",
    ),
    "name_envelope": Code(
        "text",
        "warning",
        "the tool's name under another key than `name`: `:<key>` (`tool`, `function_name`, …)",
        suffix="key",
    ),
    "call_envelope": Code(
        "text",
        "warning",
        "the call one level down, as OpenAI writes a tool call: `:<key>` (`function`, …)",
        suffix="key",
    ),
    "flat_call_object": Code(
        "text", "warning", "the tool's name beside its arguments in one object"
    ),
    "tool_name_as_key": Code(
        "text",
        "warning",
        'a map from a tool\'s name to its arguments (`{"get_weather": {"city": "Paris"}}`)',
    ),
    "tool_name_guessed": Code(
        "text",
        "warning",
        "two keys that may name the tool and the catalog cannot settle which (both name its tools, or neither): the first of `name`, `function_name`, … taken: `:<key>`",
        suffix="key",
    ),
    "pythonic_call": Code(
        "text",
        "warning",
        "a call in Python's syntax (`[f(a=1)]`), read with literals only, never evaluated",
    ),
    "call_extracted_from_text": Code("text", "warning", "a list of pythonic calls inside prose"),
    "calls_on_separate_lines": Code(
        "text",
        "warning",
        "pythonic calls one per line, without list brackets (`f(a=1)` then `g(b=2)`)",
    ),
    "lists_on_separate_lines": Code(
        "text", "warning", "lists of pythonic calls one per line (`[f(a=1)]` then `[g(b=2)]`)"
    ),
    "json_literal_in_call": Code(
        "text", "warning", "JSON's `true`, `false`, `null` in a pythonic call (`f(flag=true)`)"
    ),
    "native_format": Code(
        "text",
        "warning",
        "an open model's own format: `:hermes`, `:qwen3_coder`, `:functionary`, `:mistral`, `:llama`, `:deepseek`, `:kimi_k2`, `:harmony`",
        suffix="format",
    ),
    "think_block_removed": Code("text", "warning", "a `<think>` block before the calls"),
    "tool_name_normalized": Code(
        "text",
        "warning",
        "a tool's name in another case or punctuation (`Math_Factorial`): `:<name sent>`",
        suffix="name",
    ),
    "key_case_normalized": Code(
        "text",
        "warning",
        "an argument's key in another case (`Query`): `:<parameter>`",
        suffix="parameter",
    ),
    "ambiguous_tool_name": Code(
        "text",
        "error",
        "a name that two tools match with case and punctuation aside: `:<tool>|<tool>`",
        suffix="tools|",
        messages=(
            (
                "tools",
                "the tool name matches more than one tool ({tools!c}): send one exact name",
            ),
        ),
    ),
    "tool_call_id_generated": Code(
        "reply",
        "warning",
        "a call without an id: it gets `call_<i>`, its position in the list returned (`call_<i>_2`, … when a call of the reply has that id)",
    ),
    "malformed_tool_call": Code(
        "reply",
        "error",
        "a call without a usable name: `:function`, `:function.name` or `:name`",
        suffix="field",
    ),
    "malformed_response": Code(
        "reply",
        "error",
        "a value of no shape the provider has where a reply, call or item belongs: `:<its type>`",
        suffix="type",
    ),
    "unreadable_response": Code(
        "reply", "error", "reading the reply raised: `:<Error>`", suffix="error"
    ),
    "unreadable_tool_call": Code(
        "reply", "error", "reading a call raised: `:<Error>`", suffix="error"
    ),
    "response_too_large": Code(
        "reply", "error", "more than 1,000,000 nodes to walk: the walk stops"
    ),
    "model_reported_error": Code(
        "reply",
        "error",
        'prompt mode: the model\'s `"error"` instead of arguments: `:<its text>`',
        suffix="text",
        messages=(
            ("text", "the call reported an error: {text}"),
            ("", "the call reported an error"),
        ),
    ),
    "stream_index_missing": Code(
        "stream", "warning", "an OpenAI chat tool-call delta without `index`"
    ),
    "stream_index_reused": Code(
        "stream",
        "warning",
        "another call on a chat index in use (a new id, or new text after whole arguments)",
    ),
    "stream_duplicate_arguments_ignored": Code(
        "stream", "warning", "a call's whole arguments sent again"
    ),
    "stream_duplicate_start_ignored": Code(
        "stream", "warning", "an Anthropic block start or a Responses item start repeated"
    ),
    "stream_call_start_missing": Code(
        "stream", "warning", "argument pieces of a call whose start never came"
    ),
    "stream_call_start_late": Code(
        "stream", "warning", "an Anthropic block start after its deltas"
    ),
    "stream_arguments_replaced": Code(
        "stream",
        "warning",
        "a Responses `.done` event's whole arguments differ from the deltas: they win",
    ),
    "stream_call_recovered": Code("stream", "warning", "a call only `response.completed` holds"),
    "stream_ended_early": Code(
        "stream", "warning", "whole arguments, but the stream ended without completing the call"
    ),
    "stream_partial_arg_unreadable": Code(
        "stream",
        "warning",
        "a Vertex AI partial argument that cannot be placed (`:<json path>`): with the error `truncated_arguments`",
        suffix="json_path",
    ),
    "malformed_event": Code("stream", "problem", "an event that is no record"),
    "unreadable_event": Code(
        "stream", "problem", "reading an event raised: `:<Error>`", suffix="error"
    ),
    "result_not_object": Code(
        "result",
        "error",
        "a handler's value that is no JSON object: `:<its type>` (`list`, `str`, …)",
        suffix="type",
    ),
    "result_non_finite_number": Code(
        "result", "error", "NaN or an infinity in a handler's value (also as a key)", suffix="path"
    ),
    "result_lone_surrogate": Code(
        "result",
        "error",
        'text in a handler\'s value (or a key) holding a lone surrogate (`os.fsdecode(b"\\xe9")`)',
        suffix="path",
    ),
    "result_circular_reference": Code(
        "result", "error", "a container in a handler's value that holds itself", suffix="path"
    ),
    "result_key_not_text": Code(
        "result", "error", "a key JSON cannot write (a tuple, an object)", suffix="path"
    ),
    "result_integer_too_long": Code(
        "result", "error", "an integer of more than 4,300 digits", suffix="path"
    ),
    "result_unreadable_value": Code(
        "result",
        "error",
        "a value whose conversion to JSON (`model_dump`, a property) raised: `(<Error>)` in the words",
        suffix="path",
    ),
    "result_too_deep": Code(
        "result", "error", "a value nested more than 400 levels deep", suffix="path"
    ),
    "duplicate_event": Code("stream", "problem", "a Responses `sequence_number` seen before"),
    "duplicate_call": Code(
        "reply",
        "problem",
        "a call with the id, name and arguments of an earlier call of the reply (a replay): dropped; the `from_*` adapters, which have no problems, say it as a warning on the call kept",
    ),
    "duplicate_call_id": Code(
        "reply",
        "problem",
        "another call with the id of an earlier call of the reply: dropped, said as `duplicate_call` is",
    ),
    "late_fragment": Code("stream", "problem", "arguments for a call already yielded"),
    "stream_error": Code(
        "stream", "problem", "the source raised: `:<Error>`; the stream ends there", suffix="error"
    ),
    "malformed_stream": Code("stream", "problem", "a source that is not iterable"),
}


def read(text: str) -> Detail:
    """A code's text (`out_of_range:limit`, `unreadable_arguments:ValueError`) as a Detail: the
    text itself when it is one, else its parts as the table says to read them."""
    if isinstance(text, Detail):
        return text
    code, _, rest = str(text).partition(":")
    entry = CODES.get(code)
    suffix = "path" if entry is None else entry.suffix  # a code of the caller's: as a parameter's
    if suffix == "path" or not rest:
        return detail(code, rest, {}, text)
    if not suffix:
        return detail(code, "", {"detail": rest}, text)
    if suffix.endswith("|"):
        return detail(code, "", {suffix[:-1]: rest.split("|")}, text)
    if "{" in suffix:
        found = _pattern(suffix).fullmatch(rest)
        if found is not None:
            return detail(code, "", found.groupdict(), text)
        return detail(code, "", {_first_key(suffix): rest}, text)
    return detail(code, "", {suffix: rest}, text)


def _pattern(suffix: str) -> re.Pattern[str]:
    """A suffix of several parts (`{reason} (original: {original})`) as a regular expression:
    each part as short as it can be, the last to the end."""
    parts = re.split(r"\{(\w+)\}", suffix)
    pattern = "".join(
        f"(?P<{part}>.*?)" if index % 2 else re.escape(part) for index, part in enumerate(parts)
    )
    return re.compile(pattern, re.DOTALL)


def _first_key(suffix: str) -> str:
    found = re.search(r"\{(\w+)\}", suffix)
    return "" if found is None else found[1]

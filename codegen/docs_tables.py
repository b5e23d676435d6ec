"""The reference tables of docs/*.md, rendered from the code so that they cannot drift.

Each table sits in its page between two marker comments; `python -m codegen.docs_tables` renders
every table and rewrites what is between the markers (`--check`: exit 1, naming the stale tables,
and write nothing). tests/test_docs_pages.py fails when a committed page differs from this output.

The parser's codes are emitted from many places (the runtime, each kind's checks, the adapters),
so `PARSE_CODES` below is the one list of them; the test holds it to the generated packages.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from codegen.cli import _parser
from codegen.diagnostics import CODES
from codegen.runtime import _runtime as rt
from codegen.vocabulary import FORMATS, KEYWORDS, formats_kept

DOCS = Path(__file__).resolve().parent.parent / "docs"
REFRESH = "python -m codegen.docs_tables"

Level = Literal["warning", "error", "problem"]

# code → (section, level, when): what the parse functions, the adapters and the JSONL parser put
# in a request's `warnings` and `errors`, each followed by `:path` when it is about one parameter.
PARSE_CODES: dict[str, tuple[str, Level, str]] = {
    "string_literal_converted_to_boolean": (
        "parameter",
        "warning",
        'a boolean sent as text: `"true"`/`"false"`, `yes`/`no`, `on`/`off`, `"1"`/`"0"`',
    ),
    "number_coerced_to_boolean": ("parameter", "warning", "a boolean sent as `0` or `1`"),
    "string_literal_converted_to_integer": (
        "parameter",
        "warning",
        'an integer sent as text (`"42"`)',
    ),
    "number_coerced_to_integer": (
        "parameter",
        "warning",
        "an integer sent as a whole float (`3.0`)",
    ),
    "fractional_number_truncated_to_integer": (
        "parameter",
        "warning",
        "an integer sent with a fraction (`3.7`): truncated",
    ),
    "string_literal_converted_to_number": (
        "parameter",
        "warning",
        'a number sent as text (`"2.5"`)',
    ),
    "non_string_literal_retained": (
        "parameter",
        "warning",
        "a string sent as `true`, `42` or `1.5`: kept as its text",
    ),
    "string_parsed_as_json": (
        "parameter",
        "warning",
        "an object or array sent as a string holding JSON",
    ),
    "list_text_repaired": (
        "parameter",
        "warning",
        "an array sent as the text of a list that is not JSON (`\"['Friends']\"`): read by the text repairs",
    ),
    "scalar_coerced_to_list": (
        "parameter",
        "warning",
        "an array sent as one value: wrapped in a list",
    ),
    "enum_case_normalized": (
        "parameter",
        "warning",
        "an enum value in another case: the canonical one",
    ),
    "uri_not_absolute": ("parameter", "warning", "a `uri` without a scheme: kept"),
    "timestamp_without_offset": (
        "parameter",
        "warning",
        "a `date-time` without a UTC offset (`2024-05-01 09:30`, or a date alone): read as UTC",
    ),
    "string_literal_converted_to_null": (
        "parameter",
        "warning",
        'a nullable non-string parameter sent as `"null"`',
    ),
    "null_treated_as_absent": (
        "parameter",
        "warning",
        "an optional, non-nullable parameter sent as `null`: absent, its default applies",
    ),
    "lone_surrogate_replaced": (
        "parameter",
        "warning",
        'a lone surrogate (`"\\ud800"`) in a string or a key: replaced by U+FFFD',
    ),
    "unknown_parameter": (
        "parameter",
        "warning",
        "a name the tool does not declare: kept in `values`",
    ),
    "key_converted_to_text": (
        "parameter",
        "warning",
        'an object\'s key sent as a number, boolean or null (a dict input, a pythonic call): its JSON text (`1` → `"1"`, `True` → `"true"`); the path is the value\'s under it',
    ),
    "missing_required": ("parameter", "error", "a required parameter missing or `null`"),
    "unsupported_boolean_literal": ("parameter", "error", "no boolean can be read from the value"),
    "unsupported_integer_literal": ("parameter", "error", "no integer can be read from the value"),
    "unsupported_number_literal": ("parameter", "error", "no number can be read from the value"),
    "unsupported_string_literal": ("parameter", "error", "an object or array sent for a string"),
    "unsupported_object_literal": ("parameter", "error", "no object can be read from the value"),
    "unsupported_array_literal": (
        "parameter",
        "error",
        "no array can be read from the value, or a list element is `null`",
    ),
    "unsupported_null_literal": ("parameter", "error", 'anything but `null` for `type: "null"`'),
    "unsupported_timestamp_literal": (
        "parameter",
        "error",
        "a `date-time` or `date` that is not ISO 8601",
    ),
    "unsupported_union_literal": ("parameter", "error", "no member of a union takes the value"),
    "ambiguous_union_literal": (
        "parameter",
        "error",
        "a `oneOf` value that two branches take as sent",
    ),
    "enum_out_of_range": ("parameter", "error", "a value outside `enum` or `const`"),
    "out_of_range": (
        "parameter",
        "error",
        "outside `minimum`/`maximum` (or their exclusive forms)",
    ),
    "length_out_of_range": (
        "parameter",
        "error",
        "outside a string's lengths or an array's item counts",
    ),
    "pattern_mismatch": ("parameter", "error", "a string that does not match `pattern`"),
    "value_not_json": (
        "parameter",
        "error",
        "a value JSON cannot carry (a dict input, an SDK's object, a pythonic call): a set, bytes, a complex number, `...`, NaN or an infinity, any other object",
    ),
    "key_not_json": (
        "parameter",
        "error",
        "an object's key JSON cannot carry (a tuple, bytes, any other object), or two keys with one JSON text (`{1: …, \"1\": …}`): the object's path, none for the arguments' own keys",
    ),
    "arguments_unquoted": (
        "call",
        "warning",
        "arguments JSON-encoded as a string, again and again (up to 10 levels)",
    ),
    "tool_definition_missing": (
        "call",
        "warning",
        "a tool name the catalog does not know: a generic lenient parse, refused (`ok` is False)",
    ),
    "json_parse_error": (
        "call",
        "error",
        "the arguments are not JSON, even after the text repairs: `json_parse_error:<reason> (original: …)`",
    ),
    "arguments_not_object": ("call", "error", "the arguments are JSON but not an object"),
    "arguments_too_deep": ("call", "error", "nesting deeper than 128"),
    "arguments_too_large": (
        "call",
        "error",
        "text of more than 64 Mi characters, or a dict of more than 1,000,000 values",
    ),
    "unreadable_arguments": (
        "call",
        "error",
        "an input that raises when read (a released memoryview, a raising mapping): `:<Error>`",
    ),
    "truncated_arguments": (
        "call",
        "error",
        "a reply cut off mid-way: the complete parameters are kept, the call does not run",
    ),
    "markdown_fence_stripped": ("repair", "warning", "the JSON inside a Markdown code fence"),
    "json_extracted_from_text": ("repair", "warning", "the JSON object inside a sentence"),
    "smart_quote_replaced": ("repair", "warning", "strings in typographic quotes (`“…”`, `‘…’`)"),
    "single_quotes_converted": ("repair", "warning", "`'single-quoted'` strings"),
    "python_literal_converted": (
        "repair",
        "warning",
        "Python's `True`, `False`, `None` outside strings",
    ),
    "unquoted_key_quoted": ("repair", "warning", 'a key without quotes (`{query: "x"}`)'),
    "control_character_escaped": (
        "repair",
        "warning",
        "a raw line break, tab or other control character inside a string value",
    ),
    "comment_removed": ("repair", "warning", "`//` and `/* */` comments outside strings"),
    "missing_comma_inserted": (
        "repair",
        "warning",
        'no comma between two members or items (`{"a": 1 "b": 2}`)',
    ),
    "trailing_comma_removed": ("repair", "warning", "a trailing comma before `}` or `]`"),
    "arguments_envelope": (
        "text",
        "warning",
        "the arguments under another key than `parameters`: `:<key>` (`arguments`, `args`, `input`, …)",
    ),
    "name_envelope": (
        "text",
        "warning",
        "the tool's name under another key than `name`: `:<key>` (`tool`, `function_name`, …)",
    ),
    "call_envelope": (
        "text",
        "warning",
        "the call one level down, as OpenAI writes a tool call: `:<key>` (`function`, …)",
    ),
    "flat_call_object": ("text", "warning", "the tool's name beside its arguments in one object"),
    "tool_name_as_key": (
        "text",
        "warning",
        'a map from a tool\'s name to its arguments (`{"get_weather": {"city": "Paris"}}`)',
    ),
    "tool_name_guessed": (
        "text",
        "warning",
        (
            "two keys that may name the tool and the catalog cannot settle which (both name"
            " its tools, or neither): the first of `name`, `function_name`, … taken: `:<key>`"
        ),
    ),
    "pythonic_call": (
        "text",
        "warning",
        "a call in Python's syntax (`[f(a=1)]`), read with literals only, never evaluated",
    ),
    "call_extracted_from_text": ("text", "warning", "a list of pythonic calls inside prose"),
    "calls_on_separate_lines": (
        "text",
        "warning",
        "pythonic calls one per line, without list brackets (`f(a=1)` then `g(b=2)`)",
    ),
    "lists_on_separate_lines": (
        "text",
        "warning",
        "lists of pythonic calls one per line (`[f(a=1)]` then `[g(b=2)]`)",
    ),
    "json_literal_in_call": (
        "text",
        "warning",
        "JSON's `true`, `false`, `null` in a pythonic call (`f(flag=true)`)",
    ),
    "native_format": (
        "text",
        "warning",
        (
            "an open model's own format: `:hermes`, `:qwen3_coder`, `:functionary`, `:mistral`, "
            "`:llama`, `:deepseek`, `:kimi_k2`, `:harmony`"
        ),
    ),
    "think_block_removed": ("text", "warning", "a `<think>` block before the calls"),
    "tool_name_normalized": (
        "text",
        "warning",
        "a tool's name in another case or punctuation (`Math_Factorial`): `:<name sent>`",
    ),
    "key_case_normalized": (
        "text",
        "warning",
        "an argument's key in another case (`Query`): `:<parameter>`",
    ),
    "ambiguous_tool_name": (
        "text",
        "error",
        "a name that two tools match with case and punctuation aside: `:<tool>|<tool>`",
    ),
    "tool_call_id_generated": (
        "reply",
        "warning",
        (
            "a call without an id: it gets `call_<i>`, its position in the list returned"
            " (`call_<i>_2`, … when a call of the reply has that id)"
        ),
    ),
    "malformed_tool_call": (
        "reply",
        "error",
        "a call without a usable name: `:function`, `:function.name` or `:name`",
    ),
    "malformed_response": (
        "reply",
        "error",
        "a value of no shape the provider has where a reply, call or item belongs: `:<its type>`",
    ),
    "unreadable_response": ("reply", "error", "reading the reply raised: `:<Error>`"),
    "unreadable_tool_call": ("reply", "error", "reading a call raised: `:<Error>`"),
    "response_too_large": ("reply", "error", "more than 1,000,000 nodes to walk: the walk stops"),
    "model_reported_error": (
        "reply",
        "error",
        'prompt mode: the model\'s `"error"` instead of arguments: `:<its text>`',
    ),
    "stream_index_missing": ("stream", "warning", "an OpenAI chat tool-call delta without `index`"),
    "stream_index_reused": (
        "stream",
        "warning",
        "another call on a chat index in use (a new id, or new text after whole arguments)",
    ),
    "stream_duplicate_arguments_ignored": (
        "stream",
        "warning",
        "a call's whole arguments sent again",
    ),
    "stream_duplicate_start_ignored": (
        "stream",
        "warning",
        "an Anthropic block start or a Responses item start repeated",
    ),
    "stream_call_start_missing": (
        "stream",
        "warning",
        "argument pieces of a call whose start never came",
    ),
    "stream_call_start_late": (
        "stream",
        "warning",
        "an Anthropic block start after its deltas",
    ),
    "stream_arguments_replaced": (
        "stream",
        "warning",
        "a Responses `.done` event's whole arguments differ from the deltas: they win",
    ),
    "stream_call_recovered": ("stream", "warning", "a call only `response.completed` holds"),
    "stream_ended_early": (
        "stream",
        "warning",
        "whole arguments, but the stream ended without completing the call",
    ),
    "stream_partial_arg_unreadable": (
        "stream",
        "warning",
        "a Vertex AI partial argument that cannot be placed (`:<json path>`): with the error `truncated_arguments`",
    ),
    "malformed_event": ("stream", "problem", "an event that is no record"),
    "unreadable_event": ("stream", "problem", "reading an event raised: `:<Error>`"),
    "result_not_object": (
        "result",
        "error",
        "a handler's value that is no JSON object: `:<its type>` (`list`, `str`, …)",
    ),
    "result_non_finite_number": (
        "result",
        "error",
        "NaN or an infinity in a handler's value (also as a key)",
    ),
    "result_lone_surrogate": (
        "result",
        "error",
        'text in a handler\'s value (or a key) holding a lone surrogate (`os.fsdecode(b"\\xe9")`)',
    ),
    "result_circular_reference": (
        "result",
        "error",
        "a container in a handler's value that holds itself",
    ),
    "result_key_not_text": ("result", "error", "a key JSON cannot write (a tuple, an object)"),
    "result_integer_too_long": ("result", "error", "an integer of more than 4,300 digits"),
    "result_unreadable_value": (
        "result",
        "error",
        "a value whose conversion to JSON (`model_dump`, a property) raised: `(<Error>)` in the words",
    ),
    "result_too_deep": ("result", "error", "a value nested more than 400 levels deep"),
    "duplicate_event": ("stream", "problem", "a Responses `sequence_number` seen before"),
    "duplicate_call": (
        "reply",
        "problem",
        (
            "a call with the id, name and arguments of an earlier call of the reply (a replay):"
            " dropped; the `from_*` adapters, which have no problems, say it as a warning on the"
            " call kept"
        ),
    ),
    "duplicate_call_id": (
        "reply",
        "problem",
        (
            "another call with the id of an earlier call of the reply: dropped, said as"
            " `duplicate_call` is"
        ),
    ),
    "late_fragment": ("stream", "problem", "arguments for a call already yielded"),
    "stream_error": ("stream", "problem", "the source raised: `:<Error>`; the stream ends there"),
    "malformed_stream": ("stream", "problem", "a source that is not iterable"),
}

_SECTIONS = {
    "parameter": "About one parameter (`code:path`)",
    "call": "About the whole call",
    "repair": "Text repair, run only when strict decoding fails (reported in this order)",
    "text": "Model text: the shapes `parse_reply` reads (before the parser's own codes)",
    "reply": "Adapters and prompt mode: about a provider's reply",
    "result": (
        "The executor: a handler's value that JSON cannot carry (for any tool; `:<path>` inside"
        " the result), or that does not match the tool's `returns`, is a failed call with these"
        " codes, or, for `returns`, any code above with its path inside the result"
        " (`missing_required:orders`, `string_literal_converted_to_integer:total`)"
    ),
    "stream": (
        "Stream readers (`from_*_stream`): warnings on a call, or a `StreamProblem` in the"
        " reader's `problems`; a call cut off is `truncated_arguments`"
    ),
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def parse_codes_table() -> str:
    lines: list[str] = []
    for section, title in _SECTIONS.items():
        lines += [f"**{title}**", "", "| code | level | when |", "| --- | --- | --- |"]
        lines += [
            f"| `{code}` | {level} | {_cell(when)} |"
            for code, (where, level, when) in PARSE_CODES.items()
            if where == section
        ]
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def findings_table() -> str:
    """Every finding code of `codegen build`, `validate` and `lint`: one table for both."""
    lines = ["| code | level | name | finding |", "| --- | --- | --- | --- |"]
    lines += [
        f"| {code} | {level} | `{name}` | {_cell(words)} |"
        for code, (level, name, words) in sorted(CODES.items())
    ]
    return "\n".join(lines)


def keywords_table() -> str:
    """Every JSON Schema keyword codegen knows, from its registry row (`codegen/vocabulary.py`)."""
    lines = [
        "| keyword | constrains | the parser | OpenAI strict | Gemini legacy |",
        "| --- | --- | --- | --- | --- |",
    ]
    for word, row in KEYWORDS.items():
        if row.structure:
            parser = "reads it as the kind of value"
        elif row.annotation:
            parser = "describes the value"
        elif row.enforced:
            parser = "enforces it"
        elif word.startswith("x-") or word in ("optional", "example"):
            parser = "reads it (the catalog format's own)"
        else:
            parser = "does not enforce it: a build warning"
        kept = [
            "kept" if payload in row.payloads else "rewritten or left out, said"
            for payload in ("openai-strict", "gemini")
        ]
        lines.append(
            f"| `{word}` | {row.applies_to or 'any value'} | {parser} | {' | '.join(kept)} |"
        )
    return "\n".join(lines)


def formats_table() -> str:
    """Every string format codegen knows: the parser checks the runtime's (`_runtime.FORMATS`),
    and each strict mode keeps those its registry row names (`codegen/vocabulary.FORMATS`)."""
    lines = [
        "| format | the parser | OpenAI strict | Anthropic strict |",
        "| --- | --- | --- | --- |",
    ]
    for name in sorted({*FORMATS, *rt.FORMATS}):
        parser = (
            f"checks it (`{rt.FORMATS[name].__name__}`)"
            if name in rt.FORMATS
            else "keeps the text: a build warning"
        )
        kept = [
            "kept" if name in formats_kept(mode) else "left out (into the description), said"
            for mode in ("openai-strict", "anthropic-strict")
        ]
        lines.append(f"| `{name}` | {parser} | {' | '.join(kept)} |")
    return "\n".join(lines)


def cli_table() -> str:
    parser = _parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help or "" for choice in commands._choices_actions}
    every = [own for own in map(_own, parser._actions) if own is not None]
    lines = ["Every command takes `-h`/`--help`; " + "; ".join(every) + ".", ""]
    # An argument some command leaves undescribed means what the same argument means elsewhere.
    said = {
        (a.dest, a.metavar): a.help
        for command in commands.choices.values()
        for a in reversed(command._actions)
        if a.help
    }
    for name, command in commands.choices.items():
        actions = [a for a in command._actions if not isinstance(a, argparse._HelpAction)]
        synopsis = " ".join(["codegen", name, *(_synopsis(a) for a in actions)])
        lines += [
            f"### `codegen {name}`",
            "",
            _cell(helps[name]) + ".",
            "",
            "```",
            synopsis,
            "```",
            "",
        ]
        lines += ["| argument | what it is |", "| --- | --- |"]
        for action in actions:
            described = _described(
                action, action.help or said.get((action.dest, action.metavar), "")
            )
            lines.append(f"| `{_spelling(action)}` | {_cell(described)} |")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _own(action: argparse.Action) -> str | None:
    """The top-level options besides help and the commands, such as `--version`."""
    if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
        return None
    return f"`codegen {_spelling(action)}` " + (action.help or "").rstrip(".")


def _metavar(action: argparse.Action) -> str:
    if action.choices is not None and action.metavar is None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return str(action.metavar or action.dest.upper())


def _spelling(action: argparse.Action) -> str:
    if not action.option_strings:
        return _metavar(action)
    flags = ", ".join(action.option_strings)
    return flags if action.nargs == 0 else f"{flags} {_metavar(action)}"


def _synopsis(action: argparse.Action) -> str:
    if not action.option_strings:
        word = _metavar(action)
        return {"*": f"[{word} ...]", "?": f"[{word}]", "+": f"{word} [{word} ...]"}.get(
            str(action.nargs), word
        )
    first = action.option_strings[-1]
    return f"[{first}]" if action.nargs == 0 else f"[{first} {_metavar(action)}]"


def _described(action: argparse.Action, text: str) -> str:
    if (
        action.option_strings
        and action.nargs != 0
        and action.default not in (None, argparse.SUPPRESS)
    ):
        text = f"{text} (default: `{action.default}`)".strip()
    return text


TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "parse-codes": ("parsing.md", parse_codes_table),
    "findings": ("catalog.md", findings_table),
    "keywords": ("catalog.md", keywords_table),
    "formats": ("catalog.md", formats_table),
    "cli": ("cli.md", cli_table),
}


def _markers(name: str) -> tuple[str, str]:
    return (
        f"<!-- BEGIN GENERATED {name}: edit codegen/docs_tables.py, then run `{REFRESH}` -->",
        f"<!-- END GENERATED {name} -->",
    )


def render(docs: Path = DOCS) -> dict[Path, str]:
    """Each page that holds a table, with every table rendered afresh between its markers."""
    pages: dict[Path, str] = {}
    for name, (page, table) in TABLES.items():
        path = docs / page
        text = pages.get(path) or path.read_text(encoding="utf-8")
        begin, end = _markers(name)
        block = re.compile(re.escape(begin) + r"\n(?:.*?\n)?" + re.escape(end), re.DOTALL)
        found = list(block.finditer(text))
        if len(found) != 1:
            raise ValueError(f"{path}: needs exactly one {begin!r} … {end!r} block")
        start, stop = found[0].span()
        pages[path] = f"{text[:start]}{begin}\n{table()}\n{end}{text[stop:]}"
    return pages


def stale(docs: Path = DOCS) -> list[Path]:
    """The pages whose committed text differs from what render() gives."""
    return [path for path, text in render(docs).items() if path.read_text(encoding="utf-8") != text]


def main(argv: Sequence[str] | None = None) -> int:
    if "--check" in (sys.argv[1:] if argv is None else argv):
        outdated = stale()
        for path in outdated:
            print(f"{path}: stale; run `{REFRESH}`", file=sys.stderr)
        return 1 if outdated else 0
    for path, text in render().items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tool calls in a model's text, in every shape models write them: one entry point.

`parse_reply` strips `<think>` blocks, then reads the first shape the text is in:

- the native text formats of open models served without a tool parser: Hermes/Qwen
  `<tool_call>{...}</tool_call>`, Qwen3-Coder `<function=f><parameter=p>v</parameter></function>`,
  Mistral `[TOOL_CALLS][...]` and `[TOOL_CALLS]f[ARGS]{...}`, Llama `<|python_tag|>`, DeepSeek's
  tool-call tokens, gpt-oss harmony `to=functions.f ... <|message|>{...}<|call|>`;
- pythonic calls, `[get_weather(city="Paris"), ping()]`, read with `ast` and literals only:
  nothing is ever evaluated or imported;
- JSONL, one call a line (the JSONL prompt's form), when the first line that starts a JSON value
  is one whole object;
- else every JSON or JSON-like object or array in the text, one after another or in prose.

Each call object may come in any envelope `_calls.call_parts` knows, and its arguments go to the
tool's own parser. Each recognition is a warning with its own code (`native_format:<format>`,
`pythonic_call`, `think_block_removed`, the envelope's and the repairs' codes); what cannot be
read is a `Problem` with its line and reason, never a guess. Linear in the reply's length.
"""

from __future__ import annotations

import ast
import itertools
import re
import warnings
from bisect import bisect_right
from collections.abc import Iterator
from typing import Final

from ._calls import NAME_KEYS, Catalog, Parse
from ._ids import ReplyIds
from ._jsonl import (
    MAX_LINE,
    SHOWN,
    CallBatch,
    Chunk,
    Item,
    Problem,
    _as_text,
    _loads,
    _unfenced,
    batch,
    call_of,
    gap_codes,
    parse_jsonl,
)
from ._repair import Found, iter_values

_THINK: Final = re.compile(r"<think>.*?(?:</think>|\Z)|\A(?:(?!<think>).)*?</think>", re.DOTALL)
_HERMES: Final = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_XML_FUNCTION: Final = re.compile(r"<function=([^>\n]{1,256}+)>(.*?)(?:</function>|\Z)", re.DOTALL)
_XML_PARAMETER: Final = re.compile(
    r"<parameter=([^>\n]{1,256}+)>\n?(.*?)\n?(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL
)
_MISTRAL: Final = "[TOOL_CALLS]"
# `name[ARGS]{...}` (v11 tokenizers), `name[CALL_ID]id[ARGS]{...}`, and `name{...}`, as the text
# reads when the `[ARGS]` token was skipped in decoding.
_MISTRAL_NAMED: Final = re.compile(
    r"\s*([^\s\[\]{}]+)\s*(?:\[CALL_ID\]\s*([^\s\[]+)\s*)?(?:\[ARGS\]|(?=\{))(.*)", re.DOTALL
)
_LLAMA: Final = re.compile(r"<\|python_tag\|>|<\|python_start\|>")
_LLAMA_END: Final = re.compile(r"<\|python_end\|>|<\|eom_id\|>|<\|eot_id\|>")
# DeepSeek writes its tokens with full-width bars and a special space: both forms are read.
_DS: Final = r"<[｜|]{}[｜|]>"
_DEEPSEEK_CALL: Final = re.compile(
    _DS.format(r"tool[▁_]call[▁_]begin")
    + r"([^<]*)"  # the name (or `function`) ends at the next token: each try is bounded
    + _DS.format(r"tool[▁_]sep")
    + r"(.*?)(?:"
    + _DS.format(r"tool[▁_]call[▁_]end")
    + r"|(?="
    + _DS.format(r"tool[▁_]call[▁_]begin")
    + r")|\Z)",
    re.DOTALL,
)
# The header between the name and `<|message|>` is a few short words: bounded runs, so a text
# full of `to=functions.` costs each of them a few dozen characters, never the rest of the text.
_HARMONY: Final = re.compile(
    r"to=functions\.([^\s<]{1,128}+)[^<]{0,64}+(?:<\|(?:channel|constrain)\|>[^<]{0,64}+){0,4}+"
    r"<\|message\|>"
    r"(.*?)(?:<\|call\|>|<\|end\|>|<\|return\|>|(?=<\|start\|>)|\Z)",
    re.DOTALL,
)
_KIMI: Final = re.compile(
    r"<\|tool_call_begin\|>\s*+(?:functions\.)?([^\s:<]{1,256}+)(?::\d{1,9}+)?\s*+"
    r"<\|tool_call_argument_begin\|>"
    r"(.*?)(?:<\|tool_call_end\|>|(?=<\|tool_call_begin\|>)|\Z)",
    re.DOTALL,
)
_PYTHONIC: Final = re.compile(r"\[?\s*[A-Za-z_][\w.]*\s*\(")
_PYTHONIC_IN_TEXT: Final = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")
# What only a call holds: a key that names a tool in an envelope, or a name before arguments.
_ENVELOPE_KEY: Final = re.compile("[\"'](?:" + "|".join(NAME_KEYS) + ")[\"']\\s*+:")
_NATIVE_OPENER: Final = re.compile(
    r"<tool_call>|<function=|\[TOOL_CALLS\]|<\|tool_call_begin\|>|to=functions\."
    r"|<\|python_(?:tag|start)\|>|" + _DS.format(r"tool[▁_]call[▁_]begin")
)
_NAME_BEFORE_ARGUMENTS: Final = re.compile(
    r"(?<![\w.\-])([A-Za-z_][\w.\-]{0,255}+)(?:[\"']\s*+:)?\s*+[({]"
)
# The detail of a part of a text of pythonic calls that is not one.
_NOT_A_CALL: Final = "not a call in Python's syntax"


def parse_reply(parse: Parse, reply: Chunk, max_line: int = MAX_LINE) -> CallBatch:
    """The calls of a model's reply in whichever shape it wrote them."""
    text = _as_text(reply)
    if isinstance(text, Problem):
        return CallBatch((), (text,))
    thought: tuple[str, ...] = ()
    if "think>" in text:
        # Blanked, not cut, so that line numbers stay those of the reply.
        text, removed = _THINK.subn(_blank, text)
        thought = ("think_block_removed",) if removed else ()
    reader = _Reader(parse, text, thought)
    items = reader.native()
    if items is not None:
        items.extend(reader.outside_native())
    if items is None:
        items = reader.pythonic()
    if items is None:
        if _is_jsonl(text):
            found = parse_jsonl(parse, text, max_line)
            if not thought:
                return found
            calls = [call._replace(warnings=(*thought, *call.warnings)) for call in found]
            return CallBatch(calls, found.problems)
        items = reader.json(text, 0, ())
        if all(isinstance(item, Problem) for item in items):
            # No JSON call anywhere: a list of pythonic calls in prose is the last shape tried.
            items = reader.pythonic_in_text() or items
    found = batch(reader.ids.mint(items))
    if found or found.problems or not reader.call_like(text):
        return found
    # Text with call-like content gave neither a call nor a problem: never silently nothing.
    detail = "call-like text that no shape the reader knows could read"
    return CallBatch((), (Problem(1, "unread_call", detail, text.strip()[:SHOWN]),))


def _blank(match: re.Match[str]) -> str:
    return "\n" * match.group().count("\n")


def _is_jsonl(text: str) -> bool:
    """Whether the first line that starts a JSON value is one whole object (JSONL)."""
    body, _ = _unfenced(text)
    for line in body.split("\n", 64):
        stripped = line.strip()
        if stripped.startswith("{"):
            try:
                return type(_loads(stripped)) is dict
            except (ValueError, RecursionError):
                return False
        if stripped.startswith("["):
            return False
    return False


def _with(item: Item, codes: tuple[str, ...]) -> Item:
    if isinstance(item, Problem) or not codes:
        return item
    return item._replace(warnings=(*codes, *item.warnings))


class _Reader:
    """One reply's text, with what every shape's reader needs: the parse, line numbers, call ids."""

    def __init__(self, parse: Parse, text: str, codes: tuple[str, ...]) -> None:
        self.parse = parse
        self.text = text
        self.codes = codes
        self._breaks = [match.start() for match in re.finditer("\n", text)]
        self.ids = ReplyIds()

    def call_like(self, text: str) -> bool:
        """Whether `text` holds what only a call holds: a key that names a tool in an envelope
        (`"name":`), an open model's token that opens a call, or a tool of the catalog followed by
        `(` or `{` (or as a key: `"f": {`).
        Each word is tried once, from its start: linear."""
        if _ENVELOPE_KEY.search(text) is not None or _NATIVE_OPENER.search(text) is not None:
            return True
        if not isinstance(self.parse, Catalog):
            return False
        return any(
            self.parse.knows(word.group(1)) for word in _NAME_BEFORE_ARGUMENTS.finditer(text)
        )

    def line(self, offset: int) -> int:
        return bisect_right(self._breaks, offset - 1) + 1

    # -----------------------------------------------------------------------------------------
    # Native formats of open models

    def outside_native(self) -> list[Problem]:
        """A problem for call-like text that the native format's reader did not read: before
        the first opener, and, for the tagged formats, between and after their blocks (a Hermes
        block and then a JSON call, say). Native formats' readers read only their own."""
        text = self.text
        opener = _NATIVE_OPENER.search(text)
        if opener is None:
            return []
        spans = [(0, opener.start())]
        if "<tool_call>" in text or "<function=" in text:
            blocks = _HERMES if "<tool_call>" in text else _XML_FUNCTION
            end = opener.start()
            spans.clear()
            spans.append((0, end))
            for block in blocks.finditer(text):
                spans.append((end, block.start()))
                end = block.end()
            spans.append((end, len(text)))
        detail = "call-like text outside the calls in the model's own format"
        problems = []
        for start, stop in spans:
            part = text[start:stop]
            if stop > start and self.call_like(part):
                at = start + len(part) - len(part.lstrip())  # the line the call-like text is on
                problems.append(Problem(self.line(at), "unread_call", detail, part.strip()[:SHOWN]))
        return problems

    def native(self) -> list[Item] | None:
        """The calls in an open model's own format, or None when the text is in none of them."""
        text = self.text
        if "<tool_call>" in text:
            return self._hermes()
        if "<function=" in text:
            return self._xml(text, 0, ("native_format:qwen3_coder",))
        if _MISTRAL in text:
            return self._mistral()
        if "tool" in text and _DEEPSEEK_CALL.search(text) is not None:
            return self._deepseek()
        if "<|tool_call_begin|>" in text:
            return self._kimi()
        if "to=functions." in text:
            harmony = self._harmony()
            if harmony:
                return harmony
        if "<|python" in text:
            match = _LLAMA.search(text)
            if match is not None:
                return self._llama(match.end())
        return None

    def _hermes(self) -> list[Item]:
        items: list[Item] = []
        for match in _HERMES.finditer(self.text):
            body, start = match.group(1), match.start(1)
            if "<function=" in body:
                items.extend(self._xml(body, start, ("native_format:qwen3_coder",)))
            else:
                items.extend(self.json(body, start, ("native_format:hermes",), whole=False))
        return items

    def _xml(self, text: str, base: int, codes: tuple[str, ...]) -> list[Item]:
        items: list[Item] = []
        for function in _XML_FUNCTION.finditer(text):
            name = function.group(1).strip()
            body = function.group(2)
            if "<parameter=" not in body and body.lstrip().startswith("{"):
                # Functionary v3.1 and Llama 3.1's own tool format: the arguments' JSON inside.
                offset = base + function.start(2)
                functionary = ("native_format:functionary",)
                items.extend(self._arguments(name, body, offset, "", functionary))
                continue
            schemas = self.parse.parameters(name) if isinstance(self.parse, Catalog) else {}
            arguments: dict[str, object] = {}
            for parameter in _XML_PARAMETER.finditer(function.group(2)):
                key = parameter.group(1).strip()
                arguments[key] = _xml_value(parameter.group(2), schemas.get(key))
            line = self.line(base + function.start())
            items.append(self._call(name, arguments, "", codes, line))
        return items

    def _mistral(self) -> list[Item]:
        items: list[Item] = []
        text = self.text
        codes = ("native_format:mistral",)
        start = text.find(_MISTRAL)
        while start >= 0:
            body_start = start + len(_MISTRAL)
            end = text.find(_MISTRAL, body_start)
            body = text[body_start : end if end >= 0 else len(text)]
            named = _MISTRAL_NAMED.match(body)
            if body.lstrip()[:1] in ("[", "{") or named is None:
                items.extend(self.json(body, body_start, codes, whole=False))
            else:
                name, call_id, arguments = named.group(1), named.group(2), named.group(3)
                offset = body_start + named.start(3)
                items.extend(self._arguments(name, arguments, offset, call_id or "", codes))
            start = end
        return items

    def _deepseek(self) -> list[Item]:
        items: list[Item] = []
        codes = ("native_format:deepseek",)
        for match in _DEEPSEEK_CALL.finditer(self.text):
            kind, rest = match.group(1).strip(), match.group(2)
            offset = match.start(2)
            if kind == "function":
                # V3 and R1: `function<sep>name` and the arguments in a fence on the next lines.
                name, _, arguments = rest.partition("\n")
                offset += len(name) + 1
            else:
                name, arguments = kind, rest  # V3.1: `name<sep>{...}`
            items.extend(self._arguments(name.strip(), arguments, offset, "", codes))
        return items

    def _harmony(self) -> list[Item]:
        items: list[Item] = []
        codes = ("native_format:harmony",)
        for match in _HARMONY.finditer(self.text):
            name = match.group(1)
            items.extend(self._arguments(name, match.group(2), match.start(2), "", codes))
        return items

    def _kimi(self) -> list[Item]:
        items: list[Item] = []
        codes = ("native_format:kimi_k2",)
        for match in _KIMI.finditer(self.text):
            name = match.group(1)
            items.extend(self._arguments(name, match.group(2), match.start(2), "", codes))
        return items

    def _llama(self, start: int) -> list[Item]:
        codes = ("native_format:llama",)
        end = _LLAMA_END.search(self.text, start)
        body = self.text[start : end.start() if end is not None else len(self.text)]
        pythonic = self._pythonic(body, start, codes)
        if pythonic is not None:
            return pythonic
        return self.json(body, start, codes, whole=False)

    # -----------------------------------------------------------------------------------------
    # Pythonic calls

    def pythonic(self) -> list[Item] | None:
        """The calls of a reply that is a pythonic call or a list of them, or None."""
        body, _ = _unfenced(self.text)
        offset = self.text.find(body[:16]) if body else 0
        return self._pythonic(body, max(offset, 0), ())

    def pythonic_in_text(self) -> list[Item] | None:
        """The calls of each list of pythonic calls in prose (`Here it is: [f(a=1)] and [g()]`),
        or None when there is none. Each list runs from its `[name(` to the `]` that closes it,
        and the next is looked for after it: linear."""
        items: list[Item] = []
        found = False
        position = 0
        while (start := _PYTHONIC_IN_TEXT.search(self.text, position)) is not None:
            end = _closing(self.text, start.start())
            if end < 0:
                break
            inner = self.text[start.start() : end]
            calls = self._pythonic(inner, start.start(), ("call_extracted_from_text",))
            if calls is not None:
                items.extend(calls)
                found = True
            position = end
        return items if found else None

    def _pythonic(self, body: str, base: int, codes: tuple[str, ...]) -> list[Item] | None:
        """The calls of a text of calls in Python's syntax: one call, a list of them, or several
        of either on lines of their own; None when no part of it is one. Literals only are read,
        and nothing is evaluated; a part that is not a call is a problem naming it.

        The text is cut into its lines (outside brackets and strings) and each line into its calls
        at the commas outside brackets and strings, and each call is parsed alone, so memory holds
        one call's syntax tree at a time, never a tree of the whole list (a megabyte of `f(a=1)`
        made 600 MB of them); each character is scanned twice and parsed once."""
        stripped = body.strip()
        if len(stripped) > MAX_LINE or not _PYTHONIC.match(stripped):
            return None  # a megabyte of calls in Python's syntax is not one we parse
        at = base + len(body) - len(body.lstrip())
        stripped, commented = _uncommented(stripped)
        if commented:
            codes = (*codes, "comment_removed")
        # Its lines, blank ones left out.
        groups = [
            g for g in _spans(stripped, 0, len(stripped), "\n") if stripped[g[0] : g[1]].strip()
        ]
        first_claim = self.ids.mark()
        items: list[Item] = []
        read = False
        for start, end, whole in groups:
            group = stripped[start:end].rstrip()
            listed = group.startswith("[") and group.rstrip(",").endswith("]")
            if listed:
                group = group.rstrip(",")
            placed: tuple[str, ...] = ()
            if len(groups) > 1:
                placed = ("lists_on_separate_lines",) if listed else ("calls_on_separate_lines",)
            found = (
                self._calls_of(group, at + start, listed, (*codes, *placed, "pythonic_call"))
                if whole
                else None
            )
            if found is None:
                shown = group[:SHOWN]
                detail = "not a call or list of calls in Python's syntax"
                items.append(Problem(self.line(at + start), "invalid_call", detail, shown))
                continue
            items.extend(found)
            read = read or any(
                not isinstance(item, Problem) or item.detail != _NOT_A_CALL for item in found
            )
        if not read:
            # No call of this text is one: the ids it gave are not the reply's.
            self.ids.rollback(first_claim)
            return None
        return items

    def _calls_of(
        self, text: str, base: int, listed: bool, codes: tuple[str, ...]
    ) -> list[Item] | None:
        """The calls of one line of pythonic calls (`[f(a=1), g()]` or `f(a=1), g()`), a problem
        for each part that is not one (a JSON call object among them is read as one); None, and
        no call id claimed, when the line cannot be a list or tuple of them."""
        first_claim = self.ids.mark()
        items: list[Item] = []
        for start, end, whole in _spans(text, int(listed), len(text) - listed, ","):
            if not whole:
                self.ids.rollback(first_claim)
                return None
            blank = _BLANK.match(text, start, end)
            begin = blank.end() if blank is not None else start
            source = text[begin:end]
            if not source and items and end == len(text) - listed:
                break  # a trailing comma: `[f(a=1),]`
            if source.startswith("{"):
                items.extend(self.json(source, base + begin, codes[:-1], whole=False))
                continue
            try:
                # In brackets, as in the list: lines join, and a comment ends at its line.
                call = _python_expression(f"({source}\n)")
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                call = None
            line = self.line(base + begin)
            if not isinstance(call, ast.Call):
                items.append(Problem(line, "invalid_call", _NOT_A_CALL, source[:SHOWN]))
                continue
            items.append(self._pythonic_call(call, source, line, codes))
        return items

    def _pythonic_call(
        self, call: ast.Call, source: str, line: int, codes: tuple[str, ...]
    ) -> Item:
        name = _dotted(call.func)
        shown = source[:SHOWN]
        if name is None:
            return Problem(line, "invalid_call", "the called name is not a plain name", shown)
        if call.args or any(keyword.arg is None for keyword in call.keywords):
            detail = f"{name}: arguments without a parameter name"
            return Problem(line, "positional_arguments", detail, shown)
        arguments: dict[str, object] = {}
        json_literals = False
        for keyword in call.keywords:
            try:
                arguments[str(keyword.arg)], spelled = _literal(keyword.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                detail = f"{name}: the value of {keyword.arg} is not a literal"
                return Problem(line, "not_a_literal", detail, shown)
            json_literals = json_literals or spelled
        if json_literals:
            codes = (*codes, "json_literal_in_call")
        # A literal may be what JSON cannot carry (a set, bytes, a tuple key): the parser's
        # `_values` converts or refuses it, as for any dict a caller passes.
        return self._call(name, arguments, "", codes, line)

    # -----------------------------------------------------------------------------------------
    # JSON and JSON-like text

    def json(self, text: str, base: int, codes: tuple[str, ...], whole: bool = True) -> list[Item]:
        """The calls of every JSON object or array in `text` (at `base` in the reply): a whole
        array of calls, call objects one after another, or in prose."""
        body, _ = _unfenced(text) if whole else (text, 0)
        body_at = base + (text.find(body[:16]) if body else 0)
        stripped = body.strip()
        if not stripped:
            return [Problem(self.line(base), "no_calls", "the reply holds no JSON", text[:SHOWN])]
        values = _call_like_values(self, body, list(iter_values(body, failures=True)))
        if not values:
            return [Problem(self.line(body_at), "invalid_json", "no JSON object", text[:SHOWN])]
        items: list[Item] = []
        single = len(values) == 1 and body[: values[0].start].strip() == ""
        around = gap_codes(_outside(body, values)) if whole else ()
        for found in values:
            line = self.line(body_at + found.start)
            shown = body[found.start : found.start + SHOWN]
            if found.reason == "truncated":
                items.append(Problem(line, "truncated_reply", "the reply was cut off", shown))
            elif found.reason:
                reason = "too_deep" if found.reason == "too_deep" else "invalid_json"
                items.append(Problem(line, reason, "not JSON the rules can read", shown))
            elif type(found.value) is list:
                if single or any(type(item) is dict for item in found.value):
                    items.extend(self._array(found, line, (*codes, *found.warnings, *around)))
            else:
                warnings = (*codes, *found.warnings, *around)
                items.append(self._object(found.value, line, warnings, shown))
        return items

    def _array(self, found: Found, line: int, codes: tuple[str, ...]) -> Iterator[Item]:
        assert type(found.value) is list
        for index, value in enumerate(found.value, 1):
            item = self._object(value, line, codes, "")
            if isinstance(item, Problem):
                item = item._replace(detail=f"item {index}: {item.detail}")
            yield item

    def _object(self, value: object, line: int, codes: tuple[str, ...], shown: str) -> Item:
        call = call_of(self.parse, value, line, self.ids, codes, shown)
        return _with(call, self.codes)

    # -----------------------------------------------------------------------------------------
    # A call whose name and arguments came apart

    def _arguments(
        self,
        name: str,
        text: str,
        offset: int,
        call_id: str,
        codes: tuple[str, ...],
    ) -> list[Item]:
        """The call of a tool named outside its arguments' JSON (Mistral `[ARGS]`, DeepSeek,
        harmony): the first JSON object in `text`, fenced or not. `call_id`: the model's, or ""
        when it wrote none."""
        line = self.line(offset)
        stripped = text.strip()
        shown = stripped[:SHOWN]
        if not stripped:
            return [self._call(name, {}, call_id, codes, line)]
        if stripped.startswith('"'):
            # The arguments' JSON as a JSON string (Kimi K2): its text goes to the tool's parser,
            # which decodes it (`arguments_unquoted`).
            try:
                inner = _loads(stripped)
            except (ValueError, RecursionError):
                inner = None
            if type(inner) is str:
                return [self._call(name, inner, call_id, codes, line)]
        for found in iter_values(text):
            if found.reason == "truncated":
                return [Problem(line, "truncated_reply", "the reply was cut off", shown)]
            if found.reason or type(found.value) is not dict:
                break
            codes = (*codes, *found.warnings)
            return [self._call(name, found.value, call_id, codes, line)]
        return [Problem(line, "invalid_json", f"{name}: no JSON object of arguments", shown)]

    def _call(
        self,
        name: str,
        arguments: dict[str, object] | str,
        call_id: str,
        codes: tuple[str, ...],
        line: int,
    ) -> Item:
        """The call of `name`; `call_id` is the model's, or "" when it wrote none (the reply's
        ids mint one once the whole reply is read, `ReplyIds.mint`)."""
        found: dict[str, object] = {"name": name, "parameters": arguments}
        if call_id:
            found["call_id"] = call_id
        return _with(call_of(self.parse, found, line, self.ids, codes), self.codes)


def _call_like_values(reader: _Reader, body: str, found: list[Found]) -> list[Found]:
    """The values found in `body`, and of the places the rules could not read those whose text,
    up to the next value, holds call-like content (`"name":` may well come after the fault)."""
    kept: list[Found] = []
    for index, value in enumerate(found):
        if value.reason == "unreadable":
            end = found[index + 1].start if index + 1 < len(found) else len(body)
            if not reader.call_like(body[value.start : end]):
                continue
        kept.append(value)
    return kept


def _outside(body: str, values: list[Found]) -> str:
    """The text of `body` outside the values found in it."""
    pieces = [body[: values[0].start]]
    pieces.extend(body[a.end : b.start] for a, b in itertools.pairwise(values))
    pieces.append(body[values[-1].end :])
    return " ".join(pieces)


def _xml_value(text: str, schema: object) -> object:
    """A Qwen3-Coder parameter's text as its value: the text itself for a string parameter (or one
    the catalog does not declare), else the JSON it holds, when it holds JSON."""
    declared = schema.get("type") if isinstance(schema, dict) else None
    if declared == "string" or schema is None:
        return text
    try:
        return _loads(text.strip())
    except (ValueError, RecursionError):
        return text


def _dotted(node: ast.expr) -> str | None:
    """`get_weather` or `math.factorial` as the name of the tool called, or None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


# What may stand before a call, or alone after a list's last comma: space, comments, and the
# `\` that joins two lines of bare calls.
_BLANK: Final = re.compile(r"(?:\s+|\\|#[^\n]*)*+")
# What cuts a text of calls into its calls: brackets, commas, strings, comments, line breaks.
_SPECIAL: Final = re.compile(r"[()\[\]{},'\"#\n]")
# A Python string from its opening quote (a prefix such as `r` or `b` is text before it).
_PY_STRING: Final = re.compile(
    r"'''(?:[^'\\]|\\.|'(?!''))*+'''"
    r'|"""(?:[^"\\]|\\.|"(?!""))*+"""'
    r"|'(?:[^'\\\n]|\\.)*+'"
    r'|"(?:[^"\\\n]|\\.)*+"',
    re.DOTALL,
)


# JSON-like comments in pythonic calls, from their start, and what else holds a `/`: strings.
_SLASHES: Final = re.compile(r"//|/\*|['\"#]")
_BLOCK_END: Final = re.compile(r"\*/")


def _uncommented(text: str) -> tuple[str, bool]:
    """`text` with its `//` and `/* */` comments outside strings blanked (line breaks kept, so
    places stay where they were), and whether it had any. One pass: each character once."""
    if "/" not in text:
        return text, False
    pieces: list[str] = []
    kept = pos = 0
    while (found := _SLASHES.search(text, pos)) is not None:
        char, at = found.group(), found.start()
        if char in "'\"":
            string = _PY_STRING.match(text, at)
            pos = string.end() if string is not None else at + 1
            continue
        if char == "#":
            line_end = text.find("\n", at)
            pos = len(text) if line_end < 0 else line_end
            continue
        if char == "//":
            line_end = text.find("\n", at)
            end = len(text) if line_end < 0 else line_end
        else:
            close = _BLOCK_END.search(text, at + 2)
            end = len(text) if close is None else close.end()
        pieces.append(text[kept:at])
        pieces.append(_blank_text(text[at:end]))
        kept = pos = end
    if not pieces:
        return text, False
    pieces.append(text[kept:])
    return "".join(pieces), True


def _blank_text(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _spans(text: str, start: int, end: int, separator: str) -> Iterator[tuple[int, int, bool]]:
    """The spans of `text[start:end]` between its `separator`s (a line break, or a comma) outside
    brackets, strings and comments (a line break after `\\` joins the lines), one by one, each with
    whether it can be Python's: a string left open makes the rest one broken span, the last; a
    bracket closed twice breaks its span, which then runs to the next `separator` (brackets and
    strings aside), the next span starting there; a bracket never closed breaks the last span.
    The one scanner of pythonic text's structure: its lines (`_pythonic`) and a line's calls
    (`_calls_of`) alike."""
    depth = 0
    piece = pos = start
    while (found := _SPECIAL.search(text, pos, end)) is not None:
        char, at = found.group(), found.start()
        pos = at + 1
        if char in "'\"":
            string = _PY_STRING.match(text, at, end)
            if string is None:
                yield piece, end, False
                return
            pos = string.end()
        elif char == "#":
            line_end = text.find("\n", at, end)
            pos = end if line_end < 0 else line_end
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                stop = text.find(separator, at, end)
                pos = end if stop < 0 else stop
                yield piece, pos, False
                depth, piece = 0, pos
        elif depth == 0 and char == separator and (char == "," or text[at - 1 : at] != "\\"):
            yield piece, at, True
            piece = at + 1
    yield piece, end, depth == 0


def _closing(text: str, start: int) -> int:
    """Where the bracket that opens at `start` closes (the index after it), strings and comments
    aside; -1 when it never does."""
    depth = 0
    pos = start
    while (found := _SPECIAL.search(text, pos)) is not None:
        char, at = found.group(), found.start()
        pos = at + 1
        if char in "'\"":
            string = _PY_STRING.match(text, at)
            if string is None:
                return -1
            pos = string.end()
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return pos
    return -1


# What a model writes for JSON's literals in a pythonic call (`f(flag=true, data=null)`).
_JSON_LITERALS: Final = {"true": True, "false": False, "null": None}


def _literal(node: ast.expr) -> tuple[object, bool]:
    """The value of a literal's syntax tree, and whether it spelled a literal as JSON does
    (`true`, `false`, `null`); a name that is none of them is not a literal (ValueError)."""
    try:
        return ast.literal_eval(node), False
    except ValueError:
        pass
    spelled = False
    for parent in ast.walk(node):  # iterative: a deep tree costs no recursion here
        for field, value in ast.iter_fields(parent):
            if isinstance(value, ast.Name) and value.id in _JSON_LITERALS:
                setattr(parent, field, ast.Constant(_JSON_LITERALS[value.id]))
                spelled = True
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.Name) and item.id in _JSON_LITERALS:
                        value[index] = ast.Constant(_JSON_LITERALS[item.id])
                        spelled = True
    if isinstance(node, ast.Name) and node.id in _JSON_LITERALS:
        return _JSON_LITERALS[node.id], True
    if not spelled:
        raise ValueError("not a literal")
    return ast.literal_eval(node), True


def _python_expression(source: str) -> ast.expr:
    """The expression `source` holds. Model text is no Python source: what Python warns of in
    it (`"C:\\data"`'s invalid escape, `0x` before a letter) is not said on stderr, and a
    filter that turns warnings into errors (`-W error`, pytest's `filterwarnings`) does not
    lose the call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)  # the same warnings before 3.12
        return ast.parse(source, mode="eval").body

"""One call object as models write it, whatever its envelope, and the tool it names.

A call object names its tool and holds its arguments under keys that vary by model and prompt:
`{"name", "parameters"}` (the prompt's own), `{"name", "arguments"}` (Hermes, OpenAI),
`{"function": {...}}` and `{"type": "function", "function": {...}}` (OpenAI's tool call), a flat
object with the name beside the arguments (`{"function_name": "f", "x": 1}`), and others. Each
form other than the prompt's is a warning with its own code, and the arguments go to the tool's
own parser. The tool's name is matched the way a reader would (`math_factorial` for
`math.factorial`); a name that matches two tools is not guessed.

Standard library only; nothing here raises on any input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final, NamedTuple

from ._outbound import strict_text
from ._runtime import (
    LazyTools,
    RawArguments,
    ToolCallRequest,
    parse_unknown_tool,
    refused,
)

Parse = Callable[[str, RawArguments, str], ToolCallRequest[object]]

# The keys that name the tool, and those that hold its arguments, in the order they are tried.
NAME_KEYS: Final = ("name", "function_name", "tool_name", "tool", "function", "recipient_name")
ARGUMENT_KEYS: Final = ("parameters", "arguments", "args", "input", "params", "kwargs")
# Keys that carry the call's id in an envelope.
_ID_KEYS: Final = ("call_id", "id", "tool_call_id")
_FLAT_ENVELOPE_KEYS: Final = frozenset({"call_id", "error"})
# Keys whose value is the call object itself, one level down (OpenAI's `function`, and others).
WRAPPER_KEYS: Final = ("function", "function_call", "tool_call", "call")
_FOLD: Final = re.compile(r"[\W_]+")


class Parts(NamedTuple):
    """What a call object holds: the tool's name, its arguments as sent, the call's id, and the
    codes of the envelope it came in (empty for the prompt's own form)."""

    name: str
    arguments: object
    call_id: object
    error: object
    warnings: tuple[str, ...]


class Refused(NamedTuple):
    """Why an object is not a call: a stable reason and the words for it."""

    reason: str
    detail: str


def call_parts(found: object, catalog: Catalog | None = None) -> Parts | Refused:
    """The name, arguments and id of one decoded call object, in any of the envelopes known.

    With the `catalog`, the catalog decides what each key means: of the values that may name the
    tool, one that is a tool of the catalog wins over one that is not, and a key that is a
    parameter of the chosen tool stays an argument; a real tie is a guess, with the warning
    `tool_name_guessed:<key>`. A map from a tool's name to its arguments (`{"f": {...}}`) is a
    call too (`tool_name_as_key`)."""
    if type(found) is not dict:
        return Refused("not_an_object", "a JSON value that is not an object")
    name = found.get("name")
    if (
        type(name) is str
        and name
        and "parameters" in found
        and (catalog is None or catalog.knows(name))
        and _arguments_key(found, "name", _parameters(catalog, name)) == "parameters"
    ):
        # The prompt's own form, as nearly every line of a JSONL reply is.
        return Parts(name, found["parameters"], found.get("call_id"), found.get("error"), ())
    warnings: list[str] = []
    for key in WRAPPER_KEYS:
        inner = found.get(key)
        if type(inner) is dict and _names_a_tool(inner):
            # `{"type": "function", "function": {...}, "id": ...}`: the call is one level down,
            # its id beside it.
            warnings.append(f"call_envelope:{key}")
            outer_id = next((found[k] for k in _ID_KEYS if k in found), None)
            found = {**inner, "call_id": inner.get("call_id", outer_id)}
            break
    chosen = _name_key(found, catalog)
    if chosen is None:
        return _tool_as_key(found, catalog) or _no_name(found)
    name_key, guessed = chosen
    name = found[name_key]
    if guessed:
        warnings.append(f"tool_name_guessed:{name_key}")
    if name_key != "name":
        warnings.append(f"name_envelope:{name_key}")
    parameters = _parameters(catalog, name)
    arguments_key = _arguments_key(found, name_key, parameters)
    if arguments_key is not None:
        arguments = found[arguments_key]
        if arguments_key != "parameters":
            warnings.append(f"arguments_envelope:{arguments_key}")
        call_id = next((found[k] for k in _ID_KEYS if found.get(k) is not None), None)
    else:
        # Beside the arguments themselves only our own keys are the envelope's: a tool may
        # well have a parameter called `id` or `type`.
        rest = {
            key: value
            for key, value in found.items()
            if key != name_key and (key not in _FLAT_ENVELOPE_KEYS or key in parameters)
        }
        if rest:
            warnings.append("flat_call_object")
        arguments = rest or None
        call_id = found.get("call_id") if "call_id" not in parameters else None
    error = found.get("error") if "error" not in parameters else None
    return Parts(name, arguments, call_id, error, tuple(warnings))


def _parameters(catalog: Catalog | None, name: object) -> Mapping[str, object]:
    """The parameters of the tool `name` means (none without a catalog or for no tool)."""
    if catalog is None or type(name) is not str:
        return {}
    return catalog.parameters(catalog.resolve(name)[0])


def _arguments_key(
    found: dict[object, object], name_key: str, parameters: Mapping[str, object]
) -> str | None:
    """The key that holds the call's arguments, None when the object is flat.

    A key the chosen tool has as a parameter is an argument when the object is flat (another key
    beside the envelope's is an argument too: `{"name": "run", "command": "ls", "arguments":
    ["-l"]}`); alone beside the envelope's keys, holding an object or its text, it is the envelope
    as ever (`{"name": "run", "arguments": {"command": "ls", "arguments": ["-l"]}}`)."""
    present = [key for key in ARGUMENT_KEYS if key in found]
    plain = next((key for key in present if key not in parameters), None)
    if plain is not None or not present:
        return plain
    flat = any(
        key != name_key
        and key not in ARGUMENT_KEYS
        and (key in parameters or (key not in _ID_KEYS and key not in _FLAT_ENVELOPE_KEYS))
        for key in found
    )
    if flat or len(present) > 1:
        return None
    value = found[present[0]]
    envelope = type(value) is dict or (type(value) is str and value.lstrip().startswith("{"))
    return present[0] if envelope else None


def _name_key(found: dict[object, object], catalog: Catalog | None) -> tuple[str, bool] | None:
    """The key whose value names the tool, and whether that was a guess; None when no key does.

    Of the keys that may name it, one whose value is a tool of the catalog wins; a tie (two that
    name different tools, or several and none a tool) is settled by `NAME_KEYS`' order, a guess.
    """
    keys = [key for key in NAME_KEYS if type(found.get(key)) is str and found[key]]
    if not keys:
        return None
    if catalog is None or len(keys) == 1:
        return keys[0], False
    known = [key for key in keys if catalog.knows(str(found[key]))]
    tools = {catalog.resolve(str(found[key]))[0] for key in known}
    if len(tools) == 1:
        return known[0], False
    return (known or keys)[0], True


def _tool_as_key(found: dict[object, object], catalog: Catalog | None) -> Parts | None:
    """`{"get_weather": {"city": "Paris"}}`: an object whose one key is a tool of the catalog and
    whose value is its arguments."""
    if catalog is None or len(found) != 1:
        return None
    ((key, arguments),) = found.items()
    if type(key) is not str or type(arguments) not in (dict, str) or not catalog.knows(key):
        return None
    return Parts(key, arguments, None, None, ("tool_name_as_key",))


def _no_name(found: dict[object, object]) -> Refused:
    name = found.get("name")
    if name is None and not any(type(found.get(key)) is str for key in NAME_KEYS):
        return Refused("missing_name", "no tool name")
    return Refused("missing_name", "the tool name is not a non-empty string")


def _names_a_tool(found: dict[object, object]) -> bool:
    return any(type(found.get(key)) is str for key in NAME_KEYS)


def fold(name: str) -> str:
    """A name as a reader compares it: case and punctuation aside (`Math_Factorial`)."""
    return _FOLD.sub("", name).casefold()


class Catalog:
    """The package's `parse`, reached by the names and keys models really write.

    Called like `parse(name, raw, call_id)`. A name the catalog does not hold exactly (or by an
    alias) is matched with case and punctuation aside, with the warning
    `tool_name_normalized:<name sent>`; a name two tools match is `ambiguous_tool_name`. A key of
    an arguments object in the wrong case (`Query` for `query`) is matched to the tool's
    parameter, with the warning `key_case_normalized:<parameter>`.
    """

    def __init__(self, parse: Parse, tools: LazyTools) -> None:
        self._parse = parse
        self._tools = tools
        self._folded: dict[str, list[str]] | None = None
        self._keys: dict[str, dict[str, str | None]] = {}
        self._exact: dict[str, frozenset[str]] = {}
        self._known: set[str] = set()

    def resolve(self, name: str) -> tuple[str, tuple[str, ...]]:
        """The wire name a sent name stands for, and the codes of how it was matched."""
        if name in self._known:
            return name, ()
        if name in self._tools:
            self._known.add(name)  # only the catalog's names: the set stays its size
            return name, ()
        wire = self._tools.wire_name(name)  # a provider's alias
        if wire is not None:
            return wire, ()
        if self._folded is None:
            folded: dict[str, list[str]] = {}
            for known, wire in self._tools.names().items():
                targets = folded.setdefault(fold(known), [])
                if wire not in targets:
                    targets.append(wire)
            self._folded = folded
        matches = self._folded.get(fold(name), [])
        if len(matches) == 1:
            return matches[0], (f"tool_name_normalized:{name}",)
        if len(matches) > 1:
            return name, ("ambiguous_tool_name:" + "|".join(sorted(matches)),)
        return name, ()

    def knows(self, name: str) -> bool:
        """Whether a sent name is one tool of the catalog (its wire name, an alias, or one of
        them with case and punctuation aside)."""
        wire, codes = self.resolve(name)
        return wire in self._tools and not (codes and codes[0].startswith("ambiguous"))

    def parameters(self, wire: str) -> Mapping[str, object]:
        """The JSON Schemas of a tool's parameters by wire name (empty for an unknown tool)."""
        spec = self._tools.get(wire)
        properties = spec.schema.get("properties") if spec is not None else None
        return properties if isinstance(properties, Mapping) else {}

    def __call__(self, name: str, raw: RawArguments, call_id: str = "") -> ToolCallRequest[object]:
        if type(raw) is dict:
            exact = self._exact.get(name)  # filled for the catalog's own names only
            if exact is not None and exact.issuperset(raw):
                # The tool's exact name and keys, as nearly every call has them.
                return self._parse(name, strict_text(raw) or raw, call_id)
        wire, codes = self.resolve(name)
        if codes and codes[0].startswith("ambiguous_tool_name:"):
            return refused(parse_unknown_tool(name, raw, call_id), codes[0])
        if type(raw) is dict:
            raw, renamed = self._matched_keys(wire, raw)
            codes = (*codes, *renamed)
            # As text, the form the parser's fast path takes (the same `values` either way); a
            # value that is not JSON (a pythonic call's set or tuple) goes as it is, for the
            # parser to convert or refuse.
            raw = strict_text(raw) or raw
        request = self._parse(wire, raw, call_id)
        if codes:
            request = request._replace(warnings=(*codes, *request.warnings))
        return request

    def _matched_keys(
        self, wire: str, arguments: dict[str, object]
    ) -> tuple[dict[str, object], tuple[str, ...]]:
        known = wire in self._tools  # only the catalog's tools are remembered: bounded
        exact = self._exact.get(wire)
        if exact is None:
            exact = frozenset(self.parameters(wire))
            if known:
                self._exact[wire] = exact
        if exact.issuperset(arguments):
            return arguments, ()
        keys = self._keys.get(wire)
        if keys is None:
            parameters = self.parameters(wire)
            by_fold: dict[str, str | None] = {}
            for parameter in parameters:
                # Two parameters that differ only in case match nothing: not guessed.
                by_fold[parameter.casefold()] = (
                    None if parameter.casefold() in by_fold else parameter
                )
            keys = {**by_fold, **{p: p for p in parameters}}
            if known:
                self._keys[wire] = keys
        renamed: list[str] = []
        matched: dict[str, object] = {}
        for key, value in arguments.items():
            target = keys.get(key) if key in keys else keys.get(key.casefold())
            if target is None or target == key or target in arguments or target in matched:
                matched[key] = value
            else:
                matched[target] = value
                renamed.append(f"key_case_normalized:{target}")
        return matched, tuple(renamed)

"""The parser's codes in words a model can act on: what to fix in a refused call, and what was
changed in one that ran.

Standard library only. Errors are read with the tool's JSON Schema, so a bound or a pattern is
named (`limit` must be at most 50); with the value the model sent, when its text is JSON, so
only the bound it broke is. Nothing here raises: a code or schema it cannot read is still said.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

# How deep $ref, allOf and anyOf are followed to find a keyword: deeper is a cycle.
_MAX_HOPS: Final = 16
_ENUM_SHOWN: Final = 20

_KIND_WORDS: Final = {
    "unsupported_boolean_literal": "must be true or false",
    "unsupported_integer_literal": "must be an integer",
    "unsupported_number_literal": "must be a number",
    "unsupported_string_literal": "must be a string",
    "unsupported_object_literal": "must be a JSON object",
    "unsupported_array_literal": "must be an array",
    "unsupported_null_literal": "must be null",
    "value_not_json": "must be text, a number, a boolean, null, an array or an object",
    "key_not_json": "must be a JSON object whose keys are text, each once",
}

_AMBIGUOUS: Final = (
    "matches more than one of its allowed forms; send a value that matches exactly one"
)

_WHOLE_CALL: Final = {
    "truncated_arguments": "the arguments were cut off before their end",
    "arguments_not_object": "the arguments must be one JSON object of named parameters",
    "arguments_too_deep": "the arguments are nested too deeply",
    "arguments_too_large": "the arguments are too large",
    "unreadable_arguments": "the arguments could not be read",
}


def decoded_arguments(raw_text: str) -> object:
    """The call's arguments as the model sent them, when they are plain JSON; else None."""
    try:
        return json.loads(raw_text)
    except (ValueError, RecursionError):
        return None


def explain_errors(codes: Iterable[str], schema: Mapping[str, Any], sent: object = None) -> str:
    """Each error code as what to fix, joined with "; ", once each, in the order of the codes."""
    phrases = dict.fromkeys(_error(code, schema, sent) for code in codes)
    return "; ".join(phrases) or "the arguments are not valid"


def explain_warnings(codes: Iterable[str]) -> str | None:
    """The corrections that changed what the model sent, in words; None when there are none.
    Corrections that keep its meaning (a number sent as text, a case variant) are not said."""
    notes: list[str] = []
    for code in codes:
        name, _, path = code.partition(":")
        if name == "unknown_parameter":
            notes.append(f"`{path}` is not a parameter of this tool and was ignored")
        elif name == "fractional_number_truncated_to_integer":
            notes.append(f"`{path}` must be an integer and was truncated to one")
        elif name == "null_treated_as_absent":
            notes.append(f"`{path}` was null and was treated as not given")
        elif name == "timestamp_without_offset":
            notes.append(f"`{path}` had no UTC offset and was read as UTC")
        elif name == "lone_surrogate_replaced":
            notes.append(f"`{path}` held a lone surrogate, which is not text, replaced by U+FFFD")
    return "; ".join(dict.fromkeys(notes)) or None


def _error(code: str, schema: Mapping[str, Any], sent: object) -> str:
    name, _, path = code.partition(":")
    if name in _WHOLE_CALL:
        return _WHOLE_CALL[name]
    if name == "json_parse_error":
        reason = path.split(" (original:", 1)[0]
        return f"the arguments are not valid JSON ({reason}); they must be one JSON object"
    if name == "ambiguous_tool_name":
        tools = ", ".join(f"`{tool}`" for tool in path.split("|"))
        return f"the tool name matches more than one tool ({tools}): send one exact name"
    if name == "model_reported_error":
        return f"the call reported an error: {path}" if path else "the call reported an error"
    if not path:
        return f"the call has the error `{name}`"
    where = f"`{path}`"
    if name == "missing_required":
        return f"{where} is missing"
    if name in _KIND_WORDS:
        return f"{where} {_KIND_WORDS[name]}"
    node = _schema_at(schema, path)
    if name == "out_of_range":
        return f"{where} must be {_bounds(node, schema, _value_at(sent, path))}"
    if name == "length_out_of_range":
        return f"{where} {_lengths(node, schema, _value_at(sent, path))}"
    if name == "pattern_mismatch":
        pattern = _find(node, "pattern", schema)
        if isinstance(pattern, str):
            return f"{where} must match the pattern `{pattern}`"
        return f"{where} does not match its pattern"
    if name == "enum_out_of_range":
        return f"{where} {_choices(node, schema)}"
    if name == "unsupported_timestamp_literal":
        return f"{where} {_timestamp(node, schema)}"
    if name == "unsupported_union_literal":
        types = _types(node, schema)
        if types:
            return f"{where} must be one of these types: {', '.join(types)}"
        return f"{where} matches none of its allowed forms"
    if name == "ambiguous_union_literal":
        return f"{where} {_AMBIGUOUS}"
    return f"{where} has the error `{name}`"


# ---------------------------------------------------------------------------------------------
# Wording of each kind of constraint.


def _bounds(node: Mapping[str, Any], root: Mapping[str, Any], value: object) -> str:
    low = _number(_find(node, "minimum", root))
    high = _number(_find(node, "maximum", root))
    low_x = _number(_find(node, "exclusiveMinimum", root))
    high_x = _number(_find(node, "exclusiveMaximum", root))
    below = [f"at least {_shown(low)}"] if low is not None else []
    below += [f"greater than {_shown(low_x)}"] if low_x is not None else []
    above = [f"at most {_shown(high)}"] if high is not None else []
    above += [f"less than {_shown(high_x)}"] if high_x is not None else []
    number = _number(value)
    if number is not None:
        # Only the bound the value broke: "at most 50" reads better than the whole range.
        too_low = (low is not None and number < low) or (low_x is not None and number <= low_x)
        too_high = (high is not None and number > high) or (high_x is not None and number >= high_x)
        if too_low != too_high:
            return " and ".join(below if too_low else above)
    return " and ".join(below + above) or "within its allowed range"


def _lengths(node: Mapping[str, Any], root: Mapping[str, Any], value: object) -> str:
    low_items, high_items = _find(node, "minItems", root), _find(node, "maxItems", root)
    if isinstance(value, list) or low_items is not None or high_items is not None:
        low, high, unit, verb, tail = low_items, high_items, "item", "have", ""
    else:
        low, high = _find(node, "minLength", root), _find(node, "maxLength", root)
        unit, verb, tail = "character", "be", " long"
    low = low if isinstance(low, int) and not isinstance(low, bool) else None
    high = high if isinstance(high, int) and not isinstance(high, bool) else None
    size = len(value) if isinstance(value, (str, list)) else None
    if size is not None and low is not None and size < low:
        return f"must {verb} at least {low} {_plural(unit, low)}{tail}"
    if size is not None and high is not None and size > high:
        return f"must {verb} at most {high} {_plural(unit, high)}{tail}"
    if low is not None and high is not None:
        return f"must {verb} {low} to {high} {unit}s{tail}"
    if low is not None:
        return f"must {verb} at least {low} {_plural(unit, low)}{tail}"
    if high is not None:
        return f"must {verb} at most {high} {_plural(unit, high)}{tail}"
    return "has a length out of its allowed range"


def _choices(node: Mapping[str, Any], root: Mapping[str, Any]) -> str:
    for member in _members(node, root):
        if "const" in member:
            return f"must be {_json(member['const'])}"
        values = member.get("enum")
        if isinstance(values, list) and values:
            shown = ", ".join(_json(value) for value in values[:_ENUM_SHOWN])
            more = f", … ({len(values)} values in all)" if len(values) > _ENUM_SHOWN else ""
            return f"must be one of {shown}{more}"
    return "is not one of its allowed values"


def _timestamp(node: Mapping[str, Any], root: Mapping[str, Any]) -> str:
    if _find(node, "format", root) == "date":
        return "must be a date in ISO 8601 form, such as 2024-05-01"
    return "must be a date and time in ISO 8601 form, such as 2024-05-01T09:30:00Z"


def _types(node: Mapping[str, Any], root: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for member in _members(node, root):
        kind = member.get("type")
        for name in kind if isinstance(kind, list) else [kind]:
            if isinstance(name, str) and name not in found:
                found.append(name)
    return found


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return float(value.strip())  # the model's "500" broke the bound as 500 does
        except ValueError:
            return None
    return None


def _shown(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)


def _plural(unit: str, count: int) -> str:
    return unit if count == 1 else unit + "s"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# Finding the schema and the value at a code's path (`settings.retryPolicy.backoff`, `files[2]`).
# Wire names may hold dots, so at each object the longest property name that fits is taken.


def _schema_at(schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    node: Mapping[str, Any] = schema
    rest = path
    while rest:
        if rest.startswith("["):
            end = rest.find("]")
            items = _find(node, "items", schema)
            node = items if isinstance(items, Mapping) else {}
            rest = rest[end + 1 :] if end >= 0 else ""
        else:
            properties = _find(node, "properties", schema)
            names = properties if isinstance(properties, Mapping) else {}
            key = _longest_key(names, rest)
            if key is None:
                key = _segment(rest)
                extra = _find(node, "additionalProperties", schema)
                node = extra if isinstance(extra, Mapping) else {}
            else:
                child = names[key]
                node = child if isinstance(child, Mapping) else {}
            rest = rest[len(key) :]
        rest = rest.removeprefix(".")
    return node


def _value_at(sent: object, path: str) -> object:
    node = sent
    rest = path
    while rest:
        if rest.startswith("[") and isinstance(node, list):
            end = rest.find("]")
            try:
                node = node[int(rest[1:end])]
            except (ValueError, IndexError):
                return None
            rest = rest[end + 1 :]
        elif isinstance(node, dict):
            key = _longest_key(node, rest)
            if key is None:
                return None
            node = node[key]
            rest = rest[len(key) :]
        else:
            return None
        rest = rest.removeprefix(".")
    return node


def _longest_key(names: Mapping[Any, Any], rest: str) -> str | None:
    fitting = [
        key
        for key in names
        if isinstance(key, str) and (rest == key or rest.startswith((key + ".", key + "[")))
    ]
    return max(fitting, key=len, default=None)


def _segment(rest: str) -> str:
    ends = [i for i in (rest.find("."), rest.find("[")) if i >= 0]
    return rest[: min(ends)] if ends else rest


def _find(node: Mapping[str, Any], keyword: str, root: Mapping[str, Any]) -> object:
    """`keyword` of the schema `node`, or of what it refers to or combines (`$ref`, `allOf`,
    `anyOf`, `oneOf`), the first found; None when there is none. `$ref`s resolve in `root`."""
    for member in _members(node, root):
        if keyword in member:
            return member[keyword]
    return None


def _members(node: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The node, then the schemas it refers to and combines, breadth first, within _MAX_HOPS."""
    found: list[Mapping[str, Any]] = []
    queue: list[tuple[Mapping[str, Any], int]] = [(node, 0)]
    while queue:
        current, hops = queue.pop(0)
        found.append(current)
        if hops >= _MAX_HOPS:
            continue
        target = _resolve(current.get("$ref"), root)
        if target is not None:
            queue.append((target, hops + 1))
        for word in ("allOf", "anyOf", "oneOf"):
            members = current.get(word)
            if isinstance(members, list):
                queue += [(m, hops + 1) for m in members if isinstance(m, Mapping)]
    return found


def _resolve(ref: object, root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A local `$ref` (`#/$defs/name`, a JSON pointer into the tool's parameters)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node: object = root
    for part in ref[1:].split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node if isinstance(node, Mapping) else None

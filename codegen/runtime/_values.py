"""Values coming in are JSON values: the one rule for what a parser, and so a handler, is given.

A call's arguments come as JSON text, as a dict a caller built, as an SDK's own objects (a Gemini
`args` map), or as the literals of a pythonic call (`f(tags={"a"}, raw=b"x")`). Whatever the form,
the parser sees only what JSON can carry: objects with text keys, arrays, text, integers, finite
floats, booleans and null. `json_value` (`json_object` for the arguments object) makes that copy
of a value (`_outbound.is_json` tells a value that already is one). Every entry reaches them: `_runtime.decode_arguments` for anything
that is not text and for decoded text that holds an infinity (`1e400`, which JSON's grammar takes
and no float holds), a string holding JSON (`string_parsed_as_json`), and `_calls.Catalog` (the
readers of model text) before it takes the text path.

| sent | given to the parser |
| --- | --- |
| a `Mapping` (a dict, an SDK's map) | an object, silently |
| a `list`, `tuple` or other sequence (an SDK's repeated field) | an array, silently: JSON writes a tuple as an array |
| a subclass of `str`, `int`, `float` (an `IntEnum`, a `StrEnum`) | its plain value, silently, as JSON writes it |
| a key that is an int, a finite float, a bool or None | its JSON text (`1` → `"1"`, `True` → `"true"`), `key_converted_to_text:<path>` |
| a key of any other type (a tuple, bytes), or two keys with one text | error `key_not_json:<path of the object>` |
| text (a value or a key) holding a lone surrogate (`"\\ud800"`), which no UTF-8 can carry | the text with U+FFFD in its place, `lone_surrogate_replaced:<path>` |
| a set, bytes, a complex number, `...`, NaN or an infinity, any other object | error `value_not_json:<path>` |

A lone surrogate is mended rather than refused: it is one broken character of text whose meaning
is plain, and sent on as it is it would break the next request (`_outbound` owns the test for it).
A non-finite number is refused: no JSON number stands for it. A set is refused rather than listed, since the order a list would need is not in the value; bytes
are refused rather than decoded, since they need not be text. The caller's value is never changed.

Standard library only; nothing here raises on any value of the types above (an object whose own
methods raise is the caller's to catch, as `_runtime.run_parser` does). `json_value` walks what it
is given: its caller bounds the depth and size of every container first (`is_container`), as
`_runtime` does, so `range(10**12)` is `arguments_too_large`, never a list being made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import isfinite
from typing import Final, TypeGuard

from ._outbound import has_lone_surrogate, well_formed

# What a refused value leaves behind in its object or array: nothing.
_REFUSED: Final = object()
# Sequences that are not arrays: text and bytes.
_NOT_ARRAYS: Final = (str, bytes, bytearray, memoryview)


def json_value(value: object, path: str, warnings: list[str], errors: list[str]) -> object:
    """A copy of `value` that holds JSON values only, each change a warning; a value or key that
    JSON cannot carry is left out and is an error (None when it is `value` itself). `path` is the
    value's (`""` for the arguments object itself), as the parser's codes name it."""
    converted = _convert(value, path, warnings, errors)
    return None if converted is _REFUSED else converted


def json_object(
    value: Mapping[object, object], path: str, warnings: list[str], errors: list[str]
) -> dict[str, object]:
    """`json_value` of a mapping (the arguments object itself, at `path` `""`): always a dict."""
    return _object(value, path, warnings, errors)


def is_container(value: object) -> TypeGuard[Mapping[object, object] | Sequence[object]]:
    """Whether `json_value` reads `value` as an object or an array (a mapping, or a sequence that
    is not text or bytes): what the caller bounds in depth and size before it converts."""
    return isinstance(value, Mapping) or (
        isinstance(value, Sequence) and not isinstance(value, _NOT_ARRAYS)
    )


def _convert(value: object, path: str, warnings: list[str], errors: list[str]) -> object:
    if type(value) is str:
        return _text(value, path, warnings)
    if type(value) is int or type(value) is bool or value is None:
        return value
    if type(value) is float:
        return value if isfinite(value) else _refuse(path, errors)
    if isinstance(value, Mapping):
        return _object(value, path, warnings, errors)
    if is_container(value):
        items = (_convert(item, f"{path}[{i}]", warnings, errors) for i, item in enumerate(value))
        return [item for item in items if item is not _REFUSED]
    # Subclasses of JSON's scalar types (bool has none), as JSON writes them: the base type's
    # value, and none of the subclass's own methods runs.
    if isinstance(value, str):
        return _text(str.__str__(value), path, warnings)
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        return number if isfinite(number) else _refuse(path, errors)
    return _refuse(path, errors)


def _object(
    value: Mapping[object, object], path: str, warnings: list[str], errors: list[str]
) -> dict[str, object]:
    converted: dict[str, object] = {}
    for key, item in value.items():
        text = key_json_text(key)
        mended = text is not None and has_lone_surrogate(text)
        if mended and text is not None:
            text = well_formed(text)
        if text is None or text in converted:
            # No text, or the text of a key before it (`{1: "a", "1": "b"}`): which was meant
            # would be a guess.
            errors.append(f"key_not_json:{path}" if path else "key_not_json")
            continue
        inner = f"{path}.{text}" if path else text
        if not isinstance(key, str):
            warnings.append(f"key_converted_to_text:{inner}")
        elif mended:
            warnings.append(f"lone_surrogate_replaced:{inner}")
        item = _convert(item, inner, warnings, errors)
        if item is not _REFUSED:
            converted[text] = item
    return converted


def key_json_text(key: object) -> str | None:
    """A key as JSON writes it (`json.dumps({True: 1})` is `{"true": 1}`), or None when JSON
    writes no such key or it has no text (an integer of more than 4,300 digits)."""
    if isinstance(key, str):
        return str.__str__(key)
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    try:
        if isinstance(key, int):
            return int.__repr__(int.__index__(key))
        if isinstance(key, float):
            number = float.__float__(key)
            return float.__repr__(number) if isfinite(number) else None
    except ValueError:
        return None
    return None


def _text(text: str, path: str, warnings: list[str]) -> str:
    if has_lone_surrogate(text):
        warnings.append(f"lone_surrogate_replaced:{path}")
        return well_formed(text)
    return text


def _refuse(path: str, errors: list[str]) -> object:
    errors.append(f"value_not_json:{path}")
    return _REFUSED

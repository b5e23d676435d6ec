"""What a package sends out, encoded one way: strict JSON in well-formed UTF-8.

Standard library only. Everything that leaves the package (a result's text and structured
content in every provider's form and MCP's, the arguments of a history turn, the words of an
error) goes through here, so that it can always be encoded as UTF-8 (`text.encode("utf-8")`
never raises) and its JSON is strict (no `NaN`, no `Infinity`), and the text and the structure
of one value are the same value.

Two things Python holds have no such form: a lone surrogate in a str (`os.fsdecode(b"caf\\xe9")`
gives `"caf\\udce9"`), and a non-finite float. `encode` reports each with its path, and writes
the value with each replaced: a lone surrogate by U+FFFD, a non-finite number by null (as is
anything else JSON cannot write: a container that holds itself, a key that is no text, an
integer too long to write, a value whose conversion raised). Who decides what a problem means is
the caller: the executor fails a handler's result that has any (the handler is code, and the
error names each path), while the parser reports a lone surrogate the model sent and replaces it
(`lone_surrogate_replaced`), so that what reaches a handler and a history turn is text.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time
from typing import Final, NamedTuple, TypeAlias

REPLACEMENT: Final = "\ufffd"

# In a Python str every surrogate code point is a lone one: a pair decoded from JSON is already
# one astral character, and two surrogates side by side are not (UTF-8 cannot encode them).
LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")

# At most this many problems are reported for one value (each is still replaced).
MAX_REPORTED: Final = 20

# How deep `encode` follows a value that json could not write; deeper is `result_too_deep`.
# Under the interpreter's recursion limit, so that writing what it made cannot exceed it.
MAX_DEPTH: Final = 400


def well_formed(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD: text UTF-8 can encode."""
    if str.isascii(text) or LONE_SURROGATE.search(text) is None:
        return text
    return LONE_SURROGATE.sub(REPLACEMENT, text)


def has_lone_surrogate(text: str) -> bool:
    return not str.isascii(text) and LONE_SURROGATE.search(text) is not None


# What each problem is, in words: the code a result's `errors` holds → what the error says.
WORDS: Final = {
    "result_non_finite_number": "not a finite number",
    "result_lone_surrogate": "text holding a lone surrogate, which is not Unicode",
    "result_circular_reference": "a container that holds itself",
    "result_key_not_text": "a key that is not text",
    "result_integer_too_long": "an integer too long to write",
    "result_unreadable_value": "a value whose conversion to JSON raised",
    "result_too_deep": f"nested more than {MAX_DEPTH} levels deep",
}


class Unsendable(NamedTuple):
    """One part of a value that JSON cannot carry: its code, its path (`items[0].name`, "" for
    the whole value) and what was found there (`nan`, `U+DCE9`, ...)."""

    code: str
    path: str
    found: str

    @property
    def error(self) -> str:
        """The code as a result's `errors` holds it: `code:path`, or the code for the whole value."""
        return f"{self.code}:{self.path}" if self.path else self.code

    @property
    def words(self) -> str:
        """`result.items[0].name: not a finite number (nan)`."""
        where = (
            "result" if not self.path else f"result{'' if self.path[0] == '[' else '.'}{self.path}"
        )
        return f"{where}: {WORDS[self.code]} ({self.found})"


class Encoded(NamedTuple):
    """A value as JSON text (strict, well-formed), and what had to be replaced to write it."""

    text: str
    problems: tuple[Unsendable, ...]


def encode(value: object, default: Callable[[object], object] | None = None) -> Encoded:
    """`value` as strict JSON text, each thing that json does not know converted by `default`
    (`json_default` when None). Never raises: what cannot be sent is replaced and reported."""
    convert = json_default if default is None else default
    text = _try_dumps(value, convert)
    if text is not None and not has_lone_surrogate(text):
        return Encoded(text, ())
    problems: list[Unsendable] = []
    mended = _Mender(convert, problems).mend(value, "", 0, set())
    text = _try_dumps(mended, None)
    if text is None:  # plain JSON, but deeper than the stack left to this call allows
        return Encoded("null", (*problems, Unsendable("result_too_deep", "", "the stack")))
    return Encoded(text, tuple(problems))


def strict_text(value: object) -> str | None:
    """The JSON text of a value that can be sent on as it is, being exactly JSON (`is_json`);
    None for any other, which is `encode`'s to convert and report (a result) or the parser's to
    correct (what a model sent)."""
    try:
        return _try_dumps(value, None) if is_json(value) else None
    except RecursionError:
        return None


def is_json(value: object) -> bool:
    """Whether `value` already is a JSON value, exactly, that can be sent as it is: what a JSON
    decoder gives, save the infinity a number too large for a float becomes (`1e400`) and a lone
    surrogate `json` keeps; JSON's own types only (no tuple, no subclass, text keys). The one
    test of it, for the parser (`_values`: what needs converting) and for what is sent on."""
    if type(value) is str:
        return not has_lone_surrogate(value)
    if type(value) is int or type(value) is bool or value is None:
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str or has_lone_surrogate(key) or not is_json(item):
                return False
        return True
    if type(value) is list:
        return all(is_json(item) for item in value)
    return False


def strict_loads(text: str) -> object:
    """The value of a JSON text that can be sent on as it is; None when it is not valid JSON
    (`NaN` and `Infinity` are not) or its value is not (a lone surrogate, `1e400`)."""
    try:
        value = _strict_decode(text)
    except (ValueError, RecursionError):
        return None
    return value if strict_text(value) is not None else None


def _reject_constant(constant: str) -> object:
    raise ValueError(f"{constant} is not JSON")


_strict_decode: Final = json.JSONDecoder(parse_constant=_reject_constant).decode


def _dumps(value: object, default: Callable[[object], object] | None) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, default=default)


def _try_dumps(value: object, default: Callable[[object], object] | None) -> str | None:
    try:
        return _dumps(value, default)
    except Exception:  # noqa: BLE001 - NaN, a cycle, a bad key, a conversion or a method raised
        return None


@dataclasses.dataclass(slots=True)
class _Mender:
    """A copy of a value in JSON's own types, each problem replaced and reported (up to
    MAX_REPORTED), converting as json would with the same `default`."""

    convert: Callable[[object], object]
    problems: list[Unsendable]

    def mend(self, value: object, path: str, depth: int, open_: set[int]) -> object:
        if isinstance(value, str):
            if has_lone_surrogate(value):
                self._report("result_lone_surrogate", path, _surrogate_of(value))
                return well_formed(value)
            return value
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            try:
                int.__repr__(value)
            except ValueError:
                self._report("result_integer_too_long", path, "more than 4300 digits")
                return None
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                self._report("result_non_finite_number", path, float.__repr__(value))
                return None
            return value
        if depth >= MAX_DEPTH:
            self._report("result_too_deep", path, type(value).__name__)
            return None
        if id(value) in open_:
            self._report("result_circular_reference", path, type(value).__name__)
            return None
        open_.add(id(value))
        try:
            if isinstance(value, dict):
                return self._object(value, path, depth, open_)
            if isinstance(value, (list, tuple)):
                return [
                    self.mend(item, f"{path}[{index}]", depth + 1, open_)
                    for index, item in enumerate(value)
                ]
            converted = self.convert(value)
            return self.mend(converted, path, depth + 1, open_)
        except Exception as exc:  # noqa: BLE001 - a conversion or a container's own method raised
            self._report("result_unreadable_value", path, type(exc).__name__)
            return None
        finally:
            open_.discard(id(value))

    def _object(
        self, value: dict[object, object], path: str, depth: int, open_: set[int]
    ) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, item in list(value.items()):
            name = self._key(key, path)
            out[name] = self.mend(item, f"{path}.{name}" if path else name, depth + 1, open_)
        return out

    def _key(self, key: object, path: str) -> str:
        """The key as json writes it (`True` → "true", `1` → "1"), or its replacement."""
        if isinstance(key, str):
            if has_lone_surrogate(key):
                name = well_formed(key)
                self._report("result_lone_surrogate", _child(path, name), _surrogate_of(key))
                return name
            return key
        if key is None or isinstance(key, bool):
            return "null" if key is None else "true" if key else "false"
        if isinstance(key, int):
            try:
                return int.__repr__(key)
            except ValueError:
                self._report("result_integer_too_long", path, "a key of more than 4300 digits")
                return "<int>"
        if isinstance(key, float):
            name = float.__repr__(key)
            if not math.isfinite(key):
                self._report("result_non_finite_number", _child(path, name), f"a key, {name}")
            return name
        name = plain_text(key)
        self._report("result_key_not_text", _child(path, well_formed(name)), type(key).__name__)
        return well_formed(name)

    def _report(self, code: str, path: str, found: str) -> None:
        if len(self.problems) < MAX_REPORTED:
            self.problems.append(Unsendable(code, path, found))


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _surrogate_of(text: str) -> str:
    found = LONE_SURROGATE.search(text)
    return f"U+{ord(found.group()):04X}" if found else "?"


def json_default(value: object) -> object:
    """JSON for what the json module does not know: the ISO text of dates and times, an enum's
    value, a dataclass's fields (a generated one's by wire name, `dataclass_json`), a set's
    items, a mapping's items, bytes as UTF-8 text, a pydantic model's own JSON form, and the text
    of anything else (UUID, Decimal, Path, ...)."""
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclass_json(value)
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
    return plain_text(value)


# A generated module's `WIRE_NAMES`: for each of its dataclasses, by name, the wire names of its
# fields in field order; a field after them holds an open object's other keys.
WireNames: TypeAlias = Mapping[str, Sequence[str]]


def dataclass_json(value: object) -> dict[str, object]:
    """A dataclass as the object it is on the wire. A generated one (an `<Tool>Args`, a
    `<Tool>Result`, a class nested in either, of any tool) is keyed by the wire names its module's
    `WIRE_NAMES` table holds (`retryPolicy`, never `retry_policy`), an open object's other keys
    among them, and a None where the field's default is None is left out, as the model leaves out
    an optional parameter: no one else decides how a generated value leaves the package. Any
    other dataclass is keyed by its fields' names."""
    cls = type(value)
    table: WireNames | None = getattr(sys.modules.get(cls.__module__), "WIRE_NAMES", None)
    wires = table.get(cls.__name__) if isinstance(table, Mapping) else None
    fields = dataclasses.fields(value)  # type: ignore[arg-type]
    if wires is None:
        return {field.name: getattr(value, field.name) for field in fields}
    out: dict[str, object] = {}
    for wire, field in zip(wires, fields):
        item = getattr(value, field.name)
        if item is not None or field.default is not None:
            out[wire] = item
    for field in fields[len(wires) :]:
        out.update(getattr(value, field.name))  # an open object's other keys
    return out


def plain_text(value: object) -> str:
    """`str(value)`, or `<type>` when its `__str__` raises."""
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a value whose __str__ raises is still a value of a type
        return f"<{type(value).__name__}>"

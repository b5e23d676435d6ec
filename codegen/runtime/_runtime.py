"""Runtime of the generated parsers: request types, whole-input decoding and per-kind coercions.

Standard library only. Every function here is total: it reports problems as warning and error
codes and never raises on any input.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from enum import Enum
from keyword import iskeyword
from math import isfinite
from types import MappingProxyType
from typing import Any, Final, Generic, Literal, NamedTuple, TypeAlias, TypeVar

from ._outbound import WireNames, has_lone_surrogate, is_json
from ._repair import iter_values, repair_json
from ._values import is_container, json_object, json_value, key_json_text


def _fast_decoder() -> Callable[[str], object] | None:
    """msgspec's JSON decoder when it is installed: several times faster than json, and as exact
    (integers of any size stay int). Where it refuses a text, json decides, so results never differ.
    """
    try:
        module = importlib.import_module("msgspec.json")
    except ImportError:
        return None
    decode: Callable[[str], object] = module.Decoder().decode
    return decode


_fast_loads: Final = _fast_decoder()

# Requests and specs are read-only, so a request of some tool's arguments is a request of `object`.
ArgsT_co = TypeVar("ArgsT_co", covariant=True)
ResultT_co = TypeVar("ResultT_co", covariant=True)
T = TypeVar("T")

RawArguments: TypeAlias = str | bytes | bytearray | memoryview | Mapping[str, object] | None

MAX_UNQUOTE_LEVELS: Final = 10
MAX_NODES: Final = (
    1_000_000  # values in a dict input, counting a shared one at each place it appears
)
MAX_DEPTH: Final = 128
MAX_CHARS: Final = 64 * 1024 * 1024
ORIGINAL_SHOWN: Final = 100


class Invalid(Enum):
    """The result of a coercion that failed; its error code is already recorded."""

    INVALID = "invalid"


INVALID: Final = Invalid.INVALID
# What dict.get returns for a parameter the call did not send.
ABSENT: Final = object()
# The folding table of an enum matched case-sensitively, or of one without text choices.
NO_FOLDING: Final[Mapping[str, Any]] = MappingProxyType({})


class Detail(str):
    """A warning or error as the text `warnings` and `errors` hold (`out_of_range:limit`), with
    its parts: the `code`, the `path` of the parameter it is about ("" for the whole call), and
    the `context` its words need (the bound broken, the allowed values, the format expected),
    recorded where the parser found it. Read-only, like the text it is."""

    __slots__ = ("code", "context", "path")

    code: str
    path: str
    context: Mapping[str, object]

    @property
    def level(self) -> str:
        """`warning` or `error` (or `problem`, a reader's), as the table of codes lists it."""
        from ._codes import CODES  # the table, loaded only when a detail is asked about

        entry = CODES.get(self.code)
        return "error" if entry is None else entry.level

    @property
    def message(self) -> str:
        """The detail in words a model can act on (`limit` must be at most 50)."""
        from ._explain import words

        return words(self)


def detail(code: str, path: str, context: Mapping[str, object], text: str | None = None) -> Detail:
    """The Detail of `code` at `path` with its `context`; its text is `code:path` (`code` alone
    for the whole call) unless `text` is given."""
    if text is None:
        text = f"{code}:{path}" if path else code
    made = str.__new__(Detail, text)
    made.code = code
    made.path = path
    made.context = context
    return made


def details(warnings: tuple[str, ...], errors: tuple[str, ...]) -> tuple[Detail, ...]:
    """Each warning, then each error, as a Detail: the one the parser made where it found it, or
    the code's text read by the table of codes (`_codes.read`)."""
    if not warnings and not errors:
        return ()
    from ._codes import read

    return tuple(map(read, (*warnings, *errors)))


class ReadyRequest(NamedTuple, Generic[ArgsT_co]):
    """A call that may run: `arguments` is the tool's typed dataclass, and there are no errors.

    `values` holds the corrected plain values by wire name. A named tuple: the cheapest immutable
    record CPython builds. `ok` is always True here, and False on a `RefusedRequest`: a type
    checker reading `if request.ok:` knows `arguments` is the dataclass, not None.
    """

    tool_name: str
    tool_call_id: str
    raw_arguments: str
    arguments: ArgsT_co
    values: dict[str, object]
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    ok: Literal[True] = True

    @property
    def parse_warning(self) -> str | None:
        return "; ".join(self.warnings) or None

    @property
    def parse_error(self) -> str | None:
        return "; ".join(self.errors) or None

    @property
    def details(self) -> tuple[Detail, ...]:
        """Each warning, then each error, with its code, path and context (`Detail`)."""
        return details(self.warnings, self.errors)


class RefusedRequest(NamedTuple):
    """A call that must not run: it has errors, or names a tool the catalog does not know (which
    has the generic parse's `values` and the warning `tool_definition_missing`, and no errors).

    `arguments` is None and `ok` False; `values` holds what could be read, partial on errors.
    """

    tool_name: str
    tool_call_id: str
    raw_arguments: str
    arguments: None
    values: dict[str, object]
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    ok: Literal[False] = False

    @property
    def parse_warning(self) -> str | None:
        return "; ".join(self.warnings) or None

    @property
    def parse_error(self) -> str | None:
        return "; ".join(self.errors) or None

    @property
    def details(self) -> tuple[Detail, ...]:
        """Each warning, then each error, with its code, path and context (`Detail`)."""
        return details(self.warnings, self.errors)


# One tool call as the model sent it, and what the parser made of it: `ok` tells the two apart.
ToolCallRequest: TypeAlias = ReadyRequest[ArgsT_co] | RefusedRequest


def refused(request: ToolCallRequest[object], *errors: str) -> RefusedRequest:
    """The request with `errors` added: one that must not run, whatever it was."""
    return RefusedRequest(
        request.tool_name,
        request.tool_call_id,
        request.raw_arguments,
        None,
        request.values,
        request.warnings,
        (*request.errors, *errors),
    )


# Builds a request from a tuple of its fields, without the named tuple's own __new__ in Python.
_new_request: Final = tuple.__new__


@dataclass(frozen=True, slots=True)
class ResultSpec(Generic[ResultT_co]):
    """A tool's declared result (`returns`): its dataclass, the generated checker of its JSON
    form (which corrects the object in place, as an arguments parser does), and its JSON Schema."""

    result_type: type[ResultT_co]
    check: Callable[[dict[str, object], list[str], list[str]], ResultT_co | Invalid]
    schema: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[ArgsT_co]):
    """A tool of the catalog: its wire name, description, argument type, parser and JSON Schema,
    the wire names of its dataclasses' fields (its module's `WIRE_NAMES`, `_outbound.WireNames`:
    the one table from each field to the name the model and the schema use), and its declared
    result, if any."""

    name: str
    description: str
    args_type: type[ArgsT_co]
    parse: Callable[[RawArguments, str], ToolCallRequest[ArgsT_co]]
    schema: Mapping[str, object]
    wire_names: WireNames
    returns: ResultSpec[object] | None = None

    def keywords(self) -> tuple[Keyword, ...]:
        """Each parameter of the tool as a keywords handler takes it, in the tool's order (an
        open object's other keys last)."""
        wires = self.wire_names[self.args_type.__name__]
        attributes = [field.name for field in fields(self.args_type)]  # type: ignore[arg-type]
        names = keyword_names(wires, attributes)
        return tuple(
            Keyword(wires[index] if index < len(wires) else "", name, attribute)
            for index, (name, attribute) in enumerate(zip(names, attributes, strict=True))
        )


class Keyword(NamedTuple):
    """A tool parameter as a keywords handler takes it: its wire name ("" for the field of an
    open object's other keys), its keyword name (`keyword_names`) and its attribute on the
    `<Tool>Args`."""

    wire: str
    name: str
    attribute: str


def keyword_names(wire_names: Sequence[str], attributes: Sequence[str]) -> tuple[str, ...]:
    """The name by which a keywords handler takes each parameter, the one rule for the executor
    and the `<Tool>Keywords` Protocol the build writes: the parameter's wire name when Python can
    spell a parameter so (an identifier, no keyword, unchanged by NFKC and not mangled in a class),
    otherwise its attribute (`Content-Type` → `content_type`, `class` → `class_`), with `_`
    added while another parameter's name holds it. `attributes` may end with the field of an open
    object's other keys, which has no wire name: it goes by its attribute."""
    spelled = [wire if is_parameter_name(wire) else None for wire in wire_names]
    taken = {name for name in spelled if name is not None}
    names: list[str] = []
    for index, attribute in enumerate(attributes):
        name = spelled[index] if index < len(spelled) else None
        if name is None:
            name = attribute
            while name in taken:
                name += "_"
            taken.add(name)
        names.append(name)
    return tuple(names)


def is_parameter_name(name: str) -> bool:
    """Whether `name` is a parameter's name as written: Python folds identifiers by NFKC (`ﬁle`
    is `file`) and mangles `__x` inside a class."""
    if not name.isidentifier() or iskeyword(name):
        return False
    if name.startswith("__") and not name.endswith("__"):
        return False
    if name.isascii():
        return True
    import unicodedata  # a name beyond ASCII only: its table is large, and seldom needed

    return unicodedata.normalize("NFKC", name) == name


def draft_class(cls: type) -> type:
    """A writable twin of a frozen slotted dataclass, for the parsers to build its instances.

    The twin has the same __slots__ and nothing else, so an instance of it whose fields are set one
    by one becomes a `cls` when its __class__ is assigned (the data model allows that between
    classes with the same __slots__): half the time of setting a frozen instance's slots through
    their descriptors, and the result is as frozen as one made by `cls(...)`.
    """
    namespace = {"__slots__": vars(cls)["__slots__"], "__module__": cls.__module__}
    return type(f"{cls.__name__}Draft", (), namespace)


class LazyTools(Mapping[str, ToolSpec[object]]):
    """A catalog's tools by wire name; each tool's module is imported the first time it is looked
    up, so a service that uses one tool of a large catalog loads that one alone. It is also the
    one owner of which tool a name means (`wire_name`): its wire name, or the alias a provider
    was sent instead, for `parse`, the executor, MCP and `codegen parse` alike."""

    __slots__ = ("_aliases", "_loaded", "_modules", "_package")

    def __init__(
        self, package: str, modules: dict[str, str], aliases: Mapping[str, str] | None = None
    ) -> None:
        self._package = package
        self._modules = modules  # wire name → module under tools/
        self._aliases = aliases or {}  # provider alias → wire name (PROVIDER_NAMES, reversed)
        self._loaded: dict[str, ToolSpec[object]] = {}

    def wire_name(self, name: object) -> str | None:
        """The wire name of the tool `name` means (its wire name or a provider alias), or None."""
        if type(name) is not str:
            return None
        if name in self._modules:
            return name
        return self._aliases.get(name)

    def names(self) -> dict[str, str]:
        """Every name a tool goes by (wire names, then aliases), each with its wire name."""
        return {**{wire: wire for wire in self._modules}, **self._aliases}

    def __getitem__(self, name: str) -> ToolSpec[object]:
        spec = self._loaded.get(name)
        if spec is None:
            module = importlib.import_module(f"{self._package}.tools.{self._modules[name]}")
            spec = self._loaded[name] = module.TOOL
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._modules

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __repr__(self) -> str:
        return f"LazyTools({self._package!r}, {len(self)} tools)"


def lazy_exports(
    package: str, modules: dict[str, str], own: Mapping[str, str] | None = None
) -> Callable[[str], object]:
    """The `__getattr__` of a catalog's package (PEP 562): each tool's exports (its parser, its
    classes), imported from the tool's module (`modules` maps the name to it, `module:Defined`
    when the package exports it under another name) on first use, and the names `own` maps to a
    module of the package itself (the executor's), the same way."""

    def exported(name: str) -> object:
        defined = name
        module = modules.get(name)
        if module is not None:
            module, _, renamed = module.partition(":")
            path, defined = f"{package}.tools.{module}", renamed or name
        elif own is not None and name in own:
            path = f"{package}.{own[name]}"
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(path), defined)
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    return exported


@dataclass(slots=True)
class Decoded:
    """The arguments object of a call, or the reason there is none."""

    raw_text: str
    root: dict[str, object] | None
    warnings: list[str]
    errors: list[str]


def run_parser(
    tool_name: str,
    tool_call_id: str,
    raw: RawArguments,
    arguments: Callable[[dict[str, object], list[str], list[str]], T | Invalid],
) -> ToolCallRequest[T]:
    """Decode `raw` and check it with `arguments`, the tool's generated parser, which corrects the
    decoded object in place: that object becomes the request's `values`."""
    try:
        # Most calls are the text of one JSON object: strict decoding takes it, and no other
        # whole-input rule can apply, so it skips the rest of decode_arguments.
        if type(raw) is str and len(raw) <= MAX_CHARS:
            try:
                root = _decode(raw)
            except (ValueError, RecursionError):
                root = None
            # Valid JSON nests at most half its length deep, so short texts need no count.
            if type(root) is dict and (len(raw) < _SHALLOW_TEXT or not _too_deep(root, raw)):
                warnings: list[str] = []
                errors: list[str] = []
                typed = arguments(root, warnings, errors)
                if errors or typed is INVALID:
                    return _new_request(
                        RefusedRequest,
                        (
                            tool_name,
                            tool_call_id,
                            raw,
                            None,
                            root,
                            tuple(warnings),
                            tuple(errors),
                            False,
                        ),
                    )
                return _new_request(
                    ReadyRequest,
                    (tool_name, tool_call_id, raw, typed, root, tuple(warnings), (), True),
                )
            # msgspec has refused the text once already: json alone decides it now.
            doc = _decode_text(raw, root) if type(root) is str else _decode_text(raw, None, True)
        else:
            doc = decode_arguments(raw)
        if doc.root is None:
            return RefusedRequest(
                tool_name, tool_call_id, doc.raw_text, None, {}, (*doc.warnings,), (*doc.errors,)
            )
        typed = arguments(doc.root, doc.warnings, doc.errors)
        if doc.errors or typed is INVALID:
            return RefusedRequest(
                tool_name,
                tool_call_id,
                doc.raw_text,
                None,
                doc.root,
                (*doc.warnings,),
                (*doc.errors,),
            )
        return ReadyRequest(
            tool_name, tool_call_id, doc.raw_text, typed, doc.root, (*doc.warnings,)
        )
    except Exception as exc:  # noqa: BLE001 - a dict input may hold objects whose own methods raise
        code = f"unreadable_arguments:{type(exc).__name__}"
        return RefusedRequest(tool_name, tool_call_id, _UNSHOWN, None, {}, (), (code,))


_SHALLOW_TEXT: Final = 2 * (MAX_DEPTH + 1)


# ---------------------------------------------------------------------------------------------
# Whole input


def decode_arguments(raw: object) -> Decoded:
    """Turn what a provider handed over into the arguments object, applying the whole-input rules."""
    if type(raw) is str:
        text = raw
    elif isinstance(raw, Mapping):
        return _decode_mapping(raw)
    elif isinstance(raw, (bytes, bytearray, memoryview)):
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            shown = bytes(raw).decode("utf-8", "replace")
            return Decoded(
                shown, None, [], [_parse_error(f"invalid UTF-8 at byte {exc.start}", shown)]
            )
    elif raw is None:
        return Decoded("", {}, [], [])
    elif isinstance(raw, str):
        text = str(raw)
    else:
        return Decoded(_as_json_text(raw), None, [], ["arguments_not_object"])
    return _decode_text(text)


def _decode_text(text: str, inner: str | None = None, refused: bool = False) -> Decoded:
    """The whole-input rules for a text; `inner` is the string strict decoding already found in it,
    when the caller has decoded it once (the arguments were JSON-encoded once more), and `refused`
    says the fast decoder has refused the text itself."""
    warnings: list[str] = []
    if len(text) > MAX_CHARS:
        return Decoded(text, None, warnings, ["arguments_too_large"])
    current = text
    levels = MAX_UNQUOTE_LEVELS + 1
    if inner is not None:
        warnings.append("arguments_unquoted")
        current = inner
        levels -= 1
    for _ in range(levels):
        stripped = current.strip().lstrip("\ufeff")
        if not stripped:
            return Decoded(text, {}, warnings, [])
        errors: list[str] = []
        try:
            # Only what json decodes can hold what is no JSON value: msgspec refuses it.
            value, by_json = (_json_decode(stripped), True) if refused else _loads_as(stripped)
            refused = False
        except RecursionError:
            return Decoded(text, None, warnings, ["arguments_too_deep"])
        except ValueError as exc:
            # From the text's start, as strict decoding saw it, and to its very end: a space
            # after a last number says that number was complete.
            head = current.lstrip().lstrip("\ufeff")
            repaired = repair_json(head, exc if isinstance(exc, json.JSONDecodeError) else None)
            if repaired is None and warnings:
                return Decoded(
                    text, None, warnings, ["arguments_not_object"]
                )  # a string, and not JSON
            if repaired is None:
                return Decoded(text, None, warnings, [_parse_error(_reason(exc), text)])
            value, by_json = repaired.value, True
            warnings.extend(repaired.warnings)
            if repaired.truncated:
                # The values that were complete are recovered, but a cut call must not run.
                errors.append("truncated_arguments")
        if type(value) is dict:
            if _too_deep(value, stripped):
                return Decoded(text, None, warnings, ["arguments_too_deep"])
            if by_json and not is_json(value):
                # Only what json decoded can hold what is no JSON value (msgspec refuses it): a
                # lone surrogate, replaced with a warning, or an infinity (`1e400`), refused at its
                # path (`_values`, the one rule for every input form).
                value = json_object(value, "", warnings, errors)
            return Decoded(text, value, warnings, errors)
        if type(value) is not str:
            return Decoded(text, None, warnings, ["arguments_not_object"])
        # The arguments were JSON-encoded once more, as a string: unwrap and look again.
        if not warnings:
            warnings.append("arguments_unquoted")
        current = value
    return Decoded(text, None, warnings, ["arguments_not_object"])


def _decode_mapping(raw: Mapping[Any, object]) -> Decoded:
    beyond = _beyond_limits(raw, MAX_NODES + 1)
    # Values a dict shares between places are one object in memory but many in JSON text.
    if beyond is None and _expanded_size(raw, {}) > MAX_NODES:
        beyond = "arguments_too_large"
    if beyond is not None:
        return Decoded(_UNSHOWN, None, [], [beyond])
    # The parser corrects what it checks in place, so it works on its own copy of the caller's,
    # which holds JSON values only (bounded in depth above, as `json_value` needs). A value it
    # refused is left out, and its error keeps the call from running; the parser still checks
    # the rest, as it does the complete parameters of a truncated call.
    warnings: list[str] = []
    errors: list[str] = []
    root = json_object(raw, "", warnings, errors)
    return Decoded(_as_json_text(raw), root, warnings, errors)


def copy_containers(value: object) -> object:
    """A copy of the objects and arrays in a value (keys as text), which a parser may then edit in
    place: each member of a union tries its own copy. (Arguments are copied, as JSON values, by
    `_values.json_value` when they are decoded.)"""
    if isinstance(value, Mapping):
        return {key_text(key): copy_containers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy_containers(item) for item in value]
    return value


_UNSHOWN: Final = "<arguments too large or too deep to show>"


def _as_json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=_jsonable)
    except (TypeError, ValueError, RecursionError):
        return _UNSHOWN


def _jsonable(value: object) -> object:
    if isinstance(value, Mapping):
        return {
            key if isinstance(key, (str, int, float, bool)) or key is None else key_text(key): item
            for key, item in value.items()
        }
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - the text of the arguments is kept all the same
        return f"<{type(value).__name__}>"


def name_text(name: object) -> str:
    """A tool name as exact text: a str subclass's value (none of its own methods run), else the
    object's text, or its type's name when even that fails."""
    try:
        return str.__str__(name) if isinstance(name, str) else str(name)
    except Exception:  # noqa: BLE001 - an object whose __str__ or __class__ raises
        return f"<{type(name).__name__}>"


def key_text(key: object) -> str:
    """A dict key as text for `values` and codes: as JSON writes it (`_values.key_json_text`:
    `True` is `"true"`, as in what is sent), else its str(); never raises (10**5000 has no str()
    by default)."""
    if type(key) is str:
        return key
    text = key_json_text(key)
    if text is not None:
        return text
    try:
        return str(key)
    except Exception:  # noqa: BLE001 - a huge int, or any object whose __str__ fails: still a key
        return f"<{type(key).__name__}>"


def _expanded_size(node: object, sizes: dict[int, int]) -> int:
    """How many values `node` holds when written out, shared ones counted at each place (memoized)."""
    if not is_container(node):
        return 1
    known = sizes.get(id(node))
    if known is not None:
        return known
    items = node.values() if isinstance(node, Mapping) else node
    total = 1
    for item in items:
        total += _expanded_size(item, sizes)
        if total > MAX_NODES:
            break
    sizes[id(node)] = total
    return total


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    number = float(text)
    if isfinite(number):
        return number
    raise ValueError("Number out of range")  # as msgspec refuses it


_json_decode: Final = json.JSONDecoder(parse_constant=_reject_constant).decode
# json's strict decoding with msgspec's refusals, so that both give one result: a number too large
# for a float, and (below) a text that may hold a lone surrogate.
_finite_json_decode: Final = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_finite_float
).decode


def _json_first(text: str) -> object:
    """json's strict decoding as the first attempt when msgspec is not installed: it refuses, as
    msgspec does, a text that may hold a lone surrogate or a number out of a float's range, which
    the whole-input rules then decode and `_values` makes JSON values of."""
    if _may_hold_lone_surrogate(text):
        raise ValueError("a lone surrogate may be there")
    return _finite_json_decode(text)


# The strict first attempt at a text; where it refuses one, _loads lets json decide.
_decode: Final = _fast_loads or _json_first


_ESCAPED_SURROGATE: Final = re.compile(r"\\u[dD][89a-fA-F]")


def _may_hold_lone_surrogate(text: str) -> bool:
    """Whether a JSON text may decode to one: as it is, or escaped (a pair's escapes match too)."""
    if has_lone_surrogate(text):
        return True
    return "\\u" in text and _ESCAPED_SURROGATE.search(text) is not None


def _loads(text: str) -> object:
    return _loads_as(text)[0]


def _loads_as(text: str) -> tuple[object, bool]:
    """The value of a JSON text, and whether json decoded it (msgspec refused it, or is not
    installed)."""
    if _fast_loads is not None:
        try:
            return _fast_loads(text), False
        except ValueError:
            pass  # json decides, so both paths give the same result and the same reason.
    return _json_decode(text), True


def _reason(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        # Some of json's messages end in " at" already ("Invalid control character at").
        return f"{exc.msg.removesuffix(' at')} at line {exc.lineno} column {exc.colno}"
    return str(exc)


def _parse_error(reason: str, original: str) -> Detail:
    shown = original[:ORIGINAL_SHOWN]
    text = f"json_parse_error:{reason} (original: {shown})"
    return detail("json_parse_error", "", {"reason": reason, "original": shown}, text)


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _too_deep(root: object, text: str | None) -> bool:
    # Most calls hold fewer brackets than the limit, so no walk is needed to know they are shallow.
    if text is not None and text.count("{") + text.count("[") <= MAX_DEPTH:
        return False
    return _beyond_limits(root, None) == "arguments_too_deep"


def _beyond_limits(root: object, budget: int | None) -> str | None:
    """`arguments_too_deep` for a value nested deeper than the limit, `arguments_too_large` when
    more than `budget` values are met on the way (a dict input's `range(10**12)` is never walked
    whole), else None."""
    # Breadth first, each container once per level, so values shared between places cost nothing.
    # Only containers are ever put in a level.
    level: dict[int, Any] = {id(root): root}
    left = -1 if budget is None else budget
    for _ in range(MAX_DEPTH):
        deeper: dict[int, Any] = {}
        for node in level.values():
            items = node.values() if isinstance(node, Mapping) else node
            for item in items:
                left -= 1
                if left == 0:
                    return "arguments_too_large"
                # Decoded JSON holds exact types: the exact test skips the slow ABC check for
                # every scalar of a large document.
                kind = type(item)
                if kind is dict or kind is list or (kind not in _SCALARS and is_container(item)):
                    deeper[id(item)] = item
        if not deeper:
            return None
        level = deeper
    return "arguments_too_deep"


# ---------------------------------------------------------------------------------------------
# Per-kind coercions: called only when a value is not already exactly of the declared type.

_TRUE_TEXT: Final = frozenset({"true", "yes", "on", "1"})
_FALSE_TEXT: Final = frozenset({"false", "no", "off", "0"})
_NUMBER_TEXT: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_ABSOLUTE_URI: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:\S")


def is_null_text(v: object, path: str, warnings: list[str]) -> bool:
    """True for the text "null" (any case, trimmed), which models send for a missing value."""
    if type(v) is str and v.strip().lower() == "null":
        warnings.append(f"string_literal_converted_to_null:{path}")
        return True
    return False


def not_null(v: object, code: str, path: str, errors: list[str]) -> None | Invalid:
    """The error for a value where only null is allowed (null itself never gets here): a
    `const: null` (`enum_out_of_range`) names its one allowed value."""
    errors.append(detail(code, path, {"allowed": [None]} if code == "enum_out_of_range" else {}))
    return INVALID


def to_bool(v: object, path: str, warnings: list[str], errors: list[str]) -> bool | Invalid:
    if type(v) is bool:
        return v
    if isinstance(v, str):
        text = v.strip().lower()
        if text in _TRUE_TEXT or text in _FALSE_TEXT:
            warnings.append(f"string_literal_converted_to_boolean:{path}")
            return text in _TRUE_TEXT
    elif (type(v) is int or type(v) is float) and v in (0, 1):
        warnings.append(f"number_coerced_to_boolean:{path}")
        return v == 1
    errors.append(f"unsupported_boolean_literal:{path}")
    return INVALID


def to_int(v: object, path: str, warnings: list[str], errors: list[str]) -> int | Invalid:
    if type(v) is int:
        return v
    if type(v) is float and isfinite(v):
        truncated = int(v)
        code = (
            "number_coerced_to_integer"
            if truncated == v
            else "fractional_number_truncated_to_integer"
        )
        warnings.append(f"{code}:{path}")
        return truncated
    if isinstance(v, str):
        text = v.strip()
        if len(text) <= 4300 and _is_integer_text(text):
            warnings.append(f"string_literal_converted_to_integer:{path}")
            return int(text)
    errors.append(f"unsupported_integer_literal:{path}")
    return INVALID


def to_float(v: object, path: str, warnings: list[str], errors: list[str]) -> float | Invalid:
    if type(v) is float and isfinite(v):
        return v
    if type(v) is int:
        try:
            return float(v)  # An integer is a JSON number: no warning.
        except OverflowError:
            pass
    elif isinstance(v, str):
        text = v.strip()
        if len(text) <= 4300 and _NUMBER_TEXT.fullmatch(text):
            number = float(text)
            if isfinite(number):
                warnings.append(f"string_literal_converted_to_number:{path}")
                return number
    errors.append(f"unsupported_number_literal:{path}")
    return INVALID


def to_str(v: object, path: str, warnings: list[str], errors: list[str]) -> str | Invalid:
    if type(v) is str:
        return v
    if isinstance(v, str):
        return str(v)
    if type(v) is bool:
        warnings.append(f"non_string_literal_retained:{path}")
        return "true" if v else "false"
    if (type(v) is int and _has_text(v)) or (type(v) is float and isfinite(v)):
        warnings.append(f"non_string_literal_retained:{path}")
        return json.dumps(v)
    errors.append(f"unsupported_string_literal:{path}")
    return INVALID


def _is_integer_text(text: str) -> bool:
    """`[+-]?\\d+` without a regular expression: isdecimal() takes exactly the digits \\d takes."""
    return (text[1:] if text[:1] in ("+", "-") else text).isdecimal()


def is_absolute_uri(text: str) -> bool:
    """Whether the text starts with a scheme (`https:`, `mailto:`, `urn:`)."""
    return _ABSOLUTE_URI.match(text) is not None


def _has_text(number: int) -> bool:
    # Python refuses to write integers of more than 4300 digits as text (sys.int_info).
    return -(10**4299) < number < 10**4299


def to_uri(v: object, path: str, warnings: list[str], errors: list[str]) -> str | Invalid:
    text = to_str(v, path, warnings, errors)
    if text is not INVALID and not is_absolute_uri(text):
        warnings.append(f"uri_not_absolute:{path}")
    return text


# The format a timestamp's error names, so that its words show the form expected.
_DATE_TIME: Final[Mapping[str, object]] = MappingProxyType({"format": "date-time"})
_DATE: Final[Mapping[str, object]] = MappingProxyType({"format": "date"})


def to_datetime(v: object, path: str, warnings: list[str], errors: list[str]) -> datetime | Invalid:
    """An aware datetime, always: a text without a UTC offset ("2024-05-01 09:30", or a date
    alone) is read as UTC, with a warning, so that handlers never compare naive and aware ones."""
    if isinstance(v, str):
        try:
            moment = datetime.fromisoformat(v.strip())
        except ValueError:
            pass
        else:
            if moment.tzinfo is None:
                warnings.append(f"timestamp_without_offset:{path}")
                return moment.replace(tzinfo=UTC)
            return moment
    errors.append(detail("unsupported_timestamp_literal", path, _DATE_TIME))
    return INVALID


def to_date(v: object, path: str, warnings: list[str], errors: list[str]) -> date | Invalid:
    if isinstance(v, str):
        try:
            return date.fromisoformat(v.strip())
        except ValueError:
            pass
    errors.append(detail("unsupported_timestamp_literal", path, _DATE))
    return INVALID


# The string formats the parser checks, each by its coercion: the one reader of a value of that
# format, which the build also reads a catalog's default of that format with. A new format is a
# row here and in `TEXT_FORMATS` (its check and its coercion, beside `to_uri`), and a row of
# `codegen/vocabulary.FORMATS` (what the payloads and the docs say of it).
FORMATS: dict[str, Callable[[object, str, list[str], list[str]], object]] = {
    "date-time": to_datetime,
    "date": to_date,
    "uri": to_uri,
}
# The formats whose value stays text, each by its check: the generated fast path takes a text it
# holds as it is, and hands any other value to the format's coercion above.
TEXT_FORMATS: dict[str, Callable[[str], bool]] = {
    "uri": is_absolute_uri,
}


def choice_key(value: object) -> tuple[type, object]:
    """What tells an enum's choices apart: a value and its type, so 1, 1.0 and True are three
    choices, though equal in Python. `to_choice`'s exact tables are keyed by it (its first test
    spells it out: a call costs there), and the build reads enums by it."""
    return (type(value), value)


def to_choice(
    v: object,
    exact: Mapping[tuple[type, object], T],
    folded: Mapping[str, T],
    path: str,
    warnings: list[str],
    errors: list[str],
) -> T | Invalid:
    """An allowed value of an enum: exact, or reached by the same coercions as a plain parameter."""
    if (
        type(v) in (str, int, bool, float)
        and (hit := exact.get((type(v), v), INVALID)) is not INVALID
    ):
        return hit
    candidates: list[tuple[type, object, str]] = []
    if isinstance(v, str):
        if (hit := folded.get(v.strip().casefold(), INVALID)) is not INVALID:
            warnings.append(f"enum_case_normalized:{path}")
            return hit
        text = v.strip()
        if len(text) <= 4300 and _is_integer_text(text):
            candidates.append((int, int(text), "string_literal_converted_to_integer"))
        if len(text) <= 4300 and _NUMBER_TEXT.fullmatch(text):
            candidates.append((float, float(text), "string_literal_converted_to_number"))
    elif type(v) is int and _has_text(v):
        candidates.append((float, _as_float(v), ""))  # an integer is a JSON number: no warning
    elif type(v) is float and isfinite(v) and v.is_integer():
        candidates.append((int, int(v), "number_coerced_to_integer"))
    if (type(v) is int and _has_text(v)) or (type(v) is float and isfinite(v)) or type(v) is bool:
        candidates.append((str, json.dumps(v), "non_string_literal_retained"))
    # A boolean choice, as `to_bool` reads one.
    if isinstance(v, str) and v.strip().lower() in _TRUE_TEXT | _FALSE_TEXT:
        flag = v.strip().lower() in _TRUE_TEXT
        candidates.append((bool, flag, "string_literal_converted_to_boolean"))
    elif (type(v) is int or type(v) is float) and v in (0, 1):
        candidates.append((bool, v == 1, "number_coerced_to_boolean"))
    for target, converted, code in candidates:
        if (hit := exact.get((target, converted), INVALID)) is not INVALID:
            if code:
                warnings.append(f"{code}:{path}")
            return hit
    allowed = list({choice_key(choice): choice for choice in exact.values()}.values())
    errors.append(detail("enum_out_of_range", path, {"allowed": allowed}))
    return INVALID


def to_json_choice(
    v: object, choices: list[object], path: str, errors: list[str]
) -> object | Invalid:
    """A value equal, as JSON, to one of `choices` (an enum with objects or arrays): kept as sent."""
    for choice in choices:
        if json_equal(v, choice):
            return v
    errors.append(detail("enum_out_of_range", path, {"allowed": list(choices)}))
    return INVALID


def json_equal(a: object, b: object) -> bool:
    """JSON's equality: 1 equals 1.0, but true is not 1; objects equal in any key order."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if type(a) in (int, float) and type(b) in (int, float):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return len(a) == len(b) and all(
            key in b and json_equal(item, b[key]) for key, item in a.items()
        )
    return type(a) is type(b) and a == b


def _as_float(number: int) -> float | None:
    try:
        return float(number)
    except OverflowError:
        return None


def to_dict(
    v: object, path: str, warnings: list[str], errors: list[str]
) -> dict[str, object] | Invalid:
    if type(v) is dict:
        return v
    if isinstance(v, Mapping):
        return {key_text(key): item for key, item in v.items()}
    if isinstance(v, str):
        found: list[str] = []
        refused: list[str] = []
        parsed = _embedded_json(v, path, found, refused)
        if type(parsed) is dict:
            warnings.append(f"string_parsed_as_json:{path}")
            warnings.extend(found)
            errors.extend(refused)
            return parsed
    errors.append(f"unsupported_object_literal:{path}")
    return INVALID


def to_list(v: object, path: str, warnings: list[str], errors: list[str]) -> list[object] | Invalid:
    if type(v) is list:
        return v
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, str):
        found: list[str] = []
        refused: list[str] = []
        parsed = _embedded_json(v, path, found, refused)
        if type(parsed) is list:
            warnings.append(f"string_parsed_as_json:{path}")
            warnings.extend(found)
            errors.extend(refused)
            return parsed
        parsed = _list_text(v, path, found, refused)
        if type(parsed) is list:
            warnings.append(f"list_text_repaired:{path}")
            warnings.extend(found)
            errors.extend(refused)
            return parsed
    if v is None:
        errors.append(f"unsupported_array_literal:{path}")
        return INVALID
    warnings.append(f"scalar_coerced_to_list:{path}")
    return [v]


def _embedded_json(text: str, path: str, warnings: list[str], errors: list[str]) -> object:
    """The value of a string that itself holds JSON, or INVALID; an infinity in it (`1e400`) is
    refused at its path, as in the arguments themselves."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{" or len(stripped) > MAX_CHARS:
        return INVALID
    try:
        value, by_json = _loads_as(stripped)
    except (ValueError, RecursionError):
        return INVALID
    if _too_deep(value, stripped):
        return INVALID
    return value if not by_json or is_json(value) else json_value(value, path, warnings, errors)


def _list_text(text: str, path: str, warnings: list[str], errors: list[str]) -> object:
    """The list a string holds as text that is not JSON (Python's `['Friends']`, a trailing
    comma), read by the text repairs' rules alone, or INVALID."""
    stripped = text.strip()
    if not stripped.startswith("[") or len(stripped) > MAX_CHARS:
        return INVALID
    found = next(iter_values(stripped), None)
    if found is None or found.reason or found.start or found.end != len(stripped):
        return INVALID
    value = found.value
    if type(value) is not list or _too_deep(value, stripped):
        return INVALID
    return value if is_json(value) else json_value(value, path, warnings, errors)


def unknown_keys(src: dict[str, object], known: frozenset[str]) -> list[str]:
    """The keys of an object its schema does not declare, in the order sent."""
    return [key for key in src if key not in known]


# ---------------------------------------------------------------------------------------------
# A tool the catalog does not know: the generic lenient parse (strings promoted to bool and null).

_PROMOTED: Final[dict[str, object]] = {"true": True, "false": False, "null": None}


def parse_unknown_tool(tool_name: str, raw: RawArguments, tool_call_id: str = "") -> RefusedRequest:
    try:
        doc = decode_arguments(raw)
        warnings = ["tool_definition_missing", *doc.warnings]
        values = (
            {}
            if doc.root is None
            else {key: _promote(item, key, warnings) for key, item in doc.root.items()}
        )
    except Exception as exc:  # noqa: BLE001 - as run_parser: objects whose own methods raise
        code = f"unreadable_arguments:{type(exc).__name__}"
        return RefusedRequest(
            tool_name, tool_call_id, _UNSHOWN, None, {}, ("tool_definition_missing",), (code,)
        )
    # No typed arguments, so never runnable: `ok` is False even without errors.
    return RefusedRequest(
        tool_name, tool_call_id, doc.raw_text, None, values, tuple(warnings), tuple(doc.errors)
    )


def _promote(v: object, path: str, warnings: list[str]) -> object:
    if isinstance(v, str):
        text = v.strip().lower()
        if text in _PROMOTED:
            promoted = _PROMOTED[text]
            kind = "null" if promoted is None else "boolean"
            warnings.append(f"string_literal_converted_to_{kind}:{path}")
            return promoted
        return v
    # The decoded arguments hold JSON values only (`_values`): objects are dicts with text keys.
    if type(v) is dict:
        return {key: _promote(item, f"{path}.{key}", warnings) for key, item in v.items()}
    if type(v) is list:
        return [_promote(item, f"{path}[{index}]", warnings) for index, item in enumerate(v)]
    return v

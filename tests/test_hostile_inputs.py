"""No entry point raises on a hostile object: `parse` (a known tool, an unknown one, an odd name)
and the four adapters report what they cannot read as a request with an error code, and the
calls around it are still parsed. Hostile here: a released memoryview, objects whose `__repr__`,
`__str__` or `__class__` raise, mappings and str subclasses whose own methods raise, inputs
nested deep or large. And a request's `ok` always means its arguments are there."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import memory_tools as pkg

ADAPTERS = ("from_openai_chat", "from_openai_responses", "from_anthropic", "from_gemini")
KNOWN, UNKNOWN = "memory.search", "memory.forget"


class Boom(Exception):
    pass


def _raise(*_: object, **__: object) -> Any:
    raise Boom("hostile")


def released() -> memoryview:
    view = memoryview(b'{"query": "x"}')
    view.release()
    return view


class BadRepr:
    __repr__ = __str__ = _raise


class BadClass:
    """Even isinstance() raises: it reads `__class__`."""

    @property
    def __class__(self) -> type:  # type: ignore[override]
        raise Boom("no class")


class BadMapping(Mapping[str, object]):
    __getitem__ = __iter__ = __len__ = keys = items = values = get = __contains__ = _raise


class HalfMapping(Mapping[str, object]):
    """Iterates fine, then fails to give a value."""

    def __getitem__(self, key: str) -> object:
        raise Boom(key)

    def __iter__(self) -> Iterator[str]:
        return iter(["query"])

    def __len__(self) -> int:
        return 1


class BadDict(dict[str, object]):
    items = keys = values = get = __iter__ = __getitem__ = _raise


class BadStr(str):
    strip = lower = casefold = encode = __str__ = __len__ = __eq__ = __ne__ = _raise
    __hash__ = str.__hash__  # stays usable as a dict value and as a name


class BadList(list[object]):
    __iter__ = __len__ = __getitem__ = _raise


def deep(levels: int, wrap: Callable[[object], object]) -> object:
    node: object = "x"
    for _ in range(levels):
        node = wrap(node)
    return node


HOSTILE: dict[str, Callable[[], object]] = {
    "released-memoryview": released,
    "raising-repr": BadRepr,
    "raising-class": BadClass,
    "raising-mapping": BadMapping,
    "half-mapping": HalfMapping,
    "raising-dict": lambda: BadDict(query="x"),
    "raising-str": lambda: BadStr('{"query": "x"}'),
    "raising-list": lambda: BadList([1]),
    "deep-list": lambda: deep(100_000, lambda node: [node]),
    "deep-dict": lambda: deep(100_000, lambda node: {"query": node}),
    "large-text": lambda: '{"query": "' + "x" * 5_000_000 + '"}',
    "wide-list": lambda: list(range(200_000)),
}


def envelope(adapter: str, name: object, call_id: object, arguments: object) -> object:
    """A response of the adapter's provider with one call, each field as given."""
    if adapter == "from_openai_chat":
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}
    if adapter == "from_openai_responses":
        item = {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
        return {"output": [item]}
    if adapter == "from_anthropic":
        block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        return {"role": "assistant", "content": [block]}
    part = {"functionCall": {"id": call_id, "name": name, "args": arguments}}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}


def assert_sound(request: Any) -> None:
    """A request, with plain fields; `ok` exactly when the typed arguments are there."""
    assert type(request) in (pkg.ReadyRequest, pkg.RefusedRequest)
    assert type(request.tool_name) is str and type(request.tool_call_id) is str
    assert type(request.raw_arguments) is str and type(request.values) is dict
    # Each code is text: a plain str, or the package's own Detail (a str with its parts).
    assert all(type(code) in (str, pkg.Detail) for code in (*request.warnings, *request.errors))
    assert request.ok is (request.arguments is not None)
    assert request.ok is (type(request) is pkg.ReadyRequest)
    if request.ok:
        assert request.errors == () and request.tool_name in pkg.TOOLS
    else:
        assert request.errors or "tool_definition_missing" in request.warnings


# -- the reported cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
@pytest.mark.parametrize("tool", [KNOWN, UNKNOWN])
def test_parse_reports_a_hostile_input_and_never_raises(tool: str, hostile: str) -> None:
    request = pkg.parse(tool, HOSTILE[hostile](), "call_1")
    assert_sound(request)
    assert (request.tool_name, request.tool_call_id) == (tool, "call_1")
    if hostile in ("released-memoryview", "raising-mapping", "half-mapping", "raising-dict"):
        assert request.errors == (f"unreadable_arguments:{Boom.__name__}",) or request.errors == (
            "unreadable_arguments:ValueError",  # a released memoryview: no bytes to read
        )
    if tool == UNKNOWN:
        assert request.warnings[:1] == ("tool_definition_missing",)


def test_an_unknown_tool_reads_a_hostile_input_as_a_known_one_does() -> None:
    for hostile in HOSTILE.values():
        known, unknown = pkg.parse(KNOWN, hostile()), pkg.parse(UNKNOWN, hostile())
        # Whole-input errors are the same for both; the known tool then checks the parameters.
        whole = ("unreadable_arguments", "arguments_", "json_parse_error")
        assert [e for e in unknown.errors if e.startswith(whole)] == [
            e for e in known.errors if e.startswith(whole)
        ]


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_adapter_reports_hostile_arguments_and_keeps_the_other_calls(
    adapter: str, hostile: str
) -> None:
    bad = envelope(adapter, UNKNOWN, "call_bad", HOSTILE[hostile]())
    good = envelope(adapter, KNOWN, "call_good", {"query": "q"})
    requests = getattr(pkg, adapter)([bad, good])
    for request in requests:
        assert_sound(request)
    assert requests[-1].tool_call_id == "call_good" and requests[-1].ok
    assert requests[-1].values == {"query": "q", "limit": 3}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_adapter_reads_names_and_ids_as_plain_text(adapter: str) -> None:
    (request,) = getattr(pkg, adapter)(
        envelope(adapter, BadStr(KNOWN), BadStr("c1"), {"query": "q"})
    )
    assert_sound(request)
    assert (type(request.tool_name), request.tool_name) == (str, KNOWN)
    assert (type(request.tool_call_id), request.tool_call_id) == (str, "c1")
    assert request.ok


def test_parse_takes_a_name_that_is_no_plain_str() -> None:
    assert pkg.parse(BadStr(KNOWN), {"query": "q"}).ok  # type: ignore[arg-type]
    odd = pkg.parse(BadRepr(), {"query": "q"})  # type: ignore[arg-type]
    assert_sound(odd)
    assert (odd.tool_name, odd.warnings) == ("<BadRepr>", ("tool_definition_missing",))


def test_the_readmes_loop_never_hands_none_to_a_handler() -> None:
    handled: list[object] = []
    for request in (
        pkg.parse(UNKNOWN, "{}"),
        pkg.parse(KNOWN, "{}"),
        pkg.parse(KNOWN, '{"query": "q"}'),
    ):
        if request.ok:
            handled.append(request.arguments)
    assert handled == [pkg.MemorySearchArgs(query="q")]


# -- any hostile object, anywhere -------------------------------------------------------------------

# Hypothesis draws plain data (it inspects what it draws, and a hostile object is hostile to it
# too): `Hostile(name)` marks where the test puts a fresh hostile object.


class Hostile(str):
    pass


def made(spec: object) -> object:
    if isinstance(spec, Hostile):
        return HOSTILE[spec]()
    if isinstance(spec, list):
        return [made(item) for item in spec]
    if isinstance(spec, dict):
        return {key: made(item) for key, item in spec.items()}
    return spec


hostile_specs = st.sampled_from(
    [Hostile(name) for name in HOSTILE if not name.startswith(("deep", "large", "wide"))]
)
json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
values = st.recursive(
    json_scalars | hostile_specs,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["query", "limit", "x"]), children, max_size=3)
    ),
    max_leaves=8,
)
names = st.sampled_from([KNOWN, UNKNOWN, "memory_search", ""]) | hostile_specs
call_ids = st.text(max_size=3) | hostile_specs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=names, raw=values, call_id=st.text(max_size=3))
def test_parse_never_raises_on_hostile_objects(tool: object, raw: object, call_id: str) -> None:
    request = pkg.parse(made(tool), made(raw), call_id)  # type: ignore[arg-type]
    assert_sound(request)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    adapter=st.sampled_from(ADAPTERS),
    name=names,
    call_id=call_ids,
    arguments=values,
    spoil=st.integers(min_value=0, max_value=8),
    hostile=hostile_specs,
)
def test_adapters_never_raise_on_hostile_objects(
    adapter: str, name: object, call_id: object, arguments: object, spoil: int, hostile: Hostile
) -> None:
    response = envelope(adapter, made(name), made(call_id), made(arguments))
    if spoil:
        # One field of the envelope (a record, a list, a call's field) becomes a hostile object.
        places: list[tuple[Any, Any]] = []
        pending: list[Any] = [response]
        while pending:
            node = pending.pop()
            keys = node.keys() if type(node) is dict else range(len(node))
            for key in keys:
                places.append((node, key))
                if type(node[key]) in (dict, list) and key not in ("arguments", "input", "args"):
                    pending.append(node[key])
        node, key = places[spoil % len(places)]
        node[key] = made(hostile)
    for request in getattr(pkg, adapter)(response):
        assert_sound(request)

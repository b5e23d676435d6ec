"""Values coming in are JSON values (issue 32 item 8, "What to build" 3; item 16's reply half).

Whatever form a call comes in — a dict passed to `parse` or to a tool's own parser, an SDK's
objects or their dicts through each adapter, a pythonic call in a reply (plain, in prose, after
Llama's tag), JSON text with a number no float holds, a string holding JSON — a handler is given
only what JSON can carry; anything else is converted with a warning or refused with an error at
its path (`codegen/runtime/_values.py`, the one owner). The cases are generated: every odd Python
value × every entry form × every kind of parameter that takes it, and a hypothesis property.
"""

from __future__ import annotations

import ast
import copy
import enum
import json
import math
import re
import tracemalloc
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from types import MappingProxyType, ModuleType, SimpleNamespace
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import build_package

CATALOG = """\
name: inbound
version: "1"
tools:
  - name: f
    description: A tool whose parameters take anything JSON can carry.
    parameters:
      type: object
      properties:
        obj: {type: object, description: A free-form object.}
        arr: {type: array, description: An array of anything.}
        s: {type: string, description: Text.}
      additionalProperties: false
"""


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    source = tmp_path_factory.mktemp("catalog") / "inbound.yaml"
    source.write_text(CATALOG, encoding="utf-8")
    return build_package(source, tmp_path_factory.mktemp("inbound"))


def assert_json(value: object, where: str = "values") -> None:
    """`value` is a JSON value, exactly: dicts with str keys, lists, str, int, finite float, bool,
    None, and no subclass of any of them."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            assert type(key) is str, f"{where}: key {key!r}"
            assert_json(item, f"{where}.{key}")
    elif kind is list:
        for index, item in enumerate(value):  # type: ignore[call-overload]
            assert_json(item, f"{where}[{index}]")
    elif kind is float:
        assert math.isfinite(value), f"{where}: {value!r}"  # type: ignore[arg-type]
    else:
        assert kind in (str, int, bool, type(None)), f"{where}: {value!r} of {kind.__name__}"


def assert_handler_sees_json(request: Any) -> None:
    assert_json(request.values)
    if request.ok:
        for field, item in vars_of(request.arguments).items():
            assert_json(item, f"arguments.{field}")
    assert request.ok == (request.arguments is not None)
    assert not (request.ok and request.errors)  # an unknown tool's parse is refused without one


def vars_of(arguments: object) -> dict[str, object]:
    return {name: getattr(arguments, name) for name in ("obj", "arr", "s")}


# ---------------------------------------------------------------------------------------------
# The odd values, and what each becomes


class Odd:
    def __repr__(self) -> str:
        return "Odd()"


class Color(enum.IntEnum):
    RED = 1


class Text(str):
    pass


class Ratio(float):
    pass


class Case(NamedTuple):
    """A value sent, and what the parser is given for it: `json` (silently), or refused."""

    id: str
    value: object
    json: object = None
    refused: bool = False


REFUSED_VALUES = [
    Case("set", {1, 2}, refused=True),
    Case("frozenset", frozenset({"a"}), refused=True),
    Case("bytes", b"x", refused=True),
    Case("bytearray", bytearray(b"x"), refused=True),
    Case("memoryview", memoryview(b"x"), refused=True),
    Case("complex", 1j, refused=True),
    Case("ellipsis", ..., refused=True),
    Case("nan", math.nan, refused=True),
    Case("inf", math.inf, refused=True),
    Case("minus-inf", -math.inf, refused=True),
    Case("decimal", Decimal("1.5"), refused=True),
    Case("object", Odd(), refused=True),
    Case("function", len, refused=True),
    Case("inf-subclass", Ratio("inf"), refused=True),
]
# Values JSON writes as JSON values, given as those values without a word.
CONVERTED_VALUES = [
    Case("tuple", (1, "a"), [1, "a"]),
    Case("nested-tuples", ((1, (2,)), []), [[1, [2]], []]),
    Case("mapping", MappingProxyType({"a": (1,)}), {"a": [1]}),
    Case("range", range(2), [0, 1]),
    Case("int-enum", Color.RED, 1),
    Case("str-subclass", Text("t"), "t"),
    Case("float-subclass", Ratio(0.5), 0.5),
]
# A refused value deep inside JSON ones: refused at its own path; `json` is what is left.
NESTED = [
    Case("set-in-list", [1, {2}], [1], refused=True),
    Case("bytes-in-object", {"a": {"b": b"x"}}, {"a": {}}, refused=True),
    Case("nan-in-tuple", (1, math.nan), [1], refused=True),
]
NESTED_PATHS = {"set-in-list": "[1]", "bytes-in-object": ".a.b", "nan-in-tuple": "[1]"}


class KeyCase(NamedTuple):
    id: str
    key: object
    text: str | None  # its JSON text, or None: refused


KEYS = [
    KeyCase("int", 1, "1"),
    KeyCase("negative-int", -7, "-7"),
    KeyCase("none", None, "null"),
    KeyCase("float", 2.5, "2.5"),
    KeyCase("true", True, "true"),
    KeyCase("false", False, "false"),
    KeyCase("int-enum", Color.RED, "1"),
    KeyCase("str-subclass", Text("k"), "k"),
    KeyCase("tuple", (1, 2), None),
    KeyCase("bytes", b"k", None),
    KeyCase("frozenset", frozenset({1}), None),
    KeyCase("nan", math.nan, None),
    KeyCase("object", Odd(), None),
    KeyCase("huge-int", 10**5000, None),
]


# ---------------------------------------------------------------------------------------------
# Every entry form of a dict of arguments


def _chat(arguments: object, *, dicts: bool) -> object:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    message = {"role": "assistant", "tool_calls": [call]}
    return (
        {"choices": [{"message": message}]}
        if dicts
        else _objects({"choices": [{"message": message}]})
    )


def _responses(arguments: object, *, dicts: bool) -> object:
    item = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": arguments}
    return {"output": [item]} if dicts else _objects({"output": [item]})


def _anthropic(arguments: object, *, dicts: bool) -> object:
    block = {"type": "tool_use", "id": "c1", "name": "f", "input": arguments}
    return (
        {"type": "message", "content": [block]}
        if dicts
        else _objects({"type": "message", "content": [block]})
    )


def _gemini(arguments: object, *, dicts: bool) -> object:
    if dicts:
        part = {"functionCall": {"id": "c1", "name": "f", "args": arguments}}
        return {"candidates": [{"content": {"parts": [part]}}]}
    # The legacy SDK's `args` is a proto map: a Mapping, not a dict.
    args = MappingProxyType(arguments) if isinstance(arguments, dict) else arguments
    call = SimpleNamespace(id="c1", name="f", args=args)
    parts = [SimpleNamespace(function_call=call)]
    return SimpleNamespace(candidates=[SimpleNamespace(content=SimpleNamespace(parts=parts))])


_ARGUMENT_FIELDS = frozenset({"arguments", "input", "args"})


def _objects(node: object) -> object:
    """A response of plain dicts as an SDK's objects (attributes); the arguments as they are."""
    if isinstance(node, dict):
        fields = {k: v if k in _ARGUMENT_FIELDS else _objects(v) for k, v in node.items()}
        return SimpleNamespace(**fields)
    if isinstance(node, list):
        return [_objects(item) for item in node]
    return node


ADAPTERS: dict[str, tuple[str, Callable[..., object]]] = {
    "openai_chat": ("from_openai_chat", _chat),
    "openai_responses": ("from_openai_responses", _responses),
    "anthropic": ("from_anthropic", _anthropic),
    "gemini": ("from_gemini", _gemini),
}


def dict_entries(
    pkg: ModuleType, arguments: dict[Any, object]
) -> Iterator[tuple[str, Any, tuple[str, ...]]]:
    """(form, request, the codes that form adds before the parser's) for each entry a dict
    reaches: the catalog's `parse`, the tool's own parser, an unknown tool's generic parse, and
    each adapter with the SDK's objects and with their dicts."""
    yield "parse", pkg.parse("f", arguments, "c1"), ()
    yield "parse_f", pkg.parse_f(arguments, "c1"), ()
    yield "unknown_tool", pkg.parse("nope", arguments, "c1"), ("tool_definition_missing",)
    for name, (adapter, response) in ADAPTERS.items():
        for dicts in (False, True):
            (request,) = getattr(pkg, adapter)(response(arguments, dicts=dicts))
            form = f"{name}_{'dicts' if dicts else 'objects'}"
            yield form, request, ()


def python_literal(value: object) -> str | None:
    """The text of `value` in a pythonic call, when Python's literals can write it."""
    if type(value) is float and math.isinf(value):
        return "1e400" if value > 0 else "-1e400"  # a literal no float holds
    if type(value) not in (set, bytes, complex, type(...), tuple, list, dict, int, float, str):
        return None
    try:
        text = repr(value)
        ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    # A NaN or an infinity inside has no literal (`1e400` stands for one at the top only).
    return None if re.search(r"\b(?:nan|inf)\b", text) else text


def text_entries(
    pkg: ModuleType, parameter: str, literal: str
) -> Iterator[tuple[str, Any, tuple[str, ...]]]:
    """(form, request, codes before the parser's) for each reply shape a pythonic call comes in."""
    call = f"f({parameter}={literal})"
    for form, reply, codes in (
        ("pythonic", f"[{call}]", ("pythonic_call",)),
        ("pythonic_bare", call, ("pythonic_call",)),
        (
            "pythonic_in_prose",
            f"Calling: [{call}] now.",
            ("call_extracted_from_text", "pythonic_call"),
        ),
        ("llama", f"<|python_tag|>[{call}]<|eom_id|>", ("native_format:llama", "pythonic_call")),
    ):
        batch = pkg.parse_reply(reply)
        assert batch.problems == (), (form, batch.problems)
        (request,) = batch
        yield form, request, codes


def placed(parameter: str, value: object) -> tuple[dict[str, object], str]:
    """The arguments holding `value` in a parameter of each kind, and the value's path."""
    if parameter == "obj":
        return {"obj": {"k": value}}, "obj.k"
    if parameter == "arr":
        return {"arr": [value]}, "arr[0]"
    return {"s": value}, "s"


def check(
    request: Any,
    form: str,
    codes: tuple[str, ...],
    warnings: tuple[str, ...],
    errors: tuple[str, ...],
    values: dict[str, object],
) -> None:
    assert_handler_sees_json(request)
    assert request.errors == errors, form
    assert request.warnings == (*codes, *warnings), form
    assert request.values == values, form


# ---------------------------------------------------------------------------------------------
# Values: refused at their path, or given as JSON


REFUSED_CASES = [
    pytest.param(case, parameter, id=f"{case.id}-{parameter}")
    for case in REFUSED_VALUES + NESTED
    for parameter in ("obj", "arr", "s")
    if parameter != "s" or case in REFUSED_VALUES
]


@pytest.mark.parametrize("case, parameter", REFUSED_CASES)
def test_a_value_json_cannot_carry_is_refused_at_its_path_in_every_entry_form(
    pkg: ModuleType, case: Case, parameter: str
) -> None:
    """Item 8: a set, bytes, a complex number, `...`, NaN, an infinity or any other object used
    to reach a free-form parameter as it was; now every form refuses it, naming its path, and
    `values` keep the rest, as for a truncated call, without it."""
    arguments, path = placed(parameter, case.value)
    path += NESTED_PATHS.get(case.id, "")
    left = _without(parameter) if case.json is None else placed(parameter, case.json)[0]
    sent = copy.deepcopy(arguments) if case.id not in ("memoryview", "function") else None
    for form, request, codes in dict_entries(pkg, arguments):
        check(request, form, codes, (), (f"value_not_json:{path}",), left)
    if sent is not None:
        assert repr(arguments) == repr(sent)  # the caller's dict is never changed
    literal = python_literal(case.value)
    if literal is not None:
        for form, request, codes in text_entries(pkg, parameter, _in(parameter, literal)):
            check(request, form, codes, (), (f"value_not_json:{path}",), left)


def _without(parameter: str) -> dict[str, object]:
    """The arguments once the refused value is left out of its object, its array, or them."""
    return {"obj": {"obj": {}}, "arr": {"arr": []}, "s": {}}[parameter]


def _in(parameter: str, literal: str) -> str:
    return {"obj": f"{{'k': {literal}}}", "arr": f"[{literal}]", "s": literal}[parameter]


@pytest.mark.parametrize("parameter", ["obj", "arr"])
@pytest.mark.parametrize("case", CONVERTED_VALUES, ids=lambda case: case.id)
def test_a_value_json_writes_the_same_is_given_as_that_json_value(
    pkg: ModuleType, case: Case, parameter: str
) -> None:
    arguments, _ = placed(parameter, case.value)
    expected, _ = placed(parameter, case.json)
    for form, request, codes in dict_entries(pkg, arguments):
        if form == "unknown_tool":
            assert request.values == expected and request.errors == (), form
            continue
        check(request, form, codes, (), (), expected)
        assert type(request.values[parameter]) is type(expected[parameter])
    literal = python_literal(case.value)
    if literal is not None:
        for form, request, codes in text_entries(pkg, parameter, _in(parameter, literal)):
            check(request, form, codes, (), (), expected)


@pytest.mark.parametrize(
    "case",
    [c for c in CONVERTED_VALUES if c.id in ("str-subclass", "int-enum")],
    ids=lambda case: case.id,
)
def test_a_scalar_subclass_in_a_string_parameter_is_its_plain_value(
    pkg: ModuleType, case: Case
) -> None:
    request = pkg.parse("f", {"s": case.value})
    if case.id == "str-subclass":
        assert request.ok and type(request.values["s"]) is str and request.values == {"s": "t"}
    else:
        # An IntEnum is the integer 1, which a string parameter keeps as its text, as for `1`.
        assert request.values == {"s": "1"}
        assert request.warnings == ("non_string_literal_retained:s",)


# ---------------------------------------------------------------------------------------------
# Keys


@pytest.mark.parametrize("case", KEYS, ids=lambda case: case.id)
def test_a_key_is_its_json_text_with_a_warning_or_refused_in_every_entry_form(
    pkg: ModuleType, case: KeyCase
) -> None:
    """Item 8: tuple and bytes keys became `'(1, 2)'` and `"b'k'"` silently (and `True` became
    `"True"`, where JSON writes `"true"`); now a key JSON writes is its JSON text with
    `key_converted_to_text`, and any other is `key_not_json`, in every form."""
    arguments = {"obj": {case.key: "v", "other": 1}}
    if case.text is None:
        outcome: tuple[tuple[str, ...], tuple[str, ...], dict[str, object]] = (
            (),
            ("key_not_json:obj",),
            {"obj": {"other": 1}},
        )
    else:
        converted = {"obj": {case.text: "v", "other": 1}}
        said = () if isinstance(case.key, str) else (f"key_converted_to_text:obj.{case.text}",)
        outcome = (said, (), converted)
    for form, request, codes in dict_entries(pkg, arguments):
        check(request, form, codes, *outcome)
    literal = python_literal(case.key)
    if literal is not None and case.id != "huge-int":
        for form, request, codes in text_entries(pkg, "obj", f"{{{literal}: 'v', 'other': 1}}"):
            check(request, form, codes, *outcome)


def test_two_keys_with_one_json_text_are_refused_not_one_dropped(pkg: ModuleType) -> None:
    """`{1: "a", "1": "b"}` would be `{"1": "b"}` through json.dumps: which was meant is a guess."""
    for form, request, codes in dict_entries(pkg, {"obj": {1: "a", "1": "b"}}):
        check(
            request,
            form,
            codes,
            ("key_converted_to_text:obj.1",),
            ("key_not_json:obj",),
            {"obj": {"1": "a"}},
        )
    for form, request, codes in text_entries(pkg, "obj", "{1: 'a', '1': 'b'}"):
        check(
            request,
            form,
            codes,
            ("key_converted_to_text:obj.1",),
            ("key_not_json:obj",),
            {"obj": {"1": "a"}},
        )


def test_a_key_of_the_arguments_themselves_follows_the_same_rule(pkg: ModuleType) -> None:
    for form, request, codes in dict_entries(pkg, {1: "x"}):
        warnings = ("key_converted_to_text:1",) + (
            () if form == "unknown_tool" else ("unknown_parameter:1",)
        )
        check(request, form, codes, warnings, (), {"1": "x"})
    for form, request, codes in dict_entries(pkg, {(1,): "x", "s": "y"}):
        check(request, form, codes, (), ("key_not_json",), {"s": "y"})


def test_a_sequence_is_bounded_in_size_and_depth_before_it_becomes_a_list(pkg: ModuleType) -> None:
    """A sequence becomes an array, so the limits of a dict input hold for it as for a list:
    `range(10**12)` is `arguments_too_large`, never a list being made, and sequences nested past
    the depth limit are `arguments_too_deep`."""
    for form, request, codes in dict_entries(pkg, {"arr": range(10**12)}):
        check(request, form, codes, (), ("arguments_too_large",), {})
    deep: object = range(1)
    for _ in range(200):
        deep = MappingProxyType({"k": (deep,)})
    for form, request, codes in dict_entries(pkg, {"obj": deep}):
        check(request, form, codes, (), ("arguments_too_deep",), {})


# ---------------------------------------------------------------------------------------------
# Text: a number no float holds, and a string holding JSON


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E999"])
@pytest.mark.parametrize("parameter", ["obj", "arr"])
def test_a_number_no_float_holds_is_refused_in_every_text_form(
    pkg: ModuleType, number: str, parameter: str
) -> None:
    """JSON's grammar takes 1e400, which decodes to an infinity: it reached a free-form
    parameter (and a handler) as inf. Now refused at its path on every path text takes: the
    text to `parse` (msgspec's path and json's), the arguments string of each adapter, a
    string holding JSON, and each JSON shape of a reply."""
    inner = _in(parameter, number).replace("'", '"')
    text = f'{{"{parameter}": {inner}}}'
    _, path = placed(parameter, None)
    expected = (f"value_not_json:{path}",)
    assert pkg.parse("f", text).errors == expected
    runtime = pkg._runtime
    with pytest.MonkeyPatch.context() as patch:  # the runtime as it runs without msgspec
        patch.setattr(runtime, "_fast_loads", None)
        patch.setattr(runtime, "_decode", runtime._finite_json_decode)
        assert pkg.parse("f", text).errors == expected
    left = _without(parameter)
    for _, request, _ in dict_entries(pkg, text):  # type: ignore[arg-type]
        assert request.errors == expected and request.values == left
    request = pkg.parse("f", {parameter: inner})  # a string holding JSON
    assert request.errors == expected and request.values == left
    assert_handler_sees_json(request)
    for reply in (
        f'{{"name": "f", "parameters": {text}}}',
        f'[{{"name": "f", "arguments": {text}}}]',
        f'<tool_call>{{"name": "f", "arguments": {text}}}</tool_call>',
        f"[TOOL_CALLS]f[ARGS]{text}",
        f"<function=f><parameter={parameter}>{inner}</parameter></function>",
        f'Sure: {{"name": "f", "parameters": {text}}}',
    ):
        (request,) = pkg.parse_reply(reply)
        assert request.errors == expected and request.values == left, reply
        assert_handler_sees_json(request)


# ---------------------------------------------------------------------------------------------
# A property: any nesting of odd values, in any entry form


def _leaves() -> st.SearchStrategy[object]:
    json_leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
    json_leaves |= st.floats(allow_nan=False, allow_infinity=False)
    odd = st.sampled_from(
        [case.value for case in REFUSED_VALUES if case.id not in ("memoryview", "function")]
    )
    return json_leaves | odd | st.builds(Text, st.text(max_size=3)) | st.just(Color.RED)


def _keys() -> st.SearchStrategy[object]:
    return st.text(max_size=3) | st.sampled_from(
        [case.key for case in KEYS if case.id != "huge-int"]
    )


VALUES = st.recursive(
    _leaves(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_keys(), inner, max_size=3)
    ),
    max_leaves=8,
)


def _refused(value: object) -> bool:
    """Whether a value holds anything the rule refuses (the test's own reading of the table)."""
    if isinstance(value, Mapping):
        texts = [_key_text(key) for key in value]
        if None in texts or len(set(texts)) < len(texts):
            return True
        return any(_refused(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(_refused(item) for item in value)
    if isinstance(value, float):
        return not math.isfinite(value)
    return not isinstance(value, (str, int, type(None)))


def _key_text(key: object) -> str | None:
    if isinstance(key, float) and not math.isfinite(key):
        return None
    if isinstance(key, (str, int, float, bool)) or key is None:
        return json.dumps({key: 0})[1:-4].strip('"') if not isinstance(key, str) else key
    return None


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=VALUES, parameter=st.sampled_from(["obj", "arr"]))
def test_any_value_reaches_a_handler_as_json_or_the_call_is_refused(
    pkg: ModuleType, value: object, parameter: str
) -> None:
    """Whatever the value and the form: the handler-facing values are JSON; the call is refused
    exactly when the value holds something JSON cannot carry; otherwise the parser is given what
    `json.loads(json.dumps(value))` gives, every key's conversion said."""
    arguments, _ = placed(parameter, value)
    refused = _refused(value)
    literal = python_literal(arguments[parameter])
    forms = list(dict_entries(pkg, arguments))
    if literal is not None:
        forms += list(text_entries(pkg, parameter, literal))
    for form, request, _ in forms:
        assert_handler_sees_json(request)
        assert bool(request.errors) == refused, (form, request.errors)
        if refused:
            assert {code.split(":")[0] for code in request.errors} <= {
                "value_not_json",
                "key_not_json",
            }
        elif form != "unknown_tool":  # whose generic parse turns "true" into true
            assert request.values == json.loads(json.dumps(arguments)), form


# ---------------------------------------------------------------------------------------------
# Item 16, the reply half: a long list of pythonic calls, linear and within a small multiple


def _calls_text(n: int) -> str:
    return "[" + ", ".join(f"f(s='v{i % 10}')" for i in range(n)) + "]"


def test_a_list_of_pythonic_calls_is_parsed_one_call_at_a_time(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 16: 1 MB of `[f(a=1), ...]` took 5.2 s and 632 MB, the syntax tree of the whole list
    at once. Counted, at n and 2n calls: one `ast.parse` per call, each of that call's own
    characters only, each character parsed once."""
    parsed: list[int] = []
    real_parse = ast.parse

    def counting(source: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(len(source))
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    for n in (2000, 4000):
        parsed.clear()
        text = _calls_text(n)
        batch = pkg.parse_reply(text)
        assert len(batch) == n and batch.problems == ()
        assert [c.tool_call_id for c in batch[:2]] == ["call_0", "call_1"]
        assert len(parsed) == n
        assert max(parsed) == len("(f(s='v0')\n)")  # the call, in brackets
        assert sum(parsed) < len(text) + 3 * n


def test_a_list_of_pythonic_calls_needs_memory_within_a_small_multiple_of_the_text(
    pkg: ModuleType,
) -> None:
    """Item 16: what parse_reply holds beyond the requests it returns is within a few times the
    reply's size (the whole list's tree was some 500 bytes per character)."""
    text = _calls_text(5000)
    pkg.parse_reply(text[:100] + "]")  # modules imported before counting
    tracemalloc.start()
    try:
        batch = pkg.parse_reply(text)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(batch) == 5000
    assert peak - kept < 8 * len(text)


@pytest.mark.parametrize(
    "reply, values",
    [
        ("[f(s='a, b'), f(s=\"]\")]", ["a, b", "]"]),
        ("[f(s='''x\n,y'''), f(s='(')]", ["x\n,y", "("]),
        ("[f(s='a'),  # a comment, with ] in it\n f(s='b'),]", ["a", "b"]),
        ("f(s='a'), f(s='b')", ["a", "b"]),
        ("f(s='a'), \\\nf(s='b')", ["a", "b"]),
        ("[f(s=r'a\\'b'), f(s='\\'')]", ["a\\'b", "'"]),
    ],
)
def test_the_calls_of_a_list_are_cut_where_python_cuts_them(
    pkg: ModuleType, reply: str, values: list[str]
) -> None:
    batch = pkg.parse_reply(reply)
    assert [c.values for c in batch] == [{"s": v} for v in values] and batch.problems == ()


@pytest.mark.parametrize(
    "reply",
    [
        "[f(s='a)]",
        "f(s='a') + 1",
    ],
)
def test_what_is_no_list_of_calls_in_python_is_not_read_as_one(pkg: ModuleType, reply: str) -> None:
    """A text Python would not parse as a list (or tuple) of calls gives no pythonic call."""
    assert all("pythonic_call" not in c.warnings for c in pkg.parse_reply(reply))


@pytest.mark.parametrize(
    ("reply", "values"), [("[f(s='a')] + [f(s='b')]", ["a", "b"]), ("[f(s='a')][0]", ["a"])]
)
def test_lists_of_calls_in_an_expression_are_read_as_lists_in_prose(
    pkg: ModuleType, reply: str, values: list[str]
) -> None:
    """Issue 37 item 2: a text that is no list of calls in Python is never read as one (the
    whole text), but each list of calls in it is read as a list in prose, with its code."""
    batch = pkg.parse_reply(reply)
    assert [c.values for c in batch] == [{"s": v} for v in values]
    assert all(c.warnings[:2] == ("call_extracted_from_text", "pythonic_call") for c in batch)


@pytest.mark.parametrize(
    ("reply", "shown"), [("[f(s='a'),,f(s='b')]", ""), ("[f(s='a'), x, f(s='b')]", "x")]
)
def test_a_part_of_a_list_that_is_no_call_is_a_problem_beside_the_calls(
    pkg: ModuleType, reply: str, shown: str
) -> None:
    """Issue 37 item 2 (it was: the list is no list of calls, and both calls were lost with no
    problem): the calls come back, in order, and the part that is none is a problem naming it."""
    batch = pkg.parse_reply(reply)
    assert [(c.tool_call_id, c.values) for c in batch] == [
        ("call_0", {"s": "a"}),
        ("call_1", {"s": "b"}),
    ]
    assert [(p.reason, p.text) for p in batch.problems] == [("invalid_call", shown)]


def test_a_json_call_object_in_a_list_of_pythonic_calls_is_a_call_too(pkg: ModuleType) -> None:
    """Issue 37 item 2 (it was: the pythonic call was lost, the JSON one read alone)."""
    batch = pkg.parse_reply("""[f(s='a'), {"name": "f", "parameters": {"s": "b"}}]""")
    assert [(c.tool_call_id, c.values) for c in batch] == [
        ("call_0", {"s": "a"}),
        ("call_1", {"s": "b"}),
    ]
    assert batch.problems == ()


@pytest.mark.parametrize("key", [True, False, None, 1, -7, 2.5, 1e300, "k"], ids=repr)
def test_a_key_has_one_text_wherever_it_is_written(key: object) -> None:
    """The review of issue 32: a handler's result checked against `returns` wrote `True` as
    `"True"` (`key_text`), what was sent wrote it `"true"` (json), the arguments `"true"`
    (`_values`). One rule, JSON's, for each key JSON writes."""
    from codegen.runtime import _runtime, _values

    (sent,) = json.loads(json.dumps({key: 0}))
    assert _values.key_json_text(key) == _runtime.key_text(key) == sent
    # A mapping that is no dict (a handler's result) is read with its keys as text.
    assert _runtime.to_dict(MappingProxyType({key: 0}), "r", [], []) == {sent: 0}

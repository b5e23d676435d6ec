"""Differential: the generated parsers against an independent implementation of the same rules.

The benchmark's corpus (tools shaped like real ones: flat, with enums and defaults, with a nested
object, with arrays of strings and of objects) is built into a package, and every call of it, clean,
with the slips models make, and each of thousands of seeded mutations of it, is parsed twice: by the
generated parser, and by `bench/interpret.py`, which walks the JSON Schema at run time with the
same runtime coercions. Values (with their types), warnings, errors and typed arguments must agree,
for the call sent as text and as a dict; and the dict must come back unchanged.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, build_package

sys.path.insert(0, str(ROOT / "bench"))

from corpus import Call, calls, catalog
from interpret import Interpreter

TOOLS = 100
MUTATIONS_PER_CALL = 15
Args = dict[str, Any]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], ModuleType]:
    folder = tmp_path_factory.mktemp("corpus")
    data = catalog(TOOLS)
    source = folder / "bench_tools.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return data, build_package(source, folder / "out")


def plain(value: object) -> object:
    """Typed arguments as nested dicts of their fields, so two sets of classes can be compared."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def outcome(request: Any) -> tuple[str, tuple[str, ...], tuple[str, ...], str]:
    # repr tells 1 from 1.0 and True.
    return (repr(request.values), request.warnings, request.errors, repr(plain(request.arguments)))


def agree(parse: Callable[..., Any], oracle: Callable[..., Any], raw: str | Args) -> None:
    sent = copy.deepcopy(raw)
    mine = parse(raw, "c")
    assert raw == sent, "a dict passed in was changed"
    theirs = oracle(copy.deepcopy(raw), "c")
    assert outcome(mine) == outcome(theirs), raw
    assert (mine.arguments is None) == bool(mine.errors)


# ---------------------------------------------------------------------------------------------
# Mutations: one slip, or one worse thing, at one place in the arguments


SCALARS: list[object] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2.5,
    3.0,
    "",
    "x",
    "NULL",
    [],
    {},
    [1],
    {"a": 1},
]


def places(args: object, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in the arguments: object members and array elements, at any depth."""
    if isinstance(args, dict):
        for key, value in args.items():
            yield (*path, key)
            yield from places(value, (*path, key))
    elif isinstance(args, list):
        for index, value in enumerate(args):
            yield (*path, index)
            yield from places(value, (*path, index))


def variants(value: object, rng: random.Random) -> list[object]:
    """What a model might send instead of `value`."""
    out: list[object] = [
        json.dumps(value),
        rng.choice(["null", " Null ", "NULL"]),
        None,
        rng.choice(SCALARS),
        [value],
    ]
    if isinstance(value, bool):
        out += [int(value), rng.choice(["yes", "off", "1", "TRUE"]), 0.5]
    elif isinstance(value, int):
        out += [float(value), value + 0.5, -1, 10_001, f" {value} ", str(value) + "x", True]
    elif isinstance(value, float):
        out += [int(value), str(value), "nan", float("inf")]
    elif isinstance(value, str):
        out += [value.upper(), value.title(), 42, 1.5, True, "x" * 201, value + " extra"]
    elif isinstance(value, list):
        out += [value[0] if value else "a", [None, *value], [*value, "null"], json.dumps(value)]
    elif isinstance(value, dict):
        out += [json.dumps(value), {}, {**value, "extra": [1]}, list(value.values())]
    return out


def mutate(args: Args, rng: random.Random) -> Args:
    mutated = copy.deepcopy(args)
    spots = list(places(mutated))
    if not spots or rng.random() < 0.1:
        mutated[rng.choice(["note", "extra", "x"])] = rng.choice(SCALARS)
        return mutated
    *parent_path, last = rng.choice(spots)
    parent: Any = mutated
    for step in parent_path:
        parent = parent[step]
    if isinstance(parent, dict) and rng.random() < 0.15:
        del parent[last]
    else:
        parent[last] = rng.choice(variants(parent[last], rng))
    return mutated


def sent(call: Call) -> Args:
    value = json.loads(call.raw)
    while isinstance(value, str):  # some slipped calls are double-encoded
        value = json.loads(value)
    assert isinstance(value, dict)
    return value


# ---------------------------------------------------------------------------------------------
# The tests


def test_the_corpus_parses_as_the_interpreter_parses(corpus: tuple[dict[str, Any], Any]) -> None:
    data, package = corpus
    oracle = Interpreter(package._runtime, {t["name"]: t["parameters"] for t in data["tools"]})
    checked = clean = 0
    for call in calls(data):
        parse, interpreted = package.TOOLS[call.tool].parse, oracle.parser(call.tool)
        agree(parse, interpreted, call.raw)
        agree(parse, interpreted, sent(call))
        checked += 2
        clean += not call.slipped and not parse(call.raw).warnings
    assert checked == 4 * TOOLS * 2
    assert clean == 2 * TOOLS  # every clean call is exactly right: no warning, no error


def test_mutated_calls_parse_as_the_interpreter_parses(corpus: tuple[dict[str, Any], Any]) -> None:
    data, package = corpus
    oracle = Interpreter(package._runtime, {t["name"]: t["parameters"] for t in data["tools"]})
    rng = random.Random(2026)
    seen: set[str] = set()
    for call in calls(data):
        parse, interpreted = package.TOOLS[call.tool].parse, oracle.parser(call.tool)
        for _ in range(MUTATIONS_PER_CALL):
            mutated = mutate(sent(call), rng)
            agree(parse, interpreted, json.dumps(mutated))
            agree(parse, interpreted, mutated)
            request = parse(json.dumps(mutated))
            seen.update(code.split(":", 1)[0] for code in (*request.warnings, *request.errors))
    # The mutations reach every rule the corpus's schemas can break.
    assert seen >= {
        "string_literal_converted_to_integer",
        "string_literal_converted_to_number",
        "string_literal_converted_to_boolean",
        "string_literal_converted_to_null",
        "number_coerced_to_integer",
        "number_coerced_to_boolean",
        "fractional_number_truncated_to_integer",
        "non_string_literal_retained",
        "enum_case_normalized",
        "scalar_coerced_to_list",
        "string_parsed_as_json",
        "null_treated_as_absent",
        "unknown_parameter",
        "missing_required",
        "out_of_range",
        "length_out_of_range",
        "enum_out_of_range",
        "unsupported_integer_literal",
        "unsupported_number_literal",
        "unsupported_boolean_literal",
        "unsupported_string_literal",
        "unsupported_object_literal",
    }, sorted(seen)

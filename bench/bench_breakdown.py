"""Where the time of one generated parse goes: decode, checks, arguments, request, call overhead.

    .venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_breakdown.py

For a few corpus calls, each part is timed on its own, as the generated code does it, and the
call overhead is what the whole parse takes beyond its parts (the frames of `parse_<tool>`,
`run_parser` and the checker, and the guards between them). Each figure is the best median of
several repeats of many runs; pydantic's `model_validate_json` on the same call is the yardstick.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_parse import build_packages, import_package
from corpus import calls, catalog
from peers import pydantic_model

NUMBER = 20_000
REPEAT = 7


def best(function: Callable[[], object]) -> float:
    """Nanoseconds per run: the median of the repeats, each the mean of NUMBER runs."""
    times = timeit.repeat(function, number=NUMBER, repeat=REPEAT)
    return statistics.median(times) / NUMBER * 1e9


def breakdown(package: Any, tool: str, raw: str, schema: dict[str, Any]) -> dict[str, float]:
    rt = package._runtime
    module = sys.modules[package.TOOLS[tool].parse.__module__]
    parse, check = package.TOOLS[tool].parse, module._arguments
    args_type = package.TOOLS[tool].args_type
    setters = module._ARGUMENTS_SLOTS
    fields = [getattr(check_result(check, rt, raw), slot) for slot in args_type.__slots__]
    new = object.__new__
    request_fields = ("t", "", raw, None, {}, [], [])

    def arguments() -> object:  # what the checker does to build the dataclass
        typed = new(args_type)
        for setter, value in zip(setters, fields, strict=True):
            setter(typed, value)
        return typed

    def request() -> object:  # what run_parser does to build the request
        name, call_id, text, typed, values, warnings, errors = request_fields
        return rt._new_request(
            rt.ToolCallRequest,
            (name, call_id, text, typed, values, tuple(warnings), tuple(errors)),
        )

    whole = best(lambda: parse(raw))
    decode = best(lambda: rt._decode(raw))
    decode_and_check = best(lambda: check(rt._decode(raw), [], []))
    built = best(arguments)
    # A loop over the setters costs more than the generated straight-line calls: take the loop out.
    loop = best(lambda: [None for _ in zip(setters, fields, strict=True)])
    built = max(built - loop, 0.0)
    made = best(request)
    model = pydantic_model(schema, "M")
    return {
        "decode": decode,
        "checks": decode_and_check - decode - built,
        "arguments (dataclass)": built,
        "request (named tuple)": made,
        "call overhead": whole - decode_and_check - made,
        "whole parse": whole,
        "pydantic model_validate_json": best(lambda: model.model_validate_json(raw)),
    }


def check_result(check: Any, rt: Any, raw: str) -> Any:
    return check(rt._decode(raw), [], [])


def main() -> None:
    data = catalog(20)
    schemas = {tool["name"]: tool["parameters"] for tool in data["tools"]}
    chosen = {}
    for call in calls(data):
        shape = ("flat", "enums", "nested", "arrays")[list(schemas).index(call.tool) % 4]
        if not call.slipped and shape not in chosen:
            chosen[shape] = call
    with tempfile.TemporaryDirectory() as tmp:
        build_packages(data, Path(tmp))
        package = import_package(Path(tmp), "bench_tools_msgspec", block_msgspec=False)
        rows = {
            f"{shape}: {call.tool} ({len(json.loads(call.raw))} parameters sent)": breakdown(
                package, call.tool, call.raw, schemas[call.tool]
            )
            for shape, call in chosen.items()
        }
    print(f"Python {sys.version.split()[0]}; ns per call, msgspec decoder\n")
    parts = list(next(iter(rows.values())))
    print("| call | " + " | ".join(parts) + " |")
    print("| --- " * (len(parts) + 1) + "|")
    for label, row in rows.items():
        print(f"| {label} | " + " | ".join(f"{row[p]:,.0f}" for p in parts) + " |")


if __name__ == "__main__":
    main()

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


def best(statement: str, names: dict[str, Any]) -> float:
    """Nanoseconds per run of a statement (compiled into timeit's loop: no call around it): the
    median of the repeats, each the mean of NUMBER runs."""
    times = timeit.repeat(statement, globals=names, number=NUMBER, repeat=REPEAT)
    return statistics.median(times) / NUMBER * 1e9


def breakdown(package: Any, tool: str, raw: str, schema: dict[str, Any]) -> dict[str, float]:
    rt = package._runtime
    spec = package.TOOLS[tool]
    module = sys.modules[spec.parse.__module__]
    typed = module._arguments(rt._decode(raw), [], [])
    names = {
        "rt": rt,
        "raw": raw,
        "parse": spec.parse,
        "check": module._arguments,
        "decode": rt._decode,
        "new": object.__new__,
        "cls": spec.args_type,
        "new_request": rt._new_request,
        "Request": rt.ReadyRequest,
        "typed": typed,
        "values": {},
        "warnings": [],
        "errors": [],
        "model": pydantic_model(schema, "M"),
        "draft_class": module._ARGUMENTS_DRAFT,
        **{f"v{i}": getattr(typed, slot) for i, slot in enumerate(spec.args_type.__slots__)},
    }
    # The dataclass as the checker builds it: its writable twin, field by field, then __class__.
    fields = "; ".join(f"d.{slot} = v{i}" for i, slot in enumerate(spec.args_type.__slots__))
    built = best(f"d = new(draft_class); {fields}; d.__class__ = cls", names)
    whole = best("parse(raw)", names)
    decoded = best("decode(raw)", names)
    decoded_and_checked = best("check(decode(raw), [], [])", names)
    request = best(
        "errors or typed is None or new_request(Request, ('t', '', raw, typed, values,"
        " tuple(warnings), (), True))",
        names,
    )
    return {
        "decode": decoded,
        "checks": decoded_and_checked - decoded - built,
        "arguments (dataclass)": built,
        "request (named tuple)": request,
        "call overhead": whole - decoded_and_checked - request,
        "whole parse": whole,
        "pydantic model_validate_json": best("model.model_validate_json(raw)", names),
    }


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

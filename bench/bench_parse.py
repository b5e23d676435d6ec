"""Generated parsers against pydantic v2, msgspec, fastjsonschema, jsonschema and a schema interpreter.

    .venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_parse.py [--tools N] [--rounds R]

One process; in each round every parser parses every call once, the parsers in turn (interleaved),
and the figure per parser is the median round. It reports calls per second, the ratio to pydantic's
`model_validate_json` (lax mode) in the same run, and how many calls each one accepted.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import Call, calls, catalog
from interpret import Interpreter
from peers import Peers

from codegen.build import build

BASELINE = "pydantic model_validate_json"


def generated_package(data: dict[str, Any], where: Path, fast_decoder: bool) -> Any:
    where.mkdir(parents=True)
    source = where / "bench_tools.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    package = f"bench_tools_{'msgspec' if fast_decoder else 'stdlib'}"
    for path, text in build([source], where).files.items():
        target = where / package / Path(path).relative_to("bench_tools")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    sys.path.insert(0, str(where))
    module = importlib.import_module(package)
    if not fast_decoder:
        module._runtime._fast_loads = None
    return module


def accepts(parse: Callable[[str, str], Any], call: Call) -> bool:
    try:
        result = parse(call.tool, call.raw)
    except Exception:  # noqa: BLE001 - a peer refusing a call raises
        return False
    return getattr(result, "ok", True)


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--tools", type=int, default=300)
    options.add_argument("--rounds", type=int, default=15)
    args = options.parse_args()

    data = catalog(args.tools)
    schemas = {tool["name"]: tool["parameters"] for tool in data["tools"]}
    corpus = calls(data)
    sets = {
        "clean": [c for c in corpus if not c.slipped],
        "with slips": [c for c in corpus if c.slipped],
    }

    with tempfile.TemporaryDirectory() as tmp:
        fast = generated_package(data, Path(tmp) / "a", fast_decoder=True)
        slow = generated_package(data, Path(tmp) / "b", fast_decoder=False)
        interpreter = Interpreter(fast._runtime, schemas)
        peers = Peers(schemas).parsers
        parsers: dict[str, Callable[[str, str], Any]] = {
            "generated (msgspec decoder)": lambda tool, raw: fast.TOOLS[tool].parse(raw, ""),
            "generated (stdlib only)": lambda tool, raw: slow.TOOLS[tool].parse(raw, ""),
            "schema interpreter": interpreter.parse,
            **{name: _by_tool(table) for name, table in peers.items()},
        }
        print(
            f"{len(data['tools'])} tools, {len(sets['clean'])} clean calls and {len(sets['with slips'])} with slips"
        )
        print(f"Python {sys.version.split()[0]}, {_versions()}\n")
        for label, chosen in sets.items():
            times: dict[str, list[float]] = {name: [] for name in parsers}
            for _ in range(args.rounds):
                for name, parse in parsers.items():
                    start = time.perf_counter()
                    for call in chosen:
                        with contextlib.suppress(Exception):  # a refusal costs what it costs
                            parse(call.tool, call.raw)
                    times[name].append(time.perf_counter() - start)
            base = statistics.median(times[BASELINE])
            print(f"### {label} calls\n")
            print("| parser | calls/s | × pydantic | accepted |")
            print("| --- | --- | --- | --- |")
            for name, parse in parsers.items():
                median = statistics.median(times[name])
                accepted = sum(accepts(parse, call) for call in chosen)
                print(
                    f"| {name} | {len(chosen) / median:,.0f} | {base / median:.2f} | {accepted}/{len(chosen)} |"
                )
            print()


def _by_tool(table: dict[str, Callable[[str], Any]]) -> Callable[[str, str], Any]:
    return lambda tool, raw: table[tool](raw)


def _versions() -> str:
    from importlib.metadata import version

    names = ["pydantic", "msgspec", "fastjsonschema", "jsonschema"]
    return ", ".join(f"{n} {version(n)}" for n in names)


if __name__ == "__main__":
    main()

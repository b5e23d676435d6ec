"""Generated parsers against pydantic v2, msgspec, fastjsonschema, jsonschema and a schema interpreter.

    .venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_parse.py [--tools N]
        [--rounds R] [--processes P]

The catalog is built once; then P fresh processes each run R rounds. In a round every parser parses
every call once, called directly (its own function per tool, looked up before timing), in an order
rotated from round to round, so that no parser always runs first or after the same neighbour. A
parser's ratio to pydantic's `model_validate_json` (lax mode) is taken within each round, where both
ran on the same machine state; the figures are medians over the rounds of all processes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import Call, calls, catalog
from interpret import Interpreter
from peers import Peers

from codegen.build import build

BASELINE = "pydantic model_validate_json"
Parse = Callable[[str], Any]


def build_packages(data: dict[str, Any], where: Path) -> None:
    """The catalog built twice, as two packages: one decodes with msgspec, one with `json` alone."""
    source = where / "bench_tools.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    files = build([source], where / "out").files
    for package in ("bench_tools_msgspec", "bench_tools_stdlib"):
        for path, text in files.items():
            target = where / package / Path(path).relative_to("bench_tools")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")


def import_package(where: Path, package: str, block_msgspec: bool) -> Any:
    """Import a built package; with `block_msgspec`, its runtime finds no msgspec and uses `json`."""
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))
    saved = {name: sys.modules.get(name) for name in ("msgspec", "msgspec.json")}
    if block_msgspec:
        sys.modules["msgspec"] = sys.modules["msgspec.json"] = None  # type: ignore[assignment]
    try:
        module = importlib.import_module(package)
        importlib.import_module(f"{package}._runtime")
    finally:
        for name, value in saved.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
    return module


def parsers(data: dict[str, Any], where: Path) -> dict[str, dict[str, Parse]]:
    """Every parser's parse function per tool."""
    schemas = {tool["name"]: tool["parameters"] for tool in data["tools"]}
    fast = import_package(where, "bench_tools_msgspec", block_msgspec=False)
    slow = import_package(where, "bench_tools_stdlib", block_msgspec=True)
    assert fast._runtime._fast_loads is not None and slow._runtime._fast_loads is None
    interpreter = Interpreter(fast._runtime, schemas)
    return {
        "generated (msgspec decoder)": {tool: fast.TOOLS[tool].parse for tool in schemas},
        "generated (stdlib only)": {tool: slow.TOOLS[tool].parse for tool in schemas},
        "schema interpreter": {tool: interpreter.parser(tool) for tool in schemas},
        **Peers(schemas).parsers,
    }


def run(pairs: list[tuple[Parse, str]]) -> float:
    start = time.perf_counter()
    for parse, raw in pairs:
        try:  # free unless a peer refuses the call, and then a refusal costs what it costs
            parse(raw)
        except Exception:  # noqa: BLE001, S110
            pass
    return time.perf_counter() - start


def accepted(parse: Parse, raw: str) -> bool:
    try:
        result = parse(raw)
    except Exception:  # noqa: BLE001 - a peer refusing a call raises
        return False
    return getattr(result, "ok", True)


def child(options: argparse.Namespace) -> None:
    """One process's rounds: per set of calls, each parser's time in each round, as JSON."""
    where = Path(options.where)
    data = json.loads((where / "bench_tools.json").read_text(encoding="utf-8"))
    table = parsers(data, where)
    names = list(table)
    report: dict[str, Any] = {}
    for label, chosen in call_sets(data).items():
        pairs = {name: [(table[name][c.tool], c.raw) for c in chosen] for name in names}
        for name in names:
            run(pairs[name])  # warm up: every tool module imported, every code path seen once
        times: dict[str, list[float]] = {name: [] for name in names}
        for r in range(options.rounds):
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                times[name].append(run(pairs[name]))
        report[label] = {
            "calls": len(chosen),
            "times": times,
            "accepted": {n: sum(accepted(table[n][c.tool], c.raw) for c in chosen) for n in names},
        }
    print(json.dumps(report))


def call_sets(data: dict[str, Any]) -> dict[str, list[Call]]:
    corpus = calls(data)
    return {
        "clean": [c for c in corpus if not c.slipped],
        "with slips": [c for c in corpus if c.slipped],
    }


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--tools", type=int, default=300)
    options.add_argument("--rounds", type=int, default=15)
    options.add_argument("--processes", type=int, default=3)
    options.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options.add_argument("--where", help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.child:
        child(args)
        return

    data = catalog(args.tools)
    with tempfile.TemporaryDirectory() as tmp:
        build_packages(data, Path(tmp))
        reports = [
            json.loads(
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        "--where",
                        tmp,
                        "--rounds",
                        str(args.rounds),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(args.processes)
        ]
    sets = reports[0]
    print(
        f"{len(data['tools'])} tools, {sets['clean']['calls']} clean calls and "
        f"{sets['with slips']['calls']} with slips; {args.processes} processes × {args.rounds} rounds"
    )
    print(f"Python {sys.version.split()[0]}, {_versions()}\n")
    for label, first in sets.items():
        names = list(first["times"])
        print(f"### {label} calls\n")
        print("| parser | calls/s | × pydantic | accepted |")
        print("| --- | --- | --- | --- |")
        for name in names:
            rounds = [t for report in reports for t in report[label]["times"][name]]
            base = [t for report in reports for t in report[label]["times"][BASELINE]]
            ratio = statistics.median(b / t for b, t in zip(base, rounds, strict=True))
            rate = first["calls"] / statistics.median(rounds)
            print(
                f"| {name} | {rate:,.0f} | {ratio:.2f} | {first['accepted'][name]}/{first['calls']} |"
            )
        print()


def _versions() -> str:
    from importlib.metadata import version

    names = ["pydantic", "msgspec", "fastjsonschema", "jsonschema"]
    return ", ".join(f"{n} {version(n)}" for n in names)


if __name__ == "__main__":
    main()

"""Build speed at scale, and the cost of importing one tool from a large generated package.

    .venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_build.py [--tools 2000]
    .venv/bin/python bench/bench_build.py --codegen before=/tmp/main-copy --codegen after=.

In a fresh project (a temporary directory with a pyproject.toml and one YAML catalog from
`corpus.py`), each step runs `codegen build` as a new process, as a person or CI would, and reports
its wall time and its CPU time (user + system of the process and its worker processes, which is
what to compare on a shared machine): from scratch (no output, no cache), again with nothing
changed, and after editing one tool, each `--rounds` times (a fresh project for each cold build).
Then one `codegen build --watch` process (`watch_rebuild.py`) builds three more one-tool edits in
turn, each build timed within that process (wall, and the CPU of the process, which makes a single
tool without workers).
Each `--codegen NAME=DIR` is a copy of codegen's source (default: this one), run in turn within
each round, so that "before" and "after" meet the same load. In the same run the peer,
datamodel-code-generator, writes pydantic models from one JSON Schema whose `$defs` are the same
2,000 tools' parameters (with its default, built-in formatter), also in a new process. Then, in new
processes, the time to import one tool's parser from the package (its bytecode already compiled,
as in a deployed service) and the number of tool modules that import loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import catalog

REPO = Path(__file__).resolve().parent.parent


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process, and theirs."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def codegen_build(project: Path, repo: Path = REPO) -> tuple[float, float, str]:
    """Wall and CPU seconds of one `codegen build`, and what it said."""
    start, cpu = time.perf_counter(), children_cpu()
    # With its bytecode written and read, as an installed codegen runs (pip compiles it): a shell
    # that sets PYTHONDONTWRITEBYTECODE would make every build compile codegen's modules again.
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-m", "codegen", "build"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**environment, "PYTHONPATH": str(repo)},
        check=True,
    )
    return time.perf_counter() - start, children_cpu() - cpu, done.stdout.strip()


def edited(data: dict[str, Any], edit: int) -> str:
    """The catalog's text with one more parameter in one tool (a tool of its own for each edit)."""
    tool = data["tools"][len(data["tools"]) // 2 + edit]
    tool["parameters"]["properties"][f"added{edit}"] = {
        "type": "integer",
        "description": "A parameter added in the edit.",
    }
    return yaml.safe_dump(data, sort_keys=False, width=100)


def watch_rebuilds(
    project: Path, repo: Path, source: Path, texts: list[Path]
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Wall and CPU seconds of each build of one `codegen build --watch` process after its first,
    each after one of `texts` became the catalog, and of what the watch did after each of those
    builds before waiting again (`watch_rebuild.py`)."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("watch_rebuild.py")), str(source)]
        + [str(t) for t in texts],
        cwd=project,
        capture_output=True,
        text=True,
        env={**environment, "PYTHONPATH": str(repo)},
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    return [tuple(pair) for pair in found["builds"]], [tuple(pair) for pair in found["after"]]


def peer_build(project: Path, data: dict[str, object]) -> tuple[float, float]:
    """datamodel-code-generator on a JSON Schema with a definition per tool (the comparable model)."""
    tools = data["tools"]
    assert isinstance(tools, list)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "BenchTools",
        "type": "object",
        "properties": {t["name"]: {"$ref": f"#/$defs/{t['name']}"} for t in tools},
        "$defs": {t["name"]: t["parameters"] for t in tools},
    }
    source = project / "peer.json"
    source.write_text(json.dumps(schema))
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(
        [
            str(Path(sys.executable).with_name("datamodel-codegen")),
            "--input", str(source),
            "--input-file-type", "jsonschema",
            "--output", str(project / "peer_models.py"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - start, children_cpu() - cpu


def import_one(project: Path, package: str, parse_name: str) -> tuple[float, int]:
    code = (
        "import sys, time\n"
        "start = time.perf_counter()\n"
        f"from generated.{package} import {parse_name}\n"
        "elapsed = time.perf_counter() - start\n"
        f"tools = [m for m in sys.modules if m.startswith('generated.{package}.tools.')]\n"
        "print(elapsed, len(tools))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        # Bytecode is written once and then read, as in a deployed service.
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )
    elapsed, loaded = done.stdout.split()
    return float(elapsed), int(loaded)


def median(found: list[tuple[float, float]]) -> float:
    """The median CPU time of (wall, CPU) pairs."""
    return sorted(cpu for _, cpu in found)[len(found) // 2]


def new_project(tmp: str, tools: int) -> tuple[Path, dict[str, Any], Path]:
    project, data = Path(tmp), catalog(tools)
    (project / "pyproject.toml").write_text(
        '[tool.codegen]\nsources = ["catalog"]\nout = "generated"\n'
    )
    (project / "catalog").mkdir()
    source = project / "catalog" / "bench_tools.yaml"
    source.write_text(yaml.safe_dump(data, sort_keys=False, width=100))
    return project, data, source


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--tools", type=int, default=2000)
    options.add_argument("--rounds", type=int, default=3)
    options.add_argument("--no-peer", action="store_true")
    options.add_argument(
        "--codegen",
        action="append",
        metavar="NAME=DIR",
        help="a copy of codegen's source to measure, under a name (repeat to compare)",
    )
    args = options.parse_args()
    copies = [tuple(c.split("=", 1)) for c in args.codegen or [f"codegen={REPO}"]]
    times: dict[str, list[tuple[float, float]]] = {}
    said: dict[str, str] = {}
    for round_ in range(args.rounds):
        for name, repo in copies:
            with tempfile.TemporaryDirectory() as tmp:
                project, data, source = new_project(tmp, args.tools)
                lines = source.read_text().count("\n")
                steps: list[tuple[str, int | None]] = [
                    ("from scratch", None),
                    ("nothing changed", None),
                ]
                steps += [("one tool changed", edit) for edit in range(3)]
                for label, edit in steps:
                    if edit is not None:
                        source.write_text(edited(data, edit))
                    wall, cpu, said[label] = codegen_build(project, Path(repo).resolve())
                    times.setdefault(f"{name}: {label}", []).append((wall, cpu))
                texts = [project / f"edit{edit}.yaml" for edit in range(3, 6)]
                for edit, saved in enumerate(texts, start=3):
                    saved.write_text(edited(data, edit))
                said["watching: one tool changed"] = "each build of `codegen build --watch`"
                said["watching: after each build"] = "the package stored, the collector's pass"
                builds, after = watch_rebuilds(project, Path(repo).resolve(), source, texts)
                times.setdefault(f"{name}: watching: one tool changed", []).extend(builds)
                if after:
                    times.setdefault(f"{name}: watching: after each build", []).extend(after)
        if not args.no_peer:
            with tempfile.TemporaryDirectory() as tmp:
                project, data, _ = new_project(tmp, args.tools)
                times.setdefault("peer: datamodel-code-generator", []).append(
                    peer_build(project, data)
                )
    print(f"{args.tools} tools, a YAML catalog of {lines:,} lines; {os.cpu_count()} cores")
    print(f"Python {sys.version.split()[0]}, {args.rounds} rounds, load {os.getloadavg()[0]:.1f}\n")
    print("| step | wall (min–max) | CPU (min–max) | CPU median | output |")
    print("| --- | --- | --- | --- | --- |")
    for label, found in times.items():
        step = label.split(": ", 1)[1]
        text = said.get(step, "one models file").removeprefix("codegen: ")
        walls, cpus = sorted(w for w, _ in found), sorted(c for _, c in found)
        print(
            f"| {label} | {walls[0]:.2f}–{walls[-1]:.2f} s | {cpus[0]:.2f}–{cpus[-1]:.2f} s "
            f"| {cpus[len(cpus) // 2]:.2f} s | {text} |"
        )
    if not args.no_peer:
        peer = median(times["peer: datamodel-code-generator"])
        for name, _ in copies:
            for step in ("from scratch", "one tool changed", "watching: one tool changed"):
                ratio = median(times[f"{name}: {step}"]) / peer
                print(f"{name}, {step}: CPU {ratio:.2f} of the peer's cold build (medians)")
    with tempfile.TemporaryDirectory() as tmp:
        project, data, _ = new_project(tmp, args.tools)
        codegen_build(project, Path(copies[-1][1]).resolve())
        lines = sum(p.read_text().count("\n") for p in (project / "generated").rglob("*.py"))
        print(f"\n{lines:,} lines generated\n")

        tool = data["tools"][len(data["tools"]) // 3]["name"]
        import_one(project, "bench_tools", f"parse_{tool}")  # compiles the bytecode once
        runs = [import_one(project, "bench_tools", f"parse_{tool}") for _ in range(7)]
        best = min(seconds for seconds, _ in runs)
        print(
            f"import of one tool's parser: {best * 1000:.1f} ms (best of 7 new processes), "
            f"{runs[0][1]} of {args.tools} tool modules loaded"
        )
        print(json.dumps({"import_ms": round(best * 1000, 1)}))


if __name__ == "__main__":
    main()

"""Build speed at scale, and the cost of importing one tool from a large generated package.

    .venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_build.py [--tools 2000]

In a fresh project (a temporary directory with a pyproject.toml and one YAML catalog from
`corpus.py`), each step runs `codegen build` as a new process, as a person or CI would, and reports
the wall time: from scratch (no output, no cache), again with nothing changed, and after editing one
tool. Then, in new processes, the time to import one tool's parser from the package (its bytecode
already compiled, as in a deployed service) and the number of tool modules that import loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import catalog

REPO = Path(__file__).resolve().parent.parent


def codegen_build(project: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "codegen", "build"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    return time.perf_counter() - start, done.stdout.strip()


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


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--tools", type=int, default=2000)
    args = options.parse_args()
    data = catalog(args.tools)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text(
            '[tool.codegen]\nsources = ["catalog"]\nout = "generated"\n'
        )
        (project / "catalog").mkdir()
        source = project / "catalog" / "bench_tools.yaml"
        source.write_text(yaml.safe_dump(data, sort_keys=False, width=100))
        lines = source.read_text().count("\n")
        print(f"{args.tools} tools, a YAML catalog of {lines:,} lines; {os.cpu_count()} cores")
        print(f"Python {sys.version.split()[0]}\n")
        print("| step | wall time | output |")
        print("| --- | --- | --- |")
        for label in ("from scratch", "nothing changed"):
            seconds, said = codegen_build(project)
            print(f"| {label} | {seconds:.2f} s | {said.removeprefix('codegen: ')} |")
        data["tools"][len(data["tools"]) // 2]["parameters"]["properties"]["added"] = {
            "type": "integer",
            "description": "A parameter added in the edit.",
        }
        source.write_text(yaml.safe_dump(data, sort_keys=False, width=100))
        seconds, said = codegen_build(project)
        print(f"| one tool changed | {seconds:.2f} s | {said.removeprefix('codegen: ')} |")
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

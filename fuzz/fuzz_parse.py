"""Fuzz target for the generated parse path and the text repair (atheris, libFuzzer).

Builds every bundled and fixture catalog into a temporary directory, imports the packages under
atheris' instrumentation, and feeds each input to one tool's parser (the first two bytes choose the
catalog and the tool) as bytes, as text and, when it decodes to an object, as a dict; and to the
repair on its own; and to the model-text readers (`parse_reply` in every shape, `parse_jsonl`), as
text and as bytes. Anything raised is a crash: parsers never raise (SPEC §3). Run it with
fuzz/run.sh. Without atheris the module still imports, so that tests/test_fuzz_regressions.py
replays fuzz/seeds/ (where each crash found goes) through the same checks.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

try:
    import atheris
except ImportError:  # replaying seeds in the tests needs no fuzzer
    atheris = None

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen.build import build

CODE = re.compile(r"[a-z_]+(:.*)?", re.DOTALL)
REASON = re.compile(r"[a-z0-9_]+")


def _packages() -> list[tuple[ModuleType, ModuleType, list[str]]]:
    """(package, its _repair module, its tool names) for every catalog the tests build."""
    sources = [
        p
        for folder in (ROOT / "schemas", ROOT / "tests" / "fixtures")
        for p in sorted(folder.iterdir())
        if p.suffix in (".yaml", ".json") and p.name != "catalog.schema.json"
    ]
    out = Path(tempfile.mkdtemp(prefix="codegen-fuzz-"))
    result = build(sources, ROOT)
    for path, text in result.files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(out))
    found = []
    instrumented = atheris.instrument_imports() if atheris else contextlib.nullcontext()
    with instrumented:
        for name in result.packages:
            package = importlib.import_module(name)
            repair = importlib.import_module(f"{name}._repair")
            for tool in package.TOOLS:  # import every tool module while instrumenting
                package.TOOLS[tool]
            found.append((package, repair, sorted(package.TOOLS)))
    return found


PACKAGES = _packages()


def check(request: Any, raw_text: str | None) -> None:
    """What holds for every result: the contract, beyond not raising."""
    assert isinstance(request.values, dict)
    assert (request.arguments is None) == bool(request.errors), request
    for code in (*request.warnings, *request.errors):
        assert CODE.fullmatch(code), code
    if raw_text is not None:
        assert request.raw_arguments == raw_text, (request.raw_arguments, raw_text)


def check_batch(batch: Any) -> None:
    """What holds for every reply read: calls that keep the contract, problems with a line and a
    stable reason."""
    for request in batch:
        if "tool_definition_missing" in request.warnings:
            # A tool the catalog lacks has no typed arguments to give, errors or not.
            assert request.arguments is None and isinstance(request.values, dict), request
        else:
            check(request, None)
    for problem in batch.problems:
        assert problem.line >= 1 and REASON.fullmatch(problem.reason), problem


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    package, repair, tools = PACKAGES[data[0] % len(PACKAGES)]
    tool = tools[data[1] % len(tools)]
    raw = data[2:]
    check(package.parse(tool, raw), None)
    text = raw.decode("utf-8", "replace")
    check(package.parse(tool, text), text)
    # The repair may give text that is still not JSON (the parser then reports it): it must only
    # return, in time linear in the text.
    repair.repair_json(text)
    for reply in (text, raw):
        check_batch(package.parse_reply(reply))
        check_batch(package.parse_jsonl(reply))
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return
    if isinstance(value, dict):
        check(package.parse(tool, value), None)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

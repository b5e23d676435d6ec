"""The committed output: up to date, deterministic, standard-library only, typed and lint-clean."""

from __future__ import annotations

import ast
import contextlib
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Built, Mypy

from codegen.build import BuildResult
from codegen.emit import plan

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
PACKAGES = sorted(p.name for p in GENERATED.iterdir() if (p / "__init__.py").exists())
BIN = Path(sys.executable).parent


def _diff(path: str, expected: str, actual: str) -> str:
    lines = difflib.unified_diff(
        actual.splitlines(True), expected.splitlines(True), f"committed/{path}", f"fresh/{path}"
    )
    return "".join(lines)


def test_committed_generated_equals_a_fresh_build(schemas_built: BuildResult) -> None:
    with contextlib.chdir(ROOT):
        outcome = plan(schemas_built, Path("generated"), ROOT)
    diffs = [
        _diff(p, outcome.files[p], (GENERATED / p).read_text(encoding="utf-8"))
        for p in outcome.stale
    ]
    assert outcome.clean, (
        "generated/ is out of date; run `codegen build`.\n"
        f"missing: {outcome.missing}\norphaned: {outcome.orphaned}\n" + "\n".join(diffs)
    )


def test_builds_are_byte_identical_across_processes(schemas_built: BuildResult) -> None:
    # Different hash seeds shuffle every set and dict built from hashes: output must not depend on
    # them. This process's build against one in a process with another seed than this one's.
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    script = "import json; from pathlib import Path; from codegen.build import build; print(json.dumps(dict(build([Path('schemas')]).files)))"
    output = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": seed},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(output) == dict(schemas_built.files)


@pytest.mark.parametrize("package", PACKAGES)
def test_generated_package_runs_on_the_standard_library_alone(package: str) -> None:
    # python -S: no site-packages, so no msgspec, no codegen, nothing but the standard library.
    script = (
        "import sys; sys.path.insert(0, '.');"
        f"import generated.{package} as pkg;"
        "name = next(iter(pkg.TOOLS));"
        "request = pkg.parse(name, '{}');"
        "assert 'msgspec' not in sys.modules and 'codegen' not in sys.modules, sorted(sys.modules);"
        "print(type(request) in (pkg.ReadyRequest, pkg.RefusedRequest))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize(
    "site_packages", [[], ["--no-site-packages"]], ids=["with the SDKs", "standard library only"]
)
def test_generated_code_passes_mypy_strict(
    mypy: Mypy, site_packages: list[str], names_everywhere: Built
) -> None:
    """Where `mcp`, `anyio` and `uvicorn` are installed, and where they are not (issue 32, the
    MCP typing item: `_mcp.py` had 6 import-not-found errors there); with them the package of a
    catalog named after every name a package binds (issue 33 item 1), and a user's misspelt
    imports, which are errors (issue 33 item 3: the lazy `__getattr__` let them pass). `Handlers`
    takes a handler under a provider's alias as the `Executor` does, and a misspelt name is an
    error (issue 33, the `Handlers` item: only wire names were keys)."""
    user = names_everywhere.out / "misspelt_imports.py"
    user.write_text(MISSPELT, encoding="utf-8")
    package = names_everywhere.out / "names_everywhere"
    done = mypy(*site_packages, "generated", str(package), str(user))
    errors = [line.split(": ", 1)[1] for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == [
        (
            'error: Module "memory_tools" has no attribute "OPENAI_TOOOLS"; maybe'
            ' "OPENAI_TOOLS"?  [attr-defined]'
        ),
        (
            'error: Module "names_everywhere" has no attribute "parse_reply_3"; maybe "parse_reply_2"?'
            "  [attr-defined]"
        ),
        'error: Extra key "memory_serch" for TypedDict "Handlers"  [typeddict-unknown-key]',
    ], done.stdout + done.stderr
    assert all(line.startswith(str(user)) for line in done.stdout.splitlines()[:-1]), done.stdout


# Also a stream iterable both ways (LiteLLM's), which the readers give an `EitherCallStream`
# for: `for` and `async for` over it both type-check (issue 35 item 4).
MISSPELT = """\
from collections.abc import AsyncIterator, Iterator

from memory_tools import (
    OPENAI_TOOLS,
    OPENAI_TOOOLS,
    Executor,
    MemorySearchArgs,
    from_openai_chat_stream,
)
from names_everywhere import UpdateConfigSettings2, parse_reply, parse_reply_2, parse_reply_3


def search(query: str, limit: int = 3) -> list[str]:
    return [query] * limit


BY_ALIAS = Executor({"memory_search": search})
MISSPELT_TOOL = Executor({"memory_serch": search})


class BothWays:
    def __iter__(self) -> Iterator[object]:
        return iter(())

    def __aiter__(self) -> AsyncIterator[object]:
        raise NotImplementedError


def read_both_ways() -> list[str]:
    return [request.tool_name for request in from_openai_chat_stream(BothWays())]


async def read_both_ways_async() -> list[str]:
    return [request.tool_name async for request in from_openai_chat_stream(BothWays())]
"""


def test_generated_code_passes_ruff(names_everywhere: Built) -> None:
    done = subprocess.run(
        [
            str(BIN / "ruff"),
            "check",
            "--isolated",
            "--no-cache",
            "--target-version",
            "py311",
            "generated",
            str(names_everywhere.out / "names_everywhere"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


USER_CODE = """\
from generated.memory_tools import ToolCallRequest, from_openai_chat, parse, parse_memory_search

request = parse_memory_search('{"query": "x"}', tool_call_id="call_1")
reveal_type(request)
reveal_type(request.arguments)
if request.arguments is not None:
    reveal_type(request.arguments.limit)
reveal_type(request._replace(tool_call_id="call_2"))
reveal_type(request.values)
reveal_type(request.ok)
any_tool: ToolCallRequest[object] = parse("memory.search", "{}")
reveal_type(any_tool.arguments)
request.arguments.nope
if request.ok:
    reveal_type(request.arguments)
    reveal_type(request.arguments.limit)
else:
    reveal_type(request.arguments)
for call in from_openai_chat({}):
    if not call.ok:
        continue
    reveal_type(call.arguments)
"""


def test_users_type_checker_keeps_the_arguments_type(tmp_path: Path, mypy: Mypy) -> None:
    user = tmp_path / "user_code.py"
    user.write_text(USER_CODE, encoding="utf-8")
    done = mypy(str(user), path=ROOT)
    lines = [
        line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith(str(user))
    ]
    # Patterns, not one mypy version's spelling (`int` or `builtins.int`, a named tuple's tuple form).
    ready = r"(tuple\[.*fallback=)?generated\.memory_tools\._runtime\.ReadyRequest\[generated\.memory_tools\.tools\.memory_search\.MemorySearchArgs\]\]?"
    refused = r"(tuple\[.*fallback=)?generated\.memory_tools\._runtime\.RefusedRequest\]?"
    # ToolCallRequest[MemorySearchArgs] is the union of the two, which `ok` tells apart.
    request_type = rf"{ready} \| {refused}"
    expected = [
        rf'note: Revealed type is "{request_type}"',
        r'note: Revealed type is "generated\.memory_tools\.tools\.memory_search\.MemorySearchArgs \| None"',
        r'note: Revealed type is "(builtins\.)?int"',
        rf'note: Revealed type is "{request_type}"',
        r'note: Revealed type is "(builtins\.)?dict\[(builtins\.)?str, (builtins\.)?object\]"',
        r'note: Revealed type is "(builtins\.)?bool"',
        r'note: Revealed type is "(builtins\.)?object"',
        r'error: Item "MemorySearchArgs" of "MemorySearchArgs \| None" has no attribute "nope"  \[union-attr\]',
        r'error: Item "None" of "MemorySearchArgs \| None" has no attribute "nope"  \[union-attr\]',
        # `if request.ok:` narrows: the arguments are the dataclass, and None otherwise.
        r'note: Revealed type is "generated\.memory_tools\.tools\.memory_search\.MemorySearchArgs"',
        r'note: Revealed type is "(builtins\.)?int"',
        r'note: Revealed type is "None"',
        r'note: Revealed type is "(builtins\.)?object"',
    ]
    assert len(lines) == len(expected), done.stdout
    for line, pattern in zip(lines, expected, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)


def test_no_generated_function_rebinds_its_parameters() -> None:
    # In the code made from each tool, a parameter is what the caller passed all through its
    # function: a helper that reused it as a local (a nested object's value as each field's)
    # read wrongly and typed loosely. (The runtime is written by hand and may.)
    modules = [
        *(ROOT / "generated").glob("*/tools/*.py"),
        *(ROOT / "tests" / "snapshots").glob("*/tools/*.py"),
    ]
    rebound = []
    for module in modules:
        for function in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            arguments = function.args
            names = {
                a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            }
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Name)
                    and isinstance(node.ctx, ast.Store)
                    and node.id in names
                ):
                    rebound.append(f"{module.relative_to(ROOT)}:{node.lineno} {node.id}")
    assert len(modules) > 20
    assert rebound == []


@pytest.mark.parametrize("package", ["calendar_tools", "http_tools", "memory_tools"])
def test_the_three_lists_of_a_package_name_the_same_public_names(package: str) -> None:
    _three_lists_agree(ROOT / "generated" / package / "__init__.py")


def test_the_three_lists_agree_when_names_are_suffixed(names_everywhere: Built) -> None:
    """Issue 33 item 1: a package whose tools' classes are exported under suffixed names."""
    _three_lists_agree(names_everywhere.out / "names_everywhere" / "__init__.py")


def _three_lists_agree(init: Path) -> None:
    # A package's __init__ names its public API three times, one for each reader: imports under
    # TYPE_CHECKING for type checkers (which never see the PEP 562 __getattr__: issue 33 item 3),
    # the lazy map for the running program (a service that parses one tool loads one module),
    # and __all__. One list in the renderer writes all three; this holds them equal and unique.
    tree = ast.parse(init.read_text(encoding="utf-8"))
    checking, running = [node for node in tree.body if isinstance(node, ast.If)]
    assert ast.unparse(checking.test) == "TYPE_CHECKING"
    assert ast.unparse(running.test) == "not TYPE_CHECKING"
    typed = [alias.asname or alias.name for node in checking.body for alias in node.names]  # type: ignore[attr-defined]
    (lazy,) = [
        node.value
        for node in running.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__getattr__"
    ]
    assert isinstance(lazy, ast.Call)
    payloads, exports = lazy.args[1], lazy.args[2]
    assert isinstance(payloads, ast.Tuple) and isinstance(exports, ast.Call)
    loaded = [ast.literal_eval(name) for name in payloads.elts]
    for table in exports.args[1:]:
        assert isinstance(table, ast.Dict)
        loaded += [ast.literal_eval(key) for key in table.keys if key is not None]
    assert sorted(typed) == sorted(loaded)
    assert len(set(typed)) == len(typed)
    bound = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom | ast.Import):
            bound |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.FunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound |= {t.id for t in targets if isinstance(t, ast.Name)}
    (public,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
    ]
    listed = ast.literal_eval(public)
    assert len(set(listed)) == len(listed)
    assert set(typed) <= set(listed)
    assert set(listed) - set(typed) <= bound  # the rest of __all__ is defined in __init__ itself

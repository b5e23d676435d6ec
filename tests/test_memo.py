"""The cache is a memo around the front end's pure stages, owned by the build (issue 38 item 1):
no module under `codegen/catalog/` imports the cache, and no function there takes one."""

from __future__ import annotations

import ast
import importlib
import inspect
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.build import build
from codegen.cache import BuildCache
from codegen.memo import Memo, memo_body, memo_values

ROOT = Path(__file__).resolve().parent.parent
CATALOG = sorted((ROOT / "codegen" / "catalog").glob("*.py"))
# The build's memo and what it keeps between builds.
CACHE_MODULES = {"codegen.cache", "codegen.memo", "codegen.memory"}
# What a stage would take to ask the cache itself.
CACHE_ARGUMENTS = {"cache", "results", "record", "memo", "memory"}


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("path", CATALOG, ids=lambda p: p.name)
def test_no_front_end_module_imports_the_cache(path: Path) -> None:
    """Issue 38 item 1: the front end knows nothing of the cache (`catalog/reuse.py` imported
    `cache` and `memory`, and five stages imported it)."""
    assert _imported(path) & CACHE_MODULES == set()
    assert not any(name.startswith("codegen.catalog.reuse") for name in _imported(path))


@pytest.mark.parametrize("path", CATALOG, ids=lambda p: p.name)
def test_no_front_end_function_takes_a_cache(path: Path) -> None:
    """Issue 38 item 1: the stages (`load_catalog`, `read_wild`, `validate_catalog`, `normalize`,
    `with_provider_names`) took the last build's results; now each takes how to map its pure
    per-tool function (`workers.Mapper`), which the build makes a memo."""
    module = importlib.import_module(f"codegen.catalog.{path.stem}")
    functions = [
        member
        for _, owner in [(None, module), *inspect.getmembers(module, inspect.isclass)]
        for _, member in inspect.getmembers(owner, inspect.isfunction)
        if member.__module__ == module.__name__
    ]
    taking = {
        f"{function.__qualname__}({name})"
        for function in functions
        for name in inspect.signature(function).parameters
        if name in CACHE_ARGUMENTS
    }
    assert taking == set()


@given(
    st.dictionaries(
        st.text(max_size=8), st.binary(max_size=64).map(lambda b: pickle.dumps(b, 5)), max_size=8
    )
)
def test_a_memo_body_gives_back_each_value_as_written(values: dict[str, bytes]) -> None:
    """Issue 38 item 1: a memo's body is read as views of its bytes (`memo_values`), never copied
    value by value; each view holds the value's pickle as written, under its key, in order."""
    body = memoryview(b"".join(memo_body(values)))
    read = memo_values(body)
    assert list(read) == list(values)
    assert {key: bytes(view) for key, view in read.items()} == values


@pytest.mark.parametrize(
    "body",
    [
        pickle.dumps({"key": pickle.dumps("value")}, 5),  # the form before views: a pickled dict
        b"",
        b"\x00" * 8,
        b"\x00" * 7 + b"\x09" + pickle.dumps([("key", 3)], 5) + b"ab",  # a value cut short
        b"\x00" * 7 + b"\x05" + b"junk!",
    ],
    ids=["a pickled dict", "empty", "an empty index", "a value cut short", "junk"],
)
def test_a_sealed_body_of_another_form_is_an_empty_memo(tmp_path: Path, body: bytes) -> None:
    """Issue 38 item 1: a memo sealed with the user's key but written in another form (by another
    version of codegen) holds nothing for this one, and a build then is a build from scratch."""
    source = tmp_path / "memory_tools.yaml"
    source.write_text((ROOT / "schemas" / "memory_tools.yaml").read_text(encoding="utf-8"))
    cache = BuildCache(tmp_path / ".cache")
    fresh = build([source], tmp_path, BuildCache(None))
    build([source], tmp_path, cache)
    memo = Memo(cache, source.name)
    assert memo.stored
    cache.put_bytes(memo.entry, body)
    assert memo_values(memoryview(body)) == {}
    assert Memo(cache, source.name).stored == {}
    again = build([source], tmp_path, cache)
    assert (again.files, again.warnings) == (fresh.files, fresh.warnings)

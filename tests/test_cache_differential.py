"""A cached build gives the same bytes and the same findings, lines and paths included, as a build
without the cache, after any edit of the catalog: tools moved, added, removed, changed.

Cached payload findings are kept relative to their tool and placed where the tool now is, so a
moved tool's findings name its new index and lines (a stale `tools[2]` would fail here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.build import build
from codegen.cache import BuildCache


def tool(n: int) -> dict[str, Any]:
    """A tool with a payload note (a default), a front-end warning (`optional: "True"`) and, for
    some, a nested object: findings at several depths."""
    properties: dict[str, Any] = {
        "query": {"type": "string", "description": f"What tool {n} looks for"},
        "limit": {"type": "integer", "default": n, "description": "How many", "optional": "True"},
    }
    if n % 2:
        properties["filter"] = {
            "type": "object",
            "properties": {"tag": {"type": "string", "default": "x", "minLength": 1}},
        }
    return {
        "name": f"tool_{n}",
        "description": f"Tool number {n}, which looks things up.",
        "parameters": {"type": "object", "properties": properties, "required": ["query"]},
    }


EDITS = st.lists(
    st.tuples(st.sampled_from(["move", "add", "remove", "change"]), st.integers(0, 50)),
    min_size=1,
    max_size=3,
)


def edited(tools: list[dict[str, Any]], edits: list[tuple[str, int]]) -> list[dict[str, Any]]:
    tools = [dict(t) for t in tools]
    fresh = 100
    for what, k in edits:
        i = k % len(tools)
        if what == "move":
            tools.insert((k // 7) % len(tools), tools.pop(i))
        elif what == "add":
            fresh += 1
            tools.insert(i, tool(fresh + k))
        elif what == "remove" and len(tools) > 1:
            tools.pop(i)
        elif what == "change":
            tools[i] = {**tools[i], "description": tools[i]["description"] + " Changed."}
    return tools


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("differential")


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(EDITS, st.booleans())
def test_cached_and_uncached_builds_agree_after_edits(
    project: Path, edits: list[tuple[str, int]], indented: bool
) -> None:
    source = project / "cat.json"
    cache = BuildCache(project / ".cache")
    base = [tool(n) for n in range(4)]
    source.write_text(json.dumps({"name": "cat", "tools": base}, indent=2), encoding="utf-8")
    build([source], project, cache)  # the cache knows the catalog before the edit
    tools = edited(base, edits)
    text = json.dumps({"name": "cat", "tools": tools}, indent=2 if indented else 1)
    source.write_text(text, encoding="utf-8")
    cached = build([source], project, cache)
    fresh = build([source], project, BuildCache(None))
    assert [str(d) for d in cached.warnings] == [str(d) for d in fresh.warnings]
    assert cached.files == fresh.files
    # The findings name the tools where they are now: each within its tool's lines.
    lines = text.splitlines()
    starts = [
        next(n for n, line in enumerate(lines, 1) if f'"name": "{t["name"]}"' in line) - 1
        for t in tools
    ]
    for d in fresh.warnings:
        index = int(d.path.split("]")[0].removeprefix("tools["))
        end = starts[index + 1] if index + 1 < len(tools) else len(lines)
        assert starts[index] <= d.line < end, str(d)

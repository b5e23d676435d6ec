"""Provider names: each provider's rule, the alias of a name it forbids, collisions, and `parse`
taking any alias while reporting the wire name."""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from codegen.build import build
from codegen.catalog.aliases import alias, allowed, provider_names


@pytest.mark.parametrize(
    ("name", "provider", "expected"),
    [
        ("memory.search", "openai", "memory_search"),
        ("memory.search", "anthropic", "memory_search"),
        ("memory.search", "gemini", "memory.search"),
        ("memory.search", "mcp", "memory.search"),
        ("ns:tool", "mcp", "ns_tool"),
        ("ns:tool", "gemini", "ns:tool"),
        ("9lives", "gemini", "_9lives"),
        ("9lives", "openai", "9lives"),
        ("-dash", "gemini", "_-dash"),
    ],
)
def test_alias_per_provider(name: str, provider: str, expected: str) -> None:
    assert alias(name, provider) == expected
    assert allowed(expected, provider)


def test_a_long_name_is_trimmed_with_a_digest_of_the_whole_name() -> None:
    name = "a" * 70
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    assert alias(name, "openai") == "a" * 55 + "_" + digest
    assert alias(name, "mcp") == name  # MCP takes 128
    assert alias("a" * 69, "openai") != alias(name, "openai")  # the digest keeps them apart
    assert len(alias("x." * 40, "gemini")) == 64


def test_every_tool_gets_every_provider() -> None:
    names, collisions = provider_names(["memory.search", "read_file"])
    assert names == {
        "openai": {"memory.search": "memory_search", "read_file": "read_file"},
        "anthropic": {"memory.search": "memory_search", "read_file": "read_file"},
        "gemini": {"memory.search": "memory.search", "read_file": "read_file"},
        "mcp": {"memory.search": "memory.search", "read_file": "read_file"},
    }
    assert collisions == []


def test_an_alias_that_is_another_tools_name_gets_a_suffix() -> None:
    names, collisions = provider_names(["todo.add", "todo_add", "todo:add"])
    assert names["openai"] == {
        "todo.add": "todo_add_2",
        "todo_add": "todo_add",
        "todo:add": "todo_add_3",
    }
    assert names["anthropic"] == names["openai"]
    assert names["gemini"] == {
        "todo.add": "todo.add",
        "todo_add": "todo_add",
        "todo:add": "todo:add",
    }
    # One alias means one tool across providers: MCP's alias of todo:add is the one OpenAI's has.
    assert names["mcp"] == {
        "todo.add": "todo.add",
        "todo_add": "todo_add",
        "todo:add": "todo_add_3",
    }
    assert [(c.provider, c.wire_name, c.wanted, c.other, c.given) for c in collisions] == [
        ("openai", "todo.add", "todo_add", "todo_add", "todo_add_2"),
        ("openai", "todo:add", "todo_add", "todo_add", "todo_add_3"),
        ("anthropic", "todo.add", "todo_add", "todo_add", "todo_add_2"),
        ("anthropic", "todo:add", "todo_add", "todo_add", "todo_add_3"),
        ("mcp", "todo:add", "todo_add", "todo_add", "todo_add_3"),
    ]


def test_a_suffix_keeps_the_name_within_the_limit() -> None:
    names, _ = provider_names(["b" * 63 + "_", "b" * 63 + "."])
    assert names["openai"] == {"b" * 63 + "_": "b" * 63 + "_", "b" * 63 + ".": "b" * 62 + "_2"}


COLLIDING = """
    name: colliding
    tools:
      - name: todo.add
        description: Add a todo.
        x-python-name: todo_add_dotted
        parameters: {type: object, properties: {text: {type: string}}, required: [text]}
      - name: todo_add
        description: Add a todo, the other way.
        parameters: {type: object, properties: {n: {type: integer}}}
"""


def test_parse_takes_any_alias_and_reports_the_wire_name(
    catalog_from_yaml: Callable[[str], ModuleType],
) -> None:
    pkg = catalog_from_yaml(COLLIDING)
    assert pkg.PROVIDER_NAMES["openai"] == {"todo.add": "todo_add_2", "todo_add": "todo_add"}
    request = pkg.parse("todo_add_2", '{"text": "milk"}', "call_1")
    assert (request.tool_name, request.tool_call_id, request.values, request.warnings) == (
        "todo.add",
        "call_1",
        {"text": "milk"},
        (),
    )
    assert pkg.parse("todo_add", '{"n": "2"}').tool_name == "todo_add"
    assert pkg.parse("todo.add", '{"text": "x"}').tool_name == "todo.add"
    unknown = pkg.parse("todo_add_3", "{}")
    assert unknown.warnings == ("tool_definition_missing",)


def test_a_collision_is_a_warning_naming_both_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(textwrap.dedent(COLLIDING), encoding="utf-8")
    result = build([tmp_path / "c.yaml"])
    collisions = [str(w) for w in result.warnings if "already has" in w.message]
    assert collisions == [
        (
            "c.yaml:4: warning CG109: tools[0].name: the openai, anthropic name of tool 'todo.add' would be"
            " 'todo_add', which tool 'todo_add' already has: sent as 'todo_add_2' (PROVIDER_NAMES;"
            " `parse` takes either)"
        )
    ]

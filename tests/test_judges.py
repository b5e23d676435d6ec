"""The judges of model text (issue 18): other projects' own test cases, vendored as data in
tests/judges/ with their licences. For each case codegen gives that project's value, or refuses
with a code; a different value given silently is a failure.

- json_repair: the text of each case as one call's arguments (`decode_arguments`, the path of
  every `parse_<tool>`): the same object, or an error code.
- vLLM and SGLang tool parsers: each model output through `parse_reply`: the same calls (name and
  arguments) in order, or some of them refused (a problem, or a call with errors), none other.
- llama.cpp's chat parser and Ollama's tool parser (issue 37): the same, through a catalog of the
  tools their tests declare, where a call of a tool the catalog does not hold counts as refused;
  the few cases where we give a call they do not are listed, each with its reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent
JUDGES = ROOT / "tests" / "judges"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("judges"))


def cases(judge: str) -> list[dict[str, Any]]:
    data = json.loads((JUDGES / judge / "cases.json").read_text(encoding="utf-8"))
    assert (JUDGES / judge / "LICENSE").is_file()
    found: list[dict[str, Any]] = data["cases"]
    return found


def canon(value: object) -> str:
    """JSON text with sorted keys: equal only when equal as JSON, types and all (1 is not true)."""
    return json.dumps(value, sort_keys=True)


# An empty or blank arguments text is a call with no arguments, by design (OpenAI sends "" for a
# tool without parameters), where json_repair returns nothing: the one documented difference.
BLANK_IS_NO_ARGUMENTS = {"\n", " "}


def test_json_repair_cases_give_its_value_or_a_code(pkg: ModuleType) -> None:
    same, refused, differ = [], [], []
    for case in cases("json_repair"):
        text = case["input"]
        doc = pkg._runtime.decode_arguments(text)
        if doc.root is None or doc.errors:
            assert doc.errors, text  # a refusal always names its code
            refused.append(text)
        elif case["has_value"] and canon(doc.root) == canon(case["expected"]):
            same.append(text)
        elif text in BLANK_IS_NO_ARGUMENTS:
            assert doc.root == {} and doc.warnings == [] and doc.errors == []
        else:
            differ.append((text, case["expected"], doc.root))
    assert differ == []
    # Counted in bench/README.md; a rule that stops giving json_repair's value shows here.
    assert len(same) >= 40 and len(same) + len(refused) + len(BLANK_IS_NO_ARGUMENTS) == 198


def verdict(pkg: ModuleType, case: dict[str, Any], known_only: bool = False) -> str:
    """`known_only`: a call of a tool the catalog does not hold is refused (the suite's own
    tools are the catalog), not given."""
    batch = pkg.parse_reply(case["output"])
    given = [
        (call.tool_name, canon(call.values))
        for call in batch
        if not call.errors and (call.ok or not known_only)
    ]
    expected = [
        (call["name"], canon(call["arguments"]))
        for call in case["calls"]
        if call["arguments"] is not None
    ]
    if given == expected and len(expected) == len(case["calls"]):
        return "same"
    remaining = iter(expected)
    # Each call given is one expected, in order: the others were refused, with their codes.
    if all(call in remaining for call in given):
        refusals = len(batch.problems) + sum(
            1 for call in batch if call.errors or (known_only and not call.ok)
        )
        return "refused" if refusals else "lost"
    return "different"


@pytest.mark.parametrize(("judge", "least_same"), [("vllm", 61), ("sglang", 20)])
def test_tool_parser_cases_give_the_same_calls_or_refuse(
    pkg: ModuleType, judge: str, least_same: int
) -> None:
    verdicts = {(case["file"], case["id"]): verdict(pkg, case) for case in cases(judge)}
    assert [key for key, value in verdicts.items() if value in ("different", "lost")] == []
    assert sum(value == "same" for value in verdicts.values()) >= least_same


def suite_package(judge: str, out: Path) -> ModuleType:
    """The package of the tools a suite's tests declare (their parameters as given)."""
    data = json.loads((JUDGES / judge / "cases.json").read_text(encoding="utf-8"))
    empty = {"type": "object", "properties": {}}
    tools = [
        {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool.get("parameters", empty),
        }
        for tool in data["tools"]
    ]
    source = out / f"{judge}_judge.json"
    source.write_text(json.dumps({"name": f"{judge}_judge", "version": "1", "tools": tools}))
    return build_package(source, out / "package")


# Where we give a call the project gives none, on purpose: Ollama stops reading tool calls once
# an object is not one (`{"name": "jeff"}` names no tool); we read every call object of the reply
# (the one naming no tool of the catalog refused with `tool_definition_missing`), as issue 37's
# "no call dropped in silence" asks.
DIFFERENT_BY_DESIGN = {
    "ollama": {
        "json object followed by tool call",
        "json object followed by tool call split",
    },
    "llama_cpp": set(),
}


@pytest.mark.parametrize(("judge", "least_same"), [("ollama", 29), ("llama_cpp", 32)])
def test_suites_with_their_own_tools_give_the_same_calls_or_refuse(
    tmp_path: Path, judge: str, least_same: int
) -> None:
    """Issue 37 judges: llama.cpp's and Ollama's cases, through a catalog of their tools."""
    pkg = suite_package(judge, tmp_path)
    verdicts = {case["id"]: verdict(pkg, case, known_only=True) for case in cases(judge)}
    assert {key for key, value in verdicts.items() if value == "different"} == (
        DIFFERENT_BY_DESIGN[judge]
    )
    assert [key for key, value in verdicts.items() if value == "lost"] == []
    # Counted in bench/README.md.
    assert sum(value == "same" for value in verdicts.values()) >= least_same

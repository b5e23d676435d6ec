"""The prompts for models without native function calling: every tool listed, every example line
a call the generated parser takes without a word, and compact at 50 tools."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from bench.corpus import catalog as corpus_catalog
from codegen.build import build
from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent
CATALOGS = [
    *sorted((ROOT / "schemas").glob("*_tools.*")),
    *sorted((ROOT / "tests" / "fixtures").glob("*.yaml")),
]


def _prompts(pkg: ModuleType) -> dict[str, str]:
    folder = Path(pkg.__file__).parent / "prompts"  # type: ignore[arg-type]
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))}


def _example_lines(text: str) -> list[str]:
    """The example calls of the instructions, and each tool's example parameters as its call."""
    found, tool = [], ""
    for line in text.splitlines():
        if line.startswith("## "):
            tool = line[3:].split(" // ")[0]
        elif line.startswith('{"name":'):
            found.append(line)
        elif line.startswith("Example parameters: "):
            parameters = json.loads(line.removeprefix("Example parameters: "))
            found.append(json.dumps({"name": tool, "parameters": parameters}))
    return found


@pytest.mark.parametrize("source", CATALOGS, ids=lambda p: p.name)
def test_every_example_line_parses_with_no_warning(source: Path, tmp_path: Path) -> None:
    pkg = build_package(source, tmp_path)
    prompts = _prompts(pkg)
    assert sorted(prompts) == ["jsonl", "single_json"]
    assert prompts["jsonl"] == pkg.JSONL_PROMPT and prompts["single_json"] == pkg.SINGLE_JSON_PROMPT
    for name, text in prompts.items():
        lines = _example_lines(text)
        assert lines, name
        for line in lines:
            parse = pkg.parse_jsonl if name == "jsonl" else pkg.parse_single_json
            batch = parse(line)
            assert batch.problems == (), line
            ((call),) = batch.calls
            assert (call.warnings, call.errors) == ((), ()), line
            assert call.tool_name in pkg.TOOLS and call.arguments is not None


def test_the_prompt_lists_every_tool_and_parameter(tmp_path: Path) -> None:
    pkg = build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path)
    text = pkg.JSONL_PROMPT
    assert [m for m in re.findall(r"^## (\S*)", text, re.MULTILINE)] == list(pkg.TOOLS)
    section = text.split("\n## read_file")[1].split("\n\n")[0]
    assert section == (
        " // Read the text contents of a file in the workspace, optionally starting at a given line number.\n"
        'filePath: string >=1 chars example "README.md" // Workspace-relative or absolute path of the file to read.\n'
        "startLine?: integer|null >=1 // 1-based line number to start reading from; null or omitted reads from the beginning.\n"
        'encoding?: "utf-8"|"latin-1"|"ascii" ="utf-8" // Text encoding used to decode the file.'
    )
    # Nested parameters one space deeper, and the catalog's example parameters.
    section = text.split("\n## update_config")[1].split("\n\n")[0]
    assert section.splitlines()[1:] == [
        "settings: object // The configuration values to apply.",
        " timeout: integer >=0 // Request timeout in seconds; 0 disables the timeout.",
        " retries?: integer=3 // Number of times a failed request is retried.",
        ' mode?: "fast"|"safe"|"balanced" // Execution mode trading speed against safety checks.',
        " verbose?: boolean // Whether to emit detailed log output.",
        " retryPolicy?: object // How the delay between retries grows.",
        "  backoff?: number >0 // Multiplier applied to the delay after each failed attempt.",
        "  maxDelay?: integer // Upper bound on the delay between retries, in milliseconds.",
        "dryRun?: boolean=false // Validate the new settings and report the result without applying them.",
        'Example parameters: {"settings":{"timeout":30,"mode":"safe"},"dryRun":true}',
    ]
    # The line format: the keys, and example lines with call ids.
    head = text.split("\nTools:\n")[0]
    for key in ('"name"', '"parameters"', '"call_id"', '"error"'):
        assert key in head
    assert '"call_id":"call_1"}' in head and '"call_id":"call_2"}' in head


def test_the_single_json_prompt_says_object_or_array(tmp_path: Path) -> None:
    pkg = build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path)
    head = pkg.SINGLE_JSON_PROMPT.split("\nTools:\n")[0]
    assert "one JSON object" in head and "JSON array" in head and '"error"' in head
    assert pkg.SINGLE_JSON_PROMPT.split("\nTools:\n")[1] == pkg.JSONL_PROMPT.split("\nTools:\n")[1]


def test_a_hostile_catalog_cannot_break_the_prompt_lines(tmp_path: Path) -> None:
    pkg = build_package(ROOT / "tests" / "fixtures" / "hostile.yaml", tmp_path)
    for line in pkg.JSONL_PROMPT.split("\n"):
        # Every parameter is one line: no catalog text opens a new one.
        assert line.isprintable(), repr(line)


def test_a_50_tool_prompt_is_compact(tmp_path: Path) -> None:
    source = tmp_path / "fifty.json"
    source.write_text(json.dumps(corpus_catalog(50)), encoding="utf-8")
    files = build([source], root=tmp_path).files
    text = files["bench_tools/prompts/jsonl.txt"]
    assert text.count("\n## ") == 50
    # Measured: 13,841 characters (21,003 before the TypeScript-like lines, 14,528 before nested
    # parameters were indented instead of written as paths, 14,092 before compact JSON and
    # `=default`; tokens: bench_prompt.py).
    assert len(text) < 14_500
    assert re.search(r"\S  ", text) is None  # no padding or alignment

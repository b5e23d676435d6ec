"""Provider payloads: every payload of every bundled catalog is accepted by the provider's own SDK
type with every key kept, the constants are the files, loaded lazily, and the whole-call examples
are checked at build time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from codegen.build import BuildResult, build, check_catalogs, find_sources
from codegen.cache import BuildCache
from codegen.diagnostics import CatalogError
from codegen.memo import Memo
from codegen.outputs import PAYLOAD_FILES, PAYLOADS_DIR
from codegen.package_files import Files
from codegen.payloads.files import indented_json, json_file, payload_files, payloads
from codegen.python.namespace import package_names
from codegen.python.render import package_bound
from codegen.tool_outputs import findings, output_jobs, tool_outputs

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
BUNDLED = sorted(p.name for p in GENERATED.iterdir() if (p / "payloads").is_dir())


def load(catalog: str, constant: str) -> Any:
    text = (GENERATED / catalog / "payloads" / PAYLOAD_FILES[constant]).read_text(encoding="utf-8")
    return json.loads(text)


def kept_by_typed_dict(sdk_type: Any, entry: dict[str, Any]) -> None:
    """Validates, and keeps every key: a TypedDict adapter drops unknown keys without a word."""
    kept = TypeAdapter(sdk_type).validate_python(entry)
    assert kept == entry


def kept_by_model(model: Any, entry: dict[str, Any]) -> None:
    kept = model.model_validate(entry).model_dump(by_alias=True, exclude_unset=True, mode="json")
    assert kept == entry


@pytest.mark.parametrize("catalog", BUNDLED)
def test_openai_chat_payloads_are_sdk_tool_params(catalog: str) -> None:
    from openai.types.chat import ChatCompletionFunctionToolParam

    for constant in ("OPENAI_TOOLS", "OPENAI_STRICT_TOOLS"):
        for entry in load(catalog, constant):
            kept_by_typed_dict(ChatCompletionFunctionToolParam, entry)
            assert ("strict" in entry["function"]) == (constant == "OPENAI_STRICT_TOOLS")


@pytest.mark.parametrize("catalog", BUNDLED)
def test_openai_responses_payloads_are_sdk_function_tools(catalog: str) -> None:
    from openai.types.responses import FunctionToolParam

    for entry in load(catalog, "OPENAI_RESPONSES_TOOLS"):
        kept_by_typed_dict(FunctionToolParam, entry)
        assert entry["strict"] is True


@pytest.mark.parametrize("catalog", BUNDLED)
def test_anthropic_payloads_are_sdk_tool_params(catalog: str) -> None:
    from anthropic.types import ToolParam

    for constant in ("ANTHROPIC_TOOLS", "ANTHROPIC_STRICT_TOOLS"):
        for entry in load(catalog, constant):
            # input_examples is an Iterable there, which the adapter turns into an iterator.
            kept = dict(TypeAdapter(ToolParam).validate_python(entry))
            if "input_examples" in kept:
                kept["input_examples"] = list(kept["input_examples"])
            assert kept == entry
            assert ("strict" in entry) == (constant == "ANTHROPIC_STRICT_TOOLS")


@pytest.mark.parametrize("catalog", BUNDLED)
@pytest.mark.parametrize("constant", ["GEMINI_TOOLS", "GEMINI_LEGACY_TOOLS"])
def test_gemini_payloads_are_sdk_function_declarations(catalog: str, constant: str) -> None:
    from google.genai.types import FunctionDeclaration

    for entry in load(catalog, constant):
        kept_by_model(FunctionDeclaration, entry)


@pytest.mark.parametrize("catalog", BUNDLED)
def test_mcp_payloads_are_sdk_tools(catalog: str) -> None:
    from mcp.types import Tool

    for entry in load(catalog, "MCP_TOOLS"):
        kept_by_model(Tool, entry)


def test_the_formats_of_one_tool() -> None:
    """memory.search, in every format: the shapes SPEC §4 names, in their key order."""
    chat = load("memory_tools", "OPENAI_TOOLS")[0]
    assert list(chat) == ["type", "function"]
    assert list(chat["function"]) == ["name", "description", "parameters"]
    assert chat["function"]["name"] == "memory_search"
    assert chat["function"]["parameters"]["properties"]["limit"]["default"] == 3
    strict = load("memory_tools", "OPENAI_STRICT_TOOLS")[0]["function"]
    assert list(strict) == ["name", "description", "parameters", "strict"]
    assert strict["parameters"]["properties"]["limit"] == {
        "type": ["integer", "null"],
        "description": "Maximum number of passages to return. Default: 3.",
        "minimum": 1,
        "maximum": 50,
    }
    responses = load("memory_tools", "OPENAI_RESPONSES_TOOLS")[0]
    assert list(responses) == ["type", "name", "description", "parameters", "strict"]
    assert responses["parameters"] == strict["parameters"]
    assert list(load("memory_tools", "ANTHROPIC_TOOLS")[0]) == [
        "name",
        "description",
        "input_schema",
    ]
    anthropic = load("memory_tools", "ANTHROPIC_TOOLS")[3]
    assert list(anthropic) == ["name", "description", "input_schema", "input_examples"]
    assert anthropic["input_examples"] == [
        {"settings": {"timeout": 30, "mode": "safe"}, "dryRun": True},
        {"settings": {"timeout": 0, "retryPolicy": {"backoff": 2.0, "maxDelay": 60000}}},
    ]
    gemini = load("memory_tools", "GEMINI_TOOLS")[0]
    assert list(gemini) == ["name", "description", "parametersJsonSchema"]
    assert gemini["name"] == "memory.search"
    assert load("memory_tools", "GEMINI_LEGACY_TOOLS")[0]["parameters"]["properties"]["limit"] == {
        "type": "INTEGER",
        "description": "Maximum number of passages to return.",
        "minimum": 1,
        "maximum": 50,
        "default": 3,
    }
    mcp = load("memory_tools", "MCP_TOOLS")[0]
    assert list(mcp) == ["name", "title", "description", "inputSchema"]
    assert (mcp["name"], mcp["title"]) == ("memory.search", "Search memory")
    mcp = load("memory_tools", "MCP_TOOLS")[3]
    assert list(mcp) == ["name", "title", "description", "inputSchema", "annotations"]
    assert mcp["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert load("memory_tools", "PROVIDER_NAMES")["openai"]["memory.search"] == "memory_search"


def test_a_tool_without_parameters_has_none_in_gemini_legacy() -> None:
    entry = next(
        e for e in load("calendar_tools", "GEMINI_LEGACY_TOOLS") if e["name"] == "list_calendars"
    )
    assert entry == {
        "name": "list_calendars",
        "description": entry["description"],
    }


def test_no_catalog_extension_reaches_a_provider() -> None:
    def keys(value: Any) -> set[str]:
        if isinstance(value, dict):
            return set(value).union(*(keys(v) for v in value.values()))
        if isinstance(value, list):
            return set().union(*(keys(v) for v in value))
        return set()

    for catalog in BUNDLED:
        for constant in PAYLOAD_FILES:
            found = keys(load(catalog, constant))
            assert not [k for k in found if k.startswith("x-")], (catalog, constant)


def test_the_constants_are_the_files_and_load_lazily() -> None:
    code = textwrap.dedent("""
        import json, sys
        import generated.memory_tools as pkg
        before = sorted(m for m in sys.modules if m.startswith("generated.memory_tools"))
        tools = pkg.OPENAI_TOOLS
        from generated.memory_tools import PROVIDER_NAMES, MCP_TOOLS
        after = sorted(m for m in sys.modules if m.startswith("generated.memory_tools"))
        print(json.dumps([before == after, "openai" in sys.modules, pkg.OPENAI_TOOLS is tools,
                          tools, PROVIDER_NAMES, MCP_TOOLS]))
        """)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    same_modules, sdk_loaded, cached, tools, names, mcp = json.loads(result.stdout)
    assert (same_modules, sdk_loaded, cached) == (True, False, True)
    assert tools == load("memory_tools", "OPENAI_TOOLS")
    assert names == load("memory_tools", "PROVIDER_NAMES")
    assert mcp == load("memory_tools", "MCP_TOOLS")


def test_payload_files_are_in_the_build_and_deterministic(schemas_built: BuildResult) -> None:
    # The session's build of schemas/ (conftest.schemas_built) against a second one in this
    # process: a build leaves nothing behind that changes the next.
    first = schemas_built
    second = build([ROOT / "schemas"], ROOT)
    payloads = {p: t for p, t in first.files.items() if "/payloads/" in p}
    assert sorted(payloads) == sorted(
        f"{catalog}/payloads/{file}" for catalog in BUNDLED for file in PAYLOAD_FILES.values()
    )
    assert payloads == {p: t for p, t in second.files.items() if "/payloads/" in p}
    for path, text in payloads.items():
        assert text == (GENERATED / path).read_text(encoding="utf-8")


# -- whole-call examples ---------------------------------------------------------------------

EXAMPLES = """\
name: examples
tools:
  - name: count.things
    description: Count things.
    examples:
      - {n: 5}
      - {n: "5"}
      - {n: 5, extra: true}
      - {}
    parameters:
      type: object
      properties:
        n: {type: integer}
      required: [n]
"""


def test_an_example_that_does_not_parse_cleanly_is_a_build_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples.yaml").write_text(EXAMPLES, encoding="utf-8")
    with pytest.raises(CatalogError) as failure:
        build([Path("examples.yaml")])
    errors = [str(d) for d in failure.value.diagnostics if d.level == "error"]
    prefix = "example does not parse cleanly with the tool's parser:"
    assert errors == [
        f"examples.yaml:7: tools[0].examples[1]: {prefix} string_literal_converted_to_integer:n",
        f"examples.yaml:8: tools[0].examples[2]: {prefix} unknown_parameter:extra",
        f"examples.yaml:9: tools[0].examples[3]: {prefix} missing_required:n",
    ]


def test_examples_and_annotations_in_the_catalog_format(
    catalog_from_yaml: Callable[[str], ModuleType],
) -> None:
    pkg = catalog_from_yaml("""
        name: hinted
        tools:
          - name: look
            title: Look
            description: Look around.
            annotations: {readOnlyHint: true, idempotentHint: true}
            examples: [{where: north}]
            parameters: {type: object, properties: {where: {type: string}}}
        """)
    assert pkg.MCP_TOOLS[0]["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
    assert pkg.ANTHROPIC_TOOLS[0]["input_examples"] == [{"where": "north"}]


def test_annotation_keys_beyond_the_hints_go_to_mcp_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(
        "name: a\ntools:\n  - name: t\n    description: d\n"
        "    annotations: {readOnly: true, title: Tee, x-server: [1], openWorldHint: 'False'}\n"
        "    parameters: {type: object}\n",
        encoding="utf-8",
    )
    result = build([Path("a.yaml")])
    assert [str(d) for d in result.warnings if d.code != "CG201"] == [
        "a.yaml:5: warning CG102: tools[0].annotations.openWorldHint: `openWorldHint: 'False'` read as false",
    ]
    mcp = json.loads(result.files["a/payloads/mcp.json"])
    assert mcp[0]["annotations"] == {
        "readOnly": True,
        "title": "Tee",
        "x-server": [1],
        "openWorldHint": False,
    }


def test_files_joined_from_each_tools_entries_are_the_json_of_the_whole_lists(
    tmp_path: Path,
) -> None:
    # payload_files joins each tool's entry text (cached by the pipeline); the bytes must be
    # json_file's of the list, and the findings those of the whole transform.
    catalogs, _ = check_catalogs(find_sources([ROOT / "schemas"]), ROOT)
    for catalog in catalogs:
        values, warnings = payloads(catalog)
        whole = {
            f"{catalog.name}/{PAYLOADS_DIR}/{file}": json_file(values[name])
            for name, file in PAYLOAD_FILES.items()
        }
        cache = BuildCache(tmp_path / "cache")
        for _ in range(2):  # made, then every tool's output from the catalog's memo
            memo = Memo(cache, catalog.source)
            jobs = output_jobs(catalog, package_names(catalog, package_bound()))
            outputs = tool_outputs(jobs, memo)
            joined = payload_files(catalog, [output.entries for output in outputs])
            assert Files(joined.items()) == whole  # the bytes of the text
            assert findings(catalog, outputs) == warnings
            memo.save()
        assert len(memo.stored) == len(catalog.tools)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.sampled_from(["", "  ", "    "]))
def test_indented_json_writes_the_bytes_json_dumps_writes(value: Any, margin: str) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    assert indented_json(value, margin) == text.replace("\n", "\n" + margin)
    assert json_file(value) == text + "\n"

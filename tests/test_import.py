"""`codegen import`: tool lists in every provider's format, and loose ones, become catalogs that build.

`tests/importing/<case>.json` is shaped like the real thing (the providers' documented examples, an
MCP `tools/list` response, a function-calling dataset's dialect); `<case>.yaml` is the exact catalog
the import writes and `<case>.notes` what it says on the way.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, build_package, run_cli

from codegen.catalog.load import load_catalog
from codegen.importers import UnreadableToolList, import_tools

IMPORTING = ROOT / "tests" / "importing"
CASES = {
    "openai_chat": "openai",
    "openai_responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "mcp": "mcp",
    "loose": "loose",
}


@pytest.mark.parametrize("case", CASES)
def test_each_format_imports_exactly_and_is_detected(case: str, tmp_path: Path) -> None:
    out = tmp_path / f"{case}.yaml"
    done = run_cli("import", f"tests/importing/{case}.json", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == (IMPORTING / f"{case}.yaml").read_text(
        encoding="utf-8"
    )
    assert done.stderr == (IMPORTING / f"{case}.notes").read_text(encoding="utf-8")
    assert f"({CASES[case]})" in done.stderr.splitlines()[-1]
    # The same with the format named instead of detected.
    named = run_cli("import", f"tests/importing/{case}.json", "--from", CASES[case])
    assert named.stdout == out.read_text(encoding="utf-8")


def test_a_tool_list_saved_with_a_byte_order_mark_imports_as_without(tmp_path: Path) -> None:
    # An MCP reply saved by a Windows tool (PowerShell 5's `Out-File -Encoding utf8`): a byte order
    # mark first, CRLF line ends; the catalog the import writes is the same (and builds the same:
    # tests/test_load.py).
    sent = tmp_path / "mcp.json"
    text = (IMPORTING / "mcp.json").read_text(encoding="utf-8").replace("\n", "\r\n")
    sent.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    done = run_cli("import", str(sent), "--name", "mcp")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (IMPORTING / "mcp.yaml").read_text(encoding="utf-8")
    assert done.stderr == (IMPORTING / "mcp.notes").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_what_is_written_reads_back_as_what_was_imported(case: str) -> None:
    document = json.loads((IMPORTING / f"{case}.json").read_text(encoding="utf-8"))
    catalog, _, _ = import_tools(document, name=case)
    assert load_catalog(IMPORTING / f"{case}.yaml", ROOT).data == catalog


@pytest.mark.parametrize("case", CASES)
def test_an_imported_catalog_builds_with_the_schema_as_imported(case: str, tmp_path: Path) -> None:
    package = build_package(IMPORTING / f"{case}.yaml", tmp_path)
    name = next(iter(package.TOOLS))
    assert (
        package.TOOLS[name].schema
        == load_catalog(IMPORTING / f"{case}.yaml", ROOT).data["tools"][0]["parameters"]
    )


def test_a_tool_without_a_description_is_left_for_a_person_to_describe() -> None:
    """Issue 34 item 2: the imported catalog builds; the missing description is a warning (CG113)
    that `--strict` refuses."""
    done = run_cli("validate", "tests/importing/loose.yaml")
    assert done.returncode == 0, done.stderr
    assert (
        "tests/importing/loose.yaml:29: warning CG113: tools[1].description: no description: the "
        "model chooses tools by their descriptions (write one)"
    ) in done.stderr.splitlines()
    assert run_cli("validate", "tests/importing/loose.yaml", "--strict").returncode == 1


def test_loose_dialects_become_json_schema() -> None:
    catalog, fmt, notes = import_tools(
        json.loads((IMPORTING / "loose.json").read_text(encoding="utf-8")), name="loose"
    )
    assert fmt == "loose"
    parameters = catalog["tools"][0]["parameters"]
    assert parameters["type"] == "object"
    assert {k: v.get("type") for k, v in parameters["properties"].items()} == {
        "base": "integer",
        "height": "number",
        "unit": "string",
        "vertices": "array",
        "metadata": "object",
        "extra": None,
    }
    assert parameters["required"] == ["base", "height", "metadata"]
    assert len(notes) == 11


def test_provider_aliases_become_wire_names_again(tmp_path: Path) -> None:
    sent = {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "memory_search",
                    "description": "Find passages in the memory store.",
                    "parameters": {"type": "object", "properties": {}},
                },
            }
        ]
    }
    (tmp_path / "sent.json").write_text(json.dumps(sent), encoding="utf-8")
    names = {
        "openai": {"memory.search": "memory_search"},
        "mcp": {"memory.search": "memory.search"},
    }
    (tmp_path / "provider_names.json").write_text(json.dumps(names), encoding="utf-8")
    done = run_cli(
        "import", "sent.json", "--names", "provider_names.json", "--name", "memory", cwd=tmp_path
    )
    assert done.returncode == 0
    assert "- name: memory.search\n" in done.stdout
    assert "warning: tools[0].name: 'memory_search' is the alias of 'memory.search'" in done.stderr


@pytest.mark.parametrize("document", [42, "text", {"nothing": []}])
def test_a_document_without_a_tool_list_is_a_usage_error(document: object, tmp_path: Path) -> None:
    with pytest.raises(UnreadableToolList):
        import_tools(document)
    (tmp_path / "x.json").write_text(json.dumps(document), encoding="utf-8")
    done = run_cli("import", "x.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("codegen: x.json: ")


def test_an_openai_request_from_before_tools_imports_its_functions(tmp_path: Path) -> None:
    # OpenAI's own function-calling example of June 2023: `functions`, each a bare function.
    request = {
        "model": "gpt-3.5-turbo-0613",
        "messages": [{"role": "user", "content": "What's the weather like in Boston?"}],
        "functions": [
            {
                "name": "get_current_weather",
                "description": "Get the current weather in a given location",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string", "description": "The city and state"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    },
                    "required": ["location"],
                },
            }
        ],
        "function_call": "auto",
    }
    (tmp_path / "request.json").write_text(json.dumps(request), encoding="utf-8")
    done = run_cli("import", "request.json", "-o", "catalog.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "codegen: imported 1 tool (loose) with 0 changes"
    catalog = yaml.safe_load((tmp_path / "catalog.yaml").read_text(encoding="utf-8"))
    (tool,) = catalog["tools"]
    assert tool["name"] == "get_current_weather"
    assert tool["parameters"] == request["functions"][0]["parameters"]  # type: ignore[index]


WEATHER = {
    "type": "object",
    "properties": {"location": {"type": "string"}},
    "required": ["location"],
}
WEATHER_TOOL = {"description": "The weather.", "parameters": WEATHER}
# Tool lists as the providers' own documentation writes them, a function among the tools the
# provider runs (or, OpenAI's `custom`, one that takes free text): each leads its list.
BESIDE_BUILT_INS = {
    "openai": [
        {"type": "custom", "custom": {"name": "code_exec", "description": "Run Python."}},
        {"type": "function", "function": {"name": "get_weather", **WEATHER_TOOL}},
    ],
    "openai-responses": [
        {"type": "web_search_preview"},
        {"type": "file_search", "vector_store_ids": ["vs_1"], "max_num_results": 20},
        {"type": "function", "name": "get_weather", **WEATHER_TOOL, "strict": True},
    ],
    "anthropic": [
        {"type": "bash_20250124", "name": "bash"},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        {"name": "get_weather", "description": "The weather.", "input_schema": WEATHER},
    ],
    "gemini": {
        "tools": [
            {"googleSearch": {}},
            {"functionDeclarations": [{"name": "get_weather", **WEATHER_TOOL}]},
        ]
    },
}


@pytest.mark.parametrize("fmt", BESIDE_BUILT_INS)
def test_a_providers_own_tools_are_left_out_and_said(fmt: str) -> None:
    document = BESIDE_BUILT_INS[fmt]
    catalog, detected, notes = import_tools(document)
    assert detected == fmt  # told by the function, whatever comes before it
    assert [tool["name"] for tool in catalog["tools"]] == ["get_weather"]
    assert catalog["tools"][0]["parameters"] == WEATHER
    tools = document["tools"] if isinstance(document, dict) else document
    said = (
        "is no function with a JSON schema (a tool the provider runs, or one that takes free text)"
    )
    kinds = [
        f"`{next(iter(t))}`" if fmt == "gemini" else f"`type: {t['type']}`" for t in tools[:-1]
    ]
    assert list(notes) == [f"tools[{i}]: {k} {said}: left out" for i, k in enumerate(kinds)]


# Rows of Salesforce's xlam-function-calling-60k as the dataset has them: parameters as a map of
# properties alone (one of them named `type`), Python's types, `, optional` in the type.
XLAM = [
    {
        "name": "live_giveaways_by_type",
        "description": "Retrieve live giveaways from the GamerPower API based on the specified type.",
        "parameters": {
            "type": {
                "description": "The type of giveaways to retrieve (e.g., game, loot, beta).",
                "type": "str",
                "default": "game",
            }
        },
    },
    {
        "name": "video_post_comments",
        "description": "Fetches comments for a specified video post.",
        "parameters": {
            "aweme_id": {"description": "The ID of the video.", "type": "int"},
            "cursor": {"description": "The cursor.", "type": "int, optional", "default": "0"},
            "nums": {"description": "Numbers.", "type": "List[int]"},
            "weights": {"description": "Weights.", "type": "Dict[str, float], optional"},
            "note": {"description": "A note.", "type": "Optional[str]"},
        },
    },
]


def test_xlam_rows_import_as_the_objects_they_mean(tmp_path: Path) -> None:
    catalog, fmt, notes = import_tools(XLAM)
    assert fmt == "loose"
    first, second = (tool["parameters"] for tool in catalog["tools"])
    assert first == {
        "type": "object",
        "properties": {"type": {**XLAM[0]["parameters"]["type"], "type": "string"}},  # type: ignore[dict-item]
        "required": ["type"],
    }
    assert second["required"] == ["aweme_id", "nums", "note"]
    assert {
        name: {k: v for k, v in p.items() if k != "description"}
        for name, p in second["properties"].items()
    } == {
        "aweme_id": {"type": "integer"},
        "cursor": {"type": "integer", "default": "0"},
        "nums": {"type": "array", "items": {"type": "integer"}},
        "weights": {"type": "object", "additionalProperties": {"type": "number"}},
        "note": {"type": ["string", "null"]},
    }
    assert "tools[0].parameters: a map of properties alone, as xLAM's datasets write it" in notes[0]
    # The catalog builds, and its parser reads what a model sends these tools.
    source = tmp_path / "xlam.yaml"
    source.write_text(yaml.safe_dump(catalog, sort_keys=False), encoding="utf-8")
    done = run_cli("build", "xlam.yaml", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_what_a_catalog_has_no_place_for_is_left_out_and_said() -> None:
    # The Berkeley leaderboard's `response` is the result schema; a proxy's `source`, Anthropic's
    # `cache_control` and OpenAI's `strict` are about a request, not the tool.
    bfcl = {
        "name": "cat",
        "description": "Display a file.",
        "parameters": {"type": "object", "properties": {"file_name": {"type": "string"}}},
        "response": {"type": "object", "properties": {"file_content": {"type": "string"}}},
        "source": "read_graph",
    }
    catalog, _, notes = import_tools([bfcl])
    assert catalog["tools"][0]["returns"] == bfcl["response"]
    assert list(notes) == [
        "tools[0].source: has no place in a catalog: left out",
        "tools[0].response: `response` read as `returns`: the result's schema",
    ]
    anthropic = {**WEATHER_TOOL, "name": "w", "cache_control": {"type": "ephemeral"}}
    anthropic["input_schema"] = anthropic.pop("parameters")
    _, fmt, notes = import_tools([anthropic])
    assert fmt == "anthropic"
    assert list(notes) == ["tools[0].cache_control: has no place in a catalog: left out"]
    chat = {"type": "function", "function": {**WEATHER_TOOL, "name": "w", "strict": True, "x": 1}}
    _, fmt, notes = import_tools([chat])
    assert fmt == "openai"
    assert list(notes) == ["tools[0].function.x: has no place in a catalog: left out"]


@pytest.mark.parametrize("source", ["memory_tools.yaml", "calendar_tools.yaml", "http_tools.json"])
def test_a_catalogs_own_tools_import_as_they_are(source: str) -> None:
    # A catalog is a tool list too: its tools' titles, annotations, examples and result schemas
    # are kept (they were dropped, unsaid), and nothing is changed.
    text = (ROOT / "schemas" / source).read_text(encoding="utf-8")
    catalog = yaml.safe_load(text) if source.endswith(".yaml") else json.loads(text)
    imported, fmt, notes = import_tools(catalog, name=catalog["name"])
    assert (fmt, list(notes)) == ("loose", [])
    assert imported["tools"] == catalog["tools"]


# ---------------------------------------------------------------------------------------------
# Three hundred definitions with every kind of dirt of the wild, in one run

DIRTY_TYPES = [
    "dict",
    "float",
    "double",
    "long",
    "tuple",
    "any",
    "String",
    "HashMap",
    "int",
    "bool",
]


def wild_definitions(count: int, seed: int = 4) -> list[dict[str, object]]:
    rng = random.Random(seed)
    tools: list[dict[str, object]] = []
    for i in range(count):
        # Every fifth tool collides with the one before by case or a dot.
        name = f"tool_{i}" if i % 5 else f"Tool.{i - 1 if i else 0}"
        properties: dict[str, object] = {}
        for j in range(rng.randint(1, 5)):
            kind = rng.choice(DIRTY_TYPES)
            prop: dict[str, object] = {"type": kind, "description": f"Parameter {j}."}
            if kind in ("tuple",):
                prop["items"] = {"type": "long"}
            if rng.random() < 0.3:
                prop[rng.choice(["required", "optional"])] = rng.random() < 0.5
            if kind == "bool" and rng.random() < 0.5:
                prop["default"] = rng.choice(["false", "True", "yes"])
            if kind in ("int", "long") and rng.random() < 0.5:
                prop["default"] = rng.choice(["5", "dontcare", 2.0])
            properties[f"p{j}" if j % 3 else f"P{j}"] = prop
        if rng.random() < 0.2:
            properties["Content-Type"] = {"type": "String", "description": "Header."}
            properties["content_type"] = {"type": "String", "description": "Stored."}
        tools.append(
            {
                "name": name,
                "description": f"Tool number {i}, from a dataset.",
                "parameters": {"type": "dict", "properties": properties, "required": []},
            }
        )
    return tools


def test_three_hundred_dirty_definitions_import_and_build_in_one_run(tmp_path: Path) -> None:
    (tmp_path / "wild.json").write_text(json.dumps(wild_definitions(300)), encoding="utf-8")
    imported = run_cli("import", "wild.json", "-o", "wild.yaml", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    built = run_cli("build", "wild.yaml", "--out", "out", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    summary = built.stderr.splitlines()
    assert "codegen: `codegen validate` lists every one of them" in summary
    kinds = "\n".join(summary)
    for what in ("becomes Python name", "read as", "the parameter has no default"):
        assert what in kinds
    strict = run_cli("build", "wild.yaml", "--out", "strict", "--strict", cwd=tmp_path)
    assert strict.returncode == 1 and not (tmp_path / "strict").exists()
    package = build_package(tmp_path / "wild.yaml", tmp_path / "pkg")
    assert len(package.TOOLS) == 300
    request = package.parse("tool_1", {})
    assert request.tool_name == "tool_1" and request.errors == ()


# ---------------------------------------------------------------------------------------------
# Python functions: docstrings in the Google, NumPy and reST styles, annotations as schemas


def test_python_functions_import_exactly() -> None:
    done = run_cli("import", "shop", "--from", "python", cwd=IMPORTING)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (IMPORTING / "shop.yaml").read_text(encoding="utf-8")
    assert done.stderr == (IMPORTING / "shop.notes").read_text(encoding="utf-8")


def test_one_function_by_name_and_an_unknown_one(tmp_path: Path) -> None:
    done = run_cli("import", "shop:refund", "--from", "python", cwd=IMPORTING)
    assert done.returncode == 0
    assert [line for line in done.stdout.splitlines() if line.startswith("- name:")] == [
        "- name: refund"
    ]
    missing = run_cli("import", "shop:nothing", "--from", "python", cwd=IMPORTING)
    assert (missing.returncode, missing.stderr) == (
        2,
        "codegen: shop:nothing: 'shop' has no function 'nothing'\n",
    )


def test_imported_functions_build_into_parsers_that_fit_them(tmp_path: Path) -> None:
    package = build_package(IMPORTING / "shop.yaml", tmp_path)
    request = package.parse(
        "place_order",
        {
            "item": "A-1",
            "quantity": "2",
            "speed": "EXPRESS",
            "address": {"street": "x", "city": "y"},
        },
    )
    assert request.errors == ()
    assert request.warnings == (
        "string_literal_converted_to_integer:quantity",
        "enum_case_normalized:speed",
    )
    assert request.values["address"] == {"street": "x", "city": "y", "country": "NL"}
    refund = package.parse("refund", {"order_id": 7, "amount": {"amount": 5}, "reason": "late"})
    assert refund.errors == ("missing_required:amount.currency",)
    assert package.parse("deliveries", {"since": "2026-11-01"}).values["limit"] == 20


# ---------------------------------------------------------------------------------------------
# Round trips: a payload a build emitted, imported and built again, is the same payload


PAYLOADS = (
    "openai_chat",
    "openai_chat_strict",
    "openai_responses",
    "anthropic",
    "gemini",
    "gemini_legacy",
    "mcp",
)


@pytest.mark.parametrize("catalog", ["memory_tools", "http_tools", "calendar_tools"])
def test_each_payload_comes_back_the_same_through_import_and_build(
    catalog: str, tmp_path: Path
) -> None:
    emitted = ROOT / "generated" / catalog / "payloads"
    for payload in PAYLOADS:
        imported = run_cli(
            "import",
            str(emitted / f"{payload}.json"),
            "--names",
            str(emitted / "provider_names.json"),
            "--name",
            catalog,
            "-o",
            str(tmp_path / f"{payload}.yaml"),
        )
        assert imported.returncode == 0, imported.stderr
        out = tmp_path / f"out_{payload}"
        built = run_cli("build", str(tmp_path / f"{payload}.yaml"), "--out", str(out))
        assert built.returncode == 0, built.stderr
        again = json.loads((out / catalog / "payloads" / f"{payload}.json").read_text("utf-8"))
        assert again == json.loads((emitted / f"{payload}.json").read_text("utf-8")), payload

"""Every real catalog builds (SPEC §2): the build refuses only what it cannot generate, reads the
rest by its plain meaning or reports it, each finding with its level and code.

MCP replies in real servers' styles (tests/fixtures/mcp/README.md) build and give back every field
in MCP_TOOLS; dataset-shaped catalogs with each form of `optional`/`required` build; a key one or
two letters from a keyword says which one; `[tool.codegen]` silences codes and chooses providers;
the bundled catalogs build without a warning.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from conftest import FIXTURES, ROOT, build_package
from test_invalid_catalogs import diagnostic_lines, run_codegen

from codegen.build import build
from codegen.catalog.wild import misspelt
from codegen.diagnostics import CODES

MCP = FIXTURES / "mcp"


def reply_tools(path: Path) -> list[dict[str, object]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    tools: list[dict[str, object]] = document.get("result", document)["tools"]
    return tools


@pytest.mark.parametrize("server", ["go_server", "python_server", "typescript_server"])
def test_an_mcp_reply_builds_and_mcp_tools_gives_it_back(server: str, tmp_path: Path) -> None:
    source = MCP / f"{server}.json"
    result = build([source], ROOT)
    # The one loss: the open `filter` of the TypeScript style cannot be open in strict mode,
    # OpenAI's or Anthropic's.
    lost = [
        ("tools[0].parameters.properties.filter.additionalProperties", "Anthropic strict"),
        ("tools[0].parameters.properties.filter.additionalProperties", "OpenAI strict"),
    ]
    assert [(d.path, d.message.split(":")[0]) for d in result.warnings if d.level != "note"] == (
        lost if server == "typescript_server" else []
    )
    assert all(d.code == "CG202" for d in result.warnings if d.level != "note")
    assert json.loads(result.files[f"{server}/payloads/mcp.json"]) == reply_tools(source)


def test_python_sdk_tools_dumped_with_their_nulls_build(tmp_path: Path) -> None:
    # `tool.model_dump()` of the Python SDK's `Tool`, without `exclude_none`: every field the tool
    # does not have is `null`, `annotations.title` too (opgg-mcp's, as real servers list them).
    tool = {
        "name": "echo",
        "title": None,
        "description": "Echo the message back.",
        "inputSchema": {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
        "outputSchema": None,
        "annotations": {"title": None, "readOnlyHint": True},
        "_meta": None,
        "icons": None,
    }
    source = tmp_path / "dumped.json"
    source.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    result = build([source], tmp_path)
    ignored = [(d.path, d.code) for d in result.warnings if d.level == "warning"]
    assert ignored == [
        ("tools[0]._meta", "CG103"),
        ("tools[0].annotations.title", "CG103"),
        ("tools[0].icons", "CG103"),
        ("tools[0].outputSchema", "CG103"),
        ("tools[0].title", "CG103"),
    ]
    # MCP_TOOLS gives back what the tool has: no field that was `null`.
    (sent,) = json.loads(result.files["dumped/payloads/mcp.json"])
    assert sent == {
        "name": "echo",
        "description": "Echo the message back.",
        "inputSchema": tool["inputSchema"],
        "annotations": {"readOnlyHint": True},
    }


def test_an_mcp_reply_is_read_as_a_catalog_named_after_its_file() -> None:
    result = build([MCP / "python_server.json"], ROOT)
    assert result.packages == ["python_server"]
    chat = json.loads(result.files["python_server/payloads/openai_chat.json"])
    assert [t["function"]["name"] for t in chat] == ["search_notes", "archive_note"]
    # Findings point at the reply's own lines (the JSON-RPC envelope is read through).
    anthropic, openai, null_default = [str(d) for d in result.warnings]
    assert anthropic.startswith(
        "tests/fixtures/mcp/python_server.json:14: note CG201: "
        "tools[0].parameters.properties.limit.default: Anthropic strict: default moved into the"
        " description"
    )
    assert openai.startswith(
        "tests/fixtures/mcp/python_server.json:14: note CG201: "
        "tools[0].parameters.properties.limit.default: OpenAI strict: default removed"
    )
    # A null default says nothing to OpenAI (as its SDK does); Anthropic's SDK writes it out.
    assert null_default.startswith(
        "tests/fixtures/mcp/python_server.json:15: note CG201: "
        "tools[0].parameters.properties.tag.default: Anthropic strict: default moved"
    )


DATASET = """\
name: dataset
tools:
  - name: rate_movie
    description: Rate a movie the user has watched.
    parameters:
      type: object
      properties:
        title: {type: string, description: The movie's title}
        rating: {type: number, description: Stars from 1 to 5}
        review: {type: string, description: A short review}
      optional: ["rating"]
  - name: list_genres
    description: List the genres of the catalog.
    parameters:
      type: object
      properties:
        language: {type: string, description: Language of the names}
        limit: {type: integer, description: How many to list}
      optional: []
  - name: find_flight
    description: Find flights between two airports.
    parameters:
      type: object
      properties:
        origin: {type: string, description: IATA code, required: "true"}
        destination: {type: string, description: IATA code, required: True}
        date: {type: string, description: Day of travel, optional: "True"}
        cabin: {type: string, description: Cabin class, optional: "false"}
        seats: {type: integer, description: Seats wanted, optional: true}
      required: [origin, origin]
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, list[str]]:
    folder = tmp_path_factory.mktemp("dataset")
    (folder / "dataset.yaml").write_text(DATASET, encoding="utf-8")
    done = run_codegen("validate", str(folder / "dataset.yaml"))
    assert done.returncode == 0, done.stderr
    lines = [line.split(": ", 1)[1] for line in diagnostic_lines(done.stderr)]
    return build_package(folder / "dataset.yaml", folder / "out"), lines


def test_every_dataset_form_of_optional_and_required_builds(
    dataset: tuple[ModuleType, list[str]],
) -> None:
    package, _ = dataset
    required = {tool["name"]: tool["inputSchema"].get("required", []) for tool in package.MCP_TOOLS}
    assert required == {
        "rate_movie": ["title", "review"],
        "list_genres": ["language", "limit"],
        "find_flight": ["origin", "destination", "cabin"],
    }
    parsed = package.parse("rate_movie", {"title": "Heat"})
    assert parsed.errors == ("missing_required:review",)
    assert package.parse("rate_movie", {"title": "Heat", "review": "Tense."}).errors == ()


def test_each_dataset_form_is_said_with_its_code(dataset: tuple[ModuleType, list[str]]) -> None:
    _, lines = dataset
    ours = [line for line in lines if "CG201" not in line]
    assert ours == [
        (
            "warning CG102: tools[0].parameters.optional: `optional: ['rating']` beside properties is "
            "not JSON Schema: read as optional 'rating', every other property is required (list the "
            "required names in `required` to say so)"
        ),
        (
            "warning CG102: tools[1].parameters.optional: `optional: []` beside properties is not JSON "
            "Schema: read as optional none, every other property is required (list the required "
            "names in `required` to say so)"
        ),
        (
            "warning CG102: tools[2].parameters.properties.origin.required: `required: 'true'` beside a "
            "property is not JSON Schema: read as required (list the name in the object's `required` "
            "to say so)"
        ),
        (
            "warning CG102: tools[2].parameters.properties.destination.required: `required: true` "
            "beside a property is not JSON Schema: read as required (list the name in the object's "
            "`required` to say so)"
        ),
        (
            "warning CG106: tools[2].parameters.properties.date: parameter 'date' becomes Python name"
            " 'date_', since 'date' is a name the generated class uses (set x-python-name to choose)"
        ),
        (
            "warning CG102: tools[2].parameters.properties.date.optional: `optional: 'True'` beside a "
            "property is not JSON Schema: read as optional (list the name in the object's "
            "`required` to say so)"
        ),
        (
            "warning CG102: tools[2].parameters.properties.cabin.optional: `optional: 'false'` beside a "
            "property is not JSON Schema: read as required (list the name in the object's "
            "`required` to say so)"
        ),
        (
            "warning CG102: tools[2].parameters.properties.seats.optional: `optional: true` beside a "
            "property is not JSON Schema: read as optional (list the name in the object's "
            "`required` to say so)"
        ),
        "warning CG102: tools[2].parameters.required: a name listed twice in `required`: read once",
    ]


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("requried", "required"),
        ("descripton", "description"),
        ("properites", "properties"),
        ("itmes", "items"),
        ("minlength", "minLength"),
        ("enmu", "enum"),
        ("colour", None),
        ("x-order", None),
        ("id", None),
    ],
)
def test_a_key_one_or_two_letters_from_a_keyword_is_named(word: str, meant: str | None) -> None:
    from codegen.catalog.wild import KEYWORDS

    assert misspelt(word, KEYWORDS) == meant


MISSPELT = """\
name: slips
tools:
  - name: star_repo
    description: Star a repository for the user.
    parameters:
      type: object
      properties:
        repo: {type: string, descripton: Owner and name}
      requried: [repo]
"""


def test_a_misspelt_keyword_says_did_you_mean_and_strict_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "slips.yaml").write_text(MISSPELT, encoding="utf-8")
    done = run_codegen("build", "slips.yaml", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert diagnostic_lines(done.stderr) == [
        (
            "slips.yaml:8: warning CG104: tools[0].parameters.properties.repo.descripton: unknown key "
            "'descripton' in a schema: did you mean `description`? (ignored)"
        ),
        (
            "slips.yaml:9: warning CG104: tools[0].parameters.requried: unknown key 'requried' in a "
            "schema: did you mean `required`? (ignored)"
        ),
    ]
    strict = run_codegen("build", "slips.yaml", "--out", "strict", "--strict", cwd=tmp_path)
    assert strict.returncode == 1
    assert [line.split(": ")[1] for line in diagnostic_lines(strict.stderr)] == [
        "error CG104",
        "error CG104",
    ]
    assert not (tmp_path / "strict").exists()


def test_ignore_silences_codes_and_providers_choose_the_payloads(tmp_path: Path) -> None:
    (tmp_path / "slips.yaml").write_text(MISSPELT, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.codegen]\nsources = ["slips.yaml"]\nstrict = true\nignore = ["CG104"]\n'
        'providers = ["openai", "mcp"]\n',
        encoding="utf-8",
    )
    done = run_codegen("build", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert diagnostic_lines(done.stderr) == []
    payloads = sorted(p.name for p in (tmp_path / "generated" / "slips" / "payloads").iterdir())
    assert payloads == [
        "mcp.json",
        "openai_chat.json",
        "openai_chat_strict.json",
        "openai_responses.json",
        "provider_names.json",
    ]
    # The package has the constants of the providers chosen and no others: a left-out one is a
    # name it does not have, as `hasattr` and type checkers see it, not a file it cannot find.
    sys.path.insert(0, str(tmp_path / "generated"))
    try:
        slips = importlib.import_module("slips")
    finally:
        sys.path.remove(str(tmp_path / "generated"))
    assert [tool["name"] for tool in slips.MCP_TOOLS] == ["star_repo"]
    # The adapters read every provider's replies still, so the names sent stay listed for all.
    assert slips.PROVIDER_NAMES == {
        p: {"star_repo": "star_repo"} for p in ("openai", "anthropic", "gemini", "mcp")
    }
    assert not hasattr(slips, "ANTHROPIC_TOOLS")
    assert "ANTHROPIC_TOOLS" not in slips.__all__ and "OPENAI_STRICT_TOOLS" in slips.__all__
    (tmp_path / "pyproject.toml").write_text(
        '[tool.codegen]\nignore = ["CG000"]\n', encoding="utf-8"
    )
    refused = run_codegen("build", cwd=tmp_path)
    assert refused.returncode == 2
    assert "CG000 is an error, which cannot be ignored" in refused.stderr


def test_the_bundled_catalogs_build_without_a_warning(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    done = run_codegen("build", "--out", "out", "--no-cache", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert diagnostic_lines(done.stderr) == []
    # docs/catalog.md states the count (issue 32: it said 66 where the build printed 153).
    stated = re.search(
        r"build with no warning \((\d+) notes:",
        (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8"),
    )
    assert stated is not None
    assert done.stderr.startswith(f"codegen: {stated[1]} notes: what a provider format cannot say")
    assert run_codegen("build", "--out", "strict", "--strict", cwd=tmp_path).returncode == 0


def test_every_code_has_a_level_and_a_name() -> None:
    assert all(level in ("error", "warning", "note", "info") for level, _, _ in CODES.values())
    names = [name for _, name, _ in CODES.values()]
    assert len(names) == len(set(names))


WILD_SHAPES = textwrap.dedent(
    """\
    name: shapes
    version: 2
    tools:
      - name: t
        description: A tool with odd values where text, numbers and flags belong.
        title: [not, text]
        examples: {a: 1}
        parameters:
          properties:
            n: {type: integer, minimum: "3", maxLength: "x", description: 7}
            s: {type: string, x-case-sensitive: "yes", enum: solo}
    """
)


def test_values_of_the_wrong_shape_are_read_or_ignored_never_refused(tmp_path: Path) -> None:
    (tmp_path / "shapes.yaml").write_text(WILD_SHAPES, encoding="utf-8")
    done = run_codegen("validate", "shapes.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ours = [line for line in diagnostic_lines(done.stderr) if " note " not in line]
    assert ours == [
        "shapes.yaml:2: warning CG102: version: version 2 read as the text '2'",
        (
            "shapes.yaml:6: warning CG103: tools[0].title: a tool's `title` is not text: ['not', "
            "'text'] ignored"
        ),
        (
            "shapes.yaml:7: warning CG103: tools[0].examples: a tool's `examples` is not a list of "
            "argument objects: {'a': 1} ignored"
        ),
        (
            "shapes.yaml:8: warning CG107: tools[0].parameters: the parameters have no `type`: read as "
            "`type: object` (write it to say so)"
        ),
        (
            "shapes.yaml:10: warning CG103: tools[0].parameters.properties.n.description: "
            "`description` is not text: 7 ignored"
        ),
        (
            "shapes.yaml:10: warning CG103: tools[0].parameters.properties.n.maxLength: `maxLength` is "
            "not a count: 'x' ignored"
        ),
        (
            "shapes.yaml:10: warning CG102: tools[0].parameters.properties.n.minimum: `minimum: '3'` "
            "read as 3"
        ),
        (
            "shapes.yaml:11: warning CG102: tools[0].parameters.properties.s.enum: `enum: 'solo'` is "
            "not a list: read as ['solo']"
        ),
        (
            "shapes.yaml:11: warning CG102: tools[0].parameters.properties.s.x-case-sensitive: "
            "`x-case-sensitive: 'yes'` read as true"
        ),
    ]

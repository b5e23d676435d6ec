"""What the tool list costs in a prompt, in o200k tokens per tool, against two other renderings.

    .venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_prompt.py [--tools 2000]
        [--per-tool schemas/calendar_tools.yaml]

For every bundled catalog (`schemas/`), every fixture catalog (`tests/fixtures/`) and the bench
corpus (`corpus.py`), in one run:

- **codegen**: the tool list of the JSONL prompt (`prompts/jsonl.txt` from "Tools:" on; the
  instructions before it are the same for every catalog and are counted apart);
- **JSON Schema**: each tool as OpenAI's function object (`name`, `description`, `parameters`, the
  schema codegen sends), one `json.dumps` per tool, one per line;
- **harmony (TypeScript)**: the tools as OpenAI's harmony format writes them for gpt-oss
  (`namespace functions { type name = (_: {...}) => any; }`), rendered by `openai-harmony` itself;
- **harmony, `$ref` inlined**: the same, of each tool's schema with its local `$ref`s replaced by
  the definitions they name. Harmony writes a `$ref` as `any`, so the first rendering drops the
  fields of a shared object; given them inline, as a user would have to send them for harmony to
  carry them, it writes them out (a recursive definition stays a `$ref`).

Tokens are counted with o200k_base (the encoding of GPT-4o, o-series and gpt-oss models), from the
vocabulary file `bpe-openai` ships, so nothing is downloaded: `openai-harmony` is pointed at the same
file through `TIKTOKEN_ENCODINGS_BASE`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import bpe_openai
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import catalog as corpus_catalog

from codegen.build import check_catalogs
from codegen.catalog.ir import Catalog
from codegen.payloads.files import payloads
from codegen.text.prompts import render_prompts

REPO = Path(__file__).resolve().parent.parent
TOOLS_HEADING = "\nTools:\n"
NAMESPACE = "namespace functions {"


def harmony_renderer(vocabulary_dir: Path) -> Any:
    """A function from OpenAI function objects to harmony's developer-message text for them."""
    source = Path(bpe_openai.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    (vocabulary_dir / "o200k_base.tiktoken").write_bytes(gzip.decompress(source.read_bytes()))
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(vocabulary_dir)
    import openai_harmony as h

    encoding = h.load_harmony_encoding(h.HarmonyEncodingName.HARMONY_GPT_OSS)

    def render(functions: list[dict[str, Any]]) -> str:
        tools = [
            h.ToolDescription.new(f["name"], f.get("description", ""), parameters=f["parameters"])
            for f in functions
        ]
        content = h.DeveloperContent.new().with_function_tools(tools)
        message = h.Message.from_role_and_content(h.Role.DEVELOPER, content)
        text = encoding.decode_utf8(
            encoding.render_conversation(h.Conversation.from_messages([message]))
        )
        # Only the namespace: the message's own framing is no part of the tool list.
        return text[text.index(NAMESPACE) : text.rindex("} // namespace functions")]

    return render


def inlined(
    schema: Any, definitions: dict[str, Any] | None = None, within: tuple[str, ...] = ()
) -> Any:
    """`schema` with each `{"$ref": "#/$defs/name"}` replaced by that definition (its sibling
    keywords kept), but where the definition is one it is already inside of; `$defs` left out."""
    if isinstance(schema, list):
        return [inlined(item, definitions, within) for item in schema]
    if not isinstance(schema, dict):
        return schema
    definitions = schema.get("$defs", definitions)
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/") and definitions:
        name = reference.removeprefix("#/$defs/")
        if name in definitions and name not in within:
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            return inlined({**definitions[name], **siblings}, definitions, (*within, name))
    return {k: inlined(v, definitions, within) for k, v in schema.items() if k != "$defs"}


def catalogs(tools: int) -> list[tuple[str, Catalog]]:
    sources = sorted(REPO.glob("schemas/*.yaml")) + sorted(REPO.glob("schemas/*.json"))
    sources = [s for s in sources if s.name != "catalog.schema.json"]
    sources += sorted(REPO.glob("tests/fixtures/*.yaml"))
    found = []
    for source in sources:
        (catalog,), _ = check_catalogs([source], REPO)
        found.append((str(source.relative_to(REPO)), catalog))
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "bench_tools.yaml"
        corpus.write_text(yaml.safe_dump(corpus_catalog(tools), sort_keys=False, width=100))
        (catalog,), _ = check_catalogs([corpus], Path(tmp))
    found.append((f"bench corpus ({tools} tools)", catalog))
    return found


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--tools", type=int, default=2000)
    options.add_argument(
        "--per-tool", metavar="CATALOG", help="also each tool of this catalog (a label above)"
    )
    args = options.parse_args()
    encoding = bpe_openai.get_encoding("o200k_base")

    def count(text: str) -> int:
        # The encoder takes at most 200,000 tokens at once: whole tool lists go in pieces of 100
        # lines, cut before a line that starts with no space, where no token spans the cut.
        lines = text.splitlines(keepends=True)
        pieces, start = [], 0
        for at in range(100, len(lines), 100):
            while at < len(lines) and lines[at][:1].isspace():
                at += 1
            if at > start:
                pieces.append("".join(lines[start:at]))
                start = at
        pieces.append("".join(lines[start:]))
        return sum(len(encoding.encode(p, disallowed_special=())) for p in pieces)

    with tempfile.TemporaryDirectory() as tmp:
        harmony = harmony_renderer(Path(tmp))
        rows, per_tool = [], []
        preamble = 0
        for label, catalog in catalogs(args.tools):
            functions = [entry["function"] for entry in payloads(catalog)[0]["OPENAI_TOOLS"]]
            prompt = render_prompts(catalog)["jsonl"]
            at = prompt.index(TOOLS_HEADING)
            preamble = max(preamble, count(prompt[:at]))
            n = len(catalog.tools)
            ours = count(prompt[at:]) / n
            dump = count("\n".join(json.dumps(f, ensure_ascii=False) for f in functions)) / n
            ts = count(harmony(functions)) / n
            whole = [{**f, "parameters": inlined(f["parameters"])} for f in functions]
            ts_whole = count(harmony(whole)) / n
            rows.append((label, n, ours, dump, ts, ts_whole))
            if label == args.per_tool:
                per_tool = [
                    (f["name"], count(section), count(harmony([f]).removeprefix(NAMESPACE)))
                    for f, section in zip(functions, tool_sections(prompt[at:]), strict=True)
                ]
    print("o200k_base tokens per tool (the whole tool list divided by its tools)\n")
    print(
        "| catalog | tools | codegen prompt | JSON Schema | harmony (TypeScript) "
        "| harmony, `$ref` inlined | codegen ÷ harmony | codegen ÷ harmony inlined |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, n, ours, dump, ts, whole in rows:
        print(
            f"| {label} | {n} | {ours:.1f} | {dump:.1f} | {ts:.1f} | {whole:.1f} "
            f"| {ours / ts:.2f} | {ours / whole:.2f} |"
        )
    print(
        f"\nThe JSONL prompt's instructions and example calls, before the tool list: at most {preamble} tokens"
    )
    print(json.dumps({label: round(ours / ts, 3) for label, _, ours, _, ts, _ in rows}))
    if per_tool:
        print(f"\n{args.per_tool}, tokens per tool\n")
        print("| tool | codegen prompt | harmony (TypeScript) |\n| --- | --- | --- |")
        for name, ours, ts in per_tool:
            print(f"| {name} | {ours} | {ts} |")


def tool_sections(listing: str) -> list[str]:
    """The tool list cut before each tool's heading: one section per tool, in order."""
    return ["## " + part for part in listing.split("\n## ")[1:]]


if __name__ == "__main__":
    main()

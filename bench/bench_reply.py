"""Model text (issue 18): accuracy on each judge's cases and throughput, beside json_repair and
agent-tool-parser, in one run.

    .venv/bin/pip install -e ".[bench]"    # json-repair and agent-tool-parser among the peers
    .venv/bin/codegen build && .venv/bin/python bench/bench_reply.py

Accuracy: each judge's vendored cases (tests/judges/), each answer counted as the same value as the
judge's own tests expect, refused (no value, or a call with an error code), or a different value.
Throughput: medians of repeated rounds in one process (see the machine line).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import agent_tool_parser
import json_repair
from bench_repair import median_seconds

from generated.memory_tools import _repair, _runtime, parse_memory_search, parse_reply
from tests.test_judges import suite_package

JUDGES = ROOT / "tests" / "judges"


def cases(judge: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((JUDGES / judge / "cases.json").read_text())["cases"]
    return data


def canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


# ---------------------------------------------------------------------------------------------
# Accuracy


def repair_verdicts() -> dict[str, Counter[str]]:
    """json_repair's own cases: the text as one value."""

    def codegen(text: str) -> object:
        doc = _runtime.decode_arguments(text)
        return None if doc.root is None or doc.errors else doc.root

    def peer_json_repair(text: str) -> object:
        value = json_repair.repair_json(text, return_objects=True)
        return None if value == "" else value

    def peer_agent(text: str) -> object:
        return agent_tool_parser.safe_json_loads(text)

    readers: dict[str, Callable[[str], object]] = {
        "codegen": codegen,
        "json_repair": peer_json_repair,
        "agent-tool-parser": peer_agent,
    }
    out: dict[str, Counter[str]] = {}
    for name, read in readers.items():
        counts: Counter[str] = Counter()
        for case in cases("json_repair"):
            try:
                value = read(case["input"])
            except Exception:  # noqa: BLE001 - a peer that raises has refused
                value = None
            if value is None:
                # json_repair's answer for a text with no JSON in it is nothing: the same.
                counts["refused" if case["has_value"] else "same"] += 1
            elif case["has_value"] and canon(value) == canon(case["expected"]):
                counts["same"] += 1
            else:
                counts["different"] += 1
        out[name] = counts
    return out


def calls_verdict(given: list[tuple[str, str]], refusals: int, case: dict[str, Any]) -> str:
    expected = [
        (call["name"], canon(call["arguments"]))
        for call in case["calls"]
        if call["arguments"] is not None
    ]
    if given == expected and len(expected) == len(case["calls"]):
        return "same"
    remaining = iter(expected)
    if all(call in remaining for call in given) and (refusals or not given):
        return "refused"
    return "different"


def tool_parser_verdicts(
    judge: str, read: Callable[[str], Any] = parse_reply
) -> dict[str, Counter[str]]:
    """`read`: codegen's `parse_reply`; for a suite with its own tools, that of a package of them,
    where a call of a tool the catalog does not hold is refused (`ok` is False)."""
    out: dict[str, Counter[str]] = {"codegen": Counter(), "agent-tool-parser": Counter()}
    known_only = read is not parse_reply
    for case in cases(judge):
        batch = read(case["output"])
        given = [
            (c.tool_name, canon(c.values))
            for c in batch
            if not c.errors and (c.ok or not known_only)
        ]
        refusals = len(batch.problems) + sum(
            1 for c in batch if c.errors or (known_only and not c.ok)
        )
        out["codegen"][calls_verdict(given, refusals, case)] += 1
        try:
            found = agent_tool_parser.try_parse_tool_calls(case["output"])
            peer = [(call.name, canon(call.args)) for call in found]
        except Exception:  # noqa: BLE001 - a peer that raises has refused
            peer = []
        out["agent-tool-parser"][calls_verdict(peer, 1, case)] += 1
    return out


def accuracy() -> None:
    print("| judge (cases) | reader | same value | refused | different value |")
    print("| --- | --- | --- | --- | --- |")
    rows = [("json_repair", repair_verdicts())]
    rows += [(judge, tool_parser_verdicts(judge)) for judge in ("vllm", "sglang")]
    with tempfile.TemporaryDirectory() as folder:
        for judge in ("llama_cpp", "ollama"):
            package = suite_package(judge, Path(folder))
            rows.append((judge, tool_parser_verdicts(judge, package.parse_reply)))
    for judge, verdicts in rows:
        total = len(cases(judge))
        for reader, counts in verdicts.items():
            print(
                f"| {judge} ({total}) | {reader} | {counts['same']} | {counts['refused']} "
                f"| {counts['different']} |"
            )


# ---------------------------------------------------------------------------------------------
# Throughput


def big_object(items: int) -> str:
    rows = [
        {"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i * 0.5} for i in range(items)
    ]
    return json.dumps({"query": "x", "items": rows})


def _broken(items: int, fault: Callable[[str], str]) -> tuple[str, str]:
    clean = big_object(items)
    return fault(clean), clean


# Each gives (the text to repair, the clean text whose value the repair must give).
REPAIR_INPUTS: dict[str, Callable[[], tuple[str, str]]] = {
    # The issue's case: one trailing comma near the end of 4.2 MB.
    "one trailing comma in 4.2 MB": lambda: _broken(56_000, lambda t: t[:-2] + ",]}"),
    "one unquoted key and one missing comma in 4.2 MB": lambda: _broken(
        56_000,
        lambda t: t.replace('{"query"', "{query", 1).replace(
            '"tags": ["a", "b"], "score": 7.5}', '"tags": ["a", "b"] "score": 7.5}', 1
        ),
    ),
    "a trailing comma in each of 2,000 objects (0.15 MB)": lambda: _broken(
        2_000, lambda t: t.replace("}, {", ",}, {")
    ),
}


def _repaired(text: str, error: json.JSONDecodeError) -> object:
    repaired = _repair.repair_json(text, error)
    return None if repaired is None else repaired.value


def _parsed(text: str) -> object:
    values = dict(parse_memory_search(text).values)
    values.pop("limit", None)  # the tool's default, which the text did not send
    return values


def repair_throughput() -> None:
    print(
        "| input | `json.loads` of the clean text (reference) "
        "| codegen repair (after strict decoding failed) | codegen whole parse "
        "| json_repair | agent-tool-parser |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for name, make in REPAIR_INPUTS.items():
        text, clean = make()
        expected = canon(json.loads(clean))
        size = len(text) / 1e6
        rounds = 3 if len(text) > 1_000_000 else 7
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            error = exc
        readers: list[tuple[Callable[[str], object], int]] = [
            (lambda t, e=error: _repaired(t, e), rounds),
            (_parsed, rounds),
            (json_repair.loads, 1 if len(text) > 1_000_000 else 3),
            (agent_tool_parser.safe_json_loads, rounds),
        ]
        reference = median_seconds(lambda c=clean: json.loads(c), rounds)
        cells = [f"{reference:.3f} s ({size / reference:.1f} MB/s)"]
        for read, times in readers:
            seconds = median_seconds(lambda r=read, t=text: r(t), times)
            right = "right" if canon(read(text)) == expected else "**wrong**"
            cells.append(f"{seconds:.3f} s ({size / seconds:.1f} MB/s, {right})")
        print(f"| {name} | " + " | ".join(cells) + " |")


SEARCH = {"query": "agent state consistency", "limit": 5}
J = json.dumps(SEARCH)
REPLIES = {
    "prompt form (JSON)": json.dumps({"name": "memory.search", "parameters": SEARCH}),
    "Hermes <tool_call>": f'<tool_call>\n{{"name": "memory.search", "arguments": {J}}}\n</tool_call>',
    "JSON-like in prose": "Sure, searching now: {name: 'memory.search', arguments: "
    "{query: 'agent state consistency', limit: 5,}} -- done",
    "pythonic": '[memory.search(query="agent state consistency", limit=5)]',
    "Mistral [TOOL_CALLS]": f'[TOOL_CALLS][{{"name": "memory.search", "arguments": {J}}}]',
    "<think> + Hermes": f'<think>The user wants a search.</think>\n<tool_call>{{"name": "memory.search", "arguments": {J}}}</tool_call>',
}


def reply_throughput() -> None:
    print("| reply | codegen `parse_reply` | agent-tool-parser `try_parse_tool_calls` |")
    print("| --- | --- | --- |")
    n = 2_000
    for name, reply in REPLIES.items():
        ours = median_seconds(lambda r=reply: [parse_reply(r) for _ in range(n)], 5) / n
        peer = (
            median_seconds(
                lambda r=reply: [agent_tool_parser.try_parse_tool_calls(r) for _ in range(n)], 5
            )
            / n
        )
        print(f"| {name} | {ours * 1e6:.1f} µs | {peer * 1e6:.1f} µs |")
    many = "\n".join(REPLIES.values())
    big = "\n".join([REPLIES["prompt form (JSON)"]] * 20_000)
    for label, text in (("20,000 JSONL calls", big), ("the six replies in one text", many)):
        ours = median_seconds(lambda t=text: parse_reply(t), 3)
        print(
            f"| {label} ({len(text) / 1e6:.2f} MB) | {ours * 1e3:.1f} ms ({len(text) / 1e6 / ours:.1f} MB/s) | |"
        )


def main() -> None:
    load = os.getloadavg()[0]
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores (load {load:.1f}), msgspec "
        f"decoder {'on' if _runtime._fast_loads else 'off'}, json_repair {version('json-repair')}, "
        f"agent-tool-parser {version('agent-tool-parser')} (Rust engine: {agent_tool_parser.ACCELERATED})\n"
    )
    print("### Accuracy on the judges' cases\n")
    accuracy()
    print("\n### Repair throughput\n")
    repair_throughput()
    print("\n### Reply parser throughput (per reply)\n")
    reply_throughput()


if __name__ == "__main__":
    main()

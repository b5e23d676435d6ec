"""The JSONL reply parser of a generated package (`_jsonl.py`): every line shape, any chunking,
bounded memory, one JSON object or an array of them, and telling the three forms apart."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import runtime
from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("jsonl"))


SEARCH = '{"name": "memory.search", "parameters": {"query": "agent state"}}'


def problems(batch: object) -> list[tuple[int, str, str, str]]:
    return [tuple(p) for p in batch.problems]  # type: ignore[attr-defined]


def test_a_good_line_is_a_call_with_a_deterministic_id(pkg: ModuleType) -> None:
    batch = pkg.parse_jsonl(SEARCH + "\n" + SEARCH.replace("agent state", "x"))
    assert [c.tool_call_id for c in batch.calls] == ["call_0", "call_1"]
    assert batch.calls[0].values == {"query": "agent state", "limit": 3}
    assert batch.calls[0].arguments == pkg.MemorySearchArgs(query="agent state", limit=3)
    assert batch.calls[0].warnings == () and batch.calls[0].errors == ()
    assert batch.problems == ()
    # The batch is a tuple of its calls too.
    assert len(batch) == 2 and batch[1].values["query"] == "x" and batch.calls == tuple(batch)


def test_blank_and_fence_lines_are_skipped_but_counted(pkg: ModuleType) -> None:
    reply = f"\n```jsonl\n{SEARCH}\n   \n```\n\r\n{SEARCH}\n```"
    batch = pkg.parse_jsonl(reply)
    assert [c.tool_call_id for c in batch.calls] == ["call_0", "call_1"]
    assert batch.problems == ()


def test_prose_and_malformed_lines_are_problems_and_the_good_lines_still_parse(
    pkg: ModuleType,
) -> None:
    reply = f'Here are the calls:\n{SEARCH}\n{{"name": "memory.search", "parameters": {{query 1}}}}\n[1, 2]\n42\n{{"parameters": {{"query": "x"}}}}\n{{"name": 7, "parameters": {{}}}}\n{{"name": "", "parameters": {{}}}}\n{SEARCH}'
    batch = pkg.parse_jsonl(reply)
    assert [c.tool_call_id for c in batch.calls] == ["call_0", "call_1"]
    assert problems(batch) == [
        (1, "prose", "not a JSON object", "Here are the calls:"),
        (
            3,
            "invalid_json",
            "Expecting property name enclosed in double quotes at column 42",
            '{"name": "memory.search", "parameters": {query 1}}',
        ),
        (4, "not_an_object", "a JSON value that is not an object", "[1, 2]"),
        (5, "not_an_object", "a JSON value that is not an object", "42"),
        (6, "missing_name", "no tool name", '{"parameters": {"query": "x"}}'),
        (
            7,
            "missing_name",
            "the tool name is not a non-empty string",
            '{"name": 7, "parameters": {}}',
        ),
        (
            8,
            "missing_name",
            "the tool name is not a non-empty string",
            '{"name": "", "parameters": {}}',
        ),
    ]


def test_a_line_cut_off_is_a_problem_not_a_call(pkg: ModuleType) -> None:
    cut = '{"name": "memory.search", "parameters": {"query": "agent st'
    batch = pkg.parse_jsonl(f"{SEARCH}\n{cut}")
    assert [c.tool_call_id for c in batch.calls] == ["call_0"]
    assert problems(batch) == [(2, "truncated_line", "the line was cut off", cut)]
    # Cut at the end of an object that is not the root's end: still a cut line.
    assert problems(pkg.parse_jsonl(SEARCH[:-1])) == [
        (1, "truncated_line", "the line was cut off", SEARCH[:-1])
    ]


def test_call_id_is_carried(pkg: ModuleType) -> None:
    lines = [
        '{"name": "memory.search", "parameters": {"query": "a"}, "call_id": "c-1"}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "call_id": 7}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "call_id": ""}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "call_id": {"x": 1}}',
    ]
    batch = pkg.parse_jsonl("\n".join(lines))
    assert [c.tool_call_id for c in batch.calls] == ["c-1", "7", "call_2", "call_3"]


def test_an_error_field_becomes_model_reported_error_with_its_text(pkg: ModuleType) -> None:
    lines = [
        '{"name": "read_file", "parameters": {}, "error": "no path was given"}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "error": {"why": "x"}}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "error": null}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "error": false}',
        '{"name": "memory.search", "parameters": {"query": "a"}, "error": ""}',
    ]
    calls = pkg.parse_jsonl("\n".join(lines)).calls
    assert calls[0].errors == (
        "missing_required:filePath",
        "model_reported_error:no path was given",
    )
    assert calls[0].arguments is None
    assert calls[1].errors == ('model_reported_error:{"why": "x"}',)
    assert calls[1].arguments is None and calls[1].values == {"query": "a", "limit": 3}
    assert [c.errors for c in calls[2:]] == [(), (), ()]
    assert all(c.arguments is not None for c in calls[2:])


def test_an_unknown_tool_gets_the_generic_parse(pkg: ModuleType) -> None:
    (call,) = pkg.parse_jsonl('{"name": "nope", "parameters": {"a": "true", "b": 2}}').calls
    assert call.tool_name == "nope"
    assert call.values == {"a": True, "b": 2}
    assert call.warnings == ("tool_definition_missing", "string_literal_converted_to_boolean:a")
    assert call.arguments is None


def test_parameters_in_other_shapes(pkg: ModuleType) -> None:
    lines = [
        '{"name": "memory.search", "parameters": "{\\"query\\": \\"a\\"}"}',
        '{"name": "memory.search", "parameters": [1]}',
        '{"name": "memory.search"}',
        "{'name': 'memory.search', 'parameters': {'query': 'a'},}",
    ]
    calls = pkg.parse_jsonl("\n".join(lines)).calls
    assert calls[0].values == {"query": "a", "limit": 3}
    assert calls[0].warnings == ("arguments_unquoted",) and calls[0].errors == ()
    assert calls[1].raw_arguments == "[1]" and calls[1].errors == ("arguments_not_object",)
    assert calls[2].errors == ("missing_required:query",)
    assert calls[3].values == {"query": "a", "limit": 3}
    assert calls[3].warnings == ("single_quotes_converted", "trailing_comma_removed")


def test_crlf_and_a_byte_order_mark(pkg: ModuleType) -> None:
    batch = pkg.parse_jsonl(f"\ufeff{SEARCH}\r\n{SEARCH}\r\n")
    assert [c.tool_call_id for c in batch.calls] == ["call_0", "call_1"]
    assert batch.problems == ()


def test_invalid_utf8_in_bytes_is_a_problem_for_its_line_alone(pkg: ModuleType) -> None:
    reply = SEARCH.encode() + b'\n{"name": "memory.search", "parameters": {"query": "\xff"}}\n'
    batch = pkg.parse_jsonl(reply + SEARCH.encode())
    assert [c.tool_call_id for c in batch.calls] == ["call_0", "call_1"]
    assert problems(batch) == [
        (
            2,
            "invalid_utf8",
            "invalid UTF-8 at character 52",
            '{"name": "memory.search", "parameters": {"query": "\ufffd"}}',
        )
    ]


def test_a_line_longer_than_the_limit_is_a_problem(pkg: ModuleType) -> None:
    limit = len(SEARCH)
    longer = SEARCH.replace("agent state", "agent states")
    batch = pkg.parse_jsonl(f"{SEARCH}\n{longer}\n{SEARCH}", max_line=limit)
    assert [c.tool_call_id for c in batch.calls] == ["call_0", "call_1"]
    assert problems(batch) == [
        (2, "line_too_long", f"longer than {limit} characters", longer[:200])
    ]
    # Not held whole: a 20 MB line in 64 KB chunks costs memory for its first characters only.
    chunk = "x" * 65536

    def endless() -> Iterator[str]:
        yield '{"name": "memory.search", "parameters": {"query": "'
        for _ in range(320):
            yield chunk
        yield '"}}\n' + SEARCH

    tracemalloc.start()
    items = list(pkg.iter_jsonl(endless(), max_line=100_000))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [type(i).__name__ for i in items] == ["Problem", "ReadyRequest"]
    assert items[0].reason == "line_too_long" and len(items[0].text) == 200
    assert peak < 1_000_000


def test_a_chunk_of_another_type_is_a_problem(pkg: ModuleType) -> None:
    items = list(pkg.iter_jsonl([SEARCH[:10], None, SEARCH[10:]]))  # type: ignore[list-item]
    assert [tuple(items[0])] == [(1, "bad_chunk", "a chunk of NoneType", "")]
    assert items[1].tool_call_id == "call_0"


def test_each_call_is_yielded_as_soon_as_its_line_ends(pkg: ModuleType) -> None:
    pulled: list[int] = []

    def chunks() -> Iterator[str]:
        for n, part in enumerate([SEARCH[:20], SEARCH[20:] + "\n" + SEARCH[:5], SEARCH[5:]]):
            pulled.append(n)
            yield part

    stream = pkg.iter_jsonl(chunks())
    first = next(stream)
    assert first.tool_call_id == "call_0" and pulled == [0, 1]
    assert next(stream).tool_call_id == "call_1" and pulled == [0, 1, 2]


# ---------------------------------------------------------------------------------------------
# Any chunking of a reply gives the same items as the whole.

LINES = [
    SEARCH,
    '{"name": "memory.search", "parameters": {"query": "caf\\u00e9 \u00e9\u6f22\U0001f600 \\"q\\" \\\\"}, "call_id": "x"}',
    '{"name": "memory.search", "parameters": {"query": "a", "limit": "7"}}',
    "Some prose \u6f22\u5b57 in between.",
    "```json",
    "",
    '{"name": "read_file", "parameters": {"filePath": "a.txt"}, "error": "\u00e9\\n"}',
    '{"name": "memory.search", "parameters": {"query": "' + "long " * 30 + '"}}',
    '{"name": "memory.search", "parameters": {"query": ',
    "\r",
]


async def _collect(pkg: ModuleType, chunks: list[str] | list[bytes], max_line: int) -> list[object]:
    async def stream() -> AsyncIterator[str | bytes]:
        for chunk in chunks:
            await asyncio.sleep(0)
            yield chunk

    return [item async for item in pkg.aiter_jsonl(stream(), max_line=max_line)]


def _split(data: str | bytes, cuts: list[int]) -> list[str] | list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]  # type: ignore[return-value]


@settings(max_examples=150, deadline=None)
@given(
    picks=st.lists(st.integers(0, len(LINES) - 1), min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 4000), max_size=25),
    trailing=st.booleans(),
    max_line=st.sampled_from([1_000_000, 120]),
)
def test_any_chunking_gives_the_same_items(
    pkg: ModuleType, picks: list[int], cuts: list[int], trailing: bool, max_line: int
) -> None:
    reply = "\n".join(LINES[i] for i in picks) + ("\n" if trailing else "")
    whole = pkg.parse_jsonl(reply, max_line=max_line)
    # In line order, as the reply comes in one piece.
    expected = list(pkg.iter_jsonl([reply], max_line=max_line))
    assert [i for i in expected if not isinstance(i, pkg.Problem)] == list(whole.calls)
    assert [i for i in expected if isinstance(i, pkg.Problem)] == list(whole.problems)
    for data in (reply, reply.encode("utf-8")):
        chunks = _split(data, cuts)
        items = list(pkg.iter_jsonl(chunks, max_line=max_line))
        assert items == expected
        assert asyncio.run(_collect(pkg, chunks, max_line)) == expected
        assert pkg.parse_jsonl(data, max_line=max_line) == whole


@settings(max_examples=100, deadline=None)
@given(cuts=st.lists(st.integers(0, 200), max_size=30))
def test_bytes_split_inside_characters_and_escapes(pkg: ModuleType, cuts: list[int]) -> None:
    reply = '{"name": "memory.search", "parameters": {"query": "\u00e9\u6f22\U0001f600\\u00e9\\"\\\\"}}\n\xff'
    data = reply.encode("utf-8")[:-2] + b"\xff"  # a last line that is not UTF-8
    whole = pkg.parse_jsonl(data)
    assert whole.calls[0].values["query"] == '\u00e9\u6f22\U0001f600\u00e9"\\'
    assert problems(whole) == [(2, "invalid_utf8", "invalid UTF-8 at character 1", "\ufffd")]
    assert list(pkg.iter_jsonl(_split(data, cuts))) == [*whole.calls, *whole.problems]


# ---------------------------------------------------------------------------------------------
# One JSON object, an array of them, and a reply in any of the three forms


def test_single_json_object_and_array(pkg: ModuleType) -> None:
    one = pkg.parse_single_json(SEARCH)
    assert [c.tool_call_id for c in one.calls] == ["call_0"] and one.problems == ()
    assert one[0].values == {"query": "agent state", "limit": 3}
    many = pkg.parse_single_json(f'```json\n[\n{SEARCH},\n{{"name": 3}},\n"x"\n]\n```')
    assert [c.tool_call_id for c in many.calls] == ["call_0"]
    assert problems(many) == [
        (2, "missing_name", "item 2: the tool name is not a non-empty string", '{"name": 3}'),
        (2, "not_an_object", "item 3: a JSON value that is not an object", '"x"'),
    ]


def test_single_json_in_prose_cut_off_or_broken(pkg: ModuleType) -> None:
    prose = pkg.parse_single_json(f"I will search.\n{SEARCH}\nDone.")
    assert prose.calls[0].warnings == ("json_extracted_from_text",)
    assert prose.problems == ()
    cut = pkg.parse_single_json(SEARCH[:-8])
    assert problems(cut) == [(1, "truncated_reply", "the reply was cut off", SEARCH[:-8])]
    assert problems(pkg.parse_single_json("no calls today")) == [
        (1, "invalid_json", "Expecting value at column 1", "no calls today")
    ]
    assert problems(pkg.parse_single_json(" \n")) == [
        (1, "no_calls", "the reply holds no JSON", " \n")
    ]
    repaired = pkg.parse_single_json("{'name': 'memory.search', 'parameters': {'query': 'a'}}")
    assert repaired.calls[0].warnings == ("single_quotes_converted",)


@pytest.mark.parametrize(
    ("reply", "ids", "reasons"),
    [
        (f"{SEARCH}\n{SEARCH}", ["call_0", "call_1"], []),
        (f"```jsonl\n{SEARCH}\n{SEARCH}\n```", ["call_0", "call_1"], []),
        (f"Calls:\n{SEARCH}\n{SEARCH}", ["call_0", "call_1"], ["prose"]),
        (SEARCH, ["call_0"], []),
        (
            '{\n  "name": "memory.search",\n  "parameters": {"query": "a"}\n}',
            ["call_0"],
            [],
        ),
        (f"[{SEARCH}, {SEARCH}]", ["call_0", "call_1"], []),
        (f"```json\n[\n  {SEARCH},\n  {SEARCH}\n]\n```", ["call_0", "call_1"], []),
        (f"```json\n{{\n  {SEARCH[1:-1]}\n}}\n```", ["call_0"], []),
    ],
)
def test_parse_reply_tells_the_three_forms_apart(
    pkg: ModuleType, reply: str, ids: list[str], reasons: list[str]
) -> None:
    batch = pkg.parse_reply(reply)
    assert [c.tool_call_id for c in batch.calls] == ids
    assert [c.values["query"] for c in batch.calls] == [
        "a" if '"a"' in reply else "agent state"
    ] * len(ids)
    assert [p.reason for p in batch.problems] == reasons


def test_the_prompt_constants_are_their_files_bytes_as_they_are(tmp_path: Path) -> None:
    # The package's constants are read from its prompts/ files (runtime/_prompts.py), as bytes:
    # a carriage return in a file stays one, as it would in a constant written out.
    package = tmp_path / "pkg"
    (package / "prompts").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "_prompts.py").write_text(runtime.source("prompts"), encoding="utf-8")
    (package / "prompts" / "jsonl.txt").write_bytes("a\r\nb — c\n".encode())
    (package / "prompts" / "single_json.txt").write_bytes(b"single\n")
    script = (
        "import sys; sys.path.insert(0, '.'); import pkg._prompts as p; "
        "print(repr(p.JSONL_PROMPT), repr(p.SINGLE_JSON_PROMPT), p.JSONL_PROMPT is p.JSONL_PROMPT);"
        "from pkg._prompts import SINGLE_JSON_PROMPT; print(SINGLE_JSON_PROMPT is p.SINGLE_JSON_PROMPT);"
        "print(hasattr(p, 'OTHER_PROMPT'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["'a\\r\\nb — c\\n' 'single\\n' True", "True", "False"]


def test_prompts_are_imported_on_first_use_only() -> None:
    script = (
        "import sys; sys.path.insert(0, '.');"
        "import generated.memory_tools as pkg;"
        "assert 'generated.memory_tools._prompts' not in sys.modules;"
        "pkg.parse_jsonl('');"
        "assert 'generated.memory_tools._prompts' not in sys.modules;"
        "from pathlib import Path;"
        "folder = Path('generated/memory_tools/prompts');"
        "assert pkg.JSONL_PROMPT == (folder / 'jsonl.txt').read_text(encoding='utf-8');"
        "assert pkg.SINGLE_JSON_PROMPT == (folder / 'single_json.txt').read_text(encoding='utf-8');"
        "print('ok')"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr

"""Model text, issue 37: the catalog decides what a key means, and no call is dropped in silence.

Sections: the catalog decides (item 1) · the forms models send, each with its code (item 3) · no
silent loss, with a property test over every shape the reader knows (item 2) · linear, counted.
Values AND codes in every row; each test says which item it holds.
"""

from __future__ import annotations

import importlib
import json
import re
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import build_package

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "tests" / "model_text.yaml", tmp_path_factory.mktemp("text"))


def calls(batch: Any) -> list[tuple[str, dict[str, object], tuple[str, ...], tuple[str, ...]]]:
    return [(c.tool_name, c.values, c.warnings, c.errors) for c in batch]


def problems(batch: Any) -> list[tuple[int, str]]:
    return [(p.line, p.reason) for p in batch.problems]


# ---------------------------------------------------------------------------------------------
# Item 1: the catalog decides which key names the tool

RECORDS = {"name": "Mr. X", "location": "New York, NY"}
FLAT = '{"function_name": "get_criminal_records", "name": "Mr. X", "location": "New York, NY"}'
FLAT_CODES = ("name_envelope:function_name", "flat_call_object")
# The same object in every place a call object is read: alone, in a list, in prose, as a JSONL
# line, in a native tag, one level down.
PLACES = {
    "alone": (FLAT, FLAT_CODES),
    "in-a-list": (f"[{FLAT}]", FLAT_CODES),
    "in-prose": (f"Here: {FLAT} done", ("json_extracted_from_text", *FLAT_CODES)),
    "jsonl": (f"{FLAT}\n{FLAT}", FLAT_CODES),
    "hermes": (f"<tool_call>{FLAT}</tool_call>", ("native_format:hermes", *FLAT_CODES)),
    "mistral": (f"[TOOL_CALLS][{FLAT}]", ("native_format:mistral", *FLAT_CODES)),
    "llama": (f"<|python_tag|>{FLAT}", ("native_format:llama", *FLAT_CODES)),
    "wrapped": (
        (
            '{"function": {"function_name": "get_criminal_records", "name": "Mr. X", '
            '"location": "New York, NY"}}'
        ),
        ("call_envelope:function", *FLAT_CODES),
    ),
    "name-key-order-reversed": (
        '{"name": "Mr. X", "location": "New York, NY", "tool": "get_criminal_records"}',
        ("name_envelope:tool", "flat_call_object"),
    ),
}


@pytest.mark.parametrize(("reply", "codes"), list(PLACES.values()), ids=list(PLACES))
def test_a_value_that_is_a_tool_wins_over_one_that_is_not(
    pkg: ModuleType, reply: str, codes: tuple[str, ...]
) -> None:
    """Issue 37 item 1: `name` is a parameter of get_criminal_records and "Mr. X" no tool: the
    catalog's tool is called, with `name` as its argument (it was a call of a tool "Mr. X")."""
    batch = pkg.parse_reply(reply)
    assert batch.problems == ()
    assert calls(batch)[0] == ("get_criminal_records", RECORDS, codes, ())
    assert all(call == calls(batch)[0] for call in calls(batch))


ENVELOPES_AROUND_NAMESAKES = {
    "arguments-envelope": (
        '{"name": "run_command", "arguments": {"command": "ls", "arguments": ["-l"]}}',
        ("run_command", {"command": "ls", "arguments": ["-l"]}, ("arguments_envelope:arguments",)),
    ),
    "arguments-envelope-as-text": (
        '{"name": "run_command", "arguments": "{\\"command\\": \\"ls\\"}", "id": "c1"}',
        ("run_command", {"command": "ls"}, ("arguments_envelope:arguments",)),
    ),
    "hermes": (
        '<tool_call>{"name": "run_command", "arguments": {"command": "ls"}}</tool_call>',
        ("run_command", {"command": "ls"}, ("native_format:hermes", "arguments_envelope:arguments")),
    ),
    "flat-with-the-namesake": (
        '{"name": "run_command", "command": "ls", "arguments": ["-l"]}',
        ("run_command", {"command": "ls", "arguments": ["-l"]}, ("flat_call_object",)),
    ),
    "proxy-envelope": (
        '{"name": "call_tool", "arguments": {"name": "search", "arguments": {"q": "x"}}}',
        (
            "call_tool",
            {"name": "search", "arguments": {"q": "x"}},
            ("arguments_envelope:arguments",),
        ),
    ),
    "prompt-form-around-a-namesake": (
        '{"name": "call_tool", "parameters": {"name": "s", "parameters": {"q": 1}}}',
        ("call_tool", {"name": "s", "parameters": {"q": 1}}, ()),
    ),
}


@pytest.mark.parametrize(
    ("reply", "expected"),
    list(ENVELOPES_AROUND_NAMESAKES.values()),
    ids=list(ENVELOPES_AROUND_NAMESAKES),
)
def test_an_envelope_key_alone_is_the_envelope_though_the_tool_has_it_as_a_parameter(
    pkg: ModuleType, reply: str, expected: tuple[str, dict[str, object], tuple[str, ...]]
) -> None:
    """Issue 37 item 1 (review): `{"name", "arguments": {...}}` stays the envelope for a tool
    with a parameter `arguments` (an MCP proxy's `call_tool(name, arguments)`); only an object
    whose other keys are arguments too is flat."""
    batch = pkg.parse_reply(reply)
    assert batch.problems == ()
    name, values, codes = expected
    (request,) = batch.calls
    assert (request.tool_name, request.values, request.warnings, request.errors) == (
        name,
        values,
        codes,
        (),
    )


def test_a_parameter_named_as_an_envelope_key_stays_an_argument(catalog_from_yaml: Any) -> None:
    """Issue 37 item 1: a tool with parameters `input`, `id`, `call_id` and `error`: they are its
    arguments, not the envelope's arguments, call id or reported error."""
    pkg = catalog_from_yaml(
        """
        name: envelope_keys
        version: "1"
        tools:
          - name: translate
            description: Translate a text.
            parameters:
              type: object
              properties:
                input: {type: string}
                id: {type: string}
                call_id: {type: string}
                error: {type: string}
              additionalProperties: false
        """
    )
    batch = pkg.parse_reply(
        '{"tool": "translate", "input": "hola", "id": "7", "call_id": "c", "error": "none"}'
    )
    assert batch.problems == ()
    assert calls(batch) == [
        (
            "translate",
            {"input": "hola", "id": "7", "call_id": "c", "error": "none"},
            ("name_envelope:tool", "flat_call_object"),
            (),
        )
    ]
    assert batch[0].tool_call_id == "call_0"


TIES = {
    # Two keys, each a tool of the catalog: the first in NAME_KEYS' order, said to be a guess.
    "both-tools": (
        '{"name": "get_weather", "tool": "log_food", "city": "Paris"}',
        (
            "get_weather",
            {"tool": "log_food", "city": "Paris"},
            ("tool_name_guessed:name", "flat_call_object", "unknown_parameter:tool"),
            (),
        ),
    ),
    # Two keys, neither a tool: a guess too (and no tool to run).
    "neither": (
        '{"name": "Mr. X", "function": "nothing", "a": 1}',
        (
            "Mr. X",
            {"function": "nothing", "a": 1},
            ("tool_name_guessed:name", "flat_call_object", "tool_definition_missing"),
            (),
        ),
    ),
}


@pytest.mark.parametrize(("reply", "expected"), list(TIES.values()), ids=list(TIES))
def test_a_real_tie_is_a_guess_with_its_own_code(
    pkg: ModuleType, reply: str, expected: tuple[Any, ...]
) -> None:
    """Issue 37 item 1: only a tie the catalog cannot settle is a guess (`tool_name_guessed`)."""
    batch = pkg.parse_reply(reply)
    assert batch.problems == () and calls(batch) == [expected]


def test_two_keys_naming_the_same_tool_are_no_tie(pkg: ModuleType) -> None:
    """Issue 37 item 1: `name` and `tool_name` both say get_weather (once by another spelling):
    no guess, the `name` key's value."""
    (call,) = pkg.parse_reply('{"name": "get_weather", "tool_name": "Get-Weather", "city": "a"}')
    assert call.tool_name == "get_weather"
    assert "tool_name_guessed:name" not in call.warnings


# ---------------------------------------------------------------------------------------------
# Item 3: the forms models send, read by their plain meaning, each with its code

W = "get_weather"
FORMS = {
    "tool-name-map": (
        '{"get_weather": {"city": "Paris"}}',
        [(W, {"city": "Paris"}, ("tool_name_as_key",))],
    ),
    "tool-name-maps-in-a-list": (
        "[{'sports_ranking.get_current': {'team': 'Liverpool'}}, {'get_weather': {'city': 'a'}}]",
        [
            (
                "sports_ranking.get_current",
                {"team": "Liverpool"},
                ("single_quotes_converted", "tool_name_as_key"),
            ),
            (W, {"city": "a"}, ("single_quotes_converted", "tool_name_as_key")),
        ],
    ),
    "bare-calls-one-per-line": (
        'log_food(food_name="iced coffee", portion=1),\nlog_food(food_name="banana", portion=1)',
        [
            (
                "log_food",
                {"food_name": "iced coffee", "portion": 1},
                ("calls_on_separate_lines", "pythonic_call"),
            ),
            (
                "log_food",
                {"food_name": "banana", "portion": 1},
                ("calls_on_separate_lines", "pythonic_call"),
            ),
        ],
    ),
    "bare-calls-without-commas": (
        'get_weather(city="a")\n\nget_weather(city="b")',
        [
            (W, {"city": "a"}, ("calls_on_separate_lines", "pythonic_call")),
            (W, {"city": "b"}, ("calls_on_separate_lines", "pythonic_call")),
        ],
    ),
    "pythonic-lists-one-per-line": (
        '[get_weather(city="a")]\n[get_weather(city="b")]\n[get_weather(city="c")]',
        [
            (W, {"city": city}, ("lists_on_separate_lines", "pythonic_call"))
            for city in ("a", "b", "c")
        ],
    ),
    "json-literals-in-a-pythonic-call": (
        'set_flags(flag=true, data=null, opts={"a": true, "b": [false, null]})',
        [
            (
                "set_flags",
                {"flag": True, "data": None, "opts": {"a": True, "b": [False, None]}},
                ("pythonic_call", "json_literal_in_call"),
            )
        ],
    ),
    "comments-in-pythonic-calls": (
        '[get_weather(city="a"), // first\n /* then */ get_weather(city="b // c")]',
        [
            (W, {"city": "a"}, ("comment_removed", "pythonic_call")),
            (W, {"city": "b // c"}, ("comment_removed", "pythonic_call")),
        ],
    ),
    "comment-lines-between-jsonl-calls": (
        (
            '{"name": "get_weather", "parameters": {"city": "a"}}\n// then b\n'
            '{"name": "get_weather", "parameters": {"city": "b"}}'
        ),
        [(W, {"city": "a"}, ()), (W, {"city": "b"}, ())],
    ),
    "comments-between-members": (
        (
            '[{"name": "get_weather", /* it\'s "a" */ "arguments": {"city": "a"}}, // next\n'
            '{"name": "get_weather", "arguments": {"city": "b"}}]'
        ),
        [
            (W, {"city": "a"}, ("comment_removed", "arguments_envelope:arguments")),
            (W, {"city": "b"}, ("comment_removed", "arguments_envelope:arguments")),
        ],
    ),
    "list-parameter-as-python-list-text": (
        '{"name": "tag_show", "parameters": {"genres": "[\'Friends\', \'Drama\']"}}',
        [("tag_show", {"genres": ["Friends", "Drama"]}, ("list_text_repaired:genres",))],
    ),
    "list-parameter-as-json-list-text": (
        '{"name": "tag_show", "parameters": {"scores": "[1, 2]"}}',
        [("tag_show", {"scores": [1, 2]}, ("string_parsed_as_json:scores",))],
    ),
    "pythonic-lists-in-prose": (
        'First [get_weather(city="a")], then [get_weather(city="b (2)")].',
        [
            (W, {"city": "a"}, ("call_extracted_from_text", "pythonic_call")),
            (W, {"city": "b (2)"}, ("call_extracted_from_text", "pythonic_call")),
        ],
    ),
    "kimi-arguments-as-a-json-string": (
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.todo_write:0"
            '<|tool_call_argument_begin|>"{\\"todos\\": [{\\"content\\": \\"a\\"}]}"'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            (
                "todo_write",
                {"todos": [{"content": "a"}]},
                ("native_format:kimi_k2", "arguments_unquoted"),
            )
        ],
    ),
    "functionary-json-in-a-function-tag": (
        '<function=get_weather>{"city": "a"}</function>\n<function=log_food>{"food_name": "b"}</function>',
        [
            (W, {"city": "a"}, ("native_format:functionary",)),
            ("log_food", {"food_name": "b"}, ("native_format:functionary",)),
        ],
    ),
    "mistral-arguments-as-a-json-string": (
        '[TOOL_CALLS]get_weather[ARGS]"{\\"city\\": \\"a\\"}"',
        [(W, {"city": "a"}, ("native_format:mistral", "arguments_unquoted"))],
    ),
}


@pytest.mark.parametrize(("reply", "expected"), list(FORMS.values()), ids=list(FORMS))
def test_each_form_is_read_by_its_plain_meaning_with_its_code(
    pkg: ModuleType, reply: str, expected: list[tuple[str, dict[str, object], tuple[str, ...]]]
) -> None:
    """Issue 37 item 3: each form the issue lists (refused, or calls lost, before) gives its calls
    through the tool's typed parser, with its own warning code."""
    batch = pkg.parse_reply(reply)
    assert batch.problems == ()
    assert [(tool, values, warnings, ()) for tool, values, warnings in expected] == calls(batch)


def test_a_list_parameter_as_list_text_is_the_parsers_own_coercion(pkg: ModuleType) -> None:
    """Issue 37 item 3: the typed parser reads the text of a Python list (it was a one-item list
    holding the text, and an enum error on genres[0]) in every way arguments come in."""
    for raw in ({"genres": "['Comedy']"}, '{"genres": "[\'Comedy\']"}'):
        request = pkg.parse("tag_show", raw)
        assert (request.values, request.warnings, request.errors) == (
            {"genres": ["Comedy"]},
            ("list_text_repaired:genres",),
            (),
        )
    # Text that is no list stays one value in a list, as before.
    request = pkg.parse("tag_show", {"genres": "[Comedy"})
    assert request.warnings == ("scalar_coerced_to_list:genres",)


# ---------------------------------------------------------------------------------------------
# Item 2: no call dropped in silence

SILENT_BEFORE = {
    "broken-item-in-a-json-array": (
        (
            '[{"name": "get_weather", "arguments": {"city": "a"}}, '
            '{"name": "tag_show", "arguments": {"scores": [1, 2}}, '
            '{"name": "get_weather", "arguments": {"city": "c"}}]'
        ),
        ["a", "c"],
        [(1, "invalid_json")],
    ),
    "broken-first-item": (
        (
            '[{"name": "get_weather", "arguments": {"city": @@}}, '
            '{"name": "get_weather", "arguments": {"city": "b"}}]'
        ),
        ["b"],
        [(1, "invalid_json")],
    ),
    "broken-item-whose-name-comes-after-the-fault": (
        (
            '[{"name": "get_weather", "arguments": {"city": "a"}}, '
            '{"arguments": {"city": @@}, "name": "get_weather"}, '
            '{"name": "get_weather", "arguments": {"city": "c"}}]'
        ),
        ["a", "c"],
        [(1, "invalid_json")],
    ),
    "broken-pythonic-call": (
        '[get_weather(city="a"), get_weather(city=@@), get_weather(city="c")]',
        ["a", "c"],
        [(1, "invalid_call")],
    ),
    "broken-line-of-pythonic-lists": (
        '[get_weather(city="a")]\n[get_weather(city=)]\n[get_weather(city="c")]',
        ["a", "c"],
        [(2, "invalid_call")],
    ),
}


@pytest.mark.parametrize(
    ("reply", "cities", "found"), list(SILENT_BEFORE.values()), ids=list(SILENT_BEFORE)
)
def test_a_broken_call_is_a_problem_and_the_others_come_back(
    pkg: ModuleType, reply: str, cities: list[str], found: list[tuple[int, str]]
) -> None:
    """Issue 37 item 2: the calls around a broken one come back, and a problem names it (only
    the last call came back, or none, with no problem)."""
    batch = pkg.parse_reply(reply)
    assert [(c.tool_name, c.values) for c in batch] == [(W, {"city": c}) for c in cities]
    assert problems(batch) == found


UNREAD = {
    "kimi-section-without-arguments-token": (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
        '{"city": "a"}<|tool_call_end|>'
    ),
    "qwen3-coder-function-tag-broken": (
        "<function=get_weather\n<parameter=city>a</parameter></function>"
    ),
}


@pytest.mark.parametrize("reply", list(UNREAD.values()), ids=list(UNREAD))
def test_call_like_text_never_gives_nothing_in_silence(pkg: ModuleType, reply: str) -> None:
    """Issue 37 item 2: text with call-like content that no reader could read is a problem
    (`unread_call`) naming it, where it gave CallBatch(calls=(), problems=())."""
    batch = pkg.parse_reply(reply)
    assert batch.calls == ()
    assert [(p.line, p.reason, p.text) for p in batch.problems] == [
        (1, "unread_call", reply.strip()[:200])
    ]


@pytest.mark.parametrize(
    "reply",
    ["Hello!", "f(x) is {a} in (b)", "[1, 2, 3]", "get_weather is a tool", "Use {city} here."],
)
def test_text_without_call_like_content_gives_no_call_and_no_problem(
    pkg: ModuleType, reply: str
) -> None:
    """Issue 37 item 2: CallBatch(calls=(), problems=()) stays the answer for text with no
    call-like content."""
    batch = pkg.parse_reply(reply)
    assert batch.calls == ()
    assert all(p.reason != "unread_call" for p in batch.problems)


# The property: N calls in every shape the reader knows, one damaged. A damaged call's arguments
# hold `@@`, which no rule reads, in the place of the city's value (for Qwen3-Coder's XML, whose
# values are text, the parameter's name).
DAMAGE = "@@"


def _json_call(city: str | None) -> str:
    value = DAMAGE if city is None else json.dumps(city)
    return f'{{"name": "get_weather", "arguments": {{"city": {value}}}}}'


def _arguments(city: str | None) -> str:
    return f'{{"city": {DAMAGE if city is None else json.dumps(city)}}}'


def _pythonic(city: str | None) -> str:
    return f"get_weather(city={DAMAGE if city is None else json.dumps(city)})"


def _xml(city: str | None) -> str:
    key = "city" if city is not None else DAMAGE
    return f"<function=get_weather><parameter={key}>{city}</parameter></function>"


def _joined(parts: list[str], sep: str, head: str = "", tail: str = "") -> str:
    return head + sep.join(parts) + tail


SHAPES_OF_N = {
    "json-array": lambda c: _joined([_json_call(x) for x in c], ", ", "[", "]"),
    "json-array-in-prose": lambda c: _joined(
        [_json_call(x) for x in c], ",\n", "Here are the calls:\n[", "]\nDone."
    ),
    "name-after-arguments": lambda c: _joined(
        [f'{{"arguments": {_arguments(x)}, "name": "get_weather"}}' for x in c], ", ", "[", "]"
    ),
    "objects-in-a-row": lambda c: _joined([_json_call(x) for x in c], " "),
    "jsonl": lambda c: _joined([_json_call(x) for x in c], "\n"),
    "fenced-array": lambda c: _joined([_json_call(x) for x in c], ",\n", "```json\n[", "]\n```"),
    "tool-name-maps": lambda c: _joined(
        [f'{{"get_weather": {_arguments(x)}}}' for x in c], ", ", "[", "]"
    ),
    "hermes": lambda c: _joined([f"<tool_call>\n{_json_call(x)}\n</tool_call>" for x in c], "\n"),
    "mistral-list": lambda c: _joined([_json_call(x) for x in c], ", ", "[TOOL_CALLS][", "]"),
    "mistral-args": lambda c: "".join(f"[TOOL_CALLS]get_weather[ARGS]{_arguments(x)}" for x in c),
    "llama": lambda c: _joined([_json_call(x) for x in c], "; ", "<|python_tag|>"),
    "deepseek": lambda c: _joined(
        [
            f"<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{_arguments(x)}<｜tool▁call▁end｜>"
            for x in c
        ],
        "",
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁calls▁end｜>",
    ),
    "kimi": lambda c: _joined(
        [
            "<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
            f"{_arguments(x)}<|tool_call_end|>"
            for x in c
        ],
        "",
        "<|tool_calls_section_begin|>",
        "<|tool_calls_section_end|>",
    ),
    "harmony": lambda c: "".join(
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
        f"<|message|>{_arguments(x)}<|call|>"
        for x in c
    ),
    "qwen3-coder": lambda c: "\n".join(f"<tool_call>\n{_xml(x)}\n</tool_call>" for x in c),
    "pythonic-list": lambda c: _joined([_pythonic(x) for x in c], ", ", "[", "]"),
    "pythonic-list-in-prose": lambda c: _joined([_pythonic(x) for x in c], ", ", "Calls: [", "]"),
    "pythonic-lists-per-line": lambda c: "\n".join(f"[{_pythonic(x)}]" for x in c),
    "bare-calls-per-line": lambda c: ",\n".join(_pythonic(x) for x in c),
}
CITY = st.text(alphabet="abcdefghij XYZ-é'", min_size=1, max_size=8)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    shape=st.sampled_from(sorted(SHAPES_OF_N)),
    cities=st.lists(CITY, min_size=2, max_size=5),
    damaged=st.integers(min_value=0, max_value=4),
)
def test_a_damaged_call_loses_only_itself(
    pkg: ModuleType, shape: str, cities: list[str], damaged: int
) -> None:
    """Issue 37 item 2: N calls in every shape the reader knows, one damaged: the other N-1 come
    back, in order, and a problem (or an error on the call) names the damaged one."""
    damaged %= len(cities)
    sent: list[str | None] = [None if i == damaged else city for i, city in enumerate(cities)]
    batch = pkg.parse_reply(SHAPES_OF_N[shape](sent))
    good = [call for call in batch if call.ok]
    assert [(c.tool_name, c.values) for c in good] == [
        (W, {"city": city}) for city in sent if city is not None
    ]
    refused = [call for call in batch if not call.ok]
    named = [p for p in batch.problems if DAMAGE in p.text] + [
        c for c in refused if DAMAGE in json.dumps(c.values) or DAMAGE in c.raw_arguments
    ]
    assert len(named) >= 1, (batch.problems, refused)


# ---------------------------------------------------------------------------------------------
# Linear, counted: the new scans hand each character to a scanner a bounded number of times


class Counted:
    """A compiled pattern that counts the characters each search or match is handed."""

    def __init__(self, pattern: re.Pattern[str], tally: list[int]) -> None:
        self._pattern = pattern
        self._tally = tally

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        end = len(text) if endpos is None else endpos
        found = self._pattern.search(text, pos, end)
        self._tally[0] += (found.end() if found is not None else end) - pos
        return found

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        end = len(text) if endpos is None else endpos
        found = self._pattern.match(text, pos, end)
        self._tally[0] += max(1, found.end() - pos) if found is not None else 1
        return found


WORST = {
    "bare-calls-with-comments": lambda k: 'get_weather(city="a") // it\'s {a}\n' * k,
    "broken-items-of-an-array": lambda k: (
        "[" + '{"name": "get_weather", "arguments": {"city": [1}}, ' * k + "]"
    ),
    "broken-objects-in-a-row": lambda k: '{"name": "get_weather", "arguments": {"c": @}} ' * k,
    "lists-in-prose": lambda k: 'see [get_weather(city="a")] and ' * k + "[get_weather(",
    "lists-per-line-one-broken": lambda k: '[get_weather(city="a")]\n' * k + "[get_weather(]\n",
}


@pytest.mark.parametrize("shape", list(WORST), ids=list(WORST))
def test_the_new_scans_are_linear_counted(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """Issue 37 (linear time): over texts of k and 2k calls in the shapes the new scans read
    (lines of pythonic calls, comments, broken items that no longer end the reading), the
    characters handed to the scanners and the names asked of the catalog grow with the text."""
    reply = importlib.import_module(f"{pkg.__name__}._reply")
    repair = importlib.import_module(f"{pkg.__name__}._repair")
    calls_module = importlib.import_module(f"{pkg.__name__}._calls")
    tally = [0]
    for module, name in ((reply, "_SPECIAL"), (reply, "_SLASHES"), (repair, "_TOKEN")):
        monkeypatch.setattr(module, name, Counted(getattr(module, name), tally))
    asked = [0]
    knows = calls_module.Catalog.knows

    def counted_knows(catalog: Any, name: str) -> bool:
        asked[0] += 1
        return bool(knows(catalog, name))

    monkeypatch.setattr(calls_module.Catalog, "knows", counted_knows)
    costs = []
    for k in (500, 1000):
        text = WORST[shape](k)
        tally[0] = asked[0] = 0
        batch = pkg.parse_reply(text)
        assert len(batch) + len(batch.problems) >= k
        assert tally[0] <= 8 * len(text) and asked[0] <= 4 * k
        costs.append(tally[0] + asked[0])
    assert costs[1] <= 2.2 * costs[0] + 100


def test_what_python_warns_of_in_model_text_loses_no_call(pkg: ModuleType) -> None:
    """Review of issue 37: pythonic calls are read with Python's own parser, which warns of an
    invalid escape (a Windows path) or `0x` before a letter; under `-W error` (or pytest's
    `filterwarnings = error`) the call was lost. The warning is Python's about source code, not
    the reader's about the reply: it is not raised, and not said on stderr."""
    reply = '[log_food(food_name="C:\\data\\docs", portion=0x1)]'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch = pkg.parse_reply(reply)
    assert batch.problems == ()
    assert [(c.tool_name, c.values) for c in batch.calls] == [
        ("log_food", {"food_name": "C:\\data\\docs", "portion": 1})
    ]


MIXED = {
    "json-after-hermes": (
        (
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
            'Also: {"name": "get_weather", "arguments": {"city": "Rome"}}'
        ),
        2,
        "Paris",
    ),
    "pythonic-after-hermes": (
        (
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
            '[get_weather(city="Rome")]'
        ),
        2,
        "Paris",
    ),
    "json-before-hermes": (
        (
            '{"name": "get_weather", "arguments": {"city": "Rome"}}\n'
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        ),
        1,
        "Paris",
    ),
    "json-after-xml": (
        (
            "<function=get_weather><parameter=city>Paris</parameter></function>\n"
            '{"name": "get_weather", "arguments": {"city": "Rome"}}'
        ),
        2,
        "Paris",
    ),
    "hermes-after-mistral": (
        (
            '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}\n'
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
        ),
        1,
        "Rome",
    ),
}


@pytest.mark.parametrize(("reply", "line", "read"), list(MIXED.values()), ids=list(MIXED))
def test_call_like_text_beside_a_native_format_is_said(
    pkg: ModuleType, reply: str, line: int, read: str
) -> None:
    """Review of issue 37 item 2: a reply in an open model's own format read only that format,
    and a call written beside it in another shape was lost in silence. The call in the format
    read comes back; the other is an `unread_call` problem on its line."""
    batch = pkg.parse_reply(reply)
    other = ({"Paris", "Rome"} - {read}).pop()
    assert [(c.tool_name, c.values) for c in batch.calls] == [("get_weather", {"city": read})]
    assert [(p.line, p.reason) for p in batch.problems] == [(line, "unread_call")]
    assert other in batch.problems[0].text
